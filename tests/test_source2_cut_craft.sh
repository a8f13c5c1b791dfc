#!/bin/bash
# Source 2 clips from a full packet after the demo's start: no corpus demo
# has one (each CS2 and Deadlock demo has a single DEM_FullPacket, at its
# first tick; Dota 2's none), so test_source2_cut runs here on synthetic
# demos of tests/s2craft.py (a full packet every 100 ticks; their values
# checked against what s2craft wrote by test_source2_craft): the state at
# the start of each range and at its end, every change and event between,
# cuts of clips, truncated originals.
set -u
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
SRC=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
BIN=${ZDEM_BUILD_DIR:-$SRC/build}/tests/test_source2_cut
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for seed in 3 7; do
    "$PY" "$SRC/tests/s2craft.py" normal "$tmp/craft$seed.dem" --ticks 700 --seed $seed >/dev/null || exit 1
done
out=$("$BIN" "$tmp/craft3.dem" "$tmp/craft7.dem")
rc=$?
echo "$out" | tail -5
# every range of these demos but the first few starts past tick 100
echo "$out" | grep -qE ' ([1-9][0-9]+) from a full packet after the start' || { echo "FAIL: no clip from a full packet"; exit 1; }
exit $rc
