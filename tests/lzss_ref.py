#!/usr/bin/env python3
"""Reference Valve LZSS codec (engine tier1 CLZSS), stdlib only.

Written from the format description, not from runtime/zdem_lzss.c:
  b"LZSS", u32 little-endian uncompressed size, then groups of one command
  byte + 8 elements. Command bits are read least significant first;
  0 = literal byte, 1 = back-reference of two bytes b0 b1 with
  position = b0 * 16 + (b1 >> 4) and count = (b1 & 15) + 1: copy `count`
  bytes from position + 1 bytes before the end of the output so far, one at a
  time (so they may overlap what is being written). count == 1 ends the
  stream (position ignored). Window 4096, counts 2..16; Valve's encoder uses
  3..16 and writes the end marker as 0 0.
Validity rules shared with zdem (see runtime/zdem_lzss.h): the size must be
met exactly, a reference must not reach before the output's start, the end
marker must be the last byte, a size above the caller's capacity is
"no_space". Errors carry (kind, offset of the element in the input).

Command line (used by tests/test_runtime_lzss.c):
  lzss_ref.py gen OUTDIR CORPUS_DIR   write vectors NAME.raw / NAME.lzss and
                                      OUTDIR/MANIFEST (one NAME per line)
  lzss_ref.py check CASES RESULTS     decompress every case written by the C
                                      test and compare with its results
  lzss_ref.py compress IN OUT [lazy] [min2]
  lzss_ref.py selftest
"""
import os
import random
import struct
import sys

MAGIC = b"LZSS"
WINDOW = 4096
MAX_COUNT = 16

# Result kinds, and their one-byte tags in the check files (the C test uses
# the same tags).
KINDS = ["ok", "truncated", "bad_magic", "corrupt", "no_space"]


class LzssError(Exception):
    def __init__(self, kind, offset):
        Exception.__init__(self, "%s at %d" % (kind, offset))
        self.kind = kind
        self.offset = offset


# ---------------------------------------------------------------- decoder

def decompress(src, cap=None):
    """Returns the decompressed bytes or raises LzssError."""
    src = bytes(src)
    n = len(src)
    if src[:4] != MAGIC[:min(n, 4)]:
        raise LzssError("bad_magic", 0)
    if n < 8:
        raise LzssError("truncated", n)
    size = struct.unpack_from("<I", src, 4)[0]
    if cap is not None and size > cap:
        raise LzssError("no_space", 4)
    out = bytearray()
    pos = 8
    while True:
        if pos >= n:
            raise LzssError("truncated", pos)
        flags = src[pos]
        pos += 1
        for bit in range(8):
            start = pos
            if flags >> bit & 1:
                if pos + 2 > n:
                    raise LzssError("truncated", start)
                hi, lo = src[pos], src[pos + 1]
                pos += 2
                back = hi * 16 + (lo >> 4) + 1
                count = (lo & 15) + 1
                if count == 1:
                    if len(out) != size:
                        raise LzssError("corrupt", start)
                    if pos != n:
                        raise LzssError("corrupt", pos)
                    return bytes(out)
                if back > len(out):
                    raise LzssError("corrupt", start)
                if len(out) + count > size:
                    raise LzssError("corrupt", start)
                base = len(out) - back
                for k in range(count):
                    out.append(out[base + k])
            else:
                if pos >= n:
                    raise LzssError("truncated", start)
                if len(out) >= size:
                    raise LzssError("corrupt", start)
                out.append(src[pos])
                pos += 1


# ---------------------------------------------------------------- encoder

def _longest(data, i, cands, min_match, max_chain):
    """Best (length, distance) among candidate positions (newest first)."""
    n = len(data)
    limit = min(MAX_COUNT, n - i)
    best_len, best_dist = 0, 0
    tried = 0
    for j in reversed(cands):
        dist = i - j
        if dist > WINDOW:
            break
        tried += 1
        if tried > max_chain:
            break
        k = 0
        # may run into data[i:], the decoder copies byte by byte
        while k < limit and data[j + k] == data[i + k]:
            k += 1
        if k > best_len:
            best_len, best_dist = k, dist
            if k == limit:
                break
    if best_len < min_match:
        return 0, 0
    return best_len, best_dist


def compress(data, lazy=False, min_match=3, max_chain=128):
    """LZSS-compresses data. min_match 3 is what Valve's encoder does; 2 also
    exercises two-byte references, which the format allows."""
    data = bytes(data)
    assert 2 <= min_match <= MAX_COUNT
    key_len = min_match
    chains = {}
    items = []  # ("L", byte) or ("R", distance, count)

    def insert(p):
        if p + key_len <= len(data):
            lst = chains.setdefault(data[p:p + key_len], [])
            lst.append(p)
            if len(lst) > 4 * max_chain:
                del lst[:len(lst) - 2 * max_chain]

    def find(p):
        if p + key_len > len(data):
            return 0, 0
        return _longest(data, p, chains.get(data[p:p + key_len], []),
                        min_match, max_chain)

    i = 0
    pending = None  # match found at i while looking ahead (lazy)
    while i < len(data):
        length, dist = pending if pending else find(i)
        pending = None
        if length and lazy and length < MAX_COUNT and i + 1 < len(data):
            insert(i)
            nxt = find(i + 1)
            if nxt[0] > length:
                items.append(("L", data[i]))
                i += 1
                pending = nxt
                continue
            for p in range(i + 1, i + length):
                insert(p)
            items.append(("R", dist, length))
            i += length
            continue
        if length:
            for p in range(i, i + length):
                insert(p)
            items.append(("R", dist, length))
            i += length
        else:
            insert(i)
            items.append(("L", data[i]))
            i += 1
    return encode_items(items, len(data))


def encode_items(items, size, end_marker=(0, 0)):
    """Serialises elements: ("L", byte) / ("R", distance, count); the end
    marker is appended (its two bytes may be given to test that the position
    bits are ignored; its low nibble must be 0)."""
    out = bytearray(MAGIC + struct.pack("<I", size))
    elems = list(items) + [("E",)]
    for g in range(0, len(elems), 8):
        group = elems[g:g + 8]
        flags = 0
        body = bytearray()
        for bit, it in enumerate(group):
            if it[0] == "L":
                body.append(it[1])
            elif it[0] == "R":
                dist, count = it[1], it[2]
                assert 1 <= dist <= WINDOW and 2 <= count <= MAX_COUNT
                v = (dist - 1) << 4 | (count - 1)
                body += bytes([v >> 8, v & 0xFF])
                flags |= 1 << bit
            else:
                assert end_marker[1] & 15 == 0
                body += bytes(end_marker)
                flags |= 1 << bit
        out.append(flags)
        out += body
    return bytes(out)


# ---------------------------------------------------------------- vectors

def _corpus_files(corpus):
    """A few corpus files per kind, sorted so that runs are repeatable."""
    picks = []
    for sub, suffix in (("source2", ".dem"), ("q3", ""), ("teeworlds", ".demo"),
                        ("peers", ".json")):
        d = os.path.join(corpus, sub)
        if not os.path.isdir(d):
            continue
        names = sorted(f for f in os.listdir(d) if f.endswith(suffix)
                       and os.path.isfile(os.path.join(d, f)))
        picks += [os.path.join(d, f) for f in names[:2]]
    return picks


def vectors(corpus):
    """(name, data, options) for every generated vector."""
    rng = random.Random(20240611)
    out = []
    out.append(("empty", b"", {}))
    out.append(("one", b"\x7f", {}))
    out.append(("two", b"ab", {}))
    out.append(("zeros1000", bytes(1000), {}))
    out.append(("run_a_17", b"a" * 17, {}))
    out.append(("ab500", b"ab" * 500, {}))
    out.append(("abc_period", b"abcdefg" * 300, {"lazy": True}))
    for size in (1, 7, 8, 9, 15, 16, 17, 100, 4095, 4096, 4097, 20000):
        out.append(("random%d" % size,
                    bytes(rng.getrandbits(8) for _ in range(size)), {}))
    # small alphabets: many short matches, two-byte references with min2
    for size in (300, 5000):
        b = bytes(rng.choice(b"abcd") for _ in range(size))
        out.append(("abcd%d" % size, b, {}))
        out.append(("abcd%d_min2" % size, b, {"min_match": 2}))
        out.append(("abcd%d_lazy" % size, b, {"lazy": True}))
    # references at exactly the window's edge, and just past it
    blk = bytes(rng.getrandbits(8) for _ in range(4096))
    out.append(("window4096", blk + blk[:64], {}))
    blk2 = bytes(rng.getrandbits(8) for _ in range(4097))
    out.append(("window4097", blk2 + blk2[:64], {}))
    words = [b"player", b"entity", b"CCSPlayerPawn", b"m_iHealth", b"team",
             b"weapon_ak47", b"\x00", b"de_dust2", b"models/", b".vmdl"]
    text = b"".join(rng.choice(words) for _ in range(3000))
    out.append(("text", text, {}))
    out.append(("text_lazy", text, {"lazy": True}))
    out.append(("text_min2", text, {"min_match": 2, "lazy": True}))
    # real bytes: slices of corpus files, read at test time
    for fi, path in enumerate(_corpus_files(corpus)):
        with open(path, "rb") as f:
            b = f.read()
        kind = os.path.basename(os.path.dirname(path))
        for k, (off, ln) in enumerate(((0, 3000), (len(b) // 2, 40000),
                                       (max(0, len(b) - 2000), 2000))):
            chunk = b[off:off + ln]
            if chunk:
                out.append(("corpus_%s%d_%d" % (kind, fi, k), chunk,
                            {"lazy": k == 1}))
    return out


def gen(outdir, corpus):
    os.makedirs(outdir, exist_ok=True)
    names = []
    for name, data, opts in vectors(corpus):
        comp = compress(data, **opts)
        if decompress(comp) != data:  # the reference must round-trip
            raise SystemExit("lzss_ref: round trip failed for %s" % name)
        with open(os.path.join(outdir, name + ".raw"), "wb") as f:
            f.write(data)
        with open(os.path.join(outdir, name + ".lzss"), "wb") as f:
            f.write(comp)
        names.append(name)
    with open(os.path.join(outdir, "MANIFEST"), "w") as f:
        f.write("\n".join(names) + "\n")
    print("lzss_ref: %d vectors in %s" % (len(names), outdir))


# ---------------------------------------------------------------- check

def _records(path, fields):
    """Reads records of `fields` u32 values followed by a byte string whose
    length is the last u32 value."""
    with open(path, "rb") as f:
        b = f.read()
    i = 0
    head = struct.Struct("<" + "I" * fields)
    while i < len(b):
        vals = head.unpack_from(b, i)
        i += head.size
        data = b[i:i + vals[-1]]
        i += vals[-1]
        yield vals, data


def check(cases_path, results_path):
    """CASES: records (u32 cap, u32 len, bytes), cap 0xFFFFFFFF = unlimited.
    RESULTS: records (u32 kind, u32 offset, u32 len, bytes). The C test's
    result for each case must equal ours: same kind and offset, same bytes."""
    cases = list(_records(cases_path, 2))
    results = list(_records(results_path, 3))
    if len(cases) != len(results):
        print("lzss_ref check: %d cases but %d results" %
              (len(cases), len(results)))
        return 1
    bad = 0
    counts = {}
    for idx, (((cap, _), src), ((kind, off, _), out)) in enumerate(
            zip(cases, results)):
        try:
            ref = decompress(src, None if cap == 0xFFFFFFFF else cap)
            want = (0, 0, ref)
        except LzssError as e:
            want = (KINDS.index(e.kind), e.offset, b"")
        counts[KINDS[want[0]]] = counts.get(KINDS[want[0]], 0) + 1
        if (kind, off, out) != want:
            bad += 1
            if bad <= 10:
                print("case %d (%d bytes): C says %s@%d (%d bytes), "
                      "reference %s@%d (%d bytes)" %
                      (idx, len(src), KINDS[kind] if kind < len(KINDS)
                       else kind, off, len(out), KINDS[want[0]], want[1],
                       len(want[2])))
    print("lzss_ref check: %d cases, %d mismatches; reference outcomes %s" %
          (len(cases), bad, " ".join("%s=%d" % kv
                                     for kv in sorted(counts.items()))))
    return 1 if bad else 0


def selftest():
    # the example from the format description: "abc" then (distance 3,
    # count 8), end marker; command bits 0,0,0,1,1 -> 0x18
    v = MAGIC + struct.pack("<I", 11) + bytes(
        [0x18, 0x61, 0x62, 0x63, 0x00, 0x27, 0x00, 0x00])
    assert decompress(v) == b"abcabcabcab"
    assert compress(b"") == MAGIC + bytes(4) + b"\x01\x00\x00"
    for data in (b"", b"x", b"abababababababab" * 40, bytes(range(256)) * 20):
        for lazy in (False, True):
            for mm in (2, 3):
                assert decompress(compress(data, lazy, mm)) == data
    print("lzss_ref selftest ok")


def main(argv):
    if len(argv) >= 3 and argv[0] == "gen":
        gen(argv[1], argv[2])
        return 0
    if len(argv) == 3 and argv[0] == "check":
        return check(argv[1], argv[2])
    if len(argv) >= 3 and argv[0] == "compress":
        with open(argv[1], "rb") as f:
            data = f.read()
        comp = compress(data, lazy="lazy" in argv[3:],
                        min_match=2 if "min2" in argv[3:] else 3)
        with open(argv[2], "wb") as f:
            f.write(comp)
        return 0
    if argv == ["selftest"]:
        selftest()
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
