#!/bin/sh
# Answers initialize and every sessionEvents (with {}), fast (Python: thousands of them); logs
# on stderr how many sessionEvents it answered, every 500.
exec python3 -c '
import json, sys
answered = 0
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message or "method" not in message:
        continue
    method = message["method"]
    if method == "initialize":
        result = {"protocol": 1}
    elif method == "sessionEvents":
        answered += 1
        result = {}
        if answered % 500 == 0:
            print("answered %d" % answered, file=sys.stderr, flush=True)
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "unknown"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
'
