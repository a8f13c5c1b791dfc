/* Teeworlds / DDNet clips (`zdem cut`) and the encoders they need: a demo
 * of the ticks [start, end] of another, which the game and other readers
 * load as they load any demo.
 *
 * The clip is the original's header with its length (seconds, as the
 * recorder writes it: (last tick - first tick) / 50) and timeline markers
 * (those inside the clip) adjusted, the map as it is, then a keyframe
 * tick marker (an absolute tick) for the first snapshot at or after
 * start, the chunks of that tick with its snapshot written whole (a full
 * snapshot of the state there; copied when it is one already), then
 * every chunk as it is up to the last before the first tick marker past
 * end: the deltas after the first snapshot apply to the full one as they
 * did to the state it stands for. The demo is read once, decoded up to
 * the clip's end (the state at its start needs all before it), then the
 * clip is written: header, the new chunks, and copies of the original's
 * bytes. A chunk that fails to read ends the clip before it (a valid demo
 * of the part before) and is returned.
 *
 * Memory: zdem_tw_writer_size() bytes of the caller's (a reader at the
 * game's bounds and the encoding buffers), 4-byte aligned. */
#ifndef ZDEM_TEEWORLDS_WRITE_H
#define ZDEM_TEEWORLDS_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"
#include "zdem_write.h"
#include "teeworlds_snap.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zdem_tw_cut_info {
    int started;          /* a snapshot of the range was found */
    int32_t first_tick;   /* the clip's first and last tick markers */
    int32_t last_tick;
    int32_t length;       /* the header's length, seconds */
    uint32_t markers;     /* timeline markers kept */
    uint32_t copied;      /* chunks copied as they are */
    int whole;            /* the first snapshot was encoded (1) or copied (0) */
    uint64_t bytes;       /* bytes written */
    /* Item types whose size the reader took from a full snapshot before
     * the clip (a size the demo's protocol table does not give: an unknown
     * net version), that the clip's first snapshot does not hold and a
     * later one does: the clip never states their size, so a reader that
     * guesses the protocol (zdem) reads them with the table's. A warning:
     * the game, which knows its protocol, reads them right. */
    uint32_t sizes_unstated;
} zdem_tw_cut_info;

size_t zdem_tw_writer_size(void);

/* The clip of ticks [start_tick, end_tick] (INT32_MIN / INT32_MAX: from
 * the first / to the last) of the demo in data[0, n). Returns the first
 * fault after writing the clip of what came before it (a damaged header
 * writes nothing). info may be NULL. */
zdem_status zdem_tw_writer_cut(void *mem, size_t size, const uint8_t *data, size_t n,
                               int32_t start_tick, int32_t end_tick, zdem_write_fn write,
                               void *user, zdem_tw_cut_info *info, zdem_error *err);

/* ---- encoders (the inverse of zdem_tw_snap_load_full /
 * zdem_tw_snap_apply_delta, zdem_tw_ints_unpack, zdem_tw_huff_decode) */

/* A full snapshot's ints: [data size][items][offsets...] then per item
 * [key][data...], items in the snapshot's order. ZDEM_ERR_NO_SPACE when
 * cap is short. */
zdem_status zdem_tw_snap_encode_full(const zdem_tw_snap *s, int32_t *ints, size_t cap,
                                     size_t *n);

/* A delta from `from` to `to`: the removed keys, then the new items (their
 * data) and the changed ones (the wrapping difference), each as [type][id]
 * ([size] unless static_sizes gives it). Unchanged items are left out, as
 * the game leaves them. An item whose size changed, or whose size is not
 * its type's static one, cannot be sent: ZDEM_ERR_UNSUPPORTED. */
zdem_status zdem_tw_snap_encode_delta(const zdem_tw_snap *from, const zdem_tw_snap *to,
                                      const uint8_t *static_sizes, size_t nstatic,
                                      int32_t *ints, size_t cap, size_t *n);

/* A data chunk (kind ZDEM_TW_CHUNK_SNAPSHOT, _MESSAGE or _DELTA) of these
 * ints: packed, Huffman-coded, behind its chunk header. scratch holds the
 * packed bytes (at most 65536 of them, as the reader takes). */
zdem_status zdem_tw_chunk_encode(int kind, const int32_t *ints, size_t n, uint8_t *scratch,
                                 size_t scratch_cap, uint8_t *out, size_t cap, size_t *len);

/* A tick marker: the absolute form (5 bytes), keyframe or not, in the
 * layout of a demo version (3..6). */
size_t zdem_tw_tick_marker(int version, int32_t tick, int keyframe, uint8_t out[5]);

#ifdef __cplusplus
}
#endif

#endif
