/* libFuzzer target: Valve LZSS decompressor. The input is an LZSS stream
 * ("LZSS", u32 size, commands). It is decompressed into a fixed 64 KiB
 * buffer; besides sanitizer findings it aborts when
 *   - a success does not give exactly the header's size,
 *   - a header size above the buffer is not refused as ZDEM_ERR_NO_SPACE,
 *   - an error is not recorded, or its offset lies outside the input,
 *   - a byte past the header's size was written (canary after it),
 *   - the result differs from a naive element-at-a-time decoder written
 *     here from the format (status, error offset, bytes).
 * libFuzzer hands us an exactly-sized copy, so ASan sees any overread. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zdem_lzss.h"

#define CAP (1u << 16)
#define GUARD 64u

static uint8_t dst[CAP + GUARD], ref[CAP];

/* Naive decoder: one element per step, a bit index that walks the command
 * byte, copies one byte at a time. Same validity rules as zdem_lzss.h. */
static zdem_status naive(const uint8_t *s, size_t n, size_t cap,
                         size_t *out_len, size_t *err_at)
{
    size_t size, pos = 8, out = 0, cmd_pos = 0;
    unsigned k = 8;
    if (n < 4 ? memcmp(s, "LZSS", n) != 0 : memcmp(s, "LZSS", 4) != 0)
        return *err_at = 0, ZDEM_ERR_BAD_MAGIC;
    if (n < 8)
        return *err_at = n, ZDEM_ERR_TRUNCATED;
    size = (size_t)s[4] + ((size_t)s[5] << 8) + ((size_t)s[6] << 16) +
           ((size_t)s[7] << 24);
    if (size > cap)
        return *err_at = 4, ZDEM_ERR_NO_SPACE;
    for (;;) {
        size_t at;
        if (k == 8) {
            if (pos == n)
                return *err_at = pos, ZDEM_ERR_TRUNCATED;
            cmd_pos = pos++;
            k = 0;
        }
        at = pos;
        if ((s[cmd_pos] >> k++) & 1) {
            size_t back, count, i;
            if (n - pos < 2)
                return *err_at = at, ZDEM_ERR_TRUNCATED;
            back = (size_t)s[pos] * 16 + (s[pos + 1] >> 4) + 1;
            count = (size_t)(s[pos + 1] & 0x0F) + 1;
            pos += 2;
            if (count == 1) {
                if (out != size)
                    return *err_at = at, ZDEM_ERR_CORRUPT;
                if (pos != n)
                    return *err_at = pos, ZDEM_ERR_CORRUPT;
                *out_len = out;
                return ZDEM_OK;
            }
            if (back > out || out + count > size)
                return *err_at = at, ZDEM_ERR_CORRUPT;
            for (i = 0; i < count; i++, out++)
                ref[out] = ref[out - back];
        } else {
            if (pos == n)
                return *err_at = at, ZDEM_ERR_TRUNCATED;
            if (out == size)
                return *err_at = at, ZDEM_ERR_CORRUPT;
            ref[out++] = s[pos++];
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t hdr = 0, out = 0, rout = 0, rat = 0, canary, i;
    zdem_error e, he;
    zdem_status st, hs, rs;

    zdem_error_clear(&he);
    hs = zdem_lzss_uncompressed_length(data, size, &hdr, &he);
    /* canary right after the header's size (sequential writes would hit
     * it first); the guard keeps it inside dst */
    canary = hs == ZDEM_OK && hdr <= CAP ? hdr : CAP;
    memset(dst + canary, 0xC3, GUARD);

    zdem_error_clear(&e);
    st = zdem_lzss_decompress(data, size, dst, CAP, &out, &e);
    for (i = 0; i < GUARD; i++)
        if (dst[canary + i] != 0xC3)
            abort();
    if (hs != ZDEM_OK && (st != hs || e.offset != he.offset))
        abort();
    if (st == ZDEM_OK && (hs != ZDEM_OK || out != hdr))
        abort();
    if (hs == ZDEM_OK && hdr > CAP && st != ZDEM_ERR_NO_SPACE)
        abort();
    if (st != ZDEM_OK &&
        (e.code != st || !e.msg || e.offset > size || e.offset_is_bits))
        abort();

    rs = naive(data, size, CAP, &rout, &rat);
    if (rs != st)
        abort();
    if (st == ZDEM_OK && (rout != out || memcmp(ref, dst, out) != 0))
        abort();
    if (st != ZDEM_OK && rat != e.offset)
        abort();
    return 0;
}
