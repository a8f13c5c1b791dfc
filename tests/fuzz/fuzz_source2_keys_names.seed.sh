#!/usr/bin/env bash
# Seeds for fuzz_source2_keys_names (creates of string tables by name; see
# the target): 60 to 130 creates of colliding names under the built-in seed
# and seed 1, each name created again, short names between, a clear.
# Run by tests/fuzz/run.sh; the same files are committed under
# seeds/fuzz_source2_keys_names/ for the replay build. Usage: OUTDIR CORPUS_DIR
set -eu
out=$1
py=${ZDEM_PYTHON:-python3}
"$py" - "$out" <<'PY'
import os, random, sys
out = sys.argv[1]
rng = random.Random(27)
for seedsel in (0, 1):
    for n in (60, 90, 130):
        ops = b""
        for i in range(n):
            ops += bytes([0, i % 0xC0])
        for i in range(0, n, 3):
            ops += bytes([1, i % 0xC0])  # created again: found by name, or a new table
        for _ in range(10):
            ops += bytes([2, 0xC0 + rng.randrange(64), 5]) + bytes(rng.randrange(1, 256) for _ in range(5))
        ops += bytes([7])
        for i in range(40):
            ops += bytes([3, i])
        with open(os.path.join(out, "names-s%d-%d" % (seedsel, n)), "wb") as f:
            f.write(bytes([seedsel]) + ops[:511])
PY
