/* Push (streaming) input gives the same results as the whole-file parse,
 * whatever the piece sizes (1 byte, primes, random), with bounded buffers;
 * a truncated or corrupt stream reports the same error as the file reader.
 * Cross-check values come from EXPECTED.md B3 / peers (message counts). */
#include <stdlib.h>
#include <string.h>

#include "quake3.h"
#include "quake3_push.h"
#include "source2_parse.h"
#include "source2_push.h"
#include "source2_state.h"
#include "teeworlds_push.h"
#include "zdem_test.h"

static uint32_t rng = 12345;
static size_t next_piece(size_t mode)
{
    if (mode < 1000)
        return mode;
    rng = rng * 1103515245u + 12345u;
    return 1 + (rng >> 8) % 40000u;
}

/* ---- Quake III ---------------------------------------------------------- */

typedef struct q3_counts { uint32_t snaps, gamestates, cmds; } q3_counts;

static int q3_snap(void *u, const zdem_q3_parser *p, const zdem_q3_snapshot *s)
{
    (void)p, (void)s;
    ((q3_counts *)u)->snaps++;
    return 0;
}
static int q3_gs(void *u, const zdem_q3_parser *p)
{
    (void)p;
    ((q3_counts *)u)->gamestates++;
    return 0;
}
static int q3_cmd(void *u, const zdem_q3_parser *p, int32_t seq, const char *c, size_t n)
{
    (void)p, (void)seq, (void)c, (void)n;
    ((q3_counts *)u)->cmds++;
    return 0;
}

static void q3_case(const char *rel, int proto, long want_msgs, int want_truncated)
{
    size_t size = 0, modes[] = {1, 7, 4093, 100000, 1000000};
    uint8_t *file = zt_read_file(zt_corpus_path(rel), &size);
    void *mem = malloc(zdem_q3_parser_size());
    zdem_q3_callbacks cb = {q3_gs, q3_snap, q3_cmd, NULL, NULL};
    q3_counts whole = {0, 0, 0};
    zdem_q3_reader r;
    zdem_error err, whole_err;
    zdem_status whole_st;
    size_t m;
    if (!CHECK(file && mem))
        return;
    zdem_error_clear(&err);
    whole_st = zdem_q3_parse_file(zdem_q3_parser_init(mem, zdem_q3_parser_size(), proto, &cb, &whole, &err),
                                  file, size, &r, &err);
    whole_err = err;
    CHECK_EQ_INT(r.index, want_msgs); /* EXPECTED.md B3 framing column */
    CHECK_EQ_INT(whole_st == ZDEM_ERR_TRUNCATED, want_truncated);
    for (m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        q3_counts got = {0, 0, 0};
        zdem_q3_push s;
        zdem_status st = ZDEM_OK;
        size_t pos = 0;
        zdem_error_clear(&err);
        /* no gathering buffer: messages are gathered in the parser's own */
        zdem_q3_push_init(&s, zdem_q3_parser_init(mem, zdem_q3_parser_size(), proto, &cb, &got, &err));
        while (pos < size && st == ZDEM_OK) {
            size_t n = next_piece(modes[m]);
            if (n > size - pos)
                n = size - pos;
            st = zdem_q3_push_feed(&s, file + pos, n, &err);
            pos += n;
        }
        if (st == ZDEM_OK)
            st = zdem_q3_push_end(&s, &err);
        CHECK_EQ_INT(st, whole_st);
        if (st != ZDEM_OK && whole_st != ZDEM_OK) /* same fault, same place */
            CHECK_EQ_INT(err.offset, whole_err.offset);
        CHECK_EQ_INT(s.index, r.index);
        CHECK_EQ_INT(got.snaps, whole.snaps);
        CHECK_EQ_INT(got.gamestates, whole.gamestates);
        CHECK_EQ_INT(got.cmds, whole.cmds);
        CHECK_EQ_INT(s.trailing, r.trailing);
    }
    free(mem);
    free(file);
}

/* ---- Source 2 ------------------------------------------------------------ */

typedef struct s2_counts { uint32_t outer, inner; uint64_t inner_bytes; } s2_counts;

static zdem_status s2_outer(void *u, const zdem_s2_outer *m)
{
    (void)m;
    ((s2_counts *)u)->outer++;
    return ZDEM_OK;
}
static zdem_status s2_inner(void *u, zdem_s2_game g, const zdem_s2_outer *m, const zdem_s2_inner *in)
{
    (void)g, (void)m;
    ((s2_counts *)u)->inner++;
    ((s2_counts *)u)->inner_bytes += in->size;
    return ZDEM_OK;
}

static void s2_case(const char *rel, uint32_t want_outer)
{
    size_t size = 0, need = 2u << 20, modes[] = {1, 13, 65536, 1000000}, m, biggest = 0;
    uint8_t *file = zt_read_file(zt_corpus_path(rel), &size), *scratch, *buf;
    zdem_s2_parse_cbs cbs;
    s2_counts whole = {0, 0, 0};
    zdem_error err;
    zdem_s2_reader r;
    zdem_s2_outer o;
    if (!CHECK(file != NULL))
        return;
    zdem_error_clear(&err);
    zdem_s2_reader_init(&r, file, size);
    while (zdem_s2_next(&r, &o, &err) == 1) /* the gathering buffer bound */
        if (o.stored_size + 15 > biggest)
            biggest = o.stored_size + 15;
    scratch = malloc(need); /* 2 x 1 MiB: corpus frames are < 400 KB */
    buf = malloc(biggest);
    memset(&cbs, 0, sizeof cbs);
    cbs.on_outer = s2_outer;
    cbs.on_inner = s2_inner;
    cbs.ordered = 1;
    CHECK_EQ_INT(zdem_s2_parse(file, size, &cbs, &whole, scratch, need, &err), ZDEM_OK);
    CHECK_EQ_INT(whole.outer, want_outer); /* EXPECTED.md B1 msgs */
    for (m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        s2_counts got = {0, 0, 0};
        zdem_s2_parser ps;
        zdem_status st = ZDEM_OK;
        size_t pos = 0;
        zdem_s2_parser_init(&ps, &cbs, &got, scratch, need, buf, biggest);
        while (pos < size && st == ZDEM_OK) {
            size_t n = next_piece(modes[m]);
            if (n > size - pos)
                n = size - pos;
            st = zdem_s2_parser_feed(&ps, file + pos, n, &err);
            pos += n;
        }
        if (st == ZDEM_OK)
            st = zdem_s2_parser_end(&ps, &err);
        CHECK_EQ_INT(st, ZDEM_OK);
        CHECK_EQ_INT(got.outer, whole.outer);
        CHECK_EQ_INT(got.inner, whole.inner);
        CHECK_EQ_INT(got.inner_bytes, whole.inner_bytes);
    }
    { /* a gather buffer smaller than the frames split across pieces: those
         frames are skipped and reported, every other one is delivered */
        zdem_s2_parser ps;
        s2_counts got = {0, 0, 0};
        zdem_status st = ZDEM_OK;
        size_t pos = 0;
        zdem_s2_parser_init(&ps, &cbs, &got, scratch, need, buf, 64);
        zdem_error_clear(&err);
        while (pos < size && st == ZDEM_OK) { /* 1000-byte pieces split big frames */
            size_t n = size - pos < 1000 ? size - pos : 1000;
            st = zdem_s2_parser_feed(&ps, file + pos, n, &err);
            pos += n;
        }
        CHECK_EQ_INT(st, ZDEM_OK);
        CHECK_EQ_INT(zdem_s2_parser_end(&ps, &err), ZDEM_OK);
        CHECK(ps.warn.count[ZDEM_S2_W_FRAME_LIMIT] > 0);
        CHECK_EQ_INT(got.outer + ps.warn.count[ZDEM_S2_W_FRAME_LIMIT], whole.outer);
    }
    { /* truncated input: everything before the cut, then an error at the
         cut frame, never a crash */
        zdem_s2_parser ps;
        s2_counts got = {0, 0, 0};
        zdem_s2_parser_init(&ps, &cbs, &got, scratch, need, buf, biggest);
        zdem_error_clear(&err);
        CHECK_EQ_INT(zdem_s2_parser_feed(&ps, file, size / 2, &err), ZDEM_OK);
        CHECK_EQ_INT(zdem_s2_parser_end(&ps, &err), ZDEM_ERR_TRUNCATED);
        CHECK(got.outer > 0 && got.outer < whole.outer);
    }
    free(buf);
    free(scratch);
    free(file);
}

/* Source 2 game state through the push input: pieces of any size give the
 * same events, entities and values as the whole file. */
typedef struct s2_digest {
    uint64_t events, event_bytes;
    uint32_t live, tick;
    uint64_t props, prop_sum;
} s2_digest;

static zdem_status s2_ev(void *u, zdem_s2_state *s, const zdem_s2_event *ev)
{
    s2_digest *d = u;
    (void)s;
    d->events++;
    d->event_bytes += ev->name_len + ev->nkeys;
    return ZDEM_OK;
}

static int s2_prop(void *u, const char *name, size_t len, const zdem_s2_value *v)
{
    s2_digest *d = u;
    size_t i;
    d->props++;
    for (i = 0; i < len; i++)
        d->prop_sum = d->prop_sum * 31u + (uint8_t)name[i];
    d->prop_sum = d->prop_sum * 31u + v->v.u + v->len;
    return 0;
}

static void s2_digest_of(zdem_s2_state *s, s2_digest *d)
{
    static uint32_t live[16384];
    static uint64_t tmp[1 << 16];
    uint32_t i, n = zdem_s2_entities_live(s, live, 16384);
    zdem_error e;
    d->live = n;
    d->tick = (uint32_t)zdem_s2_state_tick(s);
    for (i = 0; i < n && i < 16384; i++) {
        zdem_error_clear(&e);
        zdem_s2_entity_props(s, (int32_t)live[i], s2_prop, d, tmp, 1 << 16, &e);
    }
}

static void s2_state_case(const char *rel)
{
    size_t size = 0, modes[] = {1, 7, 4093, 100000}, m;
    uint8_t *file = zt_read_file(zt_corpus_path(rel), &size);
    static uint8_t arena[96u << 20];
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_error err;
    s2_digest whole, got;
    if (!CHECK(file != NULL))
        return;
    memset(&whole, 0, sizeof whole);
    zdem_s2_config_default(&cfg);
    cfg.frame_buffer = 1u << 20;   /* corpus frames are < 400 KB */
    cfg.gather_buffer = 256u << 10; /* stored frames are < 80 KB */
    cfg.on_event = s2_ev;
    cfg.user = &whole;
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_s2_state_init(&s, arena, sizeof arena, &cfg, &err), ZDEM_OK);
    CHECK_EQ_INT(zdem_s2_state_run(s, file, size, -1, &err), ZDEM_OK);
    s2_digest_of(s, &whole);
    CHECK(whole.events > 0 && whole.live > 0 && whole.props > 0);
    for (m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        zdem_status st = ZDEM_OK;
        size_t pos = 0;
        memset(&got, 0, sizeof got);
        cfg.user = &got;
        zdem_error_clear(&err);
        CHECK_EQ_INT(zdem_s2_state_init(&s, arena, sizeof arena, &cfg, &err), ZDEM_OK);
        while (pos < size && st == ZDEM_OK) {
            size_t n = next_piece(modes[m]);
            if (n > size - pos)
                n = size - pos;
            st = zdem_s2_state_feed(s, file + pos, n, &err);
            pos += n;
        }
        if (st == ZDEM_OK)
            st = zdem_s2_state_end(s, &err);
        CHECK_EQ_INT(st, ZDEM_OK);
        s2_digest_of(s, &got);
        CHECK(memcmp(&got, &whole, sizeof got) == 0);
    }
    free(file);
}

/* ---- Teeworlds ------------------------------------------------------------ */

typedef struct zdem_tw_counts { uint32_t events, snaps, msgs; uint64_t ints; int32_t last_tick; } zdem_tw_counts;

static int zdem_tw_ev(void *u, const zdem_tw_event *ev)
{
    zdem_tw_counts *c = u;
    c->events++;
    c->snaps += ev->snap != NULL;
    c->msgs += ev->chunk.kind == ZDEM_TW_CHUNK_MESSAGE;
    c->ints += ev->num_ints;
    c->last_tick = ev->chunk.tick;
    return 0;
}

static void zdem_tw_case(const char *rel, uint32_t want_msgs, int want_crc_ok)
{
    size_t size = 0, modes[] = {1, 9, 5000, 1000000}, m;
    uint8_t *file = zt_read_file(zt_corpus_path(rel), &size);
    static zdem_tw_reader r;
    static uint32_t r_mem[ZDEM_TW_READER_MEM(65536, 1024, 16384) / 4]; /* default limits */
    static uint8_t buf[ZDEM_TW_PUSH_BUFFER];
    zdem_tw_counts whole = {0, 0, 0, 0, 0};
    zdem_tw_event ev;
    zdem_error err;
    int rc;
    if (!CHECK(file != NULL))
        return;
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_reader_init(&r, NULL, r_mem, sizeof r_mem, &err), ZDEM_OK);
    CHECK_EQ_INT(zdem_tw_reader_open(&r, file, size, &err), ZDEM_OK);
    while ((rc = zdem_tw_reader_next(&r, &ev, &err)) == 1)
        zdem_tw_ev(&whole, &ev);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(whole.msgs, want_msgs); /* EXPECTED.md B2 msg column */
    for (m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        zdem_tw_counts got = {0, 0, 0, 0, 0};
        zdem_tw_push s;
        zdem_status st = ZDEM_OK;
        size_t pos = 0;
        zdem_tw_push_init(&s, &r, buf, sizeof buf);
        s.on_event = zdem_tw_ev;
        s.user = &got;
        zdem_error_clear(&err);
        while (pos < size && st == ZDEM_OK) {
            size_t n = next_piece(modes[m]);
            if (n > size - pos)
                n = size - pos;
            st = zdem_tw_push_feed(&s, file + pos, n, &err);
            pos += n;
        }
        if (st == ZDEM_OK)
            st = zdem_tw_push_end(&s, &err);
        CHECK_EQ_INT(st, ZDEM_OK);
        CHECK_EQ_INT(got.events, whole.events);
        CHECK_EQ_INT(got.snaps, whole.snaps);
        CHECK_EQ_INT(got.msgs, whole.msgs);
        CHECK_EQ_INT(got.ints, whole.ints);
        CHECK_EQ_INT(got.last_tick, whole.last_tick);
        CHECK_EQ_INT(s.map_crc_ok, want_crc_ok); /* A9: CRC of the map */
    }
    { /* cut inside the map, then inside the chunk stream */
        zdem_tw_push s;
        zdem_tw_push_init(&s, &r, buf, sizeof buf);
        zdem_error_clear(&err);
        CHECK_EQ_INT(zdem_tw_push_feed(&s, file, 1000, &err), ZDEM_OK);
        CHECK_EQ_INT(zdem_tw_push_end(&s, &err), ZDEM_ERR_TRUNCATED);
    }
    free(file);
}

int main(void)
{
    q3_case("q3/q3-cpma_udt-core-gameplay-dev.dm_68", 68, 72, 0);
    q3_case("q3/q3_udt-truncated.dm_68", 68, 238, 1);
    q3_case("q3/q3-defrag-cpm_demoreader-mega-wood-kreator.dm_68", 68, 2280, 0); /* trailing bytes */
    q3_case("q3/ql_udt-gameplay-default-online.dm_90", 90, 390, 0);
    s2_case("source2/cs2_demofile-net-gotv-14132-de-ancient.dem", 154);
    s2_case("source2/dota2_haste-nekit-pov.dem", 3781);
    s2_state_case("source2/cs2_demofile-net-gotv-14132-de-ancient.dem");
    s2_state_case("source2/dota2_haste-nekit-pov.dem");
    zdem_tw_case("teeworlds/ddnet_webviewer-big-chungus-daydream.demo", 212, 1);
    zdem_tw_case("teeworlds/ddnet_demo-edit-test2-pepeg-v5.demo", 378, 0);
    zdem_tw_case("teeworlds/ddnet_demo-edit-clip-fng.demo", 714, 1);
    return zt_finish();
}
