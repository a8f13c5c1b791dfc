/* zdem_table chunks as JSON lines or CSV (see cli_table.h). */
#include "cli_table.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static void cell(FILE *out, const zdem_table *t, uint32_t c, uint32_t r, int csv)
{
    uint8_t k = zdem_table_kinds(t, c)[r];
    int64_t v = zdem_table_values(t, c)[r];
    switch (k) {
    case ZDEM_CELL_INT: fprintf(out, "%lld", (long long)v); break;
    case ZDEM_CELL_UINT: fprintf(out, "%llu", (unsigned long long)(uint64_t)v); break;
    case ZDEM_CELL_BOOL: fputs(v ? "true" : "false", out); break;
    case ZDEM_CELL_FLOAT: {
        double d;
        memcpy(&d, &v, sizeof d);
        if (d != d || d > 1.7e308 || d < -1.7e308)
            fputs(csv ? "" : "null", out); /* NaN / inf are not JSON */
        else
            fprintf(out, "%.9g", d);
        break;
    }
    case ZDEM_CELL_STR: {
        const uint8_t *s = zdem_table_pool(t) + ((uint64_t)v >> 32);
        size_t n = (size_t)((uint64_t)v & 0xFFFFFFFFu);
        if (csv)
            zdem_csv_str(out, s, n);
        else
            zdem_json_str(out, s, n);
        break;
    }
    default:
        if (!csv)
            fputs("null", out);
        break;
    }
}

zdem_status zdem_cli_table_print(void *user, const zdem_table *t)
{
    zdem_cli_table_out *o = (zdem_cli_table_out *)user;
    uint32_t r, c, nc = zdem_table_ncols(t), rows = zdem_table_rows(t);
    uint32_t len;
    const char *name;
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
    for (r = 0; r < rows; r++) {
        if (o->csv) {
            for (c = 0; c < nc; c++) {
                if (c >= o->header_cols) {
                    o->late_cols += zdem_table_kinds(t, c)[r] != ZDEM_CELL_NONE;
                    continue;
                }
                if (c)
                    fputc(',', o->out);
                cell(o->out, t, c, r, 1);
            }
        } else {
            fputc('{', o->out);
            for (c = 0; c < nc; c++) {
                name = zdem_table_name(t, c, &len);
                if (c)
                    fputc(',', o->out);
                zdem_json_str(o->out, (const uint8_t *)name, len);
                fputc(':', o->out);
                cell(o->out, t, c, r, 0);
            }
            fputc('}', o->out);
        }
        fputc('\n', o->out);
    }
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
