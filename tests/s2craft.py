#!/usr/bin/env python3
"""s2craft: write synthetic Source 2 (PBDEMS2) demo files, and hostile ones.

Standard library only (Python 3.6+). Field numbers come from
schema/source2/*.proto, message ids from schema/source2/ids/*.tsv, and the
field-path Huffman code is built from schema/source2/fields/fieldpath_ops.tsv
as its header says. The bit layouts follow the file format as the games
write it, cross-checked against public parsers (manta, clarity, haste,
demoinfocs); they do not depend on zdem's decoders.

Library, bottom up:
  Proto, pb()          protobuf encoding by hand (varint, zigzag sint,
                       length-delimited, fixed32 float, packed repeated)
  snappy_compress      Snappy raw stream (literals and copies; a claimed
                       length may be forged); snappy_decompress to check
  BitWriter            LSB-first bits, ubit_var, bit varints, field-path varint
  FP_CODES, write_fieldpaths   field-path Huffman ops with their arguments
                       (any path sequence; shortest op or a random fitting one)
  Field, Ser, flattened_serializer, send_tables, class_info
  st_entries, create_string_table, update_string_table
                       index increments and jumps, keys with the 32-key
                       history, fixed-size or length-prefixed (17-bit or
                       ubit_var) values, per-value Snappy
  EntityData           PacketEntities.entity_data: create / update / leave /
                       delete, class id bits, 17-bit serial, field data
  event_list, game_event, say_text2, server_info, net_tick, packet_data
  Demo                 framing: header, frames (0x40 = Snappy), DEM_Stop,
                       DEM_SpawnGroups, DEM_FileInfo and the header offsets
  build_normal         the normal demo and what a decoder must print
  GENERATORS           the hostile generators; write_seeds: fuzzing seeds

Command line:
  s2craft.py normal OUT [--ticks N] [--seed S] [--expect JSON]
  s2craft.py seeds DIR [--expect JSON]
  s2craft.py NAME OUT [-n N | --scale F] [-o KEY=VALUE] [--expect JSON]
  s2craft.py list | inspect FILE
tests/s2craft_check.py checks the normal demo and the seeds against
`zdem info/events/entities --json` and measures the hostile generators.
"""
import argparse
import heapq
import inspect
import json
import os
import random
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA_DIR = os.path.join(ROOT, "schema", "source2")

# --------------------------------------------------------------------------
# protobuf


def varint(v):
    """Base-128 varint of an unsigned value (negative: 64-bit two's complement)."""
    if v < 0:
        v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag(v, bits=32):
    return ((v << 1) ^ (v >> (bits - 1))) & ((1 << bits) - 1)


_WIRE = {"int32": 0, "int64": 0, "uint32": 0, "uint64": 0, "bool": 0,
         "sint32": 0, "sint64": 0, "fixed32": 5, "sfixed32": 5, "float": 5,
         "fixed64": 1, "sfixed64": 1, "double": 1, "string": 2, "bytes": 2}


class ProtoField(object):
    __slots__ = ("name", "num", "type", "label", "packed", "scope")

    def __init__(self, name, num, type_, label, packed, scope):
        self.name, self.num, self.type, self.label = name, num, type_, label
        self.packed, self.scope = packed, scope


class Proto(object):
    """The messages of a set of .proto files (proto2 subset: nested
    messages, optional/repeated/required scalar and message fields)."""

    def __init__(self, paths):
        self.msgs = {}
        for p in paths:
            with open(p, encoding="utf-8") as f:
                self._parse(f.read())

    def _parse(self, text):
        text = re.sub(r"//[^\n]*", "", text)
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        toks = re.findall(r'"[^"]*"|[A-Za-z_][\w.]*|-?\d+|\S', text)
        stack = []
        i = 0
        while i < len(toks):
            t = toks[i]
            if t == "message":
                stack.append(toks[i + 1])
                self.msgs[".".join(stack)] = {}
                i += 3
            elif t == "}":
                if stack:
                    stack.pop()
                i += 1
            elif t in ("optional", "repeated", "required") and stack:
                typ, name, num = toks[i + 1], toks[i + 2], int(toks[i + 4])
                j = i + 5
                packed = False
                if toks[j] == "[":
                    while toks[j] != "]":
                        if toks[j] == "packed" and toks[j + 2] == "true":
                            packed = True
                        j += 1
                    j += 1
                self.msgs[".".join(stack)][name] = ProtoField(
                    name, num, typ, t, packed, ".".join(stack))
                i = j + 1
            else:
                i += 1

    def resolve(self, scope, typ):
        parts = scope.split(".")
        for k in range(len(parts), -1, -1):
            cand = ".".join(parts[:k] + [typ])
            if cand in self.msgs:
                return cand
        return None

    def encode(self, msg, fields):
        """fields: {name: value}; a message value is a dict or encoded bytes,
        a repeated value a list. Fields go out in field-number order."""
        spec = self.msgs[msg]
        items = []
        for name, val in fields.items():
            if val is None:
                continue
            if name not in spec:
                raise KeyError("%s has no field %s" % (msg, name))
            items.append((spec[name], val))
        items.sort(key=lambda x: x[0].num)
        out = bytearray()
        for f, val in items:
            vals = val if f.label == "repeated" else [val]
            sub = None if f.type in _WIRE else self.resolve(f.scope, f.type)
            if f.type in _WIRE and f.packed and f.label == "repeated":
                body = b"".join(self._scalar(f.type, v) for v in vals)
                out += varint(f.num << 3 | 2) + varint(len(body)) + body
                continue
            for v in vals:
                if sub is not None:
                    body = v if isinstance(v, (bytes, bytearray)) else self.encode(sub, v)
                    out += varint(f.num << 3 | 2) + varint(len(body)) + body
                else:
                    out += varint(f.num << 3 | _WIRE[f.type]) + self._scalar(f.type, v)
        return bytes(out)

    @staticmethod
    def _scalar(t, v):
        if t in ("string", "bytes"):
            if isinstance(v, str):
                v = v.encode("utf-8")
            return varint(len(v)) + bytes(v)
        if t == "bool":
            return varint(1 if v else 0)
        if t == "sint32":
            return varint(zigzag(v, 32))
        if t == "sint64":
            return varint(zigzag(v, 64))
        if t in ("int32", "int64", "uint32", "uint64"):
            return varint(v)
        if t == "float":
            return struct.pack("<f", v)
        if t == "double":
            return struct.pack("<d", v)
        if t in ("fixed32", "sfixed32"):
            return struct.pack("<I", v & 0xFFFFFFFF)
        if t in ("fixed64", "sfixed64"):
            return struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)
        raise ValueError(t)


def read_ids():
    """{name: id} from schema/source2/ids/*.tsv."""
    ids = {}
    d = os.path.join(SCHEMA_DIR, "ids")
    for fn in sorted(os.listdir(d)):
        if not fn.endswith(".tsv"):
            continue
        with open(os.path.join(d, fn), encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line or line[0] in "#@":
                    continue
                cols = line.split("\t")
                if len(cols) >= 2 and cols[1].strip().isdigit():
                    ids[cols[0]] = int(cols[1])
    return ids


PROTO = Proto([os.path.join(SCHEMA_DIR, f) for f in sorted(os.listdir(SCHEMA_DIR))
               if f.endswith(".proto")])
IDS = read_ids()
TRACE = None  # list of (message name, bytes) when a caller wants to check them


def pb(msg, **fields):
    """One protobuf message by name; fields by name (see Proto.encode)."""
    b = PROTO.encode(msg, fields)
    if TRACE is not None:
        TRACE.append((msg, b))
    return b


def pb_decode(data):
    """Raw protobuf fields: [(number, wire type, value)]; value is an int
    or bytes. For inspection only."""
    out = []
    i = 0
    n = len(data)
    while i < n:
        key, i = _uvarint(data, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _uvarint(data, i)
        elif wt == 2:
            ln, i = _uvarint(data, i)
            v = bytes(data[i:i + ln])
            if len(v) != ln:
                raise ValueError("truncated")
            i += ln
        elif wt == 5:
            v = struct.unpack_from("<I", data, i)[0]
            i += 4
        elif wt == 1:
            v = struct.unpack_from("<Q", data, i)[0]
            i += 8
        else:
            raise ValueError("wire type %d" % wt)
        out.append((num, wt, v))
    return out


def _uvarint(data, i):
    v = s = 0
    while True:
        if i >= len(data):
            raise ValueError("truncated varint")
        b = data[i]
        i += 1
        v |= (b & 0x7F) << s
        s += 7
        if not b & 0x80:
            return v, i


# --------------------------------------------------------------------------
# Snappy (raw format: varint length, then literal and copy elements)


def _snappy_literal(out, data, a, b):
    while a < b:
        n = min(b - a, 65536)
        if n <= 60:
            out.append((n - 1) << 2)
        elif n <= 256:
            out += bytes([60 << 2, n - 1])
        else:
            out += bytes([61 << 2]) + struct.pack("<H", n - 1)
        out += data[a:a + n]
        a += n


def snappy_compress(data, copies=True, claim=None):
    """A valid Snappy stream of data: literals, plus greedy copies when
    copies is true. claim overrides the length preamble (hostile)."""
    data = bytes(data)
    out = bytearray(varint(len(data) if claim is None else claim))
    if not copies:
        _snappy_literal(out, data, 0, len(data))
        return bytes(out)
    table = {}
    i = lit = 0
    n = len(data)
    while i + 4 <= n:
        key = data[i:i + 4]
        j = table.get(key)
        table[key] = i
        if j is None or i - j > 65535:
            i += 1
            continue
        ln = 4
        while i + ln < n and ln < 64 and data[j + ln] == data[i + ln]:
            ln += 1
        _snappy_literal(out, data, lit, i)
        off = i - j
        if ln <= 11 and off < 2048:
            out += bytes([((off >> 8) << 5) | ((ln - 4) << 2) | 1, off & 0xFF])
        else:
            out += bytes([((ln - 1) << 2) | 2]) + struct.pack("<H", off)
        for k in range(i + 1, min(i + ln, n - 3)):
            table[data[k:k + 4]] = k
        i += ln
        lit = i
    _snappy_literal(out, data, lit, n)
    return bytes(out)


def snappy_decompress(data):
    """Reference decoder for self-checks and inspection."""
    n, i = _uvarint(data, 0)
    out = bytearray()
    while i < len(data):
        tag = data[i]
        i += 1
        t = tag & 3
        if t == 0:
            ln = tag >> 2
            if ln >= 60:
                nb = ln - 59
                ln = int.from_bytes(data[i:i + nb], "little")
                i += nb
            ln += 1
            out += data[i:i + ln]
            i += ln
            continue
        if t == 1:
            ln = ((tag >> 2) & 7) + 4
            off = ((tag >> 5) << 8) | data[i]
            i += 1
        elif t == 2:
            ln = (tag >> 2) + 1
            off = struct.unpack_from("<H", data, i)[0]
            i += 2
        else:
            ln = (tag >> 2) + 1
            off = struct.unpack_from("<I", data, i)[0]
            i += 4
        if off == 0 or off > len(out):
            raise ValueError("bad snappy copy offset")
        for _ in range(ln):
            out.append(out[-off])
    if len(out) != n:
        raise ValueError("snappy length mismatch %d != %d" % (len(out), n))
    return bytes(out)


# --------------------------------------------------------------------------
# bits


class BitWriter(object):
    """LSB-first bit writer (Valve's bitbuf order)."""

    def __init__(self):
        self.buf = bytearray()
        self.acc = 0
        self.nacc = 0

    @property
    def nbits(self):
        return len(self.buf) * 8 + self.nacc

    def bits(self, v, n):
        if n == 0:
            return self
        if v < 0 or v >> n:
            raise ValueError("%d does not fit in %d bits" % (v, n))
        self.acc |= v << self.nacc
        self.nacc += n
        while self.nacc >= 8:
            self.buf.append(self.acc & 0xFF)
            self.acc >>= 8
            self.nacc -= 8
        return self

    def bit(self, b):
        return self.bits(1 if b else 0, 1)

    def raw(self, data):
        data = bytes(data)
        if self.nacc == 0:
            self.buf += data
        else:
            for b in data:
                self.bits(b, 8)
        return self

    def ubitvar(self, v, form=None):
        """Valve's ubit_var: 6 bits, whose top two select 0, 4, 8 or 28 more.
        form forces a longer encoding (0..3)."""
        if form is None:
            form = 0 if v < 16 else 1 if v < 256 else 2 if v < 4096 else 3
        extra = (0, 4, 8, 28)[form]
        if v >> (4 + extra):
            raise ValueError("ubitvar %d does not fit form %d" % (v, form))
        if form == 0:
            return self.bits(v, 6)
        self.bits((v & 15) | (form << 4), 6)
        return self.bits(v >> 4, extra)

    def varuint(self, v):
        return self.raw(varint(v))

    def varint32(self, v):
        return self.raw(varint(zigzag(v, 32)))

    def varint64(self, v):
        return self.raw(varint(zigzag(v, 64)))

    def fp_ubitvar(self, v):
        """Field-path varint: 2, 4, 10, 17 or 31 bits after a unary prefix."""
        for n in (2, 4, 10, 17):
            if v < (1 << n):
                self.bit(1)
                return self.bits(v, n)
            self.bit(0)
        return self.bits(v, 31)

    def cstr(self, s):
        if isinstance(s, str):
            s = s.encode("utf-8")
        return self.raw(bytes(s) + b"\0")

    def float32(self, f):
        return self.bits(struct.unpack("<I", struct.pack("<f", f))[0], 32)

    def getvalue(self):
        """Bytes, the last one zero-padded."""
        out = bytearray(self.buf)
        if self.nacc:
            out.append(self.acc)
        return bytes(out)


# --------------------------------------------------------------------------
# field-path Huffman code and operations


def _read_ops():
    ops = []
    with open(os.path.join(SCHEMA_DIR, "fields", "fieldpath_ops.tsv"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, w = line.split("\t")
            ops.append((name, int(w)))
    return ops


def _huffman(ops):
    """As fieldpath_ops.tsv says: repeatedly merge the two lightest nodes;
    on equal weight the node created later (higher number) goes first; the
    first node taken is the 0 branch; a weight of 0 counts as 1."""
    heap = [(max(w, 1), -i, ("leaf", i)) for i, (_, w) in enumerate(ops)]
    heapq.heapify(heap)
    num = len(ops)
    while len(heap) > 1:
        wa, _, a = heapq.heappop(heap)
        wb, _, b = heapq.heappop(heap)
        heapq.heappush(heap, (wa + wb, -num, ("node", a, b)))
        num += 1
    codes = {}

    def walk(n, prefix):
        if n[0] == "leaf":
            codes[n[1]] = prefix
        else:
            walk(n[1], prefix + "0")
            walk(n[2], prefix + "1")
    walk(heap[0][2], "")
    return codes


FP_OPS = _read_ops()
FP_OP_ID = {name: i for i, (name, _) in enumerate(FP_OPS)}
FP_CODES = {FP_OPS[i][0]: c for i, c in _huffman(FP_OPS).items()}


def write_op(bw, name):
    for ch in FP_CODES[name]:  # first bit of the code first
        bw.bit(ch == "1")


def _fp_candidates(cur, tgt):
    """Every single operation that turns path cur into path tgt: a list of
    (op name, [argument writers]). Writers are (kind, value)."""
    L, M = len(cur), len(tgt)
    out = []
    if M == L and cur[:-1] == tgt[:-1]:
        d = tgt[-1] - cur[-1]
        if 1 <= d <= 4:
            out.append((("PlusOne", "PlusTwo", "PlusThree", "PlusFour")[d - 1], []))
        if d >= 5:
            out.append(("PlusN", [("fp", d - 5)]))
    if M > L and cur[:-1] == tgt[:L - 1]:
        d = tgt[L - 1] - cur[-1]
        push = tgt[L:]
        k = M - L
        if k == 1 and d >= 0:
            v = push[0]
            if d == 0:
                out.append(("PushOneLeftDeltaZeroRightZero", []) if v == 0 else
                           ("PushOneLeftDeltaZeroRightNonZero", [("fp", v)]))
            if d == 1:
                out.append(("PushOneLeftDeltaOneRightZero", []) if v == 0 else
                           ("PushOneLeftDeltaOneRightNonZero", [("fp", v)]))
            if v == 0:
                out.append(("PushOneLeftDeltaNRightZero", [("fp", d)]))
            if d >= 2 and v >= 1:
                out.append(("PushOneLeftDeltaNRightNonZero", [("fp", d - 2), ("fp", v - 1)]))
                if d - 2 < 8 and v - 1 < 8:
                    out.append(("PushOneLeftDeltaNRightNonZeroPack6Bits",
                                [("bits3", d - 2), ("bits3", v - 1)]))
                if d - 2 < 16 and v - 1 < 16:
                    out.append(("PushOneLeftDeltaNRightNonZeroPack8Bits",
                                [("bits4", d - 2), ("bits4", v - 1)]))
        if k in (2, 3) and d >= 0:
            word = "Two" if k == 2 else "Three"
            pre = {0: ("LeftDeltaZero", []), 1: ("LeftDeltaOne", [])}.get(
                d, ("LeftDeltaN", [("ubv", d - 2)]) if d >= 2 else None)
            if pre:
                out.append(("Push%s%s" % (word, pre[0]), pre[1] + [("fp", v) for v in push]))
                if max(push) < 32:
                    out.append(("Push%sPack5%s" % (word, pre[0]),
                                pre[1] + [("bits5", v) for v in push]))
        if d >= 0:
            out.append(("PushN", [("ubv", k), ("ubv", d)] + [("fp", v) for v in push]))
    if M > L:
        args = []
        for i in range(L):
            dl = tgt[i] - cur[i]
            args += [("bit", 1), ("v32", dl - 1)] if dl else [("bit", 0)]
        out.append(("PushNAndNonTopological",
                    args + [("ubv", M - L)] + [("fp", v) for v in tgt[L:]]))
    if M == 1 and L >= 1:
        d = tgt[0] - cur[0]
        if d == 1:
            out.append(("PopAllButOnePlusOne", []))
        if d >= 1:
            out.append(("PopAllButOnePlusN", [("fp", d - 1)]))
            if d - 1 < 8:
                out.append(("PopAllButOnePlusNPack3Bits", [("bits3", d - 1)]))
            if d - 1 < 64:
                out.append(("PopAllButOnePlusNPack6Bits", [("bits6", d - 1)]))
    if M < L and cur[:M - 1] == tgt[:M - 1]:
        d = tgt[M - 1] - cur[M - 1]
        if M == L - 1 and d == 1:
            out.append(("PopOnePlusOne", []))
        if M == L - 1 and d >= 1:
            out.append(("PopOnePlusN", [("fp", d - 1)]))
        if d == 1:
            out.append(("PopNPlusOne", [("fp", L - M)]))
        out.append(("PopNPlusN", [("fp", L - M), ("v32", d)]))
    if M <= L:
        args = [("fp", L - M)]
        for i in range(M):
            dl = tgt[i] - cur[i]
            args += [("bit", 1), ("v32", dl)] if dl else [("bit", 0)]
        out.append(("PopNAndNonTopographical", args))
    if M == L:
        args = []
        args4 = []
        for i in range(M):
            dl = tgt[i] - cur[i]
            args += [("bit", 1), ("v32", dl)] if dl else [("bit", 0)]
            if args4 is not None:
                if dl == 0:
                    args4.append(("bit", 0))
                elif -7 <= dl <= 8:
                    args4 += [("bit", 1), ("bits4", dl + 7)]
                else:
                    args4 = None
        out.append(("NonTopoComplex", args))
        if args4 is not None:
            out.append(("NonTopoComplexPack4Bits", args4))
        if M >= 2 and tgt[-2] == cur[-2] + 1 and tgt[:-2] == cur[:-2] and tgt[-1] == cur[-1]:
            out.append(("NonTopoPenultimatePlusOne", []))
    return out


def _write_args(bw, args):
    for kind, v in args:
        if kind == "fp":
            bw.fp_ubitvar(v)
        elif kind == "ubv":
            bw.ubitvar(v)
        elif kind == "v32":
            bw.varint32(v)
        elif kind == "bit":
            bw.bit(v)
        else:
            bw.bits(v, int(kind[4:]))


def _cost(op, args):
    bw = BitWriter()
    _write_args(bw, args)
    return len(FP_CODES[op]) + bw.nbits


def write_fieldpaths(bw, paths, rng=None):
    """Encodes paths (tuples, in order) and FieldPathEncodeFinish. With rng
    the operation is picked at random among all that fit (coverage), else
    the shortest."""
    cur = [-1]
    used = []
    for p in paths:
        p = list(p)
        cands = _fp_candidates(cur, p)
        if not cands:
            raise ValueError("no field-path op from %r to %r" % (cur, p))
        if rng is not None:
            op, args = rng.choice(cands)
        else:
            op, args = min(cands, key=lambda c: _cost(*c))
        write_op(bw, op)
        _write_args(bw, args)
        used.append(op)
        cur = p
    write_op(bw, "FieldPathEncodeFinish")
    return used


# --------------------------------------------------------------------------
# field values


def f32(x):
    """x rounded to a float32."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


class QFloat(object):
    """CNetworkedQuantizedFloat without flags: value = low + (high-low) *
    (u / (2^bits - 1)), computed in float32 as the engine does."""

    def __init__(self, bits, low, high):
        self.bits, self.low, self.high = bits, f32(low), f32(high)

    def value(self, u):
        dec_mul = f32(1.0 / f32((1 << self.bits) - 1))
        return f32(self.low + f32(f32(self.high - self.low) * f32(f32(u) * dec_mul)))


def write_value(bw, kind, v, field=None):
    """One entity field value. kind: the decoder a field type maps to
    ("x:..." for the XField kinds of EXTRA_KINDS)."""
    if kind.startswith("x:"):
        field.writer(bw, v, field)
    elif kind == "bool":
        bw.bit(v)
    elif kind in ("uvar32", "uvar64", "count"):
        bw.varuint(v)
    elif kind == "svar32":
        bw.varint32(v)
    elif kind == "svar64":
        bw.varint64(v)
    elif kind == "fixed64":
        bw.bits(v & 0xFFFFFFFF, 32).bits(v >> 32, 32)
    elif kind == "float":
        bw.float32(v)
    elif kind == "qfloat":  # v: the quantized integer
        bw.bits(v, field.bit_count)
    elif kind == "vector3":
        for x in v:
            bw.float32(x)
    elif kind == "string":
        bw.cstr(v)
    elif kind == "blob":
        bw.varuint(len(v)).raw(v)
    else:
        raise ValueError(kind)


def json_value(kind, v, field=None):
    """What `zdem entities --json` prints for a value, as Python data."""
    if kind.startswith("x:"):
        return field.jsonf(v, field)
    if kind == "qfloat":
        return field.q.value(v)
    if kind == "float":
        return f32(v)
    if kind == "vector3":
        return [f32(x) for x in v]
    if kind in ("string", "blob"):
        return json_bytes(v)
    if kind == "bool":
        return bool(v)
    return v


def json_bytes(b):
    """A byte string as zdem's JSON writer shows it: valid UTF-8 as is,
    other bytes as their Latin-1 character."""
    if isinstance(b, str):
        b = b.encode("utf-8")
    out = []
    i = 0
    while i < len(b):
        c = b[i]
        n = 1 if c < 0x80 else 2 if c & 0xE0 == 0xC0 else 3 if c & 0xF0 == 0xE0 else \
            4 if c & 0xF8 == 0xF0 else 0
        if n > 1:
            try:
                s = b[i:i + n].decode("utf-8")
                if len(s) == 1:
                    out.append(s)
                    i += n
                    continue
            except UnicodeDecodeError:
                pass
        out.append(chr(c))
        i += 1
    return "".join(out)


# --------------------------------------------------------------------------
# serializers


# Field models (how sub-paths of a field are laid out), as the public
# parsers call them.
SIMPLE, FIXED_ARRAY, VAR_ARRAY, FIXED_TABLE, VAR_TABLE = range(5)
# type name -> value decoder, for the types the generators use
TYPE_KIND = {"bool": "bool", "int8": "svar32", "int16": "svar32", "int32": "svar32",
             "int64": "svar64", "uint8": "uvar32", "uint16": "uvar32",
             "uint32": "uvar32", "uint64": "uvar64", "float32": "float",
             "CUtlString": "string", "CUtlSymbolLarge": "string", "char": "string",
             "Vector": "vector3", "CUtlBinaryBlock": "blob"}


class Field(object):
    def __init__(self, name, type_, bit_count=None, low=None, high=None, flags=None,
                 encoder=None, ser=None, var_serializer=None):
        self.name = name.encode("utf-8") if isinstance(name, str) else name
        self.var_serializer = var_serializer
        self.type = type_.encode("utf-8") if isinstance(type_, str) else type_
        self.bit_count, self.low, self.high, self.flags = bit_count, low, high, flags
        self.encoder = encoder
        self.ser = ser  # nested Ser (pointer or vector of structs)
        t = self.type.decode("latin-1").strip()
        self.pointer = t.endswith("*")
        m = re.match(r"^([^<\[]*?)\s*(?:<\s*(.*?)\s*>)?\s*(?:\[\s*(\w+)\s*\])?\s*\*?$", t)
        self.base = m.group(1).strip()
        self.arg = m.group(2)
        self.count = int(m.group(3)) if m.group(3) and m.group(3).isdigit() else 0
        if ser is not None:
            self.model = FIXED_TABLE if self.pointer else VAR_TABLE
            self.kind = "bool" if self.pointer else "count"
        elif m.group(3) and self.base != "char":
            self.model = FIXED_ARRAY
            self.kind = self._kind(self.base)
        elif self.base in ("CUtlVector", "CNetworkUtlVectorBase"):
            self.model = VAR_ARRAY
            self.kind = "count"
            self.elem_kind = self._kind(self.arg)
        else:
            self.model = SIMPLE
            self.kind = self._kind(self.base)
        if self.kind == "float" and bit_count and 0 < bit_count < 32:
            self.kind = "qfloat"
            self.q = QFloat(bit_count, low, high)

    @staticmethod
    def _kind(base):
        return TYPE_KIND.get(base, "uvar64")


class Ser(object):
    def __init__(self, name, fields, version=0):
        self.name = name.encode("utf-8") if isinstance(name, str) else name
        self.version = version
        self.fields = fields


def flattened_serializer(sers, extra_symbols=(), packed=False, field_dedup=True):
    """CSVCMsg_FlattenedSerializer bytes for serializers (nested ones must
    be in the list too, before or after their users)."""
    symbols = []
    symidx = {}

    def sym(s):
        if isinstance(s, str):
            s = s.encode("utf-8")
        if s not in symidx:
            symidx[s] = len(symbols)
            symbols.append(s)
        return symidx[s]
    for s in extra_symbols:
        sym(s)
    fields = []
    fidx = {}
    out_sers = []
    for s in sers:
        idxs = []
        for f in s.fields:
            key = id(f)
            if field_dedup and key in fidx:
                idxs.append(fidx[key])
                continue
            m = {"var_type_sym": sym(f.type), "var_name_sym": sym(f.name)}
            if f.bit_count is not None:
                m["bit_count"] = f.bit_count
            if f.low is not None:
                m["low_value"] = f.low
            if f.high is not None:
                m["high_value"] = f.high
            if f.flags is not None:
                m["encode_flags"] = f.flags
            if f.ser is not None:
                m["field_serializer_name_sym"] = sym(f.ser.name)
                m["field_serializer_version"] = f.ser.version
            if f.encoder is not None:
                m["var_encoder_sym"] = sym(f.encoder)
            if getattr(f, "var_serializer", None) is not None:
                m["var_serializer_sym"] = sym(f.var_serializer)
            fidx[key] = len(fields)
            idxs.append(len(fields))
            fields.append(PROTO.encode("ProtoFlattenedSerializerField_t", m))
        out_sers.append({"serializer_name_sym": sym(s.name), "serializer_version": s.version,
                         "fields_index": idxs})
    if packed:
        spec = PROTO.msgs["ProtoFlattenedSerializer_t"]["fields_index"]
        spec.packed = True
        try:
            return pb("CSVCMsg_FlattenedSerializer", serializers=out_sers, symbols=symbols,
                      fields=fields)
        finally:
            spec.packed = False
    return pb("CSVCMsg_FlattenedSerializer", serializers=out_sers, symbols=symbols,
              fields=fields)


def send_tables(flat):
    """CDemoSendTables: data = varint length + CSVCMsg_FlattenedSerializer."""
    return pb("CDemoSendTables", data=varint(len(flat)) + flat)


def class_info(names):
    """CDemoClassInfo for class ids 0..n-1 (or (id, name) pairs)."""
    classes = []
    for i, n in enumerate(names):
        cid, n = (n if isinstance(n, tuple) else (i, n))
        classes.append({"class_id": cid, "network_name": n, "table_name": n})
    return pb("CDemoClassInfo", classes=classes)


def class_bits(max_classes):
    """Bits of a class id in an entity create: floor(log2(max_classes)) + 1
    (manta, demoinfocs; clarity and haste use ceil(log2(classes)), the same
    unless the count is a power of two)."""
    return max(1, max_classes.bit_length())


def resolve_path(ser, path):
    """(property name, value kind, field) that `path` names in serializer
    ser, following the field models; names as zdem prints them."""
    names = []
    pos = 0
    while True:
        f = ser.fields[path[pos]]
        names.append(json_bytes(f.name))
        rem = len(path) - pos - 1
        if f.model == SIMPLE:
            assert rem == 0, path
            return ".".join(names), f.kind, f
        if f.model == FIXED_ARRAY:
            assert rem == 1, path
            names.append(str(path[pos + 1]))
            return ".".join(names), f.kind, f
        if f.model == VAR_ARRAY:
            if rem == 0:
                return ".".join(names), "count", f
            assert rem == 1, path
            names.append(str(path[pos + 1]))
            return ".".join(names), f.elem_kind, f
        if f.model == FIXED_TABLE:
            if rem == 0:
                return ".".join(names), "bool", f
            ser = f.ser
            pos += 1
            continue
        if f.model == VAR_TABLE:
            if rem == 0:
                return ".".join(names), "count", f
            assert rem >= 2, path
            names.append(str(path[pos + 1]))
            ser = f.ser
            pos += 2
            continue
        raise AssertionError


def field_data(ser, values, rng=None):
    """Field paths + values for {path: value}, as in entity_data and
    baselines. Returns BitWriter bytes (byte-aligned, padded)."""
    bw = BitWriter()
    write_field_data(bw, ser, values, rng)
    return bw.getvalue()


def write_field_data(bw, ser, values, rng=None):
    paths = sorted(values)
    write_fieldpaths(bw, paths, rng)
    for p in paths:
        _, kind, f = resolve_path(ser, p)
        write_value(bw, kind, values[p], f)


# --------------------------------------------------------------------------
# string tables


def st_entries(entries, user_data_fixed=False, size_bits=0, flags=0, varint_bits=True,
               history=True, compress_values=False):
    """string_data of CSVCMsg_CreateStringTable / UpdateStringTable.
    entries: [(index, key bytes or None, value bytes or None)], in the order
    they go out. An index one past the previous is an increment, any other
    a jump (varuint index-1). Keys reuse the longest prefix (up to 31 bytes)
    of one of the last 32 keys when history is true. Values: fixed-size
    (size_bits bits) or [compressed bit when flags & 1] + length (ubit_var
    with varint_bits, else 17 bits) + bytes."""
    bw = BitWriter()
    hist = []
    prev = -1
    for idx, key, val in entries:
        if idx == prev + 1:
            bw.bit(1)
        else:
            if idx < 1:
                raise ValueError("index %d cannot be a jump" % idx)
            bw.bit(0).varuint(idx - 1)
        prev = idx
        bw.bit(key is not None)
        if key is not None:
            if isinstance(key, str):
                key = key.encode("utf-8")
            best = (0, 0)
            if history:
                for pos, h in enumerate(hist):
                    n = 0
                    lim = min(len(h), len(key), 31)
                    while n < lim and h[n] == key[n]:
                        n += 1
                    if n > best[1]:
                        best = (pos, n)
            if best[1] >= 2:
                bw.bit(1).bits(best[0], 5).bits(best[1], 5).cstr(key[best[1]:])
            else:
                bw.bit(0).cstr(key)
            hist.append(key[:32])
            if len(hist) > 32:
                hist.pop(0)
        bw.bit(val is not None)
        if val is not None:
            if user_data_fixed:
                v = int.from_bytes(val, "little")
                bw.bits(v & ((1 << size_bits) - 1), size_bits)
            else:
                data = val
                if flags & 1:
                    bw.bit(compress_values)
                    if compress_values:
                        data = snappy_compress(val)
                if varint_bits:
                    bw.ubitvar(len(data))
                else:
                    bw.bits(len(data), 17)
                bw.raw(data)
    return bw.getvalue()


def create_string_table(name, entries, compressed=False, user_data_fixed=False,
                        user_data_size=0, size_bits=0, flags=0, varint_bits=True,
                        history=True, compress_values=False, num_entries=None):
    data = st_entries(entries, user_data_fixed, size_bits, flags, varint_bits, history,
                      compress_values)
    m = {"name": name, "num_entries": len(entries) if num_entries is None else num_entries,
         "user_data_fixed_size": user_data_fixed, "user_data_size": user_data_size,
         "user_data_size_bits": size_bits, "flags": flags,
         "using_varint_bitcounts": varint_bits}
    if compressed == "lzss":
        # Valve's LZSS, through the independent reference codec
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import lzss_ref
        m["string_data"] = lzss_ref.compress(data)
        m["uncompressed_size"] = len(data)
        m["data_compressed"] = True
    elif compressed:
        m["string_data"] = snappy_compress(data)
        m["uncompressed_size"] = len(data)
        m["data_compressed"] = True
    else:
        m["string_data"] = data
        m["data_compressed"] = False
    return pb("CSVCMsg_CreateStringTable", **m)


def update_string_table(table_id, entries, **kw):
    return pb("CSVCMsg_UpdateStringTable", table_id=table_id,
              num_changed_entries=len(entries), string_data=st_entries(entries, **kw))


# --------------------------------------------------------------------------
# entities


class EntityData(object):
    """CSVCMsg_PacketEntities.entity_data: entries in index order, each an
    index delta (ubit_var), 2 command bits (bit 0 leave, bit 1 create or
    delete), then for a create class id, serial (17 bits) and a varuint,
    and for a create or update the field paths and values."""

    def __init__(self, cls_bits, pvs_bits=False, rng=None):
        self.bw = BitWriter()
        self.cls_bits = cls_bits
        self.pvs_bits = pvs_bits
        self.rng = rng
        self.last = -1
        self.count = 0

    def _index(self, idx, cmd):
        if idx <= self.last:
            raise ValueError("entity indexes must increase (%d after %d)" % (idx, self.last))
        self.bw.ubitvar(idx - self.last - 1)
        self.bw.bits(cmd, 2)
        self.last = idx
        self.count += 1

    def create(self, idx, cls, serial, ser, values, extra=0):
        self._index(idx, 2)
        self.bw.bits(cls, self.cls_bits).bits(serial, 17).varuint(extra)
        write_field_data(self.bw, ser, values, self.rng)

    def update(self, idx, ser, values, pvs=0):
        self._index(idx, 0)
        if self.pvs_bits:
            self.bw.bits(pvs, 2)
            if pvs & 1:
                return
        write_field_data(self.bw, ser, values, self.rng)

    def leave(self, idx):
        self._index(idx, 1)

    def delete(self, idx):
        self._index(idx, 3)

    def message(self, is_delta=True, max_entries=16384, delta_from=None, baseline=0,
                server_tick=None, full_frame=False):
        m = {"max_entries": max_entries, "updated_entries": self.count,
             "legacy_is_delta": is_delta, "baseline": baseline,
             "entity_data": self.bw.getvalue(), "pending_full_frame": full_frame}
        if delta_from is not None:
            m["delta_from"] = delta_from
        if server_tick is not None:
            m["server_tick"] = server_tick
        if self.pvs_bits:
            m["has_pvs_vis_bits"] = 1
        return pb("CSVCMsg_PacketEntities", **m)


# --------------------------------------------------------------------------
# packets and framing


def inner(name, payload):
    return (IDS[name] if isinstance(name, str) else name, payload)


def packet_data(msgs):
    """CDemoPacket.data: per message ubit_var type, varuint32 size (bit
    varint), payload bytes; bit-packed, padded to a byte."""
    bw = BitWriter()
    for t, payload in msgs:
        bw.ubitvar(t)
        bw.varuint(len(payload))
        bw.raw(payload)
    return bw.getvalue()


def demo_packet(msgs):
    return pb("CDemoPacket", data=packet_data(msgs))


PREGAME = 0xFFFFFFFF


class Demo(object):
    """A PBDEMS2 file: "PBDEMS2\\0", int32 LE DEM_FileInfo offset, int32 LE
    DEM_SpawnGroups offset, then frames (varuint32 command | 0x40 when
    Snappy-compressed, varuint32 tick, varuint32 size, payload)."""

    def __init__(self):
        self.buf = bytearray(b"PBDEMS2\0" + bytes(8))
        self.frames = 0
        self.last_tick = 0
        self.packets = 0

    def frame(self, cmd, tick, payload, compress=False, claim=None):
        c = IDS[cmd] if isinstance(cmd, str) else cmd
        if compress:
            payload = snappy_compress(payload, claim=claim)
            c |= IDS["DEM_IsCompressed"]
        off = len(self.buf)
        self.buf += varint(c) + varint(tick) + varint(len(payload)) + payload
        self.frames += 1
        if tick != PREGAME:
            self.last_tick = tick
        if cmd in ("DEM_Packet", "DEM_FullPacket"):
            self.packets += 1
        return off

    def raw(self, data):
        self.buf += data

    def finish(self, tick_interval=1.0 / 64, stop=True, fileinfo=None):
        """DEM_Stop, DEM_SpawnGroups, DEM_FileInfo; header offsets."""
        if stop:
            self.frame("DEM_Stop", self.last_tick, pb("CDemoStop"))
        sg = self.frame("DEM_SpawnGroups", self.last_tick, pb("CDemoSpawnGroups"))
        if fileinfo is None:
            fileinfo = pb("CDemoFileInfo", playback_time=self.last_tick * tick_interval,
                          playback_ticks=self.last_tick, playback_frames=self.packets,
                          game_info={"cs": {"round_start_ticks": [1]}})
        fi = self.frame("DEM_FileInfo", self.last_tick, fileinfo)
        struct.pack_into("<ii", self.buf, 8, fi, sg)
        return bytes(self.buf)


def file_header(map_name="de_synth", game_dir="csgo", protocol=14070, build=10000):
    return pb("CDemoFileHeader", demo_file_stamp=b"PBDEMS2\0", network_protocol=protocol,
              server_name="s2craft", client_name="SourceTV Demo", map_name=map_name,
              game_directory=game_dir, fullpackets_version=2,
              allow_clientside_entities=True, allow_clientside_particles=True,
              addons="", demo_version_name="valve_demo_2",
              demo_version_guid="8e9d71ab-04a1-4c01-bb61-acfede27c046",
              build_num=build, game="", server_start_tick=0)


def server_info(max_classes, tick_interval=1.0 / 64, map_name="de_synth"):
    return pb("CSVCMsg_ServerInfo", protocol=14070, server_count=1, is_dedicated=True,
              is_hltv=True, c_os=108, max_clients=64, max_classes=max_classes,
              player_slot=0, tick_interval=tick_interval, game_dir="csgo",
              map_name=map_name, sky_name="sky", host_name="s2craft")


def net_tick(tick):
    return inner("net_Tick", pb("CNETMsg_Tick", tick=tick, host_computationtime=1000,
                                host_computationtime_std_deviation=100,
                                host_frame_dropped_pct_x10=0))


EVENT_KEY_TYPES = {"string": 1, "float": 2, "long": 3, "short": 4, "byte": 5,
                   "bool": 6, "uint64": 7}


def event_list(descs):
    """descs: [(eventid, name, [(key name, type name)])]."""
    return pb("CMsgSource1LegacyGameEventList", descriptors=[
        {"eventid": i, "name": n,
         "keys": [{"type": EVENT_KEY_TYPES[t], "name": k} for k, t in keys]}
        for i, n, keys in descs])


def game_event(eventid, keys, name=None):
    """keys: [(type name, value)] in descriptor order."""
    ks = []
    for t, v in keys:
        k = {"type": EVENT_KEY_TYPES[t]}
        k["val_" + t] = v
        ks.append(k)
    return pb("CMsgSource1LegacyGameEvent", event_name=name, eventid=eventid, keys=ks)


def event_json_value(t, v):
    if t == "float":
        return f32(v)
    if t == "string":
        return json_bytes(v)
    if t == "bool":
        return bool(v)
    return v


def say_text2(entityindex, name, text, messagename="Cstrike_Chat_All"):
    return pb("CUserMessageSayText2", entityindex=entityindex, chat=True,
              messagename=messagename, param1=name, param2=text, param3="", param4="")


# --------------------------------------------------------------------------
# reading (inspection and self-checks; not a decoder to trust blindly)


class BitReader(object):
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def bits(self, n):
        v = 0
        for i in range(n):
            p = self.pos + i
            v |= ((self.data[p >> 3] >> (p & 7)) & 1) << i
        self.pos += n
        return v

    def ubitvar(self):
        v = self.bits(6)
        sel = v >> 4
        if sel == 0:
            return v
        return (v & 15) | (self.bits((0, 4, 8, 28)[sel]) << 4)

    def varuint(self):
        v = s = 0
        while True:
            b = self.bits(8)
            v |= (b & 0x7F) << s
            s += 7
            if not b & 0x80:
                return v

    def left(self):
        return len(self.data) * 8 - self.pos


def read_frames(buf):
    """[(offset, cmd, compressed, tick, payload bytes as stored)]."""
    if buf[:8] != b"PBDEMS2\0":
        raise ValueError("not PBDEMS2")
    out = []
    i = 16
    while i < len(buf):
        off = i
        cmd, i = _uvarint(buf, i)
        tick, i = _uvarint(buf, i)
        size, i = _uvarint(buf, i)
        out.append((off, cmd & ~64, bool(cmd & 64), tick, bytes(buf[i:i + size])))
        i += size
    return out


def read_inner(data):
    """[(type, payload)] of CDemoPacket.data."""
    br = BitReader(data)
    out = []
    while br.left() >= 8:
        t = br.ubitvar()
        n = br.varuint()
        out.append((t, bytes(br.bits(8) for _ in range(n))))
    return out


def _fields_of(msg, data):
    spec = {f.num: f for f in PROTO.msgs[msg].values()}
    out = {}
    for num, wt, v in pb_decode(data):
        f = spec.get(num)
        out.setdefault(f.name if f else num, []).append(v)
    return out


def dump_demo(path, out=sys.stdout):
    names = {v: k for k, v in IDS.items() if k.startswith("DEM_")}
    inner_names = {}
    for k, v in IDS.items():
        if not k.startswith("DEM_"):
            inner_names.setdefault(v, k)
    with open(path, "rb") as f:
        buf = f.read()
    for off, cmd, comp, tick, payload in read_frames(buf):
        data = snappy_decompress(payload) if comp else payload
        out.write("%8d %-18s tick %-10d %d%s\n" % (off, names.get(cmd, cmd), tick, len(payload),
                                                   " snappy" if comp else ""))
        if cmd in (7, 8):
            pkt = _fields_of("CDemoPacket", data).get("data", [b""])[0]
            for t, p in read_inner(pkt):
                nm = inner_names.get(t, str(t))
                extra = ""
                if nm == "svc_CreateStringTable":
                    fl = _fields_of("CSVCMsg_CreateStringTable", p)
                    extra = " ".join("%s=%s" % (k, v[0]) for k, v in fl.items()
                                     if k != "string_data")
                out.write("    %-32s %6d %s\n" % (nm, len(p), extra))


# --------------------------------------------------------------------------
# the "normal" demo: every layer, with what a decoder must report


def _leaf_paths(ser, prefix, counts):
    """Paths of every value of ser given var-array / var-table counts
    (counts: {path prefix tuple: n}); pointers are followed when present
    (counts[path] = 1)."""
    out = []
    for i, f in enumerate(ser.fields):
        p = prefix + (i,)
        if f.model == SIMPLE:
            out.append(p)
        elif f.model == FIXED_ARRAY:
            out += [p + (k,) for k in range(f.count)]
        elif f.model == VAR_ARRAY:
            out.append(p)
            out += [p + (k,) for k in range(counts.get(p, 0))]
        elif f.model == FIXED_TABLE:
            out.append(p)
            if counts.get(p, 0):
                out += _leaf_paths(f.ser, p, counts)
        elif f.model == VAR_TABLE:
            out.append(p)
            for k in range(counts.get(p, 0)):
                out += _leaf_paths(f.ser, p + (k,), counts)
    return out


WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
         "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"]
ODD_STRINGS = ["J\u00f6rg", "\u73a9\u5bb6", "say \"hi\"", "back\\slash", "tab\there",
               "new\nline", "\u00e9t\u00e9 \U0001F600", "<b>&amp;</b>", ""]


class Model(object):
    """A generated demo plus what it must decode to."""

    def __init__(self, rng):
        self.rng = rng

    def rand_value(self, kind, field=None, old=None):
        r = self.rng
        if kind == "bool":
            return r.random() < 0.5 if old is None else not old
        if kind == "uvar32":
            return r.choice([r.randrange(0, 128), r.randrange(0, 1 << 16), r.randrange(0, 1 << 32)])
        if kind == "svar32":
            return r.choice([r.randrange(-64, 64), r.randrange(-(1 << 31), 1 << 31)])
        if kind == "uvar64":
            return r.choice([r.randrange(0, 1 << 20), r.randrange(0, 1 << 64)])
        if kind == "svar64":
            return r.randrange(-(1 << 63), 1 << 63)
        if kind == "float":
            return f32(r.choice([0.0, 1.0, -1.5, round(r.uniform(-5000, 5000), 3), r.uniform(-1e-3, 1e-3)]))
        if kind == "qfloat":
            return r.randrange(0, 1 << field.bit_count)
        if kind == "vector3":
            return [f32(round(r.uniform(-4096, 4096), 2)) for _ in range(3)]
        if kind == "string":
            if r.random() < 0.3:
                return r.choice(ODD_STRINGS)
            return "%s %s %d" % (r.choice(WORDS), r.choice(WORDS), r.randrange(1000))
        raise ValueError(kind)


class Ent(object):
    def __init__(self, idx, cls, serial):
        self.idx, self.cls, self.serial = idx, cls, serial
        self.active = True
        self.props = {}   # path -> raw value
        self.counts = {}  # var array / table / pointer path -> count


def normal_schema():
    item = Ser("CEconItemView", [Field("m_iItemDefinitionIndex", "uint16"),
                                 Field("m_szCustomName", "CUtlString"),
                                 Field("m_iEntityQuality", "int32")])
    comp = Ser("CFooComponent", [Field("m_nX", "uint32"), Field("m_flY", "float32"),
                                 Field("m_bZ", "bool"),
                                 Field("m_Sub", "CUtlVectorEmbeddedNetworkVar< CEconItemView >",
                                       ser=item)])
    world = Ser("CWorld", [Field("m_iHealth", "int32"), Field("m_flTime", "float32"),
                           Field("m_bEnabled", "bool"), Field("m_nSeed", "uint64")])
    ctrl = Ser("CCSPlayerController", [
        Field("m_iszPlayerName", "CUtlString"), Field("m_iTeamNum", "uint8"),
        Field("m_iScore", "int32"), Field("m_steamID", "uint64"),
        Field("m_bConnected", "bool"), Field("m_iPing", "uint32")])
    pawn = Ser("CCSPlayerPawn", [
        Field("m_iHealth", "int32"), Field("m_ArmorValue", "int32"),
        Field("m_vecOrigin", "Vector"), Field("m_pFoo", "CFooComponent*", ser=comp),
        Field("m_nAmmo", "uint32[4]"), Field("m_vecKills", "CNetworkUtlVectorBase< uint32 >"),
        Field("m_Items", "CUtlVectorEmbeddedNetworkVar< CEconItemView >", ser=item),
        Field("m_flStamina", "float32", bit_count=10, low=0.0, high=100.0, flags=0),
        Field("m_bIsScoped", "bool"), Field("m_nTickBase", "int64")])
    chicken = Ser("CChicken", [Field("m_iHealth", "int32"), Field("m_nSkin", "uint32"),
                               Field("m_flSpeed", "float32"), Field("m_bFleeing", "bool")])
    team = Ser("CCSTeam", [Field("m_iTeamNum", "uint8"), Field("m_szTeamname", "char[129]"),
                           Field("m_iScore", "int32"), Field("m_nTeamId", "int16")])
    classes = [world, ctrl, pawn, chicken, team]
    return [item, comp] + classes, classes


EVENT_DESCS = [
    (212, "player_death", [("userid", "short"), ("attacker", "short"), ("weapon", "string"),
                           ("headshot", "bool"), ("distance", "float"), ("assister", "byte"),
                           ("dmg_health", "long"), ("xuid", "uint64")]),
    (7, "round_start", [("timelimit", "long"), ("fraglimit", "long"), ("objective", "string")]),
    (1031, "bomb_planted", [("userid", "short"), ("site", "short")]),
    (40, "round_announce_match_start", []),
    (3, "weapon_fire", [("userid", "short"), ("weapon", "string"), ("silenced", "bool")]),
]


# The player columns `zdem events` adds to an event (runtime/source2/
# source2_players.h), worked out from what this writer put in the demo:
# userid, attacker, assister, victim (a userid: the slot, as this demo's
# userinfo entries carry no userid) and chat's entityindex (a controller).
# A slot's player is the controller at slot + 1 and the userinfo entry at
# slot; name: the controller's m_iszPlayerName unless empty, else
# userinfo's; SteamID: the controller's m_steamID (0: none); team: the
# controller's m_iTeamNum (these controllers name no pawn).
EVENT_ROLES = {"userid": "user", "attacker": "attacker", "assister": "assister", "victim": "victim"}


def event_players(ev, kinds, ctrl_json, userinfo_names):
    """Adds <role>_name, <role>_steamid, <role>_team_num to ev (a
    `zdem events --json` line). kinds: the key -> role map that applies;
    ctrl_json(index): the controller's props as `zdem entities` prints
    them, or None; userinfo_names: slot -> name."""
    def at_slot(slot):
        c = ctrl_json(slot + 1)
        if c is None and slot not in userinfo_names:
            return None
        name = c.get("m_iszPlayerName") if c else None
        if not name:
            name = userinfo_names.get(slot)
        sid = (c.get("m_steamID") or None) if c else None
        team = c.get("m_iTeamNum") if c else None
        if team is not None and not 0 <= team < (1 << 31):
            team = None
        return name, sid, team
    for key, value in (ev.get("keys") or {}).items():
        if key not in kinds:
            continue
        role, kind = kinds[key]
        p = None
        if kind == "userid" and 0 <= value < 0x7FFFFFFF and value != 0xFFFF:
            p = at_slot(value)
        elif kind == "controller" and ctrl_json(value) is not None:
            p = at_slot(value - 1)
        name, sid, team = p if p else (None, None, None)
        ev[role + "_name"], ev[role + "_steamid"], ev[role + "_team_num"] = name, sid, team


GAME_EVENT_ROLES = {k: (r, "userid") for k, r in EVENT_ROLES.items()}
CHAT_ROLES = {"entityindex": ("user", "controller")}


def build_normal(ticks=400, seed=1, full_every=100, compress_ratio=0.35):
    """The normal demo: returns (file bytes, expectation dict)."""
    rng = random.Random(seed)
    mdl = Model(rng)
    sers, classes = normal_schema()
    ncls = len(classes)
    cbits = class_bits(ncls)
    tick_interval = 1.0 / 64
    d = Demo()
    ev_out = []
    d.frame("DEM_FileHeader", PREGAME, file_header())
    d.frame("DEM_SignonPacket", PREGAME, demo_packet([inner("net_Tick", pb("CNETMsg_Tick", tick=0))]))
    d.frame("DEM_SignonPacket", PREGAME, demo_packet([inner("svc_ServerInfo",
            server_info(ncls, tick_interval))]), compress=True)
    cvars = [("mp_maxrounds", "24"), ("sv_cheats", "0"), ("mp_teamname_1", "T\u00e9am \"A\"")]
    d.frame("DEM_SignonPacket", PREGAME, demo_packet([inner("net_SetConVar", pb(
        "CNETMsg_SetConVar", convars={"cvars": [{"name": n, "value": v} for n, v in cvars]}))]))
    for n, v in cvars:
        ev_out.append({"tick": -1, "type": "game_event", "name": "server_cvar",
                       "keys": {"name": n, "value": v}})
    d.frame("DEM_SendTables", PREGAME, send_tables(flattened_serializer(sers)), compress=True)
    d.frame("DEM_ClassInfo", PREGAME, class_info([s.name for s in classes]), compress=True)

    # string tables: genericprecache (fixed-size user data, as CS2 has it),
    # instancebaseline (per-value Snappy flag), userinfo
    tables = {}   # name -> {index: (key, value)}
    order = ["genericprecache", "instancebaseline", "userinfo"]
    tables["genericprecache"] = {0: (b"", b"\x02"), 1: (b"models/chicken.vmdl", b"\x01")}
    baselines = {}  # class id -> {path: value}
    for cid, ser in enumerate(classes):
        vals = {}
        for p in _leaf_paths(ser, (), {}):
            _, kind, f = resolve_path(ser, p)
            if kind != "count" and f.model != FIXED_TABLE and rng.random() < 0.6:
                vals[p] = mdl.rand_value(kind, f)
        if ser.name == b"CCSTeam":
            vals = {}  # an empty baseline: teams start from nothing
        baselines[cid] = vals
    def baseline_blob(cid):
        return field_data(classes[cid], baselines[cid], rng)
    tables["instancebaseline"] = {i: (str(cid).encode(), baseline_blob(cid))
                                  for i, cid in enumerate(sorted(baselines))}
    players = []  # (slot, name)
    tables["userinfo"] = {}

    def userinfo_blob(name):
        return pb("CMsgPlayerInfo", name=name, ishltv=False)
    d.frame("DEM_SignonPacket", PREGAME, demo_packet([
        inner("svc_CreateStringTable", create_string_table(
            "genericprecache", [(i, k, v) for i, (k, v) in sorted(tables["genericprecache"].items())],
            user_data_fixed=True, user_data_size=1, size_bits=2)),
        inner("svc_CreateStringTable", create_string_table(
            "instancebaseline", [(i, k, v) for i, (k, v) in sorted(tables["instancebaseline"].items())],
            compressed="lzss" if seed % 2 == 0 else True, flags=1, compress_values=True)),
        inner("svc_CreateStringTable", create_string_table("userinfo", [], compressed=False)),
    ]))
    d.frame("DEM_StringTables", PREGAME, demo_string_tables(tables, order), compress=True)
    d.frame("DEM_SignonPacket", PREGAME, demo_packet([inner("GE_Source1LegacyGameEventList",
                                                            event_list(EVENT_DESCS))]),
            compress=True)
    d.frame("DEM_SyncTick", PREGAME, pb("CDemoSyncTick"))

    ents = {}
    snapshots = {}
    state = {"serial": 1000}

    def new_ent(idx, cid):
        state["serial"] += rng.randrange(1, 50)
        e = Ent(idx, cid, state["serial"] & 0x1FFFF)
        if cid in baselines:
            e.props.update(baselines[cid])
        ents[idx] = e
        return e

    def pick_values(e, n, grow=True):
        """n random paths of e's class with new values (growing vectors)."""
        ser = classes[e.cls]
        out = {}

        def fresh(q):
            _, kind, f = resolve_path(ser, q)
            if kind == "count":
                e.counts[q] = 0
                return 0
            if f.model == FIXED_TABLE:
                return False
            return mdl.rand_value(kind, f)
        leaves = _leaf_paths(ser, (), e.counts)
        for _ in range(n):
            p = rng.choice(leaves)
            name, kind, f = resolve_path(ser, p)
            if kind == "count" or f.model == FIXED_TABLE:
                if f.model == FIXED_TABLE:
                    if e.counts.get(p):
                        continue  # pointer stays present
                    e.counts[p] = 1
                    out[p] = True
                    for q in _leaf_paths(f.ser, p, {}):
                        out[q] = fresh(q)
                    continue
                if not grow:
                    continue
                old = e.counts.get(p, 0)
                new = old + rng.randrange(1, 3)
                e.counts[p] = new
                out[p] = new
                if f.model == VAR_ARRAY:
                    for k in range(old, new):
                        out[p + (k,)] = mdl.rand_value(f.elem_kind)
                else:
                    for k in range(old, new):
                        for q in _leaf_paths(f.ser, p + (k,), {}):
                            out[q] = fresh(q)
                continue
            out[p] = mdl.rand_value(kind, f, e.props.get(p))
        return out

    def apply(e, vals):
        e.props.update(vals)

    def snapshot_json(tick):
        out = []
        for idx in sorted(ents):
            e = ents[idx]
            ser = classes[e.cls]
            props = {}
            for p, v in e.props.items():
                name, kind, f = resolve_path(ser, p)
                props[name] = json_value(kind, v, f)
            out.append({"tick": tick, "index": idx, "class": ser.name.decode(),
                        "class_id": e.cls, "serial": e.serial, "active": e.active,
                        "props": props})
        return out

    def full_snapshot(tick):
        """DEM_FullPacket: all string tables, then every entity re-created
        with its whole state (legacy_is_delta false)."""
        ed = EntityData(cbits, rng=rng)
        for idx in sorted(ents):
            e = ents[idx]
            assert e.active
            ed.create(idx, e.cls, e.serial, classes[e.cls], dict(e.props))
        pkt = pb("CDemoPacket", data=packet_data([net_tick(tick), inner(
            "svc_PacketEntities", ed.message(is_delta=False, server_tick=tick))]))
        d.frame("DEM_FullPacket", tick, pb("CDemoFullPacket",
                string_table=demo_string_tables(tables, order), packet=pkt),
                compress=rng.random() < 0.5)

    names = ["Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi",
             "Ivan", "Judy", "Mallory", "Niaj", "Olivia", "Peggy"]
    next_chicken = [100]

    def ctrl_json(idx):
        e = ents.get(idx)
        if e is None or classes[e.cls].name != b"CCSPlayerController":
            return None
        out = {}
        for p, v in e.props.items():
            name, kind, f = resolve_path(classes[e.cls], p)
            out[name] = json_value(kind, v, f)
        return out
    for tick in range(1, ticks + 1):
        msgs = [net_tick(tick)]
        named = []  # this tick's events and the roles their keys give
        st_msgs = []
        ev_msgs = []
        ed = EntityData(cbits, rng=rng)
        changes = {}  # idx -> ("create"|"update"|"leave"|"delete", values)
        if tick == ticks // 2:
            # the chicken baseline changes (same paths, new values); the
            # update goes before the entities in the packet, so creates
            # from this packet on start from the new one
            cid = 3
            for p in baselines[cid]:
                name, kind, f = resolve_path(classes[cid], p)
                baselines[cid][p] = mdl.rand_value(kind, f, baselines[cid][p])
            bi = [i for i, (k, v) in tables["instancebaseline"].items() if k == b"3"][0]
            blob = baseline_blob(cid)
            tables["instancebaseline"][bi] = (b"3", blob)
            st_msgs.append(update_string_table(order.index("instancebaseline"),
                                               [(bi, b"3", blob)], flags=1,
                                               compress_values=True))
        if tick == 1:
            for idx, cid in [(0, 0), (30, 4), (31, 4)]:
                e = new_ent(idx, cid)
                changes[idx] = ("create", pick_values(e, 3))
            for k in range(8):
                slot = k
                players.append((slot, names[k]))
                tables["userinfo"][slot] = (str(slot).encode(), userinfo_blob(names[k]))
                st_msgs.append(update_string_table(order.index("userinfo"), [
                    (slot, str(slot).encode(), userinfo_blob(names[k]))]))
                c = new_ent(1 + k, 1)
                v = pick_values(c, 4)
                v[(0,)] = names[k]
                changes[1 + k] = ("create", v)
                pw = new_ent(11 + k, 2)
                changes[11 + k] = ("create", pick_values(pw, 6))
            for k in range(3):
                e = new_ent(next_chicken[0], 3)
                changes[next_chicken[0]] = ("create", pick_values(e, 2))
                next_chicken[0] += 1
        else:
            live = [i for i in ents if i not in changes]
            for _ in range(rng.randrange(0, 6)):
                if not live:
                    break
                idx = rng.choice(live)
                if idx in changes:
                    continue
                e = ents[idx]
                changes[idx] = ("update", pick_values(e, rng.randrange(1, 5)))
                e.active = True
            # inactive entities come back (an update re-activates them)
            for idx, e in ents.items():
                if not e.active and idx not in changes and (rng.random() < 0.3 or
                                                            (tick + 1) % full_every < 3):
                    changes[idx] = ("update", pick_values(e, 1))
                    e.active = True
            if rng.random() < 0.15 and next_chicken[0] < 400:
                e = new_ent(next_chicken[0], 3)
                changes[next_chicken[0]] = ("create", pick_values(e, rng.randrange(0, 3)))
                next_chicken[0] += rng.randrange(1, 4)
            chickens = [i for i in ents if ents[i].cls == 3 and i not in changes]
            if chickens and rng.random() < 0.1:
                changes[rng.choice(chickens)] = ("delete", None)
            pawns = [i for i in ents if ents[i].cls == 2 and i not in changes and ents[i].active]
            if pawns and rng.random() < 0.08 and (tick + 3) % full_every > 6:
                changes[rng.choice(pawns)] = ("leave", None)
            # a pawn dies and respawns at the same index with a new serial
            if pawns and rng.random() < 0.03:
                idx = rng.choice(pawns)
                if idx not in changes:
                    cid = ents[idx].cls
                    e = new_ent(idx, cid)
                    changes[idx] = ("create", pick_values(e, 3))
            if tick in (ticks // 3, 2 * ticks // 3):
                # a player joins: userinfo entry, controller, pawn
                k = len(players)
                players.append((k, names[k]))
                tables["userinfo"][k] = (str(k).encode(), userinfo_blob(names[k]))
                st_msgs.append(update_string_table(order.index("userinfo"), [
                    (k, str(k).encode(), userinfo_blob(names[k]))]))
                if 1 + k not in changes and 11 + k not in changes:
                    c = new_ent(1 + k, 1)
                    v = pick_values(c, 2)
                    v[(0,)] = names[k]
                    changes[1 + k] = ("create", v)
                    pw = new_ent(11 + k, 2)
                    changes[11 + k] = ("create", pick_values(pw, 3))
            if tick % 7 == 3:
                eid, ename, keys = rng.choice(EVENT_DESCS)
                kv = []
                jk = {}
                for kname, kt in keys:
                    v = {"short": rng.randrange(-300, 300), "byte": rng.randrange(0, 255),
                         "long": rng.randrange(-(1 << 31), 1 << 31), "bool": rng.random() < 0.5,
                         "uint64": rng.randrange(0, 1 << 64),
                         "float": f32(round(rng.uniform(-100, 100), 2)),
                         "string": rng.choice(WORDS + ODD_STRINGS)}[kt]
                    kv.append((kt, v))
                    jk[kname] = event_json_value(kt, v)
                ev_msgs.append(inner("GE_Source1LegacyGameEvent", game_event(eid, kv)))
                ev = {"tick": tick, "type": "game_event", "name": ename}
                if jk:
                    ev["keys"] = jk
                ev_out.append(ev)
                named.append((ev, GAME_EVENT_ROLES))
            if tick % 23 == 5 and players:
                slot, pname = rng.choice(players)
                text = rng.choice(["gg", "nice shot", "rush B"] + ODD_STRINGS[:6])
                ev_msgs.append(inner("UM_SayText2", say_text2(1 + slot, pname, text)))
                ev_out.append({"tick": tick, "type": "chat", "name": "chat", "keys": {
                    "entityindex": 1 + slot, "messagename": "Cstrike_Chat_All",
                    "name": json_bytes(pname), "text": json_bytes(text)}})
                named.append((ev_out[-1], CHAT_ROLES))
        for idx in sorted(changes):
            op, vals = changes[idx]
            e = ents[idx]
            if op == "create":
                ed.create(idx, e.cls, e.serial, classes[e.cls], vals)
                apply(e, vals)
            elif op == "update":
                ed.update(idx, classes[e.cls], vals)
                apply(e, vals)
            elif op == "leave":
                ed.leave(idx)
                e.active = False
            else:
                ed.delete(idx)
                del ents[idx]
        msgs += [inner("svc_UpdateStringTable", m) for m in st_msgs]
        if ed.count:
            msgs.append(inner("svc_PacketEntities", ed.message(is_delta=tick != 1, server_tick=tick)))
        msgs += ev_msgs
        # the events come after the entities in this packet: they see them
        ui_names = {slot: nm for slot, nm in players}
        for ev, kinds in named:
            event_players(ev, kinds, ctrl_json, ui_names)
        d.frame("DEM_Packet", tick, demo_packet(msgs), compress=rng.random() < compress_ratio)
        if tick == 1 or tick % full_every == 0:
            full_snapshot(tick)
        snapshots[tick] = snapshot_json(tick)
    data = d.finish(tick_interval)
    seek_ticks = sorted(set([1, 2, full_every - 1, full_every, full_every + 1,
                             ticks // 2, ticks - 1, ticks]) & set(range(1, ticks + 1)))
    # zdem lists the live player controllers in index order: slot (index -
    # 1), name, team (m_iTeamNum), steamid (m_steamID)
    ctrl_players = [{"slot": i - 1, "name": json_bytes(ents[i].props.get((0,))),
                     "team": ents[i].props.get((1,)), "steamid": ents[i].props.get((3,))}
                    for i in sorted(ents) if ents[i].cls == 1 and ents[i].props.get((0,))]
    expect = {
        "info": {
            "format": "source2", "game": "cs2", "map_name": "de_synth",
            "playback_ticks": ticks, "last_tick": ticks, "first_tick": -1,
            "entity_classes": ncls, "serializers": len(set(s.name for s in sers)),
            "string_tables": {n: (max(tables[n]) + 1 if tables[n] else 0) for n in order},
            "entities_at_end": len(ents),
            "players": ctrl_players,
            "outer_messages": d.frames,
        },
        "events": ev_out,
        "entities": snapshots[ticks],
        "entities_at": {t: snapshots[t] for t in seek_ticks},
    }
    return data, expect


def demo_string_tables(tables, order):
    """CDemoStringTables: every table, items in index order."""
    out = []
    for name in order:
        t = tables[name]
        n = max(t) + 1 if t else 0
        items = []
        for i in range(n):
            k, v = t.get(i, (b"", None))
            it = {"str": k}
            if v is not None:
                it["data"] = v
            items.append(it)
        out.append({"table_name": name, "items": items, "table_flags": 0})
    return pb("CDemoStringTables", tables=out)


# --------------------------------------------------------------------------
# scaffolding for the hostile generators


# A baseline that sets nothing (only FieldPathEncodeFinish): every class
# that is ever created gets an instancebaseline entry, as servers send them
# (manta, for one, refuses a create without one).
def _empty_baseline():
    bw = BitWriter()
    write_fieldpaths(bw, [])
    return bw.getvalue()


EMPTY_BASELINE = _empty_baseline()


class Scaffold(object):
    """A minimal valid demo prefix: header, ServerInfo, SendTables,
    ClassInfo, string tables (instancebaseline first), an event list."""

    def __init__(self, sers, class_names, baselines=None, max_classes=None,
                 tick_interval=1.0 / 64, tables=(), events=None, flat=None,
                 class_info_msg=None, compress=False):
        self.d = Demo()
        self.nclasses = max_classes or len(class_names)
        self.cbits = class_bits(self.nclasses)
        self.tick = 0
        d = self.d
        d.frame("DEM_FileHeader", PREGAME, file_header())
        d.frame("DEM_SignonPacket", PREGAME, demo_packet([
            inner("svc_ServerInfo", server_info(self.nclasses, tick_interval))]))
        d.frame("DEM_SendTables", PREGAME, send_tables(
            flat if flat is not None else flattened_serializer(sers)), compress=compress)
        d.frame("DEM_ClassInfo", PREGAME, class_info_msg if class_info_msg is not None
                else class_info(class_names), compress=compress)
        msgs = [inner("svc_CreateStringTable", create_string_table(
            "instancebaseline", sorted(((i, str(cid).encode(), blob) for i, (cid, blob)
                                        in enumerate(sorted((baselines or {}).items())))),
            compressed=True, flags=1))]
        msgs += [inner("svc_CreateStringTable", t) for t in tables]
        d.frame("DEM_SignonPacket", PREGAME, demo_packet(msgs))
        if events is not None:
            d.frame("DEM_SignonPacket", PREGAME, demo_packet([
                inner("GE_Source1LegacyGameEventList", events)]), compress=compress)
        d.frame("DEM_SyncTick", PREGAME, pb("CDemoSyncTick"))

    def packet(self, msgs, compress=False, tick=None):
        self.tick = self.tick + 1 if tick is None else tick
        self.d.frame("DEM_Packet", self.tick, demo_packet([net_tick(self.tick)] + list(msgs)),
                     compress=compress)

    def finish(self):
        return self.d.finish()


def _chunks(seq, n):
    for i in range(0, len(seq), n):
        yield seq[i:i + n]


class Gen(object):
    def __init__(self, fn, default, small, doc):
        self.fn, self.default, self.small, self.doc = fn, default, small, doc

    def build(self, n, **kw):
        return self.fn(n, **kw)


GENERATORS = {}


def generator(name, default, small):
    def deco(fn):
        GENERATORS[name] = Gen(fn, default, small, inspect.cleandoc(fn.__doc__ or ""))
        return fn
    return deco


# 1 ------------------------------------------------------------------------
@generator("same-key-serializers", 30000, 300)
def gen_same_key_serializers(n):
    """N serializers sharing one (name symbol, version) key in one
    CSVCMsg_FlattenedSerializer, and a field that names that key as its
    nested serializer: a table keyed by (symbol, version) that probes on
    collisions does N^2/2 probes."""
    leaf = Field("m_nValue", "uint32")
    same = Ser("CSame", [leaf])
    user = Ser("CUser", [Field("m_pSame", "CSame*", ser=same), Field("m_iHealth", "int32")])
    flat = flattened_serializer([same] * n + [user])
    sc = Scaffold(None, ["CSame", "CUser"], flat=flat, baselines={1: EMPTY_BASELINE})
    ed = EntityData(sc.cbits)
    ed.create(1, 1, 1, user, {(0,): True, (0, 0): 7, (1,): 100})
    sc.packet([inner("svc_PacketEntities", ed.message(is_delta=False))])
    return sc.finish()


# 2 ------------------------------------------------------------------------
FNV_PRIME = 16777619


def _fnv1a(data, h=2166136261):
    for c in data:
        h = ((h ^ c) * FNV_PRIME) & 0xFFFFFFFF
    return h


def colliding_names(n, length=32, bits=16, target=0x2BAD):
    """n distinct names of `length` bytes sharing a long prefix whose
    FNV-1a hashes agree in the low `bits` bits (bits <= 16): every table
    that indexes names by a power-of-two slice of FNV-1a puts them all in
    one chain. The last three bytes steer the hash (printable)."""
    mask = (1 << bits) - 1
    inv = pow(FNV_PRIME, -1, 1 << 16) if sys.version_info >= (3, 8) else None
    if inv is None:
        inv = next(x for x in range(1, 1 << 16, 2) if (x * FNV_PRIME) & 0xFFFF == 1)
    x_want = (target * inv) & 0xFFFF  # state before the last multiply, low 16 bits
    out = []
    printable = list(range(0x21, 0x7F))
    common = b"C" + b"Networked" * ((length + 8) // 9)
    for i in range(n):
        tail = b"_%d_" % i
        if len(tail) + 4 > length:
            raise ValueError("names of %d bytes cannot hold %d distinct ones" % (length, n))
        pre = common[:length - 3 - len(tail)] + tail
        h0 = _fnv1a(pre)
        found = None
        for b0 in printable:
            h1 = ((h0 ^ b0) * FNV_PRIME) & 0xFFFFFFFF
            for b1 in printable:
                h2 = ((h1 ^ b1) * FNV_PRIME) & 0xFFFFFFFF
                if ((h2 ^ x_want) & 0xFF00) == 0:
                    b2 = (h2 ^ x_want) & 0xFF
                    if 0x21 <= b2 < 0x7F:
                        found = bytes([b0, b1, b2])
                        break
            if found:
                break
        if found is None:
            raise RuntimeError("no steering bytes for name %d" % i)
        name = pre + found
        assert _fnv1a(name) & 0xFFFF & mask == target & mask
        out.append(name)
    assert len(set(out)) == n
    return out


@generator("colliding-classes", 6000, 64)
def gen_colliding_classes(n, length=16):
    """N serializers and N classes whose long names share a prefix and
    collide in the low 16 bits of FNV-1a: class name -> serializer by
    linear search or by a hash chain is N^2 string compares."""
    names = colliding_names(n, length)
    f = Field("m_nValue", "uint32")
    sers = [Ser(nm, [f]) for nm in names]
    flat = flattened_serializer(sers)
    ci = pb("CDemoClassInfo", classes=[{"class_id": i, "network_name": nm}
                                      for i, nm in enumerate(names)])
    sc = Scaffold(None, None, flat=flat, class_info_msg=ci, max_classes=n,
                  baselines={n - 1 - i: EMPTY_BASELINE for i in range(min(n, 50))})
    ed = EntityData(sc.cbits)
    for i in range(0, min(n, 50)):
        ed.create(i, n - 1 - i, i, sers[n - 1 - i], {(0,): i})
    sc.packet([inner("svc_PacketEntities", ed.message(is_delta=False))])
    return sc.finish()


# 3 ------------------------------------------------------------------------
@generator("baseline-updates", 4000, 50)
def gen_baseline_updates(n, entries=None):
    """instancebaseline with ENTRIES entries (default 5 N), then N packets
    each with a one-entry UpdateStringTable on it and a small
    PacketEntities: rebuilding every class baseline from the whole table
    after each change is N x ENTRIES."""
    entries = entries or max(2, 5 * n)
    ser = Ser("CThing", [Field("m_iHealth", "int32"), Field("m_nSkin", "uint32")])
    base = field_data(ser, {(0,): 100})
    sc = Scaffold([ser], ["CThing"], baselines={0: base})
    # the big table: keys "1".."entries-1" (numeric, not class ids), no values
    ents = [(i, str(i).encode(), None) for i in range(1, entries)]
    sc.packet([inner("svc_UpdateStringTable", update_string_table(0, ents, flags=1))])
    ed = EntityData(sc.cbits)
    ed.create(0, 0, 1, ser, {(1,): 1})
    sc.packet([inner("svc_PacketEntities", ed.message(is_delta=False))])
    rng = random.Random(3)
    msgs = []
    for i in range(n):
        idx = rng.randrange(1, entries)
        upd = update_string_table(0, [(idx, None, bytes([i & 0xFF]))], flags=1)
        ed = EntityData(sc.cbits)
        ed.update(0, ser, {(1,): i})
        msgs += [inner("svc_UpdateStringTable", upd),
                 inner("svc_PacketEntities", ed.message())]
        # one packet per pair: string tables go before entities in a packet
        sc.packet(msgs)
        msgs = []
    return sc.finish()


# 4 ------------------------------------------------------------------------
def _b36(i):
    s = ""
    while True:
        s = "0123456789abcdefghijklmnopqrstuvwxyz"[i % 36] + s
        i //= 36
        if not i:
            return s


@generator("sparse-event-ids", 15000, 100)
def gen_sparse_event_ids(n, descriptors=None, order="reverse"):
    """A game event list of DESCRIPTORS descriptors (default 0.8 N) whose
    ids are not their positions (ORDER reverse, or sparse), then N small
    game events of the id found last: finding a descriptor by scanning is
    N x DESCRIPTORS."""
    descriptors = descriptors or max(2, int(0.8 * n))
    if order == "reverse":
        ids = [descriptors - 1 - i for i in range(descriptors)]
        hot = 0
    else:
        ids = [i * 1009 + 7 for i in range(descriptors)]
        hot = ids[-1]
    el = event_list([(ids[i], "e" + _b36(i), [("v", "short")] if i == descriptors - 1 else [])
                     for i in range(descriptors)])
    sc = Scaffold([], [], events=el)
    ev = game_event(hot, [("short", 1)])
    per = 500
    for chunk in _chunks(range(n), per):
        sc.packet([inner("GE_Source1LegacyGameEvent", ev)] * len(chunk))
    return sc.finish()


# 5 ------------------------------------------------------------------------
@generator("big-baseline", 10000, 20)
def gen_big_baseline(n, fields=None):
    """A class whose instancebaseline sets FIELDS values (two uint32 arrays;
    default 0.8 N, at most 8000), then N entity creates of that class (and
    deletes) with no field changes of their own: decoding the baseline
    again for every create is N x FIELDS."""
    fields = fields or max(2, min(8000, int(0.8 * n)))
    half = fields // 2
    ser = Ser("CHeavy", [Field("m_a", "uint32[%d]" % half), Field("m_b", "uint32[%d]" % (fields - half)),
                         Field("m_iHealth", "int32")])
    vals = {(0, k): k & 0x7F for k in range(half)}
    vals.update({(1, k): 1 for k in range(fields - half)})
    sc = Scaffold([ser], ["CHeavy"], baselines={0: field_data(ser, vals)})
    batch = 100
    serial = 1
    done = 0
    while done < n:
        k = min(batch, n - done)
        ed = EntityData(sc.cbits)
        for i in range(k):
            ed.create(i, 0, serial & 0x1FFFF, ser, {})
            serial += 1
        de = EntityData(sc.cbits)
        for i in range(k):
            de.delete(i)
        sc.packet([inner("svc_PacketEntities", ed.message())])
        sc.packet([inner("svc_PacketEntities", de.message())])
        done += k
    return sc.finish()


# 6 ------------------------------------------------------------------------
@generator("full-packets", 15000, 100)
def gen_full_packets(n):
    """N full (legacy_is_delta false) PacketEntities, alternately with one
    entity and none: a full update that visits every possible entity slot
    costs max_entities per message."""
    ser = Ser("CThing", [Field("m_iHealth", "int32")])
    sc = Scaffold([ser], ["CThing"], baselines={0: field_data(ser, {(0,): 1})})
    msgs = []
    for i in range(n):
        ed = EntityData(sc.cbits)
        if i % 2 == 0:
            ed.create(0, 0, i & 0x1FFFF, ser, {})
        msgs.append(inner("svc_PacketEntities", ed.message(is_delta=False)))
        if len(msgs) == 200:
            sc.packet(msgs)
            msgs = []
    if msgs:
        sc.packet(msgs)
    return sc.finish()


# 7 ------------------------------------------------------------------------
@generator("player-controllers", 16000, 100)
def gen_player_controllers(n, pad=16):
    """N entities of a class named ...PlayerController with m_iszPlayerName
    (after PAD other fields): listing players by scanning every entity for
    every player is N x max_entities name lookups."""
    n = min(n, 16384)
    fields = [Field("m_nPad%d" % i, "uint32") for i in range(pad)]
    fields.append(Field("m_iszPlayerName", "CUtlString"))
    ser = Ser("CCSPlayerController", fields)
    sc = Scaffold([ser], ["CCSPlayerController"], baselines={0: EMPTY_BASELINE})
    for chunk in _chunks(range(n), 1000):
        ed = EntityData(sc.cbits)
        for i in chunk:
            ed.create(i, 0, i, ser, {(pad,): "p%d" % i})
        sc.packet([inner("svc_PacketEntities", ed.message(is_delta=chunk[0] != 0))])
    return sc.finish()


# 8 ------------------------------------------------------------------------
@generator("strtab-many", 3000, 80)
def gen_strtab_many(n, name_len=60):
    """N CreateStringTable messages with distinct long names (more than
    the 64 a decoder may keep), each with one entry."""
    sc = Scaffold([], [])
    msgs = []
    for i in range(n):
        name = ("stringtable_" * 8)[:name_len - 8] + "%08d" % i
        msgs.append(inner("svc_CreateStringTable", create_string_table(
            name, [(0, b"k", b"v")])))
        if len(msgs) == 100:
            sc.packet(msgs)
            msgs = []
    if msgs:
        sc.packet(msgs)
    return sc.finish()


@generator("strtab-huge-index", 64, 2)
def gen_strtab_huge_index(n, index=(1 << 20) - 1, jump=1 << 31):
    """One entry at index 2^20-1 in each of N tables (string data of a few
    bytes; a table stored as an array needs 2^20 slots each), then an
    update whose varuint jump reaches index 2^31."""
    sc = Scaffold([], [])
    msgs = [inner("svc_CreateStringTable", create_string_table(
        "huge%d" % i, [(index, b"k", b"v")])) for i in range(n)]
    sc.packet(msgs)
    sc.packet([inner("svc_UpdateStringTable", update_string_table(1, [(jump, b"far", b"x")]))])
    sc.packet([inner("svc_UpdateStringTable", update_string_table(
        1, [(index, b"again", b"y"), (index + 1, b"next", b"z")]))])
    return sc.finish()


@generator("strtab-snappy-claim", 8, 1)
def gen_strtab_snappy_claim(n, claim=0xFFFFFFFF):
    """N compressed CreateStringTable messages whose Snappy preamble claims
    CLAIM bytes (default 4 GiB - 1) for a few bytes of data, and one
    per-value compressed entry with the same claim."""
    sc = Scaffold([], [])
    msgs = []
    for i in range(n):
        data = st_entries([(0, b"k", b"v")], varint_bits=True)
        m = pb("CSVCMsg_CreateStringTable", name="claim%d" % i, num_entries=1,
               user_data_fixed_size=False, flags=0, using_varint_bitcounts=True,
               string_data=snappy_compress(data, claim=claim),
               uncompressed_size=len(data), data_compressed=True)
        msgs.append(inner("svc_CreateStringTable", m))
    bw = BitWriter()
    bw.bit(1).bit(1).bit(0).cstr(b"k").bit(1).bit(1)
    blob = snappy_compress(b"value", claim=claim)
    bw.ubitvar(len(blob)).raw(blob)
    msgs.append(inner("svc_CreateStringTable", pb(
        "CSVCMsg_CreateStringTable", name="claimvalue", num_entries=1, flags=1,
        using_varint_bitcounts=True, string_data=bw.getvalue(), data_compressed=False)))
    sc.packet(msgs)
    return sc.finish()


# 9 ------------------------------------------------------------------------
@generator("snappy-claim", 16, 2)
def gen_snappy_claim(n, claim=0xFFFFFFFF, cmd="DEM_ConsoleCmd"):
    """N compressed frames of CMD (a command nothing needs, or DEM_Packet)
    whose Snappy preamble claims CLAIM bytes (default 4 GiB - 1) for a
    short body: sizing buffers from preambles up front allocates GiBs."""
    sc = Scaffold([], [])
    sc.packet([])
    for i in range(n):
        if cmd == "DEM_Packet":
            payload = demo_packet([net_tick(i + 2)])
        else:
            payload = pb("CDemoConsoleCmd", cmdstring="echo %d" % i)
        sc.d.frame(cmd, i + 2, payload, compress=True, claim=claim)
    return sc.finish()


# amplification (issue 26) -----------------------------------------------
# Compact input that asks for work or output out of proportion to its
# size: the same baseline under changing keys, string tables created again
# and again from nested Snappy, frames of nothing. The library bounds them
# (a baseline cached by its bytes, a work budget per input byte) and the
# CLI bounds its output (--max-output, --max-rows).


def snappy_runs(data, claim=None):
    """A Snappy stream of data, fast on long repeats: a match found through
    a 4-byte hash goes on in 64-byte copies at the same offset for as long
    as the data repeats (overlapping copies, as Snappy allows), so periodic
    megabytes compress at the format's best (3 bytes per 64) in seconds."""
    data = bytes(data)
    out = bytearray(varint(len(data) if claim is None else claim))
    table = {}
    i = lit = 0
    n = len(data)
    while i + 4 <= n:
        key = data[i:i + 4]
        j = table.get(key)
        table[key] = i
        if j is None or i - j > 65535:
            i += 1
            continue
        off = i - j
        _snappy_literal(out, data, lit, i)
        while True:
            ln = 4
            while i + ln < n and ln < 64 and data[i - off + ln] == data[i + ln]:
                ln += 1
            out += bytes([((ln - 1) << 2) | 2]) + struct.pack("<H", off)
            i += ln
            if ln < 64 or i + 4 > n or data[i:i + 4] != data[i - off:i - off + 4]:
                break
        lit = i
    _snappy_literal(out, data, lit, n)
    return bytes(out)


def _frame_snappy(d, cmd, tick, payload):
    """A compressed frame through snappy_runs (Demo.frame's compressor is
    too slow for megabytes)."""
    body = snappy_runs(payload)
    d.raw(varint(IDS[cmd] | IDS["DEM_IsCompressed"]) + varint(tick) + varint(len(body)) + body)
    d.frames += 1
    d.last_tick = tick
    if cmd in ("DEM_Packet", "DEM_FullPacket"):
        d.packets += 1


def _heavy(fields):
    """A class whose baseline sets FIELDS uint32 values (two arrays)."""
    half = fields // 2
    ser = Ser("CHeavy", [Field("m_a", "uint32[%d]" % half),
                         Field("m_b", "uint32[%d]" % (fields - half)),
                         Field("m_iHealth", "int32")])
    vals = {(0, k): k & 0x7F for k in range(half)}
    vals.update({(1, k): 1 for k in range(fields - half)})
    return ser, vals


@generator("baseline-key-churn", 2000, 20)
def gen_baseline_key_churn(n, fields=4000, same=1):
    """A class whose instancebaseline value sets FIELDS values, held by two
    entries (entry 0, key "0", and entry 1, key "00": both name class 0),
    with the same bytes (SAME=1) or bytes that differ in one value
    (SAME=0); then N packets that each point the class at the other entry
    (a one-entry UpdateStringTable that respells its key: "0"/"000",
    "00"/"0000") and create an entity of the class. Decoding the baseline
    again whenever the entry that names the class changes is N x FIELDS;
    cached by its bytes, the same bytes are decoded once (different bytes:
    the work budget per input byte bounds it)."""
    ser, vals = _heavy(fields)
    base = field_data(ser, vals)
    other = base
    if not same:
        v2 = dict(vals)
        v2[(1, fields - fields // 2 - 1)] = 2
        other = field_data(ser, v2)
    sc = Scaffold([ser], ["CHeavy"], baselines={0: base})
    sc.packet([inner("svc_UpdateStringTable", update_string_table(
        0, [(1, b"00", other)], flags=1))])
    spell = [(b"0", b"000"), (b"00", b"0000")]
    for i in range(n):
        which = i & 1
        key = spell[which][(i >> 1) & 1 ^ 1]
        ed = EntityData(sc.cbits)
        ed.create(0, 0, (i + 1) & 0x1FFFF, ser, {})
        sc.packet([inner("svc_UpdateStringTable", update_string_table(0, [(which, key, None)],
                                                                      flags=1)),
                   inner("svc_PacketEntities", ed.message())])
    return sc.finish()


@generator("strtab-recreate", 24, 1)
def gen_strtab_recreate(n, entries=1 << 20, per_packet=8):
    """N CreateStringTable messages of one table name (created again: the
    table stays, its entries are read again), each claiming ENTRIES entries
    of 3 bits (next index, no key, no value) in Snappy-compressed string
    data, PER_PACKET to a Snappy-compressed packet: nested Snappy makes a
    million entries cost about a kilobyte of file."""
    data = st_entries([(i, None, None) for i in range(min(entries, 4096))])
    reps = (entries + 4095) // 4096
    # 4096 entries of 3 bits are 1536 whole bytes: repeat them
    data = data * reps
    comp = snappy_runs(data)
    msg = pb("CSVCMsg_CreateStringTable", name="recreated", num_entries=reps * 4096,
             user_data_fixed_size=False, flags=0, using_varint_bitcounts=True,
             string_data=comp, uncompressed_size=len(data), data_compressed=True)
    sc = Scaffold([], [])
    done = 0
    while done < n:
        k = min(per_packet, n - done)
        sc.tick += 1
        _frame_snappy(sc.d, "DEM_Packet", sc.tick, demo_packet(
            [net_tick(sc.tick)] + [inner("svc_CreateStringTable", msg)] * k))
        done += k
    return sc.finish()


def lzss_zeros(size):
    """Valve LZSS of size zero bytes at the format's best (a literal, then
    16-byte references one byte back, 8 to a command byte: 7.5x), ending
    with the end marker; the size is rounded to the groups."""
    groups = max(0, (size - 113) // 128)
    total = 1 + 7 * 16 + groups * 128
    out = bytearray(b"LZSS" + struct.pack("<I", total))
    out += bytes([0xFE, 0]) + bytes([0, 0x0F]) * 7
    for _ in range(groups):
        out += bytes([0xFF]) + bytes([0, 0x0F]) * 8
    out += bytes([0x01, 0, 0])  # a reference of count 1: the end
    return bytes(out), total


@generator("strtab-lzss", 4, 1)
def gen_strtab_lzss(n, mib=8):
    """N CreateStringTable messages, each string data of MIB MiB of zeros in
    LZSS (one entry claimed) in a Snappy-compressed packet: LZSS inside
    Snappy is 160x, so each input byte asks for about 170 bytes
    decompressed, and a byte-by-byte decoder pays for each."""
    data, size = lzss_zeros(int(mib * (1 << 20)))
    sc = Scaffold([], [])
    for i in range(n):
        m = pb("CSVCMsg_CreateStringTable", name="lzss%d" % (i % 4), num_entries=1,
               user_data_fixed_size=False, flags=0, using_varint_bitcounts=True,
               string_data=data, uncompressed_size=size, data_compressed=True)
        sc.tick += 1
        _frame_snappy(sc.d, "DEM_Packet", sc.tick, demo_packet(
            [net_tick(sc.tick), inner("svc_CreateStringTable", m)]))
    return sc.finish()


@generator("dump-zero-frames", 2, 1)
def gen_dump_zero_frames(n, mib=16):
    """N DEM_Packet frames whose Snappy payload is a CDemoPacket of MIB MiB
    (at most 16, the frame limit) of zero bytes: as inner messages, 14 bits
    each (type 0, size 0), that is 9.6 M messages per 16 MiB frame of
    about 787 KB: one `dump --json` line each is 1.0 GB of output per frame."""
    size = min(int(mib * (1 << 20)), (16 << 20) - 16)
    size -= size % 7  # 56 bits: four whole messages, no cut one at the end
    payload = pb("CDemoPacket", data=bytes(size))
    sc = Scaffold([], [])
    for i in range(n):
        sc.tick += 1
        _frame_snappy(sc.d, "DEM_Packet", sc.tick, payload)
    return sc.finish()


@generator("ticks-empty-frames", 16000, 100)
def gen_ticks_empty_frames(n, entities=1024):
    """ENTITIES entities of class CThing, then N DEM_Packet frames with an
    empty payload (4 bytes each), each a new tick: `ticks --class CThing`
    prints a row per entity per tick, ENTITIES rows per 4 bytes."""
    ser = Ser("CThing", [Field("m_iHealth", "int32")])
    sc = Scaffold([ser], ["CThing"], baselines={0: field_data(ser, {(0,): 100})})
    ed = EntityData(sc.cbits)
    for i in range(entities):
        ed.create(i, 0, i + 1, ser, {(0,): i})
    sc.packet([inner("svc_PacketEntities", ed.message(is_delta=False))])
    for i in range(n):
        sc.tick += 1
        sc.d.frame("DEM_Packet", sc.tick, b"")
    return sc.finish()


@generator("fields-snappy", 3000, 20)
def gen_fields_snappy(n, fields=4000, per_packet=4):
    """An entity with a bool array of FIELDS elements, then N updates that
    set every element, PER_PACKET to a Snappy-compressed packet: a field
    path and a value are two bits, and the repeats compress 21x, so each
    input byte asks for about sixty field decodes."""
    ser = Ser("CBits", [Field("m_b", "bool[%d]" % fields)])
    sc = Scaffold([ser], ["CBits"], baselines={0: EMPTY_BASELINE})
    ed = EntityData(sc.cbits)
    ed.create(0, 0, 1, ser, {})
    sc.packet([inner("svc_PacketEntities", ed.message(is_delta=False))])
    upd = []
    for v in (True, False):  # two updates, written once, sent in turn
        ed = EntityData(sc.cbits)
        ed.update(0, ser, {(0, i): v for i in range(fields)})
        upd.append(inner("svc_PacketEntities", ed.message()))
    done = 0
    while done < n:
        k = min(per_packet, n - done)
        msgs = [upd[(done + j) & 1] for j in range(k)]
        sc.tick += 1
        _frame_snappy(sc.d, "DEM_Packet", sc.tick, demo_packet([net_tick(sc.tick)] + msgs))
        done += k
    return sc.finish()


# 10 -----------------------------------------------------------------------
def deep_schema(wide=5000, arr=2000, chain_fields=100, huge=20000):
    """Serializers whose valid field paths have big components:
    CWide (WIDE fields: depth-1 component up to WIDE-1), CDeep3 (pointer to
    a struct with uint32[ARR]: depth-3 component up to ARR-1), CDeep7 (six
    nested pointers, CHAIN_FIELDS fields per level: depth 7, components up
    to CHAIN_FIELDS-1), CHuge (uint32[HUGE])."""
    wide_s = Ser("CWide", [Field("f%d" % i, "uint32") for i in range(wide)])
    arr_s = Ser("CArrHolder", [Field("m_arr", "uint32[%d]" % arr)])
    deep3 = Ser("CDeep3", [Field("m_pHolder", "CArrHolder*", ser=arr_s)])
    level = Ser("CLevel6", [Field("m_n%d" % i, "uint32") for i in range(chain_fields)])
    chain = [level]
    for k in range(5, 0, -1):
        fs = [Field("m_n%d" % i, "uint32") for i in range(chain_fields - 1)]
        fs.append(Field("m_pNext", "CLevel%d*" % (k + 1), ser=chain[0]))
        chain.insert(0, Ser("CLevel%d" % k, fs))
    deep7 = Ser("CDeep7", [Field("m_pFirst", "CLevel1*", ser=chain[0])])
    huge_s = Ser("CHuge", [Field("m_big", "uint32[%d]" % huge)])
    classes = [wide_s, deep3, deep7, huge_s]
    return [arr_s] + chain + classes, classes


@generator("deep-fieldpaths", 2000, 20)
def gen_deep_fieldpaths(n, expect=None):
    """Valid field paths beyond a packed 64-bit key: depth-1 components
    > 4095 (a 5000-field serializer), depth-3 > 1023 (pointer to a struct
    with uint32[2000]), depth 7 with components > 63 (six nested pointers,
    100 fields each), and an array index > 16383 (uint32[20000]); N updates
    spread over them. --expect writes what a decoder must show."""
    sers, classes = deep_schema()
    sc = Scaffold(sers, [c.name for c in classes],
                  baselines={i: EMPTY_BASELINE for i in range(len(classes))})
    cf = 100
    p7 = (0, cf - 1, cf - 1, cf - 1, cf - 1, cf - 1)
    ents = {0: (0, {}), 1: (1, {(0,): True}), 2: (2, {}), 3: (3, {})}
    # the pointers of the depth-7 chain are present
    for d in range(1, 7):
        ents[2][1][p7[:d]] = True
    ed = EntityData(sc.cbits)
    for idx in sorted(ents):
        cid, vals = ents[idx]
        ed.create(idx, cid, idx + 1, classes[cid], dict(vals))
    sc.packet([inner("svc_PacketEntities", ed.message(is_delta=False))])
    rng = random.Random(10)
    for i in range(n):
        which = i % 4
        if which == 0:
            vals = {(4096 + rng.randrange(0, 5000 - 4096),): i, (rng.randrange(0, 4096),): i}
        elif which == 1:
            vals = {(0, 0, 1024 + rng.randrange(0, 2000 - 1024)): i, (0, 0, rng.randrange(0, 1024)): i}
        elif which == 2:
            vals = {p7 + (64 + rng.randrange(0, cf - 64),): i, p7 + (rng.randrange(0, 64),): i}
        else:
            vals = {(0, 16384 + rng.randrange(0, 20000 - 16384)): i, (0, rng.randrange(0, 16384)): i}
        ed = EntityData(sc.cbits)
        ed.update(which, classes[which], vals)
        ents[which][1].update(vals)
        sc.packet([inner("svc_PacketEntities", ed.message())])
    if expect is not None:
        expect["entities"] = _expect_entities(sc.tick, ents, classes)
    return sc.finish()


def _expect_entities(tick, ents, classes, serial=lambda idx: idx + 1):
    out = []
    for idx in sorted(ents):
        cid, vals = ents[idx]
        props = {}
        for p, v in vals.items():
            name, kind, f = resolve_path(classes[cid], p)
            props[name] = json_value(kind, v, f)
        out.append({"tick": tick, "index": idx, "class": json_bytes(classes[cid].name),
                    "class_id": cid, "serial": serial(idx), "active": True, "props": props})
    return out


# 11 -----------------------------------------------------------------------
ODD_NAMES = [b"m_iX\0a", b"m_iX\0b", b"m_\xff\xfe", b'm_"quote"\\', b"m_\x01ctl\x7f",
             b"", b"m_\xe2\x82", b"m_tab\tnl\n", b"\0lead"]


@generator("odd-names", 10000, 50)
def gen_odd_names(n, expect=None):
    """Property names with embedded NUL bytes and odd bytes (two names that
    differ only after a NUL, invalid UTF-8, quotes, control bytes, an empty
    name), in a class whose name has a NUL too; N updates of them."""
    fields = [Field(nm, "uint32") for nm in ODD_NAMES]
    ser = Ser(b"COdd\0Class", fields)
    ser2 = Ser(b"COdd\0Other", [Field(b"m_iX\0c", "int32")])
    sc = Scaffold([ser, ser2], [ser.name, ser2.name],
                  baselines={0: EMPTY_BASELINE, 1: EMPTY_BASELINE})
    ents = {0: (0, {}), 1: (1, {})}
    ed = EntityData(sc.cbits)
    ed.create(0, 0, 1, ser, {(i,): i for i in range(len(fields))})
    ed.create(1, 1, 2, ser2, {(0,): -1})
    ents[0][1].update({(i,): i for i in range(len(fields))})
    ents[1][1].update({(0,): -1})
    sc.packet([inner("svc_PacketEntities", ed.message(is_delta=False))])
    rng = random.Random(11)
    for chunk in _chunks(range(n), 50):
        msgs = []
        for i in chunk:
            ed = EntityData(sc.cbits)
            vals = {(rng.randrange(len(fields)),): i, (rng.randrange(len(fields)),): i + 1}
            ed.update(0, ser, vals)
            ents[0][1].update(vals)
            msgs.append(inner("svc_PacketEntities", ed.message()))
        sc.packet(msgs)
    if expect is not None:
        expect["entities"] = _expect_entities(sc.tick, ents, [ser, ser2])
    return sc.finish()


# --------------------------------------------------------------------------
# more value kinds (seed-types): coord, simulation time, fixed64, float64,
# angles, Vector2D, blobs


def write_coord(bw, v):
    """Valve's bit coord: int and fraction flags, sign, int-1 (14 bits),
    fraction (5 bits, 1/32)."""
    a = abs(v)
    iv = int(a)
    fv = int(round((a - iv) * 32))
    bw.bit(iv != 0).bit(fv != 0)
    if iv or fv:
        bw.bit(v < 0)
        if iv:
            bw.bits(iv - 1, 14)
        if fv:
            bw.bits(fv, 5)


EXTRA_KINDS = {
    # kind: (type, encoder, bit_count, writer, json)
    "coord": ("float32", "coord", None,
              lambda bw, v, f: write_coord(bw, v), lambda v, f: f32(v)),
    "simtime": ("float32", "simtime", None,
                lambda bw, v, f: bw.varuint(v), lambda v, f: f32(f32(v) * f32(1.0 / 64))),
    "fixed64": ("uint64", "fixed64", None,
                lambda bw, v, f: bw.bits(v & 0xFFFFFFFF, 32).bits(v >> 32, 32), lambda v, f: v),
    "float64": ("float64", None, None,
                lambda bw, v, f: bw.raw(struct.pack("<d", v)), lambda v, f: v),
    "qangle_coord": ("QAngle", None, 0,
                     lambda bw, v, f: ([bw.bit(x != 0) for x in v], [write_coord(bw, x) for x in v if x != 0]),
                     lambda v, f: [f32(x) for x in v]),
    "qangle_bits": ("QAngle", None, 16,
                    lambda bw, v, f: [bw.bits(x, 16) for x in v],
                    lambda v, f: [f32(x * 360.0 / 65536) for x in v]),
    "qangle_pitch_yaw": ("QAngle", "qangle_pitch_yaw", 12,
                         lambda bw, v, f: [bw.bits(x, 12) for x in v],
                         lambda v, f: [f32(v[0] * 360.0 / 4096), f32(v[1] * 360.0 / 4096), 0.0]),
    "vector2": ("Vector2D", None, None,
                lambda bw, v, f: [bw.float32(x) for x in v], lambda v, f: [f32(x) for x in v]),
    "blob": ("CUtlBinaryBlock", None, None,
             lambda bw, v, f: bw.varuint(len(v)).raw(v), lambda v, f: json_bytes(v)),
    # CS2's clips: int32 declared, var_serializer "minusone" puts value + 1
    # on the wire as an unsigned varint (so -1, no clip, is 0)
    "minusone": ("int32", None, None,
                 lambda bw, v, f: bw.varuint(v + 1), lambda v, f: v, {"var_serializer": "minusone"}),
    # Dota's m_flRuneTime: 4 bits under a +-FLT_MAX range; known by name,
    # read as the four low bits of a float
    "runetime": ("float32", None, 4,
                 lambda bw, v, f: bw.bits(v, 4),
                 lambda v, f: struct.unpack("<f", struct.pack("<I", v))[0],
                 {"name": "m_flRuneTime", "low": -3.4028234663852886e+38, "high": 3.4028234663852886e+38}),
    # a quantized float whose range is unusable (low == high): its 6 bits
    # are still on the wire, read over [0, 1]
    "qfloat_badrange": ("float32", None, 6,
                        lambda bw, v, f: bw.bits(v, 6), lambda v, f: QFloat(6, 0.0, 1.0).value(v),
                        {"low": 5.0, "high": 5.0}),
    # CTransform: six floats (position, rotation) read like a vector's
    # components: 32 raw bits each, or coords under the coord encoder
    "transform": ("CTransform", None, 32,
                  lambda bw, v, f: [bw.float32(x) for x in v], lambda v, f: [f32(x) for x in v]),
    "transform_coord": ("CTransform", "coord", None,
                        lambda bw, v, f: [write_coord(bw, x) for x in v],
                        lambda v, f: [f32(x) for x in v]),
}


class XField(Field):
    """A field of one of EXTRA_KINDS."""

    def __init__(self, name, xkind):
        typ, enc, bits, self.writer, self.jsonf = EXTRA_KINDS[xkind][:5]
        extra = dict(EXTRA_KINDS[xkind][5]) if len(EXTRA_KINDS[xkind]) > 5 else {}
        Field.__init__(self, extra.pop("name", name), typ, bit_count=bits, encoder=enc, **extra)
        self.kind = "x:" + xkind


# --------------------------------------------------------------------------
# seeds: small valid demos covering every layer, for fuzzing


def write_fieldpaths_cover(bw, paths, used):
    """Like write_fieldpaths, but prefers an operation not used yet."""
    cur = [-1]
    for p in paths:
        p = list(p)
        cands = _fp_candidates(cur, p)
        fresh = [c for c in cands if c[0] not in used]
        op, args = (fresh or [min(cands, key=lambda c: _cost(*c))])[0]
        write_op(bw, op)
        _write_args(bw, args)
        used.add(op)
        cur = p
    write_op(bw, "FieldPathEncodeFinish")


def allops_schema():
    """Nested pointers seven deep plus arrays and vectors, all values
    uint32, every component small (fits any path packing)."""
    lv = Ser("CL6", [Field("m_n%d" % i, "uint32") for i in range(8)])
    chain = [lv]
    for k in range(5, 0, -1):
        fs = [Field("m_n%d" % i, "uint32") for i in range(6)]
        fs.append(Field("m_arr", "uint32[6]"))
        fs.append(Field("m_p", "CL%d*" % (k + 1), ser=chain[0]))
        chain.insert(0, Ser("CL%d" % k, fs))
    item = Ser("CItem", [Field("m_a", "uint32"), Field("m_b", "uint32"), Field("m_p", "CL1*", ser=chain[0])])
    top = Ser("CAllOps", [Field("m_n%d" % i, "uint32") for i in range(40)] +
              [Field("m_p", "CL1*", ser=chain[0]), Field("m_arr", "uint32[40]"),
               Field("m_vec", "CNetworkUtlVectorBase< uint32 >"),
               Field("m_items", "CUtlVectorEmbeddedNetworkVar< CItem >", ser=item)])
    return chain + [item, top], top


def build_allops(seed=5, rounds=400):
    """One entity of CAllOps updated with random path sets until every one
    of the 40 field-path operations has been written. Returns (bytes,
    expected entities, ops used)."""
    rng = random.Random(seed)
    sers, top = allops_schema()
    sc = Scaffold(sers, ["CAllOps"], baselines={0: EMPTY_BASELINE})
    counts = {(42,): 6, (43,): 3}
    for d in range(1, 7):
        counts[(40,) + (8,) * (d - 1)] = 1
    for k in range(3):
        counts[(43, k, 2)] = 1
        for d in range(1, 6):
            counts[(43, k, 2) + (8,) * d] = 1
    leaves = [p for p in _leaf_paths(top, (), counts)]
    state = {}
    for p in leaves:
        _, kind, f = resolve_path(top, p)
        state[p] = counts.get(p, 0) if kind == "count" else (True if kind == "bool" else 0)
    used = set()
    bw = BitWriter()
    bw.ubitvar(0).bits(2, 2).bits(0, sc.cbits).bits(1, 17).varuint(0)
    paths = sorted(state)
    write_fieldpaths_cover(bw, paths, used)
    for p in paths:
        _, kind, f = resolve_path(top, p)
        write_value(bw, kind, state[p], f)
    msg = pb("CSVCMsg_PacketEntities", max_entries=16384, updated_entries=1,
             legacy_is_delta=False, entity_data=bw.getvalue())
    sc.packet([inner("svc_PacketEntities", msg)])
    used.add("FieldPathEncodeFinish")
    kinds = {p: resolve_path(top, p)[1] for p in leaves}
    for r in range(rounds):
        if len(used) == len(FP_OPS):
            break
        k = rng.choice([1, 2, 3, 5, 8, 20])
        sel = sorted(rng.sample(leaves, k))
        if rng.random() < 0.3:  # out-of-order paths exercise the non-topological ops
            rng.shuffle(sel)
        vals = {p: (True if kinds[p] == "bool" else counts[p] if kinds[p] == "count"
                    else rng.randrange(0, 1 << 20)) for p in sel}
        bw = BitWriter()
        bw.ubitvar(0).bits(0, 2)
        write_fieldpaths_cover(bw, sel, used)
        for p in sel:
            write_value(bw, kinds[p], vals[p])
        state.update(vals)
        sc.packet([inner("svc_PacketEntities", pb(
            "CSVCMsg_PacketEntities", max_entries=16384, updated_entries=1,
            legacy_is_delta=True, entity_data=bw.getvalue()))])
    ents = {0: (0, state)}
    return sc.finish(), _expect_entities(sc.tick, ents, [top], serial=lambda i: 1), used


def build_types(seed=6, n=40):
    """Fields of the less common encodings (coord, simtime, fixed64,
    float64, QAngle forms, Vector2D, blob, minusone, CTransform); returns
    (bytes, expected entities)."""
    rng = random.Random(seed)
    fields = [XField("m_x_" + k, k) for k in sorted(EXTRA_KINDS)]
    ser = Ser("CTypes", fields)
    sc = Scaffold([ser], ["CTypes"], tick_interval=1.0 / 64, baselines={0: EMPTY_BASELINE})

    def rand(k):
        if k == "coord":
            return rng.choice([0.0, -1.0, 0.5, rng.randrange(-16000, 16000) + rng.randrange(32) / 32.0])
        if k == "simtime":
            return rng.randrange(0, 1 << 24)
        if k == "fixed64":
            return rng.randrange(0, 1 << 64)
        if k == "float64":
            return rng.uniform(-1e9, 1e9)
        if k == "qangle_coord":
            return [rng.choice([0.0, rng.randrange(-360, 360) + rng.randrange(32) / 32.0]) for _ in range(3)]
        if k == "qangle_bits":
            return [rng.randrange(1 << 16) for _ in range(3)]
        if k == "qangle_pitch_yaw":
            return [rng.randrange(1 << 12) for _ in range(2)]
        if k == "vector2":
            return [f32(rng.uniform(-100, 100)) for _ in range(2)]
        if k == "blob":
            return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 12)))
        if k == "runetime":
            return rng.randrange(16)
        if k == "qfloat_badrange":
            return rng.randrange(64)
        if k == "minusone":
            return rng.choice([-1, 0, 13, 30, rng.randrange(-1, 1 << 31)])
        if k == "transform":
            return [f32(rng.uniform(-5000, 5000)) for _ in range(6)]
        if k == "transform_coord":
            return [rng.choice([0.0, rng.randrange(-16000, 16000) + rng.randrange(32) / 32.0])
                    for _ in range(6)]
    state = {(i,): rand(f.kind[2:]) for i, f in enumerate(fields)}
    ed = EntityData(sc.cbits)
    ed.create(0, 0, 1, ser, dict(state))
    sc.packet([inner("svc_PacketEntities", ed.message(is_delta=False))])
    for _ in range(n):
        ed = EntityData(sc.cbits)
        vals = {}
        for i in rng.sample(range(len(fields)), 3):
            vals[(i,)] = rand(fields[i].kind[2:])
        ed.update(0, ser, vals)
        state.update(vals)
        sc.packet([inner("svc_PacketEntities", ed.message())], compress=rng.random() < 0.5)
    return sc.finish(), _expect_entities(sc.tick, {0: (0, state)}, [ser], serial=lambda i: 1)


def build_strtab_seed():
    """String tables with every option: fixed-size user data (odd bit
    counts), 17-bit and ubit_var lengths, per-value Snappy, key history,
    index jumps, Snappy, LZSS and plain string data, updates, and a
    CDemoStringTables dump; the userinfo table (LZSS) names the players."""
    sc = Scaffold([], [])
    keys = ["models/props/crate%03d.vmdl" % i for i in range(40)]
    t = [
        create_string_table("precache", [(i, k, None) for i, k in enumerate(keys)], compressed=True),
        create_string_table("fixed", [(0, b"a", b"\x05"), (1, b"b", b"\x1f"), (5, b"far", b"\x11")],
                            user_data_fixed=True, user_data_size=1, size_bits=5),
        create_string_table("len17", [(0, b"k0", b"v" * 40), (1, b"k1", b""), (2, None, b"x")],
                            varint_bits=False),
        create_string_table("percompressed", [(0, b"c0", b"abcabcabcabc" * 8), (1, b"c1", b"zz")],
                            flags=1, compress_values=True),
        create_string_table("nohistory", [(i, k, None) for i, k in enumerate(keys[:5])], history=False),
        # LZSS-compressed: the player names come out of it
        create_string_table("userinfo", [(i, str(i).encode(), pb("CMsgPlayerInfo", name=nm, ishltv=hl))
                                         for i, (nm, hl) in enumerate([("Alpha", False), ("SourceTV", True),
                                                                       ("Bravo", False)])],
                            compressed="lzss"),
    ]
    sc.d.frame("DEM_SignonPacket", PREGAME, demo_packet([inner("svc_CreateStringTable", m) for m in t]))
    tid = {"fixed": 2, "len17": 3, "userinfo": 6}  # instancebaseline is table 0
    sc.packet([inner("svc_UpdateStringTable", update_string_table(
                   tid["fixed"], [(3, b"mid", b"\x07"), (4, b"mid2", b"\x01")],
                   user_data_fixed=True, size_bits=5)),
               inner("svc_UpdateStringTable", update_string_table(
                   tid["len17"], [(7, b"jump", b"yy")], varint_bits=False)),
               inner("svc_UpdateStringTable", update_string_table(
                   tid["userinfo"], [(3, b"3", pb("CMsgPlayerInfo", name="Charlie"))]))])
    tables = {"precache": {i: (k.encode(), None) for i, k in enumerate(keys)}}
    sc.d.frame("DEM_StringTables", 2, demo_string_tables(tables, ["precache"]), compress=True)
    sc.packet([])
    return sc.finish()


def build_events_seed():
    """Game events of every key type, SayText and SayText2 chat, convars.
    Returns (bytes, expected `zdem events --json` lines)."""
    d = Demo()
    out = []
    d.frame("DEM_FileHeader", PREGAME, file_header())
    cv = [("mp_freezetime", "15"), ("empty", "")]
    d.frame("DEM_SignonPacket", PREGAME, demo_packet([
        inner("svc_ServerInfo", server_info(1)),
        inner("net_SetConVar", pb("CNETMsg_SetConVar", convars={"cvars": [
            {"name": n, "value": v} for n, v in cv]}))]))
    out += [{"tick": -1, "type": "game_event", "name": "server_cvar",
             "keys": {"name": n, "value": v}} for n, v in cv]
    d.frame("DEM_SignonPacket", PREGAME, demo_packet([
        inner("GE_Source1LegacyGameEventList", event_list(EVENT_DESCS))]))
    d.frame("DEM_SyncTick", PREGAME, pb("CDemoSyncTick"))
    rng = random.Random(4)
    vals = {"short": -7, "byte": 200, "long": -(1 << 31), "bool": True, "uint64": (1 << 64) - 1,
            "float": 0.25, "string": None}
    for tick in range(1, 40):
        msgs = [net_tick(tick)]
        eid, ename, keys = EVENT_DESCS[tick % len(EVENT_DESCS)]
        kv = [(kt, vals[kt] if kt != "string" else "str %d \u00e9" % tick) for _, kt in keys]
        msgs.append(inner("GE_Source1LegacyGameEvent", game_event(eid, kv)))
        ev = {"tick": tick, "type": "game_event", "name": ename}
        if keys:
            ev["keys"] = {k: event_json_value(kt, v) for (k, _), (kt, v) in zip(keys, kv)}
        event_players(ev, GAME_EVENT_ROLES, lambda idx: None, {})  # nobody: null columns
        out.append(ev)
        if tick % 5 == 0:
            msgs.append(inner("UM_SayText2", say_text2(tick, "Nick%d" % tick, "hello \u00e9 %d" % tick)))
            out.append({"tick": tick, "type": "chat", "name": "chat", "keys": {
                "entityindex": tick, "messagename": "Cstrike_Chat_All", "name": "Nick%d" % tick,
                "text": "hello \u00e9 %d" % tick}})
            event_players(out[-1], CHAT_ROLES, lambda idx: None, {})
            msgs.append(inner("UM_SayText", pb("CUserMessageSayText", playerindex=tick,
                                               text="plain %d" % tick, chat=True)))
            out.append({"tick": tick, "type": "chat", "name": "chat", "keys": {
                "playerindex": tick, "text": "plain %d" % tick}})
        d.frame("DEM_Packet", tick, demo_packet(msgs), compress=rng.random() < 0.5)
    return d.finish(), out


def write_seeds(outdir, expect=None):
    """The fuzzing seeds (each <= 64 KiB). expect: a dict to receive the
    expected `zdem entities --json` output of the seeds that have one."""
    os.makedirs(outdir, exist_ok=True)
    files = {}
    data, exp = build_normal(ticks=60, seed=21, full_every=25, compress_ratio=0.5)
    files["seed-normal.dem"] = data
    if expect is not None:
        expect["seed-normal.dem"] = exp["entities"]
        expect["seed-normal.dem:events"] = exp["events"]
    data, exp = build_normal(ticks=40, seed=22, full_every=15, compress_ratio=1.0)
    files["seed-compressed.dem"] = data
    if expect is not None:
        expect["seed-compressed.dem"] = exp["entities"]
    data, exp, used = build_allops()
    if len(used) != len(FP_OPS):
        raise RuntimeError("all-ops seed misses %s" % sorted(set(FP_OP_ID) - used))
    files["seed-allops.dem"] = data
    if expect is not None:
        expect["seed-allops.dem"] = exp
    data, exp = build_types()
    files["seed-types.dem"] = data
    if expect is not None:
        expect["seed-types.dem"] = exp
    files["seed-strtab.dem"] = build_strtab_seed()
    if expect is not None:
        expect["seed-strtab.dem:info"] = {
            "string_tables": {"instancebaseline": 0, "precache": 40, "fixed": 6, "len17": 8,
                              "percompressed": 2, "nohistory": 5, "userinfo": 4},
            # slot: the userinfo entry (entry 1, SourceTV, is not a player)
            "players": [{"slot": 0, "name": "Alpha", "team": None, "steamid": None},
                        {"slot": 2, "name": "Bravo", "team": None, "steamid": None},
                        {"slot": 3, "name": "Charlie", "team": None, "steamid": None}]}
    files["seed-events.dem"], evs = build_events_seed()
    if expect is not None:
        expect["seed-events.dem:events"] = evs
    for name, data in files.items():
        if len(data) > 65536:
            raise RuntimeError("%s is %d bytes" % (name, len(data)))
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)
    return sorted(files)


# --------------------------------------------------------------------------
# hash flooding (issue 26): keys that collide under zdem's own hash with a
# known seed. runtime/zdem_hash.h's functions again, so that a generator can
# aim at the seed a run uses (ZDEM_HASH_SEED=N; 0 is the built-in seed,
# "ZDEMS2_1", which library users who leave hash_seed at 0 get). Tables
# place a key at home slot = the hash's top log2(size) bits.

M64 = (1 << 64) - 1
S2_BUILTIN_SEED = 0x5A44454D53325F31
_ZH_C1, _ZH_C2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_ZH_K = 0x9E3779B97F4A7C15


def zh_seed(seed):
    """The seed a state uses for ZDEM_HASH_SEED=seed (0: the built-in)."""
    return seed if seed else S2_BUILTIN_SEED


def zh_mix64(x):
    x ^= x >> 30
    x = (x * _ZH_C1) & M64
    x ^= x >> 27
    x = (x * _ZH_C2) & M64
    return x ^ (x >> 31)


def _xorshift_inverse(y, s):
    x = y
    for _ in range(64 // s + 1):
        x = y ^ (x >> s)
    return x


def zh_unmix64(y):
    """The inverse of zh_mix64 (the mixer is a bijection)."""
    y = _xorshift_inverse(y, 31)
    y = (y * pow(_ZH_C2, -1, 1 << 64)) & M64
    y = _xorshift_inverse(y, 27)
    y = (y * pow(_ZH_C1, -1, 1 << 64)) & M64
    return _xorshift_inverse(y, 30)


def zh_u64(key, seed):
    return zh_mix64(key ^ seed)


def zh_bytes(p, seed):
    h = seed ^ ((len(p) * 0x9E3779B97F4A7C15) & M64)
    i = 0
    while len(p) - i >= 8:
        h = zh_mix64(h ^ int.from_bytes(p[i:i + 8], "little"))
        i += 8
    if i < len(p):
        h = zh_mix64(h ^ int.from_bytes(p[i:], "little") ^ 0x80)
    return zh_mix64(h)


def zh_fphash_init(seed):
    """zdem_s2_fphash_init: the field-path hash's multipliers (odd, one per
    component) and its per-depth terms."""
    k = [zh_mix64(seed ^ ((0x9E3779B97F4A7C15 * (i + 1)) & M64)) | 1 for i in range(7)]
    d = [zh_mix64((seed + 0xD6E8FEB86659FD93 * (i + 1)) & M64) for i in range(8)]
    return k, d


def zh_fphash(path, seed):
    """The hash of a field path (source2_state_int.h, zdem_s2_fphash_key):
    the depth's term plus each component times its multiplier, mod 2^64."""
    k, d = zh_fphash_init(seed)
    return zh_fphash_fin((d[len(path)] + sum(c * k[i] for i, c in enumerate(path))) & M64)


def zh_fphash_fin(x):
    """zdem_s2_fphash_fin: one xorshift-multiply round."""
    x ^= x >> 29
    return (x * _ZH_C1) & M64


def fp_key(path):
    """zdem_s2_fp_pack: 16 bits a component from the lowest, components
    4..6 and the depth in lo from bit 8."""
    c = list(path) + [0] * (7 - len(path))
    hi = c[0] | c[1] << 16 | c[2] << 32 | c[3] << 48
    lo = (c[4] | c[5] << 16 | c[6] << 32 | len(path) << 48) << 8
    return hi, lo


def _mix64_np(x, np):
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(_ZH_C1)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(_ZH_C2)
    return x ^ (x >> np.uint64(31))


def _top_bits_search(n, bits, cands, hash_fn, hash_np):
    """The first n candidates (an iterable of chunks: lists of ints, or
    numpy arrays with hash_np) whose hashes share their top `bits` bits
    with the first candidate's: one home slot in every table of up to
    2^bits slots. numpy when it is there (Debian's python3-numpy, which
    the tests install), plain Python otherwise (slower)."""
    try:
        import numpy as np
    except ImportError:
        np = None
    shift = 64 - bits
    want = None
    out = []
    for chunk in cands(np):
        if np is not None:
            h = hash_np(chunk, np) >> np.uint64(shift)
            if want is None:
                want = int(h[0])
            out += [int(v) for v in chunk[h == np.uint64(want)]]
        else:
            for v in chunk:
                t = hash_fn(v) >> shift
                if want is None:
                    want = t
                if t == want:
                    out.append(v)
        if len(out) >= n:
            return out[:n]
    raise RuntimeError("only %d colliding keys of %d" % (len(out), n))


def colliding_indexes(n, seed, bits=12, start=1, stop=1 << 26):
    """n string-table indexes in [start, stop) sharing one home slot in
    every table of up to 2^bits slots under ZDEM_HASH_SEED=seed."""
    s = zh_seed(seed)
    step = 1 << 20

    def cands(np):
        for a in range(start, stop, step):
            b = min(stop, a + step)
            yield np.arange(a, b, dtype=np.uint64) if np is not None else range(a, b)
    return _top_bits_search(n, bits, cands, lambda v: zh_u64(v, s),
                            lambda x, np: _mix64_np(x ^ np.uint64(s), np))


def colliding_fieldpaths(n, seed, fields, count, bits=12):
    """n depth-2 field paths (f, k), f < fields, k < count, sharing one home
    slot in every table of up to 2^bits slots under ZDEM_HASH_SEED=seed."""
    k, d = zh_fphash_init(zh_seed(seed))

    def cands(np):
        for f in range(fields):
            if np is not None:
                yield (np.uint64(f) | (np.arange(count, dtype=np.uint64) << np.uint64(16)))
            else:
                yield [f | c << 16 for c in range(count)]

    def h_np(x, np):  # components f (low 16 bits) and k; wraps mod 2^64
        h = (np.uint64(d[2]) + (x & np.uint64(0xFFFF)) * np.uint64(k[0]) +
             (x >> np.uint64(16)) * np.uint64(k[1]))
        h = h ^ (h >> np.uint64(29))
        h = h * np.uint64(_ZH_C1)
        return h ^ (h >> np.uint64(32))
    his = _top_bits_search(n, bits, cands, lambda v: zh_fphash((v & 0xFFFF, v >> 16), zh_seed(seed)),
                           h_np)
    return sorted((h & 0xFFFF, (h >> 16) & 0xFFFF) for h in his)


def colliding_names(n, seed, prefix=b"hf"):
    """n distinct 16-byte names with one and the same 64-bit hash under
    ZDEM_HASH_SEED=seed (no table size separates them): the first word is
    PREFIX and a counter, the second is solved for through the inverse
    mixer, so the names hold arbitrary bytes."""
    s = zh_seed(seed)
    h0 = s ^ ((16 * 0x9E3779B97F4A7C15) & M64)
    target = zh_bytes(prefix + b"%06d" % 0 + bytes(8), s)
    inner = zh_unmix64(zh_unmix64(target))  # mix(h0 ^ w0) ^ w1
    out = []
    for i in range(n):
        w0 = prefix + (b"%0" + str(8 - len(prefix)).encode() + b"d") % i
        w1 = inner ^ zh_mix64(h0 ^ int.from_bytes(w0, "little"))
        name = w0 + w1.to_bytes(8, "little")
        assert zh_bytes(name, s) == target
        out.append(name)
    return out


@generator("hash-strtab-index", 8192, 64)
def gen_hash_strtab_index(n, seed=1, updates=4000, table="hashflood"):
    """N string-table indexes whose hashes under ZDEM_HASH_SEED=SEED (0:
    the built-in seed) share their top 12 bits (one home slot in tables of
    up to 4096 slots, a run of N in any table of up to 4096 N) in one table
    (TABLE; "userinfo" makes the events mode keep it too), then UPDATES
    one-entry updates of them, round robin: a table that keeps every
    colliding index walks all N for each lookup."""
    idx = colliding_indexes(n, seed)
    sc = Scaffold([], [], tables=[create_string_table(
        table, [(i, b"k%d" % k, b"v") for k, i in enumerate(sorted(idx))])])
    per = 200
    for a in range(0, updates, per):
        msgs = []
        for u in range(a, min(updates, a + per)):
            i = idx[(u * 7) % len(idx)]
            msgs.append(inner("svc_UpdateStringTable",
                              update_string_table(1, [(i, None, bytes([u & 0x7F]))])))
        sc.packet(msgs)
    return sc.finish()


@generator("hash-fieldpaths", 6000, 64)
def gen_hash_fieldpaths(n, seed=1, updates=3000, per_update=8):
    """N field paths (f, k) of one class (uint32[16384] arrays, as many as
    the paths need) whose hashes share their top 12 bits (one home slot in
    tables of up to 4096 slots, a run of N in any table up to 4096 N) under
    ZDEM_HASH_SEED=SEED (0: the built-in seed), set by one entity's create,
    then UPDATES updates of PER_UPDATE of them, round robin: a value table
    that keeps every colliding path walks all N for each lookup."""
    count = 16384
    paths = colliding_fieldpaths(n, seed, 4096, count)
    fields = max(f for f, _ in paths) + 1
    ser = Ser("CHashFlood", [Field("m_a%d" % f, "uint32[%d]" % count) for f in range(fields)])
    sc = Scaffold([ser], ["CHashFlood"], baselines={0: EMPTY_BASELINE})
    ed = EntityData(sc.cbits)
    ed.create(0, 0, 1, ser, {p: k & 0x7F for k, p in enumerate(paths)})
    sc.packet([inner("svc_PacketEntities", ed.message(is_delta=False))])
    msgs = []
    for u in range(updates):
        vals = {paths[(u * per_update + j * 131) % len(paths)]: (u + j) & 0x7F
                for j in range(per_update)}
        ed = EntityData(sc.cbits)
        ed.update(0, ser, vals)
        msgs.append(inner("svc_PacketEntities", ed.message()))
        if len(msgs) == 50:
            sc.packet(msgs)
            msgs = []
    if msgs:
        sc.packet(msgs)
    return sc.finish()


@generator("hash-strtab-names", 4000, 64)
def gen_hash_strtab_names(n, seed=1, again=1):
    """N CreateStringTable messages whose 16-byte names all have one 64-bit
    hash under ZDEM_HASH_SEED=SEED (0: the built-in seed), each with one
    entry, then the same N creates AGAIN times (a create of a known name
    finds its table by name): a name hash that keeps every name walks all
    N for each create."""
    names = colliding_names(n, seed)
    sc = Scaffold([], [])
    for r in range(1 + again):
        for chunk in _chunks(names, 100):
            sc.packet([inner("svc_CreateStringTable", create_string_table(
                nm, [(0, b"k", bytes([r]))])) for nm in chunk])
    return sc.finish()


# --------------------------------------------------------------------------
# command line


def _opts(pairs):
    out = {}
    for p in pairs or []:
        k, _, v = p.partition("=")
        try:
            v = int(v, 0)
        except ValueError:
            try:
                v = float(v)
            except ValueError:
                pass
        out[k.replace("-", "_")] = v
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="s2craft.py", description="Write synthetic Source 2 (PBDEMS2) demos.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="hostile generators: NAME OUT [-n N] [--scale F] [-o KEY=VALUE] [--expect F]\n" +
        "  (`s2craft.py list` describes each)\n" +
        "\n".join("  %-22s default -n %d" % (k, g.default) for k, g in sorted(GENERATORS.items())))
    sub = ap.add_subparsers(dest="cmd")
    p = sub.add_parser("normal", help="the normal demo (every layer)")
    p.add_argument("out")
    p.add_argument("--ticks", type=int, default=400)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--full-every", type=int, default=100)
    p.add_argument("--expect", help="write what zdem must print (JSON) here")
    p = sub.add_parser("seeds", help="small valid demos for fuzzing (each <= 64 KiB)")
    p.add_argument("outdir")
    p.add_argument("--expect", help="write the seeds' expected entities (JSON) here")
    p = sub.add_parser("inspect", help="list the frames and inner messages of a demo")
    p.add_argument("file")
    sub.add_parser("list", help="the hostile generators and their parameters")
    for name, g in sorted(GENERATORS.items()):
        p = sub.add_parser(name, help=g.doc.split("\n")[0], description=g.doc)
        p.add_argument("out")
        p.add_argument("-n", type=int, default=None, help="count (default %d)" % g.default)
        p.add_argument("--scale", type=float, default=1.0, help="multiply the default count")
        p.add_argument("-o", action="append", metavar="KEY=VALUE",
                       help="generator parameter (the upper-case names in its description)")
        p.add_argument("--expect", help="write what a decoder must print (JSON), where known")
    a = ap.parse_args(argv)
    if a.cmd == "normal":
        data, exp = build_normal(ticks=a.ticks, seed=a.seed, full_every=a.full_every)
        with open(a.out, "wb") as f:
            f.write(data)
        if a.expect:
            with open(a.expect, "w") as f:
                json.dump(exp, f, indent=1, sort_keys=True)
        print("%s: %d bytes" % (a.out, len(data)))
    elif a.cmd == "seeds":
        exp = {}
        for name in write_seeds(a.outdir, exp):
            print(os.path.join(a.outdir, name), os.path.getsize(os.path.join(a.outdir, name)))
        if a.expect:
            with open(a.expect, "w") as f:
                json.dump(exp, f, indent=1, sort_keys=True)
    elif a.cmd == "inspect":
        dump_demo(a.file)
    elif a.cmd == "list":
        for name, g in sorted(GENERATORS.items()):
            print("%s (default -n %d)\n    %s\n" % (name, g.default,
                                                   g.doc.replace("\n", "\n    ")))
    elif a.cmd in GENERATORS:
        g = GENERATORS[a.cmd]
        n = a.n if a.n is not None else max(1, int(round(g.default * a.scale)))
        kw = _opts(a.o)
        exp = None
        if a.expect:
            if "expect" in inspect.signature(g.fn).parameters:
                exp = {}
                kw["expect"] = exp
        data = g.build(n, **kw)
        with open(a.out, "wb") as f:
            f.write(data)
        if a.expect:
            with open(a.expect, "w") as f:
                json.dump(exp, f, indent=1, sort_keys=True)
        print("%s: %s -n %d: %d bytes" % (a.out, a.cmd, n, len(data)))
    else:
        ap.print_help()
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # output piped into head
        sys.exit(0)
