/* Entities: CSVCMsg_PacketEntities (create / update / leave / delete),
 * baselines from instancebaseline, field-path driven delta decoding.
 *
 * Each entity's values live in its own open-addressing hash table (a pool
 * block of 2^k 24-byte slots keyed by the packed field path), so memory
 * follows the fields actually set, and a delete returns the block. */
#include "source2_state_int.h"
#ifdef S2_DEBUG
#include <stdio.h>
#include <stdlib.h>
#endif

/* ---- keys ------------------------------------------------------------------
 * bits 63..52 c0 (12), 51..40 c1 (12), 39..30 c2 (10), 29..24 c3, 23..18 c4,
 * 17..12 c5, 11..6 c6 (6 each), 5..3 depth, 2..0 flags. Numeric order is
 * field-path order. */
static const uint8_t key_bits[7] = {12, 12, 10, 6, 6, 6, 6};
static const uint8_t key_shift[7] = {52, 40, 30, 24, 18, 12, 6};

uint64_t s2_fp_key(const zdem_s2_fp *fp)
{
    uint64_t k = (uint64_t)fp->depth << 3;
    unsigned i;
    if (fp->depth < 1 || fp->depth > 7)
        return 0;
    for (i = 0; i < fp->depth; i++) {
        if (fp->path[i] >= (1u << key_bits[i]))
            return 0;
        k |= (uint64_t)fp->path[i] << key_shift[i];
    }
    return k;
}

void s2_key_fp(uint64_t key, zdem_s2_fp *fp)
{
    unsigned i;
    memset(fp, 0, sizeof *fp);
    fp->depth = (uint8_t)((key >> 3) & 7u);
    for (i = 0; i < fp->depth; i++)
        fp->path[i] = (uint16_t)((key >> key_shift[i]) & ((1u << key_bits[i]) - 1u));
}

/* ---- per-entity tables ------------------------------------------------------ */

static uint32_t slot_hash(uint64_t key, unsigned log2)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> (64u - log2));
}

static s2_slot *ent_slots(const zdem_s2_state *s, const s2_ent *e)
{
    return e->tab ? (s2_slot *)(void *)(s->base + e->tab) : 0;
}

static s2_slot *ent_find(const zdem_s2_state *s, const s2_ent *e, uint64_t key)
{
    s2_slot *t = ent_slots(s, e);
    uint32_t mask, j;
    if (!t)
        return 0;
    mask = (1u << e->tab_log2) - 1u;
    j = slot_hash(key, e->tab_log2);
    for (;;) {
        if (!t[j].key)
            return 0;
        if ((t[j].key & ~(uint64_t)7u) == key)
            return &t[j];
        j = (j + 1u) & mask;
    }
}

static void free_string(zdem_s2_state *s, s2_slot *sl)
{
    if ((sl->key & S2_SLOT_STRING) && (uint32_t)sl->a)
        s2_pool_free(s, (uint32_t)sl->a, (size_t)(sl->a >> 32) + 1u);
    sl->key &= ~(uint64_t)S2_SLOT_STRING;
    sl->a = 0;
}

static int ent_grow(zdem_s2_state *s, s2_ent *e)
{
    unsigned nlog = e->tab ? e->tab_log2 + 1u : 4u;
    uint32_t off, i, n = e->tab ? (1u << e->tab_log2) : 0u;
    s2_slot *old = ent_slots(s, e), *t;
    if (nlog > 20u)
        return 0;
    off = s2_pool_alloc(s, (sizeof(s2_slot) << nlog));
    if (!off)
        return 0;
    t = (s2_slot *)(void *)(s->base + off);
    memset(t, 0, sizeof(s2_slot) << nlog);
    for (i = 0; i < n; i++) {
        if (old[i].key) {
            uint32_t j = slot_hash(old[i].key & ~(uint64_t)7u, nlog);
            while (t[j].key)
                j = (j + 1u) & ((1u << nlog) - 1u);
            t[j] = old[i];
        }
    }
    if (e->tab)
        s2_pool_free(s, e->tab, sizeof(s2_slot) << e->tab_log2);
    e->tab = off;
    e->tab_log2 = (uint8_t)nlog;
    return 1;
}

static s2_slot *ent_insert(zdem_s2_state *s, s2_ent *e, uint64_t key)
{
    s2_slot *t, *f = ent_find(s, e, key);
    uint32_t j, mask;
    if (f)
        return f;
    if (!e->tab || (e->count + 1u) * 4u > (3u << e->tab_log2)) {
        if (!ent_grow(s, e))
            return 0;
    }
    t = ent_slots(s, e);
    mask = (1u << e->tab_log2) - 1u;
    j = slot_hash(key, e->tab_log2);
    while (t[j].key)
        j = (j + 1u) & mask;
    t[j].key = key;
    t[j].a = t[j].b = 0;
    e->count++;
    return &t[j];
}

static void ent_free(zdem_s2_state *s, s2_ent *e)
{
    s2_slot *t = ent_slots(s, e);
    uint32_t i;
    if (t) {
        for (i = 0; i < (1u << e->tab_log2); i++)
            if (t[i].key & S2_SLOT_STRING)
                free_string(s, &t[i]);
        s2_pool_free(s, e->tab, sizeof(s2_slot) << e->tab_log2);
    }
    if (e->cls >= 0 && s->live)
        s->live--;
    memset(e, 0, sizeof *e);
    e->cls = -1;
}

void s2_entities_clear_all(zdem_s2_state *s)
{
    uint32_t i;
    for (i = 0; i < s->max_ents; i++)
        if (s->ents[i].cls >= 0)
            ent_free(s, &s->ents[i]);
    s->live = 0;
}

/* Stores a decoded value; returns 0 on a full arena. */
static int ent_store(zdem_s2_state *s, s2_ent *e, uint64_t key,
                     const zdem_s2_raw *v)
{
    s2_slot *sl = ent_insert(s, e, key);
    if (!sl)
        return 0;
    if (sl->key & S2_SLOT_STRING)
        free_string(s, sl);
    if (v->kind == ZDEM_S2_V_STRING) {
        uint32_t off = s2_pool_alloc(s, (size_t)v->len + 1u);
        if (!off)
            return 0;
        memcpy(s->base + off, s->strbuf, v->len);
        s->base[off + v->len] = 0;
        sl->a = (uint64_t)off | ((uint64_t)v->len << 32);
        sl->key |= S2_SLOT_STRING;
        return 1;
    }
    memcpy(&sl->a, &v->v, 8);
    if (v->kind == ZDEM_S2_V_VEC)
        memcpy(&sl->b, &v->v.f[2], 8);
    return 1;
}

int s2_ent_raw(const zdem_s2_state *s, const s2_ent *e, const zdem_s2_fp *fp,
               unsigned depth, uint64_t *out)
{
    zdem_s2_fp pre = *fp;
    const s2_slot *sl;
    uint64_t key;
    unsigned i;
    pre.depth = (uint8_t)depth;
    for (i = depth; i < ZDEM_S2_FP_MAX_DEPTH; i++)
        pre.path[i] = 0;
    if (!(key = s2_fp_key(&pre)) || !(sl = ent_find(s, e, key)))
        return 0;
    *out = sl->a;
    return 1;
}

/* ---- baselines ------------------------------------------------------------ */

void s2_baseline_changed(zdem_s2_state *s)
{
    s->baseline_dirty = 1;
}

static void rebuild_baselines(zdem_s2_state *s)
{
    uint32_t i;
    const s2_table *t;
    const s2_st_entry *en;
    s->baseline_dirty = 0;
    for (i = 0; i < s->nclasses; i++)
        s->classes[i].baseline = 0;
    if (s->baseline_table < 0)
        return;
    t = &s->tables[s->baseline_table];
    en = (const s2_st_entry *)(s->base + t->entries);
    for (i = 0; i < t->n; i++) {
        const uint8_t *k = en[i].key ? s->base + en[i].key : 0;
        uint32_t id = 0, j;
        if (!k || !en[i].key_len || en[i].key_len > 6)
            continue;
        for (j = 0; j < en[i].key_len; j++) {
            if (k[j] < '0' || k[j] > '9')
                break;
            id = id * 10u + (uint32_t)(k[j] - '0');
        }
        if (j == en[i].key_len && id < s->nclasses)
            s->classes[id].baseline = i + 1u;
    }
}

/* ---- decoding ---------------------------------------------------------------- */

/* Reads field paths and values from br into entity e. *nfp receives the
 * path count (paths are in s->fps). */
static zdem_status read_fields(zdem_s2_state *s, s2_ent *e, zdem_bits *br,
                               uint32_t *nfp, zdem_error *err)
{
    uint32_t n, i;
    int32_t ser = e->cls >= 0 && (uint32_t)e->cls < s->nclasses ? s->classes[e->cls].ser : -1;
    zdem_status st = zdem_s2_fp_read_all(br, s->fps, s->max_fps, &n, err);
    *nfp = 0;
    if (st != ZDEM_OK)
        return st;
    if (n > s->usage.max_field_paths)
        s->usage.max_field_paths = n;
    for (i = 0; i < n; i++) {
        const zdem_s2_fdec *fd = s2_resolve_ent(s, ser, &s->fps[i], e);
        zdem_s2_raw v;
        uint64_t key;
        if (!fd) {
#ifdef S2_DEBUG
            {
                char nm[256];
                unsigned q;
                fprintf(stderr, "bad fp cls %d (%s) depth %u:", e->cls, zdem_s2_class_name(s, e->cls, 0), s->fps[i].depth);
                for (q = 0; q < s->fps[i].depth; q++)
                    fprintf(stderr, " %u", s->fps[i].path[q]);
                zdem_s2_fp_name(s, e->cls, &s->fps[i], nm, sizeof nm);
                fprintf(stderr, " name %s (i=%u of %u)\n", nm, i, n);
                if (i) {
                    zdem_s2_fp_name(s, e->cls, &s->fps[i-1], nm, sizeof nm);
                    fprintf(stderr, "  prev %s\n", nm);
                }
            }
#endif
            return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br->pos,
                                  "field path does not name a field of the class");
        }
        zdem_s2_decode_value(fd, br, s->tick_interval, &v, s->strbuf, S2_STRBUF);
#ifdef S2_DEBUG
        if (getenv("S2_VALTRACE")) {
            char nm[256];
            zdem_s2_fp_name(s, e->cls, &s->fps[i], nm, sizeof nm);
            fprintf(stderr, "  %s dec %d fk %d = %llu / %g bit %zu\n", nm, fd->dec, fd->fkind, (unsigned long long)v.v.u, (double)v.v.f[0], br->pos);
        }
#endif
        if (br->overflow)
            return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br->pos,
                                  "entity field value runs past the data");
        key = s2_fp_key(&s->fps[i]);
        if (!key)
            s->stats.unstored_fields++;
        else if (!ent_store(s, e, key, &v))
            return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for entity values");
    }
    s->stats.fields_decoded += n;
    *nfp = n;
    return ZDEM_OK;
}

static zdem_status emit(zdem_s2_state *s, int32_t idx, unsigned ops, uint32_t nfp)
{
    zdem_s2_entity pub;
    if (!s->cfg.on_entity)
        return ZDEM_OK;
    if (!zdem_s2_entity_get(s, idx, &pub)) {
        memset(&pub, 0, sizeof pub);
        pub.index = idx;
        pub.class_id = -1;
    }
    return s->cfg.on_entity(s->cfg.user, s, &pub, ops, s->fps, nfp);
}

static zdem_status entity_data(zdem_s2_state *s, const uint8_t *data,
                               size_t size, uint32_t updated, int pvs_bits,
                               int is_delta, zdem_error *err)
{
    zdem_bits br;
    int64_t index = -1;
    uint32_t i;
    zdem_status st;
    if (!s->classes || !s->have_sendtables)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "entities before serializers and classes");
    if (s->baseline_dirty)
        rebuild_baselines(s);
    if (!is_delta && s->live) {
        /* A full snapshot: what it does not mention is gone. */
        for (i = 0; i < s->max_ents; i++) {
            if (s->ents[i].cls >= 0) {
                ent_free(s, &s->ents[i]);
                s->stats.deleted++;
                if ((st = emit(s, (int32_t)i, ZDEM_S2_ENT_DELETED, 0)) != ZDEM_OK)
                    return st;
            }
        }
    }
    zdem_bits_init(&br, data, size);
    for (i = 0; i < updated; i++) {
        uint32_t cmd, nfp = 0;
        s2_ent *e;
        index += (int64_t)zdem_bits_read_ubitvar(&br) + 1;
        cmd = zdem_bits_read(&br, 2);
        if (br.overflow)
            return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br.pos, "entity list runs past the data");
        if (index < 0 || index >= (int64_t)s->max_ents)
            return zdem_fail_bits(err, ZDEM_ERR_LIMIT, br.pos, "entity index beyond max_entities");
        if ((uint32_t)index + 1u > s->usage.max_entity_index)
            s->usage.max_entity_index = (uint32_t)index + 1u;
        e = &s->ents[index];
#ifdef S2_DEBUG
        if (getenv("S2_ENTTRACE"))
            fprintf(stderr, "ent %lld cmd %u cls %d (%s) bit %zu\n", (long long)index, cmd, e->cls, e->cls >= 0 ? zdem_s2_class_name(s, e->cls, 0) : "-", br.pos);
#endif
        if ((cmd & 1u) == 0) {
            if (cmd & 2u) { /* create */
                uint32_t cls = zdem_bits_read(&br, s->class_bits);
                uint32_t serial = zdem_bits_read(&br, 17);
                (void)zdem_bits_read_varuint32(&br);
                if (br.overflow)
                    return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br.pos, "entity create runs past the data");
                if (cls >= s->nclasses || s->classes[cls].ser < 0) {
                    s->stats.unknown_classes++;
                    return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br.pos, "entity of an unknown class");
                }
                if (e->cls >= 0)
                    ent_free(s, e);
                e->cls = (int32_t)cls;
                e->serial = serial;
                e->active = 1;
                s->live++;
                s->stats.created++;
                if (s->classes[cls].baseline && s->baseline_table >= 0) {
                    const s2_table *t = &s->tables[s->baseline_table];
                    uint32_t bi = s->classes[cls].baseline - 1u;
                    if (bi < t->n) {
                        const s2_st_entry *be = &((const s2_st_entry *)(s->base + t->entries))[bi];
                        if (be->val) {
                            zdem_bits bb;
                            zdem_bits_init(&bb, s->base + be->val, be->val_len);
                            st = read_fields(s, e, &bb, &nfp, err);
                            if (st != ZDEM_OK)
                                return st;
                        }
                    }
                }
                if ((st = read_fields(s, e, &br, &nfp, err)) != ZDEM_OK)
                    return st;
                if ((st = emit(s, (int32_t)index, ZDEM_S2_ENT_CREATED, nfp)) != ZDEM_OK)
                    return st;
            } else { /* update */
                if (pvs_bits) {
                    uint32_t pvs = zdem_bits_read(&br, 2);
                    if (pvs & 1u)
                        continue; /* no field data for this entity */
                }
                if (e->cls < 0)
                    return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br.pos, "update of an entity that does not exist");
                if ((st = read_fields(s, e, &br, &nfp, err)) != ZDEM_OK)
                    return st;
                e->active = 1;
                s->stats.entity_updates++;
                if ((st = emit(s, (int32_t)index, ZDEM_S2_ENT_UPDATED, nfp)) != ZDEM_OK)
                    return st;
            }
        } else {
            unsigned ops = ZDEM_S2_ENT_LEFT;
            if (e->cls < 0)
                continue; /* leaving an entity we never had: nothing to do */
            e->active = 0;
            if (cmd & 2u)
                ops |= ZDEM_S2_ENT_DELETED;
            if ((st = emit(s, (int32_t)index, ops, 0)) != ZDEM_OK)
                return st;
            if (cmd & 2u) {
                ent_free(s, e);
                s->stats.deleted++;
            }
        }
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
    h->updated = (uint32_t)m.updated_entries;
    h->is_delta = m.legacy_is_delta != 0;
    h->pvs = m.has_pvs_vis_bits != 0;
    return ZDEM_OK;
}

zdem_status s2_packet_entities(zdem_s2_state *s, const uint8_t *msg, size_t n,
                               zdem_error *err)
{
    pe_hdr h;
    zdem_status st;
    zdem_error e2;
    if ((st = pe_header(msg, n, &h, err)) != ZDEM_OK)
        return st;
    if (!h.has_data)
        return ZDEM_OK;
    zdem_error_clear(&e2);
    st = entity_data(s, h.data.ptr, h.data.len, h.updated, h.pvs, h.is_delta, &e2);
    if (st == ZDEM_ERR_ABORTED || st == ZDEM_ERR_NO_SPACE) {
        if (err && err->code == ZDEM_OK)
            *err = e2;
        return st;
    }
    if (st != ZDEM_OK) {
        /* The rest of this packet cannot be located: report and go on. */
        if (!s->stats.bad_entity_packets)
            s->stats.first_entity_error = e2;
        s->stats.bad_entity_packets++;
    }
    return ZDEM_OK;
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
    if (sl->key & S2_SLOT_STRING) {
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
        out->kind = ZDEM_S2_V_VEC;
        out->n = fd->dec == ZDEM_S2_DEC_VECTOR2 ? 2 : fd->dec == ZDEM_S2_DEC_VECTOR4 ? 4 : 3;
        memcpy(&out->v.f[2], &sl->b, 8);
        break;
    case ZDEM_S2_DEC_STRING:
    case ZDEM_S2_DEC_BLOB:
        out->kind = ZDEM_S2_V_STRING; /* empty */
        out->s = (const uint8_t *)"";
        break;
    default:
        out->kind = ZDEM_S2_V_UINT;
        break;
    }
}

int zdem_s2_entity_prop_fp(const zdem_s2_state *s, int32_t index,
                           const zdem_s2_fp *fp, zdem_s2_value *out)
{
    const s2_ent *e;
    const s2_slot *sl;
    uint64_t key;
    if (index < 0 || (uint32_t)index >= s->max_ents)
        return 0;
    e = &s->ents[index];
    if (e->cls < 0 || !(key = s2_fp_key(fp)))
        return 0;
    sl = ent_find(s, e, key);
    if (!sl)
        return 0;
    slot_value(s, sl, s2_resolve(s, s->classes[e->cls].ser, fp), out);
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
            const s2_ser *sr;
            const uint32_t *idx;
            uint32_t i;
            const s2_field *f = 0;
            if (ser < 0 || (uint32_t)ser >= s->nsers)
                return 0;
            sr = &s->sers[ser];
            idx = (const uint32_t *)(s->base + sr->fields);
            for (i = 0; i < sr->nfields; i++) {
                const s2_field *c;
                if (idx[i] >= s->nfields)
                    continue;
                c = &s->fields[idx[i]];
                if (c->name_len == len && memcmp(s->base + c->name, p, len) == 0) {
                    f = c;
                    break;
                }
            }
            if (!f)
                return 0;
            fp->path[fp->depth++] = (uint16_t)i;
            ser = f->ser;
        }
        p = *dot ? dot + 1 : dot;
    }
    return fp->depth > 0;
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

static void sort_keys(uint64_t *k, uint32_t n)
{
    /* Shell sort: no libc qsort in the runtime, n is a few hundred. */
    static const uint32_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
    unsigned g;
    for (g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        uint32_t gap = gaps[g], i;
        for (i = gap; i < n; i++) {
            uint64_t t = k[i];
            uint32_t j = i;
            while (j >= gap && k[j - gap] > t) {
                k[j] = k[j - gap];
                j -= gap;
            }
            k[j] = t;
        }
    }
}

zdem_status zdem_s2_entity_props(const zdem_s2_state *s, int32_t index,
                                 zdem_s2_prop_fn fn, void *user,
                                 uint64_t *tmp, uint32_t tmp_cap,
                                 zdem_error *err)
{
    const s2_ent *e;
    const s2_slot *t;
    uint32_t i, n = 0;
    char name[512];
    if (index < 0 || (uint32_t)index >= s->max_ents || s->ents[index].cls < 0)
        return ZDEM_OK;
    e = &s->ents[index];
    t = ent_slots(s, e);
    if (!t)
        return ZDEM_OK;
    if (e->count > tmp_cap)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "property buffer too small");
    for (i = 0; i < (1u << e->tab_log2); i++)
        if (t[i].key)
            tmp[n++] = t[i].key & ~(uint64_t)7u;
    sort_keys(tmp, n);
    for (i = 0; i < n; i++) {
        zdem_s2_fp fp;
        zdem_s2_value v;
        s2_key_fp(tmp[i], &fp);
        zdem_s2_fp_name(s, e->cls, &fp, name, sizeof name);
        slot_value(s, ent_find(s, e, tmp[i]), s2_resolve(s, s->classes[e->cls].ser, &fp), &v);
        if (fn(user, name, &v))
            return zdem_fail(err, ZDEM_ERR_ABORTED, 0, "stopped by the property callback");
    }
    return ZDEM_OK;
}
