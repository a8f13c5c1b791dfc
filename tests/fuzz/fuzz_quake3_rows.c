/* libFuzzer target: the input is a Quake III demo, read by the row layer
 * (quake3_rows.h) as `zdem ticks` and the Python package read it:
 * playerstate or entity fields per snapshot, obituaries, chat, scores,
 * the per-gamestate header or the players' stays, chosen by the input size
 * (and read whole, or pushed in pieces), into a small table (64-row
 * chunks, 16 columns, 4 KiB of strings) so that flushes and cut strings
 * are reached. */
#include <stdint.h>
#include <stdlib.h>
#include "quake3.h"
#include "quake3_rows.h"
#include "fuzz_table_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const player[] = {"origin", "viewangles.1", "stats.0", "weapon"};
    static const char *const entity[] = {"pos.trBase", "eType", "modelindex"};
    static const int32_t times[] = {0, 1000, 50000, 100000};
    static uint8_t *mem;
    zdem_q3_rows_config c = {0};
    zdem_table *t;
    zdem_error err;
    if (!mem)
        mem = malloc(zdem_q3_rows_size());
    if (!mem || !(t = fuzz_table_open()))
        return 0;
    zdem_error_clear(&err);
    c.kind = (zdem_q3_rows_kind)(size % 7);
    c.props = c.kind == ZDEM_Q3_ROWS_PLAYER ? player : entity;
    c.nprops = c.kind == ZDEM_Q3_ROWS_PLAYER ? 4 : 3;
    if (size & 8) {
        c.times = times;
        c.ntimes = 4;
    } else {
        c.every = (uint32_t)(size >> 4) % 3;
    }
    c.protocol = (size & 16) ? 68 : 0;
    if (size & 32) { /* push input (start, feed in pieces, end), as the CLI reads - */
        size_t off = 0, piece = 1 + size % 97;
        zdem_status st = zdem_q3_rows_start(mem, zdem_q3_rows_size(), &c, t, &err);
        if (st != ZDEM_OK)
            return 0;
        while (st == ZDEM_OK && off < size) {
            size_t n = size - off < piece ? size - off : piece;
            st = zdem_q3_rows_feed(mem, data + off, n, &err);
            off += n;
        }
        (void)zdem_q3_rows_end(mem, &err);
        return 0;
    }
    (void)zdem_q3_rows_run(mem, zdem_q3_rows_size(), &c, data, size, t, &err);
    return 0;
}
