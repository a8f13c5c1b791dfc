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
            zdem_fail(err, st, 0, "bad varint in frame header");
            return -1;
        }
    }
    *len = (size_t)(q - p) + v[2];
    v[0] &= ~(uint32_t)ZDEM_S2_CMD_COMPRESSED;
    /* never Stop nor FileInfo: the end checks must see them */
    if (v[0] < 32u && (((s->skip_cmds & ~((1u << ZDEM_S2_DEM_STOP) | (1u << ZDEM_S2_DEM_FILEINFO))) >>
                        v[0]) & 1u)) {
        s->index++;
        s->skipped++;
        return ZDEM_PUSH_SKIP;
    }
    return 1;
}

static zdem_status s2_sink(void *ctx, const uint8_t *frame, size_t len,
                           uint64_t offset, zdem_error *err)
{
    zdem_s2_push *s = ctx;
    zdem_s2_outer m;
    size_t next;
    if (!s->have_header) {
        s->have_header = 1;
        return zdem_s2_read_header(frame, len, &s->hdr, err);
    }
    if (zdem_s2_read_frame(frame, len, 0, &m, &next, err) < 0) {
        if (err)
            err->offset += offset;
        return err ? err->code : ZDEM_ERR_CORRUPT;
    }
    m.index = s->index++;
    m.offset += offset;
    m.payload_offset += offset;
    if (m.cmd == ZDEM_S2_DEM_STOP)
        s->stopped = 1;
    if (m.cmd == ZDEM_S2_DEM_FILEINFO && !s->fileinfo_at)
        s->fileinfo_at = m.offset + 1u;
    return s->on_frame(s->ctx, &m, err);
}

static zdem_status s2_skip(void *ctx, uint64_t offset, size_t len, zdem_error *err)
{
    zdem_s2_push *s = ctx;
    (void)err;
    if (!s->have_header)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "bad Source 2 header");
    s->index++;
    if (s->on_skip)
        s->on_skip(s->ctx, offset, len);
    return ZDEM_OK;
}

void zdem_s2_push_init(zdem_s2_push *s, zdem_s2_frame_fn on_frame,
                       zdem_s2_skip_fn on_skip, void *ctx, uint8_t *buf,
                       size_t cap)
{
    s->on_frame = on_frame;
    s->on_skip = on_skip;
    s->ctx = ctx;
    s->have_header = 0;
    s->stopped = 0;
    s->index = 0;
    s->fed = 0;
    s->fileinfo_at = 0;
    s->skip_cmds = 0;
    s->skipped = 0;
    s->hdr.fileinfo_offset = 0;
    s->hdr.spawngroups_offset = 0;
    zdem_push_init(&s->in, buf, cap, s2_sizer, s2_sink, s);
    zdem_push_set_skip(&s->in, s2_skip);
}

zdem_status zdem_s2_push_feed(zdem_s2_push *s, const uint8_t *data, size_t n,
                              zdem_error *err)
{
    s->fed += n;
    return zdem_push_feed(&s->in, data, n, err);
}

/* What the end of input says about completeness. */
static zdem_status check_end(zdem_s2_push *s, zdem_error *err)
{
    if (!s->have_header)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, s->fed,
                         "file shorter than the 16-byte Source 2 header");
    if (!s->stopped)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, s->fed,
                         "no DEM_Stop: the demo is cut short (or still being written)");
    /* The header's FileInfo offset is written when the demo is finished:
     * a file that ends before it lost its tail. */
    if (s->hdr.fileinfo_offset >= ZDEM_S2_HEADER_SIZE && s->hdr.fileinfo_offset >= s->fed)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, s->fed,
                         "the file ends before the DEM_FileInfo its header points at");
    if (s->hdr.fileinfo_offset != 0 && s->fileinfo_at != (uint64_t)s->hdr.fileinfo_offset + 1u)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 8,
                         "the header's DEM_FileInfo offset does not point at the DEM_FileInfo frame");
    return ZDEM_OK;
}

int zdem_s2_push_complete(const zdem_s2_push *s)
{
    uint32_t fi = s->hdr.fileinfo_offset;
    if (!s->have_header || !s->stopped || s->in.have || s->in.skipping ||
        s->in.failed != ZDEM_OK)
        return 0;
    return fi < ZDEM_S2_HEADER_SIZE || s->fileinfo_at == (uint64_t)fi + 1u;
}

/* The generic "input ends inside a frame" said the Source 2 way. */
static zdem_status cut(zdem_status st, const zdem_error *e, zdem_error *err)
{
    if (st == ZDEM_ERR_TRUNCATED)
        return zdem_fail(err, st, e->offset, "the file ends inside a frame (cut short)");
    if (err && err->code == ZDEM_OK)
        *err = *e;
    return st;
}

zdem_status zdem_s2_push_end(zdem_s2_push *s, zdem_error *err)
{
    zdem_status st;
    zdem_error e;
    if (!s->have_header)
        return check_end(s, err);
    zdem_error_clear(&e);
    st = zdem_push_end(&s->in, &e);
    if (st != ZDEM_OK)
        return cut(st, &e, err);
    return check_end(s, err);
}

zdem_status zdem_s2_push_file(zdem_s2_push *s, const uint8_t *file,
                              size_t size, zdem_error *err)
{
    zdem_status st;
    zdem_error e;
    s->fed += size;
    if (!s->have_header && s->fed < ZDEM_S2_HEADER_SIZE)
        return check_end(s, err);
    zdem_error_clear(&e);
    st = zdem_push_feed_last(&s->in, file, size, &e);
    if (st != ZDEM_OK)
        return cut(st, &e, err);
    return check_end(s, err);
}
