/* Hash functions for the open-addressing tables of the format layers.
 * The mixers are bijections of 64-bit words (distinct keys never share a
 * full hash), seeded so that a caller can make crafted collisions
 * impractical; tables watch their probe lengths and report when a probe
 * limit is hit instead of degrading silently. */
#ifndef ZDEM_HASH_H
#define ZDEM_HASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* splitmix64's finalizer: invertible, every input bit reaches every output
 * bit. */
uint64_t zdem_hash_mix64(uint64_t x);

static inline uint64_t zdem_hash_u64(uint64_t key, uint64_t seed)
{
    return zdem_hash_mix64(key ^ seed);
}

/* Byte strings: a word at a time through the mixer. */
static inline uint64_t zdem_hash_bytes(const uint8_t *p, size_t n, uint64_t seed)
{
    uint64_t h = seed ^ ((uint64_t)n * 0x9E3779B97F4A7C15ull);
    while (n >= 8u) {
        uint64_t w = 0;
        unsigned i;
        for (i = 0; i < 8u; i++)
            w |= (uint64_t)p[i] << (8u * i);
        h = zdem_hash_mix64(h ^ w);
        p += 8;
        n -= 8u;
    }
    if (n) {
        uint64_t w = 0;
        unsigned i;
        for (i = 0; i < n; i++)
            w |= (uint64_t)p[i] << (8u * i);
        h = zdem_hash_mix64(h ^ w ^ 0x80u);
    }
    return zdem_hash_mix64(h);
}

/* Slot of a hash in a table of 2^log2 slots (log2 in 1..32). */
static inline uint32_t zdem_hash_slot(uint64_t h, unsigned log2)
{
    return (uint32_t)(h >> (64u - log2));
}

#ifdef __cplusplus
}
#endif

#endif
