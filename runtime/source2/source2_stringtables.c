/* String tables: CSVCMsg_CreateStringTable / CSVCMsg_UpdateStringTable
 * (bit-packed entries with a 32-key history, fixed-size or length-prefixed
 * user data, optionally Snappy-compressed) and the full tables of
 * CDemoStringTables. Keys and values are copied into arena pool blocks;
 * a value that still fits its block is overwritten in place. */
#include "source2_state_int.h"
#include "zdem_snappy.h"

#define KEY_MAX 1024u
#define HIST 32u
#define HIST_KEEP 32u /* a history reference copies at most 31 bytes */

static int find_table(const zdem_s2_state *s, const uint8_t *name, size_t n)
{
    uint32_t i;
    for (i = 0; i < s->ntables; i++)
        if (strlen(s->tables[i].name) == n && memcmp(s->tables[i].name, name, n) == 0)
            return (int)i;
    return -1;
}

int zdem_s2_string_table_find(const zdem_s2_state *s, const char *name)
{
    return find_table(s, (const uint8_t *)name, strlen(name));
}

uint32_t zdem_s2_string_table_count(const zdem_s2_state *s)
{
    return s->ntables;
}

const char *zdem_s2_string_table_info(const zdem_s2_state *s, uint32_t i,
                                      uint32_t *entries)
{
    if (i >= s->ntables)
        return 0;
    if (entries)
        *entries = s->tables[i].n;
    return s->tables[i].name;
}

int zdem_s2_string_table_entry(const zdem_s2_state *s, uint32_t i, uint32_t j,
                               const uint8_t **key, uint32_t *key_len,
                               const uint8_t **val, uint32_t *val_len)
{
    const s2_table *t;
    const s2_st_entry *e;
    if (i >= s->ntables || j >= s->tables[i].n)
        return 0;
    t = &s->tables[i];
    e = &((const s2_st_entry *)(s->base + t->entries))[j];
    *key = e->key ? s->base + e->key : 0;
    *key_len = e->key_len;
    *val = e->val ? s->base + e->val : 0;
    *val_len = e->val_len;
    return 1;
}

static s2_table *new_table(zdem_s2_state *s, const uint8_t *name, size_t n)
{
    s2_table *t;
    if (s->ntables >= S2_MAX_TABLES)
        return 0;
    t = &s->tables[s->ntables++];
    memset(t, 0, sizeof *t);
    if (n > sizeof t->name - 1u)
        n = sizeof t->name - 1u;
    memcpy(t->name, name, n);
    t->name[n] = 0;
    if (strcmp(t->name, "instancebaseline") == 0)
        s->baseline_table = (int)(t - s->tables);
    return t;
}

static s2_st_entry *entry_at(zdem_s2_state *s, s2_table *t, uint32_t idx)
{
    s2_st_entry *e;
    if (idx >= t->cap) {
        uint32_t ncap = t->cap ? t->cap : 16u, off;
        while (ncap <= idx) {
            if (ncap >= (1u << 20))
                return 0; /* beyond any real table */
            ncap *= 2u;
        }
        off = s2_pool_alloc(s, (size_t)ncap * sizeof(s2_st_entry));
        if (!off)
            return 0;
        if (t->entries) {
            memcpy(s->base + off, s->base + t->entries, (size_t)t->n * sizeof(s2_st_entry));
            s2_pool_free(s, t->entries, (size_t)t->cap * sizeof(s2_st_entry));
        }
        t->entries = off;
        t->cap = ncap;
    }
    e = (s2_st_entry *)(s->base + t->entries);
    while (t->n <= idx) {
        memset(&e[t->n], 0, sizeof(s2_st_entry));
        t->n++;
    }
    return &e[idx];
}

/* Replaces a blob (key or value): reuses the block when the size class
 * still fits. Returns 0 on a full arena. */
static int set_blob(zdem_s2_state *s, uint32_t *off, uint32_t *len,
                    const uint8_t *p, uint32_t n)
{
    size_t need = (size_t)n + 1u, have = *off ? (size_t)*len + 1u : 0u;
    if (*off) {
        size_t cls_have = 16u, cls_need = 16u;
        while (cls_have < have)
            cls_have <<= 1;
        while (cls_need < need)
            cls_need <<= 1;
        if (cls_have != cls_need) {
            s2_pool_free(s, *off, have);
            *off = 0;
        }
    }
    if (!*off) {
        *off = s2_pool_alloc(s, need);
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

static zdem_status parse_entries(zdem_s2_state *s, s2_table *t,
                                 const uint8_t *data, size_t size,
                                 uint32_t count, zdem_error *err)
{
    zdem_bits br;
    int64_t index = -1;
    uint8_t hist[HIST][HIST_KEEP];
    uint8_t hist_len[HIST];
    uint32_t hist_start = 0, hist_n = 0, i;
    uint8_t key[KEY_MAX];
    uint8_t *valbuf = s->tmp ? s->tmp + s->tmp_size / 2u : 0;
    size_t valcap = s->tmp_size - s->tmp_size / 2u;
    int is_baseline = s->baseline_table >= 0 && t == &s->tables[s->baseline_table];

    zdem_bits_init(&br, data, size);
    for (i = 0; i < count; i++) {
        uint32_t key_len = 0;
        int has_key, has_val;
        const uint8_t *val = 0;
        size_t val_len = 0;
        s2_st_entry *e;
        uint8_t vtmp[256];

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
                key_len += zdem_bits_read_cstr(&br, key + key_len, KEY_MAX - 1u - key_len);
            } else
                key_len = zdem_bits_read_cstr(&br, key, KEY_MAX - 1u);
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
                if (bits > 8u * sizeof vtmp)
                    return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br.pos,
                                          "fixed string-table user data too large");
                for (b = 0; b < nbytes; b++) {
                    unsigned take = bits - b * 8u >= 8u ? 8u : bits - b * 8u;
                    vtmp[b] = (uint8_t)zdem_bits_read(&br, take);
                }
                val = vtmp;
                val_len = nbytes;
            } else {
                int compressed = 0;
                uint32_t n;
                if (t->flags & 1)
                    compressed = (int)zdem_bits_read(&br, 1);
                n = t->varint_bitcounts ? zdem_bits_read_ubitvar(&br)
                                        : zdem_bits_read(&br, 17);
                if (n > zdem_bits_left(&br) / 8u)
                    return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br.pos,
                                          "string-table value runs past the data");
                if ((br.pos & 7u) == 0) {
                    val = data + br.pos / 8u;
                    br.pos += (size_t)n * 8u;
                } else {
                    if (!valbuf || n > valcap)
                        return zdem_fail_bits(err, ZDEM_ERR_NO_SPACE, br.pos,
                                              "string-table value larger than tmp_size/2");
                    zdem_bits_read_bytes(&br, valbuf, n);
                    val = valbuf;
                }
                val_len = n;
                if (compressed) {
                    size_t ulen = 0, out = 0;
                    uint8_t *dst;
                    zdem_error e2;
                    zdem_error_clear(&e2);
                    if (!valbuf)
                        return zdem_fail_bits(err, ZDEM_ERR_NO_SPACE, br.pos, "no tmp buffer");
                    if (zdem_snappy_uncompressed_length(val, val_len, &ulen, &e2) != ZDEM_OK)
                        return zdem_fail_bits(err, ZDEM_ERR_SNAPPY, br.pos, "bad Snappy string-table value");
                    /* decompress behind the raw copy when both are in valbuf */
                    dst = (val == valbuf) ? valbuf + n : valbuf;
                    if (ulen > valcap - (size_t)(dst - valbuf))
                        return zdem_fail_bits(err, ZDEM_ERR_NO_SPACE, br.pos,
                                              "string-table value larger than tmp_size/2");
                    if (zdem_snappy_decompress(val, val_len, dst, valcap - (size_t)(dst - valbuf),
                                               &out, &e2) != ZDEM_OK)
                        return zdem_fail_bits(err, ZDEM_ERR_SNAPPY, br.pos, "bad Snappy string-table value");
                    val = dst;
                    val_len = out;
                }
            }
        }
        if (br.overflow)
            return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, br.pos,
                                  "string-table entries run past the data");
        if (index < 0 || index >= (1 << 20))
            return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, br.pos,
                                  "string-table index out of range");
        e = entry_at(s, t, (uint32_t)index);
        if (!e)
            return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for string tables");
        if (has_key && !set_blob(s, &e->key, &e->key_len, key, key_len))
            return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for string tables");
        if (has_val && !set_blob(s, &e->val, &e->val_len, val, (uint32_t)val_len))
            return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for string tables");
    }
    if (is_baseline)
        s2_baseline_changed(s);
    return ZDEM_OK;
}

zdem_status s2_st_create(zdem_s2_state *s, const uint8_t *msg, size_t n,
                         zdem_error *err)
{
    zdem_pb_CSVCMsg_CreateStringTable m;
    zdem_status st;
    const uint8_t *data;
    uint32_t data_len, num;
    int k;
    s2_table *t;
    if ((st = zdem_pb_CSVCMsg_CreateStringTable_decode(msg, n, &m, NULL, NULL, err)) != ZDEM_OK)
        return st;
    if (!m.has_name)
        return ZDEM_OK;
    /* A table id is its creation order, so a re-created name gets a new
     * slot only if it is really new. */
    k = find_table(s, m.name.ptr, m.name.len);
    t = k >= 0 ? &s->tables[k] : new_table(s, m.name.ptr, m.name.len);
    if (!t)
        return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "more than 64 string tables");
    t->user_data_fixed = m.user_data_fixed_size != 0;
    t->user_data_size_bits = m.user_data_size_bits;
    t->flags = m.flags;
    t->varint_bitcounts = m.using_varint_bitcounts != 0;
    num = (uint32_t)m.num_entries;
    data = m.string_data.ptr;
    data_len = m.string_data.len;
    if (!m.has_string_data || !num)
        return ZDEM_OK;
    if (m.data_compressed) {
        size_t ulen = 0, out = 0;
        size_t half = s->tmp_size / 2u;
        if (data_len >= 4 && memcmp(data, "LZSS", 4) == 0) {
            s->stats.bad_string_updates++;
            return zdem_fail(err, ZDEM_ERR_UNSUPPORTED, 0, "LZSS string tables are not supported");
        }
        if ((st = zdem_snappy_uncompressed_length(data, data_len, &ulen, err)) != ZDEM_OK)
            return st;
        if (!s->tmp || ulen > half)
            return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "string-table data larger than tmp_size/2");
        if ((st = zdem_snappy_decompress(data, data_len, s->tmp, half, &out, err)) != ZDEM_OK)
            return st;
        data = s->tmp;
        data_len = (uint32_t)out;
    }
    st = parse_entries(s, t, data, data_len, num, err);
    if (st != ZDEM_OK && st != ZDEM_ERR_NO_SPACE) {
        s->stats.bad_string_updates++;
        return ZDEM_OK; /* reported in stats; the table keeps what it got */
    }
    return st;
}

zdem_status s2_st_update(zdem_s2_state *s, const uint8_t *msg, size_t n,
                         zdem_error *err)
{
    zdem_pb_CSVCMsg_UpdateStringTable m;
    zdem_status st;
    if ((st = zdem_pb_CSVCMsg_UpdateStringTable_decode(msg, n, &m, NULL, NULL, err)) != ZDEM_OK)
        return st;
    if (!m.has_table_id || m.table_id < 0 || (uint32_t)m.table_id >= s->ntables)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "update of an unknown string table");
    if (!m.has_string_data || !m.num_changed_entries)
        return ZDEM_OK;
    return parse_entries(s, &s->tables[m.table_id], m.string_data.ptr, m.string_data.len,
                         (uint32_t)m.num_changed_entries, err);
}

/* ---- CDemoStringTables: tables by name, items in index order ------------- */

typedef struct dt_ctx {
    zdem_s2_state *s;
    zdem_error *err;
    s2_table *t;
    uint32_t idx; /* next item's index */
} dt_ctx;

static zdem_status dt_item(void *user, const zdem_pb_CDemoStringTables_items_t *m,
                           zdem_view raw)
{
    dt_ctx *c = (dt_ctx *)user;
    zdem_s2_state *s = c->s;
    s2_st_entry *e = entry_at(s, c->t, c->idx++);
    (void)raw;
    if (!e)
        return zdem_fail(c->err, ZDEM_ERR_NO_SPACE, 0, "arena too small for string tables");
    if (m->has_str && !set_blob(s, &e->key, &e->key_len, m->str.ptr, m->str.len))
        return zdem_fail(c->err, ZDEM_ERR_NO_SPACE, 0, "arena too small for string tables");
    if (m->has_data && !set_blob(s, &e->val, &e->val_len, m->data.ptr, m->data.len))
        return zdem_fail(c->err, ZDEM_ERR_NO_SPACE, 0, "arena too small for string tables");
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
    s2_table *t;
    int ti;
    if (!m->has_table_name)
        return ZDEM_OK;
    ti = find_table(s, m->table_name.ptr, m->table_name.len);
    t = ti >= 0 ? &s->tables[ti] : new_table(s, m->table_name.ptr, m->table_name.len);
    if (!t)
        return ZDEM_OK;
    d.s = s;
    d.err = c->err;
    d.t = t;
    d.idx = 0;
    st = zdem_pb_CDemoStringTables_table_t_decode(raw.ptr, raw.len, &tt, &items, &d, c->err);
    if (st != ZDEM_OK)
        return st;
    /* the dump is the whole table: entries past it are gone */
    if (d.idx < t->n) {
        s2_st_entry *en = (s2_st_entry *)(s->base + t->entries);
        uint32_t q;
        for (q = d.idx; q < t->n; q++) {
            if (en[q].key)
                s2_pool_free(s, en[q].key, (size_t)en[q].key_len + 1u);
            if (en[q].val)
                s2_pool_free(s, en[q].val, (size_t)en[q].val_len + 1u);
            memset(&en[q], 0, sizeof en[q]);
        }
        t->n = d.idx;
    }
    if (s->baseline_table >= 0 && t == &s->tables[s->baseline_table])
        s2_baseline_changed(s);
    return ZDEM_OK;
}

const zdem_pb_CDemoStringTables_cb s2_st_demo_tables_cb = {dt_table, NULL};

zdem_status s2_st_demo_tables(zdem_s2_state *s, const uint8_t *msg, size_t n,
                              zdem_error *err)
{
    zdem_pb_CDemoStringTables m;
    s2_pbctx c;
    c.s = s;
    c.err = err;
    return zdem_pb_CDemoStringTables_decode(msg, n, &m, &s2_st_demo_tables_cb, &c, err);
}
