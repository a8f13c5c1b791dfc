#!/bin/sh
# Prints the README's size table: per format, the flash and RAM zdem needs
# on a Cortex-M4 (arm-none-eabi-gcc -Os, newlib-nano, --gc-sections) at the
# small (microcontroller) and the default limits.
#
#   tests/mcu/size_table.sh [OUTDIR]
#
# flash: code + constants linked from libzdem.a by a probe firmware that
#   calls that format's API (tests/mcu/probe.c); libc (memcpy, memset, ...)
#   in its own column.
# static RAM: .data + .bss linked from libzdem.a (the decoders keep none).
# caller RAM: memory the API asks for, as the probe reports it when run
#   under QEMU (32-bit sizes; blank without qemu-system-arm); for the
#   Source 2 events mode, the largest arena peak of the corpus demos in the
#   1 MiB firmware.
# stack: high-water mark measured by the QEMU firmwares (stack painting;
#   whole firmware, its own frames included) on the corpus demos: Quake III
#   (larger of the whole-file and push passes, default limits in 4 MiB and
#   small ones in 128 KiB) and Teeworlds at the default limits in 4 MiB,
#   Teeworlds at the small limits in 128 KiB, Source 2 events in 1 MiB;
#   blank without the corpus or QEMU.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
OUT=${1:-${TMPDIR:-/tmp}/zdem-mcu-size}
CORPUS=${ZDEM_CORPUS:-$SRC/../shared/corpus}
PY=${ZDEM_PYTHON:-python3}
[ -x "$PY" ] || PY=python3
CC=arm-none-eabi-gcc
ARCH="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
CFLAGS="$ARCH -Os -std=c11 -Wall -Wextra -Werror -ffunction-sections -fdata-sections"
INC="-I$SRC/runtime -I$SRC/runtime/quake3 -I$SRC/runtime/teeworlds -I$SRC/runtime/source2 -I$SRC/generated"
QEMU=qemu-system-arm
command -v $QEMU >/dev/null 2>&1 || QEMU=

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
ZDEM_MCU_CPU=cortex-m4 sh "$HERE/build.sh" "$OUT/lib" --lib >&2
$CC $ARCH -c "$HERE/startup.S" -o "$OUT/startup.o"

run_qemu() { # ELF OUTFILE
    rm -f "$2"
    [ -n "$QEMU" ] || return 0
    timeout 60 $QEMU -M mps2-an386 -display none -monitor none -serial none \
        -chardev file,id=semi,path="$2" \
        -semihosting-config enable=on,target=native,chardev=semi \
        -kernel "$1" >/dev/null 2>&1 || true
}

# Stack high-water per format from the corpus firmwares (optional).
STACK_Q3=; STACK_TW=; STACK_TW_SMALL=; STACK_S2=; PEAK_S2=
if [ -n "$QEMU" ] && [ -d "$CORPUS/q3" ] && [ -d "$CORPUS/teeworlds" ]; then
    if sh "$HERE/build.sh" "$OUT/fw" >/dev/null 2>&1; then
        run_qemu "$OUT/fw/firmware.elf" "$OUT/fw/run.out"
        STACK_Q3=$(sed -n 's/.*"mcu_format":"quake3","mcu_stack_bytes":\([0-9]*\).*/\1/p' "$OUT/fw/run.out" | sort -n | tail -1)
        STACK_TW=$(sed -n 's/.*"mcu_format":"teeworlds","mcu_stack_bytes":\([0-9]*\).*/\1/p' "$OUT/fw/run.out" | sort -n | tail -1)
    fi
    if ZDEM_MCU_SMALL=1 ZDEM_MCU_RAM=128K ZDEM_MCU_STACK=8K sh "$HERE/build.sh" "$OUT/fwq3small" "$CORPUS"/q3/q3-1.27_udt-duel.dm_48 "$CORPUS"/q3/q3-cpma_udt-core-gameplay-dev.dm_68 "$CORPUS"/q3/ql_udt-freeze-tag.dm_90 >/dev/null 2>&1; then
        run_qemu "$OUT/fwq3small/firmware.elf" "$OUT/fwq3small/run.out"
        s=$(sed -n 's/.*"mcu_format":"quake3","mcu_stack_bytes":\([0-9]*\).*/\1/p' "$OUT/fwq3small/run.out" | sort -n | tail -1)
        [ -n "$s" ] && [ "$s" -gt "${STACK_Q3:-0}" ] && STACK_Q3=$s
    fi
    if ZDEM_MCU_RAM=128K ZDEM_MCU_STACK=8K sh "$HERE/build.sh" "$OUT/fw128k" "$CORPUS"/teeworlds/ddnet_demo-edit-clip-fng.demo "$CORPUS"/teeworlds/ddnet_webviewer-goat-yeyou3.demo >/dev/null 2>&1; then
        run_qemu "$OUT/fw128k/firmware.elf" "$OUT/fw128k/run.out"
        STACK_TW_SMALL=$(sed -n 's/.*"mcu_format":"teeworlds","mcu_stack_bytes":\([0-9]*\).*/\1/p' "$OUT/fw128k/run.out" | sort -n | tail -1)
    fi
    # shellcheck disable=SC2046
    if ZDEM_MCU_RAM=1M ZDEM_MCU_STACK=16K ZDEM_MCU_FIRMWARE=firmware_s2 sh "$HERE/build.sh" "$OUT/fws2" $(ls "$CORPUS"/source2/*.dem) >/dev/null 2>&1; then
        run_qemu "$OUT/fws2/firmware.elf" "$OUT/fws2/run.out"
        STACK_S2=$(sed -n 's/.*"mcu_format":"source2","mcu_stack_bytes":\([0-9]*\).*/\1/p' "$OUT/fws2/run.out" | sort -n | tail -1)
        PEAK_S2=$(sed -n 's/.*"mcu_arena_peak":\([0-9]*\).*/\1/p' "$OUT/fws2/run.out" | sort -n | tail -1)
    fi
fi

kib() { awk -v b="$1" 'BEGIN { if (b == "") print ""; else if (b < 1024) printf "%d B\n", b; else if (b < 1048576) printf "%.1f KiB\n", b / 1024; else printf "%.2f MiB\n", b / 1048576 }'; }

echo "| format (API) | flash: zdem code + tables | flash: libc | static RAM | caller RAM, small limits | caller RAM, default limits | stack high-water |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for p in core quake3 quake3_push teeworlds source2 source2_push source2_events source2_state; do
    P=$(echo "$p" | tr a-z A-Z)
    $CC $CFLAGS $INC -DPROBE_$P -c "$HERE/probe.c" -o "$OUT/probe_$p.o"
    $CC $ARCH --specs=nano.specs -nostartfiles -T "$HERE/mps2.ld" -Wl,--gc-sections \
        -Wl,-Map="$OUT/probe_$p.map" -Wl,--no-warn-rwx-segments -o "$OUT/probe_$p.elf" \
        "$OUT/startup.o" "$OUT/probe_$p.o" "$OUT/lib/libzdem.a" -lm -lc -lgcc
    if grep -Eq '(^|[^A-Za-z0-9_])_?(malloc|calloc|realloc|free|sbrk)(_r)?([^A-Za-z0-9_]|$)' "$OUT/probe_$p.map"; then
        echo "size_table.sh: probe_$p pulls in an allocator" >&2
        exit 1
    fi
    # shellcheck disable=SC2046
    set -- $("$PY" "$HERE/mapsize.py" "$OUT/probe_$p.map")
    lib_flash=$1 lib_ram=$2 libc_flash=$3
    run_qemu "$OUT/probe_$p.elf" "$OUT/probe_$p.out"
    state=; buffer=
    if [ -f "$OUT/probe_$p.out" ]; then
        state=$(sed -n 's/^probe [a-z0-9_]* state \([0-9]*\) buffer \([0-9]*\)$/\1/p' "$OUT/probe_$p.out")
        buffer=$(sed -n 's/^probe [a-z0-9_]* state \([0-9]*\) buffer \([0-9]*\)$/\2/p' "$OUT/probe_$p.out")
    fi
    small="-"
    case $p in
        core) # nothing calls it alone: every core object, before gc
            name="core objects, all of them (errors, varints, bits, Snappy, pb, push)"; sk=
            lib_flash=$(arm-none-eabi-size -t "$OUT"/lib/obj/core__*.o | awk 'END {print $1 + $2}')
            lib_ram=$(arm-none-eabi-size -t "$OUT"/lib/obj/core__*.o | awk 'END {print $2 + $3}')
            libc_flash= ;;
        quake3) name="Quake III (\`zdem_q3_parse_file\`)"; small="$(kib "$buffer") (\`ZDEM_Q3_LIMITS_SMALL\`)"; st="$(kib "$state") (\`zdem_q3_parser_size()\`)"; sk=$STACK_Q3 ;;
        quake3_push) name="Quake III push (\`zdem_q3_push_feed\`, no gathering buffer)"; small="$(kib "$buffer") (\`ZDEM_Q3_LIMITS_SMALL\`)"; st="$(kib "$state")"; sk=$STACK_Q3 ;;
        teeworlds) name="Teeworlds (\`zdem_tw_reader_next\`, snapshots applied)"
            small="$(kib "$buffer") (\`ZDEM_TW_LIMITS_SMALL\`)"
            st="$(kib "$state") (the game's bounds)"; sk="${STACK_TW_SMALL:-$STACK_TW}" ;;
        source2) name="Source 2 container + messages (\`zdem_s2_parse\`)"; st="$(kib "$state") + 2 x frame buffer (the largest decompressed payload to read)"; sk= ;;
        source2_push) name="Source 2 push (\`zdem_s2_parser_feed\`)"; st="$(kib "$state") + gather buffer + 2 x frame buffer"; sk= ;;
        source2_events) name="Source 2 events mode (\`zdem_s2_config_events\`, \`zdem_s2_state_feed\`)"
            small="$(kib "$state") fixed ($(kib "$buffer") frame buffer); ${PEAK_S2:+$(kib "$PEAK_S2") peak on the corpus}"
            st="-"; sk=$STACK_S2 ;;
        source2_state) name="Source 2 entities (\`zdem_s2_state_run\`)"; st="$(kib "$state") fixed at the default config (2 x 16 MiB frame buffers, $(kib "$buffer") string-table buffer, entity slots; all configurable) + arena peak (per file)"; sk= ;;
    esac
    [ -n "$state" ] || { st="(run under QEMU to fill in)"; [ "$small" = "-" ] || small="(run under QEMU)"; }
    [ "$p" = core ] && st="-"
    echo "| $name | $(kib "$lib_flash") | $(kib "$libc_flash") | $(kib "$lib_ram") | $small | $st | ${sk:+$(kib "$sk")} |"
done
