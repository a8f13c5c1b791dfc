#!/usr/bin/env bash
# Seeds for fuzz_source2_keys_fieldpath (puts and gets on one value table;
# see the target): runs of 60 to 250 colliding field paths under the
# built-in seed and seed 1, puts and gets of other paths between, a clear.
# Run by tests/fuzz/run.sh; the same files are committed under
# seeds/fuzz_source2_keys_fieldpath/ for the replay build. Usage: OUTDIR CORPUS_DIR
set -eu
out=$1
py=${ZDEM_PYTHON:-python3}
"$py" - "$out" <<'PY'
import os, random, struct, sys
out = sys.argv[1]
rng = random.Random(28)
for seedsel in (0, 1):
    for n in (60, 120, 250):
        ops = b""
        for a in range(0, n, 63):
            ops += bytes([5, a // 2 & 0xFF, min(63, n - a)])
        for _ in range(30):
            ops += bytes([rng.randrange(4)]) + struct.pack("<H", rng.randrange(4096)) + bytes([rng.randrange(256)])
            ops += bytes([4]) + struct.pack("<H", 0x8000 | rng.randrange(n))
        ops += bytes([6])
        ops += bytes([5, 7, 60])
        with open(os.path.join(out, "fieldpath-s%d-%d" % (seedsel, n)), "wb") as f:
            f.write(bytes([seedsel]) + ops[:1023])
PY
