#!/usr/bin/env bash
# Seeds for fuzz_source2_keys_classes (serializers, nested references,
# classes; see the target): every serializer under one key, names repeated
# under several symbols, versions ascending and descending, references to
# keys that exist and that do not, class ids repeated and sparse.
# Run by tests/fuzz/run.sh; the same files are committed under
# seeds/fuzz_source2_keys_classes/ for the replay build. Usage: OUTDIR CORPUS_DIR
set -eu
out=$1
py=${ZDEM_PYTHON:-python3}
"$py" - "$out" <<'PY'
import os, random, sys
out = sys.argv[1]
rng = random.Random(30)
forms = {
    "same-key": lambda i: (0, 1, 0x80 | 0 | 1 << 4),
    "names-repeat": lambda i: (i % 10, i % 4, 0x80 | (i % 10) | ((i // 10) % 4) << 4),
    "versions-up": lambda i: (i % 2, i % 4, 0),
    "versions-down": lambda i: (i % 2, 3 - i % 4, 0x80 | 4),
    "random": lambda i: (rng.randrange(256), rng.randrange(256), rng.randrange(256)),
}
for name, f in forms.items():
    n = 60
    body = bytes([n - 1]) + b"".join(bytes(f(i)) for i in range(n))
    body += bytes([60]) + b"".join(bytes([rng.randrange(48), rng.randrange(256)]) for _ in range(60))
    with open(os.path.join(out, "classes-" + name), "wb") as fh:
        fh.write(body[:1023])
PY
