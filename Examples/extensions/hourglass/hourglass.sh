#!/bin/sh
# hourglass: a WidgetHost extension in POSIX sh (docs/extensions.md).
#
# Reads one JSON-RPC request per line on stdin, writes one answer per line on stdout.
# The host writes every request compactly with its keys in the order
# {"jsonrpc":"2.0","id":N,"method":"NAME","params":{...}} (a promise of protocol 1), so sed
# can take the id and the method; a real JSON parser is better in any other language.
# stderr goes to the host's log.
set -u

# The current time as seconds since 1970 (`date +%s` is in every date we know of).
now() { date -u +%s; }

# answer ID NOW LABEL COUNT METHOD: the timeline result, one entry a minute from the current
# minute, and the host asked to come back when the last entry's minute ends ("after", not
# "atEnd": that is the last entry's *start*, already past with one entry, so the host would
# ask again at once); for METHOD snapshot, {"entry": the current minute's entry}.
answer() {
    load=$(cut -d ' ' -f 1 /proc/loadavg 2>/dev/null || echo '?')
    awk -v id="$1" -v now="$2" -v label="$3" -v count="$4" -v method="$5" -v load="$load" '
    function iso(t,   d, s, z, era, doe, yoe, y, doy, mp, dd, m) {
        d = int(t / 86400); s = t - d * 86400
        z = d + 719468; era = int(z / 146097); doe = z - era * 146097
        yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365)
        y = yoe + era * 400; doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100))
        mp = int((5 * doy + 2) / 153); dd = doy - int((153 * mp + 2) / 5) + 1
        m = mp < 10 ? mp + 3 : mp - 9; if (m <= 2) y++
        return sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, dd, int(s / 3600), int((s % 3600) / 60), s % 60)
    }
    BEGIN {
        start = now - now % 60
        if (method == "snapshot") { count = 1; printf "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"entry\":", id }
        else printf "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"entries\":[", id
        for (i = 0; i < count; i++) {
            t = start + 60 * i
            left = int((3600 - t % 3600) / 60)
            role = left <= 5 ? "warning" : "positive"
            if (i > 0) printf ","
            printf "{\"date\":\"%s\",\"view\":{\"type\":\"vstack\",\"children\":[", iso(t)
            printf "{\"type\":\"spacer\"},"
            printf "{\"type\":\"text\",\"align\":\"center\",\"spans\":[{\"text\":\"%d min\",\"role\":\"accent\",\"bold\":true},{\"text\":\" left in %s\",\"role\":\"muted\"}]},", left, label
            printf "{\"type\":\"bar\",\"value\":%.3f,\"role\":\"%s\"},", left / 60, role
            printf "{\"type\":\"text\",\"align\":\"center\",\"spans\":[{\"text\":\"load %s\",\"role\":\"muted\"}]},", load
            printf "{\"type\":\"spacer\"}]}}"
        }
        if (method == "snapshot") printf "}}\n"
        else printf "],\"policy\":{\"after\":\"%s\"}}}\n", iso(start + 60 * count)
    }'
}

echo "hourglass: started" >&2
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    method=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":[0-9]*,"method":"\([A-Za-z]*\)".*/\1/p')
    [ -n "$id" ] || continue  # a notification: this extension expects none
    case "$method" in
    initialize)
        printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    timeline|snapshot)
        # Options are strings and integers; a label with quotes or backslashes is left out.
        label=$(printf '%s\n' "$line" | sed -n 's/.*"label":"\([^"\\]*\)".*/\1/p')
        count=$(printf '%s\n' "$line" | sed -n 's/.*"entries":\([0-9]*\).*/\1/p')
        answer "$id" "$(now)" "${label:-this hour}" "${count:-10}" "$method" ;;
    shutdown)
        printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"
        exit 0 ;;
    *)
        printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"unknown method"}}\n' "$id" ;;
    esac
done
