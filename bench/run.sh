#!/usr/bin/env bash
# Runs every benchmark in one go and prints one report:
#  - bench_all: full-parse MB/s and ns/message per format;
#  - callgrind instruction counts of one full pass per format (repeatable on
#    a noisy machine, unlike wall time);
#  - the side-by-side ratios measured in the same run: our Snappy vs
#    libsnappy, our generated protobuf decoders vs nanopb, our table Huffman
#    decoders vs bit-at-a-time decoders, any other bench_*, (with npm)
#    the Source 2 entity parse against @laihoe/demoparser2, whole process,
#    and tick rows (Python parse_ticks, zdem ticks --format csv) against its
#    parseTicks (bench_ticks.sh), events with players' props (Python
#    parse_event) against its parseEvent (bench_events.sh), and (with
#    UberDemoTools built into bench/peers/) the Quake III batch `zdem events --json` vs
#    `UDT_json -c -q -a=gmd`, one process per file.
# Usage: bench/run.sh [--write]   (--write also replaces bench/RESULTS.md)
# Numbers only: nothing here asserts on time.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${ZDEM_BENCH_BUILD:-$ROOT/build-bench}
export ZDEM_CORPUS=${ZDEM_CORPUS:-$(cd "$ROOT/../shared/corpus" && pwd)}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DZDEM_TESTS=OFF -DZDEM_BENCH=ON >/dev/null
cmake --build "$BUILD" -j2 >/dev/null

{
echo "# zdem benchmark results"
echo
echo "Run: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')."
echo "Machine: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //'), $(cc --version | head -1)."
echo "Corpus: ../shared/corpus (wall times are best-of-N on a shared, noisy machine; callgrind counts are repeatable)."
echo
echo "## Full parse per format (bench_all)"
echo
"$BUILD/bench/bench_all"
echo
if command -v valgrind >/dev/null 2>&1; then
    echo "## Instructions per full pass (callgrind)"
    echo
    echo "| format | instructions | MB | instructions/byte |"
    echo "|---|---|---|---|"
    for f in source2 quake3 teeworlds; do
        cg=$(mktemp)
        valgrind --tool=callgrind --callgrind-out-file="$cg" "$BUILD/bench/bench_all" --once --format "$f" > "$cg.txt" 2>/dev/null
        ir=$(awk '/^summary:|^totals:/{print $2; exit}' "$cg")
        mb=$(awk -F'|' -v f="$f" '$2 ~ " "f" " {gsub(/ /,"",$4); print $4}' "$cg.txt")
        awk -v f="$f" -v ir="$ir" -v mb="$mb" 'BEGIN{printf "| %s | %d | %s | %.1f |\n", f, ir, mb, ir/(mb*1e6)}'
        rm -f "$cg" "$cg.txt"
    done
    echo
    echo "(counts include loading the corpus files and process start-up)"
    echo
    # zdem cut: writing a clip against reading the same range, loading
    # (the same in both) subtracted; the clip into memory (every byte
    # copied once more) and through stdio to /dev/null (as zdem cut -o);
    # what each side does: bench/bench_cut.c
    echo "## Clips (zdem cut) vs reading the same range, callgrind"
    echo
    echo "| format | read | write, to memory | write/read | write, to a file | write/read |"
    echo "|---|---|---|---|---|---|"
    for f in quake3 teeworlds source2; do
        declare -A irs=()
        for m in none read write write-file; do
            cg=$(mktemp)
            mm=${m%-file}
            sink=memory
            [ "$m" = write-file ] && sink=file
            valgrind --tool=callgrind --callgrind-out-file="$cg" "$BUILD/bench/bench_cut" --once --format "$f" --mode "$mm" --sink "$sink" "$ZDEM_CORPUS" >/dev/null 2>&1
            irs[$m]=$(awk '/^summary:|^totals:/{print $2; exit}' "$cg")
            rm -f "$cg"
        done
        awk -v f="$f" -v n="${irs[none]}" -v r="${irs[read]}" -v w="${irs[write]}" -v wf="${irs[write-file]}" \
            'BEGIN{printf "| %s | %d | %d | %.3f | %d | %.3f |\n", f, r-n, w-n, (w-n)/(r-n), wf-n, (wf-n)/(r-n)}'
    done
    echo
fi
for b in "$BUILD"/bench/bench_*; do
    name=$(basename "$b")
    [ "$name" = bench_all ] && continue
    [ -x "$b" ] || continue
    echo "## $name"
    echo
    echo '```'
    "$b" 2>&1 || echo "(exit $?)"
    echo '```'
    echo
done
echo "## Quake III end to end vs UberDemoTools (one process per file)"
echo
echo '```'
# UberDemoTools is built from source into the ignored bench/peers/ (or
# ZDEM_UDT_JSON names it); without it this section says it was skipped.
python3 "$ROOT/bench/bench_quake3_udt.py" "$BUILD/zdem" "$ZDEM_CORPUS" 5 2>&1 || echo "(exit $?)"
echo '```'
echo
if command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then
    echo "## Source 2 with entities vs @laihoe/demoparser2 (in process and whole process)"
    echo
    echo '```'
    ZDEM_BENCH_BUILD="$BUILD" bash "$ROOT/bench/bench_source2_entities.sh" 3 2>&1 || echo "(exit $?)"
    echo '```'
    echo
    if /usr/bin/python3 -c "import cffi, pandas" 2>/dev/null; then
        echo "## Tick rows vs @laihoe/demoparser2 (zdem.parse_ticks / zdem ticks --format csv vs parseTicks)"
        echo
        echo '```'
        ZDEM_BENCH_BUILD="$BUILD" bash "$ROOT/bench/bench_ticks.sh" 5 2>&1 || echo "(exit $?)"
        echo '```'
        echo
        echo "## Events with players' and the game's props vs @laihoe/demoparser2 (zdem.parse_event vs parseEvent, CPU time)"
        echo
        echo '```'
        ZDEM_BENCH_BUILD="$BUILD" bash "$ROOT/bench/bench_events.sh" 7 2>&1 || echo "(exit $?)"
        echo '```'
        echo
    fi
fi
} | tee "$out"

if [ "${1:-}" = "--write" ]; then
    cp "$out" "$ROOT/bench/RESULTS.md"
    echo "wrote bench/RESULTS.md" >&2
fi
