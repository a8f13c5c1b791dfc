#!/usr/bin/python3
"""`zdem events --follow` on a demo still being written, one of each family.

    live_follow_check.py ZDEM POLL_MS DEMO...

Each DEMO is written to a scratch file in random pieces (a fixed seed) with
short pauses, as its game's recorder writes it: a Source 2 .dem with its
header's two offsets zero until the end (CS2 writes them when it stops), a
Teeworlds .demo with its header's length and timeline markers zero until
the end (the recorder fills them when it stops), a Quake III demo straight
through. Meanwhile `zdem events --json --follow --poll POLL_MS` reads it.

Streaming is proved by order, not by time: the writer writes piece k+1
only once zdem's stdout (read here through a pipe) holds every line that
the file as it is after piece k yields when read whole (zdem reads a cut
file up to its last whole frame: the damage contract). A zdem that held a
line back until more bytes came, or until the end, would never be given
them: the writer reports a hang after HANG_S. No clock decides a verdict;
latencies are measured and printed only.

Checked:
  * its lines equal those of `zdem events --json` on the finished file, and
    it ends by itself at the format's end (exit 0, no "stopped following":
    its --idle-timeout is longer than the hang bound);
  * each line comes out once the file holds the piece that completes it and
    never before (nothing is read that is not there);
And a recording that stops mid-frame and never ends: after --idle-timeout
the follower ends, says it stopped following, and then ends as the reading
of the cut file does (its lines, exit 2, its verdict last).
"""
import os
import random
import subprocess
import sys
import tempfile
import threading
import time

zdem, poll_ms, demos = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
PIECES, PAUSE = 16, 0.05   # the pauses vary the reads; nothing is timed by them
HANG_S = 120.0             # no progress for this long: a hang
fails = []


def bad(msg):
    fails.append(msg)
    print("FAIL:", msg)


def events(path):
    p = subprocess.run([zdem, "events", "--json", path], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return p.stdout.splitlines()


def lines_in(first, c, data):
    """Lines the file yields when its first c bytes are written (read whole)."""
    pre = os.path.join(tmp, "prefix")
    with open(pre, "wb") as f:
        f.write(first[:c] if c < len(data) else data)
    n = len(events(pre))
    os.remove(pre)
    return n


def first_line_at(first, data):
    """The shortest prefix that yields a line (bisection): a demo's events may
    all lie after a long start (a Teeworlds demo's embedded map)."""
    lo, hi = 1, len(data)
    while lo < hi:
        mid = (lo + hi) // 2
        if lines_in(first, mid, data):
            hi = mid
        else:
            lo = mid + 1
    return lo


def plan(path, data):
    """What the recorder writes first (header fields it fills at its stop
    zeroed), and the patches it writes at the end."""
    first, patches = bytearray(data), []
    if data[:8] == b"PBDEMS2\0":
        first[8:16] = bytes(8)
        patches.append((8, data[8:16]))
    elif data[:7] == b"TWDEMO\0":
        first[152:156] = bytes(4)               # length
        patches.append((152, data[152:156]))
        if data[7] >= 4:                        # timeline markers
            first[176:176 + 260] = bytes(260)
            patches.append((176, data[176:176 + 260]))
    return bytes(first), patches


rng = random.Random(23)
tmp = tempfile.mkdtemp(prefix="zdem-follow-")
for demo in demos:
    data = open(demo, "rb").read()
    whole = events(demo)
    name = os.path.join(tmp, os.path.basename(demo))
    first, patches = plan(demo, data)
    # a quarter of the cuts anywhere, the rest where the lines are
    at = first_line_at(first, data)
    cuts = set(rng.sample(range(1, len(data)), PIECES // 4))
    cuts |= set(rng.sample(range(at, len(data)), PIECES - 1 - len(cuts)))
    cuts = sorted(cuts) + [len(data)]
    # lines each prefix yields (the file as it is after each write)
    ready = [lines_in(first, c, data) for c in cuts]
    open(name, "wb").close()
    t0 = time.monotonic()
    # --idle-timeout beyond the hang bound: an exit 0 before it is the
    # format's end, not the timeout
    proc = subprocess.Popen([zdem, "events", "--json", "--follow", "--poll", str(poll_ms),
                             "--idle-timeout", str(int(2 * HANG_S)), name],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines, early = [], []
    started = [0]          # pieces whose write has begun (counted before it)
    cond = threading.Condition()

    def reader():
        for line in proc.stdout:
            with cond:
                i = len(lines)
                # the first piece whose prefix yields line i must be in
                k = next((k for k, n in enumerate(ready) if n > i), len(ready))
                if k >= started[0]:
                    early.append((i, k, started[0]))
                lines.append((time.monotonic() - t0, line.rstrip("\n")))
                cond.notify_all()
        with cond:
            cond.notify_all()

    rt = threading.Thread(target=reader, daemon=True)
    rt.start()
    written, pos, hung = [], 0, False
    with open(name, "r+b") as f:
        for i, c in enumerate(cuts):
            time.sleep(PAUSE * rng.uniform(0.5, 1.5))
            with cond:
                started[0] = i + 1
            f.seek(pos)
            f.write(first[pos:c])
            if c == len(data):  # the recorder's stop: the header fields
                for off, b in patches:
                    f.seek(off)
                    f.write(b)
            f.flush()
            written.append(time.monotonic() - t0)
            pos = c
            # the gate: the next piece only once this one's lines are out
            with cond:
                if not cond.wait_for(lambda: len(lines) >= ready[i] or proc.poll() is not None, HANG_S):
                    hung = True
                have = len(lines)
            if have < ready[i] and not hung:
                # zdem ended; the reader may still be draining its pipe
                rt.join(HANG_S)
                have = len(lines)
            if have < ready[i]:
                bad("%s: after piece %d of %d, zdem's stdout held %d lines of the %d the file then "
                    "yields (%s): lines must be written as their bytes are decoded" %
                    (demo, i + 1, len(cuts), have, ready[i],
                     "a hang: nothing for %.0f s" % HANG_S if hung else "zdem ended"))
                break
    if pos < len(data):  # gave up: the rest, so that zdem can end
        with cond:
            started[0] = len(cuts)
        with open(name, "r+b") as f:
            f.seek(pos)
            f.write(data[pos:])
    try:
        proc.wait(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        bad("%s: zdem did not stop at the demo's end (a hang: still running %.0f s after the "
            "last piece)" % (demo, HANG_S))
    ended = time.monotonic() - t0
    rt.join(HANG_S)
    err = proc.stderr.read()
    got = [l for _, l in lines]
    if proc.returncode != 0 or "stopped following" in err:
        bad("%s: exit %s: %s" % (demo, proc.returncode, err.strip()))
    if got != whole:
        bad("%s: %d lines, the whole file gives %d (or they differ)" % (demo, len(got), len(whole)))
    for i, k, n in early:
        bad("%s: line %d came when %d pieces were written; its bytes are in piece %d" % (demo, i, n, k + 1))
    # for information only (never asserted: the gate above is the proof)
    lat = []
    for i, (when, _) in enumerate(lines):
        k = next((k for k, n in enumerate(ready) if n > i), None)
        if k is not None and k < len(written):
            lat.append(when - written[k])
    lat.sort()
    gated = sum(1 for k in range(len(ready)) if ready[k] > (ready[k - 1] if k else 0))
    print("%s: %d bytes in %d pieces (%d of them waited for new lines; lines after each: %s), %d lines "
          "equal to the whole file's; for information, not checked: a line came after its piece by median "
          "%.1f ms, max %.1f ms; zdem exited %.0f ms after the last piece" %
          (os.path.basename(demo), len(data), len(cuts), gated, ",".join(map(str, ready)), len(lines),
           1000 * lat[len(lat) // 2] if lat else 0, 1000 * lat[-1] if lat else 0,
           1000 * (ended - written[-1]) if written else 0))
    if not lines:
        bad("%s: no lines: pick a demo with events" % demo)
    os.remove(name)

# a recording that stops mid-frame and never ends: after --idle-timeout the
# follower ends as a reading of the cut file does (the same lines, exit 2,
# the same verdict last), saying first that it stopped following
demo = demos[0]
cut = os.path.join(tmp, "cut-" + os.path.basename(demo))
with open(cut, "wb") as f:
    f.write(open(demo, "rb").read()[:int(os.path.getsize(demo) * 0.6)])
ref = subprocess.run([zdem, "events", "--json", cut], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
try:
    got = subprocess.run([zdem, "events", "--json", "--follow", "--idle-timeout", "1", cut],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=HANG_S)
except subprocess.TimeoutExpired:
    bad("a cut demo followed with --idle-timeout 1: a hang (still running after %.0f s)" % HANG_S)
    sys.exit(1)
gerr = got.stderr.strip().splitlines()
if not (got.returncode == ref.returncode == 2 and got.stdout == ref.stdout and gerr and
        gerr[-1] == ref.stderr.strip().splitlines()[-1] and "stopped following" in gerr[-2]):
    bad("a cut demo followed until --idle-timeout: exit %d (%d), %r" % (got.returncode, ref.returncode, gerr[-2:]))
else:
    print("%s cut at 60%%: --follow stops after --idle-timeout 1 s with the cut file's %d lines and verdict"
          % (os.path.basename(demo), len(got.stdout.splitlines())))
os.remove(cut)
os.rmdir(tmp)
if fails:
    sys.exit(1)
print("OK")
