#!/usr/bin/env python3
"""tw07craft: write synthetic Teeworlds 0.7 demos whose every value is
known, for the tests that cannot fetch real ones (CI has no network).

Standard library only. Written from the format (as tests/twcraft.py, whose
int packing, Huffman encoder and chunk writer it reuses) and from Teeworlds
0.7.5's objects and messages as libtw2's documents and the game's
datasrc/network.py give them, not from zdem's code or schema:
  - pre-agreed item sizes: tw07_ref.SIZES07 (types 1..22); types 23, 24
    (player_info_race, game_data_race) and unknown ones send their size;
  - a client recording's extras: de_client_info (13) items per client,
    de_game_info (14), de_tune_params (15); de_client_enter (22) and
    de_client_leave (23) messages (DDNet's recordings: sv_client_info (18)
    and sv_client_drop (20));
  - a delta lists the items that changed (new ones whole, the others as the
    wrapping difference) and the keys that went, as the recorder's
    CreateDelta does.

`demo` writes a demo of three players (plus one that joins and leaves):
every object type of the protocol (1..24; events for one snapshot each), an
unknown type (40, size sent) and a DDNet extension item, changing from
snapshot to snapshot; chat of every mode, kills, a vote, a broadcast, a
motd, an emoticon, a team change, a join and a leave. With --facts it also
writes what a reader must report, from its own model: the header facts,
chunk counts, players, every events line (in the shape of `zdem events
--json`), the character rows, and every snapshot item by item (the text
tests/tw_snapdump prints).

  tw07craft.py demo OUT [--facts F.json] [--version 4|5|6] [--ddnet]
                        [--net-version STR] [--types 1,2,...] [--steps N]
  tw07craft.py seeds DIR      small demos for the fuzzing seeds
"""
import argparse
import hashlib
import json
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import twcraft  # noqa: E402  (ints, Huffman, chunks)
import tw07_ref  # noqa: E402  (the 0.7 pre-agreed sizes)

NET_VERSION = "0.7 802f1be60a05665f"
SHA256_EXT_UUID = bytes.fromhex("6be6da4acebd380c9b5b1289c842d780")
# DDNet's extension object character@netobj.ddnet.tw: UUID version 3 over
# the namespace e05ddaaa-c4e6-4cfb-b642-5d48e80c0029 and that name.
DDNET_NS = bytes.fromhex("e05ddaaac4e64cfbb6425d48e80c0029")
EXT_TYPE = 0x7FFF
UNKNOWN_TYPE = 40


def name_uuid(name):
    d = bytearray(hashlib.md5(DDNET_NS + name.encode()).digest())
    d[6] = (d[6] & 0x0F) | 0x30
    d[8] = (d[8] & 0x3F) | 0x80
    return bytes(d)


def s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def str_to_ints(s, n):
    """The game's StrToInts: 4 bytes an int, big-endian, each + 128; the
    last byte of the last int is 0 (so at most 4n - 1 characters)."""
    b = s.encode()[:4 * n - 1].ljust(4 * n, b"\0")
    out = []
    for i in range(n):
        v = 0
        for c in b[4 * i:4 * i + 4]:
            v = (v << 8) | ((c + 128) & 0xFF)
        out.append(v)
    out[-1] &= ~0xFF  # the game forces the terminator
    return [s32(v) for v in out]


class Msg(object):
    """A net message: int (id << 1 | sys), fields."""

    def __init__(self, mid, sys_=0):
        self.b = bytearray(twcraft.pack_int(mid << 1 | sys_))

    def i(self, v):
        self.b += twcraft.pack_int(v)
        return self

    def s(self, v):
        self.b += v.encode() + b"\0"
        return self

    def ints(self):
        b = bytes(self.b) + b"\0" * (-len(self.b) % 4)
        return [s32(struct.unpack("<I", b[k:k + 4])[0]) for k in range(0, len(b), 4)]


class Demo7(twcraft.Demo):
    def __init__(self, version, net_version, map_data, length):
        twcraft.Demo.__init__(self, version=version if version != 6 else 5,
                              map_name=b"craft7", net_version=net_version.encode(), map_data=b"")
        h = bytearray()
        h += net_version.encode().ljust(64, b"\0")
        h += b"craft7".ljust(64, b"\0")
        h += struct.pack(">iI", len(map_data), zlib.crc32(map_data) & 0xFFFFFFFF)
        h += b"client".ljust(8, b"\0")
        h += struct.pack(">i", length)
        h += b"2025-01-02_03-04-05".ljust(20, b"\0")
        head = b"TWDEMO\0" + bytes([version]) + bytes(h)
        if version >= 4:
            head += bytes(260)
        if version >= 6:
            head += SHA256_EXT_UUID + hashlib.sha256(map_data).digest()
        self.head = head + map_data
        self.version = version

    def tick_marker(self, tick, keyframe=False):
        """0.7.5 (v4) writes a tick delta up to 63 in the marker byte."""
        if self.version == 4 and self.tick is not None and 0 < tick - self.tick < 64 and not keyframe:
            self.chunks.append(0x80 | (tick - self.tick))
            self.tick = tick
        else:
            twcraft.Demo.tick_marker(self, tick, keyframe)

    def delta07(self, old, new, order):
        """The recorder's delta from old to new ({key: data}); order: new's
        keys in the order the writer lists updates."""
        removed = [k for k in old if k not in new]
        ints = [len(removed), 0, 0] + [s32(k) for k in removed]
        n = 0
        for k in order:
            d = new[k]
            if k in old and old[k] == d:
                continue
            t, i = k >> 16, k & 0xFFFF
            ints += [t, i]
            if tw07_ref.SIZES07.get(t) is None:
                ints.append(len(d))
            else:
                assert tw07_ref.SIZES07[t] == len(d), (t, len(d))
            ints += [s32(a - b) for a, b in zip(d, old[k])] if k in old else list(d)
            n += 1
        ints[1] = n
        if n == 0 and not removed:
            return False  # the recorder writes no empty delta
        self.ints_chunk(3, ints)
        self.facts["deltas"] += 1
        return True

    def message(self, m):
        self.ints_chunk(2, m.ints())


# ---------------------------------------------------------------- the demo

PLAYERS = {  # id: name, clan, team, country, skin parts
    0: ("alpha", "red", 0, 276, ["standard", "bear", "", "standard", "standard", "standard"]),
    1: ("beta", "blue", 1, -1, ["kitty", "", "hair", "kitty", "standard", "negative"]),
    2: ("gamma", "", -1, 840, ["pinky", "cammo", "", "pinky", "pinky", "standard"]),
    3: ("delta", "late", 1, 0, ["standard", "", "", "standard", "standard", "standard"]),
}


def client_info(cid, team, local):
    name, clan, _, country, skin = PLAYERS[cid]
    d = [local, team] + str_to_ints(name, 4) + str_to_ints(clan, 3) + [country]
    for part in skin:
        d += str_to_ints(part, 6)
    d += [1, 0, 1, 1, 0, 1]  # use custom colours
    d += [s32(0xFF0000 + 17 * k + cid) for k in range(6)]
    return d


def state(s, tick, types, bad=False):
    """The snapshot at step s: {key: data}, and the order its items were
    first written in (the writer keeps the first appearance)."""
    st = {}

    def put(t, i, data):
        if t in types:
            st[(t << 16) | i] = [s32(v) for v in data]

    put(1, 0, [s % 3 - 1, 100 + s, -50 - s, s % 2, s, (s // 3) % 2, (s * 5) & 0x7F, s % 6, s, 2 * s])
    if 10 <= s < 40:
        put(2, 10, [200 + 10 * s, 300, 5, -s, s % 6, tick - s + 10])
    if 20 <= s < 30:
        put(3, 11, [400 + s, 500 - s, 380, 520, tick - s + 20])
    put(4, 20, [64, 96, 1])
    if not 50 <= s < 80:
        put(4, 21, [128, 96, 7])
    put(5, 0, [1000 + s, 2000, 0])
    put(5, 1, [3000, 2000 - s, 1])
    put(6, 0, [900, 1 if s < 60 else 0, 0])
    put(7, 0, [s // 20, s // 30])
    put(8, 0, [0 if s < 50 else -1, -3 if s % 40 < 20 else 1, 0 if s < 50 else tick - 3, 0])
    put(9, 5, [tick, 640 + s, 480, 1, 0, s * 8, 1, s % 4, -1, 0, 0, 0, 0, 0, 0])
    for cid in (0, 1):
        if cid == 1 and 60 <= s < 70:
            continue  # dead
        put(10, cid, [tick, 100 * (cid + 1) + 3 * s, 700 - 2 * s, 3, -2, (s * 16) % 512, 1 - 2 * cid,
                      s % 4, -1 if s % 10 else 1 - cid, s % 10 == 0 and 2 or 0, 0, 32 * cid, 64, 0, 0,
                      10 - s % 11, (s // 7) % 11, 10 - s % 10, s % 6 - (1 if s % 13 == 0 else 0),
                      s % 6, tick - 4, s % 32])
        if bad and cid == 0:
            st[(10 << 16) | 0][15] = 12  # health over 10
    for cid in (0, 1, 2) + ((3,) if 76 <= s < 100 else ()):
        put(11, cid, [(s + cid) & 0x7F, 3 * cid + s // 10, 20 + cid + s % 5])
        team = PLAYERS[cid][2] if not (cid == 2 and s >= 90) else 0
        put(13, cid, client_info(cid, team, 1 if cid == 0 else 0))
    if s < 90:
        put(12, 2, [1, 0, 100 + s, 700 - s])
    put(14, 0, [1, 20, 10, 0, 1])
    put(15, 0, [1000 + 7 * k + (s // 25) for k in range(32)])
    ev = {15: [(16, 40, [10, 20]), (17, 41, [11, 21])], 16: [(18, 42, [12, 22]), (19, 43, [13, 23])],
          60: [(20, 44, [300, 400, 1]), (21, 45, [300, 400, 12]),
               (22, 46, [310, 410, 1, 64, 3, 1, 0])],
          61: [(22, 47, [320, 420, 0, 32, 2, 0, 1])]}
    for t, i, d in ev.get(s, []):
        put(t, i, d)
    put(23, 0, [900 + s // 30])
    put(24, 0, [-1 if s < 100 else 4200, 2, 5])
    put(UNKNOWN_TYPE, 0, [s, -s, 7, s * s])
    if EXT_TYPE in types:  # DDNet's extension: registration item, then the item
        st[EXT_TYPE] = [s32(struct.unpack(">I", name_uuid("character@netobj.ddnet.tw")[k:k + 4])[0])
                        for k in range(0, 16, 4)]
        st[(EXT_TYPE << 16) | 0] = [1, 0, 2, 0, -1, s, 0, 0, 30 + s, 40]
    return st


def messages(s, ddnet, bad=False):
    """[(Msg, event dict or None)] the recording holds at step s."""
    out = []

    def chat(mode, cid, target, text):
        out.append((Msg(3).i(mode).i(cid).i(target).s(text),
                    {"type": "chat", "mode": mode, "client_id": cid, "target_id": target, "text": text}))

    if s == 5:
        out.append((Msg(1).s("Welcome to craft7"), {"type": "motd", "text": "Welcome to craft7"}))
    if s == 8:
        chat(1, 0, -1, "hello from alpha")
    if s == 12:
        chat(2, 1, -1, "team only")
    if s == 13 and bad:  # mode 9: no chat mode has that number
        out.append((Msg(3).i(9).i(0).i(-1).s("bad mode"), None))
    if s == 14:
        chat(3, 0, 1, "psst")
    if s == 18:
        chat(1, -1, -1, "server says hi")
    if s == 25:
        out.append((Msg(2).s("round starts"), {"type": "broadcast", "text": "round starts"}))
    if s == 30:
        out.append((Msg(10).i(1).i(7), {"type": "emoticon", "client_id": 1, "emoticon": 7}))
    if s == 40:
        out.append((Msg(15).i(0).i(1).i(25).s("change map").s("why not"),
                    {"type": "vote", "client_id": 0, "vote_type": 1, "timeout": 25,
                     "description": "change map", "reason": "why not"}))
    if s == 45:
        out.append((Msg(16).i(1).i(0).i(0).i(3), None))  # vote status: no events line
    if s == 60:
        out.append((Msg(5).i(0).i(1).i(2).i(0),
                    {"type": "kill", "killer": 0, "victim": 1, "weapon": 2, "mode_special": 0}))
    if s == 65:
        out.append((Msg(5).i(0).i(0).i(-2).i(0),
                    {"type": "kill", "killer": 0, "victim": 0, "weapon": -2, "mode_special": 0}))
    if s == 75:
        name, clan, team, country, skin = PLAYERS[3]
        if ddnet:
            m = Msg(18).i(3).i(0).i(team).s(name).s(clan).i(country)
            for part in skin:
                m.s(part)
            for v in [1] * 6 + [0x123456] * 6 + [0]:
                m.i(v)
        else:
            m = Msg(22).s(name).i(3).i(team)
        out.append((m, {"type": "join", "client_id": 3, "team": team, "name": name}))
    if s == 90:
        out.append((Msg(4).i(2).i(0).i(0).i(0),
                    {"type": "team", "client_id": 2, "team": 0, "silent": False, "cooldown_tick": 0}))
    if s == 100:
        if ddnet:
            out.append((Msg(20).i(3).s("bye").i(0), {"type": "leave", "client_id": 3, "reason": "bye"}))
        else:
            out.append((Msg(23).s("delta").i(3).s("bye"),
                        {"type": "leave", "client_id": 3, "name": "delta", "reason": "bye"}))
    if s == 110:
        out.append((Msg(21).i(6).i(0), None))  # a game message: no events line
    return out


def build(version=4, net_version=NET_VERSION, ddnet=False, types=None, steps=120, bad=False):
    """bad: values outside the protocol's ranges (character 0's health 12,
    a chat of mode 9); facts["mismatches"] counts what a reader must flag."""
    all_types = set(range(1, 25)) | {UNKNOWN_TYPE, EXT_TYPE}
    types = all_types if types is None else set(types)
    map_data = b"craft7 map: not a real map, only bytes to hash " * 20
    tick0, step_ticks = 1000, 2
    last_tick = tick0 + step_ticks * (steps - 1)
    d = Demo7(version, net_version, map_data, (last_tick - tick0) // 50)
    facts = {"events": [], "snapshots": [], "characters": [], "mismatches": 0}
    players = {}  # as a reader knows them: id -> dict
    counts = {"snapshot": 0, "message": 0, "delta": 0, "tick": 0, "keyframes": 0, "chat": 0, "kills": 0}
    index = 0
    prev, order = None, []
    for s in range(steps):
        tick = tick0 + step_ticks * s
        key = s in (0, 100)  # a full snapshot (keyframe) every 100 steps
        d.tick_marker(tick, keyframe=key)
        counts["tick"] += 1
        counts["keyframes"] += key
        index += 1
        st = state(s, tick, types, bad)
        order = [k for k in order if k in st] + sorted(k for k in st if k not in order)
        wrote = None
        ch0 = (10 << 16) | 0
        if key:
            d.full_snapshot([(k, st[k]) for k in order])
            wrote = "snapshot"
            facts["mismatches"] += bad and ch0 in st
        elif d.delta07(prev, st, order):
            wrote = "delta"
            facts["mismatches"] += bad and ch0 in st and st[ch0] != prev.get(ch0)
        if wrote:
            counts[wrote] += 1
            facts["snapshots"].append("%d %d %s %d" % (index, tick, wrote, len(st)))
            for k in sorted(st):
                facts["snapshots"].append("  %d:%d%s" % (k >> 16, k & 0xFFFF, "".join(" %d" % v for v in st[k])))
            index += 1
            for k in order:
                if k >> 16 == 13:
                    ci = st[k]
                    players[k & 0xFFFF] = {"name": PLAYERS[k & 0xFFFF][0], "clan": PLAYERS[k & 0xFFFF][1],
                                           "team": ci[1], "country": ci[9],
                                           "skin": list(PLAYERS[k & 0xFFFF][4])}
                if k >> 16 == 10:
                    c = st[k]
                    facts["characters"].append({"tick": tick, "entity": k & 0xFFFF, "x": c[1], "y": c[2],
                                                "health": c[15], "armor": c[16], "weapon": c[18],
                                                "triggered_events": c[21]})
            prev = st
        for m, ev in messages(s, ddnet, bad):
            d.message(m)
            counts["message"] += 1
            index += 1
            if ev is None:
                facts["mismatches"] += bad and s == 13
                continue
            e = {"type": ev["type"], "tick": tick}
            e.update(ev)
            if ev["type"] == "chat":
                counts["chat"] += 1
            if ev["type"] == "kill":
                counts["kills"] += 1
            if ev["type"] in ("join",):
                players.setdefault(ev["client_id"], {}).update({"name": ev["name"], "team": ev["team"]})
            if ev["type"] == "team":
                players.setdefault(ev["client_id"], {})["team"] = ev["team"]
            facts["events"].append(named(e, players))
    facts["info"] = {
        "version": version, "net_version": net_version, "map_name": "craft7", "map_size": len(map_data),
        "map_crc": zlib.crc32(map_data) & 0xFFFFFFFF, "length": (last_tick - tick0) // 50,
        "first_tick": tick0, "last_tick": last_tick, "tick_markers": counts["tick"],
        "keyframes": counts["keyframes"],
        "chunks": {"snapshot": counts["snapshot"], "message": counts["message"], "delta": counts["delta"]},
        "chat": counts["chat"], "kills": counts["kills"],
        "players": [dict(slot=cid, name=p["name"], team=p["team"], clan=p["clan"], country=p["country"],
                         skin=p["skin"]) for cid, p in sorted(players.items()) if "clan" in p],
    }
    return d.finish(), facts


def named(e, players):
    """The names a reader adds to an events line (keys as zdem's)."""
    out = dict(e)

    def name(key, cid):
        if cid in players and "name" in players[cid]:
            out[key] = players[cid]["name"]

    t = e["type"]
    keys = list(e)
    if t == "chat":
        name("name", e["client_id"])
        name("target_name", e["target_id"])
        keys = ["type", "tick", "mode", "client_id", "target_id", "name", "target_name", "text"]
    elif t == "kill":
        name("killer_name", e["killer"])
        name("victim_name", e["victim"])
        keys = ["type", "tick", "killer", "victim", "weapon", "mode_special", "killer_name", "victim_name"]
    elif t in ("emoticon", "team"):
        name("name", e["client_id"])
        keys = [k for k in e] + ["name"]
    elif t == "vote":
        name("name", e["client_id"])
        keys = ["type", "tick", "client_id", "vote_type", "timeout", "name", "description", "reason"]
    elif t == "leave" and "name" not in e:
        name("name", e["client_id"])
        keys = ["type", "tick", "client_id", "name", "reason"]
    elif t == "join":
        keys = ["type", "tick", "client_id", "team", "name"]
    return {k: out[k] for k in keys if k in out}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tw07craft.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    p = sub.add_parser("demo")
    p.add_argument("out")
    p.add_argument("--facts")
    p.add_argument("--version", type=int, default=4, choices=(4, 5, 6))
    p.add_argument("--ddnet", action="store_true", help="DDNet's recording: sv_client_info/drop")
    p.add_argument("--net-version", default=NET_VERSION)
    p.add_argument("--types", help="only these object types (comma-separated)")
    p.add_argument("--steps", type=int, default=120)
    q = sub.add_parser("seeds")
    q.add_argument("dir")
    a = ap.parse_args(argv)
    if a.cmd == "demo":
        types = [int(x) for x in a.types.split(",")] if a.types else None
        data, facts = build(a.version, a.net_version, a.ddnet, types, a.steps)
        with open(a.out, "wb") as f:
            f.write(data)
        if a.facts:
            with open(a.facts, "w") as f:
                json.dump(facts, f, indent=0, sort_keys=True)
    elif a.cmd == "seeds":
        os.makedirs(a.dir, exist_ok=True)
        for name, kw in (("craft7-v4", {}), ("craft7-v6-ddnet", {"version": 6, "ddnet": True})):
            data, _ = build(steps=12, **kw)
            with open(os.path.join(a.dir, name + ".demo"), "wb") as f:
                f.write(data)
    else:
        ap.print_help()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
