/* Shared pieces of the generated protobuf encoders (generated/
 * source2_encode.c): varint sizes and writers, little-endian fixed values,
 * zigzag. The writers assume the room was checked (the encoders size the
 * message first). Static inline, C11, no allocation. */
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

static inline uint8_t *zdem_pb_put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
    return p + 4;
}

static inline uint8_t *zdem_pb_put_le64(uint8_t *p, uint64_t v)
{
    p = zdem_pb_put_le32(p, (uint32_t)v);
    return zdem_pb_put_le32(p, (uint32_t)(v >> 32));
}

/* Floats as their bit patterns: a NaN's payload comes back as it went. */
static inline uint8_t *zdem_pb_put_f32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return zdem_pb_put_le32(p, u);
}

static inline uint8_t *zdem_pb_put_f64(uint8_t *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return zdem_pb_put_le64(p, u);
}

static inline uint32_t zdem_pb_zigzag_enc32(int32_t v)
{
    return ((uint32_t)v << 1) ^ (uint32_t)(0 - ((uint32_t)v >> 31));
}

static inline uint64_t zdem_pb_zigzag_enc64(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(0 - ((uint64_t)v >> 63));
}

#ifdef __cplusplus
}
#endif

#endif
