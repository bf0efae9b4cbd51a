#!/bin/sh
# The benchmark's extension (widgethost-bench figure 10), POSIX sh: each `timeline` answers one
# entry, "request N", dated now, with the policy "never" — so the screen changes on every
# request and nothing but the bench asks for one. Relies on the host's compact request lines
# (docs/extensions.md).
set -u
n=0
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    method=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":[0-9]*,"method":"\([A-Za-z]*\)".*/\1/p')
    [ -n "$id" ] || continue
    case "$method" in
    initialize) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    timeline|snapshot)
        n=$((n + 1))
        now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
        entry="{\"date\":\"$now\",\"view\":{\"type\":\"text\",\"spans\":[{\"text\":\"request $n\"}]}}"
        if [ "$method" = snapshot ]; then
            printf '{"jsonrpc":"2.0","id":%s,"result":{"entry":%s}}\n' "$id" "$entry"
        else
            printf '{"jsonrpc":"2.0","id":%s,"result":{"entries":[%s],"policy":"never"}}\n' "$id" "$entry"
        fi ;;
    shutdown) printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"; exit 0 ;;
    *) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"unknown method"}}\n' "$id" ;;
    esac
done
