#!/usr/bin/env bash
# Instructions per byte by phase (signon, packets) and per decoded field,
# under callgrind, for every Source 2 corpus demo (or the FILEs given):
# the same work as `bench_all --format source2` (entities and events).
# A "field" is a decoded field value or an entity update (an update that
# carries no field still costs its header). Counts are repeatable; no
# assertions.   bench/bench_source2_phases.sh [FILE...]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${ZDEM_BENCH_BUILD:-$ROOT/build-bench}
CORPUS=${ZDEM_CORPUS:-$(cd "$ROOT/../shared/corpus" && pwd)}
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DZDEM_TESTS=OFF -DZDEM_BENCH=ON >/dev/null
cmake --build "$BUILD" -j2 --target bench_source2_phases >/dev/null
BIN=$BUILD/bench/bench_source2_phases
if [ $# -eq 0 ]; then set -- "$CORPUS"/source2/*.dem; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-48s | %8s %6s | %8s %6s | %6s | %7s %6s | %7s %6s | %6s\n' file "signon B" "ins/B" "pkts B" "ins/B" "all/B" \
    "pkt fld" "ins/f" "all fld" "ins/f" "ent/f"
for f in "$@"; do
    rm -f "$tmp"/cg.*
    line=$(cd "$tmp" && valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$tmp/cg.%p" "$BIN" "$f" 2>/dev/null)
    # parts: start-up and loading, then "signon", then "packets"
    sig=$(grep -l '^desc: Trigger: Client Request: signon' "$tmp"/cg.* | head -1)
    pkt=$(grep -l '^desc: Trigger: Client Request: packets' "$tmp"/cg.* | head -1)
    isig=$(awk '/^(summary|totals):/{print $2; exit}' "$sig")
    ipkt=$(awk '/^(summary|totals):/{print $2; exit}' "$pkt")
    # again, counting only inside the entity decoder (CSVCMsg_PacketEntities)
    rm -f "$tmp"/cg.*
    (cd "$tmp" && valgrind --tool=callgrind --dump-instr=no --toggle-collect=zdem_s2_packet_entities \
        --callgrind-out-file="$tmp/cg.ent" "$BIN" "$f" >/dev/null 2>&1)
    ient=$(cat "$tmp"/cg.ent* | awk '/^summary:/{s += $2} END {print s + 0}')
    echo "$(basename "$f") $isig $ipkt $ient $line"
done > "$tmp/rows"
# rows: name isig ipkt name signon B MB/s MB/s packets B MB/s MB/s fields F updates U signon_fields SF signon_updates SU
awk '
function row(n, bs, is, bp, ip, pf, af, ie) {
    printf "%-48s | %8d %6.1f | %8d %6.1f | %6.1f | %7d %6.0f | %7d %6.0f | %6.0f\n", n, bs, is/bs, bp, (bp ? ip/bp : 0),
           (is+ip)/(bs+bp), pf, (pf ? ip/pf : 0), af, (af ? (is+ip)/af : 0), (af ? ie/af : 0)
}
{
    for (i = 5; i <= NF; i++) { if ($i == "signon") bs = $(i+1); if ($i == "packets") bp = $(i+1);
        if ($i == "fields") fl = $(i+1); if ($i == "updates") up = $(i+1);
        if ($i == "signon_fields") sf = $(i+1); if ($i == "signon_updates") su = $(i+1) }
    pf = fl + up - sf - su
    row($1, bs, $2, bp, $3, pf, fl + up, $4)
    split($1, g, "_"); k = g[1]
    Bs[k] += bs; Is[k] += $2; Bp[k] += bp; Ip[k] += $3; Pf[k] += pf; Af[k] += fl + up; Ie[k] += $4
} END { for (k in Bs) row(k " (all its demos)", Bs[k], Is[k], Bp[k], Ip[k], Pf[k], Af[k], Ie[k]) }' "$tmp/rows"
echo "(signon: the frames before the first DEM_Packet/DEM_FullPacket; ins/B: instructions per byte of the"
echo " phase; fld: field values decoded plus entity updates, of the packet phase / of the whole file; ins/f:"
echo " instructions of the packet phase / of the whole file per one of them; ent/f: instructions inside the"
echo " entity decoder (zdem_s2_packet_entities: the message, field paths, values, the store) per one of them)"
