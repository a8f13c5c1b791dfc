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
"$py" - "$out" "$corpus"/source2/*.dem <<'PY'
import os, sys
out, files = sys.argv[1], sys.argv[2:]
STOP = b"\x00\x00\x00"  # DEM_Stop, tick 0, size 0

def varint(b, p):
    r = s = 0
    while True:
        c = b[p]; p += 1
        r |= (c & 0x7F) << s; s += 7
        if c < 0x80:
            return r, p

n = 0
for path in files:
    data = open(path, "rb").read()
    frames, p = [], 16
    while p < len(data):
        q = p
        _, p = varint(data, p)
        _, p = varint(data, p)
        ln, p = varint(data, p)
        p += ln
        if p > len(data):
            break
        frames.append(data[q:p])
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
