/* Teeworlds storage sized by the caller's limits, on every corpus demo:
 *  - ZDEM_TW_LIMITS_SMALL (about 19 KiB) gives, chunk by chunk, the same
 *    snapshots and messages as the game's bounds (whose output
 *    test_teeworlds_snapref checks against the ddnet_demo_c99 peer), with
 *    no limit hit;
 *  - a limit a real demo exceeds (max_items 32 on clip-fng, whose largest
 *    snapshot holds 58 items) is reported at the first chunk whose
 *    snapshot, read at the game's bounds, holds more than 32 items, names
 *    max_items, and never yields a wrong snapshot: each one it delivers
 *    equals the full-memory one, the others are dropped with a warning;
 *  - memory below zdem_tw_reader_mem_size is refused. */
#include <stdlib.h>
#include <string.h>
#include "teeworlds_reader.h"
#include "zdem_test.h"

static const char *const demos[] = {
    "teeworlds/ddnet_demo-edit-cat-catzone.demo",
    "teeworlds/ddnet_demo-edit-clip-fng.demo",
    "teeworlds/ddnet_demo-edit-test2-pepeg-v5.demo",
    "teeworlds/ddnet_webviewer-big-chungus-daydream.demo",
    "teeworlds/ddnet_webviewer-bit3-noobfilter-touchpad.demo",
    "teeworlds/ddnet_webviewer-gigachad-tutorial.demo",
    "teeworlds/ddnet_webviewer-goat-yeyou3.demo",
};

static zdem_tw_reader full, lim;
static uint32_t full_mem[ZDEM_TW_READER_MEM(65536, 1024, 16384) / 4];
static uint32_t lim_mem[ZDEM_TW_READER_MEM(4096, 128, 1024) / 4];

static int same_snap(const zdem_tw_snap *a, const zdem_tw_snap *b)
{
    uint32_t i, j;
    if (a->num_items != b->num_items)
        return 0;
    /* the same items in the same order (slots may differ) */
    for (i = zdem_tw_snap_first(a), j = zdem_tw_snap_first(b); i != ZDEM_TW_SNAP_END;
         i = zdem_tw_snap_next(a, i), j = zdem_tw_snap_next(b, j))
        if (j == ZDEM_TW_SNAP_END || a->key[i] != b->key[j] || a->len[i] != b->len[j] ||
            memcmp(zdem_tw_snap_data(a, i), zdem_tw_snap_data(b, j), 4u * a->len[i]) != 0)
            return 0;
    return 1;
}

/* Steps both readers over one file. expect_hits 0: everything equal.
 * Otherwise returns the first chunk offset where the full reader's
 * snapshot has more than max_items items (-1 if none) in *first_over,
 * and checks the limited reader's snapshots are equal or missing. */
static void run_pair(const char *rel, const zdem_tw_limits *l, int expect_equal,
                     long long *first_over, unsigned *dropped)
{
    size_t size = 0;
    uint8_t *file = zt_read_file(zt_corpus_path(rel), &size);
    zdem_error ea, eb;
    zdem_tw_event a, b;
    int ra, rb;
    unsigned long events = 0, snaps = 0;
    if (!file) {
        CHECK(file != NULL);
        return;
    }
    zdem_error_clear(&ea);
    zdem_error_clear(&eb);
    *first_over = -1;
    *dropped = 0;
    CHECK_EQ_INT(zdem_tw_reader_init(&full, NULL, full_mem, sizeof full_mem, &ea), ZDEM_OK);
    CHECK_EQ_INT(zdem_tw_reader_init(&lim, l, lim_mem, sizeof lim_mem, &eb), ZDEM_OK);
    CHECK_EQ_INT(zdem_tw_reader_open(&full, file, size, &ea), ZDEM_OK);
    CHECK_EQ_INT(zdem_tw_reader_open(&lim, file, size, &eb), ZDEM_OK);
    for (;;) {
        ra = zdem_tw_reader_next(&full, &a, &ea);
        rb = zdem_tw_reader_next(&lim, &b, &eb);
        if (ra != 1 || rb != 1)
            break;
        events++;
        if (a.chunk.offset != b.chunk.offset || a.chunk.kind != b.chunk.kind) {
            CHECK_EQ_INT(b.chunk.offset, a.chunk.offset);
            break;
        }
        if (a.chunk.kind == ZDEM_TW_CHUNK_MESSAGE) {
            CHECK_EQ_INT(b.num_ints, a.num_ints);
            CHECK_EQ_INT(b.msg.id, a.msg.id);
            CHECK(b.desc == a.desc);
            continue;
        }
        if (!a.snap)
            continue;
        snaps++;
        if (a.snap->num_items > l->max_items && *first_over < 0)
            *first_over = (long long)a.chunk.offset;
        if (expect_equal) {
            if (!CHECK(b.snap && b.warning == NULL && same_snap(a.snap, b.snap)))
                break;
        } else if (b.snap) {
            if (!CHECK(same_snap(a.snap, b.snap)))
                break; /* a delivered snapshot must never be wrong */
        } else {
            CHECK(b.warning != NULL); /* missing: always said */
            (*dropped)++;
        }
    }
    CHECK_EQ_INT(ra, 0);
    CHECK_EQ_INT(rb, 0); /* a limit never stops a stream */
    CHECK_EQ_INT(ea.code, ZDEM_OK);
    CHECK_EQ_INT(eb.code, ZDEM_OK);
    if (expect_equal)
        CHECK_EQ_INT(lim.limit_hits, 0);
    printf("%s: %lu chunks, %lu snapshots; limits %u/%u/%u: %u limit hits, %u snapshots "
           "dropped\n",
           rel, events, snaps, (unsigned)l->max_payload, (unsigned)l->max_items,
           (unsigned)l->max_snap_ints, (unsigned)lim.limit_hits, *dropped);
    free(file);
}

int main(void)
{
    zdem_tw_limits small, tight;
    long long over;
    unsigned dropped, i;
    zdem_error err;
    zdem_tw_reader r;

    zdem_tw_limits_small(&small);
    CHECK(zdem_tw_reader_mem_size(&small) <= sizeof lim_mem);
    CHECK(zdem_tw_reader_mem_size(&small) < 20u * 1024u);
    for (i = 0; i < sizeof demos / sizeof demos[0]; i++)
        run_pair(demos[i], &small, 1, &over, &dropped);

    /* A real demo over a limit. */
    tight = small;
    tight.max_items = 32;
    run_pair("teeworlds/ddnet_demo-edit-clip-fng.demo", &tight, 0, &over, &dropped);
    CHECK(over >= 0); /* the demo does exceed it */
    CHECK(lim.limit_hits > 0 && dropped > 0);
    CHECK_EQ_INT(lim.first_limit.code, ZDEM_ERR_LIMIT);
    CHECK_EQ_INT((long long)lim.first_limit.offset, over);
    CHECK(lim.first_limit.msg && strstr(lim.first_limit.msg, "max_items") != NULL);

    /* Too little memory, or none attached. */
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_reader_init(&r, &small, lim_mem, zdem_tw_reader_mem_size(&small) - 4u, &err),
                 ZDEM_ERR_NO_SPACE);
    memset(&r, 0, sizeof r);
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_reader_open(&r, (const uint8_t *)"TWDEMO", 6, &err), ZDEM_ERR_NO_SPACE);
    return zt_finish();
}
