/* libFuzzer target: byte varints and zigzag. Walks the input as a sequence
 * of varints and cross-checks the 32- and 64-bit readers against each
 * other, against a naive decoder and against the bit reader's varints at
 * byte alignment. libFuzzer hands us an exactly-sized copy, so ASan sees
 * any read past the end. */
#include <stdint.h>
#include <stdlib.h>

#include "zdem_bits.h"
#include "zdem_varint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size;
    while (p < end) {
        const uint8_t *p32 = p, *p64 = p;
        uint32_t v32 = 0;
        uint64_t v64 = 0, naive = 0;
        size_t i, nlen = 0;
        int naive_ok = 0;
        zdem_status s32 = zdem_varuint32(&p32, end, &v32);
        zdem_status s64 = zdem_varuint64(&p64, end, &v64);

        /* Naive: at most 10 bytes, bit 63 is the last bit that may be set. */
        for (i = 0; i < 10 && p + i < end; i++) {
            naive |= (uint64_t)(p[i] & 0x7F) << (7 * i);
            if (!(p[i] & 0x80)) {
                naive_ok = !(i == 9 && p[i] > 1);
                nlen = i + 1;
                break;
            }
        }
        if ((s64 == ZDEM_OK) != naive_ok)
            abort();
        if (s64 == ZDEM_OK && (v64 != naive || (size_t)(p64 - p) != nlen))
            abort();
        if (s64 != ZDEM_OK && p64 != p)
            abort();
        if (s32 == ZDEM_OK &&
            (s64 != ZDEM_OK || v64 != v32 || p64 != p32 || p32 - p > 5))
            abort();
        if (s64 == ZDEM_OK && v64 <= 0xFFFFFFFFu && p64 - p <= 5 && s32 != ZDEM_OK)
            abort();
        if (s32 != ZDEM_OK && p32 != p)
            abort();
        if (s64 == ZDEM_OK) {
            /* zigzag inverts (n << 1) ^ (n >> 63) */
            int64_t z = zdem_zigzag64(v64);
            uint64_t back = ((uint64_t)z << 1) ^ (z < 0 ? UINT64_MAX : 0);
            zdem_bits br;
            if (back != v64)
                abort();
            zdem_bits_init(&br, p, (size_t)(end - p));
            if (zdem_bits_read_varuint64(&br) != v64 || br.overflow ||
                br.pos != (size_t)(p64 - p) * 8)
                abort();
            p = p64;
        } else {
            if (s64 == ZDEM_ERR_TRUNCATED && p + 10 <= end)
                abort();
            p++;
        }
        if (s32 == ZDEM_OK) {
            int32_t z = zdem_zigzag32(v32);
            if ((((uint32_t)z << 1) ^ (z < 0 ? UINT32_MAX : 0)) != v32)
                abort();
        }
    }
    if (size >= 8 && zdem_load_le64(data) !=
        ((uint64_t)zdem_load_le32(data) | ((uint64_t)zdem_load_le32(data + 4) << 32)))
        abort();
    return 0;
}
