#!/usr/bin/env bash
# Seeds for the Source 2 demo targets (every seed <= 24 KiB: a target's
# speed follows its inputs' size, and libFuzzer keeps them near the seeds'):
#  - the synthetic demos of tests/s2craft.py seeds (1-22 KiB: every layer,
#    every field-path operation, every string-table option, events);
#  - each corpus demo cut at a frame boundary to its first 8 / 16 / 24 KiB
#    (header, signon packets, string tables; frames too big are left out)
#    and closed with a DEM_Stop frame, and its header + the first frames
#    followed by frames from the middle (packets whose entities and tables
#    are missing: the damage paths).
# Written at run time, never committed (the corpus is not ours).
# Usage: OUTDIR CORPUS_DIR
set -eu
out=$1 corpus=$2
here=$(cd "$(dirname "$0")" && pwd)
py=${ZDEM_PYTHON:-python3}
"$py" "$here/../s2craft.py" seeds "$out" >/dev/null
"$py" - "$out" "$here/.." "$corpus"/source2/*.dem <<'PY'
import os, sys
out, tests, files = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.insert(0, tests)
import s2craft
STOP = b"\x00\x00\x00"  # DEM_Stop, tick 0, size 0

n = 0
for path in files:
    data = open(path, "rb").read()
    offs = [f[0] for f in s2craft.read_frames(data)] + [len(data)]
    frames = [data[a:b] for a, b in zip(offs, offs[1:])]
    def emit(tag, parts, limit):
        global n
        blob = data[:16]
        for f in parts:
            if len(blob) + len(f) + len(STOP) > limit:
                continue  # skip a frame too big for the seed, keep going
            blob += f
        # the header's FileInfo offset would point past the seed: clear it
        blob = blob[:8] + b"\x00" * 8 + blob[16:] + STOP
        with open(os.path.join(out, "%s-%s" % (os.path.basename(path)[:40], tag)), "wb") as f:
            f.write(blob)
        n += 1
    for limit in (8192, 16384, 24576):
        emit("head%d" % limit, frames, limit)
    emit("mid", frames[:3] + frames[len(frames) // 2:], 16384)
print("%d source2 seeds" % n, file=sys.stderr)
PY
