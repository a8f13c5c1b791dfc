/* Quake III push input on arbitrary bytes, fed in pieces whose size comes
 * from the input: framing across piece boundaries, gathering into the
 * parser's message buffer, end-of-input states, then every whole message
 * through a parser set up as the CLI's (fuzz_quake3_cli.h), at the
 * default or (first byte >= 128) the small limits. */
#include "fuzz_quake3_cli.h"
#include "quake3_push.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zdem_error err;
    /* the first byte's top bit: the microcontroller limits */
    zdem_q3_parser *p = fuzz_q3_parser_limits(0, size > 0 && (data[0] & 0x80));
    zdem_q3_push s;
    zdem_status st = ZDEM_OK;
    size_t pos = 0, piece = size ? 1 + data[0] % 97 : 1;
    if (!p)
        return 0;
    zdem_error_clear(&err);
    zdem_q3_push_init(&s, p);
    while (pos < size && st == ZDEM_OK) {
        size_t k = size - pos < piece ? size - pos : piece;
        st = zdem_q3_push_feed(&s, data + pos, k, &err);
        pos += k;
    }
    if (st == ZDEM_OK)
        zdem_q3_push_end(&s, &err);
    return 0;
}
