#!/usr/bin/env bash
# Writes the output of every zdem command on every Teeworlds demo given
# (stdout, stderr and exit status, one file each) into OUTDIR, so that two
# builds can be compared byte for byte: a change meant for one protocol
# must leave the others' output alone (`diff -r OLD NEW`).
#   ZDEM_BIN=build/zdem tests/tw_corpus_outputs.sh OUTDIR FILE.demo...
# Commands: info (text, --json, --small), dump (text, --json), events
# (--json, --format csv), props (jsonl, csv), ticks of every field of every
# object `props` lists (whole file and standard input), map -o, and the
# same info/events/dump from standard input.
set -u
BIN=${ZDEM_BIN:?ZDEM_BIN not set}
OUT=${1:?usage: tw_corpus_outputs.sh OUTDIR FILE...}
shift
mkdir -p "$OUT"
run() { # run NAME ARGS...: stdout, stderr, status
    local name=$1
    shift
    "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
    echo $? > "$OUT/$name.rc"
}
for f in "$@"; do
    b=$(basename "$f")
    run "$b.info" "$BIN" info "$f"
    run "$b.info-json" "$BIN" info --json "$f"
    run "$b.info-small" "$BIN" info --json --small "$f"
    run "$b.dump" "$BIN" dump "$f"
    run "$b.dump-json" "$BIN" dump --json "$f"
    run "$b.events" "$BIN" events --json "$f"
    run "$b.events-small" "$BIN" events --json --small "$f"
    run "$b.events-csv" "$BIN" events --format csv "$f"
    run "$b.props" "$BIN" props "$f"
    run "$b.props-csv" "$BIN" props --format csv "$f"
    run "$b.stdin-info" sh -c '"$0" info --json - < "$1"' "$BIN" "$f"
    run "$b.stdin-events" sh -c '"$0" events --json - < "$1"' "$BIN" "$f"
    run "$b.stdin-dump" sh -c '"$0" dump --json - < "$1"' "$BIN" "$f"
    rm -f "$OUT/map.tmp"
    run "$b.map" "$BIN" map "$f" -o "$OUT/map.tmp"
    [ -f "$OUT/map.tmp" ] && sha256sum < "$OUT/map.tmp" > "$OUT/$b.map.sha256"
    rm -f "$OUT/map.tmp"
    # every object and all its fields
    "$BIN" props --format csv "$f" 2>/dev/null | tail -n +2 | cut -d, -f1 | uniq |
    while read -r obj; do
        props=$("$BIN" props --format csv --class "$obj" "$f" | tail -n +2 | cut -d, -f2 | head -64 | paste -sd, -)
        run "$b.ticks-$obj" "$BIN" ticks "$f" --class "$obj" --props "$props" --format csv
        run "$b.ticks-$obj-stdin" sh -c '"$0" ticks - --class "$1" --props "$2" --format jsonl < "$3"' \
            "$BIN" "$obj" "$props" "$f"
    done
done
