"""Source 2 entity-field tables: type-name -> decoder mapping, encoder
and var_serializer names, symbolic array bounds, and the field-path operation Huffman code.

Input: schema/source2/fields/*.tsv (tab-separated, '#' comments).
Output: generated/source2_fields.h and generated/source2_fields.c.
The Huffman code is built here, at generation time, and emitted as an
8-bit lookup table (256 x uint16) plus the internal nodes for the rare
codes longer than 8 bits: 590 bytes in all, so it stays cache resident on
a microcontroller."""
import os

DECODERS = ["unknown", "bool", "uvar32", "svar32", "uvar64", "svar64",
            "fixed64", "float", "float64", "vector2", "vector3", "vector4",
            "qangle", "string", "blob", "vector", "pointer", "minusone",
            "transform"]
ENCODER_KINDS = ["none", "coord", "simtime", "runetime", "normal", "fixed64",
                 "qangle_pitch_yaw", "qangle_precise", "minusone"]


def outputs():
    return ["source2_fields.c", "source2_fields.h"]


def _rows(path, ncols):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != ncols:
                raise SystemExit("%s:%d: expected %d columns" % (path, n, ncols))
            rows.append(cols)
    return rows


def _c_ident(s):
    return "".join(c if c.isalnum() else "_" for c in s).upper()


def huffman(weights):
    """Returns {op: code bits as a string, first bit read first}."""
    import heapq
    # heapq is a min-heap: key (weight, -num) pops the lightest node first
    # and, among equal weights, the one with the highest number.
    heap = []
    num = 0
    for op, w in enumerate(weights):
        heapq.heappush(heap, (max(w, 1), -num, ("leaf", op)))
        num += 1
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
    return codes, heap[0][2]


def generate(schema_dir):
    d = os.path.join(schema_dir, "source2", "fields")
    ops = _rows(os.path.join(d, "fieldpath_ops.tsv"), 2)
    types = _rows(os.path.join(d, "types.tsv"), 2)
    encs = _rows(os.path.join(d, "encoders.tsv"), 2)
    sizes = _rows(os.path.join(d, "array_sizes.tsv"), 2)
    names = _rows(os.path.join(d, "names.tsv"), 2)
    vsers = _rows(os.path.join(d, "serializers.tsv"), 2)
    for t, dec in types:
        if dec not in DECODERS:
            raise SystemExit("types.tsv: unknown decoder %r for %s" % (dec, t))
    for e, k in encs + names + vsers:
        if k not in ENCODER_KINDS:
            raise SystemExit("encoders.tsv: unknown kind %r for %s" % (k, e))
    weights = [int(w) for _, w in ops]
    codes, root = huffman(weights)
    maxlen = max(len(c) for c in codes.values())

    # Internal nodes in breadth-first order; child byte: 0x80|op for a leaf,
    # else the index of the internal node.
    nodes = []
    index = {}
    queue = [root]
    while queue:
        n = queue.pop(0)
        if n[0] == "node":
            index[id(n)] = len(nodes)
            nodes.append(n)
            queue.extend([n[1], n[2]])

    def child(c):
        return 0x80 | c[1] if c[0] == "leaf" else index[id(c)]
    tree = [(child(n[1]), child(n[2])) for n in nodes]
    # 8-bit table: entry = (len << 8) | op for codes of at most 8 bits,
    # 0x8000 | node for longer codes (continue bit by bit from that node).
    lut = []
    for v in range(256):
        n = root
        entry = None
        for i in range(8):
            bit = (v >> i) & 1
            n = n[1 + bit]
            if n[0] == "leaf":
                entry = ((i + 1) << 8) | n[1]
                break
        if entry is None:
            entry = 0x8000 | index[id(n)]
        lut.append(entry)

    # The long codes' rows of the three-bits-a-step table: only the nodes a
    # long code's first 8 bits reach, and those a step from them reaches
    # (renumbered in that set; the table's own node numbers).
    def step3_old(node, v):
        for i in range(3):
            t = tree[node][(v >> i) & 1]
            if t & 0x80:
                assert (t & 0x7F) < 0x40
                return ((i + 1) << 6) | (t & 0x7F)
            node = t
        return ("node", node)
    rows = sorted({e & 0xFF for e in lut if e & 0x8000})
    todo = list(rows)
    while todo:
        n = todo.pop()
        for v in range(8):
            r = step3_old(n, v)
            if isinstance(r, tuple) and r[1] not in rows:
                rows.append(r[1])
                todo.append(r[1])
    rows.sort()
    renum = {n: i for i, n in enumerate(rows)}
    assert len(rows) < 0x40
    lut = [(0x8000 | renum[e & 0xFF]) if e & 0x8000 else e for e in lut]
    tree3 = [[(lambda r: renum[r[1]] if isinstance(r, tuple) else r)(step3_old(n, v))
              for v in range(8)] for n in rows]

    h = []
    h.append("/* Generated by gen/source2_fields_gen.py from schema/source2/fields/. Do not edit. */")
    h.append("#ifndef ZDEM_SOURCE2_FIELDS_H")
    h.append("#define ZDEM_SOURCE2_FIELDS_H")
    h.append("")
    h.append("#include <stddef.h>")
    h.append("#include <stdint.h>")
    h.append("")
    h.append("/* Value decoders selected by base type name. */")
    h.append("typedef enum zdem_s2_dec {")
    for i, name in enumerate(DECODERS):
        h.append("    ZDEM_S2_DEC_%s = %d," % (_c_ident(name), i))
    h.append("    ZDEM_S2_DEC_COUNT = %d" % len(DECODERS))
    h.append("} zdem_s2_dec;")
    h.append("")
    h.append("/* What a field's var_encoder asks for. */")
    h.append("typedef enum zdem_s2_enc {")
    for i, name in enumerate(ENCODER_KINDS):
        h.append("    ZDEM_S2_ENC_%s = %d," % (_c_ident(name), i))
    h.append("    ZDEM_S2_ENC_UNKNOWN = %d" % len(ENCODER_KINDS))
    h.append("} zdem_s2_enc;")
    h.append("")
    h.append("/* Field-path operations, in wire id order. */")
    h.append("typedef enum zdem_s2_fpop {")
    for i, (name, w) in enumerate(ops):
        h.append("    ZDEM_S2_FP_%s = %d, /* weight %s, code %s */" % (_c_ident(name), i, w, codes[i]))
    h.append("    ZDEM_S2_FP_OP_COUNT = %d" % len(ops))
    h.append("} zdem_s2_fpop;")
    h.append("")
    h.append("#define ZDEM_S2_FP_MAX_CODE_BITS %d" % maxlen)
    h.append("#define ZDEM_S2_FP_TREE_NODES %d" % len(tree3))
    h.append("/* lut[8 peeked bits]: (length << 8) | op, or 0x8000 | the row of")
    h.append(" * zdem_s2_fp_tree3 a longer code goes on from. */")
    h.append("extern const uint16_t zdem_s2_fp_lut[256];")
    h.append("/* tree3[row][next 3 bits, first in bit 0]: the code tree below a long")
    h.append(" * code's first 8 bits, walked three bits a step: (bits used << 6) | op")
    h.append(" * (>= 0x40) for a leaf within them, else the row after all three. */")
    h.append("extern const uint8_t zdem_s2_fp_tree3[ZDEM_S2_FP_TREE_NODES][8];")
    h.append("extern const char *const zdem_s2_fp_op_names[ZDEM_S2_FP_OP_COUNT];")
    h.append("extern const char *const zdem_s2_dec_names[ZDEM_S2_DEC_COUNT];")
    h.append("")
    h.append("/* Decoder for a base type name (not NUL-terminated); ZDEM_S2_DEC_UNKNOWN")
    h.append(" * when the name is not in the table. */")
    h.append("zdem_s2_dec zdem_s2_type_decoder(const char *name, size_t len);")
    h.append("/* Encoder kind for a var_encoder name; ZDEM_S2_ENC_UNKNOWN if unknown. */")
    h.append("zdem_s2_enc zdem_s2_encoder_kind(const char *name, size_t len);")
    h.append("/* Encoder kind for a var_serializer name; ZDEM_S2_ENC_UNKNOWN if unknown. */")
    h.append("zdem_s2_enc zdem_s2_var_serializer_kind(const char *name, size_t len);")
    h.append("/* Encoder kind the engine applies to a field by name; ZDEM_S2_ENC_NONE")
    h.append(" * for ordinary names. */")
    h.append("zdem_s2_enc zdem_s2_name_encoder(const char *name, size_t len);")
    h.append("/* Value of a symbolic array bound; 0 if unknown. */")
    h.append("uint32_t zdem_s2_array_size(const char *name, size_t len);")
    h.append("")
    h.append("#endif")

    c = []
    c.append("/* Generated by gen/source2_fields_gen.py from schema/source2/fields/. Do not edit. */")
    c.append('#include "source2_fields.h"')
    c.append("#include <string.h>")
    c.append("")
    c.append("const uint16_t zdem_s2_fp_lut[256] = {")
    for i in range(0, 256, 8):
        c.append("    " + ", ".join("0x%04x" % x for x in lut[i:i + 8]) + ",")
    c.append("};")
    c.append("")
    c.append("const uint8_t zdem_s2_fp_tree3[ZDEM_S2_FP_TREE_NODES][8] = {")
    for row in tree3:
        c.append("    {" + ", ".join("0x%02x" % x for x in row) + "},")
    c.append("};")
    c.append("")
    c.append("const char *const zdem_s2_fp_op_names[ZDEM_S2_FP_OP_COUNT] = {")
    for name, _ in ops:
        c.append('    "%s",' % name)
    c.append("};")
    c.append("")
    c.append("const char *const zdem_s2_dec_names[ZDEM_S2_DEC_COUNT] = {")
    for name in DECODERS:
        c.append('    "%s",' % name)
    c.append("};")
    c.append("")

    def table(cname, ctype, rows, conv):
        # Sorted by (length, bytes): a probe whose length differs is decided
        # by one integer compare, without touching the name bytes.
        keys = [r[0].encode() for r in rows]
        if len(set(keys)) != len(keys):
            raise SystemExit("%s: a name is listed twice" % cname)
        if max(len(k) for k in keys) > 255:
            raise SystemExit("%s: a name is over 255 bytes" % cname)
        rows = sorted(rows, key=lambda r: (len(r[0].encode()), r[0].encode()))
        # the names in one block, an entry holding its offset: 4 bytes an
        # entry on a 32-bit target instead of a pointer's 8
        blob = "".join(k for k, _ in rows)
        if any(ch in blob for ch in '"\\?') or len(blob.encode()) >= 65536:
            raise SystemExit("%s: a name the block cannot hold" % cname)
        c.append("static const char %s_names[] =" % cname)
        for k, _ in rows:
            c.append('    "%s"' % k)
        c.append("    ;")
        c.append("static const struct { uint16_t off; uint8_t len; %s value; } %s[%d] = {"
                 % (ctype, cname, len(rows)))
        off = 0
        for k, v in rows:
            c.append('    {%d, %d, %s},' % (off, len(k.encode()), conv(v)))
            off += len(k.encode())
        c.append("};")
        c.append("")
        return len(rows)

    table("type_table", "uint8_t", types, lambda v: "ZDEM_S2_DEC_" + _c_ident(v))
    table("enc_table", "uint8_t", encs, lambda v: "ZDEM_S2_ENC_" + _c_ident(v))
    table("vser_table", "uint8_t", vsers, lambda v: "ZDEM_S2_ENC_" + _c_ident(v))
    table("size_table", "uint32_t", sizes, lambda v: str(int(v)) + "u")
    table("name_table", "uint8_t", names, lambda v: "ZDEM_S2_ENC_" + _c_ident(v))
    macro = [
        "/* Binary search over a table sorted by (length, bytes): the bytes are",
        " * compared only against names of the same length. */",
        "#define ZDEM_S2_LOOKUP(tab, name, len, found, dflt)",
        "    do {",
        "        size_t lo = 0, hi = sizeof(tab) / sizeof(tab[0]);",
        "        (found) = (dflt);",
        "        while (lo < hi) {",
        "            size_t mid = (lo + hi) / 2;",
        "            size_t sl = tab[mid].len;",
        "            int r = sl < (len) ? -1 : (sl > (len) ? 1 : 0);",
        "            if (r == 0)",
        "                r = memcmp(tab##_names + tab[mid].off, (name), sl);",
        "            if (r == 0) {",
        "                (found) = tab[mid].value;",
        "                break;",
        "            }",
        "            if (r < 0)",
        "                lo = mid + 1;",
        "            else",
        "                hi = mid;",
        "        }",
        "    } while (0)",
    ]
    for i, line in enumerate(macro):
        if i < 2 or i == len(macro) - 1:
            c.append(line)
        else:
            c.append(line.ljust(75) + "\\")
    c.append("")
    c.append("zdem_s2_dec zdem_s2_type_decoder(const char *name, size_t len)")
    c.append("{")
    c.append("    unsigned v;")
    c.append("    ZDEM_S2_LOOKUP(type_table, name, len, v, ZDEM_S2_DEC_UNKNOWN);")
    c.append("    return (zdem_s2_dec)v;")
    c.append("}")
    c.append("")
    c.append("zdem_s2_enc zdem_s2_encoder_kind(const char *name, size_t len)")
    c.append("{")
    c.append("    unsigned v;")
    c.append("    ZDEM_S2_LOOKUP(enc_table, name, len, v, ZDEM_S2_ENC_UNKNOWN);")
    c.append("    return (zdem_s2_enc)v;")
    c.append("}")
    c.append("")
    c.append("zdem_s2_enc zdem_s2_var_serializer_kind(const char *name, size_t len)")
    c.append("{")
    c.append("    unsigned v;")
    c.append("    ZDEM_S2_LOOKUP(vser_table, name, len, v, ZDEM_S2_ENC_UNKNOWN);")
    c.append("    return (zdem_s2_enc)v;")
    c.append("}")
    c.append("")
    c.append("zdem_s2_enc zdem_s2_name_encoder(const char *name, size_t len)")
    c.append("{")
    c.append("    unsigned v;")
    c.append("    ZDEM_S2_LOOKUP(name_table, name, len, v, ZDEM_S2_ENC_NONE);")
    c.append("    return (zdem_s2_enc)v;")
    c.append("}")
    c.append("")
    c.append("uint32_t zdem_s2_array_size(const char *name, size_t len)")
    c.append("{")
    c.append("    uint32_t v;")
    c.append("    ZDEM_S2_LOOKUP(size_table, name, len, v, 0u);")
    c.append("    return v;")
    c.append("}")
    return {"source2_fields.h": "\n".join(h) + "\n",
            "source2_fields.c": "\n".join(c) + "\n"}
