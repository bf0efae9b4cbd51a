#!/bin/sh
# Asks the host to download the panel's url while answering a timeline, and answers every
# sessionEvents with a JSON-RPC error.
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),"method".*/\1/p')
    case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    *'"method":"timeline"'*)
        url=$(printf '%s\n' "$line" | sed -n 's/.*"url":"\([^"]*\)".*/\1/p')
        printf '{"jsonrpc":"2.0","id":9001,"method":"download","params":{"identifier":"board","url":"%s"}}\n' "$url"
        printf '{"jsonrpc":"2.0","id":%s,"result":{"entries":[],"policy":"never"}}\n' "$id" ;;
    *'"method":"sessionEvents"'*)
        printf '{"jsonrpc":"2.0","id":%s,"error":{"code":1,"message":"cannot read the board"}}\n' "$id" ;;
    esac
done
