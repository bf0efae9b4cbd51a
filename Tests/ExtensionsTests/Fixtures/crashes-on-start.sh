#!/bin/sh
# Dies before reading anything.
echo "cannot start: missing configuration" >&2
exit 3
