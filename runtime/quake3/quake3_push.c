#include "quake3_push.h"

#include <string.h>

#include "zdem_varint.h"

void zdem_q3_push_init(zdem_q3_push *s, zdem_q3_parser *parser)
{
    memset(s, 0, sizeof *s);
    s->parser = parser;
    s->fault = ZDEM_OK;
    s->failed = ZDEM_OK;
    zdem_error_clear(&s->fault_err);
}

/* The first fault in the file wins over a later framing error. */
static zdem_status q3_push_first_fault(zdem_q3_push *s, zdem_status st, zdem_error *err)
{
    if (s->fault != ZDEM_OK && st != ZDEM_ERR_ABORTED) {
        *err = s->fault_err;
        return s->fault;
    }
    return st;
}

static zdem_status q3_push_fail(zdem_q3_push *s, zdem_status st, zdem_error *err)
{
    s->failed = st;
    return q3_push_first_fault(s, st, err);
}

/* A whole message is in the parser's buffer: parse it. A damaged one is
 * skipped (the first is kept for push_end); a callback's stop ends. */
static zdem_status q3_push_deliver(zdem_q3_push *s, zdem_error *err)
{
    zdem_q3_frame f;
    zdem_error e;
    zdem_status st;
    f.sequence = (int32_t)zdem_load_le32(s->head);
    f.data = s->body;
    f.len = s->body_len;
    f.offset = s->offset;
    f.index = s->index++;
    zdem_error_clear(&e);
    if (s->on_message)
        s->on_message(s->user, &f);
    st = zdem_q3_parse_message(s->parser, &f, &e);
    if (s->on_parsed)
        s->on_parsed(s->user, &f, st, &e);
    s->offset += 8u + s->body_len;
    s->in_body = 0;
    s->head_have = 0;
    if (st == ZDEM_ERR_ABORTED) {
        *err = e;
        return q3_push_fail(s, st, err);
    }
    if (st != ZDEM_OK && s->fault == ZDEM_OK) {
        s->fault = st;
        s->fault_err = e;
        s->fault_err.offset_is_bits = 0;
        s->fault_err.offset = f.offset + 8u + e.offset / 8u;
    }
    return ZDEM_OK;
}

/* The 8-byte header is complete: the end marker, or a message to gather. */
static zdem_status q3_push_start(zdem_q3_push *s, zdem_error *err)
{
    int32_t seq = (int32_t)zdem_load_le32(s->head);
    int32_t n = (int32_t)zdem_load_le32(s->head + 4);
    if (seq == -1 || n == -1) {
        s->ended = 1;
        s->offset += 8;
        return ZDEM_OK;
    }
    if (n < 0 || n > ZDEM_Q3_MAX_MSGLEN)
        return q3_push_fail(s, zdem_fail(err, ZDEM_ERR_BAD_LENGTH, s->offset,
                                 "message length below 0 or above 16384"), err);
    s->body_len = (uint32_t)n;
    s->body_have = 0;
    s->body = zdem_q3_message_buffer(s->parser, (size_t)n);
    s->in_body = 1;
    return n == 0 ? q3_push_deliver(s, err) : ZDEM_OK;
}

zdem_status zdem_q3_push_feed(zdem_q3_push *s, const uint8_t *data, size_t n,
                              zdem_error *err)
{
    zdem_status st;
    if (s->failed != ZDEM_OK)
        return zdem_fail(err, s->failed, s->offset, "push input already failed");
    while (n > 0) {
        size_t take;
        if (s->ended) { /* everything after the end marker is trailing bytes */
            s->trailing += n;
            return ZDEM_OK;
        }
        if (!s->in_body) {
            take = 8u - s->head_have;
            take = take < n ? take : n;
            memcpy(s->head + s->head_have, data, take);
            s->head_have += (uint32_t)take;
            if (s->head_have == 8u && (st = q3_push_start(s, err)) != ZDEM_OK)
                return st;
        } else {
            take = s->body_len - s->body_have;
            take = take < n ? take : n;
            memcpy(s->body + s->body_have, data, take);
            s->body_have += (uint32_t)take;
            if (s->body_have == s->body_len && (st = q3_push_deliver(s, err)) != ZDEM_OK)
                return st;
        }
        data += take;
        n -= take;
    }
    return ZDEM_OK;
}

zdem_status zdem_q3_push_end(zdem_q3_push *s, zdem_error *err)
{
    if (s->failed != ZDEM_OK)
        return zdem_fail(err, s->failed, s->offset, "push input already failed");
    if (s->in_body)
        return q3_push_fail(s, zdem_fail(err, ZDEM_ERR_TRUNCATED, s->offset,
                                 "message length runs past the end of the file"), err);
    if (s->head_have != 0 && !s->ended)
        return q3_push_fail(s, zdem_fail(err, ZDEM_ERR_TRUNCATED, s->offset,
                                 "file ends inside a message header"), err);
    if (!s->ended)
        return q3_push_first_fault(s, zdem_fail(err, ZDEM_ERR_TRUNCATED, s->offset,
                                        "file ends without the -1/-1 end marker"), err);
    return q3_push_first_fault(s, ZDEM_OK, err);
}
