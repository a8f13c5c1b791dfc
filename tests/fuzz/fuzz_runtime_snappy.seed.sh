#!/usr/bin/env bash
# Seeds for fuzz_runtime_snappy: the Snappy-compressed payloads of the
# Source 2 corpus demos (16-byte header, then {varint cmd, varint tick,
# varint size, payload}; cmd & 0x40 marks Snappy). Usage: OUTDIR CORPUS_DIR
set -eu
out=$1 corpus=$2
py=${ZDEM_PYTHON:-python3}
"$py" - "$out" "$corpus"/source2/*.dem <<'PY'
import os, sys
out, files = sys.argv[1], sys.argv[2:]
def var(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7F) << s; s += 7
        if c < 0x80: return v, i
n = 0
for path in files:
    b = open(path, 'rb').read()
    i, k = 16, 0
    while i < len(b):
        cmd, i = var(b, i); _, i = var(b, i); size, i = var(b, i)
        p = b[i:i + size]; i += size
        # a spread of sizes, few per file: small payloads fuzz fastest
        if cmd & 0x40 and k < 40 and len(p) <= 65536:
            with open(os.path.join(out, 'snappy-%s-%d' % (os.path.basename(path)[:24], k)), 'wb') as f:
                f.write(p)
            k += 1; n += 1
print('%d snappy seeds' % n, file=sys.stderr)
PY
