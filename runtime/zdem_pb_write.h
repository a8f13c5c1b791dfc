/* Shared pieces of the generated protobuf encoders (generated/
 * source2_encode.c) and the writers: varint sizes and writers,
 * little-endian fixed values, zigzag. The writers assume the room was
 * checked (the encoders size the message first). Three functions, each
 * used by every build (an unused static function is a warning in the
 * amalgamation); zigzag as macros. C11, no allocation. */
#ifndef ZDEM_PB_WRITE_H
#define ZDEM_PB_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline size_t zdem_pb_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80u) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline uint8_t *zdem_pb_put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80u) {
        *p++ = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* The low n bytes of v, little-endian (fixed32/fixed64, float bits, the
 * demo header's offsets). */
static inline uint8_t *zdem_pb_put_fixed(uint8_t *p, uint64_t v, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8u * i));
    return p + n;
}

#define ZDEM_PB_ZIGZAG_ENC32(v) \
    (((uint32_t)(v) << 1) ^ (uint32_t)(0u - ((uint32_t)(v) >> 31)))
#define ZDEM_PB_ZIGZAG_ENC64(v) \
    (((uint64_t)(v) << 1) ^ (uint64_t)(0u - ((uint64_t)(v) >> 63)))

#ifdef __cplusplus
}
#endif

#endif
