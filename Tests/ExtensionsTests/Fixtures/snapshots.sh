#!/bin/sh
# Answers snapshot ({entry}: one entry naming the instance and isPreview) and timeline (one
# entry, "from the timeline"); logs each method it gets, so a test can see which was asked.
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    method=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":[0-9]*,"method":"\([A-Za-z]*\)".*/\1/p')
    instance=$(printf '%s\n' "$line" | sed -n 's/.*"instance":"\([^"]*\)".*/\1/p')
    preview=$(printf '%s\n' "$line" | sed -n 's/.*"isPreview":\([a-z]*\).*/\1/p')
    [ -n "$method" ] && printf '{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"got %s"}}\n' "$method"
    case "$method" in
    initialize) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    snapshot)
        printf '{"jsonrpc":"2.0","id":%s,"result":{"entry":{"date":"2026-11-30T22:00:00Z","relevance":{"score":1},"view":{"type":"text","spans":[{"text":"snap %s preview=%s"}]}}}}\n' "$id" "$instance" "$preview" ;;
    timeline)
        printf '{"jsonrpc":"2.0","id":%s,"result":{"entries":[{"date":"2026-11-30T22:00:00Z","view":{"type":"text","spans":[{"text":"from the timeline"}]}}],"policy":"never"}}\n' "$id" ;;
    shutdown) printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"; exit 0 ;;
    *) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"unknown method"}}\n' "$id" ;;
    esac
done
