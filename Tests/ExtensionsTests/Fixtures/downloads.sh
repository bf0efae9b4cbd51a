#!/bin/sh
# Asks the host to download the URL in its panel's options (session "board") while answering
# a timeline; prints each delivered body on stderr and answers sessionEvents. With a file
# named silent-on-launch-1 in its folder it leaves sessionEvents unanswered on its first launch;
# with a file headers.json (one line, a JSON object) it sends those headers with the download;
# with a file download-extra (one line, e.g. `,"conditional":false`) it adds that to the params.
# Before answering sessionEvents: with a file swap-downloads (a directory's path) it replaces
# its data directory's .downloads with a link to that directory; with a file link-body (a
# file's path) it replaces the delivered body with a link to that file. With a file named
# reload-on-events it sends reloadTimelines before it answers sessionEvents.
launches=$(cat "$WIDGETHOST_EXTENSION_DATA/launches" 2>/dev/null || echo 0)
launches=$((launches + 1))
echo "$launches" > "$WIDGETHOST_EXTENSION_DATA/launches"
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),"method".*/\1/p')
    case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    *'"method":"timeline"'*)
        url=$(printf '%s\n' "$line" | sed -n 's/.*"url":"\([^"]*\)".*/\1/p')
        if [ -n "$url" ]; then
            headers=""
            [ -f headers.json ] && headers=",\"headers\":$(cat headers.json)"
            [ -f download-extra ] && headers="$headers$(cat download-extra)"
            printf '{"jsonrpc":"2.0","id":9001,"method":"download","params":{"identifier":"board","url":"%s","description":"the board"%s}}\n' "$url" "$headers"
        fi
        printf '{"jsonrpc":"2.0","id":%s,"result":{"entries":[],"policy":"never"}}\n' "$id" ;;
    *'"method":"sessionEvents"'*)
        if [ -f silent-on-launch-1 ] && [ "$launches" = 1 ]; then continue; fi
        file=$(printf '%s\n' "$line" | sed -n 's/.*"file":"\([^"]*\)".*/\1/p')
        echo "events (launch $launches): $(printf '%s\n' "$line" | sed -n 's/.*"events":\(\[.*\]\).*/\1/p')" >&2
        echo "body: $(cat "$file")" >&2
        if [ -f swap-downloads ]; then
            mv "$WIDGETHOST_EXTENSION_DATA/.downloads" "$WIDGETHOST_EXTENSION_DATA/.downloads-moved"
            ln -s "$(cat swap-downloads)" "$WIDGETHOST_EXTENSION_DATA/.downloads"
        fi
        [ -f link-body ] && [ -n "$file" ] && ln -sf "$(cat link-body)" "$file"
        [ -f reload-on-events ] && printf '{"jsonrpc":"2.0","method":"reloadTimelines"}\n'
        printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
    *'"result":{"task":'*) echo "download answered: $line" >&2 ;;
    *'"error":'*) echo "download refused: $line" >&2 ;;
    esac
done
