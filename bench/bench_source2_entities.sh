#!/usr/bin/env bash
# Whole-process wall time and peak RSS, side by side in one run: zdem's full
# Source 2 parse (entities and events on, bench_source2_entities FILE) and
# @laihoe/demoparser2 (parseTicks, which decodes entities) on every CS2 and
# Deadlock corpus file; best of N runs each. Numbers only, no assertions.
#   bench/bench_source2_entities.sh [N]
# Installs demoparser2 under bench/node_modules (git-ignored) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=${1:-5}
BUILD=${ZDEM_BENCH_BUILD:-$ROOT/build-bench}
CORPUS=${ZDEM_CORPUS:-$(cd "$ROOT/../shared/corpus" && pwd)}
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DZDEM_TESTS=OFF -DZDEM_BENCH=ON >/dev/null
cmake --build "$BUILD" -j2 --target bench_source2_entities >/dev/null
ZBIN=$(find "$BUILD" -name bench_source2_entities -type f -perm -u+x | head -1)
if [ ! -d bench/node_modules/@laihoe/demoparser2 ]; then
    (cd bench && npm install --no-save --no-audit --no-fund @laihoe/demoparser2@0.42.0 >/dev/null 2>&1)
fi

# best wall (s, date +%s%N around the process) and that run's max RSS (KB)
# over N runs: "wall rss lastline"
measure() {
    local best="" rss="" line="" t t0 t1 w m
    for _ in $(seq "$N"); do
        t=$(mktemp)
        t0=$(date +%s%N)
        line=$( { /usr/bin/time -f "%M" -o "$t" "$@" 2>/dev/null || true; } | tail -1)
        t1=$(date +%s%N)
        w=$(awk "BEGIN{print ($t1 - $t0) / 1e9}")
        read -r m < "$t"
        rm -f "$t"
        if [ -z "$best" ] || awk "BEGIN{exit !($w < $best)}"; then best=$w; rss=$m; fi
    done
    echo "$best $rss $line"
}

# In process: zdem's library parse (best of 5 inside bench_source2_entities)
# against demoparser2's parseTicks inside node (best of 5, module load
# excluded). Whole process: both with start-up (node's is 60-110 ms here).
printf '%-48s | %8s %8s %7s | %8s %8s %7s | %7s %7s | %s\n' file "zdem in" "dp2 in" ratio \
    "zdem ms" "dp2 ms" ratio "zdem MB" "dp2 MB" "demoparser2 result"
for f in "$CORPUS"/source2/cs2_*.dem "$CORPUS"/source2/deadlock_*.dem; do
    read -r zw zr zline <<< "$(measure "$ZBIN" "$f")"
    read -r dw dr dline <<< "$(measure node bench/bench_source2_entities_dp2.js "$f")"
    zin=$(awk '{for (i = 1; i < NF; i++) if ($(i+1) == "ms") {print $i; exit}}' <<< "$zline")
    din=$(node bench/bench_source2_entities_dp2.js "$f" 5 | awk '/inproc_ms/ {print $4}')
    printf '%-48s | %8.2f %8s %6sx | %8.0f %8.0f %6.1fx | %7.1f %7.1f | %s\n' "$(basename "$f")" \
        "$zin" "${din:--}" "$(awk -v a="$zin" -v b="$din" 'BEGIN{if (b > 0 && a > 0) printf "%.1f", b/a; else print "-"}')" \
        "$(awk "BEGIN{print $zw*1000}")" "$(awk "BEGIN{print $dw*1000}")" \
        "$(awk "BEGIN{print ($zw > 0 ? $dw/$zw : 0)}")" \
        "$(awk "BEGIN{print $zr/1024}")" "$(awk "BEGIN{print $dr/1024}")" "$dline"
done
echo "(in: one parse inside the process, best of 5 each, demoparser2's module load excluded;"
echo " ms: whole process incl. start-up, best of $N; MB: max resident of that run)"
