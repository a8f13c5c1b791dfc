"""Teeworlds layer, part 1: the static Huffman code.

Builds the tree from schema/teeworlds/huffman_freq.txt exactly as the
protocol specifies (stable sort by descending frequency, merge the two
least frequent nodes, the merged node takes the place of the second-least;
bit 0 goes to the least frequent child) and emits C tables, so that the
device never builds a tree at start-up:
  * a LUT_BITS-bit first-level lookup table (byte symbol + length, or
    where the second-level table of a longer code or EOF is),
  * the second-level tables: one per LUT_BITS-bit prefix of longer codes,
    indexed by the next bits (as many as the longest code under it needs),
  * the inner nodes' children (for the bit-at-a-time reference decoder),
  * the code and length of every symbol (for the encoder used by tests).
The protocol part lives in teeworlds_proto_gen.py.
"""
import os

LUT_BITS = 11
EOF_SYMBOL = 256
NSYM = 257


def outputs():
    return ["teeworlds_hufftab.h", "teeworlds_hufftab.c"]


def read_freqs(schema_dir):
    path = os.path.join(schema_dir, "teeworlds", "huffman_freq.txt")
    words = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0]
            words.extend(line.split())
    freqs = [int(w) for w in words]
    if len(freqs) != NSYM:
        raise SystemExit("huffman_freq.txt: %d entries, want %d" % (len(freqs), NSYM))
    freqs[EOF_SYMBOL] = 1
    return freqs


def build_tree(freqs):
    """Returns (children, root): children[node] = (child0, child1) for inner
    nodes numbered NSYM.. in creation order."""
    children = {}
    left = [(freqs[i], i) for i in range(NSYM)]  # (frequency, node id)
    next_id = NSYM
    while len(left) > 1:
        # Stable descending sort: equal frequencies keep their order, as the
        # reference bubble sort does.
        left = sorted(left, key=lambda e: -e[0])
        lo, lo2 = left[-1], left[-2]
        children[next_id] = (lo[1], lo2[1])
        left[-2] = (lo[0] + lo2[0], next_id)
        left.pop()
        next_id += 1
    return children, left[0][1]


def codes_of(children, root):
    codes = {}
    stack = [(root, 0, 0)]
    while stack:
        node, bits, depth = stack.pop()
        if node < NSYM:
            codes[node] = (bits, depth)
        else:
            c0, c1 = children[node]
            stack.append((c0, bits, depth + 1))
            stack.append((c1, bits | (1 << depth), depth + 1))
    return codes


def lut_of(children, root):
    """Returns (lut, sub). A code of a byte symbol up to LUT_BITS long is
    one entry: symbol | length << 8 (below 0x1000). Anything else (a longer
    code, or EOF) is 0x8000 | k << 12 | offset: the symbol is at
    sub[offset + the k bits after the first LUT_BITS], each sub entry
    symbol | total length << 9."""
    lut, sub, where = [], [], {}
    for i in range(1 << LUT_BITS):
        node, depth = root, 0
        while node >= NSYM and depth < LUT_BITS:
            node = children[node][(i >> depth) & 1]
            depth += 1
        if node < EOF_SYMBOL:
            lut.append(node | (depth << 8))
            continue
        if node == EOF_SYMBOL:
            key, k, entries = ("eof", depth), 0, [node | (depth << 9)]
        else:
            # the deepest leaf under this node decides the sub-table's bits
            k, stack = 0, [(node, 0)]
            while stack:
                n, d = stack.pop()
                if n < NSYM:
                    k = max(k, d)
                else:
                    stack.extend((c, d + 1) for c in children[n])
            key, entries = node, []
            for j in range(1 << k):
                n, d = node, 0
                while n >= NSYM:
                    n = children[n][(j >> d) & 1]
                    d += 1
                entries.append(n | ((depth + d) << 9))
        if key not in where:
            where[key] = len(sub)
            sub.extend(entries)
        if k > 7 or where[key] > 0xFFF:
            raise SystemExit("huffman: second-level table does not fit the LUT entry")
        lut.append(0x8000 | (k << 12) | where[key])
    return lut, sub


def rows(values, per, fmt):
    out = []
    for i in range(0, len(values), per):
        out.append("    " + ", ".join(fmt % v for v in values[i:i + per]) + ",")
    return "\n".join(out)


def generate(schema_dir):
    freqs = read_freqs(schema_dir)
    children, root = build_tree(freqs)
    codes = codes_of(children, root)
    lut, sub = lut_of(children, root)
    max_len = max(n for _, n in codes.values())
    ninner = len(children)
    # The zero byte (the commonest: a delta's unchanged fields) has a
    # one-bit code: a run of zero bytes is a run of that bit, decoded by
    # counting it in the next 8 bits.
    zero_bit = codes[0][0] if codes[0][1] == 1 else None
    zero_h = zero_c = ""
    if zero_bit is not None:
        zero_h = """/* The zero byte's code is one bit, ZDEM_TW_HUFF_ZERO_BIT: byte b of the
 * stream starts with zdem_tw_huff_zero_run[b] zero bytes (0..8). */
#define ZDEM_TW_HUFF_ZERO_BIT %d
extern const uint8_t zdem_tw_huff_zero_run[256];
""" % zero_bit
        run = []
        for b in range(256):
            k = 0
            while k < 8 and (b >> k) & 1 == zero_bit:
                k += 1
            run.append(k)
        zero_c = """
const uint8_t zdem_tw_huff_zero_run[256] = {
%s
};
""" % rows(run, 16, "%d")
    h = """/* Generated by gen/teeworlds_gen.py from schema/teeworlds/huffman_freq.txt.
 * Do not edit. */
#ifndef ZDEM_TEEWORLDS_HUFFTAB_H
#define ZDEM_TEEWORLDS_HUFFTAB_H

#include <stdint.h>

#define ZDEM_TW_HUFF_EOF %(eof)d
#define ZDEM_TW_HUFF_NSYM %(nsym)d
#define ZDEM_TW_HUFF_ROOT %(root)d        /* node ids < NSYM are symbols */
#define ZDEM_TW_HUFF_MAX_CODE_LEN %(maxlen)d
#define ZDEM_TW_HUFF_LUT_BITS %(lutbits)d
/* LUT entry, indexed by the next LUT_BITS bits: bit 15 clear: a byte
 * symbol in bits 0..7, its code length in bits 8..11 (the entry < 0x1000);
 * bit 15 set (a longer code, or EOF): the symbol is at
 * zdem_tw_huff_sub[(e & 0xFFF) + the next (e >> 12 & 7) bits after the
 * first LUT_BITS]. */
extern const uint16_t zdem_tw_huff_lut[1u << ZDEM_TW_HUFF_LUT_BITS];
/* Second-level entry: symbol in bits 0..8, whole code length in 9..12. */
extern const uint16_t zdem_tw_huff_sub[%(nsub)d];
/* Children of inner node n at zdem_tw_huff_child[n - NSYM][bit]. */
extern const uint16_t zdem_tw_huff_child[%(ninner)d][2];
/* Code bits (first bit in bit 0) and length of every symbol. */
extern const uint32_t zdem_tw_huff_code[ZDEM_TW_HUFF_NSYM];
extern const uint8_t zdem_tw_huff_len[ZDEM_TW_HUFF_NSYM];
%(zero)s
#endif
""" % dict(eof=EOF_SYMBOL, nsym=NSYM, root=root, maxlen=max_len,
           lutbits=LUT_BITS, ninner=ninner, nsub=len(sub), zero=zero_h)
    c = """/* Generated by gen/teeworlds_gen.py from schema/teeworlds/huffman_freq.txt.
 * Do not edit. */
#include "teeworlds_hufftab.h"

const uint16_t zdem_tw_huff_lut[1u << ZDEM_TW_HUFF_LUT_BITS] = {
%s
};

const uint16_t zdem_tw_huff_sub[%d] = {
%s
};

const uint16_t zdem_tw_huff_child[%d][2] = {
%s
};

const uint32_t zdem_tw_huff_code[ZDEM_TW_HUFF_NSYM] = {
%s
};

const uint8_t zdem_tw_huff_len[ZDEM_TW_HUFF_NSYM] = {
%s
};
""" % (rows(lut, 8, "0x%04x"), len(sub), rows(sub, 8, "0x%04x"), ninner,
       "\n".join("    {%d, %d}," % children[n] for n in range(NSYM, NSYM + ninner)),
       rows([codes[s][0] for s in range(NSYM)], 6, "0x%06xu"),
       rows([codes[s][1] for s in range(NSYM)], 16, "%d")) + zero_c
    return {"teeworlds_hufftab.h": h, "teeworlds_hufftab.c": c}
