#include "source2_fieldpath.h"
#include "source2_fields.h"
#ifdef S2_DEBUG
#include <stdio.h>
#include <stdlib.h>
#endif

int zdem_s2_fp_read_op(zdem_bits *br)
{
    uint32_t peek = zdem_bits_peek(br, 8);
    uint16_t e = zdem_s2_fp_lut[peek];
    if (!(e & 0x8000u)) {
        unsigned len = e >> 8;
        if (len > zdem_bits_left(br)) {
            zdem_bits_skip(br, len);
            return -1;
        }
        br->pos += len;
        return e & 0xFF;
    }
    /* Rare long code (9..17 bits): the tree from the node the first 8
     * bits reach, three bits a step (zdem_s2_fp_tree3). Bits past the end
     * read as 0: a code that needs them ran out, as a bit-at-a-time walk
     * would find. */
    if (zdem_bits_left(br) < 8u) {
        zdem_bits_skip(br, 8);
        return -1;
    }
    br->pos += 8;
    {
        unsigned used;
        int op = zdem_s2_fp_long_op(e & 0xFFu, zdem_bits_peek(br, 18), &used);
        if (op >= 0 && used <= zdem_bits_left(br)) {
            br->pos += used;
            return op;
        }
    }
    br->pos = br->end; /* ran out of bits (or not a code: cannot happen) */
    br->overflow = 1;
    return -1;
}

/* Valve's field-path varint: 2, 4, 10, 17 or 31 bits, chosen by a prefix. */
static inline uint32_t fp_ubitvar(zdem_bits *br)
{
    if (zdem_bits_read(br, 1))
        return zdem_bits_read(br, 2);
    if (zdem_bits_read(br, 1))
        return zdem_bits_read(br, 4);
    if (zdem_bits_read(br, 1))
        return zdem_bits_read(br, 10);
    if (zdem_bits_read(br, 1))
        return zdem_bits_read(br, 17);
    return zdem_bits_read(br, 31);
}

/* Components are kept as int64 while decoding so that wild deltas from a
 * hostile stream cannot overflow; they are range-checked when emitted. */
typedef struct fp_work {
    int64_t c[ZDEM_S2_FP_MAX_DEPTH];
    int last; /* index of the last component */
} fp_work;

static int push(fp_work *w, int64_t v)
{
    if (w->last + 1 >= ZDEM_S2_FP_MAX_DEPTH)
        return -1;
    w->c[++w->last] = v;
    return 0;
}

static int pop(fp_work *w, uint32_t n)
{
    if ((int64_t)n > (int64_t)w->last)
        return -1; /* never pop the root component */
    w->last -= (int)n;
    return 0;
}

/* mode 0: signed varint deltas; 1: 4-bit deltas - 7; 2: signed varint
 * deltas + 1 (PushNAndNonTopological). */
static void non_topo(fp_work *w, zdem_bits *br, int mode)
{
    int i;
    for (i = 0; i <= w->last; i++) {
        if (zdem_bits_read(br, 1)) {
            if (mode == 1)
                w->c[i] += (int64_t)zdem_bits_read(br, 4) - 7;
            else
                w->c[i] += (int64_t)zdem_bits_read_varint32(br) + (mode == 2);
        }
    }
}

zdem_status zdem_s2_fp_read_all(zdem_bits *br, zdem_s2_fp *out, uint32_t cap,
                                uint32_t *n, zdem_error *err)
{
    fp_work w;
    uint32_t count = 0;
    int bad = 0; /* 1: depth, 2: range */
    w.c[0] = -1;
    w.last = 0;
    *n = 0;
    for (;;) {
        int op = zdem_s2_fp_read_op(br);
        uint32_t k, i;
#ifdef S2_DEBUG
        if (getenv("S2_FPTRACE"))
        {
            int q;
            fprintf(stderr, "op %s bit %zu path", op >= 0 ? zdem_s2_fp_op_names[op] : "?", br->pos);
            for (q = 0; q <= w.last; q++) fprintf(stderr, " %lld", (long long)w.c[q]);
            fprintf(stderr, "\n");
        }
#endif
        if (op < 0 || br->overflow)
            return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br->pos,
                                  "field paths run past the end of the entity data");
        switch (op) {
        case ZDEM_S2_FP_PLUSONE: w.c[w.last] += 1; break;
        case ZDEM_S2_FP_PLUSTWO: w.c[w.last] += 2; break;
        case ZDEM_S2_FP_PLUSTHREE: w.c[w.last] += 3; break;
        case ZDEM_S2_FP_PLUSFOUR: w.c[w.last] += 4; break;
        case ZDEM_S2_FP_PLUSN: w.c[w.last] += (int64_t)fp_ubitvar(br) + 5; break;
        case ZDEM_S2_FP_PUSHONELEFTDELTAZERORIGHTZERO:
            bad |= push(&w, 0);
            break;
        case ZDEM_S2_FP_PUSHONELEFTDELTAZERORIGHTNONZERO:
            bad |= push(&w, fp_ubitvar(br));
            break;
        case ZDEM_S2_FP_PUSHONELEFTDELTAONERIGHTZERO:
            w.c[w.last] += 1;
            bad |= push(&w, 0);
            break;
        case ZDEM_S2_FP_PUSHONELEFTDELTAONERIGHTNONZERO:
            w.c[w.last] += 1;
            bad |= push(&w, fp_ubitvar(br));
            break;
        case ZDEM_S2_FP_PUSHONELEFTDELTANRIGHTZERO:
            w.c[w.last] += fp_ubitvar(br);
            bad |= push(&w, 0);
            break;
        case ZDEM_S2_FP_PUSHONELEFTDELTANRIGHTNONZERO:
            w.c[w.last] += (int64_t)fp_ubitvar(br) + 2;
            bad |= push(&w, (int64_t)fp_ubitvar(br) + 1);
            break;
        case ZDEM_S2_FP_PUSHONELEFTDELTANRIGHTNONZEROPACK6BITS:
            w.c[w.last] += (int64_t)zdem_bits_read(br, 3) + 2;
            bad |= push(&w, (int64_t)zdem_bits_read(br, 3) + 1);
            break;
        case ZDEM_S2_FP_PUSHONELEFTDELTANRIGHTNONZEROPACK8BITS:
            w.c[w.last] += (int64_t)zdem_bits_read(br, 4) + 2;
            bad |= push(&w, (int64_t)zdem_bits_read(br, 4) + 1);
            break;
        case ZDEM_S2_FP_PUSHTWOLEFTDELTAZERO:
        case ZDEM_S2_FP_PUSHTHREELEFTDELTAZERO:
        case ZDEM_S2_FP_PUSHTWOLEFTDELTAONE:
        case ZDEM_S2_FP_PUSHTHREELEFTDELTAONE:
        case ZDEM_S2_FP_PUSHTWOLEFTDELTAN:
        case ZDEM_S2_FP_PUSHTHREELEFTDELTAN: {
            uint32_t pushes = (op == ZDEM_S2_FP_PUSHTWOLEFTDELTAZERO ||
                               op == ZDEM_S2_FP_PUSHTWOLEFTDELTAONE ||
                               op == ZDEM_S2_FP_PUSHTWOLEFTDELTAN) ? 2u : 3u;
            if (op == ZDEM_S2_FP_PUSHTWOLEFTDELTAONE || op == ZDEM_S2_FP_PUSHTHREELEFTDELTAONE)
                w.c[w.last] += 1;
            else if (op == ZDEM_S2_FP_PUSHTWOLEFTDELTAN || op == ZDEM_S2_FP_PUSHTHREELEFTDELTAN)
                w.c[w.last] += (int64_t)zdem_bits_read_ubitvar(br) + 2;
            for (i = 0; i < pushes; i++)
                bad |= push(&w, fp_ubitvar(br));
            break;
        }
        case ZDEM_S2_FP_PUSHTWOPACK5LEFTDELTAZERO:
        case ZDEM_S2_FP_PUSHTHREEPACK5LEFTDELTAZERO:
        case ZDEM_S2_FP_PUSHTWOPACK5LEFTDELTAONE:
        case ZDEM_S2_FP_PUSHTHREEPACK5LEFTDELTAONE:
        case ZDEM_S2_FP_PUSHTWOPACK5LEFTDELTAN:
        case ZDEM_S2_FP_PUSHTHREEPACK5LEFTDELTAN: {
            uint32_t pushes = (op == ZDEM_S2_FP_PUSHTWOPACK5LEFTDELTAZERO ||
                               op == ZDEM_S2_FP_PUSHTWOPACK5LEFTDELTAONE ||
                               op == ZDEM_S2_FP_PUSHTWOPACK5LEFTDELTAN) ? 2u : 3u;
            if (op == ZDEM_S2_FP_PUSHTWOPACK5LEFTDELTAONE || op == ZDEM_S2_FP_PUSHTHREEPACK5LEFTDELTAONE)
                w.c[w.last] += 1;
            else if (op == ZDEM_S2_FP_PUSHTWOPACK5LEFTDELTAN || op == ZDEM_S2_FP_PUSHTHREEPACK5LEFTDELTAN)
                w.c[w.last] += (int64_t)zdem_bits_read_ubitvar(br) + 2;
            for (i = 0; i < pushes; i++)
                bad |= push(&w, zdem_bits_read(br, 5));
            break;
        }
        case ZDEM_S2_FP_PUSHN:
            k = zdem_bits_read_ubitvar(br);
            w.c[w.last] += zdem_bits_read_ubitvar(br);
            for (i = 0; i < k && !bad && !br->overflow; i++)
                bad |= push(&w, fp_ubitvar(br));
            if (i < k)
                bad = 1;
            break;
        case ZDEM_S2_FP_PUSHNANDNONTOPOLOGICAL:
            non_topo(&w, br, 2);
            k = zdem_bits_read_ubitvar(br);
            for (i = 0; i < k && !bad && !br->overflow; i++)
                bad |= push(&w, fp_ubitvar(br));
            if (i < k)
                bad = 1;
            break;
        case ZDEM_S2_FP_POPONEPLUSONE:
            bad |= pop(&w, 1);
            w.c[w.last] += 1;
            break;
        case ZDEM_S2_FP_POPONEPLUSN:
            bad |= pop(&w, 1);
            w.c[w.last] += (int64_t)fp_ubitvar(br) + 1;
            break;
        case ZDEM_S2_FP_POPALLBUTONEPLUSONE:
            w.last = 0;
            w.c[0] += 1;
            break;
        case ZDEM_S2_FP_POPALLBUTONEPLUSN:
            w.last = 0;
            w.c[0] += (int64_t)fp_ubitvar(br) + 1;
            break;
        case ZDEM_S2_FP_POPALLBUTONEPLUSNPACK3BITS:
            w.last = 0;
            w.c[0] += (int64_t)zdem_bits_read(br, 3) + 1;
            break;
        case ZDEM_S2_FP_POPALLBUTONEPLUSNPACK6BITS:
            w.last = 0;
            w.c[0] += (int64_t)zdem_bits_read(br, 6) + 1;
            break;
        case ZDEM_S2_FP_POPNPLUSONE:
            bad |= pop(&w, fp_ubitvar(br));
            w.c[w.last] += 1;
            break;
        case ZDEM_S2_FP_POPNPLUSN:
            bad |= pop(&w, fp_ubitvar(br));
            w.c[w.last] += zdem_bits_read_varint32(br);
            break;
        case ZDEM_S2_FP_POPNANDNONTOPOGRAPHICAL:
            bad |= pop(&w, fp_ubitvar(br));
            non_topo(&w, br, 0);
            break;
        case ZDEM_S2_FP_NONTOPOCOMPLEX:
            non_topo(&w, br, 0);
            break;
        case ZDEM_S2_FP_NONTOPOPENULTIMATEPLUSONE:
            if (w.last < 1)
                bad = 1;
            else
                w.c[w.last - 1] += 1;
            break;
        case ZDEM_S2_FP_NONTOPOCOMPLEXPACK4BITS:
            non_topo(&w, br, 1);
            break;
        case ZDEM_S2_FP_FIELDPATHENCODEFINISH:
            if (br->overflow)
                return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br->pos,
                                      "field paths run past the end of the entity data");
            *n = count;
            return ZDEM_OK;
        default:
            return zdem_fail_bits(err, ZDEM_ERR_HUFFMAN, br->pos,
                                  "unknown field-path operation");
        }
        if (bad)
            return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br->pos,
                                  "field path deeper than 7 or popped past its root");
        if (br->overflow)
            return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br->pos,
                                  "field paths run past the end of the entity data");
        if (count >= cap)
            return zdem_fail_bits(err, ZDEM_ERR_LIMIT, br->pos,
                                  "more field paths in one update than max_field_paths");
        {
            zdem_s2_fp *o = &out[count++];
            int j;
            o->depth = (uint8_t)(w.last + 1);
            for (j = 0; j <= w.last; j++) {
                if (w.c[j] < 0 || w.c[j] > ZDEM_S2_FP_MAX_INDEX)
                    return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br->pos,
                                          "field path component out of range");
                o->path[j] = (uint16_t)w.c[j];
            }
            for (; j < ZDEM_S2_FP_MAX_DEPTH; j++)
                o->path[j] = 0;
        }
    }
}
