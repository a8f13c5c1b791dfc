#!/usr/bin/env bash
# Snapshot item counts against an independent decoder, tests/tw_snapshot_ref.py
# (Python, written from libtw2's doc/{demo,huffman,int,snapshot}.md, not
# from our C code), on every Teeworlds corpus demo:
#  - its Huffman table decodes the corpus Huffman vectors (EXPECTED.md A8);
#  - per snapshot/delta chunk: (index, tick, kind, item count) from
#    `zdem dump --json` equal the reference's;
#  - players (client id, name) from `zdem info --json` equal the names the
#    reference reads from obj_client_info items;
#  - the peer's snap_items (ddnet_demo_c99) is not a count of the game's
#    items: its delta unpacking adds a type-0 UUID item per extended type
#    on every delta (see c99_snapshot in the reference). The reference's
#    model of that reproduces the peer's total/max/last exactly, which
#    shows where the difference comes from (daydream: 15 items per
#    snapshot for us, 15, 19, ..., 55 and 15, ..., 39 = 574 for the peer).
set -u
BIN=${ZDEM_BIN:?ZDEM_BIN not set}
CORPUS=${ZDEM_CORPUS:?ZDEM_CORPUS not set}
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
REF="$(dirname "$0")/tw_snapshot_ref.py"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0

"$PY" "$REF" --huffman-selftest "$CORPUS/teeworlds/ddnet_demo-edit-huffman-test-cases.txt" \
    || { echo "FAIL reference Huffman table"; fail=1; }

n=0
for f in "$CORPUS"/teeworlds/*.demo; do
    name=$(basename "$f")
    peer="$CORPUS/peers/$name.tw-ref.json"
    n=$((n + 1))
    if ! "$PY" "$REF" "$f" > "$TMP/ref.txt" 2> "$TMP/ref.err"; then
        echo "FAIL reference on $name: $(tail -1 "$TMP/ref.err")"; fail=1; continue
    fi
    "$PY" "$REF" --names "$f" > "$TMP/names.txt" || { echo "FAIL ref names $name"; fail=1; }
    "$PY" "$REF" --c99 "$f" > "$TMP/c99.txt" || { echo "FAIL ref c99 $name"; fail=1; }
    "$BIN" dump --json "$f" > "$TMP/dump.jsonl" 2>/dev/null || { echo "FAIL dump $name"; fail=1; continue; }
    "$BIN" info --json "$f" > "$TMP/info.json" 2>/dev/null || { echo "FAIL info $name"; fail=1; continue; }
    "$PY" - "$TMP" "$name" "$peer" <<'PYEOF' || fail=1
import json, os, sys
tmp, name, peer_path = sys.argv[1:4]
bad = []
ref = [l.split()[:4] for l in open(tmp + "/ref.txt")]
ref = [(int(i), int(t), k, int(c)) for i, t, k, c in ref]
ours = []
for l in open(tmp + "/dump.jsonl"):
    d = json.loads(l)
    if d["kind"] in ("snapshot", "delta"):
        ours.append((d["index"], d["tick"], d["kind"], d.get("items")))
if not ref:
    bad.append("reference decoded no snapshot")
if ours != ref:
    diff = [(a, b) for a, b in zip(ours, ref) if a != b][:3]
    bad.append("per-snapshot items: %d zdem vs %d ref chunks, first differences (zdem, ref): %r"
               % (len(ours), len(ref), diff))
names = {}
for l in open(tmp + "/names.txt"):
    cid, _, nm = l.rstrip("\n").partition(" ")
    names[int(cid)] = nm
players = {p["slot"]: p["name"] for p in json.load(open(tmp + "/info.json")).get("players", [])}
if players != names:
    bad.append("players: zdem %r ref %r" % (players, names))
if os.path.exists(peer_path):
    si = json.load(open(peer_path))["snap_items"]
    last = open(tmp + "/c99.txt").read().split("\n")[1].split()
    model = {"total_over_all_snapshots": int(last[2]), "max": int(last[4]), "last": int(last[6])}
    want = {k: si[k] for k in model}
    if model != want:
        bad.append("ddnet_demo_c99 model %r, peer %r" % (model, want))
# Pinned: the daydream demo holds the same 15 items throughout (2 full
# snapshots, 16 deltas that only change items); the peer reports 574/55/39.
if name == "ddnet_webviewer-big-chungus-daydream.demo":
    if [c for _, _, _, c in ours] != [15] * 18:
        bad.append("daydream: want 18 snapshots of 15 items, got %r" % [c for _, _, _, c in ours])
if bad:
    print("FAIL %s:\n  %s" % (name, "\n  ".join(bad)))
    sys.exit(1)
counts = [c for _, _, _, c in ours]
print("ok %s: %d snapshots, items total %d max %d last %d (peer's count explained)"
      % (name, len(counts), sum(counts), max(counts), counts[-1]))
PYEOF
done
[ $n -gt 0 ] || { echo "FAIL no Teeworlds demos in $CORPUS/teeworlds"; fail=1; }

[ $fail -eq 0 ] && echo "all ok"
exit $fail
