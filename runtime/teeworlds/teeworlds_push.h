/* Teeworlds push input: feed the .demo file in pieces of any size. The
 * header is parsed as soon as it is complete; the embedded map streams
 * through (CRC32 and SHA-256 computed on the fly, pieces optionally handed
 * to on_map, never buffered); each whole chunk is decoded as by
 * zdem_tw_reader_next. Memory: a zdem_tw_reader set up by
 * zdem_tw_reader_init (its limits fix its memory) plus a
 * ZDEM_TW_PUSH_BUFFER-byte gathering buffer (the largest chunk, 3 + 65535
 * bytes, or the 484-byte header). */
#ifndef ZDEM_TEEWORLDS_PUSH_H
#define ZDEM_TEEWORLDS_PUSH_H

#include "teeworlds_hash.h"
#include "teeworlds_reader.h"
#include "zdem_push.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZDEM_TW_PUSH_BUFFER (3 + 65535)
/* With ZDEM_TW_LIMITS_SMALL: a chunk stored in more than max_payload bytes
 * (corpus: at most 1749) that arrives split across pieces is dropped with
 * a warning (an event whose warning names the limit), and the input goes
 * on; the header with the v6 extension takes 540. */
#define ZDEM_TW_PUSH_BUFFER_SMALL (3 + 4096)

typedef struct zdem_tw_push {
    zdem_push in;
    zdem_tw_reader *r;
    int phase;            /* 0 header, 1 map, 2 chunks */
    uint32_t map_left;
    uint32_t crc;
    zdem_tw_sha256 sha;
    int map_crc_ok, map_sha256_ok; /* valid once the map is complete */
    uint8_t head;         /* first byte of the chunk being framed */
    /* Callbacks (may be NULL); a nonzero return stops with ZDEM_ERR_ABORTED. */
    int (*on_header)(void *user, const zdem_tw_demo_info *info);
    int (*on_map)(void *user, const uint8_t *piece, size_t n);
    int (*on_event)(void *user, const zdem_tw_event *ev);
    void *user;
} zdem_tw_push;

/* Set the callbacks in *s after init. */
void zdem_tw_push_init(zdem_tw_push *s, zdem_tw_reader *r, uint8_t *buf, size_t cap);
zdem_status zdem_tw_push_feed(zdem_tw_push *s, const uint8_t *data, size_t n,
                         zdem_error *err);
/* End of input: TRUNCATED inside the header, the map or a chunk, or short
 * of the header's length (as zdem_tw_chunks_next). */
zdem_status zdem_tw_push_end(zdem_tw_push *s, zdem_error *err);

#ifdef __cplusplus
}
#endif

#endif
