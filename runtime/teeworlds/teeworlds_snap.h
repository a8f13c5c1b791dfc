/* Teeworlds snapshots: full snapshots and deltas applied to the previous
 * snapshot (removed, changed and new items), in fixed caller memory.
 * Input is the int array that zdem_tw_ints_unpack produced from a chunk. */
#ifndef ZDEM_TEEWORLDS_SNAP_H
#define ZDEM_TEEWORLDS_SNAP_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"

enum {
    ZDEM_TW_SNAP_MAX_SIZE = 65536,  /* serialized snapshot bound, as the game's */
    ZDEM_TW_SNAP_MAX_ITEMS = 1024,
    ZDEM_TW_SNAP_MAX_INTS = ZDEM_TW_SNAP_MAX_SIZE / 4,
    ZDEM_TW_SNAP_HASH_SLOTS = 2048, /* power of two, 2x the item limit */
    ZDEM_TW_SNAP_MAX_TYPE = 0x7fff,
    ZDEM_TW_SNAP_MAX_ID = 0xffff
};

typedef struct zdem_tw_snap {
    uint32_t num_items;
    uint32_t used;                        /* ints used in data[] */
    uint32_t key[ZDEM_TW_SNAP_MAX_ITEMS];      /* type << 16 | id */
    uint16_t off[ZDEM_TW_SNAP_MAX_ITEMS];      /* first data int */
    uint16_t len[ZDEM_TW_SNAP_MAX_ITEMS];      /* data ints */
    uint16_t slot[ZDEM_TW_SNAP_HASH_SLOTS];    /* item index + 1, 0 = empty */
    int32_t data[ZDEM_TW_SNAP_MAX_INTS];
} zdem_tw_snap;

/* Two snapshots (current and the one being built) plus scratch: about
 * 150 KiB. Declare it static or allocate it once; zdem_tw_snap_init it. */
typedef struct zdem_tw_snapstate {
    zdem_tw_snap snap[2];
    int cur;                              /* index of the current snapshot */
    uint8_t removed[ZDEM_TW_SNAP_MAX_ITEMS];
    /* Pre-agreed item sizes (ints) per type; 0 = size is in the delta. */
    const uint8_t *static_sizes;
    size_t num_static_sizes;
    /* Ints left over after the last delta's items: 0 for a well-formed
     * delta. The reference ignores them; we report them for diagnostics. */
    size_t delta_unused;
} zdem_tw_snapstate;

/* static_sizes may be NULL (every size then comes from the delta). */
void zdem_tw_snap_init(zdem_tw_snapstate *s, const uint8_t *static_sizes, size_t n);

/* Replaces the current snapshot by a full snapshot:
 *   [data_size bytes] [num_items] [offsets...] then per item [key] [data...]
 * Errors (offset = int index in `ints`): CORRUPT, LIMIT. On error the
 * previous snapshot stays current. */
zdem_status zdem_tw_snap_load_full(zdem_tw_snapstate *s, const int32_t *ints, size_t n,
                              zdem_error *err);

/* Applies a delta to the current snapshot:
 *   [num_removed] [num_deltas] [_zero] [removed keys...] then per delta
 *   [type] [id] ([size] unless pre-agreed) [data or diff...]
 * Changed items add the diff (wrapping); new items take the data as is. */
zdem_status zdem_tw_snap_apply_delta(zdem_tw_snapstate *s, const int32_t *ints, size_t n,
                                zdem_error *err);

static inline const zdem_tw_snap *zdem_tw_snap_current(const zdem_tw_snapstate *s)
{
    return &s->snap[s->cur];
}

/* Index of the item with this key, -1 if absent. */
int zdem_tw_snap_find(const zdem_tw_snap *snap, uint32_t key);

static inline int zdem_tw_snap_type(const zdem_tw_snap *snap, uint32_t i) { return (int)(snap->key[i] >> 16); }
static inline int zdem_tw_snap_id(const zdem_tw_snap *snap, uint32_t i) { return (int)(snap->key[i] & 0xffffu); }
static inline const int32_t *zdem_tw_snap_data(const zdem_tw_snap *snap, uint32_t i) { return snap->data + snap->off[i]; }

#endif
