/* Source 2 container + inner messages + typed dispatch on arbitrary bytes,
 * configured as zdem dump runs it: an even-sized input as a whole file
 * (inner messages in priority order), an odd-sized one through the push
 * input in pieces whose sizes come from the input itself (in stream
 * order); then the FileInfo lookup through the header offset. */
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
    /* a view is contiguous: its first and last bytes in bounds (ASan
     * checks them) means all of it is */
    if (in->size) {
        volatile uint8_t x = (uint8_t)(in->data[0] ^ in->data[in->size - 1]);
        (void)x;
    }
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
    cbs.ordered = !(size & 1);

    zdem_error_clear(&err);
    if (!(size & 1)) {
        zdem_s2_parse(data, size, &cbs, NULL, scratch, sizeof scratch, &err);
    } else {
        /* pieces of 64..4096 bytes (byte-at-a-time feeding is in the test
         * suite: here it would make every input slow) */
        piece = 64u + (size * 40503u) % 4033u;
        zdem_s2_parser_init(&ps, &cbs, NULL, scratch, sizeof scratch, gather, sizeof gather);
        while (pos < size && st == ZDEM_OK) {
            size_t k = size - pos < piece ? size - pos : piece;
            st = zdem_s2_parser_feed(&ps, data + pos, k, &err);
            pos += k;
        }
        if (st == ZDEM_OK)
            zdem_s2_parser_end(&ps, &err);
    }
    zdem_error_clear(&err);
    if (zdem_s2_read_header(data, size, &hdr, &err) == ZDEM_OK)
        zdem_s2_read_fileinfo(data, size, &hdr, scratch, sizeof scratch, &p, &n, &err);
    return 0;
}
