#!/usr/bin/env bash
# Source 2 string tables against an independent decoder
# (tests/s2_stringtables_ref.py: its own framing, Snappy, bit reader and
# .proto, python3-protobuf): every table of every corpus demo, its count
# and every entry's key and value bytes, as zdem holds them at the end of
# the file (tests/s2_propdump --tables). Settles dota2_haste-nekit-pov's
# EntityNames: 279 entries (gem's 221 leaves out the DEM_StringTables
# snapshot, which holds 268 of them).
set -euo pipefail
ROOT=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${ZDEM_BUILD_DIR:-$ROOT/build}
CORPUS=${ZDEM_CORPUS:-$ROOT/../shared/corpus}
PY=${ZDEM_PYTHON:-/usr/bin/python3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
"$PY" "$ROOT/tests/s2_stringtables_ref.py" --compare "$BUILD/tests/s2_propdump" "$CORPUS"/source2/*.dem | tee "$out" || status=1
[ "$(grep -c ' 0 differences' "$out")" -eq "$(ls "$CORPUS"/source2/*.dem | wc -l)" ] || status=1
grep -q '^dota2_haste-nekit-pov.dem: .* EntityNames 279$' "$out" || { echo "FAIL: EntityNames is not 279"; status=1; }
exit $status
