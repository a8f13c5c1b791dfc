#!/usr/bin/env bash
# Seeds for fuzz_source2_keys_events (a descriptor list, then events by id;
# see the target): ids in order, reversed, all equal, sparse, equal to
# other descriptors' positions, negative; events of each id and of ids no
# descriptor has. Run by tests/fuzz/run.sh; the same files are committed
# under seeds/fuzz_source2_keys_events/ for the replay build.
# Usage: OUTDIR CORPUS_DIR
set -eu
out=$1
py=${ZDEM_PYTHON:-python3}
"$py" - "$out" <<'PY'
import os, random, struct, sys
out = sys.argv[1]
rng = random.Random(29)
def ids_form(kind, n):
    if kind == "order":
        return [bytes([1, i]) for i in range(n)]
    if kind == "reverse":
        return [bytes([1, n - 1 - i]) for i in range(n)]
    if kind == "same":
        return [bytes([0, 3]) for i in range(n)]
    if kind == "sparse":
        return [bytes([2]) + struct.pack("<I", i * 1009 + 7) for i in range(n)]
    if kind == "shifted":  # id i+1 at position i: the direct slot holds the wrong one
        return [bytes([1, (i + 1) % n]) for i in range(n)]
    return [bytes([3, i]) for i in range(n)]
for kind in ("order", "reverse", "same", "sparse", "shifted", "negative"):
    n = 40
    body = bytes([n - 1]) + b"".join(ids_form(kind, n))
    for _ in range(200):
        body += bytes([rng.randrange(0x80)])
    for _ in range(20):
        body += bytes([0x80, 1, rng.randrange(96)])
    with open(os.path.join(out, "events-%s" % kind), "wb") as f:
        f.write(body[:2047])
PY
