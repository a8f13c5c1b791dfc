/* Teeworlds push input on arbitrary bytes, fed in pieces whose size comes
 * from the input: header, streamed map, chunk framing across pieces. */
#include <stdlib.h>
#include "teeworlds_push.h"

static uint8_t buf[TW_PUSH_BUFFER];
static tw_reader *r;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zdem_error err;
    tw_push s;
    zdem_status st = ZDEM_OK;
    size_t pos = 0, piece = size ? 1 + data[size - 1] % 131 : 1;
    if (!r)
        r = malloc(sizeof *r);
    zdem_error_clear(&err);
    tw_push_init(&s, r, buf, sizeof buf);
    while (pos < size && st == ZDEM_OK) {
        size_t k = size - pos < piece ? size - pos : piece;
        st = tw_push_feed(&s, data + pos, k, &err);
        pos += k;
    }
    if (st == ZDEM_OK)
        tw_push_end(&s, &err);
    return 0;
}
