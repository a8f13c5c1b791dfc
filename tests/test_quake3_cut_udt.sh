#!/bin/bash
# Quake III clips (`zdem cut`) read by UberDemoTools, an independent
# reader and cutter built from source into the git-ignored bench/peers/
# (UDT_json, UDT_cutter; ZDEM_UDT_JSON / ZDEM_UDT_CUTTER point elsewhere).
# Without them the test says so and passes (the round trip,
# test_quake3_cut, runs everywhere).
#  - UDT_json reads every clip: for every demo it reads, the whole file
#    and five seeded random ranges. Each clip's game states have the
#    original's recording client and name, map and game type, players
#    (client numbers) among the original's, and the clip's first and last server
#    times; its obituaries and chat over the clip's span (first snapshot
#    excluded, where the clip fires the event entities it starts with:
#    there the original's obituaries are among the clip's) are the
#    original's of the same game state and times.
#  - UDT_cutter over a range of whole seconds: its clip and ours hold the
#    same obituaries and chat from its first snapshot (it starts one
#    snapshot later) to the end.
set -u
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
SRC=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
UDT=${ZDEM_UDT_JSON:-$SRC/bench/peers/UDT_json}
CUTTER=${ZDEM_UDT_CUTTER:-$SRC/bench/peers/UDT_cutter}
if [ ! -x "$UDT" ]; then
    echo "SKIP: UberDemoTools' UDT_json not built at $UDT (build it into bench/peers/, see bench/bench_quake3_udt.py)"
    exit 0
fi
exec "$PY" - "$ZDEM_BIN" "$ZDEM_CORPUS" "$UDT" "$CUTTER" <<'EOF'
import glob, json, os, random, re, shutil, subprocess, sys, tempfile

ZDEM, CORPUS, UDT, CUTTER = sys.argv[1:5]
tmp = tempfile.mkdtemp()
fails = 0
clips = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL: " + msg)


def udt_json(path):
    r = subprocess.run([UDT, "-c", "-q", "-a=gmd", path], capture_output=True, text=True)
    try:
        return json.loads(r.stdout)
    except ValueError:
        return None


def cut(path, ext, args):
    out = os.path.join(tmp, "clip" + ext)
    r = subprocess.run([ZDEM, "cut", path, "-o", out, "--json"] + args, capture_output=True, text=True)
    lines = r.stdout.strip().splitlines()
    return out, (json.loads(lines[-1]) if lines else {}), r.returncode


def by_gamestate(j, key):
    out = {}
    for d in j.get(key, []):
        out.setdefault(d["gameStateNumber"], []).append(d)
    return out


def obit(d):
    return (d["serverTime"], d.get("attackerClientNumber"), d.get("targetClientNumber"),
            d.get("causeOfDeath"))


def chat(d):
    return (d["serverTime"], d.get("clientNumber"), d.get("cleanMessage", d.get("message")))


def gamestate_of(j, t, after=0):
    """The first of the original's game states (from `after` on, 0-based)
    whose span holds server time t."""
    for i, g in enumerate(j["gameStates"]):
        if i >= after and g["startTime"] <= t <= g["endTime"]:
            return i
    return None


def compare(name, orig, clip, info):
    """The clip's game states against the original's, in order, from the
    one its first snapshot is in."""
    t0, t1 = info["first_server_time"], info["last_server_time"]
    g0 = gamestate_of(orig, t0)
    if g0 is None:
        return fail("%s: no game state of the original holds %d" % (name, t0))
    cg = clip["gameStates"]
    if cg[0]["startTime"] != t0 or cg[-1]["endTime"] != t1:
        fail("%s: UDT sees the clip from %d to %d, zdem wrote %d .. %d"
             % (name, cg[0]["startTime"], cg[-1]["endTime"], t0, t1))
    oo, co = by_gamestate(orig, "obituaries"), by_gamestate(clip, "obituaries")
    oc, cc = by_gamestate(orig, "chat"), by_gamestate(clip, "chat")
    for k, c in enumerate(cg):
        g = g0 + k
        if g >= len(orig["gameStates"]):
            return fail("%s: the clip has more game states than the original" % name)
        o = orig["gameStates"][g]
        lo, hi = c["startTime"], c["endTime"]
        for key in ("demoTakerClientNumber", "demoTakerCleanName"):
            if o.get(key) != c.get(key):
                fail("%s: game state %d: %s %r, original %r" % (name, k, key, c.get(key), o.get(key)))
        for key in ("mapname", "g_gametype", "gamename"):
            if o["configStringValues"].get(key) != c["configStringValues"].get(key):
                fail("%s: game state %d: %s %r, original %r" % (name, k, key,
                     c["configStringValues"].get(key), o["configStringValues"].get(key)))
        # by client number: UDT lists a player by the first name it saw
        players = {p["clientNumber"] for p in o.get("players", [])}
        for p in c.get("players", []):
            if p["clientNumber"] not in players:
                fail("%s: game state %d: player %r not in the original's" % (name, k, p))
        want = sorted(obit(d) for d in oo.get(g + 1, []) if lo < d["serverTime"] <= hi)
        got = sorted(obit(d) for d in co.get(k + 1, []) if d["serverTime"] > lo)
        if want != got:
            fail("%s: game state %d: obituaries %r, original %r" % (name, k, got[:4], want[:4]))
        first = {obit(d) for d in co.get(k + 1, []) if d["serverTime"] == lo}
        for d in oo.get(g + 1, []):
            if d["serverTime"] == lo and obit(d) not in first:
                fail("%s: game state %d: obituary %r of the first snapshot missing" % (name, k, obit(d)))
        want = sorted(chat(d) for d in oc.get(g + 1, []) if lo < d["serverTime"] <= hi)
        got = sorted(chat(d) for d in cc.get(k + 1, []) if d["serverTime"] > lo)
        if want != got:
            fail("%s: game state %d: chat %r, original %r" % (name, k, got[:4], want[:4]))


demos = sorted(f for f in glob.glob(os.path.join(CORPUS, "q3", "*"))
               if re.search(r"\.dm(3|_48|_6[678]|_73|_9[01])$", f))
cutter_checked = 0
for path in demos:
    name = os.path.basename(path)
    ext = os.path.splitext(path)[1]
    orig = udt_json(path)
    if not orig or not orig.get("gameStates"):
        print("%s: UDT_json does not read the original: skipped" % name)
        continue
    rnd = random.Random(name)
    ranges = [[]]
    for _ in range(5):
        g = rnd.choice(orig["gameStates"])
        a = rnd.randint(g["startTime"], g["endTime"])
        b = rnd.randint(a, min(g["endTime"], a + 120000))
        ranges.append(["--start", str(a), "--end", str(b)])
    for args in ranges:
        out, info, rc = cut(path, ext, args)
        if not info.get("first_server_time"):
            continue
        clips += 1
        clip = udt_json(out)
        if not clip or not clip.get("gameStates"):
            fail("%s %s: UDT_json cannot read the clip" % (name, " ".join(args)))
            continue
        compare("%s %s" % (name, " ".join(args) or "(whole)"), orig, clip, info)
    # UberDemoTools' own cutter over whole seconds of the first game state
    if os.access(CUTTER, os.X_OK):
        g = orig["gameStates"][0]
        s = (g["startTime"] + 999) // 1000 + rnd.randint(0, 20)
        e = min(s + rnd.randint(5, 60), g["endTime"] // 1000)
        if e <= s:
            continue
        d = os.path.join(tmp, "udtcut")
        shutil.rmtree(d, ignore_errors=True)
        os.mkdir(d)
        subprocess.run([CUTTER, "t", "-s=%d" % s, "-e=%d" % e, "-o=" + d, path],
                       capture_output=True, text=True)
        theirs = glob.glob(os.path.join(d, "*"))
        if len(theirs) != 1:
            print("%s: UDT_cutter wrote no clip of %d..%d s: skipped" % (name, s, e))
            continue
        out, info, rc = cut(path, ext, ["--start", str(s * 1000), "--end", str(e * 1000)])
        a, b = udt_json(theirs[0]), udt_json(out)
        if not a or not b or not a.get("gameStates") or not b.get("gameStates"):
            fail("%s: UDT_json cannot read a clip of %d..%d s" % (name, s, e))
            continue
        lo = a["gameStates"][0]["startTime"]  # UDT's clip starts one snapshot later
        hi = a["gameStates"][-1]["endTime"]
        for key, f in (("obituaries", obit), ("chat", chat)):
            x = sorted(f(v) for v in a.get(key, []) if lo < v["serverTime"] <= hi)
            y = sorted(f(v) for v in b.get(key, []) if lo < v["serverTime"] <= hi)
            if x != y:
                fail("%s %d..%d s: %s of UDT_cutter's clip %r, zdem's %r" % (name, s, e, key, x[:4], y[:4]))
        if b["gameStates"][-1]["endTime"] != hi:
            fail("%s %d..%d s: UDT_cutter's clip ends at %d, zdem's at %d"
                 % (name, s, e, hi, b["gameStates"][-1]["endTime"]))
        cutter_checked += 1

shutil.rmtree(tmp, ignore_errors=True)
print("%d demos, %d clips read by UDT_json, %d compared with UDT_cutter's" % (len(demos), clips, cutter_checked))
if clips < 5 * len(demos):
    fail("only %d clips" % clips)
print("FAILED: %d" % fails if fails else "ok")
sys.exit(1 if fails else 0)
EOF
