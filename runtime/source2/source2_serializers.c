/* Serializers (CDemoSendTables -> CSVCMsg_FlattenedSerializer) and class
 * info (CDemoClassInfo). Names are copied into the arena; everything a
 * field needs for decoding is resolved here, once. */
#include "source2_state_int.h"
#ifdef S2_DEBUG
#include <stdio.h>
#include <stdlib.h>
#endif

static const zdem_s2_fdec fd_bool = {ZDEM_S2_DEC_BOOL, 0, 0, 0, {0, 0, 0, 0, 0, 0}};
static const zdem_s2_fdec fd_count = {ZDEM_S2_DEC_UVAR32, 0, 0, 0, {0, 0, 0, 0, 0, 0}};

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
    int32_t type_sym, name_sym, bit_count, flags, ser_sym, ser_ver, enc_sym;
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
}

static void note_unknown_type(zdem_s2_state *s, const char *name, size_t len)
{
    s->stats.unknown_types++;
    if (!s->stats.first_unknown_type) {
        s->stats.first_unknown_type = name;
        s->stats.first_unknown_type_len = (uint32_t)len;
    }
}

/* Sets model and decoders of f from its type string, encoder and ranges. */
static void setup_field(zdem_s2_state *s, s2_field *f, const raw_field *rf,
                        const char *enc, size_t enc_len)
{
    type_parts tp;
    zdem_s2_dec dec;
    zdem_s2_enc ek = ZDEM_S2_ENC_NONE;
    const char *tname = (const char *)s->base + f->type;
    parse_type(tname, f->type_len, &tp);
    dec = zdem_s2_type_decoder(tp.base, tp.base_len);
    if (enc && enc_len) {
        ek = zdem_s2_encoder_kind(enc, enc_len);
        if (ek == ZDEM_S2_ENC_UNKNOWN) {
            s->stats.unknown_encoders++;
            ek = ZDEM_S2_ENC_NONE;
        }
    }
    if (ek == ZDEM_S2_ENC_NONE)
        ek = zdem_s2_name_encoder((const char *)s->base + f->name, f->name_len);
    f->count = parse_bound(tp.bound, tp.bound_len);
    f->model = S2_M_SIMPLE;
    if (rf->ser_sym >= 0) {
        /* Pointers and components carry a presence bit; everything else
         * with a nested serializer (vectors, arrays of structs, and types
         * named after the field) indexes an element before the field. */
        if (!tp.pointer && dec != ZDEM_S2_DEC_POINTER) {
            f->model = S2_M_VAR_TABLE;
            f->fd = fd_count;
        } else {
            f->model = S2_M_FIXED_TABLE;
            f->fd = fd_bool;
        }
        return;
    }
    if (tp.bound_len && !(tp.base_len == 4 && memcmp(tp.base, "char", 4) == 0)) {
        f->model = S2_M_FIXED_ARRAY;
        if (!f->count)
            f->count = ZDEM_S2_FP_MAX_INDEX + 1u; /* unknown bound: any index */
    } else if (dec == ZDEM_S2_DEC_VECTOR) {
        type_parts ep;
        f->model = S2_M_VAR_ARRAY;
        parse_type(tp.arg ? tp.arg : "", tp.arg_len, &ep);
        dec = zdem_s2_type_decoder(ep.base, ep.base_len);
        if (dec == ZDEM_S2_DEC_UNKNOWN || dec == ZDEM_S2_DEC_VECTOR) {
            note_unknown_type(s, ep.base, ep.base_len);
            f->unknown = 1;
            dec = ZDEM_S2_DEC_UNKNOWN;
        }
    }
    if (dec == ZDEM_S2_DEC_UNKNOWN && !f->unknown) {
        note_unknown_type(s, tp.base, tp.base_len);
        f->unknown = 1;
    }
    if (zdem_s2_fdec_setup(&f->fd, dec, ek, rf->bit_count, rf->low, rf->high,
                           rf->flags))
        s->stats.unknown_encoders++;
}

static uint32_t hash_u64(uint64_t k)
{
    k *= 0x9E3779B97F4A7C15ull;
    return (uint32_t)(k >> 32);
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
    off = s2_alloc(s, v.len + 1u);
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
    f->ser_sym = rf.ser_sym;
    f->ser_ver = rf.ser_ver;
    if (rf.npoly > 1 && rf.ser_sym >= 0) {
        /* Polymorphic pointer: remember the candidates' (symbol, version)
         * pairs; resolved to serializers once all are loaded. */
        zdem_pb_ProtoFlattenedSerializerField_t again;
        zdem_status st;
        f->poly = s2_alloc(s, (size_t)rf.npoly * 8u);
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
    setup_field(s, f, &rf,
                SYM_OK(rf.enc_sym) ? (const char *)s->base + syms[rf.enc_sym].off : 0,
                SYM_OK(rf.enc_sym) ? syms[rf.enc_sym].len : 0);
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
        c->idx = (uint32_t *)(void *)s2_alloc_peek(c->s, &avail);
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
    if (cnt && cnt > c->room) /* would not fit: s2_alloc would refuse it too */
        return zdem_fail(c->err, ZDEM_ERR_NO_SPACE, 0, "arena too small for serializers");
    sr->fields = s2_alloc(s, (size_t)cnt * 4u + 4u);
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

static zdem_status load_flattened(zdem_s2_state *s, const uint8_t *p, size_t n,
                                  zdem_error *err)
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
    uint32_t syms_off, hash_off = 0, hash_cap = 0;

    memset(&c, 0, sizeof c);
    c.s = s;
    c.err = err;
    if ((st = zdem_pb_CSVCMsg_FlattenedSerializer_decode(p, n, &m, &count_cb, &c, err)) != ZDEM_OK)
        return st;
    nser = c.nser;
    nfld = c.nfld;

    syms_off = s2_alloc(s, (size_t)c.nsym * sizeof(s2_sym) + 8u);
    s->fields = (s2_field *)s2_ptr(s, s2_alloc(s, (size_t)nfld * sizeof(s2_field) + 8u));
    s->sers = (s2_ser *)s2_ptr(s, s2_alloc(s, (size_t)nser * sizeof(s2_ser) + 8u));
    if (!syms_off || !s->fields || !s->sers)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for serializers");
    c.syms = (s2_sym *)s2_ptr(s, syms_off);

    if ((st = zdem_pb_CSVCMsg_FlattenedSerializer_decode(p, n, &m, &sym_cb, &c, err)) != ZDEM_OK)
        return st;
    /* fields and serializers, in the order they come */
    if ((st = zdem_pb_CSVCMsg_FlattenedSerializer_decode(p, n, &m, &load_cb, &c, err)) != ZDEM_OK)
        return st;
    fi = c.fi;
    si = c.si;
    s->nfields = fi;
    s->nsers = si;

    /* Nested serializers: (name symbol, version) -> index via a temporary
     * open-addressing table. */
    hash_cap = 16;
    while (hash_cap < nser * 2u + 2u)
        hash_cap <<= 1;
    hash_off = s2_pool_alloc(s, (size_t)hash_cap * 4u);
    if (!hash_off)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for serializer lookup");
    {
        uint32_t *h = (uint32_t *)s2_ptr(s, hash_off);
        memset(h, 0xFF, (size_t)hash_cap * 4u);
        for (i = 0; i < si; i++) {
            uint64_t key = ((uint64_t)(uint32_t)s->sers[i].name_sym << 32) | (uint32_t)s->sers[i].version;
            uint32_t j = hash_u64(key) & (hash_cap - 1u);
            while (h[j] != 0xFFFFFFFFu)
                j = (j + 1u) & (hash_cap - 1u);
            h[j] = i;
        }
        for (i = 0; i < fi; i++) {
            s2_field *f = &s->fields[i];
            uint64_t key;
            uint32_t j;
            if (f->ser_sym < 0)
                continue;
            key = ((uint64_t)(uint32_t)f->ser_sym << 32) | (uint32_t)f->ser_ver;
            j = hash_u64(key) & (hash_cap - 1u);
            while (h[j] != 0xFFFFFFFFu) {
                const s2_ser *c = &s->sers[h[j]];
                if (c->name_sym == f->ser_sym && c->version == f->ser_ver) {
                    f->ser = (int32_t)h[j];
                    break;
                }
                j = (j + 1u) & (hash_cap - 1u);
            }
            if (f->npoly) {
                /* candidates: (sym, version) pairs -> serializer indexes,
                 * packed in place as one int32 each */
                int32_t *pp = (int32_t *)s2_ptr(s, f->poly);
                uint32_t q;
                for (q = 0; q < f->npoly; q++) {
                    uint64_t pk = ((uint64_t)(uint32_t)pp[2 * q] << 32) | (uint32_t)pp[2 * q + 1];
                    uint32_t pj = hash_u64(pk) & (hash_cap - 1u);
                    int32_t found = -1;
                    while (h[pj] != 0xFFFFFFFFu) {
                        const s2_ser *c = &s->sers[h[pj]];
                        if (c->name_sym == pp[2 * q] && c->version == pp[2 * q + 1]) {
                            found = (int32_t)h[pj];
                            break;
                        }
                        pj = (pj + 1u) & (hash_cap - 1u);
                    }
                    pp[q] = found;
#ifdef S2_DEBUG
                    if (getenv("S2_POLY"))
                        fprintf(stderr, "poly %.*s cand %u sym %d ver %d -> %d\n", f->name_len, s->base + f->name, q, pp[2 * q], pp[2 * q + 1], found);
#endif
                }
                f->fd.abits = 1; /* pointer reads a type index */
            }
            if (f->ser < 0) {
                /* Nested serializer missing: keep the field readable as a
                 * present bit, report it. */
                note_unknown_type(s, (const char *)s->base + f->type, f->type_len);
                f->unknown = 1;
            }
        }
        s2_pool_free(s, hash_off, (size_t)hash_cap * 4u);
    }
    /* distinct names (several versions of one name count once) */
    {
        uint32_t *h2;
        uint32_t off2 = s2_pool_alloc(s, (size_t)hash_cap * 4u);
        s->nser_names = si;
        if (off2) {
            h2 = (uint32_t *)s2_ptr(s, off2);
            memset(h2, 0xFF, (size_t)hash_cap * 4u);
            s->nser_names = 0;
            for (i = 0; i < si; i++) {
                uint32_t j = hash_u64((uint64_t)(uint32_t)s->sers[i].name_sym) & (hash_cap - 1u);
                while (h2[j] != 0xFFFFFFFFu && s->sers[h2[j]].name_sym != s->sers[i].name_sym)
                    j = (j + 1u) & (hash_cap - 1u);
                if (h2[j] == 0xFFFFFFFFu) {
                    h2[j] = i;
                    s->nser_names++;
                }
            }
            s2_pool_free(s, off2, (size_t)hash_cap * 4u);
        }
    }
    s->stats.serializers = si;
    s->stats.fields = fi;
    s->have_sendtables = 1;
    return ZDEM_OK;
}

zdem_status s2_ser_load(zdem_s2_state *s, const uint8_t *msg, size_t n,
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

static int32_t find_serializer(const zdem_s2_state *s, const uint8_t *name,
                               uint32_t len)
{
    uint32_t i;
    int32_t best = -1;
    for (i = 0; i < s->nsers; i++) {
        const s2_ser *sr = &s->sers[i];
        if (sr->name_len == len && memcmp(s->base + sr->name, name, len) == 0) {
            if (best < 0 || sr->version > s->sers[best].version)
                best = (int32_t)i;
        }
    }
    return best;
}

typedef struct ci_ctx {
    zdem_s2_state *s;
    zdem_error *err;
    uint32_t maxid;  /* class ids 0..maxid-1 */
    uint32_t *hash;  /* serializer by name (in s->tmp), NULL: linear search */
    uint32_t hcap;
} ci_ctx;

static uint32_t name_hash(const uint8_t *p, uint32_t n)
{
    uint32_t h = 2166136261u, i;
    for (i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

/* Class names -> serializers is classes x serializers string compares;
 * an open-addressing table in the string-table scratch (free while class
 * info loads, so the arena does not grow) makes it one probe each. */
static void ci_hash_build(zdem_s2_state *s, ci_ctx *c)
{
    uint32_t cap = 16, i;
    c->hash = 0;
    if (!s->nsers || !s->tmp)
        return;
    while (cap < s->nsers * 2u + 2u)
        cap <<= 1;
    if ((size_t)cap * 4u > s->tmp_size)
        return;
    c->hash = (uint32_t *)(void *)s->tmp;
    c->hcap = cap;
    memset(c->hash, 0xFF, (size_t)cap * 4u);
    for (i = 0; i < s->nsers; i++) {
        const s2_ser *sr = &s->sers[i];
        uint32_t j = name_hash(s->base + sr->name, sr->name_len) & (cap - 1u);
        for (;; j = (j + 1u) & (cap - 1u)) {
            const s2_ser *o;
            if (c->hash[j] == 0xFFFFFFFFu) {
                c->hash[j] = i;
                break;
            }
            o = &s->sers[c->hash[j]];
            if (o->name_len == sr->name_len &&
                memcmp(s->base + o->name, s->base + sr->name, sr->name_len) == 0) {
                /* as find_serializer: the first of the highest version */
                if (sr->version > o->version)
                    c->hash[j] = i;
                break;
            }
        }
    }
}

static int32_t ci_find(const zdem_s2_state *s, const ci_ctx *c, const uint8_t *name,
                       uint32_t len)
{
    uint32_t j;
    if (!c->hash)
        return find_serializer(s, name, len);
    for (j = name_hash(name, len) & (c->hcap - 1u); c->hash[j] != 0xFFFFFFFFu;
         j = (j + 1u) & (c->hcap - 1u)) {
        const s2_ser *o = &s->sers[c->hash[j]];
        if (o->name_len == len && memcmp(s->base + o->name, name, len) == 0)
            return (int32_t)c->hash[j];
    }
    return -1;
}

static zdem_status ci_max(void *user, const zdem_pb_CDemoClassInfo_class_t *m, zdem_view raw)
{
    ci_ctx *c = (ci_ctx *)user;
    (void)raw;
    if (m->has_class_id && m->class_id >= 0 && m->class_id < 65536 &&
        (uint32_t)m->class_id + 1u > c->maxid)
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
    off = s2_alloc(s, name_len + 1u);
    if (!off)
        return zdem_fail(c->err, ZDEM_ERR_NO_SPACE, 0, "arena too small for class names");
    memcpy(s->base + off, m->network_name.ptr, name_len);
    s->base[off + name_len] = 0;
    k->name = off;
    k->name_len = (uint16_t)(name_len > 0xFFFFu ? 0xFFFFu : name_len);
    k->ser = ci_find(s, c, m->network_name.ptr, name_len);
    s->nclass_names++;
    return ZDEM_OK;
}

zdem_status s2_classinfo(zdem_s2_state *s, const uint8_t *msg, size_t n,
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
    c.hash = 0;
    c.hcap = 0;
    if ((st = zdem_pb_CDemoClassInfo_decode(msg, n, &m, &max_cb, &c, err)) != ZDEM_OK)
        return st;
    maxid = c.maxid;
    s->classes = (s2_class *)s2_ptr(s, s2_alloc(s, (size_t)maxid * sizeof(s2_class) + 8u));
    if (!s->classes)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for classes");
    memset(s->classes, 0, (size_t)maxid * sizeof(s2_class));
    for (i = 0; i < maxid; i++)
        s->classes[i].ser = -1;
    s->nclasses = maxid;
    ci_hash_build(s, &c);
    if ((st = zdem_pb_CDemoClassInfo_decode(msg, n, &m, &add_cb, &c, err)) != ZDEM_OK)
        return st;
    s->stats.classes = s->nclass_names;
    if (!s->class_bits) {
        uint32_t b = 0;
        while ((1u << b) <= maxid && b < 31u)
            b++;
        s->class_bits = b ? b : 1u;
    }
    s->baseline_dirty = 1;
    return ZDEM_OK;
}

static const zdem_s2_fdec fd_poly = {ZDEM_S2_DEC_POINTER, 0, 0, 1, {0, 0, 0, 0, 0, 0}};

const zdem_s2_fdec *s2_resolve(const zdem_s2_state *s, int32_t ser,
                               const zdem_s2_fp *fp)
{
    return s2_resolve_ent(s, ser, fp, 0);
}

const zdem_s2_fdec *s2_resolve_ent(const zdem_s2_state *s, int32_t ser,
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
        switch (f->model) {
        case S2_M_SIMPLE:
            return rem == 0 ? &f->fd : 0;
        case S2_M_FIXED_ARRAY:
            return rem == 1 ? &f->fd : 0;
        case S2_M_VAR_ARRAY:
            if (rem == 0)
                return &fd_count;
            return rem == 1 ? &f->fd : 0;
        case S2_M_FIXED_TABLE:
            if (rem == 0)
                return f->npoly ? &fd_poly : &fd_bool;
            ser = f->ser;
            if (f->npoly) {
                /* the pointer's stored value picks the serializer */
                uint64_t v = 0;
                /* stored as 1 + type index; index 0 is the declared
                 * serializer, k >= 1 the k-th polymorphic candidate */
                if (e && s2_ent_raw(s, e, fp, pos + 1u, &v) && v >= 2u && v - 2u < f->npoly)
                    ser = ((const int32_t *)(s->base + f->poly))[v - 2u];
            }
            pos += 1;
            break;
        case S2_M_VAR_TABLE:
            if (rem <= 1)
                return &fd_count;
            ser = f->ser;
            pos += 2;
            break;
        default:
            return 0;
        }
    }
    return 0;
}
