/* Source 2 container + inner messages + typed dispatch on arbitrary bytes:
 * the whole-file parse (ordered inner messages, a typed handler for every
 * message the entity layer needs), the FileInfo lookup, and the push input
 * fed in pieces whose sizes come from the input itself. */
#include <stdlib.h>
#include <string.h>

#include "source2_parse.h"
#include "source2_push.h"

static uint8_t scratch[32u << 20]; /* zdem dump: 2 x --max-frame 16 */
static uint8_t gather[1 << 16];

static zdem_status on_inner(void *u, zdem_s2_game g, const zdem_s2_outer *m,
                            const zdem_s2_inner *in)
{
    (void)u, (void)g, (void)m;
    /* touch every byte: ASan checks the view is in bounds */
    volatile uint8_t x = 0;
    uint32_t i;
    for (i = 0; i < in->size; i++)
        x ^= in->data[i];
    (void)x;
    return ZDEM_OK;
}

static zdem_status on_tick(void *u, const zdem_pb_CNETMsg_Tick *m, zdem_view raw)
{
    (void)u, (void)m, (void)raw;
    return ZDEM_OK;
}

static zdem_status on_header(void *u, const zdem_pb_CDemoFileHeader *m, zdem_view raw)
{
    (void)u, (void)raw;
    if (m->has_map_name && m->map_name.len) {
        volatile uint8_t x = m->map_name.ptr[m->map_name.len - 1];
        (void)x;
    }
    return ZDEM_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zdem_s2_demo_handlers dh;
    zdem_s2_inner_handlers ih;
    zdem_s2_parse_cbs cbs;
    zdem_s2_header hdr;
    zdem_error err;
    const uint8_t *p;
    size_t n, pos = 0, piece;
    zdem_s2_parser ps;
    zdem_status st = ZDEM_OK;

    memset(&dh, 0, sizeof dh);
    memset(&ih, 0, sizeof ih);
    memset(&cbs, 0, sizeof cbs);
    dh.on_CDemoFileHeader = on_header;
    ih.on_CNETMsg_Tick = on_tick;
    cbs.on_inner = on_inner;
    cbs.demo = &dh;
    cbs.inner = &ih;
    cbs.ordered = size & 1;

    zdem_error_clear(&err);
    zdem_s2_parse(data, size, &cbs, NULL, scratch, sizeof scratch, &err);
    zdem_error_clear(&err);
    if (zdem_s2_read_header(data, size, &hdr, &err) == ZDEM_OK)
        zdem_s2_read_fileinfo(data, size, &hdr, scratch, sizeof scratch, &p, &n, &err);

    piece = size ? 1 + data[size - 1] % 61 : 1;
    zdem_error_clear(&err);
    zdem_s2_parser_init(&ps, &cbs, NULL, scratch, sizeof scratch, gather, sizeof gather);
    while (pos < size && st == ZDEM_OK) {
        size_t k = size - pos < piece ? size - pos : piece;
        st = zdem_s2_parser_feed(&ps, data + pos, k, &err);
        pos += k;
    }
    if (st == ZDEM_OK)
        zdem_s2_parser_end(&ps, &err);
    return 0;
}
