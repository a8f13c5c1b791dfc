#!/usr/bin/env bash
# Seeds for the encoder round trip: the DEM_FileHeader, DEM_Stop and
# DEM_FileInfo payloads of the corpus demos, each behind the byte that
# picks its encoder (zdem_pb_s2_encoders order: CDemoStop 0,
# CDemoFileHeader 1, CDemoFileInfo 5).
# Written at run time, never committed. Usage: OUTDIR CORPUS_DIR
set -eu
out=$1 corpus=$2
here=$(cd "$(dirname "$0")" && pwd)
py=${ZDEM_PYTHON:-python3}
"$py" - "$out" "$here/.." "$corpus"/source2/*.dem <<'PY'
import os, sys
out, tests, files = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.insert(0, tests)
import s2craft

pick = {0: 0, 1: 1, 2: 5}  # DEM_Stop, DEM_FileHeader, DEM_FileInfo
n = 0
for path in files:
    for _, cmd, comp, _, body in s2craft.read_frames(open(path, "rb").read()):
        if comp or cmd not in pick or len(body) > 65536:
            continue
        with open(os.path.join(out, "%s-%d" % (os.path.basename(path)[:40], cmd)), "wb") as f:
            f.write(bytes([pick[cmd]]) + body)
        n += 1
print("%d encoder seeds" % n, file=sys.stderr)
PY
