#include "quake3_push.h"

#include "zdem_varint.h"

static int q3_sizer(void *ctx, const uint8_t *p, size_t avail, size_t *len,
                    zdem_error *err)
{
    zdem_q3_push *s = ctx;
    int32_t seq, n;
    if (s->ended) { /* everything after the end marker is trailing bytes */
        *len = avail;
        return 1;
    }
    if (avail < 8)
        return 0;
    seq = (int32_t)zdem_load_le32(p);
    n = (int32_t)zdem_load_le32(p + 4);
    if (seq == -1 || n == -1) {
        *len = 8;
        return 1;
    }
    if (n < 0 || n > ZDEM_Q3_MAX_MSGLEN) {
        zdem_fail(err, ZDEM_ERR_BAD_LENGTH, 0, "message length below 0 or above 16384");
        return -1;
    }
    *len = 8 + (size_t)n;
    return 1;
}

static zdem_status q3_sink(void *ctx, const uint8_t *frame, size_t len,
                           uint64_t offset, zdem_error *err)
{
    zdem_q3_push *s = ctx;
    zdem_q3_frame f;
    if (s->ended) {
        s->trailing += len;
        return ZDEM_OK;
    }
    f.sequence = (int32_t)zdem_load_le32(frame);
    if (f.sequence == -1 || (int32_t)zdem_load_le32(frame + 4) == -1) {
        s->ended = 1;
        return ZDEM_OK;
    }
    f.data = frame + 8;
    f.len = len - 8;
    f.offset = offset;
    f.index = s->index++;
    return zdem_q3_parse_message(s->parser, &f, err);
}

void zdem_q3_push_init(zdem_q3_push *s, zdem_q3_parser *parser, uint8_t *buf,
                       size_t cap)
{
    s->parser = parser;
    s->index = 0;
    s->ended = 0;
    s->trailing = 0;
    zdem_push_init(&s->in, buf, cap, q3_sizer, q3_sink, s);
}

zdem_status zdem_q3_push_feed(zdem_q3_push *s, const uint8_t *data, size_t n,
                              zdem_error *err)
{
    return zdem_push_feed(&s->in, data, n, err);
}

zdem_status zdem_q3_push_end(zdem_q3_push *s, zdem_error *err)
{
    zdem_status st = zdem_push_end(&s->in, err);
    if (st != ZDEM_OK)
        return st;
    if (!s->ended)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, s->in.offset,
                         "file ends without the -1/-1 end marker");
    return ZDEM_OK;
}
