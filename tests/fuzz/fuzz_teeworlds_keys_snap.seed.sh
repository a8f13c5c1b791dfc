#!/usr/bin/env bash
# Seeds for fuzz_teeworlds_keys_snap (full snapshots and deltas of pool
# keys; see the target): 1024 keys in one slot of the former item hash then
# empty deltas and deltas changing a few of them, descending keys inserted
# by deltas, the same at the small limits (128 items), a snapshot over the
# item limit, a delta removing and adding the same keys.
# Run by tests/fuzz/run.sh; the same files are committed under
# seeds/fuzz_teeworlds_keys_snap/ for the replay build. Usage: OUTDIR CORPUS_DIR
set -eu
out=$1
py=${ZDEM_PYTHON:-python3}
"$py" - "$out" <<'PY'
import os, random, struct, sys
out = sys.argv[1]
rng = random.Random(31)
H = lambda v: struct.pack("<H", v)
def rng_full(start, count, flags):
    return bytes([1]) + H(start) + H(count) + bytes([flags])
def delta(removed, items):
    b = bytes([2, len(removed), len(items)]) + b"".join(H(r) for r in removed)
    for pid, size, ds in items:
        b += H(pid) + bytes([size, ds])
    return b
for small in (0, 1):
    n = 128 if small else 1024
    s = bytes([small]) + rng_full(0, n, 2)
    for i in range(8):
        s += delta([], []) if i % 2 else delta([], [(rng.randrange(n), 0x80, i)])
    s += delta([3, 4, 5], [(3, 0x80, 1), (2048 + 9, 2, 5)])
    s += rng_full(0, n, 1)  # the same keys again, descending
    with open(os.path.join(out, "snap-colliding-%d" % n), "wb") as f:
        f.write(s[:767])
    s = bytes([small]) + rng_full(1024 + n // 2, n // 2, 3)
    s += rng_full(0, n + 8, 0)  # over the item limit: refused
    for k in range(0, 4 * 40, 40):
        s += delta([], [(1024 + n // 2 - 1 - j, 1, j & 0xFF) for j in range(k, k + 40)])
    with open(os.path.join(out, "snap-descending-%d" % n), "wb") as f:
        f.write(s[:767])
PY
