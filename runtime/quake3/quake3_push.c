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
    {
        zdem_error e;
        zdem_status st;
        zdem_error_clear(&e);
        st = zdem_q3_parse_message(s->parser, &f, &e);
        if (st == ZDEM_OK)
            return ZDEM_OK;
        if (st == ZDEM_ERR_ABORTED) {
            *err = e;
            return st;
        }
        if (s->fault == ZDEM_OK) { /* skipped; the first one is kept */
            s->fault = st;
            s->fault_err = e;
            s->fault_err.offset_is_bits = 0;
            s->fault_err.offset = offset + 8u + e.offset / 8u;
        }
        return ZDEM_OK;
    }
}

/* The first fault in the file wins over a later framing error. */
static zdem_status first_fault(zdem_q3_push *s, zdem_status st, zdem_error *err)
{
    if (s->fault != ZDEM_OK && st != ZDEM_ERR_ABORTED) {
        *err = s->fault_err;
        return s->fault;
    }
    return st;
}

void zdem_q3_push_init(zdem_q3_push *s, zdem_q3_parser *parser, uint8_t *buf,
                       size_t cap)
{
    s->parser = parser;
    s->index = 0;
    s->ended = 0;
    s->trailing = 0;
    s->fault = ZDEM_OK;
    zdem_error_clear(&s->fault_err);
    zdem_push_init(&s->in, buf, cap, q3_sizer, q3_sink, s);
}

zdem_status zdem_q3_push_feed(zdem_q3_push *s, const uint8_t *data, size_t n,
                              zdem_error *err)
{
    zdem_status st = zdem_push_feed(&s->in, data, n, err);
    return st == ZDEM_OK ? ZDEM_OK : first_fault(s, st, err);
}

zdem_status zdem_q3_push_end(zdem_q3_push *s, zdem_error *err)
{
    zdem_status st = zdem_push_end(&s->in, err);
    if (st == ZDEM_OK && !s->ended)
        st = zdem_fail(err, ZDEM_ERR_TRUNCATED, s->in.offset,
                       "file ends without the -1/-1 end marker");
    return first_fault(s, st, err);
}
