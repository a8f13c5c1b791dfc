#!/usr/bin/env bash
# generated/ must be exactly what the generator writes today, and the
# generator must be deterministic: two fresh runs, byte-identical, equal to
# the committed copy (only files the generator declares are compared).
set -eu
src=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
py=${ZDEM_PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for layer in source2 quake3 teeworlds; do
    "$py" "$src/gen/zdem_gen.py" --layer "$layer" --schema "$src/schema" --out "$tmp/a"
    "$py" "$src/gen/zdem_gen.py" --layer "$layer" --schema "$src/schema" --out "$tmp/b"
    for f in $("$py" "$src/gen/zdem_gen.py" --layer "$layer" --list); do
        if ! cmp -s "$tmp/a/$f" "$tmp/b/$f"; then
            echo "FAIL: two runs differ: $f"; status=1
        fi
        if [ ! -f "$src/generated/$f" ]; then
            echo "FAIL: generated/$f is missing (run gen/zdem_gen.py and commit)"; status=1
        elif ! cmp -s "$tmp/a/$f" "$src/generated/$f"; then
            echo "FAIL: generated/$f is stale (run gen/zdem_gen.py and commit)"
            diff -u "$src/generated/$f" "$tmp/a/$f" | head -20 || true
            status=1
        fi
    done
done
[ $status -eq 0 ] && echo "generated/ up to date"
exit $status
