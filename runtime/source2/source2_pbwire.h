/* Minimal protobuf wire reader for the Source 2 state layer.
 *
 * TO BE REPLACED by the generated decoders (generated/source2_pb.h) once
 * they cover every message this layer reads; until then the state layer
 * walks fields with this iterator. It never reads past `end` and rejects
 * lengths beyond the buffer. */
#ifndef ZDEM_SOURCE2_PBWIRE_H
#define ZDEM_SOURCE2_PBWIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "zdem_varint.h"

typedef struct zdem_s2pb {
    const uint8_t *p, *end, *start;
} zdem_s2pb;

typedef struct zdem_s2pb_field {
    uint32_t num;       /* field number */
    uint32_t wire;      /* 0 varint, 1 fixed64, 2 bytes, 5 fixed32 */
    uint64_t v;         /* varint / fixed value */
    const uint8_t *ptr; /* wire 2: bytes */
    uint32_t len;
} zdem_s2pb_field;

static inline void zdem_s2pb_init(zdem_s2pb *r, const uint8_t *p, size_t n)
{
    r->p = p;
    r->start = p;
    r->end = p + n;
}

/* 1 = field read, 0 = end, -1 = malformed (*st has the status). */
static inline int zdem_s2pb_next(zdem_s2pb *r, zdem_s2pb_field *f,
                                 zdem_status *st)
{
    uint64_t key;
    zdem_status s;
    if (r->p >= r->end)
        return 0;
    s = zdem_varuint64(&r->p, r->end, &key);
    if (s != ZDEM_OK) {
        *st = s;
        return -1;
    }
    f->num = (uint32_t)(key >> 3);
    f->wire = (uint32_t)(key & 7u);
    f->ptr = 0;
    f->len = 0;
    f->v = 0;
    if (f->num == 0 || (key >> 3) > 0x1FFFFFFFu) {
        *st = ZDEM_ERR_CORRUPT;
        return -1;
    }
    switch (f->wire) {
    case 0:
        s = zdem_varuint64(&r->p, r->end, &f->v);
        break;
    case 1:
        if ((size_t)(r->end - r->p) < 8u) {
            s = ZDEM_ERR_TRUNCATED;
            break;
        }
        f->v = zdem_load_le64(r->p);
        r->p += 8;
        break;
    case 5:
        if ((size_t)(r->end - r->p) < 4u) {
            s = ZDEM_ERR_TRUNCATED;
            break;
        }
        f->v = zdem_load_le32(r->p);
        r->p += 4;
        break;
    case 2: {
        uint32_t n;
        s = zdem_varuint32(&r->p, r->end, &n);
        if (s == ZDEM_OK && n > (size_t)(r->end - r->p))
            s = ZDEM_ERR_BAD_LENGTH;
        if (s == ZDEM_OK) {
            f->ptr = r->p;
            f->len = n;
            r->p += n;
        }
        break;
    }
    default:
        s = ZDEM_ERR_WIRE_TYPE;
        break;
    }
    if (s != ZDEM_OK) {
        *st = s;
        return -1;
    }
    return 1;
}

static inline float zdem_s2pb_float(const zdem_s2pb_field *f)
{
    uint32_t u = (uint32_t)f->v;
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

#endif
