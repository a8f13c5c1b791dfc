/* Serializers (CDemoSendTables -> CSVCMsg_FlattenedSerializer) and class
 * info (CDemoClassInfo). Names are copied into the arena; everything a
 * field needs for decoding is resolved here, once. */
#include "source2_state_int.h"
#include "zdem_sort.h"
#ifdef S2_DEBUG
#include <stdio.h>
#include <stdlib.h>
#endif

const zdem_s2_fdec zdem_s2_fd_bool = {ZDEM_S2_DEC_BOOL, 0, 0, 0, {0, 0, 0, 0, 0, 0}};
const zdem_s2_fdec zdem_s2_fd_count = {ZDEM_S2_DEC_UVAR32, 0, 0, 0, {0, 0, 0, 0, 0, 0}};
/* a polymorphic pointer reads a type index after its present bit */
const zdem_s2_fdec zdem_s2_fd_poly = {ZDEM_S2_DEC_POINTER, 0, 0, 1, {0, 0, 0, 0, 0, 0}};

typedef struct s2_sym {
    uint32_t off;
    uint32_t len;
} s2_sym;

typedef struct type_parts {
    const char *base;
    size_t base_len;
    const char *arg; /* template argument */
    size_t arg_len;
    const char *bound; /* array bound text */
    size_t bound_len;
    int pointer;
} type_parts;

static int is_space(char c)
{
    return c == ' ' || c == '\t';
}

static void trim(const char **p, size_t *n)
{
    while (*n && is_space(**p)) {
        (*p)++;
        (*n)--;
    }
    while (*n && is_space((*p)[*n - 1]))
        (*n)--;
}

static void parse_type(const char *t, size_t n, type_parts *tp)
{
    size_t i;
    memset(tp, 0, sizeof *tp);
    trim(&t, &n);
    if (n && t[n - 1] == '*') {
        tp->pointer = 1;
        n--;
        trim(&t, &n);
    }
    if (n && t[n - 1] == ']') {
        for (i = n; i-- > 0;) {
            if (t[i] == '[') {
                tp->bound = t + i + 1;
                tp->bound_len = n - i - 2;
                trim(&tp->bound, &tp->bound_len);
                n = i;
                trim(&t, &n);
                break;
            }
        }
    }
    for (i = 0; i < n; i++) {
        if (t[i] == '<') {
            size_t j = n;
            while (j > i && t[j - 1] != '>')
                j--;
            tp->base = t;
            tp->base_len = i;
            trim(&tp->base, &tp->base_len);
            if (j > i + 1) {
                tp->arg = t + i + 1;
                tp->arg_len = j - i - 2;
                trim(&tp->arg, &tp->arg_len);
            }
            return;
        }
    }
    tp->base = t;
    tp->base_len = n;
}

static uint32_t parse_bound(const char *b, size_t n)
{
    uint32_t v = 0;
    size_t i;
    if (!n)
        return 0;
    for (i = 0; i < n; i++) {
        if (b[i] < '0' || b[i] > '9')
            return zdem_s2_array_size(b, n);
        v = v * 10u + (uint32_t)(b[i] - '0');
        if (v > 0xFFFFFu)
            return 0;
    }
    return v;
}

typedef struct raw_field {
    int32_t type_sym, name_sym, bit_count, flags, ser_sym, ser_ver, enc_sym, vser_sym;
    float low, high;
    uint32_t npoly;
} raw_field;

static void raw_from(const zdem_pb_ProtoFlattenedSerializerField_t *m, raw_field *f)
{
    memset(f, 0, sizeof *f);
    f->type_sym = m->var_type_sym;
    f->name_sym = m->var_name_sym;
    f->bit_count = m->bit_count;
    f->low = m->low_value;
    f->high = m->high_value;
    f->flags = m->encode_flags;
    /* proto2 defaults: an omitted symbol field means symbol 0, but an
     * omitted serializer or encoder means none */
    f->ser_sym = m->has_field_serializer_name_sym ? m->field_serializer_name_sym : -1;
    f->ser_ver = m->field_serializer_version;
    f->enc_sym = m->has_var_encoder_sym ? m->var_encoder_sym : -1;
    f->vser_sym = m->has_var_serializer_sym ? m->var_serializer_sym : -1;
}

static void note_unknown_type(zdem_s2_state *s, const char *name, size_t len)
{
    zdem_s2_warn_msg(s, ZDEM_S2_W_UNKNOWN_TYPES, "field type not in the type table: generic decoder");
    if (!s->stats.first_unknown_type) {
        s->stats.first_unknown_type = name;
        s->stats.first_unknown_type_len = (uint32_t)len;
    }
}

/* What a field's type string says, whatever the field: fields of the same
 * type symbol share it (a type comes back ~9 times in a list). Offsets are
 * from the type string; -1 is the "" an absent template argument reads as. */
typedef struct type_info {
    int32_t sym;   /* type symbol it was made for, -1 none */
    uint32_t count; /* array bound, 0 = none or unknown */
    int32_t boff, eoff; /* base name, element (template argument) base name */
    uint16_t blen, elen;
    uint8_t dec;   /* base decoder */
    uint8_t edec;  /* vectors: element decoder, ZDEM_S2_DEC_UNKNOWN if unusable */
    uint8_t flags;
} type_info;

enum { TI_POINTER = 1, TI_BOUND = 2, TI_CHAR = 4 };

#define S2_TYPE_MEMO 32u /* direct-mapped by type symbol, on the stack */

static void type_info_of(const char *t, size_t n, type_info *ti)
{
    type_parts tp;
    parse_type(t, n, &tp);
    ti->dec = (uint8_t)zdem_s2_type_decoder(tp.base, tp.base_len);
    ti->count = parse_bound(tp.bound, tp.bound_len);
    ti->flags = (uint8_t)((tp.pointer ? TI_POINTER : 0) | (tp.bound_len ? TI_BOUND : 0) |
                          (tp.base_len == 4 && memcmp(tp.base, "char", 4) == 0 ? TI_CHAR : 0));
    ti->boff = (int32_t)(tp.base - t);
    ti->blen = (uint16_t)tp.base_len;
    ti->eoff = -1;
    ti->elen = 0;
    ti->edec = ZDEM_S2_DEC_UNKNOWN;
    if (ti->dec == ZDEM_S2_DEC_VECTOR) {
        type_parts ep;
        zdem_s2_dec d;
        parse_type(tp.arg ? tp.arg : "", tp.arg_len, &ep);
        d = zdem_s2_type_decoder(ep.base, ep.base_len);
        ti->edec = (uint8_t)(d == ZDEM_S2_DEC_VECTOR ? ZDEM_S2_DEC_UNKNOWN : d);
        ti->eoff = tp.arg ? (int32_t)(ep.base - t) : -1;
        ti->elen = (uint16_t)ep.base_len;
    }
}

/* Sets model and decoders of f from its type (ti, for the type string at
 * tname), encoder, var_serializer and ranges. */
static void setup_field(zdem_s2_state *s, s2_field *f, const raw_field *rf, const type_info *ti,
                        const char *tname, const char *enc, size_t enc_len,
                        const char *vser, size_t vser_len)
{
    zdem_s2_dec dec;
    zdem_s2_enc ek = ZDEM_S2_ENC_NONE;
    dec = (zdem_s2_dec)ti->dec;
    if (enc && enc_len) {
        ek = zdem_s2_encoder_kind(enc, enc_len);
        if (ek == ZDEM_S2_ENC_UNKNOWN) {
            zdem_s2_warn_msg(s, ZDEM_S2_W_UNKNOWN_ENCODERS, "unknown field encoder: default decoder");
            ek = ZDEM_S2_ENC_NONE;
        }
    }
    /* The var_serializer can change the wire form too (CS2 sends clips as
     * value + 1, unsigned, under a signed declared type). */
    if (ek == ZDEM_S2_ENC_NONE && vser && vser_len) {
        ek = zdem_s2_var_serializer_kind(vser, vser_len);
        if (ek == ZDEM_S2_ENC_UNKNOWN) {
            zdem_s2_warn_msg(s, ZDEM_S2_W_UNKNOWN_ENCODERS, "unknown field var_serializer: read as its type");
            ek = ZDEM_S2_ENC_NONE;
        }
    }
    if (ek == ZDEM_S2_ENC_NONE)
        ek = zdem_s2_name_encoder((const char *)s->base + f->name, f->name_len);
    f->count = ti->count;
    f->model = S2_M_SIMPLE;
    if (rf->ser_sym >= 0) {
        /* Pointers and components carry a presence bit; everything else
         * with a nested serializer (vectors, arrays of structs, and types
         * named after the field) indexes an element before the field. */
        if (!(ti->flags & TI_POINTER) && dec != ZDEM_S2_DEC_POINTER) {
            f->model = S2_M_VAR_TABLE;
            f->fd = zdem_s2_fd_count;
        } else {
            f->model = S2_M_FIXED_TABLE;
            f->fd = zdem_s2_fd_bool;
        }
        return;
    }
    if ((ti->flags & TI_BOUND) && !(ti->flags & TI_CHAR)) {
        f->model = S2_M_FIXED_ARRAY;
        if (!f->count)
            f->count = ZDEM_S2_FP_MAX_INDEX + 1u; /* unknown bound: any index */
    } else if (dec == ZDEM_S2_DEC_VECTOR) {
        f->model = S2_M_VAR_ARRAY;
        dec = (zdem_s2_dec)ti->edec;
        if (dec == ZDEM_S2_DEC_UNKNOWN) {
            note_unknown_type(s, ti->eoff < 0 ? "" : tname + ti->eoff, ti->elen);
            f->unknown = 1;
        }
    }
    if (dec == ZDEM_S2_DEC_UNKNOWN && !f->unknown) {
        note_unknown_type(s, tname + ti->boff, ti->blen);
        f->unknown = 1;
    }
    if (zdem_s2_fdec_setup(&f->fd, dec, ek, rf->bit_count, rf->low, rf->high,
                           rf->flags))
        zdem_s2_warn_msg(s, ZDEM_S2_W_UNKNOWN_ENCODERS,
                    "quantized float parameters unusable: its bits read over [0, 1]");
}

/* CSVCMsg_FlattenedSerializer is read in three passes over the generated
 * decoder (count, symbols, fields and serializers), so every array is
 * allocated once at its final size. */
typedef struct fs_ctx {
    zdem_s2_state *s;
    zdem_error *err;
    s2_sym *syms;
    uint32_t nsym, nfld, nser; /* pass 1 counts */
    uint32_t symi, fi, si;     /* next slot to fill */
    uint32_t npoly;  /* polymorphic candidates of the field being decoded */
    s2_field *f;     /* field whose candidates are being stored */
    int32_t *pp;
    uint32_t pmax;
    uint32_t *idx;   /* field indexes of the serializer being loaded */
    uint32_t cnt, room;
    int open;        /* fs_idx has started the current serializer */
    uint64_t sym_bytes; /* the quick way: every symbol and its NUL */
    uint8_t *sym_at;    /* the quick way: where the next symbol goes */
    type_info memo[S2_TYPE_MEMO];
} fs_ctx;

static zdem_status fs_count_ser(void *user, const zdem_pb_ProtoFlattenedSerializer_t *m,
                                zdem_view raw)
{
    (void)m;
    (void)raw;
    ((fs_ctx *)user)->nser++;
    return ZDEM_OK;
}

static zdem_status fs_count_sym(void *user, zdem_view v)
{
    (void)v;
    ((fs_ctx *)user)->nsym++;
    return ZDEM_OK;
}

static zdem_status fs_count_fld(void *user, const zdem_pb_ProtoFlattenedSerializerField_t *m,
                                zdem_view raw)
{
    (void)m;
    (void)raw;
    ((fs_ctx *)user)->nfld++;
    return ZDEM_OK;
}

static zdem_status fs_sym(void *user, zdem_view v)
{
    fs_ctx *c = (fs_ctx *)user;
    zdem_s2_state *s = c->s;
    uint32_t off;
    if (c->symi >= c->nsym)
        return ZDEM_OK;
    off = zdem_s2_alloc(s, v.len + 1u);
    if (!off)
        return zdem_fail(c->err, ZDEM_ERR_NO_SPACE, 0, "arena too small for serializer symbols");
    memcpy(s->base + off, v.ptr, v.len);
    s->base[off + v.len] = 0;
    c->syms[c->symi].off = off;
    c->syms[c->symi].len = v.len;
    c->symi++;
    return ZDEM_OK;
}

static zdem_status fs_count_poly(void *user,
                                 const zdem_pb_ProtoFlattenedSerializerField_t_polymorphic_field_t *m,
                                 zdem_view raw)
{
    (void)m;
    (void)raw;
    ((fs_ctx *)user)->npoly++;
    return ZDEM_OK;
}

static zdem_status fs_poly(void *user,
                           const zdem_pb_ProtoFlattenedSerializerField_t_polymorphic_field_t *m,
                           zdem_view raw)
{
    fs_ctx *c = (fs_ctx *)user;
    (void)raw;
    if (c->f->npoly >= c->pmax)
        return ZDEM_OK;
    c->pp[2 * c->f->npoly] = m->has_polymorphic_field_serializer_name_sym
                                 ? m->polymorphic_field_serializer_name_sym : -1;
    c->pp[2 * c->f->npoly + 1] = m->polymorphic_field_serializer_version;
    c->f->npoly++;
    return ZDEM_OK;
}

#define SYM_OK(x) ((x) >= 0 && (uint32_t)(x) < c->nsym)

static zdem_status fs_field(void *user, const zdem_pb_ProtoFlattenedSerializerField_t *m,
                            zdem_view raw)
{
    static const zdem_pb_ProtoFlattenedSerializerField_t_cb poly_cb = {fs_poly};
    fs_ctx *c = (fs_ctx *)user;
    zdem_s2_state *s = c->s;
    const s2_sym *syms = c->syms;
    raw_field rf;
    s2_field *f;
    raw_from(m, &rf);
    rf.npoly = c->npoly; /* counted while this field decoded */
    c->npoly = 0;
    if (c->fi >= c->nfld)
        return ZDEM_OK;
    f = &s->fields[c->fi++];
    memset(f, 0, sizeof *f);
    f->ser = -1;
    if (SYM_OK(rf.name_sym)) {
        f->name = syms[rf.name_sym].off;
        f->name_len = (uint16_t)(syms[rf.name_sym].len > 0xFFFFu ? 0xFFFFu : syms[rf.name_sym].len);
    }
    if (SYM_OK(rf.type_sym)) {
        f->type = syms[rf.type_sym].off;
        f->type_len = (uint16_t)(syms[rf.type_sym].len > 0xFFFFu ? 0xFFFFu : syms[rf.type_sym].len);
    } else {
        f->type = f->name; /* no type: decodes as unknown */
        f->type_len = 0;
    }
    if (!SYM_OK(rf.ser_sym))
        rf.ser_sym = -1;
    f->u.ld.ser_sym = rf.ser_sym;
    f->u.ld.ser_ver = rf.ser_ver;
    if (rf.npoly > 1 && rf.ser_sym >= 0) {
        /* Polymorphic pointer: remember the candidates' (symbol, version)
         * pairs; resolved to serializers once all are loaded. */
        zdem_pb_ProtoFlattenedSerializerField_t again;
        zdem_status st;
        f->poly = zdem_s2_alloc(s, (size_t)rf.npoly * 8u);
        if (!f->poly)
            return zdem_fail(c->err, ZDEM_ERR_NO_SPACE, 0, "arena too small for serializers");
        c->f = f;
        c->pp = (int32_t *)s2_ptr(s, f->poly);
        c->pmax = rf.npoly;
        st = zdem_pb_ProtoFlattenedSerializerField_t_decode(raw.ptr, raw.len, &again, &poly_cb, c,
                                                            c->err);
        if (st != ZDEM_OK)
            return st;
    }
    {
        const char *tname = (const char *)s->base + f->type;
        type_info one, *ti = &one;
        if (rf.type_sym >= 0 && (uint32_t)rf.type_sym < c->nsym) {
            ti = &c->memo[(uint32_t)rf.type_sym % S2_TYPE_MEMO];
            if (ti->sym != rf.type_sym) {
                type_info_of(tname, f->type_len, ti);
                ti->sym = rf.type_sym;
            }
        } else {
            type_info_of(tname, f->type_len, ti);
        }
        setup_field(s, f, &rf, ti, tname,
                SYM_OK(rf.enc_sym) ? (const char *)s->base + syms[rf.enc_sym].off : 0,
                SYM_OK(rf.enc_sym) ? syms[rf.enc_sym].len : 0,
                SYM_OK(rf.vser_sym) ? (const char *)s->base + syms[rf.vser_sym].off : 0,
                SYM_OK(rf.vser_sym) ? syms[rf.vser_sym].len : 0);
    }
    return ZDEM_OK;
}

/* Field indexes (packed or not) go straight into the free arena as they
 * decode, in one pass; fs_ser, called right after its serializer's last
 * index, allocates them there at the exact size. */
static zdem_status fs_idx(void *user, int32_t v)
{
    fs_ctx *c = (fs_ctx *)user;
    if (!c->open) {
        size_t avail;
        c->idx = (uint32_t *)(void *)zdem_s2_alloc_peek(c->s, &avail);
        /* one spare slot is allocated past the indexes */
        c->room = avail >= 4u ? (uint32_t)((avail - 4u) / 4u > 0xFFFFFFFu ? 0xFFFFFFFu
                                                                       : (avail - 4u) / 4u)
                              : 0u;
        c->cnt = 0;
        c->open = 1;
    }
    if (c->cnt < c->room)
        c->idx[c->cnt] = (uint32_t)v;
    c->cnt++;
    return ZDEM_OK;
}

static zdem_status fs_ser(void *user, const zdem_pb_ProtoFlattenedSerializer_t *m,
                          zdem_view raw)
{
    fs_ctx *c = (fs_ctx *)user;
    zdem_s2_state *s = c->s;
    uint32_t i, cnt = c->open ? c->cnt : 0u;
    s2_ser *sr;
    (void)raw;
    c->open = 0;
    if (c->si >= c->nser)
        return ZDEM_OK;
    sr = &s->sers[c->si++];
    memset(sr, 0, sizeof *sr);
    sr->name_sym = m->has_serializer_name_sym ? m->serializer_name_sym : -1;
    sr->version = m->serializer_version;
    if (cnt && cnt > c->room) /* would not fit: zdem_s2_alloc would refuse it too */
        return zdem_fail(c->err, ZDEM_ERR_NO_SPACE, 0, "arena too small for serializers");
    sr->fields = zdem_s2_alloc(s, (size_t)cnt * 4u + 4u);
    if (!sr->fields)
        return zdem_fail(c->err, ZDEM_ERR_NO_SPACE, 0, "arena too small for serializers");
    c->idx = (uint32_t *)s2_ptr(s, sr->fields); /* where fs_idx put them */
    sr->nfields = cnt;
    /* An index past the field list would be hostile: clamp it out. */
    for (i = 0; i < sr->nfields; i++)
        if (c->idx[i] >= c->nfld)
            c->idx[i] = 0xFFFFFFFFu;
    if (SYM_OK(sr->name_sym)) {
        sr->name = c->syms[sr->name_sym].off;
        sr->name_len = (uint16_t)(c->syms[sr->name_sym].len > 0xFFFFu ? 0xFFFFu
                                                                    : c->syms[sr->name_sym].len);
    }
    return ZDEM_OK;
}

#undef SYM_OK

/* Serializer order by (name symbol, version), then position. */
static int cmp_ser_key(const void *ctx, uint32_t a, uint32_t b)
{
    const zdem_s2_state *s = (const zdem_s2_state *)ctx;
    const s2_ser *x = &s->sers[a], *y = &s->sers[b];
    if (x->name_sym != y->name_sym)
        return x->name_sym < y->name_sym ? -1 : 1;
    if (x->version != y->version)
        return x->version < y->version ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* The first serializer with this key, or -1 (binary search). */
static int32_t find_ser_key(const zdem_s2_state *s, const uint32_t *order, uint32_t n,
                            int32_t sym, int32_t ver)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        const s2_ser *m = &s->sers[order[mid]];
        if (m->name_sym < sym || (m->name_sym == sym && m->version < ver))
            lo = mid + 1u;
        else
            hi = mid;
    }
    if (lo < n && s->sers[order[lo]].name_sym == sym && s->sers[order[lo]].version == ver)
        return (int32_t)order[lo];
    return -1;
}

static int cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    if (c)
        return c;
    return an < bn ? -1 : an > bn;
}

#define S2_NONE 0xFFFFFFFFu
#define S2_CHAIN_MAX 32u  /* serializers of one name symbol walked per lookup */
#define S2_SER_PROBES 32u /* probe bound of the name table */

/* The first serializer with this key in the chain of its symbol (one of
 * the symbols), or -1. */
static int32_t chain_find(const zdem_s2_state *s, const s2_sym *chain, const uint32_t *next,
                          int32_t sym, int32_t ver)
{
    uint32_t k;
    for (k = chain[sym].off; k != S2_NONE; k = next[k])
        if (s->sers[k].version == ver)
            return (int32_t)k;
    return -1;
}

static int same_name(const zdem_s2_state *s, const s2_ser *m, const uint8_t *name, size_t len)
{
    return m->name_len == len && memcmp(s->base + m->name, name, len) == 0;
}

/* Name hash for the table: FNV-1a from the state's seed, spread by a
 * multiply (small code; a crafted set of colliding names only sends the
 * lookups to the sorted index, see ser_hash_load). */
static uint32_t name_slot(const zdem_s2_state *s, const uint8_t *p, size_t n, unsigned log2)
{
    uint32_t h = 2166136261u ^ (uint32_t)s->seed ^ (uint32_t)(s->seed >> 32);
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return (uint32_t)((h * 0x9E3779B1u) >> (32u - log2));
}

/* The name table of 2^log2 slots, log2 the largest that fits in words;
 * 0 when a name needs more than S2_SER_PROBES probes. */
static int ser_hash_load(zdem_s2_state *s, uint32_t *tab, uint32_t words)
{
    unsigned log2 = 1;
    uint32_t mask, i, names = 0;
    while (log2 < 31u && ((uint32_t)2u << log2) <= words)
        log2++;
    mask = ((uint32_t)1u << log2) - 1u;
    for (i = 0; i <= mask; i++)
        tab[i] = S2_NONE;
    for (i = 0; i < s->nsers; i++) {
        const s2_ser *m = &s->sers[i];
        const uint8_t *name = s->base + m->name;
        uint32_t slot = name_slot(s, name, m->name_len, log2), probe;
        for (probe = 0;; probe++) {
            uint32_t cur = tab[slot];
            if (probe >= S2_SER_PROBES)
                return 0;
            if (cur == S2_NONE) {
                tab[slot] = i;
                names++;
                break;
            }
            if (same_name(s, &s->sers[cur], name, m->name_len)) {
                if (m->version > s->sers[cur].version)
                    tab[slot] = i;
                break;
            }
            slot = (slot + 1u) & mask;
        }
    }
    s->ser_hash = tab;
    s->ser_hash_log2 = (uint8_t)log2;
    s->nser_names = names;
    return 1;
}

static int cmp_names(const zdem_s2_state *s, uint32_t a, uint32_t b)
{
    const s2_ser *x = &s->sers[a], *y = &s->sers[b];
    return cmp_bytes(s->base + x->name, x->name_len, s->base + y->name, y->name_len);
}

/* Serializer order by name, highest version first, then position. */
static int cmp_ser_name(const void *ctx, uint32_t a, uint32_t b)
{
    const zdem_s2_state *s = (const zdem_s2_state *)ctx;
    int c = cmp_names(s, a, b);
    if (c)
        return c;
    if (s->sers[a].version != s->sers[b].version)
        return s->sers[a].version > s->sers[b].version ? -1 : 1;
    return a < b ? -1 : a > b;
}

typedef struct fld_sort_ctx {
    const zdem_s2_state *s;
    const uint32_t *idx; /* the serializer's field indexes */
} fld_sort_ctx;

static const s2_field *ser_field_at(const zdem_s2_state *s, const uint32_t *idx, uint32_t k)
{
    return idx[k] < s->nfields ? &s->fields[idx[k]] : 0;
}

/* A serializer's field positions by name, then position. */
static int cmp_field_name(const void *ctx, uint32_t a, uint32_t b)
{
    const fld_sort_ctx *c = (const fld_sort_ctx *)ctx;
    const s2_field *x = ser_field_at(c->s, c->idx, a), *y = ser_field_at(c->s, c->idx, b);
    int r;
    if (!x || !y)
        r = x ? -1 : y ? 1 : 0;
    else
        r = cmp_bytes(c->s->base + x->name, x->name_len, c->s->base + y->name, y->name_len);
    if (r)
        return r;
    return a < b ? -1 : a > b;
}

/* A serializer's fields sorted by name, built on its first lookup by name
 * (most serializers never get one: sorting them all at load would cost
 * more than the whole demo). The queries are const for their callers; this
 * cache lives in the arena the state owns, so writing it is sound (and a
 * state is not to be queried from two threads at once). */
static const uint32_t *fields_by_name(const zdem_s2_state *cs, int32_t ser)
{
    zdem_s2_state *s = (zdem_s2_state *)(uintptr_t)cs;
    s2_ser *sr = &s->sers[ser];
    uint32_t *bn, k;
    fld_sort_ctx fc;
    if (sr->by_name)
        return (const uint32_t *)s2_ptr(s, sr->by_name);
    sr->by_name = zdem_s2_alloc(s, (size_t)sr->nfields * 4u + 4u);
    if (!sr->by_name)
        return 0;
    bn = (uint32_t *)s2_ptr(s, sr->by_name);
    for (k = 0; k < sr->nfields; k++)
        bn[k] = k;
    fc.s = s;
    fc.idx = (const uint32_t *)(s->base + sr->fields);
    zdem_sort_u32(bn, sr->nfields, cmp_field_name, &fc);
    return bn;
}

int32_t zdem_s2_ser_field(const zdem_s2_state *s, int32_t ser, const char *name, size_t len)
{
    const s2_ser *sr;
    const uint32_t *bn, *idx;
    uint32_t lo = 0, hi;
    if (ser < 0 || (uint32_t)ser >= s->nsers)
        return -1;
    sr = &s->sers[ser];
    idx = (const uint32_t *)(s->base + sr->fields);
    bn = fields_by_name(s, ser);
    if (!bn) { /* arena full: a scan still answers */
        uint32_t k;
        for (k = 0; k < sr->nfields; k++) {
            const s2_field *f = ser_field_at(s, idx, k);
            if (f && f->name_len == len && memcmp(s->base + f->name, name, len) == 0)
                return (int32_t)k;
        }
        return -1;
    }
    hi = sr->nfields;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        const s2_field *f = ser_field_at(s, idx, bn[mid]);
        if (f && cmp_bytes(s->base + f->name, f->name_len, (const uint8_t *)name, len) < 0)
            lo = mid + 1u;
        else
            hi = mid;
    }
    if (lo < sr->nfields) {
        const s2_field *f = ser_field_at(s, idx, bn[lo]);
        if (f && f->name_len == len && memcmp(s->base + f->name, name, len) == 0)
            return (int32_t)bn[lo];
    }
    return -1;
}

/* The counts of the first pass from the message's own framing, without
 * decoding the fields and serializers inside: -1 when the framing does not
 * read (the full counting pass then finds the fault). */
/* The next field of a CSVCMsg_FlattenedSerializer at *q (p: the message):
 * 1 for a serializer, symbol or field (key 10, 18, 26; v its bytes), 0
 * for another field (skipped), -1 when the framing does not read or a
 * known field has the wrong wire type. count_framing and quick_walk read
 * the message through it. */
static inline int fs_next(const uint8_t *p, const uint8_t **q, const uint8_t *end,
                          uint32_t *key, zdem_view *v, zdem_error *e)
{
    const uint8_t *key_at = *q;
    uint32_t len;
    if (zdem_pb_key(p, q, end, key, e) != ZDEM_OK)
        return -1;
    if (*key != 10u && *key != 18u && *key != 26u)
        return (*key >> 3) <= 3u || zdem_pb_skip(p, key_at, q, end, *key & 7u, e) != ZDEM_OK
                   ? -1 : 0;
    if (zdem_pb_len(q, end, &len) != ZDEM_OK)
        return -1;
    v->ptr = *q;
    v->len = len;
    *q += len;
    return 1;
}

static int count_framing(const uint8_t *p, size_t n, fs_ctx *c)
{
    const uint8_t *q = p, *end = p + n;
    zdem_error e;
    zdem_error_clear(&e);
    while (q < end) {
        uint32_t key;
        zdem_view v;
        int r = fs_next(p, &q, end, &key, &v, &e);
        if (r < 0)
            return -1;
        if (r == 0)
            continue;
        if (key == 10u) {
            c->nser++;
        } else if (key == 18u) {
            c->nsym++;
            c->sym_bytes += (uint64_t)v.len + 1u;
        } else {
            c->nfld++;
        }
    }
    return 0;
}

/* ---- the quick way ------------------------------------------------------
 * Loads what the generated decoder loads, for a message whose framing
 * count_framing has read: symbols in one walk, then fields (through the
 * generated field decoder) and serializers (read here, their field indexes
 * straight into the arena) in another. Anything unusual (a bad varint, a
 * known field of the wrong wire type, no room) gives up: load_flattened
 * then puts everything back and the careful way speaks. */

static zdem_status give_up(fs_ctx *c)
{
    return zdem_fail(c->err, ZDEM_ERR_CORRUPT, 0, "serializers: quick read gave up");
}

/* One varint of a ProtoFlattenedSerializer_t, truncated to 32 bits as the
 * generated decoder does; 0 when it does not read. */
static int quick_varint(const uint8_t **q, const uint8_t *end, uint32_t *out)
{
    uint64_t v;
    if (*q < end && **q < 0x80u) {
        *out = **q;
        (*q)++;
        return 1;
    }
    if (zdem_varuint64(q, end, &v) != ZDEM_OK)
        return 0;
    *out = (uint32_t)v;
    return 1;
}

/* A ProtoFlattenedSerializer_t: what fs_idx and fs_ser do, with the
 * indexes decoded in a loop of their own instead of a call each. */
static zdem_status quick_ser(fs_ctx *c, const uint8_t *p, uint32_t n)
{
    zdem_s2_state *s = c->s;
    const uint8_t *q = p, *end = p + n;
    uint32_t *idx, cnt = 0, room, nfld = c->nfld, name_sym = 0, version = 0, x;
    int has_name = 0;
    size_t avail;
    s2_ser *sr;
    zdem_error e;
    zdem_error_clear(&e);
    idx = (uint32_t *)(void *)zdem_s2_alloc_peek(s, &avail);
    /* one spare slot is allocated past the indexes, as fs_idx counts */
    room = avail >= 4u ? (uint32_t)((avail - 4u) / 4u > 0xFFFFFFFu ? 0xFFFFFFFu : (avail - 4u) / 4u)
                       : 0u;
    while (q < end) {
        const uint8_t *key_at = q;
        uint32_t key, len;
        if (zdem_pb_key(p, &q, end, &key, &e) != ZDEM_OK)
            return give_up(c);
        switch (key) {
        case 8u: /* serializer_name_sym */
            if (!quick_varint(&q, end, &name_sym))
                return give_up(c);
            has_name = 1;
            break;
        case 16u: /* serializer_version */
            if (!quick_varint(&q, end, &version))
                return give_up(c);
            break;
        case 24u: { /* fields_index, not packed: a run of them read here */
            int at_value = 1;
            /* While at least 3 bytes are left (a 2-byte value and the
             * next key) and there is room for every index they can hold
             * (one per 2 bytes, and this one), the run goes without those
             * checks; a longer value leaves it to the checked loop. */
            if (end - q >= 3 && (size_t)(room - cnt) > (size_t)(end - q) / 2u) {
                const uint8_t *lim = end - 3;
                for (;;) {
                    uint32_t b0 = q[0];
                    if (b0 < 0x80u) {
                        x = b0;
                        q += 1;
                    } else if (q[1] < 0x80u) {
                        x = (b0 & 0x7Fu) | ((uint32_t)q[1] << 7);
                        q += 2;
                    } else {
                        break;
                    }
                    idx[cnt++] = x < nfld ? x : 0xFFFFFFFFu; /* past the list: hostile */
                    if (q > lim || *q != 24u) {
                        at_value = 0;
                        break;
                    }
                    q++;
                }
            }
            if (!at_value) {
                if (q >= end || *q != 24u)
                    break; /* the run is over */
                q++;
            }
            do {
                if (!quick_varint(&q, end, &x) || cnt >= room)
                    return give_up(c);
                idx[cnt++] = x < nfld ? x : 0xFFFFFFFFu;
            } while (q < end && *q == 24u && ++q);
            break;
        }
        case 26u: { /* fields_index, packed */
            const uint8_t *r, *rend;
            if (zdem_pb_len(&q, end, &len) != ZDEM_OK)
                return give_up(c);
            r = q;
            rend = q + len;
            q = rend;
            while (r < rend) {
                if (!quick_varint(&r, rend, &x) || cnt >= room)
                    return give_up(c);
                idx[cnt++] = x < nfld ? x : 0xFFFFFFFFu;
            }
            break;
        }
        default:
            if ((key >> 3) <= 3u ||
                zdem_pb_skip(p, key_at, &q, end, key & 7u, &e) != ZDEM_OK)
                return give_up(c);
            break;
        }
    }
    if (c->si >= c->nser)
        return give_up(c);
    sr = &s->sers[c->si++];
    memset(sr, 0, sizeof *sr);
    sr->name_sym = has_name ? (int32_t)name_sym : -1;
    sr->version = (int32_t)version;
    sr->fields = zdem_s2_alloc(s, (size_t)cnt * 4u + 4u); /* where the indexes are */
    if (!sr->fields)
        return give_up(c);
    sr->nfields = cnt;
    if (sr->name_sym >= 0 && (uint32_t)sr->name_sym < c->nsym) {
        sr->name = c->syms[sr->name_sym].off;
        sr->name_len = (uint16_t)(c->syms[sr->name_sym].len > 0xFFFFu ? 0xFFFFu
                                                                    : c->syms[sr->name_sym].len);
    }
    return ZDEM_OK;
}

/* Walks the top level (framing already read): symbols when !load, else
 * fields and serializers, in the order they come. */
static zdem_status quick_walk(fs_ctx *c, const uint8_t *p, size_t n, int load)
{
    static const zdem_pb_ProtoFlattenedSerializerField_t_cb poly_count_cb = {fs_count_poly};
    const uint8_t *q = p, *end = p + n;
    zdem_error e;
    zdem_error_clear(&e);
    while (q < end) {
        uint32_t key, len;
        zdem_status st = ZDEM_OK;
        zdem_view v;
        int r = fs_next(p, &q, end, &key, &v, &e);
        if (r < 0)
            return give_up(c);
        if (r == 0)
            continue;
        len = v.len;
        if (!load) {
            if (key == 18u && c->symi < c->nsym) {
                /* into the block allocated for all of them */
                memcpy(c->sym_at, v.ptr, len);
                c->sym_at[len] = 0;
                c->syms[c->symi].off = (uint32_t)(c->sym_at - c->s->base);
                c->syms[c->symi].len = len;
                c->symi++;
                c->sym_at += len + 1u;
            }
        } else if (key == 10u) {
            st = quick_ser(c, v.ptr, len);
        } else if (key == 26u) {
            zdem_pb_ProtoFlattenedSerializerField_t m;
            c->npoly = 0;
            if (zdem_pb_ProtoFlattenedSerializerField_t_decode(v.ptr, len, &m, &poly_count_cb, c,
                                                               &e) != ZDEM_OK)
                return give_up(c);
            st = fs_field(c, &m, v);
        }
        if (st != ZDEM_OK)
            return st;
    }
    return ZDEM_OK;
}

static zdem_status load_flattened_passes(zdem_s2_state *s, const uint8_t *p, size_t n,
                                         int quick, int *early, zdem_error *err);

/* The decoder of a path that ends at field f, set once its nested
 * serializer is known (s2_field.u.end; the entity reader runs only once
 * the serializers have loaded). */
static const zdem_s2_fdec *field_end(const s2_field *f)
{
    switch (f->model) {
    case S2_M_SIMPLE: return &f->fd;
    case S2_M_VAR_ARRAY: return &zdem_s2_fd_count;
    case S2_M_FIXED_TABLE: return f->npoly ? &zdem_s2_fd_poly : &zdem_s2_fd_bool;
    case S2_M_VAR_TABLE: return &zdem_s2_fd_count;
    default: return 0;
    }
}

/* The serializers are counted from the framing alone, then loaded; the
 * fields and serializers are decoded once. Only a message that fails to
 * load is read again the careful way (counted by a full decode first, as
 * before): the arena (and its peak), warnings and statistics are put back
 * as they were, so the fault, and everything else, is reported exactly as
 * that way reports it. */
static zdem_status load_flattened(zdem_s2_state *s, const uint8_t *p, size_t n,
                                  zdem_error *err)
{
    size_t used = s->used, peak = s->peak;
    s2_field *fields = s->fields;
    s2_ser *sers = s->sers;
    zdem_s2_warnings warn = s->warn;
    zdem_s2_stats stats = s->stats;
    zdem_error e;
    zdem_status st;
    int early = 1;
    zdem_error_clear(&e);
    st = load_flattened_passes(s, p, n, 1, &early, &e);
    if (st == ZDEM_OK)
        return ZDEM_OK;
    if (!early) /* past the decoding: the same steps as the careful way */
        return e.offset_is_bits ? zdem_fail_bits(err, st, e.offset, e.msg)
                                : zdem_fail(err, st, e.offset, e.msg);
    s->used = used;
    s->peak = peak; /* what this load needs is what the careful way needs */
    s->fields = fields;
    s->sers = sers;
    s->warn = warn;
    s->stats = stats;
    return load_flattened_passes(s, p, n, 0, &early, err);
}

static zdem_status load_flattened_passes(zdem_s2_state *s, const uint8_t *p, size_t n,
                                         int quick, int *early, zdem_error *err)
{
    static const zdem_pb_CSVCMsg_FlattenedSerializer_cb count_cb = {
        fs_count_ser, NULL, fs_count_sym, fs_count_fld, NULL};
    static const zdem_pb_CSVCMsg_FlattenedSerializer_cb sym_cb = {
        NULL, NULL, fs_sym, NULL, NULL};
    static const zdem_pb_ProtoFlattenedSerializerField_t_cb poly_count_cb = {fs_count_poly};
    static const zdem_pb_ProtoFlattenedSerializer_t_cb idx_cb = {fs_idx};
    static const zdem_pb_CSVCMsg_FlattenedSerializer_cb load_cb = {
        fs_ser, &idx_cb, NULL, fs_field, &poly_count_cb};
    zdem_pb_CSVCMsg_FlattenedSerializer m;
    fs_ctx c;
    zdem_status st;
    uint32_t i, si, fi, nser, nfld;
    uint32_t syms_off, idx_off;

    memset(&c, 0, sizeof c);
    c.s = s;
    c.err = err;
    for (i = 0; i < S2_TYPE_MEMO; i++)
        c.memo[i].sym = -1;
    if (quick) {
        if (count_framing(p, n, &c) < 0)
            return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "serializer framing");
    } else if ((st = zdem_pb_CSVCMsg_FlattenedSerializer_decode(p, n, &m, &count_cb, &c, err)) !=
               ZDEM_OK) {
        return st;
    }
    nser = c.nser;
    nfld = c.nfld;

    syms_off = zdem_s2_alloc(s, (size_t)c.nsym * sizeof(s2_sym) + 8u);
    s->fields = (s2_field *)s2_ptr(s, zdem_s2_alloc(s, (size_t)nfld * sizeof(s2_field) + 8u));
    s->sers = (s2_ser *)s2_ptr(s, zdem_s2_alloc(s, (size_t)nser * sizeof(s2_ser) + 8u));
    if (!syms_off || !s->fields || !s->sers)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for serializers");
    c.syms = (s2_sym *)s2_ptr(s, syms_off);

    if (quick) {
        /* the symbols in one block (the careful way allocates each) */
        uint32_t off = c.sym_bytes < 0xFFFFFFF0u ? zdem_s2_alloc(s, (size_t)c.sym_bytes) : 0u;
        if (!off && c.sym_bytes)
            return give_up(&c);
        c.sym_at = s->base + off;
        if ((st = quick_walk(&c, p, n, 0)) != ZDEM_OK || (st = quick_walk(&c, p, n, 1)) != ZDEM_OK)
            return st;
    } else {
        if ((st = zdem_pb_CSVCMsg_FlattenedSerializer_decode(p, n, &m, &sym_cb, &c, err)) != ZDEM_OK)
            return st;
        /* fields and serializers, in the order they come */
        if ((st = zdem_pb_CSVCMsg_FlattenedSerializer_decode(p, n, &m, &load_cb, &c, err)) != ZDEM_OK)
            return st;
    }
    *early = 0;
    fi = c.fi;
    si = c.si;
    s->nfields = fi;
    s->nsers = si;

    /* Nested serializers: (name symbol, version) -> index, the first of
     * equal keys. The serializers of each symbol are chained in position
     * order (next in order[], head and length in the symbol array, dead now
     * that every name is copied); a chain past S2_CHAIN_MAX, which only a
     * crafted list makes, sends the lookups through a sorted index instead
     * (same answers, and a crafted list cannot make it slow). */
    idx_off = zdem_s2_pool_alloc(s, (size_t)si * 4u + 4u);
    if (!idx_off)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for serializer lookup");
    {
        uint32_t *order = (uint32_t *)s2_ptr(s, idx_off);
        s2_sym *chain = c.syms;
        int chained = 1;
        for (i = 0; i < c.nsym; i++) {
            chain[i].off = S2_NONE;
            chain[i].len = 0;
        }
        for (i = si; i-- > 0;) {
            int32_t sym = s->sers[i].name_sym;
            order[i] = S2_NONE;
            if (sym < 0 || (uint32_t)sym >= c.nsym)
                continue; /* no field names it */
            order[i] = chain[sym].off;
            chain[sym].off = i;
            if (++chain[sym].len > S2_CHAIN_MAX)
                chained = 0;
        }
        /* a candidate's symbol is not checked: one outside the symbols
         * can still name a serializer (whose symbol is not checked either) */
        for (i = 0; i < fi && chained; i++) {
            const s2_field *f = &s->fields[i];
            const int32_t *pp = (const int32_t *)s2_ptr(s, f->poly);
            uint32_t q;
            for (q = 0; q < f->npoly && chained; q++)
                if (pp[2 * q] < 0 || (uint32_t)pp[2 * q] >= c.nsym)
                    chained = 0;
        }
        if (!chained) {
            for (i = 0; i < si; i++)
                order[i] = i;
            zdem_sort_u32(order, si, cmp_ser_key, s);
        }
        for (i = 0; i < fi; i++) {
            s2_field *f = &s->fields[i];
            if (f->u.ld.ser_sym >= 0) {
                f->ser = chained ? chain_find(s, chain, order, f->u.ld.ser_sym, f->u.ld.ser_ver)
                                 : find_ser_key(s, order, si, f->u.ld.ser_sym, f->u.ld.ser_ver);
                if (f->npoly) {
                    /* candidates: (sym, version) pairs -> serializer indexes,
                     * packed in place as one int32 each */
                    int32_t *pp = (int32_t *)s2_ptr(s, f->poly);
                    uint32_t q;
                    for (q = 0; q < f->npoly; q++)
                        pp[q] = chained ? chain_find(s, chain, order, pp[2 * q], pp[2 * q + 1])
                                        : find_ser_key(s, order, si, pp[2 * q], pp[2 * q + 1]);
                    f->fd.abits = 1; /* pointer reads a type index */
                }
                if (f->ser < 0) {
                    /* Nested serializer missing: keep the field readable as a
                     * present bit, report it. */
                    note_unknown_type(s, (const char *)s->base + f->type, f->type_len);
                    f->unknown = 1;
                }
            }
            f->u.end = field_end(f); /* the loading words are dead now */
        }
        zdem_s2_pool_free(s, idx_off, (size_t)si * 4u + 4u);
    }
    /* By name, for class info: the best serializer of each distinct name
     * (highest version, then first) in a hash table over the symbol array
     * (dead again: 2 * nsym + 2 words); when it does not load within the
     * probe bound, all of them sorted by name, highest version first, the
     * distinct names the runs of it. */
    s->ser_hash = 0;
    s->ser_by_name = 0;
    if (!ser_hash_load(s, (uint32_t *)(void *)c.syms, 2u * c.nsym + 2u)) {
        s->ser_hash = 0;
        s->ser_by_name = (uint32_t *)s2_ptr(s, zdem_s2_alloc(s, (size_t)si * 4u + 4u));
        if (!s->ser_by_name)
            return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for serializer lookup");
        for (i = 0; i < si; i++)
            s->ser_by_name[i] = i;
        zdem_sort_u32(s->ser_by_name, si, cmp_ser_name, s);
        s->nser_names = 0;
        for (i = 0; i < si; i++)
            if (i == 0 || cmp_names(s, s->ser_by_name[i - 1], s->ser_by_name[i]) != 0)
                s->nser_names++;
    }
    s->stats.serializers = si;
    s->stats.fields = fi;
    s->have_sendtables = 1;
    return ZDEM_OK;
}

zdem_status zdem_s2_ser_load(zdem_s2_state *s, const uint8_t *msg, size_t n,
                        zdem_error *err)
{
    zdem_pb_CDemoSendTables m;
    zdem_status st;
    const uint8_t *q, *qe;
    uint32_t len;
    if (s->have_sendtables)
        return ZDEM_OK; /* one set per demo; later copies are ignored */
    if ((st = zdem_pb_CDemoSendTables_decode(msg, n, &m, NULL, NULL, err)) != ZDEM_OK)
        return st;
    if (!m.has_data)
        return ZDEM_OK;
    /* data is a varint length, then the CSVCMsg_FlattenedSerializer */
    q = m.data.ptr;
    qe = q + m.data.len;
    if (zdem_varuint32(&q, qe, &len) != ZDEM_OK || len > (size_t)(qe - q))
        return zdem_fail(err, ZDEM_ERR_BAD_LENGTH, (uint64_t)(q - msg),
                         "bad length prefix in CDemoSendTables");
    return load_flattened(s, q, len, err);
}

typedef struct ci_ctx {
    zdem_s2_state *s;
    zdem_error *err;
    uint32_t maxid;  /* class ids 0..maxid-1 */
    int over;        /* a class id past the limit was seen */
} ci_ctx;

/* Class names -> serializers: the name table, or a binary search in the
 * serializers sorted by name (the first of a name is its highest version). */
static int32_t ci_find(const zdem_s2_state *s, const uint8_t *name, uint32_t len)
{
    uint32_t lo = 0, hi = s->ser_by_name ? s->nsers : 0;
    if (s->ser_hash) {
        /* every name went in within the probe bound: a miss ends there */
        uint32_t mask = ((uint32_t)1u << s->ser_hash_log2) - 1u, probe;
        uint32_t slot = name_slot(s, name, len, s->ser_hash_log2);
        for (probe = 0; probe < S2_SER_PROBES; probe++) {
            uint32_t cur = s->ser_hash[slot];
            if (cur == S2_NONE)
                return -1;
            if (same_name(s, &s->sers[cur], name, len))
                return (int32_t)cur;
            slot = (slot + 1u) & mask;
        }
        return -1;
    }
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        const s2_ser *m = &s->sers[s->ser_by_name[mid]];
        if (cmp_bytes(s->base + m->name, m->name_len, name, len) < 0)
            lo = mid + 1u;
        else
            hi = mid;
    }
    if (lo < (s->ser_by_name ? s->nsers : 0)) {
        const s2_ser *m = &s->sers[s->ser_by_name[lo]];
        if (m->name_len == len && memcmp(s->base + m->name, name, len) == 0)
            return (int32_t)s->ser_by_name[lo];
    }
    return -1;
}

/* Class ids index a dense array: ids past this are reported, not kept. */
#define S2_CLASS_ID_LIMIT 65536

static zdem_status ci_max(void *user, const zdem_pb_CDemoClassInfo_class_t *m, zdem_view raw)
{
    ci_ctx *c = (ci_ctx *)user;
    (void)raw;
    if (m->has_class_id && (m->class_id < 0 || m->class_id >= S2_CLASS_ID_LIMIT))
        c->over = 1;
    else if (m->has_class_id && (uint32_t)m->class_id + 1u > c->maxid)
        c->maxid = (uint32_t)m->class_id + 1u;
    return ZDEM_OK;
}

static zdem_status ci_add(void *user, const zdem_pb_CDemoClassInfo_class_t *m, zdem_view raw)
{
    ci_ctx *c = (ci_ctx *)user;
    zdem_s2_state *s = c->s;
    s2_class *k;
    uint32_t off, name_len = m->network_name.len;
    (void)raw;
    if (!m->has_class_id || m->class_id < 0 || (uint32_t)m->class_id >= c->maxid ||
        !m->has_network_name)
        return ZDEM_OK;
    k = &s->classes[m->class_id];
    off = zdem_s2_alloc(s, name_len + 1u);
    if (!off)
        return zdem_fail(c->err, ZDEM_ERR_NO_SPACE, 0, "arena too small for class names");
    memcpy(s->base + off, m->network_name.ptr, name_len);
    s->base[off + name_len] = 0;
    k->name = off;
    k->name_len = (uint16_t)(name_len > 0xFFFFu ? 0xFFFFu : name_len);
    k->ser = ci_find(s, m->network_name.ptr, name_len);
    s->nclass_names++;
    return ZDEM_OK;
}

zdem_status zdem_s2_classinfo(zdem_s2_state *s, const uint8_t *msg, size_t n,
                         zdem_error *err)
{
    static const zdem_pb_CDemoClassInfo_cb max_cb = {ci_max};
    static const zdem_pb_CDemoClassInfo_cb add_cb = {ci_add};
    zdem_pb_CDemoClassInfo m;
    ci_ctx c;
    zdem_status st;
    uint32_t maxid, i;
    if (s->classes)
        return ZDEM_OK; /* first one wins */
    c.s = s;
    c.err = err;
    c.maxid = 0;
    c.over = 0;
    if ((st = zdem_pb_CDemoClassInfo_decode(msg, n, &m, &max_cb, &c, err)) != ZDEM_OK)
        return st;
    if (c.over)
        zdem_s2_warn_msg(s, ZDEM_S2_W_UNKNOWN_CLASSES, "class id outside 0..65535: class not kept");
    maxid = c.maxid;
    s->classes = (s2_class *)s2_ptr(s, zdem_s2_alloc(s, (size_t)maxid * sizeof(s2_class) + 8u));
    if (!s->classes)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for classes");
    memset(s->classes, 0, (size_t)maxid * sizeof(s2_class));
    for (i = 0; i < maxid; i++)
        s->classes[i].ser = -1;
    s->nclasses = maxid;
    if ((st = zdem_pb_CDemoClassInfo_decode(msg, n, &m, &add_cb, &c, err)) != ZDEM_OK)
        return st;
    s->stats.classes = s->nclass_names;
    if (!s->class_bits) {
        uint32_t b = 0;
        while ((1u << b) <= maxid && b < 31u)
            b++;
        s->class_bits = b ? b : 1u;
    }
    zdem_s2_st_map_baselines(s); /* tables that came first */
    return ZDEM_OK;
}

const zdem_s2_fdec *zdem_s2_resolve_ent(const zdem_s2_state *s, int32_t ser,
                                   const zdem_s2_fp *fp, const s2_ent *e)
{
    unsigned pos = 0;
    while (ser >= 0 && (uint32_t)ser < s->nsers) {
        const s2_ser *sr = &s->sers[ser];
        const uint32_t *idx = (const uint32_t *)(s->base + sr->fields);
        const s2_field *f;
        unsigned rem;
        uint32_t i;
        if (pos >= fp->depth)
            return 0;
        i = fp->path[pos];
        if (i >= sr->nfields || idx[i] >= s->nfields)
            return 0;
        f = &s->fields[idx[i]];
        rem = fp->depth - pos - 1u;
        if (rem == 0) /* the path ends at this field */
            return f->u.end;
        switch (f->model) {
        case S2_M_FIXED_ARRAY:
        case S2_M_VAR_ARRAY:
            return rem == 1 ? &f->fd : 0;
        case S2_M_FIXED_TABLE:
            ser = f->ser;
            if (f->npoly) {
                /* the pointer's stored value picks the serializer */
                uint64_t v = 0;
                /* stored as 1 + type index; index 0 is the declared
                 * serializer, k >= 1 the k-th polymorphic candidate */
                if (e && zdem_s2_ent_raw(s, e, fp, pos + 1u, &v) && v >= 2u && v - 2u < f->npoly)
                    ser = ((const int32_t *)(s->base + f->poly))[v - 2u];
            }
            pos += 1;
            break;
        case S2_M_VAR_TABLE:
            if (rem == 1)
                return &zdem_s2_fd_count;
            ser = f->ser;
            pos += 2;
            break;
        default:
            return 0;
        }
    }
    return 0;
}
