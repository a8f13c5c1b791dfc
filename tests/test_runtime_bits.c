/* Bit reader against a naive reference that extracts one bit at a time
 * (bit i is bit i%8 of byte i/8, LSB first). Buffers are heap copies of
 * exactly the tested length, so ASan reports any load past the end, in
 * particular from the 64-bit word fast path. */
#include <stdlib.h>
#include <string.h>

#include "zdem_bits.h"
#include "zdem_test.h"

static uint64_t rs = 0xC0FFEE1234567ull;
static uint64_t rnd(void)
{
    return zt_rand(&rs);
}

static unsigned ref_bit(const uint8_t *d, size_t i)
{
    return (d[i >> 3] >> (i & 7)) & 1u;
}

static uint64_t ref_read(const uint8_t *d, size_t pos, unsigned n)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < n; i++)
        v |= (uint64_t)ref_bit(d, pos + i) << i;
    return v;
}

static uint8_t *rand_exact(size_t n)
{
    /* exactly n bytes (ASan catches any read past them); never malloc(0) */
    uint8_t *p = malloc(n ? n : 1), *q, *end;
    if (!p)
        abort();
    /* a pointer walk: gcc -O3 misreads the indexed loop as overflowing */
    for (q = p, end = p + n; q != end; q++)
        *q = (uint8_t)rnd();
    return p;
}

/* Every alignment 0..63 and every width 1..32, in a roomy buffer and in
 * one that ends exactly where the read ends (byte fallback path). */
static void test_alignment_width(void)
{
    int bad = 0, bad_tight = 0, bad_peek = 0;
    unsigned align, width;
    uint8_t *big = rand_exact(32);
    for (align = 0; align < 64; align++) {
        for (width = 1; width <= 32; width++) {
            zdem_bits br;
            uint32_t v;
            size_t tight_len = (align + width + 7) / 8;
            uint8_t *tight;

            zdem_bits_init(&br, big, 32);
            zdem_bits_skip(&br, align);
            if (zdem_bits_peek(&br, width) != (uint32_t)ref_read(big, align, width))
                bad_peek++;
            v = zdem_bits_read(&br, width);
            if (v != (uint32_t)ref_read(big, align, width) ||
                br.pos != align + width || br.overflow)
                bad++;

            tight = malloc(tight_len);
            memcpy(tight, big, tight_len);
            zdem_bits_init(&br, tight, tight_len);
            zdem_bits_skip(&br, align);
            v = zdem_bits_read(&br, width);
            if (v != (uint32_t)ref_read(big, align, width) ||
                br.pos != align + width || br.overflow)
                bad_tight++;
            free(tight);
        }
    }
    free(big);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(bad_tight, 0);
    CHECK_EQ_INT(bad_peek, 0);
}

/* Long random read sequences over random buffers of every small length. */
static void test_sequences(void)
{
    int bad = 0;
    size_t len;
    for (len = 0; len <= 40; len++) {
        int rep;
        for (rep = 0; rep < 40; rep++) {
            uint8_t *d = rand_exact(len);
            zdem_bits br;
            size_t pos = 0;
            zdem_bits_init(&br, d, len);
            for (;;) {
                unsigned op = (unsigned)(rnd() % 4), n;
                if (op == 0) {
                    n = (unsigned)(rnd() % 65);
                    if (pos + n > len * 8)
                        break;
                    if (zdem_bits_read64(&br, n) != ref_read(d, pos, n))
                        bad++;
                } else if (op == 1) {
                    n = 1;
                    if (pos + n > len * 8)
                        break;
                    if ((unsigned)zdem_bits_read_bool(&br) != ref_bit(d, pos))
                        bad++;
                } else if (op == 2) {
                    n = (unsigned)(rnd() % 20);
                    if (pos + n > len * 8)
                        break;
                    zdem_bits_skip(&br, n);
                } else {
                    n = (unsigned)(rnd() % 33);
                    if (pos + n > len * 8)
                        break;
                    if (zdem_bits_read(&br, n) != (uint32_t)ref_read(d, pos, n))
                        bad++;
                }
                pos += n;
                if (br.pos != pos || br.overflow || zdem_bits_left(&br) != len * 8 - pos)
                    bad++;
            }
            free(d);
        }
    }
    CHECK_EQ_INT(bad, 0);
}

/* Past the end: zero result, sticky flag, position clamped, no OOB. */
static void test_overflow(void)
{
    size_t len;
    int bad = 0;
    for (len = 0; len <= 12; len++) {
        unsigned width;
        for (width = 1; width <= 32; width++) {
            size_t start;
            for (start = len * 8 >= width ? len * 8 - width + 1 : 0;
                 start <= len * 8; start++) {
                uint8_t *d = rand_exact(len);
                zdem_bits br;
                zdem_bits_init(&br, d, len);
                zdem_bits_skip(&br, start);
                if (br.overflow)
                    bad++;
                /* Peeking past the end reads zeros past the last byte. */
                if (zdem_bits_peek(&br, width) !=
                    (uint32_t)ref_read(d, start, (unsigned)(len * 8 - start)))
                    bad++;
                if (zdem_bits_read(&br, width) != 0 || !br.overflow ||
                    br.pos != len * 8 || zdem_bits_left(&br) != 0)
                    bad++;
                /* Sticky: later reads keep failing, flag stays. */
                if (zdem_bits_read(&br, 1) != 0 || !br.overflow)
                    bad++;
                if (zdem_bits_read(&br, 0) != 0 || !br.overflow)
                    bad++;
                free(d);
            }
        }
        {
            /* Reading exactly to the end is fine. */
            uint8_t *d = rand_exact(len);
            zdem_bits br;
            size_t i;
            zdem_bits_init(&br, d, len);
            for (i = 0; i < len; i++)
                (void)zdem_bits_read(&br, 8);
            if (br.overflow || zdem_bits_left(&br) != 0)
                bad++;
            zdem_bits_skip(&br, 1);
            if (!br.overflow)
                bad++;
            free(d);
        }
    }
    {
        /* read64 crossing the end, skip far past it. */
        uint8_t *d = rand_exact(5);
        zdem_bits br;
        zdem_bits_init(&br, d, 5);
        zdem_bits_skip(&br, 3);
        if (zdem_bits_read64(&br, 37) != ref_read(d, 3, 37) || br.overflow)
            bad++;
        zdem_bits_init(&br, d, 5);
        zdem_bits_skip(&br, 4);
        (void)zdem_bits_read64(&br, 37);
        if (!br.overflow)
            bad++;
        zdem_bits_init(&br, d, 5);
        zdem_bits_skip(&br, (size_t)-1);
        if (!br.overflow || br.pos != 40)
            bad++;
        free(d);
    }
    CHECK_EQ_INT(bad, 0);
}

/* Writes v as a base-128 varint at bit position pos; returns the new pos. */
static size_t put_bits_varint(uint8_t *buf, size_t pos, uint64_t v, int extra_bytes)
{
    for (;;) {
        unsigned byte = (unsigned)(v & 0x7F), i;
        v >>= 7;
        if (v || extra_bytes > 0)
            byte |= 0x80;
        for (i = 0; i < 8; i++, pos++)
            buf[pos >> 3] |= (uint8_t)(((byte >> i) & 1u) << (pos & 7));
        if (!(byte & 0x80))
            return pos;
        if (!v)
            extra_bytes--;
    }
}

static void test_bit_varints(void)
{
    int bad = 0, k;
    for (k = 0; k < 3000; k++) {
        uint8_t buf[32];
        uint64_t v = rnd() >> (rnd() % 64);
        size_t align = (size_t)(k % 64), end, bytes;
        uint8_t *exact;
        zdem_bits br;
        memset(buf, 0, sizeof buf);
        end = put_bits_varint(buf, align, v, 0);
        bytes = (end + 7) / 8;
        exact = malloc(bytes);
        memcpy(exact, buf, bytes);
        zdem_bits_init(&br, exact, bytes);
        zdem_bits_skip(&br, align);
        if (zdem_bits_read_varuint64(&br) != v || br.pos != end || br.overflow)
            bad++;
        if (v <= 0xFFFFFFFFu) {
            zdem_bits_init(&br, exact, bytes);
            zdem_bits_skip(&br, align);
            if (zdem_bits_read_varuint32(&br) != (uint32_t)v || br.pos != end ||
                br.overflow)
                bad++;
            /* zigzag: 2n -> n, 2n+1 -> -n-1 */
            zdem_bits_init(&br, exact, bytes);
            zdem_bits_skip(&br, align);
            if (zdem_bits_read_varint32(&br) !=
                ((v & 1) ? -(int32_t)(v >> 1) - 1 : (int32_t)(v >> 1)))
                bad++;
        }
        /* Truncated by one byte: overflow, no OOB. */
        free(exact);
        if (bytes > 0 && end - align > 8) {
            exact = malloc(bytes - 1);
            memcpy(exact, buf, bytes - 1);
            zdem_bits_init(&br, exact, bytes - 1);
            zdem_bits_skip(&br, align);
            (void)zdem_bits_read_varuint64(&br);
            if (!br.overflow)
                bad++;
            free(exact);
        }
    }
    CHECK_EQ_INT(bad, 0);
    {
        /* Too many continuation bytes: 6 for 32-bit, 11 for 64-bit. */
        static const uint8_t six[6] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
        static const uint8_t eleven[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                           0x80, 0x80, 0x80, 0x80, 0x01};
        uint8_t *d = malloc(11);
        zdem_bits br;
        memcpy(d, six, 6);
        /* Malformed counts as running off the end: flag, pos at end, 0. */
        zdem_bits_init(&br, d, 6);
        CHECK(zdem_bits_read_varuint32(&br) == 0 && br.overflow && br.pos == 48);
        CHECK(zdem_bits_read(&br, 8) == 0 && br.overflow);
        memcpy(d, eleven, 11);
        zdem_bits_init(&br, d, 11);
        CHECK(zdem_bits_read_varuint64(&br) == 0 && br.overflow && br.pos == 88);
        /* The 5-byte and 10-byte maxima still read. */
        memcpy(d, "\xFF\xFF\xFF\xFF\x0F", 5);
        zdem_bits_init(&br, d, 5);
        CHECK(zdem_bits_read_varuint32(&br) == 0xFFFFFFFFu && !br.overflow);
        memcpy(d, "\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF\x01", 10);
        zdem_bits_init(&br, d, 10);
        CHECK(zdem_bits_read_varuint64(&br) == UINT64_MAX && !br.overflow);
        free(d);
    }
}

static void test_read_bytes(void)
{
    int bad = 0;
    size_t len;
    for (len = 1; len <= 24; len++) {
        size_t align;
        for (align = 0; align < 16 && align < len * 8; align++) {
            size_t n;
            for (n = 0; n * 8 + align <= len * 8 + 8; n++) {
                uint8_t *d = rand_exact(len), out[32], want[32];
                zdem_bits br;
                size_t i;
                int fits = n * 8 + align <= len * 8;
                zdem_bits_init(&br, d, len);
                zdem_bits_skip(&br, align);
                memset(out, 0xEE, sizeof out);
                zdem_bits_read_bytes(&br, out, n);
                if (fits) {
                    for (i = 0; i < n; i++)
                        want[i] = (uint8_t)ref_read(d, align + 8 * i, 8);
                    if (memcmp(out, want, n) != 0 || br.pos != align + 8 * n ||
                        br.overflow)
                        bad++;
                } else {
                    for (i = 0; i < n; i++)
                        if (out[i] != 0)
                            bad++;
                    if (!br.overflow || br.pos != len * 8)
                        bad++;
                }
                if (out[n] != 0xEE) /* wrote exactly n bytes */
                    bad++;
                free(d);
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
}

static void test_empty(void)
{
    static const uint8_t one = 0xAB;
    zdem_bits br;
    uint8_t out[1];
    zdem_bits_init(&br, &one, 0);
    CHECK_EQ_INT(zdem_bits_left(&br), 0);
    CHECK_EQ_INT(zdem_bits_read(&br, 0), 0);
    CHECK(!br.overflow);
    zdem_bits_read_bytes(&br, out, 0);
    CHECK(!br.overflow);
    CHECK_EQ_INT(zdem_bits_read_ubitvar(&br), 0);
    CHECK(br.overflow);
}

int main(void)
{
    test_alignment_width();
    test_sequences();
    test_overflow();
    test_bit_varints();
    test_read_bytes();
    test_empty();
    return zt_finish();
}
