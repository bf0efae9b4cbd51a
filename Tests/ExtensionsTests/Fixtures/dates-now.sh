#!/bin/sh
# An extension that does what docs/extensions.md says: it dates its first entry "now" — its
# own now, when it answers, a little after the host asked (launch and work take time).
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    method=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":[0-9]*,"method":"\([A-Za-z]*\)".*/\1/p')
    case "$method" in
    initialize) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    timeline)
        sleep 0.3
        now=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
        printf '{"jsonrpc":"2.0","id":%s,"result":{"entries":[{"date":"%s","view":{"type":"text","spans":[{"text":"entry dated now"}]}}],"policy":"never"}}\n' "$id" "$now" ;;
    shutdown) printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"; exit 0 ;;
    *) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"unknown method"}}\n' "$id" ;;
    esac
done
