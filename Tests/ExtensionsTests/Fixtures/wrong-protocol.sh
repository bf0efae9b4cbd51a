#!/bin/sh
# Answers initialize with a protocol the host does not speak (docs/extensions.md: {"protocol": 1}).
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":2}}\n' "$id"
done
