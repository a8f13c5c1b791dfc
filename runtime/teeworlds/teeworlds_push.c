#include "teeworlds_push.h"

#include <string.h>

static int header_len(const uint8_t *p, size_t avail, size_t *len, zdem_error *err)
{
    size_t base;
    if (avail < 8)
        return 0;
    if (memcmp(p, "TWDEMO\0", 7) != 0) {
        zdem_fail(err, ZDEM_ERR_BAD_MAGIC, 0, "not a TWDEMO file");
        return -1;
    }
    if (p[7] < 3 || p[7] > 6) {
        zdem_fail(err, ZDEM_ERR_UNSUPPORTED, 7, "TWDEMO version not in 3..6");
        return -1;
    }
    base = ZDEM_TW_HEADER_SIZE + (p[7] >= 4 ? ZDEM_TW_MARKERS_SIZE : 0);
    if (p[7] >= 6) { /* the SHA-256 extension is there if its UUID is */
        if (avail < base + 16)
            return 0;
        if (memcmp(p + base, zdem_tw_sha256_ext_uuid, 16) == 0)
            base += ZDEM_TW_SHA256_EXT_SIZE;
    }
    *len = base;
    return 1;
}

/* Same header forms as zdem_tw_chunks_next. */
static int chunk_len(int version, const uint8_t *p, size_t avail, size_t *len)
{
    uint8_t b = p[0];
    if (b & 0x80) {
        int absolute = version >= 5 ? !(b & 0x20) : (b & 0x3f) == 0;
        *len = absolute ? 5 : 1;
        return 1;
    }
    switch (b & 0x1f) {
    case 30:
        if (avail < 2)
            return 0;
        *len = 2 + (size_t)p[1];
        return 1;
    case 31:
        if (avail < 3)
            return 0;
        *len = 3 + ((size_t)p[1] | ((size_t)p[2] << 8));
        return 1;
    default:
        *len = 1 + (size_t)(b & 0x1f);
        return 1;
    }
}

static int zdem_tw_sizer(void *ctx, const uint8_t *p, size_t avail, size_t *len,
                    zdem_error *err)
{
    zdem_tw_push *s = ctx;
    switch (s->phase) {
    case 0:
        return header_len(p, avail, len, err);
    case 1: /* map: stream through in whatever pieces arrive */
        *len = avail < s->map_left ? avail : s->map_left;
        return 1;
    default:
        s->head = p[0];
        return chunk_len(s->r->info.version, p, avail, len);
    }
}

/* A chunk larger than the gathering buffer, split across pieces: dropped
 * with a warning (its first byte gave its kind), the input goes on. */
static zdem_status zdem_tw_skip(void *ctx, uint64_t offset, size_t len, zdem_error *err)
{
    zdem_tw_push *s = ctx;
    zdem_tw_event ev;
    if (s->phase != 2) /* the header always fits the buffer it needs */
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, offset, "gathering buffer smaller than the header");
    memset(&ev, 0, sizeof ev);
    ev.chunk.kind = (s->head & 0x80u) ? ZDEM_TW_CHUNK_TICK : (s->head >> 5) & 3;
    ev.chunk.offset = offset;
    ev.chunk.size = (uint32_t)len;
    ev.chunk.tick = s->r->chunks.tick;
    (void)zdem_tw_chunk_over(s->r, &ev, "limit: chunk larger than the gathering buffer (dropped)");
    if (s->on_event && s->on_event(s->user, &ev))
        return zdem_fail(err, ZDEM_ERR_ABORTED, offset, "stopped by on_event");
    return ZDEM_OK;
}

static void map_done(zdem_tw_push *s)
{
    uint8_t d[32];
    s->phase = 2;
    s->map_crc_ok = s->crc == s->r->info.map_crc;
    zdem_tw_sha256_final(&s->sha, d);
    s->map_sha256_ok = s->r->info.has_sha256 && memcmp(d, s->r->info.map_sha256, 32) == 0;
}

static zdem_status zdem_tw_sink(void *ctx, const uint8_t *frame, size_t len,
                           uint64_t offset, zdem_error *err)
{
    zdem_tw_push *s = ctx;
    zdem_tw_reader *r = s->r;
    zdem_status st;
    if (s->phase == 0) {
        if (!r->huff)
            return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "zdem_tw_reader_init was not called");
        if ((st = zdem_tw_demo_open_header(frame, len, &r->info, err)) != ZDEM_OK)
            return st;
        zdem_tw_reader_use_protocol(r);
        r->limit_hits = 0;
        r->stale = 0;
        zdem_error_clear(&r->first_limit);
        r->chunks.version = r->info.version;
        r->chunks.tick = 0;
        r->chunks.have_tick = 0;
        r->chunks.first_tick = 0;
        r->chunks.length = r->info.length;
        r->chunks.end_checked = 0;
        s->map_left = r->info.map_size;
        s->crc = 0;
        zdem_tw_sha256_init(&s->sha);
        s->phase = 1;
        if (s->on_header && s->on_header(s->user, &r->info))
            return zdem_fail(err, ZDEM_ERR_ABORTED, offset, "stopped by on_header");
        if (s->map_left == 0)
            map_done(s);
        return ZDEM_OK;
    }
    if (s->phase == 1) {
        s->crc = zdem_tw_crc32(s->crc, frame, len);
        zdem_tw_sha256_update(&s->sha, frame, len);
        s->map_left -= (uint32_t)len;
        if (s->on_map && s->on_map(s->user, frame, len))
            return zdem_fail(err, ZDEM_ERR_ABORTED, offset, "stopped by on_map");
        if (s->map_left == 0)
            map_done(s);
        return ZDEM_OK;
    }
    {
        zdem_tw_event ev;
        int rc;
        memset(&ev, 0, sizeof ev);
        /* Frame the single chunk with the file reader (its tick state
         * carries over), then decode it; offsets become file offsets. */
        r->chunks.data = frame;
        r->chunks.size = len;
        r->chunks.pos = 0;
        rc = zdem_tw_chunks_next(&r->chunks, &ev.chunk, err);
        if (rc == 1) {
            ev.chunk.offset += offset;
            ev.chunk.data_offset += offset;
            rc = zdem_tw_reader_decode(r, &ev, err);
        } else if (err) {
            err->offset += offset;
        }
        if (rc != 1)
            return err && err->code != ZDEM_OK ? err->code : ZDEM_ERR_CORRUPT;
        if (s->on_event && s->on_event(s->user, &ev))
            return zdem_fail(err, ZDEM_ERR_ABORTED, offset, "stopped by on_event");
        return ZDEM_OK;
    }
}

void zdem_tw_push_init(zdem_tw_push *s, zdem_tw_reader *r, uint8_t *buf, size_t cap)
{
    memset(s, 0, sizeof *s);
    s->r = r;
    r->decode_snapshots = 1;
    r->decode_messages = 1;
    r->check_protocol = 1;
    zdem_push_init(&s->in, buf, cap, zdem_tw_sizer, zdem_tw_sink, s);
    zdem_push_set_skip(&s->in, zdem_tw_skip);
}

zdem_status zdem_tw_push_feed(zdem_tw_push *s, const uint8_t *data, size_t n, zdem_error *err)
{
    return zdem_push_feed(&s->in, data, n, err);
}

zdem_status zdem_tw_push_end(zdem_tw_push *s, zdem_error *err)
{
    zdem_status st = zdem_push_end(&s->in, err);
    if (st != ZDEM_OK)
        return st;
    if (s->phase == 0)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, s->in.offset, "input ends inside the header");
    if (s->phase == 1)
        /* where the map starts, as the whole-file reader says it */
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, s->r->info.map_offset, "embedded map truncated");
    return zdem_tw_chunks_end_check(&s->r->chunks, s->in.offset, err);
}
