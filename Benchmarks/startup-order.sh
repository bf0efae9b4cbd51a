#!/bin/sh
# Makes Sources/widgethost/widgethost.order: the functions of the release `widgethost` that the
# default dashboard runs (start, first frames, a fetch, `r`, Tab, `q`), for lld's
# --symbol-ordering-file (Package.swift), which puts them together at the front of .text.
# Why: every page of code touched maps the 64 KiB around it (the kernel's fault-around), so
# start-up code spread over the binary's 11 MiB cost 8.6 MiB of RSS (issue 30, item 3).
# Run it after large changes (names that no longer exist are ignored; new ones are unordered):
#   swift build -c release --product widgethost && sh Benchmarks/startup-order.sh
#   swift build -c release --product widgethost   # links with the new order
# Needs valgrind and tmux (not the build: the file is committed).
set -eu
cd "$(dirname "$0")/.."
binary=$(realpath .build/release/widgethost)
scratch=$(mktemp -d)
trap 'tmux -L startup-order kill-server 2>/dev/null || true; rm -rf "$scratch"' EXIT
mkdir -p "$scratch/state" "$scratch/home"
tmux -L startup-order new-session -d -s order -x 100 -y 30 \
    "env -i TERM=xterm-256color LANG=C.UTF-8 HOME=$scratch/home PATH=/usr/bin:/bin \
     valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no \
     --callgrind-out-file=$scratch/callgrind.out $binary --state-dir $scratch/state 2>$scratch/valgrind.log; sleep 30"
sleep 40; tmux -L startup-order send-keys -t order r
sleep 12; tmux -L startup-order send-keys -t order Tab
sleep 3; tmux -L startup-order send-keys -t order q
i=0
while ! grep -q "Collected" "$scratch/valgrind.log" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 120 ] || { echo "valgrind did not finish" >&2; exit 1; }
    sleep 1
done
nm --defined-only "$binary" > "$scratch/symbols"
python3 - "$scratch/callgrind.out" "$scratch/symbols" "$binary" > Sources/widgethost/widgethost.order <<'EOF'
import sys
callgrind, symbols, binary = sys.argv[1:4]
known = set()
for line in open(symbols):
    fields = line.split()
    if len(fields) == 3 and fields[1] in "tTwW":
        known.add(fields[2])
obj, seen = None, set()
for line in open(callgrind, errors="replace"):
    if line.startswith("ob="):
        obj = line[3:].strip()
    elif line.startswith("fn=") and obj == binary:
        name = line[3:].strip()
        if name in known and name not in seen:
            seen.add(name)
            print(name)
EOF
wc -l Sources/widgethost/widgethost.order
# SwiftPM does not know the linker reads the file: remove the binary so the next build links it.
rm -f "$binary"
echo "now: swift build -c release --product widgethost"
