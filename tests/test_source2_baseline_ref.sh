#!/usr/bin/env bash
# CCSPlayerPawn's m_pEntity.m_nameStringTableIndex (CS2 builds 14155 and
# 14160, where the CEntityIdentity pointer is new) against an independent
# decode (tests/s2_baseline_ref.py: its own flattened-serializer reader,
# field-path Huffman operations and field decoders, from the published
# format): the class's instance baseline, decoded to the finish operation,
# and every entity create and update of the demo, each packet's entity data
# read to its end; every value of the first pawn and controller created
# must equal zdem's, so that the reference is known to be aligned. Every
# pawn the reference creates must hold the value
# zdem gives it (tests/s2_propdump), no update may write the path in either
# decode, and the values must agree: -1, "no name". demoparser2 reports 64
# there (tests/s2_dp2_compare.js, relation pawn-identity-name-64); this test
# is what settles that zdem's -1 is right.
# Creates: both demos restate every entity in a DEM_FullPacket at tick 1
# (the forward pass has them from the DEM_Packet before it). zdem's creates
# (all classes) and deletes must equal the reference's, which reads
# DEM_SignonPacket / DEM_Packet only, and every pawn index must be created
# as often as the reference creates it (once): a restated entity is an
# update, not a second create.
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
    ents=$("$PY" "$ROOT/tests/s2_baseline_ref.py" --entities "$demo" CCSPlayerPawn "$FIELD") || {
        echo "FAIL: $d: the reference could not decode the entity packets" >&2; status=1; continue; }
    rcreates=$(printf '%s\n' "$ents" | awk -F'\t' '$3 == "create"' | wc -l)
    rother=$(printf '%s\n' "$ents" | awk -F'\t' -v r="$ref" '($3 == "create" && $4 != r) || $3 == "update"' | wc -l)
    echo "$(printf '%s\n' "$ents" | head -1) reference: $rcreates pawns created, $rother values other than $ref or written by an update"
    if [ "$rcreates" -eq 0 ] || [ "$rother" -ne 0 ]; then
        echo "FAIL: $d: the reference's pawns: $(printf '%s\n' "$ents" | tail -n +2 | cut -f3,4 | sort | uniq -c | tr '\n' ' ')" >&2
        status=1
    fi
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
    # creates and deletes against the reference's
    dump=$("$DUMP" "$demo")
    rsum=$(printf '%s\n' "$ents" | head -1)
    rall=$(printf '%s\n' "$rsum" | sed -n 's/.* \([0-9]*\) creates, .* \([0-9]*\) deletes decoded$/\1 \2/p')
    zall=$(printf '%s\n' "$dump" | awk -F'\t' '$1 == "C" { c++ } $1 == "D" { d++ } END { print c + 0, d + 0 }')
    rpawns=$(printf '%s\n' "$ents" | awk -F'\t' '$3 == "create" { print $2 }' | sort | uniq -c | tr -s ' \n' ' ')
    zpawns=$(printf '%s\n' "$dump" | awk -F'\t' '$1 == "C" && $3 == "CCSPlayerPawn" { print $2 }' | sort | uniq -c | tr -s ' \n' ' ')
    echo "$d: creates and deletes: zdem $zall, reference $rall; creates per pawn index: zdem $zpawns"
    if [ -z "$rall" ] || [ "$zall" != "$rall" ] || [ "$zpawns" != "$rpawns" ]; then
        echo "FAIL: $d: creates differ from the reference's (per pawn index: $rpawns)" >&2
        status=1
    fi
    # the reference's alignment, value by value: every field of the first
    # pawn and the first controller created (baseline, then the create's
    # delta) equals zdem's
    for cls in CCSPlayerPawn CCSPlayerController; do
        "$PY" "$ROOT/tests/s2_baseline_ref.py" --compare-create "$DUMP" "$demo" $cls || {
            echo "FAIL: $d: the first $cls differs between the reference and zdem" >&2; status=1; }
    done
    # every later value zdem reports for the field on a pawn (updates) too
    upd=$("$DUMP" "$demo" | awk -F'\t' -v f="$FIELD" '
        $1 == "C" { cls[$2] = $3; next }
        $1 == "P" && cls[$2] == "CCSPlayerPawn" && $3 == f { print $4 }' | sort -u | tr '\n' ' ')
    [ "$upd" = "$ref " ] || { echo "FAIL: $d: zdem's values of $FIELD on pawns: $upd" >&2; status=1; }
done
exit $status
