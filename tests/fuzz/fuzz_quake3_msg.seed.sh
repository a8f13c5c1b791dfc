#!/usr/bin/env bash
# Seeds for the Quake III targets: small demos cut from the corpus demos at
# message boundaries, each closed with the -1/-1 end marker: the first
# messages (gamestate, first snapshots) up to 4, 8 and 16 KiB (at least the
# gamestate, which is 3-16 KiB), and the gamestate followed by messages from
# the middle of the demo (their delta sources are missing: the warning
# paths). Parsing time grows with the input, and libFuzzer keeps inputs
# near their seeds' sizes: 8 KiB inputs run at about 4000/s, 64 KiB ones at
# 500/s. Written at run time, never committed (the corpus is not ours).
# Usage: OUTDIR CORPUS_DIR
set -eu
out=$1 corpus=$2
py=${ZDEM_PYTHON:-python3}
"$py" - "$out" "$corpus"/q3/*.dm_* <<'PY'
import os, re, struct, sys
out, files = sys.argv[1], sys.argv[2:]
END = b"\xff" * 8
n = 0
for path in files:
    if not re.search(r"\.dm_(6[678]|7[13]|9[01])$", path):
        continue  # dm3 / dm_48 need the protocol given (the build target covers them)
    data = open(path, "rb").read()
    msgs, pos = [], 0
    while pos + 8 <= len(data):
        seq, ln = struct.unpack_from("<ii", data, pos)
        if seq == -1 or ln == -1 or ln < 0 or pos + 8 + ln > len(data):
            break
        msgs.append(data[pos:pos + 8 + ln])
        pos += 8 + ln
    if not msgs:
        continue
    def emit(tag, parts, limit):
        global n
        blob = b""
        for m in parts:
            if blob and len(blob) + len(m) + 8 > limit:
                break
            blob += m
        if len(blob) + 8 > 65536:
            return
        name = "%s-%s" % (os.path.basename(path)[:40], tag)
        with open(os.path.join(out, name), "wb") as f:
            f.write(blob + END)
        n += 1
    for limit in (4096, 8192, 16384):
        emit("head%d" % limit, msgs, limit)
    emit("gamestate-mid", [msgs[0]] + msgs[len(msgs) // 2:], 8192)
print("%d quake3 seeds" % n, file=sys.stderr)
PY
