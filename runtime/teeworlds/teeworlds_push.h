/* Teeworlds push input: feed the .demo file in pieces of any size. The
 * header is parsed as soon as it is complete; the embedded map streams
 * through (CRC32 and SHA-256 computed on the fly, pieces optionally handed
 * to on_map, never buffered); each whole chunk is decoded as by
 * tw_reader_next. Memory: a tw_reader (about 350 KiB) plus a
 * TW_PUSH_BUFFER-byte gathering buffer (the largest chunk, 3 + 65535
 * bytes, or the 484-byte header). */
#ifndef TEEWORLDS_PUSH_H
#define TEEWORLDS_PUSH_H

#include "teeworlds_hash.h"
#include "teeworlds_reader.h"
#include "zdem_push.h"

#define TW_PUSH_BUFFER (3 + 65535)

typedef struct tw_push {
    zdem_push in;
    tw_reader *r;
    int phase;            /* 0 header, 1 map, 2 chunks */
    uint32_t map_left;
    uint32_t crc;
    tw_sha256 sha;
    int map_crc_ok, map_sha256_ok; /* valid once the map is complete */
    /* Callbacks (may be NULL); a nonzero return stops with ZDEM_ERR_ABORTED. */
    int (*on_header)(void *user, const tw_demo_info *info);
    int (*on_map)(void *user, const uint8_t *piece, size_t n);
    int (*on_event)(void *user, const tw_event *ev);
    void *user;
} tw_push;

/* Set the callbacks in *s after init. */
void tw_push_init(tw_push *s, tw_reader *r, uint8_t *buf, size_t cap);
zdem_status tw_push_feed(tw_push *s, const uint8_t *data, size_t n,
                         zdem_error *err);
/* End of input: TRUNCATED inside the header, the map or a chunk, or short
 * of the header's length (as tw_chunks_next). */
zdem_status tw_push_end(tw_push *s, zdem_error *err);

#endif
