/* Source 2 parse driver: hands frames, inner messages and typed
 * (generated) messages to the caller's callbacks, decompressing only the
 * payloads someone asked for. One forward pass over a whole file
 * (zdem_s2_parse) or over pushed pieces (zdem_s2_parser_feed/end), through
 * the same code. Damage is skipped where the format allows (a bad frame,
 * a bad inner message, the rest of a packet whose framing broke), counted
 * in p->warn, and the first of it is the run's error at the end. */
#ifndef ZDEM_SOURCE2_PARSE_H
#define ZDEM_SOURCE2_PARSE_H

#include "source2_demo.h"
#include "source2_dispatch.h"
#include "source2_push.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zdem_s2_parse_cbs {
    /* Every outer frame, before its payload is touched. */
    zdem_status (*on_outer)(void *user, const zdem_s2_outer *m);
    /* Every inner message of DEM_Packet, DEM_SignonPacket, DEM_FullPacket. */
    zdem_status (*on_inner)(void *user, zdem_s2_game game,
                            const zdem_s2_outer *m, const zdem_s2_inner *in);
    /* Typed handlers per command / message id (NULL: none). A command or
     * message without a handler costs only its framing. */
    const zdem_s2_demo_handlers *demo;
    const zdem_s2_inner_handlers *inner;
    int ordered;        /* deliver string tables first, entities last */
    zdem_s2_game game;  /* UNKNOWN: taken from DEM_FileHeader.game_directory */
} zdem_s2_parse_cbs;

typedef struct zdem_s2_parser {
    const zdem_s2_parse_cbs *cbs;
    void *user;
    zdem_s2_game game;
    uint8_t *scratch;   /* first half: decompressed payloads; second half:
                           inner messages that are not byte aligned */
    size_t scratch_cap;
    zdem_s2_warnings warn;
    zdem_s2_push push;
    /* the work budget per input byte (defaults from init; per_byte may be
     * changed before the first byte): frames decompressed and inner
     * headers read */
    zdem_s2_work work;
} zdem_s2_parser;

/* scratch: 2 x the largest decompressed payload to read (a larger frame is
 * skipped and counted as frame_limit); ZDEM_S2_FRAME_BUFFER_DEFAULT each is
 * ample for real demos. gather: for push input, the largest frame that may
 * arrive split across pieces (NULL/0 for a whole file). */
/* sizeof(zdem_s2_parser), for bindings that take the layout from the
 * shared library. */
size_t zdem_s2_parser_size(void);

void zdem_s2_parser_init(zdem_s2_parser *p, const zdem_s2_parse_cbs *cbs,
                         void *user, uint8_t *scratch, size_t scratch_cap,
                         uint8_t *gather, size_t gather_cap);

/* One outer frame with file offsets. Returns non-OK only when a callback
 * stopped the run; damage goes to p->warn. */
zdem_status zdem_s2_parse_frame(zdem_s2_parser *p, const zdem_s2_outer *m,
                                zdem_error *err);

/* Push input: pieces of any size, then the end. parser_end returns the
 * truncation (cut frame, no DEM_Stop) or else the first damage. */
zdem_status zdem_s2_parser_feed(zdem_s2_parser *p, const uint8_t *data,
                                size_t n, zdem_error *err);
zdem_status zdem_s2_parser_end(zdem_s2_parser *p, zdem_error *err);

/* Whole file in one pass; the result as zdem_s2_parser_end's. */
zdem_status zdem_s2_parser_file(zdem_s2_parser *p, const uint8_t *file,
                                size_t size, zdem_error *err);
zdem_status zdem_s2_parse(const uint8_t *file, size_t size,
                          const zdem_s2_parse_cbs *cbs, void *user,
                          uint8_t *scratch, size_t scratch_cap,
                          zdem_error *err);

#ifdef __cplusplus
}
#endif

#endif
