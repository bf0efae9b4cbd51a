# An extension whose kind `pick` has a dynamic option `site`: its `options` answer depends on
# the query — "slow" never answers in time, "hostile" sends 10,000 items with control
# characters, "huge" a line over 1 MiB, "bad" (or the option `session` "bad") a wrong shape,
# "fail" an error; anything else the sites containing it.
import json
import sys
import time

SITES = ["alpha.example", "beta.example", "gamma.example"]


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def options(params):
    query = params.get("query", "")
    if query == "slow":
        time.sleep(30)
    if query == "hostile":
        items = [{"value": f"s{i}", "title": f"\u001b[2J\u0007e{i}"} for i in range(10000)]
        items[0] = {"value": "s0", "title": "\u001b[2J\u001b]52;c;AAAA\u0007evil 0\u0085", "subtitle": "\u001b[31mred\r\nline"}
        return {"items": items}
    if query == "huge":
        return {"items": [{"value": f"site{i}", "title": "x" * 200} for i in range(10000)]}
    session = params.get("options", {}).get("session", "")
    if query == "bad" or session == "bad":
        return {"items": [{"value": 42, "title": "not a string value"}]}
    return {"items": [{"value": site, "title": site.upper(), "subtitle": f"session {session}"}
                      for site in SITES if query in site]}


for line in sys.stdin:
    message = json.loads(line)
    mid, method, params = message.get("id"), message.get("method"), message.get("params") or {}
    if mid is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"protocol": 1}})
    elif method == "timeline":
        view = {"type": "text", "spans": [{"text": "site " + str(params.get("options", {}).get("site"))}]}
        send({"jsonrpc": "2.0", "id": mid, "result": {"entries": [{"date": "2026-11-30T10:00:00Z", "view": view}], "policy": "never"}})
    elif method == "options" and params.get("query") == "fail":
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": 7, "message": "no sites today"}})
    elif method == "options":
        send({"jsonrpc": "2.0", "id": mid, "result": options(params)})
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
        sys.exit(0)
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "unknown method"}})
