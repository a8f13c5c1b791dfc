#include "source2_fielddecode.h"
#include "source2_fieldwords.h"

#include <math.h>
#include <string.h>

/* ---- quantized floats ---------------------------------------------------- */

static float qf_quantize(const zdem_s2_qfloat *q, float v)
{
    uint32_t i;
    float x;
    if (v < q->low)
        return q->low;
    if (v > q->high)
        return q->high;
    /* A float outside uint32's range (NaN, inf, huge: degenerate ranges
     * from a hostile serializer) must not reach the cast: that is
     * undefined behaviour. */
    x = (v - q->low) * q->high_low_mul;
    if (!(x >= 0.0f))
        i = 0;
    else if (x >= 4294967040.0f)
        i = 0xFFFFFF00u;
    else
        i = (uint32_t)x;
    return q->low + (q->high - q->low) * ((float)i * q->dec_mul);
}

int zdem_s2_qfloat_init(zdem_s2_qfloat *q, int32_t bits, float low,
                        float high, int32_t flags_in)
{
    uint32_t flags = (uint32_t)flags_in & 15u, steps;
    memset(q, 0, sizeof *q);
    if (bits <= 0 || bits >= 32 || !(low < high) || !isfinite(low) ||
        !isfinite(high) || !isfinite(high - low))
        return -1;
    /* Flag validation, as the engine does it. */
    if (flags) {
        if ((low == 0.0f && (flags & ZDEM_S2_QF_ROUNDDOWN)) ||
            (high == 0.0f && (flags & ZDEM_S2_QF_ROUNDUP)))
            flags &= ~(uint32_t)ZDEM_S2_QF_ENCODE_ZERO;
        if (low == 0.0f && (flags & ZDEM_S2_QF_ENCODE_ZERO)) {
            flags |= ZDEM_S2_QF_ROUNDDOWN;
            flags &= ~(uint32_t)ZDEM_S2_QF_ENCODE_ZERO;
        }
        if (high == 0.0f && (flags & ZDEM_S2_QF_ENCODE_ZERO)) {
            flags |= ZDEM_S2_QF_ROUNDUP;
            flags &= ~(uint32_t)ZDEM_S2_QF_ENCODE_ZERO;
        }
        if (!(low < 0.0f && high > 0.0f))
            flags &= ~(uint32_t)ZDEM_S2_QF_ENCODE_ZERO;
        if (flags & ZDEM_S2_QF_ENCODE_INTEGERS)
            flags &= ~(uint32_t)(ZDEM_S2_QF_ROUNDUP | ZDEM_S2_QF_ROUNDDOWN |
                                 ZDEM_S2_QF_ENCODE_ZERO);
        if ((flags & (ZDEM_S2_QF_ROUNDDOWN | ZDEM_S2_QF_ROUNDUP)) ==
            (ZDEM_S2_QF_ROUNDDOWN | ZDEM_S2_QF_ROUNDUP))
            return -1; /* mutually exclusive */
    }
    steps = 1u << bits;
    q->low = low;
    q->high = high;
    q->bits = (uint8_t)bits;
    if (flags & ZDEM_S2_QF_ROUNDDOWN)
        q->high -= (q->high - q->low) / (float)steps;
    else if (flags & ZDEM_S2_QF_ROUNDUP)
        q->low += (q->high - q->low) / (float)steps;
    if (flags & ZDEM_S2_QF_ENCODE_INTEGERS) {
        float delta = q->high - q->low;
        uint32_t range2 = 1, b = (uint32_t)bits;
        if (delta < 1.0f)
            delta = 1.0f;
        /* range2 = 2^ceil(log2(delta)) */
        while ((float)range2 < delta && range2 < 0x80000000u)
            range2 <<= 1;
        while (b < 31u && (1u << b) <= range2)
            b++;
        if (b > (uint32_t)bits) {
            q->bits = (uint8_t)b;
            steps = 1u << b;
        }
        q->high = q->low + (float)range2 - (float)range2 / (float)steps;
    }
    /* Multipliers, with the engine's fix-up for float rounding. */
    {
        float range = q->high - q->low;
        uint32_t hi = q->bits == 32 ? 0xFFFFFFFEu : (1u << q->bits) - 1u;
        float high_mul;
        if (range == 0.0f)
            high_mul = (float)hi;
        else
            high_mul = (float)hi / range;
        if (high_mul * range > (float)hi || (double)(high_mul * range) > (double)hi) {
            static const float mults[5] = {0.9999f, 0.99f, 0.9f, 0.8f, 0.7f};
            int k;
            for (k = 0; k < 5; k++) {
                high_mul = (float)hi / range * mults[k];
                if (!(high_mul * range > (float)hi ||
                      (double)(high_mul * range) > (double)hi))
                    break;
            }
        }
        q->high_low_mul = high_mul;
        q->dec_mul = 1.0f / (float)(steps - 1u);
    }
    /* Drop flags whose special value the quantizer reproduces anyway. */
    if ((flags & ZDEM_S2_QF_ROUNDDOWN) && qf_quantize(q, q->low) == q->low)
        flags &= ~(uint32_t)ZDEM_S2_QF_ROUNDDOWN;
    if ((flags & ZDEM_S2_QF_ROUNDUP) && qf_quantize(q, q->high) == q->high)
        flags &= ~(uint32_t)ZDEM_S2_QF_ROUNDUP;
    if ((flags & ZDEM_S2_QF_ENCODE_ZERO) && qf_quantize(q, 0.0f) == 0.0f)
        flags &= ~(uint32_t)ZDEM_S2_QF_ENCODE_ZERO;
    q->flags = (uint8_t)flags;
    return 0;
}

float zdem_s2_qfloat_read(const zdem_s2_qfloat *q, zdem_bits *br)
{
    if ((q->flags & ZDEM_S2_QF_ROUNDDOWN) && zdem_bits_read(br, 1))
        return q->low;
    if ((q->flags & ZDEM_S2_QF_ROUNDUP) && zdem_bits_read(br, 1))
        return q->high;
    if ((q->flags & ZDEM_S2_QF_ENCODE_ZERO) && zdem_bits_read(br, 1))
        return 0.0f;
    return zdem_s2_qfloat_value(q, zdem_bits_read(br, q->bits));
}

/* ---- set-up ----------------------------------------------------------- */

int zdem_s2_fdec_setup(zdem_s2_fdec *d, zdem_s2_dec dec, zdem_s2_enc enc,
                       int32_t bit_count, float low, float high,
                       int32_t flags)
{
    int fell_back = 0;
    memset(d, 0, sizeof *d);
    d->dec = (uint8_t)dec;
    if (enc == ZDEM_S2_ENC_FIXED64 &&
        (dec == ZDEM_S2_DEC_UVAR64 || dec == ZDEM_S2_DEC_UVAR32 ||
         dec == ZDEM_S2_DEC_SVAR64 || dec == ZDEM_S2_DEC_UNKNOWN))
        d->dec = ZDEM_S2_DEC_FIXED64;
    if (enc == ZDEM_S2_ENC_MINUSONE &&
        (dec == ZDEM_S2_DEC_SVAR32 || dec == ZDEM_S2_DEC_UVAR32 || dec == ZDEM_S2_DEC_SVAR64 ||
         dec == ZDEM_S2_DEC_UVAR64 || dec == ZDEM_S2_DEC_UNKNOWN))
        d->dec = ZDEM_S2_DEC_MINUSONE;
    switch (dec) {
    case ZDEM_S2_DEC_FLOAT:
    case ZDEM_S2_DEC_VECTOR2:
    case ZDEM_S2_DEC_VECTOR3:
    case ZDEM_S2_DEC_VECTOR4:
    case ZDEM_S2_DEC_TRANSFORM:
        if (enc == ZDEM_S2_ENC_COORD)
            d->fkind = ZDEM_S2_F_COORD;
        else if (enc == ZDEM_S2_ENC_SIMTIME)
            d->fkind = ZDEM_S2_F_SIMTIME;
        else if (enc == ZDEM_S2_ENC_RUNETIME)
            d->fkind = ZDEM_S2_F_RUNETIME;
        else if (enc == ZDEM_S2_ENC_NORMAL && dec == ZDEM_S2_DEC_VECTOR3)
            d->fkind = ZDEM_S2_F_NORMAL;
        else if (bit_count <= 0 || bit_count >= 32)
            d->fkind = ZDEM_S2_F_NOSCALE;
        else if (zdem_s2_qfloat_init(&d->q, bit_count, low, high, flags) == 0)
            d->fkind = ZDEM_S2_F_QUANT;
        else {
            /* the wire still has bit_count bits (reading 32 would shift
             * every later field): read them over [0, 1], as clarity does
             * for a range it cannot use */
            (void)zdem_s2_qfloat_init(&d->q, bit_count, 0.0f, 1.0f, 0);
            d->fkind = ZDEM_S2_F_QUANT;
            fell_back = 1;
        }
        break;
    case ZDEM_S2_DEC_QANGLE:
        d->abits = (uint8_t)(bit_count > 0 && bit_count <= 32 ? bit_count : 0);
        if (enc == ZDEM_S2_ENC_QANGLE_PITCH_YAW)
            d->akind = ZDEM_S2_A_PITCH_YAW;
        else if (enc == ZDEM_S2_ENC_QANGLE_PRECISE)
            d->akind = ZDEM_S2_A_PRECISE;
        else if (d->abits == 32)
            d->akind = ZDEM_S2_A_NOSCALE;
        else if (d->abits)
            d->akind = ZDEM_S2_A_BITS;
        else
            d->akind = ZDEM_S2_A_COORD;
        if (d->akind == ZDEM_S2_A_PITCH_YAW && !d->abits)
            d->abits = 32;
        break;
    default:
        break;
    }
    return fell_back;
}

/* ---- readers ------------------------------------------------------------ */

float zdem_s2_read_coord(zdem_bits *br)
{
    uint32_t has_int = zdem_bits_read(br, 1);
    uint32_t has_frac = zdem_bits_read(br, 1);
    float v = 0.0f;
    if (has_int || has_frac) {
        uint32_t neg = zdem_bits_read(br, 1);
        uint32_t iv = has_int ? zdem_bits_read(br, 14) + 1u : 0u;
        uint32_t fv = has_frac ? zdem_bits_read(br, 5) : 0u;
        v = (float)iv + (float)fv * (1.0f / 32.0f);
        if (neg)
            v = -v;
    }
    return v;
}

float zdem_s2_read_normal(zdem_bits *br)
{
    uint32_t neg = zdem_bits_read(br, 1);
    uint32_t len = zdem_bits_read(br, 11);
    float v = (float)len * (1.0f / 2047.0f);
    return neg ? -v : v;
}

float zdem_s2_read_angle(zdem_bits *br, unsigned bits)
{
    return zdem_s2_angle_value(zdem_bits_read(br, bits), bits);
}


static float read_float(const zdem_s2_fdec *d, zdem_bits *br, float tick_interval)
{
    switch (d->fkind) {
    case ZDEM_S2_F_QUANT:
        return zdem_s2_qfloat_read(&d->q, br);
    case ZDEM_S2_F_COORD:
        return zdem_s2_read_coord(br);
    case ZDEM_S2_F_SIMTIME:
        return (float)zdem_bits_read_varuint32(br) * tick_interval;
    case ZDEM_S2_F_RUNETIME: {
        uint32_t u = zdem_bits_read(br, 4);
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    default:
        return zdem_s2_read_noscale(br);
    }
}

void zdem_s2_decode_value(const zdem_s2_fdec *d, zdem_bits *br,
                          float tick_interval, zdem_s2_raw *out,
                          uint8_t *strbuf, uint32_t strcap)
{
    uint64_t a, b;
    int words;
    out->n = 0;
    out->len = 0;
    out->full_len = 0;
    out->v.u = 0;
    if ((words = zdem_s2_decode_words(d, br, tick_interval, &a, &b)) != 0) {
        out->kind = zdem_s2_words_kind(d);
        out->v.u = a;
        if (words == 2) {
            out->n = 3;
            memcpy(&out->v.f[2], &b, sizeof b);
        }
        return;
    }
    switch (d->dec) {
    case ZDEM_S2_DEC_POINTER:
        /* present bit; a polymorphic pointer (abits = 1) then names its
         * type: stored as 1 + type index */
        out->kind = ZDEM_S2_V_INT;
        out->v.u = zdem_bits_read(br, 1);
        if (out->v.u && d->abits)
            out->v.u = 1u + (uint64_t)zdem_bits_read_ubitvar(br);
        return;
    case ZDEM_S2_DEC_SVAR64:
        out->kind = ZDEM_S2_V_INT;
        out->v.i = zdem_zigzag64(zdem_bits_read_varuint64(br));
        return;
    case ZDEM_S2_DEC_MINUSONE:
        /* value + 1, unsigned: 0 is -1 (wraps through the union, so
         * no out-of-range conversion) */
        out->kind = ZDEM_S2_V_INT;
        out->v.u = zdem_bits_read_varuint64(br) - 1u;
        return;
    case ZDEM_S2_DEC_FIXED64:
        out->kind = ZDEM_S2_V_UINT;
        out->v.u = zdem_bits_read64(br, 64);
        return;
    case ZDEM_S2_DEC_FLOAT:
        out->kind = ZDEM_S2_V_FLOAT;
        out->v.f[0] = read_float(d, br, tick_interval);
        return;
    case ZDEM_S2_DEC_FLOAT64: {
        uint64_t u = zdem_bits_read64(br, 64);
        out->kind = ZDEM_S2_V_DOUBLE;
        memcpy(&out->v.d, &u, sizeof u);
        return;
    }
    case ZDEM_S2_DEC_VECTOR2:
    case ZDEM_S2_DEC_VECTOR3:
    case ZDEM_S2_DEC_VECTOR4:
    case ZDEM_S2_DEC_TRANSFORM: {
        unsigned n = d->dec == ZDEM_S2_DEC_VECTOR2 ? 2u : d->dec == ZDEM_S2_DEC_VECTOR3 ? 3u :
                     d->dec == ZDEM_S2_DEC_VECTOR4 ? 4u : 6u, i;
        out->kind = ZDEM_S2_V_VEC;
        out->n = (uint8_t)n;
        if (d->fkind == ZDEM_S2_F_NORMAL) {
            uint32_t hx = zdem_bits_read(br, 1), hy = zdem_bits_read(br, 1), nz;
            float x = hx ? zdem_s2_read_normal(br) : 0.0f;
            float y = hy ? zdem_s2_read_normal(br) : 0.0f;
            float sum = x * x + y * y, z;
            nz = zdem_bits_read(br, 1);
            z = sum < 1.0f ? sqrtf(1.0f - sum) : 0.0f;
            out->v.f[0] = x;
            out->v.f[1] = y;
            out->v.f[2] = nz ? -z : z;
            return;
        }
        for (i = 0; i < n; i++)
            out->v.f[i] = read_float(d, br, tick_interval);
        return;
    }
    case ZDEM_S2_DEC_QANGLE:
        out->kind = ZDEM_S2_V_VEC;
        out->n = 3;
        switch (d->akind) {
        case ZDEM_S2_A_PITCH_YAW:
            out->v.f[0] = zdem_s2_read_angle(br, d->abits);
            out->v.f[1] = zdem_s2_read_angle(br, d->abits);
            out->v.f[2] = 0.0f;
            return;
        case ZDEM_S2_A_NOSCALE: {
            unsigned i;
            for (i = 0; i < 3; i++)
                out->v.f[i] = zdem_s2_read_noscale(br);
            return;
        }
        case ZDEM_S2_A_BITS: {
            unsigned i;
            for (i = 0; i < 3; i++)
                out->v.f[i] = zdem_s2_read_angle(br, d->abits);
            return;
        }
        default: {
            uint32_t h[3], i;
            for (i = 0; i < 3; i++)
                h[i] = zdem_bits_read(br, 1);
            for (i = 0; i < 3; i++)
                out->v.f[i] = h[i] ? zdem_s2_read_coord(br) : 0.0f;
            return;
        }
        }
    case ZDEM_S2_DEC_STRING: {
        /* bytes past strcap are consumed and counted, not kept */
        uint64_t start = br->pos;
        out->kind = ZDEM_S2_V_STRING;
        out->len = zdem_bits_read_cstr(br, strbuf, strcap);
        out->full_len = (uint32_t)((br->pos - start) / 8u);
        if (out->full_len)
            out->full_len--; /* the terminating NUL */
        return;
    }
    case ZDEM_S2_DEC_BLOB: {
        uint32_t n = zdem_bits_read_varuint32(br), i;
        out->kind = ZDEM_S2_V_STRING;
        if (n > zdem_bits_left(br) / 8u) {
            br->overflow = 1;
            return;
        }
        for (i = 0; i < n; i++) {
            uint32_t c = zdem_bits_read(br, 8);
            if (i < strcap)
                strbuf[i] = (uint8_t)c;
        }
        out->len = n < strcap ? n : strcap;
        out->full_len = n;
        return;
    }
    case ZDEM_S2_DEC_UNKNOWN:
        /* unknown types are enums, ids and handles: a varint of any
         * width reads all of them */
        out->v.u = zdem_bits_read_varuint64(br);
        out->kind = out->v.u > (uint64_t)INT64_MAX ? ZDEM_S2_V_UINT : ZDEM_S2_V_INT;
        return;
    default: /* uvar32, vector counts: an int64 holds every value */
        out->kind = ZDEM_S2_V_INT;
        out->v.u = zdem_bits_read_varuint32(br);
        return;
    }
}
