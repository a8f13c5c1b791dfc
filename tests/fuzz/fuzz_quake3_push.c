/* Quake III push input on arbitrary bytes, fed in pieces whose size comes
 * from the input: framing across piece boundaries, the gathering buffer,
 * end-of-input states, then every whole message through the parser. */
#include <stdlib.h>
#include "quake3_push.h"

static uint8_t buf[ZDEM_Q3_PUSH_BUFFER];
static void *mem;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zdem_error err;
    zdem_q3_parser *p;
    zdem_q3_push s;
    zdem_status st = ZDEM_OK;
    size_t pos = 0, piece = size ? 1 + data[0] % 97 : 1;
    if (!mem)
        mem = malloc(zdem_q3_parser_size());
    zdem_error_clear(&err);
    p = zdem_q3_parser_init(mem, zdem_q3_parser_size(), 68, NULL, NULL, &err);
    if (!p)
        return 0;
    zdem_q3_push_init(&s, p, buf, sizeof buf);
    while (pos < size && st == ZDEM_OK) {
        size_t k = size - pos < piece ? size - pos : piece;
        st = zdem_q3_push_feed(&s, data + pos, k, &err);
        pos += k;
    }
    if (st == ZDEM_OK)
        zdem_q3_push_end(&s, &err);
    return 0;
}
