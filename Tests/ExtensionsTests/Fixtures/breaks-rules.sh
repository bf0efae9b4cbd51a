#!/bin/sh
# An extension that breaks docs/extensions.md on purpose, one rule per request, for
# `widgethost extension test`: a view without a type at size 1x1, a snapshot in a timeline's
# shape, an action answered with a string, a result to a method it does not know, and after
# shutdown it lingers (3 s) instead of exiting.
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    method=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":[0-9]*,"method":"\([A-Za-z]*\)".*/\1/p')
    case "$method" in
    initialize) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    timeline)
        case "$line" in
        *'"columns":1,"rows":1'*)
            printf '{"jsonrpc":"2.0","id":%s,"result":{"entries":[{"date":"2030-01-01T00:00:00Z","view":{"spans":[]}}],"policy":"never"}}\n' "$id" ;;
        *)
            printf '{"jsonrpc":"2.0","id":%s,"result":{"entries":[{"date":"2030-01-01T00:00:00Z","view":{"type":"text","spans":[{"text":"ok"}]}}],"policy":"never"}}\n' "$id" ;;
        esac ;;
    snapshot)
        printf '{"jsonrpc":"2.0","id":%s,"result":{"entries":[]}}\n' "$id" ;;
    action)
        printf '{"jsonrpc":"2.0","id":%s,"result":"done"}\n' "$id" ;;
    shutdown)
        printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"
        sleep 3
        exit 0 ;;
    *)
        printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
    esac
done
sleep 3
