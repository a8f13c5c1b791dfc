#include "teeworlds_huffman.h"

#include <string.h>

#include "teeworlds_hufftab.h"
#include "zdem_varint.h"

#define LUT_MASK ((1u << ZDEM_TW_HUFF_LUT_BITS) - 1u)

static zdem_status bad_code(zdem_error *err, size_t bitpos)
{
    return zdem_fail(err, ZDEM_ERR_HUFFMAN, bitpos / 8u,
                     "huffman: code runs past the end (no EOF symbol)");
}

/* The second-level entry of a first-level entry e with bit 15 set. */
#define SUB_ENTRY(e, bits)                                                              \
    zdem_tw_huff_sub[((e) & 0xFFFu) + ((unsigned)((bits) >> ZDEM_TW_HUFF_LUT_BITS) &     \
                                       ((1u << (((e) >> 12) & 7u)) - 1u))]

zdem_status zdem_tw_huff_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                           size_t *out_len, zdem_error *err)
{
    const uint8_t *p = src, *end = src + n;
    uint64_t bits = 0;
    unsigned nb = 0; /* valid bits in `bits` */
    size_t o = 0;
    *out_len = 0;
    for (;;) {
        unsigned sym, len;
        /* Refill so that a whole code (<= 15 bits) is buffered whenever the
         * input has it; the wide load skips per-byte checks mid-stream. */
        if (nb < 32u) {
            if ((size_t)(end - p) >= 8u) {
                bits |= zdem_load_le64(p) << nb;
                p += (63u - nb) >> 3;
                nb |= 56u;
            } else {
                while (nb <= 56u && p < end) {
                    bits |= (uint64_t)*p++ << nb;
                    nb += 8u;
                }
            }
        }
        /* Fast round: a longest code is buffered before every symbol, and
         * the output has room for one symbol per buffered bit (each code
         * takes at least one) and 8 bytes more, so no check per symbol but
         * EOF. */
        if (nb >= ZDEM_TW_HUFF_MAX_CODE_LEN &&
            cap - o > (size_t)(nb - ZDEM_TW_HUFF_MAX_CODE_LEN) + 8u) {
            do {
                unsigned e;
#ifdef ZDEM_TW_HUFF_ZERO_BIT
                if ((bits & 1u) == ZDEM_TW_HUFF_ZERO_BIT) {
                    /* the zero byte's one-bit code: the run of it in the
                     * next 8 bits at once, 8 zero bytes written (room
                     * for them is in the round's condition) */
                    unsigned r = zdem_tw_huff_zero_run[bits & 0xFFu];
                    memset(dst + o, 0, 8u);
                    o += r;
                    bits >>= r;
                    nb -= r;
                    continue;
                }
#endif
                e = zdem_tw_huff_lut[bits & LUT_MASK];
                len = e >> 8;
                if (e & 0x8000u) {
                    e = SUB_ENTRY(e, bits);
                    if ((e & 0x1FFu) == ZDEM_TW_HUFF_EOF) {
                        *out_len = o;
                        return ZDEM_OK;
                    }
                    len = e >> 9;
                }
                bits >>= len;
                nb -= len;
                dst[o++] = (uint8_t)e;
            } while (nb >= ZDEM_TW_HUFF_MAX_CODE_LEN);
            continue;
        }
        /* Near the end of the input or of the output: every symbol checked
         * (rounds end where fast ones do, so error offsets do not depend on
         * which kind ran). */
        do {
            sym = zdem_tw_huff_lut[bits & LUT_MASK];
            if (sym & 0x8000u) {
                sym = SUB_ENTRY(sym, bits);
                len = sym >> 9;
                sym &= 0x1FFu;
            } else {
                len = sym >> 8;
                sym &= 0xFFu;
            }
            if (len > nb)
                return bad_code(err, (size_t)(p - src) * 8u - nb);
            bits >>= len;
            nb -= len;
            if (sym == ZDEM_TW_HUFF_EOF) {
                *out_len = o;
                return ZDEM_OK;
            }
            if (o >= cap)
                return zdem_fail(err, ZDEM_ERR_NO_SPACE, (size_t)(p - src),
                                 "huffman: output larger than the buffer");
            dst[o++] = (uint8_t)sym;
        } while (nb >= ZDEM_TW_HUFF_MAX_CODE_LEN);
    }
}

zdem_status zdem_tw_huff_decode_bitwise(const uint8_t *src, size_t n, uint8_t *dst,
                                   size_t cap, size_t *out_len, zdem_error *err)
{
    size_t bit = 0, nbits = n * 8u, o = 0, start = 0;
    unsigned node = ZDEM_TW_HUFF_ROOT;
    *out_len = 0;
    for (;;) {
        if (node < ZDEM_TW_HUFF_NSYM) {
            if (node == ZDEM_TW_HUFF_EOF)
                break;
            if (o >= cap)
                return zdem_fail(err, ZDEM_ERR_NO_SPACE, bit / 8u,
                                 "huffman: output larger than the buffer");
            dst[o++] = (uint8_t)node;
            node = ZDEM_TW_HUFF_ROOT;
            start = bit;
        }
        if (bit >= nbits)
            return bad_code(err, start);
        node = zdem_tw_huff_child[node - ZDEM_TW_HUFF_NSYM][(src[bit >> 3] >> (bit & 7u)) & 1u];
        bit++;
    }
    *out_len = o;
    return ZDEM_OK;
}

zdem_status zdem_tw_huff_encode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                           size_t *out_len)
{
    uint64_t bits = 0;
    unsigned nb = 0;
    size_t i, o = 0;
    *out_len = 0;
    for (i = 0; i <= n; i++) {
        unsigned sym = i < n ? src[i] : ZDEM_TW_HUFF_EOF;
        bits |= (uint64_t)zdem_tw_huff_code[sym] << nb;
        nb += zdem_tw_huff_len[sym];
        while (nb >= 8u) {
            if (o >= cap)
                return ZDEM_ERR_NO_SPACE;
            dst[o++] = (uint8_t)bits;
            bits >>= 8;
            nb -= 8u;
        }
    }
    /* The reference always flushes one more byte, even an empty one. */
    if (o >= cap)
        return ZDEM_ERR_NO_SPACE;
    dst[o++] = (uint8_t)bits;
    *out_len = o;
    return ZDEM_OK;
}

zdem_status zdem_tw_int_read(const uint8_t **pp, const uint8_t *end, int32_t *out)
{
    const uint8_t *p = *pp;
    uint32_t b, v, sign;
    if (p >= end)
        return ZDEM_ERR_TRUNCATED;
    b = *p;
    sign = (b >> 6) & 1u;
    v = b & 0x3Fu;
    if (b & 0x80u) {
        /* Continuation bytes: 7 bits each, at most 5 bytes in total; the
         * fifth byte's surplus bits fall off the top as in the reference. */
        unsigned shift = 6;
        int k;
        for (k = 0; k < 4; k++) {
            if (++p >= end)
                return ZDEM_ERR_TRUNCATED;
            b = *p;
            v |= (b & 0x7Fu) << shift;
            shift += 7;
            if (!(b & 0x80u))
                break;
        }
    }
    *pp = p + 1;
    *out = (int32_t)(v ^ (0u - sign));
    return ZDEM_OK;
}

/* The int of a one-byte int (continuation bit clear): 6 bits and a sign
 * that flips them all (the game's packing). */
#define ONE_BYTE_INT(b) ((int32_t)(((uint32_t)(b) & 0x3Fu) ^ (0u - (((uint32_t)(b) >> 6) & 1u))))
#define ONE_BYTE_INTS4(b) ONE_BYTE_INT(b), ONE_BYTE_INT((b) + 1), ONE_BYTE_INT((b) + 2), ONE_BYTE_INT((b) + 3)
#define ONE_BYTE_INTS16(b) ONE_BYTE_INTS4(b), ONE_BYTE_INTS4((b) + 4), ONE_BYTE_INTS4((b) + 8), ONE_BYTE_INTS4((b) + 12)
static const int32_t one_byte_int[128] = {
    ONE_BYTE_INTS16(0), ONE_BYTE_INTS16(16), ONE_BYTE_INTS16(32), ONE_BYTE_INTS16(48),
    ONE_BYTE_INTS16(64), ONE_BYTE_INTS16(80), ONE_BYTE_INTS16(96), ONE_BYTE_INTS16(112)};

zdem_status zdem_tw_ints_unpack(const uint8_t *src, size_t n, int32_t *dst, size_t cap,
                           size_t *count, zdem_error *err)
{
    const uint8_t *p = src, *end = src + n;
    size_t k = 0;
    *count = 0;
    /* Fast part: while a longest int (5 bytes) is inside the data nothing
     * is checked per byte; and an int takes at least one byte, so before
     * byte `cap` there is room for it (k <= p - src < cap). */
    if (n >= 5u) {
        const uint8_t *stop = end - 4u; /* an int starting before it is whole */
        if (cap < (size_t)(stop - src))
            stop = src + cap;
        while (p < stop) {
            uint32_t b, v, sign;
            if ((size_t)(stop - p) >= 8u && !(p[0] & 0x80u)) {
                /* (a longer int first is read below at once) eight
                 * bytes without a continuation bit are eight
                 * one-byte ints (most of a delta: small changes and
                 * zeros), eight zeros the commonest; else the one-byte
                 * ints before the first longer one, then that one below */
                uint64_t w = zdem_load_le64(p), hb = w & 0x8080808080808080ull;
                unsigned j, clean;
                if (!hb) {
                    if (w == 0) {
                        memset(dst + k, 0, 8u * sizeof *dst);
                    } else {
                        for (j = 0; j < 8u; j++)
                            dst[k + j] = one_byte_int[(uint32_t)(w >> (8u * j)) & 0x7Fu];
                    }
                    k += 8u;
                    p += 8u;
                    continue;
                }
                /* the first byte with a continuation bit: its lowest set
                 * bit is 1 << (8 clean + 7), which the multiply turns into
                 * `clean` in the top byte (byte 7 - i of the constant is i) */
                clean = (unsigned)((((hb & ((uint64_t)0 - hb)) >> 7) * 0x0001020304050607ull) >> 56);
                for (j = 0; j < clean; j++)
                    dst[k + j] = one_byte_int[(uint32_t)(w >> (8u * j)) & 0x7Fu];
                k += clean;
                p += clean;
            }
            b = p[0];
            v = b & 0x3Fu;
            sign = (b >> 6) & 1u;
            if (b & 0x80u) {
                /* 7 bits per continuation byte, at most 5 bytes; the fifth
                 * byte's surplus bits fall off the top as in the reference */
                b = p[1];
                v |= (b & 0x7Fu) << 6;
                if (b & 0x80u) {
                    b = p[2];
                    v |= (b & 0x7Fu) << 13;
                    if (b & 0x80u) {
                        b = p[3];
                        v |= (b & 0x7Fu) << 20;
                        if (b & 0x80u) {
                            v |= ((uint32_t)p[4] & 0x7Fu) << 27;
                            p++;
                        }
                        p++;
                    }
                    p++;
                }
                p++;
            }
            p++;
            dst[k++] = (int32_t)(v ^ (0u - sign));
        }
    }
    while (p < end) {
        if (k >= cap)
            return zdem_fail(err, ZDEM_ERR_NO_SPACE, (size_t)(p - src),
                             "int unpack: more ints than the buffer holds");
        if (zdem_tw_int_read(&p, end, &dst[k]) != ZDEM_OK)
            return zdem_fail(err, ZDEM_ERR_TRUNCATED, (size_t)(p - src),
                             "int unpack: int cut by the end of the data");
        k++;
    }
    *count = k;
    return ZDEM_OK;
}

zdem_status zdem_tw_ints_pack(const int32_t *src, size_t count, uint8_t *dst, size_t cap,
                         size_t *out_len)
{
    size_t i, o = 0;
    *out_len = 0;
    for (i = 0; i < count; i++) {
        uint32_t v = (uint32_t)src[i];
        uint32_t sign = v >> 31;
        v ^= 0u - sign; /* store ~x for negatives */
        if (o >= cap)
            return ZDEM_ERR_NO_SPACE;
        dst[o] = (uint8_t)((sign << 6) | (v & 0x3Fu));
        v >>= 6;
        while (v) {
            dst[o++] |= 0x80u;
            if (o >= cap)
                return ZDEM_ERR_NO_SPACE;
            dst[o] = (uint8_t)(v & 0x7Fu);
            v >>= 7;
        }
        o++;
    }
    *out_len = o;
    return ZDEM_OK;
}
