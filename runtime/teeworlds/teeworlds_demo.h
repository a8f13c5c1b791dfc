/* Teeworlds / DDNet demo container (TWDEMO versions 3 to 6): header, the
 * embedded map as a view into the caller's buffer, and a chunk iterator.
 * Nothing here allocates or copies; every pointer points into the input. */
#ifndef ZDEM_TEEWORLDS_DEMO_H
#define ZDEM_TEEWORLDS_DEMO_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A byte string inside the input (not NUL-terminated). */
typedef struct zdem_tw_str {
    const uint8_t *p;
    size_t n;
} zdem_tw_str;

enum {
    ZDEM_TW_MAX_TIMELINE_MARKERS = 64,
    ZDEM_TW_HEADER_SIZE = 8 + 168,     /* version header + header */
    ZDEM_TW_MARKERS_SIZE = 4 + 256,    /* v4+ */
    ZDEM_TW_SHA256_EXT_SIZE = 16 + 32  /* v6 DDNet extension: UUID + digest */
};

typedef struct zdem_tw_demo_info {
    uint8_t version;              /* 3..6 */
    zdem_tw_str net_version, map_name, type, timestamp;
    uint32_t map_size;
    uint32_t map_crc;
    int32_t length;               /* seconds */
    int32_t num_timeline_markers; /* clamped to 0..64 (as stored: raw_num_markers) */
    int32_t raw_num_markers;
    int32_t timeline_markers[ZDEM_TW_MAX_TIMELINE_MARKERS];
    int has_sha256;
    uint8_t map_sha256[32];
    const uint8_t *map;           /* view of map_size bytes */
    size_t map_offset;
    size_t data_offset;           /* first chunk */
} zdem_tw_demo_info;

/* Parses the header. Errors: BAD_MAGIC, UNSUPPORTED (version), TRUNCATED
 * (header or map runs past the end), BAD_LENGTH (negative map size). */
zdem_status zdem_tw_demo_open(const uint8_t *data, size_t size, zdem_tw_demo_info *out,
                         zdem_error *err);

/* UUID that introduces the DDNet v6 map SHA-256 extension. */
extern const uint8_t zdem_tw_sha256_ext_uuid[16];

/* The header alone (for push input, where the map has not arrived yet):
 * every field but `map` (NULL); map_offset and data_offset are set. */
zdem_status zdem_tw_demo_open_header(const uint8_t *data, size_t size,
                                zdem_tw_demo_info *out, zdem_error *err);

/* 1 if CRC32 / SHA-256 of the embedded map equal the header's values
 * (sha: 0 also when the file has no SHA-256 extension). */
int zdem_tw_demo_map_crc_ok(const zdem_tw_demo_info *info);
int zdem_tw_demo_map_sha256_ok(const zdem_tw_demo_info *info);

enum zdem_tw_chunk_kind {
    ZDEM_TW_CHUNK_UNKNOWN = 0,  /* normal chunk with type 0: skipped by players */
    ZDEM_TW_CHUNK_SNAPSHOT = 1,
    ZDEM_TW_CHUNK_MESSAGE = 2,
    ZDEM_TW_CHUNK_DELTA = 3,
    ZDEM_TW_CHUNK_TICK = 4
};

typedef struct zdem_tw_chunk {
    int kind;           /* enum zdem_tw_chunk_kind */
    size_t offset;      /* file offset of the chunk header */
    /* tick markers */
    int32_t tick;       /* absolute tick after this marker (also set for data chunks) */
    int keyframe;
    int inline_tick;    /* 1: delta form, 0: absolute 32-bit tick followed */
    /* data chunks */
    const uint8_t *data;
    size_t size;
    size_t data_offset; /* file offset of data */
} zdem_tw_chunk;

typedef struct zdem_tw_chunk_reader {
    const uint8_t *data;
    size_t size;
    size_t pos;
    int version;
    int32_t tick;
    int have_tick;
    int32_t first_tick;     /* tick of the first tick marker */
    int32_t length;         /* header length (seconds), for the end check */
    int end_checked;        /* the end-of-stream check has run */
} zdem_tw_chunk_reader;

void zdem_tw_chunks_init(zdem_tw_chunk_reader *r, const zdem_tw_demo_info *info,
                    const uint8_t *data, size_t size);

/* 1: *c filled, 0: clean end of the stream (exactly at EOF), -1: error
 * (err filled; offset = the bad chunk's header). Every whole chunk before
 * a truncated one has been delivered. A stream that ends at a chunk
 * boundary but short of the header's length is TRUNCATED at its end (see
 * zdem_tw_chunks_end_check). */
int zdem_tw_chunks_next(zdem_tw_chunk_reader *r, zdem_tw_chunk *c, zdem_error *err);

/* End-of-stream check at file offset `end`: recorders write the header's
 * length as (last tick marker - first tick marker) / 50 when they stop, so
 * a stream whose tick markers cover less lost its tail. ZDEM_OK or
 * ZDEM_ERR_TRUNCATED. A length of 0 (recording never finished) is never
 * short. */
zdem_status zdem_tw_chunks_end_check(const zdem_tw_chunk_reader *r, uint64_t end, zdem_error *err);

#ifdef __cplusplus
}
#endif

#endif
