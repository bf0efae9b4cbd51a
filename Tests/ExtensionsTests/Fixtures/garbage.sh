#!/bin/sh
# Answers initialize, then prints something that is not JSON.
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    *'"method":"timeline"'*) printf 'Traceback (most recent call last): \033[31moops\n' ;;
    esac
done
