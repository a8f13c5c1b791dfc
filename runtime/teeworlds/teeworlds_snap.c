#include "teeworlds_snap.h"

#include <string.h>

/* Items are found by key through `order`, their indexes sorted by key: a
 * binary search (at most 11 steps for 1024 items). No set of keys can make
 * a lookup slow, with no seed to keep secret, and a new snapshot costs no
 * table clearing (the hash this replaces walked whole clusters of keys
 * that collide under its public multiplier). */

static void snap_clear(zdem_tw_snap *snap)
{
    snap->num_items = 0;
    snap->used = 0;
}

/* Position in `order` of the first item whose key is >= key. */
static uint32_t lower_bound(const zdem_tw_snap *snap, uint32_t key)
{
    const uint16_t *o = snap->order;
    const uint32_t *k = snap->key;
    uint32_t lo = 0, n = snap->num_items;
    while (n) {
        uint32_t half = n / 2u;
        if (k[o[lo + half]] < key) {
            lo += half + 1u;
            n -= half + 1u;
        } else {
            n = half;
        }
    }
    return lo;
}

int zdem_tw_snap_find(const zdem_tw_snap *snap, uint32_t key)
{
    uint32_t p = lower_bound(snap, key);
    return p < snap->num_items && snap->key[snap->order[p]] == key ? (int)snap->order[p] : -1;
}

/* Serialized size of the game's snapshot layout: header, offsets, keys,
 * data. The 64 KiB bound applies to that, not to our arrays. */
static size_t wire_size(uint32_t items, uint32_t ints)
{
    return 8u + 8u * (size_t)items + 4u * (size_t)ints;
}

/* Why snap_add refused an item: the caller's limits (zdem_tw_snap_setup)
 * are named apart from the game's own bounds, so that a report says which
 * one to raise. */
static const char *add_refusal(const zdem_tw_snap *snap, uint32_t len)
{
    if (snap->num_items >= snap->max_items)
        return snap->max_items < ZDEM_TW_SNAP_MAX_ITEMS
                   ? "snapshot: more items than the max_items limit"
                   : "snapshot: over the game's 1024-item bound";
    if (len > snap->max_ints - snap->used)
        return snap->max_ints < ZDEM_TW_SNAP_MAX_INTS
                   ? "snapshot: more data than the max_snap_ints limit"
                   : "snapshot: over the 64 KiB bound";
    return "snapshot: over the 64 KiB bound";
}

/* Appends an item whose key is absent and sorts in at position pos of
 * `order` (from lower_bound); returns its index or -1 when a bound is
 * hit. Moving the order entries after pos costs at most 2 KiB of memmove. */
static int snap_add(zdem_tw_snap *snap, uint32_t key, uint32_t len, uint32_t pos)
{
    uint32_t i = snap->num_items;
    if (i >= snap->max_items || len > snap->max_ints - snap->used ||
        wire_size(i + 1, snap->used + len) > ZDEM_TW_SNAP_MAX_SIZE)
        return -1;
    snap->key[i] = key;
    snap->off[i] = (uint16_t)snap->used;
    snap->len[i] = (uint16_t)len;
    snap->used += len;
    memmove(snap->order + pos + 1, snap->order + pos, sizeof snap->order[0] * (i - pos));
    snap->order[pos] = (uint16_t)i;
    snap->num_items = i + 1;
    return (int)i;
}

/* Carves one snapshot's arrays: 4-byte ones first, then the 2-byte ones. */
static uint8_t *snap_carve(zdem_tw_snap *snap, uint8_t *p, uint32_t items, uint32_t ints)
{
    snap->key = (uint32_t *)(void *)p;
    p += 4u * (size_t)items;
    snap->data = (int32_t *)(void *)p;
    p += 4u * (size_t)ints;
    snap->off = (uint16_t *)(void *)p;
    p += 2u * (size_t)items;
    snap->len = (uint16_t *)(void *)p;
    p += 2u * (size_t)items;
    snap->order = (uint16_t *)(void *)p;
    p += 2u * (size_t)items;
    snap->spare = (uint16_t *)(void *)p;
    p += 2u * (size_t)items;
    snap->max_items = items;
    snap->max_ints = ints;
    snap->num_items = 0;
    snap->used = 0;
    return p;
}

zdem_status zdem_tw_snap_setup(zdem_tw_snapstate *s, uint32_t max_items, uint32_t max_ints,
                               void *mem, size_t size, zdem_error *err)
{
    uint8_t *p = mem;
    if (max_items == 0 || max_items > ZDEM_TW_SNAP_MAX_ITEMS)
        max_items = ZDEM_TW_SNAP_MAX_ITEMS;
    if (max_ints == 0 || max_ints > ZDEM_TW_SNAP_MAX_INTS)
        max_ints = ZDEM_TW_SNAP_MAX_INTS;
    if (!mem || ((uintptr_t)mem & 3u) || size < ZDEM_TW_SNAP_MEM(max_items, max_ints))
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0,
                         "snapshot memory smaller than ZDEM_TW_SNAP_MEM or not 4-aligned");
    p = snap_carve(&s->snap[0], p, max_items, max_ints);
    p = snap_carve(&s->snap[1], p, max_items, max_ints);
    s->removed = p;
    zdem_tw_snap_init(s, NULL, 0);
    return ZDEM_OK;
}

void zdem_tw_snap_init(zdem_tw_snapstate *s, const uint8_t *static_sizes, size_t n)
{
    s->cur = 0;
    snap_clear(&s->snap[0]);
    snap_clear(&s->snap[1]);
    s->static_sizes = static_sizes;
    s->num_static_sizes = static_sizes ? (n < ZDEM_TW_SNAP_MAX_STATIC ? n : ZDEM_TW_SNAP_MAX_STATIC) : 0;
    memset(s->learned, 0, sizeof s->learned);
    s->size_mismatches = 0;
    s->delta_unused = 0;
    s->nwritten = 0;
    s->written_all = 0;
    s->prev = NULL;
    s->removed_idx = NULL;
    s->nremoved = 0;
    s->nadded = 0;
    s->follows = 0;
}

/* A full snapshot states every item's size: where it contradicts the
 * pre-agreed one, the snapshot's is the one the recorder used. */
static void learn_size(zdem_tw_snapstate *s, uint32_t type, uint32_t len)
{
    if (type >= s->num_static_sizes || !s->static_sizes[type])
        return;
    if (len == s->static_sizes[type]) {
        s->learned[type] = 0;
        return;
    }
    s->size_mismatches++;
    s->learned[type] = (uint16_t)len; /* len 0 cannot be learned: the table's stays */
}

zdem_status zdem_tw_snap_load_full(zdem_tw_snapstate *s, const int32_t *ints, size_t n,
                              zdem_error *err)
{
    zdem_tw_snap *next = &s->snap[!s->cur];
    int32_t data_size, num;
    size_t base, data_ints, i;
    s->nwritten = 0; /* until it applies */
    s->written_all = 0;
    s->nremoved = 0;
    s->nadded = 0;
    s->follows = 0;
    if (n < 2)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot: missing header");
    data_size = ints[0];
    num = ints[1];
    if (data_size < 0 || (data_size & 3) || num < 0)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot: bad size or item count");
    if (num > ZDEM_TW_SNAP_MAX_ITEMS || (size_t)data_size > ZDEM_TW_SNAP_MAX_SIZE)
        return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "snapshot: over the 64 KiB / 1024 item bounds");
    if ((uint32_t)num > next->max_items)
        return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "snapshot: more items than the max_items limit");
    base = 2u + (size_t)num;
    data_ints = (size_t)data_size / 4u;
    if (n != base + data_ints)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot: size does not match its data");
    snap_clear(next);
    for (i = 0; i < (size_t)num; i++) {
        int32_t off = ints[2 + i];
        int32_t stop = i + 1 < (size_t)num ? ints[3 + i] : data_size;
        uint32_t key, pos;
        size_t k;
        int idx;
        /* Offsets in bytes, 4-aligned, increasing, each item holds a key. */
        if (off < 0 || (off & 3) || stop > data_size || stop - off < 4 || (stop & 3))
            return zdem_fail(err, ZDEM_ERR_CORRUPT, 2 + i, "snapshot: bad item offset");
        if (i == 0 && off != 0)
            return zdem_fail(err, ZDEM_ERR_CORRUPT, 2, "snapshot: first item not at 0");
        k = base + (size_t)off / 4u;
        key = (uint32_t)ints[k];
        pos = lower_bound(next, key);
        if (pos < next->num_items && next->key[next->order[pos]] == key)
            return zdem_fail(err, ZDEM_ERR_CORRUPT, k, "snapshot: duplicate item key");
        idx = snap_add(next, key, (uint32_t)(stop - off) / 4u - 1u, pos);
        if (idx < 0)
            return zdem_fail(err, ZDEM_ERR_LIMIT, k,
                             add_refusal(next, (uint32_t)(stop - off) / 4u - 1u));
        memcpy(next->data + next->off[idx], ints + k + 1, 4u * next->len[idx]);
        learn_size(s, key >> 16, next->len[idx]);
    }
    s->nwritten = next->num_items;
    s->written_all = 1;
    s->cur = !s->cur;
    return ZDEM_OK;
}

/* Heapsort: ascending, in place, O(n log n) whatever the order. */
static void sort_u16(uint16_t *a, uint32_t n)
{
    uint32_t i, end, root, child;
    uint16_t t;
    for (i = n / 2u; i-- > 0;) {
        for (root = i; (child = 2u * root + 1u) < n; root = child) {
            if (child + 1u < n && a[child] < a[child + 1u])
                child++;
            if (a[root] >= a[child])
                break;
            t = a[root]; a[root] = a[child]; a[child] = t;
        }
    }
    for (end = n; end > 1u;) {
        end--;
        t = a[0]; a[0] = a[end]; a[end] = t;
        for (root = 0; (child = 2u * root + 1u) < end; root = child) {
            if (child + 1u < end && a[child] < a[child + 1u])
                child++;
            if (a[root] >= a[child])
                break;
            t = a[root]; a[root] = a[child]; a[child] = t;
        }
    }
}

/* A delta's item header at ints[*p]: its key and data length (the
 * learned or pre-agreed size, or the one it states). 0 when it does not
 * parse (the copying path then names the fault). */
static int delta_item(const zdem_tw_snapstate *s, const int32_t *ints, size_t n, size_t *p,
                      uint32_t *key, uint32_t *len)
{
    int32_t type, id;
    if (n - *p < 2)
        return 0;
    type = ints[*p];
    id = ints[*p + 1];
    if (type < 0 || type > ZDEM_TW_SNAP_MAX_TYPE || id < 0 || id > ZDEM_TW_SNAP_MAX_ID)
        return 0;
    *p += 2;
    if ((size_t)type < s->num_static_sizes && s->static_sizes[type]) {
        *len = s->learned[type] ? s->learned[type] : s->static_sizes[type];
    } else {
        if (*p >= n || ints[*p] < 0 || ints[*p] > ZDEM_TW_SNAP_MAX_INTS)
            return 0;
        *len = (uint32_t)ints[(*p)++];
    }
    if (n - *p < *len)
        return 0;
    *key = ((uint32_t)type << 16) | (uint32_t)id;
    return 1;
}

/* A delta that removes none of the current items and names each item at
 * most once (what the game writes: a key is removed or updated, never
 * both, never twice) is applied in place: changed items take their diff
 * where they are, new ones are appended, so that it costs what it
 * changes, not a copy of the snapshot. A first pass checks that the whole
 * delta applies (sizes, bounds, limits) before anything is written, so
 * that a delta refused leaves the snapshot as it was; anything else (a
 * removal, a key named twice, a fault) goes to the copying path, which
 * gives the same result and names the fault. The other snapshot's arrays
 * are scratch here: the new keys sorted (a key new twice is found), and
 * the current items this delta names, to clear their marks in
 * s->removed. Returns 1 when the delta was applied. */
static int delta_in_place(zdem_tw_snapstate *s, const int32_t *ints, size_t n,
                          size_t num_removed, size_t num_deltas)
{
    zdem_tw_snap *cur = &s->snap[s->cur];
    zdem_tw_snap *tmp = &s->snap[!s->cur];
    uint32_t items = cur->num_items, used = cur->used, nnew = 0, nmarked = 0, nw = 0, k;
    size_t p = 3, i;
    int ok = 1;
    for (i = 0; i < num_removed; i++)
        if (zdem_tw_snap_find(cur, (uint32_t)ints[p + i]) >= 0)
            return 0;
    p += num_removed;
    for (i = 0; i < num_deltas; i++) {
        uint32_t key, len, lo, cnt;
        int idx;
        if (!delta_item(s, ints, n, &p, &key, &len)) {
            ok = 0;
            break;
        }
        idx = zdem_tw_snap_find(cur, key);
        if (idx >= 0) {
            if (s->removed[idx] || cur->len[idx] != len) {
                ok = 0;
                break;
            }
            s->removed[idx] = 1;
            tmp->order[nmarked++] = (uint16_t)idx;
        } else {
            /* where it sorts among the new keys so far */
            lo = 0;
            cnt = nnew;
            while (cnt) {
                uint32_t half = cnt / 2u;
                if (tmp->key[lo + half] < key) {
                    lo += half + 1u;
                    cnt -= half + 1u;
                } else {
                    cnt = half;
                }
            }
            if ((lo < nnew && tmp->key[lo] == key) || items >= cur->max_items ||
                len > cur->max_ints - used || wire_size(items + 1, used + len) > ZDEM_TW_SNAP_MAX_SIZE) {
                ok = 0;
                break;
            }
            /* at most 4 KiB moved per new item, as the order index's insert */
            memmove(tmp->key + lo + 1, tmp->key + lo, sizeof tmp->key[0] * (nnew - lo));
            tmp->key[lo] = key;
            nnew++;
            items++;
            used += len;
        }
        p += len;
    }
    for (k = 0; k < nmarked; k++)
        s->removed[tmp->order[k]] = 0;
    tmp->num_items = 0; /* its arrays hold scratch, no snapshot */
    tmp->used = 0;
    if (!ok)
        return 0;
    p = 3 + num_removed;
    for (i = 0; i < num_deltas; i++) {
        uint32_t key, len, pos;
        int idx;
        int32_t *dst;
        (void)delta_item(s, ints, n, &p, &key, &len);
        pos = lower_bound(cur, key);
        if (pos < cur->num_items && cur->key[cur->order[pos]] == key) {
            idx = (int)cur->order[pos];
            dst = cur->data + cur->off[idx];
            for (k = 0; k < len; k++)
                dst[k] = (int32_t)((uint32_t)dst[k] + (uint32_t)ints[p + k]);
        } else {
            idx = snap_add(cur, key, len, pos); /* the first pass saw it fit */
            memcpy(cur->data + cur->off[idx], ints + p, 4u * len);
        }
        cur->spare[nw++] = (uint16_t)idx; /* each item once: nw <= max_items */
        p += len;
    }
    s->delta_unused = n - p;
    s->nwritten = nw;
    s->written_all = 0;
    s->prev = cur;
    s->removed_idx = cur->spare;
    s->nremoved = 0;
    s->nadded = nnew;
    s->follows = 1;
    return 1;
}

zdem_status zdem_tw_snap_apply_delta(zdem_tw_snapstate *s, const int32_t *ints, size_t n,
                                zdem_error *err)
{
    zdem_tw_snap *from = &s->snap[s->cur];
    zdem_tw_snap *to = &s->snap[!s->cur];
    int32_t num_removed, num_deltas;
    size_t p, i;
    uint32_t kept, nrem = 0;
    uint32_t nw = 0; /* items written, listed in to->spare */
    int wall = 0;
    s->nwritten = 0; /* until it applies */
    s->written_all = 0;
    s->nremoved = 0;
    s->nadded = 0;
    s->follows = 0;
    if (n < 3)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot delta: missing header");
    num_removed = ints[0];
    num_deltas = ints[1];
    if (num_removed < 0 || num_deltas < 0)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot delta: negative count");
    if ((size_t)num_removed > n - 3)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot delta: removed keys past the end");
    if (num_removed == 0 && num_deltas == 0) {
        /* nothing changes: the current snapshot stays, uncopied (an empty
         * delta costs what its three ints cost) */
        s->delta_unused = n - 3;
        return ZDEM_OK;
    }
    if (delta_in_place(s, ints, n, (size_t)num_removed, (size_t)num_deltas))
        return ZDEM_OK;
    p = 3;
    memset(s->removed, 0, from->num_items);
    /* the removed items' old indexes, for zdem_tw_snap_changes (from->spare
     * is free: it held the written list of the delta before) */
    for (i = 0; i < (size_t)num_removed; i++) {
        int idx = zdem_tw_snap_find(from, (uint32_t)ints[p + i]);
        if (idx >= 0 && !s->removed[idx]) {
            s->removed[idx] = 1;
            from->spare[nrem++] = (uint16_t)idx;
        }
    }
    sort_u16(from->spare, nrem);
    p += (size_t)num_removed;

    /* Kept items first, in their old order, copied a run of consecutive
     * kept items at a time (arrays and data alike); their key order is the
     * old one less the removed (to->spare maps old indexes to new while it
     * is rebuilt). */
    snap_clear(to);
    for (i = 0; i < from->num_items;) {
        uint32_t a = (uint32_t)i, cnt, words, j = to->num_items, q;
        int32_t shift;
        if (s->removed[i]) {
            i++;
            continue;
        }
        while (i < from->num_items && !s->removed[i])
            i++;
        cnt = (uint32_t)i - a;
        words = from->off[i - 1] + from->len[i - 1] - from->off[a];
        if (cnt > to->max_items - j || words > to->max_ints - to->used) /* cannot happen: `from` met the same bounds */
            return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "snapshot delta: bounds");
        memcpy(to->key + j, from->key + a, 4u * cnt);
        memcpy(to->len + j, from->len + a, 2u * cnt);
        memcpy(to->data + to->used, from->data + from->off[a], 4u * words);
        shift = (int32_t)to->used - (int32_t)from->off[a];
        for (q = 0; q < cnt; q++) {
            to->off[j + q] = (uint16_t)(from->off[a + q] + shift);
            to->spare[a + q] = (uint16_t)(j + q);
        }
        to->num_items = j + cnt;
        to->used += words;
    }
    if (to->num_items == from->num_items) {
        memcpy(to->order, from->order, 2u * from->num_items);
    } else {
        uint32_t r, m = 0;
        for (r = 0; r < from->num_items; r++)
            if (!s->removed[from->order[r]])
                to->order[m++] = to->spare[from->order[r]];
    }
    for (i = 0; i < nrem; i++) /* clear for the in-place path */
        s->removed[from->spare[i]] = 0;
    kept = to->num_items;

    for (i = 0; i < (size_t)num_deltas; i++) {
        int32_t type, id;
        uint32_t key, len, k, pos;
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
            len = s->learned[type] ? s->learned[type] : s->static_sizes[type];
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
        pos = lower_bound(to, key);
        idx = pos < to->num_items && to->key[to->order[pos]] == key ? (int)to->order[pos] : -1;
        if (idx < 0) {
            idx = snap_add(to, key, len, pos);
            if (idx < 0)
                return zdem_fail(err, ZDEM_ERR_LIMIT, at, add_refusal(to, len));
        } else if (to->len[idx] != len) {
            return zdem_fail(err, ZDEM_ERR_CORRUPT, at, "snapshot delta: item size changed");
        }
        if (nw < to->max_items)
            to->spare[nw++] = (uint16_t)idx;
        else
            wall = 1;
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
    s->nwritten = nw;
    s->written_all = wall;
    s->prev = from;
    s->removed_idx = from->spare;
    s->nremoved = nrem;
    s->nadded = to->num_items - kept;
    s->follows = 1;
    s->cur = !s->cur;
    return ZDEM_OK;
}

uint32_t zdem_tw_snap_written(const zdem_tw_snapstate *s, const uint16_t **idx, int *all)
{
    *idx = s->snap[s->cur].spare;
    *all = s->written_all;
    return s->nwritten;
}

void zdem_tw_snap_written_clear(zdem_tw_snapstate *s)
{
    s->nwritten = 0;
    s->written_all = 0;
    s->nremoved = 0;
    s->nadded = 0;
    s->follows = 0;
}
