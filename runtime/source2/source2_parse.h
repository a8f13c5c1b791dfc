/* Source 2 parse driver: hands frames, inner messages and typed
 * (generated) messages to the caller's callbacks, decompressing only the
 * payloads someone asked for. Works on a whole file (zdem_s2_parse) or
 * frame by frame (zdem_s2_parser_*: used by the push/streaming API). */
#ifndef ZDEM_SOURCE2_PARSE_H
#define ZDEM_SOURCE2_PARSE_H

#include "source2_demo.h"
#include "source2_dispatch.h"

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
    uint8_t *scratch;   /* zdem_s2_scratch_needed() bytes */
    size_t scratch_cap;
} zdem_s2_parser;

void zdem_s2_parser_init(zdem_s2_parser *p, const zdem_s2_parse_cbs *cbs,
                         void *user, uint8_t *scratch, size_t scratch_cap);

/* One outer frame (from zdem_s2_next or the push API). Error offsets are
 * file offsets for the frame, bit offsets inside the packet for inner
 * messages (err->offset_is_bits tells). */
zdem_status zdem_s2_parse_frame(zdem_s2_parser *p, const zdem_s2_outer *m,
                                zdem_error *err);

/* Whole file: header check, then every frame. */
zdem_status zdem_s2_parse(const uint8_t *file, size_t size,
                          const zdem_s2_parse_cbs *cbs, void *user,
                          uint8_t *scratch, size_t scratch_cap,
                          zdem_error *err);

#endif
