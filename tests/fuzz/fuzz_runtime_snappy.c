/* libFuzzer target: Snappy decompressor. The input is a raw Snappy stream.
 * Besides sanitizer findings, it aborts when our result differs from a
 * naive byte-at-a-time reference decoder (success, length, bytes), when an
 * error offset lies outside the input, or when dst capacity is not honoured.
 * The output buffer is malloc'd at exactly the capacity so ASan sees any
 * write past it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zdem_snappy.h"
#include "../snappy_ref.h"

#define MAX_OUT (1u << 20) /* larger preambles test the NO_SPACE path */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t ulen = 0, cap, out = 0, pre = 0;
    uint8_t *dst, *ref;
    zdem_error e;
    zdem_status st;

    zdem_error_clear(&e);
    if (zdem_snappy_uncompressed_length(data, size, &ulen, &e) != ZDEM_OK) {
        if (e.code != ZDEM_ERR_SNAPPY || e.offset > size)
            abort();
        zdem_error_clear(&e);
        if (zdem_snappy_decompress(data, size, NULL, 0, &out, &e) == ZDEM_OK)
            abort();
        return 0;
    }
    while (pre < size && (data[pre] & 0x80)) /* preamble length */
        pre++;
    pre++;

    cap = ulen <= MAX_OUT ? ulen : MAX_OUT;
    dst = malloc(cap ? cap : 1);
    ref = malloc(cap ? cap : 1);
    zdem_error_clear(&e);
    st = zdem_snappy_decompress(data, size, dst, cap, &out, &e);
    if (ulen > cap) {
        if (st != ZDEM_ERR_NO_SPACE || e.code != ZDEM_ERR_NO_SPACE)
            abort();
    } else {
        int rs = snappy_ref_tags(data, size, pre, ref, ulen);
        if ((rs == 0) != (st == ZDEM_OK))
            abort();
        if (st == ZDEM_OK && (out != ulen || memcmp(dst, ref, ulen) != 0))
            abort();
        if (st != ZDEM_OK &&
            (e.code != st || st != ZDEM_ERR_SNAPPY || e.offset > size || !e.msg))
            abort();
    }
    free(dst);
    free(ref);
    return 0;
}
