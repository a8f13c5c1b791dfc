/* Source 2 input, pushed in pieces of any size or given whole: the 16-byte
 * header is checked, then each whole outer frame goes to a frame handler,
 * in order, once. A frame inside one piece is a view of it (a mapped file
 * given in one piece is never copied); a frame split across pieces is
 * gathered in a caller buffer, and one larger than that buffer is skipped
 * and reported. The end of input checks that the demo is complete: a file
 * without DEM_Stop (cut short, or still being written) is truncated. */
#ifndef ZDEM_SOURCE2_PUSH_H
#define ZDEM_SOURCE2_PUSH_H

#include "source2_demo.h"
#include "zdem_push.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One whole frame (file offsets). A non-OK status stops the input. */
typedef zdem_status (*zdem_s2_frame_fn)(void *ctx, const zdem_s2_outer *m,
                                        zdem_error *err);
/* A frame of len bytes at offset skipped: larger than the gather buffer. */
typedef void (*zdem_s2_skip_fn)(void *ctx, uint64_t offset, uint64_t len);

typedef struct zdem_s2_push {
    zdem_push in;
    zdem_s2_frame_fn on_frame;
    zdem_s2_skip_fn on_skip;
    void *ctx;
    zdem_s2_header hdr;
    int have_header;
    int stopped;       /* DEM_Stop seen */
    uint32_t index;    /* frames so far */
    uint64_t fed;      /* bytes so far */
    uint64_t fileinfo_at; /* offset of the first DEM_FileInfo frame + 1, 0 none */
    /* Bit c set: frames of command c are passed over unread (never
     * gathered, never handed on), e.g. SendTables for a reader of events.
     * Set after init; 0 by default. */
    uint32_t skip_cmds;
    uint32_t skipped;  /* frames passed over so */
} zdem_s2_push;

void zdem_s2_push_init(zdem_s2_push *s, zdem_s2_frame_fn on_frame,
                       zdem_s2_skip_fn on_skip, void *ctx, uint8_t *buf,
                       size_t cap);
zdem_status zdem_s2_push_feed(zdem_s2_push *s, const uint8_t *data, size_t n,
                              zdem_error *err);
/* End of input: ZDEM_ERR_TRUNCATED for a frame cut off, a missing DEM_Stop
 * or a file that ends before the DEM_FileInfo its header points at;
 * ZDEM_ERR_CORRUPT when that header offset points elsewhere. */
zdem_status zdem_s2_push_end(zdem_s2_push *s, zdem_error *err);
/* 1 when the input so far is a whole demo: DEM_Stop came, no frame is
 * partly gathered, and the DEM_FileInfo the header points at (if it
 * points at one) came too; zdem_s2_push_end would then find nothing
 * missing. For a reader that follows a file still being written. */
int zdem_s2_push_complete(const zdem_s2_push *s);
/* A whole file in one call: feed + end, nothing gathered. */
zdem_status zdem_s2_push_file(zdem_s2_push *s, const uint8_t *file,
                              size_t size, zdem_error *err);

#ifdef __cplusplus
}
#endif

#endif
