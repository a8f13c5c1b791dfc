#!/usr/bin/env bash
# Seeds for fuzz_teeworlds_snap (records [flags][len u16 LE][payload]; flags
# bit 0 full snapshot, bit 1 Huffman-coded payload): the snapshot and delta
# chunks of each corpus demo from a full snapshot on, as they are (Huffman)
# and unpacked to the variable-int stream by the independent Python decoder
# (tests/tw_snapshot_ref.py), at most 4 or 8 KiB each. Written at run time, never
# committed. Usage: OUTDIR CORPUS_DIR
set -eu
out=$1 corpus=$2
here=$(cd "$(dirname "$0")" && pwd)
py=${ZDEM_PYTHON:-python3}
"$py" - "$out" "$here/.." "$corpus"/teeworlds/*.demo <<'PY'
import os, struct, sys
out, tests, files = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.insert(0, tests)
import tw_snapshot_ref as ref
n = 0
for path in files:
    chunks = [(kind, payload) for _, _, kind, payload in ref.read_demo_chunks(path)
              if kind in ("snapshot", "delta")]
    starts = [i for i, (k, _) in enumerate(chunks) if k == "snapshot"]
    for s, limit in zip(starts[:2], (4096, 8192)):
        for huff in (True, False):
            blob = b""
            for kind, payload in chunks[s:]:
                body = payload if huff else ref.huffman_decode(payload)
                rec = bytes([(1 if kind == "snapshot" else 0) | (2 if huff else 0)]) + \
                    struct.pack("<H", len(body)) + body
                if blob and len(blob) + len(rec) > limit:
                    break
                blob += rec
            if len(blob) > 65536:
                continue
            name = "%s-%d-%s" % (os.path.basename(path)[:40], s, "huff" if huff else "ints")
            with open(os.path.join(out, name), "wb") as f:
                f.write(blob)
            n += 1
print("%d snapshot seeds" % n, file=sys.stderr)
PY
