/* Teeworlds snapshots: full snapshots and deltas applied to the previous
 * snapshot (removed, changed and new items), in fixed caller memory.
 * Input is the int array that zdem_tw_ints_unpack produced from a chunk. */
#ifndef ZDEM_TEEWORLDS_SNAP_H
#define ZDEM_TEEWORLDS_SNAP_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    ZDEM_TW_SNAP_MAX_SIZE = 65536,  /* serialized snapshot bound, as the game's */
    ZDEM_TW_SNAP_MAX_ITEMS = 1024,  /* the game's item bound */
    ZDEM_TW_SNAP_MAX_INTS = ZDEM_TW_SNAP_MAX_SIZE / 4,
    ZDEM_TW_SNAP_MAX_TYPE = 0x7fff,
    ZDEM_TW_SNAP_MAX_ID = 0xffff,
    ZDEM_TW_SNAP_MAX_STATIC = 32    /* pre-agreed sizes a snapstate can learn */
};

/* Caller memory for a zdem_tw_snapstate holding at most `items` items and
 * `ints` data ints per snapshot: 31 bytes per item (key, offset, length,
 * order links, key index and its cells, the written and removed lists,
 * the kept items of a delta, a mark) and 8
 * per int (data room for twice the bound, so that the holes removed
 * items leave are closed up at most once per `ints` ints written).
 * A constant expression, so a device can declare the buffer statically
 * (as uint32_t[(ZDEM_TW_SNAP_MEM(i, n) + 3) / 4]). */
#define ZDEM_TW_SNAP_MEM(items, ints) \
    (2u * (15u * (size_t)(items) + 4u * (size_t)(ints)) + (size_t)(items))

/* "No item": the end of the item order, an empty list. */
#define ZDEM_TW_SNAP_END 0xffffu

/* One snapshot, changed in place: an item keeps its slot (the index the
 * accessors below take) while others come and go, so that a delta costs
 * what it changes. Items are in the game's order (a full snapshot's,
 * then each delta's new items after the others) along a linked list:
 *   for (i = zdem_tw_snap_first(s); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(s, i))
 * Slots are not positions: a removed item's slot is taken again. */
typedef struct zdem_tw_snap {
    uint32_t num_items;
    uint32_t used;       /* data ints the items hold (the bounds count these) */
    uint32_t top;        /* data ints taken, holes of removed items included */
    uint32_t head, tail; /* first and last item in order (ZDEM_TW_SNAP_END: none) */
    uint32_t fresh;      /* slots at or above this one were never taken */
    uint32_t free_slot;  /* first free slot below `fresh`, chained through next[] */
    uint32_t version;    /* changes with each full snapshot or non-empty delta applied */
    uint32_t *key;       /* per slot: type << 16 | id */
    uint16_t *off;       /* first data int */
    uint16_t *len;       /* data ints */
    uint16_t *next;      /* item order, both ways */
    uint16_t *prev;
    uint16_t *order;     /* the items' slots sorted by key (binary search) */
    uint16_t *cell;      /* 2 x max_items cells: slot + 1 of an item whose key
                          * hashes there (0: none), so that most lookups take
                          * one compare; the rest search `order` */
    int32_t *data;       /* 2 x max_ints */
    uint32_t max_items;  /* limits this snapshot was set up with */
    uint32_t max_ints;
} zdem_tw_snap;

/* The snapshot plus the lists of the last change and scratch, in caller
 * memory: zdem_tw_snap_setup once, then zdem_tw_snap_init per demo. */
typedef struct zdem_tw_snapstate {
    zdem_tw_snap snap;
    uint8_t *mark;                        /* max_items flags, 0 between calls */
    uint16_t *written;                    /* max_items slots (zdem_tw_snap_written) */
    /* The last delta's removed items (zdem_tw_snap_changes): key, the
     * slot they had, where their data was; scratch while a delta or
     * snapshot is checked. max_items each. */
    uint32_t *rkey;
    uint16_t *rslot;
    uint16_t *roff;
    /* Scratch while a delta applies: the slot of each of its first
     * max_items items when the check found it kept, else
     * ZDEM_TW_SNAP_END (so that it is searched for once, not twice). */
    uint16_t *kept;
    /* Pre-agreed item sizes (ints) per type; 0 = size is in the delta. */
    const uint8_t *static_sizes;
    size_t num_static_sizes;
    /* The size a full snapshot gave a pre-agreed type when it was not the
     * table's (0: the table's): deltas then read that many ints, so that a
     * demo of another protocol version (other sizes under the same ids)
     * goes on. Each such item is counted in size_mismatches. */
    uint16_t learned[ZDEM_TW_SNAP_MAX_STATIC];
    /* What a delta reads as a type's size: learned[] over the table's
     * (0: the size is in the delta), one lookup an item. */
    uint16_t size_of[ZDEM_TW_SNAP_MAX_STATIC];
    uint32_t size_mismatches;
    /* Ints left over after the last delta's items: 0 for a well-formed
     * delta. The reference ignores them; we report them for diagnostics. */
    size_t delta_unused;
    /* Items the last full snapshot or delta wrote: see zdem_tw_snap_written. */
    uint32_t nwritten;
    int written_all;
    /* How the last delta changed the snapshot before it, item by item:
     * see zdem_tw_snap_changes. */
    uint32_t nremoved;
    uint32_t nadded;
    uint32_t first_added;
    uint32_t from_version;
    int follows;
} zdem_tw_snapstate;

/* Lays the snapshot out in mem (4-byte aligned, at least
 * ZDEM_TW_SNAP_MEM(max_items, max_ints) bytes). Limits above the game's
 * bounds (1024 items, 16384 ints) are lowered to them; 0 means the bound.
 * A snapshot over a limit is refused with ZDEM_ERR_LIMIT, as one over the
 * game's bounds. NO_SPACE when mem is too small or misaligned. */
zdem_status zdem_tw_snap_setup(zdem_tw_snapstate *s, uint32_t max_items, uint32_t max_ints,
                               void *mem, size_t size, zdem_error *err);

/* static_sizes may be NULL (every size then comes from the delta); at
 * most ZDEM_TW_SNAP_MAX_STATIC of them are used. */
void zdem_tw_snap_init(zdem_tw_snapstate *s, const uint8_t *static_sizes, size_t n);

/* Replaces the current snapshot by a full snapshot:
 *   [data_size bytes] [num_items] [offsets...] then per item [key] [data...]
 * Errors (offset = int index in `ints`): CORRUPT, LIMIT. On error the
 * previous snapshot stays current. */
zdem_status zdem_tw_snap_load_full(zdem_tw_snapstate *s, const int32_t *ints, size_t n,
                              zdem_error *err);

/* Applies a delta to the current snapshot, in place (checked whole
 * first: on error the snapshot stays as it was):
 *   [num_removed] [num_deltas] [_zero] [removed keys...] then per delta
 *   [type] [id] ([size] unless pre-agreed) [data or diff...]
 * Changed items add the diff (wrapping); new items take the data as is. */
zdem_status zdem_tw_snap_apply_delta(zdem_tw_snapstate *s, const int32_t *ints, size_t n,
                                zdem_error *err);

static inline const zdem_tw_snap *zdem_tw_snap_current(const zdem_tw_snapstate *s)
{
    return &s->snap;
}

/* The items the last full snapshot or delta wrote (added or changed), as
 * slots of the current snapshot (*idx), in the delta's order, so that a
 * caller following changes (names, scores) works in proportion to the
 * delta, not to the snapshot. Returns their count; *all = 1 when every
 * item counts (a full snapshot, or a delta writing more than max_items:
 * then *idx is not a list, iterate the snapshot). A delta that changes
 * nothing ([0 0 0]) writes nothing and leaves the snapshot as it is; call
 * zdem_tw_snap_written_clear for a chunk that applies nothing at all (the
 * reader does). */
uint32_t zdem_tw_snap_written(const zdem_tw_snapstate *s, const uint16_t **idx, int *all);
void zdem_tw_snap_written_clear(zdem_tw_snapstate *s);

/* 1 when the last delta's change is told item by item, so that a caller
 * that keeps what it found in the snapshot before follows it in
 * proportion to the delta: the snapshot it applied to was the one of
 * version *from (zdem_tw_snap.version, unchanged until this delta); the
 * current one is that less the items removed (their keys rkey[0..*nremoved)
 * and the slots they had rslot[...], in no set order; a slot may now hold
 * a new item), the others in their order (data changed only where
 * written), then *added new items, the last in order, from slot
 * *first_added on. 0 after a full snapshot or when nothing applied. */
static inline int zdem_tw_snap_changes(const zdem_tw_snapstate *s, uint32_t *from,
                                       const uint32_t **rkey, const uint16_t **rslot,
                                       uint32_t *nremoved, uint32_t *added, uint32_t *first_added)
{
    *from = s->from_version;
    *rkey = s->rkey;
    *rslot = s->rslot;
    *nremoved = s->nremoved;
    *added = s->nadded;
    *first_added = s->first_added;
    return s->follows;
}

/* Slot of the item with this key, -1 if absent. */
int zdem_tw_snap_find(const zdem_tw_snap *snap, uint32_t key);

/* The first item in order and the one after item i (ZDEM_TW_SNAP_END: none). */
static inline uint32_t zdem_tw_snap_first(const zdem_tw_snap *snap) { return snap->head; }
static inline uint32_t zdem_tw_snap_next(const zdem_tw_snap *snap, uint32_t i) { return snap->next[i]; }

static inline int zdem_tw_snap_type(const zdem_tw_snap *snap, uint32_t i) { return (int)(snap->key[i] >> 16); }
static inline int zdem_tw_snap_id(const zdem_tw_snap *snap, uint32_t i) { return (int)(snap->key[i] & 0xffffu); }
static inline const int32_t *zdem_tw_snap_data(const zdem_tw_snap *snap, uint32_t i) { return snap->data + snap->off[i]; }

#ifdef __cplusplus
}
#endif

#endif
