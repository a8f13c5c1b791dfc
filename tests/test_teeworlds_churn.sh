#!/bin/bash
# Snapshots changed in place (runtime/teeworlds/teeworlds_snap.c: slots
# kept while others come and go, holes closed up when new data needs the
# room) against an independent decoder: tests/tw_churn_craft.py writes
# demos whose deltas remove items (twice, absent ones too, 32 or more at
# once, which leave the key index in one pass), remove and add
# them back, name kept and new items twice or three times, with items of
# 0 to 600 ints, so that the data area fills with holes and is closed up
# several times per file; every snapshot zdem rebuilds (tests/tw_snapdump,
# whole file and push input) must equal tests/tw07_ref.py's (libtw2's
# snapshot.md rule: the delta's diffs against the old snapshot's items,
# kept items those not removed) given libtw2's 0.6 sizes, key by key and
# int by int (at the default limits: these seeds stay under the game's
# bounds, which the reference does not model). One seed ends in a delta
# that changes an item's size: zdem stops there with that fault, its
# snapshots up to it the reference's.
set -u
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
exec "$PY" - "${ZDEM_BUILD_DIR:-}" "$(cd "$(dirname "$0")" && pwd)" <<'EOF'
import os, subprocess, sys, tempfile

BUILD, HERE = sys.argv[1:3]
sys.path.insert(0, HERE)
import tw07_ref, tw_snapshot_ref

SNAPDUMP = os.path.join(BUILD, "tests", "tw_snapdump")
tw07_ref.SIZES07 = tw_snapshot_ref.STATIC_SIZES  # the 0.6 table (libtw2's appendix)
fails = 0


def check(ok, what):
    global fails
    print(("ok " if ok else "FAIL ") + what)
    fails += not ok


def reference(path):
    """tw07_ref --snapshots lines; where it refuses a delta, the error."""
    import io, contextlib
    buf = io.StringIO()
    err = None
    with contextlib.redirect_stdout(buf):
        try:
            tw07_ref.main(["", "--snapshots", path])
        except ValueError as e:
            err = str(e)
    return buf.getvalue().splitlines(), err


work = tempfile.mkdtemp()
# seed, deltas, items, options, the fault zdem must stop at (seeds whose
# snapshots stay under the bounds: the reference does not model them)
cases = [(12, 1500, 150, ["-o", "big=0.2"], None), (16, 1500, 150, ["-o", "big=0.2"], None),
         (4, 1500, 300, [], None), (30, 1500, 300, ["-o", "mass=0.1", "-o", "big=0.1"], None),
         (20, 600, 150, ["-o", "bad=1"], "end 76233 snapshot delta: item size changed")]
for seed, deltas, items, opts, fault in cases:
    path = os.path.join(work, "churn%d.demo" % seed)
    subprocess.run([sys.executable, os.path.join(HERE, "tw_churn_craft.py"), path, "--seed", str(seed),
                    "--deltas", str(deltas), "--items", str(items)] + opts, check=True)
    want, ref_err = reference(path)
    for extra in ([], ["--push"]):
        out = subprocess.run([SNAPDUMP, path] + extra, capture_output=True, text=True).stdout.splitlines()
        tail = [l for l in out if l.startswith(("end", "protocol"))]
        got = [l for l in out if not l.startswith(("end", "protocol"))]
        n = sum(1 for l in got if not l.startswith(" "))
        name = "seed %d%s" % (seed, " (push)" if extra else "")
        if fault is None:
            check(ref_err is None and got == want and tail[:1] == ["end 0"] and n > deltas,
                  "%s: %d snapshots, each the reference's (%s)" % (name, n, tail[:1]))
        else:
            # zdem stops at the fault; the reference (which does not check
            # a new item named twice with two sizes) may read on
            check(n > 100 and got == want[:len(got)] and tail[:1] == [fault],
                  "%s: %d snapshots, the reference's, then the fault (%s)" % (name, n, tail[:1]))
print("%d failed" % fails)
sys.exit(1 if fails else 0)
EOF
