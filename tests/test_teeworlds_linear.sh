#!/bin/bash
# Work linear in the input for Teeworlds, with deterministic instruction
# counts (as tests/test_source2_linear.sh for Source 2): each crafted worst
# case of tests/twcraft.py (item keys that all collide under the item hash
# the reader used before, followed by empty deltas; keys in the worst order
# for the key-sorted index that replaced it; 1024 items and 20,000 deltas
# of one changed item each, which once cost a copy of the snapshot in the
# reader and a pass over every item in the rows; 20,000 deltas that each
# remove an item and add it back, which once rebuilt the snapshot) runs
# through `zdem info` and
# `zdem events` (at the default limits, and a 128-item set at --small)
# and `zdem ticks` under callgrind, and its instructions per input byte
# (after the fixed cost of a run on a header-only demo) must stay within
# 10x of the worst corpus file's for that command. The counts a reader must find (snapshots,
# deltas, items in the last snapshot) come from the writer. `zdem dump` is
# left out: it prints a line per chunk, whatever the chunk holds, so a
# stream of one-byte chunks costs its output formatting (an output bound,
# not the reader's). Counts, never seconds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
C=${ZDEM_CORPUS:?}
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
command -v valgrind >/dev/null || { echo "FAIL: valgrind is needed (tests/deps.sh installs it)"; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# A plain optimized CLI: sanitizers and valgrind do not mix.
gen=${ZDEM_BUILD_DIR:-}/generated
[ -f "$gen/teeworlds_proto.c" ] || gen=$root/generated
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

# ticks: the row path (zdem.tw's too), which an empty delta once made pass
# over every item of the snapshot again (7.4 G instructions for 87 KB)
cmds=("info --json" "events" "info --small --json" "events --small" "ticks --props x,y,vel_x,health")
# a header-only demo (no map, no chunk): the fixed cost of a run
"$PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); import twcraft
open(sys.argv[2], "wb").write(twcraft.Demo().finish())' "$here" "$work/empty.demo"
declare -A base worst worst_file
for c in "${cmds[@]}"; do
    base[$c]=$(instr $c "$work/empty.demo")
    worst[$c]=0
    for f in "$C"/teeworlds/*.demo; do
        n=$(stat -c %s "$f")
        i=$(instr $c "$f")
        p=$(( (i - base[$c]) / n ))
        if [ "$p" -gt "${worst[$c]}" ]; then worst[$c]=$p; worst_file[$c]=$(basename "$f"); fi
    done
    echo "corpus worst for '$c': ${worst[$c]} instructions/byte (${worst_file[$c]}), empty run ${base[$c]}"
done

# generator, -n, the commands (default or small limits), generator options
cases=("hash-items 1024 default" "hash-items 128 small" "sorted-worst 1024 default"
       "sorted-worst 128 small -o deltas=600" "one-item-deltas 1024 default"
       "remove-readd-deltas 1024 default")
pass=0 fail=0
printf '%-14s %5s %-20s %9s %12s %8s %8s\n' generator n command bytes instructions per-byte limit
for cs in "${cases[@]}"; do
    set -- $cs
    g=$1 nn=$2 lim_kind=$3
    shift 3
    f=$work/$g-$nn.demo
    if ! "$PY" "$here/twcraft.py" "$g" "$f" -n "$nn" "$@" --facts "$f.json" >/dev/null 2>"$work/gen.err"; then
        echo "FAIL: twcraft.py $g -n $nn: $(tail -1 "$work/gen.err")"; fail=$((fail + 1)); continue
    fi
    n=$(stat -c %s "$f")
    for c in "${cmds[@]}"; do
        case "$c" in *--small*) [ "$lim_kind" = small ] || continue ;;
                     *) [ "$lim_kind" = default ] || continue ;; esac
        i=$(instr $c "$f")
        if [ -z "$i" ]; then echo "FAIL: $g -n $nn '$c' did not run"; fail=$((fail + 1)); continue; fi
        d=$(( i - base[$c] )); [ $d -lt 0 ] && d=0
        p=$(( d / n ))
        # a tiny input's per-byte figure is noise on the fixed cost: it
        # must stay within the limit applied to a 64 KiB input
        [ "$n" -lt 65536 ] && p=$(( d / 65536 ))
        lim=$(( 10 * worst[$c] ))
        printf '%-14s %5d %-20s %9d %12d %8d %8d\n' "$g" "$nn" "$c" "$n" "$i" "$p" "$lim"
        if [ "$p" -le "$lim" ]; then pass=$((pass + 1)); else
            echo "FAIL: $g -n $nn '$c': $p instructions/byte > 10 x corpus worst ${worst[$c]}"
            fail=$((fail + 1)); fi
    done
    # what the writer put in: every chunk read, the last snapshot whole,
    # nothing over a limit, exit 0
    sm=; [ "$lim_kind" = small ] && sm=--small
    if ! "$Z" info $sm --json "$f" >"$work/info.json" 2>"$work/info.err" ||
       ! "$Z" dump $sm --json "$f" >"$work/dump.json" 2>>"$work/info.err"; then
        echo "FAIL: $g -n $nn: zdem exits non-zero: $(tail -1 "$work/info.err")"; fail=$((fail + 1)); continue
    fi
    if "$PY" - "$f.json" "$work/info.json" "$work/dump.json" <<'PY'
import json, sys
facts = json.load(open(sys.argv[1]))
info = json.load(open(sys.argv[2]))
last = [json.loads(l) for l in open(sys.argv[3]) if '"items"' in l][-1]
got = {"snapshots": info["chunks"]["snapshot"], "deltas": info["chunks"]["delta"],
       "items": last["items"]}
bad = info.get("warnings") or info.get("error")
if got != facts or bad:
    print("FAIL: %s: zdem read %s (warnings/error %s), the writer wrote %s" % (sys.argv[1], got, bad, facts))
    sys.exit(1)
PY
    then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
