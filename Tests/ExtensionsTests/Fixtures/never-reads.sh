#!/bin/sh
# Never reads its stdin (the host's writes fill the pipe) and ignores SIGTERM: only SIGKILL
# ends it.
trap '' TERM
while true; do sleep 1; done
