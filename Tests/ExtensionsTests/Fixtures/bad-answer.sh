#!/bin/sh
# Answers initialize; answers timeline with an invalid timeline and snapshot with an entry
# that is not one; refuses action with a JSON-RPC error.
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    method=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":[0-9]*,"method":"\([A-Za-z]*\)".*/\1/p')
    case "$method" in
    initialize) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    timeline) printf '{"jsonrpc":"2.0","id":%s,"result":{"entries":[{"date":"yesterday","view":{"type":"text"}}],"policy":"soon"}}\n' "$id" ;;
    snapshot) printf '{"jsonrpc":"2.0","id":%s,"result":{"entry":3}}\n' "$id" ;;
    shutdown) printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"; exit 0 ;;
    *) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":7,"message":"not today"}}\n' "$id" ;;
    esac
done
