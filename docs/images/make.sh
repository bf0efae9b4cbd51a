#!/bin/sh
# Remakes docs/images/dashboard.svg, the picture at the top of the README: the default
# dashboard (no config) drawn by `widgethost snapshot --format svg`, at a fixed moment in UTC,
# with the `system` panel reading the fixed /proc of docs/images/proc ($WIDGETHOST_PROC), so
# the picture is the same on every machine. A test runs this script and compares.
#
# Usage: docs/images/make.sh [WIDGETHOST [OUT]]
#   (default: .build/debug/widgethost and docs/images/dashboard.svg; build it first)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
widgethost=${1:-$root/.build/debug/widgethost}
out=${2:-$here/dashboard.svg}
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
env -i PATH=/usr/bin:/bin HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_STATE_HOME="$home/state" \
    TZ=UTC LANG=C.UTF-8 WIDGETHOST_PROC="$here/proc" \
    "$widgethost" snapshot --format svg --size 100x30 --at 2026-11-30T22:00:00Z > "$out.new"
mv "$out.new" "$out"
