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

#define MAX_OUT (1u << 20) /* larger preambles test the NO_SPACE path */

static int ref_decompress(const uint8_t *s, size_t n, uint8_t *dst, size_t ulen,
                          size_t start)
{
    size_t i = start, o = 0;
    while (i < n) {
        uint8_t tag = s[i++];
        uint64_t len, off = 0;
        unsigned k;
        if ((tag & 3) == 0) {
            len = (uint64_t)(tag >> 2) + 1;
            if (len > 60) {
                unsigned extra = (unsigned)(len - 60);
                if (n - i < extra)
                    return -1;
                len = 0;
                for (k = 0; k < extra; k++)
                    len |= (uint64_t)s[i + k] << (8 * k);
                len += 1;
                i += extra;
            }
            if (len > n - i || len > ulen - o)
                return -1;
            memcpy(dst + o, s + i, (size_t)len);
            o += (size_t)len;
            i += (size_t)len;
            continue;
        }
        if ((tag & 3) == 1) {
            if (n - i < 1)
                return -1;
            len = 4 + ((tag >> 2) & 7);
            off = ((uint64_t)(tag >> 5) << 8) | s[i];
            i += 1;
        } else {
            unsigned nb = (tag & 3) == 2 ? 2 : 4;
            if (n - i < nb)
                return -1;
            len = (uint64_t)(tag >> 2) + 1;
            for (k = 0; k < nb; k++)
                off |= (uint64_t)s[i + k] << (8 * k);
            i += nb;
        }
        if (off == 0 || off > o || len > ulen - o)
            return -1;
        for (k = 0; k < len; k++, o++)
            dst[o] = dst[o - off];
    }
    return o == ulen ? 0 : -1;
}

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
        int rs = ref_decompress(data, size, ref, ulen, pre);
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
