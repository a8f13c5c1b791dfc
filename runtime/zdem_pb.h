/* Shared pieces of the generated protobuf decoders (generated/source2_pb.c):
 * the zero-copy byte view, key/varint/length readers and unknown-field
 * skipping. Everything is static inline so the generated switch statements
 * compile to straight-line code. C11, no allocation. */
#ifndef ZDEM_PB_H
#define ZDEM_PB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "zdem_error.h"
#include "zdem_varint.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes or string field: points into the caller's input, never copied,
 * not NUL-terminated. */
typedef struct {
    const uint8_t *ptr;
    uint32_t len;
} zdem_view;

/* Wire types. 3 and 4 (groups) are not used by any schema here and are
 * rejected, as are 6 and 7. */
enum {
    ZDEM_PB_WT_VARINT = 0,
    ZDEM_PB_WT_I64 = 1,
    ZDEM_PB_WT_LEN = 2,
    ZDEM_PB_WT_I32 = 5
};

/* Records an error at byte offset (at - base) and returns code. */
static inline zdem_status zdem_pb_fail(zdem_error *err, zdem_status code,
                                       const uint8_t *base, const uint8_t *at,
                                       const char *msg)
{
    return zdem_fail(err, code, (uint64_t)(at - base), msg);
}

/* Varint of up to 10 bytes. One-byte values take the first branch, which is
 * what most tags and small ints are. */
static inline zdem_status zdem_pb_varint(const uint8_t **p, const uint8_t *end,
                                         uint64_t *out)
{
    const uint8_t *s = *p;
    if (s < end && *s < 0x80u) {
        *out = *s;
        *p = s + 1;
        return ZDEM_OK;
    }
    return zdem_varuint64(p, end, out);
}

/* Length prefix of a length-delimited field: must fit in what is left. */
static inline zdem_status zdem_pb_len(const uint8_t **p, const uint8_t *end,
                                      uint32_t *out)
{
    uint64_t v;
    zdem_status st = zdem_pb_varint(p, end, &v);
    if (st != ZDEM_OK)
        return st;
    if (v > (uint64_t)(end - *p))
        return ZDEM_ERR_TRUNCATED;
    *out = (uint32_t)v;
    return ZDEM_OK;
}

static inline float zdem_pb_f32(const uint8_t *p)
{
    uint32_t u = zdem_load_le32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline double zdem_pb_f64(const uint8_t *p)
{
    uint64_t u = zdem_load_le64(p);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* Skips the value of a field the schema does not know, *p just past its key
 * (key_at is where the key started, for error offsets). */
zdem_status zdem_pb_skip(const uint8_t *base, const uint8_t *key_at,
                         const uint8_t **p, const uint8_t *end, uint32_t wt,
                         zdem_error *err);

/* Reads a field key; field number 0 and keys over 32 bits are corrupt. */
static inline zdem_status zdem_pb_key(const uint8_t *base, const uint8_t **p,
                                      const uint8_t *end, uint32_t *key,
                                      zdem_error *err)
{
    const uint8_t *s = *p;
    *key = 0; /* defined on every path: gcc -O3 cannot see through the error returns */
    if (s < end && *s < 0x80u) {
        *key = *s;
        *p = s + 1;
    } else {
        zdem_status st = zdem_varuint32(p, end, key);
        if (st != ZDEM_OK)
            return zdem_pb_fail(err, st, base, s, "bad field key");
    }
    if ((*key >> 3) == 0)
        return zdem_pb_fail(err, ZDEM_ERR_CORRUPT, base, s, "field number 0");
    return ZDEM_OK;
}

#ifdef __cplusplus
}
#endif

#endif
