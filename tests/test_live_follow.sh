#!/bin/bash
# `zdem events --follow` on a demo still being written, one of each family
# (tests/live_follow_check.py): written in random pieces with pauses as its
# recorder writes it, the lines equal the whole file's, each out within one
# poll interval of its bytes, and zdem stops by itself at the format's end.
set -u
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
C=${ZDEM_CORPUS:?}
exec "$PY" "$(dirname "$0")/live_follow_check.py" "${ZDEM_BIN:?}" 250 \
    "$C/source2/cs2_demofile-net-gotv-14065-de-nuke.dem" \
    "$C/q3/q3-baseq3_udt-1map-2matches.dm_68" \
    "$C/teeworlds/ddnet_webviewer-goat-yeyou3.demo"
