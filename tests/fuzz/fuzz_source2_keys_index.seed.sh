#!/usr/bin/env bash
# Seeds for fuzz_source2_keys_index (ops on one string table; see the
# target): updates that put 48 to 160 colliding indexes in, under the
# built-in seed and seed 1, updates of small indexes, a dump between.
# Run by tests/fuzz/run.sh; the same files are committed under
# seeds/fuzz_source2_keys_index/ for the replay build. Usage: OUTDIR CORPUS_DIR
set -eu
out=$1
py=${ZDEM_PYTHON:-python3}
"$py" - "$out" <<'PY'
import os, random, struct, sys
out = sys.argv[1]
rng = random.Random(26)
def update(keys):
    b = bytes([0, len(keys) - 1])
    for k in keys:
        b += struct.pack("<H", k) + bytes([rng.randrange(256)])
    return b
for seedsel in (0, 1):
    for n in (48, 96, 160):
        ops = b""
        for a in range(0, n, 32):
            ops += update([0x8000 | j for j in range(a, min(n, a + 32))])
        for _ in range(2):  # lookups of the cluster again
            ops += update([0x8000 | rng.randrange(n) for _ in range(16)])
        ops += update([rng.randrange(1, 0x1000) for _ in range(16)])
        ops += bytes([3, 20, 7])  # a dump of 21 items
        ops += update([0x8000 | rng.randrange(n) for _ in range(16)])
        with open(os.path.join(out, "index-s%d-%d" % (seedsel, n)), "wb") as f:
            f.write(bytes([seedsel]) + ops[:639])
PY
