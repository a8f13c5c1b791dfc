#include "zdem_push.h"

#include <string.h>

void zdem_push_init(zdem_push *ps, uint8_t *buf, size_t cap,
                    zdem_push_sizer sizer, zdem_push_sink sink, void *ctx)
{
    ps->buf = buf;
    ps->cap = cap;
    ps->have = 0;
    ps->need = 0;
    ps->offset = 0;
    ps->sizer = sizer;
    ps->sink = sink;
    ps->skip = 0;
    ps->skipping = 0;
    ps->last = 0;
    ps->ctx = ctx;
    ps->failed = ZDEM_OK;
}

void zdem_push_set_skip(zdem_push *ps, zdem_push_skip skip)
{
    ps->skip = skip;
}

/* The current frame (need bytes, have of them already taken) does not fit
 * the buffer: skip it if allowed. */
static zdem_status oversized(zdem_push *ps, zdem_error *err)
{
    zdem_status st;
    if (!ps->skip)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, ps->offset,
                         "frame larger than the push buffer");
    if ((st = ps->skip(ps->ctx, ps->offset, ps->need, err)) != ZDEM_OK)
        return st;
    ps->skipping = 1;
    return ZDEM_OK;
}

/* Discards up to n bytes of a skipped frame; returns how many. */
static size_t discard(zdem_push *ps, size_t n)
{
    size_t take = ps->need - ps->have;
    if (take > n)
        take = n;
    ps->have += take;
    if (ps->have == ps->need) {
        ps->offset += ps->need;
        ps->have = 0;
        ps->need = 0;
        ps->skipping = 0;
    }
    return take;
}

static zdem_status fail(zdem_push *ps, zdem_status st)
{
    ps->failed = st;
    return st;
}

static int size_frame(zdem_push *ps, const uint8_t *p, size_t avail,
                      size_t *len, zdem_error *err)
{
    int rc = ps->sizer(ps->ctx, p, avail, len, err);
    if (rc < 0 && err)
        err->offset += ps->offset;
    return rc;
}

/* A frame the sizer declined (len bytes, have of them already taken):
 * discarded as it arrives, whatever its size. */
static void decline(zdem_push *ps, size_t len)
{
    ps->need = len;
    if (ps->have >= len) { /* all here (a sizer that looked past it) */
        ps->have -= len;
        memmove(ps->buf, ps->buf + len, ps->have);
        ps->offset += len;
        ps->need = 0;
        return;
    }
    ps->skipping = 1;
}

/* Delivers every whole frame in the gathering buffer. A sizer may need to
 * look past the end of a short frame (Teeworlds v6 checks for an optional
 * UUID), so bytes after a delivered frame are kept for the next one. */
static zdem_status drain(zdem_push *ps, zdem_error *err)
{
    zdem_status st;
    size_t len;
    int rc;
    while (ps->have > 0) {
        if (ps->need == 0) {
            rc = size_frame(ps, ps->buf, ps->have, &len, err);
            if (rc < 0)
                return fail(ps, err ? err->code : ZDEM_ERR_CORRUPT);
            if (rc == 0)
                return ZDEM_OK;
            if (rc == ZDEM_PUSH_SKIP) {
                decline(ps, len);
                if (ps->skipping)
                    return ZDEM_OK;
                continue;
            }
            ps->need = len;
        }
        if (ps->need > ps->cap) {
            /* only a header was gathered: the rest is discarded as it comes */
            if ((st = oversized(ps, err)) != ZDEM_OK)
                return fail(ps, st);
            return ZDEM_OK;
        }
        if (ps->have < ps->need)
            return ZDEM_OK;
        if ((st = ps->sink(ps->ctx, ps->buf, ps->need, ps->offset, err)) != ZDEM_OK)
            return fail(ps, st);
        ps->offset += ps->need;
        ps->have -= ps->need;
        memmove(ps->buf, ps->buf + ps->need, ps->have);
        ps->need = 0;
    }
    return ZDEM_OK;
}

zdem_status zdem_push_feed(zdem_push *ps, const uint8_t *data, size_t n,
                           zdem_error *err)
{
    zdem_status st;
    size_t len, take;
    int rc;

    if (ps->failed != ZDEM_OK)
        return zdem_fail(err, ps->failed, ps->offset, "push input already failed");
    while (n > 0) {
        if (ps->skipping) {
            size_t k = discard(ps, n);
            data += k;
            n -= k;
            continue;
        }
        if (ps->have == 0) {
            /* Whole frames inside this piece go straight to the sink. */
            rc = size_frame(ps, data, n, &len, err);
            if (rc < 0)
                return fail(ps, err ? err->code : ZDEM_ERR_CORRUPT);
            if (rc == ZDEM_PUSH_SKIP) {
                decline(ps, len); /* have is 0: always a skip */
                continue;
            }
            if (rc == 1 && len <= n) {
                if ((st = ps->sink(ps->ctx, data, len, ps->offset, err)) != ZDEM_OK)
                    return fail(ps, st);
                data += len;
                n -= len;
                ps->offset += len;
                continue;
            }
            if (ps->last)
                return fail(ps, zdem_fail(err, ZDEM_ERR_TRUNCATED, ps->offset,
                                          "input ends inside a frame"));
            ps->need = rc == 1 ? len : 0;
            if (ps->need > ps->cap) {
                if ((st = oversized(ps, err)) != ZDEM_OK)
                    return fail(ps, st);
                continue;
            }
        }
        /* Gather: while the length is unknown a byte at a time (headers
         * are a few bytes), then exactly the rest of the frame. */
        take = ps->need ? ps->need - ps->have : 1;
        if (take > n)
            take = n;
        if (take > ps->cap - ps->have)
            return fail(ps, zdem_fail(err, ZDEM_ERR_NO_SPACE, ps->offset,
                                      "frame header larger than the push buffer"));
        memcpy(ps->buf + ps->have, data, take);
        ps->have += take;
        data += take;
        n -= take;
        if ((st = drain(ps, err)) != ZDEM_OK)
            return st;
    }
    return ZDEM_OK;
}

zdem_status zdem_push_end(zdem_push *ps, zdem_error *err)
{
    if (ps->failed != ZDEM_OK)
        return zdem_fail(err, ps->failed, ps->offset, "push input already failed");
    if (ps->have != 0)
        return fail(ps, zdem_fail(err, ZDEM_ERR_TRUNCATED, ps->offset,
                                       "input ends inside a frame"));
    return ZDEM_OK;
}

zdem_status zdem_push_feed_last(zdem_push *ps, const uint8_t *data, size_t n,
                                zdem_error *err)
{
    zdem_status st;
    ps->last = ps->have == 0 && !ps->skipping;
    st = zdem_push_feed(ps, data, n, err);
    ps->last = 0;
    if (st != ZDEM_OK)
        return st;
    return zdem_push_end(ps, err);
}
