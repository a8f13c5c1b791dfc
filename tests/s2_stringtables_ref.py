#!/usr/bin/env python3
"""Independent reference for Source 2 string tables: decodes every table of
a demo from its messages alone and prints, per table, the entry count
(highest index + 1), the number of entries and a digest of every key and
value, as JSON. Written from the published format (the PBDEMS2 framing,
the demo and netmessage protobufs, the string-table entry bit layout that
manta, clarity and demoinfocs read alike), not from zdem's C code: its own
Snappy decoder, its own bit reader, and its own .proto text (compiled with
protoc, read with Debian's python3-protobuf).

  s2_stringtables_ref.py FILE.dem [--entries TABLE]
  s2_stringtables_ref.py --compare PROPDUMP FILE.dem...
      checks zdem (tests/s2_propdump --tables) entry by entry: every
      table's count (highest index + 1), every index present, every key
      and value byte; exit 1 on any difference.

Messages applied in file order: svc_CreateStringTable (44),
svc_UpdateStringTable (45), svc_ClearAllStringTables (51) inside
DEM_SignonPacket / DEM_Packet / DEM_FullPacket, and the DEM_StringTables
and DEM_FullPacket snapshots (entries by position, values replaced).
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

PROTO = r'''
syntax = "proto2";
message RPacket { optional int32 sequence_in = 1; optional int32 sequence_out_ack = 2; optional bytes data = 3; }
message RTableItem { optional string str = 1; optional bytes data = 2; }
message RTable { optional string table_name = 1; repeated RTableItem items = 2;
                 repeated RTableItem items_clientside = 3; optional int32 table_flags = 4; }
message RTables { repeated RTable tables = 1; }
message RFullPacket { optional RTables string_table = 1; optional RPacket packet = 2; }
message RCreate { optional string name = 1; optional int32 num_entries = 2;
                  optional bool user_data_fixed_size = 3; optional int32 user_data_size = 4;
                  optional int32 user_data_size_bits = 5; optional int32 flags = 6;
                  optional bytes string_data = 7; optional int32 uncompressed_size = 8;
                  optional bool data_compressed = 9; optional bool using_varint_bitcounts = 10; }
message RUpdate { optional int32 table_id = 1; optional int32 num_changed_entries = 2;
                  optional bytes string_data = 3; }
'''

DEM_SIGNON, DEM_PACKET, DEM_FULLPACKET, DEM_STRINGTABLES = 8, 7, 13, 6
SVC_CREATE, SVC_UPDATE, SVC_CLEARALL = 44, 45, 51


def load_proto():
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "s2ref.proto"), "w") as f:
        f.write(PROTO)
    subprocess.check_call(["protoc", "--python_out=" + d, "-I" + d, os.path.join(d, "s2ref.proto")])
    sys.path.insert(0, d)
    import s2ref_pb2
    return s2ref_pb2


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def snappy(b):
    """Snappy raw format: varint length, then literal and copy tags."""
    n, i = varint(b, 0)
    out = bytearray()
    while i < len(b):
        tag = b[i]
        i += 1
        t = tag & 3
        if t == 0:
            ln = tag >> 2
            if ln >= 60:
                k = ln - 59
                ln = int.from_bytes(b[i:i + k], "little")
                i += k
            ln += 1
            out += b[i:i + ln]
            i += ln
            continue
        if t == 1:
            ln = ((tag >> 2) & 7) + 4
            off = ((tag >> 5) << 8) | b[i]
            i += 1
        elif t == 2:
            ln = (tag >> 2) + 1
            off = int.from_bytes(b[i:i + 2], "little")
            i += 2
        else:
            ln = (tag >> 2) + 1
            off = int.from_bytes(b[i:i + 4], "little")
            i += 4
        if off == 0 or off > len(out):
            raise ValueError("bad snappy offset")
        for _ in range(ln):  # copies may overlap their own output
            out.append(out[-off])
    if len(out) != n:
        raise ValueError("snappy length")
    return bytes(out)


class Bits:
    """LSB-first bit reader over bytes."""

    def __init__(self, b):
        self.v = int.from_bytes(b, "little")
        self.n = len(b) * 8
        self.pos = 0

    def read(self, k):
        if self.pos + k > self.n:
            raise EOFError("bits past the end")
        r = (self.v >> self.pos) & ((1 << k) - 1)
        self.pos += k
        return r

    def bit(self):
        return self.read(1)

    def ubitvar(self):
        r = self.read(6)
        sel = r & 0x30
        if sel == 0x10:
            r = (r & 15) | (self.read(4) << 4)
        elif sel == 0x20:
            r = (r & 15) | (self.read(8) << 4)
        elif sel == 0x30:
            r = (r & 15) | (self.read(28) << 4)
        return r

    def varuint(self):
        v = s = 0
        while True:
            c = self.read(8)
            v |= (c & 0x7F) << s
            s += 7
            if c < 0x80 or s >= 35:
                return v

    def raw(self, nbytes):
        return bytes(self.read(8) for _ in range(nbytes))

    def cstr(self):
        out = bytearray()
        while True:
            c = self.read(8)
            if c == 0:
                return bytes(out)
            out.append(c)


class Table:
    def __init__(self, m):
        self.name = m.name
        self.fixed = m.user_data_fixed_size
        self.size_bits = m.user_data_size_bits
        self.flags = m.flags
        self.varint_bits = m.using_varint_bitcounts
        self.entries = {}  # index -> [key, value]

    def apply(self, data, n):
        br = Bits(data)
        index = -1
        history = []
        for _ in range(n):
            if br.bit():
                index += 1
            else:
                index = br.varuint() + 1
            key = None
            if br.bit():
                if br.bit():
                    pos, size = br.read(5), br.read(5)
                    base = history[pos] if pos < len(history) else b""
                    key = base[:size] + br.cstr()
                else:
                    key = br.cstr()
                history.append(key)
                if len(history) > 32:
                    history.pop(0)
            value = None
            if br.bit():
                compressed = False
                if self.fixed:
                    nbits = self.size_bits
                else:
                    if self.flags & 1:
                        compressed = bool(br.bit())
                    nbits = (br.ubitvar() if self.varint_bits else br.read(17)) * 8
                whole, rest = divmod(nbits, 8)
                value = br.raw(whole)
                if rest:
                    value += bytes([br.read(rest)])
                if compressed:
                    value = snappy(value)
            e = self.entries.setdefault(index, [None, None])
            if key is not None:
                e[0] = key
            if value is not None:
                e[1] = value

    def summary(self):
        h = hashlib.sha256()
        for i in sorted(self.entries):
            k, v = self.entries[i]
            h.update(b"%d|%s|%s|%s|" % (i, b"-" if k is None else k.hex().encode(),
                                        b"-" if v is None else v.hex().encode(), b""))
        return {"count": (max(self.entries) + 1) if self.entries else 0,
                "present": len(self.entries), "digest": h.hexdigest()[:16]}


def inner_messages(data):
    br = Bits(data)
    while br.n - br.pos >= 8:
        t = br.ubitvar()
        size = br.varuint()
        yield t, br.raw(size)


def run(path):
    pb = load_proto()
    b = open(path, "rb").read()
    if b[:8] != b"PBDEMS2\0":
        raise SystemExit("not a PBDEMS2 file")
    i = 16
    tables = []
    by_name = {}

    def snapshot(st):
        for t in st.tables:
            tab = by_name.get(t.table_name)
            if tab is None:
                continue  # a table the messages never created
            for idx, it in enumerate(t.items):
                e = tab.entries.setdefault(idx, [None, None])
                e[0] = it.str.encode("utf-8") if it.HasField("str") else e[0]
                if it.HasField("data"):
                    e[1] = it.data

    def packet(data):
        for t, m in inner_messages(data):
            if t == SVC_CREATE:
                c = pb.RCreate()
                c.ParseFromString(m)
                tab = Table(c)
                sd = snappy(c.string_data) if c.data_compressed else c.string_data
                tab.apply(sd, c.num_entries)
                tables.append(tab)
                by_name[tab.name] = tab
            elif t == SVC_UPDATE:
                u = pb.RUpdate()
                u.ParseFromString(m)
                if 0 <= u.table_id < len(tables):
                    tables[u.table_id].apply(u.string_data, u.num_changed_entries)
            elif t == SVC_CLEARALL:
                tables.clear()
                by_name.clear()

    while i < len(b):
        cmd, i = varint(b, i)
        tick, i = varint(b, i)
        size, i = varint(b, i)
        payload = b[i:i + size]
        i += size
        if cmd & 64:
            payload = snappy(payload)
        cmd &= ~64
        if cmd in (DEM_SIGNON, DEM_PACKET):
            p = pb.RPacket()
            p.ParseFromString(payload)
            packet(p.data)
        elif cmd == DEM_FULLPACKET:
            f = pb.RFullPacket()
            f.ParseFromString(payload)
            snapshot(f.string_table)
            packet(f.packet.data)
        elif cmd == DEM_STRINGTABLES:
            st = pb.RTables()
            st.ParseFromString(payload)
            snapshot(st)
    return tables


def compare(dump, paths):
    bad = 0
    for path in paths:
        ref = {t.name: t for t in run(path)}
        out = subprocess.run([dump, "--tables", path], stdout=subprocess.PIPE, check=False).stdout
        got = {}
        counts = {}
        for line in out.decode("latin-1").splitlines():
            f = line.split("\t")
            if f[0] != "S":
                continue
            if f[2] == "count":
                counts[f[1]] = int(f[3])
                got.setdefault(f[1], {})
            elif f[2] == "error":
                print("  %s: %s: zdem error %s" % (os.path.basename(path), f[1], f[3]))
                bad += 1
            else:
                got.setdefault(f[1], {})[int(f[2])] = (
                    None if f[3] == "-" else bytes.fromhex(f[3]),
                    None if f[4] == "-" else bytes.fromhex(f[4]))
        entries = diffs = 0
        for name in sorted(set(ref) | set(got)):
            r, g = ref.get(name), got.get(name)
            if r is None or g is None:
                print("  %s: table %s only in %s" % (os.path.basename(path), name, "zdem" if r is None else "the reference"))
                diffs += 1
                continue
            rs = r.summary()
            if counts.get(name) != rs["count"]:
                print("  %s: %s count zdem %s, reference %d" % (os.path.basename(path), name, counts.get(name), rs["count"]))
                diffs += 1
            for i in sorted(set(r.entries) | set(g)):
                re_ = tuple(r.entries[i]) if i in r.entries else None
                ge = g.get(i)
                entries += 1
                if re_ != ge:
                    diffs += 1
                    if diffs < 10:
                        print("  %s: %s[%d]: zdem %r, reference %r" % (os.path.basename(path), name, i, ge, re_))
        print("%s: %d tables, %d entries compared (keys and values), %d differences; EntityNames %s" % (
            os.path.basename(path), len(ref), entries, diffs,
            ref["EntityNames"].summary()["count"] if "EntityNames" in ref else "-"))
        bad += diffs
    return 1 if bad else 0


def main():
    if len(sys.argv) > 3 and sys.argv[1] == "--compare":
        sys.exit(compare(sys.argv[2], sys.argv[3:]))
    tables = run(sys.argv[1])
    if len(sys.argv) > 3 and sys.argv[2] == "--entries":
        for t in tables:
            if t.name == sys.argv[3]:
                for i in sorted(t.entries):
                    k, v = t.entries[i]
                    print(i, repr(k), len(v) if v is not None else None)
        return
    print(json.dumps({t.name: t.summary() for t in tables}, sort_keys=True))


if __name__ == "__main__":
    main()
