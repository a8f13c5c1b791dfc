/* LSB-first bit reader (Valve's bitbuf order; also Quake III's raw bits and
 * Teeworlds' Huffman input). Reads of 1..32 bits load one 64-bit word when at
 * least 8 bytes remain, and fall back to byte loads near the end. Reading
 * past the end sets the sticky `overflow` flag and returns zeros: callers
 * check it once per field or message, never per bit. */
#ifndef ZDEM_BITS_H
#define ZDEM_BITS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "zdem_varint.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zdem_bits {
    const uint8_t *data;
    size_t len;      /* bytes */
    size_t pos;      /* bit position */
    size_t end;      /* len * 8 */
    size_t fast_end; /* pos < fast_end: 64 bits left (the readers' fast path) */
    int overflow;    /* sticky: a read went past the end */
} zdem_bits;

static inline void zdem_bits_init(zdem_bits *br, const uint8_t *data, size_t len)
{
    br->data = data;
    br->len = len;
    br->pos = 0;
    br->end = len * 8u;
    br->fast_end = br->end >= 64u ? br->end - 63u : 0u;
    br->overflow = 0;
}

static inline size_t zdem_bits_left(const zdem_bits *br)
{
    return br->pos <= br->end ? br->end - br->pos : 0;
}

/* 64 bits starting at byte `byte`, zero-padded past the end. */
static inline uint64_t zdem_bits__word(const zdem_bits *br, size_t byte)
{
    if (byte + 8u <= br->len)
        return zdem_load_le64(br->data + byte);
    {
        uint64_t w = 0;
        size_t i;
        for (i = 0; byte + i < br->len && i < 8u; i++)
            w |= (uint64_t)br->data[byte + i] << (8u * i);
        return w;
    }
}

/* With at least 64 bits left (pos never passes end), the 64 bits at the
 * read position hold the next 57 or more bits: the readers' fast path,
 * one load and no other bounds test. */
static inline int zdem_bits__fast(const zdem_bits *br)
{
    return br->pos < br->fast_end; /* one compare: fast_end is set once */
}

static inline uint64_t zdem_bits__window(const zdem_bits *br)
{
    return zdem_load_le64(br->data + (br->pos >> 3)) >> (br->pos & 7u);
}

/* Peek n (0..32) bits without consuming; bits past the end read as zero. */
static inline uint32_t zdem_bits_peek(const zdem_bits *br, unsigned n)
{
    uint64_t w;
    if (n == 0)
        return 0;
    w = zdem_bits__fast(br) ? zdem_bits__window(br)
                            : zdem_bits__word(br, br->pos >> 3) >> (br->pos & 7u);
    return (uint32_t)(w & ((n == 32u) ? 0xFFFFFFFFull : ((1ull << n) - 1u)));
}

static inline void zdem_bits_skip(zdem_bits *br, size_t n)
{
    if (n > zdem_bits_left(br)) {
        br->overflow = 1;
        br->pos = br->end;
        return;
    }
    br->pos += n;
}

/* Read n (0..32) bits. */
static inline uint32_t zdem_bits_read(zdem_bits *br, unsigned n)
{
    uint32_t v;
    if (zdem_bits__fast(br)) {
        v = (uint32_t)(zdem_bits__window(br) & ((n == 32u) ? 0xFFFFFFFFull : ((1ull << n) - 1u)));
        br->pos += n;
        return v;
    }
    if (n > zdem_bits_left(br)) {
        br->overflow = 1;
        br->pos = br->end;
        return 0;
    }
    v = zdem_bits_peek(br, n);
    br->pos += n;
    return v;
}

static inline int zdem_bits_read_bool(zdem_bits *br)
{
    return (int)zdem_bits_read(br, 1);
}

static inline uint64_t zdem_bits_read64(zdem_bits *br, unsigned n)
{
    uint64_t lo, hi;
    if (n <= 32u)
        return zdem_bits_read(br, n);
    lo = zdem_bits_read(br, 32);
    hi = zdem_bits_read(br, n - 32u);
    return lo | (hi << 32);
}

/* Valve's ubit_var at the start of a window w (it takes at most 34 bits):
 * the value, and its length in *used. */
static inline uint32_t zdem_bits_ubitvar_of(uint64_t w, unsigned *used)
{
    uint32_t v = (uint32_t)w & 63u;
    switch (v & 0x30u) {
    case 0x10u: *used = 10u; return (v & 15u) | ((uint32_t)(w >> 6) & 15u) << 4;
    case 0x20u: *used = 14u; return (v & 15u) | ((uint32_t)(w >> 6) & 0xFFu) << 4;
    case 0x30u: *used = 34u; return (v & 15u) | ((uint32_t)(w >> 6) & 0xFFFFFFFu) << 4;
    default: *used = 6u; return v;
    }
}

/* Valve's ubit_var: 6 bits, whose top two select 0, 4, 8 or 28 more bits. */
static inline uint32_t zdem_bits_read_ubitvar(zdem_bits *br)
{
    uint32_t v;
    if (zdem_bits__fast(br)) { /* all 34 bits it may take in one window */
        unsigned used;
        v = zdem_bits_ubitvar_of(zdem_bits__window(br), &used);
        br->pos += used;
        return v;
    }
    v = zdem_bits_read(br, 6);
    switch (v & 0x30u) {
    case 0x10u: return (v & 15u) | (zdem_bits_read(br, 4) << 4);
    case 0x20u: return (v & 15u) | (zdem_bits_read(br, 8) << 4);
    case 0x30u: return (v & 15u) | (zdem_bits_read(br, 28) << 4);
    default: return v;
    }
}

/* A base-128 varint of at most five bytes at the start of a window w
 * (40 bits): the value, and its length in bits in *used; 0 in *used when
 * all five bytes continue (malformed). */
static inline uint32_t zdem_bits_varuint32_of(uint64_t w, unsigned *used)
{
    uint32_t v = 0;
    unsigned shift;
    for (shift = 0; shift < 35u; shift += 7u, w >>= 8) {
        v |= (uint32_t)(w & 0x7Fu) << shift;
        if (!(w & 0x80u)) {
            *used = (shift / 7u + 1u) * 8u;
            return v;
        }
    }
    *used = 0;
    return 0;
}

/* A malformed varint: treated like running off the end, so that the flag
 * means the same thing (pos at end, later reads give 0). */
static inline uint32_t zdem_bits__varint_malformed(zdem_bits *br)
{
    br->overflow = 1;
    br->pos = br->end;
    return 0;
}

/* Base-128 varints stored inside a bit stream (unaligned). */
static inline uint32_t zdem_bits_read_varuint32(zdem_bits *br)
{
    uint32_t v = 0;
    unsigned shift = 0;
    if (zdem_bits__fast(br)) { /* all five bytes a varint may have are in the window */
        unsigned used;
        v = zdem_bits_varuint32_of(zdem_bits__window(br), &used);
        if (!used)
            return zdem_bits__varint_malformed(br);
        br->pos += used;
        return v;
    }
    for (;;) {
        uint32_t b = zdem_bits_read(br, 8);
        v |= (b & 0x7Fu) << shift;
        if (!(b & 0x80u) || br->overflow)
            return v;
        shift += 7;
        if (shift >= 35u)
            return zdem_bits__varint_malformed(br);
    }
}

static inline uint64_t zdem_bits_read_varuint64(zdem_bits *br)
{
    uint64_t v = 0;
    unsigned shift = 0;
    for (;;) {
        uint64_t b = zdem_bits_read(br, 8);
        v |= (b & 0x7Fu) << shift;
        if (!(b & 0x80u) || br->overflow)
            return v;
        shift += 7;
        if (shift >= 70u) {
            br->overflow = 1;
            br->pos = br->end;
            return 0;
        }
    }
}

static inline int32_t zdem_bits_read_varint32(zdem_bits *br)
{
    return zdem_zigzag32(zdem_bits_read_varuint32(br));
}

/* A NUL-terminated string from the bit stream: reads through the NUL (not
 * stored), keeps at most cap bytes in out and returns how many it kept.
 * Bounded by the data left: without a NUL the overflow flag is set. */
static inline uint32_t zdem_bits_read_cstr(zdem_bits *br, uint8_t *out, uint32_t cap)
{
    uint32_t n = 0, c;
    for (;;) {
        if (zdem_bits_left(br) < 8u) {
            br->overflow = 1;
            return n;
        }
        c = zdem_bits_read(br, 8);
        if (c == 0)
            return n;
        if (n < cap)
            out[n++] = (uint8_t)c;
    }
}

/* Copy n bytes from an arbitrary bit position into out. */
static inline void zdem_bits_read_bytes(zdem_bits *br, uint8_t *out, size_t n)
{
    size_t i;
    if (n > zdem_bits_left(br) / 8u) {
        br->overflow = 1;
        br->pos = br->end;
        memset(out, 0, n);
        return;
    }
    if ((br->pos & 7u) == 0) {
        memcpy(out, br->data + (br->pos >> 3), n);
        br->pos += n * 8u;
        return;
    }
    {
        /* Unaligned: each output byte joins two input bytes. The check
         * above leaves at least one bit past the last output byte inside
         * the data, so p[i + 1] is always in bounds. */
        const uint8_t *p = br->data + (br->pos >> 3);
        unsigned sh = (unsigned)(br->pos & 7u);
        /* eight at a time while p[i + 8] is within that bound: inner
         * messages of a packet are rarely aligned, and a byte at a time
         * was most of what copying one cost */
        static const uint16_t one = 1; /* little-endian: a word stored as it is */
        for (i = 0; i + 8u < n; i += 8u) {
            uint64_t w = (zdem_load_le64(p + i) >> sh) | ((uint64_t)p[i + 8u] << (64u - sh));
            uint8_t *o = out + i;
            if (*(const uint8_t *)&one) {
                memcpy(o, &w, 8); /* one store */
            } else {
                unsigned k;
                for (k = 0; k < 8u; k++)
                    o[k] = (uint8_t)(w >> (8u * k));
            }
        }
        for (; i < n; i++)
            out[i] = (uint8_t)((p[i] >> sh) | (p[i + 1] << (8u - sh)));
        br->pos += n * 8u;
    }
}

#ifdef __cplusplus
}
#endif

#endif
