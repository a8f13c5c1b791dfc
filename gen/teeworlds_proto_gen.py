"""Teeworlds layer, part 2: net objects and messages of both protocols,
from schema/teeworlds/protocol.json (0.6 and DDNet's extensions:
teeworlds_proto.[ch], names zdem_tw_*) and schema/teeworlds/protocol7.json
(0.7: teeworlds_proto7.[ch], names zdem_tw7_*).

Emits, per object, a struct and a decoder from the item's ints (fields the
item does not carry stay 0: DDNet grows extension objects over time), and
per message a struct and a decoder from the message body (strings are views
into the caller's buffer). Descriptor tables (names, field kinds, ranges,
UUIDs) let generic code print, check or select any known item or message;
anything not in the schema stays raw ints / bytes for the caller.
UUIDs of extension objects/messages are computed here from their names
(version 3: MD5 over the namespace + name), so the schema keeps the names
the protocol defines rather than opaque bytes.

Field forms (see the schemas' comments): a name (one int); [name, 'str', N]
(a string packed in N ints); an object {name, min/max | flags, str, count}
for objects and [name, kind] or {name, kind, min/max | flags, count,
optional} for messages. An array (count K) is one C array member and K
descriptor fields named name.0 .. name.K-1.
"""
import hashlib
import json
import os
import uuid as uuidlib

INT32_MIN = -2147483648
INT32_MAX = 2147483647


def outputs():
    return ["teeworlds_proto.h", "teeworlds_proto.c", "teeworlds_proto7.h", "teeworlds_proto7.c"]


def name_uuid(namespace, name):
    # Same as uuid.uuid3, spelled out so the scheme is visible.
    digest = bytearray(hashlib.md5(uuidlib.UUID(namespace).bytes + name.encode()).digest())
    digest[6] = (digest[6] & 0x0F) | 0x30
    digest[8] = (digest[8] & 0x3F) | 0x80
    return bytes(digest)


def c_bytes(b):
    return "{" + ", ".join("0x%02x" % x for x in b) + "}"


def check_of(f):
    """(check flags C expression, min, max) of a field spec (dict or not)."""
    if not isinstance(f, dict):
        return None
    parts, lo, hi = [], 0, 0
    if "flags" in f:
        assert "min" not in f and "max" not in f, f
        parts.append("ZDEM_TW_CHECK_FLAGS")
        hi = int(f["flags"])
    elif "min" in f or "max" in f:
        parts.append("ZDEM_TW_CHECK_RANGE")
        lo, hi = int(f.get("min", INT32_MIN)), int(f.get("max", INT32_MAX))
        assert INT32_MIN <= lo <= hi <= INT32_MAX, f
    if f.get("optional"):
        parts.append("ZDEM_TW_CHECK_OPTIONAL")
    if not parts:
        return None
    return ("|".join(parts), lo, hi)


def obj_fields(o):
    """[(name, kind, ints, count, check)] with kind 'int' or 'str'; ints a
    single element's ints."""
    out = []
    for f in o["fields"]:
        if isinstance(f, str):
            out.append((f, "int", 1, 1, None))
        elif isinstance(f, list):
            name, kind, n = f
            assert kind == "str"
            out.append((name, "str", int(n), 1, None))
        else:
            assert set(f) <= {"name", "str", "count", "min", "max", "flags"}, f
            kind = "str" if "str" in f else "int"
            assert kind == "int" or check_of(f) is None, f
            out.append((f["name"], kind, int(f.get("str", 1)), int(f.get("count", 1)), check_of(f)))
    return out


def msg_fields(m):
    """[(name, kind, count, check)] with kind int | string | rest."""
    out = []
    for f in m["fields"]:
        if isinstance(f, list):
            name, kind = f
            out.append((name, kind, 1, None))
        else:
            assert set(f) <= {"name", "kind", "count", "min", "max", "flags", "optional"}, f
            c = check_of(f)
            assert f["kind"] == "int" or c is None, f
            out.append((f["name"], f["kind"], int(f.get("count", 1)), c))
    return out


def elements(name, count):
    return [name] if count == 1 else ["%s.%d" % (name, k) for k in range(count)]


def field_desc(fname, kind_c, ints, chk, ranges):
    if chk is None:
        return '    {"%s", %s, %d, 0, 0},' % (fname, kind_c, ints)
    return '    {"%s", %s, %d, %s, %d},' % (fname, kind_c, ints, chk[0], ranges[(chk[1], chk[2])])


def all_checks(spec):
    """Every (min, max) a field of spec is checked against."""
    out = set()
    for o in spec["objects"]:
        out.update((c[1], c[2]) for _, _, _, _, c in obj_fields(o) if c)
    for grp in ("game_messages", "system_messages"):
        for m in spec[grp]:
            out.update((c[1], c[2]) for _, _, _, c in msg_fields(m) if c)
    return out


KIND_C = {"int": "ZDEM_TW_FIELD_INT", "str": "ZDEM_TW_FIELD_PACKED_STR",
          "string": "ZDEM_TW_FIELD_STRING", "rest": "ZDEM_TW_FIELD_REST"}

TYPES_H = """enum zdem_tw_field_kind {
    ZDEM_TW_FIELD_INT,        /* one int */
    ZDEM_TW_FIELD_PACKED_STR, /* object: string packed in `ints` ints */
    ZDEM_TW_FIELD_STRING,     /* message: NUL-terminated string */
    ZDEM_TW_FIELD_REST        /* message: all remaining bytes */
};

/* What the protocol lets an int field hold (zdem_tw_field_desc.check,
 * bits): a range min..max, or only the flag bits in max; OPTIONAL: a
 * trailing message int a sender may leave out. 0: any value. */
enum zdem_tw_field_check {
    ZDEM_TW_CHECK_RANGE = 1,
    ZDEM_TW_CHECK_FLAGS = 2,
    ZDEM_TW_CHECK_OPTIONAL = 4
};

/* A field's bounds: RANGE min..max (inclusive); FLAGS: max is the mask. */
typedef struct zdem_tw_range {
    int32_t min, max;
} zdem_tw_range;

typedef struct zdem_tw_field_desc {
    const char *name;
    uint8_t kind;
    uint8_t ints;
    uint8_t check;         /* enum zdem_tw_field_check bits */
    uint8_t range;         /* its bounds: zdem_tw_ranges[range] (one table, 8 bytes a field) */
} zdem_tw_field_desc;

typedef struct zdem_tw_obj_desc {
    const char *name;
    int type_id;           /* -1: identified by uuid */
    uint8_t size;          /* ints, 0 for extension objects */
    const uint8_t *uuid;   /* 16 bytes, NULL for fixed ids */
    uint8_t num_fields;
    const zdem_tw_field_desc *fields;
} zdem_tw_obj_desc;

typedef struct zdem_tw_msg_desc {
    const char *name;
    int sys;
    int id;                /* 0: identified by uuid */
    const uint8_t *uuid;
    uint8_t num_fields;
    const zdem_tw_field_desc *fields;
} zdem_tw_msg_desc;"""


class Names(object):
    def __init__(self, p, schema_file, stem, s=""):
        self.p = p                  # C prefix: zdem_tw / zdem_tw7
        self.s = s                  # file-scope statics' prefix (one amalgamation holds both)
        self.P = p.upper()          # macro prefix
        self.schema_file = schema_file
        self.stem = stem            # output file stem


def gen_protocol(spec, nm, base, ranges):
    """One protocol's header and source. base: None for the protocol whose
    header defines the shared descriptor types (and the ranges table of
    both), else that header's name. ranges: (min, max) -> index."""
    p, P, S = nm.p, nm.P, nm.s
    ns = spec.get("uuid_namespace")
    objs = spec["objects"]
    msg_groups = [("game", 0, spec["game_messages"]), ("sys", 1, spec["system_messages"])]

    seen = set()
    for o in objs:
        assert o["name"] not in seen, o["name"]
        seen.add(o["name"])
        if "id" in o:
            n = sum(k * c for _, _, k, c, _ in obj_fields(o))
            assert n == o["size"], (o["name"], n, o["size"])
    fixed = [o for o in objs if "id" in o]
    static = [o for o in fixed if o.get("static", True)]
    nstatic = max(o["id"] for o in static) + 1
    sizes = [0] * nstatic
    for o in static:
        assert 0 < o["size"] < 256, o["name"]
        sizes[o["id"]] = o["size"]
    assert nstatic <= 32  # zdem_tw_snapstate keeps a learned size per pre-agreed type

    guard = "ZDEM_%s_H" % nm.stem.upper()
    H = []
    C = []
    H.append("""/* Generated by gen/teeworlds_proto_gen.py from schema/teeworlds/%s.
 * Do not edit. */
#ifndef %s
#define %s

#include <stddef.h>
#include <stdint.h>
%s
""" % (nm.schema_file, guard, guard,
       '#include "teeworlds_msg.h"\n\n' + TYPES_H if base is None else '#include "%s"' % base))
    if base is not None and spec.get("net_version"):
        H.append("/* The demo header's net version of this protocol. */")
        H.append('#define %s_NET_VERSION "%s"\n' % (P, spec["net_version"]))
    if base is None:
        H.append("/* The bounds fields are checked against, of every protocol. */")
        H.append("extern const zdem_tw_range zdem_tw_ranges[%d];\n" % len(ranges))
    H.append("#define %s_NUM_STATIC_SIZES %d" % (P, nstatic))
    H.append("/* Pre-agreed item sizes (ints) by type id; 0: size is sent. */")
    H.append("extern const uint8_t %s_static_sizes[%s_NUM_STATIC_SIZES];" % (p, P))
    H.append("extern const zdem_tw_obj_desc %s_obj_descs[%d];" % (p, len(objs)))
    H.append("#define %s_NUM_OBJ_DESCS %d" % (P, len(objs)))
    nmsgs = sum(len(g[2]) for g in msg_groups)
    H.append("extern const zdem_tw_msg_desc %s_msg_descs[%d];" % (p, nmsgs))
    H.append("#define %s_NUM_MSG_DESCS %d\n" % (P, nmsgs))
    H.append("/* Lookups; NULL when the schema does not know the object/message. */")
    H.append("const zdem_tw_obj_desc *%s_obj_desc_by_type(int type_id);" % p)
    if ns:
        H.append("const zdem_tw_obj_desc *%s_obj_desc_by_uuid(const uint8_t uuid[16]);" % p)
    H.append("const zdem_tw_msg_desc *%s_msg_desc_find(int sys, int id, const uint8_t *uuid);\n" % p)

    H.append("enum %s_obj_type {" % p)
    for o in fixed:
        H.append("    %s_OBJ_%s = %d," % (P, o["name"].upper(), o["id"]))
    H.append("};\n")
    H.append("/* Index in %s_obj_descs of every object. */" % p)
    H.append("enum %s_obj_index {" % p)
    for i, o in enumerate(objs):
        H.append("    %s_OBJI_%s = %d," % (P, o["name"].upper(), i))
    H.append("};\n")

    C.append("""/* Generated by gen/teeworlds_proto_gen.py from schema/teeworlds/%s.
 * Do not edit. */
#include "%s.h"

#include <string.h>
""" % (nm.schema_file, nm.stem))
    C.append("const uint8_t %s_static_sizes[%s_NUM_STATIC_SIZES] = {%s};\n"
             % (p, P, ", ".join(str(s) for s in sizes)))
    if base is None:
        C.append("const zdem_tw_range zdem_tw_ranges[%d] = {" % len(ranges))
        for (lo, hi), i in sorted(ranges.items(), key=lambda x: x[1]):
            C.append("    {%s, %d}," % ("-2147483647 - 1" if lo == INT32_MIN else str(lo), hi))
        C.append("};\n")

    # objects: uuids, fields, structs, decoders
    for o in objs:
        on = o["name"]
        fl = obj_fields(o)
        if "uuid" in o:
            C.append("/* %s */" % o["uuid"])
            C.append("static const uint8_t %suuid_obj_%s[16] = %s;" % (S, on, c_bytes(name_uuid(ns, o["uuid"]))))
        ndesc = sum(c for _, _, _, c, _ in fl)
        C.append("static const zdem_tw_field_desc %sfields_obj_%s[%d] = {" % (S, on, max(1, ndesc)))
        for fname, kind, n, cnt, chk in fl:
            for el in elements(fname, cnt):
                C.append(field_desc(el, KIND_C[kind], n, chk, ranges))
        if not fl:  # ISO C has no empty initializer: one unused zero entry
            C.append("    {0, ZDEM_TW_FIELD_INT, 0, 0, 0},")
        C.append("};")
        total = sum(n * c for _, _, n, c, _ in fl)
        H.append("/* %s: %s */" % (on, "type %d, %d ints" % (o["id"], o["size"]) if "id" in o
                                   else "extension object %s" % o["uuid"]))
        H.append("typedef struct %s_obj_%s {" % (p, on))
        for fname, kind, n, cnt, chk in fl:
            arr = "" if cnt == 1 else "[%d]" % cnt
            if kind == "int":
                H.append("    int32_t %s%s;" % (fname, arr))
            else:
                H.append("    char %s%s[%d];" % (fname, arr, 4 * n + 1))
        H.append("} %s_obj_%s;" % (p, on))
        H.append("/* Fills *o from an item's n ints; fields past n are 0 / empty.")
        H.append(" * Returns how many of the item's ints the schema covers. */")
        H.append("size_t %s_obj_%s_decode(const int32_t *d, size_t n, %s_obj_%s *o);\n" % (p, on, p, on))
        C.append("size_t %s_obj_%s_decode(const int32_t *d, size_t n, %s_obj_%s *o)" % (p, on, p, on))
        C.append("{")
        if any(c > 1 for _, _, _, c, _ in fl):
            C.append("    size_t k;")
        C.append("    memset(o, 0, sizeof *o);")
        at = 0
        for fname, kind, k, cnt, chk in fl:
            if cnt > 1:
                C.append("    for (k = 0; k < %d; k++)" % cnt)
                if kind == "int":
                    C.append("        if (n > %d + k)" % at)
                    C.append("            o->%s[k] = d[%d + k];" % (fname, at))
                else:
                    C.append("        if (n >= %d + %d * (k + 1))" % (at, k))
                    C.append("            zdem_tw_ints_to_str(d + %d + %d * k, %d, o->%s[k], sizeof o->%s[k]);"
                             % (at, k, k, fname, fname))
            elif kind == "int":
                C.append("    if (n > %d)" % at)
                C.append("        o->%s = d[%d];" % (fname, at))
            else:
                C.append("    if (n >= %d)" % (at + k))
                C.append("        zdem_tw_ints_to_str(d + %d, %d, o->%s, sizeof o->%s);" % (at, k, fname, fname))
            at += k * cnt
        C.append("    return n < %d ? n : %d;" % (total, total))
        C.append("}\n")

    C.append("const zdem_tw_obj_desc %s_obj_descs[%d] = {" % (p, len(objs)))
    for o in objs:
        on = o["name"]
        ndesc = sum(c for _, _, _, c, _ in obj_fields(o))
        C.append('    {"%s", %d, %d, %s, %d, %sfields_obj_%s},' % (
            on, o.get("id", -1), o.get("size", 0),
            ("%suuid_obj_%s" % (S, on)) if "uuid" in o else "NULL", ndesc, S, on))
    C.append("};\n")
    C.append("""const zdem_tw_obj_desc *%(p)s_obj_desc_by_type(int type_id)
{
    size_t i;
    for (i = 0; i < %(P)s_NUM_OBJ_DESCS; i++)
        if (%(p)s_obj_descs[i].type_id == type_id && type_id >= 0)
            return &%(p)s_obj_descs[i];
    return NULL;
}
""" % {"p": p, "P": P})
    if ns:
        C.append("""const zdem_tw_obj_desc *%(p)s_obj_desc_by_uuid(const uint8_t uuid[16])
{
    size_t i;
    for (i = 0; i < %(P)s_NUM_OBJ_DESCS; i++)
        if (%(p)s_obj_descs[i].uuid && memcmp(%(p)s_obj_descs[i].uuid, uuid, 16) == 0)
            return &%(p)s_obj_descs[i];
    return NULL;
}
""" % {"p": p, "P": P})

    # messages
    H.append("/* Message ids: %s_MSG_<name> (game) and %s_SYS_<name> (system). */" % (P, P))
    H.append("enum %s_msg_id {" % p)
    for grp, sys, ms in msg_groups:
        for m in ms:
            if "id" in m:
                H.append("    %s_%s_%s = %d," % (P, "SYS" if sys else "MSG", m["name"].upper(), m["id"]))
    H.append("};\n")
    descs = []
    for grp, sys, ms in msg_groups:
        names = set()
        for m in ms:
            mn = m["name"]
            assert mn not in names, mn
            names.add(mn)
            cn = "%s_%s" % (grp, mn)
            fl = msg_fields(m)
            ndesc = sum(c for _, _, c, _ in fl)
            if "uuid" in m:
                C.append("/* %s */" % m["uuid"])
                C.append("static const uint8_t %suuid_msg_%s[16] = %s;" % (S, cn, c_bytes(name_uuid(ns, m["uuid"]))))
            C.append("static const zdem_tw_field_desc %sfields_msg_%s[%d] = {" % (S, cn, max(1, ndesc)))
            for fname, kind, cnt, chk in fl:
                for el in elements(fname, cnt):
                    C.append(field_desc(el, KIND_C[kind], 0, chk, ranges))
            if not fl:  # ISO C has no empty initializer
                C.append("    {0, ZDEM_TW_FIELD_INT, 0, 0, 0},")
            C.append("};")
            descs.append('    {"%s", %d, %d, %s, %d, %sfields_msg_%s},' % (
                mn, sys, m.get("id", 0), ("%suuid_msg_%s" % (S, cn)) if "uuid" in m else "NULL", ndesc, S, cn))
            # typed struct + decoder
            H.append("typedef struct %s_%s_%s {" % (p, grp, mn))
            if not fl:
                H.append("    int unused; /* no fields */")
            for fname, kind, cnt, chk in fl:
                H.append("    %s %s%s;" % ("int32_t" if kind == "int" else "zdem_tw_str", fname,
                                           "" if cnt == 1 else "[%d]" % cnt))
            H.append("} %s_%s_%s;" % (p, grp, mn))
            H.append("zdem_status %s_%s_%s_decode(const uint8_t *body, size_t n, %s_%s_%s *out);\n"
                     % (p, grp, mn, p, grp, mn))
            C.append("zdem_status %s_%s_%s_decode(const uint8_t *body, size_t n, %s_%s_%s *out)"
                     % (p, grp, mn, p, grp, mn))
            C.append("{")
            C.append("    zdem_tw_unpacker u;")
            if any(c > 1 for _, _, c, _ in fl):
                C.append("    size_t k;")
            C.append("    memset(out, 0, sizeof *out);")
            C.append("    zdem_tw_unp_init(&u, body, n);")
            for fname, kind, cnt, chk in fl:
                fn = {"int": "zdem_tw_unp_int", "string": "zdem_tw_unp_str", "rest": "zdem_tw_unp_rest"}[kind]
                if chk is not None and "OPTIONAL" in chk[0]:
                    assert cnt == 1 and kind == "int"
                    C.append("    if (!u.error && u.p < u.end) /* optional: 0 when left out */")
                    C.append("        out->%s = %s(&u);" % (fname, fn))
                elif cnt > 1:
                    C.append("    for (k = 0; k < %d; k++)" % cnt)
                    C.append("        out->%s[k] = %s(&u);" % (fname, fn))
                else:
                    C.append("    out->%s = %s(&u);" % (fname, fn))
            C.append("    return u.error ? ZDEM_ERR_TRUNCATED : ZDEM_OK;")
            C.append("}\n")
    C.append("const zdem_tw_msg_desc %s_msg_descs[%d] = {" % (p, len(descs)))
    C.extend(descs)
    C.append("};\n")
    C.append("""const zdem_tw_msg_desc *%(p)s_msg_desc_find(int sys, int id, const uint8_t *uuid)
{
    size_t i;
    for (i = 0; i < %(P)s_NUM_MSG_DESCS; i++) {
        const zdem_tw_msg_desc *m = &%(p)s_msg_descs[i];
        if (m->sys != sys || m->id != id)
            continue;
        if (id != 0 || (uuid && m->uuid && memcmp(m->uuid, uuid, 16) == 0))
            return m;
    }
    return NULL;
}""" % {"p": p, "P": P})
    H.append("#endif")
    return "\n".join(H) + "\n", "\n".join(C) + "\n"


def generate(schema_dir):
    out = {}
    protos = (("protocol.json", Names("zdem_tw", "protocol.json", "teeworlds_proto"), None),
              ("protocol7.json", Names("zdem_tw7", "protocol7.json", "teeworlds_proto7", "p7_"),
               "teeworlds_proto.h"))
    specs = {}
    for fname, _, _ in protos:
        with open(os.path.join(schema_dir, "teeworlds", fname)) as f:
            specs[fname] = json.load(f)
    # one table of bounds for both: index 0 is no check
    checks = set()
    for spec in specs.values():
        checks |= all_checks(spec)
    ranges = {(0, 0): 0}
    for r in sorted(checks - {(0, 0)}):
        ranges[r] = len(ranges)
    assert len(ranges) < 256
    for fname, nm, base in protos:
        spec = specs[fname]
        h, c = gen_protocol(spec, nm, base, ranges)
        out[nm.stem + ".h"] = h
        out[nm.stem + ".c"] = c
    return out
