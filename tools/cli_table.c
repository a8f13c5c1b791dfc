/* zdem_table chunks as JSON lines or CSV (see cli_table.h). */
#include "cli_table.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* A row is built in a buffer and written with one fwrite: fprintf per cell
 * and an escaped column name per cell were most of the cost of a row. */
#define CELL_ROOM 256u /* a cell at most: a plain name (<= 128) and a number */

typedef struct rowbuf {
    FILE *out;
    size_t n;
    char b[8192];
} rowbuf;

static void rb_flush(rowbuf *rb)
{
    if (rb->n)
        fwrite(rb->b, 1, rb->n, rb->out);
    rb->n = 0;
}

/* Room for one cell. */
static char *rb_cell(rowbuf *rb)
{
    if (sizeof rb->b - rb->n < CELL_ROOM)
        rb_flush(rb);
    return rb->b + rb->n;
}

static char *put_u64(char *p, uint64_t v)
{
    char t[20];
    size_t k = sizeof t;
    do {
        t[--k] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    memcpy(p, t + k, sizeof t - k);
    return p + (sizeof t - k);
}

/* A column name that needs no JSON escape (printable ASCII, no quote or
 * backslash, short): written as is; any other through zdem_json_str. */
static int plain_name(const char *s, uint32_t n)
{
    uint32_t i;
    if (n > ZDEM_TABLE_NAME_MAX)
        return 0;
    for (i = 0; i < n; i++)
        if ((uint8_t)s[i] < 0x20 || (uint8_t)s[i] >= 0x7F || s[i] == '"' || s[i] == '\\')
            return 0;
    return 1;
}

/* A chunk's column, looked up once per chunk. */
typedef struct col {
    const char *name;
    uint32_t len;
    int plain;
    const uint8_t *kinds;
    const int64_t *values;
} col;

/* Writes a cell of kind k and value v at p (CELL_ROOM bytes free);
 * returns the end, or NULL for a string, which the caller writes to the
 * stream itself. */
static char *cell(char *p, uint8_t k, int64_t v, int csv)
{
    switch (k) {
    case ZDEM_CELL_INT:
        if (v < 0) {
            *p++ = '-';
            return put_u64(p, 0u - (uint64_t)v);
        }
        return put_u64(p, (uint64_t)v);
    case ZDEM_CELL_UINT:
        return put_u64(p, (uint64_t)v);
    case ZDEM_CELL_BOOL:
        memcpy(p, v ? "true" : "false", v ? 4u : 5u);
        return p + (v ? 4 : 5);
    case ZDEM_CELL_FLOAT: {
        double d;
        int n;
        memcpy(&d, &v, sizeof d);
        if (d != d || d > 1.7e308 || d < -1.7e308) {
            if (!csv) { /* NaN / inf are not JSON */
                memcpy(p, "null", 4);
                p += 4;
            }
            return p;
        }
        n = snprintf(p, 40, "%.9g", d);
        return p + (n > 0 ? n : 0);
    }
    case ZDEM_CELL_STR:
        return NULL;
    default:
        if (!csv) {
            memcpy(p, "null", 4);
            p += 4;
        }
        return p;
    }
}

static void str_cell(FILE *out, const zdem_table *t, int64_t v, int csv)
{
    const uint8_t *s = zdem_table_pool(t) + ((uint64_t)v >> 32);
    size_t n = (size_t)((uint64_t)v & 0xFFFFFFFFu);
    if (csv)
        zdem_csv_str(out, s, n);
    else
        zdem_json_str(out, s, n);
}

zdem_status zdem_cli_table_print(void *user, const zdem_table *t)
{
    zdem_cli_table_out *o = (zdem_cli_table_out *)user;
    uint32_t r, c, nc = zdem_table_ncols(t), rows = zdem_table_rows(t);
    uint32_t len, ncol;
    const char *name;
    char *p, *q;
    col cols[64], *cl;
    rowbuf rb;
    rb.out = o->out;
    rb.n = 0;
    if (o->csv && !o->header_done) {
        o->header_done = 1;
        o->header_cols = nc;
        for (c = 0; c < nc; c++) {
            name = zdem_table_name(t, c, &len);
            if (c)
                fputc(',', o->out);
            zdem_csv_str(o->out, (const uint8_t *)name, len);
        }
        fputc('\n', o->out);
    }
    /* columns are read in groups of up to 64, looked up once a chunk */
    ncol = nc < 64u ? nc : 64u;
    for (c = 0; c < ncol; c++) {
        cols[c].name = zdem_table_name(t, c, &cols[c].len);
        cols[c].plain = plain_name(cols[c].name, cols[c].len);
        cols[c].kinds = zdem_table_kinds(t, c);
        cols[c].values = zdem_table_values(t, c);
    }
    for (r = 0; r < rows; r++) {
        /* past --max-rows the producer is stopped */
        if (zdem_cli_out.rows >= zdem_cli_out.max_rows && !zdem_cli_out_grow() &&
            zdem_cli_out.rows >= zdem_cli_out.max_rows) {
            rb_flush(&rb);
            zdem_cli_out.over = 1;
            return ZDEM_ERR_ABORTED;
        }
        zdem_cli_out.rows++;
        for (c = 0; c < nc; c++) {
            col one;
            if (c < ncol)
                cl = &cols[c];
            else {
                cl = &one;
                one.name = zdem_table_name(t, c, &one.len);
                one.plain = plain_name(one.name, one.len);
                one.kinds = zdem_table_kinds(t, c);
                one.values = zdem_table_values(t, c);
            }
            if (o->csv && c >= o->header_cols) {
                o->late_cols += cl->kinds[r] != ZDEM_CELL_NONE;
                continue;
            }
            p = rb_cell(&rb);
            if (c)
                *p++ = ',';
            else if (!o->csv)
                *p++ = '{';
            if (!o->csv) {
                if (cl->plain) {
                    *p++ = '"';
                    memcpy(p, cl->name, cl->len);
                    p += cl->len;
                    *p++ = '"';
                    *p++ = ':';
                } else {
                    rb.n = (size_t)(p - rb.b);
                    rb_flush(&rb);
                    zdem_json_str(o->out, (const uint8_t *)cl->name, cl->len);
                    p = rb.b;
                    *p++ = ':';
                }
            }
            if ((q = cell(p, cl->kinds[r], cl->values[r], o->csv)) == NULL) {
                rb.n = (size_t)(p - rb.b);
                rb_flush(&rb);
                str_cell(o->out, t, cl->values[r], o->csv);
            } else
                rb.n = (size_t)(q - rb.b);
        }
        p = rb_cell(&rb);
        if (!o->csv)
            *p++ = '}';
        *p++ = '\n';
        rb.n = (size_t)(p - rb.b);
    }
    rb_flush(&rb);
    return ZDEM_OK;
}

zdem_table *zdem_cli_table_new(uint32_t max_cols, zdem_cli_table_out *o)
{
    const uint32_t rows = 256, pool = 1u << 20;
    size_t size = zdem_table_size(max_cols, rows, pool);
    void *mem = calloc(1, size);
    zdem_table *t;
    zdem_error err;
    zdem_error_clear(&err);
    if (!mem)
        return NULL;
    if (zdem_table_init(&t, mem, size, max_cols, rows, pool, zdem_cli_table_print, o, &err) != ZDEM_OK) {
        free(mem);
        return NULL;
    }
    return t; /* t is mem: free(t) releases it */
}

int zdem_cli_table_format(const char *format)
{
    if (!format || strcmp(format, "jsonl") == 0 || strcmp(format, "json") == 0)
        return 0;
    if (strcmp(format, "csv") == 0)
        return 1;
    return -1;
}
