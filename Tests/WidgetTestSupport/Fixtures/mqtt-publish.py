#!/usr/bin/env python3
"""Publishes messages to an MQTT broker: a small MQTT 3.1.1 client on the standard library,
independent of the libmosquitto the widget uses.

Each line of FILE is one message: TOPIC, a tab, flags, a tab, the payload in hex. Flags: r
(retained) or - (not), and t: the payload is the line's text as written, not hex
(Examples/mqtt-sample.txt). QoS 0; a PINGREQ answered after the last message means the broker has taken them
all (it reads a connection in order) before the DISCONNECT. Exits 1 with the reason on stderr.

Usage: mqtt-publish.py PORT FILE
"""
import socket, sys

def length(n):
    out = bytearray()
    while True:
        byte, n = n % 128, n // 128
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)

def string(text):
    data = text.encode()
    return len(data).to_bytes(2, "big") + data

def packet(kind, body):
    return bytes([kind]) + length(len(body)) + body

def read_packet(sock):
    head = sock.recv(1)
    if not head:
        sys.exit("the broker closed the connection")
    n, shift = 0, 0
    while True:
        b = sock.recv(1)[0]
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
    body = b""
    while len(body) < n:
        body += sock.recv(n - len(body))
    return head[0], body

def main():
    port, path = int(sys.argv[1]), sys.argv[2]
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(packet(0x10, string("MQTT") + bytes([4, 0x02]) + (60).to_bytes(2, "big") + string("test-publisher")))
    kind, body = read_packet(sock)
    if kind != 0x20 or body[1] != 0:
        sys.exit("CONNACK refused: %r" % body)
    out = bytearray()
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            topic, flags, payload = line.rstrip("\n").split("\t", 2)
            data = payload.encode() if "t" in flags else bytes.fromhex(payload)
            out += packet(0x30 | (1 if "r" in flags else 0), string(topic) + data)
            if len(out) > 1 << 20:
                sock.sendall(out)
                out = bytearray()
    sock.sendall(out + packet(0xC0, b""))
    while read_packet(sock)[0] != 0xD0:
        pass
    sock.sendall(packet(0xE0, b""))
    sock.close()

main()
