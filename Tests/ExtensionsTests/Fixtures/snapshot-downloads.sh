#!/bin/sh
# For snapshot tests: a timeline shows the body a download delivered earlier (kept in
# WIDGETHOST_EXTENSION_DATA/body), else asks the host to download the panel's url and says
# "waiting"; sessionEvents keeps the body and asks for a reload. A file named seed in the data
# directory is shown too.
data="$WIDGETHOST_EXTENSION_DATA"
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),"method".*/\1/p')
    case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    *'"method":"timeline"'*)
        seed=$(cat "$data/seed" 2>/dev/null)
        if [ -f "$data/body" ]; then
            text="body $(cat "$data/body") $seed"
        else
            url=$(printf '%s\n' "$line" | sed -n 's/.*"url":"\([^"]*\)".*/\1/p')
            printf '{"jsonrpc":"2.0","id":9001,"method":"download","params":{"identifier":"page","url":"%s"}}\n' "$url"
            text="waiting $seed"
        fi
        printf '{"jsonrpc":"2.0","id":%s,"result":{"entries":[{"date":"2000-01-01T00:00:00Z","view":{"type":"text","spans":[{"text":"%s"}]}}],"policy":"never"}}\n' "$id" "$text" ;;
    *'"method":"sessionEvents"'*)
        file=$(printf '%s\n' "$line" | sed -n 's/.*"file":"\([^"]*\)".*/\1/p')
        cat "$file" > "$data/body"
        printf '{"jsonrpc":"2.0","method":"reloadTimelines","params":{"kind":"page"}}\n'
        printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
    esac
done
