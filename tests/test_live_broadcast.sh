#!/bin/bash
# Source 2 HTTP broadcasts read from a directory (no network): both of
# DemoFile.Net's Deadlock fixtures in ../shared/corpus/source2-broadcast/.
#   * the counts issue 23 measured on the first one re-framed by an outside
#     script: 528 classes, 963 entities, 29 events;
#   * the .dem reading and the broadcast reading of the same data are equal:
#     tests/bc_to_dem.py re-frames the fragments as a .dem (in Python, from
#     the format's description), and events, ticks, entities (at the end and
#     at a tick) and info's state facts must be the same;
#   * DemoFile.Net's published reading (tests/live_dfn_compare.py), when
#     tests/fetch_demofile_net.sh has fetched it into tests/reference/ (it is
#     never committed); skipped, saying so, without it;
#   * the damage contract on damaged copies: a fragment cut inside a record,
#     a bad varint in a record header (the rest of that fragment only is
#     lost), a missing fragment, a fragment over --max-fragment, a bad sync;
#     error lines name the fragment and the byte in it;
#   * a URL without libcurl says that URLs need it; dump and --small are
#     usage errors on a broadcast.
set -u
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
exec "$PY" - "$ZDEM_BIN" "$ZDEM_CORPUS" "$(cd "$(dirname "$0")" && pwd)" <<'EOF'
import json, os, re, shutil, subprocess, sys, tempfile

ZDEM, CORPUS, TESTS = sys.argv[1:4]
BC = os.path.join(CORPUS, "source2-broadcast")
ONE = os.path.join(BC, "deadlock-demofile-net")               # ends with an end fragment
TWO = os.path.join(BC, "deadlock-demofile-net-2025-02-27")    # cut mid-match
fails, passed = [], 0
TMP = tempfile.mkdtemp(prefix="zdem-bc-")


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        fails.append(what)
        print("FAIL:", what)
    return cond


def run(*args, env=None):
    p = subprocess.run([ZDEM] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=env)
    return p.returncode, p.stdout, p.stderr


if not os.path.isdir(ONE) or not os.path.isdir(TWO):
    print("SKIP test_live_broadcast: %s not in the corpus" % BC)
    sys.exit(0)

# ---- issue 23's counts ------------------------------------------------------------
rc, out, err = run("info", "--json", ONE)
info = json.loads(out)
check(rc == 0, "fixture 1: info exit %d (%s)" % (rc, err.strip()))
check(info["entity_classes"] == 528, "fixture 1: 528 classes, got %r" % info["entity_classes"])
check(info["entities_at_end"] == 963, "fixture 1: 963 entities, got %r" % info["entities_at_end"])
for d in (ONE, TWO):  # a broadcast has no DEM_FileHeader: its sync names the map
    m = json.loads(run("info", "--json", d)[1])["map_name"]
    check(m == json.load(open(os.path.join(d, "sync.json")))["map"], "%s: map_name %r" % (d, m))
rc, out, err = run("events", "--json", ONE)
check(rc == 0 and len(out.splitlines()) == 29, "fixture 1: 29 events, exit 0 (got %d, exit %d)" %
      (len(out.splitlines()), rc))
rc, out, err = run("events", "--json", TWO)
check(rc == 2 and "no end fragment" in err.splitlines()[-1] and "(fragment 41/delta, byte 0)" in err,
      "fixture 2 (no end fragment): exit 2 naming it (exit %d, %r)" % (rc, err[-300:]))

# ---- the .dem reading of the same data --------------------------------------------
for d, mid in ((ONE, "8000"), (TWO, "15000")):
    dem = os.path.join(TMP, os.path.basename(d) + ".dem")
    subprocess.run([sys.executable, os.path.join(TESTS, "bc_to_dem.py"), d, dem], check=True)
    for args in (["events", "--json"],
                 ["ticks", "--props", "X,Y,Z,pitch,yaw,health,team_num,name,steamid", "--format", "csv"],
                 ["ticks", "--class", "CCitadelPlayerController", "--props",
                  "m_iszPlayerName,m_iTeamNum,m_hPawn,m_hHeroPawn"],
                 ["entities", "--json"], ["entities", "--json", "--tick", mid]):
        a = run(*(args[:1] + [dem] + args[1:]))
        b = run(*(args[:1] + [d] + args[1:]))
        check(a[0] == b[0] and a[1] == b[1] and a[1],
              "%s %s: the .dem reading (exit %d, %d bytes) and the broadcast's (exit %d, %d bytes) differ" %
              (os.path.basename(d), " ".join(args), a[0], len(a[1]), b[0], len(b[1])))
    a = json.loads(run("info", "--json", dem)[1])
    b = json.loads(run("info", "--json", d)[1])
    for k in ("entity_classes", "serializers", "string_tables", "entities_at_end", "players",
              "last_tick", "max_tick"):
        check(a[k] == b[k], "%s: info %s: .dem %r, broadcast %r" % (os.path.basename(d), k, a[k], b[k]))

# ---- DemoFile.Net's published reading ----------------------------------------------
REF = os.path.join(TESTS, "reference", "demofile-net")
for d, commit in ((ONE, "4e34d8fd38966b28ea26f6ebc545d935b13097fb"),
                  (TWO, "721eecbae02c3699d4e82f67a230a2d86cf34cf8")):
    snap = os.path.join(REF, commit, "HttpBroadcast_Deadlock.txt")
    gen = os.path.join(REF, commit, "Source1GameEvents.Autogen.cs")
    if not (os.path.isfile(snap) and os.path.isfile(gen)):
        print("SKIP DemoFile.Net comparison for %s: %s absent (run sh tests/fetch_demofile_net.sh)"
              % (os.path.basename(d), snap))
        continue
    p = subprocess.run([sys.executable, os.path.join(TESTS, "live_dfn_compare.py"), ZDEM, d, snap, gen],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print("%s against DemoFile.Net @ %s:\n  %s" % (os.path.basename(d), commit[:7],
                                                   p.stdout.strip().replace("\n", "\n  ")))
    check(p.returncode == 0, "%s: DemoFile.Net's snapshot differs" % os.path.basename(d))

# ---- damage ---------------------------------------------------------------------------
def copy(src, name):
    dst = os.path.join(TMP, name)
    shutil.copytree(src, dst)
    for root, dirs, files in os.walk(dst):
        os.chmod(root, 0o755)
        for f in files:
            os.chmod(os.path.join(root, f), 0o644)
    return dst


def records(data):
    """(offset, tick, end) of each record of a fragment."""
    out, p = [], 0
    while p < len(data):
        start, cmd, s = p, 0, 0
        while True:
            c = data[p]
            p += 1
            cmd |= (c & 0x7F) << s
            s += 7
            if c < 0x80:
                break
        tick = int.from_bytes(data[p:p + 4], "little")
        p += 5
        if cmd == 0:
            break
        size = int.from_bytes(data[p:p + 4], "little")
        p += 4 + size
        out.append((start, tick, p))
    return out


ERR = re.compile(r"^zdem: (.*): offset (\d+) \(fragment (\d+)/(\w+), byte (\d+)\): (.+)$")
whole = run("events", "--json", ONE)[1].splitlines()
ticks_of = [json.loads(l)["tick"] for l in whole]


def damaged(name, frag, mutate, want_msg, rest_from=None):
    d = copy(ONE, name)
    p = os.path.join(d, frag)
    data = open(p, "rb").read()
    cut_at, new = mutate(data)
    open(p, "wb").write(new)
    rc, out, err = run("events", "--json", d)
    lines = out.splitlines()
    last = err.splitlines()[-1] if err.strip() else ""
    m = ERR.match(last)
    fnum, fkind = frag.split("/")[0], frag.split("/")[1].split(".")[0]
    check(rc == 2, "%s: exit %d, want 2" % (name, rc))
    check(m and m.group(6).startswith(want_msg) and (m.group(3), m.group(4)) == (fnum, fkind) and
          int(m.group(5)) == cut_at,
          "%s: last stderr line names fragment %s/%s byte %d and %r (%r)" % (name, fnum, fkind, cut_at, want_msg, last))
    # everything before the damaged record, as the intact reading has it
    rec_ticks = [t for _, t, _ in records(data)]
    bad_tick = next(t for o, t, e in records(data) if o <= cut_at < e) if cut_at < len(data) else None
    before = [l for l, t in zip(whole, ticks_of) if bad_tick is None or t < bad_tick]
    check(lines[:len(before)] == before, "%s: the %d lines before the damage are the intact ones" % (name, len(before)))
    if rest_from is not None:
        after = [l for l, t in zip(whole, ticks_of) if t >= rest_from]
        check(lines[len(lines) - len(after):] == after and after,
              "%s: the %d lines of the fragments after it still come" % (name, len(after)))
    return lines


one_recs = {f: records(open(os.path.join(ONE, f), "rb").read()) for f in ("25/delta.bin", "26/delta.bin", "27/delta.bin")}
# a fragment cut inside a record: that record is lost, the next fragment read
mid = one_recs["25/delta.bin"][30]
damaged("cut-record", "25/delta.bin", lambda d: (mid[0], d[:mid[0] + 20]),
        "broadcast fragment ends inside a record", rest_from=one_recs["26/delta.bin"][0][1])
# a bad varint in a record header: the rest of that fragment is lost
rec = one_recs["26/delta.bin"][20]
damaged("bad-varint", "26/delta.bin", lambda d: (rec[0], d[:rec[0]] + b"\xff" * 6 + d[rec[0] + 6:]),
        "bad varint in broadcast record command", rest_from=one_recs["27/delta.bin"][0][1])
# a missing fragment: the broadcast so far, then its end is missing
d = copy(ONE, "missing")
os.remove(os.path.join(d, "28", "delta.bin"))
rc, out, err = run("events", "--json", d)
first28 = records(open(os.path.join(ONE, "28/delta.bin"), "rb").read())[0][1]
check(rc == 2 and "no fragment 28/delta" in err and "no end fragment" in err.splitlines()[-1] and
      out.splitlines() == [l for l, t in zip(whole, ticks_of) if t < first28],
      "missing fragment: the lines before it, exit 2 naming it (exit %d, %r)" % (rc, err[-300:]))
# an endless fragment (2 MiB of empty DEM_SpawnGroups records): the limit
# stops the run, reported at the fragment's byte where it was reached
d = copy(ONE, "endless")
open(os.path.join(d, "23", "delta.bin"), "wb").write((b"\x0f" + bytes(9)) * 209716)
first23 = records(open(os.path.join(ONE, "23/delta.bin"), "rb").read())[0][1]
rc, out, err = run("events", "--json", "--max-fragment", "1", d)
m = ERR.match(err.splitlines()[-1]) if err.strip() else None
check(rc == 2 and m and m.group(6).startswith("broadcast fragment larger than the limit") and
      (m.group(3), m.group(4), m.group(5)) == ("23", "delta", str(1 << 20)) and
      out.splitlines() == [l for l, t in zip(whole, ticks_of) if t < first23],
      "--max-fragment 1 on a 2 MiB fragment: the lines before it, exit 2 naming the limit (exit %d, %r)" % (rc, err[-300:]))
# a bad sync
for text, want in ((b"not json", "sync: not a JSON object"),
                   (b'{"fragment":22,"protocol":6}', "sync: broadcast protocol is not 5"),
                   (b'{"tick":1}', "sync: no \"fragment\""),
                   (b'{"fragment":"22"}', "sync: an integer member is not an integer")):
    d = copy(ONE, "sync-%d" % len(text))
    open(os.path.join(d, "sync.json"), "wb").write(text)
    rc, out, err = run("events", "--json", d)
    check(rc == 2 and not out and want in err, "sync %r: exit 2 and %r (exit %d, %r)" % (text, want, rc, err))

# ---- URLs without libcurl, usage -----------------------------------------------------
env = dict(os.environ, ZDEM_LIBCURL="/nonexistent/libcurl.so.4")
rc, out, err = run("events", "--json", "http://127.0.0.1:9/bc", env=env)
check(rc == 2 and "URLs need libcurl" in err, "a URL without libcurl: exit 2, 'URLs need libcurl' (exit %d, %r)" % (rc, err))
for args in (["dump", ONE], ["events", "--small", ONE]):
    rc, out, err = run(*args)
    check(rc == 1 and "a broadcast is read by" in err, "%s: a usage error (exit %d, %r)" % (" ".join(args), rc, err))

shutil.rmtree(TMP)
print("test_live_broadcast: %d passed, %d failed" % (passed, len(fails)))
sys.exit(1 if fails else 0)
EOF
