#!/bin/bash
# zdem ticks for Quake III and Teeworlds against independent references:
#  - Quake III (ioquake3's msg.c driving a demo walk, peers/*.q3-ioq3ref.json):
#    one playerstate row per valid snapshot, first and last server time,
#    the recording client's number; one entity row per snapshot entity
#    (entities_total) on a few files.
#  - Teeworlds (tests/tw_snapshot_ref.py, written from libtw2's docs): the
#    character rows of every snapshot are its character items (type 9), by
#    tick and id; the client_info names at the last snapshot are its names.
# Also: --format csv, --ticks/--every and the damage contract (rows, then
# "zdem: FILE: offset N: ...", exit 2) on cut files.
set -u
PY=${ZDEM_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
exec "$PY" - "$ZDEM_BIN" "$ZDEM_CORPUS" "$(cd "$(dirname "$0")" && pwd)" <<'EOF'
import collections, csv, glob, io, json, os, re, subprocess, sys
sys.path.insert(0, sys.argv[3])
import zdem_cli_test as T

T.ZDEM, CORPUS, TESTS = sys.argv[1], sys.argv[2], sys.argv[3]

# ---- Quake III
refs = sorted(glob.glob(os.path.join(CORPUS, "peers", "*.q3-ioq3ref.json")))
checked = 0
for ref_path in refs:
    ref = json.load(open(ref_path))
    name = os.path.basename(ref_path)[: -len(".q3-ioq3ref.json")]
    if ref.get("error") or not ref.get("valid_snapshots"):
        continue
    path = os.path.join(CORPUS, "q3", name)
    rc, out, err = T.run(["ticks", path, "--props", "commandTime,origin,viewangles.1", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(out)))
    T.check(rc == (2 if ref.get("truncated") else 0) and len(rows) == ref["valid_snapshots"],
            "%s: %d playerstate rows = %d valid snapshots (ioquake3)" % (name, len(rows), ref["valid_snapshots"]))
    if rows:
        T.check(int(rows[0]["server_time"]) == ref["first_server_time"] and
                int(rows[-1]["server_time"]) == ref["last_server_time"], "%s: first/last server time" % name)
        T.check(int(rows[-1]["entity"]) == ref["last_client_num"], "%s: the recording client's number" % name)
        T.check(list(rows[0].keys()) == ["server_time", "entity", "commandTime", "origin.0", "origin.1", "origin.2", "viewangles.1"],
                "%s: csv columns" % name)
    checked += 1
T.check(checked >= 20, "Quake III files compared: %d" % checked)
for name in ["q3-cpma_udt-core-gameplay-dev.dm_68", "q3_udt-one-frag-only-with-plasma.dm_68", "q3-cpma_udt-forfeit-neg-score.dm_68"]:
    ref = json.load(open(os.path.join(CORPUS, "peers", name + ".q3-ioq3ref.json")))
    rc, out, err = T.run(["ticks", os.path.join(CORPUS, "q3", name), "--class", "entity", "--props", "eType", "--format", "csv"])
    n = out.count("\n") - 1
    T.check(rc == 0 and n == ref["entities_total"], "%s: %d entity rows = ioquake3's entities_total %d" % (name, n, ref["entities_total"]))
# A6: the recording client of this file is number 11
rc, out, _ = T.run(["ticks", os.path.join(CORPUS, "q3", "q3-cpma_udt-record-client-number-11.dm_68"), "--props", "weapon", "--every", "1000"])
T.check(rc == 0 and out and {json.loads(l)["entity"] for l in out.splitlines()} == {11}, "record-client-number-11: entity 11")
path = os.path.join(CORPUS, "q3", "q3-cpma_udt-duel.dm_68")
rc, out, _ = T.run(["ticks", path, "--props", "stats.0", "--every", "100"])
T.check(rc == 0 and len(out.splitlines()) == (18606 + 99) // 100, "--every 100: every 100th snapshot")
rc, out, _ = T.run(["ticks", path, "--props", "stats.0", "--ticks", "911794,1525759"])
T.check(rc == 0 and [json.loads(l)["server_time"] for l in out.splitlines()] == [911794, 1525759], "--ticks are server times")
rc, out, err = T.run(["ticks", path, "--props", "nosuchfield"])
T.check(rc == 1 and out == "" and "unknown playerstate field 'nosuchfield'" in err, "unknown field: usage error naming it")
rc, out, err = T.run(["ticks", path, "--props", "commandTime,viewangle"])
T.check(rc == 1 and out == "" and "'viewangle'; did you mean 'viewangles'" in err, "viewangle: the closest field named (%s)" % err.strip())
rc, out, err = T.run(["ticks", path, "--class", "entity", "--props", "etype"])
T.check(rc == 1 and "unknown entity field 'etype'; did you mean 'eType'" in err, "entity field: case-insensitive closest")
rc, out, err = T.run(["ticks", path, "--class", "entty", "--props", "eType"])
T.check(rc == 1 and "unknown class 'entty'; did you mean 'entity'" in err, "Quake III --class: the closest class")
data = open(path, "rb").read()
cut = T.write("cut.dm_68", data[: len(data) // 2])
rc, out, err = T.run(["ticks", cut, "--props", "commandTime"])
T.check(rc == 2 and out and re.match(r"zdem: .*cut\.dm_68: offset \d+: ", err.strip().splitlines()[-1]),
        "Quake III cut: rows, then the error, exit 2")

# ---- Teeworlds
tw = sorted(glob.glob(os.path.join(CORPUS, "teeworlds", "*.demo")))
T.check(len(tw) >= 7, "Teeworlds corpus files")
for path in tw:
    name = os.path.basename(path)
    p = subprocess.run([sys.executable, os.path.join(TESTS, "tw_snapshot_ref.py"), "--items", path], capture_output=True, text=True)
    if not T.check(p.returncode == 0, "%s: reference decoder" % name):
        continue
    ref = collections.Counter()
    tick = None
    for line in p.stdout.splitlines():
        if not line.startswith(" "):
            tick = int(line.split()[1])
            continue
        for item in line.split():
            key = item.split("/")[0]
            typ, iid = key.split(":")
            if typ == "9":
                ref[(tick, int(iid))] += 1
    rc, out, err = T.run(["ticks", path, "--props", "x,y,health"])
    ours = collections.Counter((json.loads(l)["tick"], json.loads(l)["entity"]) for l in out.splitlines())
    T.check(rc == 0 and ours == ref and ref, "%s: character rows = the reference's character items (%d vs %d)"
            % (name, sum(ours.values()), sum(ref.values())))
    names = subprocess.run([sys.executable, os.path.join(TESTS, "tw_snapshot_ref.py"), "--names", path], capture_output=True, text=True).stdout
    refnames = {}
    for l in names.splitlines():
        cid, _, nm = l.partition(" ")
        refnames[int(cid)] = nm
    last = max(t for t, _ in ours) if ours else None
    rc, out, _ = T.run(["ticks", path, "--class", "client_info", "--props", "name", "--ticks", str(last)])
    got = {json.loads(l)["entity"]: json.loads(l)["name"] for l in out.splitlines()}
    T.check(got and all(refnames.get(k) == v for k, v in got.items()), "%s: client_info names = the reference's" % name)
path = os.path.join(CORPUS, "teeworlds", "ddnet_webviewer-goat-yeyou3.demo")
rc, out, err = T.run(["ticks", path, "--class", "player", "--props", "score,team", "--format", "csv", "--every", "1000"])
rows = list(csv.DictReader(io.StringIO(out)))
T.check(rc == 0 and rows and all(int(r["tick"]) % 1000 == 0 for r in rows) and list(rows[0].keys()) == ["tick", "entity", "score", "team"],
        "Teeworlds --class player --every 1000, csv")
rc, out, err = T.run(["ticks", path, "--props", "nosuch"])
T.check(rc == 1 and out == "" and "unknown field 'nosuch'" in err, "Teeworlds unknown field: usage error naming it")
rc, out, err = T.run(["ticks", path, "--props", "x,helth"])
T.check(rc == 1 and "unknown field 'helth'; did you mean 'health'?" in err, "Teeworlds: the closest field (%s)" % err.strip())
rc, out, err = T.run(["ticks", path, "--class", "charcter", "--props", "x"])
T.check(rc == 1 and "unknown snapshot object 'charcter'; did you mean 'character'" in err, "Teeworlds: the closest object")
data = open(path, "rb").read()
cut = T.write("cut.demo", data[: len(data) - 20000])  # past the embedded map
rc, out, err = T.run(["ticks", cut, "--props", "x"])
T.check(rc == 2 and out and re.match(r"zdem: .*cut\.demo: offset \d+", err.strip().splitlines()[-1]), "Teeworlds cut: rows, error, exit 2")
rc, out, err = T.run(["events", "--format", "csv", path])
rows = list(csv.DictReader(io.StringIO(out)))
chat = [r for r in rows if r["type"] == "chat"]
ref = json.load(open(os.path.join(CORPUS, "peers", "ddnet_webviewer-goat-yeyou3.demo.tw-ref.json")))
T.check([(int(r["time"]), json.loads(r["json"])["text"]) for r in chat] == [(c["tick"], c["text"]) for c in ref["chat"]],
        "Teeworlds events csv: the chat lines of the reference")
# ---- Quake III: a damaged message in the middle (issue 12) is skipped and
# the rows after it come; the rows are the intact file's snapshots that
# the delta rule keeps (as the dump of the damaged file lists them), and
# the verdict names the damaged message's bytes
import q3craft
src = os.path.join(CORPUS, "q3", "ql_udt-freeze-tag.dm_90")
data = open(src, "rb").read()
bad, off = q3craft.replace_message(data, 300, q3craft.unknown_command())
path = T.write("damaged.dm_90", bad)
rc, out, err = T.run(["ticks", path, "--props", "commandTime", "--format", "csv"])
rows = list(csv.DictReader(io.StringIO(out)))
_, dump, _ = T.run(["dump", "--json", path])
snaps = [json.loads(l) for l in dump.splitlines() if '"type":"snapshot"' in l]
_, full, _ = T.run(["ticks", src, "--props", "commandTime", "--format", "csv"])
full_rows = {(r["server_time"], r["commandTime"]) for r in csv.DictReader(io.StringIO(full))}
m = re.search(r"offset (\d+): ", err.splitlines()[-1] if err else "")
T.check(rc == 2 and m is not None and off < int(m.group(1)) < off + 64,
        "damaged freeze-tag: exit 2, the verdict in the damaged message (%r)" % err[-200:])
T.check(len(rows) == len(snaps) and len(rows) > 3000 and
        [int(r["server_time"]) for r in rows] == [s["server_time"] for s in snaps],
        "damaged freeze-tag: a row per kept snapshot after the skip (%d rows, %d snapshots)" % (len(rows), len(snaps)))
T.check(all((r["server_time"], r["commandTime"]) in full_rows for r in rows),
        "damaged freeze-tag: every row is the intact file's")

# ---- discovery (issue 21): props lists every name the checks above use
# (and ticks takes every name it lists); events --name and dump --type
# select by type, against the references' counts; unknown names fail
def props(path, *extra):
    rc, out, err = T.run(["props"] + list(extra) + [path])
    T.check(rc == 0, "props %s: exit 0 (%s)" % (os.path.basename(path), err[-200:]))
    return [json.loads(l) for l in out.splitlines()]
q3p = os.path.join(CORPUS, "q3", "q3-cpma_udt-duel.dm_68")
listed = {(p["class"], p["name"]) for p in props(q3p)}
used = [("player", n) for n in "commandTime origin viewangles.1 stats.0 weapon".split()] + [("entity", "eType")]
T.check(set(used) <= listed, "Quake III props lists %s" % (set(used) - listed))
for cls in ("player", "entity"):
    names = sorted(n for c, n in listed if c == cls)
    rc, out, err = T.run(["ticks", q3p, "--class", cls, "--props", ",".join(names[:64]), "--every", "5000"])
    rc2, _, _ = T.run(["ticks", q3p, "--class", cls, "--props", ",".join(names[64:128]), "--every", "5000"])
    T.check(rc == 0 and rc2 == 0 and out, "Quake III ticks takes the %s names props lists (%s)" % (cls, err[-200:]))
T.check({p["class"] for p in props(q3p, "--class", "entity")} == {"entity"}, "Quake III props --class entity")
rc, out, err = T.run(["props", "--class", "players", q3p])
T.check(rc == 1 and "'players'; did you mean 'player'" in err, "Quake III props: unknown class")
twp = os.path.join(CORPUS, "teeworlds", "ddnet_webviewer-goat-yeyou3.demo")
listed = {(p["class"], p["name"]) for p in props(twp)}
used = [("character", n) for n in ("x", "y", "health")] + [("player_info", "score"), ("player_info", "team"), ("client_info", "name")]
T.check(set(used) <= listed, "Teeworlds props lists %s" % (set(used) - listed))
for cls in sorted({c for c, _ in listed}):
    names = sorted(n for c, n in listed if c == cls)
    rc, out, err = T.run(["ticks", twp, "--class", cls, "--props", ",".join(names)])
    T.check(rc == 0, "Teeworlds ticks takes the %s fields props lists (%s)" % (cls, err[-200:]))
T.check({p["class"] for p in props(twp, "--class", "player")} == {"player_info"}, "Teeworlds props --class player: player_info")

ref = json.load(open(os.path.join(CORPUS, "peers", "q3-cpma_udt-duel.dm_68.q3-ref.json")))
rc, out, _ = T.run(["events", q3p])
every = [json.loads(l) for l in out.splitlines()]
rc, out, _ = T.run(["events", "--name", "obituary", q3p])
got = [json.loads(l) for l in out.splitlines()]
T.check(rc == 0 and len(got) == ref["obituary_count"] and got == [e for e in every if e["type"] == "obituary"],
        "Quake III events --name obituary: UberDemoTools' %d obituaries" % ref["obituary_count"])
rc, out, _ = T.run(["events", "--name", "chat,scores", q3p])
T.check(rc == 0 and [json.loads(l) for l in out.splitlines()] == [e for e in every if e["type"] in ("chat", "scores")],
        "Quake III events --name chat,scores")
rc, out, err = T.run(["events", "--name", "obituarys", q3p])
T.check(rc == 1 and out == "" and "unknown event 'obituarys'; did you mean 'obituary'" in err, "Quake III: unknown event name")
for typ, want in (("gamestate", ref["gamestates"]), ("message", ref["packets"])):
    rc, out, _ = T.run(["dump", "--json", "--type", typ, q3p])
    lines = [json.loads(l) for l in out.splitlines()]
    T.check(rc == 0 and len(lines) == want and all(l["type"] == typ for l in lines),
            "Quake III dump --type %s: %d lines (UberDemoTools: %d)" % (typ, len(lines), want))
rc, out, err = T.run(["dump", "--type", "snapshots", q3p])
T.check(rc == 1 and "did you mean 'snapshot'" in err, "Quake III dump: unknown type")

ref = json.load(open(os.path.join(CORPUS, "peers", "ddnet_webviewer-goat-yeyou3.demo.tw-ref.json")))
rc, out, _ = T.run(["events", "--name", "chat", twp])
got = [json.loads(l) for l in out.splitlines()]
T.check(rc == 0 and [(e["tick"], e["text"]) for e in got] == [(c["tick"], c["text"]) for c in ref["chat"]],
        "Teeworlds events --name chat: the reference's chat lines")
rc, out, _ = T.run(["events", "--name", "kill", twp])
T.check(rc == 0 and len(out.splitlines()) == ref["killmsg_count"], "Teeworlds events --name kill: the reference's %d" % ref["killmsg_count"])
rc, out, err = T.run(["events", "--name", "kills", twp])
T.check(rc == 1 and "did you mean 'kill'" in err, "Teeworlds: unknown event name")
for typ, want in (("sv_chat", ref["messages"]["game"]["3"]), ("sv_kill_msg", ref["killmsg_count"]),
                  ("message", ref["chunks"]["message"]), ("delta", ref["chunks"]["delta"]), ("3", ref["messages"]["game"]["3"])):
    rc, out, _ = T.run(["dump", "--type", typ, twp])
    T.check(rc == 0 and len(out.splitlines()) == want, "Teeworlds dump --type %s: %d lines (reference %d)" % (typ, len(out.splitlines()), want))
rc, out, err = T.run(["dump", "--type", "sv_chatt", twp])
T.check(rc == 1 and "did you mean 'sv_chat'" in err, "Teeworlds dump: unknown type")

sys.exit(T.finish())
EOF
