#!/usr/bin/env bash
# Tick rows, zdem vs @laihoe/demoparser2, on every CS2 corpus file
# demoparser2 reads; props X Y Z health team_num, every player, every tick.
#  1. in-process: zdem.parse_ticks (one Python call -> DataFrame) vs
#     parseTicks in Node (module load excluded), best of N; peak RSS of each
#     process and what the calls added to it (peak - RSS after imports);
#  2. whole process: `zdem ticks --format csv` vs `node` running parseTicks
#     (start-up and module load included), best of N, peak RSS.
# Numbers only, no assertions.   bench/bench_ticks.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=${1:-5}
BUILD=${ZDEM_BENCH_BUILD:-$ROOT/build-bench}
CORPUS=${ZDEM_CORPUS:-$(cd "$ROOT/../shared/corpus" && pwd)}
PY=/usr/bin/python3
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DZDEM_TESTS=OFF >/dev/null
cmake --build "$BUILD" -j2 --target zdem_cli zdem_shared >/dev/null
if [ ! -d bench/node_modules/@laihoe/demoparser2 ]; then
    (cd bench && npm install --no-save --no-audit --no-fund @laihoe/demoparser2@0.42.0 >/dev/null 2>&1)
fi
export NODE_PATH=$ROOT/bench/node_modules ZDEM_LIB=$BUILD/libzdem.so
PROPS=X,Y,Z,health,team_num

# whole process: best wall ms and that run's max RSS KB over N runs
whole() {
    local best="" rss="" t t0 t1 w m
    for _ in $(seq "$N"); do
        t=$(mktemp)
        t0=$(date +%s%N)
        /usr/bin/time -f "%M" -o "$t" "$@" >/dev/null 2>&1 || true
        t1=$(date +%s%N)
        w=$(( (t1 - t0) / 1000 ))
        read -r m < "$t"
        rm -f "$t"
        if [ -z "$best" ] || [ "$w" -lt "$best" ]; then best=$w; rss=$m; fi
    done
    echo "$(awk "BEGIN{print $best/1000}") $rss"
}

echo "In process (one call -> rows; best of $N; RSS in MB: process peak / added by the calls):"
printf '%-44s | %6s | %9s %12s | %9s %12s | %7s | %9s\n' file rows "zdem ms" "RSS pk/add" "dp2 ms" "RSS pk/add" speedup "RSS ratio"
files=()
for f in "$CORPUS"/source2/cs2_*.dem; do
    d=$(node bench/bench_ticks_dp2.js "$f" "$N")
    case $d in error*) echo "$(basename "$f"): demoparser2 $d (skipped)"; continue;; esac
    files+=("$f")
    z=$("$PY" bench/bench_ticks_py.py "$f" "$N")
    read -r zms zrows zb zp <<< "$z"
    read -r dms drows db dp <<< "$d"
    printf '%-44s | %6s | %9.1f %5.1f/%5.1f | %9.1f %5.1f/%5.1f | %6.1fx | %8.2f\n' "$(basename "$f")" "$zrows/$drows" \
        "$zms" "$(awk "BEGIN{print $zp/1024}")" "$(awk "BEGIN{print ($zp-$zb)/1024}")" \
        "$dms" "$(awk "BEGIN{print $dp/1024}")" "$(awk "BEGIN{print ($dp-$db)/1024}")" \
        "$(awk "BEGIN{print $dms/$zms}")" "$(awk "BEGIN{print $zp/$dp}")"
done
echo "(rows: zdem/demoparser2 -- demoparser2 leaves out players without a steam id (bots); speedup: dp2 ms / zdem ms; RSS ratio: zdem peak / dp2 peak)"
echo
echo "Whole process (zdem ticks --format csv vs node + parseTicks; best of $N):"
printf '%-44s | %9s %8s | %9s %8s | %7s | %9s\n' file "zdem ms" "RSS MB" "dp2 ms" "RSS MB" speedup "RSS ratio"
for f in "${files[@]}"; do
    read -r zw zr <<< "$(whole "$BUILD/zdem" ticks "$f" --props "$PROPS" --format csv)"
    read -r dw dr <<< "$(whole node bench/bench_ticks_dp2.js "$f" 1)"
    printf '%-44s | %9.1f %8.1f | %9.1f %8.1f | %6.1fx | %8.2f\n' "$(basename "$f")" "$zw" "$(awk "BEGIN{print $zr/1024}")" \
        "$dw" "$(awk "BEGIN{print $dr/1024}")" "$(awk "BEGIN{print $dw/$zw}")" "$(awk "BEGIN{print $zr/$dr}")"
done
