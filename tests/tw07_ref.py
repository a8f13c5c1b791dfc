#!/usr/bin/env python3
"""Independent Teeworlds 0.7 demo decoder (stdlib only), the reference the
0.7 tests compare zdem with.

Written from public format descriptions, not from zdem's C code or its
schema files:
  - the container (header, chunks), Huffman code, ints and full snapshots
    as tests/tw_snapshot_ref.py reads them (libtw2 doc/demo.md, huffman.md,
    int.md, snapshot.md), whose functions this imports;
  - snapshot deltas: libtw2 doc/snapshot.md, with the pre-agreed 0.7 item
    sizes of its appendix, except event_damage, which Teeworlds 0.7.5's
    datasrc/network.py declares as Common (x, y) + 5 ints = 7 (the table
    says 5); types past 22 are not pre-agreed (0.7.5 registers the first
    23 types only);
  - messages: a message chunk is the recorded net message as bytes (the
    chunk's ints written back little-endian): int (id << 1 | system), then
    its fields (ints as doc/int.md, NUL-terminated strings), as 0.7.5's
    network.py lists them for the messages read here;
  - a client recording adds de_client_info items (type 13, id = client id:
    local, team, name in 4 ints, clan in 3, country, 6 skin-part names in 6
    ints each, ...) to every snapshot and de_client_enter (22) /
    de_client_leave (23) messages (0.7.5 client: OnDemoRecSnap, OnMessage);
    DDNet's keeps sv_client_info (18) / sv_client_drop (20) instead.

Usage: tw07_ref.py --snapshots|--events|--players|--info FILE.demo
--snapshots  every snapshot rebuilt, item by item, as tests/tw_snapdump
             prints zdem's: "<chunk> <tick> snapshot|delta <items>", then
             "  <type>:<id> <ints>" by key
--events     the events of chat, kill, broadcast, motd, emoticon, vote, team,
             join and leave messages as JSON lines, in the shape of `zdem
             events --json` (names of the players the recording names)
--players    one JSON line per client: slot, name, clan, team, country, skin
--info       one JSON object: chunk counts, ticks, chat and kill counts
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tw_snapshot_ref as ref  # noqa: E402  (container, Huffman, ints, full snapshots)

# libtw2 doc/snapshot.md, 0.7 appendix (type 22 as network.py declares it)
SIZES07 = {1: 10, 2: 6, 3: 5, 4: 3, 5: 3, 6: 3, 7: 2, 8: 4, 9: 15, 10: 22, 11: 3, 12: 4,
           13: 58, 14: 5, 15: 32, 16: 2, 17: 2, 18: 2, 19: 2, 20: 3, 21: 3, 22: 7}

DE_CLIENT_INFO = 13


def apply_delta(old, ints, sizes):
    """old: {key: data}; returns the new {key: data}."""
    num_removed, num_updates = ints[0], ints[1]
    p = 3
    removed = set(k & 0xFFFFFFFF for k in ints[p:p + num_removed])
    p += num_removed
    new = {k: d for k, d in old.items() if k not in removed}
    for _ in range(num_updates):
        type_id, id_ = ints[p], ints[p + 1]
        p += 2
        size = sizes.get(type_id)
        if size is None:
            size = ints[p]
            p += 1
        diff = ints[p:p + size]
        if len(diff) != size:
            raise ValueError("delta item past the end")
        p += size
        key = (type_id << 16) | id_
        if key in old:  # the diff is against the old snapshot's item
            if len(old[key]) != size:
                raise ValueError("item size changed")
            new[key] = [((a + b + 2**31) % 2**32) - 2**31 for a, b in zip(old[key], diff)]
        else:
            new[key] = list(diff)
    return new


def ints_to_str(ints):
    return ref.ints_to_str(ints)


def client_info(data):
    """de_client_info: local, team, name[4], clan[3], country, skin names 6x6."""
    return {"team": data[1], "name": ints_to_str(data[2:6]), "clan": ints_to_str(data[6:9]),
            "country": data[9], "skin": [ints_to_str(data[10 + 6 * k:16 + 6 * k]) for k in range(6)]}


class Unpacker(object):
    def __init__(self, b):
        self.b, self.p = b, 0

    def int(self):
        b = self.b
        if self.p >= len(b):
            raise ValueError("int past the end")
        x = b[self.p]
        sign, v, shift = (x >> 6) & 1, x & 0x3F, 6
        self.p += 1
        while x & 0x80:
            if self.p >= len(b) or shift > 27:
                raise ValueError("int past the end")
            x = b[self.p]
            self.p += 1
            v |= (x & 0x7F) << shift
            shift += 7
        v &= 0xFFFFFFFF
        if sign:
            v ^= 0xFFFFFFFF
        return v - (1 << 32) if v & 0x80000000 else v

    def str(self):
        z = self.b.index(b"\0", self.p)
        s = self.b[self.p:z].decode("utf-8", "replace")
        self.p = z + 1
        return s


def message(ints):
    """(sys, id, Unpacker over the fields) of a message chunk."""
    raw = b"".join(struct.pack("<i", v) for v in ints)
    u = Unpacker(raw)
    h = u.int()
    return h & 1, h >> 1, u


def events(path, want_players=False):
    snap = None
    players = {}  # id -> dict
    out = []
    counts = {"snapshot": 0, "message": 0, "delta": 0, "chat": 0, "kills": 0}

    def name(d, key, cid):
        if cid in players and "name" in players[cid]:
            d[key] = players[cid]["name"]

    for index, tick, kind, payload in ref.read_demo_chunks(path):
        if kind not in counts:
            continue
        counts[kind] += 1
        ints = ref.unpack_ints(ref.huffman_decode(payload)) if payload else []
        if kind == "snapshot":
            snap = dict(ref.parse_full(ints))
        elif kind == "delta":
            if ints:
                snap = apply_delta(snap, ints, SIZES07)
        if kind in ("snapshot", "delta"):
            for key, data in snap.items():
                if key >> 16 == DE_CLIENT_INFO and (key & 0xFFFF) < 64:
                    players.setdefault(key & 0xFFFF, {}).update(client_info(data))
            continue
        if not ints:
            continue
        sys_, mid, u = message(ints)
        if sys_ or mid == 0:
            continue
        try:
            if mid == 3:  # sv_chat: mode, client_id, target_id, message
                counts["chat"] += 1
                d = {"type": "chat", "tick": tick, "mode": u.int(), "client_id": u.int(), "target_id": u.int()}
                name(d, "name", d["client_id"])
                name(d, "target_name", d["target_id"])
                d["text"] = u.str()
            elif mid == 5:  # sv_kill_msg: killer, victim, weapon, mode_special
                counts["kills"] += 1
                d = {"type": "kill", "tick": tick, "killer": u.int(), "victim": u.int(),
                     "weapon": u.int(), "mode_special": u.int()}
                name(d, "killer_name", d["killer"])
                name(d, "victim_name", d["victim"])
            elif mid in (1, 2):  # sv_motd, sv_broadcast: message
                d = {"type": "motd" if mid == 1 else "broadcast", "tick": tick, "text": u.str()}
            elif mid == 10:  # sv_emoticon: client_id, emoticon
                d = {"type": "emoticon", "tick": tick, "client_id": u.int(), "emoticon": u.int()}
                name(d, "name", d["client_id"])
            elif mid == 15:  # sv_vote_set: client_id, type, timeout, description, reason
                d = {"type": "vote", "tick": tick, "client_id": u.int(), "vote_type": u.int(),
                     "timeout": u.int()}
                name(d, "name", d["client_id"])
                d["description"] = u.str()
                d["reason"] = u.str()
            elif mid == 4:  # sv_team: client_id, team, silent, cooldown_tick
                d = {"type": "team", "tick": tick, "client_id": u.int(), "team": u.int(),
                     "silent": bool(u.int()), "cooldown_tick": u.int()}
                if 0 <= d["client_id"] < 64:
                    players.setdefault(d["client_id"], {})["team"] = d["team"]
                name(d, "name", d["client_id"])
            elif mid == 22:  # de_client_enter: name, client_id, team
                nm, cid, team = u.str(), u.int(), u.int()
                if 0 <= cid < 64:
                    players.setdefault(cid, {}).update({"name": nm, "team": team})
                d = {"type": "join", "tick": tick, "client_id": cid, "team": team, "name": nm}
            elif mid == 18:  # sv_client_info: client_id, local, team, name, clan, country, ...
                cid, local, team, nm = u.int(), u.int(), u.int(), u.str()
                u.str()
                u.int()
                for _ in range(6):
                    u.str()
                for _ in range(13):
                    silent = u.int()
                if 0 <= cid < 64:
                    players.setdefault(cid, {}).update({"name": nm, "team": team})
                if silent or local:
                    continue
                d = {"type": "join", "tick": tick, "client_id": cid, "team": team, "name": nm}
            elif mid == 23:  # de_client_leave: name, client_id, reason
                nm, cid = u.str(), u.int()
                d = {"type": "leave", "tick": tick, "client_id": cid, "name": nm, "reason": u.str()}
            elif mid == 20:  # sv_client_drop: client_id, reason, silent
                cid, reason, silent = u.int(), u.str(), u.int()
                if silent:
                    continue
                d = {"type": "leave", "tick": tick, "client_id": cid}
                name(d, "name", cid)
                d["reason"] = reason
            else:
                continue
        except ValueError:
            continue  # a body that does not decode: no event
        out.append(d)
    return out, players, counts


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    mode, path = argv[1], argv[2]
    if mode == "--snapshots":
        snap = None
        for index, tick, kind, payload in ref.read_demo_chunks(path):
            if kind not in ("snapshot", "delta"):
                continue
            ints = ref.unpack_ints(ref.huffman_decode(payload)) if payload else []
            if kind == "snapshot":
                snap = dict(ref.parse_full(ints))
            elif ints:
                snap = apply_delta(snap, ints, SIZES07)
            print("%d %d %s %d" % (index, tick, kind, len(snap)))
            for key in sorted(snap):
                print("  %d:%d%s" % (key >> 16, key & 0xFFFF, "".join(" %d" % v for v in snap[key])))
        return 0
    evs, players, counts = events(path)
    if mode == "--events":
        for d in evs:
            print(json.dumps(d, separators=(",", ":"), ensure_ascii=False))
    elif mode == "--players":
        for cid in sorted(players):
            p = dict(players[cid])
            p["slot"] = cid
            print(json.dumps(p, sort_keys=True, ensure_ascii=False))
    elif mode == "--info":
        print(json.dumps(counts, sort_keys=True))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
