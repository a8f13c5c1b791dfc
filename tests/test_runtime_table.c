/* The chunked column table (runtime/zdem_table.h): chunks of exactly the
 * configured rows reach the flush callback in order, with every value and
 * kind as set; a column added mid-chunk is empty in the rows before; a
 * string larger than the pool is cut and counted, never written past it
 * (the pool is followed by poisoned memory under ASan); a callback's stop
 * comes back from zdem_table_row; too little memory is refused. */
#include <stdlib.h>
#include <string.h>

#include "zdem_table.h"
#include "zdem_test.h"

typedef struct seen {
    uint32_t chunks, rows;
    int64_t next;        /* the value column 0 should hold next */
    int ok;
    int stop_after;      /* > 0: stop at that chunk */
} seen;

static zdem_status on_chunk(void *user, const zdem_table *t)
{
    seen *s = (seen *)user;
    uint32_t r, n = zdem_table_rows(t);
    const int64_t *v = zdem_table_values(t, 0);
    const uint8_t *k = zdem_table_kinds(t, 0);
    s->chunks++;
    for (r = 0; r < n; r++, s->next++)
        if (k[r] != ZDEM_CELL_INT || v[r] != s->next)
            s->ok = 0;
    s->rows += n;
    return s->stop_after && (int)s->chunks >= s->stop_after ? ZDEM_ERR_ABORTED : ZDEM_OK;
}

int main(void)
{
    zdem_error err;
    zdem_table *t;
    seen s;
    size_t size = zdem_table_size(4, 10, 256);
    uint8_t *mem = malloc(size + 64);
    int i;
    uint32_t len;
    double d;
    char big[600];

    /* 25 rows in chunks of 10: 10, 10, then 5 at the final flush */
    memset(&s, 0, sizeof s);
    s.ok = 1;
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_table_init(&t, mem, size, 4, 10, 256, on_chunk, &s, &err), ZDEM_OK);
    CHECK_EQ_INT(zdem_table_column(t, "n", 1), 0);
    for (i = 0; i < 25; i++) {
        CHECK_EQ_INT(zdem_table_row(t), ZDEM_OK);
        zdem_table_int(t, 0, i);
        if (i == 23) { /* a late column: rows 20..22 have nothing in it */
            CHECK_EQ_INT(zdem_table_column(t, "late", 4), 1);
            zdem_table_float(t, 1, 2.5);
        }
    }
    CHECK_EQ_INT(s.chunks, 2);
    CHECK_EQ_INT(zdem_table_rows(t), 5);
    CHECK_EQ_INT(zdem_table_kinds(t, 1)[0], ZDEM_CELL_NONE);
    CHECK_EQ_INT(zdem_table_kinds(t, 1)[2], ZDEM_CELL_NONE);
    CHECK_EQ_INT(zdem_table_kinds(t, 1)[3], ZDEM_CELL_FLOAT);
    CHECK_EQ_INT(zdem_table_kinds(t, 1)[4], ZDEM_CELL_NONE);
    memcpy(&d, &zdem_table_values(t, 1)[3], sizeof d);
    CHECK(d == 2.5);
    CHECK(memcmp(zdem_table_name(t, 1, &len), "late", 4) == 0);
    CHECK_EQ_INT(len, 4);
    CHECK_EQ_INT(zdem_table_flush(t), ZDEM_OK);
    CHECK_EQ_INT(s.chunks, 3);
    CHECK_EQ_INT(s.rows, 25);
    CHECK(s.ok);

    /* columns beyond max_cols are dropped and counted */
    CHECK_EQ_INT(zdem_table_column(t, "c", 1), 2);
    CHECK_EQ_INT(zdem_table_column(t, "d", 1), 3);
    CHECK_EQ_INT(zdem_table_column(t, "e", 1), -1);
    CHECK_EQ_INT(zdem_table_dropped(t), 1);

    /* strings: copied into the pool; one longer than it is cut at its end */
    CHECK_EQ_INT(zdem_table_row(t), ZDEM_OK);
    zdem_table_int(t, 0, s.next);
    zdem_table_str(t, 2, "abc", 3);
    memset(big, 'x', sizeof big);
    ZT_POISON(mem + size, 64);
    zdem_table_str(t, 3, big, sizeof big);
    ZT_UNPOISON(mem + size, 64);
    {
        int64_t a = zdem_table_values(t, 2)[0], b = zdem_table_values(t, 3)[0];
        CHECK_EQ_INT(zdem_table_kinds(t, 2)[0], ZDEM_CELL_STR);
        CHECK(memcmp(zdem_table_pool(t) + ((uint64_t)a >> 32), "abc", 3) == 0);
        CHECK_EQ_INT((uint64_t)b & 0xFFFFFFFFu, 256 - 3);
        CHECK_EQ_INT(zdem_table_cut(t), 1);
    }
    /* the next row starts a new chunk: less than half the pool is free */
    CHECK_EQ_INT(zdem_table_row(t), ZDEM_OK);
    CHECK_EQ_INT(zdem_table_rows(t), 1);
    CHECK_EQ_INT(s.chunks, 4);

    /* a callback's stop comes back from the row that flushed */
    memset(&s, 0, sizeof s);
    s.ok = 1;
    s.stop_after = 1;
    CHECK_EQ_INT(zdem_table_init(&t, mem, size, 4, 10, 256, on_chunk, &s, &err), ZDEM_OK);
    zdem_table_column(t, "n", 1);
    for (i = 0; i < 10; i++) {
        CHECK_EQ_INT(zdem_table_row(t), ZDEM_OK);
        zdem_table_int(t, 0, i);
    }
    CHECK_EQ_INT(zdem_table_row(t), ZDEM_ERR_ABORTED);

    /* too little memory, bad shapes */
    CHECK_EQ_INT(zdem_table_init(&t, mem, size - 1, 4, 10, 256, NULL, NULL, &err), ZDEM_ERR_NO_SPACE);
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_table_init(&t, mem, size, 4, 0, 256, NULL, NULL, &err), ZDEM_ERR_LIMIT);
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_table_init(&t, mem + 1, size, 4, 10, 256, NULL, NULL, &err), ZDEM_ERR_LIMIT);
    free(mem);
    return zt_finish();
}
