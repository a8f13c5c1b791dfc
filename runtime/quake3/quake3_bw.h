/* Quake III message bit writer: MSG_WriteBits semantics, the inverse of
 * quake3_msg.h. A write of n bits puts the low n % 8 bits raw (LSB first),
 * then n / 8 bytes in the static Huffman code (zdem_q3_huff_encode);
 * single bits (flags) are always raw. Before 1.29 (dm3, dm_48) every
 * value is plain bits (`raw`). Bits gather in a 64-bit accumulator and
 * leave as whole bytes; a write past the buffer sets `over` and stores
 * nothing more (the caller checks once per message). */
#ifndef ZDEM_QUAKE3_BW_H
#define ZDEM_QUAKE3_BW_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "quake3_tables.h"

typedef struct zdem_q3_bw {
    uint8_t *data;
    size_t cap;      /* bytes */
    size_t pos;      /* whole bytes stored */
    uint64_t acc;    /* bits not yet stored, first in bit 0 */
    unsigned nacc;   /* how many (< 8 between writes) */
    int over;        /* the message did not fit cap */
    int raw;         /* plain bits (Quake III before 1.29) */
} zdem_q3_bw;

static inline void zdem_q3_bw_init(zdem_q3_bw *w, uint8_t *data, size_t cap)
{
    w->data = data;
    w->cap = cap;
    w->pos = 0;
    w->acc = 0;
    w->nacc = 0;
    w->over = 0;
    w->raw = 0;
}

/* Bits written so far. */
static inline size_t zdem_q3_bw_bits(const zdem_q3_bw *w)
{
    return w->pos * 8u + w->nacc;
}

/* n (0..32) plain bits of v, first bit first. */
static inline void zdem_q3_bw_put(zdem_q3_bw *w, uint32_t v, unsigned n)
{
    if (n < 32u)
        v &= (1u << n) - 1u;
    w->acc |= (uint64_t)v << w->nacc;
    w->nacc += n;
    while (w->nacc >= 8u) {
        if (w->pos < w->cap)
            w->data[w->pos] = (uint8_t)w->acc;
        else
            w->over = 1;
        w->pos++;
        w->acc >>= 8;
        w->nacc -= 8u;
    }
}

static inline void zdem_q3_bw_bit(zdem_q3_bw *w, unsigned b)
{
    zdem_q3_bw_put(w, b & 1u, 1);
}

/* One byte in the Huffman code. */
static inline void zdem_q3_bw_hbyte(zdem_q3_bw *w, unsigned c)
{
    unsigned e = zdem_q3_huff_encode[c & 0xFFu];
    zdem_q3_bw_put(w, e & 0x7FFu, e >> 11);
}

/* MSG_WriteBits(v, n), n in 1..32, Huffman-coded (1.29 on). */
static inline void zdem_q3_bw_hbits(zdem_q3_bw *w, uint32_t v, unsigned n)
{
    unsigned raw = n & 7u, i;
    zdem_q3_bw_put(w, v, raw);
    v = raw ? v >> raw : v;
    for (i = raw; i < n; i += 8u) {
        zdem_q3_bw_hbyte(w, v & 0xFFu);
        v >>= 8;
    }
}

/* Either coding, as the message is written. */
static inline void zdem_q3_bw_bits_n(zdem_q3_bw *w, uint32_t v, unsigned n)
{
    if (w->raw)
        zdem_q3_bw_put(w, v, n);
    else
        zdem_q3_bw_hbits(w, v, n);
}

static inline void zdem_q3_bw_byte(zdem_q3_bw *w, unsigned c)
{
    zdem_q3_bw_bits_n(w, c & 0xFFu, 8);
}

/* Bytes in the Huffman code one after another (a gamestate's
 * configstrings): zdem_q3_bw_hbyte on each, stored four bytes at a time
 * (a code is at most 11 bits: the accumulator holds 32 + 11). */
static inline void zdem_q3_bw_hbytes(zdem_q3_bw *w, const uint8_t *s, size_t n)
{
    uint64_t acc = w->acc;
    unsigned nacc = w->nacc, k;
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned e = zdem_q3_huff_encode[s[i]];
        acc |= (uint64_t)(e & 0x7FFu) << nacc;
        nacc += e >> 11;
        if (nacc >= 32u) {
            if (w->pos < w->cap && w->cap - w->pos >= 4u) {
                w->data[w->pos] = (uint8_t)acc;
                w->data[w->pos + 1] = (uint8_t)(acc >> 8);
                w->data[w->pos + 2] = (uint8_t)(acc >> 16);
                w->data[w->pos + 3] = (uint8_t)(acc >> 24);
            } else {
                for (k = 0; k < 4u; k++) {
                    if (w->pos + k < w->cap)
                        w->data[w->pos + k] = (uint8_t)(acc >> (8u * k));
                    else
                        w->over = 1;
                }
            }
            w->pos += 4;
            acc >>= 32;
            nacc -= 32u;
        }
    }
    w->acc = acc;
    w->nacc = nacc;
    while (w->nacc >= 8u) {
        if (w->pos < w->cap)
            w->data[w->pos] = (uint8_t)w->acc;
        else
            w->over = 1;
        w->pos++;
        w->acc >>= 8;
        w->nacc -= 8u;
    }
}

static inline void zdem_q3_bw_long(zdem_q3_bw *w, int32_t v)
{
    zdem_q3_bw_bits_n(w, (uint32_t)v, 32);
}

/* Pad to a byte boundary with zero bits (the legacy layout starts each
 * command on one; a message ends on one). */
static inline void zdem_q3_bw_align(zdem_q3_bw *w)
{
    if (w->nacc)
        zdem_q3_bw_put(w, 0, 8u - w->nacc);
}

/* Bits [from, to) of src (a message as read: first bit in bit 0 of byte
 * 0), copied as they are: Huffman codes are static, so a span of whole
 * codes reads back the same wherever it lands. */
static inline void zdem_q3_bw_copy(zdem_q3_bw *w, const uint8_t *src, size_t from, size_t to)
{
    while (from < to) {
        size_t byte = from >> 3;
        unsigned sh = (unsigned)(from & 7u), n = to - from > 24u ? 24u : (unsigned)(to - from);
        uint32_t v = src[byte] >> sh;
        if (sh + n > 8u)
            v |= (uint32_t)src[byte + 1] << (8u - sh);
        if (sh + n > 16u)
            v |= (uint32_t)src[byte + 2] << (16u - sh);
        if (sh + n > 24u)
            v |= (uint32_t)src[byte + 3] << (24u - sh);
        zdem_q3_bw_put(w, v, n);
        from += n;
    }
}

/* A float netfield's value (the changed, and for entities the zero, bit
 * written by the caller): a 13-bit integer (biased by 4096) when the bit
 * pattern is exactly that integer's float, else the full 32 bits. The
 * engine sends -0.0 as the integer 0; here it goes whole, so that the
 * reader gets the same bits back (decode(encode(x)) == x). */
static inline int zdem_q3__small_float(int32_t t, uint32_t *v)
{
    float f, g;
    int32_t i;
    uint32_t gb;
    memcpy(&f, &t, sizeof f);
    if (!(f >= -4096.0f && f <= 4095.0f)) /* NaN fails too */
        return 0;
    i = (int32_t)f;
    g = (float)i;
    memcpy(&gb, &g, sizeof gb);
    if (gb != (uint32_t)t)
        return 0;
    *v = (uint32_t)(i + 4096);
    return 1;
}

static inline void zdem_q3_bw_float(zdem_q3_bw *w, int32_t t)
{
    uint32_t v;
    if (zdem_q3__small_float(t, &v)) {
        zdem_q3_bw_bit(w, 0);
        zdem_q3_bw_bits_n(w, v, 13);
    } else {
        zdem_q3_bw_bit(w, 1);
        zdem_q3_bw_bits_n(w, (uint32_t)t, 32);
    }
}

/* One netfield of a generated delta encoder (generated/quake3_encode.c):
 * entity fields carry a changed bit and, when changed, a zero bit before
 * the value; playerstate fields only the changed bit; legacy entity
 * fields (marked by the change mask) only the value. n: the width. */
static inline void zdem_q3_bw_efloat(zdem_q3_bw *w, int32_t f, int32_t t)
{
    if (f == t) {
        zdem_q3_bw_bit(w, 0);
        return;
    }
    zdem_q3_bw_bit(w, 1);
    if (t == 0) {
        zdem_q3_bw_bit(w, 0);
        return;
    }
    zdem_q3_bw_bit(w, 1);
    zdem_q3_bw_float(w, t);
}

static inline void zdem_q3_bw_eint(zdem_q3_bw *w, int32_t f, int32_t t, unsigned n)
{
    if (f == t) {
        zdem_q3_bw_bit(w, 0);
        return;
    }
    zdem_q3_bw_bit(w, 1);
    if (t == 0) {
        zdem_q3_bw_bit(w, 0);
        return;
    }
    zdem_q3_bw_bit(w, 1);
    zdem_q3_bw_bits_n(w, (uint32_t)t, n);
}

static inline void zdem_q3_bw_pfloat(zdem_q3_bw *w, int32_t f, int32_t t)
{
    if (f == t) {
        zdem_q3_bw_bit(w, 0);
        return;
    }
    zdem_q3_bw_bit(w, 1);
    zdem_q3_bw_float(w, t);
}

static inline void zdem_q3_bw_pint(zdem_q3_bw *w, int32_t f, int32_t t, unsigned n)
{
    if (f == t) {
        zdem_q3_bw_bit(w, 0);
        return;
    }
    zdem_q3_bw_bit(w, 1);
    zdem_q3_bw_bits_n(w, (uint32_t)t, n);
}

/* The store of the last partial byte (zero bits after the message's
 * last); returns the message length in bytes. */
static inline size_t zdem_q3_bw_finish(zdem_q3_bw *w)
{
    zdem_q3_bw_align(w);
    return w->pos;
}

#endif
