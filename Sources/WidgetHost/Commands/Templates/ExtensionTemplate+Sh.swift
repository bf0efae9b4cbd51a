extension ExtensionTemplate {
    static let sh = ExtensionTemplate(files: [
        manifest(exec: #"["/bin/sh", "NAME.sh"]"#, language: "POSIX sh"),
        File(path: "NAME.sh", text: #"""
            #!/bin/sh
            # NAME: a WidgetHost extension in POSIX sh (docs/extensions.md).
            #
            # The host writes one JSON-RPC 2.0 request per line on stdin, compactly, with its keys in
            # the order {"jsonrpc":"2.0","id":N,"method":"METHOD","params":{...}} (a promise of
            # protocol 1), so sed can take the id and the method. Answer each with one line on
            # stdout (printf is unbuffered). stderr goes to the host's log. Check it with
            # `widgethost extension test PATH-OF-THIS-FOLDER`.
            set -u

            data=${WIDGETHOST_EXTENSION_DATA:-.}

            count() { cat "$data/count" 2>/dev/null || echo 0; }

            # answer ID METHOD GREETING FAMILY: one entry a minute for five minutes from this minute,
            # and the host asked to come back when they are over ({"after": ...}: POSIX date cannot
            # add to a date, so seconds since 1970 become ISO 8601 in awk's iso()).
            answer() {
                awk -v id="$1" -v method="$2" -v greeting="$3" -v family="$4" -v now="$(date -u +%s)" -v count="$(count)" '
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
                    start = now - now % 60; n = method == "snapshot" ? 1 : 5
                    if (method == "snapshot") printf "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"entry\":", id
                    else printf "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"entries\":[", id
                    for (i = 0; i < n; i++) {
                        t = start + 60 * i
                        if (i > 0) printf ","
                        printf "{\"date\":\"%s\",\"view\":{\"type\":\"vstack\",\"children\":[", iso(t)
                        printf "{\"type\":\"text\",\"spans\":[{\"text\":\"%s\",\"role\":\"accent\",\"bold\":true}]},", greeting
                        printf "{\"type\":\"text\",\"spans\":[{\"text\":\"%s UTC\",\"role\":\"muted\"}]}", substr(iso(t), 12, 5)
                        if (family != "small") printf ",{\"type\":\"text\",\"spans\":[{\"text\":\"c pressed %d times\"}]}", count
                        printf "]}}"
                    }
                    if (method == "snapshot") printf "}}\n"
                    else printf "],\"policy\":{\"after\":\"%s\"}}}\n", iso(start + 60 * n)
                }'
            }

            while IFS= read -r line; do  # ends at EOF: the host has gone, or asked us to stop
                id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
                method=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":[0-9]*,"method":"\([A-Za-z]*\)".*/\1/p')
                [ -n "$id" ] || continue  # a notification: this extension expects none
                case "$method" in
                initialize)
                    printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
                timeline|snapshot)
                    # A greeting with quotes or backslashes is left out (a JSON parser would keep it).
                    greeting=$(printf '%s\n' "$line" | sed -n 's/.*"greeting":"\([^"\\]*\)".*/\1/p')
                    family=$(printf '%s\n' "$line" | sed -n 's/.*"family":"\([A-Za-z]*\)".*/\1/p')
                    answer "$id" "$method" "${greeting:-Hello}" "${family:-small}" ;;
                action)
                    echo $(( $(count) + 1 )) > "$data/count"
                    printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
                shutdown)
                    printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"
                    exit 0 ;;
                *)
                    printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"unknown method"}}\n' "$id" ;;
                esac
            done

            """#, executable: true),
    ])
}
