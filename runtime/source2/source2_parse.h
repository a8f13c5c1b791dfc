/* One-call Source 2 parse: walks the outer frames, decompresses only the
 * payloads someone asked for, and hands frames, inner messages and typed
 * (generated) messages to the caller's callbacks. */
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

/* scratch: zdem_s2_scratch_needed() bytes. Stops at the first error (the
 * offset is a file offset for frames, a bit offset inside the packet for
 * inner messages: err->offset_is_bits tells). */
zdem_status zdem_s2_parse(const uint8_t *file, size_t size,
                          const zdem_s2_parse_cbs *cbs, void *user,
                          uint8_t *scratch, size_t scratch_cap,
                          zdem_error *err);

#endif
