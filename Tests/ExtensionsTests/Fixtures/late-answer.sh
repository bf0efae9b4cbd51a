#!/bin/sh
# Answers the first timeline request only after the host gave up on it (its requestSeconds
# is 2), then answers the next one at once: the late answer must be dropped, not mistaken
# for the second.
count=0
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    *'"method":"timeline"'*)
        count=$((count + 1))
        if [ "$count" = 1 ]; then
            sleep 3
            text=late
        else
            text=fresh
        fi
        printf '{"jsonrpc":"2.0","id":%s,"result":{"entries":[{"date":"2026-11-30T22:00:00Z","view":{"type":"text","spans":[{"text":"%s"}]}}],"policy":"never"}}\n' "$id" "$text" ;;
    esac
done
