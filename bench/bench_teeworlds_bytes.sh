#!/usr/bin/env bash
# Instructions per chunk byte (the demo after its header and embedded map:
# what the reader decodes) and per file byte, under callgrind, for every
# Teeworlds corpus demo and any demo in bench/peers/ddnet/ (DDNet's own
# benchmark demos, Multeasymap_bench.demo and RaiNyMore2_bench.demo, are
# published with the Phoronix test profile ddnet, not in the corpus: put
# them there to include them). The work is bench_all --format teeworlds's
# (every chunk decoded, snapshots applied); the process's start-up, counted
# on an empty corpus, is subtracted. Counts are repeatable; no assertions.
#   bench/bench_teeworlds_bytes.sh [FILE.demo...]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${ZDEM_BENCH_BUILD:-$ROOT/build-bench}
CORPUS=${ZDEM_CORPUS:-$(cd "$ROOT/../shared/corpus" && pwd)}
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DZDEM_TESTS=OFF -DZDEM_BENCH=ON >/dev/null
cmake --build "$BUILD" -j2 --target bench_all zdem_cli >/dev/null
BIN=$BUILD/bench/bench_all
if [ $# -eq 0 ]; then
    set -- "$CORPUS"/teeworlds/*.demo
    for f in "$ROOT"/bench/peers/ddnet/*.demo; do [ -f "$f" ] && set -- "$@" "$f"; done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # corpus dir -> instructions
    ZDEM_CORPUS=$1 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$BIN" --once --format teeworlds 2>&1 |
        awk '/refs:/{gsub(",", "", $4); print $4}'
}
mkdir -p "$tmp/empty/teeworlds"
base=$(count "$tmp/empty")
printf '%-45s | %12s | %10s %7s | %10s %7s\n' file instructions "chunk B" "ins/B" "file B" "ins/B"
for f in "$@"; do
    d="$tmp/one/$(basename "$f")"
    mkdir -p "$d/teeworlds"
    ln -sf "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$d/teeworlds/"
    ir=$(( $(count "$d") - base ))
    size=$(wc -c < "$f")
    data=$("$BUILD/zdem" info --json "$f" | sed -n 's/.*"data_offset": *\([0-9]*\).*/\1/p')
    chunk=$(( size - ${data:-0} ))
    awk -v n="$(basename "$f")" -v i="$ir" -v c="$chunk" -v s="$size" \
        'BEGIN { printf "%-45s | %12d | %10d %7.1f | %10d %7.1f\n", n, i, c, i / c, s, i / s }'
done
echo "(chunk B: the file after its header and map, which the reader decodes; ins/B: instructions per byte)"
