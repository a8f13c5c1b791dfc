#include "teeworlds_snap.h"

#include <string.h>

/* One snapshot, changed in place, so that a delta costs what it changes:
 * each item has a slot (key, data offset and length, links in the item
 * order), a removed item's slot goes on a free chain and its data becomes
 * a hole. New data goes at the top of a data area twice the snapshot
 * bound; when a delta's new data would not fit there, the items are moved
 * down over the holes first (at most once per max_ints ints written, so
 * linear in the input).
 *
 * Items are found by key through `order`, their slots sorted by key: a
 * binary search (at most 11 steps for 1024 items). No set of keys can make
 * a lookup slow, with no seed to keep secret; an insert or removal moves
 * at most 2 KiB of it.
 *
 * Every delta and full snapshot is checked whole before anything changes,
 * with the faults (messages, offsets) and limits of the game's way of
 * building a new snapshot from the old one (kept items in their order,
 * then the delta's new items), so that one refused leaves the snapshot as
 * it was. */

enum {
    MARK_REMOVED = 1, /* check pass: a removed key's item */
    MARK_NAMED = 2,   /* check pass: an item a delta item names */
    MARK_TWICE = 4,   /* check pass: named twice (its key is in the twice list) */
    MARK_NEW = 8      /* apply pass: an item this delta added */
};

#define NO_OFF 0xffffu

/* From this many removed keys on, the key index loses them in one pass
 * (about what moving it 32 times costs at 1024 items). */
#define BULK_REMOVALS 32u

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

/* lower_bound, trying position h first (checked: the same answer): a
 * delta's new items often come in key order, each next to the last. */
static inline uint32_t lower_bound_at(const zdem_tw_snap *snap, uint32_t key, uint32_t h)
{
    const uint16_t *o = snap->order;
    const uint32_t *k = snap->key;
    if (h <= snap->num_items && (h == snap->num_items || k[o[h]] >= key) &&
        (h == 0 || k[o[h - 1u]] < key))
        return h;
    return lower_bound(snap, key);
}

/* Position of the first key >= key in a sorted key array. */
static uint32_t keys_bound(const uint32_t *k, uint32_t n, uint32_t key)
{
    uint32_t lo = 0;
    while (n) {
        uint32_t half = n / 2u;
        if (k[lo + half] < key) {
            lo += half + 1u;
            n -= half + 1u;
        } else {
            n = half;
        }
    }
    return lo;
}

/* The cell of key: a multiply-shift hash onto the 2 x max_items cells.
 * A cell holds at most one item (the first to land there); a lookup
 * checks it, then searches: one compare mostly, a binary search at worst,
 * whatever the keys (a set crafted to share a cell costs the search and
 * one compare more). The multiplier is not 2654435761, the item hash of
 * an earlier reader, whose colliding key sets the tests already craft
 * (tests/twcraft.py hash-items): those stay the search's worst case. */
static inline uint32_t cell_of(const zdem_tw_snap *snap, uint32_t key)
{
    return (uint32_t)(((uint64_t)(uint32_t)(key * 0x85EBCA77u) * (2u * snap->max_items)) >> 32);
}

static inline void cell_claim(zdem_tw_snap *snap, uint32_t key, uint32_t slot)
{
    uint16_t *c = &snap->cell[cell_of(snap, key)];
    if (!*c)
        *c = (uint16_t)(slot + 1u);
}

static inline void cell_release(zdem_tw_snap *snap, uint32_t key, uint32_t slot)
{
    uint16_t *c = &snap->cell[cell_of(snap, key)];
    if (*c == slot + 1u)
        *c = 0;
}

/* zdem_tw_snap_find's search, after its cell missed. */
static int find_searched(const zdem_tw_snap *snap, uint32_t key)
{
    uint32_t p = lower_bound(snap, key);
    return p < snap->num_items && snap->key[snap->order[p]] == key ? (int)snap->order[p] : -1;
}

static inline int find_inline(const zdem_tw_snap *snap, uint32_t key)
{
    uint32_t c = snap->cell[cell_of(snap, key)];
    return c && snap->key[c - 1u] == key ? (int)(c - 1u) : find_searched(snap, key);
}

int zdem_tw_snap_find(const zdem_tw_snap *snap, uint32_t key)
{
    return find_inline(snap, key);
}

/* Serialized size of the game's snapshot layout: header, offsets, keys,
 * data. The 64 KiB bound applies to that, not to our arrays. */
static size_t wire_size(uint32_t items, uint32_t ints)
{
    return 8u + 8u * (size_t)items + 4u * (size_t)ints;
}

/* NULL when one more item of len ints fits a snapshot of `items` items
 * holding `used` ints; else why not: the caller's limits
 * (zdem_tw_snap_setup) are named apart from the game's own bounds, so
 * that a report says which one to raise. */
static const char *add_refusal(const zdem_tw_snap *snap, uint32_t items, uint32_t used, uint32_t len)
{
    if (items >= snap->max_items)
        return snap->max_items < ZDEM_TW_SNAP_MAX_ITEMS
                   ? "snapshot: more items than the max_items limit"
                   : "snapshot: over the game's 1024-item bound";
    if (len > snap->max_ints - used)
        return snap->max_ints < ZDEM_TW_SNAP_MAX_INTS
                   ? "snapshot: more data than the max_snap_ints limit"
                   : "snapshot: over the 64 KiB bound";
    if (wire_size(items + 1u, used + len) > ZDEM_TW_SNAP_MAX_SIZE)
        return "snapshot: over the 64 KiB bound";
    return NULL;
}

static void snap_clear(zdem_tw_snap *snap)
{
    memset(snap->cell, 0, sizeof snap->cell[0] * 2u * snap->max_items);
    snap->num_items = 0;
    snap->used = 0;
    snap->top = 0;
    snap->head = snap->tail = ZDEM_TW_SNAP_END;
    snap->fresh = 0;
    snap->free_slot = ZDEM_TW_SNAP_END;
}

zdem_status zdem_tw_snap_setup(zdem_tw_snapstate *s, uint32_t max_items, uint32_t max_ints,
                               void *mem, size_t size, zdem_error *err)
{
    uint8_t *p = mem;
    zdem_tw_snap *sn = &s->snap;
    size_t i2;
    if (max_items == 0 || max_items > ZDEM_TW_SNAP_MAX_ITEMS)
        max_items = ZDEM_TW_SNAP_MAX_ITEMS;
    if (max_ints == 0 || max_ints > ZDEM_TW_SNAP_MAX_INTS)
        max_ints = ZDEM_TW_SNAP_MAX_INTS;
    if (!mem || ((uintptr_t)mem & 3u) || size < ZDEM_TW_SNAP_MEM(max_items, max_ints))
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0,
                         "snapshot memory smaller than ZDEM_TW_SNAP_MEM or not 4-aligned");
    i2 = 2u * (size_t)max_items;
    /* 4-byte arrays first, then the 2-byte ones, then the marks */
    sn->key = (uint32_t *)(void *)p;
    p += 2u * i2;
    s->rkey = (uint32_t *)(void *)p;
    p += 2u * i2;
    sn->data = (int32_t *)(void *)p;
    p += 8u * (size_t)max_ints;
    sn->off = (uint16_t *)(void *)p;
    p += i2;
    sn->len = (uint16_t *)(void *)p;
    p += i2;
    sn->next = (uint16_t *)(void *)p;
    p += i2;
    sn->prev = (uint16_t *)(void *)p;
    p += i2;
    sn->order = (uint16_t *)(void *)p;
    p += i2;
    s->written = (uint16_t *)(void *)p;
    p += i2;
    s->rslot = (uint16_t *)(void *)p;
    p += i2;
    s->roff = (uint16_t *)(void *)p;
    p += i2;
    s->kept = (uint16_t *)(void *)p;
    p += i2;
    sn->cell = (uint16_t *)(void *)p;
    p += 2u * i2;
    s->mark = p;
    memset(s->mark, 0, max_items);
    sn->max_items = max_items;
    sn->max_ints = max_ints;
    sn->version = 0;
    zdem_tw_snap_init(s, NULL, 0);
    return ZDEM_OK;
}

void zdem_tw_snap_init(zdem_tw_snapstate *s, const uint8_t *static_sizes, size_t n)
{
    size_t i;
    snap_clear(&s->snap);
    s->snap.version++;
    s->static_sizes = static_sizes;
    s->num_static_sizes = static_sizes ? (n < ZDEM_TW_SNAP_MAX_STATIC ? n : ZDEM_TW_SNAP_MAX_STATIC) : 0;
    memset(s->learned, 0, sizeof s->learned);
    memset(s->size_of, 0, sizeof s->size_of);
    for (i = 0; i < s->num_static_sizes; i++)
        s->size_of[i] = s->static_sizes[i];
    s->size_mismatches = 0;
    s->delta_unused = 0;
    zdem_tw_snap_written_clear(s);
}

/* A full snapshot states every item's size: where it contradicts the
 * pre-agreed one, the snapshot's is the one the recorder used. */
static void learn_size(zdem_tw_snapstate *s, uint32_t type, uint32_t len)
{
    if (type >= s->num_static_sizes || !s->static_sizes[type])
        return;
    if (len == s->static_sizes[type]) {
        s->learned[type] = 0;
        s->size_of[type] = s->static_sizes[type];
        return;
    }
    s->size_mismatches++;
    s->learned[type] = (uint16_t)len; /* len 0 cannot be learned: the table's stays */
    s->size_of[type] = len ? (uint16_t)len : s->static_sizes[type];
}

/* A free slot (there is one: the checks kept the items under max_items). */
static uint32_t slot_take(zdem_tw_snap *snap)
{
    uint32_t i = snap->free_slot;
    if (i != ZDEM_TW_SNAP_END) {
        snap->free_slot = snap->next[i];
        return i;
    }
    return snap->fresh++;
}

/* Appends slot i to the item order. */
static void order_append(zdem_tw_snap *snap, uint32_t i)
{
    snap->next[i] = ZDEM_TW_SNAP_END;
    snap->prev[i] = (uint16_t)snap->tail;
    if (snap->tail == ZDEM_TW_SNAP_END)
        snap->head = i;
    else
        snap->next[snap->tail] = (uint16_t)i;
    snap->tail = i;
}

zdem_status zdem_tw_snap_load_full(zdem_tw_snapstate *s, const int32_t *ints, size_t n,
                              zdem_error *err)
{
    zdem_tw_snap *sn = &s->snap;
    uint16_t *sorted = s->rslot; /* scratch: item numbers sorted by key, */
    uint32_t *sorted_keys = s->rkey; /* and their keys (no delta's removed list to keep) */
    int32_t data_size, num;
    size_t base, data_ints, i;
    uint32_t used = 0;
    zdem_tw_snap_written_clear(s); /* until it applies */
    if (n < 2)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot: missing header");
    data_size = ints[0];
    num = ints[1];
    if (data_size < 0 || (data_size & 3) || num < 0)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot: bad size or item count");
    if (num > ZDEM_TW_SNAP_MAX_ITEMS || (size_t)data_size > ZDEM_TW_SNAP_MAX_SIZE)
        return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "snapshot: over the 64 KiB / 1024 item bounds");
    if ((uint32_t)num > sn->max_items)
        return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "snapshot: more items than the max_items limit");
    base = 2u + (size_t)num;
    data_ints = (size_t)data_size / 4u;
    if (n != base + data_ints)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot: size does not match its data");
    /* check every item (keys sorted into scratch: a duplicate is found)
     * before the snapshot changes */
    for (i = 0; i < (size_t)num; i++) {
        int32_t off = ints[2 + i];
        int32_t stop = i + 1 < (size_t)num ? ints[3 + i] : data_size;
        uint32_t key, len, lo;
        const char *why;
        size_t k;
        /* Offsets in bytes, 4-aligned, increasing, each item holds a key. */
        if (off < 0 || (off & 3) || stop > data_size || stop - off < 4 || (stop & 3))
            return zdem_fail(err, ZDEM_ERR_CORRUPT, 2 + i, "snapshot: bad item offset");
        if (i == 0 && off != 0)
            return zdem_fail(err, ZDEM_ERR_CORRUPT, 2, "snapshot: first item not at 0");
        k = base + (size_t)off / 4u;
        key = (uint32_t)ints[k];
        lo = keys_bound(sorted_keys, (uint32_t)i, key);
        if (lo < i && sorted_keys[lo] == key)
            return zdem_fail(err, ZDEM_ERR_CORRUPT, k, "snapshot: duplicate item key");
        len = (uint32_t)(stop - off) / 4u - 1u;
        if ((why = add_refusal(sn, (uint32_t)i, used, len)) != NULL)
            return zdem_fail(err, ZDEM_ERR_LIMIT, k, why);
        memmove(sorted + lo + 1, sorted + lo, sizeof sorted[0] * (i - lo));
        memmove(sorted_keys + lo + 1, sorted_keys + lo, sizeof sorted_keys[0] * (i - lo));
        sorted[lo] = (uint16_t)i;
        sorted_keys[lo] = key;
        used += len;
        learn_size(s, key >> 16, len);
    }
    /* it applies: item i in slot i, in order, data packed */
    snap_clear(sn);
    for (i = 0; i < (size_t)num; i++) {
        int32_t off = ints[2 + i];
        int32_t stop = i + 1 < (size_t)num ? ints[3 + i] : data_size;
        uint32_t len = (uint32_t)(stop - off) / 4u - 1u;
        size_t k = base + (size_t)off / 4u;
        sn->key[i] = (uint32_t)ints[k];
        cell_claim(sn, sn->key[i], (uint32_t)i);
        sn->off[i] = (uint16_t)sn->top;
        sn->len[i] = (uint16_t)len;
        memcpy(sn->data + sn->top, ints + k + 1, 4u * len);
        sn->top += len;
        order_append(sn, (uint32_t)i);
    }
    memcpy(sn->order, sorted, sizeof sorted[0] * (size_t)num);
    sn->num_items = (uint32_t)num;
    sn->fresh = (uint32_t)num;
    sn->used = sn->top;
    sn->version++;
    s->nwritten = sn->num_items;
    s->written_all = 1;
    return ZDEM_OK;
}

/* Slots in a[0..n) sorted by their data offset (heapsort: O(n log n)
 * whatever the order). */
static void sort_by_off(uint16_t *a, uint32_t n, const uint16_t *off)
{
    uint32_t i, end, root, child;
    uint16_t t;
    for (i = n / 2u; i-- > 0;) {
        for (root = i; (child = 2u * root + 1u) < n; root = child) {
            if (child + 1u < n && off[a[child]] < off[a[child + 1u]])
                child++;
            if (off[a[root]] >= off[a[child]])
                break;
            t = a[root]; a[root] = a[child]; a[child] = t;
        }
    }
    for (end = n; end > 1u;) {
        end--;
        t = a[0]; a[0] = a[end]; a[end] = t;
        for (root = 0; (child = 2u * root + 1u) < end; root = child) {
            if (child + 1u < end && off[a[child]] < off[a[child + 1u]])
                child++;
            if (off[a[root]] >= off[a[child]])
                break;
            t = a[root]; a[root] = a[child]; a[child] = t;
        }
    }
}

/* Closes the holes: every item's data moved down, lowest offset first
 * (scratch: a list of the slots). */
static void compact(zdem_tw_snap *sn, uint16_t *scratch)
{
    uint32_t i, n = 0, at = 0;
    for (i = sn->head; i != ZDEM_TW_SNAP_END; i = sn->next[i])
        scratch[n++] = (uint16_t)i;
    sort_by_off(scratch, n, sn->off);
    for (i = 0; i < n; i++) {
        uint32_t x = scratch[i], len = sn->len[x];
        if (sn->off[x] != at)
            memmove(sn->data + at, sn->data + sn->off[x], 4u * len);
        sn->off[x] = (uint16_t)at;
        at += len;
    }
    sn->top = at;
}

/* Removed entries r[0..n) (key, slot, data offset) sorted by key. */
static void sort_removed(zdem_tw_snapstate *s, uint32_t n)
{
    uint32_t *k = s->rkey;
    uint16_t *a = s->rslot, *b = s->roff;
    uint32_t i, end, root, child, tk;
    uint16_t t;
#define SWAP_R(x, y) (tk = k[x], k[x] = k[y], k[y] = tk, t = a[x], a[x] = a[y], a[y] = t, \
                      t = b[x], b[x] = b[y], b[y] = t)
    /* the keys are distinct: a list in key order, or in reverse (as a
     * delta often names them), is sorted in one pass */
    for (i = 1; i < n && k[i - 1u] < k[i]; i++)
        ;
    if (i == n)
        return;
    for (i = 1; i < n && k[i - 1u] > k[i]; i++)
        ;
    if (i == n) {
        for (i = 0; i < n / 2u; i++)
            SWAP_R(i, n - 1u - i);
        return;
    }
    for (i = n / 2u; i-- > 0;) {
        for (root = i; (child = 2u * root + 1u) < n; root = child) {
            if (child + 1u < n && k[child] < k[child + 1u])
                child++;
            if (k[root] >= k[child])
                break;
            SWAP_R(root, child);
        }
    }
    for (end = n; end > 1u;) {
        end--;
        SWAP_R(0, end);
        for (root = 0; (child = 2u * root + 1u) < end; root = child) {
            if (child + 1u < end && k[child] < k[child + 1u])
                child++;
            if (k[root] >= k[child])
                break;
            SWAP_R(root, child);
        }
    }
#undef SWAP_R
}

/* The check pass of a delta: every fault and limit the game's way of
 * building (the kept items, then each delta item: looked up among them
 * and the new ones so far, added when absent; its diff against the old
 * snapshot's item, even one the delta removed) meets, found in the same
 * order, with nothing changed but scratch: the new keys so far sorted
 * (rkey, their lengths in roff) from the front; the keys of items named
 * twice (whose old data must outlive their first write) sorted from the
 * back; marks on the current items, listed in `written` to be cleared.
 * On success: the new items' ints (*add_ints), the twice-named ones'
 * (*twice_ints), how many of those (*ntwice). */
static zdem_status delta_check(zdem_tw_snapstate *s, const int32_t *ints, size_t n,
                               size_t num_removed, size_t num_deltas, uint32_t *add_ints,
                               uint32_t *twice_ints, uint32_t *ntwice, zdem_error *err)
{
    zdem_tw_snap *sn = &s->snap;
    uint32_t items = sn->num_items, used = sn->used, nnew = 0, nmarked = 0, ntw = 0;
    uint32_t *tw_keys = s->rkey + sn->max_items; /* the twice list ends here, grows down */
    size_t p = 3, i;
    zdem_status st = ZDEM_OK;
    *add_ints = *twice_ints = 0;
    for (i = 0; i < num_removed; i++) {
        int idx = zdem_tw_snap_find(sn, (uint32_t)ints[p + i]);
        if (idx >= 0 && !(s->mark[idx] & MARK_REMOVED)) {
            s->mark[idx] = MARK_REMOVED;
            s->written[nmarked++] = (uint16_t)idx;
            items--;
            used -= sn->len[idx];
        }
    }
    p += num_removed;
    for (i = 0; i < num_deltas; i++) {
        int32_t type, id;
        uint32_t key, len, lo;
        int old, kept;
        size_t at = p;
        if (n - p < 2) {
            st = zdem_fail(err, ZDEM_ERR_CORRUPT, at, "snapshot delta: item header past the end");
            break;
        }
        type = ints[p++];
        id = ints[p++];
        if (type < 0 || type > ZDEM_TW_SNAP_MAX_TYPE || id < 0 || id > ZDEM_TW_SNAP_MAX_ID) {
            st = zdem_fail(err, ZDEM_ERR_CORRUPT, at, "snapshot delta: type or id out of range");
            break;
        }
        if ((uint32_t)type < ZDEM_TW_SNAP_MAX_STATIC && s->size_of[type]) {
            len = s->size_of[type];
        } else {
            if (p >= n) {
                st = zdem_fail(err, ZDEM_ERR_CORRUPT, at, "snapshot delta: item size past the end");
                break;
            }
            if (ints[p] < 0 || ints[p] > ZDEM_TW_SNAP_MAX_INTS) {
                st = zdem_fail(err, ZDEM_ERR_CORRUPT, p, "snapshot delta: bad item size");
                break;
            }
            len = (uint32_t)ints[p++];
        }
        if (n - p < len) {
            st = zdem_fail(err, ZDEM_ERR_CORRUPT, at, "snapshot delta: item data past the end");
            break;
        }
        key = ((uint32_t)type << 16) | (uint32_t)id;
        old = find_inline(sn, key);
        kept = old >= 0 && !(s->mark[old] & MARK_REMOVED);
        if (i < sn->max_items)
            s->kept[i] = kept ? (uint16_t)old : (uint16_t)ZDEM_TW_SNAP_END;
        if (kept) {
            /* a kept item */
            if (sn->len[old] != len) {
                st = zdem_fail(err, ZDEM_ERR_CORRUPT, at, "snapshot delta: item size changed");
                break;
            }
            if (!s->mark[old]) {
                s->mark[old] = MARK_NAMED;
                s->written[nmarked++] = (uint16_t)old;
            } else if (!(s->mark[old] & MARK_TWICE)) {
                /* its old data must stay for the next write: listed */
                uint32_t *t = tw_keys - ntw;
                lo = keys_bound(t, ntw, key);
                memmove(t - 1, t, sizeof t[0] * lo); /* the list now starts at t - 1 */
                (t - 1)[lo] = key;
                ntw++;
                *twice_ints += len;
                s->mark[old] |= MARK_TWICE;
            }
        } else {
            lo = keys_bound(s->rkey, nnew, key);
            if (lo < nnew && s->rkey[lo] == key) {
                /* new earlier in this delta */
                if (s->roff[lo] != len) {
                    st = zdem_fail(err, ZDEM_ERR_CORRUPT, at, "snapshot delta: item size changed");
                    break;
                }
            } else {
                const char *why = add_refusal(sn, items, used, len);
                if (why) {
                    st = zdem_fail(err, ZDEM_ERR_LIMIT, at, why);
                    break;
                }
                /* nnew + the twice-named stay under max_items: the new
                 * ones and the kept ones fit it */
                memmove(s->rkey + lo + 1, s->rkey + lo, sizeof s->rkey[0] * (nnew - lo));
                memmove(s->roff + lo + 1, s->roff + lo, sizeof s->roff[0] * (nnew - lo));
                s->rkey[lo] = key;
                s->roff[lo] = (uint16_t)len;
                nnew++;
                items++;
                used += len;
                *add_ints += len;
            }
            /* the diff is against the old snapshot's item, removed or not */
            if (old >= 0 && sn->len[old] != len) {
                st = zdem_fail(err, ZDEM_ERR_CORRUPT, at, "snapshot delta: item size changed");
                break;
            }
        }
        p += len;
    }
    for (i = 0; i < nmarked; i++)
        s->mark[s->written[i]] = 0;
    *ntwice = ntw;
    return st;
}

/* An item's new data: its old data plus the delta's diff, int by int,
 * wrapping (unsigned adds, as the game's). The arrays never overlap (an
 * item written from old data moves first), so the loops vectorize. */
static void diff_add(int32_t *restrict dst, const int32_t *restrict old, const int32_t *restrict diff,
                     uint32_t n)
{
    uint32_t k;
    for (k = 0; k < n; k++)
        dst[k] = (int32_t)((uint32_t)old[k] + (uint32_t)diff[k]);
}

static void diff_add_in_place(int32_t *restrict dst, const int32_t *restrict diff, uint32_t n)
{
    uint32_t k;
    for (k = 0; k < n; k++)
        dst[k] = (int32_t)((uint32_t)dst[k] + (uint32_t)diff[k]);
}

zdem_status zdem_tw_snap_apply_delta(zdem_tw_snapstate *s, const int32_t *ints, size_t n,
                                zdem_error *err)
{
    zdem_tw_snap *sn = &s->snap;
    int32_t num_removed, num_deltas;
    size_t p, i;
    uint32_t add_ints, twice_ints, ntwice, nrem = 0, nadded = 0, nw = 0, k;
    uint32_t at_new = 0, last_new = 0; /* the last new item: its position, its key */
    uint32_t first_added = ZDEM_TW_SNAP_END, from_version;
    uint32_t *tw_keys;
    uint16_t *tw_off;
    int wall = 0, bulk;
    zdem_status st;
    zdem_tw_snap_written_clear(s); /* until it applies */
    if (n < 3)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot delta: missing header");
    num_removed = ints[0];
    num_deltas = ints[1];
    if (num_removed < 0 || num_deltas < 0)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot delta: negative count");
    if ((size_t)num_removed > n - 3)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "snapshot delta: removed keys past the end");
    if (num_removed == 0 && num_deltas == 0) {
        /* nothing changes (an empty delta costs what its three ints cost) */
        s->delta_unused = n - 3;
        return ZDEM_OK;
    }
    st = delta_check(s, ints, n, (size_t)num_removed, (size_t)num_deltas, &add_ints, &twice_ints,
                     &ntwice, err);
    if (st != ZDEM_OK)
        return st;

    /* the new data and the twice-named items' copies go at the top: the
     * holes are closed first when they would not fit (after which they
     * do: the kept and new items hold at most max_ints) */
    if (add_ints + twice_ints > 2u * sn->max_ints - sn->top)
        compact(sn, s->written);
    tw_keys = s->rkey + sn->max_items - ntwice;
    tw_off = s->roff + sn->max_items - ntwice;
    for (k = 0; k < ntwice; k++)
        tw_off[k] = NO_OFF;

    /* removals: out of the order, slot freed, data left as a hole (read
     * below by a new item of the same key); out of the key index one at a
     * time (at most 2 KiB moved each) or, for many, in one pass after */
    bulk = (size_t)num_removed >= BULK_REMOVALS;
    p = 3;
    for (i = 0; i < (size_t)num_removed; i++) {
        uint32_t key = (uint32_t)ints[p + i], pos = lower_bound(sn, key), x;
        if (pos >= sn->num_items || sn->key[sn->order[pos]] != key)
            continue;
        x = sn->order[pos];
        if (bulk) {
            if (s->mark[x])
                continue; /* removed already */
            s->mark[x] = MARK_REMOVED;
        }
        cell_release(sn, key, x);
        if (!bulk) {
            memmove(sn->order + pos, sn->order + pos + 1, sizeof sn->order[0] * (sn->num_items - pos - 1u));
            sn->num_items--;
        }
        if (sn->prev[x] == ZDEM_TW_SNAP_END)
            sn->head = sn->next[x];
        else
            sn->next[sn->prev[x]] = sn->next[x];
        if (sn->next[x] == ZDEM_TW_SNAP_END)
            sn->tail = sn->prev[x];
        else
            sn->prev[sn->next[x]] = sn->prev[x];
        sn->next[x] = (uint16_t)sn->free_slot;
        sn->free_slot = x;
        sn->used -= sn->len[x];
        s->rkey[nrem] = key;
        s->rslot[nrem] = (uint16_t)x;
        s->roff[nrem] = sn->off[x];
        nrem++;
    }
    if (bulk) {
        uint32_t r, m = 0;
        for (r = 0; r < sn->num_items; r++)
            if (!s->mark[sn->order[r]])
                sn->order[m++] = sn->order[r];
        sn->num_items = m;
        for (r = 0; r < nrem; r++)
            s->mark[s->rslot[r]] = 0;
    }
    if (nrem > 1u)
        sort_removed(s, nrem);
    p += (size_t)num_removed;

    for (i = 0; i < (size_t)num_deltas; i++) {
        uint32_t key, len, pos, x, r;
        int32_t *dst;
        int32_t type = ints[p], id = ints[p + 1];
        p += 2;
        if ((uint32_t)type < ZDEM_TW_SNAP_MAX_STATIC && s->size_of[type])
            len = s->size_of[type];
        else
            len = (uint32_t)ints[p++];
        key = ((uint32_t)type << 16) | (uint32_t)id;
        /* a kept item where the check found it; anything else searched */
        x = i < sn->max_items ? s->kept[i] : ZDEM_TW_SNAP_END;
        pos = 0;
        if (x == ZDEM_TW_SNAP_END) {
            /* where the last new item went, or just after it */
            pos = lower_bound_at(sn, key, key < last_new ? at_new : at_new + 1u);
            if (pos < sn->num_items && sn->key[sn->order[pos]] == key)
                x = sn->order[pos];
        }
        if (x != ZDEM_TW_SNAP_END) {
            if (!(s->mark[x] & MARK_NEW)) {
                /* a kept item: its diff adds where it is, unless it is
                 * named twice: then each write is from its old data,
                 * kept where it was while the item moves to the top */
                if (ntwice && (r = keys_bound(tw_keys, ntwice, key)) < ntwice && tw_keys[r] == key) {
                    if (tw_off[r] == NO_OFF) {
                        tw_off[r] = sn->off[x];
                        sn->off[x] = (uint16_t)sn->top;
                        sn->top += len;
                    }
                    diff_add(sn->data + sn->off[x], sn->data + tw_off[r], ints + p, len);
                } else {
                    diff_add_in_place(sn->data + sn->off[x], ints + p, len);
                }
                goto written;
            }
        } else {
            /* new: last in order */
            x = slot_take(sn);
            sn->key[x] = key;
            cell_claim(sn, key, x);
            sn->len[x] = (uint16_t)len;
            sn->off[x] = (uint16_t)sn->top;
            sn->top += len;
            sn->used += len;
            memmove(sn->order + pos + 1, sn->order + pos, sizeof sn->order[0] * (sn->num_items - pos));
            sn->order[pos] = (uint16_t)x;
            at_new = pos;
            last_new = key;
            sn->num_items++;
            order_append(sn, x);
            s->mark[x] = MARK_NEW;
            if (first_added == ZDEM_TW_SNAP_END)
                first_added = x;
            nadded++;
        }
        /* a new item: its data, or its diff against the old snapshot's
         * item the delta removed */
        dst = sn->data + sn->off[x];
        if (nrem && (r = keys_bound(s->rkey, nrem, key)) < nrem && s->rkey[r] == key) {
            diff_add(dst, sn->data + s->roff[r], ints + p, len);
        } else {
            memcpy(dst, ints + p, 4u * len);
        }
    written:
        if (nw < sn->max_items)
            s->written[nw++] = (uint16_t)x;
        else
            wall = 1;
        p += len;
    }
    for (k = 0, i = first_added; k < nadded; k++, i = sn->next[i])
        s->mark[i] = 0;
    from_version = sn->version;
    sn->version++;
    s->delta_unused = n - p;
    s->nwritten = nw;
    s->written_all = wall;
    s->nremoved = nrem;
    s->nadded = nadded;
    s->first_added = first_added;
    s->from_version = from_version;
    s->follows = 1;
    return ZDEM_OK;
}

uint32_t zdem_tw_snap_written(const zdem_tw_snapstate *s, const uint16_t **idx, int *all)
{
    *idx = s->written;
    *all = s->written_all;
    return s->nwritten;
}

void zdem_tw_snap_written_clear(zdem_tw_snapstate *s)
{
    s->nwritten = 0;
    s->written_all = 0;
    s->nremoved = 0;
    s->nadded = 0;
    s->first_added = ZDEM_TW_SNAP_END;
    s->follows = 0;
}
