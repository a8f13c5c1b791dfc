/* Byte varints, zigzag, little/big-endian loads and Valve's ubit_var.
 * Expected values are written out from the format definitions (base-128
 * groups, least significant first; zigzag (n << 1) ^ (n >> 63); ubit_var:
 * 6 bits whose top two select 0/4/8/28 more bits above the low nibble),
 * never from our own encoder. Inputs live in exactly-sized heap copies so
 * ASan reports any read past the end. */
#include <stdlib.h>
#include <string.h>

#include "zdem_bits.h"
#include "zdem_varint.h"
#include "zdem_test.h"

static uint8_t *dup_exact(const uint8_t *p, size_t n)
{
    uint8_t *q = malloc(n ? n : 1);
    if (n)
        memcpy(q, p, n);
    return q;
}

typedef struct vcase {
    uint8_t in[12];
    size_t n;
    zdem_status st;
    uint64_t value; /* when st == ZDEM_OK */
    size_t used;    /* bytes consumed when st == ZDEM_OK */
} vcase;

static void run32(const vcase *c, int line)
{
    uint8_t *buf = dup_exact(c->in, c->n);
    const uint8_t *p = buf;
    uint32_t v = 0xDEADBEEFu;
    zdem_status st = zdem_varuint32(&p, buf + c->n, &v);
    if (!CHECK_EQ_INT(st, c->st))
        fprintf(stderr, "  varuint32 case at line %d\n", line);
    if (st == ZDEM_OK) {
        CHECK_EQ_INT(v, c->value);
        CHECK_EQ_INT(p - buf, c->used);
    } else {
        CHECK(p == buf); /* no advance on error */
    }
    free(buf);
}

static void run64(const vcase *c, int line)
{
    uint8_t *buf = dup_exact(c->in, c->n);
    const uint8_t *p = buf;
    uint64_t v = 0;
    zdem_status st = zdem_varuint64(&p, buf + c->n, &v);
    if (!CHECK_EQ_INT(st, c->st))
        fprintf(stderr, "  varuint64 case at line %d\n", line);
    if (st == ZDEM_OK) {
        if (!CHECK(v == c->value))
            fprintf(stderr, "  got %llx want %llx (line %d)\n",
                    (unsigned long long)v, (unsigned long long)c->value, line);
        CHECK_EQ_INT(p - buf, c->used);
    } else {
        CHECK(p == buf);
    }
    free(buf);
}

static void test_varuint32(void)
{
    static const vcase cases[] = {
        {{0x00}, 1, ZDEM_OK, 0, 1},
        {{0x01}, 1, ZDEM_OK, 1, 1},
        {{0x7F}, 1, ZDEM_OK, 127, 1},
        {{0x80, 0x01}, 2, ZDEM_OK, 128, 2},
        {{0xFF, 0x01}, 2, ZDEM_OK, 255, 2},
        {{0xAC, 0x02}, 2, ZDEM_OK, 300, 2}, /* protobuf docs' example */
        {{0xFF, 0x7F}, 2, ZDEM_OK, 16383, 2},
        {{0x80, 0x80, 0x01}, 3, ZDEM_OK, 16384, 3},
        {{0xFF, 0xFF, 0xFF, 0x7F}, 4, ZDEM_OK, 0x0FFFFFFF, 4},
        {{0x80, 0x80, 0x80, 0x80, 0x01}, 5, ZDEM_OK, 0x10000000, 5},
        {{0xFF, 0xFF, 0xFF, 0xFF, 0x07}, 5, ZDEM_OK, 0x7FFFFFFF, 5},
        {{0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, 5, ZDEM_OK, 0xFFFFFFFFu, 5},
        /* Stops at the first byte without the high bit. */
        {{0x05, 0xFF}, 2, ZDEM_OK, 5, 1},
        /* Non-minimal but within 5 bytes: protobuf accepts these. */
        {{0x80, 0x00}, 2, ZDEM_OK, 0, 2},
        {{0x81, 0x80, 0x80, 0x80, 0x00}, 5, ZDEM_OK, 1, 5},
        /* 5th byte carrying bits 32..34: value does not fit. */
        {{0xFF, 0xFF, 0xFF, 0xFF, 0x10}, 5, ZDEM_ERR_VARINT, 0, 0},
        {{0x80, 0x80, 0x80, 0x80, 0x70}, 5, ZDEM_ERR_VARINT, 0, 0},
        /* Over-long: a 5th byte with the continuation bit (6+ bytes). */
        {{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 6, ZDEM_ERR_VARINT, 0, 0},
        {{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, 10, ZDEM_ERR_VARINT, 0, 0},
        /* Truncated. */
        {{0}, 0, ZDEM_ERR_TRUNCATED, 0, 0},
        {{0x80}, 1, ZDEM_ERR_TRUNCATED, 0, 0},
        {{0xFF, 0xFF, 0xFF, 0xFF}, 4, ZDEM_ERR_TRUNCATED, 0, 0},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run32(&cases[i], (int)i);
}

static void test_varuint64(void)
{
    static const vcase cases[] = {
        {{0x00}, 1, ZDEM_OK, 0, 1},
        {{0x7F}, 1, ZDEM_OK, 127, 1},
        {{0x80, 0x01}, 2, ZDEM_OK, 128, 2},
        {{0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, 5, ZDEM_OK, 0xFFFFFFFFull, 5},
        {{0x80, 0x80, 0x80, 0x80, 0x10}, 5, ZDEM_OK, 0x100000000ull, 5},
        {{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}, 9, ZDEM_OK,
         0x7FFFFFFFFFFFFFFFull, 9},
        {{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 10, ZDEM_OK,
         0x8000000000000000ull, 10},
        {{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, 10, ZDEM_OK,
         0xFFFFFFFFFFFFFFFFull, 10},
        /* protobuf's int32 -1: sign-extended to ten bytes. */
        {{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, 10, ZDEM_OK,
         (uint64_t)-1, 10},
        /* 10th byte carrying bit 64 or more. */
        {{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02}, 10, ZDEM_ERR_VARINT, 0, 0},
        {{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}, 10, ZDEM_ERR_VARINT, 0, 0},
        /* 11 bytes. */
        {{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 11, ZDEM_ERR_VARINT, 0, 0},
        {{0}, 0, ZDEM_ERR_TRUNCATED, 0, 0},
        {{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, 9, ZDEM_ERR_TRUNCATED, 0, 0},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run64(&cases[i], (int)i);
}

/* Round trip through an encoder written here, at every varint length. */
static void test_roundtrip(void)
{
    uint64_t x = 0x123456789ABCDEFull;
    int bits, bad = 0;
    for (bits = 0; bits <= 64; bits++) {
        int k;
        for (k = 0; k < 50; k++) {
            uint8_t enc[10];
            size_t n = 0;
            uint64_t v, got = 0;
            const uint8_t *p;
            uint8_t *buf;
            zt_rand(&x);
            v = bits == 64 ? x : bits == 0 ? 0 : (x & ((1ull << bits) - 1)) | (1ull << (bits - 1));
            do {
                enc[n] = (uint8_t)((v >> (7 * n)) & 0x7F);
                n++;
            } while (n < 10 && (v >> (7 * n)) != 0);
            for (size_t i = 0; i + 1 < n; i++)
                enc[i] |= 0x80;
            buf = dup_exact(enc, n);
            p = buf;
            if (zdem_varuint64(&p, buf + n, &got) != ZDEM_OK || got != v ||
                p != buf + n)
                bad++;
            if (bits <= 32) {
                uint32_t g32 = 0;
                p = buf;
                if (zdem_varuint32(&p, buf + n, &g32) != ZDEM_OK || g32 != v ||
                    p != buf + n)
                    bad++;
            } else {
                uint32_t g32 = 0;
                p = buf;
                if (zdem_varuint32(&p, buf + n, &g32) != ZDEM_ERR_VARINT)
                    bad++;
            }
            free(buf);
        }
    }
    CHECK_EQ_INT(bad, 0);
}

static void test_zigzag(void)
{
    CHECK_EQ_INT(zdem_zigzag32(0), 0);
    CHECK_EQ_INT(zdem_zigzag32(1), -1);
    CHECK_EQ_INT(zdem_zigzag32(2), 1);
    CHECK_EQ_INT(zdem_zigzag32(3), -2);
    CHECK_EQ_INT(zdem_zigzag32(4294967294u), 2147483647);
    CHECK_EQ_INT(zdem_zigzag32(4294967295u), -2147483647LL - 1);
    CHECK_EQ_INT(zdem_zigzag64(0), 0);
    CHECK_EQ_INT(zdem_zigzag64(1), -1);
    CHECK_EQ_INT(zdem_zigzag64(2), 1);
    CHECK(zdem_zigzag64(0xFFFFFFFFFFFFFFFEull) == INT64_MAX);
    CHECK(zdem_zigzag64(0xFFFFFFFFFFFFFFFFull) == INT64_MIN);
    {
        /* Matches the definition (n << 1) ^ (n >> 31) inverted. */
        int32_t n;
        int bad = 0;
        for (n = -70000; n <= 70000; n += 7) {
            uint32_t enc = ((uint32_t)n << 1) ^ (n < 0 ? 0xFFFFFFFFu : 0u);
            if (zdem_zigzag32(enc) != n)
                bad++;
        }
        CHECK_EQ_INT(bad, 0);
    }
}

static void test_loads(void)
{
    static const uint8_t b[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88};
    CHECK_EQ_INT(zdem_load_le32(b), 0x04030201);
    CHECK_EQ_INT(zdem_load_be32(b), 0x01020304);
    CHECK(zdem_load_le64(b) == 0x8807060504030201ull);
}

/* ubit_var on hand-encoded bit strings (LSB-first). */
typedef struct ucase {
    uint8_t in[6];
    size_t n;
    uint32_t value;
    size_t bits; /* consumed */
} ucase;

static void test_ubitvar(void)
{
    static const ucase cases[] = {
        /* 000101: top bits 00, value is the 6 bits. */
        {{0x05}, 1, 5, 6},
        {{0x0F}, 1, 15, 6},
        {{0x00}, 1, 0, 6},
        /* 0x1F = 01 1111: 4 more bits (0001 at bits 6..9):
         * 15 | 1 << 4 = 31. Byte 0 = 0x1F | 1 << 6. */
        {{0x5F, 0x00}, 2, 31, 10},
        /* 0x10 with 4 more bits 1111 (bits 6..9): 0 | 15 << 4 = 240.
         * Byte 0 = 0x10 | 0xC0, byte 1 = 0x03. */
        {{0xD0, 0x03}, 2, 240, 10},
        /* 0x2A = 10 1010: 8 more bits 0xFF at bits 6..13:
         * 0xA | 0xFF << 4 = 0xFFA. Byte 0 = 0x2A | 0xC0, byte 1 = 0x3F. */
        {{0xEA, 0x3F}, 2, 0xFFA, 14},
        /* 0x3F = 11 1111: 28 more bits, all ones: 0xFFFFFFFF, 34 bits. */
        {{0xFF, 0xFF, 0xFF, 0xFF, 0x03}, 5, 0xFFFFFFFFu, 34},
        /* 0x30: 28 more bits of zeros: value 0 (non-minimal but valid). */
        {{0x30, 0x00, 0x00, 0x00, 0x00}, 5, 0, 34},
        /* 0x31 + 28 bits 0x0000001 → 1 | 1 << 4 = 17. */
        {{0x71, 0x00, 0x00, 0x00, 0x00}, 5, 17, 34},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *buf = dup_exact(cases[i].in, cases[i].n);
        zdem_bits br;
        uint32_t v;
        zdem_bits_init(&br, buf, cases[i].n);
        v = zdem_bits_read_ubitvar(&br);
        if (!CHECK(v == cases[i].value && br.pos == cases[i].bits && !br.overflow))
            fprintf(stderr, "  ubitvar case %zu: got %u at bit %zu\n", i, v, br.pos);
        free(buf);
    }
    {
        /* Truncated: 0x3F promises 28 more bits but only 2 remain. */
        uint8_t *buf = dup_exact((const uint8_t *)"\xFF", 1);
        zdem_bits br;
        zdem_bits_init(&br, buf, 1);
        (void)zdem_bits_read_ubitvar(&br);
        CHECK(br.overflow);
        free(buf);
    }
    {
        /* Round trip at every bit alignment with an encoder written here
         * that picks the shortest form, as Valve's writer does. */
        uint8_t buf[64];
        uint64_t x = 88172645463325252ull;
        int bad = 0, k;
        for (k = 0; k < 4000; k++) {
            uint32_t v, sel, extra_bits, extra;
            size_t align = (size_t)(k % 64), pos, i, total;
            zdem_bits br;
            zt_rand(&x);
            v = (uint32_t)x >> (x >> 59); /* all magnitudes */
            if (v < 16) {
                sel = 0; extra_bits = 0;
            } else if (v < (1u << 8)) {
                sel = 1; extra_bits = 4;
            } else if (v < (1u << 12)) {
                sel = 2; extra_bits = 8;
            } else {
                sel = 3; extra_bits = 28;
            }
            extra = v >> 4;
            memset(buf, 0, sizeof buf);
            pos = align;
            for (i = 0; i < 4; i++, pos++)
                buf[pos >> 3] |= (uint8_t)(((v >> i) & 1u) << (pos & 7));
            for (i = 0; i < 2; i++, pos++)
                buf[pos >> 3] |= (uint8_t)(((sel >> i) & 1u) << (pos & 7));
            for (i = 0; i < extra_bits; i++, pos++)
                buf[pos >> 3] |= (uint8_t)(((extra >> i) & 1u) << (pos & 7));
            total = (pos + 7) / 8;
            {
                uint8_t *exact = dup_exact(buf, total);
                zdem_bits_init(&br, exact, total);
                zdem_bits_skip(&br, align);
                if (zdem_bits_read_ubitvar(&br) != v || br.pos != pos || br.overflow)
                    bad++;
                free(exact);
            }
        }
        CHECK_EQ_INT(bad, 0);
    }
}

int main(void)
{
    test_varuint32();
    test_varuint64();
    test_roundtrip();
    test_zigzag();
    test_loads();
    test_ubitvar();
    return zt_finish();
}
