#!/bin/bash
# The drop-in amalgamation (tools/amalgamate.py: zdem.c + zdem.h) compiles
# with nothing but a C compiler, warning-free under
# -std=c11 -Wall -Wextra -pedantic, with gcc, clang and arm-none-eabi-gcc
# (those installed); the examples built from it alone give the output the
# peers' references give (tests/examples_check.py). The QEMU firmware is
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
[ $fail = 0 ] && echo "PASS: the amalgamation builds alone and gives the references' values"
exit $fail
