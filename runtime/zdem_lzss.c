/* Valve LZSS decompressor; the format and the validity rules are in
 * zdem_lzss.h. Positions are indices, not pointers, so that an empty output
 * with dst == NULL never forms a pointer from NULL.
 *
 * Every element consumes at least one input byte and produces at most 16
 * output bytes, so the loop is linear in n. Speed: a command byte of 0 (eight
 * literals) is one 8-byte copy when input and output have room for it, and a
 * back-reference whose source ends before its destination starts is one
 * memcpy; only overlapping references (repeated patterns) go byte by byte. */
#include "zdem_lzss.h"

#include <string.h>

static const uint8_t lzss_magic[4] = {'L', 'Z', 'S', 'S'};

int zdem_lzss_has_magic(const uint8_t *src, size_t n)
{
    return n >= 4 && memcmp(src, lzss_magic, 4) == 0;
}

static zdem_status read_header(const uint8_t *src, size_t n, size_t *ulen,
                               zdem_error *err)
{
    /* A prefix of the magic is a truncated header, anything else is not
     * LZSS at all. */
    if (memcmp(src, lzss_magic, n < 4 ? n : 4) != 0)
        return zdem_fail(err, ZDEM_ERR_BAD_MAGIC, 0, "lzss: no LZSS id");
    if (n < ZDEM_LZSS_HEADER_SIZE)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, n, "lzss: header truncated");
    *ulen = (size_t)((uint32_t)src[4] | (uint32_t)src[5] << 8 |
                     (uint32_t)src[6] << 16 | (uint32_t)src[7] << 24);
    return ZDEM_OK;
}

zdem_status zdem_lzss_uncompressed_length(const uint8_t *src, size_t n,
                                          size_t *out_len, zdem_error *err)
{
    if (n == 0) /* memcmp with a NULL src is undefined even for 0 bytes */
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, 0, "lzss: header truncated");
    return read_header(src, n, out_len, err);
}

zdem_status zdem_lzss_decompress(const uint8_t *src, size_t n, uint8_t *dst,
                                 size_t dst_cap, size_t *out_len,
                                 zdem_error *err)
{
    size_t ulen = 0, ip = ZDEM_LZSS_HEADER_SIZE, op = 0;
    unsigned cmd = 0, left = 0;
    zdem_status st = zdem_lzss_uncompressed_length(src, n, &ulen, err);

    if (st != ZDEM_OK)
        return st;
    if (ulen > dst_cap)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 4,
                         "lzss: uncompressed size exceeds buffer");

    for (;;) {
        size_t e;
        if (left == 0) {
            if (ip >= n)
                return zdem_fail(err, ZDEM_ERR_TRUNCATED, ip,
                                 "lzss: input ends before the end marker");
            cmd = src[ip++];
            left = 8;
            if (cmd == 0 && n - ip >= 8 && ulen - op >= 8) {
                memcpy(dst + op, src + ip, 8);
                ip += 8;
                op += 8;
                left = 0;
                continue;
            }
        }
        e = ip; /* start of this element, for error offsets */
        left--;
        if (cmd & 1u) {
            size_t dist, count;
            if (n - ip < 2)
                return zdem_fail(err, ZDEM_ERR_TRUNCATED, e,
                                 "lzss: back-reference truncated");
            dist = ((size_t)src[ip] << 4 | (size_t)(src[ip + 1] >> 4)) + 1u;
            count = (size_t)(src[ip + 1] & 15u) + 1u;
            ip += 2;
            if (count == 1) {
                if (op != ulen)
                    return zdem_fail(err, ZDEM_ERR_CORRUPT, e,
                                     "lzss: output shorter than header size");
                if (ip != n)
                    return zdem_fail(err, ZDEM_ERR_CORRUPT, ip,
                                     "lzss: data after the end marker");
                *out_len = ulen;
                return ZDEM_OK;
            }
            if (dist > op)
                return zdem_fail(err, ZDEM_ERR_CORRUPT, e,
                                 "lzss: back-reference before start of output");
            if (count > ulen - op)
                return zdem_fail(err, ZDEM_ERR_CORRUPT, e,
                                 "lzss: output exceeds header size");
            if (dist >= count) {
                memcpy(dst + op, dst + op - dist, count);
            } else if (dist == 1) {
                memset(dst + op, dst[op - 1], count);
            } else {
                size_t i;
                for (i = 0; i < count; i++)
                    dst[op + i] = dst[op - dist + i];
            }
            op += count;
        } else {
            if (ip >= n)
                return zdem_fail(err, ZDEM_ERR_TRUNCATED, e,
                                 "lzss: literal truncated");
            if (op >= ulen)
                return zdem_fail(err, ZDEM_ERR_CORRUPT, e,
                                 "lzss: output exceeds header size");
            dst[op++] = src[ip++];
        }
        cmd >>= 1;
    }
}
