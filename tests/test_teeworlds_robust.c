/* Hostile input: every truncation of one corpus demo (every cut in the
 * header and chunk stream; inside the 1.2 MB embedded map, which the
 * reader never reads, every 4099th), corrupted chunk
 * sizes, random bit flips in the chunk stream. The reader must end each
 * run with 0 or -1 (never crash, hang or read out of bounds: run this
 * under ASan + UBSan), and a truncated stream must deliver every whole
 * chunk before reporting the cut one. */
#include <stdlib.h>
#include <string.h>
#include "teeworlds_reader.h"
#include "test_teeworlds_common.h"

static zdem_tw_reader rd;
static uint32_t rd_mem[ZDEM_TW_READER_MEM(65536, 1024, 16384) / 4]; /* default limits */

/* Deterministic (zt_rand): reproducible failures. */
static uint64_t rng = 0x2545F491u;
static uint32_t next_rand(void)
{
    return (uint32_t)(zt_rand(&rng) >> 32);
}

/* Runs the reader to the end; returns rc, counts chunks. */
static int run(const uint8_t *d, size_t n, size_t *chunks, size_t *last_end, zdem_error *err)
{
    zdem_tw_event ev;
    int rc;
    size_t guard = 0;
    *chunks = 0;
    *last_end = 0;
    zdem_error_clear(err);
    if (zdem_tw_reader_open(&rd, d, n, err) != ZDEM_OK)
        return -2;
    while ((rc = zdem_tw_reader_next(&rd, &ev, err)) == 1) {
        (*chunks)++;
        *last_end = rd.chunks.pos;
        /* Each chunk takes at least one byte: progress is guaranteed. */
        if (++guard > n + 1)
            return -3;
    }
    return rc;
}

static void check_truncations(const char *file)
{
    size_t size, cut, full_chunks, end, chunks, data_offset, tried = 0;
    uint8_t *d = zdem_tw_load(file, &size);
    uint8_t *copy;
    zdem_error err;
    size_t *chunk_end; /* file offset where chunk i ends */
    size_t bad_rc = 0, bad_count = 0, bad_offset = 0, header_fail = 0;
    if (!CHECK(d != NULL))
        return;
    CHECK_EQ_INT(run(d, size, &full_chunks, &end, &err), 0);
    data_offset = rd.info.data_offset;
    chunk_end = calloc(full_chunks + 1, sizeof *chunk_end);
    {
        zdem_tw_event ev;
        size_t k = 0;
        zdem_tw_reader_open(&rd, d, size, &err);
        while (zdem_tw_reader_next(&rd, &ev, &err) == 1)
            chunk_end[k++] = rd.chunks.pos;
    }
    /* A private allocation of exactly `cut` bytes per length: ASan then
     * sees any read past the cut. The map bytes are not copied (the
     * reader only takes a view of them). */
    for (cut = 0; cut < size; cut++) {
        int rc;
        size_t whole = 0, head = cut < 1024 ? cut : 1024;
        if (cut > 1024 && cut + 1024 < data_offset && cut % 4099 != 0)
            continue;
        tried++;
        copy = malloc(cut ? cut : 1);
        memcpy(copy, d, head);
        if (cut > data_offset)
            memcpy(copy + data_offset, d + data_offset, cut - data_offset);
        else if (cut > head)
            memcpy(copy + cut - 1024, d + cut - 1024, 1024);
        rc = run(copy, cut, &chunks, &end, &err);
        free(copy);
        if (rc == -2) {
            header_fail++;
            continue;
        }
        /* Whole chunks that fit before the cut must all be delivered. A
         * cut exactly at a chunk boundary is a clean (shorter) demo. */
        while (whole < full_chunks && chunk_end[whole] <= cut)
            whole++;
        if (rc != 0 && rc != -1)
            bad_rc++;
        else if (chunks != whole)
            bad_count++;
        else if (rc == -1 && (err.offset < (whole ? chunk_end[whole - 1] : data_offset) ||
                              err.offset > cut))
            bad_offset++;
    }
    fprintf(stderr, "%s: %zu truncations tried, %zu fail in the header/map\n", file, tried,
            header_fail);
    CHECK_EQ_INT(bad_rc, 0);
    CHECK_EQ_INT(bad_count, 0);
    CHECK_EQ_INT(bad_offset, 0);
    CHECK(header_fail > 0);
    free(chunk_end);
    free(d);
}

static void check_mutations(const char *file, int rounds)
{
    size_t size, chunks, end, errors = 0, bad = 0;
    uint8_t *d = zdem_tw_load(file, &size);
    uint8_t *m;
    zdem_tw_demo_info info;
    zdem_error err;
    int r;
    if (!CHECK(d != NULL))
        return;
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_demo_open(d, size, &info, &err), ZDEM_OK);
    m = malloc(size);
    for (r = 0; r < rounds; r++) {
        int flips = 1 + (int)(next_rand() % 8), k, rc;
        size_t span = size - info.data_offset;
        memcpy(m, d, size);
        for (k = 0; k < flips; k++) {
            size_t at = info.data_offset + next_rand() % span;
            if (r % 3 == 0)
                m[at] = (uint8_t)next_rand();           /* corrupt a byte (sizes too) */
            else
                m[at] ^= (uint8_t)(1u << (next_rand() % 8)); /* flip a bit */
        }
        rc = run(m, size, &chunks, &end, &err);
        if (rc == -1)
            errors++;
        else if (rc != 0)
            bad++;
    }
    /* Header fields too: sizes, version, marker count. */
    for (r = 0; r < 2000; r++) {
        int rc;
        memcpy(m, d, size);
        m[next_rand() % info.data_offset < 600 ? next_rand() % 600 : 7] = (uint8_t)next_rand();
        rc = run(m, size, &chunks, &end, &err);
        if (rc != 0 && rc != -1 && rc != -2)
            bad++;
    }
    fprintf(stderr, "%s: %d mutated runs, %zu ended in an error\n", file, rounds, errors);
    CHECK_EQ_INT(bad, 0);
    CHECK(errors > 0);
    free(m);
    free(d);
}

/* Chunk size escapes pointing far past the end. */
static void check_sizes(void)
{
    uint8_t f[ZDEM_TW_HEADER_SIZE + ZDEM_TW_MARKERS_SIZE + 8];
    size_t n, chunks, end;
    zdem_error err;
    memset(f, 0, sizeof f);
    memcpy(f, "TWDEMO\0\6", 8);
    n = ZDEM_TW_HEADER_SIZE + ZDEM_TW_MARKERS_SIZE;
    f[n++] = 0x20 | 31; f[n++] = 0xFF; f[n++] = 0xFF; /* 65535-byte snapshot */
    f[n++] = 0;
    CHECK_EQ_INT(run(f, n, &chunks, &end, &err), -1);
    CHECK_EQ_INT(err.code, ZDEM_ERR_TRUNCATED);
    CHECK_EQ_INT(err.offset, ZDEM_TW_HEADER_SIZE + ZDEM_TW_MARKERS_SIZE);
    CHECK_EQ_INT(chunks, 0);
}

/* A v5 demo without a map: tick 100, a snapshot chunk with the given
 * ints, tick 150, an empty message chunk; header length `length`. */
static size_t build_demo(uint8_t *f, size_t cap, int32_t length, const int32_t *ints, size_t nints)
{
    uint8_t packed[64], huff[64];
    size_t n, plen, hlen;
    memset(f, 0, cap);
    memcpy(f, "TWDEMO\0\5", 8);
    f[8 + 144] = (uint8_t)(length >> 24); f[8 + 145] = (uint8_t)(length >> 16);
    f[8 + 146] = (uint8_t)(length >> 8); f[8 + 147] = (uint8_t)length;
    n = ZDEM_TW_HEADER_SIZE + ZDEM_TW_MARKERS_SIZE;
    f[n++] = 0x80; f[n++] = 0; f[n++] = 0; f[n++] = 0; f[n++] = 100;
    CHECK_EQ_INT(zdem_tw_ints_pack(ints, nints, packed, sizeof packed, &plen), ZDEM_OK);
    CHECK_EQ_INT(zdem_tw_huff_encode(packed, plen, huff, sizeof huff, &hlen), ZDEM_OK);
    f[n++] = (uint8_t)(0x20 | hlen);
    memcpy(f + n, huff, hlen);
    n += hlen;
    f[n++] = 0x80; f[n++] = 0; f[n++] = 0; f[n++] = 0; f[n++] = 150;
    f[n++] = 0x40; /* empty message chunk */
    return n;
}

/* A snapshot over the item bound is dropped with a warning and the stream
 * goes on (the game drops it too); a stream short of the header's length
 * is truncated at its end. */
static void check_limit_and_length(void)
{
    uint8_t f[ZDEM_TW_HEADER_SIZE + ZDEM_TW_MARKERS_SIZE + 64];
    const int32_t over[2] = {0, ZDEM_TW_SNAP_MAX_ITEMS + 1}, empty[2] = {0, 0};
    zdem_tw_event ev;
    zdem_error err;
    size_t n = build_demo(f, sizeof f, 1, over, 2);
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_reader_open(&rd, f, n, &err), ZDEM_OK);
    CHECK_EQ_INT(zdem_tw_reader_next(&rd, &ev, &err), 1);
    CHECK_EQ_INT(ev.chunk.kind, ZDEM_TW_CHUNK_TICK);
    CHECK_EQ_INT(zdem_tw_reader_next(&rd, &ev, &err), 1);
    CHECK_EQ_INT(ev.chunk.kind, ZDEM_TW_CHUNK_SNAPSHOT);
    CHECK(ev.warning != NULL && ev.snap == NULL);
    CHECK_EQ_INT(zdem_tw_reader_next(&rd, &ev, &err), 1);
    CHECK_EQ_INT(ev.chunk.tick, 150);
    CHECK_EQ_INT(zdem_tw_reader_next(&rd, &ev, &err), 1);
    CHECK_EQ_INT(ev.chunk.kind, ZDEM_TW_CHUNK_MESSAGE);
    CHECK(ev.warning == NULL);
    CHECK_EQ_INT(zdem_tw_reader_next(&rd, &ev, &err), 0); /* 50 ticks: 1 s, as the header says */
    CHECK_EQ_INT(err.code, ZDEM_OK);

    n = build_demo(f, sizeof f, 2, empty, 2); /* header: 2 s, ticks: 1 s */
    CHECK_EQ_INT(zdem_tw_reader_open(&rd, f, n, &err), ZDEM_OK);
    while (zdem_tw_reader_next(&rd, &ev, &err) == 1)
        CHECK(ev.warning == NULL);
    CHECK_EQ_INT(err.code, ZDEM_ERR_TRUNCATED);
    CHECK_EQ_INT(err.offset, n);
    CHECK_EQ_INT(zdem_tw_reader_next(&rd, &ev, &err), 0); /* reported once */
}

int main(void)
{
    zdem_tw_reader_init(&rd, NULL, rd_mem, sizeof rd_mem, NULL); /* once: open resets it */
    check_sizes();
    check_limit_and_length();
    check_truncations("ddnet_webviewer-big-chungus-daydream.demo");
    check_mutations("ddnet_webviewer-big-chungus-daydream.demo", 1500);
    check_mutations("ddnet_demo-edit-test2-pepeg-v5.demo", 300);
    return zt_finish();
}
