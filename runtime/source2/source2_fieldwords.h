/* The commonest entity field values decoded straight into the 64-bit
 * words a value table's slot holds (a bool, a 32- or 64-bit varint, an
 * unscaled, quantized or simulation-time float, a vector of three unscaled
 * floats, a QAngle of three precise angles): inline where the entity
 * reader stores values, and the first step of zdem_s2_decode_value, so
 * that each of these decoders is written once. Internal. */
#ifndef ZDEM_SOURCE2_FIELDWORDS_H
#define ZDEM_SOURCE2_FIELDWORDS_H

#include <string.h>
#include "source2_fielddecode.h"

/* 32 bits as a float (an unscaled float). */
static inline float zdem_s2_read_noscale(zdem_bits *br)
{
    uint32_t u = zdem_bits_read(br, 32);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Two floats as a slot word, f0 in the first four bytes (zdem_s2_raw's
 * union, as the entity reader copies it); a lone float has f1 = 0. */
static inline uint64_t zdem_s2_floats_word(float f0, float f1)
{
    float f[2];
    uint64_t u;
    f[0] = f0;
    f[1] = f1;
    memcpy(&u, f, sizeof u);
    return u;
}

/* The words of a value whose decoder is one of the commonest: 1 (*a) for
 * a scalar, 2 (*a, *b: x and y, then z and a fourth float 0) for a vector
 * or QAngle of three; 0, reading nothing, for any other decoder.
 * zdem_s2_words_kind gives the value's kind. */
static inline int zdem_s2_decode_words(const zdem_s2_fdec *fd, zdem_bits *br,
                                       float tick_interval, uint64_t *a, uint64_t *b)
{
    switch (fd->dec) {
    case ZDEM_S2_DEC_BOOL:
        *a = zdem_bits_read(br, 1);
        return 1;
    case ZDEM_S2_DEC_UVAR32:
        *a = zdem_bits_read_varuint32(br);
        return 1;
    case ZDEM_S2_DEC_SVAR32:
        *a = (uint64_t)(int64_t)zdem_bits_read_varint32(br);
        return 1;
    case ZDEM_S2_DEC_UVAR64:
        *a = zdem_bits_read_varuint64(br);
        return 1;
    case ZDEM_S2_DEC_FLOAT:
        switch (fd->fkind) {
        case ZDEM_S2_F_NOSCALE:
            *a = zdem_s2_floats_word(zdem_s2_read_noscale(br), 0.0f);
            return 1;
        case ZDEM_S2_F_QUANT: /* without special values (most): inline */
            *a = zdem_s2_floats_word(fd->q.flags ? zdem_s2_qfloat_read(&fd->q, br)
                                                 : zdem_s2_qfloat_value(&fd->q, zdem_bits_read(br, fd->q.bits)),
                                     0.0f);
            return 1;
        case ZDEM_S2_F_SIMTIME:
            *a = zdem_s2_floats_word((float)zdem_bits_read_varuint32(br) * tick_interval, 0.0f);
            return 1;
        default:
            return 0;
        }
    case ZDEM_S2_DEC_VECTOR3:
        if (fd->fkind != ZDEM_S2_F_NOSCALE)
            return 0;
        {
            float x = zdem_s2_read_noscale(br), y = zdem_s2_read_noscale(br); /* in this order */
            *a = zdem_s2_floats_word(x, y);
            *b = zdem_s2_floats_word(zdem_s2_read_noscale(br), 0.0f);
        }
        return 2;
    case ZDEM_S2_DEC_QANGLE:
        if (fd->akind != ZDEM_S2_A_PRECISE)
            return 0;
        {
            uint32_t h = zdem_bits_read(br, 3); /* the three presence bits, x first */
            float x = (h & 1u) ? zdem_s2_angle_value(zdem_bits_read(br, 20), 20) - 180.0f : 0.0f;
            float y = (h & 2u) ? zdem_s2_angle_value(zdem_bits_read(br, 20), 20) - 180.0f : 0.0f;
            float z = (h & 4u) ? zdem_s2_angle_value(zdem_bits_read(br, 20), 20) - 180.0f : 0.0f;
            *a = zdem_s2_floats_word(x, y);
            *b = zdem_s2_floats_word(z, 0.0f);
        }
        return 2;
    default:
        return 0;
    }
}

/* The kind (zdem_s2_vkind) of a value zdem_s2_decode_words decoded. */
static inline uint8_t zdem_s2_words_kind(const zdem_s2_fdec *fd)
{
    switch (fd->dec) {
    case ZDEM_S2_DEC_BOOL: return ZDEM_S2_V_BOOL;
    case ZDEM_S2_DEC_UVAR64: return ZDEM_S2_V_UINT;
    case ZDEM_S2_DEC_FLOAT: return ZDEM_S2_V_FLOAT;
    case ZDEM_S2_DEC_VECTOR3:
    case ZDEM_S2_DEC_QANGLE: return ZDEM_S2_V_VEC;
    default: return ZDEM_S2_V_INT; /* 32-bit varints */
    }
}

#endif
