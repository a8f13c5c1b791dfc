#!/usr/bin/python3
"""`zdem events --follow` on a demo still being written, one of each family.

    live_follow_check.py ZDEM POLL_MS DEMO...

Each DEMO is written to a scratch file in random pieces (a fixed seed) with
pauses, as its game's recorder writes it: a Source 2 .dem with its header's
two offsets zero until the end (CS2 writes them when it stops), a Teeworlds
.demo with its header's length and timeline markers zero until the end (the
recorder fills them when it stops), a Quake III demo straight through.
Meanwhile `zdem events --json --follow --poll POLL_MS` reads it.

Checked:
  * its lines equal those of `zdem events --json` on the finished file, and
    it ends by itself at the format's end (exit 0, well before
    --idle-timeout);
  * each line comes out after the piece that completes it was written
    (never before: nothing is read that is not there) and no later than one
    poll interval after it. The piece that completes line i is the first
    whose prefix of the file, read whole, yields more than i lines (zdem
    reads a cut file up to its last whole frame: the damage contract).
And a recording that stops mid-frame and never ends: after --idle-timeout
the follower ends as the reading of the cut file does (its lines, exit 2,
its verdict last). Latencies are printed; the run is bounded.
"""
import os
import random
import subprocess
import sys
import tempfile
import threading
import time

zdem, poll_ms, demos = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
PIECES, PAUSE = 12, 0.25
fails = []


def bad(msg):
    fails.append(msg)
    print("FAIL:", msg)


def events(path):
    p = subprocess.run([zdem, "events", "--json", path], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return p.stdout.splitlines()


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
    cuts = sorted(rng.sample(range(1, len(data)), PIECES - 1)) + [len(data)]
    # lines each prefix yields (the file as it is after each write)
    ready = []
    for c in cuts:
        pre = os.path.join(tmp, "prefix-" + os.path.basename(demo))
        with open(pre, "wb") as f:
            f.write(first[:c] if c < len(data) else data)
        ready.append(len(events(pre)))
        os.remove(pre)
    open(name, "wb").close()
    t0 = time.monotonic()
    proc = subprocess.Popen([zdem, "events", "--json", "--follow", "--poll", str(poll_ms),
                             "--idle-timeout", "60", name],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []

    def reader():
        for line in proc.stdout:
            lines.append((time.monotonic() - t0, line.rstrip("\n")))

    rt = threading.Thread(target=reader, daemon=True)
    rt.start()
    written, pos = [], 0
    with open(name, "r+b") as f:
        for i, c in enumerate(cuts):
            time.sleep(PAUSE * rng.uniform(0.5, 1.5))
            f.seek(pos)
            f.write(first[pos:c])
            if c == len(data):  # the recorder's stop: the header fields
                for off, b in patches:
                    f.seek(off)
                    f.write(b)
            f.flush()
            written.append(time.monotonic() - t0)
            pos = c
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        bad("%s: zdem did not stop at the demo's end" % demo)
    ended = time.monotonic() - t0
    rt.join(5)
    err = proc.stderr.read()
    got = [l for _, l in lines]
    if proc.returncode != 0:
        bad("%s: exit %s: %s" % (demo, proc.returncode, err.strip()))
    if got != whole:
        bad("%s: %d lines, the whole file gives %d (or they differ)" % (demo, len(got), len(whole)))
    lat = []
    for i, (when, _) in enumerate(lines):
        k = next((k for k, n in enumerate(ready) if n > i), None)
        if k is None:
            bad("%s: line %d: no prefix yields it" % (demo, i))
            continue
        if when < written[k] - 0.001:
            bad("%s: line %d out at %.3f s, before its bytes (piece %d at %.3f s)" %
                (demo, i, when, k, written[k]))
        lat.append(when - written[k])
        if when - written[k] > poll_ms / 1000.0:
            bad("%s: line %d out %.0f ms after its bytes: more than one poll interval" %
                (demo, i, 1000 * (when - written[k])))
    lat.sort()
    print("%s: %d bytes in %d pieces, %d lines equal to the whole file's; latency after the "
          "piece: median %.1f ms, max %.1f ms (bound %d ms); exited %.0f ms after the last piece" %
          (os.path.basename(demo), len(data), len(cuts), len(lines),
           1000 * lat[len(lat) // 2] if lat else 0, 1000 * lat[-1] if lat else 0, poll_ms,
           1000 * (ended - written[-1])))
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
got = subprocess.run([zdem, "events", "--json", "--follow", "--idle-timeout", "1", cut],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
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
