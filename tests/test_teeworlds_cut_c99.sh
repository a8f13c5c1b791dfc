#!/bin/bash
# Teeworlds clips (`zdem cut`) read by ddnet_demo_c99 (Teero888), an
# independent reader: tests/tw_c99_read.c is built against its header in
# the git-ignored bench/peers/ddnet_demo_c99/ (ZDEM_TW_C99 names another
# folder); without it the test says so and passes (the round trip,
# test_teeworlds_cut, runs everywhere). For every Teeworlds corpus demo,
# the whole file and five seeded random ranges: the library reads the
# clip's header (version, map size and CRC, map name; the length
# (last - first tick marker) / 50; the original's timeline markers inside
# the clip) and every chunk of it, which are the chunks it reads in the
# original over the clip's ticks: tick markers, messages (tick and size),
# snapshots and deltas, but for the first snapshot, a full one (its item
# count the one our reader gives there), behind a keyframe marker. Its
# rebuild of snapshots from deltas is not trusted with extended items:
# the snapshots themselves are compared by our own reader
# (test_teeworlds_cut).
set -u
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
SRC=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
C99=${ZDEM_TW_C99:-$SRC/bench/peers/ddnet_demo_c99}
CC=${ZDEM_C_COMPILER:-cc}
if [ ! -f "$C99/ddnet_demo.h" ]; then
    echo "SKIP: ddnet_demo_c99 not at $C99 (put its ddnet_demo.h there: github.com/Teero888/ddnet_demo_c99)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# plain: the library is not ours to hold to our sanitizers
if ! "$CC" -O1 -w -I "$C99" "$SRC/tests/tw_c99_read.c" -o "$tmp/c99" -lm; then
    echo "FAIL: tests/tw_c99_read.c does not build against $C99"
    exit 1
fi
exec "$PY" - "$ZDEM_BIN" "$ZDEM_CORPUS" "$tmp" <<'EOF'
import glob, json, os, random, subprocess, sys

ZDEM, CORPUS, TMP = sys.argv[1:4]
C99 = os.path.join(TMP, "c99")
fails = 0
clips = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL: " + msg)


def c99(path):
    r = subprocess.run([C99, path], capture_output=True, text=True, errors="replace")
    lines = r.stdout.splitlines()
    if r.returncode != 0 or len(lines) < 2 or not lines[0].startswith("H ") or not lines[1].startswith("K"):
        return None, []
    h = lines[0].split(" ", 5)
    head = {"version": h[1], "length": int(h[2]), "map_size": h[3], "map_crc": h[4], "map": h[5],
            "markers": [int(m) for m in lines[1].split()[1:]]}
    return head, [l.split() for l in lines[2:]]


for path in sorted(glob.glob(os.path.join(CORPUS, "teeworlds", "*.demo"))):
    name = os.path.basename(path)
    head, chunks = c99(path)
    if head is None:
        print("%s: ddnet_demo_c99 does not read the original: skipped" % name)
        continue
    ticks = sorted({int(c[1]) for c in chunks if c[0] in ("S", "D")})
    rnd = random.Random(name)
    ranges = [[]]
    for _ in range(5):
        a, b = sorted(rnd.sample(ticks, 2))
        ranges.append(["--start", str(a), "--end", str(b)])
    for args in ranges:
        out = os.path.join(TMP, "clip.demo")
        r = subprocess.run([ZDEM, "cut", path, "-o", out, "--json"] + args, capture_output=True, text=True)
        info = json.loads(r.stdout.strip().splitlines()[-1])
        what = "%s %s" % (name, " ".join(args) or "(whole)")
        if r.returncode != 0 or "first_tick" not in info:
            fail("%s: zdem cut: %s" % (what, r.stderr.strip()))
            continue
        clips += 1
        ch, cc = c99(out)
        if ch is None:
            fail("%s: ddnet_demo_c99 cannot read the clip" % what)
            continue
        first, last = info["first_tick"], info["last_tick"]
        # header
        for key in ("version", "map_size", "map_crc", "map"):
            if ch[key] != head[key]:
                fail("%s: header %s %r, original %r" % (what, key, ch[key], head[key]))
        if ch["length"] != (last - first) // 50 or ch["length"] != info["length"]:
            fail("%s: length %d, ticks %d..%d" % (what, ch["length"], first, last))
        want_markers = [m for m in head["markers"] if first <= m <= last]
        if ch["markers"] != want_markers:
            fail("%s: timeline markers %r, original's inside %r" % (what, ch["markers"], want_markers))
        # chunks: the original's from the first tick's marker to the last tick's end
        i = next((k for k, c in enumerate(chunks) if c[0] == "T" and int(c[1]) == first), None)
        if i is None:
            fail("%s: no tick marker %d in the original" % (what, first))
            continue
        j = next((k for k, c in enumerate(chunks) if k > i and c[0] == "T" and int(c[1]) > last), len(chunks))
        want = [list(c) for c in chunks[i:j]]
        want[0][2] = "1"  # the clip's first marker is a keyframe
        k = next((k for k, c in enumerate(want) if c[0] in ("S", "D")), None)
        if k is None or k >= len(cc) or cc[k][0] != "S" or cc[k][1] != want[k][1]:
            fail("%s: the first snapshot is not a full snapshot at %s" % (what, want[k][1] if k else "?"))
            continue
        want[k] = cc[k]  # its item count: our reader's (test_teeworlds_cut)
        if want[0][0] == "T" and cc != want:
            n = next((x for x in range(min(len(cc), len(want))) if cc[x] != want[x]), min(len(cc), len(want)))
            fail("%s: chunk %d of %d: %r, original %r" % (what, n, len(want),
                 cc[n] if n < len(cc) else None, want[n] if n < len(want) else None))

print("%d clips read by ddnet_demo_c99" % clips)
if clips < 30:
    fail("only %d clips" % clips)
print("FAILED: %d" % fails if fails else "ok")
sys.exit(1 if fails else 0)
EOF
