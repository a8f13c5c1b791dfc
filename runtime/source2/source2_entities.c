/* Entities: CSVCMsg_PacketEntities (create / update / leave / delete),
 * class baselines from instancebaseline, field-path driven delta decoding.
 *
 * Each entity's values live in its own open-addressing hash table (a pool
 * block of 2^k slots keyed by the packed field path), so memory follows
 * the fields actually set, and a delete returns the block. A class
 * baseline is decoded once into a table of its own, shared (refcounted)
 * by the entities created from it: a create costs what its own fields
 * cost. Live entities are kept in a list, so a full snapshot costs what
 * its entities cost, not the entity limit. */
#include "source2_state_int.h"
#include "zdem_sort.h"
#include "source2_fieldwords.h"

/* ---- keys --------------------------------------------------------------- */

/* The key of a path: components 0..3 in hi, 16 bits each from the lowest;
 * components 4..6 and the depth in lo from bit 8, so that lo's low byte
 * is free for the slot flags and lo is never 0. On a little-endian machine
 * that is the path's own 16 bytes (the last one shifted out): two loads
 * where the values are stored. */
void zdem_s2_fp_pack(const zdem_s2_fp *fp, uint64_t *hi, uint64_t *lo)
{
    const uint16_t *p = fp->path;
    unsigned d = fp->depth <= ZDEM_S2_FP_MAX_DEPTH ? fp->depth : ZDEM_S2_FP_MAX_DEPTH;
    uint64_t h = (uint64_t)p[0] | (uint64_t)p[1] << 16 | (uint64_t)p[2] << 32 | (uint64_t)p[3] << 48;
    uint64_t l = (uint64_t)p[4] | (uint64_t)p[5] << 16 | (uint64_t)p[6] << 32;
    /* components past the depth read as 0, whatever the array holds there:
     * whole words kept or cleared by masks, no loop */
    if (d < 4u) {
        h &= ~(~(uint64_t)0 << (16u * d));
        l = 0;
    } else {
        l &= ~(~(uint64_t)0 << (16u * (d - 4u)));
    }
    *hi = h;
    *lo = (l | (uint64_t)d << 48) << 8;
}

void zdem_s2_fp_unpack(uint64_t hi, uint64_t lo, zdem_s2_fp *fp)
{
    unsigned i;
    memset(fp, 0, sizeof *fp);
    fp->depth = (uint8_t)((lo >> 56) & 7u);
    for (i = 0; i < ZDEM_S2_FP_MAX_DEPTH && i < fp->depth; i++)
        fp->path[i] = (uint16_t)((i < 4 ? hi >> (16u * i) : lo >> (8u + 16u * (i - 4u))) & 0xFFFFu);
}

/* zdem_s2_fp_pack for a path whose components past its depth are 0, as
 * the plan reader writes them: no masks. On a little-endian machine the
 * key is the path's own bytes (path[0..3]; path[4..6] and depth, the byte
 * after them shifted out): two loads (the test folds to a constant). */
static inline void fp_pack_clean(const zdem_s2_fp *fp, uint64_t *hi, uint64_t *lo)
{
    static const uint16_t one = 1;
    const uint16_t *p = fp->path;
    if (offsetof(zdem_s2_fp, path) == 0 && offsetof(zdem_s2_fp, depth) == 14u &&
        sizeof *fp == 16u && *(const uint8_t *)&one) {
        uint64_t w;
        memcpy(hi, fp, 8);
        memcpy(&w, (const uint8_t *)fp + 8, 8);
        *lo = w << 8;
        return;
    }
    *hi = (uint64_t)p[0] | (uint64_t)p[1] << 16 | (uint64_t)p[2] << 32 | (uint64_t)p[3] << 48;
    *lo = ((uint64_t)p[4] | (uint64_t)p[5] << 16 | (uint64_t)p[6] << 32 |
           (uint64_t)fp->depth << 48) << 8;
}

/* ---- value tables --------------------------------------------------------- */

static s2_slot *vt_slots(const zdem_s2_state *s, const s2_vtab *v)
{
    return v->tab ? (s2_slot *)(void *)(s->base + v->tab) : 0;
}

void zdem_s2_fphash_init(s2_fphash *h, uint64_t seed)
{
    unsigned i;
    /* the multipliers (odd), then the depth terms: one mixer call */
    for (i = 0; i < 2u * ZDEM_S2_FP_MAX_DEPTH + 1u; i++) {
        uint64_t x = zdem_hash_mix64(i < ZDEM_S2_FP_MAX_DEPTH
                                         ? seed ^ (0x9E3779B97F4A7C15ull * (i + 1u))
                                         : seed + 0xD6E8FEB86659FD93ull * (i - ZDEM_S2_FP_MAX_DEPTH + 1u));
        if (i < ZDEM_S2_FP_MAX_DEPTH)
            h->k[i] = x | 1u;
        else
            h->d[i - ZDEM_S2_FP_MAX_DEPTH] = x;
    }
}

static uint32_t vt_home(const zdem_s2_state *s, uint64_t hi, uint64_t lo, unsigned log2)
{
    return zdem_hash_slot(zdem_s2_fphash_key(&s->fph, hi, lo), log2);
}

/* No key sits further than S2_PROBE_LIMIT slots from its home (vt_insert
 * refuses it instead), so a lookup reads at most S2_PROBE_LIMIT + 1 slots,
 * whatever the seed. */
static s2_slot *vt_find(const zdem_s2_state *s, const s2_vtab *v, uint64_t hi, uint64_t lo)
{
    s2_slot *t = vt_slots(s, v);
    uint32_t mask, j, d;
    if (!t)
        return 0;
    mask = (1u << v->log2) - 1u;
    j = vt_home(s, hi, lo, v->log2);
    for (d = 0; d <= S2_PROBE_LIMIT && t[j].lo; d++, j = (j + 1u) & mask)
        if (t[j].hi == hi && (t[j].lo & ~(uint64_t)S2_SLOT_FLAGS) == lo)
            return &t[j];
    return 0;
}

static void free_string(zdem_s2_state *s, s2_slot *sl);

/* Puts slot o into t (2^nlog slots) within S2_PROBE_LIMIT of its home;
 * 0 when there is no room that close. */
static int vt_place(const zdem_s2_state *s, s2_slot *t, unsigned nlog, const s2_slot *o)
{
    uint32_t mask = (1u << nlog) - 1u, d;
    uint32_t j = vt_home(s, o->hi, o->lo & ~(uint64_t)S2_SLOT_FLAGS, nlog);
    for (d = 0; t[j].lo; d++) {
        if (d == S2_PROBE_LIMIT)
            return 0;
        j = (j + 1u) & mask;
    }
    t[j] = *o;
    return 1;
}

/* Moves the values into 2^nlog fresh slots; 0 on a full arena. The old
 * slots are read from just past an empty one, so each cluster goes in in
 * probe order and no key lands further from its home than it was (a key
 * that would is dropped and reported: it cannot happen, the check keeps
 * the lookup bound unconditional). */
static int vt_grow(zdem_s2_state *s, s2_vtab *v, unsigned nlog)
{
    uint32_t off, i, n = v->tab ? (1u << v->log2) : 0u, start = 0;
    s2_slot *old = vt_slots(s, v), *t;
    if (nlog > 24u)
        return 0;
    off = zdem_s2_pool_alloc(s, (sizeof(s2_slot) << nlog));
    if (!off)
        return 0;
    t = (s2_slot *)(void *)(s->base + off);
    /* lo == 0 marks an empty slot, and every reader tests it first; the
     * other words are written when a key lands (vt_place, vt_insert):
     * one store a slot instead of clearing all 32 bytes */
    for (i = 0; i < (1u << nlog); i += 4u) /* nlog >= 2: whole fours */
        t[i].lo = t[i + 1u].lo = t[i + 2u].lo = t[i + 3u].lo = 0;
    while (start < n && old[start].lo)
        start++;
    for (i = start; i < n + start; i++) {
        s2_slot *o = &old[i < n ? i : i - n];
        if (o->lo && !vt_place(s, t, nlog, o)) {
            free_string(s, o);
            v->count--;
            zdem_s2_warn_msg(s, ZDEM_S2_W_PROBE_LIMIT,
                             "entity field paths collide in the hash: value dropped");
        }
    }
    if (v->tab)
        zdem_s2_pool_free(s, v->tab, sizeof(s2_slot) << v->log2);
    v->tab = off;
    v->log2 = (uint8_t)nlog;
    return 1;
}

/* vt_insert for a key known absent that found no room: the table grows
 * (over 3/4 full, or crafted keys collide: up to 16 slots a key spreads
 * them) until the key fits within S2_PROBE_LIMIT of its home, or the key
 * is refused and reported. Kept apart so that vt_insert stays small enough
 * to be inlined where values are stored. */
static int vt_insert_slow(zdem_s2_state *s, s2_vtab *v, uint64_t hi, uint64_t lo, uint64_t h,
                          s2_slot **out)
{
    for (;;) {
        s2_slot *t = vt_slots(s, v);
        if (t) {
            uint32_t mask = (1u << v->log2) - 1u, j = zdem_hash_slot(h, v->log2), d;
            for (d = 0; d <= S2_PROBE_LIMIT && t[j].lo; d++)
                j = (j + 1u) & mask;
            if (d <= S2_PROBE_LIMIT) {
                if ((v->count + 1u) * 4u <= (3u << v->log2)) {
                    t[j].hi = hi;
                    t[j].lo = lo;
                    t[j].a = t[j].b = 0;
                    v->count++;
                    *out = &t[j];
                    return 1;
                }
            } else if ((v->count + 1u) * 16u <= (1u << v->log2) || v->log2 >= 24u) {
                zdem_s2_warn_msg(s, ZDEM_S2_W_PROBE_LIMIT,
                                 "entity field paths collide in the hash: value not kept");
                return -1;
            }
        }
        if (!vt_grow(s, v, t ? v->log2 + 1u : 4u))
            return 0;
    }
}

/* A table's slots and the numbers a probe needs, read once: the entity
 * reader keeps one for a whole update (vt_insert_in refreshes it when the
 * table grows). */
typedef struct vt_view {
    s2_slot *t;      /* NULL: no table yet */
    uint32_t mask;   /* slots - 1 */
    uint32_t room;   /* keys it may hold (3/4 of its slots) */
    unsigned shift;  /* 64 - log2: a hash's top bits are its home */
} vt_view;

static inline void vt_view_of(const zdem_s2_state *s, const s2_vtab *v, vt_view *w)
{
    w->t = vt_slots(s, v);
    w->mask = (1u << v->log2) - 1u;
    w->room = (3u << v->log2) / 4u;
    w->shift = 64u - v->log2;
}

/* The slot for key (*out), created empty if absent: 1. A key that finds
 * no free slot within S2_PROBE_LIMIT of its home, once the table has
 * grown as far as its load allows (16 slots a key), is refused and
 * reported: -1 (crafted keys only; a random seed makes it as unlikely as
 * a hash collision). 0 on a full arena. One pass finds or places. w is
 * v's view (vt_view_of), refreshed when the table grows. */
static inline int vt_insert_in(zdem_s2_state *s, s2_vtab *v, vt_view *w, uint64_t hi,
                               uint64_t lo, uint64_t h, s2_slot **out)
{
    s2_slot *t = w->t;
    int r;
    if (t) {
        uint32_t j = (uint32_t)(h >> w->shift), d;
        for (d = 0; d <= S2_PROBE_LIMIT && t[j].lo; d++, j = (j + 1u) & w->mask) {
            if (t[j].hi == hi && (t[j].lo & ~(uint64_t)S2_SLOT_FLAGS) == lo) {
                *out = &t[j];
                return 1;
            }
        }
        if (d <= S2_PROBE_LIMIT && v->count < w->room) {
            t[j].hi = hi;
            t[j].lo = lo;
            t[j].a = t[j].b = 0;
            v->count++;
            *out = &t[j];
            return 1;
        }
    }
    r = vt_insert_slow(s, v, hi, lo, h, out);
    vt_view_of(s, v, w);
    return r;
}

static inline int vt_insert(zdem_s2_state *s, s2_vtab *v, uint64_t hi, uint64_t lo, uint64_t h,
                            s2_slot **out)
{
    vt_view w;
    vt_view_of(s, v, &w);
    return vt_insert_in(s, v, &w, hi, lo, h, out);
}

static void free_string(zdem_s2_state *s, s2_slot *sl)
{
    if ((sl->lo & S2_SLOT_STRING) && (uint32_t)sl->a)
        zdem_s2_pool_free(s, (uint32_t)sl->a, (size_t)(sl->a >> 32) + 1u);
    sl->lo &= ~(uint64_t)S2_SLOT_STRING;
    sl->a = 0;
}

static void vt_free(zdem_s2_state *s, s2_vtab *v)
{
    s2_slot *t = vt_slots(s, v);
    uint32_t i;
    if (t) {
        for (i = 0; v->strings && i < (1u << v->log2); i++)
            if (t[i].lo & S2_SLOT_STRING)
                free_string(s, &t[i]);
        zdem_s2_pool_free(s, v->tab, sizeof(s2_slot) << v->log2);
    }
    memset(v, 0, sizeof *v);
}

/* The value tables alone, for the fuzz target that feeds them crafted
 * keys (tests/fuzz/fuzz_source2_keys_fieldpath.c): put (1, -1 refused, 0
 * full arena), get (1 found), clear. */

int zdem_s2_vt_put(zdem_s2_state *s, s2_vtab *v, uint64_t hi, uint64_t lo, uint64_t a)
{
    s2_slot *sl;
    int r = vt_insert(s, v, hi, lo, zdem_s2_fphash_key(&s->fph, hi, lo), &sl);
    if (r == 1) {
        free_string(s, sl);
        sl->a = a;
    }
    return r;
}

int zdem_s2_vt_get(const zdem_s2_state *s, const s2_vtab *v, uint64_t hi, uint64_t lo, uint64_t *a)
{
    const s2_slot *sl = vt_find(s, v, hi, lo);
    if (!sl)
        return 0;
    *a = sl->a;
    return 1;
}

void zdem_s2_vt_clear(zdem_s2_state *s, s2_vtab *v)
{
    vt_free(s, v);
}

/* ---- baselines -------------------------------------------------------------- */

static s2_baseline *bl_ptr(const zdem_s2_state *s, uint32_t off)
{
    return (s2_baseline *)s2_ptr(s, off);
}

static void bl_release(zdem_s2_state *s, uint32_t off)
{
    s2_baseline *b = bl_ptr(s, off);
    if (!b || --b->refs)
        return;
    vt_free(s, &b->v);
    zdem_s2_blob_unref(s, b->src, b->src_len);
    zdem_s2_pool_free(s, off, sizeof *b);
}

/* The decoded baseline stays until the class next needs it: then, if the
 * entry that names the class holds the same bytes, it is used again
 * (class_baseline). */
void zdem_s2_baseline_changed(zdem_s2_state *s, uint32_t class_id)
{
    if (class_id < s->nclasses && s->classes[class_id].bl)
        s->classes[class_id].bl_stale = 1;
}

/* The value of e at key: its own first, then its baseline's. */
static const s2_slot *ent_lookup(const zdem_s2_state *s, const s2_ent *e, uint64_t hi,
                                 uint64_t lo)
{
    const s2_slot *sl = vt_find(s, &e->v, hi, lo);
    if (!sl && e->bl)
        sl = vt_find(s, &bl_ptr(s, e->bl)->v, hi, lo);
    return sl;
}

/* ---- live entities ---------------------------------------------------------- */

static void live_add(zdem_s2_state *s, uint32_t idx)
{
    s->ents[idx].live_pos = s->live;
    s->live_list[s->live++] = idx;
}

static void ent_free(zdem_s2_state *s, uint32_t idx)
{
    s2_ent *e = &s->ents[idx];
    if (e->cls < 0)
        return;
    vt_free(s, &e->v);
    if (e->bl)
        bl_release(s, e->bl);
    if (s->live) {
        uint32_t last = s->live_list[--s->live];
        s->live_list[e->live_pos] = last;
        s->ents[last].live_pos = e->live_pos;
    }
    memset(e, 0, sizeof *e);
    e->cls = -1;
}

/* Stores a decoded value; returns 0 on a full arena. */
static int ent_store(zdem_s2_state *s, s2_ent *e, uint64_t hi, uint64_t lo, uint64_t h,
                     const zdem_s2_raw *v)
{
    s2_slot *sl;
    int r = vt_insert(s, &e->v, hi, lo, h, &sl);
    if (r <= 0)
        return r < 0; /* refused: reported, the value not kept */
    if (sl->lo & S2_SLOT_STRING)
        free_string(s, sl);
    if (v->kind == ZDEM_S2_V_VEC && v->n > 4) {
        /* a CTransform's 24 bytes do not fit the slot: kept out of line
         * like a string (same pool, same freeing) */
        uint32_t off = zdem_s2_pool_alloc(s, S2_TRANSFORM_BYTES + 1u);
        if (!off)
            return 0;
        memcpy(s->base + off, v->v.f, S2_TRANSFORM_BYTES);
        sl->a = (uint64_t)off | ((uint64_t)S2_TRANSFORM_BYTES << 32);
        sl->lo |= S2_SLOT_STRING;
        e->v.strings = 1;
        return 1;
    }
    if (v->kind == ZDEM_S2_V_STRING) {
        uint32_t off = zdem_s2_pool_alloc(s, (size_t)v->len + 1u);
        if (!off)
            return 0;
        memcpy(s->base + off, s->strbuf, v->len);
        s->base[off + v->len] = 0;
        sl->a = (uint64_t)off | ((uint64_t)v->len << 32);
        sl->lo |= S2_SLOT_STRING;
        e->v.strings = 1;
        return 1;
    }
    memcpy(&sl->a, &v->v, 8);
    if (v->kind == ZDEM_S2_V_VEC)
        memcpy(&sl->b, &v->v.f[2], 8);
    return 1;
}

int zdem_s2_ent_raw(const zdem_s2_state *s, const s2_ent *e, const zdem_s2_fp *fp,
               unsigned depth, uint64_t *out)
{
    zdem_s2_fp pre = *fp;
    const s2_slot *sl;
    uint64_t hi, lo;
    pre.depth = (uint8_t)depth;
    zdem_s2_fp_pack(&pre, &hi, &lo);
    if (!(sl = ent_lookup(s, e, hi, lo)))
        return 0;
    *out = sl->a;
    return 1;
}

/* ---- decoding ---------------------------------------------------------------- */

/* Why entity_data stopped, when it is not damage. */
typedef struct pe_out {
    zdem_s2_warn_kind limit; /* ZDEM_S2_W_COUNT: none */
} pe_out;

/* Reads field paths and values from br into entity e. *nfp receives the
 * path count, *fps_out the paths. The paths come first, each resolved to
 * its decoder as it is read (zdem_s2_plan_read), or the plan of the same
 * path bits is taken from the plan cache; then the values. */
static zdem_status read_fields(zdem_s2_state *s, s2_ent *e, zdem_bits *br,
                               uint32_t *nfp, const zdem_s2_fp **fps_out, pe_out *po,
                               zdem_error *err)
{
    uint32_t n, i;
    vt_view view;
    int32_t ser = e->cls >= 0 && (uint32_t)e->cls < s->nclasses ? s->classes[e->cls].ser : -1;
    const s2_pc_entry *kept = zdem_s2_pc_find(s, ser, br);
    const s2_planned *plan;
    const zdem_s2_fp *fps;
    *nfp = 0;
    if (kept) {
        s->stats.plans_reused++;
        n = kept->n;
        br->pos += kept->bits;
        plan = kept->plan;
        fps = kept->fps;
    } else {
        size_t start = br->pos;
        zdem_status st = zdem_s2_plan_read(s, ser, br, &n, err);
        if (st != ZDEM_OK) {
            if (st == ZDEM_ERR_LIMIT)
                po->limit = ZDEM_S2_W_FIELD_PATH_LIMIT;
            return st;
        }
        zdem_s2_pc_keep(s, ser, br, start, n);
        plan = s->plan;
        fps = s->fps;
    }
    *fps_out = fps;
    if (n > s->usage.max_field_paths)
        s->usage.max_field_paths = n;
    /* counted when known: at most one update's max_field_paths past the
     * budget, which the next entity then finds spent (entity_data) */
    s->work.used[ZDEM_S2_WORK_FIELDS] += n;
    /* an empty table (a create, a baseline) is sized once for its paths
     * at 3/4 load, not grown through every power of two on the way */
    if (!e->v.count && n > 12u) {
        unsigned lg = 4u;
        while (lg < 24u && (n * 4u > (3u << lg)))
            lg++;
        if (lg > (e->v.tab ? e->v.log2 : 0u) && !vt_grow(s, &e->v, lg))
            return zdem_fail_bits(err, ZDEM_ERR_NO_SPACE, br->pos, "arena too small for entity values");
    }
    if (n) /* many updates carry no field */
        vt_view_of(s, &e->v, &view);
    for (i = 0; i < n; i++) {
        const zdem_s2_fdec *fd = plan[i].fd;
        zdem_s2_raw v;
        uint64_t hi, lo, a, b = 0;
        s2_slot *sl;
        int r, words;
        /* the commonest values (a bool, a 32-bit varint, a float)
         * straight into their slot: the bytes zdem_s2_decode_value and
         * ent_store give them, without the zdem_s2_raw in between */
        if (fd && (words = zdem_s2_decode_words(fd, br, s->tick_interval, &a, &b)) != 0) {
            if (br->overflow)
                return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br->pos,
                                      "entity field value runs past the data");
            fp_pack_clean(&fps[i], &hi, &lo);
            r = vt_insert_in(s, &e->v, &view, hi, lo, plan[i].h, &sl);
            if (r <= 0) {
                if (r == 0)
                    return zdem_fail_bits(err, ZDEM_ERR_NO_SPACE, br->pos,
                                          "arena too small for entity values");
                continue; /* refused: reported, the value not kept */
            }
            if (sl->lo & S2_SLOT_STRING)
                free_string(s, sl);
            sl->a = a;
            if (words == 2)
                sl->b = b;
            continue;
        }
        if (fd == &zdem_s2_fd_late) /* under a polymorphic pointer */
            fd = zdem_s2_resolve_ent(s, ser, &fps[i], e);
        if (!fd)
            return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br->pos,
                                  "field path does not name a field of the class");
        zdem_s2_decode_value(fd, br, s->tick_interval, &v, s->strbuf, S2_STRBUF);
        if (br->overflow)
            return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br->pos,
                                  "entity field value runs past the data");
        if (v.kind == ZDEM_S2_V_STRING && v.full_len > v.len)
            zdem_s2_warn_msg(s, ZDEM_S2_W_UNSTORED_FIELDS,
                        "string value longer than the 4096-byte string buffer: cut");
        fp_pack_clean(&fps[i], &hi, &lo);
        if (!ent_store(s, e, hi, lo, plan[i].h, &v))
            return zdem_fail_bits(err, ZDEM_ERR_NO_SPACE, br->pos, "arena too small for entity values");
        vt_view_of(s, &e->v, &view); /* the table may have grown */
    }
    s->stats.fields_decoded += n;
    *nfp = n;
    return ZDEM_OK;
}

/* The class's decoded baseline (0: none), decoded on first use. */
static zdem_status class_baseline(zdem_s2_state *s, uint32_t cls, uint32_t *out,
                                  pe_out *po, zdem_error *err)
{
    s2_class *c = &s->classes[cls];
    const s2_st_entry *be;
    s2_ent tmp;
    zdem_bits bb;
    const zdem_s2_fp *fps;
    uint32_t nfp, off;
    zdem_status st;
    s2_baseline *b;
    int again = 0;
    *out = 0;
    if (c->bl && !c->bl_stale) {
        *out = c->bl;
        return ZDEM_OK;
    }
    be = c->bl_entry && s->baseline_table >= 0
             ? zdem_s2_st_find(s, &s->tables[s->baseline_table], c->bl_entry - 1u)
             : 0;
    /* the entry's key is checked again: it may name another class now */
    if (be && (!be->val || zdem_s2_st_baseline_class(s, be) != (int32_t)cls))
        be = 0;
    if (c->bl) {
        /* cached by value: the same blob, or the same bytes in another
         * (compared once, paid from the budget: the entry then shares the
         * blob, and the next change back costs nothing) */
        b = bl_ptr(s, c->bl);
        c->bl_stale = 0;
        if (be && be->val != b->src && be->val_len == b->src_len &&
            zdem_s2_spend(s, ZDEM_S2_WORK_EXPAND, be->val_len,
                         "work limit max_expand_per_byte: entity created without its class "
                         "baseline") &&
            memcmp(s->base + be->val, s->base + b->src, be->val_len) == 0)
            zdem_s2_st_share_value(s, be, b->src);
        if (be && be->val == b->src) {
            *out = c->bl;
            return ZDEM_OK;
        }
        bl_release(s, c->bl);
        c->bl = 0;
        again = 1;
    }
    if (!be)
        return ZDEM_OK;
    /* a baseline decoded again (its bytes changed) is work the input may
     * not have paid for: with the field budget spent, an entity is created
     * without it (its fields are counted as they are read) */
    if (!zdem_s2_spend(s, ZDEM_S2_WORK_FIELDS, 1, "work limit max_fields_per_byte: entity "
                                                  "created without its class baseline"))
        return ZDEM_OK;
    memset(&tmp, 0, sizeof tmp);
    tmp.cls = (int32_t)cls;
    zdem_bits_init(&bb, s->base + be->val, be->val_len);
    st = read_fields(s, &tmp, &bb, &nfp, &fps, po, err);
    /* decoded again (its bytes changed): a table built and one freed, and
     * the input may have paid for neither; counted twice */
    if (again)
        s->work.used[ZDEM_S2_WORK_FIELDS] += nfp;
    if (st == ZDEM_OK && !(off = zdem_s2_pool_alloc(s, sizeof *b)))
        st = zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for baselines");
    if (st != ZDEM_OK) {
        vt_free(s, &tmp.v);
        return st;
    }
    b = bl_ptr(s, off);
    b->refs = 1; /* the class's */
    b->v = tmp.v;
    b->src = be->val;
    b->src_len = be->val_len;
    zdem_s2_blob_ref(s, b->src, b->src_len);
    c->bl = off;
    *out = off;
    return ZDEM_OK;
}

static zdem_status emit_entity_change(zdem_s2_state *s, int32_t idx, unsigned ops,
                                      const zdem_s2_fp *fps, uint32_t nfp)
{
    zdem_s2_entity pub;
    if (!s->cfg.on_entity)
        return ZDEM_OK;
    if (!zdem_s2_entity_get(s, idx, &pub)) {
        memset(&pub, 0, sizeof pub);
        pub.index = idx;
        pub.class_id = -1;
    }
    return s->cfg.on_entity(s->cfg.user, s, &pub, ops, fps, nfp);
}

static zdem_status create(zdem_s2_state *s, uint32_t index, zdem_bits *br,
                          pe_out *po, zdem_error *err)
{
    s2_ent *e = &s->ents[index];
    uint32_t cls = zdem_bits_read(br, s->class_bits);
    uint32_t serial = zdem_bits_read(br, 17), bl = 0, nfp = 0;
    const zdem_s2_fp *fps;
    zdem_status st;
    (void)zdem_bits_read_varuint32(br);
    if (br->overflow)
        return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br->pos, "entity create runs past the data");
    if (cls >= s->nclasses || s->classes[cls].ser < 0) {
        zdem_s2_warn_msg(s, ZDEM_S2_W_UNKNOWN_CLASSES, "entity of a class without serializer");
        return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br->pos, "entity of an unknown class");
    }
    if ((st = class_baseline(s, cls, &bl, po, err)) != ZDEM_OK)
        return st;
    if (e->cls == (int32_t)cls && e->serial == serial) {
        /* The same entity restated (a full snapshot, a return to the
         * PVS): an update. Its values start again from the baseline, as a
         * create's do, so the state is what the snapshot says. */
        vt_free(s, &e->v);
        if (bl)
            bl_ptr(s, bl)->refs++;
        if (e->bl)
            bl_release(s, e->bl);
        e->bl = bl;
        e->active = 1;
        e->stale = 0;
        if ((st = read_fields(s, e, br, &nfp, &fps, po, err)) != ZDEM_OK)
            return st;
        s->stats.entity_updates++;
        return emit_entity_change(s, (int32_t)index, ZDEM_S2_ENT_UPDATED, fps, nfp);
    }
    if (e->cls >= 0)
        ent_free(s, index); /* created again without a delete */
    memset(e, 0, sizeof *e); /* a never-used slot has only its cls set (-1) */
    e->cls = (int32_t)cls;
    e->serial = serial;
    e->active = 1;
    live_add(s, index);
    s->stats.created++;
    if (bl) {
        bl_ptr(s, bl)->refs++;
        e->bl = bl;
    }
    if ((st = read_fields(s, e, br, &nfp, &fps, po, err)) != ZDEM_OK)
        return st;
    return emit_entity_change(s, (int32_t)index, ZDEM_S2_ENT_CREATED, fps, nfp);
}

/* An update that changes nothing (most of Dota 2's) is one operation,
 * FieldPathEncodeFinish: 1 when br is there (then read past it), 0 when
 * it is not (nothing read). */
static inline int fp_finish_next(zdem_bits *br)
{
    uint16_t op;
    if (!zdem_bits__fast(br))
        return 0;
    op = zdem_s2_fp_lut[zdem_bits__window(br) & 0xFFu];
    if ((op & 0x8000u) || (op & 0xFFu) != ZDEM_S2_FP_FIELDPATHENCODEFINISH)
        return 0;
    br->pos += op >> 8;
    return 1;
}

static zdem_status entity_data(zdem_s2_state *s, const uint8_t *data,
                               size_t size, uint32_t updated, int pvs_bits,
                               int is_delta, pe_out *po, zdem_error *err)
{
    zdem_bits br;
    int64_t index = -1;
    uint32_t i;
    uint64_t fields_cap;
    zdem_status st;
    if (!s->classes || !s->have_sendtables)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "entities before serializers and classes");
    if (!is_delta) {
        /* A full snapshot: what it does not mention is gone (deleted after
         * it); what it does is kept (create() on the same class and
         * serial is an update). */
        for (i = 0; i < s->live; i++)
            s->ents[s->live_list[i]].stale = 1;
    }
    zdem_bits_init(&br, data, size);
    /* the input does not grow during a message: its budget is fixed here */
    fields_cap = zdem_s2_work_cap(&s->work, ZDEM_S2_WORK_FIELDS);
    for (i = 0; i < updated; i++) {
        uint32_t cmd, nfp = 0;
        const zdem_s2_fp *fps = s->fps;
        s2_ent *e;
        if (s->work.used[ZDEM_S2_WORK_FIELDS] >= fields_cap) { /* work_left == 0 */
            po->limit = ZDEM_S2_W_WORK_LIMIT;
            return zdem_fail_bits(err, ZDEM_ERR_LIMIT, br.pos,
                                  "work limit max_fields_per_byte: rest of the entity message "
                                  "skipped");
        }
        if (zdem_bits__fast(&br)) { /* the index delta and the command in one window */
            uint64_t w = zdem_bits__window(&br);
            unsigned used;
            index += (int64_t)zdem_bits_ubitvar_of(w, &used) + 1;
            cmd = (uint32_t)(w >> used) & 3u;
            br.pos += used + 2u;
        } else {
            index += (int64_t)zdem_bits_read_ubitvar(&br) + 1;
            cmd = zdem_bits_read(&br, 2);
        }
        if (br.overflow)
            return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br.pos, "entity list runs past the data");
        if (index < 0 || index >= (int64_t)s->max_ents) {
            po->limit = ZDEM_S2_W_ENTITY_LIMIT;
            return zdem_fail_bits(err, ZDEM_ERR_LIMIT, br.pos, "entity index beyond max_entities");
        }
        if ((uint32_t)index + 1u > s->usage.max_entity_index)
            s->usage.max_entity_index = (uint32_t)index + 1u;
        e = &s->ents[index];
        e->stale = 0;
        if ((cmd & 1u) == 0) {
            if (cmd & 2u) {
                if ((st = create(s, (uint32_t)index, &br, po, err)) != ZDEM_OK)
                    return st;
            } else { /* update */
                if (pvs_bits) {
                    uint32_t pvs = zdem_bits_read(&br, 2);
                    if (pvs & 1u)
                        continue; /* no field data for this entity */
                }
                if (e->cls < 0)
                    return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br.pos, "update of an entity that does not exist");
                if (fp_finish_next(&br))
                    nfp = 0; /* no field: read_fields would read no path */
                else if ((st = read_fields(s, e, &br, &nfp, &fps, po, err)) != ZDEM_OK)
                    return st;
                e->active = 1;
                s->stats.entity_updates++;
                if ((st = emit_entity_change(s, (int32_t)index, ZDEM_S2_ENT_UPDATED, fps, nfp)) != ZDEM_OK)
                    return st;
            }
        } else {
            unsigned ops = ZDEM_S2_ENT_LEFT;
            if (e->cls < 0)
                continue; /* leaving an entity we never had: nothing to do */
            e->active = 0;
            if (cmd & 2u)
                ops |= ZDEM_S2_ENT_DELETED;
            if ((st = emit_entity_change(s, (int32_t)index, ops, s->fps, 0)) != ZDEM_OK)
                return st;
            if (cmd & 2u) {
                ent_free(s, (uint32_t)index);
                s->stats.deleted++;
            }
        }
    }
    /* From the end: ent_free moves the last live entity (seen already)
     * into the freed place. */
    for (i = is_delta ? 0u : s->live; i > 0; i--) {
        uint32_t idx = s->live_list[i - 1u];
        if (!s->ents[idx].stale)
            continue;
        s->stats.deleted++;
        if ((st = emit_entity_change(s, (int32_t)idx, ZDEM_S2_ENT_DELETED, s->fps, 0)) != ZDEM_OK)
            return st;
        ent_free(s, idx);
    }
    return ZDEM_OK;
}

typedef struct pe_hdr {
    zdem_view data;
    uint32_t updated;
    int pvs, is_delta, has_data;
} pe_hdr;

/* The decoded message is large; only the few values entity_data needs
 * outlive this call. */
static zdem_status pe_header(const uint8_t *msg, size_t n, pe_hdr *h, zdem_error *err)
{
    zdem_pb_CSVCMsg_PacketEntities m;
    zdem_status st = zdem_pb_CSVCMsg_PacketEntities_decode(msg, n, &m, NULL, NULL, err);
    if (st != ZDEM_OK)
        return st;
    h->data = m.entity_data;
    h->has_data = m.has_entity_data;
    h->updated = m.updated_entries > 0 ? (uint32_t)m.updated_entries : 0u;
    h->is_delta = m.legacy_is_delta != 0;
    h->pvs = m.has_pvs_vis_bits != 0;
    return ZDEM_OK;
}

zdem_status zdem_s2_packet_entities(zdem_s2_state *s, const uint8_t *msg, size_t n,
                               zdem_error *err)
{
    pe_hdr h;
    pe_out po;
    zdem_status st;
    zdem_error e2;
    if ((st = pe_header(msg, n, &h, err)) != ZDEM_OK)
        return st;
    if (!h.has_data)
        return ZDEM_OK;
    zdem_error_clear(&e2);
    po.limit = ZDEM_S2_W_COUNT;
    st = entity_data(s, h.data.ptr, h.data.len, h.updated, h.pvs, h.is_delta, &po, &e2);
    if (st == ZDEM_OK || st == ZDEM_ERR_ABORTED)
        return st;
    zdem_error_rebase(&e2, (uint64_t)(h.data.ptr - msg));
    if (po.limit != ZDEM_S2_W_COUNT) {
        /* a configured limit, not damage: reported, the packet skipped */
        zdem_s2_state_warn(s, po.limit, &e2);
        return ZDEM_OK;
    }
    if (err && err->code == ZDEM_OK)
        *err = e2;
    return st;
}

/* ---- queries -------------------------------------------------------------------- */

uint32_t zdem_s2_entity_count(const zdem_s2_state *s)
{
    return s->live;
}

uint32_t zdem_s2_entity_limit(const zdem_s2_state *s)
{
    return s->max_ents;
}

uint32_t zdem_s2_entities_live(const zdem_s2_state *s, uint32_t *out, uint32_t cap)
{
    uint32_t n = s->live < cap ? s->live : cap;
    memcpy(out, s->live_list, (size_t)n * 4u);
    zdem_sort_u32_values(out, n);
    return s->live;
}

int32_t zdem_s2_entity_class(const zdem_s2_state *s, int32_t index)
{
    if (index < 0 || (uint32_t)index >= s->max_ents || s->ents[index].cls < 0)
        return -1;
    return s->ents[index].cls;
}

int zdem_s2_entity_get(const zdem_s2_state *s, int32_t index, zdem_s2_entity *e)
{
    const s2_ent *x;
    if (index < 0 || (uint32_t)index >= s->max_ents)
        return 0;
    x = &s->ents[index];
    if (x->cls < 0)
        return 0;
    e->index = index;
    e->class_id = x->cls;
    e->serial = x->serial;
    e->active = x->active;
    e->class_name = zdem_s2_class_name(s, x->cls, &e->class_name_len);
    if (!e->class_name) {
        e->class_name = "";
        e->class_name_len = 0;
    }
    return 1;
}

static void slot_value(const zdem_s2_state *s, const s2_slot *sl,
                       const zdem_s2_fdec *fd, zdem_s2_value *out)
{
    memset(out, 0, sizeof *out);
    if ((sl->lo & S2_SLOT_STRING) && fd && fd->dec == ZDEM_S2_DEC_TRANSFORM &&
        (uint32_t)(sl->a >> 32) == S2_TRANSFORM_BYTES) {
        out->kind = ZDEM_S2_V_VEC;
        out->n = 6;
        memcpy(out->v.f, s->base + (uint32_t)sl->a, S2_TRANSFORM_BYTES);
        return;
    }
    if (sl->lo & S2_SLOT_STRING) {
        out->kind = ZDEM_S2_V_STRING;
        out->s = s->base + (uint32_t)sl->a;
        out->len = (uint32_t)(sl->a >> 32);
        return;
    }
    memcpy(&out->v, &sl->a, 8);
    switch (fd ? fd->dec : ZDEM_S2_DEC_UVAR32) {
    case ZDEM_S2_DEC_BOOL:
        out->kind = ZDEM_S2_V_BOOL;
        break;
    case ZDEM_S2_DEC_SVAR32:
    case ZDEM_S2_DEC_SVAR64:
    case ZDEM_S2_DEC_MINUSONE:
        out->kind = ZDEM_S2_V_INT;
        break;
    case ZDEM_S2_DEC_FLOAT:
        out->kind = ZDEM_S2_V_FLOAT;
        break;
    case ZDEM_S2_DEC_FLOAT64:
        out->kind = ZDEM_S2_V_DOUBLE;
        break;
    case ZDEM_S2_DEC_VECTOR2:
    case ZDEM_S2_DEC_VECTOR3:
    case ZDEM_S2_DEC_VECTOR4:
    case ZDEM_S2_DEC_QANGLE:
    case ZDEM_S2_DEC_TRANSFORM: /* (a transform never stored: zeros) */
        out->kind = ZDEM_S2_V_VEC;
        out->n = fd->dec == ZDEM_S2_DEC_VECTOR2 ? 2 : fd->dec == ZDEM_S2_DEC_VECTOR4 ? 4 :
                 fd->dec == ZDEM_S2_DEC_TRANSFORM ? 6 : 3;
        memcpy(&out->v.f[2], &sl->b, 8);
        break;
    case ZDEM_S2_DEC_STRING:
    case ZDEM_S2_DEC_BLOB:
        out->kind = ZDEM_S2_V_STRING; /* empty */
        out->s = (const uint8_t *)"";
        break;
    case ZDEM_S2_DEC_UVAR64:
    case ZDEM_S2_DEC_FIXED64:
        out->kind = ZDEM_S2_V_UINT; /* declared 64-bit unsigned */
        break;
    case ZDEM_S2_DEC_UNKNOWN:
        /* width not declared: signed unless the value needs the 64th bit */
        out->kind = out->v.u > (uint64_t)INT64_MAX ? ZDEM_S2_V_UINT : ZDEM_S2_V_INT;
        break;
    default:
        /* 32-bit unsigned (uvar32: uint8..uint32, handles, counts) and
         * pointers: every value fits an int64, so they read as signed and
         * arithmetic on them (team - 3) never wraps */
        out->kind = ZDEM_S2_V_INT;
        break;
    }
}

int zdem_s2_entity_prop_fp(const zdem_s2_state *s, int32_t index,
                           const zdem_s2_fp *fp, zdem_s2_value *out)
{
    const s2_ent *e;
    const s2_slot *sl;
    uint64_t hi, lo;
    if (index < 0 || (uint32_t)index >= s->max_ents || fp->depth < 1 ||
        fp->depth > ZDEM_S2_FP_MAX_DEPTH)
        return 0;
    e = &s->ents[index];
    if (e->cls < 0)
        return 0;
    zdem_s2_fp_pack(fp, &hi, &lo);
    if (!(sl = ent_lookup(s, e, hi, lo)))
        return 0;
    slot_value(s, sl, zdem_s2_resolve_ent(s, s->classes[e->cls].ser, fp, e), out);
    return 1;
}

/* Name -> field path: dotted components, numbers index arrays/vectors. */
static int name_to_fp(const zdem_s2_state *s, int32_t ser, const char *name,
                      zdem_s2_fp *fp)
{
    const char *p = name;
    memset(fp, 0, sizeof *fp);
    while (*p) {
        const char *dot = p;
        size_t len;
        while (*dot && *dot != '.')
            dot++;
        len = (size_t)(dot - p);
        if (fp->depth >= ZDEM_S2_FP_MAX_DEPTH)
            return 0;
        if (len && p[0] >= '0' && p[0] <= '9') {
            uint32_t v = 0;
            size_t i;
            for (i = 0; i < len; i++) {
                if (p[i] < '0' || p[i] > '9' || v > ZDEM_S2_FP_MAX_INDEX)
                    return 0;
                v = v * 10u + (uint32_t)(p[i] - '0');
            }
            if (v > ZDEM_S2_FP_MAX_INDEX)
                return 0;
            fp->path[fp->depth++] = (uint16_t)v;
        } else {
            int32_t k = zdem_s2_ser_field(s, ser, p, len);
            const s2_field *f;
            if (k < 0 || k > ZDEM_S2_FP_MAX_INDEX)
                return 0;
            f = &s->fields[((const uint32_t *)(s->base + s->sers[ser].fields))[k]];
            fp->path[fp->depth++] = (uint16_t)k;
            ser = f->ser;
        }
        p = *dot ? dot + 1 : dot;
    }
    return fp->depth > 0;
}

int zdem_s2_class_prop_fp(const zdem_s2_state *s, int32_t class_id,
                          const char *name, zdem_s2_fp *fp)
{
    if (class_id < 0 || (uint32_t)class_id >= s->nclasses || s->classes[class_id].ser < 0)
        return 0;
    return name_to_fp(s, s->classes[class_id].ser, name, fp);
}

int zdem_s2_entity_prop(const zdem_s2_state *s, int32_t index,
                        const char *name, zdem_s2_value *out)
{
    zdem_s2_fp fp;
    const s2_ent *e;
    if (index < 0 || (uint32_t)index >= s->max_ents)
        return 0;
    e = &s->ents[index];
    if (e->cls < 0 || !name_to_fp(s, s->classes[e->cls].ser, name, &fp))
        return 0;
    return zdem_s2_entity_prop_fp(s, index, &fp, out);
}

size_t zdem_s2_fp_name(const zdem_s2_state *s, int32_t class_id,
                       const zdem_s2_fp *fp, char *buf, size_t cap)
{
    size_t n = 0;
    unsigned pos = 0;
    int32_t ser = class_id >= 0 && (uint32_t)class_id < s->nclasses ? s->classes[class_id].ser : -1;
    if (!cap)
        return 0;
    buf[0] = 0;
#define PUT(str, len)                                   \
    do {                                                \
        size_t l_ = (len);                              \
        if (n + l_ + 1u < cap) {                        \
            memcpy(buf + n, (str), l_);                 \
            n += l_;                                    \
            buf[n] = 0;                                 \
        }                                               \
    } while (0)
    while (pos < fp->depth) {
        char num[8];
        int nl = 0;
        unsigned v = fp->path[pos];
        if (n)
            PUT(".", 1);
        if (ser >= 0 && (uint32_t)ser < s->nsers && v < s->sers[ser].nfields &&
            ((const uint32_t *)(s->base + s->sers[ser].fields))[v] < s->nfields) {
            const s2_field *f = &s->fields[((const uint32_t *)(s->base + s->sers[ser].fields))[v]];
            PUT(s->base + f->name, f->name_len);
            pos++;
            if (f->model == S2_M_FIXED_TABLE)
                ser = f->ser;
            else if (f->model == S2_M_VAR_TABLE) {
                ser = f->ser;
                if (pos < fp->depth) {
                    unsigned x = fp->path[pos++];
                    char d[8];
                    int dl = 0;
                    do {
                        d[dl++] = (char)('0' + x % 10u);
                        x /= 10u;
                    } while (x && dl < 7);
                    PUT(".", 1);
                    while (dl)
                        PUT(&d[--dl], 1);
                }
            } else
                ser = -1;
            continue;
        }
        do {
            num[nl++] = (char)('0' + v % 10u);
            v /= 10u;
        } while (v && nl < 7);
        while (nl)
            PUT(&num[--nl], 1);
        pos++;
        ser = -1;
    }
#undef PUT
    return n;
}

/* Ordering of property references: bit 31 set = baseline slot. */
typedef struct prop_sort_ctx {
    const s2_slot *own, *bl;
} prop_sort_ctx;

static const s2_slot *prop_slot(const prop_sort_ctx *c, uint32_t r)
{
    return r & 0x80000000u ? &c->bl[r & 0x7FFFFFFFu] : &c->own[r];
}

/* A key as two words whose order is field-path order: components first
 * to last from the top, 16 bits each, then the depth (a path before the
 * paths it is a prefix of). */
static void key_order(uint64_t hi, uint64_t lo, uint64_t *a, uint64_t *b)
{
    *a = (hi & 0xFFFFu) << 48 | (hi >> 16 & 0xFFFFu) << 32 | (hi >> 32 & 0xFFFFu) << 16 | hi >> 48;
    *b = (lo >> 8 & 0xFFFFu) << 48 | (lo >> 24 & 0xFFFFu) << 32 | (lo >> 40 & 0xFFFFu) << 16 |
         (lo >> 56 & 7u) << 3;
}

static int cmp_prop(const void *ctx, uint32_t a, uint32_t b)
{
    const s2_slot *x = prop_slot((const prop_sort_ctx *)ctx, a);
    const s2_slot *y = prop_slot((const prop_sort_ctx *)ctx, b);
    uint64_t xa, xb, ya, yb;
    key_order(x->hi, x->lo, &xa, &xb);
    key_order(y->hi, y->lo, &ya, &yb);
    if (xa != ya)
        return xa < ya ? -1 : 1;
    if (xb != yb)
        return xb < yb ? -1 : 1;
    return a < b ? -1 : a > b;
}

zdem_status zdem_s2_entity_props(const zdem_s2_state *s, int32_t index,
                                 zdem_s2_prop_fn fn, void *user,
                                 uint64_t *tmp, uint32_t tmp_cap,
                                 zdem_error *err)
{
    const s2_ent *e;
    const s2_baseline *b;
    prop_sort_ctx c;
    uint32_t *ref = (uint32_t *)(void *)tmp, cap = tmp_cap * 2u, i, n = 0;
    char name[512];
    if (index < 0 || (uint32_t)index >= s->max_ents || s->ents[index].cls < 0)
        return ZDEM_OK;
    e = &s->ents[index];
    b = e->bl ? bl_ptr(s, e->bl) : 0;
    c.own = vt_slots(s, &e->v);
    c.bl = b ? vt_slots(s, &b->v) : 0;
    if (c.own)
        for (i = 0; i < (1u << e->v.log2); i++)
            if (c.own[i].lo) {
                if (n >= cap)
                    return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "property buffer too small");
                ref[n++] = i;
            }
    if (c.bl)
        for (i = 0; i < (1u << b->v.log2); i++)
            if (c.bl[i].lo &&
                !vt_find(s, &e->v, c.bl[i].hi, c.bl[i].lo & ~(uint64_t)S2_SLOT_FLAGS)) {
                if (n >= cap)
                    return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "property buffer too small");
                ref[n++] = i | 0x80000000u;
            }
    zdem_sort_u32(ref, n, cmp_prop, &c);
    for (i = 0; i < n; i++) {
        const s2_slot *sl = prop_slot(&c, ref[i]);
        zdem_s2_fp fp;
        zdem_s2_value v;
        size_t len;
        zdem_s2_fp_unpack(sl->hi, sl->lo, &fp);
        len = zdem_s2_fp_name(s, e->cls, &fp, name, sizeof name);
        slot_value(s, sl, zdem_s2_resolve_ent(s, s->classes[e->cls].ser, &fp, e), &v);
        if (fn(user, name, len, &v))
            return zdem_fail(err, ZDEM_ERR_ABORTED, 0, "stopped by the property callback");
    }
    return ZDEM_OK;
}
