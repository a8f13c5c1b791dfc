#!/bin/sh
# zdem on a microcontroller: cross-builds the library and the firmware
# (tests/mcu/build.sh, which fails on any malloc/free in the map), runs it
# under QEMU on a Cortex-M4 (mps2-an386) and a Cortex-M3 (mps2-an385), and
# compares the facts it prints for real Quake III and Teeworlds demos (read
# from flash) with `zdem info --json` on the host and with EXPECTED.md.
# Needs arm-none-eabi-gcc, newlib and qemu-system-arm (tests/deps.sh);
# without them it prints SKIP and passes.
set -eu

SRC=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
CORPUS=${ZDEM_CORPUS:-$SRC/../shared/corpus}
PY=${ZDEM_PYTHON:-python3}
[ -x "$PY" ] || PY=python3

for tool in arm-none-eabi-gcc qemu-system-arm; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "SKIP: $tool not installed (sh tests/deps.sh installs it)"
        exit 0
    fi
done
if ! echo 'int main(void){return 0;}' | arm-none-eabi-gcc --specs=nano.specs -x c -c -o /dev/null - 2>/dev/null; then
    echo "SKIP: newlib for arm-none-eabi not installed (libnewlib-arm-none-eabi)"
    exit 0
fi
if [ ! -f "$CORPUS/EXPECTED.md" ]; then
    echo "SKIP: corpus not found at $CORPUS"
    exit 0
fi

DEMOS="$CORPUS/q3/q3-cpma_udt-core-gameplay-dev.dm_68
$CORPUS/q3/q3_udt-one-frag-only-with-plasma.dm_68
$CORPUS/teeworlds/ddnet_demo-edit-clip-fng.demo"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/zdem-mcu.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Host facts (the CLI may not know every format yet: compare.py then
# falls back to EXPECTED.md for that one).
mkdir -p "$WORK/host"
for d in $DEMOS; do
    if [ -n "${ZDEM_BIN:-}" ] && [ -x "$ZDEM_BIN" ]; then
        "$ZDEM_BIN" info --json "$d" > "$WORK/host/$(basename "$d").json" 2>/dev/null || true
    fi
done

rc=0
for target in cortex-m4:mps2-an386 cortex-m3:mps2-an385; do
    cpu=${target%%:*}
    machine=${target#*:}
    out="$WORK/$cpu"
    echo "== $cpu on QEMU $machine"
    # shellcheck disable=SC2086
    ZDEM_MCU_CPU=$cpu sh "$SRC/tests/mcu/build.sh" "$out" $DEMOS
    status=0
    # Semihosting output goes to a file chardev (QEMU's default is stderr,
    # mixed with its own messages).
    timeout 60 qemu-system-arm -M "$machine" -display none -monitor none -serial none \
        -chardev file,id=semi,path="$out/run.out" \
        -semihosting-config enable=on,target=native,chardev=semi \
        -kernel "$out/firmware.elf" > "$out/run.err" 2>&1 || status=$?
    if [ $status -ne 0 ] || ! grep -q '^zdem-mcu: OK' "$out/run.out"; then
        echo "FAIL: firmware exit status $status"
        tail -c 2000 "$out/run.out" 2>/dev/null
        tail -c 2000 "$out/run.err"
        rc=1
        continue
    fi
    # shellcheck disable=SC2086
    "$PY" "$SRC/tests/mcu/compare.py" "$out/run.out" "$CORPUS" "$CORPUS/EXPECTED.md" \
        $DEMOS --host "$WORK/host" || rc=1
done
[ $rc -eq 0 ] && echo "PASS: firmware facts equal the host's"
exit $rc
