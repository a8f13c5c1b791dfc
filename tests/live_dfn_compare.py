#!/usr/bin/python3
"""zdem's reading of a Deadlock HTTP broadcast against DemoFile.Net's
published one (saul/demofile-net, src/DemoFile.Test/Snapshots/
HttpBroadcast_Deadlock.txt, fetched by tests/fetch_demofile_net.sh; never
committed here).

    live_dfn_compare.py ZDEM BROADCAST_DIR SNAPSHOT AUTOGEN_CS

DemoFile.Net's test reads the fragments through its HttpBroadcastReader and
writes, at each demo tick ("[T]", the record's tick), every game event it has
a class for ("Event NAME@G:" and the event as JSON) and, every 600 ticks, each
player's state ("Interval snapshot:"), taken when the first record of tick T
is about to be read (its timers fire then): the state after every record
before T.

Checked, value by value:
  * every event of the snapshot is one of zdem's, in order: the same name and
    tick, and each key DemoFile.Net's generated class sets (read from its
    Source1GameEvents.Autogen.cs: the key, the property and the conversion)
    holds zdem's value through that conversion: a player slot key becomes
    the controller's entity index, slot + 1 (65535: none); an event EHandle
    becomes index = v & 0x3FFF, serial = (v >> 15) & 0x3FF; numbers as
    float32; strings, booleans and integers as they are;
  * every zdem event the snapshot does not list is explained: it came before
    the game event list (tick -1: zdem keeps such events until their
    descriptors come, DemoFile.Net drops them) or DemoFile.Net has no class
    for its name (its generated list does not hold it);
  * the tick: zdem's tick is the snapshot's [T]; DemoFile.Net's @G is the
    packet's server tick (net_Tick), a constant number of ticks later (one
    snapshot interval: printed);
  * at each interval snapshot with players: every player controller's
    entity index, name and team (DemoFile.Net names the team's entity:
    its m_iTeamNum is the controller's), pawn handle (index and serial) and
    the hero pawn's position (X, Y, Z as float32);
  * ServerInfo's MaxClasses is zdem's class count, its map the sync's.
"""
import json
import os
import re
import struct
import subprocess
import sys

zdem, bdir, snap_path, autogen_path = sys.argv[1:5]
fails = []


def bad(msg):
    fails.append(msg)
    if len(fails) <= 30:
        print("MISMATCH:", msg)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]


# ---- the snapshot ---------------------------------------------------------------
entries = []  # (tick or None, head, body text)
for line in open(snap_path, encoding="utf-8-sig"):
    line = line.rstrip("\r\n")
    m = re.match(r"^\[(<pre record>|-?\d+)\] (.*)$", line)
    if m:
        tick = None if m.group(1) == "<pre record>" else int(m.group(1))
        entries.append([tick, m.group(2), []])
    elif entries:
        entries[-1][2].append(line)


def json_objects(text):
    dec, pos, out = json.JSONDecoder(), 0, []
    text = text.strip()
    while pos < len(text):
        obj, end = dec.raw_decode(text, pos)
        out.append(obj)
        pos = end
        while pos < len(text) and text[pos] in " \r\n\t":
            pos += 1
    return out


events, intervals, server_info, finished = [], [], None, None
for tick, head, body in entries:
    m = re.match(r"^Event (\w+)@(-?\d+):$", head)
    if m:
        events.append((tick, m.group(1), int(m.group(2)), json_objects("\n".join(body))[0]))
    elif head == "Interval snapshot:":
        intervals.append((tick, json_objects("\n".join(body))))
    elif head.startswith("GameTick: ") and "SvcServerInfo: " in head:
        server_info = json_objects(head.split("SvcServerInfo: ", 1)[1] + "\n" + "\n".join(body))[0]
    elif head.startswith("Finished."):
        finished = tick
if not events or finished is None or server_info is None:
    sys.exit("live_dfn_compare: %s does not read as DemoFile.Net's broadcast snapshot" % snap_path)

# ---- DemoFile.Net's event classes: key -> (property, conversion) --------------------
src = open(autogen_path, encoding="utf-8-sig").read()
classes = {}
for block in re.split(r'if \(descriptor\.Name == "', src)[1:]:
    name = block.split('"', 1)[0]
    keys = {}
    for km in re.finditer(r'if \(key\.Name == "([^"]+)"\)\s*return \(@this, x\) => @this\.(\w+) = (.*?);\n',
                          block):
        conv = km.group(3)
        if "CEntityIndex" in conv:
            kind = "slot"
        elif "FromEventStrictEHandle" in conv:
            kind = "ehandle"
        elif "ValString" in conv:
            kind = "string"
        elif "ValBool" in conv:
            kind = "bool"
        elif "ValFloat" in conv:
            kind = "float"
        elif re.search(r"Val(Long|Short|Byte|Uint64)", conv):
            kind = "int"
        else:
            kind = "?" + conv
        keys[km.group(1)] = (km.group(2), kind)
    classes[name] = keys
if len(classes) < 20:
    sys.exit("live_dfn_compare: %s does not read as DemoFile.Net's generated events" % autogen_path)


def expect(kind, v):
    """What DemoFile.Net's property holds for zdem's key value v."""
    if kind == "slot":
        return None if v == 65535 else {"index": (int(v) & 0xFF) + 1}
    if kind == "ehandle":
        u = int(v) & 0xFFFFFFFF
        return {"index": u & 0x3FFF, "serial": (u >> 15) & 0x3FF}
    return v


def same(kind, want, got):
    if kind == "float":
        return isinstance(got, (int, float)) and f32(want) == f32(got)
    if kind == "ehandle" and got is None:  # an invalid handle prints as null
        return want["index"] == 0x3FFF
    return want == got


# ---- zdem ------------------------------------------------------------------------
def run(args):
    p = subprocess.run([zdem] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 2):
        sys.exit("live_dfn_compare: zdem %s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


ours = [json.loads(l) for l in run(["events", "--json", bdir]).splitlines()]
ours = [e for e in ours if e["type"] == "game_event" and e["tick"] <= finished]

# events: in order, each of the snapshot's is one of ours
offsets, j, matched = set(), 0, set()
for tick, name, gtick, obj in events:
    while j < len(ours) and not (ours[j]["tick"] == tick and ours[j]["name"] == name):
        j += 1
    if j == len(ours):
        bad("event %s at %d: not in zdem's output (in order)" % (name, tick))
        j = 0
        continue
    e = ours[j]
    matched.add(j)
    offsets.add(gtick - tick)
    if obj.get("GameEventName") != name:
        bad("event %s at %d: GameEventName %r" % (name, tick, obj.get("GameEventName")))
    keys = classes.get(name)
    if keys is None:
        bad("event %s: no class in DemoFile.Net's generated list" % name)
        continue
    zk = e.get("keys", {})
    for key, (prop, kind) in keys.items():
        if kind.startswith("?"):
            bad("event %s: key %s: unknown conversion %s" % (name, key, kind[1:]))
            continue
        if key not in zk:
            bad("event %s at %d: zdem has no key %s" % (name, tick, key))
            continue
        if prop not in obj:
            bad("event %s at %d: DemoFile.Net has no %s" % (name, tick, prop))
            continue
        want = expect(kind, zk[key])
        if not same(kind, want, obj[prop]):
            bad("event %s at %d: %s (%s): zdem %r -> %r, DemoFile.Net %r" %
                (name, tick, key, prop, zk[key], want, obj[prop]))
    extra = set(zk) - set(keys)
    if extra:
        bad("event %s at %d: zdem keys DemoFile.Net's class does not set: %s" % (name, tick, sorted(extra)))
    j += 1
unexplained = [e for i, e in enumerate(ours) if i not in matched and e["tick"] >= 0 and e["name"] in classes]
for e in unexplained:
    bad("zdem event %s at %d is not in DemoFile.Net's snapshot" % (e["name"], e["tick"]))
extras = sorted({(e["name"], "before the event list" if e["tick"] < 0 else "no class")
                 for i, e in enumerate(ours) if i not in matched})
if len(offsets) != 1:
    bad("the snapshot's game tick is not a constant offset from the demo tick: %s" % sorted(offsets))
print("events: %d of DemoFile.Net's matched, key by key; zdem's others: %d (%s)" %
      (len(events), len(ours) - len(matched), ", ".join("%s: %s" % x for x in extras) or "none"))
print("tick: zdem's tick is DemoFile.Net's demo tick; its @game tick is %s ticks later "
      "(the packet's net_Tick)" % ",".join(str(o) for o in sorted(offsets)))

# ---- interval snapshots ------------------------------------------------------------
def rows(args):
    out = {}
    for l in run(["ticks", bdir, "--format", "jsonl"] + args).splitlines():
        r = json.loads(l)
        out.setdefault(r["tick"], []).append(r)
    return out


ctrl = rows(["--class", "CCitadelPlayerController", "--props",
             "m_iszPlayerName,m_iTeamNum,m_hPawn,m_hHeroPawn"])
teams = rows(["--class", "CCitadelTeam", "--props", "m_iTeamNum"])
pawns = rows(["--props", "X,Y,Z"])
checked = 0
for tick, players in intervals:
    if not players:
        continue  # before the full fragment: no players yet
    before = [t for t in ctrl if t < tick]
    if not before:
        bad("interval %d: zdem has no state before it" % tick)
        continue
    t = max(before)
    c_by = {r["entity"]: r for r in ctrl[t]}
    team_by = {r["entity"]: r["m_iTeamNum"] for r in teams.get(max(x for x in teams if x < tick), [])}
    pawn_by = {r["entity"]: r for r in pawns.get(max(x for x in pawns if x < tick), [])}
    if len(players) != len(c_by):
        bad("interval %d: %d players, zdem %d controllers" % (tick, len(players), len(c_by)))
    for p in players:
        idx = p["ControllerHandle"]["index"]
        c = c_by.get(idx)
        if not c:
            bad("interval %d: no controller %d" % (tick, idx))
            continue
        if c["m_iszPlayerName"] != p["PlayerName"]:
            bad("interval %d: controller %d name %r, DemoFile.Net %r" % (tick, idx, c["m_iszPlayerName"], p["PlayerName"]))
        tm = re.match(r"^CCitadelTeam \(Index = (\d+), Serial = \d+\)$", p["Team"])
        if not tm or team_by.get(int(tm.group(1))) != c["m_iTeamNum"]:
            bad("interval %d: controller %d team %r, zdem team_num %r (teams %r)" %
                (tick, idx, p["Team"], c["m_iTeamNum"], team_by))
        ph = p.get("PawnHandle")
        if ph is None:
            if (c["m_hPawn"] or 0) & 0x3FFF not in (0, 0x3FFF):
                bad("interval %d: controller %d: DemoFile.Net has no pawn, zdem %r" % (tick, idx, c["m_hPawn"]))
            continue
        if ((c["m_hPawn"] & 0x3FFF), c["m_hPawn"] >> 14) != (ph["index"], ph["serial"]):
            bad("interval %d: controller %d pawn %r, DemoFile.Net %r" % (tick, idx, c["m_hPawn"], ph))
        hero = pawn_by.get(c["m_hHeroPawn"] & 0x3FFF)
        o = p.get("Origin")
        if o is None or hero is None:
            bad("interval %d: controller %d: no position (zdem %r, DemoFile.Net %r)" % (tick, idx, hero, o))
            continue
        for axis in "XYZ":
            if f32(hero[axis]) != f32(o[axis]):
                bad("interval %d: controller %d %s: zdem %r, DemoFile.Net %r" % (tick, idx, axis, hero[axis], o[axis]))
        checked += 1
print("players: %d player states at %d interval snapshots matched (name, team, pawn handle, position)" %
      (checked, sum(1 for _, p in intervals if p)))
if not checked:
    bad("no player state compared")

# ---- ServerInfo ---------------------------------------------------------------------
info = json.loads(run(["info", "--json", bdir]))
if info["entity_classes"] != server_info["MaxClasses"]:
    bad("classes: zdem %r, ServerInfo MaxClasses %r" % (info["entity_classes"], server_info["MaxClasses"]))
sync = json.load(open(os.path.join(bdir, "sync.json")))
if sync.get("map") != server_info["MapName"]:
    bad("map: sync %r, ServerInfo %r" % (sync.get("map"), server_info["MapName"]))
print("server info: %d classes, map %s" % (info["entity_classes"], server_info["MapName"]))

if fails:
    print("%d mismatches" % len(fails))
    sys.exit(1)
print("OK: zdem's reading equals DemoFile.Net's snapshot")
