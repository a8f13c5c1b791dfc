/* Source 2 push input: feed the .dem file in pieces of any size; the
 * 16-byte header is checked, then each whole outer frame goes to
 * zdem_s2_parse_frame. Memory: a gathering buffer as large as the largest
 * frame (header + stored payload) that may be split across pieces, plus
 * the parser's scratch (zdem_s2_scratch_needed: twice the largest
 * decompressed payload). */
#ifndef ZDEM_SOURCE2_PUSH_H
#define ZDEM_SOURCE2_PUSH_H

#include "source2_parse.h"
#include "zdem_push.h"

typedef struct zdem_s2_push {
    zdem_push in;
    zdem_s2_parser *parser;
    zdem_s2_header hdr;
    int have_header;
    uint32_t index;
} zdem_s2_push;

void zdem_s2_push_init(zdem_s2_push *s, zdem_s2_parser *parser, uint8_t *buf,
                       size_t cap);
zdem_status zdem_s2_push_feed(zdem_s2_push *s, const uint8_t *data, size_t n,
                              zdem_error *err);
zdem_status zdem_s2_push_end(zdem_s2_push *s, zdem_error *err);

#endif
