#!/usr/bin/env bash
# Source 2 entity values and game events, value by value, against
# demoparser2 (an independent Rust parser, from npm: tests/deps.sh) on every
# CS2 corpus demo it reads: tests/s2_dp2_compare.js runs it beside
# tests/s2_propdump (zdem's property changes). Fails on any value that
# differs by more than one quantization step and is not explained by one of
# the documented demoparser2 relations, on a demo demoparser2 stops reading
# that it used to read, and when nothing was compared.
set -euo pipefail
ROOT=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${ZDEM_BUILD_DIR:-$ROOT/build}
CORPUS=${ZDEM_CORPUS:-$ROOT/../shared/corpus}
DUMP=$BUILD/tests/s2_propdump
if ! command -v node >/dev/null 2>&1 || [ ! -d "$ROOT/tests/node_modules/@laihoe/demoparser2" ]; then
    echo "demoparser2 is missing: run sh tests/deps.sh (node + npm install into tests/node_modules)" >&2
    exit 1
fi
[ -x "$DUMP" ] || { echo "missing $DUMP (build the tests first)" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
node "$ROOT/tests/s2_dp2_compare.js" --events --zdem="${ZDEM_BIN:-$BUILD/zdem}" "$DUMP" "$CORPUS"/source2/cs2_*.dem | tee "$out" || status=$?
# demoparser2 0.42.0 reads these four corpus demos (it fails on 14011,
# 14090 and 14150 with IllegalPathOp): each must have been compared.
for f in 14065-de-nuke 14132-de-ancient 14155-de-dust2 14160-de-dust2; do
    if ! grep -q "^cs2_demofile-net-gotv-$f.dem: [0-9]* rows" "$out"; then
        echo "FAIL: cs2_demofile-net-gotv-$f.dem was not compared" >&2
        status=1
    fi
done
exit $status
