#!/usr/bin/env bash
# Seeds for fuzz_teeworlds_ints: the data chunks of each corpus demo from a
# full snapshot on (snapshots, deltas, messages), Huffman-decoded by the
# independent Python decoder (tests/tw_snapshot_ref.py) into the target's
# records, at most 4 or 8 KiB each. Written at run time, never committed.
# Usage: OUTDIR CORPUS_DIR
set -eu
out=$1 corpus=$2
here=$(cd "$(dirname "$0")" && pwd)
py=${ZDEM_PYTHON:-python3}
"$py" - "$out" "$here/.." "$corpus"/teeworlds/*.demo <<'PY'
import os, struct, sys
out, tests, files = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.insert(0, tests)
import tw_snapshot_ref as ref
KIND = {"unknown": 0, "snapshot": 1, "message": 2, "delta": 3}
n = 0
for path in files:
    chunks = list(ref.read_demo_chunks(path))
    starts = [i for i, c in enumerate(chunks) if c[2] == "snapshot"]
    for s, limit in zip(starts[:2], (4096, 8192)):
        blob, last = b"", chunks[s][1]
        for _, tick, kind, payload in chunks[s:]:
            body = ref.huffman_decode(payload) if payload else b""
            adv = max(0, min(31, tick - last))
            last = tick
            rec = bytes([KIND[kind] | (4 if not payload else 0) | adv << 3]) + \
                struct.pack("<H", len(body)) + body
            if blob and len(blob) + len(rec) > limit:
                break
            blob += rec
        name = "%s-%d" % (os.path.basename(path)[:40], s)
        with open(os.path.join(out, name), "wb") as f:
            f.write(blob)
        n += 1
print("%d int-stream seeds" % n, file=sys.stderr)
PY
