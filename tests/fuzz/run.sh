#!/usr/bin/env bash
# Builds every libFuzzer target tests/fuzz/fuzz_<layer>_*.c with clang
# (-fsanitize=fuzzer,address,undefined) and runs each for SECONDS.
# Exit status 1 when a target fails to build or finds a crash, leak, timeout
# or OOM; the reproducer is kept under $WORK/artifacts/.
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
#   <t>.options    extra libFuzzer flags, one per line (-dict=, -max_len=, ...);
#                  relative paths are relative to tests/fuzz/
# The layer comes from the file name and decides the sources and corpus seeds:
#   runtime/*.c + runtime/<layer>/*.c + generated/<layer>_*.c
#   source2: corpus source2/*.dem, quake3: q3/*, teeworlds: teeworlds/*.demo
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

# Corpus files that seed a layer's targets.
seed_files() {
    case $1 in
    source2) seeds_found=("$corpus"/source2/*.dem) ;;
    quake3) seeds_found=("$corpus"/q3/*) ;;
    teeworlds) seeds_found=("$corpus"/teeworlds/*.demo) ;;
    *) seeds_found=() ;;
    esac
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

    # Seeds: a fresh directory of links to corpus files plus generated ones;
    # the working corpus (first directory) persists between runs.
    seeds=$work/seeds/$t
    rm -rf "$seeds"
    mkdir -p "$seeds" "$work/corpus/$t"
    seed_files "$layer"
    for f in ${seeds_found[@]+"${seeds_found[@]}"}; do
        [[ -f $f ]] && ln -sf "$f" "$seeds/$(basename "$f")"
    done
    if [[ -f $here/$t.seed.sh ]]; then
        bash "$here/$t.seed.sh" "$seeds" "$corpus" || echo "warning: $t.seed.sh failed"
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
    (cd "$here" && "$work/bin/$t" "${budget[@]}" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$work/artifacts/$t-" -print_final_stats=1 ${opts[@]+"${opts[@]}"} \
        "${dirs[@]}") >"$log" 2>&1
    rc=$?
    ran=$((ran + 1))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    if [[ $rc -ne 0 ]]; then
        echo "FAIL $t (exit $rc), log $log:"
        grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -10
        failed+=("$t")
    else
        echo "ok   $t: ${runs:-?} runs, ${cov:-cov: ?}"
    fi
done

echo "fuzz: $ran targets run, ${#failed[@]} failed${failed:+: ${failed[*]}}"
[[ ${#failed[@]} -eq 0 ]]
