#!/usr/bin/env python3
"""The benchmark's extension (widgethost-bench figure 10) in Python: as counter.sh, each
`timeline` answers one entry, "request N", dated now, with the policy "never"."""
import json
import sys
from datetime import datetime, timezone

n = 0
for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if "id" not in message:
        continue
    method, answer = message.get("method"), None
    if method == "initialize":
        answer = {"result": {"protocol": 1}}
    elif method in ("timeline", "snapshot"):
        n += 1
        now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        entry = {"date": now, "view": {"type": "text", "spans": [{"text": f"request {n}"}]}}
        answer = {"result": {"entry": entry} if method == "snapshot" else {"entries": [entry], "policy": "never"}}
    elif method == "shutdown":
        answer = {"result": {}}
    else:
        answer = {"error": {"code": -32601, "message": "unknown method"}}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], **answer}) + "\n")
    sys.stdout.flush()
    if method == "shutdown":
        break
