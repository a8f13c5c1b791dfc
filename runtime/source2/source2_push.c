#include "source2_push.h"

#include "zdem_varint.h"

/* Frame header: three varuint32 (command, tick, size). */
static int s2_sizer(void *ctx, const uint8_t *p, size_t avail, size_t *len,
                    zdem_error *err)
{
    zdem_s2_push *s = ctx;
    const uint8_t *q = p, *end = p + avail;
    uint32_t v[3];
    int i;
    if (!s->have_header) {
        if (avail < ZDEM_S2_HEADER_SIZE)
            return 0;
        *len = ZDEM_S2_HEADER_SIZE;
        return 1;
    }
    for (i = 0; i < 3; i++) {
        zdem_status st = zdem_varuint32(&q, end, &v[i]);
        if (st == ZDEM_ERR_TRUNCATED)
            return 0;
        if (st != ZDEM_OK) {
            zdem_fail(err, st, (uint64_t)(q - p), "bad varint in frame header");
            return -1;
        }
    }
    *len = (size_t)(q - p) + v[2];
    return 1;
}

static zdem_status s2_sink(void *ctx, const uint8_t *frame, size_t len,
                           uint64_t offset, zdem_error *err)
{
    zdem_s2_push *s = ctx;
    zdem_s2_reader r;
    zdem_s2_outer m;
    int rc;
    if (!s->have_header) {
        s->have_header = 1;
        return zdem_s2_read_header(frame, len, &s->hdr, err);
    }
    /* Reuse the sequential reader on the gathered frame so framing rules
     * stay in one place; then restore file offsets. */
    r.file = frame;
    r.size = len;
    r.pos = 0;
    r.index = s->index;
    r.stopped = 0;
    rc = zdem_s2_next(&r, &m, err);
    if (rc != 1) {
        if (err)
            err->offset += offset;
        return rc < 0 && err ? err->code : ZDEM_ERR_CORRUPT;
    }
    s->index++;
    m.offset += offset;
    m.payload_offset += offset;
    return zdem_s2_parse_frame(s->parser, &m, err);
}

void zdem_s2_push_init(zdem_s2_push *s, zdem_s2_parser *parser, uint8_t *buf,
                       size_t cap)
{
    s->parser = parser;
    s->have_header = 0;
    s->index = 0;
    zdem_push_init(&s->in, buf, cap, s2_sizer, s2_sink, s);
}

zdem_status zdem_s2_push_feed(zdem_s2_push *s, const uint8_t *data, size_t n,
                              zdem_error *err)
{
    return zdem_push_feed(&s->in, data, n, err);
}

zdem_status zdem_s2_push_end(zdem_s2_push *s, zdem_error *err)
{
    zdem_status st = zdem_push_end(&s->in, err);
    if (st == ZDEM_OK && !s->have_header)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, 0, "input ends inside the 16-byte header");
    return st;
}
