/* Snappy raw format: varint32 uncompressed length, then elements whose tag
 * byte's low two bits select
 *   00 literal  (length-1 in the upper 6 bits; 60..63 mean 1..4 LE bytes follow)
 *   01 copy     (length 4..11 in bits 2..4, 11-bit offset: bits 5..7 + 1 byte)
 *   10 copy     (length 1..64 in the upper 6 bits, 16-bit LE offset)
 *   11 copy     (length 1..64 in the upper 6 bits, 32-bit LE offset)
 * A copy repeats `length` bytes starting `offset` bytes back in the output;
 * offset < length means the copy overlaps its own output (a repeated pattern).
 *
 * Speed comes from copying 8 or 16 bytes at once whenever the output has room
 * for the over-write; the slop past the element is rewritten by the next
 * element, and we never write past the preamble length, so the caller's bytes
 * after the output stay untouched. All wide moves go through a small local
 * array: memcpy into it and out again is a plain load/store for compilers and
 * stays defined when source and destination ranges overlap. */
#include "zdem_snappy.h"

#include <string.h>
#include "zdem_varint.h"

static inline void copy8(uint8_t *d, const uint8_t *s)
{
    uint8_t t[8];
    memcpy(t, s, 8);
    memcpy(d, t, 8);
}

static inline void copy16(uint8_t *d, const uint8_t *s)
{
    uint8_t t[16];
    memcpy(t, s, 16);
    memcpy(d, t, 16);
}

/* Smallest multiple of the pattern length that is >= 8, for offsets 1..7:
 * copying from that distance reproduces the same periodic bytes, and is far
 * enough back for non-overlapping 8-byte moves. */
static const uint8_t wide_distance[8] = {0, 8, 8, 9, 8, 10, 12, 14};

/* Copy len (1..64) bytes from off (>= 1, <= bytes already produced) back;
 * room = bytes left before the end of the output, room >= len. */
static inline void copy_match(uint8_t *op, size_t off, size_t len, size_t room)
{
    const uint8_t *from = op - off;
    size_t i;

    if (off >= 16 && room >= ((len + 15u) & ~(size_t)15u)) {
        for (i = 0; i < len; i += 16)
            copy16(op + i, from + i);
        return;
    }
    if (off >= 8) {
        if (room >= ((len + 7u) & ~(size_t)7u)) {
            /* Each 8-byte source lies wholly before its destination. */
            for (i = 0; i < len; i += 8)
                copy8(op + i, from + i);
            return;
        }
    } else if (off == 1) {
        memset(op, op[-1], len); /* run of one byte: common in game data */
        return;
    } else {
        size_t dist = wide_distance[off];
        size_t pre = dist - off;
        if (pre < len && room - pre >= ((len - pre + 7u) & ~(size_t)7u)) {
            /* Grow the pattern byte by byte until it is dist bytes behind,
             * then continue in 8-byte moves from dist back. */
            for (i = 0; i < pre; i++)
                op[i] = from[i];
            for (; i < len; i += 8)
                copy8(op + i, op + i - dist);
            return;
        }
    }
    for (i = 0; i < len; i++) /* near the end of the output */
        op[i] = from[i];
}

static zdem_status read_preamble(const uint8_t *src, size_t n, size_t *ulen,
                                 size_t *used, zdem_error *err)
{
    const uint8_t *p = src;
    uint32_t v = 0;
    zdem_status st;
    if (n == 0)
        return zdem_fail(err, ZDEM_ERR_SNAPPY, 0,
                         "snappy: missing length preamble");
    st = zdem_varuint32(&p, src + n, &v);
    if (st == ZDEM_ERR_TRUNCATED)
        return zdem_fail(err, ZDEM_ERR_SNAPPY, n,
                         "snappy: length preamble truncated");
    if (st != ZDEM_OK)
        return zdem_fail(err, ZDEM_ERR_SNAPPY, 0,
                         "snappy: length preamble exceeds 32 bits");
    *ulen = (size_t)v;
    *used = (size_t)(p - src);
    return ZDEM_OK;
}

zdem_status zdem_snappy_uncompressed_length(const uint8_t *src, size_t n,
                                            size_t *out_len, zdem_error *err)
{
    size_t used;
    return read_preamble(src, n, out_len, &used, err);
}

#define FAST_IN 21u  /* a tag, then 20 bytes: a 16-byte literal move or 4 offset bytes */
#define FAST_OUT 80u /* a 64-byte copy in 16-byte moves, and slack */

#define FAIL(msg) \
    return zdem_fail(err, ZDEM_ERR_SNAPPY, (uint64_t)(tag_p - src), (msg))

zdem_status zdem_snappy_decompress(const uint8_t *src, size_t n, uint8_t *dst,
                                   size_t dst_cap, size_t *out_len,
                                   zdem_error *err)
{
    size_t ulen, used;
    const uint8_t *ip, *ip_end, *ip_fast;
    uint8_t *op, *op_end, *op_fast;
    zdem_status st = read_preamble(src, n, &ulen, &used, err);

    if (st != ZDEM_OK)
        return st;
    if (ulen > dst_cap)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0,
                         "snappy: uncompressed length exceeds buffer");
    if (ulen == 0) {
        /* Every element produces at least one byte, so nothing may follow;
         * handled here so that dst may be NULL. */
        if (used != n)
            return zdem_fail(err, ZDEM_ERR_SNAPPY, used,
                             "snappy: data after empty output");
        *out_len = 0;
        return ZDEM_OK;
    }

    ip = src + used;
    ip_end = src + n;
    op = dst;
    op_end = dst + ulen;
    /* While at least FAST_IN input bytes and FAST_OUT output bytes are
     * left, an element needs no bound check: its tag's extra bytes and a
     * short literal's 16 are there, and any copy (at most 64 bytes,
     * written in 16-byte moves) has room. */
    ip_fast = (size_t)(ip_end - ip) > FAST_IN ? ip_end - FAST_IN : ip;
    op_fast = ulen > FAST_OUT ? op_end - FAST_OUT : dst;

    while (ip < ip_end) {
        const uint8_t *tag_p;
        uint32_t tag;
        size_t len, off;

        while (ip < ip_fast && op < op_fast) {
            tag = *ip;
            if ((tag & 3u) == 0) {
                len = (size_t)(tag >> 2) + 1u;
                if (len > 16u)
                    break; /* a longer literal: the checked way */
                copy16(op, ip + 1);
                ip += 1u + len;
                op += len;
                continue;
            }
            if ((tag & 3u) == 1u) {
                len = 4u + ((tag >> 2) & 7u);
                off = ((size_t)(tag >> 5) << 8) | ip[1];
                tag_p = ip;
                ip += 2;
            } else if ((tag & 3u) == 2u) {
                len = (size_t)(tag >> 2) + 1u;
                off = (size_t)ip[1] | ((size_t)ip[2] << 8);
                tag_p = ip;
                ip += 3;
            } else {
                len = (size_t)(tag >> 2) + 1u;
                off = (size_t)zdem_load_le32(ip + 1);
                tag_p = ip;
                ip += 5;
            }
            if (off == 0 || off > (size_t)(op - dst)) {
                ip = tag_p; /* the checked way reports it */
                break;
            }
            if (off >= 16u) {
                /* every 16-byte source lies wholly before its destination */
                size_t i;
                for (i = 0; i < len; i += 16)
                    copy16(op + i, op - off + i);
            } else {
                copy_match(op, off, len, (size_t)(op_end - op));
            }
            op += len;
        }
        if (ip >= ip_end)
            break;
        tag_p = ip;
        tag = *ip++;

        if ((tag & 3u) == 0) {
            size_t in_left = (size_t)(ip_end - ip);
            size_t out_left = (size_t)(op_end - op);
            len = (size_t)(tag >> 2) + 1u;
            if (len <= 16u && in_left >= 16u && out_left >= 16u) {
                copy16(op, ip); /* short literal, room to over-copy */
            } else {
                if (len > 60u) {
                    /* Length-1 in 1..4 little-endian bytes; compare
                     * length-1 so that 0xFFFFFFFF + 1 cannot wrap. */
                    size_t extra = len - 60u, i;
                    uint32_t lm1 = 0;
                    if (in_left < extra)
                        FAIL("snappy: literal length truncated");
                    for (i = 0; i < extra; i++)
                        lm1 |= (uint32_t)ip[i] << (8u * i);
                    ip += extra;
                    in_left -= extra;
                    if ((size_t)lm1 >= in_left)
                        FAIL("snappy: literal runs past end of input");
                    if ((size_t)lm1 >= out_left)
                        FAIL("snappy: literal overflows output");
                    len = (size_t)lm1 + 1u;
                } else {
                    if (len > in_left)
                        FAIL("snappy: literal runs past end of input");
                    if (len > out_left)
                        FAIL("snappy: literal overflows output");
                }
                memcpy(op, ip, len);
            }
            ip += len;
            op += len;
            continue;
        }

        switch (tag & 3u) {
        case 1u:
            if (ip_end - ip < 1)
                FAIL("snappy: copy tag truncated");
            len = 4u + ((tag >> 2) & 7u);
            off = ((size_t)(tag >> 5) << 8) | ip[0];
            ip += 1;
            break;
        case 2u:
            if (ip_end - ip < 2)
                FAIL("snappy: copy tag truncated");
            len = (size_t)(tag >> 2) + 1u;
            off = (size_t)ip[0] | ((size_t)ip[1] << 8);
            ip += 2;
            break;
        default:
            if (ip_end - ip < 4)
                FAIL("snappy: copy tag truncated");
            len = (size_t)(tag >> 2) + 1u;
            off = (size_t)zdem_load_le32(ip);
            ip += 4;
            break;
        }
        if (off == 0 || off > (size_t)(op - dst))
            FAIL("snappy: copy offset out of range");
        if (len > (size_t)(op_end - op))
            FAIL("snappy: copy overflows output");
        copy_match(op, off, len, (size_t)(op_end - op));
        op += len;
    }

    if (op != op_end)
        return zdem_fail(err, ZDEM_ERR_SNAPPY, n,
                         "snappy: output shorter than length preamble");
    *out_len = ulen;
    return ZDEM_OK;
}
