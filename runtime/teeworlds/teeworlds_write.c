/* Teeworlds / DDNet clips and their encoders (see teeworlds_write.h). The
 * layouts are those the reader takes (teeworlds_demo.c, teeworlds_snap.c,
 * teeworlds_huffman.c), written in the other direction. */
#include "teeworlds_write.h"
#include "teeworlds_demo.h"
#include "teeworlds_huffman.h"
#include "teeworlds_reader.h"

#include <string.h>

/* ---------------------------------------------------------------- encoders */

zdem_status zdem_tw_snap_encode_full(const zdem_tw_snap *s, int32_t *ints, size_t cap,
                                     size_t *n)
{
    size_t k, j = 0, need = 2u + s->num_items;
    uint32_t bytes = 0, i;
    *n = 0;
    for (i = zdem_tw_snap_first(s); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(s, i))
        need += 1u + s->len[i];
    if (need > cap)
        return ZDEM_ERR_NO_SPACE;
    k = 2u + s->num_items;
    for (i = zdem_tw_snap_first(s); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(s, i)) {
        ints[2 + j++] = (int32_t)bytes; /* offsets in bytes */
        ints[k++] = (int32_t)s->key[i];
        memcpy(ints + k, s->data + s->off[i], 4u * s->len[i]);
        k += s->len[i];
        bytes += 4u * (1u + s->len[i]);
    }
    ints[0] = (int32_t)bytes;
    ints[1] = (int32_t)s->num_items;
    *n = k;
    return ZDEM_OK;
}

zdem_status zdem_tw_snap_encode_delta(const zdem_tw_snap *from, const zdem_tw_snap *to,
                                      const uint8_t *static_sizes, size_t nstatic,
                                      int32_t *ints, size_t cap, size_t *n)
{
    size_t k = 3, nrem = 0, ndel = 0;
    uint32_t i;
    *n = 0;
    if (cap < 3)
        return ZDEM_ERR_NO_SPACE;
    /* removed: in from, not in to */
    for (i = zdem_tw_snap_first(from); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(from, i))
        if (zdem_tw_snap_find(to, from->key[i]) < 0) {
            if (k >= cap)
                return ZDEM_ERR_NO_SPACE;
            ints[k++] = (int32_t)from->key[i];
            nrem++;
        }
    for (i = zdem_tw_snap_first(to); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(to, i)) {
        uint32_t key = to->key[i], len = to->len[i], type = key >> 16, j;
        int old = zdem_tw_snap_find(from, key), stat = type < nstatic && static_sizes[type];
        const int32_t *d = to->data + to->off[i];
        if (old >= 0) {
            const int32_t *o = from->data + from->off[old];
            if (from->len[old] != len)
                return ZDEM_ERR_UNSUPPORTED; /* a delta cannot resize an item */
            if (memcmp(o, d, 4u * len) == 0)
                continue; /* unchanged: not sent */
        }
        if (stat && static_sizes[type] != len)
            return ZDEM_ERR_UNSUPPORTED;
        if (cap - k < 3u + len)
            return ZDEM_ERR_NO_SPACE;
        ints[k++] = (int32_t)type;
        ints[k++] = (int32_t)(key & 0xffffu);
        if (!stat)
            ints[k++] = (int32_t)len;
        for (j = 0; j < len; j++)
            ints[k++] = old >= 0 ? (int32_t)((uint32_t)d[j] - (uint32_t)from->data[from->off[old] + j])
                                 : d[j];
        ndel++;
    }
    ints[0] = (int32_t)nrem;
    ints[1] = (int32_t)ndel;
    ints[2] = 0;
    *n = k;
    return ZDEM_OK;
}

zdem_status zdem_tw_chunk_encode(int kind, const int32_t *ints, size_t n, uint8_t *scratch,
                                 size_t scratch_cap, uint8_t *out, size_t cap, size_t *len)
{
    size_t packed, coded = 0, hdr;
    zdem_status st;
    *len = 0;
    if (kind < ZDEM_TW_CHUNK_SNAPSHOT || kind > ZDEM_TW_CHUNK_DELTA)
        return ZDEM_ERR_UNSUPPORTED;
    if (scratch_cap > 65536u) /* the reader's bound on a decoded payload */
        scratch_cap = 65536u;
    st = zdem_tw_ints_pack(ints, n, scratch, scratch_cap, &packed);
    if (st != ZDEM_OK)
        return st;
    if (cap < 3)
        return ZDEM_ERR_NO_SPACE;
    /* the payload after a 3-byte header, moved up if the size is short */
    if (packed) {
        st = zdem_tw_huff_encode(scratch, packed, out + 3, cap - 3, &coded);
        if (st != ZDEM_OK)
            return st;
    }
    if (coded > 0xffffu)
        return ZDEM_ERR_LIMIT;
    if (coded < 30) {
        out[0] = (uint8_t)(kind << 5 | (int)coded);
        hdr = 1;
    } else if (coded < 256) {
        out[0] = (uint8_t)(kind << 5 | 30);
        out[1] = (uint8_t)coded;
        hdr = 2;
    } else {
        out[0] = (uint8_t)(kind << 5 | 31);
        out[1] = (uint8_t)coded;
        out[2] = (uint8_t)(coded >> 8);
        hdr = 3;
    }
    if (hdr < 3)
        memmove(out + hdr, out + 3, coded);
    *len = hdr + coded;
    return ZDEM_OK;
}

static void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

size_t zdem_tw_tick_marker(int version, int32_t tick, int keyframe, uint8_t out[5])
{
    /* v5+: bit 5 clear means the absolute tick follows; before: a delta
     * of 0 does */
    out[0] = (uint8_t)(0x80u | (keyframe ? 0x40u : 0u));
    (void)version;
    store_be32(out + 1, (uint32_t)tick);
    return 5;
}

/* ---------------------------------------------------------------- the cut */

/* Encoding buffers: a full snapshot's ints at the game's bounds (header,
 * offsets, keys, data), its packed bytes, the chunk. */
#define W_INTS (2u + 2u * ZDEM_TW_SNAP_MAX_ITEMS + ZDEM_TW_SNAP_MAX_INTS)
#define W_PACKED 65536u
#define W_CHUNK (3u + 2u * 65536u)

typedef struct tw_writer {
    zdem_tw_reader r;
    int32_t ints[W_INTS];
    uint8_t packed[W_PACKED];
    uint8_t chunk[W_CHUNK];
} tw_writer;

size_t zdem_tw_writer_size(void)
{
    return sizeof(tw_writer) + 8u + zdem_tw_reader_mem_size(NULL);
}

static zdem_status out(zdem_write_fn write, void *user, const uint8_t *p, size_t n,
                       zdem_tw_cut_info *info, zdem_error *err)
{
    if (n && write(user, p, n))
        return zdem_fail(err, write == zdem_out_buffer_write ? ZDEM_ERR_NO_SPACE : ZDEM_ERR_ABORTED,
                         0, "the output did not take the clip");
    info->bytes += n;
    return ZDEM_OK;
}

zdem_status zdem_tw_writer_cut(void *mem, size_t size, const uint8_t *data, size_t n,
                               int32_t start_tick, int32_t end_tick, zdem_write_fn write,
                               void *user, zdem_tw_cut_info *info_out, zdem_error *err)
{
    uintptr_t a = (uintptr_t)mem;
    tw_writer *w;
    zdem_tw_reader *r;
    zdem_tw_event ev;
    zdem_tw_cut_info info;
    zdem_error e;
    zdem_status fault = ZDEM_OK;
    /* the clip: its first tick marker (offset, end, tick), its first
     * snapshot chunk (offset, end), where it ends */
    size_t mark_end = 0, snap_at = 0, snap_end = 0, end_pos = 0, chunk_len = 0;
    size_t last_mark_at = 0, last_mark_end = 0;
    int32_t last_mark_tick = 0;
    int have_mark = 0, rc;
    uint32_t pre = 0; /* chunks since the last tick marker */
    uint32_t unstated = 0; /* types by bit: learned sizes the clip's first snapshot leaves out */
    uint8_t hdr[ZDEM_TW_HEADER_SIZE + ZDEM_TW_MARKERS_SIZE], m5[5];
    size_t hlen;
    memset(&info, 0, sizeof info);
    if (info_out)
        *info_out = info;
    if (!mem || size < zdem_tw_writer_size() || !write)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "writer memory smaller than zdem_tw_writer_size()");
    a = (a + 7u) & ~(uintptr_t)7u;
    w = (tw_writer *)a;
    r = &w->r;
    if (zdem_tw_reader_init(r, NULL, (uint8_t *)w + sizeof *w, zdem_tw_reader_mem_size(NULL), err) != ZDEM_OK)
        return err ? err->code : ZDEM_ERR_NO_SPACE;
    if (zdem_tw_reader_open(r, data, n, err) != ZDEM_OK)
        return err ? err->code : ZDEM_ERR_CORRUPT;
    r->check_protocol = 0; /* its warnings are the reader's to give, not the clip's */
    /* read up to the clip's end: its state at the start, its extent */
    zdem_error_clear(&e);
    for (;;) {
        rc = zdem_tw_reader_next(r, &ev, &e);
        if (rc == 0) {
            end_pos = n;
            break;
        }
        if (rc < 0) {
            /* the clip stops before the chunk that failed (its header, or
             * the end of a stream short of its length: then all of it) */
            fault = e.code;
            end_pos = ev.chunk.data ? ev.chunk.offset : (e.offset < n ? (size_t)e.offset : n);
            break;
        }
        if (info.started)
            info.copied++; /* (the end's marker is taken back below) */
        if (info.started && unstated && ev.snap) {
            uint32_t i;
            for (i = zdem_tw_snap_first(ev.snap); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(ev.snap, i)) {
                uint32_t t = ev.snap->key[i] >> 16;
                if (t < 32 && (unstated >> t & 1u)) {
                    unstated &= ~(1u << t);
                    info.sizes_unstated++;
                }
            }
        }
        if (ev.chunk.kind == ZDEM_TW_CHUNK_TICK) {
            if (info.started && ev.chunk.tick > end_tick) {
                info.copied--;
                end_pos = ev.chunk.offset;
                break;
            }
            pre = 0;
            last_mark_at = ev.chunk.offset;
            last_mark_end = r->chunks.pos;
            last_mark_tick = ev.chunk.tick;
            have_mark = 1;
            if (info.started)
                info.last_tick = ev.chunk.tick;
            continue;
        }
        if (info.started || !ev.snap ||
            (ev.chunk.kind != ZDEM_TW_CHUNK_SNAPSHOT && ev.chunk.kind != ZDEM_TW_CHUNK_DELTA) ||
            ev.chunk.tick < start_tick) {
            pre++;
            continue;
        }
        if (ev.chunk.tick > end_tick)
            break; /* nothing in the range */
        /* the first snapshot of the clip: the state after this chunk */
        info.started = 1;
        info.copied = pre;
        info.first_tick = info.last_tick = have_mark ? last_mark_tick : ev.chunk.tick;
        mark_end = have_mark ? last_mark_end : ev.chunk.offset;
        (void)last_mark_at;
        snap_at = ev.chunk.offset;
        snap_end = r->chunks.pos;
        {
            uint32_t t, i;
            for (t = 0; t < r->snaps.num_static_sizes && t < 32; t++)
                if (r->snaps.learned[t])
                    unstated |= 1u << t;
            for (i = zdem_tw_snap_first(ev.snap); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(ev.snap, i))
                if ((ev.snap->key[i] >> 16) < 32)
                    unstated &= ~(1u << (ev.snap->key[i] >> 16));
        }
        if (ev.chunk.kind == ZDEM_TW_CHUNK_DELTA) {
            size_t ni;
            zdem_status st = zdem_tw_snap_encode_full(ev.snap, w->ints, W_INTS, &ni);
            if (st == ZDEM_OK)
                st = zdem_tw_chunk_encode(ZDEM_TW_CHUNK_SNAPSHOT, w->ints, ni, w->packed,
                                          sizeof w->packed, w->chunk, sizeof w->chunk, &chunk_len);
            if (st != ZDEM_OK)
                return zdem_fail(err, st, ev.chunk.offset,
                                 "the first snapshot of the clip is too large to write whole");
            info.whole = 1;
        }
    }
    /* the header: length and timeline markers of the clip (nothing in
     * the range: the header and the map, no chunks, length 0) */
    hlen = r->info.version >= 4 ? sizeof hdr : ZDEM_TW_HEADER_SIZE;
    memcpy(hdr, data, hlen);
    info.length = info.started ? (int32_t)(((int64_t)info.last_tick - info.first_tick) / 50) : 0;
    store_be32(hdr + 8 + 144, (uint32_t)info.length);
    if (r->info.version >= 4) {
        int32_t i;
        memset(hdr + ZDEM_TW_HEADER_SIZE, 0, ZDEM_TW_MARKERS_SIZE);
        for (i = 0; i < r->info.num_timeline_markers; i++) {
            int32_t t = r->info.timeline_markers[i];
            if (info.started && t >= info.first_tick && t <= info.last_tick)
                store_be32(hdr + ZDEM_TW_HEADER_SIZE + 4 + 4 * (size_t)info.markers++, (uint32_t)t);
        }
        store_be32(hdr + ZDEM_TW_HEADER_SIZE, info.markers);
    }
    {
        zdem_status st = out(write, user, hdr, hlen, &info, err);
        /* the rest of the header (v6 extension) and the map, as they are */
        if (st == ZDEM_OK)
            st = out(write, user, data + hlen, r->info.data_offset - hlen, &info, err);
        if (!info.started) {
            if (info_out)
                *info_out = info;
            if (st != ZDEM_OK)
                return st;
            if (fault != ZDEM_OK && err)
                *err = e;
            return fault;
        }
        /* the first tick: absolute, a keyframe (a full snapshot follows) */
        if (st == ZDEM_OK)
            st = out(write, user, m5, zdem_tw_tick_marker(r->info.version, info.first_tick, 1, m5),
                     &info, err);
        /* that tick's chunks before its snapshot, the snapshot, the rest */
        if (st == ZDEM_OK)
            st = out(write, user, data + mark_end, snap_at - mark_end, &info, err);
        if (st == ZDEM_OK)
            st = info.whole ? out(write, user, w->chunk, chunk_len, &info, err)
                            : out(write, user, data + snap_at, snap_end - snap_at, &info, err);
        if (st == ZDEM_OK && end_pos > snap_end)
            st = out(write, user, data + snap_end, end_pos - snap_end, &info, err);
        if (info_out)
            *info_out = info;
        if (st != ZDEM_OK)
            return st;
    }
    if (fault != ZDEM_OK && err)
        *err = e;
    return fault;
}
