/* String tables: CSVCMsg_CreateStringTable / CSVCMsg_UpdateStringTable
 * (bit-packed entries with a 32-key history, fixed-size or length-prefixed
 * user data, Snappy- or LZSS-compressed), CSVCMsg_ClearAllStringTables and
 * the full tables of CDemoStringTables.
 *
 * Tables are an array in creation order (their id) with a hash of their
 * names; each table's entries are a hash by index, so memory follows the
 * entries present, not the indexes claimed. Keys and values are copied
 * into arena pool blocks; a value that still fits its block is
 * overwritten in place. */
#include "source2_state_int.h"
#include "zdem_lzss.h"
#include "zdem_snappy.h"
#include "zdem_sort.h"

#define KEY_MAX 1024u
#define HIST 32u
#define HIST_KEEP 32u /* a history reference copies at most 31 bytes */
#define NO_TABLE 0xFFFFFFFFu

/* ---- tables by name -------------------------------------------------------- */

static uint32_t *tab_hash(const zdem_s2_state *s)
{
    return (uint32_t *)s2_ptr(s, s->tab_hash);
}

static int name_is(const zdem_s2_state *s, const s2_table *t, const uint8_t *name, size_t n)
{
    return t->name_len == n && memcmp(s->base + t->name, name, n) == 0;
}

/* Names, like entries, sit at most S2_PROBE_LIMIT slots from their home
 * (a name that finds no room is refused and reported), so a lookup reads
 * at most S2_PROBE_LIMIT + 1 slots whatever the seed. */
static int find_table(const zdem_s2_state *s, const uint8_t *name, size_t n)
{
    const uint32_t *h = tab_hash(s);
    uint32_t mask, j, d;
    if (!h)
        return -1;
    mask = (1u << s->tab_hash_log2) - 1u;
    j = zdem_hash_slot(zdem_hash_bytes(name, n, s->seed), s->tab_hash_log2);
    for (d = 0; d <= S2_PROBE_LIMIT && h[j] != NO_TABLE; d++, j = (j + 1u) & mask)
        if (name_is(s, &s->tables[h[j]], name, n))
            return (int)h[j];
    return -1;
}

/* Puts table id into a hash of 2^log2 slots, within S2_PROBE_LIMIT of its
 * home; 0 when there is no room that close. */
static int hash_put(const zdem_s2_state *s, uint32_t *h, unsigned log2, uint32_t id)
{
    const s2_table *t = &s->tables[id];
    uint32_t mask = (1u << log2) - 1u, d;
    uint32_t j = zdem_hash_slot(zdem_hash_bytes(s->base + t->name, t->name_len, s->seed), log2);
    for (d = 0; d <= S2_PROBE_LIMIT; d++, j = (j + 1u) & mask) {
        if (h[j] == NO_TABLE) {
            h[j] = id;
            return 1;
        }
    }
    return 0;
}

/* Rebuilds the name hash with 2^log2 slots; 0 on a full arena. The old
 * slots are read from just past an empty one, so clusters go in in probe
 * order and no name lands further from its home than it was (one that
 * would is left out of the hash and reported: it cannot happen, the check
 * keeps the lookup bound unconditional). */
static int tab_rehash(zdem_s2_state *s, unsigned log2)
{
    uint32_t off = zdem_s2_pool_alloc(s, (size_t)4u << log2), i;
    uint32_t *h, *old = tab_hash(s), n = old ? 1u << s->tab_hash_log2 : 0u, start = 0;
    if (!off)
        return 0;
    h = (uint32_t *)s2_ptr(s, off);
    memset(h, 0xFF, (size_t)4u << log2);
    while (start < n && old[start] != NO_TABLE)
        start++;
    for (i = 1; i <= n; i++) {
        uint32_t id = old[(start + i) & (n - 1u)];
        if (id != NO_TABLE && !hash_put(s, h, log2, id))
            zdem_s2_warn_msg(s, ZDEM_S2_W_PROBE_LIMIT,
                             "string-table names collide in the hash: a name not found again");
    }
    if (s->tab_hash)
        zdem_s2_pool_free(s, s->tab_hash, (size_t)4u << s->tab_hash_log2);
    s->tab_hash = off;
    s->tab_hash_log2 = (uint8_t)log2;
    return 1;
}

static s2_table *new_table(zdem_s2_state *s, const uint8_t *name, size_t n)
{
    s2_table *t;
    uint32_t id = s->ntables, off;
    if (n > 0xFFFFu)
        n = 0xFFFFu;
    if (s->ntables == s->tables_cap) {
        uint32_t ncap = s->tables_cap ? s->tables_cap * 2u : 16u;
        uint32_t noff = ncap < 0x1000000u ? zdem_s2_pool_alloc(s, (size_t)ncap * sizeof(s2_table)) : 0;
        if (!noff)
            return 0;
        if (s->tables) {
            memcpy(s->base + noff, s->tables, (size_t)s->ntables * sizeof(s2_table));
            zdem_s2_pool_free(s, (uint32_t)((uint8_t *)s->tables - s->base),
                         (size_t)s->tables_cap * sizeof(s2_table));
        }
        s->tables = (s2_table *)s2_ptr(s, noff);
        s->tables_cap = ncap;
    }
    off = zdem_s2_pool_alloc(s, n + 1u);
    if (!off)
        return 0;
    memcpy(s->base + off, name, n);
    s->base[off + n] = 0;
    t = &s->tables[id];
    memset(t, 0, sizeof *t);
    t->name = off;
    t->name_len = (uint32_t)n;
    /* the hash keeps at most 3/4 load */
    if (!s->tab_hash || (s->ntables + 1u) * 4u > (3u << s->tab_hash_log2)) {
        if (!tab_rehash(s, s->tab_hash ? s->tab_hash_log2 + 1u : 5u)) {
            zdem_s2_pool_free(s, off, n + 1u);
            return 0;
        }
    }
    s->ntables++;
    /* crafted names collide: a bigger table (up to 16 slots a name)
     * spreads them; past that the name is refused, reported: the table
     * keeps its id (later updates still find it), but its name finds
     * nothing */
    while (!hash_put(s, tab_hash(s), s->tab_hash_log2, id)) {
        if (s->ntables * 16u > (1u << s->tab_hash_log2) && s->tab_hash_log2 < 30u &&
            tab_rehash(s, s->tab_hash_log2 + 1u))
            continue;
        zdem_s2_warn_msg(s, ZDEM_S2_W_PROBE_LIMIT,
                         "string-table names collide in the hash: a name not found again");
        break;
    }
    if (n == 16 && memcmp(name, "instancebaseline", 16) == 0)
        s->baseline_table = (int)id, t->kind = S2_TK_BASELINE;
    else if (n == 8 && memcmp(name, "userinfo", 8) == 0)
        s->userinfo_table = (int)id, t->kind = S2_TK_USERINFO;
    else if (n == 14 && memcmp(name, "CombatLogNames", 14) == 0)
        s->combatlog_table = (int)id, t->kind = S2_TK_COMBATLOG;
    return t;
}

int zdem_s2_string_table_find(const zdem_s2_state *s, const char *name)
{
    return find_table(s, (const uint8_t *)name, strlen(name));
}

uint32_t zdem_s2_string_table_count(const zdem_s2_state *s)
{
    return s->ntables;
}

const char *zdem_s2_string_table_name(const zdem_s2_state *s, uint32_t i,
                                      uint32_t *name_len)
{
    if (i >= s->ntables)
        return 0;
    if (name_len)
        *name_len = s->tables[i].name_len;
    return (const char *)s->base + s->tables[i].name;
}

const char *zdem_s2_string_table_info(const zdem_s2_state *s, uint32_t i,
                                      uint32_t *entries)
{
    if (i >= s->ntables)
        return 0;
    /* a table's length is its highest index + 1, as the engine counts it
     * (real tables are dense; a crafted one may have holes) */
    if (entries)
        *entries = s->tables[i].max_index;
    return (const char *)s->base + s->tables[i].name;
}

/* ---- entries by index -------------------------------------------------------- */

static s2_st_entry *slots(const zdem_s2_state *s, const s2_table *t)
{
    return (s2_st_entry *)s2_ptr(s, t->slots);
}

/* Entries sit at most S2_PROBE_LIMIT slots from their home (entry_at
 * refuses one that finds no room), so a lookup reads at most
 * S2_PROBE_LIMIT + 1 slots whatever the seed. */
const s2_st_entry *zdem_s2_st_find(const zdem_s2_state *s, const s2_table *t, uint32_t index)
{
    const s2_st_entry *e = slots(s, t);
    uint32_t mask, j, d;
    if (!e)
        return 0;
    mask = (1u << t->log2) - 1u;
    j = zdem_hash_slot(zdem_hash_u64(index, s->seed), t->log2);
    for (d = 0; d <= S2_PROBE_LIMIT && e[j].used; d++, j = (j + 1u) & mask)
        if (e[j].index == index)
            return &e[j];
    return 0;
}

int zdem_s2_string_table_entry(const zdem_s2_state *s, uint32_t i, uint32_t j,
                               const uint8_t **key, uint32_t *key_len,
                               const uint8_t **val, uint32_t *val_len)
{
    const s2_st_entry *e;
    if (i >= s->ntables || !(e = zdem_s2_st_find(s, &s->tables[i], j)))
        return 0;
    *key = e->key ? s->base + e->key : 0;
    *key_len = e->key_len;
    *val = e->val ? s->base + e->val : 0;
    *val_len = e->val_len;
    return 1;
}

/* Places e (from another table) into slots of 2^log2, within
 * S2_PROBE_LIMIT of its home; 0 when there is no room that close. */
static int entry_put(const zdem_s2_state *s, s2_st_entry *t, unsigned log2,
                     const s2_st_entry *e)
{
    uint32_t mask = (1u << log2) - 1u, d;
    uint32_t j = zdem_hash_slot(zdem_hash_u64(e->index, s->seed), log2);
    for (d = 0; d <= S2_PROBE_LIMIT; d++, j = (j + 1u) & mask) {
        if (!t[j].used) {
            t[j] = *e;
            return 1;
        }
    }
    return 0;
}


/* ---- instancebaseline values: shared blobs ---------------------------------
 * A baseline value is kept with a reference count after its NUL. The class
 * baseline decoded from it holds a reference, and an entry found to hold
 * the same bytes takes that blob instead of its own copy
 * (zdem_s2_st_share_value), so a class pointed at another entry with the
 * same bytes knows them by offset (source2_entities.c). */
#define BLOB_REFS 4u

static size_t blob_size(uint32_t len)
{
    return (size_t)len + 1u + BLOB_REFS;
}

void zdem_s2_blob_ref(zdem_s2_state *s, uint32_t off, uint32_t len)
{
    uint32_t r;
    memcpy(&r, s->base + off + len + 1u, 4);
    r++;
    memcpy(s->base + off + len + 1u, &r, 4);
}

void zdem_s2_blob_unref(zdem_s2_state *s, uint32_t off, uint32_t len)
{
    uint32_t r;
    memcpy(&r, s->base + off + len + 1u, 4);
    if (--r == 0)
        zdem_s2_pool_free(s, off, blob_size(len));
    else
        memcpy(s->base + off + len + 1u, &r, 4);
}

/* set_blob for a shared value: a new blob unless the bytes are there. */
static int set_shared(zdem_s2_state *s, uint32_t *off, uint32_t *len,
                      const uint8_t *p, uint32_t n)
{
    uint32_t one = 1;
    if (*off && *len == n && (n == 0 || memcmp(s->base + *off, p, n) == 0))
        return 2;
    if (*off)
        zdem_s2_blob_unref(s, *off, *len);
    *off = zdem_s2_pool_alloc(s, blob_size(n));
    if (!*off) {
        *len = 0;
        return 0;
    }
    if (n)
        memcpy(s->base + *off, p, n);
    s->base[*off + n] = 0;
    memcpy(s->base + *off + n + 1u, &one, 4);
    *len = n;
    return 1;
}

void zdem_s2_st_share_value(zdem_s2_state *s, const s2_st_entry *e, uint32_t blob)
{
    s2_st_entry *m = (s2_st_entry *)e; /* an entry of the arena, found read-only */
    zdem_s2_blob_ref(s, blob, m->val_len);
    zdem_s2_blob_unref(s, m->val, m->val_len);
    m->val = blob;
}

/* An entry goes away: its blobs are freed, a baseline's class forgets it. */
static void drop_entry(zdem_s2_state *s, const s2_table *t, const s2_st_entry *e)
{
    if (t->kind == S2_TK_BASELINE) {
        int32_t c = zdem_s2_st_baseline_class(s, e);
        if (c >= 0 && s->classes[c].bl_entry == e->index + 1u) {
            s->classes[c].bl_entry = 0;
            zdem_s2_baseline_changed(s, (uint32_t)c);
        }
    }
    if (e->key)
        zdem_s2_pool_free(s, e->key, (size_t)e->key_len + 1u);
    if (e->val && t->kind == S2_TK_BASELINE)
        zdem_s2_blob_unref(s, e->val, e->val_len);
    else if (e->val)
        zdem_s2_pool_free(s, e->val, (size_t)e->val_len + 1u);
}

/* Moves a table's entries into 2^log2 fresh slots, keeping those with
 * index < keep_below; 0 on a full arena. The old slots are read from just
 * past an empty one, so clusters go in in probe order and no entry lands
 * further from its home than it was (one that would is dropped and
 * reported: it cannot happen, the check keeps the lookup bound
 * unconditional). */
static int entries_rehash(zdem_s2_state *s, s2_table *t, unsigned log2, uint32_t keep_below)
{
    uint32_t off = zdem_s2_pool_alloc(s, sizeof(s2_st_entry) << log2), i, n = 0, top = 0;
    uint32_t nold = t->slots ? 1u << t->log2 : 0u, start = 0;
    s2_st_entry *old = slots(s, t), *neu;
    if (!off)
        return 0;
    neu = (s2_st_entry *)s2_ptr(s, off);
    /* used == 0 marks an empty slot and every reader tests it first; an
     * entry is written whole when it lands (entry_put, entry_get) */
    for (i = 0; i < (1u << log2); i++)
        neu[i].used = 0;
    while (start < nold && old[start].used)
        start++;
    for (i = 1; i <= nold; i++) {
        const s2_st_entry *o = &old[(start + i) & (nold - 1u)];
        if (!o->used)
            continue;
        if (o->index >= keep_below) {
            drop_entry(s, t, o);
            continue;
        }
        if (!entry_put(s, neu, log2, o)) {
            drop_entry(s, t, o);
            zdem_s2_warn_msg(s, ZDEM_S2_W_PROBE_LIMIT,
                             "string-table indexes collide in the hash: entry dropped");
            continue;
        }
        n++;
        if (o->index + 1u > top)
            top = o->index + 1u;
    }
    if (old)
        zdem_s2_pool_free(s, t->slots, sizeof(s2_st_entry) << t->log2);
    t->slots = off;
    t->log2 = (uint8_t)log2;
    t->n = n;
    t->max_index = top;
    return 1;
}

/* The entry at index, created empty if absent (*out): 1. An index that
 * finds no free slot within S2_PROBE_LIMIT of its home, once the table has
 * grown as far as its load allows (16 slots an entry), is refused and
 * reported: -1 (crafted indexes only). 0 on a full arena. One pass finds
 * or places. */
static int entry_at(zdem_s2_state *s, s2_table *t, uint32_t index, s2_st_entry **out)
{
    for (;;) {
        s2_st_entry *sl = slots(s, t);
        if (sl) {
            uint32_t mask = (1u << t->log2) - 1u, d;
            uint32_t j = zdem_hash_slot(zdem_hash_u64(index, s->seed), t->log2);
            for (d = 0; d <= S2_PROBE_LIMIT && sl[j].used; d++, j = (j + 1u) & mask) {
                if (sl[j].index == index) {
                    *out = &sl[j];
                    return 1;
                }
            }
            if (d <= S2_PROBE_LIMIT) {
                if ((t->n + 1u) * 4u <= (3u << t->log2)) {
                    s2_st_entry *e = &sl[j];
                    memset(e, 0, sizeof *e);
                    e->used = 1;
                    e->index = index;
                    t->n++;
                    if (index + 1u > t->max_index)
                        t->max_index = index + 1u;
                    *out = e;
                    return 1;
                }
            } else if ((t->n + 1u) * 16u <= (1u << t->log2) || t->log2 >= 27u) {
                zdem_s2_warn_msg(s, ZDEM_S2_W_PROBE_LIMIT,
                                 "string-table indexes collide in the hash: entry not kept");
                return -1;
            }
            /* over 3/4 full, or crafted indexes collide: a bigger table
             * (up to 16 slots an entry) spreads them */
        }
        if (!entries_rehash(s, t, sl ? t->log2 + 1u : 4u, 0xFFFFFFFFu))
            return 0;
    }
}

zdem_status zdem_s2_string_table_each(const zdem_s2_state *s, uint32_t i,
                                      zdem_s2_entry_fn fn, void *user,
                                      uint32_t *tmp, uint32_t cap,
                                      zdem_error *err)
{
    const s2_table *t;
    const s2_st_entry *e;
    uint32_t k, n = 0;
    if (i >= s->ntables)
        return ZDEM_OK;
    t = &s->tables[i];
    if (t->n > cap)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "ordering buffer smaller than the table");
    e = slots(s, t);
    for (k = 0; e && k < (1u << t->log2); k++)
        if (e[k].used)
            tmp[n++] = e[k].index;
    zdem_sort_u32_values(tmp, n);
    for (k = 0; k < n; k++) {
        const s2_st_entry *x = zdem_s2_st_find(s, t, tmp[k]);
        if (fn(user, x->index, x->key ? s->base + x->key : 0, x->key_len,
               x->val ? s->base + x->val : 0, x->val_len))
            return zdem_fail(err, ZDEM_ERR_ABORTED, 0, "stopped by the entry callback");
    }
    return ZDEM_OK;
}

/* Replaces a blob (key or value): reuses the block when the size class
 * still fits. Returns 0 on a full arena, 1 when set, 2 when the bytes were
 * already there. */
static int set_blob(zdem_s2_state *s, uint32_t *off, uint32_t *len,
                    const uint8_t *p, uint32_t n)
{
    size_t need = (size_t)n + 1u, have = *off ? (size_t)*len + 1u : 0u;
    if (*off && *len == n && (n == 0 || memcmp(s->base + *off, p, n) == 0))
        return 2;
    if (*off) {
        size_t cls_have = 16u, cls_need = 16u;
        while (cls_have < have)
            cls_have <<= 1;
        while (cls_need < need)
            cls_need <<= 1;
        if (cls_have != cls_need) {
            zdem_s2_pool_free(s, *off, have);
            *off = 0;
        }
    }
    if (!*off) {
        *off = zdem_s2_pool_alloc(s, need);
        if (!*off) {
            *len = 0;
            return 0;
        }
    }
    if (n)
        memcpy(s->base + *off, p, n);
    s->base[*off + n] = 0;
    *len = n;
    return 1;
}

/* ---- baselines: instancebaseline keys are class ids ------------------------ */

int32_t zdem_s2_st_baseline_class(const zdem_s2_state *s, const s2_st_entry *e)
{
    const uint8_t *k = e->key ? s->base + e->key : 0;
    uint32_t id = 0, j;
    if (!k || !e->key_len || e->key_len > 6)
        return -1;
    for (j = 0; j < e->key_len; j++) {
        if (k[j] < '0' || k[j] > '9')
            return -1;
        id = id * 10u + (uint32_t)(k[j] - '0');
    }
    return id < s->nclasses ? (int32_t)id : -1;
}

/* A baseline entry was set: its class uses it from now on. */
static void baseline_set(zdem_s2_state *s, const s2_st_entry *e, int changed)
{
    int32_t c = zdem_s2_st_baseline_class(s, e);
    if (c < 0)
        return;
    if (s->classes[c].bl_entry != e->index + 1u) {
        s->classes[c].bl_entry = e->index + 1u;
        changed = 1;
    }
    if (changed)
        zdem_s2_baseline_changed(s, (uint32_t)c);
}

void zdem_s2_st_map_baselines(zdem_s2_state *s)
{
    const s2_table *t;
    const s2_st_entry *e;
    uint32_t k;
    if (s->baseline_table < 0)
        return;
    t = &s->tables[s->baseline_table];
    e = slots(s, t);
    for (k = 0; e && k < (1u << t->log2); k++)
        if (e[k].used && e[k].val)
            baseline_set(s, &e[k], 1);
}

/* Sets an entry's key and/or value; 0 on a full arena. */
static int set_entry(zdem_s2_state *s, s2_table *t, uint32_t index,
                     const uint8_t *key, uint32_t key_len, int has_key,
                     const uint8_t *val, uint32_t val_len, int has_val)
{
    s2_st_entry *e;
    int rk = 2, rv = 2, r = entry_at(s, t, index, &e);
    if (r <= 0)
        return r < 0; /* refused: reported, the entry not kept */
    if (has_key && !(rk = set_blob(s, &e->key, &e->key_len, key, key_len)))
        return 0;
    if (has_val && !(rv = t->kind == S2_TK_BASELINE
                              ? set_shared(s, &e->val, &e->val_len, val, val_len)
                              : set_blob(s, &e->val, &e->val_len, val, val_len)))
        return 0;
    if (t->kind == S2_TK_BASELINE && e->val && (rk == 1 || rv == 1))
        baseline_set(s, e, rv == 1);
    if (t->kind == S2_TK_USERINFO)
        s->userinfo_changes++;
    return 1;
}

void zdem_s2_st_clear_all(zdem_s2_state *s)
{
    uint32_t i;
    for (i = 0; i < s->ntables; i++) {
        s2_table *t = &s->tables[i];
        s2_st_entry *e = slots(s, t);
        uint32_t k;
        for (k = 0; e && k < (1u << t->log2); k++)
            if (e[k].used)
                drop_entry(s, t, &e[k]);
        if (t->slots)
            zdem_s2_pool_free(s, t->slots, sizeof(s2_st_entry) << t->log2);
        zdem_s2_pool_free(s, t->name, (size_t)t->name_len + 1u);
    }
    s->ntables = 0;
    if (s->tab_hash)
        memset(tab_hash(s), 0xFF, (size_t)4u << s->tab_hash_log2);
    s->baseline_table = s->userinfo_table = s->combatlog_table = -1;
    s->userinfo_changes++;
}

/* ---- bit-packed entries ---------------------------------------------------- */

typedef struct entry_buf {
    uint8_t *valbuf; /* unaligned values and their decompression */
    size_t valcap;
} entry_buf;

/* Reads one length-prefixed value (maybe Snappy) at br; *val NULL when it
 * was skipped over a limit (reported). */
static zdem_status read_value(zdem_s2_state *s, const s2_table *t, zdem_bits *br,
                              const uint8_t *data, const entry_buf *eb,
                              const uint8_t **val, size_t *val_len, zdem_error *err)
{
    int compressed = 0;
    uint32_t n;
    if (t->flags & 1)
        compressed = (int)zdem_bits_read(br, 1);
    n = t->varint_bitcounts ? zdem_bits_read_ubitvar(br) : zdem_bits_read(br, 17);
    if (n > zdem_bits_left(br) / 8u)
        return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br->pos,
                              "string-table value runs past the data");
    *val = 0;
    *val_len = n;
    if ((br->pos & 7u) == 0) {
        *val = data + br->pos / 8u;
        br->pos += (size_t)n * 8u;
    } else if (eb->valbuf && n <= eb->valcap) {
        zdem_bits_read_bytes(br, eb->valbuf, n);
        *val = eb->valbuf;
    } else {
        zdem_bits_skip(br, (size_t)n * 8u);
        zdem_s2_warn_msg(s, ZDEM_S2_W_TABLE_LIMIT, "string-table value larger than tmp_size/2: not kept");
        return ZDEM_OK;
    }
    if (compressed) {
        size_t ulen = 0, out = 0, room;
        uint8_t *dst = (*val == eb->valbuf) ? eb->valbuf + n : eb->valbuf;
        zdem_error e2;
        zdem_error_clear(&e2);
        room = eb->valbuf ? eb->valcap - (size_t)(dst - eb->valbuf) : 0;
        if (zdem_snappy_uncompressed_length(*val, n, &ulen, &e2) != ZDEM_OK)
            return zdem_fail_bits(err, ZDEM_ERR_SNAPPY, br->pos, "bad Snappy string-table value");
        if (ulen > room) {
            *val = 0;
            zdem_s2_warn_msg(s, ZDEM_S2_W_TABLE_LIMIT,
                        "string-table value decompresses past tmp_size/2: not kept");
            return ZDEM_OK;
        }
        if (!zdem_s2_spend(s, ZDEM_S2_WORK_EXPAND, ulen, "work limit max_expand_per_byte: "
                                          "string-table value not decompressed")) {
            *val = 0;
            return ZDEM_OK;
        }
        if (zdem_snappy_decompress(*val, n, dst, room, &out, &e2) != ZDEM_OK)
            return zdem_fail_bits(err, ZDEM_ERR_SNAPPY, br->pos, "bad Snappy string-table value");
        *val = dst;
        *val_len = out;
    }
    return ZDEM_OK;
}

/* zdem_bits_read_cstr for entry keys, 7 bytes a 64-bit window while 64
 * bits are left (a signon reads thousands of keys): the same bytes kept,
 * the same end. */
static uint32_t read_key(zdem_bits *br, uint8_t *out, uint32_t cap)
{
    uint32_t n = 0;
    while (zdem_bits__fast(br)) {
        uint64_t w = zdem_bits__window(br);
        unsigned k;
        for (k = 0; k < 7u; k++, w >>= 8) {
            uint32_t c = (uint32_t)w & 0xFFu;
            br->pos += 8u;
            if (c == 0)
                return n;
            if (n < cap)
                out[n++] = (uint8_t)c;
        }
    }
    return n + zdem_bits_read_cstr(br, out + n, cap - n);
}

/* count entries of string data; *done: how many were read */
static zdem_status read_entries(zdem_s2_state *s, s2_table *t,
                                const uint8_t *data, size_t size,
                                uint32_t count, uint32_t *done, zdem_error *err)
{
    zdem_bits br;
    int64_t index = -1;
    uint8_t hist[HIST][HIST_KEEP];
    uint8_t hist_len[HIST];
    uint32_t hist_start = 0, hist_n = 0, i;
    uint8_t key[KEY_MAX];
    entry_buf eb;
    zdem_status st;

    eb.valbuf = s->tmp ? s->tmp + s->tmp_size / 2u : 0;
    eb.valcap = s->tmp_size - s->tmp_size / 2u;
    zdem_bits_init(&br, data, size);
    for (i = 0; i < count; i++) {
        uint32_t key_len = 0;
        int has_key, has_val;
        const uint8_t *val = 0;
        size_t val_len = 0;
        uint8_t vtmp[256];

        *done = i;
        if (zdem_bits_read(&br, 1))
            index++;
        else
            index = (int64_t)zdem_bits_read_varuint32(&br) + 1;
        has_key = (int)zdem_bits_read(&br, 1);
        if (has_key) {
            if (zdem_bits_read(&br, 1)) {
                uint32_t pos = zdem_bits_read(&br, 5), sz = zdem_bits_read(&br, 5);
                if (pos >= hist_n)
                    return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br.pos,
                                          "string-table key refers past its history");
                {
                    uint32_t h = (hist_start + pos) % HIST;
                    if (sz > hist_len[h])
                        sz = hist_len[h];
                    memcpy(key, hist[h], sz);
                    key_len = sz;
                }
                key_len += read_key(&br, key + key_len, KEY_MAX - 1u - key_len);
            } else
                key_len = read_key(&br, key, KEY_MAX - 1u);
            {
                /* ring of the last 32 keys; position 0 is the oldest */
                uint32_t slot, keep = key_len < HIST_KEEP ? key_len : HIST_KEEP;
                if (hist_n < HIST)
                    slot = (hist_start + hist_n++) % HIST;
                else {
                    slot = hist_start;
                    hist_start = (hist_start + 1u) % HIST;
                }
                memcpy(hist[slot], key, keep);
                hist_len[slot] = (uint8_t)keep;
            }
        }
        has_val = (int)zdem_bits_read(&br, 1);
        if (has_val) {
            if (t->user_data_fixed) {
                uint32_t bits = (uint32_t)t->user_data_size_bits;
                uint32_t nbytes = (bits + 7u) / 8u, b;
                if (t->user_data_size_bits < 0 || bits > 8u * sizeof vtmp)
                    return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br.pos,
                                          "fixed string-table user data too large");
                for (b = 0; b < nbytes; b++) {
                    unsigned take = bits - b * 8u >= 8u ? 8u : bits - b * 8u;
                    vtmp[b] = (uint8_t)zdem_bits_read(&br, take);
                }
                val = vtmp;
                val_len = nbytes;
            } else if ((st = read_value(s, t, &br, data, &eb, &val, &val_len, err)) != ZDEM_OK) {
                return st;
            } else if (!val) {
                has_val = 0; /* over a limit: reported, not kept */
            }
        }
        if (br.overflow)
            return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br.pos,
                                  "string-table entries run past the data");
        if (index < 0 || index > 0x7FFFFFFF)
            return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br.pos,
                                  "string-table index out of range");
        if (!set_entry(s, t, (uint32_t)index, key, key_len, has_key, val,
                       (uint32_t)val_len, has_val))
            return zdem_fail_bits(err, ZDEM_ERR_NO_SPACE, br.pos, "arena too small for string tables");
    }
    *done = count;
    return ZDEM_OK;
}

/* The entries the budget allows (items per input byte), counted as read;
 * the rest of the message is skipped past it. */
static zdem_status parse_entries(zdem_s2_state *s, s2_table *t,
                                 const uint8_t *data, size_t size,
                                 uint32_t count, zdem_error *err)
{
    uint64_t left = zdem_s2_work_left(&s->work, ZDEM_S2_WORK_ITEMS);
    uint32_t n = count <= left ? count : (uint32_t)left, done = 0;
    zdem_status st = read_entries(s, t, data, size, n, &done, err);
    s->work.used[ZDEM_S2_WORK_ITEMS] += done;
    if (st == ZDEM_OK && n < count)
        zdem_s2_warn_msg(s, ZDEM_S2_W_WORK_LIMIT,
                         "work limit max_items_per_byte: rest of a string-table message skipped");
    return st;
}

/* Entry data of a create or update; compressed data is inflated into the
 * first half of tmp. Error offsets are made relative to msg. */
static zdem_status table_data(zdem_s2_state *s, s2_table *t, const uint8_t *msg,
                              zdem_view sd, int compressed, uint32_t count,
                              zdem_error *err)
{
    const uint8_t *data = sd.ptr;
    size_t len = sd.len, half = s->tmp_size / 2u, ulen = 0, out = 0;
    uint64_t base = (uint64_t)(sd.ptr - msg);
    zdem_error e;
    zdem_status st;
    zdem_error_clear(&e);
    if (s->cfg.events_only && t->kind != S2_TK_USERINFO && t->kind != S2_TK_COMBATLOG)
        return ZDEM_OK; /* events mode: the table exists (ids), its data is not read */
    if (!zdem_s2_work_left(&s->work, ZDEM_S2_WORK_ITEMS)) {
        /* no entry could be read: not decompressed either */
        zdem_s2_warn_msg(s, ZDEM_S2_W_WORK_LIMIT,
                         "work limit max_items_per_byte: string-table message skipped");
        return ZDEM_OK;
    }
    if (compressed) {
        int lzss = zdem_lzss_has_magic(data, len);
        st = lzss ? zdem_lzss_uncompressed_length(data, len, &ulen, &e)
                  : zdem_snappy_uncompressed_length(data, len, &ulen, &e);
        if (st != ZDEM_OK)
            goto fail;
        if (!s->tmp || ulen > half) {
            zdem_s2_warn_msg(s, ZDEM_S2_W_TABLE_LIMIT,
                        "string-table data decompresses past tmp_size/2: skipped");
            return ZDEM_OK;
        }
        if (!zdem_s2_spend(s, ZDEM_S2_WORK_EXPAND, ulen, "work limit max_expand_per_byte: "
                                          "string-table data not decompressed"))
            return ZDEM_OK;
        st = lzss ? zdem_lzss_decompress(data, len, s->tmp, half, &out, &e)
                  : zdem_snappy_decompress(data, len, s->tmp, half, &out, &e);
        if (st != ZDEM_OK)
            goto fail;
        data = s->tmp;
        len = out;
    }
    st = parse_entries(s, t, data, len, count, &e);
    if (st == ZDEM_OK)
        return ZDEM_OK;
    /* inside inflated data there is no message position: name the blob */
    if (compressed) {
        e.offset = 0;
        e.offset_is_bits = 0;
    }
fail:
    zdem_error_rebase(&e, base);
    if (err && err->code == ZDEM_OK)
        *err = e;
    return st;
}

zdem_status zdem_s2_st_create(zdem_s2_state *s, const uint8_t *msg, size_t n,
                         zdem_error *err)
{
    zdem_pb_CSVCMsg_CreateStringTable m;
    zdem_status st;
    int k;
    s2_table *t;
    if ((st = zdem_pb_CSVCMsg_CreateStringTable_decode(msg, n, &m, NULL, NULL, err)) != ZDEM_OK)
        return st;
    if (!m.has_name)
        return ZDEM_OK;
    /* A table id is its creation order; a name created again without a
     * ClearAllStringTables in between keeps its table. */
    k = find_table(s, m.name.ptr, m.name.len);
    t = k >= 0 ? &s->tables[k] : new_table(s, m.name.ptr, m.name.len);
    if (!t)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for string tables");
    t->user_data_fixed = m.user_data_fixed_size != 0;
    t->user_data_size_bits = m.user_data_size_bits;
    t->flags = m.flags;
    t->varint_bitcounts = m.using_varint_bitcounts != 0;
    if (!m.has_string_data || m.num_entries <= 0)
        return ZDEM_OK;
    return table_data(s, t, msg, m.string_data, m.data_compressed != 0,
                      (uint32_t)m.num_entries, err);
}

zdem_status zdem_s2_st_update(zdem_s2_state *s, const uint8_t *msg, size_t n,
                         zdem_error *err)
{
    zdem_pb_CSVCMsg_UpdateStringTable m;
    zdem_status st;
    if ((st = zdem_pb_CSVCMsg_UpdateStringTable_decode(msg, n, &m, NULL, NULL, err)) != ZDEM_OK)
        return st;
    if (!m.has_table_id || m.table_id < 0 || (uint32_t)m.table_id >= s->ntables)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "update of an unknown string table");
    if (!m.has_string_data || m.num_changed_entries <= 0)
        return ZDEM_OK;
    return table_data(s, &s->tables[m.table_id], msg, m.string_data, 0,
                      (uint32_t)m.num_changed_entries, err);
}

/* ---- CDemoStringTables: tables by name, items in index order ------------- */

typedef struct dt_ctx {
    zdem_s2_state *s;
    zdem_error *err;
    s2_table *t;
    uint32_t idx; /* next item's index */
    int full;     /* arena full: the rest of the table is dropped */
    int over;     /* work budget spent: the rest of the table is dropped */
} dt_ctx;

static zdem_status dt_item(void *user, const zdem_pb_CDemoStringTables_items_t *m,
                           zdem_view raw)
{
    dt_ctx *c = (dt_ctx *)user;
    uint32_t idx = c->idx++;
    (void)raw;
    if (c->full || c->over)
        return ZDEM_OK;
    if (!zdem_s2_spend(c->s, ZDEM_S2_WORK_ITEMS, 1, "work limit max_items_per_byte: "
                                                   "rest of a string-table dump skipped")) {
        c->over = 1;
        return ZDEM_OK;
    }
    if (!set_entry(c->s, c->t, idx, m->str.ptr, m->str.len, m->has_str, m->data.ptr,
                   m->data.len, m->has_data))
        c->full = 1;
    return ZDEM_OK;
}

/* One table: the name comes first (the outer pass decoded it, items
 * skipped), then its raw bytes again for the items. */
static zdem_status dt_table(void *user, const zdem_pb_CDemoStringTables_table_t *m,
                            zdem_view raw)
{
    static const zdem_pb_CDemoStringTables_table_t_cb items = {dt_item, NULL};
    s2_pbctx *c = (s2_pbctx *)user;
    zdem_s2_state *s = c->s;
    zdem_pb_CDemoStringTables_table_t tt;
    dt_ctx d;
    zdem_status st;
    zdem_error e;
    s2_table *t;
    int ti;
    if (!m->has_table_name)
        return ZDEM_OK;
    s->cur_base = (uint64_t)(raw.ptr - c->msg);
    ti = find_table(s, m->table_name.ptr, m->table_name.len);
    t = ti >= 0 ? &s->tables[ti] : new_table(s, m->table_name.ptr, m->table_name.len);
    if (!t) {
        zdem_s2_warn_msg(s, ZDEM_S2_W_ARENA_FULL, "arena too small for string tables");
        return ZDEM_OK;
    }
    if (s->cfg.events_only && t->kind != S2_TK_USERINFO && t->kind != S2_TK_COMBATLOG)
        return ZDEM_OK;
    d.s = s;
    d.err = c->err;
    d.t = t;
    d.idx = 0;
    d.full = 0;
    d.over = 0;
    zdem_error_clear(&e);
    st = zdem_pb_CDemoStringTables_table_t_decode(raw.ptr, raw.len, &tt, &items, &d, &e);
    if (d.full)
        zdem_s2_warn_msg(s, ZDEM_S2_W_ARENA_FULL, "arena too small for string tables");
    if (st != ZDEM_OK) {
        zdem_s2_state_warn(s, ZDEM_S2_W_BAD_STRING_TABLES, &e);
        return ZDEM_OK;
    }
    /* the dump is the whole table: entries past it are gone (unless the
     * budget cut it short) */
    if (t->kind == S2_TK_USERINFO)
        s->userinfo_changes++;
    if (!d.over && t->n > d.idx && !entries_rehash(s, t, t->log2, d.idx))
        zdem_s2_warn_msg(s, ZDEM_S2_W_ARENA_FULL, "arena too small for string tables");
    return ZDEM_OK;
}

const zdem_pb_CDemoStringTables_cb zdem_s2_st_demo_tables_cb = {dt_table, NULL};

zdem_status zdem_s2_st_demo_tables(zdem_s2_state *s, const uint8_t *msg, size_t n,
                              zdem_error *err)
{
    zdem_pb_CDemoStringTables m;
    s2_pbctx c;
    c.s = s;
    c.err = err;
    c.msg = msg;
    return zdem_pb_CDemoStringTables_decode(msg, n, &m, &zdem_s2_st_demo_tables_cb, &c, err);
}
