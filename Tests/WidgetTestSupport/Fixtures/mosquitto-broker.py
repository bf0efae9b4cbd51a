#!/usr/bin/env python3
"""The real Mosquitto broker on a loopback port, for the tests.

Starts Debian's `mosquitto` with its own config under DIR (`listener PORT 127.0.0.1`,
persistence off; anonymous clients allowed unless --user is given), waits until it accepts
connections, then prints "mqtt://127.0.0.1:PORT" on its first line of stdout and waits.
SIGTERM stops it. Exits 1 (with the reason on stderr) when it cannot be started.

Usage: mosquitto-broker.py DIR [--port PORT] [--user NAME:PASSWORD]
  --port   this port (a broker started again where a test's panel expects it); default: a free one
  --user   only this user, with this password (a password file made with mosquitto_passwd)
"""
import os, signal, socket, subprocess, sys, threading, time

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def main():
    args = sys.argv[1:]
    directory = args.pop(0)
    port, user = None, None
    while args:
        flag = args.pop(0)
        if flag == "--port":
            port = int(args.pop(0))
        elif flag == "--user":
            user = args.pop(0).split(":", 1)
        else:
            sys.exit("unknown argument " + flag)
    port = port or free_port()
    config = os.path.join(directory, "mosquitto-%d.conf" % port)
    # Run as root (a container's test run), mosquitto would drop to its own user and could not
    # read the password file in the test's private directory.
    lines = ["listener %d 127.0.0.1" % port, "persistence false", "log_dest stderr", "log_type error", "log_type warning"]
    if os.getuid() == 0:
        lines.append("user root")
    if user:
        passwords = os.path.join(directory, "mosquitto-%d.passwd" % port)
        open(passwords, "w").close()
        subprocess.run(["mosquitto_passwd", "-b", passwords, user[0], user[1]], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        lines += ["allow_anonymous false", "password_file " + passwords]
    else:
        lines.append("allow_anonymous true")
    with open(config, "w") as f:
        f.write("\n".join(lines) + "\n")
    broker = subprocess.Popen(["/usr/sbin/mosquitto", "-c", config])
    stopping = []
    def stop(*_):
        # Only ask: the main thread's broker.wait() returns when it has gone (a second
        # wait here would spin on Popen's lock until its timeout).
        stopping.append(True)
        if broker.poll() is None:
            broker.terminate()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # A test process that dies without stopping us: the broker goes too (no orphans).
    parent = os.getppid()
    def watch_parent():
        while os.getppid() == parent:
            time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGTERM)
    threading.Thread(target=watch_parent, daemon=True).start()
    deadline = time.monotonic() + 15
    while True:
        if broker.poll() is not None:
            sys.exit("mosquitto exited with status %d" % broker.returncode)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            if time.monotonic() > deadline:
                broker.kill()
                sys.exit("mosquitto does not accept connections on port %d" % port)
            time.sleep(0.02)
    print("mqtt://127.0.0.1:%d" % port, flush=True)
    broker.wait()
    if stopping:
        sys.exit(0)
    sys.exit("mosquitto exited with status %d" % broker.returncode)

main()
