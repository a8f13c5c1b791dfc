/* Quake III Huffman reader and framing, against EXPECTED.md A4 (the bit
 * level decode of the first message of 11785_151.dm_68, from UberDemoTools'
 * research notes) and B3/MANIFEST framing facts. */
#include "zdem_test.h"
#include "quake3.h"
#include "quake3_msg.h"

#include <stdlib.h>
#include <string.h>

/* Reference: walk the code tree one bit at a time (ioquake3's way). */
static int tree_byte(const uint8_t *d, size_t len, size_t *bit)
{
    int node = 0;
    for (;;) {
        size_t b = *bit;
        int v = b < len * 8 ? (d[b >> 3] >> (b & 7)) & 1 : 0;
        int next = zdem_q3_huff_tree[node][v];
        (*bit)++;
        if (next == 0x7FFF)
            return -1;
        if (next < 0)
            return -next - 1;
        node = next;
    }
}

static void test_table(void)
{
    int s, codes = 0, bad = 0;
    unsigned i;
    /* every symbol's code decodes back to it, with its length */
    for (s = 0; s < 256; s++) {
        unsigned e = zdem_q3_huff_encode[s];
        unsigned code = e & 0x7FF, n = e >> 11;
        unsigned d = zdem_q3_huff_decode[code];
        if ((d & 0xFF) != (unsigned)s || ((d >> 8) & 15) != n || (d & 0x8000))
            bad++;
        if (n >= 2 && n <= 11)
            codes++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(codes, 256);
    /* facts from id_huff_tree_sorted.txt: symbol 0 is "01" (2 bits),
     * symbol 247 the only 11-bit code "00000000101" */
    CHECK_EQ_INT(zdem_q3_huff_encode[0] >> 11, 2);
    CHECK_EQ_INT(zdem_q3_huff_encode[0] & 0x7FF, 2); /* bits 0,1 = 0,1 */
    CHECK_EQ_INT(zdem_q3_huff_encode[247] >> 11, 11);
    CHECK_EQ_INT(zdem_q3_huff_encode[247] & 0x7FF, 0x500); /* bits 8, 10 set */
    /* exactly one 11-bit pattern is not a code (ioquake3's NYT leaf) */
    for (i = 0, bad = 0; i < 2048; i++)
        if (zdem_q3_huff_decode[i] & 0x8000)
            bad++;
    CHECK_EQ_INT(bad, 1);
}

static void test_a4(void)
{
    size_t size, bit;
    uint8_t *d = zt_read_file(zt_corpus_path("q3/q3_udt-huffman-research-11785_151.dm_68"), &size);
    zdem_q3_reader r;
    zdem_q3_frame f;
    zdem_error err;
    zdem_q3_msg m;
    int got, i;
    size_t n;
    static const uint8_t first8[8] = {0x3d, 0xa8, 0x48, 0x55, 0xb6, 0x1e, 0xcb, 0xbb};
    static const uint8_t sv_fps[10] = {92, 115, 118, 95, 102, 112, 115, 92, 51, 48};
    /* A4: bit positions after each byte of the first configstring */
    static const int after[10] = {51, 59, 67, 75, 83, 91, 99, 108, 117, 124};
    if (!CHECK(d != NULL))
        return;
    zdem_error_clear(&err);
    zdem_q3_reader_init(&r, d, size);
    CHECK_EQ_INT(zdem_q3_reader_next(&r, &f, &got, &err), ZDEM_OK);
    CHECK_EQ_INT(got, 1);
    CHECK_EQ_INT(f.sequence, 11785);
    CHECK(f.len >= 8 && memcmp(f.data, first8, 8) == 0);

    zdem_q3_msg_init(&m, f.data, f.len);
    CHECK_EQ_INT(zdem_q3_read_long(&m), 151);
    CHECK_EQ_INT(m.bit, 16);
    CHECK_EQ_INT(zdem_q3_read_byte(&m), 2); /* svc_gamestate */
    CHECK_EQ_INT(m.bit, 23);
    CHECK_EQ_INT(zdem_q3_read_long(&m), 0);
    CHECK_EQ_INT(m.bit, 31);
    CHECK_EQ_INT(zdem_q3_read_byte(&m), 3); /* svc_configstring */
    CHECK_EQ_INT(m.bit, 38);
    CHECK_EQ_INT(zdem_q3_read_bits(&m, 16), 0);
    CHECK_EQ_INT(m.bit, 42);
    for (i = 0; i < 10; i++) {
        CHECK_EQ_INT(zdem_q3_read_byte(&m), sv_fps[i]);
        CHECK_EQ_INT(m.bit, after[i]);
    }
    /* rest of the BigString, up to its terminating 0 */
    n = 10;
    while (zdem_q3_read_byte(&m) != 0 && !m.overflow)
        n++;
    CHECK_EQ_INT(m.bit, 5245);
    CHECK_EQ_INT(zdem_q3_read_byte(&m), 3);
    CHECK_EQ_INT(m.bit, 5252);
    CHECK_EQ_INT(zdem_q3_read_bits(&m, 16), 1);
    CHECK_EQ_INT(m.bit, 5259);
    while (zdem_q3_read_byte(&m) != 0 && !m.overflow)
        ;
    CHECK_EQ_INT(m.bit, 63617);
    CHECK(!m.overflow && !(m.bad & 0x8000));

    /* The table decoder agrees with a bit-at-a-time tree walk over the
     * whole first message, symbol by symbol. */
    {
        size_t tb = 0;
        int mism = 0, k;
        zdem_q3_msg_init(&m, f.data, f.len);
        for (k = 0; k < 4000; k++) {
            int a = (int)zdem_q3_read_byte(&m);
            int b = tree_byte(f.data, f.len, &tb);
            if (a != b || tb != m.bit)
                mism++;
        }
        CHECK_EQ_INT(mism, 0);
    }
    /* raw low bits: MSG_ReadBits(10) = 2 raw bits, then one coded byte */
    zdem_q3_msg_init(&m, f.data, f.len);
    bit = 0;
    {
        uint32_t v = zdem_q3_read_bits(&m, 10);
        unsigned raw = f.data[0] & 3u;
        int sym;
        bit = 2;
        sym = tree_byte(f.data, f.len, &bit);
        CHECK_EQ_INT(v, raw | ((uint32_t)sym << 2));
        CHECK_EQ_INT(m.bit, bit);
    }
    /* sign extension of MSG_ReadBits(-16) */
    {
        static const uint8_t ff[8] = {0};
        zdem_q3_msg mm;
        zdem_q3_msg_init(&mm, ff, 8);
        CHECK_EQ_INT(zdem_q3__sext(zdem_q3_read_bits(&mm, 1), 1), 0);
    }
    free(d);
}

static void framing_case(const char *rel, zdem_status want, uint32_t want_msgs,
                         uint64_t want_offset, int want_ended, size_t want_trailing)
{
    size_t size;
    uint8_t *d = zt_read_file(zt_corpus_path(rel), &size);
    zdem_q3_reader r;
    zdem_q3_frame f;
    zdem_error err;
    zdem_status st;
    int got;
    if (!CHECK(d != NULL))
        return;
    zdem_error_clear(&err);
    zdem_q3_reader_init(&r, d, size);
    do
        st = zdem_q3_reader_next(&r, &f, &got, &err);
    while (st == ZDEM_OK && got);
    CHECK_EQ_INT(st, want);
    CHECK_EQ_INT(r.index, want_msgs);
    CHECK_EQ_INT(r.ended, want_ended);
    if (st != ZDEM_OK)
        CHECK_EQ_INT(err.offset, want_offset);
    else
        CHECK_EQ_INT(r.trailing, want_trailing);
    free(d);
}

int main(void)
{
    test_table();
    test_a4();
    /* MANIFEST.tsv / EXPECTED.md B3 framing facts */
    framing_case("q3/q3_udt-truncated.dm_68", ZDEM_ERR_TRUNCATED, 238, 20480, 0, 0);
    framing_case("q3/ql_udt-truncated.dm_73", ZDEM_ERR_TRUNCATED, 12964, 1690882, 0, 0);
    framing_case("q3/q3_udt-invalid-area-mask-length.dm_68", ZDEM_ERR_BAD_LENGTH, 7, 4252, 0, 0);
    framing_case("q3/q3-defrag-cpm_demoreader-mega-wood-kreator.dm_68", ZDEM_OK, 2280, 0, 1, 24);
    framing_case("q3/q3-cpma_udt-core-gameplay-dev.dm_68", ZDEM_OK, 72, 0, 1, 0);
    framing_case("q3/q3-1.17_udt-duel.dm3", ZDEM_OK, 18232, 0, 1, 0);
    return zt_finish();
}
