#include "teeworlds_snap.h"

#include <string.h>

static unsigned hash_key(uint32_t key)
{
    return (unsigned)((key * 2654435761u) >> 21) & (ZDEM_TW_SNAP_HASH_SLOTS - 1u);
}

static void snap_clear(zdem_tw_snap *snap)
{
    snap->num_items = 0;
    snap->used = 0;
    memset(snap->slot, 0, sizeof snap->slot);
}

int zdem_tw_snap_find(const zdem_tw_snap *snap, uint32_t key)
{
    unsigned h = hash_key(key);
    for (;;) {
        unsigned v = snap->slot[h];
        if (v == 0)
            return -1;
        if (snap->key[v - 1] == key)
            return (int)(v - 1);
        h = (h + 1u) & (ZDEM_TW_SNAP_HASH_SLOTS - 1u);
    }
}

/* Serialized size of the game's snapshot layout: header, offsets, keys,
 * data. The 64 KiB bound applies to that, not to our arrays. */
static size_t wire_size(uint32_t items, uint32_t ints)
{
    return 8u + 8u * (size_t)items + 4u * (size_t)ints;
}

/* Appends an item (key must be absent); returns its index or -1 when a
 * bound is hit. The table never fills: items <= 1024 < 2048 slots. */
static int snap_add(zdem_tw_snap *snap, uint32_t key, uint32_t len)
{
    unsigned h;
    uint32_t i = snap->num_items;
    if (i >= ZDEM_TW_SNAP_MAX_ITEMS || len > ZDEM_TW_SNAP_MAX_INTS - snap->used ||
        wire_size(i + 1, snap->used + len) > ZDEM_TW_SNAP_MAX_SIZE)
        return -1;
    snap->key[i] = key;
    snap->off[i] = (uint16_t)snap->used;
    snap->len[i] = (uint16_t)len;
    snap->used += len;
    snap->num_items = i + 1;
    h = hash_key(key);
    while (snap->slot[h])
        h = (h + 1u) & (ZDEM_TW_SNAP_HASH_SLOTS - 1u);
    snap->slot[h] = (uint16_t)(i + 1);
    return (int)i;
}

void zdem_tw_snap_init(zdem_tw_snapstate *s, const uint8_t *static_sizes, size_t n)
{
    s->cur = 0;
    snap_clear(&s->snap[0]);
    snap_clear(&s->snap[1]);
    s->static_sizes = static_sizes;
    s->num_static_sizes = static_sizes ? n : 0;
    s->delta_unused = 0;
}

zdem_status zdem_tw_snap_load_full(zdem_tw_snapstate *s, const int32_t *ints, size_t n,
                              zdem_error *err)
{
    zdem_tw_snap *next = &s->snap[!s->cur];
    int32_t data_size, num;
    size_t base, data_ints, i;
    if (n < 2)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot: missing header");
    data_size = ints[0];
    num = ints[1];
    if (data_size < 0 || (data_size & 3) || num < 0)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot: bad size or item count");
    if (num > ZDEM_TW_SNAP_MAX_ITEMS || (size_t)data_size > ZDEM_TW_SNAP_MAX_SIZE)
        return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "snapshot: over the 64 KiB / 1024 item bounds");
    base = 2u + (size_t)num;
    data_ints = (size_t)data_size / 4u;
    if (n != base + data_ints)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot: size does not match its data");
    snap_clear(next);
    for (i = 0; i < (size_t)num; i++) {
        int32_t off = ints[2 + i];
        int32_t stop = i + 1 < (size_t)num ? ints[3 + i] : data_size;
        uint32_t key;
        size_t k;
        int idx;
        /* Offsets in bytes, 4-aligned, increasing, each item holds a key. */
        if (off < 0 || (off & 3) || stop > data_size || stop - off < 4 || (stop & 3))
            return zdem_fail(err, ZDEM_ERR_CORRUPT, 2 + i, "snapshot: bad item offset");
        if (i == 0 && off != 0)
            return zdem_fail(err, ZDEM_ERR_CORRUPT, 2, "snapshot: first item not at 0");
        k = base + (size_t)off / 4u;
        key = (uint32_t)ints[k];
        if (zdem_tw_snap_find(next, key) >= 0)
            return zdem_fail(err, ZDEM_ERR_CORRUPT, k, "snapshot: duplicate item key");
        idx = snap_add(next, key, (uint32_t)(stop - off) / 4u - 1u);
        if (idx < 0)
            return zdem_fail(err, ZDEM_ERR_LIMIT, k, "snapshot: over the 64 KiB bound");
        memcpy(next->data + next->off[idx], ints + k + 1, 4u * next->len[idx]);
    }
    s->cur = !s->cur;
    return ZDEM_OK;
}

zdem_status zdem_tw_snap_apply_delta(zdem_tw_snapstate *s, const int32_t *ints, size_t n,
                                zdem_error *err)
{
    const zdem_tw_snap *from = &s->snap[s->cur];
    zdem_tw_snap *to = &s->snap[!s->cur];
    int32_t num_removed, num_deltas;
    size_t p, i;
    if (n < 3)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot delta: missing header");
    num_removed = ints[0];
    num_deltas = ints[1];
    if (num_removed < 0 || num_deltas < 0)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot delta: negative count");
    if ((size_t)num_removed > n - 3)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot delta: removed keys past the end");
    p = 3;
    memset(s->removed, 0, from->num_items);
    for (i = 0; i < (size_t)num_removed; i++) {
        int idx = zdem_tw_snap_find(from, (uint32_t)ints[p + i]);
        if (idx >= 0)
            s->removed[idx] = 1;
    }
    p += (size_t)num_removed;

    /* Kept items first, in their old order. */
    snap_clear(to);
    for (i = 0; i < from->num_items; i++) {
        int idx;
        if (s->removed[i])
            continue;
        idx = snap_add(to, from->key[i], from->len[i]);
        if (idx < 0) /* cannot happen: `from` met the same bounds */
            return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "snapshot delta: bounds");
        memcpy(to->data + to->off[idx], from->data + from->off[i], 4u * from->len[i]);
    }

    for (i = 0; i < (size_t)num_deltas; i++) {
        int32_t type, id;
        uint32_t key, len, k;
        int idx, old;
        int32_t *dst;
        const int32_t *src = ints;
        size_t at = p;
        if (n - p < 2)
            return zdem_fail(err, ZDEM_ERR_CORRUPT, at, "snapshot delta: item header past the end");
        type = ints[p++];
        id = ints[p++];
        if (type < 0 || type > ZDEM_TW_SNAP_MAX_TYPE || id < 0 || id > ZDEM_TW_SNAP_MAX_ID)
            return zdem_fail(err, ZDEM_ERR_CORRUPT, at, "snapshot delta: type or id out of range");
        if ((size_t)type < s->num_static_sizes && s->static_sizes[type]) {
            len = s->static_sizes[type];
        } else {
            if (p >= n)
                return zdem_fail(err, ZDEM_ERR_CORRUPT, at, "snapshot delta: item size past the end");
            if (ints[p] < 0 || ints[p] > ZDEM_TW_SNAP_MAX_INTS)
                return zdem_fail(err, ZDEM_ERR_CORRUPT, p, "snapshot delta: bad item size");
            len = (uint32_t)ints[p++];
        }
        if (n - p < len)
            return zdem_fail(err, ZDEM_ERR_CORRUPT, at, "snapshot delta: item data past the end");
        key = ((uint32_t)type << 16) | (uint32_t)id;
        idx = zdem_tw_snap_find(to, key);
        if (idx < 0) {
            idx = snap_add(to, key, len);
            if (idx < 0)
                return zdem_fail(err, ZDEM_ERR_LIMIT, at, "snapshot delta: over the 64 KiB / 1024 item bounds");
        } else if (to->len[idx] != len) {
            return zdem_fail(err, ZDEM_ERR_CORRUPT, at, "snapshot delta: item size changed");
        }
        dst = to->data + to->off[idx];
        /* The diff is against the old snapshot's item even when the delta
         * also removed it (the reference looks it up in `from`). */
        old = zdem_tw_snap_find(from, key);
        if (old >= 0) {
            const int32_t *o = from->data + from->off[old];
            if (from->len[old] != len)
                return zdem_fail(err, ZDEM_ERR_CORRUPT, at, "snapshot delta: item size changed");
            for (k = 0; k < len; k++)
                dst[k] = (int32_t)((uint32_t)o[k] + (uint32_t)src[p + k]);
        } else {
            memcpy(dst, src + p, 4u * len);
        }
        p += len;
    }
    s->delta_unused = n - p;
    s->cur = !s->cur;
    return ZDEM_OK;
}
