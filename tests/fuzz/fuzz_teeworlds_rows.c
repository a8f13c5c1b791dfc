/* libFuzzer target: the input is a Teeworlds demo, read by the row layer
 * (teeworlds_rows.h) as `zdem ticks` and the Python package read it:
 * object fields per snapshot, chat, kills, players or the header, chosen
 * by the input size (and read whole, or pushed in pieces), into a small
 * table so that flushes and cut strings are reached. */
#include <stdint.h>
#include <stdlib.h>
#include "teeworlds_rows.h"
#include "fuzz_table_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const character[] = {"x", "y", "health", "weapon"};
    static const char *const info[] = {"name", "clan", "country"};
    static const int32_t ticks[] = {0, 50, 100, 1000000};
    static uint8_t *mem;
    zdem_tw_rows_config c = {0};
    zdem_table *t;
    zdem_error err;
    if (!mem)
        mem = malloc(zdem_tw_rows_size());
    if (!mem || !(t = fuzz_table_open()))
        return 0;
    zdem_error_clear(&err);
    /* 0 characters, 1 chat, 2 kills, 3 players, 4 header, 5 client_info */
    c.kind = (zdem_tw_rows_kind)(size % 6 == 5 ? 0 : size % 6);
    if (size % 6 == 5) {
        c.object = "client_info";
        c.props = info;
        c.nprops = 3;
    } else {
        c.props = character;
        c.nprops = 4;
    }
    if (size & 8) {
        c.ticks = ticks;
        c.nticks = 4;
    } else {
        c.every = (uint32_t)(size >> 4) % 3;
    }
    if (size & 32) { /* push input (start, feed in pieces, end), as the CLI reads - */
        size_t off = 0, piece = 1 + size % 97;
        zdem_status st = zdem_tw_rows_start(mem, zdem_tw_rows_size(), &c, t, &err);
        if (st != ZDEM_OK)
            return 0;
        while (st == ZDEM_OK && off < size) {
            size_t n = size - off < piece ? size - off : piece;
            st = zdem_tw_rows_feed(mem, data + off, n, &err);
            off += n;
        }
        (void)zdem_tw_rows_end(mem, &err);
        return 0;
    }
    (void)zdem_tw_rows_run(mem, zdem_tw_rows_size(), &c, data, size, t, &err);
    return 0;
}
