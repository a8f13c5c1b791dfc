#include "teeworlds_demo.h"

#include <string.h>
#include "teeworlds_hash.h"
#include "zdem_varint.h"

/* DDNet's map SHA-256 extension marker (v6). */
const uint8_t zdem_tw_sha256_ext_uuid[16] = {
    0x6b, 0xe6, 0xda, 0x4a, 0xce, 0xbd, 0x38, 0x0c,
    0x9b, 0x5b, 0x12, 0x89, 0xc8, 0x42, 0xd7, 0x80,
};

/* Fixed-size NUL-padded header strings: view up to the first NUL. */
static zdem_tw_str fixed_str(const uint8_t *p, size_t cap)
{
    zdem_tw_str s;
    const uint8_t *z = memchr(p, 0, cap);
    s.p = p;
    s.n = z ? (size_t)(z - p) : cap;
    return s;
}

zdem_status zdem_tw_demo_open(const uint8_t *data, size_t size, zdem_tw_demo_info *out,
                         zdem_error *err)
{
    zdem_status st = zdem_tw_demo_open_header(data, size, out, err);
    if (st != ZDEM_OK)
        return st;
    if (size - out->map_offset < (size_t)out->map_size)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, out->map_offset, "embedded map truncated");
    out->map = data + out->map_offset;
    return ZDEM_OK;
}

zdem_status zdem_tw_demo_open_header(const uint8_t *data, size_t size,
                                zdem_tw_demo_info *out, zdem_error *err)
{
    const uint8_t *h;
    size_t pos;
    int32_t map_size;
    memset(out, 0, sizeof *out);
    if (size < 8 && size >= 7 && memcmp(data, "TWDEMO\0", 7) == 0)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, size, "header truncated");
    if (size < 8 || memcmp(data, "TWDEMO\0", 7) != 0)
        return zdem_fail(err, ZDEM_ERR_BAD_MAGIC, 0, "not a TWDEMO file");
    out->version = data[7];
    if (out->version < 3 || out->version > 6)
        return zdem_fail(err, ZDEM_ERR_UNSUPPORTED, 7, "TWDEMO version not in 3..6");
    if (size < ZDEM_TW_HEADER_SIZE)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, 8, "header truncated");
    h = data + 8;
    out->net_version = fixed_str(h, 64);
    out->map_name = fixed_str(h + 64, 64);
    map_size = (int32_t)zdem_load_be32(h + 128);
    out->map_crc = zdem_load_be32(h + 132);
    out->type = fixed_str(h + 136, 8);
    out->length = (int32_t)zdem_load_be32(h + 144);
    out->timestamp = fixed_str(h + 148, 20);
    pos = ZDEM_TW_HEADER_SIZE;
    if (out->version >= 4) {
        int32_t i, n;
        if (size - pos < ZDEM_TW_MARKERS_SIZE)
            return zdem_fail(err, ZDEM_ERR_TRUNCATED, pos, "timeline markers truncated");
        n = (int32_t)zdem_load_be32(data + pos);
        out->raw_num_markers = n;
        /* Out-of-range counts are clamped, not fatal: the markers are only
         * a seeking aid. */
        if (n < 0)
            n = 0;
        if (n > ZDEM_TW_MAX_TIMELINE_MARKERS)
            n = ZDEM_TW_MAX_TIMELINE_MARKERS;
        out->num_timeline_markers = n;
        for (i = 0; i < n; i++)
            out->timeline_markers[i] = (int32_t)zdem_load_be32(data + pos + 4 + 4 * (size_t)i);
        pos += ZDEM_TW_MARKERS_SIZE;
    }
    /* DDNet writes the extension in every v6 file; a v6 file without it is
     * still read (the UUID simply does not match). */
    if (out->version >= 6 && size - pos < ZDEM_TW_SHA256_EXT_SIZE && size > pos &&
        memcmp(data + pos, zdem_tw_sha256_ext_uuid, size - pos < 16 ? size - pos : 16) == 0)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, pos, "map SHA-256 extension truncated");
    if (out->version >= 6 && size - pos >= ZDEM_TW_SHA256_EXT_SIZE &&
        memcmp(data + pos, zdem_tw_sha256_ext_uuid, 16) == 0) {
        out->has_sha256 = 1;
        memcpy(out->map_sha256, data + pos + 16, 32);
        pos += ZDEM_TW_SHA256_EXT_SIZE;
    }
    if (map_size < 0)
        return zdem_fail(err, ZDEM_ERR_BAD_LENGTH, 8 + 128, "negative map size");
    out->map_size = (uint32_t)map_size;
    out->map = NULL;
    out->map_offset = pos;
    out->data_offset = pos + out->map_size;
    return ZDEM_OK;
}

int zdem_tw_demo_map_crc_ok(const zdem_tw_demo_info *info)
{
    return zdem_tw_crc32(0, info->map, info->map_size) == info->map_crc;
}

int zdem_tw_demo_map_sha256_ok(const zdem_tw_demo_info *info)
{
    uint8_t d[32];
    if (!info->has_sha256)
        return 0;
    zdem_tw_sha256_once(info->map, info->map_size, d);
    return memcmp(d, info->map_sha256, 32) == 0;
}

void zdem_tw_chunks_init(zdem_tw_chunk_reader *r, const zdem_tw_demo_info *info,
                    const uint8_t *data, size_t size)
{
    r->data = data;
    r->size = size;
    r->pos = info->data_offset <= size ? info->data_offset : size;
    r->version = info->version;
    r->tick = 0;
    r->have_tick = 0;
    r->first_tick = 0;
    r->length = info->length;
    r->end_checked = 0;
}

zdem_status zdem_tw_chunks_end_check(const zdem_tw_chunk_reader *r, uint64_t end, zdem_error *err)
{
    if (r->length <= 0)
        return ZDEM_OK;
    if (r->have_tick && ((int64_t)r->tick - r->first_tick) / 50 >= r->length)
        return ZDEM_OK;
    return zdem_fail(err, ZDEM_ERR_TRUNCATED, end,
                     "chunk stream ends before the header's length (truncated)");
}

enum {
    CHUNK_TICK = 0x80,
    CHUNK_KEYFRAME = 0x40,
    CHUNK_INLINE = 0x20,      /* v5+: tick delta inline */
    CHUNK_MASK_TICK = 0x1f,   /* v5+ */
    CHUNK_MASK_TICK_34 = 0x3f /* v3/v4: 0 means absolute tick follows */
};

int zdem_tw_chunks_next(zdem_tw_chunk_reader *r, zdem_tw_chunk *c, zdem_error *err)
{
    size_t start = r->pos, left;
    uint8_t b;
    if (start >= r->size) {
        if (r->end_checked)
            return 0;
        r->end_checked = 1;
        return zdem_tw_chunks_end_check(r, r->size, err) == ZDEM_OK ? 0 : -1;
    }
    left = r->size - start;
    b = r->data[start];
    memset(c, 0, sizeof *c);
    c->offset = start;
    if (b & CHUNK_TICK) {
        int absolute;
        uint32_t delta;
        if (r->version >= 5) {
            absolute = !(b & CHUNK_INLINE);
            delta = b & CHUNK_MASK_TICK;
        } else {
            delta = b & CHUNK_MASK_TICK_34;
            absolute = delta == 0;
        }
        c->kind = ZDEM_TW_CHUNK_TICK;
        c->keyframe = (b & CHUNK_KEYFRAME) != 0;
        c->inline_tick = !absolute;
        if (absolute) {
            if (left < 5) {
                zdem_fail(err, ZDEM_ERR_TRUNCATED, start, "tick marker truncated");
                r->pos = r->size;
                r->end_checked = 1;
                return -1;
            }
            r->tick = (int32_t)zdem_load_be32(r->data + start + 1);
            r->pos = start + 5;
        } else {
            /* Wrapping add: a hostile stream may push past INT32_MAX. */
            r->tick = (int32_t)((uint32_t)r->tick + delta);
            r->pos = start + 1;
        }
        if (!r->have_tick)
            r->first_tick = r->tick;
        r->have_tick = 1;
        c->tick = r->tick;
        return 1;
    } else {
        size_t hdr = 1, sz = b & 0x1f;
        c->kind = (b >> 5) & 3;
        if (sz == 30) {
            if (left < 2)
                goto truncated;
            sz = r->data[start + 1];
            hdr = 2;
        } else if (sz == 31) {
            if (left < 3)
                goto truncated;
            sz = (size_t)r->data[start + 1] | ((size_t)r->data[start + 2] << 8);
            hdr = 3;
        }
        if (left - hdr < sz)
            goto truncated;
        c->tick = r->tick;
        c->data = r->data + start + hdr;
        c->size = sz;
        c->data_offset = start + hdr;
        r->pos = start + hdr + sz;
        return 1;
    }
truncated:
    zdem_fail(err, ZDEM_ERR_TRUNCATED, start, "chunk truncated");
    r->pos = r->size; /* stop: nothing after a cut chunk can be trusted */
    r->end_checked = 1;
    return -1;
}
