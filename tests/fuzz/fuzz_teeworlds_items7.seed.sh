#!/usr/bin/env bash
# Seeds for fuzz_teeworlds_items7 (a protocol byte, then records [flags]
# [len u16 LE] [payload]: flags & 3 the chunk kind, flags >> 3 the tick
# advance): the chunks of crafted 0.7 demos (tests/tw07craft.py, every 0.7
# object type and the messages the events lines read; v4 and DDNet's v6),
# Huffman-decoded by the independent Python decoder (tests/tw_snapshot_ref.py),
# at most 8 KiB each, under the 0.7 protocol and (first byte 1) the 0.6 one.
# Written at run time, never committed. Usage: OUTDIR CORPUS_DIR
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
py=${ZDEM_PYTHON:-python3}
"$py" - "$out" "$here/.." <<'PY'
import os, struct, sys
out, tests = sys.argv[1], sys.argv[2]
sys.path.insert(0, tests)
import tw_snapshot_ref as ref
import tw07craft
KIND = {"unknown": 0, "snapshot": 1, "message": 2, "delta": 3}
n = 0
for label, kw in (("v4", {}), ("v6-ddnet", {"version": 6, "ddnet": True})):
    data, _ = tw07craft.build(steps=110, **kw)
    path = os.path.join(out, "tmp.demo")
    with open(path, "wb") as f:
        f.write(data)
    chunks = list(ref.read_demo_chunks(path))
    os.unlink(path)
    for part, start in enumerate((0, len(chunks) // 2)):
        for proto in (0, 1):
            blob, last = bytes([proto]), chunks[start][1]
            seen_snap = False
            for _, tick, kind, payload in chunks[start:]:
                if kind == "delta" and not seen_snap:
                    continue  # from a full snapshot on
                seen_snap |= kind == "snapshot"
                body = ref.huffman_decode(payload) if payload else b""
                adv = max(0, min(31, tick - last))
                last = tick
                rec = bytes([KIND[kind] | adv << 3]) + struct.pack("<H", len(body)) + body
                if len(blob) + len(rec) > 8192:
                    break
                blob += rec
            with open(os.path.join(out, "craft7-%s-%d-%s" % (label, part, ("07", "06")[proto])), "wb") as f:
                f.write(blob)
            n += 1
print("%d 0.7 seeds" % n, file=sys.stderr)
PY
