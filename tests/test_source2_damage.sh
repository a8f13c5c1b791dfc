#!/bin/bash
# The damage contract for Source 2, every CLI command: on a cut or damaged
# demo, stdout has everything decoded from the whole frames before the
# fault, the last stderr line is "zdem: FILE: offset N[ (payload byte P)]:
# what" (N a file offset), the exit status is 2, and info --json carries an
# "error" member. A file without DEM_Stop is cut short. A damaged frame in
# the middle is skipped: what comes after it is still delivered. Limits are
# warnings that name the limit; hostile paths (FIFO, directory) never block.
#
# The expected outputs come from the intact file through other paths: the
# dump's frame offsets say which frames are whole, entities of a cut demo
# equal `entities --tick T` (a seek through the full packet) of the whole
# file, events are a prefix of the whole file's, and a frame cut in half
# adds and loses nothing against the cut at its start.
set -u
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
exec "$PY" - "$ZDEM_BIN" "$ZDEM_CORPUS" "$(cd "$(dirname "$0")" && pwd)" <<'EOF'
import json, os, re, shutil, stat, struct, subprocess, sys, tempfile

ZDEM, CORPUS = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
import s2craft  # the format, written down once in the tests
import zdem_cli_test as T
from zdem_cli_test import check, run, write, TMP
T.ZDEM = ZDEM

ERR = re.compile(r"^zdem: (.*): offset (\d+)(?: \(payload byte (\d+)\))?: (.+)$")

def last_error(path, err, what):
    """Offset and payload byte of the last stderr line (the verdict)."""
    lines = err.splitlines()
    m = ERR.match(lines[-1]) if lines else None
    if not check(m is not None and m.group(1) == path and not m.group(4).startswith("warning"),
                 "%s: last stderr line is 'zdem: FILE: offset N: what' (%r)" % (what, err[-300:])):
        return None, None
    return int(m.group(2)), (int(m.group(3)) if m.group(3) else None)

def frames(data):
    """(offset, cmd, compressed, tick, payload offset, size) of every frame,
    read by the tests' own format code, not by zdem."""
    fr = s2craft.read_frames(data)
    ends = [f[0] for f in fr[1:]] + [len(data)]
    return [(off, cmd, comp, -1 if tick == 0xFFFFFFFF else tick, end - len(body), len(body))
            for (off, cmd, comp, tick, body), end in zip(fr, ends)]

DEM_STOP, DEM_FILEINFO, DEM_PACKET, DEM_FULLPACKET = 0, 2, 7, 13

def whole_file(name):
    src = os.path.join(CORPUS, "source2", name)
    data = open(src, "rb").read()
    fr = frames(data)
    full = {}
    for args in (["events"], ["dump", "--json"], ["entities", "--json"]):
        rc, out, err = run(args + [src])
        check(rc == 0, "%s: %s of the whole file exits 0 (%s)" % (name, args, err.strip()[-200:]))
        full[" ".join(args)] = out
    # the dump's outer frames agree with the framing read here
    outer = [json.loads(l) for l in full["dump --json"].splitlines() if '"kind":"outer"' in l]
    check([o["offset"] for o in outer] == [f[0] for f in fr], "%s: dump frame offsets" % name)
    return src, data, fr, full

def cut_checks(name):
    src, data, fr, full = whole_file(name)
    n = len(fr)
    stop = next(i for i, f in enumerate(fr) if f[1] == DEM_STOP)
    # cuts at tick boundaries (the next frame is a later game frame), and
    # 5 bytes into that next frame
    cuts = []
    for frac in (0.2, 0.5, 0.85):
        i = max(2, int(n * frac))
        while i < stop and not (fr[i][1] in (DEM_PACKET, DEM_FULLPACKET) and fr[i][3] > fr[i - 1][3]
                               and all(f[3] < fr[i][3] for f in fr[:i])
                               and any(f[1] in (DEM_PACKET, DEM_FULLPACKET) for f in fr[:i])):
            i += 1
        if i < stop:
            cuts.append(i)
    for i in cuts:
        b = fr[i][0]
        tick = max(f[3] for f in fr[:i])
        at = write("at.dem", data[:b])
        inside = write("in.dem", data[:b + 5])
        what = "%s cut at frame %d (offset %d, tick %d)" % (name, i, b, tick)
        # events: the same from both cuts, a prefix of the whole file's
        rc1, ev_at, e1 = run(["events", at])
        rc2, ev_in, e2 = run(["events", inside])
        check(rc1 == 2 and rc2 == 2, "%s: events exit 2 (%d, %d)" % (what, rc1, rc2))
        check(ev_at == ev_in, "%s: a frame cut 5 bytes in adds and loses nothing" % what)
        check(full["events"].startswith(ev_at), "%s: events are a prefix of the whole file's" % what)
        check(ev_at.count("\n") > 0 or i < 10, "%s: events before the cut are delivered" % what)
        off, _ = last_error(at, e1, what + " events at")
        check(off == b, "%s: the error names the end of the file, offset %d (got %s)" % (what, b, off))
        off, _ = last_error(inside, e2, what + " events inside")
        check(off == b, "%s: the error names the cut frame, offset %d (got %s)" % (what, b, off))
        # dump: exactly the whole frames before the cut, and their messages
        rc, out, err = run(["dump", "--json", inside])
        check(rc == 2, "%s: dump exit 2" % what)
        want = "".join(l + "\n" for l in full["dump --json"].splitlines()
                       if json.loads(l)["kind"] == "inner" and json.loads(l)["outer"] < i
                       or json.loads(l)["kind"] == "outer" and json.loads(l)["offset"] < b)
        check(out == want, "%s: dump lists exactly the whole frames before the cut (%d lines, want %d)"
              % (what, out.count("\n"), want.count("\n")))
        # entities: as a seek to the same tick in the whole file
        rc, ent_cut, err = run(["entities", "--json", inside])
        rc2, ent_seek, _ = run(["entities", "--json", "--tick", str(tick), src])
        check(rc == 2 and rc2 == 0, "%s: entities exit 2 / seek exit 0 (%d, %d)" % (what, rc, rc2))
        check(ent_cut == ent_seek and ent_cut != "",
              "%s: entities of the cut demo equal the whole file's at tick %d (%d vs %d lines)"
              % (what, tick, ent_cut.count("\n"), ent_seek.count("\n")))
        # info: everything it knows, the error, no playback facts
        rc, out, err = run(["info", "--json", inside])
        check(rc == 2, "%s: info --json exit 2" % what)
        try:
            d = json.loads(out)
        except ValueError:
            d = None
        if check(d is not None, "%s: info --json is JSON" % what):
            off, _ = last_error(inside, err, what + " info")
            e = d.get("error")
            check(isinstance(e, dict) and e.get("offset") == off and isinstance(e.get("message"), str),
                  "%s: info --json error matches stderr (%r)" % (what, e))
            check(d["outer_messages"] == i, "%s: info counts %d whole frames (got %s)" % (what, i, d["outer_messages"]))
            check(d["entities_at_end"] == ent_cut.count("\n"), "%s: info entities_at_end" % what)
            check(d["playback_ticks"] is None, "%s: no playback_ticks without DEM_FileInfo" % what)
            check(isinstance(d.get("warnings"), dict), "%s: info --json has warnings" % what)
        rc, out, err = run(["info", inside])
        check(rc == 2 and re.search(r"^error: +offset %d: " % b, out, re.M) is not None,
              "%s: text info has the error line" % what)
    # cut at DEM_Stop: every game frame there, still cut short
    b = fr[stop][0]
    path = write("nostop.dem", data[:b])
    rc, out, err = run(["events", path])
    check(rc == 2 and out == full["events"], "%s: without DEM_Stop: all events, exit 2" % name)
    check("no DEM_Stop" in err.splitlines()[-1], "%s: says DEM_Stop is missing" % name)
    # after DEM_Stop, before the FileInfo the header points at
    fi = next((f for f in fr if f[1] == DEM_FILEINFO), None)
    if fi and fi[0] > fr[stop][0]:
        path = write("nofi.dem", data[:fi[0]])
        rc, out, err = run(["events", path])
        check(rc == 2 and out == full["events"], "%s: without DEM_FileInfo: all events, exit 2" % name)
        check("DEM_FileInfo" in err.splitlines()[-1], "%s: says DEM_FileInfo is missing" % name)

def damaged_middle(name):
    """A compressed DEM_Packet in the middle with its payload damaged: the
    frame is skipped, the frames after it are delivered."""
    src, data, fr, full = whole_file(name)
    n = len(fr)
    k = next(i for i in range(n // 2, n) if fr[i][1] == DEM_PACKET and fr[i][2] and fr[i][5] > 64)
    f = fr[k]
    bad = bytearray(data)
    # the Snappy preamble stays; the first tag becomes a copy from before
    # the start of the output: the stream cannot be decoded
    _, q = s2craft._uvarint(data, f[4])
    bad[q] = 0x02  # copy with a 2-byte offset ...
    bad[q + 1] = 0xFF
    bad[q + 2] = 0xFF
    path = write("mid.dem", bytes(bad))
    what = "%s frame %d (offset %d) damaged" % (name, k, f[0])
    before = write("before.dem", data[:f[0]])
    after_cut = write("after.dem", data[:fr[k + 1][0]])
    _, ev_before, _ = run(["events", before])
    _, ev_upto, _ = run(["events", after_cut])
    rc, out, err = run(["events", path])
    check(rc == 2, "%s: events exit 2 (%d)" % (what, rc))
    tail = full["events"][len(ev_upto):]
    check(out.startswith(ev_before) and out.endswith(tail) and len(tail) > 0,
          "%s: events before and after the damaged frame are all there" % what)
    off, pb = last_error(path, err, what)
    check(off is not None and f[4] <= off < f[4] + f[5],
          "%s: the error points into the damaged frame's stored bytes (offset %s)" % (what, off))
    rc, out, err = run(["info", "--json", path])
    d = json.loads(out) if rc == 2 else {}
    check(rc == 2 and d.get("warnings", {}).get("bad_frames") == 1 and "error" in d,
          "%s: info --json counts one bad frame and has the error (%r)" % (what, d.get("warnings")))
    check(d.get("playback_ticks") is not None, "%s: the rest of the file, FileInfo included, is read" % what)
    # a protobuf error inside an uncompressed payload: frame offset + payload byte
    k2 = next(i for i in range(1, n) if fr[i][1] in (DEM_PACKET, 8) and not fr[i][2] and fr[i][5] > 8)
    f2 = fr[k2]
    bad = bytearray(data)
    bad[f2[4]] = 0x0F  # field 1 with wire type 7: not a protobuf wire type
    path = write("pb.dem", bytes(bad))
    rc, out, err = run(["events", path])
    off, pb = last_error(path, err, what + " protobuf")
    check(rc == 2 and off == f2[0] and pb == 0,
          "%s: a bad wire type names the frame and the payload byte (offset %s byte %s, want %d byte 0)"
          % (name, off, pb, f2[0]))

def hostile_frame(name):
    """A DEM_Packet whose Snappy preamble claims 4 GiB: skipped, reported
    with the limit, nothing else lost; nothing is allocated for it."""
    src, data, fr, full = whole_file(name)
    i = next(k for k, f in enumerate(fr) if f[1] == DEM_PACKET)
    body = s2craft.varint(0xFFFFFFFF) + b"\x00" * 6  # the largest Snappy preamble
    frame = (s2craft.varint(DEM_PACKET | 0x40) + s2craft.varint(fr[i][3] if fr[i][3] >= 0 else 0)
             + s2craft.varint(len(body)) + body)
    at = fr[i][0]
    new = bytearray(data[:at] + frame + data[at:])
    fi_off = struct.unpack_from("<I", data, 8)[0]
    if fi_off:
        struct.pack_into("<I", new, 8, fi_off + len(frame))
    path = write("huge.dem", bytes(new))
    rc, out, err = run(["events", path])
    check(rc == 0 and out == full["events"], "%s: a 4 GiB frame claim: all events, exit 0 (%d)" % (name, rc))
    check(re.search(r"^zdem: .*: offset %d: warning: frame_limit: 1 .*claims 4294967295 bytes.*--max-frame" % at,
                    err, re.M) is not None, "%s: the warning names offset, claim and limit (%r)" % (name, err))
    rc, out, err = run(["info", "--json", path])
    d = json.loads(out) if out else {}
    check(rc == 0 and d.get("warnings", {}).get("frame_limit") == 1,
          "%s: info counts the skipped frame (%r)" % (name, d.get("warnings")))

def small_files():
    src = os.path.join(CORPUS, "source2", "cs2_demofile-net-gotv-14011-cs-italy.dem")
    data = open(src, "rb").read()
    for cut in (16, 15, 8, 1):
        path = write("small.dem", data[:cut])
        for args in (["info", "--json"], ["info"], ["dump"], ["events"], ["entities"]):
            rc, out, err = run(args + [path])
            what = "%d-byte file: %s" % (cut, " ".join(args))
            check(rc == 2, "%s: exit 2 (got %d)" % (what, rc))
            off, _ = last_error(path, err, what)
            check(off is not None and off <= cut, "%s: error offset <= %d" % (what, cut))
    # paths that are not regular files: refused, at once
    fifo = os.path.join(TMP, "fifo.dem")
    os.mkfifo(fifo)
    for path in (fifo, TMP, os.path.join(TMP, "missing.dem")):
        rc, out, err = run(["info", path], timeout=20)
        check(rc == 2 and re.match(r"^zdem: .*: offset 0: ", err) is not None,
              "%s: refused with offset 0 and exit 2 (%d, %r)" % (path, rc, err))
    rc, out, err = run(["entities", "--tick", "-5", src])
    check(rc == 1 and out == "", "--tick -5 is a usage error (%d)" % rc)

try:
    for name in ("cs2_demofile-net-gotv-14011-cs-italy.dem", "dota2_haste-nekit-pov.dem",
                 "deadlock_demofile-net-hltv-10423-dl-midtown.dem"):
        cut_checks(name)
    damaged_middle("cs2_demofile-net-gotv-14011-cs-italy.dem")
    hostile_frame("cs2_demofile-net-gotv-14065-de-nuke.dem")
    small_files()
finally:
    code = T.finish()
sys.exit(code)
EOF
