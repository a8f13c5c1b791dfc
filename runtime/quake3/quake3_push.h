/* Quake III push input: feed the demo file in pieces of any size; each
 * whole message goes to zdem_q3_parse_message. A message split across
 * pieces is gathered straight into the parser's own message copy
 * (zdem_q3_message_buffer), so push input needs no memory beyond the
 * parser (zdem_q3_parser_size_for) and this control block. */
#ifndef ZDEM_QUAKE3_PUSH_H
#define ZDEM_QUAKE3_PUSH_H

#include "quake3.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zdem_q3_push {
    zdem_q3_parser *parser;
    uint8_t head[8];     /* the frame header being gathered */
    uint32_t head_have;
    uint32_t body_len;   /* the message being gathered, when in_body */
    uint32_t body_have;
    uint8_t *body;       /* the parser's message buffer */
    int in_body;
    uint64_t offset;     /* file offset of the frame being gathered */
    uint32_t index;      /* whole messages parsed */
    int ended;           /* -1/-1 end marker seen */
    uint64_t trailing;   /* bytes after the end marker (reported, not an error) */
    /* the first damaged message (skipped; parsing goes on with the next):
     * returned by zdem_q3_push_end, file offset in fault_err */
    zdem_status fault;
    zdem_error fault_err;
    zdem_status failed;  /* framing failed or a callback stopped: no more input */
    /* Optional (set after init): called with each whole message before it
     * is parsed, and after with the parse's result and error (the bit
     * offset inside the message; a damaged message is then skipped). */
    void (*on_message)(void *user, const zdem_q3_frame *f);
    void (*on_parsed)(void *user, const zdem_q3_frame *f, zdem_status st, const zdem_error *e);
    void *user;
} zdem_q3_push;

void zdem_q3_push_init(zdem_q3_push *s, zdem_q3_parser *parser);
zdem_status zdem_q3_push_feed(zdem_q3_push *s, const uint8_t *data, size_t n,
                              zdem_error *err);
/* End of input: a file without the end marker is ZDEM_ERR_TRUNCATED after
 * every whole message was parsed (as with the whole-file reader). A
 * damaged message is skipped as zdem_q3_parse_file skips it; the first
 * fault (damaged message or framing) is what feed/end return. */
zdem_status zdem_q3_push_end(zdem_q3_push *s, zdem_error *err);

#ifdef __cplusplus
}
#endif

#endif
