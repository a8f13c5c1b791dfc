#!/bin/bash
# The drop-in amalgamation (tools/amalgamate.py: zdem.c + zdem.h) compiles
# with nothing but a C compiler, warning-free under
# -std=c11 -Wall -Wextra -pedantic, with gcc, clang and arm-none-eabi-gcc
# (those installed); the examples built from it alone give the output the
# peers' references give (tests/examples_check.py). Its zdem.h is C++ too:
# the examples built as C++11, 14, 17 and 20 with g++ and clang++ against it
# (zdem.c compiled as C) print what the C builds print. The QEMU firmware is
# built from it too (tests/mcu/build.sh, test_mcu_qemu).
set -euo pipefail
SRC=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
CORPUS=${ZDEM_CORPUS:-$SRC/../shared/corpus}
PY=${ZDEM_PYTHON:-python3}
W=$(mktemp -d "${TMPDIR:-/tmp}/zdem-amalgamation.XXXXXX")
trap 'rm -rf "$W"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$PY" "$SRC/tools/amalgamate.py" --source "$SRC" --out "$W/zdem"
[ -s "$W/zdem/zdem.c" ] && [ -s "$W/zdem/zdem.h" ] || { echo "FAIL: no amalgamation"; exit 1; }
grep -q '#include "' "$W/zdem/zdem.h" && bad "zdem.h still includes a local header"
[ "$(grep -c '^#include "' "$W/zdem/zdem.c")" = 1 ] || bad "zdem.c includes more than zdem.h"

FLAGS="-std=c11 -Wall -Wextra -pedantic -Werror -O2"
compilers=0
for cc in ${ZDEM_C_COMPILER:-} gcc clang; do
    command -v "$cc" >/dev/null 2>&1 || continue
    # shellcheck disable=SC2086
    if "$cc" $FLAGS -c "$W/zdem/zdem.c" -o "$W/zdem-$(basename "$cc").o" 2> "$W/cc.log"; then
        echo "ok: $cc $FLAGS"
        compilers=$((compilers + 1))
    else
        head -20 "$W/cc.log"
        bad "$cc does not compile the amalgamation warning-free"
    fi
done
[ $compilers -gt 0 ] || bad "no host compiler"
if command -v arm-none-eabi-gcc >/dev/null 2>&1; then
    # shellcheck disable=SC2086
    if arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb $FLAGS -Os -ffreestanding -c "$W/zdem/zdem.c" \
            -o "$W/zdem-arm.o" 2> "$W/cc.log"; then
        echo "ok: arm-none-eabi-gcc -mcpu=cortex-m4 $FLAGS"
    else
        head -20 "$W/cc.log"
        bad "arm-none-eabi-gcc does not compile the amalgamation warning-free"
    fi
else
    echo "note: arm-none-eabi-gcc not installed (sh tests/deps.sh): cross build not checked"
fi

# The examples against the amalgamation only: <zdem/zdem.h> is its header.
CC=${ZDEM_C_COMPILER:-cc}
mkdir -p "$W/inc/zdem" "$W/bin"
cp "$W/zdem/zdem.h" "$W/inc/zdem/zdem.h"
obj="$W/zdem-$(basename "$CC").o"
# shellcheck disable=SC2086
[ -f "$obj" ] || "$CC" $FLAGS -c "$W/zdem/zdem.c" -o "$obj"
for e in source2_events quake3_events teeworlds_events; do
    # shellcheck disable=SC2086
    "$CC" $FLAGS -I"$W/inc" "$SRC/examples/$e.c" "$obj" -o "$W/bin/$e" -lm ||
        bad "$e does not build from the amalgamation"
done
[ $fail = 0 ] && { "$PY" "$SRC/tests/examples_check.py" "$W/bin" "$CORPUS" "${ZDEM_BIN:-}" || bad "examples' output"; }

# C++ through the amalgamated zdem.h (`= {0}` in the examples is C's idiom,
# all -Wmissing-field-initializers objects to in C++).
if [ $fail = 0 ]; then
    for cxx in g++ clang++; do
        command -v $cxx >/dev/null 2>&1 || { bad "$cxx not installed (sh tests/deps.sh)"; continue; }
        for std in 11 14 17 20; do
            for e in source2_events quake3_events teeworlds_events; do
                # shellcheck disable=SC2086
                $cxx -std=c++$std -Wall -Wextra -pedantic -Werror -Wno-missing-field-initializers \
                    -I"$W/inc" -x c++ "$SRC/examples/$e.c" -x none "$obj" -lm -o "$W/bin/$e-$cxx-$std" \
                    2> "$W/cxx.log" || { head -20 "$W/cxx.log"; bad "$cxx -std=c++$std: $e does not build from the amalgamation"; }
            done
        done
    done
    for ed in "source2_events source2/cs2_demofile-net-gotv-14011-cs-italy.dem" \
              "quake3_events $(cd "$CORPUS" && ls q3/*.dm_68 | head -1)" \
              "teeworlds_events $(cd "$CORPUS" && ls teeworlds/*.demo | head -1)"; do
        set -- $ed
        "$W/bin/$1" "$CORPUS/$2" > "$W/want.txt" 2>&1 || true
        [ -s "$W/want.txt" ] || bad "$1 $2 prints nothing"
        for b in "$W/bin/$1"-*; do
            [ -e "$b" ] || continue
            "$b" "$CORPUS/$2" > "$W/got.txt" 2>&1 || true
            cmp -s "$W/want.txt" "$W/got.txt" || bad "$(basename "$b") $2 differs from the C build"
        done
    done
    [ $fail = 0 ] && echo "ok: the examples as C++11/14/17/20 with g++ and clang++ on the amalgamation"
fi
[ $fail = 0 ] && echo "PASS: the amalgamation builds alone and gives the references' values"
exit $fail
