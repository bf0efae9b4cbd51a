#!/bin/sh
# Answers initialize, then on a timeline request becomes a program that doubles a string
# until the address-space limit (RLIMIT_AS from memoryMiB) stops it.
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    *'"method":"timeline"'*) exec awk 'BEGIN { s = "xxxxxxxxxxxxxxxx"; while (1) s = s s }' ;;
    esac
done
