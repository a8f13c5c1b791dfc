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
"$py" - "$out" "$corpus"/source2/*.dem "$tmp"/* <<'PY'
import os, sys
out, files = sys.argv[1], sys.argv[2:]

def varint(b, p):
    r = s = 0
    while True:
        c = b[p]; p += 1
        r |= (c & 0x7F) << s; s += 7
        if c < 0x80:
            return r, p

n = 0
seen = set()
for path in files:
    data = open(path, "rb").read()
    p, k = 16, 0
    while p < len(data) and k < 12:
        cmd, p = varint(data, p)
        _, p = varint(data, p)
        ln, p = varint(data, p)
        body = data[p:p + ln]
        p += ln
        if cmd & 0x40 or not body or len(body) > 65536 or (cmd, len(body)) in seen:
            continue
        seen.add((cmd, len(body)))
        with open(os.path.join(out, "%s-%d-%d" % (os.path.basename(path)[:40], k, cmd)), "wb") as f:
            f.write(body)
        k += 1
        n += 1
print("%d protobuf seeds" % n, file=sys.stderr)
PY
