#!/usr/bin/env python3
"""The real Mosquitto broker on a loopback port, for the tests.

Starts Debian's `mosquitto` with its own config under DIR (`listener PORT 127.0.0.1`,
persistence off; anonymous clients allowed unless --user is given), waits until it accepts
connections, then prints "mqtt://127.0.0.1:PORT" on its first line of stdout and waits.
SIGTERM stops it. Exits 1 (with the reason on stderr) when it cannot be started.

Usage: mosquitto-broker.py DIR [--port PORT] [--user NAME:PASSWORD] [--tls]
  --port   this port (a broker started again where a test's panel expects it); default: a free one
  --user   only this user, with this password (a password file made with mosquitto_passwd)
  --tls    also a TLS listener on another free port, its certificate (for IP 127.0.0.1) signed
           by a certificate authority made here with openssl; the first line then goes on
           "mqtts://127.0.0.1:TLSPORT CAFILE"
"""
import os, signal, socket, subprocess, sys, threading, time

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def main():
    args = sys.argv[1:]
    directory = args.pop(0)
    port, user, tls = None, None, False
    while args:
        flag = args.pop(0)
        if flag == "--port":
            port = int(args.pop(0))
        elif flag == "--user":
            user = args.pop(0).split(":", 1)
        elif flag == "--tls":
            tls = True
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
    extras = ""
    if tls:
        tls_port = free_port()
        ca, key = os.path.join(directory, "ca.crt"), os.path.join(directory, "ca.key")
        server_key, server_csr, server_crt = (os.path.join(directory, "server." + e) for e in ("key", "csr", "crt"))
        def openssl(*arguments):
            subprocess.run(["openssl"] + list(arguments), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=widgethost test CA",
                "-keyout", key, "-out", ca)
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", server_key, "-out", server_csr)
        extensions = os.path.join(directory, "san.cnf")
        with open(extensions, "w") as f:
            f.write("subjectAltName=IP:127.0.0.1\n")
        openssl("x509", "-req", "-in", server_csr, "-CA", ca, "-CAkey", key, "-CAcreateserial", "-days", "2",
                "-extfile", extensions, "-out", server_crt)
        lines += ["listener %d 127.0.0.1" % tls_port, "cafile " + ca, "certfile " + server_crt, "keyfile " + server_key]
        extras = " mqtts://127.0.0.1:%d %s" % (tls_port, ca)
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
    print("mqtt://127.0.0.1:%d%s" % (port, extras), flush=True)
    broker.wait()
    if stopping:
        sys.exit(0)
    sys.exit("mosquitto exited with status %d" % broker.returncode)

main()
