/* Naive byte-at-a-time Snappy tag decoder, straight from the format: the
 * reference our decompressor is checked against by the unit test and the
 * fuzz target. Decodes s[start..n) (after the length preamble) into dst of
 * exactly ulen bytes; 0 on success, -1 on any malformation. */
#ifndef ZDEM_TEST_SNAPPY_REF_H
#define ZDEM_TEST_SNAPPY_REF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline int snappy_ref_tags(const uint8_t *s, size_t n, size_t start, uint8_t *dst,
                                  size_t ulen)
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

#endif
