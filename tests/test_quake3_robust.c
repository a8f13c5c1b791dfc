/* Robustness: every truncation of two small demos, corrupted message
 * lengths, random bit flips. Under ASan + UBSan this shows no crash and no
 * hang; the assertions check that a cut file still delivers every whole
 * message before the cut (the frame list of the intact file, whose count
 * matches UberDemoTools' packet count) and that errors carry an offset
 * inside the file. */
#include "zdem_test.h"
#include "quake3.h"
#include "zdem_varint.h"

#include <stdlib.h>
#include <string.h>

static void *mem;

static zdem_status parse(const uint8_t *d, size_t n, int protocol, zdem_q3_reader *r,
                         zdem_error *err)
{
    zdem_q3_parser *p;
    zdem_error_clear(err);
    p = zdem_q3_parser_init(mem, zdem_q3_parser_size(), protocol, NULL, NULL, err);
    if (!p)
        return err->code;
    return zdem_q3_parse_file(p, d, n, r, err);
}

static void truncations(const char *rel, uint32_t want_msgs)
{
    size_t size, n, ends[4096];
    uint32_t count = 0, bad = 0, i;
    uint8_t *d = zt_read_file(zt_corpus_path(rel), &size);
    zdem_q3_reader r;
    zdem_q3_frame f;
    zdem_error err;
    int got;
    if (!CHECK(d != NULL))
        return;
    zdem_error_clear(&err);
    zdem_q3_reader_init(&r, d, size);
    while (zdem_q3_reader_next(&r, &f, &got, &err) == ZDEM_OK && got && count < 4096)
        ends[count++] = (size_t)f.offset + 8 + f.len;
    CHECK_EQ_INT(count, want_msgs);
    CHECK_EQ_INT(parse(d, size, 68, &r, &err), ZDEM_OK);
    for (n = 0; n < size; n++) {
        /* a private copy of exactly n bytes, so ASan sees any overread */
        uint8_t *c = malloc(n ? n : 1);
        zdem_status st;
        uint32_t whole = 0;
        memcpy(c, d, n);
        st = parse(c, n, 68, &r, &err);
        for (i = 0; i < count; i++)
            if (ends[i] <= n)
                whole++;
        /* every cut loses the end marker: it must be reported, after all
         * whole messages were delivered */
        if (st == ZDEM_OK || r.index != whole || err.offset > n)
            bad++;
        free(c);
    }
    CHECK_EQ_INT(bad, 0);
    free(d);
}

static void corrupt_lengths(const char *rel)
{
    size_t size;
    uint8_t *d = zt_read_file(zt_corpus_path(rel), &size);
    static const int32_t lens[] = {-2, -1000000, 16385, 0x7FFFFFFF, 0, 1, 3, 100000};
    uint32_t k, bad = 0;
    zdem_q3_reader r;
    zdem_error err;
    if (!CHECK(d != NULL))
        return;
    for (k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        /* the length field of the 3rd message (offset found by walking) */
        uint8_t *c = malloc(size);
        size_t pos = 0;
        int i;
        zdem_status st;
        memcpy(c, d, size);
        for (i = 0; i < 2; i++)
            pos += 8 + (size_t)(int32_t)zdem_load_le32(c + pos + 4);
        c[pos + 4] = (uint8_t)lens[k];
        c[pos + 5] = (uint8_t)(lens[k] >> 8);
        c[pos + 6] = (uint8_t)(lens[k] >> 16);
        c[pos + 7] = (uint8_t)((uint32_t)lens[k] >> 24);
        st = parse(c, size, 68, &r, &err);
        if (lens[k] < 0 || lens[k] > 16384) {
            if (st != ZDEM_ERR_BAD_LENGTH || err.offset != pos || r.index != 2)
                bad++;
        } else if (st == ZDEM_OK && lens[k] == 0) {
            bad++; /* an empty message cannot hold its reliable-ack long */
        }
        free(c);
    }
    CHECK_EQ_INT(bad, 0);
    free(d);
}

static uint64_t rng = 12345u;
static uint32_t next(void)
{
    return (uint32_t)(zt_rand(&rng) >> 32);
}

static void bit_flips(const char *rel, int rounds)
{
    size_t size;
    uint8_t *d = zt_read_file(zt_corpus_path(rel), &size);
    int k, bad = 0;
    zdem_q3_reader r;
    zdem_error err;
    if (!CHECK(d != NULL))
        return;
    for (k = 0; k < rounds; k++) {
        uint8_t *c = malloc(size);
        int flips = 1 + (int)(next() % 8), j;
        zdem_status st;
        memcpy(c, d, size);
        for (j = 0; j < flips; j++) {
            size_t at = 8 + next() % (size - 8); /* keep the first header */
            c[at] ^= (uint8_t)(1u << (next() % 8));
        }
        st = parse(c, size, (k & 1) ? 68 : 0, &r, &err);
        if (st != ZDEM_OK && (!err.msg || (!err.offset_is_bits && err.offset > size)))
            bad++;
        free(c);
    }
    CHECK_EQ_INT(bad, 0);
    free(d);
}

int main(void)
{
    mem = malloc(zdem_q3_parser_size());
    if (!CHECK(mem != NULL))
        return zt_finish();
    /* message counts: UberDemoTools packets (peers/SUMMARY.md) */
    truncations("q3/q3-cpma_udt-core-gameplay-dev.dm_68", 72);
    truncations("q3/q3-cpma_udt-player-name-colon-space.dm_68", 127);
    corrupt_lengths("q3/q3-cpma_udt-core-gameplay-dev.dm_68");
    corrupt_lengths("q3/q3_udt-one-frag-only-with-plasma.dm_68");
    bit_flips("q3/q3-cpma_udt-core-gameplay-dev.dm_68", 1500);
    bit_flips("q3/ql_udt-gameplay-default-online.dm_90", 300);
    free(mem);
    return zt_finish();
}
