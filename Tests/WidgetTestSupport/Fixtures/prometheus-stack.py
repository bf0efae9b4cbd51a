#!/usr/bin/env python3
"""A real Prometheus and node exporter on loopback ports, for the tests.

Starts `prometheus-node-exporter` and `prometheus` (Debian's) on free 127.0.0.1 ports with a
temporary config (scrape interval 1 s) and data directory under DIR, waits until Prometheus
has scraped the exporter three times, then prints Prometheus's base URL and the exporter's
address on its first line of stdout ("URL EXPORTER") and waits. SIGTERM stops both. Exits 1
(with the reason on stderr) when either cannot be started.

Usage: prometheus-stack.py DIR
"""
import json, os, signal, socket, subprocess, sys, threading, time, urllib.request

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def main():
    directory = sys.argv[1]
    children = []
    def stop(*_):
        for child in children:
            if child.poll() is None:
                child.terminate()
        for child in children:
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                child.kill()
        sys.exit(0)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # A test process that dies without stopping us: the servers go too (no orphans).
    parent = os.getppid()
    def watch_parent():
        while os.getppid() == parent:
            time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGTERM)
    threading.Thread(target=watch_parent, daemon=True).start()
    exporter_port, prometheus_port = free_port(), free_port()
    exporter = "127.0.0.1:%d" % exporter_port
    config = os.path.join(directory, "prometheus.yml")
    with open(config, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "scrape_configs:\n  - job_name: node\n    static_configs:\n      - targets: ['%s']\n" % exporter)
    log = open(os.path.join(directory, "servers.log"), "w")
    children.append(subprocess.Popen(["prometheus-node-exporter", "--web.listen-address=" + exporter],
                                     stdout=log, stderr=log, stdin=subprocess.DEVNULL))
    children.append(subprocess.Popen(["prometheus", "--config.file=" + config,
                                      "--storage.tsdb.path=" + os.path.join(directory, "data"),
                                      "--web.listen-address=127.0.0.1:%d" % prometheus_port],
                                     stdout=log, stderr=log, stdin=subprocess.DEVNULL))
    url = "http://127.0.0.1:%d" % prometheus_port
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + float(os.environ.get("STACK_TIMEOUT", "60"))
    while time.monotonic() < deadline:
        for child in children:
            if child.poll() is not None:
                print("%s exited with %s; see %s" % (child.args[0], child.returncode, log.name), file=sys.stderr)
                stop()
        try:
            # Three scrapes at least, so a rate over a few seconds has data at once.
            with opener.open(url + "/api/v1/query?query=count_over_time(up%5B1m%5D)", timeout=2) as answer:
                result = json.load(answer)["data"]["result"]
                if any(float(series["value"][1]) >= 3 for series in result):
                    break
        except Exception:
            pass
        time.sleep(0.2)
    else:
        print("prometheus did not scrape the exporter in time; see %s" % log.name, file=sys.stderr)
        for child in children:
            child.kill()
        sys.exit(1)
    print(url, exporter, flush=True)
    while True:
        signal.pause()

if __name__ == "__main__":
    main()
