/* The table of the row-layer fuzz targets: small (16 columns, 64-row
 * chunks, 4 KiB of strings) so that flushes and cut strings are reached,
 * and a flush callback that reads every cell and kind of the chunk, so
 * that ASan checks what the table hands out. */
#ifndef ZDEM_FUZZ_TABLE_SINK_H
#define ZDEM_FUZZ_TABLE_SINK_H

#include <stdint.h>
#include <stdlib.h>
#include "zdem_table.h"

static volatile uint64_t fuzz_table_sink;

static zdem_status fuzz_table_flush(void *user, const zdem_table *t)
{
    uint32_t c, r, n = zdem_table_rows(t);
    uint64_t sum = 0;
    (void)user;
    for (c = 0; c < zdem_table_ncols(t); c++) {
        const int64_t *v = zdem_table_values(t, c);
        const uint8_t *k = zdem_table_kinds(t, c);
        for (r = 0; r < n; r++)
            sum += (uint64_t)v[r] + k[r];
    }
    fuzz_table_sink = sum;
    return ZDEM_OK;
}

/* A fresh table over memory allocated on the first call; NULL if none. */
static zdem_table *fuzz_table_open(void)
{
    static uint8_t *mem;
    size_t size = zdem_table_size(16, 64, 4096);
    zdem_table *t;
    zdem_error err;
    if (!mem)
        mem = malloc(size);
    zdem_error_clear(&err);
    if (!mem || zdem_table_init(&t, mem, size, 16, 64, 4096, fuzz_table_flush, NULL, &err) != ZDEM_OK)
        return NULL;
    return t;
}

#endif
