extension ExtensionTemplate {
    static let python = ExtensionTemplate(files: [
        manifest(exec: #"["python3", "NAME.py"]"#, language: "Python 3"),
        File(path: "NAME.py", text: #"""
            #!/usr/bin/env python3
            """NAME: a WidgetHost extension in Python 3, standard library only (docs/extensions.md).

            The host writes one JSON-RPC 2.0 request per line on stdin; answer each with one line
            on stdout and flush. stderr goes to the host's log. Check it with
            `widgethost extension test PATH-OF-THIS-FOLDER`.
            """
            import json
            import os
            import sys
            from datetime import datetime, timedelta, timezone

            # A folder of its own for state that outlives the process (WIDGETHOST_EXTENSION_DATA).
            DATA = os.environ.get("WIDGETHOST_EXTENSION_DATA", ".")
            COUNT_FILE = os.path.join(DATA, "count")


            def send(message):
                sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
                sys.stdout.flush()


            def iso(moment):
                return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


            def count():
                try:
                    with open(COUNT_FILE) as file:
                        return int(file.read().strip() or 0)
                except (OSError, ValueError):
                    return 0


            def view(greeting, moment, family):
                lines = [
                    {"type": "text", "spans": [{"text": greeting, "role": "accent", "bold": True}]},
                    {"type": "text", "spans": [{"text": moment.strftime("%H:%M") + " UTC", "role": "muted"}]},
                ]
                if family != "small":
                    lines.append({"type": "text", "spans": [{"text": "c pressed %d times" % count()}]})
                return {"type": "vstack", "children": lines}


            def timeline(params):
                """One entry a minute for five minutes, then ask again when they are over."""
                greeting = params.get("options", {}).get("greeting", "Hello")
                family = params.get("family", "small")
                start = datetime.now(timezone.utc).replace(second=0, microsecond=0)
                minutes = [start + timedelta(minutes=i) for i in range(5)]
                entries = [{"date": iso(m), "view": view(greeting, m, family)} for m in minutes]
                return {"entries": entries, "policy": {"after": iso(start + timedelta(minutes=5))}}


            def action(params):
                if params.get("action") == "c":
                    with open(COUNT_FILE, "w") as file:
                        file.write(str(count() + 1))
                return {}


            def main():
                for line in sys.stdin:  # ends at EOF: the host has gone, or asked us to stop
                    try:
                        message = json.loads(line)
                    except ValueError:
                        continue
                    method, ident = message.get("method"), message.get("id")
                    if ident is None:
                        continue  # a notification, or an answer to a request of ours
                    params = message.get("params") or {}
                    try:
                        if method == "initialize":
                            result = {"protocol": 1}
                        elif method == "timeline":
                            result = timeline(params)
                        elif method == "snapshot":
                            result = {"entry": timeline(params)["entries"][0]}
                        elif method == "action":
                            result = action(params)
                        elif method == "shutdown":
                            send({"jsonrpc": "2.0", "id": ident, "result": {}})
                            return
                        else:
                            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "unknown method"}})
                            continue
                        send({"jsonrpc": "2.0", "id": ident, "result": result})
                    except Exception as error:  # an error answer, never a crash, for one bad request
                        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32000, "message": str(error)}})


            if __name__ == "__main__":
                main()

            """#, executable: true),
    ])
}
