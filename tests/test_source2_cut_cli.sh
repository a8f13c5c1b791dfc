#!/bin/bash
# `zdem cut` on Source 2 demos, read back by an independent reader
# (tests/s2craft.py: its frame reader and raw protobuf decoder):
#  - --start-seconds/--end-seconds: the ticks asked for are the demo's
#    first game tick plus seconds at the rate of its DEM_FileInfo
#    (playback ticks over time, decoded here);
#  - the clip's frames: the original's signon and range copied byte for
#    byte (the corpus demos have no full packet after their start, so the
#    clip is a prefix of the original's frames), ending before the first
#    game frame past the end, then DEM_Stop and a DEM_FileInfo that the
#    header points at: playback ticks the original's less the ticks cut,
#    frames the clip's DEM_Packet count, time the ticks at the rate, and
#    the original's game info bytes;
#  - --around I --before S --after S: the range around the tick of line I
#    of `zdem events --json` (past the first quarter; the Deadlock demo has
#    none), and the clip's events hold that line;
#  - a truncated original: exit 2 with `zdem: FILE: offset N: what`, and
#    the clip (written all the same) reads clean with the events the
#    reader gives on the truncated file; a damaged frame in the middle
#    (the reader skips it): the clip ends before it; cut short inside the
#    signon: the signon alone; damage inside a signon frame: no clip.
set -u
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
exec "$PY" - "$ZDEM_BIN" "$ZDEM_CORPUS" "$(cd "$(dirname "$0")" && pwd)" <<'PYEOF'
import json, os, re, shutil, struct, subprocess, sys, tempfile

ZDEM, CORPUS, TESTS = sys.argv[1:4]
sys.path.insert(0, TESTS)
import s2craft

DEM_STOP, DEM_FILEINFO, DEM_PACKET, DEM_FULLPACKET = 0, 2, 7, 13
tmp = tempfile.mkdtemp()
fails = checks = 0


def check(ok, msg):
    global fails, checks
    checks += 1
    if not ok:
        fails += 1
        print("FAIL: " + msg)
    return ok


def fileinfo(buf):
    """(playback_time, ticks, frames, other fields' bytes) of the frame the
    header points at."""
    off = struct.unpack_from("<I", buf, 8)[0]
    for (o, cmd, comp, tick, body) in s2craft.read_frames(buf):
        if o == off:
            if cmd != DEM_FILEINFO or comp:
                return None
            t = k = fr = None
            other = []
            for (num, wt, v) in s2craft.pb_decode(body):
                if num == 1:
                    t = struct.unpack("<f", struct.pack("<I", v))[0]
                elif num == 2:
                    k = v
                elif num == 3:
                    fr = v
                else:
                    other.append((num, wt, v))
            return t, k, fr, other
    return None


def zdem(*args):
    return subprocess.run([ZDEM] + list(args), capture_output=True, text=True)


def check_clip(what, orig, clip, end):
    """The clip's frames against the original's; returns the clip's frames."""
    of = s2craft.read_frames(orig)
    cf = s2craft.read_frames(clip)
    # DEM_Stop, the original's DEM_SpawnGroups if it follows its DEM_Stop
    # (its tick the clip's last), DEM_FileInfo
    tail = [f[1] for f in cf[-3:]]
    ntail = 3 if tail == [DEM_STOP, 15, DEM_FILEINFO] else 2
    if not check(len(cf) >= 3 and [f[1] for f in cf[-2:]] in ([DEM_STOP, DEM_FILEINFO], [15, DEM_FILEINFO]) and
                 cf[-ntail][1] == DEM_STOP, "%s: the clip ends with DEM_Stop, DEM_FileInfo" % what):
        return cf
    body = cf[:-ntail]
    check(all(f[3] == body[-1][3] for f in cf[-ntail:] if body),
          "%s: the frames after the range are at the clip's last tick" % what)
    if ntail == 3:
        check(struct.unpack_from("<I", clip, 12)[0] == cf[-2][0] and
              [f[4] for f in of if f[1] == 15] == [cf[-2][4]],
              "%s: the header points at the DEM_SpawnGroups frame, the original's payload" % what)
    k = len(body)
    def span(buf, fr, i):
        return buf[fr[i][0]:fr[i + 1][0] if i + 1 < len(fr) else len(buf)]
    check(k <= len(of) and all(span(clip, cf, i) == span(orig, of, i) for i in range(k)),
          "%s: the clip's frames are the original's first %d, byte for byte" % (what, k))
    if k < len(of):
        nxt = of[k]
        check(end is None or nxt[1] == DEM_STOP or (nxt[1] in (DEM_PACKET, DEM_FULLPACKET) and nxt[3] > end),
              "%s: the clip stops at the first game frame past %s (next: cmd %d tick %d)"
              % (what, end, nxt[1], nxt[3]))
    ofi, cfi = fileinfo(orig), fileinfo(clip)
    if check(cfi is not None, "%s: the header points at the clip's DEM_FileInfo" % what):
        games = [f[3] for f in of if f[1] in (DEM_PACKET, DEM_FULLPACKET)]
        cgames = [f[3] for f in body if f[1] in (DEM_PACKET, DEM_FULLPACKET)]
        packets = sum(1 for f in body if f[1] == DEM_PACKET)
        if ofi is None:  # a truncated original: the clip's own span
            want_ticks, whole = cgames[-1] - cgames[0], False
        else:
            want_ticks = ofi[1] - (games[-1] - cgames[-1]) - (cgames[0] - games[0])
            whole = k == len([f for f in of if f[1] not in (DEM_FILEINFO, 15)]) - 1
        check(cfi[1] == want_ticks, "%s: playback_ticks %s, want %d" % (what, cfi[1], want_ticks))
        check(cfi[2] == (ofi[2] if whole else packets),
              "%s: playback_frames %s, want %s" % (what, cfi[2], ofi[2] if whole else packets))
        if ofi is None:
            check(cfi[0] is None and cfi[3] == [], "%s: no playback time, no game info" % what)
            return cf
        rate = round(ofi[1] / ofi[0])
        want_t = ofi[0] if cfi[1] == ofi[1] else want_ticks / rate
        check(abs(cfi[0] - want_t) <= 1e-6 * max(1.0, want_t),
              "%s: playback_time %s, want %s" % (what, cfi[0], want_t))
        check(cfi[3] == ofi[3], "%s: the original's other DEM_FileInfo fields are kept" % what)
    return cf


for name in ("cs2_demofile-net-gotv-14090-cs-italy.dem", "dota2_haste-nekit-pov.dem",
             "deadlock_demofile-net-hltv-10423-dl-midtown.dem", "cs2_demofile-net-gotv-14011-cs-italy.dem"):
    path = os.path.join(CORPUS, "source2", name)
    orig = open(path, "rb").read()
    frames = s2craft.read_frames(orig)
    first = next(f[3] for f in frames if f[1] in (DEM_PACKET, DEM_FULLPACKET))
    t, k, _, _ = fileinfo(orig)
    rate = k / t
    dur = k / rate

    # seconds
    s0, s1 = round(dur * 0.25, 2), round(dur * 0.6, 2)
    out = os.path.join(tmp, "s.dem")
    p = zdem("cut", path, "--start-seconds", str(s0), "--end-seconds", str(s1), "-o", out, "--json")
    what = "%s --start-seconds %s --end-seconds %s" % (name, s0, s1)
    if check(p.returncode == 0, "%s: exit %d %s" % (what, p.returncode, p.stderr.strip())):
        info = json.loads(p.stdout)
        want = (first + int(s0 * rate + 0.5), first + int(s1 * rate + 0.5))
        check((info["start"], info["end"]) == want, "%s: ticks %s..%s, want %s..%s"
              % (what, info["start"], info["end"], want[0], want[1]))
        check_clip(what, orig, open(out, "rb").read(), info["end"])

    # --around: a line of `zdem events` past the first quarter
    ev = zdem("events", "--json", path).stdout.splitlines()
    idx = next((i for i, l in enumerate(ev) if json.loads(l).get("tick", -1) > first + k // 4), None)
    if name.startswith("deadlock"):  # its events: the signon's and tick 1
        check(idx is None, "%s: no event past the first quarter" % name)
    elif check(idx is not None, "%s: an event past the first quarter" % name):
        tick = json.loads(ev[idx])["tick"]
        out = os.path.join(tmp, "a.dem")
        p = zdem("cut", path, "--around", str(idx), "--before", "0.5", "--after", "0.25", "-o", out, "--json")
        what = "%s --around %d" % (name, idx)
        if check(p.returncode == 0, "%s: exit %d %s" % (what, p.returncode, p.stderr.strip())):
            info = json.loads(p.stdout)
            want = (tick - int(0.5 * rate + 0.5), tick + int(0.25 * rate + 0.5))
            check((info["start"], info["end"]) == want, "%s: ticks %s..%s, want %s..%s"
                  % (what, info["start"], info["end"], want[0], want[1]))
            check_clip(what, orig, open(out, "rb").read(), info["end"])
            check(ev[idx] in zdem("events", "--json", out).stdout.splitlines(),
                  "%s: the clip has the event line" % what)

    # truncated: inside a game frame two thirds in, and at a frame boundary
    games = [f for f in frames if f[1] in (DEM_PACKET, DEM_FULLPACKET)]
    g = games[2 * len(games) // 3]
    for at in (g[0] + 5, g[0]):
        tpath = os.path.join(tmp, "t.dem")
        open(tpath, "wb").write(orig[:at])
        out = os.path.join(tmp, "tc.dem")
        p = zdem("cut", tpath, "-o", out)
        what = "%s truncated at %d" % (name, at)
        check(p.returncode == 2, "%s: exit %d, want 2" % (what, p.returncode))
        check(re.match(r"zdem: %s: offset \d+: " % re.escape(tpath), p.stderr) is not None,
              "%s: message %r" % (what, p.stderr.strip()))
        clip = open(out, "rb").read()
        cf = check_clip(what, orig[:at], clip, None)
        check(len(cf) <= len([f for f in frames if f[0] + 3 < at]) + 3, "%s: nothing past the damage" % what)
        check(zdem("info", out).returncode == 0, "%s: the clip reads clean" % what)
        want_ev = zdem("events", "--json", tpath).stdout.splitlines()
        got_ev = zdem("events", "--json", out).stdout.splitlines()
        check(got_ev == want_ev, "%s: %d events in the clip, %d read from the truncated file"
              % (what, len(got_ev), len(want_ev)))

# cut short inside the signon: a clip of the signon alone, exit 2;
# damage inside a signon frame (DEM_SendTables overwritten): no clip, no
# file left, exit 2
path = os.path.join(CORPUS, "source2", "cs2_demofile-net-gotv-14090-cs-italy.dem")
orig = open(path, "rb").read()
frames = s2craft.read_frames(orig)

# a damaged game frame (its compressed payload overwritten: the reader
# skips it and goes on): the clip ends before it, exit 2 naming it
games = [f for f in frames if f[1] == DEM_PACKET and f[2]]
g = games[len(games) // 2]
at = g[0]
for _ in range(3):
    _, at = s2craft._uvarint(orig, at)
bad = bytearray(orig)
bad[at:at + len(g[4])] = b"\xfe" * len(g[4])
tpath, out = os.path.join(tmp, "dmg.dem"), os.path.join(tmp, "dmg-clip.dem")
open(tpath, "wb").write(bytes(bad))
p = zdem("cut", tpath, "-o", out)
what = "a damaged game frame at %d" % g[0]
check(p.returncode == 2 and re.match(r"zdem: %s: offset (\d+): " % re.escape(tpath), p.stderr) and
      g[0] <= int(re.match(r"zdem: .*?: offset (\d+): ", p.stderr).group(1)) < g[0] + 3 + len(g[4]) + 12,
      "%s: exit %d, message %r" % (what, p.returncode, p.stderr.strip()[:200]))
if check(os.path.exists(out), "%s: a clip" % what):
    cf = s2craft.read_frames(open(out, "rb").read())
    body = [f for f in cf if f[1] not in (DEM_STOP, 15, DEM_FILEINFO)] if cf[-1][1] == DEM_FILEINFO else []
    check(len(body) == frames.index(g) and all(a[4] == b[4] for a, b in zip(frames, body)),
          "%s: the clip is the frames before it" % what)
    check(zdem("info", out).returncode == 0, "%s: the clip reads clean" % what)

tpath, out = os.path.join(tmp, "sig.dem"), os.path.join(tmp, "sig-clip.dem")
open(tpath, "wb").write(orig[:frames[3][0] + 2])
p = zdem("cut", tpath, "-o", out)
check(p.returncode == 2 and p.stderr.startswith("zdem: %s: offset " % tpath) and
      zdem("info", out).returncode == 0 and
      [f[1] for f in s2craft.read_frames(open(out, "rb").read())] == [f[1] for f in frames[:3]] + [DEM_STOP, DEM_FILEINFO],
      "cut short inside the signon: exit %d (want 2, a clip of the signon): %s" % (p.returncode, p.stderr.strip()[:200]))
os.remove(out)
st = next(f for f in frames if f[1] == 4)  # DEM_SendTables
bad = bytearray(orig)
body_at = st[0]
for _ in range(3):  # command, tick, size
    _, body_at = s2craft._uvarint(orig, body_at)
if check(len(st[4]) > 0 and orig[body_at:body_at + len(st[4])] == st[4], "the DEM_SendTables payload found"):
    bad[body_at:body_at + len(st[4])] = b"\xff" * len(st[4])
    open(tpath, "wb").write(bytes(bad))
    p = zdem("cut", tpath, "-o", out)
    check(p.returncode == 2 and not os.path.exists(out) and p.stderr.startswith("zdem: %s: offset " % tpath),
          "damage in the signon: exit %d (want 2, no file): %s" % (p.returncode, p.stderr.strip()[:200]))

# usage errors: nothing written, exit 1
path = os.path.join(CORPUS, "source2", "cs2_demofile-net-gotv-14090-cs-italy.dem")
for args in (["--start", "300", "--end", "100"], ["--start-seconds", "3", "--end-seconds", "1"],
             ["--around", "0", "--start", "1"], ["--start", "1"]):
    out = os.path.join(tmp, "u.dem")
    p = zdem(*(["cut", path] + args + ([] if args == ["--start", "1"] else ["-o", out])))
    check(p.returncode == 1 and not os.path.exists(out) and p.stderr.startswith("zdem: "),
          "cut %s: exit %d (want 1, nothing written): %s" % (" ".join(args), p.returncode, p.stderr.strip()[:200]))

shutil.rmtree(tmp, ignore_errors=True)
print("%d checks, %d failed" % (checks, fails))
sys.exit(1 if fails else 0)
PYEOF
