#!/bin/sh
# Answers initialize, then sends a line of 100 MB (the host reads 1 MiB of it and stops the process).
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    *'"method":"timeline"'*) head -c 104857600 /dev/zero | tr '\000' 'a'; sleep 30 ;;
    esac
done
