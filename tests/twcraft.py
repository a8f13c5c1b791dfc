#!/usr/bin/env python3
"""twcraft: write synthetic Teeworlds/DDNet demos (TWDEMO), and hostile ones.

Standard library only. Written from the format as libtw2's documents give
it (the same sources as tests/tw_snapshot_ref.py, whose Huffman code table
and pre-agreed item sizes it imports), not from zdem's decoders:
  - header: "TWDEMO\\0", version, net version[64], map name[64], map size
    and CRC (big-endian), type[8], length (BE, seconds), timestamp[20];
    v4+: 260 bytes of timeline markers; then the map itself
  - chunks: a tick marker (0x80; v5+: 0x20 inline delta in the low 5 bits,
    else a big-endian tick follows; 0x40 keyframe) or a data chunk (kind in
    bits 5-6: 1 snapshot, 2 message, 3 delta; size in the low 5 bits, 30:
    one more byte, 31: two more, little-endian) whose payload is the
    variable-length ints, Huffman-coded with the game's static code
  - a full snapshot: [data size] [items] [offsets] then per item [key =
    type << 16 | id] [data]; a delta: [removed] [items] [0] [removed keys]
    then per item [type] [id] ([size] unless pre-agreed) [diff]

Hostile generators (one per kind of work a reader must not do):
  hash-items     N item keys that share one slot of the item hash the
                 reader used before (key * 2654435761 scaled to 2 x
                 max_items slots, for the default and the small limits),
                 in one full snapshot, then D empty deltas ([0 0 0]) and D
                 empty (size 0) delta chunks, each after a tick marker: a
                 hash that probes its collisions walks N keys per lookup
                 and per copied item
  sorted-worst   a full snapshot whose N keys come in descending order,
                 then deltas that each add N/4 new items in descending
                 key order onto it and remove them again: the worst order
                 for a key-sorted index (every insertion at the front)

Command line:
  twcraft.py NAME OUT [-n N] [-o KEY=VALUE]
  twcraft.py list
  twcraft.py selftest      (Huffman and int round trips through
                            tw_snapshot_ref's decoder)
"""
import argparse
import inspect
import json
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tw_snapshot_ref as ref  # noqa: E402  (code table and item sizes)

# --------------------------------------------------------------------------
# ints and Huffman


def pack_int(v):
    """libtw2 doc/int.md: first byte extend | sign | 6 bits, then 7 bits a
    byte; a negative value is stored as its one's complement."""
    v = int(v)
    sign = 0
    if v < 0:
        sign = 0x40
        v = ~v
    out = bytearray([sign | (v & 0x3F)])
    v >>= 6
    while v:
        out[-1] |= 0x80
        out.append(v & 0x7F)
        v >>= 7
    return bytes(out)


def pack_ints(ints):
    return b"".join(pack_int(v) for v in ints)


def _codes():
    codes = {}
    for word in ref.HUFFMAN_CODES.split():
        sym, code = word.split(":")
        codes[256 if sym == "EOF" else int(sym, 16)] = code
    return codes


CODES = _codes()


def huffman_encode(data):
    """Codes are listed first transmitted bit first; bits fill each byte
    from its least significant bit; the EOF symbol ends the stream."""
    bits = "".join(CODES[b] for b in data) + CODES[256]
    out = bytearray((len(bits) + 7) // 8)
    for i, b in enumerate(bits):
        if b == "1":
            out[i >> 3] |= 1 << (i & 7)
    return bytes(out)


# --------------------------------------------------------------------------
# file


class Demo(object):
    def __init__(self, version=5, map_name=b"twcraft", net_version=b"0.6 626fce9a778df4d4",
                 map_data=b""):
        self.version = version
        self.facts = {"snapshots": 0, "deltas": 0, "items": None}
        self.chunks = bytearray()
        self.tick = None
        h = bytearray()
        h += net_version.ljust(64, b"\0")
        h += map_name.ljust(64, b"\0")
        h += struct.pack(">iI", len(map_data), zlib.crc32(map_data) & 0xFFFFFFFF)
        h += b"client".ljust(8, b"\0")
        h += struct.pack(">i", 0)  # length 0: no end-of-stream check
        h += b"2024-01-01_00-00-00".ljust(20, b"\0")
        assert len(h) == 168
        self.head = b"TWDEMO\0" + bytes([version]) + bytes(h)
        if version >= 4:
            self.head += bytes(260)  # no timeline markers
        self.head += map_data

    def tick_marker(self, tick, keyframe=False):
        if self.tick is not None and self.version >= 5 and 0 < tick - self.tick < 32 and not keyframe:
            self.chunks.append(0x80 | 0x20 | (tick - self.tick))
        else:
            self.chunks += bytes([0x80 | (0x40 if keyframe else 0)]) + struct.pack(">i", tick)
        self.tick = tick

    def chunk(self, kind, payload):
        """kind 1 snapshot, 2 message, 3 delta; payload already coded."""
        n = len(payload)
        if n < 30:
            self.chunks.append(kind << 5 | n)
        elif n < 256:
            self.chunks += bytes([kind << 5 | 30, n])
        elif n < 65536:
            self.chunks += bytes([kind << 5 | 31, n & 0xFF, n >> 8])
        else:
            raise ValueError("chunk of %d bytes" % n)
        self.chunks += payload

    def ints_chunk(self, kind, ints):
        self.chunk(kind, huffman_encode(pack_ints(ints)) if ints else b"")

    def full_snapshot(self, items):
        """items: [(key, [data ints])] in their order."""
        offs, body, pos = [], [], 0
        for key, data in items:
            offs.append(pos)
            body.append(key)
            body += data
            pos += 4 * (1 + len(data))
        self.ints_chunk(1, [pos, len(items)] + offs + body)
        self.facts["snapshots"] += 1
        self.facts["items"] = len(items)

    def delta(self, removed=(), items=()):
        """items: [(type, id, [diff ints])]; the size goes out unless the
        type's size is pre-agreed."""
        ints = [len(removed), len(items), 0] + list(removed)
        for t, i, diff in items:
            ints += [t, i]
            if ref.STATIC_SIZES.get(t) is None:
                ints.append(len(diff))
            else:
                assert ref.STATIC_SIZES[t] == len(diff)
            ints += list(diff)
        self.ints_chunk(3, ints)
        self.facts["deltas"] += 1
        keys = set(removed)
        self.facts["items"] += len(set((t << 16) | i for t, i, _ in items) - keys) - len(keys)

    def finish(self):
        return bytes(self.head) + bytes(self.chunks)


# --------------------------------------------------------------------------
# colliding keys

FIB = 2654435761
FIB_INV = pow(FIB, -1, 1 << 32)
KEY_TYPE_MIN = 0x100  # not a known net object: no decoder runs on them


def old_hash_slot(key, slots):
    """The item hash zdem's reader used before: multiply-shift of
    key * 2654435761 onto `slots` slots."""
    return (((key * FIB) & 0xFFFFFFFF) * slots) >> 32


def colliding_item_keys(n, target=0x2BA, bits=11):
    """n valid item keys (type in 0x100..0x7fff, id any) whose products
    key * 2654435761 (mod 2^32) agree in their top `bits` bits: the same
    slot of a multiply-shift hash of up to 2^bits slots (2048 slots: the
    default 1024-item limit; 256: the small one). Computed by inverting
    the multiplier, no search."""
    out = []
    r = 0
    while len(out) < n:
        prod = (target << (32 - bits)) | r
        r += 1
        if r >= 1 << (32 - bits):
            raise RuntimeError("not enough colliding keys")
        key = (prod * FIB_INV) & 0xFFFFFFFF
        t = key >> 16
        if KEY_TYPE_MIN <= t <= 0x7FFF:
            out.append(key)
    assert len(set(old_hash_slot(k, 2048) for k in out)) == 1
    assert len(set(old_hash_slot(k, 256) for k in out)) == 1
    return out


# --------------------------------------------------------------------------
# generators


class Gen(object):
    def __init__(self, fn, default, doc):
        self.fn, self.default, self.doc = fn, default, doc


GENERATORS = {}


def generator(name, default):
    def deco(fn):
        GENERATORS[name] = Gen(fn, default, inspect.cleandoc(fn.__doc__ or ""))
        return fn
    return deco


@generator("hash-items", 1024)
def gen_hash_items(n, deltas=20000, data=0):
    """N (at most 1024) item keys in one slot of the former item hash
    (both limits), DATA ints each, in a full snapshot; then DELTAS empty
    deltas ([0 0 0]) and as many empty delta chunks, each after a tick
    marker; one full snapshot again in the middle."""
    keys = colliding_item_keys(min(n, 1024))
    items = [(k, [k & 0xFF] * data) for k in keys]
    d = Demo()
    tick = 100
    d.tick_marker(tick, keyframe=True)
    d.full_snapshot(items)
    for i in range(deltas):
        tick += 1
        d.tick_marker(tick)
        if i % 2:
            d.chunk(3, b"")
            d.facts["deltas"] += 1
        else:
            d.delta()
        if i == deltas // 2:
            tick += 1
            d.tick_marker(tick, keyframe=True)
            d.full_snapshot(items[::-1])
    return d


@generator("sorted-worst", 1024)
def gen_sorted_worst(n, deltas=40):
    """A full snapshot of N (at most 1024) keys in descending order, then
    DELTAS deltas, each adding N/4 new items in descending key order (below
    every key present) and the next removing them: each insertion lands at
    the front of a key-sorted index."""
    n = min(n, 1024)
    keep = n - n // 4
    t0 = 0x7000
    keys = [(t0 << 16) | (0xFFFF - i) for i in range(keep)]
    d = Demo()
    tick = 100
    d.tick_marker(tick, keyframe=True)
    d.full_snapshot([(k, [1]) for k in keys])
    new = [(t0 - 1, 0xFFFF - i, [2]) for i in range(n // 4)]
    for i in range(deltas):
        tick += 1
        d.tick_marker(tick)
        if i % 2 == 0:
            d.delta(items=new)
        else:
            d.delta(removed=[(t << 16) | j for t, j, _ in new])
    return d


def item_per_delta(n, deltas, removed):
    """A full snapshot of N (at most 1024) items of one int, then DELTAS
    deltas each after a tick marker, each naming one item (the next in
    turn) with a new value; removed: the delta also removes it first."""
    n = min(n, 1024)
    t0 = 0x7000
    d = Demo()
    tick = 100
    d.tick_marker(tick, keyframe=True)
    d.full_snapshot([((t0 << 16) | i, [1]) for i in range(n)])
    for i in range(deltas):
        tick += 1
        d.tick_marker(tick)
        d.delta(removed=[(t0 << 16) | (i % n)] if removed else (),
                items=[(t0, i % n, [2 + (i & 1)])])
    d.facts["items"] = n  # each delta changes (or removes and adds back) an item present
    return d


@generator("one-item-deltas", 1024)
def gen_one_item_deltas(n, deltas=20000):
    """A full snapshot of N (at most 1024) items of one int, then DELTAS
    deltas each after a tick marker, each changing one item (the next in
    turn): a delta must cost what it changes, not a pass over the
    snapshot."""
    return item_per_delta(n, deltas, removed=False)


@generator("remove-readd-deltas", 1024)
def gen_remove_readd_deltas(n, deltas=20000):
    """A full snapshot of N (at most 1024) items of one int, then DELTAS
    deltas each after a tick marker, each removing one item (the next in
    turn) and adding it back (it moves to the end of the item order, as
    the game rebuilds it): a removal must cost what it changes, not a
    rebuild of the snapshot."""
    return item_per_delta(n, deltas, removed=True)


# --------------------------------------------------------------------------


def selftest():
    import random
    rng = random.Random(7)
    for _ in range(200):
        ints = [rng.choice([0, 1, -1, 63, 64, -64, -65, 2 ** 31 - 1, -2 ** 31,
                            rng.randrange(-2 ** 31, 2 ** 31)]) for _ in range(rng.randrange(0, 40))]
        raw = pack_ints(ints)
        assert ref.unpack_ints(raw) == ints, ints
        assert ref.huffman_decode(huffman_encode(raw)) == raw
    print("twcraft selftest: ok")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="twcraft.py", description="Write synthetic TWDEMO files.")
    sub = ap.add_subparsers(dest="cmd")
    sub.add_parser("list")
    sub.add_parser("selftest")
    for name, g in sorted(GENERATORS.items()):
        p = sub.add_parser(name, help=g.doc.split("\n")[0], description=g.doc)
        p.add_argument("out")
        p.add_argument("-n", type=int, default=None, help="count (default %d)" % g.default)
        p.add_argument("-o", action="append", metavar="KEY=VALUE",
                       help="generator parameter (the upper-case names in its description)")
        p.add_argument("--facts", help="write what a reader must count (JSON: snapshots, "
                       "deltas, items in the last snapshot) here")
    a = ap.parse_args(argv)
    if a.cmd == "list":
        for name, g in sorted(GENERATORS.items()):
            print("%s (default -n %d)\n    %s\n" % (name, g.default, g.doc.replace("\n", "\n    ")))
    elif a.cmd == "selftest":
        selftest()
    elif a.cmd in GENERATORS:
        g = GENERATORS[a.cmd]
        kw = {}
        for pair in a.o or []:
            k, _, v = pair.partition("=")
            kw[k.replace("-", "_")] = int(v, 0)
        d = g.fn(a.n if a.n is not None else g.default, **kw)
        data = d.finish()
        with open(a.out, "wb") as f:
            f.write(data)
        if a.facts:
            with open(a.facts, "w") as f:
                json.dump(d.facts, f, sort_keys=True)
        print("%s: %s: %d bytes" % (a.out, a.cmd, len(data)))
    else:
        ap.print_help()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
