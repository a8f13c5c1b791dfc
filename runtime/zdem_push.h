/* Push (streaming) input for devices that cannot map a file: the caller
 * feeds the file in pieces of any size, the assembler hands whole frames to
 * a sink. A frame that lies inside one piece is passed as a view of it
 * (zero copy); a frame split across pieces is gathered in the caller's
 * buffer, whose size therefore bounds the largest frame. Each format
 * supplies a sizer (how long is the frame starting here?) and a sink. */
#ifndef ZDEM_PUSH_H
#define ZDEM_PUSH_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Length of the frame at p: 1 and *len (>= 1) when known, 0 when more
 * bytes are needed to tell, -1 on error (err offset relative to p; the
 * assembler makes it a file offset). ZDEM_PUSH_SKIP and *len: a frame the
 * reader does not want; its bytes are discarded as they arrive, never
 * gathered, and the sink does not see it. */
#define ZDEM_PUSH_SKIP 2
typedef int (*zdem_push_sizer)(void *ctx, const uint8_t *p, size_t avail,
                               size_t *len, zdem_error *err);
/* A whole frame; offset is its file offset. */
typedef zdem_status (*zdem_push_sink)(void *ctx, const uint8_t *frame,
                                      size_t len, uint64_t offset,
                                      zdem_error *err);

/* Optional: a frame longer than the gathering buffer that does not lie
 * inside one piece is skipped instead of failing the input (its bytes are
 * discarded as they arrive); len is its full length. */
typedef zdem_status (*zdem_push_skip)(void *ctx, uint64_t offset, size_t len,
                                      zdem_error *err);

typedef struct zdem_push {
    uint8_t *buf;     /* caller's gathering buffer */
    size_t cap;
    size_t have;      /* bytes gathered for the current frame */
    size_t need;      /* its total length, 0 while unknown */
    uint64_t offset;  /* file offset of the current frame */
    zdem_push_sizer sizer;
    zdem_push_sink sink;
    zdem_push_skip skip; /* NULL: an oversized frame is an error */
    int skipping;        /* discarding the current frame's bytes */
    int last;            /* the piece being fed is the end of the input */
    void *ctx;
    zdem_status failed; /* sticky: feeding after an error repeats it */
} zdem_push;

void zdem_push_init(zdem_push *ps, uint8_t *buf, size_t cap,
                    zdem_push_sizer sizer, zdem_push_sink sink, void *ctx);

/* Skip oversized frames (reported through skip) instead of failing. */
void zdem_push_set_skip(zdem_push *ps, zdem_push_skip skip);

/* Feeds n more bytes of the file. */
zdem_status zdem_push_feed(zdem_push *ps, const uint8_t *data, size_t n,
                           zdem_error *err);

/* End of input: ZDEM_ERR_TRUNCATED if a frame was cut off. */
zdem_status zdem_push_end(zdem_push *ps, zdem_error *err);

/* Feeds the rest of the input and ends it (a mapped file: one call). A
 * frame cut off by the end is not gathered, only reported. */
zdem_status zdem_push_feed_last(zdem_push *ps, const uint8_t *data, size_t n,
                                zdem_error *err);

#ifdef __cplusplus
}
#endif

#endif
