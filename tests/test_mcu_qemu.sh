#!/bin/sh
# zdem on a microcontroller: cross-builds the library and the firmwares
# (tests/mcu/build.sh, which fails on any malloc/free in the map), runs them
# under QEMU and compares what they print with the host:
#  1. Quake III and Teeworlds demos on a Cortex-M4 (mps2-an386) and a
#     Cortex-M3 (mps2-an385) with 4 MiB of RAM: facts equal to
#     `zdem info --json` and EXPECTED.md;
#  2. Teeworlds demos with the RAM region linked at exactly 128 KiB, stack
#     included, the reader at ZDEM_TW_LIMITS_SMALL: the same facts, no
#     limit hit (two crafted 0.7 demos too, held to their writer's facts);
#  2b. every Quake III demo that fits ZDEM_Q3_LIMITS_SMALL (the host's
#     `zdem --small` names no limit) and reads clean, in 128 KiB of RAM
#     (stack included), whole file and push input without a gathering
#     buffer, in groups that fit the board's flash: the same facts as the
#     host's full-memory `zdem info --json`, no limit hit;
#  3. every Source 2 demo in events mode through the push API with 1 MiB
#     of RAM: every event equal to the host's `zdem events --json`.
# Each firmware's stack high-water mark must stay under the stack the
# linker reserved, its arena under what the linker left.
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

# Teeworlds demos for the 128 KiB run: those that fit next to the code in
# the board's 4 MiB of flash (all seven fit the small limits:
# tests/test_teeworlds_limits.c).
TW_SMALL="$CORPUS/teeworlds/ddnet_demo-edit-clip-fng.demo
$CORPUS/teeworlds/ddnet_demo-edit-test2-pepeg-v5.demo
$CORPUS/teeworlds/ddnet_webviewer-goat-yeyou3.demo
$CORPUS/teeworlds/ddnet_webviewer-gigachad-tutorial.demo
$CORPUS/teeworlds/ddnet_webviewer-big-chungus-daydream.demo"
S2_DEMOS=$(ls "$CORPUS"/source2/*.dem)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/zdem-mcu.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Teeworlds 0.7, crafted (tests/tw07craft.py; its facts stand in for
# EXPECTED.md): 0.7.5's v4 and DDNet's v6, in the 128 KiB run too.
mkdir -p "$WORK/tw07"
for v in 4 6; do
    "$PY" "$SRC/tests/tw07craft.py" demo "$WORK/tw07/craft7-v$v.demo" --version $v \
        $([ $v = 6 ] && echo --ddnet) --facts "$WORK/tw07/craft7-v$v.demo.json"
    TW_SMALL="$TW_SMALL
$WORK/tw07/craft7-v$v.demo"
done

# Host facts (the CLI may not know every format yet: compare.py then
# falls back to EXPECTED.md for that one).
mkdir -p "$WORK/host"
for d in $DEMOS $TW_SMALL; do
    if [ -n "${ZDEM_BIN:-}" ] && [ -x "$ZDEM_BIN" ]; then
        "$ZDEM_BIN" info --json "$d" > "$WORK/host/$(basename "$d").json" 2>/dev/null || true
    fi
done

run_fw() { # MACHINE DIR: runs DIR/firmware.elf, 0 when it printed OK
    status=0
    # Semihosting output goes to a file chardev (QEMU's default is stderr,
    # mixed with its own messages).
    timeout 120 qemu-system-arm -M "$1" -display none -monitor none -serial none \
        -chardev file,id=semi,path="$2/run.out" \
        -semihosting-config enable=on,target=native,chardev=semi \
        -kernel "$2/firmware.elf" > "$2/run.err" 2>&1 || status=$?
    if [ $status -ne 0 ] || ! grep -q '^zdem-mcu: OK' "$2/run.out"; then
        echo "FAIL: firmware exit status $status"
        tail -c 2000 "$2/run.out" 2>/dev/null
        tail -c 2000 "$2/run.err"
        return 1
    fi
    return 0
}

rc=0
for target in cortex-m4:mps2-an386 cortex-m3:mps2-an385; do
    cpu=${target%%:*}
    machine=${target#*:}
    out="$WORK/$cpu"
    echo "== $cpu on QEMU $machine, 4 MiB of RAM"
    # shellcheck disable=SC2086
    ZDEM_MCU_CPU=$cpu sh "$SRC/tests/mcu/build.sh" "$out" $DEMOS
    run_fw "$machine" "$out" || { rc=1; continue; }
    # shellcheck disable=SC2086
    "$PY" "$SRC/tests/mcu/compare.py" "$out/run.out" "$CORPUS" "$CORPUS/EXPECTED.md" \
        $DEMOS --host "$WORK/host" || rc=1
done
echo "== Teeworlds in 128 KiB of RAM (stack included), small limits"
# shellcheck disable=SC2086
ZDEM_MCU_RAM=128K ZDEM_MCU_STACK=8K sh "$SRC/tests/mcu/build.sh" "$WORK/tw128k" $TW_SMALL
if run_fw mps2-an386 "$WORK/tw128k"; then
    grep -q '"ram":131072,' "$WORK/tw128k/run.out" || { echo "FAIL: RAM is not 128 KiB"; rc=1; }
    # shellcheck disable=SC2086
    "$PY" "$SRC/tests/mcu/compare.py" "$WORK/tw128k/run.out" "$CORPUS" "$CORPUS/EXPECTED.md" \
        $TW_SMALL --host "$WORK/host" --facts "$WORK/tw07" || rc=1
else
    rc=1
fi

echo "== Quake III in 128 KiB of RAM (stack included), small limits"
if [ -n "${ZDEM_BIN:-}" ] && [ -x "$ZDEM_BIN" ]; then
    Q3_FIT=
    for d in "$CORPUS"/q3/*.dm3 "$CORPUS"/q3/*.dm_*; do
        [ -f "$d" ] || continue
        # clean at the default limits (the firmware fails on a damaged
        # demo) and no limit named at the small ones
        "$ZDEM_BIN" info --json "$d" > "$WORK/host/$(basename "$d").json" 2>/dev/null || continue
        if "$ZDEM_BIN" info --json --small "$d" 2>&1 | grep -q 'max_'; then
            echo "   over the small limits (host names the limit): $(basename "$d")"
            continue
        fi
        Q3_FIT="$Q3_FIT $d"
    done
    # groups of at most 3.5 MB of demos (the board has 4 MiB of flash)
    g=0 gsize=0 group=
    # shellcheck disable=SC2086
    for d in $Q3_FIT ""; do
        sz=0
        [ -n "$d" ] && sz=$(wc -c < "$d")
        if [ -n "$group" ] && { [ -z "$d" ] || [ $((gsize + sz)) -gt 3500000 ]; }; then
            g=$((g + 1))
            echo "-- group $g:$(for x in $group; do printf ' %s' "$(basename "$x")"; done)"
            # shellcheck disable=SC2086
            ZDEM_MCU_SMALL=1 ZDEM_MCU_RAM=128K ZDEM_MCU_STACK=8K \
                sh "$SRC/tests/mcu/build.sh" "$WORK/q3small$g" $group > "$WORK/q3small$g.log" 2>&1 ||
                { cat "$WORK/q3small$g.log"; rc=1; }
            if run_fw mps2-an386 "$WORK/q3small$g"; then
                grep -q '"ram":131072,' "$WORK/q3small$g/run.out" || { echo "FAIL: RAM is not 128 KiB"; rc=1; }
                # shellcheck disable=SC2086
                "$PY" "$SRC/tests/mcu/compare.py" "$WORK/q3small$g/run.out" "$CORPUS" "$CORPUS/EXPECTED.md" \
                    $group --host "$WORK/host" || rc=1
            else
                rc=1
            fi
            group= gsize=0
        fi
        [ -n "$d" ] && { group="$group $d"; gsize=$((gsize + sz)); }
    done
    n=$(echo $Q3_FIT | wc -w)
    echo "   $n Quake III demos fit the small limits and ran in 128 KiB"
    [ "$n" -gt 0 ] || { echo "FAIL: no Quake III demo fits the small limits"; rc=1; }
else
    echo "FAIL: ZDEM_BIN (the host zdem) is needed for the Quake III small run"
    rc=1
fi

echo "== Source 2 events in 1 MiB of RAM (stack included), push input"
if [ -n "${ZDEM_BIN:-}" ] && [ -x "$ZDEM_BIN" ]; then
    for d in $S2_DEMOS; do
        "$ZDEM_BIN" events --json "$d" > "$WORK/host/$(basename "$d").events.json" 2>/dev/null || true
    done
    # shellcheck disable=SC2086
    ZDEM_MCU_RAM=1M ZDEM_MCU_STACK=16K ZDEM_MCU_FIRMWARE=firmware_s2 \
        sh "$SRC/tests/mcu/build.sh" "$WORK/s2events" $S2_DEMOS
    if run_fw mps2-an386 "$WORK/s2events"; then
        grep -q '"ram":1048576,' "$WORK/s2events/run.out" || { echo "FAIL: RAM is not 1 MiB"; rc=1; }
        # shellcheck disable=SC2086
        "$PY" "$SRC/tests/mcu/compare_s2.py" "$WORK/s2events/run.out" "$WORK/host" $S2_DEMOS || rc=1
    else
        rc=1
    fi
else
    echo "FAIL: ZDEM_BIN (the host zdem) is needed for the Source 2 comparison"
    rc=1
fi
[ $rc -eq 0 ] && echo "PASS: firmware facts equal the host's"
exit $rc
