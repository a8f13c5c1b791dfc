/* Quake III demo framing (see quake3.h): blocks of [int32 sequence]
 * [int32 length][payload], ended by -1/-1; the whole-file walk */
#include "quake3_int.h"

#include <stddef.h>
#include <string.h>

/* ================================================================ framing */

void zdem_q3_reader_init(zdem_q3_reader *r, const uint8_t *data, size_t size)
{
    r->data = data;
    r->size = size;
    r->pos = 0;
    r->index = 0;
    r->ended = 0;
    r->trailing = 0;
}

zdem_status zdem_q3_reader_next(zdem_q3_reader *r, zdem_q3_frame *f, int *got,
                                zdem_error *err)
{
    return zdem_q3__reader_next(r, f, got, err);
}

zdem_status zdem_q3_parse_file(zdem_q3_parser *p, const uint8_t *data, size_t size,
                               zdem_q3_reader *r, zdem_error *err)
{
    zdem_q3_frame f;
    zdem_error e;
    zdem_status first = ZDEM_OK;
    int got;
    zdem_q3_reader_init(r, data, size);
    zdem_error_clear(&e); /* written only by a failure, cleared after one */
    for (;;) {
        zdem_status st;
        st = zdem_q3__reader_next(r, &f, &got, &e);
        if (st == ZDEM_OK && !got)
            break;
        if (st == ZDEM_OK) {
            st = zdem_q3_parse_message(p, &f, &e);
            if (st == ZDEM_OK || st == ZDEM_ERR_ABORTED) {
                if (st == ZDEM_OK)
                    continue;
            } else {
                /* a damaged message: skipped, the next one is read */
                if (first == ZDEM_OK) {
                    first = st;
                    *err = e;
                    err->offset_is_bits = 0;
                    err->offset = f.offset + 8u + e.offset / 8u;
                }
                zdem_error_clear(&e);
                continue;
            }
        }
        /* framing errors and callback aborts end the walk */
        if (first == ZDEM_OK) {
            first = st;
            *err = e;
        }
        break;
    }
    return first;
}

int zdem_q3_protocol_from_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    int v = 0;
    if (!dot)
        return 0;
    if (strcmp(dot, ".dm3") == 0)
        return 3;
    if (strncmp(dot, ".dm_", 4) != 0)
        return 0;
    for (dot += 4; *dot >= '0' && *dot <= '9' && v < 1000; dot++)
        v = v * 10 + (*dot - '0');
    return *dot == 0 ? v : 0;
}
