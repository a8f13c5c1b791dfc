/* Quantized-float parameters from a hostile serializer: degenerate and
 * extreme ranges (+-FLT_MAX, denormals, zero-width, NaN, inf) with every
 * flag combination and bit count. Set-up must either fall back (-1) or
 * give a decoder whose values stay inside [low, high]; no float reaches an
 * integer cast out of range (the sanitizer build, float-cast-overflow
 * included, aborts if one does). The corpus's real parameters are in
 * test_source2_state_corpus; these are the ones no game sends. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "zdem_test.h"
#include "source2_fielddecode.h"

int main(void)
{
    const float vals[] = {-FLT_MAX, -3e38f, -1e30f, -4096.0f, -1.0f, -1e-45f, 0.0f,
                          1e-45f, 1e-38f, 0.5f, 1.0f, 360.0f, 1e30f, 3e38f, FLT_MAX};
    const size_t nv = sizeof vals / sizeof vals[0];
    uint8_t bits[64];
    unsigned fallbacks = 0, ok = 0, out_of_range = 0;
    size_t i, j, k;
    int b, flags;
    for (i = 0; i < sizeof bits; i++)
        bits[i] = (uint8_t)(i * 37u + 11u);
    for (i = 0; i < nv; i++)
        for (j = 0; j < nv; j++)
            for (b = -1; b <= 33; b += (b < 4 || b > 28) ? 1 : 5)
                for (flags = 0; flags < 16; flags++) {
                    zdem_s2_qfloat q;
                    if (zdem_s2_qfloat_init(&q, b, vals[i], vals[j], flags) != 0) {
                        fallbacks++;
                        continue;
                    }
                    ok++;
                    for (k = 0; k < 8; k++) {
                        zdem_bits br;
                        float v;
                        zdem_bits_init(&br, bits + k, sizeof bits - k);
                        v = zdem_s2_qfloat_read(&q, &br);
                        /* the decoder produces low..high as set up (the
                         * integer flag widens it to a power of two), within
                         * float rounding of low + range * fraction, or 0 */
                        double lo = (double)(q.low < vals[i] ? q.low : vals[i]);
                        double hi = (double)(q.high > vals[j] ? q.high : vals[j]);
                        double slack = 1e-6 * (fabs(lo) > fabs(hi) ? fabs(lo) : fabs(hi));
                        if (!((double)v >= lo - slack && (double)v <= hi + slack) && v != 0.0f)
                        {
                            out_of_range++;
                            printf("out of range: bits %d low %g high %g flags %d -> %g (q %g..%g)\n", b,
                                   (double)vals[i], (double)vals[j], flags, (double)v, (double)q.low, (double)q.high);
                        }
                    }
                }
    /* NaN and infinities as parameters: always the fallback */
    {
        zdem_s2_qfloat q;
        CHECK_EQ_INT(zdem_s2_qfloat_init(&q, 8, NAN, 1.0f, 0), -1);
        CHECK_EQ_INT(zdem_s2_qfloat_init(&q, 8, 0.0f, INFINITY, 0), -1);
        CHECK_EQ_INT(zdem_s2_qfloat_init(&q, 8, -INFINITY, 0.0f, 2), -1);
        /* a range whose width overflows a float */
        CHECK_EQ_INT(zdem_s2_qfloat_init(&q, 8, -3e38f, 3e38f, 2), -1);
        CHECK_EQ_INT(zdem_s2_qfloat_init(&q, 8, -FLT_MAX, FLT_MAX, 4), -1);
        /* a real one still works: CS2's 8-bit [0, 360) angle-like range */
        CHECK_EQ_INT(zdem_s2_qfloat_init(&q, 8, 0.0f, 360.0f, 0), 0);
    }
    printf("qfloat parameter sets: %u usable, %u fall back, %u values out of range\n", ok,
           fallbacks, out_of_range);
    CHECK(ok > 1000 && fallbacks > 1000);
    CHECK_EQ_INT(out_of_range, 0);
    return zt_finish();
}
