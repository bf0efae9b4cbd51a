#!/bin/sh
# The deepest input the host accepts, and a bit more: on a timeline request it first sends a
# log notification nested as deep as a line may be (152 JSON levels), then a bare line of 130
# '[' (not JSON: a protocol error, which ends the process)... unless asked for the view only:
# then it answers with a view of 64 levels (63 alternating stacks around a text), the most the
# docs allow.
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    *'"instance":"view#1"'*)
        awk -v id="$id" 'BEGIN {
            view = "{\"type\":\"text\",\"spans\":[{\"text\":\"deep\"}]}"
            for (i = 1; i <= 63; i++) view = "{\"type\":\"" (i % 2 ? "vstack" : "hstack") "\",\"children\":[" view "]}"
            printf "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"entries\":[{\"date\":\"2026-11-30T22:00:00Z\",\"view\":%s}],\"policy\":\"never\"}}\n", id, view
        }' ;;
    *'"method":"timeline"'*)
        awk 'BEGIN {
            opens = ""; closes = ""
            for (i = 1; i <= 150; i++) { opens = opens "["; closes = closes "]" }
            printf "{\"jsonrpc\":\"2.0\",\"method\":\"log\",\"params\":{\"message\":\"deepest\",\"nested\":%s%s}}\n", opens, closes
            line = ""
            for (i = 1; i <= 130; i++) line = line "["
            print line
        }' ;;
    esac
done
