/* One-stop Teeworlds demo reader: chunks -> Huffman -> ints -> snapshot
 * (applied) or message (id parsed, schema descriptor looked up). The
 * reader itself is a small control block; its buffers are caller memory
 * sized by zdem_tw_limits (zdem_tw_reader_mem_size): at the game's own
 * bounds 281 KiB, at ZDEM_TW_LIMITS_SMALL 19.1 KiB, which every
 * corpus demo fits. */
#ifndef ZDEM_TEEWORLDS_READER_H
#define ZDEM_TEEWORLDS_READER_H

#include "teeworlds_demo.h"
#include "teeworlds_huffman.h"
#include "teeworlds_msg.h"
#include "teeworlds_proto.h"
#include "teeworlds_protocol.h"
#include "teeworlds_snap.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* What a demo may hold; storage follows these, not the format's maxima.
 * A snapshot or delta over max_items / max_snap_ints is dropped (the
 * previous snapshot stays current, as for the game's own bounds), counted
 * and reported, and so are the deltas after it until the next full
 * snapshot (their base is gone); a chunk whose decoded payload is over
 * max_payload is dropped the same way (a message: that message only), with
 * a warning naming the limit, and the stream goes on. */
typedef struct zdem_tw_limits {
    uint32_t max_payload;   /* decoded bytes of one chunk, a multiple of 4 */
    uint32_t max_items;     /* items in one snapshot */
    uint32_t max_snap_ints; /* data ints in one snapshot (4 bytes each) */
} zdem_tw_limits;

/* The game's bounds: every valid demo fits. */
#define ZDEM_TW_LIMITS_DEFAULT {65536u, 1024u, 16384u}
/* For microcontrollers: about 2x the largest corpus demo (58 items, 415
 * data ints, 514 payload ints). */
#define ZDEM_TW_LIMITS_SMALL {4096u, 128u, 1024u}

/* Caller memory for these limits, a constant expression: the Huffman
 * output and its ints (messages are turned into bytes in place), plus two
 * snapshots. */
#define ZDEM_TW_READER_MEM(payload, items, ints) \
    (2u * ((size_t)(payload) & ~(size_t)3u) + ZDEM_TW_SNAP_MEM(items, ints))

typedef struct zdem_tw_reader {
    zdem_tw_demo_info info;
    zdem_tw_chunk_reader chunks;
    zdem_tw_snapstate snaps;
    uint8_t *huff;           /* payload_cap bytes: Huffman output */
    int32_t *ints;           /* payload_cap / 4 ints; message bytes in place */
    size_t payload_cap;
    zdem_tw_limits limits;   /* as set up (clamped to the game's bounds) */
    /* Snapshots and deltas dropped at a limit (the caller's or the game's)
     * and where the first was: chunk offset, and the limit in its msg. */
    uint32_t limit_hits;
    zdem_error first_limit;
    int stale;               /* the last snapshot was dropped: deltas wait
                                for a full one */
    uint32_t ready;          /* zdem_tw_reader_init done */
    /* Pass 0 to skip work you do not need (both default to 1). */
    int decode_snapshots;
    int decode_messages;
    /* The protocol the header's net version selects (proto_known 0: an
     * unknown net version, read with the closest protocol), and the items
     * and messages that did not fit it: their count and the first one's
     * chunk (zdem_tw_reader_check). */
    const zdem_tw_protocol *proto;
    int proto_known;
    uint32_t mismatches;
    zdem_error first_mismatch;
    uint32_t snap_mismatches_seen;
    /* 0: no protocol check (mismatches stay 0) and no message
     * descriptions (ev->desc NULL), for a caller that uses neither (a
     * clip's writer); 1 by default */
    int check_protocol;
} zdem_tw_reader;

/* sizeof(zdem_tw_reader) (the control block, without its buffers), for
 * callers that take the layout from a shared library (bindings). */
size_t zdem_tw_reader_size(void);

/* Bytes of caller memory zdem_tw_reader_init needs for lim (NULL: the
 * defaults); limits above the game's bounds are lowered to them. */
size_t zdem_tw_reader_mem_size(const zdem_tw_limits *lim);

void zdem_tw_limits_default(zdem_tw_limits *lim);
void zdem_tw_limits_small(zdem_tw_limits *lim);

/* Attaches mem (4-byte aligned, zdem_tw_reader_mem_size(lim) bytes) to r,
 * once; then zdem_tw_reader_open (or zdem_tw_push_init) per demo. */
zdem_status zdem_tw_reader_init(zdem_tw_reader *r, const zdem_tw_limits *lim, void *mem,
                                size_t size, zdem_error *err);

/* ZDEM_ERR_NO_SPACE if r was not set up by zdem_tw_reader_init. */
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
/* For the push input: ev's chunk is dropped over a limit (msg, static:
 * ev->warning), counted as zdem_tw_reader_decode counts its own. */
int zdem_tw_chunk_over(zdem_tw_reader *r, zdem_tw_event *ev, const char *msg);

/* Selects r->proto from r->info.net_version and sets the snapshots up with
 * its pre-agreed sizes (zdem_tw_reader_open and the push input call it
 * once the header is read). */
void zdem_tw_reader_use_protocol(zdem_tw_reader *r);
/* Counts what a decoded chunk holds that does not fit r->proto: pre-agreed
 * item sizes a full snapshot contradicts, and under a strict protocol
 * (0.7) items and messages outside their schema (zdem_tw_item_mismatch,
 * zdem_tw_msg_mismatch). Called by zdem_tw_reader_decode. */
void zdem_tw_reader_check(zdem_tw_reader *r, const zdem_tw_event *ev);

/* Schema descriptor of item i of a snapshot under the 0.6 protocol
 * (zdem_tw_protocol_item_desc with r->proto for any demo): fixed type ids directly,
 * extension types through the snapshot's type-0 registration item (whose
 * 4 ints are the UUID, big-endian). NULL: unknown (keep the raw ints) or a
 * registration item itself (type 0). */
const zdem_tw_obj_desc *zdem_tw_item_desc(const zdem_tw_snap *snap, uint32_t i);

/* UUID registered for an extension type in this snapshot; 0 if none. */
int zdem_tw_snap_type_uuid(const zdem_tw_snap *snap, int type, uint8_t uuid[16]);

#ifdef __cplusplus
}
#endif

#endif
