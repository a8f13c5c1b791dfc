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

/* inline in zdem_q3_parse_file's loop (a call per message otherwise) */
static inline zdem_status reader_next(zdem_q3_reader *r, zdem_q3_frame *f, int *got,
                                      zdem_error *err)
{
    size_t left;
    int32_t seq, len;
    *got = 0;
    if (r->ended)
        return ZDEM_OK;
    left = r->size - r->pos;
    if (left == 0)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, r->pos,
                         "file ends without the -1/-1 end marker");
    if (left < 8)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, r->pos,
                         "file ends inside a message header");
    seq = (int32_t)zdem_load_le32(r->data + r->pos);
    len = (int32_t)zdem_load_le32(r->data + r->pos + 4);
    if (seq == -1 || len == -1) {
        /* The engine stops at either -1; anything after is reported only. */
        r->ended = 1;
        r->pos += 8;
        r->trailing = r->size - r->pos;
        return ZDEM_OK;
    }
    if (len < 0 || len > ZDEM_Q3_MAX_MSGLEN)
        return zdem_fail(err, ZDEM_ERR_BAD_LENGTH, r->pos,
                         "message length below 0 or above 16384");
    if ((size_t)len > left - 8)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, r->pos,
                         "message length runs past the end of the file");
    f->sequence = seq;
    f->data = r->data + r->pos + 8;
    f->len = (size_t)len;
    f->offset = r->pos;
    f->index = r->index;
    r->pos += 8 + (size_t)len;
    r->index++;
    *got = 1;
    return ZDEM_OK;
}

zdem_status zdem_q3_reader_next(zdem_q3_reader *r, zdem_q3_frame *f, int *got,
                                zdem_error *err)
{
    return reader_next(r, f, got, err);
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
        st = reader_next(r, &f, &got, &e);
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
