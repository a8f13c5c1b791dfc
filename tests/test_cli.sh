#!/usr/bin/env bash
# The zdem CLI's contract: --help everywhere, exit status 0/1/2, error lines
# of the form "zdem: FILE: offset N: ...", valid JSON, Source 2 info values
# against ../shared/corpus/EXPECTED.md (A1 last ticks, B1 header values).
set -u
BIN=${ZDEM_BIN:?}
C=${ZDEM_CORPUS:?}
PY=${ZDEM_PYTHON:-python3}
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
expect_rc() { local want=$1; shift; "$@" >/dev/null 2>&1; local rc=$?; [ $rc -eq $want ] && ok || bad "exit $rc, want $want: $*"; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# usage and help
expect_rc 0 "$BIN" --help
for c in $("$BIN" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\)  .*/\1/p'); do
    expect_rc 0 "$BIN" $c --help
    "$BIN" $c --help | grep -q "usage: zdem $c" && ok || bad "$c --help has no usage line"
done
# --help and the man page cannot drift: the commands `zdem --help` lists
# (under "commands:") are those of zdem.1's COMMANDS section, and every
# option named in `zdem --help` or a command's --help is named in zdem.1
# (before SEE ALSO) and the other way round; each is an option zdem takes
# (not "unknown option"). A new command or option goes into both.
MAN=${ZDEM_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}/tools/zdem.1
{ "$BIN" --help; for c in $("$BIN" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\)  .*/\1/p'); do
      echo "== $c"; "$BIN" $c --help; done; } > "$tmp/help.txt"
"$PY" - "$tmp/help.txt" "$MAN" "$BIN" <<'PYEOF' && ok || bad "zdem --help and zdem.1 differ"
import re, subprocess, sys
help_text = open(sys.argv[1]).read()
man = open(sys.argv[2]).read()
OPT = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])")
main = help_text.split("\n== ")[0]
block = main.split("\ncommands:\n", 1)[1].split("\n\n", 1)[0]
help_cmds = set(re.findall(r"^  ([a-z][a-z0-9-]*)  ", block, re.M))
sec = man.split("\n.SH COMMANDS\n", 1)[1].split("\n.SH ", 1)[0]
man_cmds = set()
for entry in ("\n" + sec).split("\n.TP\n")[1:]:
    first = entry.split("\n", 1)[0]
    man_cmds.add(re.sub(r'^\.[A-Z]+\s+"?', "", first).split()[0])
man_text = man.split("\n.SH SEE ALSO", 1)[0].replace("\\-", "-")  # not other tools' options
help_opts, man_opts = set(OPT.findall(help_text)), set(OPT.findall(man_text))
bad = []
if help_cmds != man_cmds:
    bad.append("commands: only in --help %s, only in zdem.1 %s"
               % (sorted(help_cmds - man_cmds), sorted(man_cmds - help_cmds)))
if help_opts != man_opts:
    bad.append("options: only in --help %s, only in zdem.1 %s"
               % (sorted(help_opts - man_opts), sorted(man_opts - help_opts)))
for o in sorted(help_opts | man_opts):
    errs = [subprocess.run(args, capture_output=True, text=True).stderr
            for args in ([sys.argv[3], o], [sys.argv[3], "info", o, "x.dem"])]
    if all("unknown option" in e or "unknown command" in e for e in errs):
        bad.append("%s is documented but zdem does not take it" % o)
print("help/man: %d commands, %d options" % (len(help_cmds), len(help_opts)))
if not help_cmds or not help_opts or bad:
    print("\n".join(bad))
    sys.exit(1)
PYEOF
expect_rc 1 "$BIN"
expect_rc 1 "$BIN" frobnicate x
expect_rc 1 "$BIN" info
expect_rc 1 "$BIN" info --bogus "$C/source2/dota2_haste-nekit-pov.dem"
expect_rc 1 "$BIN" dump --type
expect_rc 1 "$BIN" entities --tick abc x
expect_rc 2 "$BIN" info "$tmp/does-not-exist.dem"
# ticks has no small limits in any format: never read with other limits than asked
expect_rc 1 "$BIN" ticks --small --props x "$C/teeworlds/ddnet_demo-edit-clip-fng.demo"
expect_rc 1 "$BIN" ticks --small --props origin "$C/q3/q3-osp_udt-chat.dm_68"
expect_rc 0 "$BIN" events --small "$C/q3/q3-osp_udt-chat.dm_68"

# bad input: wrong magic, truncation, an out-of-range FileInfo offset
printf 'PBDEMS2\0' > "$tmp/short.dem"
"$BIN" info "$tmp/short.dem" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "^zdem: $tmp/short.dem: offset [0-9]*: " "$tmp/err" && ok || bad "short file: rc=$rc $(cat "$tmp/err")"
head -c 100000 "$C/source2/cs2_demofile-net-gotv-14132-de-ancient.dem" > "$tmp/cut.dem"
"$BIN" info --json "$tmp/cut.dem" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "offset [0-9]*: the file ends inside a frame" "$tmp/err" && ok || bad "truncated: rc=$rc $(cat "$tmp/err")"
cp "$C/source2/cs2_demofile-net-gotv-14132-de-ancient.dem" "$tmp/off.dem"
printf '\x10\x00\x00\x00' | dd of="$tmp/off.dem" bs=1 seek=8 conv=notrunc 2>/dev/null
"$BIN" info "$tmp/off.dem" 2>"$tmp/err" >/dev/null; rc=$?
[ $rc -eq 2 ] && grep -q "DEM_FileInfo offset" "$tmp/err" && ok || bad "bad fileinfo offset: rc=$rc $(cat "$tmp/err")"

# Source 2 info --json against EXPECTED.md
check_s2() { # file map protocol build client msgs last_tick pticks pframes packets full
    local f=$C/source2/$1
    "$BIN" info --json "$f" > "$tmp/info.json" || { bad "info $1"; return; }
    "$PY" - "$tmp/info.json" "$@" <<'PYEOF' && ok || bad "info values $1"
import json, sys
d = json.load(open(sys.argv[1]))
_, _, m, proto, build, client, msgs, last, pt, pf, packets, full = sys.argv[1:]
want = {"format": "source2", "map_name": m, "network_protocol": int(proto),
        "build_num": int(build), "client_name": client, "outer_messages": int(msgs),
        "last_tick": int(last), "playback_ticks": int(pt), "playback_frames": int(pf)}
bad = {k: (d.get(k), v) for k, v in want.items() if d.get(k) != v}
if d["commands"].get("DEM_Packet") != int(packets): bad["DEM_Packet"] = d["commands"].get("DEM_Packet")
if d["commands"].get("DEM_FullPacket", 0) != int(full): bad["DEM_FullPacket"] = d["commands"].get("DEM_FullPacket")
for k in ("server_name", "demo_version_name", "playback_time", "game"):
    if k not in d: bad[k] = "missing"
if bad: print(bad); sys.exit(1)
PYEOF
}
# A1 (demofile-net's tests) last ticks; B1 for the rest.
check_s2 cs2_demofile-net-gotv-14011-cs-italy.dem cs_italy 14011 10072 "SourceTV Demo" 485 391 391 391 391 1
check_s2 cs2_demofile-net-gotv-14065-de-nuke.dem de_nuke 14065 10231 "SourceTV Demo" 238 185 185 185 185 1
check_s2 cs2_demofile-net-gotv-14090-cs-italy.dem cs_italy 14090 10498 "SourceTV Demo" 607 572 572 552 552 1
check_s2 cs2_demofile-net-gotv-14132-de-ancient.dem de_ancient 14132 10679 "SourceTV Demo" 154 125 125 125 125 1
check_s2 cs2_demofile-net-gotv-14155-de-dust2.dem de_dust2 14155 10772 "SourceTV Demo" 180 161 161 161 161 1
check_s2 deadlock_demofile-net-hltv-10423-dl-midtown.dem dl_midtown 48 10423 "SourceTV Demo" 69 148 148 50 50 1
check_s2 dota2_haste-nekit-pov.dem start 47 9358 Nekit 3781 1923 1923 1941 1941 0
"$BIN" info --json "$C/source2/dota2_haste-nekit-pov.dem" | grep -q '"game":"dota2"' && ok || bad "dota2 game"
"$BIN" info --json "$C/source2/deadlock_demofile-net-hltv-10423-dl-midtown.dem" | grep -q '"game":"deadlock"' && ok || bad "deadlock game"

# dump: JSON lines parse; --type filters; DEM_Packet count matches B1
"$BIN" dump --json "$C/source2/cs2_demofile-net-gotv-14065-de-nuke.dem" > "$tmp/dump.jsonl" && ok || bad "dump"
"$PY" -c "
import json,sys
rows=[json.loads(l) for l in open('$tmp/dump.jsonl')]
outer=[r for r in rows if r['kind']=='outer']
assert len(outer)==238, len(outer)
assert sum(r['name']=='DEM_Packet' for r in outer)==185
assert any(r['kind']=='inner' and r['name']=='svc_PacketEntities' for r in rows)
" && ok || bad "dump json content"
n=$("$BIN" dump --type DEM_Packet "$C/source2/cs2_demofile-net-gotv-14065-de-nuke.dem" | wc -l)
[ "$n" -eq 185 ] && ok || bad "dump --type DEM_Packet gave $n lines"

# too many properties is a usage error naming the count and the limit
# (issue 26: 16384 Source 2 / 4096 Quake III ones exited 2 "out of
# memory"); exactly the limit is taken (Source 2: a vector property takes
# 4 of a table's 65536 columns, tick and entity 2: 16383)
props() { "$PY" -c "import sys; print(','.join([sys.argv[1]] * int(sys.argv[2])))" "$@"; }
too_many() { # file prop limit: limit+1 refused (exit 1, message, no rows), limit taken
    local f=$1 p=$2 l=$3 rc
    "$BIN" ticks --props "$(props "$p" $((l + 1)))" "$f" > "$tmp/out" 2> "$tmp/err"; rc=$?
    [ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && [ "$(cat "$tmp/err")" = "zdem: too many properties: $((l + 1)) (limit $l)" ] &&
        ok || bad "ticks with $((l + 1)) properties: exit $rc, $(head -c 200 "$tmp/err")"
    "$BIN" ticks --props "$(props "$p" "$l")" --ticks 5 "$f" > /dev/null 2> "$tmp/err"; rc=$?
    [ $rc -eq 0 ] && ok || bad "ticks with $l properties: exit $rc, $(head -c 200 "$tmp/err")"
}
too_many "$C/source2/cs2_demofile-net-gotv-14155-de-dust2.dem" X 16383
too_many "$C/q3/q3-osp_udt-chat.dm_68" stats.0 64
too_many "$C/teeworlds/ddnet_demo-edit-clip-fng.demo" x 64
"$BIN" ticks --props "$(props origin.0 4096)" "$C/q3/q3-osp_udt-chat.dm_68" 2> "$tmp/err" >/dev/null
[ $? -eq 1 ] && grep -q '^zdem: too many properties: 4096 (limit 64)$' "$tmp/err" && ok ||
    bad "Quake III ticks with 4096 properties: $(cat "$tmp/err")"

# events --format csv runs the command in a worker process: one that is
# killed is named with its signal and the command, exit 3 (zdem failed,
# not the input; issue 26: it was exit 2 and silent). The worker is kept
# alive by a demo with 2 MB of events (5000 prints appended to a corpus
# demo, tests/q3craft.py) and a reader that does not read until it has
# been killed.
"$PY" - "$C/q3/q3-osp_udt-chat.dm_68" "$tmp/prints.dm_68" "$(dirname "$0")" <<'PYEOF' || bad "crafting the prints demo"
import sys
sys.path.insert(0, sys.argv[3])
import q3craft
data = open(sys.argv[1], "rb").read()  # its last server command is number 7
cmds = ['print "%d %s\n"' % (k, "x" * 400) for k in range(5000)]
open(sys.argv[2], "wb").write(q3craft.append_messages(data, q3craft.command_messages(cmds, 8)))
PYEOF
mkfifo "$tmp/fifo"
"$BIN" events --format csv "$tmp/prints.dm_68" > "$tmp/fifo" 2> "$tmp/err" &
zpid=$!
exec 3< "$tmp/fifo"
worker=
for _ in $(seq 300); do # the worker is forked once the file is open
    worker=$(pgrep -P "$zpid" || true)
    [ -n "$worker" ] && break
    sleep 0.1
done
[ -n "$worker" ] && kill -KILL "$worker"
rows=$(cat <&3 | wc -l)
exec 3<&-
wait "$zpid"; rc=$?
[ -n "$worker" ] && [ $rc -eq 3 ] && [ "$rows" -lt 5000 ] &&
    grep -qx "zdem: worker for 'events --format csv $tmp/prints.dm_68' killed by signal 9 (.*)" "$tmp/err" &&
    ok || bad "killed csv worker (pid '$worker'): exit $rc, $rows rows, stderr: $(head -c 300 "$tmp/err")"
# untouched, the same demo gives every print, exit 0
n=$("$BIN" events --format csv "$tmp/prints.dm_68" | grep -c '"print"' ); rc=$?
[ "$n" -ge 5000 ] && ok || bad "csv events of the prints demo: $n rows with print"
# ---- discovery (issue 21): unknown names fail with the closest valid ones,
# props lists what ticks takes, events --name, several files, standard input
"$PY" - "$BIN" "$C" "$(cd "$(dirname "$0")" && pwd)" <<'PYEOF' && ok || bad "discovery"
import glob, json, os, re, subprocess, sys
sys.path.insert(0, sys.argv[3])
import zdem_cli_test as T
T.ZDEM, C = sys.argv[1], sys.argv[2]
S2 = os.path.join(C, "source2")
NUKE = os.path.join(S2, "cs2_demofile-net-gotv-14065-de-nuke.dem")
DOTA = os.path.join(S2, "dota2_haste-nekit-pov.dem")
DL = os.path.join(S2, "deadlock_demofile-net-hltv-10423-dl-midtown.dem")

def unknown(args, bad, want=(), what=None):
    rc, out, err = T.run(args)
    line = err.strip().splitlines()[-1] if err.strip() else ""
    T.check(rc == 1 and out == "" and ("'%s'" % bad) in line and all(("'%s'" % w) in line for w in want)
            and (what is None or ("unknown %s" % what) in line),
            "%s: exit 1, no output, names %r and %r (rc %d: %s)" % (" ".join(args[:3]), bad, want, rc, line))

# the cases of the issue, and the closest names
unknown(["ticks", NUKE, "--props", "X,bogus_prop"], "bogus_prop", what="property")
unknown(["ticks", NUKE, "--props", "Health"], "Health", ["health", "m_iHealth"], "property")
unknown(["ticks", NUKE, "--props", "m_iHelth"], "m_iHelth", ["m_iHealth"], "property")
unknown(["ticks", NUKE, "--props", "m_szTeamname"], "m_szTeamname", what="property")  # CCSTeam's, not a player's
unknown(["ticks", NUKE, "--props", "health", "--class", "CFoo"], "CFoo", what="class")
unknown(["ticks", NUKE, "--props", "m_szTeamnam", "--class", "CCSTeam"], "m_szTeamnam", ["m_szTeamname"])
unknown(["entities", "--class", "CFoo", NUKE], "CFoo", what="class")
unknown(["entities", "--class", "CCSTeem", NUKE], "CCSTeem", ["CCSTeam"], "class")
unknown(["dump", "--type", "svc_Nope", NUKE], "svc_Nope", what="message type")
unknown(["dump", "--type", "svc_ServerInf", NUKE], "svc_ServerInf", ["svc_ServerInfo"])
unknown(["events", "--name", "player_deth", NUKE], "player_deth", ["player_death"], "event")
unknown(["events", "--small", "--name", "player_deth", NUKE], "player_deth", ["player_death"], "event")
unknown(["props", "--class", "CCSTeem", NUKE], "CCSTeem", ["CCSTeam"], "class")
for path, prop in ((DOTA, "bogus"), (DL, "bogus")):
    unknown(["ticks", path, "--props", prop], prop, what="property")
# what is valid still runs
for args in (["entities", "--class", "CCSTeam", NUKE], ["dump", "--type", "svc_ServerInfo", NUKE],
             ["dump", "--type", "7", NUKE], ["ticks", NUKE, "--props", "m_szTeamname", "--class", "CCSTeam", "--ticks", "10"],
             ["events", "--name", "chat,DEATH,combat_log,player_death", NUKE]):
    rc, out, err = T.run(args)
    T.check(rc == 0, "%s exits 0 (%s)" % (" ".join(args[:3]), err[-200:]))

# events --name: the names demoparser2 lists for the file (peers/*.cs2-ref.json)
# select exactly those events; a name of the descriptor list with no event
# (player_death here) is valid and gives none
for ref_path in sorted(glob.glob(os.path.join(C, "peers", "cs2_*.cs2-ref.json"))):
    ref = json.load(open(ref_path))
    path = os.path.join(S2, ref["file"])
    rc, out, _ = T.run(["events", path])
    every = [json.loads(l) for l in out.splitlines()]
    rc2, out2, err2 = T.run(["events", "--name", ",".join(ref["game_events"]), path])
    got = [json.loads(l) for l in out2.splitlines()]
    T.check(rc == 0 and rc2 == 0 and {e["name"] for e in got} == set(ref["game_events"]) and
            got == [e for e in every if e["name"] in ref["game_events"]],
            "%s: events --name (demoparser2's names) keeps exactly those events" % ref["file"])
rc, out, _ = T.run(["events", "--name", "player_death", NUKE])
T.check(rc == 0 and out == "", "events --name player_death: valid, no such event in 14065")
rc, out, _ = T.run(["events", "--name", "chat", DOTA])
T.check(rc == 0 and out and all(json.loads(l)["type"] == "chat" for l in out.splitlines()), "events --name chat: Dota chat lines")

# props: every name the corpus-checked tick tests use is listed, and every
# name listed is accepted by ticks; every property `zdem entities` prints
# for a class is listed for it (a variable-length array's index as 0)
def props(path, *extra):
    rc, out, err = T.run(["props"] + list(extra) + [path])
    T.check(rc == 0, "props %s %s exits 0 (%s)" % (os.path.basename(path), extra, err[-200:]))
    return [json.loads(l) for l in out.splitlines()]
USED = "X Y Z pitch yaw health team_num name steamid balance active_weapon m_angEyeAngles m_angEyeAngles.1 " \
       "CBodyComponent.m_cellX CBodyComponent.m_vecX m_iHealth m_iszPlayerName".split()
for path in sorted(glob.glob(os.path.join(S2, "cs2_*.dem"))):
    names = {p["name"] for p in props(path)}
    T.check(set(USED) <= names, "%s: props lists %s" % (os.path.basename(path), set(USED) - names))
team = props(NUKE, "--class", "CCSTeam")
T.check(team and {p["class"] for p in team} == {"CCSTeam"} and "m_szTeamname" in {p["name"] for p in team},
        "props --class CCSTeam: its names, m_szTeamname among them")
for path in (NUKE, DOTA, DL):
    plist = props(path)
    names = sorted({p["name"] for p in plist})
    T.check(len(names) > 100 and any(p["reads"] for p in plist), "%s: %d names" % (os.path.basename(path), len(names)))
    rc, out, err = T.run(["ticks", path, "--props", ",".join(names), "--ticks", "0"])
    T.check(rc == 0, "%s: ticks accepts every name props lists (%s)" % (os.path.basename(path), err[-300:]))
rc, out, _ = T.run(["entities", NUKE])
ents = [json.loads(l) for l in out.splitlines()]
listed = {}
for c in {e["class"] for e in ents}:
    listed[c] = {p["name"] for p in props(NUKE, "--class", c)}
missing = set()
for e in ents:
    for k in e["props"]:
        if k not in listed[e["class"]] and re.sub(r"\.\d+(?=\.|$)", ".0", k) not in listed[e["class"]]:
            missing.add((e["class"], k))
T.check(len(ents) > 100 and not missing, "every property entities prints is listed by props --class: missing %s" % sorted(missing)[:5])
rc, out, _ = T.run(["props", "--class", "*", NUKE])
T.check(rc == 0 and len({json.loads(l)["class"] for l in out.splitlines()} - {None}) > 100, "props --class '*': every class")

# several files: each file's output, marked; the exit status the worst
Q3 = os.path.join(C, "q3", "q3-cpma_udt-duel.dm_68")
TW = sorted(glob.glob(os.path.join(C, "teeworlds", "*.demo")))[0]
files = [NUKE, Q3, TW]
rc, out, _ = T.run(["info", "--json"] + files)
lines = [json.loads(l) for l in out.splitlines()]
single = []
for f in files:
    single.append(json.loads(T.run(["info", "--json", f])[1]))
T.check(rc == 0 and [l.pop("file") for l in lines] == files and lines == single, "info --json A B C: one object per file, with \"file\"")
rc, out, _ = T.run(["events", NUKE, TW])
ev = [json.loads(l) for l in out.splitlines()]
T.check(rc == 0 and [e.pop("file") for e in ev] == [NUKE] * len(T.run(["events", NUKE])[1].splitlines()) +
        [TW] * len(T.run(["events", TW])[1].splitlines()), "events A B: every line carries its file, in order")
rc, out, _ = T.run(["info", NUKE, Q3])
T.check(rc == 0 and out.startswith("==> %s <==\n" % NUKE) and ("\n==> %s <==\n" % Q3) in out, "text info: ==> FILE <== before each")
rc, out, _ = T.run(["events", "--format", "csv", NUKE, TW])
T.check(rc == 0 and out.startswith("file,time,type,name,json\n") and out.count("file,time") == 1 and
        ("\n%s," % TW) in out, "events --format csv A B: one header, a file column")
rc, out, err = T.run(["info", "--json", NUKE, os.path.join(C, "nonexistent.dem"), Q3])
T.check(rc == 2 and len(out.splitlines()) == 2 and "nonexistent.dem: offset 0: cannot open" in err, "a missing file: the others printed, exit 2")
rc, out, err = T.run(["ticks", "--props", "health", NUKE, Q3])
T.check(rc == 1 and "'health'" in err, "a file with an unknown name among good ones: exit 1")

# standard input ("-", read in pieces through the push APIs): the same
# output as the path (errors name "-"), for each format
def same_stdin(args, path, extra=()):
    p = subprocess.run([T.ZDEM] + list(args) + [path], capture_output=True)
    with open(path, "rb") as fh:
        q = subprocess.run([T.ZDEM] + list(args) + list(extra) + ["-"], stdin=fh, capture_output=True)
    e2 = q.stderr.decode().replace("zdem: -:", "zdem: %s:" % path)
    T.check(p.returncode == q.returncode and p.stdout == q.stdout and p.stderr.decode() == e2,
            "stdin = file: %s %s (rc %d/%d)" % (" ".join(args), os.path.basename(path), p.returncode, q.returncode))
cut = T.write("cut.dem", open(NUKE, "rb").read()[:200000])
for path in (NUKE, DOTA, DL, cut):
    for args in (["info", "--json"], ["info"], ["dump", "--json"], ["events"], ["events", "--small"],
                 ["events", "--format", "csv"], ["ticks", "--props", "X,health,name"], ["props"],
                 ["entities", "--tick", "100"], ["entities"]):
        same_stdin(args, path)
for name in ("q3-cpma_udt-duel.dm_68", "ql_udt-ctf.dm_90", "q3-1.17_udt-duel.dm3", "q3_udt-truncated.dm_68",
             "q3_udt-invalid-area-mask-length.dm_68"):
    path = os.path.join(C, "q3", name)
    proto = ["--protocol", re.search(r"\.dm_?(\d+)$", name).group(1)]
    for args in (["info", "--json"], ["info"], ["dump", "--json"], ["events"], ["ticks", "--props", "origin,stats.0"],
                 ["ticks", "--class", "entity", "--props", "eType"]):
        same_stdin(args, path, proto)
for path in sorted(glob.glob(os.path.join(C, "teeworlds", "*.demo")))[:4] + [T.write("cut.demo", open(TW, "rb").read()[:30000])]:
    for args in (["info", "--json"], ["info"], ["dump", "--json"], ["events"], ["ticks", "--props", "x,health"],
                 ["ticks", "--class", "player", "--props", "score"]):
        same_stdin(args, path)
a, b = T.write("a.map", b""), T.write("b.map", b"")
with open(TW, "rb") as fh:
    rc2 = subprocess.run([T.ZDEM, "map", "-", "-o", b], stdin=fh, capture_output=True).returncode
rc = T.run(["map", TW, "-o", a])[0]
T.check(rc == 0 and rc2 == 0 and open(a, "rb").read() == open(b, "rb").read() and os.path.getsize(a) > 0, "map from stdin = map from the file")
with open(NUKE, "rb") as fh:
    q = subprocess.run([T.ZDEM, "info", "--json", "-", "-"], stdin=fh, capture_output=True)
T.check(q.returncode == 1, "- given twice: usage error")
sys.exit(T.finish())
PYEOF

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
