/* libFuzzer target: every bit reader API. Input layout: byte 0 = number of
 * op bytes k, then k op bytes, then the bit stream (copied into an exactly
 * sized heap buffer so ASan sees any over-read). Each op byte selects a
 * reader call (low 4 bits) and its width (high 4 bits, scaled). Results
 * of plain reads are checked against a bit-at-a-time reference; every call
 * must keep pos <= end, and the overflow flag must be sticky and leave pos
 * at the end. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zdem_bits.h"

static uint64_t ref_read(const uint8_t *d, size_t len, size_t pos, unsigned n)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < n && pos + i < len * 8; i++)
        v |= (uint64_t)((d[(pos + i) >> 3] >> ((pos + i) & 7)) & 1u) << i;
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *ops;
    size_t k, len, i;
    uint8_t *buf;
    zdem_bits br;

    if (size < 1)
        return 0;
    k = data[0];
    if (k > size - 1)
        k = size - 1;
    ops = data + 1;
    len = size - 1 - k;
    buf = malloc(len ? len : 1);
    if (len)
        memcpy(buf, data + 1 + k, len);
    zdem_bits_init(&br, buf, len);

    for (i = 0; i < k; i++) {
        unsigned op = ops[i] & 15u, arg = ops[i] >> 4;
        unsigned n = arg * 2u + (op & 1u); /* 0..31 */
        size_t before = br.pos, left = zdem_bits_left(&br);
        int was_over = br.overflow;
        uint64_t want;

        switch (op) {
        case 0: case 1: /* read 1..32 */
            n += 1;
            want = left >= n ? ref_read(buf, len, before, n) : 0;
            if (zdem_bits_read(&br, n) != (uint32_t)want)
                abort();
            break;
        case 2: case 3: /* peek 0..32: never consumes, zeros past the end */
            n += (op & 1u);
            if (zdem_bits_peek(&br, n) != (uint32_t)ref_read(buf, len, before, n))
                abort();
            if (br.pos != before)
                abort();
            break;
        case 4: case 5: /* read64 0..64 */
            n = arg * 4u + (op & 1u) * 2u + (before & 1u); /* 0..63 */
            if (ops[i] == 0xF5)
                n = 64;
            want = left >= n ? ref_read(buf, len, before, n) : 0;
            {
                uint64_t got = zdem_bits_read64(&br, n);
                /* A read64 that overflows in its second half returns the
                 * first half; only the in-range case is exact. */
                if (left >= n && got != want)
                    abort();
            }
            break;
        case 6: /* skip, sometimes huge */
            zdem_bits_skip(&br, arg == 15 ? (size_t)-1 : (size_t)n * 7u);
            break;
        case 7:
            (void)zdem_bits_read_ubitvar(&br);
            break;
        case 8:
            (void)zdem_bits_read_varuint32(&br);
            break;
        case 9:
            (void)zdem_bits_read_varuint64(&br);
            break;
        case 10:
            (void)zdem_bits_read_varint32(&br);
            break;
        case 11:
            want = left >= 1 ? ref_read(buf, len, before, 1) : 0;
            if ((uint64_t)zdem_bits_read_bool(&br) != want)
                abort();
            break;
        case 12: case 13: { /* read_bytes 0..31, checked bytewise */
            uint8_t out[32];
            size_t j;
            zdem_bits_read_bytes(&br, out, n);
            for (j = 0; j < n; j++) {
                uint8_t w = left >= (size_t)n * 8u
                                ? (uint8_t)ref_read(buf, len, before + 8 * j, 8)
                                : 0;
                if (out[j] != w)
                    abort();
            }
            break;
        }
        case 14: /* restart somewhere, clearing the flag */
            zdem_bits_init(&br, buf, len);
            zdem_bits_skip(&br, (size_t)arg * 5u);
            was_over = br.overflow;
            before = br.pos;
            break;
        default:
            (void)zdem_bits_left(&br);
            break;
        }
        if (br.pos > br.end || br.end != len * 8)
            abort();
        if (was_over && !br.overflow)
            abort(); /* sticky */
        if (br.overflow && !was_over && br.pos != br.end)
            abort();
        if (!br.overflow && br.pos < before)
            abort();
    }
    free(buf);
    return 0;
}
