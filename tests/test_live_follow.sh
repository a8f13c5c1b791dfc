#!/bin/bash
# `zdem events --follow` on a demo still being written, one of each family
# (tests/live_follow_check.py): written in random pieces as its recorder
# writes it, the lines equal the whole file's, and streamed: the next piece
# is written only once the lines the file so far yields are on zdem's stdout
# (an order, not a clock; only a hang bound); zdem stops by itself at the
# format's end; a cut recording ends after --idle-timeout, saying so.
set -u
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
C=${ZDEM_CORPUS:?}
exec "$PY" "$(dirname "$0")/live_follow_check.py" "${ZDEM_BIN:?}" 250 \
    "$C/source2/cs2_demofile-net-gotv-14065-de-nuke.dem" \
    "$C/q3/q3-baseq3_udt-1map-2matches.dm_68" \
    "$C/teeworlds/ddnet_webviewer-goat-yeyou3.demo"
