#!/bin/bash
# `zdem cut` on Teeworlds 0.7 demos: the crafted ones of tests/tw07craft.py
# (TWDEMO v4 as Teeworlds 0.7.5 writes, v5, v6 with DDNet's extension; a
# 0.7 demo under another 0.7 hash, and one under an unrelated net version,
# which zdem reads with the 0.6 table and the sizes its full snapshots
# state), and the real 0.7 recordings where tests/fetch_tw07.py has fetched
# them into tests/tw07-demos/ (CI has no network: there, the crafted ones).
#  - tests/test_teeworlds_cut (the 0.6/DDNet round trip) on these files: for
#    the whole file, a range from the last full snapshot, one from a delta
#    and 22 seeded random ones (starting on and off a snapshot's tick),
#    zdem's reading of the clip equals its reading of the original over
#    the range (every tick, every snapshot item, every message), the header
#    (length, timeline markers written in), a cut of a clip equals the cut
#    of the original, truncated originals, the encoders alone;
#  - the independent 0.7 reader (tests/tw07_ref.py) on clips `zdem cut`
#    writes for the whole file, ranges from every full snapshot and from a
#    delta, and 20 seeded random ones per demo: its snapshots of the clip
#    (tick and every item) are its snapshots of the original with a tick in
#    [A, B], the first one a full snapshot; its events of the clip (names
#    aside: those come from state before the clip) are the original's over
#    the clip's ticks; the header and map are the original's bytes but for
#    the length and the timeline markers; a cut of a clip is the cut of the
#    original, byte for byte;
#  - a size zdem learned from a full snapshot before the clip (an unknown
#    net version) that the clip never states: the cut warns (stderr and
#    --json), when and only when such an item comes back in the clip.
set -u
SRC=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
DIR=${ZDEM_TW07_DEMOS:-$SRC/tests/tw07-demos}
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
exec "$PY" - "$ZDEM_BIN" "${ZDEM_BUILD_DIR:-}" "$SRC/tests" "$DIR" <<'EOF'
import glob, os, random, struct, subprocess, sys

ZDEM, BUILD, HERE, DIR = sys.argv[1:5]
sys.path.insert(0, HERE)
import zdem_cli_test as T
import tw07craft, tw07_ref
import tw_snapshot_ref as ref
from zdem_cli_test import check, run, write, TMP
T.ZDEM = ZDEM

demos = []
for name, kw in (("v4", {"version": 4}), ("v5", {"version": 5}), ("v6-ddnet", {"version": 6, "ddnet": True}),
                 ("other07", {"net_version": "0.7 0123456789abcdef"}),
                 ("guess06", {"net_version": "craft 1.0",
                              "types": list(range(1, 17)) + [23, 24, tw07craft.UNKNOWN_TYPE, tw07craft.EXT_TYPE]})):
    data, _ = tw07craft.build(**kw)
    demos.append(write("craft7-%s.demo" % name, data))
real = sorted(glob.glob(os.path.join(DIR, "*.demo")))
if real:
    p = subprocess.run([sys.executable, os.path.join(HERE, "fetch_tw07.py"), "--check", "--dest", DIR],
                       capture_output=True, text=True)
    check(p.returncode == 0, "the 0.7 demos are the recorded ones (%s)" % p.stdout[-300:])
    demos += real
else:
    print("SKIP (real files): no 0.7 demos in %s (tests/fetch_tw07.py fetches them)" % DIR)

# zdem's reading of clips against its reading of the original
p = subprocess.run([os.path.join(BUILD, "tests", "test_teeworlds_cut")] + demos, capture_output=True, text=True)
for d in demos:
    check("ok: %s" % d in p.stdout.splitlines(), "test_teeworlds_cut: %s" % d)
check(p.returncode == 0, "test_teeworlds_cut on the 0.7 demos exits 0:\n%s%s" % (p.stdout[-3000:], p.stderr[-2000:]))
print("test_teeworlds_cut: " + (p.stdout.splitlines() or [""])[-2])


def snapshots(path):
    """The reference's snapshots: [(tick, kind, {key: ints})]."""
    out, snap = [], None
    for index, tick, kind, payload in ref.read_demo_chunks(path):
        if kind not in ("snapshot", "delta"):
            continue
        ints = ref.unpack_ints(ref.huffman_decode(payload)) if payload else []
        if kind == "snapshot":
            snap = dict(ref.parse_full(ints))
        elif ints:
            snap = tw07_ref.apply_delta(snap, ints, tw07_ref.SIZES07)
        out.append((tick, kind, snap))
    return out


def events(path):
    """The reference's events, without the names it looks up in state."""
    return [{k: v for k, v in e.items() if k not in ("name", "target_name", "killer_name", "victim_name")}
            for e in tw07_ref.events(path)[0]]


def data_offset(raw):
    """Where the chunks start (tw_snapshot_ref.read_demo_chunks' layout)."""
    version, pos = raw[7], 8 + 168
    map_size = struct.unpack(">i", raw[8 + 128:8 + 132])[0]
    if version >= 4:
        pos += 260
    if version >= 6 and raw[pos:pos + 16] == ref.SHA256_EXT_UUID:
        pos += 48
    return pos + map_size


def cut(path, a, b, out):
    args = ["cut", path, "-o", out]
    if a is not None:
        args += ["--start", str(a)]
    if b is not None:
        args += ["--end", str(b)]
    rc, o, err = run(args)
    return rc, err


nclips = nsnaps = nevents = 0
for path in demos:
    name = os.path.basename(path)
    raw = open(path, "rb").read()
    orig = snapshots(path)
    orig_ev = events(path)
    ticks = [t for t, k, s in orig]
    full = [t for t, k, s in orig if k == "snapshot"]
    delta = [t for t, k, s in orig if k == "delta"]
    rng = random.Random(name)
    ranges = [(None, None)] + [(t, None) for t in full] + [(delta[len(delta) // 2], ticks[-1])]
    for k in range(20):
        t1, t2 = sorted((rng.choice(ticks), rng.choice(ticks)))
        a = t1 - rng.randrange(3)
        ranges.append((a, a if k % 7 == 3 else t2 + rng.randrange(3)))
    ranges.append((ticks[-1] + 1, None))
    clip = os.path.join(TMP, "clip.demo")
    for i, (a, b) in enumerate(ranges):
        rc, err = cut(path, a, b, clip)
        lo = -2**31 if a is None else a
        hi = 2**31 - 1 if b is None else b
        what = "%s [%s, %s]" % (name, a, b)
        if not check(rc == 0 and err == "", "%s: cut exits 0, nothing on stderr (%d %r)" % (what, rc, err)):
            continue
        nclips += 1
        got = snapshots(clip)
        want = [(t, s) for t, k, s in orig if lo <= t <= hi]
        check([(t, s) for t, k, s in got] == want,
              "%s: the reference's snapshots of the clip (%d) are the original's over the range (%d)"
              % (what, len(got), len(want)))
        check(not got or got[0][1] == "snapshot", "%s: the clip starts with a full snapshot" % what)
        nsnaps += len(got)
        cr = open(clip, "rb").read()
        check(cr[:152] == raw[:152] and cr[156:176] == raw[156:176], "%s: the header as the original's" % what)
        start = 176 + (260 if raw[7] >= 4 else 0)
        check(cr[start:data_offset(cr)] == raw[start:data_offset(raw)], "%s: extension and map as they were" % what)
        ev = events(clip)
        if want:
            first = want[0][0]
            want_ev = [e for e in orig_ev if first <= e["tick"] <= hi]
        else:
            want_ev = []
        check(ev == want_ev, "%s: the reference's events of the clip (%d) are the original's over its ticks (%d)"
              % (what, len(ev), len(want_ev)))
        nevents += len(ev)
        if i % 5 == 2 and got:
            # a cut of the clip equals the cut of the original
            t = [x for x, s in want]
            a2 = t[len(t) // 3] - 1
            b2 = t[2 * len(t) // 3]
            c1, c2 = os.path.join(TMP, "c1.demo"), os.path.join(TMP, "c2.demo")
            r1, _ = cut(clip, a2, b2, c1)
            r2, _ = cut(path, a2, b2, c2)
            check(r1 == 0 and r2 == 0 and open(c1, "rb").read() == open(c2, "rb").read(),
                  "%s: a cut of the clip at [%d, %d] equals the original's" % (what, a2, b2))
    print("ok %s: %d clips read by tw07_ref.py as the original over their ranges" % (name, len(ranges)))
print("%d clips of %d demos, %d snapshots and %d events equal the reference's reading of the originals"
      % (nclips, len(demos), nsnaps, nevents))

# A size zdem learned from a full snapshot (unknown net version: the 0.6
# table, whose type 12 has 2 ints, 0.7's spectator info 4) that the clip's
# first snapshot does not state, the type coming back later: the clip is
# right (the reference reads it as the original), and the cut says that a
# reader guessing the protocol misreads it; from the keyframe, or with the
# type in the first snapshot, or not back in the range, no warning.
d = tw07craft.Demo7(4, "craft 1.0", b"m" * 40, 0)
prev, order = None, []
for s in range(14):
    st = {1 << 16: [s, 1, 2, 3, 4, 5, 6, 7, 8, 9]}
    if not 3 <= s < 6:
        st[(12 << 16) | 2] = [1, 0, 100 + s, 700]
    order = [k for k in order if k in st] + sorted(k for k in st if k not in order)
    d.tick_marker(100 + s, keyframe=(s == 0))
    if s == 0:
        d.full_snapshot([(k, st[k]) for k in order])
    else:
        d.delta07(prev, st, order)
    prev = st
trap = write("learned.demo", d.finish())
orig = snapshots(trap)
for a, b, warned in ((104, 113, True), (100, 113, False), (107, 113, False), (104, 105, False)):
    clip = os.path.join(TMP, "clip.demo")
    rc, err = cut(trap, a, b, clip)
    check(rc == 0 and ("warning: item types (1) whose size only a full snapshot before the clip states" in err)
          == warned, "learned size, [%d, %d]: warned %s (%r)" % (a, b, warned, err))
    check([(t, s) for t, k, s in snapshots(clip)] == [(t, s) for t, k, s in orig if a <= t <= b],
          "learned size, [%d, %d]: the reference reads the clip as the original" % (a, b))
    rc, out, _ = run(["cut", trap, "--start", str(a), "--end", str(b), "-o", clip, "--json"])
    check('"sizes_unstated":%d' % warned in out, "learned size, [%d, %d]: --json says it (%s)" % (a, b, out))
print("a size learned before the clip and left out of it: warned when the type comes back in the clip")
check(nclips >= 20 * len(demos), "at least 20 ranges per demo")
sys.exit(T.finish())
EOF
