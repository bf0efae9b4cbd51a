#!/bin/sh
# Answers initialize, then exits in the middle of the first timeline request.
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    *'"method":"timeline"'*) printf '{"jsonrpc":"2.0","id":%s,' "$id"; exit 1 ;;
    esac
done
