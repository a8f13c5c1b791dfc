#!/usr/bin/env bash
# Builds every libFuzzer target tests/fuzz/fuzz_<layer>_*.c with clang
# (-fsanitize=fuzzer,address,undefined) and runs each for SECONDS.
# Exit status 1 when a target fails to build or finds a crash, leak, timeout
# (an input slower than 2 s) or OOM (over 512 MB); the reproducer is kept
# under $WORK/artifacts/ (minimize it with the printed command).
#
#   tests/fuzz/run.sh SECONDS [TARGET_GLOB]      e.g. run.sh 60 'fuzz_runtime_*'
#
# With ZDEM_FUZZ_RUNS=N each target instead runs exactly N inputs with a
# fixed seed and a fresh working corpus: a repeatable run, as CI needs (the
# same inputs pass or fail on every machine), where SECONDS explores.
#
# Per target <t> (all optional, next to the target source):
#   seeds/<t>/     committed seed inputs (small, written by us)
#   <t>.seed.sh    `bash <t>.seed.sh OUTDIR CORPUS_DIR` writes generated seeds
#                  (e.g. corpus demos cut small); keep every seed <= 64 KiB:
#                  whole 1 MB demos make a target crawl at tens of inputs/s
#   <t>.options    extra libFuzzer flags, one per line (-dict=, -max_len=, ...);
#                  relative paths are relative to tests/fuzz/; they override
#                  the defaults (-max_len=65536 -timeout=2 -rss_limit_mb=512)
# Corpus files are never seeds by themselves: only what a seed script makes.
# The layer comes from the file name and decides the sources:
#   runtime/*.c + runtime/<layer>/*.c + generated/<layer>_*.c
# Executions per second and cumulative executions of every target are kept
# in $WORK/stats.tsv (across runs) and printed at the end.
# Environment: ZDEM_CORPUS (corpus dir), ZDEM_FUZZ_WORK (work dir, default
# $ZDEM_BUILD_DIR/fuzz or build/fuzz), CLANG (compiler, default clang).
set -u
shopt -s nullglob

secs=${1:-}
filter=${2:-fuzz_*}
if ! [[ $secs =~ ^[0-9]+$ ]]; then
    echo "usage: $0 SECONDS [TARGET_GLOB]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
corpus=${ZDEM_CORPUS:-$root/../shared/corpus}
work=${ZDEM_FUZZ_WORK:-${ZDEM_BUILD_DIR:-$root/build}/fuzz}
cc=${CLANG:-clang}
mkdir -p "$work/obj" "$work/bin" "$work/corpus" "$work/seeds" "$work/artifacts" "$work/log"
work=$(cd "$work" && pwd)

san=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
cflags=(-std=c11 -g -O1 -Wall -Wextra "${san[@]}")

# Objects of a layer's library are built once per run, instrumented for
# coverage but without libFuzzer's main.
declare -A built
build_layer() {
    local layer=$1 src obj objs=()
    local incs=(-I"$root/runtime" -I"$root/runtime/$layer" -I"$root/generated")
    local srcs=("$root"/runtime/*.c)
    if [[ $layer != runtime ]]; then
        srcs+=("$root"/runtime/"$layer"/*.c "$root"/generated/"$layer"_*.c)
    fi
    mkdir -p "$work/obj/$layer"
    rm -f "$work/obj/$layer"/*.o "$work/obj/$layer"/*.a
    for src in "${srcs[@]}"; do
        obj=$work/obj/$layer/$(basename "${src%.c}").o
        "$cc" "${cflags[@]}" -fsanitize=fuzzer-no-link "${incs[@]}" -c "$src" -o "$obj" || return 1
        objs+=("$obj")
    done
    # An archive, like the CMake layer libraries: a target pulls in only the
    # objects it needs, so an unrelated unfinished file does not break it.
    ar rcs "$work/obj/$layer/lib$layer.a" "${objs[@]}" || return 1
    built[$layer]=1
}

# Cumulative statistics per target: runs, seconds, executions.
stats=$work/stats.tsv
[[ -f $stats ]] || printf 'target\truns\tseconds\texecutions\tlast_exec_per_s\n' >"$stats"
record_stats() { # target seconds executions exec/s
    local tmp=$stats.tmp
    awk -F'\t' -v OFS='\t' -v t="$1" -v s="$2" -v e="$3" -v r="$4" '
        NR == 1 { print; next }
        $1 == t { $2 += 1; $3 += s; $4 += e; $5 = r; found = 1 }
        { print }
        END { if (!found) print t, 1, s, e, r }' "$stats" >"$tmp" && mv "$tmp" "$stats"
}

failed=()
ran=0
for src in "$here"/$filter.c; do
    t=$(basename "${src%.c}")
    [[ $t =~ ^fuzz_([a-z0-9]+)_ ]] || { echo "skip $t: name is not fuzz_<layer>_*.c"; continue; }
    layer=${BASH_REMATCH[1]}
    if [[ -z ${built[$layer]:-} ]]; then
        if ! build_layer "$layer"; then
            echo "FAIL $t: layer $layer does not build"
            failed+=("$t")
            built[$layer]=failed
            continue
        fi
    fi
    if [[ ${built[$layer]} == failed ]]; then
        failed+=("$t")
        continue
    fi
    if ! "$cc" "${cflags[@]}" -fsanitize=fuzzer -I"$root/runtime" -I"$root/runtime/$layer" \
            -I"$root/generated" "$src" "$work/obj/$layer/lib$layer.a" -o "$work/bin/$t"; then
        echo "FAIL $t: does not build"
        failed+=("$t")
        continue
    fi

    # Seeds: a fresh directory of generated seeds; the working corpus
    # (first directory) persists between runs.
    seeds=$work/seeds/$t
    rm -rf "$seeds"
    mkdir -p "$seeds" "$work/corpus/$t"
    if [[ -f $here/$t.seed.sh ]]; then
        bash "$here/$t.seed.sh" "$seeds" "$corpus" || echo "warning: $t.seed.sh failed"
        big=$(find "$seeds" -type f -size +64k | wc -l)
        [[ $big -eq 0 ]] || echo "warning: $t.seed.sh wrote $big seeds over 64 KiB"
    fi
    budget=(-max_total_time="$secs")
    if [[ -n ${ZDEM_FUZZ_RUNS:-} ]]; then
        budget=(-runs="$ZDEM_FUZZ_RUNS" -seed=1)
        rm -rf "$work/corpus/$t"
        mkdir -p "$work/corpus/$t"
    fi
    dirs=("$work/corpus/$t" "$seeds")
    [[ -d $here/seeds/$t ]] && dirs+=("$here/seeds/$t")
    opts=()
    if [[ -f $here/$t.options ]]; then
        while read -r line; do
            [[ -z $line || $line == \#* ]] || opts+=("$line")
        done <"$here/$t.options"
    fi

    log=$work/log/$t.log
    start=$(date +%s.%N)
    # CPU seconds too (the children's, from `times` before and after): on a
    # shared machine the wall-clock rate follows the load, the rate per CPU
    # second is what the target costs
    times >"$log.cpu"
    (cd "$here" && "$work/bin/$t" "${budget[@]}" -max_len=65536 -timeout=2 -rss_limit_mb=512 \
        -artifact_prefix="$work/artifacts/$t-" -print_final_stats=1 ${opts[@]+"${opts[@]}"} \
        "${dirs[@]}") >"$log" 2>&1
    rc=$?
    times >>"$log.cpu"
    secs_run=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    ran=$((ran + 1))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    # executions per wall second of the run (libFuzzer's own figure is
    # rounded to whole seconds, useless for short runs)
    rate=$(awk -v e="${runs:-0}" -v s="$secs_run" 'BEGIN { printf "%d", (s > 0 ? e / s : 0) }')
    cpurate=$(awk -v e="${runs:-0}" '
        function secs(x, a) { sub(/s$/, "", x); split(x, a, "m"); return a[1] * 60 + a[2] }
        NR == 2 { c0 = secs($1) + secs($2) } NR == 4 { c = secs($1) + secs($2) - c0 }
        END { printf "%d", (c > 0 ? e / c : 0) }' "$log.cpu")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    record_stats "$t" "$secs_run" "${runs:-0}" "${rate:-0}"
    total=$(awk -F'\t' -v t="$t" '$1 == t { print $4 }' "$stats")
    if [[ $rc -ne 0 ]]; then
        echo "FAIL $t (exit $rc), log $log:"
        grep -E 'ERROR|SUMMARY|runtime error|Test unit written|out-of-memory|timeout' "$log" | head -10
        art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
        [[ -n $art ]] && echo "  minimize: (cd $here && $work/bin/$t -minimize_crash=1 -runs=20000 -timeout=2 -rss_limit_mb=512 -exact_artifact_path=regress/$t/NAME $art)"
        failed+=("$t")
    else
        echo "ok   $t: ${runs:-?} executions in ${secs_run} s, ${rate:-?} exec/s (${cpurate:-?} per CPU second), ${cov:-cov: ?}; cumulative ${total:-?} executions"
    fi
done

echo "fuzz statistics ($stats):"
column -t -s $'\t' "$stats" 2>/dev/null || cat "$stats"
echo "fuzz: $ran targets run, ${#failed[@]} failed${failed:+: ${failed[*]}}"
[[ ${#failed[@]} -eq 0 ]]
