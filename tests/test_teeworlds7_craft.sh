#!/bin/bash
# Teeworlds 0.7 on crafted demos (tests/tw07craft.py writes them with every
# value known: CI has no network for the real ones, test_teeworlds7_real.sh):
# TWDEMO v4 (as Teeworlds 0.7.5 writes), v5 and v6 with DDNet's SHA-256
# extension and its recorded client messages. For each:
#  - every snapshot zdem rebuilds (tests/tw_snapdump, whole file and push
#    input in 509-byte pieces) equals the writer's model and the
#    independent reader's (tests/tw07_ref.py), item by item; no mismatch;
#  - events --json equals the writer's lines and the reference's;
#  - info --json: header facts, chunk counts, chat and kill counts, players
#    (name, clan, team, country, skin parts) as written; --small the same;
#    standard input the same as the file;
#  - ticks --class character with 0.7 field names: the writer's rows;
#    props lists 0.7's objects; a 0.6-only object is an unknown name;
#  - dump --type with 0.7 message names; events --name team,join,leave.
# An unknown net version: "0.7 <other hash>" is read as 0.7 and reported
# once; a 0.7 demo under an unrelated net version is read with the 0.6
# table: the sizes its full snapshots carry keep the deltas going (the
# rebuilt snapshots still equal the reference's) and every item whose size
# contradicts the 0.6 table is counted (libtw2's 0.6 sizes); a 0.6 demo
# with an unknown hash gets the warning and no mismatch.
set -u
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
exec "$PY" - "$ZDEM_BIN" "${ZDEM_BUILD_DIR:-}" "$(cd "$(dirname "$0")" && pwd)" <<'EOF'
import json, os, subprocess, sys

ZDEM, BUILD, HERE = sys.argv[1:4]
sys.path.insert(0, HERE)
import zdem_cli_test as T
import tw07craft, twcraft, tw_snapshot_ref
from zdem_cli_test import check, run, write, TMP
T.ZDEM = ZDEM
SNAPDUMP = os.path.join(BUILD, "tests", "tw_snapdump")
PY = sys.executable
REF = os.path.join(HERE, "tw07_ref.py")


def py(*args):
    return subprocess.run([PY] + list(args), capture_output=True, text=True).stdout


def snapdump(path, *extra):
    out = subprocess.run([SNAPDUMP, path] + list(extra), capture_output=True, text=True).stdout
    lines = out.splitlines()
    return lines[:-2], lines[-2:]


def craft(name, **kw):
    data, facts = tw07craft.build(**kw)
    return write(name, data), facts


def variant(name, **kw):
    path, facts = craft(name + ".demo", **kw)
    want_snaps = facts["snapshots"]
    # snapshots: zdem (whole file, push) = writer = reference
    got, tail = snapdump(path)
    check(got == want_snaps, "%s: every rebuilt snapshot equals the writer's (%d lines, first difference %r)"
          % (name, len(want_snaps), next(((a, b) for a, b in zip(got, want_snaps) if a != b), None)))
    check(tail == ["end 0", "protocol 0.7 mismatches 0"], "%s: read to the end, 0.7, no mismatch (%r)" % (name, tail))
    gotp, tailp = snapdump(path, "--push")
    check(gotp == got and tailp == tail, "%s: push input rebuilds the same snapshots" % name)
    ref = py(REF, "--snapshots", path).splitlines()
    check(ref == want_snaps, "%s: the reference decoder rebuilds the writer's snapshots" % name)
    n = sum(1 for l in want_snaps if not l.startswith(" "))
    print("%s: %d snapshots equal item by item (zdem, push, reference, writer)" % (name, n))
    # events
    rc, out, err = run(["events", "--json", path])
    ev = [json.loads(l) for l in out.splitlines()]
    check(rc == 0 and err == "", "%s: events exit 0, no stderr (%r)" % (name, err))
    check(ev == facts["events"], "%s: events equal the writer's lines:\n  %r\n  %r" % (name, ev, facts["events"]))
    check(out == py(REF, "--events", path), "%s: events equal the reference's, byte for byte" % name)
    kinds = sorted(set(e["type"] for e in ev))
    check(kinds == ["broadcast", "chat", "emoticon", "join", "kill", "leave", "motd", "team", "vote"],
          "%s: every events type (%s)" % (name, kinds))
    rc, out, _ = run(["events", "--json", "--name", "team,join,leave", path])
    check([json.loads(l) for l in out.splitlines()] == [e for e in ev if e["type"] in ("team", "join", "leave")],
          "%s: events --name team,join,leave" % name)
    # info
    rc, out, err = run(["info", "--json", path])
    info = json.loads(out)
    check(rc == 0 and info["error"] is None and info["warnings"] == {},
          "%s: info exit 0, no warning (%r)" % (name, info.get("warnings")))
    for k, v in facts["info"].items():
        check(info.get(k) == v, "%s: info %s: %r, written %r" % (name, k, info.get(k), v))
    check(info["map_crc_ok"] is True and info["map_sha256_ok"] is (True if kw.get("version") == 6 else None),
          "%s: map checks" % name)
    rc, small, _ = run(["info", "--json", "--small", path])
    check(small == out, "%s: --small: the same info" % name)
    rc, small_ev, _ = run(["events", "--json", "--small", path])
    check(rc == 0 and small_ev == run(["events", "--json", path])[1], "%s: --small: the same events" % name)
    for args in (["info", "--json"], ["events", "--json"], ["dump", "--json"]):
        p = subprocess.run(["sh", "-c", '"$0" "$@" - < "$1"'.replace('"$1"', '"%s"' % path), ZDEM] + args,
                           capture_output=True, text=True)
        rc2, whole, _ = run(args + [path])
        check(p.returncode == rc2 and p.stdout == whole, "%s: %s from standard input = from the file" % (name, args))
    # ticks with 0.7 field names
    props = ["x", "y", "health", "armor", "weapon", "triggered_events"]
    rc, out, err = run(["ticks", path, "--class", "character", "--props", ",".join(props), "--format", "csv"])
    lines = out.splitlines()
    check(rc == 0 and lines[0] == "tick,entity," + ",".join(props), "%s: ticks header (%r %r)" % (name, lines[:1], err))
    rows = sorted(tuple(int(x) for x in l.split(",")) for l in lines[1:])
    want = sorted(tuple(r[k] for k in ["tick", "entity"] + props) for r in facts["characters"])
    check(rows == want, "%s: ticks --class character: the writer's %d rows (got %d)" % (name, len(want), len(rows)))
    rc, out, _ = run(["ticks", path, "--class", "de_client_info", "--props", "name,team,skin_part_names.1,country"])
    got = sorted(set((r["entity"], r["name"], r["team"], r["skin_part_names.1"], r["country"])
                     for r in map(json.loads, out.splitlines())))
    names = set((p["slot"], p["name"], p["skin"][1], p["country"]) for p in facts["info"]["players"])
    check(set((a, b, d, e) for a, b, c, d, e in got) == names, "%s: ticks --class de_client_info: %r" % (name, got))
    rc, out, _ = run(["props", "--format", "csv", path])
    classes = set(l.split(",")[0] for l in out.splitlines()[1:])
    check({"de_client_info", "game_data_flag", "event_damage", "game_data_race", "ddnet_character"} <= classes
          and "client_info" not in classes, "%s: props lists 0.7's objects (%s)" % (name, sorted(classes)))
    rc, out, err = run(["ticks", path, "--class", "client_info", "--props", "name"])
    check(rc == 1 and out == "" and "unknown snapshot object 'client_info'" in err and "de_client_info" in err,
          "%s: a 0.6 object is unknown in a 0.7 demo (%s)" % (name, err.strip()))
    with open(path, "rb") as f:  # standard input: checked once the header names the protocol
        p = subprocess.run([ZDEM, "ticks", "-", "--class", "client_info", "--props", "name"], stdin=f,
                           capture_output=True, text=True)
    check(p.returncode == 1 and p.stdout == "" and "unknown snapshot object 'client_info'" in p.stderr,
          "%s: standard input: a 0.6 object is unknown (%s)" % (name, p.stderr.strip()))
    # dump with 0.7 message names
    msg = "sv_client_info" if kw.get("ddnet") else "de_client_enter"
    rc, out, err = run(["dump", "--json", "--type", msg, path])
    d = [json.loads(l) for l in out.splitlines()]
    check(rc == 0 and len(d) == 1 and d[0]["name"] == msg and d[0]["tick"] == 1150,
          "%s: dump --type %s (%r %r)" % (name, msg, d, err))
    return path, facts


for v, kw in (("v4", {"version": 4}), ("v5", {"version": 5}), ("v6-ddnet", {"version": 6, "ddnet": True})):
    variant("craft7-" + v, **kw)

# an unknown net version of the 0.7 family: read as 0.7, reported once
path, facts = craft("other07.demo", net_version="0.7 0123456789abcdef")
rc, out, err = run(["info", "--json", path])
info = json.loads(out)
check(rc == 0 and info["warnings"] == {"net version not known (read as the 0.7 protocol)": 1},
      "0.7 with another hash: one warning (%r)" % info["warnings"])
check(info["players"] == facts["info"]["players"], "0.7 with another hash: the players")
rc, out, err = run(["events", "--json", path])
check(rc == 0 and err == "zdem: %s: warning: net version '0.7 0123456789abcdef' not known: read as the 0.7 "
      "protocol\n" % path, "0.7 with another hash: events says it once on stderr (%r)" % err)
rc, out, _ = run(["events", "--json", path])
check([json.loads(l) for l in out.splitlines()] == facts["events"], "0.7 with another hash: the events")

# a 0.7 demo under an unrelated net version: read with the 0.6 table
types = list(range(1, 17)) + [23, 24, tw07craft.UNKNOWN_TYPE, tw07craft.EXT_TYPE]
path, facts = craft("guess06.demo", net_version="craft 1.0", types=types)
got, tail = snapdump(path)
check(got == facts["snapshots"], "0.7 read with the 0.6 table: every snapshot still equals the writer's")
sizes06 = tw_snapshot_ref.STATIC_SIZES  # libtw2's 0.6 table
want_mismatch = 0
for l in facts["snapshots"]:
    if l.startswith(" "):
        continue
    head = l.split()
    if head[2] == "snapshot":
        idx = facts["snapshots"].index(l)
        for item in facts["snapshots"][idx + 1:idx + 1 + int(head[3])]:
            t = int(item.split()[0].split(":")[0])
            if t in sizes06 and sizes06[t] != len(item.split()) - 1:
                want_mismatch += 1
check(want_mismatch > 0 and tail == ["end 0", "protocol 0.6 (guessed) mismatches %d" % want_mismatch],
      "0.7 read with the 0.6 table: read to the end, %d items against the 0.6 sizes (%r)" % (want_mismatch, tail))
rc, out, _ = run(["info", "--json", path])
info = json.loads(out)
check(rc == 0 and info["warnings"] == {"net version not known (read as the 0.6 protocol)": 1,
                                       "snapshot items or messages that do not fit the protocol": want_mismatch},
      "0.7 read with the 0.6 table: info reports both (%r)" % info["warnings"])
print("0.7 demo under net version 'craft 1.0': read as 0.6 to the end, %d mismatches counted" % want_mismatch)

# values outside the 0.7 ranges: every item and message holding one counted
path, facts = craft("bad.demo", bad=True)
rc, out, _ = run(["info", "--json", path])
info = json.loads(out)
check(rc == 0 and facts["mismatches"] > 100 and
      info["warnings"] == {"snapshot items or messages that do not fit the protocol": facts["mismatches"]},
      "out of range: %d items and messages counted (%r)" % (facts["mismatches"], info["warnings"]))
rc, out, err = run(["dump", path])
first = next(l for l in out.splitlines() if " snapshot " in l).split()[1]  # the first full snapshot's offset
check(rc == 0 and err == "zdem: %s: offset %s: warning: %d snapshot items or messages that do not fit the 0.7 "
      "protocol (the first: a snapshot item)\n" % (path, first, facts["mismatches"]),
      "out of range: one stderr line with the count and the first chunk (%r)" % err)
check(info["chat"] == facts["info"]["chat"] + 1, "out of range: the chat message is still counted")

# a 0.6 demo with an unknown hash: the warning, no mismatch
d6 = twcraft.Demo(net_version=b"0.6 0000000000000000")
d6.tick_marker(50, keyframe=True)
d6.full_snapshot([((9 << 16) | 0, list(range(22))), ((11 << 16) | 0, tw07craft.str_to_ints("old", 4) + [0] * 13)])
d6.tick_marker(51)
d6.delta(items=[(9, 0, [1] * 22)])
path = write("other06.demo", d6.finish())
rc, out, _ = run(["info", "--json", path])
info = json.loads(out)
check(rc == 0 and info["warnings"] == {"net version not known (read as the 0.6 protocol)": 1}
      and [p["name"] for p in info["players"]] == ["old"], "0.6 with another hash: one warning (%r)" % info["warnings"])

sys.exit(T.finish())
EOF
