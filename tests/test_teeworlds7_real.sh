#!/bin/bash
# Teeworlds 0.7 on real recordings, where tests/fetch_tw07.py has fetched
# them into tests/tw07-demos/ (or $ZDEM_TW07_DEMOS); without them it says
# SKIP and passes (CI has no network: test_teeworlds7_craft.sh runs there).
# Five client recordings of ChillerDragon/teeworlds-traffic-dumps: four of
# the Teeworlds 0.7.5 client (TWDEMO v4), one of DDNet 19.6 on 0.7 (v6), each
# with the server's log of the same session. For each:
#  - fetch_tw07.py --check: the files are the ones recorded (size, SHA-256);
#  - every command exits 0: info (text, --json, --small), dump, events,
#    ticks, props, map, and from standard input;
#  - every snapshot zdem rebuilds (tests/tw_snapdump, whole file and push)
#    equals the independent decoder's (tests/tw07_ref.py), item by item;
#    no item or message outside the 0.7 schema's sizes and ranges;
#  - events --json equals the reference's, byte for byte;
#  - against the server's log of the session (the lines from the header's
#    timestamp to its end): the players (client id and name, team) are the
#    ones the server had in the game, every chat line the server logged
#    (mode, client id, name, text) and every kill (killer, victim, weapon,
#    special; not the recording client's own on leaving, after the demo
#    ended) are in the demo; the written map hashes to the SHA-256 and CRC
#    the server logged for its map.
set -u
SRC=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
DIR=${ZDEM_TW07_DEMOS:-$SRC/tests/tw07-demos}
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
if ! ls "$DIR"/*.demo >/dev/null 2>&1; then
    echo "SKIP: no 0.7 demos in $DIR (tests/fetch_tw07.py fetches them)"
    exit 0
fi
"$PY" "$SRC/tests/fetch_tw07.py" --check --dest "$DIR" || { echo "FAIL: the 0.7 demos differ from the recorded ones"; exit 1; }
exec "$PY" - "$ZDEM_BIN" "${ZDEM_BUILD_DIR:-}" "$SRC/tests" "$DIR" <<'EOF'
import datetime, glob, hashlib, json, os, re, subprocess, sys, zlib

ZDEM, BUILD, HERE, DIR = sys.argv[1:5]
sys.path.insert(0, HERE)
import zdem_cli_test as T
from zdem_cli_test import check, run, TMP
T.ZDEM = ZDEM
SNAPDUMP = os.path.join(BUILD, "tests", "tw_snapdump")
REF = os.path.join(HERE, "tw07_ref.py")


def py(*args):
    return subprocess.run([sys.executable] + list(args), capture_output=True, text=True).stdout


def log_lines(path, start, end):
    """(time, text) of a server log's lines from start to end (vanilla:
    "[Y-m-d H:M:S][sys]: text", DDNet: "Y-m-d H:M:S I sys: text")."""
    out = []
    for l in open(path, encoding="utf-8"):
        m = re.match(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\]\[(\w+)\]: (.*)$", l) or \
            re.match(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) \w (\w+): (.*)$", l)
        if not m:
            continue
        t = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S")
        out.append((t, m.group(2), m.group(3)))
    return [x for x in out if start <= x[0] <= end], out


total = 0
for path in sorted(glob.glob(os.path.join(DIR, "*.demo"))):
    name = os.path.basename(path)
    log = path[:-len(".demo")] + ".server_log.txt"
    total += 1
    # every command
    for args in (["info"], ["info", "--json"], ["info", "--json", "--small"], ["dump"], ["dump", "--json"],
                 ["events", "--json"], ["events", "--format", "csv"], ["props"],
                 ["ticks", "--props", "x,y,health,armor,weapon,emote,triggered_events"],
                 ["ticks", "--class", "player", "--props", "player_flags,score,latency"],
                 ["ticks", "--class", "de_client_info", "--props", "local,team,name,clan,skin_part_names.0"],
                 ["map", "-o", os.path.join(TMP, "out.map")]):
        rc, out, err = run(args[:1] + [path] + args[1:])
        check(rc == 0 and err == "", "%s: %s exits 0 with nothing on stderr (%d %r)" % (name, args, rc, err[:200]))
    rc, info_out, _ = run(["info", "--json", path])
    info = json.loads(info_out)
    check(info["net_version"] == "0.7 802f1be60a05665f" and info["warnings"] == {} and info["error"] is None,
          "%s: a 0.7 demo, read with no warning (%r)" % (name, info["warnings"]))
    rc, small, _ = run(["info", "--json", "--small", path])
    check(small == info_out, "%s: --small gives the same info" % name)
    for args in (["info", "--json"], ["events", "--json"], ["dump", "--json"]):
        with open(path, "rb") as f:
            p = subprocess.run([ZDEM] + args + ["-"], stdin=f, capture_output=True, text=True)
        check(p.returncode == 0 and p.stdout == run(args + [path])[1], "%s: %s from standard input" % (name, args))
    # snapshots against the reference
    z = subprocess.run([SNAPDUMP, path], capture_output=True, text=True).stdout.splitlines()
    zp = subprocess.run([SNAPDUMP, path, "--push"], capture_output=True, text=True).stdout.splitlines()
    ref = py(REF, "--snapshots", path).splitlines()
    nsnap = sum(1 for l in ref if not l.startswith(" "))
    check(z[:-2] == ref and nsnap > 0, "%s: every rebuilt snapshot equals the reference's (%d)" % (name, nsnap))
    check(z[-2:] == ["end 0", "protocol 0.7 mismatches 0"], "%s: read to the end, nothing outside the schema (%r)"
          % (name, z[-2:]))
    check(zp == z, "%s: push input rebuilds the same snapshots" % name)
    rc, ev_out, _ = run(["events", "--json", path])
    check(ev_out == py(REF, "--events", path), "%s: events equal the reference's" % name)
    ev = [json.loads(l) for l in ev_out.splitlines()]
    # the server's log of the session
    start = datetime.datetime.strptime(info["timestamp"], "%Y-%m-%d_%H-%M-%S")
    end = start + datetime.timedelta(seconds=info["length"] + 1)
    window, whole = log_lines(log, start, end)
    present = {}  # the server's players up to the end of the session
    last_id = None
    for t, sysname, text in whole:
        if t > end:
            break
        m = re.match(r"team_join player='(\d+):(.*)' team=(-?\d+)$", text)
        if m:
            present[int(m.group(1))] = (m.group(2), int(m.group(3)))
        m = re.match(r"\*\*\* '(.*)' entered and joined the game$", text)
        if m and last_id is not None:
            present[last_id] = (m.group(1), 0)
        m = re.match(r"player has entered the game\. Client[Ii][Dd]=(\d+)", text)
        last_id = int(m.group(1)) if m else None
        m = re.match(r"leave player='(\d+):", text)
        if m and t < start:
            present.pop(int(m.group(1)), None)
    players = {p["slot"]: (p["name"], p["team"]) for p in info["players"]}
    check(players == present, "%s: players %r, the server's %r" % (name, players, present))
    local = [int(r["entity"]) for r in map(json.loads, run(["ticks", path, "--class", "de_client_info",
                                                            "--props", "local"])[1].splitlines()) if r["local"]]
    local = local[0] if local else None
    chats = []
    kills = []
    for t, sysname, text in window:
        m = re.match(r"(\d+):(-?\d+):(.*?): (.*)$", text) if sysname == "chat" else None
        if m:
            chats.append((int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)))
        m = re.match(r"kill killer='(-?\d+):(?:-?\d+:)?(.*)' victim='(\d+):(?:-?\d+:)?(.*)' weapon=(-?\d+) special=(-?\d+)$",
                     text)
        if m and int(m.group(3)) != local:  # the recorder's own leaving comes after its demo
            kills.append((int(m.group(1)), m.group(2), int(m.group(3)), m.group(4), int(m.group(5)), int(m.group(6))))
    demo_chat = [(e["mode"], e["client_id"], e.get("name"), e["text"]) for e in ev
                 if e["type"] == "chat" and e["client_id"] >= 0]
    demo_kills = [(e["killer"], e.get("killer_name"), e["victim"], e.get("victim_name"), e["weapon"], e["mode_special"])
                  for e in ev if e["type"] == "kill"]
    check(demo_chat == chats, "%s: player chat %r, the server's %r" % (name, demo_chat, chats))
    check(demo_kills == kills, "%s: kills %r, the server's %r" % (name, demo_kills, kills))
    # the map, against what the server logged for it
    logged = {}
    for t, sysname, text in whole:
        m = re.match(r"maps/(.*)\.map (sha256|crc) is (\w+)$", text)
        if m and m.group(1) == info["map_name"]:
            logged[m.group(2)] = m.group(3)
    data = open(os.path.join(TMP, "out.map"), "rb").read() if run(["map", path, "-o", os.path.join(TMP, "out.map")])[0] == 0 else b""
    if logged:
        check(hashlib.sha256(data).hexdigest() == logged["sha256"] and "%08x" % zlib.crc32(data) == logged["crc"],
              "%s: the map hashes to the server's SHA-256 and CRC" % name)
    check(info["map_crc_ok"] is True, "%s: map CRC32 as the header says" % name)
    print("ok %s: %d snapshots equal the reference, %d events, players %s, %d chat lines and %d kills as the "
          "server logged%s" % (name, nsnap, len(ev), sorted(players.values()), len(chats), len(kills),
                               ", map hashes as logged" if logged else ""))
check(total >= 5, "five 0.7 demos (%d)" % total)
sys.exit(T.finish())
EOF
