#!/usr/bin/env bash
# Seeds for the protobuf decoders: the uncompressed frame payloads of the
# corpus demos and of the s2craft.py seeds (file headers, packets, string
# tables, file info), each <= 64 KiB. Written at run time, never committed.
# Usage: OUTDIR CORPUS_DIR
set -eu
out=$1 corpus=$2
here=$(cd "$(dirname "$0")" && pwd)
py=${ZDEM_PYTHON:-python3}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$py" "$here/../s2craft.py" seeds "$tmp" >/dev/null
"$py" - "$out" "$here/.." "$corpus"/source2/*.dem "$tmp"/* <<'PY'
import os, sys
out, tests, files = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.insert(0, tests)
import s2craft

n = 0
seen = set()
for path in files:
    k = 0
    for _, cmd, comp, _, body in s2craft.read_frames(open(path, "rb").read()):
        if k >= 12:
            break
        if comp or not body or len(body) > 65536 or (cmd, len(body)) in seen:
            continue
        seen.add((cmd, len(body)))
        with open(os.path.join(out, "%s-%d-%d" % (os.path.basename(path)[:40], k, cmd)), "wb") as f:
            f.write(body)
        k += 1
        n += 1
print("%d protobuf seeds" % n, file=sys.stderr)
PY
