/* Shared by the keyed-structure fuzz targets (fuzz_*_keys_*.c): each feeds
 * one structure of the library adversarial key sets directly (keys that
 * collide under its hash with the seed fixed, duplicates, worst orders),
 * chosen and ordered by the fuzzer, and checks every answer against a
 * plain model: a key the structure kept reads back its last value, a key
 * it refused was reported (a counted warning), nothing is silently wrong.
 * A mismatch aborts (a finding). Here: the input reader, protobuf and
 * bit-stream writers for building messages, and zdem's hash mixer's
 * inverse. */
#ifndef ZDEM_FUZZ_KEYS_H
#define ZDEM_FUZZ_KEYS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zdem_hash.h"

/* Only the first bytes of an input are read (the replay build feeds whole
 * demos), which keeps every run short (thousands a second); a target may
 * set its own bound (and -max_len in its .options). */
#ifndef FK_MAX_INPUT
#define FK_MAX_INPUT 4096u
#endif

static inline void fk_fail(const char *what, unsigned long a, unsigned long b)
{
    fprintf(stderr, "keyed-structure check failed: %s (%lu, %lu)\n", what, a, b);
    abort();
}

#define FK_CHECK(cond, what, a, b) \
    do {                           \
        if (!(cond))               \
            fk_fail(what, (unsigned long)(a), (unsigned long)(b)); \
    } while (0)

/* ZDEM_FUZZ_VERBOSE set: each run prints what it did (to see that seeds
 * reach the refusal path). */
static inline int fk_verbose(void)
{
    static int v = -1;
    if (v < 0)
        v = getenv("ZDEM_FUZZ_VERBOSE") != NULL;
    return v;
}

/* ---- input ------------------------------------------------------------- */

typedef struct fk_in {
    const uint8_t *p;
    size_t n, i;
} fk_in;

static inline void fk_in_init(fk_in *r, const uint8_t *p, size_t n)
{
    r->p = p;
    r->n = n < FK_MAX_INPUT ? n : FK_MAX_INPUT;
    r->i = 0;
}

static inline int fk_more(const fk_in *r) { return r->i < r->n; }
static inline unsigned fk_u8(fk_in *r) { return r->i < r->n ? r->p[r->i++] : 0u; }
static inline unsigned fk_u16(fk_in *r)
{
    unsigned a = fk_u8(r);
    return a | fk_u8(r) << 8;
}
static inline uint32_t fk_u32(fk_in *r)
{
    uint32_t a = fk_u16(r);
    return a | (uint32_t)fk_u16(r) << 16;
}
static inline uint64_t fk_u64(fk_in *r)
{
    uint64_t a = fk_u32(r);
    return a | (uint64_t)fk_u32(r) << 32;
}

/* ---- protobuf writer ------------------------------------------------------ */

typedef struct fk_pb {
    uint8_t buf[16384];
    size_t n;
} fk_pb;

static inline void fk_pb_byte(fk_pb *w, unsigned b)
{
    if (w->n < sizeof w->buf)
        w->buf[w->n++] = (uint8_t)b;
}

static inline void fk_pb_varint(fk_pb *w, uint64_t v)
{
    while (v >= 0x80u) {
        fk_pb_byte(w, (unsigned)(v & 0x7Fu) | 0x80u);
        v >>= 7;
    }
    fk_pb_byte(w, (unsigned)v);
}

/* An int32 field: negative values as 10-byte varints, as protobuf does. */
static inline void fk_pb_int(fk_pb *w, unsigned field, int64_t v)
{
    fk_pb_varint(w, (uint64_t)field << 3);
    fk_pb_varint(w, (uint64_t)v);
}

static inline void fk_pb_bytes(fk_pb *w, unsigned field, const void *d, size_t n)
{
    fk_pb_varint(w, (uint64_t)field << 3 | 2u);
    fk_pb_varint(w, n);
    if (n <= sizeof w->buf - w->n) {
        memcpy(w->buf + w->n, d, n);
        w->n += n;
    } else {
        w->n = sizeof w->buf; /* too big: the message is cut, as a hostile one would be */
    }
}

/* ---- bit writer (LSB first, as zdem_bits reads) ------------------------------ */

typedef struct fk_bits {
    uint8_t buf[8192];
    size_t bits;
} fk_bits;

static inline void fk_bits_put(fk_bits *w, uint32_t v, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++, w->bits++) {
        if (w->bits / 8u >= sizeof w->buf)
            return;
        if (w->bits % 8u == 0)
            w->buf[w->bits / 8u] = 0;
        if ((v >> i) & 1u)
            w->buf[w->bits / 8u] |= (uint8_t)(1u << (w->bits % 8u));
    }
}

static inline void fk_bits_varuint32(fk_bits *w, uint32_t v)
{
    while (v >= 0x80u) {
        fk_bits_put(w, (v & 0x7Fu) | 0x80u, 8);
        v >>= 7;
    }
    fk_bits_put(w, v, 8);
}

static inline void fk_bits_ubitvar(fk_bits *w, uint32_t v)
{
    if (v < 16u) {
        fk_bits_put(w, v, 6);
    } else if (v < 256u) {
        fk_bits_put(w, (v & 15u) | 0x10u, 6);
        fk_bits_put(w, v >> 4, 4);
    } else if (v < 4096u) {
        fk_bits_put(w, (v & 15u) | 0x20u, 6);
        fk_bits_put(w, v >> 4, 8);
    } else {
        fk_bits_put(w, (v & 15u) | 0x30u, 6);
        fk_bits_put(w, v >> 4, 28);
    }
}

static inline size_t fk_bits_bytes(const fk_bits *w)
{
    size_t n = (w->bits + 7u) / 8u;
    return n < sizeof w->buf ? n : sizeof w->buf;
}

/* ---- zdem's hash, inverted ------------------------------------------------------ */

static inline uint64_t fk_unxorshift(uint64_t y, unsigned s)
{
    uint64_t x = y;
    unsigned i;
    for (i = 0; i < 64u / s + 1u; i++)
        x = y ^ (x >> s);
    return x;
}

/* The inverse of zdem_hash_mix64 (a bijection): names with one given hash
 * are solved for, not searched. */
static inline uint64_t fk_unmix64(uint64_t y)
{
    y = fk_unxorshift(y, 31);
    y *= 0x319642B2D24D8EC3ull; /* inverse of 0x94D049BB133111EB mod 2^64 */
    y = fk_unxorshift(y, 27);
    y *= 0x96DE1B173F119089ull; /* inverse of 0xBF58476D1CE4E5B9 mod 2^64 */
    return fk_unxorshift(y, 30);
}

#define FK_BUILTIN_SEED 0x5A44454D53325F31ull /* a state's seed for hash_seed 0 */

/* The seed of a run, from the input's first byte: the built-in one (what
 * hash_seed 0 gives), 1, or any 64 bits. Colliding sets exist for the
 * first two (index 0 and 1); any other seed uses set 1 (keys that then
 * merely look random). */
static inline uint64_t fk_seed(fk_in *r, unsigned *set)
{
    unsigned b = fk_u8(r);
    if (b % 3u == 0) {
        *set = 0;
        return 0;
    }
    *set = 1;
    if (b % 3u == 1)
        return 1;
    return fk_u64(r) | 2u;
}

static inline uint64_t fk_state_seed(uint64_t cfg_seed) { return cfg_seed ? cfg_seed : FK_BUILTIN_SEED; }

#endif
