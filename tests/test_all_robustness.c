/* Hostile input across every format (issue 6):
 *  - every truncation of every corpus file under 200 KB: the whole-file
 *    framing walk on each prefix (bytes past the cut are ASan-poisoned), and
 *    the full parse at every prefix length through the push API (fed one
 *    byte at a time, asking after each byte what the end of input would
 *    report: the same state a parse of that prefix reaches, in O(n));
 *  - single-bit flips at sampled positions of every corpus file, full parse;
 * each ends in success or a clean error (status + message), never a crash,
 * a sanitizer report or a hang (ctest's timeout). */
#include <stdlib.h>
#include <string.h>

#include "quake3.h"
#include "quake3_push.h"
#include "source2_parse.h"
#include "source2_push.h"
#include "source2_state.h"
#include "teeworlds_reader.h"
#include "zdem_test.h"

enum fmt { F_S2, F_Q3, F_TW };

typedef struct entry {
    const char *rel;
    enum fmt fmt;
} entry;

/* Every demo in ../shared/corpus/MANIFEST.tsv that zdem reads. */
static const entry files[] = {
    {"q3/q3-1.30_udt-2001-duel2-quakecon.dm_66", F_Q3},
    {"q3/q3-1.31_udt-2002-duel2-cpl-nostromo.dm_67", F_Q3},
    {"q3/q3-1.31-osp_udt-2002-tdm1-cpl-oslo.dm_67", F_Q3},
    {"q3/q3-baseq3_udt-1map-2matches.dm_68", F_Q3},
    {"q3/q3_udt-team-chat.dm_68", F_Q3},
    {"q3/q3-cpma_udt-core-gameplay-dev.dm_68", F_Q3},
    {"q3/q3-cpma_udt-player-name-colon-space.dm_68", F_Q3},
    {"q3/q3-cpma_udt-forfeit-neg-score.dm_68", F_Q3},
    {"q3/q3-cpma_udt-duel.dm_68", F_Q3},
    {"q3/q3-cpma_udt-3matches-2gamestates.dm_68", F_Q3},
    {"q3/q3-cpma_udt-2maps-1match-per-map.dm_68", F_Q3},
    {"q3/q3-cpma_udt-36kills-2suicides.dm_68", F_Q3},
    {"q3/q3-osp_udt-chat.dm_68", F_Q3},
    {"q3/q3-osp_udt-duel1.dm_68", F_Q3},
    {"q3/q3_udt-one-frag-only-with-plasma.dm_68", F_Q3},
    {"q3/q3_udt-excellent-impressive.dm_68", F_Q3},
    {"q3/q3_udt-edawn-1map-2matches.dm_68", F_Q3},
    {"q3/q3_udt-huffman-research-11785_151.dm_68", F_Q3},
    {"q3/q3_udt-truncated.dm_68", F_Q3},
    {"q3/q3_udt-invalid-area-mask-length.dm_68", F_Q3},
    {"q3/q3_udt-cut-door-lift-grenade-100-130.dm_68", F_Q3},
    {"q3/q3-cpma_udt-record-client-number-11.dm_68", F_Q3},
    {"q3/q3-cpma_udt-ctfs-ojfc-06.dm_68", F_Q3},
    {"q3/q3-defrag-cpm_demoreader-mega-wood-kreator.dm_68", F_Q3},
    {"q3/q3-defrag-cpm_demoreader-pornchronostar-tyaz.dm_68", F_Q3},
    {"q3/q3-defrag-cpm_demoreader-puremotion-rody.dm_68", F_Q3},
    {"q3/q3-defrag-vq3_demoreader-cyfio-rlxmini.dm_68", F_Q3},
    {"q3/q3-defrag-vq3_demoreader-runkull2-xunderbird.dm_68", F_Q3},
    {"q3/q3-defrag-vq3_demoreader-un-dead029-winter.dm_68", F_Q3},
    {"q3/zeq2lite_zeq2lite-bench.dm_71", F_Q3},
    {"q3/ql_udt-duel-scores.dm_73", F_Q3},
    {"q3/ql_udt-truncated.dm_73", F_Q3},
    {"q3/ql_udt-gameplay-default-online.dm_90", F_Q3},
    {"q3/ql_udt-team-chat-online.dm_90", F_Q3},
    {"q3/ql_udt-duel-forfeit-spectator.dm_90", F_Q3},
    {"q3/ql_udt-mejtisson-vs-anarki-aerowalk.dm_90", F_Q3},
    {"q3/ql_udt-ctf.dm_90", F_Q3},
    {"q3/ql_udt-freeze-tag.dm_90", F_Q3},
    {"q3/ql_udt-two-midair-awards.dm_90", F_Q3},
    {"q3/ql_udt-duel-forfeit-disconnect.dm_91", F_Q3},
    {"teeworlds/ddnet_demo-edit-clip-fng.demo", F_TW},
    {"teeworlds/ddnet_demo-edit-cat-catzone.demo", F_TW},
    {"teeworlds/ddnet_demo-edit-test2-pepeg-v5.demo", F_TW},
    {"teeworlds/ddnet_webviewer-big-chungus-daydream.demo", F_TW},
    {"teeworlds/ddnet_webviewer-bit3-noobfilter-touchpad.demo", F_TW},
    {"teeworlds/ddnet_webviewer-gigachad-tutorial.demo", F_TW},
    {"teeworlds/ddnet_webviewer-goat-yeyou3.demo", F_TW},
    {"source2/cs2_demofile-net-gotv-14011-cs-italy.dem", F_S2},
    {"source2/cs2_demofile-net-gotv-14065-de-nuke.dem", F_S2},
    {"source2/cs2_demofile-net-gotv-14090-cs-italy.dem", F_S2},
    {"source2/cs2_demofile-net-gotv-14132-de-ancient.dem", F_S2},
    {"source2/cs2_demofile-net-gotv-14150-ag2-de-train.dem", F_S2},
    {"source2/cs2_demofile-net-gotv-14155-de-dust2.dem", F_S2},
    {"source2/cs2_demofile-net-gotv-14160-de-dust2.dem", F_S2},
    {"source2/deadlock_demofile-net-hltv-10423-dl-midtown.dem", F_S2},
    {"source2/dota2_haste-nekit-pov.dem", F_S2},
};

static void *q3_mem;
static zdem_tw_reader *tw;
static void *tw_mem;
static uint8_t *s2_scratch;
static const size_t s2_scratch_cap = 32u << 20;
static uint8_t *gather;
static void *s2_arena;
static const size_t s2_arena_size = (size_t)64 << 20;
static const size_t gather_cap = 4u << 20;
static unsigned long clean_errors, successes;

static int protocol_of(const char *rel)
{
    const char *dot = strrchr(rel, '.');
    return dot && dot[1] == 'd' && dot[3] == '_' ? atoi(dot + 4) : 0;
}

static zdem_status s2_count(void *u, zdem_s2_game g, const zdem_s2_outer *m, const zdem_s2_inner *in)
{
    (void)g, (void)m, (void)in;
    ++*(unsigned long *)u;
    return ZDEM_OK;
}

static void s2_cbs(zdem_s2_parse_cbs *cbs)
{
    memset(cbs, 0, sizeof *cbs);
    cbs->on_inner = s2_count;
    cbs->ordered = 1;
}

/* Full parse; the result must be OK or an error with a message. */
static void full_parse(const entry *e, const uint8_t *d, size_t n)
{
    zdem_error err;
    zdem_status st = ZDEM_OK;
    zdem_error_clear(&err);
    if (e->fmt == F_Q3) {
        /* every other parse at the microcontroller limits: the stores and
         * the pool run full on damaged input too */
        static unsigned calls;
        zdem_q3_reader r;
        zdem_q3_limits lim;
        zdem_q3_parser *p;
        if (calls++ & 1u)
            zdem_q3_limits_small(&lim);
        else
            zdem_q3_limits_default(&lim);
        p = zdem_q3_parser_init_limits(q3_mem, zdem_q3_parser_size(), protocol_of(e->rel),
                                       &lim, NULL, NULL, &err);
        st = p ? zdem_q3_parse_file(p, d, n, &r, &err) : err.code;
    } else if (e->fmt == F_TW) {
        zdem_tw_event ev;
        int rc = 0;
        st = zdem_tw_reader_open(tw, d, n, &err);
        if (st == ZDEM_OK) {
            while ((rc = zdem_tw_reader_next(tw, &ev, &err)) == 1)
                ;
            st = rc < 0 ? err.code : ZDEM_OK;
        }
    } else {
        /* the container with inner messages, then the state layer (string
         * tables, serializers, entities, events) */
        zdem_s2_parse_cbs cbs;
        zdem_s2_config cfg;
        zdem_s2_state *s;
        unsigned long count = 0;
        s2_cbs(&cbs);
        st = zdem_s2_parse(d, n, &cbs, &count, s2_scratch, s2_scratch_cap, &err);
        zdem_s2_config_default(&cfg);
        cfg.frame_buffer = s2_scratch_cap / 2;
        cfg.gather_buffer = 0;
        /* the state layer goes on past damage: it runs whatever the
         * container said */
        if (zdem_s2_state_init(&s, s2_arena, s2_arena_size, &cfg, &err) == ZDEM_OK) {
            zdem_error e2;
            zdem_error_clear(&e2);
            if (zdem_s2_state_run(s, d, n, -1, &e2) != ZDEM_OK && st == ZDEM_OK) {
                st = e2.code;
                err = e2;
            }
        }
    }
    if (st == ZDEM_OK) {
        successes++;
    } else {
        clean_errors++;
        if (!CHECK(err.code != ZDEM_OK && err.msg != NULL))
            fprintf(stderr, "%s: status %d without an error record\n", e->rel, (int)st);
    }
}

/* Framing walk of a prefix through the whole-file readers. */
static void framing_walk(const entry *e, const uint8_t *d, size_t n)
{
    zdem_error err;
    zdem_error_clear(&err);
    if (e->fmt == F_Q3) {
        zdem_q3_reader r;
        zdem_q3_frame f;
        int got = 1;
        zdem_q3_reader_init(&r, d, n);
        while (got && zdem_q3_reader_next(&r, &f, &got, &err) == ZDEM_OK)
            ;
    } else if (e->fmt == F_S2) {
        zdem_s2_header h;
        zdem_s2_reader r;
        zdem_s2_outer m;
        const uint8_t *p;
        size_t pn;
        if (zdem_s2_read_header(d, n, &h, &err) == ZDEM_OK) {
            zdem_s2_reader_init(&r, d, n);
            while (zdem_s2_next(&r, &m, &err) == 1)
                ;
            zdem_error_clear(&err);
            zdem_s2_read_fileinfo(d, n, &h, s2_scratch, s2_scratch_cap, &p, &pn, &err);
        }
    } else {
        zdem_tw_demo_info info;
        zdem_tw_chunk_reader cr;
        zdem_tw_chunk c;
        if (zdem_tw_demo_open(d, n, &info, &err) == ZDEM_OK) {
            zdem_tw_chunks_init(&cr, &info, d, n);
            while (zdem_tw_chunks_next(&cr, &c, &err) == 1)
                ;
        }
    }
}

/* Every prefix through the push API, one byte at a time. */
static void push_every_prefix(const entry *e, const uint8_t *d, size_t n)
{
    size_t i;
    unsigned long ends_ok = 0, ends_err = 0;
    zdem_error err;
    zdem_status st = ZDEM_OK;
    zdem_error_clear(&err);
    if (e->fmt == F_Q3) {
        zdem_q3_push s;
        zdem_q3_parser *p = zdem_q3_parser_init(q3_mem, zdem_q3_parser_size(),
                                                protocol_of(e->rel), NULL, NULL, &err);
        if (!CHECK(p != NULL))
            return;
        zdem_q3_push_init(&s, p);
        for (i = 0; i < n && st == ZDEM_OK; i++) {
            zdem_error e2;
            zdem_error_clear(&e2);
            if (zdem_q3_push_end(&s, &e2) == ZDEM_OK) ends_ok++; else ends_err++;
            st = zdem_q3_push_feed(&s, d + i, 1, &err);
        }
    } else if (e->fmt == F_S2) {
        zdem_s2_parse_cbs cbs;
        zdem_s2_parser ps;
        unsigned long count = 0;
        s2_cbs(&cbs);
        zdem_s2_parser_init(&ps, &cbs, &count, s2_scratch, s2_scratch_cap, gather, gather_cap);
        for (i = 0; i < n && st == ZDEM_OK; i++) {
            zdem_error e2;
            zdem_error_clear(&e2);
            if (zdem_s2_parser_end(&ps, &e2) == ZDEM_OK) ends_ok++; else ends_err++;
            st = zdem_s2_parser_feed(&ps, d + i, 1, &err);
        }
    } else {
        return;
    }
    if (st != ZDEM_OK)
        CHECK(err.msg != NULL);
    CHECK(ends_err > 0); /* most prefixes end inside a frame */
    (void)ends_ok;
}

int main(void)
{
    size_t k;
    uint32_t rng = 1;
    q3_mem = malloc(zdem_q3_parser_size());
    tw = malloc(sizeof *tw);
    tw_mem = malloc(zdem_tw_reader_mem_size(NULL));
    if (tw && tw_mem)
        zdem_tw_reader_init(tw, NULL, tw_mem, zdem_tw_reader_mem_size(NULL), NULL);
    s2_scratch = malloc(s2_scratch_cap);
    gather = malloc(gather_cap);
    s2_arena = malloc(s2_arena_size);
    for (k = 0; k < sizeof files / sizeof files[0]; k++) {
        const entry *e = &files[k];
        size_t n = 0, len, flips, j;
        uint8_t *d = zt_read_file(zt_corpus_path(e->rel), &n);
        if (!CHECK(d != NULL)) {
            fprintf(stderr, "cannot read %s\n", e->rel);
            continue;
        }
        if (n < 200000) {
            for (len = 0; len <= n; len++) {
                ZT_POISON(d + len, n - len);
                framing_walk(e, d, len);
                ZT_UNPOISON(d + len, n - len);
            }
            push_every_prefix(e, d, n);
        }
        /* Bit flips: the first 64 bytes (headers) and positions spread over
         * the file; more for small files, where each parse is cheap. */
        flips = n < 300000 ? 48 : 12;
        for (j = 0; j < flips; j++) {
            size_t pos;
            uint8_t bit;
            rng = rng * 1664525u + 1013904223u;
            pos = j < 8 ? (rng >> 8) % (n < 64 ? n : 64) : (size_t)(((uint64_t)(rng >> 4)) % n);
            bit = (uint8_t)(1u << ((rng >> 28) & 7u));
            d[pos] ^= bit;
            full_parse(e, d, n);
            d[pos] ^= bit;
        }
        free(d);
    }
    printf("bit-flip parses: %lu ok, %lu clean errors\n", successes, clean_errors);
    CHECK(clean_errors > 0);
    free(q3_mem);
    free(tw);
    free(tw_mem);
    free(s2_scratch);
    free(gather);
    free(s2_arena);
    return zt_finish();
}
