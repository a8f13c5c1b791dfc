#!/usr/bin/env bash
# CCSPlayerPawn's m_pEntity.m_nameStringTableIndex (CS2 builds 14155 and
# 14160, where the CEntityIdentity pointer is new) against an independent
# decode of the class's instance baseline (tests/s2_baseline_ref.py: its
# own flattened-serializer reader, field-path Huffman operations and field
# decoders, from the published format; the decode has to end on the
# finish operation with every value read). No entity create or update in
# these demos writes the path, so every pawn zdem creates
# (tests/s2_propdump) must hold the baseline's value: -1, "no name".
# demoparser2 reports 64 there (tests/s2_dp2_compare.js, relation
# pawn-identity-name-64); this test is what settles that zdem's -1 is right.
set -euo pipefail
ROOT=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${ZDEM_BUILD_DIR:-$ROOT/build}
CORPUS=${ZDEM_CORPUS:-$ROOT/../shared/corpus}
PY=${ZDEM_PYTHON:-/usr/bin/python3}
DUMP=$BUILD/tests/s2_propdump
FIELD=m_pEntity.m_nameStringTableIndex
[ -x "$DUMP" ] || { echo "missing $DUMP (build the tests first)" >&2; exit 1; }
status=0
for d in 14155-de-dust2 14160-de-dust2; do
    demo=$CORPUS/source2/cs2_demofile-net-gotv-$d.dem
    ref=$("$PY" "$ROOT/tests/s2_baseline_ref.py" "$demo" CCSPlayerPawn "$FIELD") || {
        echo "FAIL: $d: the reference could not decode the CCSPlayerPawn baseline" >&2; status=1; continue; }
    # zdem: the value of FIELD on every CCSPlayerPawn it creates (props
    # printed after "C <index> CCSPlayerPawn", until the next C/D/T line)
    vals=$("$DUMP" "$demo" | awk -F'\t' -v f="$FIELD" '
        $1 == "C" { pawn = ($3 == "CCSPlayerPawn") ? $2 : -1; next }
        $1 == "D" || $1 == "T" { pawn = -1; next }
        $1 == "P" && $2 == pawn && $3 == f { print $4 }')
    n=$(printf '%s\n' "$vals" | grep -c . || true)
    other=$(printf '%s\n' "$vals" | grep -v -x -c -- "$ref" || true)
    echo "$d: reference baseline $FIELD = $ref; zdem: $n pawns created, $other with another value"
    if [ "$n" -eq 0 ] || [ "$other" -ne 0 ]; then
        echo "FAIL: $d: zdem's $FIELD differs from the reference's $ref: $(printf '%s\n' "$vals" | sort | uniq -c | tr '\n' ' ')" >&2
        status=1
    fi
    # every later value zdem reports for the field on a pawn (updates) too
    upd=$("$DUMP" "$demo" | awk -F'\t' -v f="$FIELD" '
        $1 == "C" { cls[$2] = $3; next }
        $1 == "P" && cls[$2] == "CCSPlayerPawn" && $3 == f { print $4 }' | sort -u | tr '\n' ' ')
    [ "$upd" = "$ref " ] || { echo "FAIL: $d: zdem's values of $FIELD on pawns: $upd" >&2; status=1; }
done
exit $status
