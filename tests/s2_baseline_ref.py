#!/usr/bin/env python3
"""Independent reference for Source 2 instance baselines: decodes a class's
baseline (string table instancebaseline) field by field and prints every
field path with its name and value. Written from the published format
descriptions (the CSVCMsg_FlattenedSerializer message of DEM_SendTables,
the field-path Huffman operations and the field decoders that manta,
clarity, demoinfocs-golang and demoparser2 describe), not from zdem's C
code; the framing, Snappy, bit reader and string tables are
tests/s2_stringtables_ref.py's.

  s2_baseline_ref.py FILE.dem CLASS          every path of CLASS's baseline
  s2_baseline_ref.py FILE.dem CLASS FIELD    only the value of FIELD
                                             (a dotted name, e.g.
                                             m_pEntity.m_nameStringTableIndex)
  s2_baseline_ref.py --entities FILE.dem CLASS FIELD
      decodes every entity create and update of the demo (each packet's
      entity data has to be read to its end) and prints FIELD's value on
      every CLASS entity created (the baseline's as the instancebaseline
      table holds it then, unless the create writes it) and every value an
      update writes to it: tick, index, create|update, value.
  s2_baseline_ref.py --compare-create PROPDUMP FILE.dem CLASS
      every value of the first CLASS entity created (its baseline, then the
      create's own delta) against zdem's (tests/s2_propdump); exit 1 on any
      difference.

The decode must end on the FieldPathEncodeFinish operation with every
value read and fewer than 8 bits left over, or it fails (exit 1): a
misread decoder or path would not land there.
"""
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import s2_stringtables_ref as st  # noqa: E402

PROTO = r'''
syntax = "proto2";
message BSendTables { optional bytes data = 1; }
message BClass { optional int32 class_id = 1; optional string network_name = 2; optional string table_name = 3; }
message BClassInfo { repeated BClass classes = 1; }
message BPoly { optional int32 name_sym = 1; optional int32 version = 2; }
message BField { optional int32 var_type_sym = 1; optional int32 var_name_sym = 2; optional int32 bit_count = 3;
                 optional float low_value = 4; optional float high_value = 5; optional int32 encode_flags = 6;
                 optional int32 field_serializer_name_sym = 7; optional int32 field_serializer_version = 8;
                 optional int32 send_node_sym = 9; optional int32 var_encoder_sym = 10;
                 repeated BPoly polymorphic_types = 11; optional int32 var_serializer_sym = 12; }
message BSerializer { optional int32 serializer_name_sym = 1; optional int32 serializer_version = 2;
                      repeated int32 fields_index = 3; }
message BPacketEntities { optional int32 max_entries = 1; optional int32 updated_entries = 2;
                          optional bool legacy_is_delta = 3; optional bool update_baseline = 4;
                          optional int32 baseline = 5; optional int32 delta_from = 6; optional bytes entity_data = 7;
                          optional uint32 has_pvs_vis_bits = 16; }
message BFlattened { repeated BSerializer serializers = 1; repeated string symbols = 2; repeated BField fields = 3; }
'''

DEM_SENDTABLES, DEM_CLASSINFO = 4, 5
SVC_PACKETENTITIES = 55
TICK_INTERVAL = 1.0 / 64
DEBUG = int(os.environ.get("S2REF_DEBUG") or 0)


def load_proto():
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "s2bref.proto"), "w") as f:
        f.write(PROTO)
    subprocess.check_call(["protoc", "--python_out=" + d, "-I" + d, os.path.join(d, "s2bref.proto")])
    sys.path.insert(0, d)
    import s2bref_pb2
    return s2bref_pb2


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


class Bits(st.Bits):
    def varuint64(self):
        v = s = 0
        while True:
            c = self.read(8)
            v |= (c & 0x7F) << s
            s += 7
            if c < 0x80:
                return v
            if s >= 70:
                raise ValueError("varint too long")

    def varsint(self):
        u = self.varuint64()
        return (u >> 1) ^ -(u & 1)

    def varint32_signed(self):
        """a zigzag varint, as the field-path operations read them"""
        u = self.varuint()
        return (u >> 1) ^ -(u & 1)

    def ubitvar_fp(self):
        if self.bit():
            return self.read(2)
        if self.bit():
            return self.read(4)
        if self.bit():
            return self.read(10)
        if self.bit():
            return self.read(17)
        return self.read(31)

    def float32(self):
        return struct.unpack("<f", struct.pack("<I", self.read(32)))[0]

    def coord(self):
        has_int, has_frac = self.bit(), self.bit()
        if not (has_int or has_frac):
            return 0.0
        neg = self.bit()
        i = self.read(14) + 1 if has_int else 0
        fr = self.read(5) if has_frac else 0
        v = i + fr / 32.0
        return -v if neg else v

    def normal(self):
        neg = self.bit()
        v = self.read(11) / ((1 << 11) - 1)
        return -v if neg else v


# ---- field-path operations (name, weight); zero weights count as 1 --------
OPS = [
    ("PlusOne", 36271), ("PlusTwo", 10334), ("PlusThree", 1375), ("PlusFour", 646), ("PlusN", 4128),
    ("PushOneLeftDeltaZeroRightZero", 35), ("PushOneLeftDeltaZeroRightNonZero", 3),
    ("PushOneLeftDeltaOneRightZero", 521), ("PushOneLeftDeltaOneRightNonZero", 2942),
    ("PushOneLeftDeltaNRightZero", 560), ("PushOneLeftDeltaNRightNonZero", 471),
    ("PushOneLeftDeltaNRightNonZeroPack6Bits", 10530), ("PushOneLeftDeltaNRightNonZeroPack8Bits", 251),
    ("PushTwoLeftDeltaZero", 0), ("PushTwoPack5LeftDeltaZero", 0), ("PushThreeLeftDeltaZero", 0),
    ("PushThreePack5LeftDeltaZero", 0), ("PushTwoLeftDeltaOne", 0), ("PushTwoPack5LeftDeltaOne", 0),
    ("PushThreeLeftDeltaOne", 0), ("PushThreePack5LeftDeltaOne", 0), ("PushTwoLeftDeltaN", 0),
    ("PushTwoPack5LeftDeltaN", 0), ("PushThreeLeftDeltaN", 0), ("PushThreePack5LeftDeltaN", 0),
    ("PushN", 0), ("PushNAndNonTopological", 310), ("PopOnePlusOne", 2), ("PopOnePlusN", 0),
    ("PopAllButOnePlusOne", 1837), ("PopAllButOnePlusN", 149), ("PopAllButOnePlusNPack3Bits", 300),
    ("PopAllButOnePlusNPack6Bits", 634), ("PopNPlusOne", 0), ("PopNPlusN", 0),
    ("PopNAndNonTopographical", 1), ("NonTopoComplex", 76), ("NonTopoPenultimatePlusOne", 271),
    ("NonTopoComplexPack4Bits", 99), ("FieldPathEncodeFinish", 25474),
]


def huffman_tree():
    """Leaves are op indexes, internal nodes (left, right); the two lightest
    are merged first, on equal weight the one numbered higher (internal
    nodes are numbered after the 40 leaves, in creation order); the first
    taken goes left (bit 0)."""
    import heapq
    h = [(max(w, 1), -i, i, None) for i, (_, w) in enumerate(OPS)]
    heapq.heapify(h)
    n = len(OPS)
    nodes = {}
    while len(h) > 1:
        wa, _, a, _ = heapq.heappop(h)
        wb, _, b, _ = heapq.heappop(h)
        nodes[n] = (a, b)
        heapq.heappush(h, (wa + wb, -n, n, None))
        n += 1
    return h[0][2], nodes


ROOT, NODES = huffman_tree()


def read_op(br):
    node = ROOT
    while node in NODES:
        node = NODES[node][br.bit()]
    return OPS[node][0]


def read_paths(br):
    path = [-1]
    out = []

    def pop(n):
        for _ in range(n):
            path.pop()

    def push(v):
        path.append(v)

    while True:
        op = read_op(br)
        if op == "FieldPathEncodeFinish":
            return out
        if op == "PlusOne":
            path[-1] += 1
        elif op == "PlusTwo":
            path[-1] += 2
        elif op == "PlusThree":
            path[-1] += 3
        elif op == "PlusFour":
            path[-1] += 4
        elif op == "PlusN":
            path[-1] += br.ubitvar_fp() + 5
        elif op == "PushOneLeftDeltaZeroRightZero":
            push(0)
        elif op == "PushOneLeftDeltaZeroRightNonZero":
            push(br.ubitvar_fp())
        elif op == "PushOneLeftDeltaOneRightZero":
            path[-1] += 1
            push(0)
        elif op == "PushOneLeftDeltaOneRightNonZero":
            path[-1] += 1
            push(br.ubitvar_fp())
        elif op == "PushOneLeftDeltaNRightZero":
            path[-1] += br.ubitvar_fp()
            push(0)
        elif op == "PushOneLeftDeltaNRightNonZero":
            path[-1] += br.ubitvar_fp() + 2
            push(br.ubitvar_fp() + 1)
        elif op == "PushOneLeftDeltaNRightNonZeroPack6Bits":
            path[-1] += br.read(3) + 2
            push(br.read(3) + 1)
        elif op == "PushOneLeftDeltaNRightNonZeroPack8Bits":
            path[-1] += br.read(4) + 2
            push(br.read(4) + 1)
        elif op.startswith("PushTwo") or op.startswith("PushThree"):
            k = 2 if op.startswith("PushTwo") else 3
            if op.endswith("DeltaOne"):
                path[-1] += 1
            elif op.endswith("DeltaN"):
                path[-1] += br.ubitvar() + 2
            for _ in range(k):
                push(br.read(5) if "Pack5" in op else br.ubitvar_fp())
        elif op == "PushN":
            n = br.ubitvar()
            path[-1] += br.ubitvar()
            for _ in range(n):
                push(br.ubitvar_fp())
        elif op == "PushNAndNonTopological":
            for i in range(len(path)):
                if br.bit():
                    path[i] += br.varint32_signed() + 1
            for _ in range(br.ubitvar()):
                push(br.ubitvar_fp())
        elif op == "PopOnePlusOne":
            pop(1)
            path[-1] += 1
        elif op == "PopOnePlusN":
            pop(1)
            path[-1] += br.ubitvar_fp() + 1
        elif op == "PopAllButOnePlusOne":
            pop(len(path) - 1)
            path[0] += 1
        elif op == "PopAllButOnePlusN":
            pop(len(path) - 1)
            path[0] += br.ubitvar_fp() + 1
        elif op == "PopAllButOnePlusNPack3Bits":
            pop(len(path) - 1)
            path[0] += br.read(3) + 1
        elif op == "PopAllButOnePlusNPack6Bits":
            pop(len(path) - 1)
            path[0] += br.read(6) + 1
        elif op == "PopNPlusOne":
            pop(br.ubitvar_fp())
            path[-1] += 1
        elif op == "PopNPlusN":
            pop(br.ubitvar_fp())
            path[-1] += br.varint32_signed()
        elif op == "PopNAndNonTopographical":
            pop(br.ubitvar_fp())
            for i in range(len(path)):
                if br.bit():
                    path[i] += br.varint32_signed()
        elif op == "NonTopoComplex":
            for i in range(len(path)):
                if br.bit():
                    path[i] += br.varint32_signed()
        elif op == "NonTopoPenultimatePlusOne":
            path[-2] += 1
        elif op == "NonTopoComplexPack4Bits":
            for i in range(len(path)):
                if br.bit():
                    path[i] += br.read(4) - 7
        else:
            raise ValueError(op)
        if not path or min(path) < 0:
            raise ValueError("bad field path %r after %s" % (path, op))
        out.append(tuple(path))


# ---- serializers ------------------------------------------------------------
TYPE_RE = re.compile(r"^\s*([^<\[*]+?)\s*(?:<\s*(.*)\s*>)?\s*(\*)?\s*(?:\[\s*([^\]]+)\s*\])?\s*$")
VECTOR_TYPES = ("CUtlVector", "CNetworkUtlVectorBase", "CUtlVectorEmbeddedNetworkVar")


def parse_type(t):
    """'CNetworkUtlVectorBase< CHandle< CBaseEntity > >' -> base, generic,
    pointer, array count (0: none)."""
    m = TYPE_RE.match(t)
    if not m:
        raise ValueError("type %r" % t)
    base, generic, ptr, count = m.groups()
    n = 0
    if count:
        n = int(count) if count.isdigit() else {"MAX_ABILITY_DRAFT_ABILITIES": 48}.get(count, None)
        if n is None:
            raise ValueError("array count %r" % count)
    return base.strip(), (generic.strip() if generic else None), bool(ptr), n


class Field:
    def __init__(self, m, sym):
        g = lambda k: sym[getattr(m, k)] if m.HasField(k) else None  # noqa: E731
        self.name = g("var_name_sym")
        self.type = g("var_type_sym")
        self.encoder = g("var_encoder_sym")
        self.var_serializer = g("var_serializer_sym")
        self.serializer_name = g("field_serializer_name_sym")
        self.serializer_version = m.field_serializer_version if m.HasField("field_serializer_version") else 0
        self.bit_count = m.bit_count if m.HasField("bit_count") else None
        self.low = m.low_value if m.HasField("low_value") else None
        self.high = m.high_value if m.HasField("high_value") else None
        self.flags = m.encode_flags if m.HasField("encode_flags") else None
        self.base, self.generic, self.pointer, self.count = parse_type(self.type)
        self.polymorphic = len(m.polymorphic_types) > 0
        self.serializer = None

    def describe(self):
        return "%s %s enc=%s vs=%s bits=%s lo=%s hi=%s fl=%s ser=%s" % (
            self.type, self.name, self.encoder, self.var_serializer, self.bit_count,
            self.low, self.high, self.flags, self.serializer_name)


def load_serializers(pb, data):
    n, i = st.varint(data, 0)
    fs = pb.BFlattened()
    fs.ParseFromString(data[i:i + n])
    sym = list(fs.symbols)
    fields = [Field(f, sym) for f in fs.fields]
    sers = {}
    for s in fs.serializers:
        sers[(sym[s.serializer_name_sym], s.serializer_version)] = [fields[k] for k in s.fields_index]
    for f in fields:
        if f.serializer_name is not None:
            f.serializer = sers[(f.serializer_name, f.serializer_version)]
    by_name = {}
    for (name, ver), fl in sers.items():
        if name not in by_name or by_name[name][0] < ver:
            by_name[name] = (ver, fl)
    return {k: v[1] for k, v in by_name.items()}


# ---- decoders -----------------------------------------------------------------
QF_ROUNDDOWN, QF_ROUNDUP, QF_ENCODE_ZERO, QF_ENCODE_INTEGERS = 1, 2, 4, 8


class QuantizedFloat:
    """Valve's quantized float (bit count, low, high, flags), computed in
    float32 as the game does."""

    def __init__(self, bits, flags, low, high):
        self.bits = bits
        self.low = f32(low if low is not None else 0.0)
        self.high = f32(high if high is not None else 1.0)
        fl = flags or 0
        if fl:
            if (self.low == 0.0 and fl & QF_ROUNDDOWN) or (self.high == 0.0 and fl & QF_ROUNDUP):
                fl &= ~QF_ENCODE_ZERO
            if self.low == 0.0 and fl & QF_ENCODE_ZERO:
                fl = (fl | QF_ROUNDDOWN) & ~QF_ENCODE_ZERO
            if self.high == 0.0 and fl & QF_ENCODE_ZERO:
                fl = (fl | QF_ROUNDUP) & ~QF_ENCODE_ZERO
            if self.low > 0.0 or self.high < 0.0:
                fl &= ~QF_ENCODE_ZERO
            if fl & QF_ENCODE_INTEGERS:
                fl &= ~(QF_ROUNDUP | QF_ROUNDDOWN | QF_ENCODE_ZERO)
            if fl & (QF_ROUNDDOWN | QF_ROUNDUP) == (QF_ROUNDDOWN | QF_ROUNDUP):
                raise ValueError("roundup and rounddown")
        steps = 1 << bits
        if fl & QF_ROUNDDOWN:
            self.high = f32(self.high - f32(f32(self.high - self.low) / steps))
        elif fl & QF_ROUNDUP:
            self.low = f32(self.low + f32(f32(self.high - self.low) / steps))
        if fl & QF_ENCODE_INTEGERS:
            delta = max(f32(self.high - self.low), 1.0)
            rng2 = 1 << int(math.ceil(math.log2(delta)))
            bc = self.bits
            while (1 << bc) <= rng2:
                bc += 1
            if bc > self.bits:
                self.bits = bc
                steps = 1 << bc
            off = f32(rng2 / steps)
            self.high = f32(f32(self.low + rng2) - off)
        rng = f32(self.high - self.low)
        top = float(0xFFFFFFFE if self.bits == 32 else (1 << self.bits) - 1)
        mul = top if abs(rng) <= 0 else f32(top / rng)
        if f32(mul * rng) > top:
            for m in (0.9999, 0.99, 0.9, 0.8, 0.7):
                mul = f32(f32(top / rng) * m)
                if f32(mul * rng) <= top:
                    break
        self.mul = mul
        self.dec = f32(1.0 / (steps - 1))
        self.flags = fl
        if fl & QF_ROUNDDOWN and self.quantize(self.low) == self.low:
            self.flags &= ~QF_ROUNDDOWN
        if fl & QF_ROUNDUP and self.quantize(self.high) == self.high:
            self.flags &= ~QF_ROUNDUP
        if fl & QF_ENCODE_ZERO and self.quantize(0.0) == 0.0:
            self.flags &= ~QF_ENCODE_ZERO

    def quantize(self, v):
        if v < self.low:
            return self.low
        if v > self.high:
            return self.high
        i = int(f32(f32(v - self.low) * self.mul))
        return f32(self.low + f32(f32(f32(self.high - self.low) * f32(i)) * self.dec))

    def read(self, br):
        if self.flags & QF_ROUNDDOWN and br.bit():
            return self.low
        if self.flags & QF_ROUNDUP and br.bit():
            return self.high
        if self.flags & QF_ENCODE_ZERO and br.bit():
            return 0.0
        u = br.read(self.bits)
        return f32(self.low + f32(f32(self.high - self.low) * f32(f32(u) * self.dec)))


def float_reader(f):
    enc = f.encoder
    if enc == "coord":
        return lambda br: br.coord()
    if enc == "simtime":
        return lambda br: br.varuint() * TICK_INTERVAL
    if enc == "runetime":
        return lambda br: br.read(4)
    if enc == "normal":
        return lambda br: br.normal()
    if f.bit_count is None or f.bit_count <= 0 or f.bit_count >= 32:
        return lambda br: br.float32()
    q = QuantizedFloat(f.bit_count, f.flags, f.low, f.high)
    return q.read


def qangle_reader(f):
    if f.encoder == "qangle_pitch_yaw":
        n = f.bit_count
        return lambda br: [br.read(n) * 360.0 / (1 << n), br.read(n) * 360.0 / (1 << n), 0.0]
    if f.encoder == "qangle_precise":
        def rd(br):
            has = [br.bit(), br.bit(), br.bit()]
            return [br.read(20) * 360.0 / (1 << 20) - 180.0 if h else 0.0 for h in has]
        return rd
    if f.bit_count:
        n = f.bit_count
        return lambda br: [br.read(n) * 360.0 / (1 << n) for _ in range(3)]

    def rd(br):
        has = [br.bit(), br.bit(), br.bit()]
        return [br.coord() if h else 0.0 for h in has]
    return rd


def vector_reader(f, n):
    if n == 3 and f.encoder == "normal":
        def rd(br):
            hx, hy = br.bit(), br.bit()
            x = br.normal() if hx else 0.0
            y = br.normal() if hy else 0.0
            negz = br.bit()
            z = math.sqrt(max(0.0, 1.0 - x * x - y * y))
            return [x, y, -z if negz else z]
        return rd
    one = float_reader(f)
    return lambda br: [one(br) for _ in range(n)]


def binary_block(br):
    n = br.varuint()
    return br.raw(n)


# CEntityIndex wraps a signed int (-1: no entity), so it is zigzag-coded like
# the int types; everything else that is not a float, vector or string
# (handles, enums, ids, tokens) is an unsigned varint
SIGNED = {"int8", "int16", "int32", "int64", "CEntityIndex"}
STRINGS = {"CUtlString", "CUtlSymbolLarge", "CGlobalSymbol", "char"}
VECTORS = {"Vector": 3, "VectorWS": 3, "Vector2D": 2, "Vector4D": 4, "Quaternion": 4}


def scalar_reader(f, base):
    """the decoder of one value of base type `base` for field f"""
    if f.var_serializer in ("simulationTimeSerializer", "animTimeSerializer"):
        return lambda br: br.varuint() * TICK_INTERVAL
    if f.var_serializer == "minusone":
        inner = scalar_reader_plain(f, base)
        return lambda br: inner(br) - 1
    return scalar_reader_plain(f, base)


def scalar_reader_plain(f, base):
    if base == "bool":
        return lambda br: bool(br.bit())
    if base in SIGNED:
        return lambda br: br.varsint()
    if base == "uint64":
        if f.encoder == "fixed64":
            return lambda br: br.read(64)
        return lambda br: br.varuint64()
    if base == "CStrongHandle":
        return lambda br: br.varuint64()
    if base in ("float32", "float64", "GameTime_t", "CNetworkedQuantizedFloat"):
        return float_reader(f)
    if base == "QAngle":
        return qangle_reader(f)
    if base in VECTORS:
        return vector_reader(f, VECTORS[base])
    if base in STRINGS:
        return lambda br: br.cstr().decode("utf-8", "replace")
    if base == "CUtlBinaryBlock":
        return binary_block
    # enums and every other handle or id type: an unsigned varint
    return lambda br: br.varuint64()


def element_base(f):
    """the base type of one element of a vector field"""
    g = f.generic
    m = TYPE_RE.match(g)
    b = m.group(1).strip()
    return b


class Decoder:
    def __init__(self, sers, cls):
        self.sers = sers
        self.root = sers[cls]
        self.cache = {}

    def resolve(self, path):
        """-> (dotted name, reader) of the field a path names"""
        fields = self.root
        names = []
        i = 0
        while True:
            f = fields[path[i]]
            names.append(f.name)
            rest = path[i + 1:]
            if f.serializer is not None:
                if f.base in VECTOR_TYPES or f.count:
                    if not rest:
                        return ".".join(names), (lambda br: br.varuint()) if not f.count else None
                    names.append(str(rest[0]))
                    if len(rest) == 1:
                        raise ValueError("path %r ends at a table element" % (path,))
                    fields = f.serializer
                    i += 2
                    continue
                if not rest:
                    if f.polymorphic:
                        return ".".join(names), polymorphic_pointer
                    return ".".join(names), lambda br: bool(br.bit())
                fields = f.serializer
                i += 1
                continue
            if f.count and f.base != "char":
                if len(rest) != 1:
                    raise ValueError("path %r into a fixed array" % (path,))
                names.append(str(rest[0]))
                return ".".join(names), scalar_reader(f, f.base)
            if f.base in VECTOR_TYPES:
                if not rest:
                    return ".".join(names), lambda br: br.varuint()
                if len(rest) != 1:
                    raise ValueError("path %r into a vector" % (path,))
                names.append(str(rest[0]))
                return ".".join(names), scalar_reader(f, element_base(f))
            if rest:
                raise ValueError("path %r goes on past %s" % (path, f.name))
            return ".".join(names), scalar_reader(f, f.base)

    def decode_from(self, br):
        """one delta: the field paths, then their values, read from br"""
        paths = read_paths(br)
        out = []
        for p in paths:
            r = self.cache.get(p)
            if r is None:
                r = self.cache[p] = self.resolve(p)
            out.append((p, r[0], r[1](br)))
        return out

    def decode(self, data):
        br = Bits(data)
        out = self.decode_from(br)
        left = br.n - br.pos
        if left >= 8:
            raise ValueError("%d bits left after the last value" % left)
        return out


def polymorphic_pointer(br):
    """a pointer to one of several serializers (CCSGameRulesProxy's
    m_pGameModeRules): no public description of its bits, so this
    reference refuses rather than guesses (it does not occur in the demos
    the test reads)"""
    raise ValueError("polymorphic pointer: layout not known to this reference")


def entity_values(path, cls, field):
    """Applies every entity create and update of the demo (svc_PacketEntities
    in DEM_SignonPacket / DEM_Packet; DEM_FullPacket only restates them) and
    returns, for entities of class `cls`: the value `field` has at each
    creation (the baseline's as the instancebaseline table holds it then,
    unless the create's own delta writes it) and every value an update
    writes to it, as (tick, index, 'create'|'update', value)."""
    pb = load_proto()
    spb = st.load_proto()
    b = open(path, "rb").read()
    i = 16
    sers = classes = class_bits = None
    tables, by_name = [], {}
    decoders = {}
    entities = {}  # index -> class name
    out = []
    stats = {"creates": 0, "updates": 0, "deletes": 0, "packets": 0}

    def decoder(name):
        d = decoders.get(name)
        if d is None:
            d = decoders[name] = Decoder(sers, name)
        return d

    def packet_entities(m, tick):
        br = Bits(m.entity_data)
        index = -1
        for _ in range(m.updated_entries):
            index += br.ubitvar() + 1
            cmd = br.read(2)
            if cmd & 1:
                if cmd & 2:
                    entities.pop(index, None)
                    stats["deletes"] += 1
                continue
            if cmd & 2:
                cid = br.read(class_bits)
                br.read(17)  # serial number
                br.varuint()
                name = by_id[cid]
                entities[index] = name
                stats["creates"] += 1
                vals = decoder(name).decode_from(br)
                if DEBUG:
                    print("create", tick, index, name, len(vals), vals if DEBUG > 1 else vals[-3:], file=sys.stderr)
                if name == cls:
                    key = str(cid).encode()
                    base = [v for k, v in by_name["instancebaseline"].entries.values() if k == key]
                    bvals = decoder(name).decode(base[0]) if base else []
                    got = [v for p, n, v in bvals if n == field] + [v for p, n, v in vals if n == field]
                    out.append((tick, index, "create", got[-1] if got else "absent"))
                    if "first" not in stats:
                        stats["first"] = (index, dict((n, v) for p, n, v in bvals + vals))
                continue
            if m.has_pvs_vis_bits and br.read(2) & 1:
                continue
            name = entities[index]
            stats["updates"] += 1
            vals = decoder(name).decode_from(br)
            if DEBUG:
                print("update", tick, index, name, len(vals), vals[-3:], file=sys.stderr)
            if name == cls:
                out.extend((tick, index, "update", v) for p, n, v in vals if n == field)
        if br.n - br.pos >= 8:
            raise ValueError("tick %d: %d bits left after the entities" % (tick, br.n - br.pos))
        stats["packets"] += 1

    while i < len(b):
        cmd, i = st.varint(b, i)
        tick, i = st.varint(b, i)
        size, i = st.varint(b, i)
        payload = b[i:i + size]
        i += size
        if cmd & 64:
            payload = st.snappy(payload)
        cmd &= ~64
        if cmd == DEM_SENDTABLES and sers is None:
            m = pb.BSendTables()
            m.ParseFromString(payload)
            sers = load_serializers(pb, m.data)
        elif cmd == DEM_CLASSINFO and classes is None:
            m = pb.BClassInfo()
            m.ParseFromString(payload)
            classes = {c.network_name: c.class_id for c in m.classes}
            by_id = {c.class_id: c.network_name for c in m.classes}
            class_bits = int(math.log2(len(classes))) + 1
        elif cmd in (st.DEM_SIGNON, st.DEM_PACKET):
            p = spb.RPacket()
            p.ParseFromString(payload)
            for t, msg in st.inner_messages(p.data):
                if t == st.SVC_CREATE:
                    c = spb.RCreate()
                    c.ParseFromString(msg)
                    tab = st.Table(c)
                    tab.apply(st.snappy(c.string_data) if c.data_compressed else c.string_data, c.num_entries)
                    tables.append(tab)
                    by_name[tab.name] = tab
                elif t == st.SVC_UPDATE:
                    u = spb.RUpdate()
                    u.ParseFromString(msg)
                    tables[u.table_id].apply(u.string_data, u.num_changed_entries)
                elif t == st.SVC_CLEARALL:
                    tables.clear()
                    by_name.clear()
                elif t == SVC_PACKETENTITIES:
                    m = pb.BPacketEntities()
                    m.ParseFromString(msg)
                    packet_entities(m, tick)
    return out, stats


def compare_create(dump, path, cls):
    """every value of the first `cls` entity created (baseline, then the
    create's delta) against zdem's props for it (tests/s2_propdump);
    returns the number of differences"""
    _, stats = entity_values(path, cls, "")
    index, ref = stats["first"]
    out = subprocess.run([dump, path], stdout=subprocess.PIPE, check=True).stdout.decode("utf-8", "replace")
    got, on = {}, False
    for line in out.splitlines():
        f = line.split("\t")
        if f[0] == "C" and f[1] == str(index) and f[2] == cls:
            on = True
            continue
        if on and f[0] in ("C", "D", "T"):
            break
        if on and f[0] == "P" and f[1] == str(index):
            got[f[2]] = f[3]
    same = diffs = skipped = 0
    for name in sorted(set(ref) | set(got)):
        if name not in ref or name not in got:
            print("  %s: %s only in %s" % (os.path.basename(path), name, "zdem" if name in got else "the reference"))
            diffs += 1
            continue
        v = ref[name]
        if isinstance(v, bytes):
            skipped += 1  # binary blobs: zdem prints them as text
            continue
        try:
            z = json.loads(got[name])
        except ValueError:
            z = got[name]
        if isinstance(v, bool) or not isinstance(v, (float, list)):
            ok = z == v
        else:
            vs, zs = (v, z) if isinstance(v, list) else ([v], [z])
            ok = isinstance(zs, list) and len(zs) == len(vs) and all(
                isinstance(c, (int, float)) and abs(a - c) <= 1e-6 * max(1.0, abs(a)) for a, c in zip(vs, zs))
        if ok:
            same += 1
        else:
            diffs += 1
            print("  %s: %s: reference %r, zdem %s" % (os.path.basename(path), name, v, got[name]))
    print("%s: first %s (entity %d): %d values, %d equal to zdem's, %d binary not compared, %d differences" % (
        os.path.basename(path), cls, index, len(ref), same, skipped, diffs))
    return diffs


def demo_tables(path):
    """the serializers, the class ids by name and the string tables"""
    pb = load_proto()
    b = open(path, "rb").read()
    i = 16
    sers = classes = None
    while i < len(b):
        cmd, i = st.varint(b, i)
        _, i = st.varint(b, i)
        size, i = st.varint(b, i)
        payload = b[i:i + size]
        i += size
        if cmd & 64:
            payload = st.snappy(payload)
        cmd &= ~64
        if cmd == DEM_SENDTABLES and sers is None:
            m = pb.BSendTables()
            m.ParseFromString(payload)
            sers = load_serializers(pb, m.data)
        elif cmd == DEM_CLASSINFO and classes is None:
            m = pb.BClassInfo()
            m.ParseFromString(payload)
            classes = {c.network_name: c.class_id for c in m.classes}
    tables = {t.name: t for t in st.run(path)}
    return sers, classes, tables


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    if sys.argv[1] == "--compare-create":
        dump, path, cls = sys.argv[2:5]
        sys.exit(1 if compare_create(dump, path, cls) else 0)
    if sys.argv[1] == "--entities":
        path, cls, field = sys.argv[2:5]
        vals, stats = entity_values(path, cls, field)
        print("%s: %d entity packets, %d creates, %d updates, %d deletes decoded" % (
            os.path.basename(path), stats["packets"], stats["creates"], stats["updates"], stats["deletes"]))
        for tick, index, what, v in vals:
            print("%d\t%d\t%s\t%r" % (tick, index, what, v))
        return
    path, cls = sys.argv[1], sys.argv[2]
    sers, classes, tables = demo_tables(path)
    if "--fields" in sys.argv:
        def show(fl, ind):
            for k, f in enumerate(fl):
                print("%s%d %s" % (ind, k, f.describe()))
        show(sers[cls], "")
        return
    key = str(classes[cls]).encode()
    base = [v for k, v in tables["instancebaseline"].entries.values() if k == key]
    if len(base) != 1:
        sys.exit("%s: %d baselines for %s" % (path, len(base), cls))
    vals = Decoder(sers, cls).decode(base[0])
    if len(sys.argv) > 3 and sys.argv[3] != "--fields":
        want = [v for p, n, v in vals if n == sys.argv[3]]
        if len(want) != 1:
            sys.exit("%s: %s occurs %d times in the baseline" % (path, sys.argv[3], len(want)))
        print(want[0])
        return
    for p, n, v in vals:
        print("%s\t%s\t%r" % ("/".join(map(str, p)), n, v))


if __name__ == "__main__":
    main()
