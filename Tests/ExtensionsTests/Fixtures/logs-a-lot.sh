#!/bin/sh
# Answers initialize; on a timeline request first sends 100,000 log notifications (awk, so it
# takes a second, not minutes), then answers. A host that grows anything per log line shows it.
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    *'"method":"timeline"'*)
        awk 'BEGIN { for (i = 1; i <= 100000; i++) printf "{\"jsonrpc\":\"2.0\",\"method\":\"log\",\"params\":{\"message\":\"line %d\"}}\n", i }'
        printf '{"jsonrpc":"2.0","id":%s,"result":{"entries":[],"policy":"never"}}\n' "$id" ;;
    esac
done
