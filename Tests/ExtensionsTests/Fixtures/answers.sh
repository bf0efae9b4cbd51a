#!/bin/sh
# A well-behaved fake extension: answers initialize, action (u: logged; others refused),
# timeline (two entries naming the
# instance and how many times it was launched) and shutdown; counts launches in its data
# directory; exits when stdin closes.
launches=0
if [ -n "$WIDGETHOST_EXTENSION_DATA" ]; then
    launches=$(cat "$WIDGETHOST_EXTENSION_DATA/launches" 2>/dev/null || echo 0)
    launches=$((launches + 1))
    echo "$launches" > "$WIDGETHOST_EXTENSION_DATA/launches"
fi
echo "fake extension started (launch $launches)" >&2
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    method=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":[0-9]*,"method":"\([A-Za-z]*\)".*/\1/p')
    instance=$(printf '%s\n' "$line" | sed -n 's/.*"instance":"\([^"]*\)".*/\1/p')
    case "$method" in
    initialize) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    timeline)
        printf '{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"timeline for %s"}}\n' "$instance"
        printf '{"jsonrpc":"2.0","id":%s,"result":{"entries":[{"date":"2026-11-30T22:00:00Z","view":{"type":"text","spans":[{"text":"hello %s launch %s","role":"accent"}]}},{"date":"2026-11-30T23:00:00+01:00","relevance":{"score":2,"duration":60},"view":{"type":"text","spans":[{"text":"second"}]}}],"policy":{"after":"2026-12-01T00:00:00Z"}}}\n' "$id" "$instance" "$launches" ;;
    action)
        key=$(printf '%s\n' "$line" | sed -n 's/.*"action":"\([^"]*\)".*/\1/p')
        if [ "$key" = "u" ]; then
            printf '{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"action %s for %s"}}\n' "$key" "$instance"
            printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"
        else
            printf '{"jsonrpc":"2.0","id":%s,"error":{"code":1,"message":"no such action"}}\n' "$id"
        fi ;;
    shutdown) printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"; exit 0 ;;
    *) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"unknown method"}}\n' "$id" ;;
    esac
done
