/* Chunked column table in caller memory (see zdem_table.h). */
#include "zdem_table.h"

#include <string.h>

struct zdem_table {
    uint32_t max_cols, cap, pool_cap;
    uint32_t ncols, n;    /* columns in use, rows in the chunk */
    uint32_t pool_used;
    uint32_t *name_len;   /* [max_cols] */
    char *names;          /* [max_cols][ZDEM_TABLE_NAME_MAX] */
    int64_t *values;      /* [max_cols][cap] */
    uint8_t *kinds;       /* [max_cols][cap] */
    uint8_t *pool;        /* [pool_cap] */
    uint64_t total, dropped, cut;
    zdem_table_flush_fn fn;
    void *user;
};

/* 8-byte multiples keep every array aligned for its type. */
static size_t table_up8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

size_t zdem_table_size(uint32_t max_cols, uint32_t rows, uint32_t pool)
{
    return table_up8(sizeof(zdem_table)) + table_up8(sizeof(uint32_t) * (size_t)max_cols) +
           table_up8((size_t)ZDEM_TABLE_NAME_MAX * max_cols) +
           sizeof(int64_t) * (size_t)max_cols * rows + table_up8((size_t)max_cols * rows) + table_up8(pool);
}

zdem_status zdem_table_init(zdem_table **out, void *mem, size_t size,
                            uint32_t max_cols, uint32_t rows, uint32_t pool,
                            zdem_table_flush_fn fn, void *user, zdem_error *err)
{
    zdem_table *t = (zdem_table *)mem;
    uint8_t *p = (uint8_t *)mem;
    *out = NULL;
    if (!mem || ((uintptr_t)mem & 7u) || rows < 1 || pool < 256 || max_cols < 1 ||
        rows > (1u << 24) || max_cols > ZDEM_TABLE_MAX_COLS)
        return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "table: bad shape (rows >= 1, pool >= 256, 8-byte aligned memory)");
    /* the products below must fit a size_t on a 32-bit target too */
    if ((uint64_t)max_cols * rows > (uint64_t)(SIZE_MAX / 16u) ||
        zdem_table_size(max_cols, rows, pool) > size)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "table: memory smaller than zdem_table_size()");
    memset(t, 0, sizeof *t);
    t->max_cols = max_cols;
    t->cap = rows;
    t->pool_cap = pool;
    p += table_up8(sizeof(zdem_table));
    t->name_len = (uint32_t *)(void *)p;
    p += table_up8(sizeof(uint32_t) * (size_t)max_cols);
    t->names = (char *)p;
    p += table_up8((size_t)ZDEM_TABLE_NAME_MAX * max_cols);
    t->values = (int64_t *)(void *)p;
    p += sizeof(int64_t) * (size_t)max_cols * rows;
    t->kinds = p;
    p += table_up8((size_t)max_cols * rows);
    t->pool = p;
    t->fn = fn;
    t->user = user;
    *out = t;
    return ZDEM_OK;
}

int32_t zdem_table_column(zdem_table *t, const char *name, size_t len)
{
    uint32_t i;
    if (len > ZDEM_TABLE_NAME_MAX)
        len = ZDEM_TABLE_NAME_MAX;
    for (i = 0; i < t->ncols; i++)
        if (t->name_len[i] == len && memcmp(t->names + (size_t)i * ZDEM_TABLE_NAME_MAX, name, len) == 0)
            return (int32_t)i;
    if (t->ncols >= t->max_cols) {
        t->dropped++;
        return -1;
    }
    i = t->ncols++;
    memcpy(t->names + (size_t)i * ZDEM_TABLE_NAME_MAX, name, len);
    t->name_len[i] = (uint32_t)len;
    /* the rows already in the chunk (the current one included) have no value */
    memset(t->kinds + (size_t)i * t->cap, 0, t->n);
    return (int32_t)i;
}

zdem_status zdem_table_flush(zdem_table *t)
{
    zdem_status st = ZDEM_OK;
    if (t->n && t->fn)
        st = t->fn(t->user, t);
    t->n = 0;
    t->pool_used = 0;
    return st;
}

zdem_status zdem_table_row(zdem_table *t)
{
    uint32_t c;
    if (t->n >= t->cap || t->pool_used > t->pool_cap / 2u) {
        zdem_status st = zdem_table_flush(t);
        if (st != ZDEM_OK)
            return st;
    }
    for (c = 0; c < t->ncols; c++)
        t->kinds[(size_t)c * t->cap + t->n] = ZDEM_CELL_NONE;
    t->n++;
    t->total++;
    return ZDEM_OK;
}

static void table_set(zdem_table *t, int32_t col, uint8_t kind, int64_t v)
{
    size_t at;
    if (col < 0 || (uint32_t)col >= t->ncols || !t->n)
        return;
    at = (size_t)col * t->cap + (t->n - 1u);
    t->values[at] = v;
    t->kinds[at] = kind;
}

void zdem_table_int(zdem_table *t, int32_t col, int64_t v)
{
    table_set(t, col, ZDEM_CELL_INT, v);
}

void zdem_table_uint(zdem_table *t, int32_t col, uint64_t v)
{
    int64_t x;
    memcpy(&x, &v, sizeof x);
    table_set(t, col, ZDEM_CELL_UINT, x);
}

void zdem_table_float(zdem_table *t, int32_t col, double v)
{
    int64_t x;
    memcpy(&x, &v, sizeof x);
    table_set(t, col, ZDEM_CELL_FLOAT, x);
}

void zdem_table_bool(zdem_table *t, int32_t col, int v)
{
    table_set(t, col, ZDEM_CELL_BOOL, v ? 1 : 0);
}

void zdem_table_str(zdem_table *t, int32_t col, const void *s, size_t len)
{
    size_t room = t->pool_cap - t->pool_used;
    if (col < 0 || (uint32_t)col >= t->ncols || !t->n)
        return;
    /* a row starts with at least half the pool free, so only a string
     * longer than that (or many long ones in one row) is cut */
    if (len > room) {
        len = room;
        t->cut++;
    }
    if (len)
        memcpy(t->pool + t->pool_used, s, len);
    table_set(t, col, ZDEM_CELL_STR, (int64_t)(((uint64_t)t->pool_used << 32) | (uint64_t)len));
    t->pool_used += (uint32_t)len;
}

uint32_t zdem_table_rows(const zdem_table *t)
{
    return t->n;
}

uint32_t zdem_table_ncols(const zdem_table *t)
{
    return t->ncols;
}

const char *zdem_table_name(const zdem_table *t, uint32_t col, uint32_t *len)
{
    if (col >= t->ncols) {
        *len = 0;
        return "";
    }
    *len = t->name_len[col];
    return t->names + (size_t)col * ZDEM_TABLE_NAME_MAX;
}

const int64_t *zdem_table_values(const zdem_table *t, uint32_t col)
{
    return t->values + (size_t)col * t->cap;
}

const uint8_t *zdem_table_kinds(const zdem_table *t, uint32_t col)
{
    return t->kinds + (size_t)col * t->cap;
}

const uint8_t *zdem_table_pool(const zdem_table *t)
{
    return t->pool;
}

uint64_t zdem_table_total(const zdem_table *t)
{
    return t->total;
}

uint64_t zdem_table_dropped(const zdem_table *t)
{
    return t->dropped;
}

uint64_t zdem_table_cut(const zdem_table *t)
{
    return t->cut;
}
