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

# Equal work, three ways; a file demoparser2 fails on gives no ratio.
#  in:  zdem's library parse (best of 5 inside bench_source2_entities)
#       against parseTicks inside node (best of 5, module load excluded);
#  cli: the zdem CLI's whole process writing every entity as JSON
#       (`zdem entities --json`) against that same in-process parseTicks;
#  ms:  both whole processes with start-up (node's is 60-110 ms here).
ZCLI=$BUILD/zdem
cmake --build "$BUILD" -j2 --target zdem_cli >/dev/null
printf '%-48s | %7s %7s %6s | %7s %6s | %6s %6s %6s | %7s %7s | %s\n' file "zdem in" "dp2 in" ratio \
    "cli ms" ratio "zdem" "dp2" ratio "zdem MB" "dp2 MB" "demoparser2 result"
ratio() { awk -v a="$1" -v b="$2" -v ok="$3" 'BEGIN{if (ok && a > 0 && b > 0) printf "%.1fx", b/a; else print "-"}'; }
for f in "$CORPUS"/source2/cs2_*.dem "$CORPUS"/source2/deadlock_*.dem; do
    read -r zw zr zline <<< "$(measure "$ZBIN" "$f")"
    read -r dw dr dline <<< "$(measure node bench/bench_source2_entities_dp2.js "$f")"
    read -r cw _ _ <<< "$(measure sh -c '"$1" entities --json "$2" > /dev/null' sh "$ZCLI" "$f")"
    zin=$(awk '{for (i = 1; i < NF; i++) if ($(i+1) == "ms") {print $i; exit}}' <<< "$zline")
    din=$(node bench/bench_source2_entities_dp2.js "$f" 5 | awk '/inproc_ms/ {print $4}')
    ok=1
    case $dline in error*) ok=0 ;; esac
    printf '%-48s | %7.2f %7s %6s | %7.1f %6s | %6.0f %6.0f %6s | %7.1f %7.1f | %s\n' "$(basename "$f")" \
        "$zin" "${din:--}" "$(ratio "$zin" "${din:-0}" $ok)" \
        "$(awk "BEGIN{print $cw*1000}")" "$(ratio "$(awk "BEGIN{print $cw*1000}")" "${din:-0}" $ok)" \
        "$(awk "BEGIN{print $zw*1000}")" "$(awk "BEGIN{print $dw*1000}")" "$(ratio "$zw" "$dw" $ok)" \
        "$(awk "BEGIN{print $zr/1024}")" "$(awk "BEGIN{print $dr/1024}")" "$dline"
done
echo "(in: one parse inside the process, best of 5 each, demoparser2's module load excluded;"
echo " cli ms: zdem entities --json as a whole process, best of $N, against dp2 in;"
echo " zdem/dp2: whole processes incl. start-up, best of $N; MB: max resident of that run;"
echo " ratios only where demoparser2 read the whole file)"
