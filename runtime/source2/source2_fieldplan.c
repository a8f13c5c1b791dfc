/* An entity update's field paths, read and resolved in one pass: the plan
 * that its values are then decoded by.
 *
 * The field-path operations change the path a component at a time, mostly
 * the last one (PlusOne). So the reader keeps, for every depth, what a
 * component there means in the class's serializers (a field of serializer
 * S, an array element, an element of a table of S) and what the path
 * ending there decodes as; an operation invalidates only the depths it
 * changed, and a path costs the resolution of the components that changed
 * since the previous one instead of a walk from the root. Same operations,
 * same checks and same errors, at the same positions, as
 * zdem_s2_fp_read_all followed by zdem_s2_resolve_ent for each path: a
 * path that names no field is found here but reported when its value is
 * due, and a path under a polymorphic pointer (whose serializer is the
 * pointer's stored value, possibly set earlier in the same update) is
 * resolved then too. */
#include "source2_state_int.h"

const zdem_s2_fdec zdem_s2_fd_late = {ZDEM_S2_DEC_COUNT, 0, 0, 0, {0, 0, 0, 0, 0, 0}};

/* What a component means at one depth. */
enum {
    PL_NONE = 0, /* nothing: any path through here names no field */
    PL_SER,      /* a field index of serializer ser */
    PL_ELEM,     /* an array element (any index), decoded by fd */
    PL_VTELEM,   /* an element of a table of serializer ser */
    PL_POLY      /* under a polymorphic pointer: resolved with the values */
};

typedef struct pl_lvl {
    uint32_t kind;
    int32_t ser;
    uint32_t nf;          /* PL_SER: the serializer's field count */
    const uint32_t *idx;  /* PL_SER: its field indexes */
    const zdem_s2_fdec *fd;
} pl_lvl;

/* Level l is serializer ser's fields (ser checked by the caller). */
static inline void pl_set_ser(const zdem_s2_state *s, pl_lvl *l, int32_t ser)
{
    const s2_ser *sr = &s->sers[ser];
    l->kind = PL_SER;
    l->ser = ser;
    l->nf = sr->nfields;
    l->idx = (const uint32_t *)(const void *)(s->base + sr->fields);
}

/* One operation code (0..39) through the 8-bit table, -1 when the bits
 * run out: zdem_s2_fp_read_op, inlined. */
static inline int pl_read_op(zdem_bits *br)
{
    uint16_t e;
    if (zdem_bits__fast(br)) { /* the code fits in what is left */
        e = zdem_s2_fp_lut[zdem_bits__window(br) & 0xFFu];
        if (!(e & 0x8000u)) {
            br->pos += e >> 8;
            return e & 0xFF;
        }
        return zdem_s2_fp_read_op(br);
    }
    e = zdem_s2_fp_lut[zdem_bits_peek(br, 8)];
    if (!(e & 0x8000u)) {
        unsigned len = e >> 8;
        if (len > zdem_bits_left(br)) {
            zdem_bits_skip(br, len);
            return -1;
        }
        br->pos += len;
        return e & 0xFF;
    }
    return zdem_s2_fp_read_op(br);
}

/* Valve's field-path varint (2, 4, 10, 17 or 31 bits, chosen by a
 * prefix) at the start of a window w (at most 35 bits): the value, and
 * its length in *used. */
static inline uint32_t pl_ubitvar_of(uint64_t w, unsigned *used)
{
    if (w & 1u) {
        *used = 3u;
        return (uint32_t)(w >> 1) & 3u;
    }
    if (w & 2u) {
        *used = 6u;
        return (uint32_t)(w >> 2) & 15u;
    }
    if (w & 4u) {
        *used = 13u;
        return (uint32_t)(w >> 3) & 0x3FFu;
    }
    if (w & 8u) {
        *used = 21u;
        return (uint32_t)(w >> 4) & 0x1FFFFu;
    }
    *used = 35u;
    return (uint32_t)(w >> 4) & 0x7FFFFFFFu;
}

static uint32_t pl_ubitvar(zdem_bits *br)
{
    if (zdem_bits__fast(br)) { /* prefix and value in one window */
        unsigned used;
        uint32_t v = pl_ubitvar_of(zdem_bits__window(br), &used);
        br->pos += used;
        return v;
    }
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

/* Components are int64 while decoding so that wild deltas from a hostile
 * stream cannot overflow; they are range-checked when a path is emitted.
 * low: the lowest depth changed since the last path (levels and path
 * components from there on are recomputed). */
typedef struct pl_work {
    int64_t c[ZDEM_S2_FP_MAX_DEPTH];
    int last;
    int low;
} pl_work;

static inline int pl_push(pl_work *w, int64_t v)
{
    if (w->last + 1 >= ZDEM_S2_FP_MAX_DEPTH)
        return -1;
    w->c[++w->last] = v;
    if (w->last < w->low)
        w->low = w->last;
    return 0;
}

static inline int pl_pop(pl_work *w, uint32_t n)
{
    if ((int64_t)n > (int64_t)w->last)
        return -1; /* never pop the root component */
    w->last -= (int)n;
    return 0;
}

static inline void pl_add_last(pl_work *w, int64_t v)
{
    w->c[w->last] += v;
    if (w->last < w->low)
        w->low = w->last;
}

/* mode 0: signed varint deltas; 1: 4-bit deltas - 7; 2: signed varint
 * deltas + 1 (PushNAndNonTopological). */
static void pl_non_topo(pl_work *w, zdem_bits *br, int mode)
{
    int i;
    for (i = 0; i <= w->last; i++) {
        if (zdem_bits__fast(br)) {
            /* the presence bit and a delta (at most 1 + 40 bits) in one
             * window: the reads below, without their bounds tests */
            uint64_t win = zdem_bits__window(br);
            if (!(win & 1u)) {
                br->pos += 1u;
            } else if (mode == 1) {
                w->c[i] += (int64_t)((win >> 1) & 15u) - 7;
                br->pos += 5u;
            } else {
                unsigned used;
                uint32_t v = zdem_bits_varuint32_of(win >> 1, &used);
                if (used)
                    br->pos += 1u + used;
                else /* as zdem_bits_read_varuint32 */
                    v = zdem_bits__varint_malformed(br);
                w->c[i] += (int64_t)zdem_zigzag32(v) + (mode == 2);
            }
            continue;
        }
        if (zdem_bits_read(br, 1)) {
            if (mode == 1)
                w->c[i] += (int64_t)zdem_bits_read(br, 4) - 7;
            else
                w->c[i] += (int64_t)zdem_bits_read_varint32(br) + (mode == 2);
        }
    }
    w->low = 0;
}

/* One operation other than PlusOne (the caller's fast path) applied to w;
 * returns 0, 1 after FieldPathEncodeFinish, or a zdem_status < 0 as
 * -(status) with the error filled. */
static int pl_apply_op(pl_work *w, zdem_bits *br, int op, zdem_error *err)
{
    int bad = 0;
    uint32_t k, i;
    switch (op) {
    case ZDEM_S2_FP_PLUSONE: pl_add_last(w, 1); break;
    case ZDEM_S2_FP_PLUSTWO: pl_add_last(w, 2); break;
    case ZDEM_S2_FP_PLUSTHREE: pl_add_last(w, 3); break;
    case ZDEM_S2_FP_PLUSFOUR: pl_add_last(w, 4); break;
    case ZDEM_S2_FP_PLUSN: pl_add_last(w, (int64_t)pl_ubitvar(br) + 5); break;
    case ZDEM_S2_FP_PUSHONELEFTDELTAZERORIGHTZERO:
        bad |= pl_push(w, 0);
        break;
    case ZDEM_S2_FP_PUSHONELEFTDELTAZERORIGHTNONZERO:
        bad |= pl_push(w, pl_ubitvar(br));
        break;
    case ZDEM_S2_FP_PUSHONELEFTDELTAONERIGHTZERO:
        pl_add_last(w, 1);
        bad |= pl_push(w, 0);
        break;
    case ZDEM_S2_FP_PUSHONELEFTDELTAONERIGHTNONZERO:
        pl_add_last(w, 1);
        bad |= pl_push(w, pl_ubitvar(br));
        break;
    case ZDEM_S2_FP_PUSHONELEFTDELTANRIGHTZERO:
        pl_add_last(w, pl_ubitvar(br));
        bad |= pl_push(w, 0);
        break;
    case ZDEM_S2_FP_PUSHONELEFTDELTANRIGHTNONZERO:
        pl_add_last(w, (int64_t)pl_ubitvar(br) + 2);
        bad |= pl_push(w, (int64_t)pl_ubitvar(br) + 1);
        break;
    case ZDEM_S2_FP_PUSHONELEFTDELTANRIGHTNONZEROPACK6BITS:
        pl_add_last(w, (int64_t)zdem_bits_read(br, 3) + 2);
        bad |= pl_push(w, (int64_t)zdem_bits_read(br, 3) + 1);
        break;
    case ZDEM_S2_FP_PUSHONELEFTDELTANRIGHTNONZEROPACK8BITS:
        pl_add_last(w, (int64_t)zdem_bits_read(br, 4) + 2);
        bad |= pl_push(w, (int64_t)zdem_bits_read(br, 4) + 1);
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
            pl_add_last(w, 1);
        else if (op == ZDEM_S2_FP_PUSHTWOLEFTDELTAN || op == ZDEM_S2_FP_PUSHTHREELEFTDELTAN)
            pl_add_last(w, (int64_t)zdem_bits_read_ubitvar(br) + 2);
        for (i = 0; i < pushes; i++)
            bad |= pl_push(w, pl_ubitvar(br));
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
            pl_add_last(w, 1);
        else if (op == ZDEM_S2_FP_PUSHTWOPACK5LEFTDELTAN || op == ZDEM_S2_FP_PUSHTHREEPACK5LEFTDELTAN)
            pl_add_last(w, (int64_t)zdem_bits_read_ubitvar(br) + 2);
        for (i = 0; i < pushes; i++)
            bad |= pl_push(w, zdem_bits_read(br, 5));
        break;
    }
    case ZDEM_S2_FP_PUSHN:
        k = zdem_bits_read_ubitvar(br);
        pl_add_last(w, zdem_bits_read_ubitvar(br));
        for (i = 0; i < k && !bad && !br->overflow; i++)
            bad |= pl_push(w, pl_ubitvar(br));
        if (i < k)
            bad = 1;
        break;
    case ZDEM_S2_FP_PUSHNANDNONTOPOLOGICAL:
        pl_non_topo(w, br, 2);
        k = zdem_bits_read_ubitvar(br);
        for (i = 0; i < k && !bad && !br->overflow; i++)
            bad |= pl_push(w, pl_ubitvar(br));
        if (i < k)
            bad = 1;
        break;
    case ZDEM_S2_FP_POPONEPLUSONE:
        bad |= pl_pop(w, 1);
        pl_add_last(w, 1);
        break;
    case ZDEM_S2_FP_POPONEPLUSN:
        bad |= pl_pop(w, 1);
        pl_add_last(w, (int64_t)pl_ubitvar(br) + 1);
        break;
    case ZDEM_S2_FP_POPALLBUTONEPLUSONE:
        w->last = 0;
        pl_add_last(w, 1);
        break;
    case ZDEM_S2_FP_POPALLBUTONEPLUSN:
        w->last = 0;
        pl_add_last(w, (int64_t)pl_ubitvar(br) + 1);
        break;
    case ZDEM_S2_FP_POPALLBUTONEPLUSNPACK3BITS:
        w->last = 0;
        pl_add_last(w, (int64_t)zdem_bits_read(br, 3) + 1);
        break;
    case ZDEM_S2_FP_POPALLBUTONEPLUSNPACK6BITS:
        w->last = 0;
        pl_add_last(w, (int64_t)zdem_bits_read(br, 6) + 1);
        break;
    case ZDEM_S2_FP_POPNPLUSONE:
        bad |= pl_pop(w, pl_ubitvar(br));
        pl_add_last(w, 1);
        break;
    case ZDEM_S2_FP_POPNPLUSN:
        bad |= pl_pop(w, pl_ubitvar(br));
        pl_add_last(w, zdem_bits_read_varint32(br));
        break;
    case ZDEM_S2_FP_POPNANDNONTOPOGRAPHICAL:
        bad |= pl_pop(w, pl_ubitvar(br));
        pl_non_topo(w, br, 0);
        break;
    case ZDEM_S2_FP_NONTOPOCOMPLEX:
        pl_non_topo(w, br, 0);
        break;
    case ZDEM_S2_FP_NONTOPOPENULTIMATEPLUSONE:
        if (w->last < 1)
            bad = 1;
        else {
            w->c[w->last - 1] += 1;
            if (w->last - 1 < w->low)
                w->low = w->last - 1;
        }
        break;
    case ZDEM_S2_FP_NONTOPOCOMPLEXPACK4BITS:
        pl_non_topo(w, br, 1);
        break;
    case ZDEM_S2_FP_FIELDPATHENCODEFINISH:
        return 1;
    default:
        zdem_fail_bits(err, ZDEM_ERR_HUFFMAN, br->pos, "unknown field-path operation");
        return -(int)ZDEM_ERR_HUFFMAN;
    }
    if (bad) {
        zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br->pos,
                       "field path deeper than 7 or popped past its root");
        return -(int)ZDEM_ERR_CORRUPT;
    }
    return 0;
}

/* Field c of the serializer at level in (PL_SER), NULL when there is
 * none. */
static inline const s2_field *pl_field(const zdem_s2_state *s, const pl_lvl *in, uint32_t c)
{
    uint32_t i;
    if (c >= in->nf || (i = in->idx[c]) >= s->nfields)
        return 0;
    return &s->fields[i];
}

/* The decoder of the path that ends with component c at level in (NULL
 * when that path names no field): the field's end decoder, set when the
 * serializers loaded with the cases of zdem_s2_resolve_ent. */
static inline const zdem_s2_fdec *pl_end_ser(const zdem_s2_state *s, const pl_lvl *in, uint32_t c)
{
    const s2_field *f = pl_field(s, in, c);
    return f ? f->u.end : 0;
}

static inline const zdem_s2_fdec *pl_end(const zdem_s2_state *s, const pl_lvl *in, uint32_t c)
{
    switch (in->kind) {
    case PL_SER: return pl_end_ser(s, in, c);
    case PL_ELEM: return in->fd;
    case PL_VTELEM: return &zdem_s2_fd_count;
    case PL_POLY: return &zdem_s2_fd_late;
    default: return 0;
    }
}

/* The level below component c at level in: what a next component means.
 * Resolved only when a deeper path needs it (pl_end alone for the last
 * component). */
static inline void pl_next(const zdem_s2_state *s, const pl_lvl *in, uint32_t c, pl_lvl *next)
{
    const s2_field *f;
    next->kind = PL_NONE;
    switch (in->kind) {
    case PL_SER:
        if (!(f = pl_field(s, in, c)))
            return;
        switch (f->model) {
        case S2_M_FIXED_ARRAY:
        case S2_M_VAR_ARRAY:
            next->kind = PL_ELEM;
            next->fd = &f->fd;
            return;
        case S2_M_FIXED_TABLE:
            if (f->npoly)
                next->kind = PL_POLY;
            else if (f->ser >= 0 && (uint32_t)f->ser < s->nsers)
                pl_set_ser(s, next, f->ser);
            return;
        case S2_M_VAR_TABLE:
            next->kind = PL_VTELEM;
            next->ser = f->ser;
            return;
        default:
            return;
        }
    case PL_VTELEM:
        if (in->ser >= 0 && (uint32_t)in->ser < s->nsers)
            pl_set_ser(s, next, in->ser);
        return;
    case PL_POLY:
        next->kind = PL_POLY;
        return;
    default:
        return;
    }
}

enum { PL_FAST_NOCODE = -2, PL_FAST_RANGE = -3 };

/* PlusOne .. PlusFour and PlusN (most operations) move only the last
 * component (depth d, level lv): a tight loop over them while 64 bits are
 * left (the code and a PlusN's operand, at most 17 + 35 bits, in one
 * window, no bounds test), each path written to out and plan. kind is
 * lv->kind, a constant where it is inlined, so that each common level
 * gets its own loop. The component starts at -1 or a checked value and
 * only grows, so the range test is one-sided; the checks are the general
 * case's, in order. Returns the operation that ended the loop (decoded,
 * *pos past it), -1 when fewer than 64 bits are left, PL_FAST_NOCODE for
 * bits that are no code, PL_FAST_RANGE for too many paths (count == cap)
 * or a component out of range. */
static inline int pl_fast(const zdem_s2_state *s, const pl_lvl *lv, const uint32_t kind,
                          const uint8_t *data, size_t *pos_io, const size_t fast_end,
                          int64_t *c_io, uint32_t *count_io, const uint32_t cap,
                          zdem_s2_fp *out, const zdem_s2_fp *cur, const int d,
                          s2_planned *plan, const uint64_t hbase, const uint64_t hk)
{
    size_t pos = *pos_io;
    int64_t c = *c_io;
    uint32_t count = *count_io;
    int op = -1;
    while (pos < fast_end) {
        uint64_t win = zdem_load_le64(data + (pos >> 3)) >> (pos & 7u);
        unsigned e = zdem_s2_fp_lut[win & 0xFFu], len = e >> 8;
        if (e & 0x8000u) {
            /* one of the three long codes (none of them moves only the
             * last component): the tree from the node the first 8 bits
             * reach, three bits a step (at most 9 more bits, well inside
             * the window) */
            unsigned used;
            op = zdem_s2_fp_long_op(e & 0xFFu, (uint32_t)(win >> 8), &used);
            pos += 8u + used;
            if (op < 0)
                op = PL_FAST_NOCODE;
            break;
        }
        if ((e & 0xFFu) > ZDEM_S2_FP_PLUSN) {
            op = (int)(e & 0xFFu);
            pos += len;
            break;
        }
        if ((e & 0xFFu) < ZDEM_S2_FP_PLUSN) {
            c += (int64_t)(e & 0xFFu) + 1;
        } else { /* PlusN: Valve's field-path varint + 5 */
            unsigned used;
            c += (int64_t)pl_ubitvar_of(win >> len, &used) + 5;
            len += used;
        }
        pos += len;
        if (count >= cap || c > ZDEM_S2_FP_MAX_INDEX) {
            op = PL_FAST_RANGE;
            break;
        }
        out[count] = *cur; /* cur->path[d] is written once the loop ends */
        out[count].path[d] = (uint16_t)c;
        plan[count].fd = kind == PL_ELEM ? lv->fd
                         : kind == PL_SER ? pl_end_ser(s, lv, (uint32_t)c)
                                          : pl_end(s, lv, (uint32_t)c);
        plan[count].h = zdem_s2_fphash_fin(hbase + (uint64_t)c * hk);
        count++;
    }
    *pos_io = pos;
    *c_io = c;
    *count_io = count;
    return op;
}

zdem_status zdem_s2_plan_read(const zdem_s2_state *s, int32_t ser, zdem_bits *br,
                              uint32_t *n, zdem_error *err)
{
    zdem_s2_fp *out = s->fps, cur;
    s2_planned *plan = s->plan;
    pl_lvl lvl[ZDEM_S2_FP_MAX_DEPTH + 1];
    /* hp[d]: the hash of components 0..d-1 (s2_fphash is linear), valid
     * where lvl is */
    uint64_t hp[ZDEM_S2_FP_MAX_DEPTH + 1];
    const s2_fphash *fph = &s->fph;
    pl_work w;
    uint32_t count = 0, cap = s->max_fps;
    int prev_last = 0;
    /* the depth whose level below was not resolved (the fast path resolves
     * only the path's end): the general case starts there at the latest */
    int unresolved = ZDEM_S2_FP_MAX_DEPTH;
    /* the read position lives in a register; br->pos is written back
     * before anything else reads br */
    const uint8_t *data = br->data;
    size_t pos = br->pos;
    const size_t fast_end = br->end >= 64u ? br->end - 63u : 0u; /* pos < fast_end: 64 bits left */
    memset(&cur, 0, sizeof cur);
    lvl[0].kind = PL_NONE;
    if (ser >= 0 && (uint32_t)ser < s->nsers)
        pl_set_ser(s, &lvl[0], ser);
    /* the path before the first is (-1) at depth 1, its level resolved
     * but not the one below: the first PlusOne takes the fast path */
    w.c[0] = -1;
    w.last = 0;
    w.low = 1;
    hp[0] = 0;
    unresolved = 0;
    cur.depth = 1;
    *n = 0;
    for (;;) {
        int op = -1, d = w.last;
        {
            /* the fast loop (pl_fast) for the last component */
            const pl_lvl *lv = &lvl[d];
            const uint32_t lv_kind = lv->kind; /* one level for the whole loop */
            const uint64_t hk = fph->k[d], hbase = hp[d] + fph->d[d + 1];
            int64_t c = w.c[d];
            uint32_t first = count;
            switch (lv_kind) { /* the loop specialised for the common levels */
            case PL_SER:
                op = pl_fast(s, lv, PL_SER, data, &pos, fast_end, &c, &count, cap, out, &cur, d,
                             plan, hbase, hk);
                break;
            case PL_ELEM:
                op = pl_fast(s, lv, PL_ELEM, data, &pos, fast_end, &c, &count, cap, out, &cur, d,
                             plan, hbase, hk);
                break;
            default:
                op = pl_fast(s, lv, PL_NONE, data, &pos, fast_end, &c, &count, cap, out, &cur, d,
                             plan, hbase, hk);
                break;
            }
            if (op < -1 || op == ZDEM_S2_FP_FIELDPATHENCODEFINISH) {
                br->pos = pos;
                if (op == ZDEM_S2_FP_FIELDPATHENCODEFINISH) { /* once an update */
                    *n = count;
                    return ZDEM_OK;
                }
                if (op == PL_FAST_NOCODE) /* not a code of the table: cannot happen */
                    return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br->pos,
                                          "field paths run past the end of the entity data");
                if (count >= cap)
                    return zdem_fail_bits(err, ZDEM_ERR_LIMIT, br->pos,
                                          "more field paths in one update than max_field_paths");
                return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br->pos,
                                      "field path component out of range");
            }
            w.c[d] = c;
            if (c >= 0) /* a path was made (c starts at -1 only before the first) */
                cur.path[d] = (uint16_t)c;
            if (count != first)
                unresolved = d; /* the level below is stale */
        }
        if (op < 0) { /* fewer than 64 bits left: one code, bounds-checked */
            br->pos = pos;
            op = pl_read_op(br);
            pos = br->pos;
            if (op < 0 || br->overflow)
                return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br->pos,
                                      "field paths run past the end of the entity data");
        }
        br->pos = pos;
        if (op <= ZDEM_S2_FP_PLUSFOUR) {
            pl_add_last(&w, op + 1);
        } else {
            int r = pl_apply_op(&w, br, op, err);
            if (r == 1) {
                *n = count;
                return ZDEM_OK;
            }
            if (r < 0)
                return (zdem_status)-r;
            if (br->overflow)
                return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br->pos,
                                      "field paths run past the end of the entity data");
            pos = br->pos;
        }
        if (count >= cap)
            return zdem_fail_bits(err, ZDEM_ERR_LIMIT, br->pos,
                                  "more field paths in one update than max_field_paths");
        /* the components changed since the last path (and the level the
         * fast path left unresolved): checked, written and resolved; a
         * shorter path clears the ones it dropped */
        d = w.low < unresolved ? w.low : unresolved;
        for (; d <= w.last; d++) {
            if (w.c[d] < 0 || w.c[d] > ZDEM_S2_FP_MAX_INDEX)
                return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br->pos,
                                      "field path component out of range");
            cur.path[d] = (uint16_t)w.c[d];
            hp[d + 1] = hp[d] + (uint64_t)w.c[d] * fph->k[d];
            if (d < w.last) /* the last one's level below stays unresolved */
                pl_next(s, &lvl[d], (uint32_t)w.c[d], &lvl[d + 1]);
        }
        unresolved = w.last;
        for (d = w.last + 1; d <= prev_last; d++)
            cur.path[d] = 0;
        prev_last = w.last;
        cur.depth = (uint8_t)(w.last + 1);
        w.low = w.last + 1;
        out[count] = cur;
        plan[count].fd = pl_end(s, &lvl[w.last], cur.path[w.last]);
        plan[count].h = zdem_s2_fphash_fin(hp[w.last + 1] + fph->d[w.last + 1]);
        count++;
    }
}
