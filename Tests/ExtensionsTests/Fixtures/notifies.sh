#!/bin/sh
# Answers initialize; on a timeline request asks for reloads of its kind and of all its kinds,
# then answers; a second timeline request is answered with a call to a method the host does
# not have (a protocol error).
count=0
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    *'"method":"timeline"'*)
        count=$((count + 1))
        if [ "$count" = 2 ]; then printf '{"jsonrpc":"2.0","id":77,"method":"format","params":{}}\n'; continue; fi
        printf '{"jsonrpc":"2.0","method":"reloadTimelines","params":{"kind":"panel"}}\n'
        printf '{"jsonrpc":"2.0","method":"reloadTimelines"}\n'
        printf '{"jsonrpc":"2.0","method":"log","params":{"level":"error","message":"bad \\u001b[31mnews"}}\n'
        printf '{"jsonrpc":"2.0","id":%s,"result":{"entries":[],"policy":"never"}}\n' "$id" ;;
    esac
done
