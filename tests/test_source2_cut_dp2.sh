#!/bin/bash
# Source 2 clips (`zdem cut`) read by demoparser2 (@laihoe/demoparser2,
# tests/node_modules): for every CS2 corpus demo it reads, the whole file
# and 20 seeded random tick ranges, its parseTicks (16 player props) and
# parseEvents (every event) on the clip equal its output on the original
# over the clip's ticks (the signon's events included), and the clip
# holds every tick of the range asked for. Without node or demoparser2
# the test says so and passes (the round trip, test_source2_cut, runs
# everywhere).
set -u
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
TESTS=$(cd "$(dirname "$0")" && pwd)
NODE_PATH=${ZDEM_DP2_NODE_PATH:-$TESTS/node_modules}
if ! command -v node >/dev/null 2>&1 || [ ! -d "$NODE_PATH/@laihoe/demoparser2" ]; then
    echo "SKIP: node or demoparser2 missing (sh tests/deps.sh installs it)"
    exit 0
fi
export NODE_PATH
exec "$PY" - "$ZDEM_BIN" "$ZDEM_CORPUS" "$TESTS" <<'PYEOF'
import glob, json, os, random, subprocess, sys, tempfile, shutil

ZDEM, CORPUS, TESTS = sys.argv[1:4]
tmp = tempfile.mkdtemp()
fails = checked = files = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL: " + msg)


for path in sorted(glob.glob(os.path.join(CORPUS, "source2", "cs2_*.dem"))):
    name = os.path.basename(path)
    info = json.loads(subprocess.run([ZDEM, "info", "--json", path], capture_output=True,
                                     text=True).stdout)
    last = info.get("last_tick", 0)
    rnd = random.Random(name)
    ranges = [None] + [sorted((rnd.randint(1, last), rnd.randint(1, last))) for _ in range(20)]
    clips = []
    for i, r in enumerate(ranges):
        out = os.path.join(tmp, "%s.%d.dem" % (name, i))
        args = [] if r is None else ["--start", str(r[0]), "--end", str(r[1])]
        p = subprocess.run([ZDEM, "cut", path, "-o", out, "--json"] + args, capture_output=True, text=True)
        if p.returncode != 0:
            fail("%s %s: zdem cut: %s" % (name, args, p.stderr.strip()))
            continue
        clips.append((out, r, json.loads(p.stdout)))
    p = subprocess.run(["node", os.path.join(TESTS, "s2_cut_dp2.js"), path] + [c[0] for c in clips],
                       capture_output=True, text=True, timeout=900)
    lines = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    if len(lines) == 1 and "error" in lines[0]:
        print("%s: demoparser2 does not read it: skipped" % name)
        continue
    files += 1
    if len(lines) != len(clips):
        fail("%s: demoparser2 answered %d of %d clips: %s" % (name, len(lines), len(clips), p.stderr[-300:]))
        continue
    for (out, r, info), res in zip(clips, lines):
        what = "%s %s" % (name, "whole" if r is None else "%d..%d" % tuple(r))
        checked += 1
        if not res.get("ok"):
            fail("%s: %s" % (what, res.get("why")))
            continue
        # every tick of the range is in the clip (it may start earlier, at
        # the full packet it starts from)
        if r is not None and (res["first"] > r[0] or res["last"] < min(r[1], last)):
            fail("%s: demoparser2 sees ticks %d..%d" % (what, res["first"], res["last"]))
        if info.get("first_tick") != res["first"]:
            fail("%s: zdem says the clip starts at %s, demoparser2 at %d" % (what, info.get("first_tick"), res["first"]))

shutil.rmtree(tmp, ignore_errors=True)
print("%d CS2 demos demoparser2 reads, %d clips compared" % (files, checked))
if files < 4 or checked < 21 * files:
    fail("too few: %d files, %d clips" % (files, checked))
print("FAILED: %d" % fails if fails else "ok")
sys.exit(1 if fails else 0)
PYEOF
