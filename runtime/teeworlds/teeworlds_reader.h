/* One-stop Teeworlds demo reader: chunks -> Huffman -> ints -> snapshot
 * (applied) or message (id parsed, schema descriptor looked up). All
 * memory is inside zdem_tw_reader (about 350 KiB: the 64 KiB stages of the
 * game's own player, plus two snapshots); allocate it once, statically or
 * on the heap, never on a small stack. */
#ifndef ZDEM_TEEWORLDS_READER_H
#define ZDEM_TEEWORLDS_READER_H

#include "teeworlds_demo.h"
#include "teeworlds_huffman.h"
#include "teeworlds_msg.h"
#include "teeworlds_proto.h"
#include "teeworlds_snap.h"

typedef struct zdem_tw_event {
    zdem_tw_chunk chunk;             /* kind, tick, offset, raw payload */
    /* ZDEM_TW_CHUNK_MESSAGE */
    zdem_tw_msg msg;
    const zdem_tw_msg_desc *desc;    /* NULL: not in the schema (kept raw) */
    /* ZDEM_TW_CHUNK_SNAPSHOT / ZDEM_TW_CHUNK_DELTA: the snapshot after this chunk */
    const zdem_tw_snap *snap;
    size_t num_ints;            /* unpacked payload ints */
    /* Non-fatal problem with this chunk (static text), else NULL: a
     * snapshot over the 1024-item / 64 KiB bounds is dropped (snap NULL,
     * the previous snapshot stays current), a delta with ints left over. */
    const char *warning;
} zdem_tw_event;

typedef struct zdem_tw_reader {
    zdem_tw_demo_info info;
    zdem_tw_chunk_reader chunks;
    zdem_tw_snapstate snaps;
    uint8_t huff[ZDEM_TW_SNAP_MAX_SIZE];
    int32_t ints[ZDEM_TW_SNAP_MAX_INTS];
    uint8_t msg[ZDEM_TW_SNAP_MAX_SIZE];  /* message bytes (ints as LE bytes) */
    /* Pass 0 to skip work you do not need (both default to 1). */
    int decode_snapshots;
    int decode_messages;
} zdem_tw_reader;

/* sizeof(zdem_tw_reader), for callers that take the layout from a shared
 * library rather than this header (bindings). */
size_t zdem_tw_reader_size(void);

zdem_status zdem_tw_reader_open(zdem_tw_reader *r, const uint8_t *data, size_t size,
                           zdem_error *err);

/* 1: *ev filled, 0: end of the stream, -1: error (err->offset is a file
 * offset: of the bad Huffman code, or of the chunk for other payload
 * errors, or the end of a stream short of the header's length).
 * Everything before the bad chunk has been delivered. */
int zdem_tw_reader_next(zdem_tw_reader *r, zdem_tw_event *ev, zdem_error *err);

/* The decode half of zdem_tw_reader_next, for a chunk already in ev->chunk
 * (used by the push input, which frames chunks itself). */
int zdem_tw_reader_decode(zdem_tw_reader *r, zdem_tw_event *ev, zdem_error *err);

/* Schema descriptor of item i of a snapshot: fixed type ids directly,
 * extension types through the snapshot's type-0 registration item (whose
 * 4 ints are the UUID, big-endian). NULL: unknown (keep the raw ints) or a
 * registration item itself (type 0). */
const zdem_tw_obj_desc *zdem_tw_item_desc(const zdem_tw_snap *snap, uint32_t i);

/* UUID registered for an extension type in this snapshot; 0 if none. */
int zdem_tw_snap_type_uuid(const zdem_tw_snap *snap, int type, uint8_t uuid[16]);

#endif
