#!/usr/bin/env python3
"""Independent Teeworlds/DDNet demo snapshot decoder (stdlib only).

Written from public format descriptions, not from zdem's C code:
  - libtw2 doc/demo.md     (header, timeline markers, chunk headers)
  - libtw2 doc/huffman.md  (the code table below, copied from its appendix)
  - libtw2 doc/int.md      (variable-length ints)
  - libtw2 doc/snapshot.md (snapshot delta layout, pre-agreed 0.6 item sizes)
  - DDNet CSnapshot layout for full snapshots in demos:
      [data_size bytes][num_items][offsets (bytes) ...] then per item
      [key = type << 16 | id][data ...]

Usage: tw_snapshot_ref.py [--items | --names | --teams | --c99] FILE.demo
       tw_snapshot_ref.py --huffman-selftest VECTORS.txt
Default: one line per snapshot / delta chunk:
  <chunk index> <tick> snapshot|delta <items> [<removed> <new> <changed>]
--items   also lists each snapshot's item keys (type:id/ints).
--names   client id and name from obj_client_info items.
--teams   client id and team from the last obj_player_info item of each.
--c99     what ddnet_demo_c99 (Teero888) reports as snap_items (see
          c99_snapshot below): per-snapshot counts, then total/max/last.
--huffman-selftest  decodes "<plain hex>#<huffman hex>" lines and checks
          them (the demo-edit Huffman vectors in the corpus).
"""
import struct
import sys

# libtw2 doc/huffman.md appendix: symbol -> code, first transmitted bit first.
HUFFMAN_CODES = """
EOF:010100011101100 00:1 01:0001 02:01000 03:01101000 04:011110 05:0110111 06:01101100
07:01110110 08:00100 09:0011001 0a:0101111 0b:01111111 0c:0100111 0d:011100 0e:00101111
0f:011101110 10:0101011 11:011001010 12:0011101 13:010101010 14:00001111 15:0111110110 16:001011000
17:001111100 18:0000100 19:001111001 1a:010010000 1b:000010110 1c:010100000 1d:0110011 1e:01010011
1f:0111010010 20:001101011 21:001100010 22:010111011 23:0110010111 24:000011000 25:010100010 26:010110111
27:010011010 28:0110101 29:01011100 2a:010010001 2b:0111111010 2c:001011011 2d:0110110101 2e:0111010001
2f:0110100110 30:0111010111 31:0111110010 32:0111110100 33:0101101011 34:00111100010 35:001110001011 36:0111110101100
37:010100011100 38:001010111010 39:000011100111 3a:000010100101 3b:001011100110 3c:0111110000111 3d:00101110000 3e:0110010110100
3f:010010101000 40:01010010 41:001111011 42:0101101010 43:0011000111 44:0101100110 45:0100110110 46:0011110000
47:0000111000 48:0011111010 49:00101001 4a:0101010010 4b:010101011 4c:0011000011 4d:0000101110 4e:01100100001
4f:01111110111 50:01110101000 51:01111101111 52:01111100000 53:0011011 54:0010100001 55:001101010 56:01011101000
57:01011000000 58:0000110011 59:01001010101 5a:0101000111010 5b:010110011110 5c:0101110100111 5d:001011100011 5e:0011111011100
5f:0101100111001 60:0101100111000 61:001110001010 62:0110110100011 63:0010101110001 64:001110010001 65:001110010000 66:0010111001111
67:0010111001110 68:0111010110101 69:0111010110100 6a:0101100111011 6b:0101100111010 6c:01110101001000 6d:001011100010 6e:0111010110111
6f:0110110100010 70:0101110100110 71:000011100110 72:00001110010 73:001011100101 74:000010100100 75:0110110100101 76:01111101011010
77:010100011101101 78:0111010110110 79:000010100111 7a:0010101110000 7b:0111010110001 7c:0110110100100 7d:001010101101 7e:01110101001001
7f:0011100011101 80:00000 81:0111111001 82:001101001 83:01111110110 84:010110001 85:01110111100 86:010010100
87:01110101011 88:010110100 89:01111100010 8a:010011001 8b:0010100000 8c:001011010 8d:01111110001 8e:001111111
8f:0011000110 90:011001001 91:01111110000 92:001101000 93:0000110010 94:011000 95:0101000110 96:010011000
97:01100100011 98:001011001 99:0100110111 9a:010101000 9b:01011101010 9c:010010111 9d:01111100011 9e:001110011
9f:0011100101 a0:001111110 a1:0101100001 a2:0111110011 a3:0111011111 a4:011011011 a5:001100000 a6:011010010
a7:0011000010 a8:010110110 a9:0110100111 aa:010110010 ab:0010101111 ac:010010110 ad:0000101111 ae:001010110
af:01111101110 b0:00001101 b1:001010100 b2:000011101 b3:01110101010 b4:000010101 b5:01100100010 b6:010100001
b7:01110100111 b8:001010001 b9:01110100110 ba:001110000 bb:01110111101 bc:001111010 bd:0111010000 be:001011101
bf:0101010011 c0:010111010111 c1:010010101101 c2:001111000111 c3:011011010011 c4:001110010011 c5:010111010110 c6:011111000010
c7:001111000110 c8:011111010101 c9:011011010000 ca:001110010010 cb:000010100110 cc:010100011111 cd:001111101101 ce:011101010011
cf:010010101100 d0:010010101111 d1:001111101100 d2:011001011001 d3:010111010010 d4:000010100001 d5:011001011000 d6:010100011110
d7:001010101100 d8:00111000100 d9:011001000001 da:0111010110000 db:001111101111 dc:0101100000101 dd:001010101111 de:001010101110
df:011001011011 e0:001110001101 e1:001010101001 e2:0111010110011 e3:001011100100 e4:0011111011101 e5:000010100000 e6:011111010111
e7:0101100000100 e8:001010101000 e9:0111010110010 ea:001010111011 eb:001010101011 ec:0111110000110 ed:011001000000 ee:000010100011
ef:001010101010 f0:01111101011011 f1:0011100011100 f2:010110011111 f3:010010101110 f4:010010101001 f5:000010100010 f6:001110001100
f7:0111110101001 f8:01010001110111 f9:0111110101000 fa:0111010100101 fb:001110001111 fc:0110010110101 fd:001010111001 fe:010110000011
ff:01001001
"""

# Pre-agreed item sizes (ints) for the 0.6 protocol, libtw2 doc/snapshot.md.
STATIC_SIZES = {1: 10, 2: 6, 3: 5, 4: 4, 5: 3, 6: 8, 7: 4, 8: 15, 9: 22, 10: 5,
                11: 17, 12: 3, 13: 2, 14: 2, 15: 2, 16: 2, 17: 3, 18: 3, 19: 3,
                20: 3}

SHA256_EXT_UUID = bytes.fromhex("6be6da4acebd380c9b5b1289c842d780")


def build_huffman_tree():
    root = {}
    for word in HUFFMAN_CODES.split():
        sym, code = word.split(":")
        sym = 256 if sym == "EOF" else int(sym, 16)
        node = root
        for bit in code[:-1]:
            node = node.setdefault(bit, {})
        node[code[-1]] = sym
    return root


HUFFMAN_TREE = build_huffman_tree()


def huffman_decode(data):
    """Bits are taken LSB first from each byte (doc: bits reversed per byte)."""
    out = bytearray()
    node = HUFFMAN_TREE
    for byte in data:
        for k in range(8):
            node = node[str((byte >> k) & 1)]
            if isinstance(node, int):
                if node == 256:
                    return bytes(out)
                out.append(node)
                node = HUFFMAN_TREE
    raise ValueError("huffman: no EOF symbol")


def unpack_ints(data):
    """libtw2 doc/int.md; the fifth byte's bits go in at 27 (as the reference)."""
    ints = []
    i = 0
    while i < len(data):
        b = data[i]
        sign = (b >> 6) & 1
        v = b & 0x3F
        shift = 6
        while b & 0x80:
            i += 1
            if i >= len(data) or shift > 27:
                raise ValueError("int: truncated")
            b = data[i]
            v |= (b & 0x7F) << shift
            shift += 7
        i += 1
        v &= 0xFFFFFFFF
        if sign:
            v ^= 0xFFFFFFFF
        ints.append(v - (1 << 32) if v & 0x80000000 else v)
    return ints


def read_demo_chunks(path):
    """Yields (index, tick, kind, payload bytes) for data chunks."""
    raw = open(path, "rb").read()
    if raw[:7] != b"TWDEMO\0":
        raise ValueError("not a TWDEMO file")
    version = raw[7]
    pos = 8
    header = raw[pos:pos + 168]
    pos += 168
    map_size = struct.unpack(">i", header[128:132])[0]
    if version >= 4:
        pos += 260  # timeline markers
    if version >= 6 and raw[pos:pos + 16] == SHA256_EXT_UUID:
        pos += 16 + 32
    pos += map_size
    tick = None
    index = 0
    kinds = {1: "snapshot", 2: "message", 3: "delta"}
    while pos < len(raw):
        b = raw[pos]
        pos += 1
        if b & 0x80:
            if version >= 5:
                inline, delta = b & 0x20, b & 0x1F
            else:
                inline, delta = b & 0x3F, b & 0x3F
            if inline:
                tick += delta
            else:
                tick = struct.unpack(">i", raw[pos:pos + 4])[0]
                pos += 4
            index += 1
            continue
        kind = (b >> 5) & 3
        size = b & 0x1F
        if size == 30:
            size = raw[pos]
            pos += 1
        elif size == 31:
            size = raw[pos] | raw[pos + 1] << 8
            pos += 2
        payload = raw[pos:pos + size]
        if len(payload) != size:
            raise ValueError("chunk past EOF")
        pos += size
        yield index, tick, kinds.get(kind, "unknown"), payload
        index += 1


def parse_full(ints):
    """CSnapshot: [data_size][num_items][offsets..][key data..]... -> list."""
    data_size, num = ints[0], ints[1]
    base = 2 + num
    offs = ints[2:base]
    assert base + data_size // 4 == len(ints), "snapshot size mismatch"
    items = []
    for i, off in enumerate(offs):
        stop = offs[i + 1] if i + 1 < num else data_size
        k = base + off // 4
        key = ints[k] & 0xFFFFFFFF
        items.append((key, list(ints[k + 1:base + stop // 4])))
    keys = [k for k, _ in items]
    assert len(set(keys)) == len(keys), "duplicate key in full snapshot"
    return items


def apply_delta(old, ints):
    """libtw2 doc/snapshot.md. old/new: list of (key, data) in order.
    Returns (new, removed, new_keys, changed_keys)."""
    num_removed, num_deltas = ints[0], ints[1]
    p = 3
    removed = set(k & 0xFFFFFFFF for k in ints[p:p + num_removed])
    p += num_removed
    old_map = dict(old)
    new = [(k, list(d)) for k, d in old if k not in removed]
    index = {k: i for i, (k, _) in enumerate(new)}
    added, changed = [], []
    for _ in range(num_deltas):
        type_id, id_ = ints[p], ints[p + 1]
        p += 2
        if type_id in STATIC_SIZES:
            size = STATIC_SIZES[type_id]
        else:
            size = ints[p]
            p += 1
        diff = ints[p:p + size]
        assert len(diff) == size, "delta item past the end"
        p += size
        key = ((type_id & 0xFFFF) << 16) | (id_ & 0xFFFF)
        if key in old_map:
            base = old_map[key]
            assert len(base) == size, "item size changed"
            data = [((a + b + 2**31) % 2**32) - 2**31 for a, b in zip(base, diff)]
            changed.append(key)
        else:
            data = list(diff)
            added.append(key)
        if key in index:
            new[index[key]] = (key, data)
        else:
            index[key] = len(new)
            new.append((key, data))
    assert p == len(ints), "delta: %d ints left over" % (len(ints) - p)
    return new, sorted(removed), added, changed


def c99_snapshot(old, ints):
    """ddnet_demo_c99's view of the next snapshot, to explain its
    snap_items numbers (it is a model of that library, not of the game).
    Its demo_r_unpack_delta (the ddnet_demo.h revision that skips updated
    items when copying; the peer output names 619d9b8, and this model
    reproduces its numbers exactly on every corpus demo) rebuilds the
    snapshot with its snapshot *builder* (demo_sb_add_item):
      1. items of the previous snapshot that are neither removed nor in
         the delta, in order; then every item of the delta;
      2. demo_sb_add_item treats a type >= 256 (OFFSET_UUID) as a DDNet
         extended type and, the first time it sees each such type in a
         builder, first inserts a NETOBJTYPE_EX item (type 0, id 0x7fff -
         slot, 4 ints of UUID), and stores the item as type 0x7fff - slot.
    In a demo the extended items already carry such types (0x7fff, 0x7ffe,
    ...) and their type-0 UUID items are already in the snapshot, so every
    delta adds one more type-0 item per distinct extended type, and the
    result is the base of the next delta: the count grows until the next
    full snapshot. Full snapshots are counted as they are (num_items)."""
    num_removed, num_deltas = ints[0], ints[1]
    removed = set(ints[3:3 + num_removed])
    p = 3 + num_removed
    deltas = []
    for _ in range(num_deltas):
        type_id, id_ = ints[p], ints[p + 1]
        p += 2
        if type_id in STATIC_SIZES:
            size = STATIC_SIZES[type_id]
        else:
            size = ints[p]
            p += 1
        deltas.append((type_id, id_, ints[p:p + size]))
        p += size
    in_delta = set((t, i) for t, i, _ in deltas)
    out = []
    ext = []

    def add(type_id, id_, data):
        if type_id >= 256:
            if type_id not in ext:
                ext.append(type_id)
                out.append((0x7FFF - (len(ext) - 1), [0, 0, 0, 0]))
            type_id = 0x7FFF - ext.index(type_id)
        out.append(((type_id << 16) | id_, data))

    def find(type_id, id_):  # linear, first match
        for k, d in old:
            if k >> 16 == type_id and k & 0xFFFF == id_:
                return d
        return None

    for k, d in old:
        if k not in removed and (k >> 16, k & 0xFFFF) not in in_delta:
            add(k >> 16, k & 0xFFFF, d)
    for type_id, id_, diff in deltas:
        base = find(type_id, id_)
        if base is not None:
            diff = [((a + b + 2**31) % 2**32) - 2**31 for a, b in zip(base, diff)]
        add(type_id, id_, list(diff))
    return out


def key_str(key):
    return "%d:%d" % (key >> 16, key & 0xFFFF)


def ints_to_str(ints):
    """The game's StrToInts inverse: 4 chars per int, big-endian, each
    stored as char + 128; NUL ends the string."""
    raw = bytearray()
    for v in ints:
        for shift in (24, 16, 8, 0):
            raw.append((((v >> shift) & 0xFF) - 128) & 0xFF)
    return bytes(raw).split(b"\0")[0].decode("utf-8", "replace")


def client_names(items):
    """obj_client_info (type 11, id = client id): name = data[0:4]."""
    return {key & 0xFFFF: ints_to_str(data[:4])
            for key, data in items if key >> 16 == 11 and len(data) >= 4}


def client_teams(items):
    """obj_player_info (type 10, id = client id; 0.6: local, client_id,
    team, score, latency): team = data[2]."""
    return {key & 0xFFFF: data[2] for key, data in items if key >> 16 == 10 and len(data) >= 3}


def huffman_selftest(path):
    n = bad = 0
    for line in open(path):
        line = line.strip()
        if "#" not in line:
            continue
        plain, packed = (bytes.fromhex(x) for x in line.split("#"))
        n += 1
        try:
            ok = huffman_decode(packed) == plain
        except (KeyError, ValueError):
            ok = False
        if not ok:
            bad += 1
            print("huffman mismatch: %s" % line[:80])
    print("huffman vectors: %d, mismatches: %d" % (n, bad))
    return 1 if bad or not n else 0


def main(argv):
    opts = [a for a in argv[1:] if a.startswith("--")]
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        sys.stderr.write(__doc__)
        return 2
    if "--huffman-selftest" in opts:
        return huffman_selftest(args[0])
    snap = snap_c99 = None
    counts_c99 = []
    names, teams = {}, {}
    for index, tick, kind, payload in read_demo_chunks(args[0]):
        if kind not in ("snapshot", "delta"):
            continue
        ints = unpack_ints(huffman_decode(payload))
        if kind == "snapshot":
            snap = snap_c99 = parse_full(ints)
            extra = ""
        else:
            if snap is None:
                raise ValueError("delta before the first snapshot")
            snap, removed, added, changed = apply_delta(snap, ints)
            snap_c99 = c99_snapshot(snap_c99, ints)
            extra = " %d %d %d" % (len(removed), len(added), len(changed))
        counts_c99.append(len(snap_c99))
        names.update(client_names(snap))
        teams.update(client_teams(snap))
        if "--c99" in opts or "--names" in opts or "--teams" in opts:
            continue
        print("%d %d %s %d%s" % (index, tick, kind, len(snap), extra))
        if "--items" in opts:
            print("  " + " ".join("%s/%d" % (key_str(k), len(d)) for k, d in snap))
    if "--c99" in opts:
        print("c99 per snapshot: %s" % " ".join(map(str, counts_c99)))
        print("c99 total %d max %d last %d" % (sum(counts_c99), max(counts_c99), counts_c99[-1]))
    if "--names" in opts:
        for cid in sorted(names):
            print("%d %s" % (cid, names[cid]))
    if "--teams" in opts:
        for cid in sorted(teams):
            print("%d %d" % (cid, teams[cid]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
