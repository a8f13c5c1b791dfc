/* Snapshots and deltas over every corpus demo, plus hand-built deltas for
 * remove / change / add and the bounds.
 *
 * Corpus checks: every delta applies and consumes its data exactly with
 * the pre-agreed sizes of libtw2's doc/snapshot.md (a wrong size would
 * leave or overrun ints), every full snapshot and delta count matches
 * EXPECTED.md B2, and the peer reports no unpack failure either. The
 * peer's "snap_items" totals are not comparable: ddnet_demo_c99 reports
 * e.g. max 55 items for big-chungus-daydream, whose two full snapshots
 * declare 15 items each in their own header and whose 16 deltas remove
 * nothing and add nothing (1-3 changed items each); we log both. */
#include <stdlib.h>
#include <string.h>
#include "teeworlds_demo.h"
#include "teeworlds_huffman.h"
#include "teeworlds_snap.h"
#include "test_teeworlds_common.h"

/* Pre-agreed sizes of the 0.6 protocol, typed in from libtw2's
 * doc/snapshot.md appendix (independent of our schema). */
static const uint8_t sizes06[21] = {0, 10, 6, 5, 4, 3, 8, 4, 15, 22, 5, 17, 3,
                                    2, 2, 2, 2, 3, 3, 3, 3};

static zdem_tw_snapstate st;

static void check_corpus(void)
{
    static uint8_t out[65536];
    static int32_t ints[16384];
    size_t i;
    for (i = 0; i < ZDEM_TW_CORPUS_N; i++) {
        size_t size, n, k;
        long long total = 0, max = 0, last = 0, snaps = 0, fails = 0, unused = 0;
        long long fulls = 0, deltas = 0;
        uint8_t *d = zdem_tw_load(zdem_tw_corpus[i].file, &size);
        char *peer = zdem_tw_peer(zdem_tw_corpus[i].file);
        const char *si;
        zdem_tw_demo_info info;
        zdem_tw_chunk_reader r;
        zdem_tw_chunk c;
        zdem_error err;
        if (!CHECK(d != NULL) || !CHECK(peer != NULL)) {
            free(d);
            free(peer);
            continue;
        }
        zdem_error_clear(&err);
        CHECK_EQ_INT(zdem_tw_demo_open(d, size, &info, &err), ZDEM_OK);
        zdem_tw_snap_init(&st, sizes06, sizeof sizes06);
        zdem_tw_chunks_init(&r, &info, d, size);
        while (zdem_tw_chunks_next(&r, &c, &err) == 1) {
            zdem_status rc;
            if (c.kind != ZDEM_TW_CHUNK_SNAPSHOT && c.kind != ZDEM_TW_CHUNK_DELTA)
                continue;
            zdem_error_clear(&err);
            if (zdem_tw_huff_decode(c.data, c.size, out, sizeof out, &n, &err) != ZDEM_OK ||
                zdem_tw_ints_unpack(out, n, ints, 16384, &k, &err) != ZDEM_OK) {
                fails++;
                continue;
            }
            rc = c.kind == ZDEM_TW_CHUNK_SNAPSHOT ? zdem_tw_snap_load_full(&st, ints, k, &err)
                                             : zdem_tw_snap_apply_delta(&st, ints, k, &err);
            if (rc != ZDEM_OK) {
                fprintf(stderr, "%s: chunk at %zu: %s (int %llu)\n", zdem_tw_corpus[i].file,
                        c.offset, err.msg, (unsigned long long)err.offset);
                fails++;
                continue;
            }
            snaps++;
            if (c.kind == ZDEM_TW_CHUNK_SNAPSHOT) {
                fulls++;
                CHECK_EQ_INT(zdem_tw_snap_current(&st)->num_items, ints[1]);
            } else {
                deltas++;
                unused += (long long)st.delta_unused;
            }
            last = zdem_tw_snap_current(&st)->num_items;
            total += last;
            if (last > max)
                max = last;
        }
        fprintf(stderr, "%s: %lld snapshots, items total %lld max %lld last %lld\n",
                zdem_tw_corpus[i].file, snaps, total, max, last);
        CHECK_EQ_INT(fails, 0);
        CHECK_EQ_INT(unused, 0);
        CHECK_EQ_INT(fulls, zdem_tw_corpus[i].snap);
        CHECK_EQ_INT(deltas, zdem_tw_corpus[i].delta);
        si = strstr(peer, "\"snap_items\":");
        if (CHECK(si != NULL)) {
            CHECK_EQ_INT(0, zdem_tw_json_int(peer, si, "delta_unpack_failures", -1));
            fprintf(stderr, "  peer snap_items (not compared): total %lld max %lld last %lld\n",
                    zdem_tw_json_int(peer, si, "total_over_all_snapshots", -1),
                    zdem_tw_json_int(peer, si, "max", -1), zdem_tw_json_int(peer, si, "last", -1));
        }
        free(d);
        free(peer);
    }
}

static void check_handmade(void)
{
    /* Full: two items, type 4 id 1 (4 ints) and type 30 id 2 (1 int). */
    static const int32_t full[] = {28, 2, 0, 20, (4 << 16) | 1, 10, 20, 30, 40,
                                   (30 << 16) | 2, 7};
    /* Delta: remove type 30 id 2; change type 4 id 1 by +1,-1,0,5 (size
     * pre-agreed); add type 31 id 3 with explicit size 2. */
    static const int32_t delta[] = {1, 2, 0, (30 << 16) | 2,
                                    4, 1, 1, -1, 0, 5,
                                    31, 3, 2, 100, 200};
    const zdem_tw_snap *sn;
    zdem_error err;
    int idx;
    int32_t bad[16];
    zdem_tw_snap_init(&st, sizes06, sizeof sizes06);
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_snap_load_full(&st, full, sizeof full / 4, &err), ZDEM_OK);
    sn = zdem_tw_snap_current(&st);
    CHECK_EQ_INT(sn->num_items, 2);
    CHECK_EQ_INT(zdem_tw_snap_apply_delta(&st, delta, sizeof delta / 4, &err), ZDEM_OK);
    sn = zdem_tw_snap_current(&st);
    CHECK_EQ_INT(sn->num_items, 2);
    CHECK_EQ_INT(zdem_tw_snap_find(sn, (30u << 16) | 2), -1);
    idx = zdem_tw_snap_find(sn, (4u << 16) | 1);
    CHECK(idx >= 0);
    if (idx >= 0) {
        CHECK_EQ_INT(zdem_tw_snap_data(sn, (uint32_t)idx)[0], 11);
        CHECK_EQ_INT(zdem_tw_snap_data(sn, (uint32_t)idx)[1], 19);
        CHECK_EQ_INT(zdem_tw_snap_data(sn, (uint32_t)idx)[3], 45);
    }
    idx = zdem_tw_snap_find(sn, (31u << 16) | 3);
    CHECK(idx >= 0);
    if (idx >= 0) {
        CHECK_EQ_INT(sn->len[idx], 2);
        CHECK_EQ_INT(zdem_tw_snap_data(sn, (uint32_t)idx)[1], 200);
    }
    /* Corrupt deltas fail cleanly and leave the snapshot in place. */
    memcpy(bad, delta, sizeof delta);
    bad[1] = 1000000; /* more deltas than data */
    zdem_error_clear(&err);
    CHECK(zdem_tw_snap_apply_delta(&st, bad, sizeof delta / 4, &err) != ZDEM_OK);
    bad[1] = 2;
    bad[12] = -5; /* negative size */
    zdem_error_clear(&err);
    CHECK(zdem_tw_snap_apply_delta(&st, bad, sizeof delta / 4, &err) != ZDEM_OK);
    bad[12] = 3; /* existing item, size changed */
    bad[10] = 4;
    bad[11] = 1;
    zdem_error_clear(&err);
    CHECK(zdem_tw_snap_apply_delta(&st, bad, sizeof delta / 4, &err) != ZDEM_OK);
    CHECK_EQ_INT(zdem_tw_snap_current(&st)->num_items, 2);
    /* Full snapshot whose size disagrees with its data. */
    memcpy(bad, full, sizeof full);
    bad[0] = 32;
    zdem_error_clear(&err);
    CHECK(zdem_tw_snap_load_full(&st, bad, sizeof full / 4, &err) != ZDEM_OK);
    bad[0] = 28;
    bad[3] = 18; /* misaligned offset */
    zdem_error_clear(&err);
    CHECK(zdem_tw_snap_load_full(&st, bad, sizeof full / 4, &err) != ZDEM_OK);
}

/* 1024 items is the limit; 1025 new items is an error, not an overflow. */
static void check_bounds(void)
{
    static int32_t delta[3 + 1025 * 3];
    size_t i, n = 3;
    zdem_error err;
    delta[0] = 0;
    delta[1] = 1025;
    delta[2] = 0;
    for (i = 0; i < 1025; i++) {
        delta[n++] = 40;
        delta[n++] = (int32_t)i;
        delta[n++] = 0; /* explicit size 0 */
    }
    zdem_tw_snap_init(&st, sizes06, sizeof sizes06);
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_snap_apply_delta(&st, delta, n, &err), ZDEM_ERR_LIMIT);
    delta[1] = 1024;
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_snap_apply_delta(&st, delta, n - 3, &err), ZDEM_OK);
    CHECK_EQ_INT(zdem_tw_snap_current(&st)->num_items, 1024);
}

int main(void)
{
    check_handmade();
    check_bounds();
    check_corpus();
    return zt_finish();
}
