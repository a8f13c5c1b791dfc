#!/bin/bash
# Work linear in the input through the Python API (the equivalent of
# tests/test_source2_linear.sh and tests/test_teeworlds_linear.sh for the
# package): zdem.parse_header (always the built-in hash seed),
# parse_events, parse_ticks (player and class rows) and zdem.tw's header,
# players, chat, kills and ticks run on hostile files in one Python process
# under callgrind, and only the instructions inside libzdem (and the libc
# calls it makes) are counted, call by call (tests/py_linear.py). Per input
# byte and returned row (rows are work the caller asks for, up to
# max_rows), after the fixed cost of a call on an empty demo, each must
# stay within 10x of the worst corpus file's for that call, measured the
# same way; parse_header is held to the full read's bound (on a file of
# nothing but signon it reads all of it). The hostile files: keys crafted to collide under zdem's hash
# (s2craft.py hash-*, for seed 1 and for the built-in seed 0), each run
# under the seed it was crafted for, the other one and the package's random
# seed; the amplification generators of test_source2_linear.sh; twcraft.py's
# colliding and worst-order item keys. Counts, never seconds.
#
# A plain optimized libzdem.so (sanitizers and valgrind do not mix, and an
# ASan library cannot be loaded into an uninstrumented python3), loaded by
# the package from the source tree (ZDEM_LIB, PYTHONPATH=python).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
C=${ZDEM_CORPUS:?}
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=/usr/bin/python3
command -v valgrind >/dev/null || { echo "FAIL: valgrind is needed (tests/deps.sh installs it)"; exit 1; }
[ -f /usr/include/valgrind/callgrind.h ] || { echo "FAIL: valgrind/callgrind.h is needed (Debian's valgrind)"; exit 1; }
unset LD_PRELOAD ASAN_OPTIONS UBSAN_OPTIONS || true
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

gen=${ZDEM_BUILD_DIR:-}/generated
[ -f "$gen/source2_pb.c" ] || gen=$root/generated
cc=${CC:-cc}
if ! "$cc" -std=c11 -O2 -fPIC -shared -o "$work/libzdem.so" -I"$root/runtime" -I"$root/runtime/source2" \
        -I"$root/runtime/quake3" -I"$root/runtime/teeworlds" -I"$gen" \
        "$root"/runtime/*.c "$root"/runtime/source2/*.c "$root"/runtime/quake3/*.c \
        "$root"/runtime/teeworlds/*.c "$gen"/*.c -lm; then
    echo "FAIL: cannot build the plain libzdem.so"; exit 1
fi
# callgrind's client requests, for the driver to call through cffi
cat >"$work/cg.c" <<'EOF'
#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void cg_zero(void) { CALLGRIND_ZERO_STATS; }
void cg_dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
EOF
"$cc" -O1 -fPIC -shared -o "$work/cg.so" "$work/cg.c" || { echo "FAIL: cannot build the callgrind helper"; exit 1; }

fail=0
# the files: empty demos (the fixed cost of a call), then the hostile ones
head -c 16 "$C/source2/cs2_demofile-net-gotv-14011-cs-italy.dem" >"$work/empty.dem"
"$PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); import twcraft
open(sys.argv[2], "wb").write(twcraft.Demo().finish())' "$here" "$work/empty.demo"
jobs=$work/jobs.tsv
: >"$jobs"
job() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$jobs"; }
s2apis=(header events ticks ticks-class)
twapis=(tw-header tw-players tw-chat tw-kills tw-ticks)
for a in "${s2apis[@]}"; do job empty "$a" 1 "$work/empty.dem"; done
for a in "${twapis[@]}"; do job empty "$a" 1 "$work/empty.demo"; done
for f in "$C"/source2/*.dem; do for a in "${s2apis[@]}"; do job corpus "$a" 1 "$f"; done; done
for f in "$C"/teeworlds/*.demo; do for a in "${twapis[@]}"; do job corpus "$a" 1 "$f"; done; done

for g in hash-strtab-index hash-fieldpaths hash-strtab-names; do
    for cs in 1 0; do
        f=$work/$g-seed$cs.dem
        if ! "$PY" "$here/s2craft.py" "$g" "$f" -o seed=$cs >/dev/null 2>"$work/gen.err"; then
            echo "FAIL: s2craft.py $g -o seed=$cs: $(tail -1 "$work/gen.err")"; fail=$((fail + 1)); continue
        fi
        job craft header 0 "$f"
        for rs in $cs $((1 - cs)) random; do
            job craft events "$rs" "$f"
            job craft ticks "$rs" "$f"
        done
    done
done
amp=("baseline-key-churn -n 2000"
     "baseline-key-churn -n 2000 -o same=0"
     "strtab-recreate -n 96"
     "strtab-lzss -n 4"
     "fields-snappy -n 3000"
     "dump-zero-frames -n 2 -o mib=2"
     "dump-zero-frames -n 16 -o mib=0.24"
     "ticks-empty-frames -n 64000")
k=0
for spec in "${amp[@]}"; do
    g=${spec%% *}
    k=$((k + 1))
    f=$work/amp$k-$g.dem
    if ! "$PY" "$here/s2craft.py" $spec "$f" >/dev/null 2>"$work/gen.err"; then
        echo "FAIL: s2craft.py $spec: $(tail -1 "$work/gen.err")"; fail=$((fail + 1)); continue
    fi
    for a in header events ticks; do job craft "$a" 1 "$f"; done
    [ "$g" = ticks-empty-frames ] && job craft ticks-class 1 "$f"
done
for cs in "hash-items 1024" "sorted-worst 1024"; do
    set -- $cs
    f=$work/tw-$1-$2.demo
    if ! "$PY" "$here/twcraft.py" "$1" "$f" -n "$2" >/dev/null 2>"$work/gen.err"; then
        echo "FAIL: twcraft.py $1 -n $2: $(tail -1 "$work/gen.err")"; fail=$((fail + 1)); continue
    fi
    for a in "${twapis[@]}"; do job craft "$a" - "$f"; done
done

echo "test_python_linear: $(wc -l <"$jobs") calls under callgrind"
(cd "$work" && ZDEM_LIB="$work/libzdem.so" PYTHONPATH="$root/python" \
    valgrind --tool=callgrind --instr-atstart=no --dump-instr=no --compress-strings=no \
        --compress-pos=no --callgrind-out-file="$work/cg.out" \
        "$PY" "$here/py_linear.py" calls "$jobs" "$work/cg.so" >"$work/results.tsv" 2>"$work/vg.err")
rc=$?
if [ $rc -ne 0 ]; then
    echo "FAIL: the calls under callgrind exit $rc:"; tail -20 "$work/vg.err"; exit 1
fi
"$PY" "$here/py_linear.py" check "$jobs" "$work/results.tsv" "$work/cg.out" || fail=$((fail + 1))
[ $fail -eq 0 ]
