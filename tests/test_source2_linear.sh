#!/bin/bash
# Work linear in the input, shown with deterministic instruction counts:
# every crafted worst case of tests/s2craft.py (serializers sharing a key,
# colliding class names, baseline churn, big shared baselines, full
# snapshots, many player controllers, sparse event ids, huge string-table
# indexes, deep field paths, lying Snappy sizes, ...) is run through each
# zdem command (events also in the events mode, --small) under callgrind,
# and its instructions per input byte (after the fixed cost of a run on an
# empty demo) must stay within 10x of the worst corpus file's for that
# command. Counts, never seconds: callgrind's are the same on a loaded
# machine.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
C=${ZDEM_CORPUS:?}
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
command -v valgrind >/dev/null || { echo "FAIL: valgrind is needed (tests/deps.sh installs it)"; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export ZDEM_HASH_SEED=1 # the same hash seed every run: repeatable counts

# A plain optimized CLI: sanitizers and valgrind do not mix.
gen=${ZDEM_BUILD_DIR:-}/generated
[ -f "$gen/source2_pb.c" ] || gen=$root/generated
cc=${CC:-cc}
if ! "$cc" -std=c11 -O2 -o "$work/zdem" -I"$root/runtime" -I"$root/runtime/source2" \
        -I"$root/runtime/quake3" -I"$root/runtime/teeworlds" -I"$root/tools" -I"$gen" \
        "$root"/runtime/*.c "$root"/runtime/source2/*.c "$root"/runtime/quake3/*.c \
        "$root"/runtime/teeworlds/*.c "$gen"/*.c "$root"/tools/*.c -lm; then
    echo "FAIL: cannot build the plain CLI"; exit 1
fi
Z=$work/zdem

instr() { # command args... -> instructions
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$Z" "$@" 2>&1 >/dev/null |
        sed -n 's/.*refs: *//p' | tr -d ,
}

cmds=("info --json" "events" "events --small" "entities" "dump")
head -c 16 "$C/source2/cs2_demofile-net-gotv-14011-cs-italy.dem" > "$work/empty.dem"
declare -A base worst worst_file
for c in "${cmds[@]}"; do
    base[$c]=$(instr $c "$work/empty.dem")
    worst[$c]=0
    for f in "$C"/source2/*.dem; do
        n=$(stat -c %s "$f")
        i=$(instr $c "$f")
        p=$(( (i - base[$c]) / n ))
        if [ "$p" -gt "${worst[$c]}" ]; then worst[$c]=$p; worst_file[$c]=$(basename "$f"); fi
    done
    echo "corpus worst for '$c': ${worst[$c]} instructions/byte (${worst_file[$c]}), empty run ${base[$c]}"
done

gens=(same-key-serializers colliding-classes baseline-updates big-baseline full-packets
      player-controllers sparse-event-ids strtab-huge-index strtab-many strtab-snappy-claim
      snappy-claim deep-fieldpaths odd-names)
pass=0 fail=0
printf '%-22s %-12s %9s %12s %8s %8s\n' generator command bytes instructions per-byte limit
for g in "${gens[@]}"; do
    if ! "$PY" "$here/s2craft.py" "$g" "$work/$g.dem" >/dev/null 2>"$work/gen.err"; then
        echo "FAIL: s2craft.py $g: $(tail -1 "$work/gen.err")"; fail=$((fail + 1)); continue
    fi
    n=$(stat -c %s "$work/$g.dem")
    for c in "${cmds[@]}"; do
        i=$(instr $c "$work/$g.dem")
        if [ -z "$i" ]; then echo "FAIL: $g '$c' did not run"; fail=$((fail + 1)); continue; fi
        d=$(( i - base[$c] )); [ $d -lt 0 ] && d=0
        p=$(( d / n ))
        # the events mode does a subset of the events run's work on each
        # byte it reads, and far less on the corpus (entity data is passed
        # over): held to the events run's bound
        r=${c% --small}
        lim=$(( 10 * worst[$r] ))
        # a tiny input's per-byte figure is noise on the fixed cost: it
        # must stay within the limit applied to a 64 KiB input
        [ "$n" -lt 65536 ] && p=$(( d / 65536 ))
        printf '%-22s %-12s %9d %12d %8d %8d\n' "$g" "$c" "$n" "$i" "$p" "$lim"
        if [ "$p" -le "$lim" ]; then pass=$((pass + 1)); else
            echo "FAIL: $g '$c': $p instructions/byte > 10 x corpus worst ${worst[$r]}"; fail=$((fail + 1)); fi
        [ "$c" = events ] && d_events=$d
        # and never more work than the full events run on the same input
        if [ "$c" = "events --small" ] && [ "$d" -gt $(( d_events + d_events / 10 + 100000 )) ]; then
            echo "FAIL: $g: the events mode does more work ($d) than the events run ($d_events)"
            fail=$((fail + 1))
        fi
    done
done

# Hash flooding (issue 26): keys crafted to collide under zdem's own hash
# with a known seed (s2craft.py hash-*: string-table indexes, field paths,
# string-table names), for seed 1 and for the built-in seed (0, what a
# library user who leaves hash_seed at 0 gets), each run under the seed it
# was crafted for and under the other: the bound holds whatever the seed.
# Under its own seed a set must be reported (probe_limit: a refused key is
# never silent), under the other it must not (so the set really aims at one
# seed and a normal run keeps every key).
hash_cmds=("info --json" "events" "events --small" "entities")
for g in hash-strtab-index hash-fieldpaths hash-strtab-names; do
    for cs in 1 0; do
        f=$work/$g-seed$cs.dem
        if ! "$PY" "$here/s2craft.py" "$g" "$f" -o seed=$cs >/dev/null 2>"$work/gen.err"; then
            echo "FAIL: s2craft.py $g -o seed=$cs: $(tail -1 "$work/gen.err")"; fail=$((fail + 1)); continue
        fi
        n=$(stat -c %s "$f")
        for rs in $cs $((1 - cs)); do
            for c in "${hash_cmds[@]}"; do
                i=$(export ZDEM_HASH_SEED=$rs; instr $c "$f")
                if [ -z "$i" ]; then echo "FAIL: $g seed $cs/$rs '$c' did not run"; fail=$((fail + 1)); continue; fi
                d=$(( i - base[$c] )); [ $d -lt 0 ] && d=0
                p=$(( d / n ))
                r=${c% --small}
                lim=$(( 10 * worst[$r] ))
                printf '%-22s %-12s %9d %12d %8d %8d  (crafted for seed %d, run with %d)\n' \
                    "$g" "$c" "$n" "$i" "$p" "$lim" "$cs" "$rs"
                if [ "$p" -le "$lim" ]; then pass=$((pass + 1)); else
                    echo "FAIL: $g (seed $cs, run $rs) '$c': $p instructions/byte > 10 x corpus worst ${worst[$r]}"
                    fail=$((fail + 1)); fi
            done
            w=$(ZDEM_HASH_SEED=$rs "$Z" info --json "$f" 2>/dev/null | sed -n 's/.*"probe_limit":\([0-9]*\).*/\1/p')
            if [ "$rs" = "$cs" ] && [ -z "$w" ]; then
                echo "FAIL: $g crafted for seed $cs: no probe_limit reported under that seed"; fail=$((fail + 1))
            elif [ "$rs" != "$cs" ] && [ -n "$w" ]; then
                echo "FAIL: $g crafted for seed $cs: probe_limit $w under seed $rs"; fail=$((fail + 1))
            else
                pass=$((pass + 1))
            fi
        done
    done
done
# ---- amplification (issue 26) ----------------------------------------------
# Compact inputs that ask for work or output out of all proportion to their
# size: a class baseline under keys that keep changing (same bytes, or two
# values in turn), a string table created again and again from nested
# Snappy, string-table data of LZSS inside Snappy (160x), Snappy packets of entity updates at two bits a field, frames of
# nothing that inflate into millions of empty inner messages (16 MiB ones
# for dump, 240 KiB ones that the events mode reads), and empty frames that
# repeat every entity's tick row. Held to the same 10x bound at the
# defaults: the library by its baseline cache (by the bytes) and its work
# budget per input byte, the CLI by its output bounds (--max-output,
# --max-rows). Each generator's size is chosen over 64 KiB.
amp=("baseline-key-churn -n 2000"
     "baseline-key-churn -n 2000 -o same=0"
     "strtab-recreate -n 96"
     "strtab-lzss -n 4"
     "fields-snappy -n 3000"
     "dump-zero-frames -n 2 -o mib=2"
     "dump-zero-frames -n 16 -o mib=0.24"
     "ticks-empty-frames -n 64000")
# the ticks command's corpus worst: player rows (the default) and the rows
# of the most numerous class of the CS2 files (prop entities)
tq=("--props X,Y,Z,health" "--class CPhysicsPropMultiplayer --props m_iHealth")
tbase=$(instr ticks "$work/empty.dem" ${tq[0]})
tworst=0
for f in "$C"/source2/*.dem; do
    n=$(stat -c %s "$f")
    for q in "${tq[@]}"; do
        i=$(instr ticks "$f" $q)
        p=$(( (i - tbase) / n ))
        if [ "$p" -gt "$tworst" ]; then tworst=$p; tworst_file="$(basename "$f") [$q]"; fi
    done
done
echo "corpus worst for 'ticks': $tworst instructions/byte ($tworst_file)"
for spec in "${amp[@]}"; do
    g=${spec%% *}
    out="$work/amp.dem"
    if ! "$PY" "$here/s2craft.py" $spec "$out" >/dev/null 2>"$work/gen.err"; then
        echo "FAIL: s2craft.py $spec: $(tail -1 "$work/gen.err")"; fail=$((fail + 1)); continue
    fi
    n=$(stat -c %s "$out")
    runs=("${cmds[@]}")
    [ "$g" = ticks-empty-frames ] && runs+=("ticks --class CThing --props m_iHealth")
    for c in "${runs[@]}"; do
        i=$(instr $c "$out")
        if [ -z "$i" ]; then echo "FAIL: $spec '$c' did not run"; fail=$((fail + 1)); continue; fi
        r=${c% --small}
        if [ "${c%% *}" = ticks ]; then b=$tbase; w=$tworst; else b=${base[$c]}; w=${worst[$r]}; fi
        d=$(( i - b )); [ $d -lt 0 ] && d=0
        p=$(( d / (n > 65536 ? n : 65536) ))
        lim=$(( 10 * w ))
        printf '%-40s %-38s %8d %12d %7d %7d\n' "$spec" "$c" "$n" "$i" "$p" "$lim"
        if [ "$p" -le "$lim" ]; then pass=$((pass + 1)); else
            echo "FAIL: $spec '$c': $p instructions/byte > 10 x corpus worst $w"; fail=$((fail + 1)); fi
    done
done

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
