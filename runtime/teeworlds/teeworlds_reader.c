#include "teeworlds_reader.h"

#include <string.h>

size_t zdem_tw_reader_size(void) { return sizeof(zdem_tw_reader); }

#define TW_READY 0x5A545752u /* "ZTWR": init ran */

void zdem_tw_limits_default(zdem_tw_limits *lim)
{
    static const zdem_tw_limits d = ZDEM_TW_LIMITS_DEFAULT;
    *lim = d;
}

void zdem_tw_limits_small(zdem_tw_limits *lim)
{
    static const zdem_tw_limits d = ZDEM_TW_LIMITS_SMALL;
    *lim = d;
}

/* The limits as used: 0 or over a game bound means that bound; the
 * payload a whole number of ints. */
static zdem_tw_limits clamp(const zdem_tw_limits *lim)
{
    zdem_tw_limits l;
    zdem_tw_limits_default(&l);
    if (lim) {
        if (lim->max_payload >= 4u && lim->max_payload < l.max_payload)
            l.max_payload = lim->max_payload & ~3u;
        if (lim->max_items && lim->max_items < l.max_items)
            l.max_items = lim->max_items;
        if (lim->max_snap_ints && lim->max_snap_ints < l.max_snap_ints)
            l.max_snap_ints = lim->max_snap_ints;
    }
    return l;
}

size_t zdem_tw_reader_mem_size(const zdem_tw_limits *lim)
{
    zdem_tw_limits l = clamp(lim);
    return ZDEM_TW_READER_MEM(l.max_payload, l.max_items, l.max_snap_ints);
}

zdem_status zdem_tw_reader_init(zdem_tw_reader *r, const zdem_tw_limits *lim, void *mem,
                                size_t size, zdem_error *err)
{
    zdem_tw_limits l = clamp(lim);
    uint8_t *p = mem;
    zdem_status st;
    memset(r, 0, sizeof *r);
    if (!mem || ((uintptr_t)mem & 3u) || size < zdem_tw_reader_mem_size(&l))
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0,
                         "reader memory smaller than zdem_tw_reader_mem_size or not 4-aligned");
    r->limits = l;
    r->payload_cap = l.max_payload;
    r->ints = (int32_t *)(void *)p;
    p += l.max_payload;
    r->huff = p;
    p += l.max_payload;
    st = zdem_tw_snap_setup(&r->snaps, l.max_items, l.max_snap_ints, p,
                            ZDEM_TW_SNAP_MEM(l.max_items, l.max_snap_ints), err);
    if (st != ZDEM_OK)
        return st;
    r->proto = &zdem_tw_protocol_06; /* until a header selects one */
    r->proto_known = 1;
    r->ready = TW_READY;
    return ZDEM_OK;
}

zdem_status zdem_tw_reader_open(zdem_tw_reader *r, const uint8_t *data, size_t size,
                           zdem_error *err)
{
    zdem_status st;
    if (r->ready != TW_READY)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "zdem_tw_reader_init was not called");
    st = zdem_tw_demo_open(data, size, &r->info, err);
    if (st != ZDEM_OK)
        return st;
    zdem_tw_chunks_init(&r->chunks, &r->info, data, size);
    zdem_tw_reader_use_protocol(r);
    r->decode_snapshots = 1;
    r->decode_messages = 1;
    r->check_protocol = 1;
    r->limit_hits = 0;
    r->stale = 0;
    zdem_error_clear(&r->first_limit);
    return ZDEM_OK;
}

/* Re-reports an inner payload error at a file offset and stops the
 * stream: nothing after a bad chunk can be trusted. */
static int payload_fail(zdem_tw_reader *r, zdem_error *err, const zdem_error *inner, uint64_t off)
{
    r->chunks.pos = r->chunks.size;
    r->chunks.end_checked = 1;
    zdem_fail(err, inner->code, off, inner->msg);
    return -1;
}

/* A chunk over a limit: dropped with a warning, counted (the first kept),
 * and the stream goes on (the chunk's framing is whole). A dropped
 * snapshot or delta leaves the deltas after it without their base until
 * the next full snapshot. */
static int chunk_over(zdem_tw_reader *r, zdem_tw_event *ev, const char *msg)
{
    ev->warning = msg;
    ev->num_ints = 0;
    if (r->limit_hits++ == 0)
        zdem_fail(&r->first_limit, ZDEM_ERR_LIMIT, ev->chunk.offset, msg);
    if (ev->chunk.kind != ZDEM_TW_CHUNK_MESSAGE)
        r->stale = 1;
    return 1;
}

int zdem_tw_chunk_over(zdem_tw_reader *r, zdem_tw_event *ev, const char *msg)
{
    return chunk_over(r, ev, msg);
}

int zdem_tw_reader_next(zdem_tw_reader *r, zdem_tw_event *ev, zdem_error *err)
{
    int rc;
    memset(ev, 0, sizeof *ev);
    rc = zdem_tw_chunks_next(&r->chunks, &ev->chunk, err);
    if (rc != 1)
        return rc;
    return zdem_tw_reader_decode(r, ev, err);
}

int zdem_tw_reader_decode(zdem_tw_reader *r, zdem_tw_event *ev, zdem_error *err)
{
    zdem_error inner;
    size_t n, k;
    if (ev->chunk.kind == ZDEM_TW_CHUNK_TICK || ev->chunk.kind == ZDEM_TW_CHUNK_UNKNOWN)
        return 1;
    if ((ev->chunk.kind == ZDEM_TW_CHUNK_MESSAGE && !r->decode_messages) ||
        (ev->chunk.kind != ZDEM_TW_CHUNK_MESSAGE && !r->decode_snapshots))
        return 1;
    zdem_error_clear(&inner);
    /* The game skips the decoder for empty chunks; so do we (an empty
     * delta then changes nothing). */
    if (ev->chunk.size == 0) {
        n = 0;
    } else if (zdem_tw_huff_decode(ev->chunk.data, ev->chunk.size, r->huff, r->payload_cap,
                              &n, &inner) != ZDEM_OK) {
        if (inner.code == ZDEM_ERR_NO_SPACE)
            return chunk_over(r, ev, "limit max_payload: chunk payload over the limit (dropped)");
        return payload_fail(r, err, &inner, ev->chunk.data_offset + inner.offset);
    }
    if (zdem_tw_ints_unpack(r->huff, n, r->ints, r->payload_cap / 4u, &k, &inner) != ZDEM_OK) {
        if (inner.code == ZDEM_ERR_NO_SPACE)
            return chunk_over(r, ev, "limit max_payload: chunk payload over the limit in ints "
                                     "(dropped)");
        return payload_fail(r, err, &inner, ev->chunk.offset);
    }
    ev->num_ints = k;
    if (ev->chunk.kind == ZDEM_TW_CHUNK_MESSAGE) {
        /* in place: byte i*4.. only overwrites int i, already read */
        uint8_t *bytes = (uint8_t *)(void *)r->ints;
        zdem_tw_ints_to_bytes(r->ints, k, bytes);
        if (k == 0)
            return 1; /* empty message chunk: nothing to parse */
        if (zdem_tw_msg_parse(bytes, 4 * k, &ev->msg, &inner) != ZDEM_OK) {
            return payload_fail(r, err, &inner, ev->chunk.offset);
        }
        if (r->check_protocol) {
            ev->desc = zdem_tw_protocol_msg(r->proto, ev->msg.sys, ev->msg.id, ev->msg.uuid);
            zdem_tw_reader_check(r, ev);
        }
        return 1;
    }
    zdem_tw_snap_written_clear(&r->snaps); /* until a chunk applies something */
    if (k > 0 && ev->chunk.kind == ZDEM_TW_CHUNK_DELTA && r->stale) {
        /* its base was dropped: applied to an older snapshot it would give
         * wrong items without a word */
        ev->warning = "snapshot delta: its base snapshot was dropped at a limit (skipped "
                      "until the next full snapshot)";
        r->limit_hits++;
        return 1;
    }
    if (k > 0) {
        zdem_status st = ev->chunk.kind == ZDEM_TW_CHUNK_SNAPSHOT
                             ? zdem_tw_snap_load_full(&r->snaps, r->ints, k, &inner)
                             : zdem_tw_snap_apply_delta(&r->snaps, r->ints, k, &inner);
        if (st == ZDEM_ERR_LIMIT) {
            /* Over the game's own item/size bounds: the game drops such a
             * snapshot and plays on from the previous one; so do we, and
             * for the caller's limits too. Counted, the first one kept. */
            ev->warning = inner.msg;
            if (r->limit_hits++ == 0)
                zdem_fail(&r->first_limit, ZDEM_ERR_LIMIT, ev->chunk.offset, inner.msg);
            r->stale = 1;
            return 1;
        }
        r->stale = 0;
        if (st != ZDEM_OK)
            return payload_fail(r, err, &inner, ev->chunk.offset);
        if (ev->chunk.kind == ZDEM_TW_CHUNK_DELTA && r->snaps.delta_unused)
            ev->warning = "snapshot delta: ints left after the last item (ignored)";
    }
    ev->snap = zdem_tw_snap_current(&r->snaps);
    if (r->check_protocol)
        zdem_tw_reader_check(r, ev);
    return 1;
}

int zdem_tw_snap_type_uuid(const zdem_tw_snap *snap, int type, uint8_t uuid[16])
{
    int idx, i;
    const int32_t *d;
    if (type <= 0 || type > ZDEM_TW_SNAP_MAX_TYPE)
        return 0;
    idx = zdem_tw_snap_find(snap, (uint32_t)type); /* key of (type 0, id type) */
    if (idx < 0 || snap->len[idx] < 4)
        return 0;
    d = zdem_tw_snap_data(snap, (uint32_t)idx);
    for (i = 0; i < 4; i++) {
        uint32_t v = (uint32_t)d[i];
        uuid[4 * i] = (uint8_t)(v >> 24);
        uuid[4 * i + 1] = (uint8_t)(v >> 16);
        uuid[4 * i + 2] = (uint8_t)(v >> 8);
        uuid[4 * i + 3] = (uint8_t)v;
    }
    return 1;
}

const zdem_tw_obj_desc *zdem_tw_item_desc(const zdem_tw_snap *snap, uint32_t i)
{
    int type = zdem_tw_snap_type(snap, i);
    const zdem_tw_obj_desc *d;
    uint8_t uuid[16];
    if (type == 0)
        return NULL;
    d = zdem_tw_obj_desc_by_type(type);
    if (d)
        return d;
    if (zdem_tw_snap_type_uuid(snap, type, uuid))
        return zdem_tw_obj_desc_by_uuid(uuid);
    return NULL;
}
