/* Byte-aligned varints (protobuf base-128, little-endian groups of 7 bits).
 * Each reader checks the end pointer on every byte: it never reads past
 * `end`, and it rejects encodings longer than the type allows. */
#ifndef ZDEM_VARINT_H
#define ZDEM_VARINT_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads a varint of at most 5 bytes whose value fits 32 bits.
 * Returns ZDEM_OK, ZDEM_ERR_TRUNCATED or ZDEM_ERR_VARINT; *p advances only
 * on success. */
static inline zdem_status zdem_varuint32(const uint8_t **p, const uint8_t *end,
                                         uint32_t *out)
{
    const uint8_t *s = *p;
    uint32_t v = 0;
    unsigned shift = 0;
    for (;;) {
        uint8_t b;
        if (s >= end)
            return ZDEM_ERR_TRUNCATED;
        b = *s++;
        if (shift == 28 && (b & 0xF0u))
            return ZDEM_ERR_VARINT; /* bits beyond 32, or a 6th byte */
        v |= (uint32_t)(b & 0x7Fu) << shift;
        if (!(b & 0x80u))
            break;
        shift += 7;
    }
    *p = s;
    *out = v;
    return ZDEM_OK;
}

/* Reads a varint of at most 10 bytes (protobuf's limit). */
static inline zdem_status zdem_varuint64(const uint8_t **p, const uint8_t *end,
                                         uint64_t *out)
{
    const uint8_t *s = *p;
    uint64_t v = 0;
    unsigned shift = 0;
    for (;;) {
        uint8_t b;
        if (s >= end)
            return ZDEM_ERR_TRUNCATED;
        b = *s++;
        if (shift == 63 && (b & 0xFEu))
            return ZDEM_ERR_VARINT; /* bits beyond 64, or an 11th byte */
        v |= (uint64_t)(b & 0x7Fu) << shift;
        if (!(b & 0x80u))
            break;
        shift += 7;
    }
    *p = s;
    *out = v;
    return ZDEM_OK;
}

static inline int32_t zdem_zigzag32(uint32_t v)
{
    return (int32_t)((v >> 1) ^ (~(v & 1u) + 1u));
}

static inline int64_t zdem_zigzag64(uint64_t v)
{
    return (int64_t)((v >> 1) ^ (~(v & 1u) + 1u));
}

static inline uint32_t zdem_load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline uint64_t zdem_load_le64(const uint8_t *p)
{
    return (uint64_t)zdem_load_le32(p) | ((uint64_t)zdem_load_le32(p + 4) << 32);
}

static inline uint32_t zdem_load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

#ifdef __cplusplus
}
#endif

#endif
