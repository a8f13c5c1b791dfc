/* Source 2 demo container (PBDEMS2): file header, outer command frames,
 * and the inner NET/SVC message stream inside CDemoPacket.data.
 *
 * Zero copy: payloads are views into the caller's file buffer unless they
 * are Snappy-compressed (decompressed into caller scratch) or, for inner
 * messages, not byte-aligned in the bit stream (copied into scratch). */
#ifndef ZDEM_SOURCE2_DEMO_H
#define ZDEM_SOURCE2_DEMO_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_bits.h"
#include "zdem_error.h"

#define ZDEM_S2_HEADER_SIZE 16u
#define ZDEM_S2_CMD_COMPRESSED 0x40u /* DEM_IsCompressed flag in the command */

/* Outer command ids that the container itself needs. */
enum {
    ZDEM_S2_DEM_STOP = 0,
    ZDEM_S2_DEM_FILEHEADER = 1,
    ZDEM_S2_DEM_FILEINFO = 2,
    ZDEM_S2_DEM_SYNCTICK = 3,
    ZDEM_S2_DEM_SENDTABLES = 4,
    ZDEM_S2_DEM_CLASSINFO = 5,
    ZDEM_S2_DEM_STRINGTABLES = 6,
    ZDEM_S2_DEM_PACKET = 7,
    ZDEM_S2_DEM_SIGNONPACKET = 8,
    ZDEM_S2_DEM_FULLPACKET = 13
};

typedef struct zdem_s2_header {
    uint32_t fileinfo_offset;    /* byte offset of the DEM_FileInfo frame */
    uint32_t spawngroups_offset; /* byte offset of the spawn groups frame */
} zdem_s2_header;

/* Checks the magic and reads both offsets (they are not validated here:
 * zdem_s2_read_fileinfo does that when it follows one). */
zdem_status zdem_s2_read_header(const uint8_t *file, size_t size,
                                zdem_s2_header *hdr, zdem_error *err);

/* One outer frame. */
typedef struct zdem_s2_outer {
    uint32_t index;          /* 0-based frame number */
    uint64_t offset;         /* byte offset of the frame in the file */
    uint32_t cmd;            /* EDemoCommands id, compressed flag removed */
    int compressed;          /* payload is Snappy-compressed */
    int64_t tick;            /* -1 for the pregame tick 0xFFFFFFFF */
    uint64_t payload_offset; /* byte offset of the stored payload */
    const uint8_t *stored;   /* stored (possibly compressed) payload view */
    uint32_t stored_size;
} zdem_s2_outer;

typedef struct zdem_s2_reader {
    const uint8_t *file;
    size_t size;
    size_t pos;
    uint32_t index;
    int stopped; /* DEM_Stop seen */
} zdem_s2_reader;

/* Starts after the 16-byte header (call zdem_s2_read_header first). */
void zdem_s2_reader_init(zdem_s2_reader *r, const uint8_t *file, size_t size);

/* Next outer frame: 1 = *out filled, 0 = clean end of file, -1 = error
 * (err has the byte offset). Frames after DEM_Stop are still returned. */
int zdem_s2_next(zdem_s2_reader *r, zdem_s2_outer *out, zdem_error *err);

/* The frame's payload: a view of the stored bytes, or, when compressed,
 * decompressed into scratch (scratch_cap bytes; ZDEM_ERR_NO_SPACE if the
 * Snappy preamble says more). */
zdem_status zdem_s2_payload(const zdem_s2_outer *m, uint8_t *scratch,
                            size_t scratch_cap, const uint8_t **data,
                            size_t *size, zdem_error *err);

/* Reads the DEM_FileInfo frame directly through the header offset, without
 * scanning. An offset out of range or a frame that is not DEM_FileInfo is
 * ZDEM_ERR_CORRUPT. data, size: the CDemoFileInfo protobuf bytes. */
zdem_status zdem_s2_read_fileinfo(const uint8_t *file, size_t size,
                                  const zdem_s2_header *hdr, uint8_t *scratch,
                                  size_t scratch_cap, const uint8_t **data,
                                  size_t *size_out, zdem_error *err);

/* Largest scratch a demo needs for zdem_s2_payload and the inner reader:
 * twice the largest decompressed payload (one for the payload, one for
 * unaligned inner messages). Walks the framing only. */
zdem_status zdem_s2_scratch_needed(const uint8_t *file, size_t size,
                                   size_t *need, zdem_error *err);

/* ---- inner messages (CDemoPacket.data) ---------------------------------- */

typedef struct zdem_s2_inner {
    uint32_t index;      /* position in the packet */
    uint32_t type;       /* NET/SVC/user message id (ubit_var) */
    uint64_t bit_offset; /* of the frame in the packet data */
    const uint8_t *data; /* payload bytes (view, or copy in scratch) */
    uint32_t size;
} zdem_s2_inner;

typedef struct zdem_s2_inner_reader {
    zdem_bits br;
    uint8_t *scratch;   /* for payloads that are not byte-aligned */
    size_t scratch_cap;
    size_t scratch_used;
    uint32_t index;
} zdem_s2_inner_reader;

void zdem_s2_inner_init(zdem_s2_inner_reader *ir, const uint8_t *data,
                        size_t size, uint8_t *scratch, size_t scratch_cap);

/* 1 = *out filled, 0 = end, -1 = error (bit offset in err). */
int zdem_s2_inner_next(zdem_s2_inner_reader *ir, zdem_s2_inner *out,
                       zdem_error *err);

/* Priority classes used to deliver a packet's messages in the order the
 * entity layer needs: string tables first, entities last. */
typedef enum zdem_s2_priority {
    ZDEM_S2_PRIO_STRINGTABLES = 0,
    ZDEM_S2_PRIO_NORMAL = 1,
    ZDEM_S2_PRIO_ENTITIES = 2
} zdem_s2_priority;

zdem_s2_priority zdem_s2_inner_priority(uint32_t type);

typedef zdem_status (*zdem_s2_inner_fn)(void *user, const zdem_s2_inner *m);

/* Calls fn for every inner message of a packet. ordered != 0 delivers in
 * priority order (three passes over the framing; payloads are not re-read). */
zdem_status zdem_s2_for_each_inner(const uint8_t *data, size_t size,
                                   int ordered, uint8_t *scratch,
                                   size_t scratch_cap, zdem_s2_inner_fn fn,
                                   void *user, zdem_error *err);

#endif
