/* A chunked column table in caller memory: the one shape every "rows of
 * values" extractor (Source 2 tick rows and events, Quake III obituaries,
 * Teeworlds chat, ...) fills, so the CLI prints it and bindings (Python)
 * copy whole columns at once instead of walking rows.
 *
 * Rows go into a chunk of a fixed number of rows; when the chunk is full
 * the flush callback sees it (columns as arrays) and it starts again empty,
 * so memory stays fixed however long the demo is. Each cell is 8 bytes of
 * value plus a kind byte: a column's cells may differ in kind (a missing
 * value is ZDEM_CELL_NONE). Strings are copied into the chunk's string pool
 * (value = offset << 32 | length), so they outlive the decoder's buffers. */
#ifndef ZDEM_TABLE_H
#define ZDEM_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum zdem_cell_kind {
    ZDEM_CELL_NONE = 0,  /* no value in this row */
    ZDEM_CELL_INT = 1,   /* int64 */
    ZDEM_CELL_UINT = 2,  /* uint64 (stored in the same 8 bytes) */
    ZDEM_CELL_FLOAT = 3, /* double (its bits) */
    ZDEM_CELL_BOOL = 4,  /* 0 or 1 */
    ZDEM_CELL_STR = 5    /* offset << 32 | length into the pool */
} zdem_cell_kind;

typedef struct zdem_table zdem_table;

/* Sees a full chunk (or the last one, from zdem_table_flush); a non-OK
 * return stops the producer. */
typedef zdem_status (*zdem_table_flush_fn)(void *user, const zdem_table *t);

#define ZDEM_TABLE_NAME_MAX 128u /* column names longer than this are cut */
#define ZDEM_TABLE_MAX_COLS 65536u /* columns a table can have */

/* Bytes of memory for a table of max_cols columns, chunks of rows rows and
 * a string pool of pool bytes. */
size_t zdem_table_size(uint32_t max_cols, uint32_t rows, uint32_t pool);

/* rows >= 1; pool >= 256 (a row whose strings would not fit in what is
 * left of the pool starts a new chunk; a string longer than half the pool
 * is cut and counted in zdem_table_cut). */
zdem_status zdem_table_init(zdem_table **out, void *mem, size_t size,
                            uint32_t max_cols, uint32_t rows, uint32_t pool,
                            zdem_table_flush_fn fn, void *user, zdem_error *err);

/* The column named name (len bytes): found, or added. -1 when max_cols are
 * in use (the caller drops that value; counted in zdem_table_dropped).
 * Columns added mid-chunk are NONE in the rows before. */
int32_t zdem_table_column(zdem_table *t, const char *name, size_t len);

/* Starts a row (every cell NONE); flushes first when the chunk is full or
 * less than half the pool is free. */
zdem_status zdem_table_row(zdem_table *t);

/* Set a cell of the current row (col < 0 is ignored: a dropped column). */
void zdem_table_int(zdem_table *t, int32_t col, int64_t v);
void zdem_table_uint(zdem_table *t, int32_t col, uint64_t v);
void zdem_table_float(zdem_table *t, int32_t col, double v);
void zdem_table_bool(zdem_table *t, int32_t col, int v);
void zdem_table_str(zdem_table *t, int32_t col, const void *s, size_t len);

/* Hands the rows so far to the flush callback (if any) and empties the chunk. */
zdem_status zdem_table_flush(zdem_table *t);

/* ---- reading a chunk (in the flush callback) ---------------------------- */
uint32_t zdem_table_rows(const zdem_table *t);
uint32_t zdem_table_ncols(const zdem_table *t);
const char *zdem_table_name(const zdem_table *t, uint32_t col, uint32_t *len);
const int64_t *zdem_table_values(const zdem_table *t, uint32_t col);
const uint8_t *zdem_table_kinds(const zdem_table *t, uint32_t col);
const uint8_t *zdem_table_pool(const zdem_table *t);
/* Totals over the whole run: rows produced, values dropped for want of a
 * column, strings cut for want of pool. */
uint64_t zdem_table_total(const zdem_table *t);
uint64_t zdem_table_dropped(const zdem_table *t);
uint64_t zdem_table_cut(const zdem_table *t);

#ifdef __cplusplus
}
#endif

#endif
