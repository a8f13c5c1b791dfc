#!/usr/bin/env python3
"""The userinfo string table of a Source 2 demo as an independent
reference: decoded by tests/s2_stringtables_ref.py (its own framing,
Snappy, bit reader and string-table reader), each entry's CMsgPlayerInfo
read here field by field (name 1, xuid 2, userid 3, steamid 4,
fakeplayer 5, ishltv 6: netmessages.proto).

  s2_userinfo_ref.py FILE.dem      slot, userid, xuid, bot, hltv, name
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import s2_stringtables_ref as stref  # noqa: E402


def pb_fields(b):
    """field number -> value (the last occurrence) of a protobuf message."""
    i, out = 0, {}
    while i < len(b):
        k, i = stref.varint(b, i)
        f, w = k >> 3, k & 7
        if w == 0:
            v, i = stref.varint(b, i)
        elif w == 2:
            n, i = stref.varint(b, i)
            v, i = b[i:i + n], i + n
        elif w == 1:
            v, i = int.from_bytes(b[i:i + 8], "little"), i + 8
        elif w == 5:
            v, i = int.from_bytes(b[i:i + 4], "little"), i + 4
        else:
            raise ValueError("wire type %d" % w)
        out[f] = v
    return out


def userinfo(path):
    """slot -> {name, xuid, userid, bot, hltv}: the table as the demo leaves it."""
    out = {}
    for t in stref.run(path):
        if t.name == "userinfo":
            for i, (k, v) in t.entries.items():
                if v:
                    f = pb_fields(v)
                    out[i] = {"name": f.get(1, b"").decode("utf-8"), "xuid": f.get(2, 0),
                              "userid": f.get(3, 0), "bot": bool(f.get(5, 0)), "hltv": bool(f.get(6, 0))}
    return out


def slot_of(ui, userid):
    """The slot whose entry's userid (low byte, as demoparser2 matches) is userid."""
    for slot, u in sorted(ui.items()):
        if (u["userid"] & 0xFF) == userid:
            return slot
    return None


if __name__ == "__main__":
    for slot, u in sorted(userinfo(sys.argv[1]).items()):
        print(slot, u["userid"], u["xuid"], int(u["bot"]), int(u["hltv"]), u["name"], sep="\t")
