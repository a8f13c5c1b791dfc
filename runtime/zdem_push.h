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

/* Length of the frame at p: 1 and *len (>= 1) when known, 0 when more
 * bytes are needed to tell, -1 on error (err offset relative to p; the
 * assembler makes it a file offset). */
typedef int (*zdem_push_sizer)(void *ctx, const uint8_t *p, size_t avail,
                               size_t *len, zdem_error *err);
/* A whole frame; offset is its file offset. */
typedef zdem_status (*zdem_push_sink)(void *ctx, const uint8_t *frame,
                                      size_t len, uint64_t offset,
                                      zdem_error *err);

typedef struct zdem_push {
    uint8_t *buf;     /* caller's gathering buffer */
    size_t cap;
    size_t have;      /* bytes gathered for the current frame */
    size_t need;      /* its total length, 0 while unknown */
    uint64_t offset;  /* file offset of the current frame */
    zdem_push_sizer sizer;
    zdem_push_sink sink;
    void *ctx;
    zdem_status failed; /* sticky: feeding after an error repeats it */
} zdem_push;

void zdem_push_init(zdem_push *ps, uint8_t *buf, size_t cap,
                    zdem_push_sizer sizer, zdem_push_sink sink, void *ctx);

/* Feeds n more bytes of the file. */
zdem_status zdem_push_feed(zdem_push *ps, const uint8_t *data, size_t n,
                           zdem_error *err);

/* End of input: ZDEM_ERR_TRUNCATED if a frame was cut off. */
zdem_status zdem_push_end(zdem_push *ps, zdem_error *err);

#endif
