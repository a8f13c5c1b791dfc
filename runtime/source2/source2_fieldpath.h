/* Source 2 field paths: the Huffman-coded operations that name which
 * fields of an entity an update carries. Decoded through the generated
 * 8-bit lookup table (generated/source2_fields.c, 590 bytes). */
#ifndef ZDEM_SOURCE2_FIELDPATH_H
#define ZDEM_SOURCE2_FIELDPATH_H

#include <stdint.h>
#include "zdem_bits.h"
#include "zdem_error.h"
#include "source2_fields.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZDEM_S2_FP_MAX_DEPTH 7
/* Largest path component kept (a component's full 16 bits; real
 * serializers stay far below). A larger one, which only an array of more
 * than 65536 elements could need, is reported as out of range. */
#define ZDEM_S2_FP_MAX_INDEX 65535

typedef struct zdem_s2_fp {
    uint16_t path[ZDEM_S2_FP_MAX_DEPTH];
    uint8_t depth; /* 1..7 */
} zdem_s2_fp;

/* Reads one operation code (0..39) through the lookup table; -1 when the
 * bits run out. */
int zdem_s2_fp_read_op(zdem_bits *br);

/* A long code's operation (0..39), from the node its first 8 bits reach
 * (the lookup table's entry & 0xFF) and the bits after them (first in bit
 * 0; at most 18 are looked at): three bits a step through
 * zdem_s2_fp_tree3. *used receives the bits taken after the first 8; -1
 * when they are no code (cannot happen for a node from the table). */
static inline int zdem_s2_fp_long_op(unsigned node, uint32_t bits, unsigned *used)
{
    unsigned k, u = 0;
    for (k = 0; k < 6u && node < ZDEM_S2_FP_TREE_NODES; k++) {
        unsigned t = zdem_s2_fp_tree3[node][(bits >> u) & 7u];
        if (t >= 0x40u) {
            *used = u + (t >> 6);
            return (int)(t & 0x3Fu);
        }
        u += 3u;
        node = t;
    }
    *used = u;
    return -1;
}

/* Reads field-path operations until FieldPathEncodeFinish, storing every
 * path in out[0..cap). *n receives the count. ZDEM_ERR_LIMIT when more than
 * cap paths; ZDEM_ERR_CORRUPT for a path deeper than 7 or a component out
 * of range; ZDEM_ERR_TRUNCATED when the bits run out. */
zdem_status zdem_s2_fp_read_all(zdem_bits *br, zdem_s2_fp *out, uint32_t cap,
                                uint32_t *n, zdem_error *err);

#ifdef __cplusplus
}
#endif

#endif
