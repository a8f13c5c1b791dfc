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
    ps->ctx = ctx;
    ps->failed = ZDEM_OK;
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

zdem_status zdem_push_feed(zdem_push *ps, const uint8_t *data, size_t n,
                           zdem_error *err)
{
    zdem_status st;
    size_t len;
    int rc;

    if (ps->failed != ZDEM_OK)
        return zdem_fail(err, ps->failed, ps->offset, "push input already failed");
    while (n > 0) {
        if (ps->have == 0) {
            /* Whole frames inside this piece go straight to the sink. */
            rc = size_frame(ps, data, n, &len, err);
            if (rc < 0)
                return fail(ps, err ? err->code : ZDEM_ERR_CORRUPT);
            if (rc == 1 && len <= n) {
                if ((st = ps->sink(ps->ctx, data, len, ps->offset, err)) != ZDEM_OK)
                    return fail(ps, st);
                data += len;
                n -= len;
                ps->offset += len;
                continue;
            }
            ps->need = rc == 1 ? len : 0;
        }
        if (ps->need > ps->cap)
            return fail(ps, zdem_fail(err, ZDEM_ERR_NO_SPACE, ps->offset,
                                           "frame larger than the push buffer"));
        if (ps->need == 0) {
            /* Header split across pieces: gather a byte at a time so no
             * byte of the next frame is taken (headers are a few bytes). */
            if (ps->have >= ps->cap)
                return fail(ps, zdem_fail(err, ZDEM_ERR_NO_SPACE, ps->offset,
                                               "frame header larger than the push buffer"));
            ps->buf[ps->have++] = *data++;
            n--;
            rc = size_frame(ps, ps->buf, ps->have, &len, err);
            if (rc < 0)
                return fail(ps, err ? err->code : ZDEM_ERR_CORRUPT);
            if (rc == 1)
                ps->need = len;
            if (ps->need > ps->cap)
                return fail(ps, zdem_fail(err, ZDEM_ERR_NO_SPACE, ps->offset,
                                               "frame larger than the push buffer"));
        } else {
            size_t take = ps->need - ps->have;
            if (take > n)
                take = n;
            memcpy(ps->buf + ps->have, data, take);
            ps->have += take;
            data += take;
            n -= take;
        }
        if (ps->need != 0 && ps->have == ps->need) {
            st = ps->sink(ps->ctx, ps->buf, ps->need, ps->offset, err);
            if (st != ZDEM_OK)
                return fail(ps, st);
            ps->offset += ps->need;
            ps->have = 0;
            ps->need = 0;
        }
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
