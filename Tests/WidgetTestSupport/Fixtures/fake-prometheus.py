#!/usr/bin/env python3
"""A fake Prometheus HTTP API on a free 127.0.0.1 port, for the fault tests.

Prints its base URL on the first line of stdout, then serves `/api/v1/query` and
`/api/v1/query_range` until SIGTERM:
  --series N   answer N series (instant: a vector; range: a matrix of --points points each)
  --points N   points per series of a range answer (default 10)
  --sleep S    wait S seconds before answering (a slow server)
  --label TEXT the `instance` label of the first series (hostile text)
Every request is logged on stderr as "GET <path>".
"""
import argparse, json, os, signal, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

options = None

def answer(path):
    now = time.time()
    if path.startswith("/api/v1/query_range"):
        result = [{"metric": {"__name__": "m", "instance": options.label if i == 0 else "h%d" % i},
                   "values": [[now - (options.points - p), str(i + p)] for p in range(options.points)]}
                  for i in range(options.series)]
        kind = "matrix"
    else:
        result = [{"metric": {"__name__": "m", "instance": options.label if i == 0 else "h%d" % i},
                   "value": [now, str(i)]} for i in range(options.series)]
        kind = "vector"
    return json.dumps({"status": "success", "data": {"resultType": kind, "result": result}},
                      separators=(",", ":")).encode()

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        print("GET " + self.path, file=sys.stderr, flush=True)
        if options.sleep:
            time.sleep(options.sleep)
        body = answer(self.path)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            pass
    def log_message(self, *args):
        pass

def main():
    global options
    parser = argparse.ArgumentParser()
    parser.add_argument("--series", type=int, default=1)
    parser.add_argument("--points", type=int, default=10)
    parser.add_argument("--sleep", type=float, default=0)
    parser.add_argument("--label", default="h0")
    options = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    # A test process that dies without stopping us: we go too.
    parent = os.getppid()
    def watch_parent():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)
    threading.Thread(target=watch_parent, daemon=True).start()
    print("http://127.0.0.1:%d" % server.server_address[1], flush=True)
    server.serve_forever()

if __name__ == "__main__":
    main()
