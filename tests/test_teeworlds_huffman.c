/* Huffman decoder (table and bit-at-a-time) and encoder against the 202
 * vectors of EXPECTED.md A8; int unpacking against libtw2 doc/int.md's
 * examples; then every chunk of every corpus demo decodes and unpacks. */
#include <stdlib.h>
#include <string.h>
#include "teeworlds_demo.h"
#include "teeworlds_huffman.h"
#include "test_teeworlds_common.h"

static size_t parse_hex(const char *s, const char *end, uint8_t *out, size_t cap)
{
    size_t n = 0;
    while (s < end) {
        unsigned v;
        if (*s == ' ') {
            s++;
            continue;
        }
        if (sscanf(s, "%2x", &v) != 1 || n >= cap)
            break;
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

static void check_vectors(void)
{
    static uint8_t raw[4096], comp[4096], out[4096];
    size_t size, nraw, ncomp, nout, lines = 0, ok = 0, ok_bit = 0, ok_enc = 0;
    char *doc = (char *)zdem_tw_load("ddnet_demo-edit-huffman-test-cases.txt", &size);
    char *p, *end;
    zdem_error err;
    if (!CHECK(doc != NULL))
        return;
    p = doc;
    end = doc + size;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *hash;
        if (!nl)
            nl = end;
        hash = memchr(p, '#', (size_t)(nl - p));
        if (hash) {
            lines++;
            nraw = parse_hex(p, hash, raw, sizeof raw);
            ncomp = parse_hex(hash + 1, nl, comp, sizeof comp);
            zdem_error_clear(&err);
            if (zdem_tw_huff_decode(comp, ncomp, out, sizeof out, &nout, &err) == ZDEM_OK &&
                nout == nraw && memcmp(out, raw, nraw) == 0)
                ok++;
            else
                fprintf(stderr, "vector %zu: table decode mismatch\n", lines);
            zdem_error_clear(&err);
            if (zdem_tw_huff_decode_bitwise(comp, ncomp, out, sizeof out, &nout, &err) == ZDEM_OK &&
                nout == nraw && memcmp(out, raw, nraw) == 0)
                ok_bit++;
            if (zdem_tw_huff_encode(raw, nraw, out, sizeof out, &nout) == ZDEM_OK &&
                nout == ncomp && memcmp(out, comp, ncomp) == 0)
                ok_enc++;
            else
                fprintf(stderr, "vector %zu: encode mismatch\n", lines);
        }
        p = nl + 1;
    }
    CHECK_EQ_INT(lines, 202);
    CHECK_EQ_INT(ok, 202);
    CHECK_EQ_INT(ok_bit, 202);
    CHECK_EQ_INT(ok_enc, 202);
    free(doc);
}

static void check_huffman_errors(void)
{
    uint8_t out[8] = {0}, big[300], comp[600];
    size_t n, nc, i;
    zdem_error err;
    /* Empty input and all-ones input (no EOF): a clean error, not a hang. */
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_huff_decode(out, 0, out, sizeof out, &n, &err), ZDEM_ERR_HUFFMAN);
    memset(comp, 0xFF, 64);
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_huff_decode(comp, 64, big, sizeof big, &n, &err) != ZDEM_OK, 1);
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_huff_decode_bitwise(comp, 64, big, sizeof big, &n, &err) != ZDEM_OK, 1);
    /* Output bound. */
    for (i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7);
    CHECK_EQ_INT(zdem_tw_huff_encode(big, sizeof big, comp, sizeof comp, &nc), ZDEM_OK);
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_huff_decode(comp, nc, out, sizeof out, &n, &err), ZDEM_ERR_NO_SPACE);
    /* Every prefix of a valid stream: error or a prefix of the data. */
    for (i = 0; i + 1 < nc; i++) {
        size_t m;
        zdem_error_clear(&err);
        static uint8_t pre[sizeof big];
        zdem_error_clear(&err);
        /* A cut stream must not end in EOF by accident at the full length. */
        if (zdem_tw_huff_decode(comp, i, pre, sizeof pre, &m, &err) == ZDEM_OK)
            CHECK(m < sizeof big && memcmp(pre, big, m) == 0);
    }
}

static void check_ints(void)
{
    /* libtw2 doc/int.md examples: 0, 1, -1, 64. */
    static const uint8_t enc[] = {0x00, 0x01, 0x40, 0x80, 0x01};
    static const int32_t want[] = {0, 1, -1, 64};
    int32_t got[8], back[8];
    int32_t vals[] = {0, 1, -1, 63, 64, -64, -65, 8191, 8192, 2147483647, -2147483647 - 1,
                      123456789, -987654321};
    uint8_t buf[128];
    size_t n, m, i;
    zdem_error err;
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_ints_unpack(enc, sizeof enc, got, 8, &n, &err), ZDEM_OK);
    CHECK_EQ_INT(n, 4);
    for (i = 0; i < 4; i++)
        CHECK_EQ_INT(got[i], want[i]);
    CHECK_EQ_INT(zdem_tw_ints_pack(want, 4, buf, sizeof buf, &m), ZDEM_OK);
    CHECK_EQ_INT(m, sizeof enc);
    CHECK(memcmp(buf, enc, m) == 0);
    /* Round trip over the edges of every length class. */
    CHECK_EQ_INT(zdem_tw_ints_pack(vals, 13, buf, sizeof buf, &m), ZDEM_OK);
    CHECK_EQ_INT(zdem_tw_ints_unpack(buf, m, back, 8, &n, &err), ZDEM_ERR_NO_SPACE);
    {
        int32_t all[16];
        zdem_error_clear(&err);
        CHECK_EQ_INT(zdem_tw_ints_unpack(buf, m, all, 16, &n, &err), ZDEM_OK);
        CHECK_EQ_INT(n, 13);
        for (i = 0; i < 13; i++)
            CHECK_EQ_INT(all[i], vals[i]);
        /* Cut inside the last (5-byte) int. */
        zdem_error_clear(&err);
        CHECK_EQ_INT(zdem_tw_ints_unpack(buf, m - 1, all, 16, &n, &err), ZDEM_ERR_TRUNCATED);
    }
}

/* Every chunk payload of every demo: Huffman + int unpack succeed, table
 * and bitwise decoders agree, messages are whole ints. */
static void check_corpus(void)
{
    static uint8_t out[65536], out2[65536];
    static int32_t ints[16384];
    size_t i;
    for (i = 0; i < ZDEM_TW_CORPUS_N; i++) {
        size_t size, n, n2, k, chunks = 0, bad = 0, differ = 0;
        uint8_t *d = zdem_tw_load(zdem_tw_corpus[i].file, &size);
        zdem_tw_demo_info info;
        zdem_tw_chunk_reader r;
        zdem_tw_chunk c;
        zdem_error err;
        if (!CHECK(d != NULL))
            continue;
        zdem_error_clear(&err);
        CHECK_EQ_INT(zdem_tw_demo_open(d, size, &info, &err), ZDEM_OK);
        zdem_tw_chunks_init(&r, &info, d, size);
        while (zdem_tw_chunks_next(&r, &c, &err) == 1) {
            if (c.kind == ZDEM_TW_CHUNK_TICK || c.size == 0)
                continue;
            chunks++;
            zdem_error_clear(&err);
            if (zdem_tw_huff_decode(c.data, c.size, out, sizeof out, &n, &err) != ZDEM_OK ||
                zdem_tw_ints_unpack(out, n, ints, 16384, &k, &err) != ZDEM_OK) {
                bad++;
                continue;
            }
            if (zdem_tw_huff_decode_bitwise(c.data, c.size, out2, sizeof out2, &n2, &err) != ZDEM_OK ||
                n2 != n || memcmp(out, out2, n) != 0)
                differ++;
        }
        fprintf(stderr, "%s: %zu payload chunks\n", zdem_tw_corpus[i].file, chunks);
        CHECK(chunks > 0);
        CHECK_EQ_INT(bad, 0);
        CHECK_EQ_INT(differ, 0);
        free(d);
    }
}

int main(void)
{
    check_vectors();
    check_huffman_errors();
    check_ints();
    check_corpus();
    return zt_finish();
}
