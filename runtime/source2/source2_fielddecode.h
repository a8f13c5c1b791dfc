/* Source 2 entity field value decoders: quantized floats with all their
 * flags, coords, normals, angles, simulation/rune time, varints, fixed64,
 * strings. The per-field parameters are computed once, when the
 * serializer is loaded; decoding is then a switch on a small id. */
#ifndef ZDEM_SOURCE2_FIELDDECODE_H
#define ZDEM_SOURCE2_FIELDDECODE_H

#include <stdint.h>
#include "zdem_bits.h"
#include "zdem_error.h"
#include "source2_fields.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum zdem_s2_vkind {
    ZDEM_S2_V_NONE = 0,
    ZDEM_S2_V_BOOL,
    ZDEM_S2_V_UINT,   /* u: a declared 64-bit unsigned (uint64, 64-bit
                         handles and ids), or a value past INT64_MAX */
    ZDEM_S2_V_INT,    /* i: signed, and unsigned of 32 bits or fewer */
    ZDEM_S2_V_FLOAT,  /* f[0] */
    ZDEM_S2_V_DOUBLE, /* d */
    ZDEM_S2_V_VEC,    /* f[0..n), n <= 6 (CTransform) */
    ZDEM_S2_V_STRING  /* s, len bytes, not NUL-terminated */
} zdem_s2_vkind;

/* Quantized float encode flags (CNetworkedQuantizedFloat). */
enum {
    ZDEM_S2_QF_ROUNDDOWN = 1,
    ZDEM_S2_QF_ROUNDUP = 2,
    ZDEM_S2_QF_ENCODE_ZERO = 4,
    ZDEM_S2_QF_ENCODE_INTEGERS = 8
};

/* How one float (or each vector component) is read. */
typedef enum zdem_s2_fkind {
    ZDEM_S2_F_NOSCALE = 0, /* 32 raw bits */
    ZDEM_S2_F_QUANT,       /* quantized, bits + flags */
    ZDEM_S2_F_COORD,
    ZDEM_S2_F_SIMTIME,     /* varint ticks * tick interval */
    ZDEM_S2_F_RUNETIME,    /* 4 bits as float bits */
    ZDEM_S2_F_NORMAL       /* vectors only: normal vector encoding */
} zdem_s2_fkind;

/* How a QAngle is read. */
typedef enum zdem_s2_akind {
    ZDEM_S2_A_COORD = 0,   /* 3 presence bits + coords */
    ZDEM_S2_A_BITS,        /* 3 x angle(bits) */
    ZDEM_S2_A_NOSCALE,     /* 3 x 32-bit floats */
    ZDEM_S2_A_PITCH_YAW,   /* 2 x angle(bits), roll 0 */
    ZDEM_S2_A_PRECISE      /* 3 presence bits + angle(20) - 180 */
} zdem_s2_akind;

typedef struct zdem_s2_qfloat {
    float low, high, high_low_mul, dec_mul;
    uint8_t bits, flags;
} zdem_s2_qfloat;

/* Everything needed to decode one field's value. */
typedef struct zdem_s2_fdec {
    uint8_t dec;    /* zdem_s2_dec */
    uint8_t fkind;  /* zdem_s2_fkind for float/vector decoders */
    uint8_t akind;  /* zdem_s2_akind for qangle */
    uint8_t abits;  /* angle bits */
    zdem_s2_qfloat q;
} zdem_s2_fdec;

/* Sets q from the serializer's bit count, range and flags the way the
 * engine does (flag validation, rounding offsets, integer steps, the
 * multiplier fix-up). Returns 0, or -1 when the parameters are unusable
 * (then the caller reads the bits over [0, 1] and reports it). */
int zdem_s2_qfloat_init(zdem_s2_qfloat *q, int32_t bits, float low,
                        float high, int32_t flags);
float zdem_s2_qfloat_read(const zdem_s2_qfloat *q, zdem_bits *br);

/* The float of quantized step v (no special value): zdem_s2_qfloat_read's
 * last step, inline where the entity reader decodes straight into a slot. */
static inline float zdem_s2_qfloat_value(const zdem_s2_qfloat *q, uint32_t v)
{
    return q->low + (q->high - q->low) * ((float)v * q->dec_mul);
}

/* Resolves fkind/akind from the encoder kind and bit count/range.
 * Returns 1 when the quantized parameters were unusable (fell back: the
 * bit_count bits are read over [0, 1]). */
int zdem_s2_fdec_setup(zdem_s2_fdec *d, zdem_s2_dec dec, zdem_s2_enc enc,
                       int32_t bit_count, float low, float high,
                       int32_t flags);

/* Decoded scalar/vector value (strings point into strbuf). */
typedef struct zdem_s2_raw {
    uint8_t kind; /* zdem_s2_vkind values, see source2_state.h */
    uint8_t n;
    union {
        uint64_t u;
        int64_t i;
        double d;
        float f[6]; /* vectors, QAngle, CTransform (6) */
    } v;
    uint32_t len;      /* string length (stored) */
    uint32_t full_len; /* string length in the stream (> len: cut) */
} zdem_s2_raw;

/* Decodes one value. strbuf (cap bytes) receives string bytes; longer
 * strings are consumed fully and truncated. tick_interval is used by
 * simulation-time floats. */
void zdem_s2_decode_value(const zdem_s2_fdec *d, zdem_bits *br,
                          float tick_interval, zdem_s2_raw *out,
                          uint8_t *strbuf, uint32_t strcap);

float zdem_s2_read_coord(zdem_bits *br);
float zdem_s2_read_normal(zdem_bits *br);
float zdem_s2_read_angle(zdem_bits *br, unsigned bits);

/* The angle in degrees of a bits-bit step v (zdem_s2_read_angle's value),
 * v * 360 / 2^bits rounded once to a float: v * 360 is exact in 64 bits,
 * its conversion is the one rounding, and dividing by a power of two is
 * exact. So no double arithmetic (a library on small devices), and the
 * same float as through a double, for every v and bits <= 32. */
static inline float zdem_s2_angle_value(uint32_t v, unsigned bits)
{
    return (float)(int64_t)((uint64_t)v * 360u) / (float)(1ull << bits);
}

#ifdef __cplusplus
}
#endif

#endif
