#!/usr/bin/env bash
# zdem CLI on every Teeworlds corpus demo:
#  - info --json against EXPECTED.md B2 (+ A9: crc/sha ok, length formula)
#    and against the ddnet_demo_c99 peer output (same field names);
#  - events --json: chat lines and kill counts equal the peer's;
#  - map -o: the written map hashes to the header's CRC32 / SHA-256;
#  - bad input: exit 2 with "zdem: FILE: offset N: ...".
set -u
BIN=${ZDEM_BIN:?ZDEM_BIN not set}
CORPUS=${ZDEM_CORPUS:?ZDEM_CORPUS not set}
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0

# file ver map map_size crc length header_end first last markers kf snap msg delta crc_ok sha_ok
cat > "$TMP/b2.tsv" <<'EOF'
ddnet_demo-edit-cat-catzone.demo	6	CatZone	1439051	01e95e00	39	484	750	2712	982	8	8	1070	842	true	true
ddnet_demo-edit-clip-fng.demo	6	fng	106512	1d57660f	13	484	49628368	49629031	664	3	3	714	562	true	true
ddnet_demo-edit-test2-pepeg-v5.demo	5	pepeg	164957	00000000	7	436	15531019	15531383	365	2	2	378	276	false	null
ddnet_webviewer-big-chungus-daydream.demo	6	Daydream_I	1190051	45cb5698	8	484	2176	2594	210	2	2	212	16	true	true
ddnet_webviewer-bit3-noobfilter-touchpad.demo	6	Back in Time 3	1356394	226ac88d	27	484	1934	3298	683	6	6	714	125	true	true
ddnet_webviewer-gigachad-tutorial.demo	6	Tutorial	1060485	03726b6e	23	484	2062628	2063824	599	5	5	624	444	true	true
ddnet_webviewer-goat-yeyou3.demo	6	Yeyou 3	656218	38695897	22	484	325060	326170	548	5	5	737	543	true	true
EOF

while IFS=$'\t' read -r file ver map size crc len hend first last markers kf snap msg delta crcok shaok; do
    f="$CORPUS/teeworlds/$file"
    peer="$CORPUS/peers/$file.tw-ref.json"
    if ! "$BIN" info --json "$f" > "$TMP/info.json" 2> "$TMP/info.err"; then
        echo "FAIL info $file: $(cat "$TMP/info.err")"; fail=1; continue
    fi
    "$BIN" info "$f" > "$TMP/info.txt" 2>/dev/null || { echo "FAIL plain info $file"; fail=1; }
    grep -q "^map: *$map " "$TMP/info.txt" || { echo "FAIL plain info map line $file"; fail=1; }
    "$BIN" events --json "$f" > "$TMP/events.jsonl" 2>"$TMP/ev.err" || { echo "FAIL events $file"; fail=1; }
    "$BIN" map "$f" -o "$TMP/out.map" 2>/dev/null || { echo "FAIL map $file"; fail=1; }
    "$BIN" dump --json "$f" > "$TMP/dump.jsonl" 2>/dev/null || { echo "FAIL dump $file"; fail=1; }
    "$PY" - "$TMP" "$peer" "$file" "$ver" "$map" "$size" "$crc" "$len" "$hend" "$first" "$last" \
        "$markers" "$kf" "$snap" "$msg" "$delta" "$crcok" "$shaok" <<'PYEOF' || fail=1
import hashlib, json, sys, zlib
tmp, peer_path, name = sys.argv[1:4]
(ver, mp, size, crc, length, hend, first, last, markers, kf, snap, msg, delta,
 crcok, shaok) = sys.argv[4:]
info = json.load(open(tmp + "/info.json"))
peer = json.load(open(peer_path))
bad = []
def eq(what, got, want):
    if got != want:
        bad.append("%s: got %r want %r" % (what, got, want))
# EXPECTED.md B2 / A9
eq("format", info["format"], "teeworlds")
eq("version", info["version"], int(ver))
eq("map_name", info["map_name"], mp)
eq("map_size", info["map_size"], int(size))
eq("map_crc", info["map_crc"], int(crc, 16))
eq("length", info["length"], int(length))
eq("map_offset", info["map_offset"], int(hend))
eq("first_tick", info["first_tick"], int(first))
eq("last_tick", info["last_tick"], int(last))
eq("tick_markers", info["tick_markers"], int(markers))
eq("keyframes", info["keyframes"], int(kf))
eq("chunks", info["chunks"], {"snapshot": int(snap), "message": int(msg), "delta": int(delta)})
eq("map_crc_ok", info["map_crc_ok"], crcok == "true")
eq("map_sha256_ok", info["map_sha256_ok"], None if shaok == "null" else shaok == "true")
eq("A9 length", (info["last_tick"] - info["first_tick"]) // 50, info["length"])
# peer: same field names
for k in ("version", "net_version", "map_name", "map_size", "map_crc", "type", "length",
          "timestamp", "timeline_markers", "first_tick", "last_tick", "tick_markers",
          "keyframes", "chunks"):
    eq("peer " + k, info[k], peer[k])
if peer.get("has_map_sha256"):
    eq("peer map_sha256", info["map_sha256"], peer["map_sha256"])
eq("data_offset", info["data_offset"], peer["chunk_data_offset"])
# events vs peer
ev = [json.loads(l) for l in open(tmp + "/events.jsonl")]
for e in ev:
    if "type" not in e or "tick" not in e:
        bad.append("event without type/tick: %r" % e)
chat = [(e["tick"], e["team"], e["client_id"], e["text"]) for e in ev if e["type"] == "chat"]
eq("chat", chat, [(c["tick"], c["team"], c["client_id"], c["text"]) for c in peer["chat"]])
eq("kills", sum(1 for e in ev if e["type"] == "kill"), peer["killmsg_count"])
# map -o
m = open(tmp + "/out.map", "rb").read()
eq("map bytes", len(m), int(size))
if crcok == "true":
    eq("map crc32", zlib.crc32(m) & 0xffffffff, int(crc, 16))
if shaok == "true":
    eq("map sha256", hashlib.sha256(m).hexdigest(), info["map_sha256"])
# dump: one line per chunk, counts agree
kinds = {}
for l in open(tmp + "/dump.jsonl"):
    d = json.loads(l)
    kinds[d["kind"]] = kinds.get(d["kind"], 0) + 1
eq("dump ticks", kinds.get("tick", 0), int(markers))
eq("dump messages", kinds.get("message", 0), int(msg))
if bad:
    print("FAIL %s:\n  %s" % (name, "\n  ".join(bad)))
    sys.exit(1)
print("ok %s" % name)
PYEOF
done < "$TMP/b2.tsv"

# Bad input: a cut chunk stream and a cut header are exit 2 with an offset.
src="$CORPUS/teeworlds/ddnet_webviewer-big-chungus-daydream.demo"
head -c 1200000 "$src" > "$TMP/cut.demo"
"$BIN" info --json "$TMP/cut.demo" > /dev/null 2> "$TMP/cut.err"; rc=$?
if [ $rc -ne 2 ] || ! grep -q "^zdem: $TMP/cut.demo: offset [0-9]*: " "$TMP/cut.err"; then
    echo "FAIL truncated chunk stream: rc=$rc $(cat "$TMP/cut.err")"; fail=1
else
    echo "ok truncated: $(cat "$TMP/cut.err")"
fi
head -c 100 "$src" > "$TMP/cut2.demo"
"$BIN" info "$TMP/cut2.demo" > /dev/null 2> "$TMP/cut2.err"; rc=$?
if [ $rc -ne 2 ] || ! grep -q "offset 8: header truncated" "$TMP/cut2.err"; then
    echo "FAIL truncated header: rc=$rc $(cat "$TMP/cut2.err")"; fail=1
fi
"$BIN" map "$src" > /dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || { echo "FAIL map without -o: rc=$rc"; fail=1; }

[ $fail -eq 0 ] && echo "all ok"
exit $fail
