/* The broadcast framing of the library (zdem_s2_broadcast_*), on the
 * corpus's first Deadlock broadcast (DemoFile.Net's fixture; its reading is
 * checked against DemoFile.Net's snapshot and the .dem reading by
 * tests/test_live_broadcast.sh) and on crafted input:
 *  - sync.json: every member of the fixture's, crafted objects (nesting,
 *    escapes, numbers in every form) and the errors;
 *  - the fragments in the order zdem_s2_broadcast_next names them; fed
 *    whole, then in pieces of 1, 3, 509, 4096 and random sizes: the same
 *    events (every key), entities and warnings each time, nothing gathered
 *    beyond the gather buffer;
 *  - the events mode gives the same events;
 *  - a gather buffer smaller than some records: those split across pieces
 *    are skipped as frame_limit, the run goes on;
 *  - bytes after the end record are passed over; max_fragment stops the
 *    run with ZDEM_ERR_LIMIT; a state without a gather buffer is refused.
 * Prints the arena peak (the memory a broadcast run needs). */
#include <stdlib.h>
#include <string.h>
#include "source2_broadcast.h"
#include "zdem_test.h"

#define BC "source2-broadcast/deadlock-demofile-net/"
#define ARENA ((size_t)96 << 20)

typedef struct frag {
    uint8_t *data;
    size_t size;
} frag;

static frag frags[16];
static unsigned nfrags;

typedef struct digest {
    uint64_t h;
    uint32_t events;
} digest;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static zdem_status on_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    digest *d = user;
    uint32_t i;
    (void)s;
    if (ev->type != ZDEM_S2_EV_GAME_EVENT)
        return ZDEM_OK;
    d->events++;
    d->h = fnv(d->h, &ev->tick, sizeof ev->tick);
    d->h = fnv(d->h, ev->name, ev->name_len);
    for (i = 0; i < ev->nkeys; i++) {
        const zdem_s2_value *v = &ev->keys[i].value;
        d->h = fnv(d->h, ev->keys[i].name, ev->keys[i].name_len);
        d->h = fnv(d->h, &v->kind, 1);
        if (v->kind == ZDEM_S2_V_STRING)
            d->h = fnv(d->h, v->s, v->len);
        else
            d->h = fnv(d->h, &v->v, sizeof v->v);
    }
    return ZDEM_OK;
}

typedef struct result {
    zdem_status st;
    digest d;
    uint32_t entities;
    uint32_t classes;
    uint32_t frame_limit, damage;
    uint32_t records;
    size_t peak, fixed;
} result;

static const char sync_text[] =
    "{\"tick\":7244,\"endtick\":7424,\"maxtick\":8504,\"rtdelay\":19.572,\"rcvage\":0.511,"
    "\"fragment\":22,\"signup_fragment\":0,\"tps\":60,\"keyframe_interval\":3,"
    "\"map\":\"street_test\",\"protocol\":5}";

/* Reads the broadcast: pieces of `piece` bytes (0: whole fragments; a
 * negative: random sizes up to -piece). */
static result read_broadcast(long piece, int events_only, size_t gather, uint64_t max_fragment,
                             const uint8_t *tail, size_t tail_len)
{
    static uint8_t *arena;
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_s2_broadcast b;
    zdem_s2_bc_sync sync;
    zdem_s2_bc_kind kind;
    zdem_s2_usage use;
    zdem_error err;
    int64_t num;
    unsigned i = 0;
    uint64_t rnd = 0x9E3779B97F4A7C15ull;
    result r;
    memset(&r, 0, sizeof r);
    r.d.h = 14695981039346656037ull;
    if (!arena)
        arena = malloc(ARENA);
    if (events_only)
        zdem_s2_config_events(&cfg);
    else
        zdem_s2_config_default(&cfg);
    cfg.gather_buffer = gather;
    cfg.on_event = on_event;
    cfg.user = &r.d;
    zdem_error_clear(&err);
    if (!CHECK(arena && zdem_s2_state_init(&s, arena, ARENA, &cfg, &err) == ZDEM_OK) ||
        !CHECK(zdem_s2_broadcast_sync((const uint8_t *)sync_text, sizeof sync_text - 1, &sync, &err) == ZDEM_OK) ||
        !CHECK(zdem_s2_broadcast_init(&b, s, &sync, &err) == ZDEM_OK)) {
        r.st = ZDEM_ERR_CORRUPT;
        return r;
    }
    if (max_fragment)
        b.max_fragment = max_fragment;
    while (i < nfrags && zdem_s2_broadcast_next(&b, &kind, &num)) {
        const uint8_t *p = frags[i].data;
        size_t left = frags[i].size;
        zdem_status st = zdem_s2_broadcast_begin(&b, kind, num, &err);
        while (st == ZDEM_OK && left) {
            size_t n = left;
            if (piece > 0)
                n = (size_t)piece;
            else if (piece < 0)
                n = 1 + (size_t)(zt_rand(&rnd) % (uint64_t)-piece);
            if (n > left)
                n = left;
            st = zdem_s2_broadcast_feed(&b, p, n, &err);
            p += n;
            left -= n;
        }
        if (st == ZDEM_OK && i + 1 == nfrags && tail_len)
            st = zdem_s2_broadcast_feed(&b, tail, tail_len, &err);
        if (st != ZDEM_OK)
            break;
        (void)zdem_s2_broadcast_end_fragment(&b, &err);
        i++;
    }
    r.records = b.records;
    r.st = zdem_s2_broadcast_end(&b, &err);
    r.entities = zdem_s2_entity_count(s);
    r.classes = zdem_s2_class_count(s);
    r.frame_limit = zdem_s2_state_warnings(s)->count[ZDEM_S2_W_FRAME_LIMIT];
    r.damage = zdem_s2_state_warnings(s)->count[ZDEM_S2_W_BAD_FRAMES] +
               zdem_s2_state_warnings(s)->count[ZDEM_S2_W_BAD_PACKETS] +
               zdem_s2_state_warnings(s)->count[ZDEM_S2_W_BAD_MESSAGES];
    zdem_s2_state_usage(s, &use);
    r.peak = use.arena_peak;
    r.fixed = zdem_s2_state_fixed_size(&cfg);
    if (tail_len)
        CHECK_EQ_INT(b.after_end, tail_len);
    return r;
}

static void sync_tests(void)
{
    zdem_s2_bc_sync s;
    zdem_error e;
    static const char *const bad[] = {
        "", "[]", "{", "{\"fragment\":22", "{\"fragment\":22,}", "{\"fragment\" 22}",
        "{\"fragment\":2.5}", "{\"fragment\":\"22\"}", "{\"tick\":1}", "{\"fragment\":-}",
        "{\"fragment\":22} x", "{\"fragment\":22,\"x\":[1,}", "{\"fragment\":22,\"map\":\"cut",
        "{\"fragment\":1e}", "{\"fragment\":22,\"x\":]}",
    };
    unsigned i;
    const char *nest = "{ \"x\" : {\"a\":[1,{\"b\":\"}\\\"]\"}],\"c\":null}, \"fragment\" : 35 ,"
                       "\"rtdelay\":-1.5e2,\"rcvage\":2E-1,\"map\":\"a\\\"b\",\"ok\":true,"
                       "\"token_redirect\":\"s1t2\\/\",\"signup_fragment\":-3}\n";
    zdem_error_clear(&e);
    CHECK(zdem_s2_broadcast_sync((const uint8_t *)sync_text, sizeof sync_text - 1, &s, &e) == ZDEM_OK);
    CHECK_EQ_INT(s.tick, 7244);
    CHECK_EQ_INT(s.endtick, 7424);
    CHECK_EQ_INT(s.maxtick, 8504);
    CHECK_EQ_INT(s.fragment, 22);
    CHECK_EQ_INT(s.signup_fragment, 0);
    CHECK_EQ_INT(s.tps, 60);
    CHECK_EQ_INT(s.keyframe_interval, 3);
    CHECK_EQ_INT(s.protocol, 5);
    CHECK(s.rtdelay > 19.5719 && s.rtdelay < 19.5721 && s.rcvage > 0.5109 && s.rcvage < 0.5111);
    CHECK(s.map && s.map_len == 11 && memcmp(s.map, "street_test", 11) == 0);
    CHECK(!s.token_redirect);
    zdem_error_clear(&e);
    CHECK(zdem_s2_broadcast_sync((const uint8_t *)nest, strlen(nest), &s, &e) == ZDEM_OK);
    CHECK_EQ_INT(s.fragment, 35);
    CHECK_EQ_INT(s.signup_fragment, -3);
    CHECK_EQ_INT(s.tick, -1);
    CHECK(s.rtdelay > -150.0001 && s.rtdelay < -149.9999 && s.rcvage > 0.19999 && s.rcvage < 0.20001);
    CHECK(s.map_len == 4 && memcmp(s.map, "a\\\"b", 4) == 0);
    CHECK(s.token_redirect_len == 6 && memcmp(s.token_redirect, "s1t2\\/", 6) == 0);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zdem_error_clear(&e);
        if (!CHECK(zdem_s2_broadcast_sync((const uint8_t *)bad[i], strlen(bad[i]), &s, &e) == ZDEM_ERR_CORRUPT))
            fprintf(stderr, "  accepted: %s\n", bad[i]);
        CHECK(e.msg != NULL && e.offset <= strlen(bad[i]));
    }
    zdem_error_clear(&e);
    CHECK(zdem_s2_broadcast_sync((const uint8_t *)"{\"fragment\":1,\"protocol\":4}", 27, &s, &e) ==
          ZDEM_ERR_UNSUPPORTED);
}

int main(void)
{
    static const char *const names[] = {"0/start.bin", "22/full.bin", "22/delta.bin", "23/delta.bin",
                                        "24/delta.bin", "25/delta.bin", "26/delta.bin", "27/delta.bin",
                                        "28/delta.bin", "29/delta.bin", "30/delta.bin", "31/delta.bin"};
    static const long pieces[] = {1, 3, 509, 4096, -70000};
    result whole, r;
    unsigned i;
    sync_tests();
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, BC "%s", names[i]);
        frags[i].data = zt_read_file(zt_corpus_path(rel), &frags[i].size);
        if (!frags[i].data) {
            printf("SKIP broadcast fragments: %s not in the corpus\n", rel);
            return zt_finish();
        }
        nfrags++;
    }
    whole = read_broadcast(0, 0, (size_t)1 << 20, 0, NULL, 0);
    CHECK_EQ_INT(whole.st, ZDEM_OK);
    CHECK_EQ_INT(whole.classes, 528); /* issue 23's re-framed reading */
    CHECK_EQ_INT(whole.entities, 963);
    CHECK_EQ_INT(whole.damage, 0);
    CHECK_EQ_INT(whole.frame_limit, 0);
    printf("whole fragments: %u records, %u game events, %u entities; arena peak %.2f MiB "
           "(buffers %.2f MiB, state %.2f MiB)\n", whole.records, whole.d.events, whole.entities,
           whole.peak / 1048576.0, whole.fixed / 1048576.0, (whole.peak - whole.fixed) / 1048576.0);
    for (i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
        r = read_broadcast(pieces[i], 0, (size_t)1 << 20, 0, NULL, 0);
        if (!CHECK(r.st == ZDEM_OK && r.d.h == whole.d.h && r.d.events == whole.d.events &&
                   r.entities == whole.entities && r.damage == 0 && r.frame_limit == 0 &&
                   r.records == whole.records))
            fprintf(stderr, "  pieces of %ld: st %d, %u events, %u entities\n", pieces[i], r.st,
                    r.d.events, r.entities);
    }
    /* the events mode reads the same events */
    r = read_broadcast(4096, 1, (size_t)128 << 10, 0, NULL, 0);
    CHECK(r.st == ZDEM_OK && r.d.h == whole.d.h && r.d.events == whole.d.events);
    printf("events mode: %u game events; arena peak %.2f MiB (buffers %.2f MiB)\n", r.d.events,
           r.peak / 1048576.0, r.fixed / 1048576.0);
    /* a 4 KiB gather buffer: records split across 1000-byte pieces that
     * are larger are skipped (frame_limit), the run goes on */
    r = read_broadcast(1000, 0, 4096, 0, NULL, 0);
    CHECK(r.st == ZDEM_OK && r.frame_limit > 0 && r.records == whole.records);
    /* bytes after the end record: passed over */
    r = read_broadcast(0, 0, (size_t)1 << 20, 0, (const uint8_t *)"\x07junk after the end", 19);
    CHECK(r.st == ZDEM_OK && r.d.h == whole.d.h && r.entities == whole.entities);
    /* a fragment over max_fragment stops the run */
    r = read_broadcast(509, 0, (size_t)1 << 20, 100000, NULL, 0);
    CHECK_EQ_INT(r.st, ZDEM_ERR_LIMIT);
    CHECK(r.d.events < whole.d.events);
    {
        static uint8_t arena[1 << 20];
        zdem_s2_config cfg;
        zdem_s2_state *s;
        zdem_s2_broadcast b;
        zdem_s2_bc_sync sync;
        zdem_error e;
        zdem_s2_bc_kind k;
        int64_t n;
        zdem_s2_config_events(&cfg);
        cfg.gather_buffer = 0;
        zdem_error_clear(&e);
        CHECK(zdem_s2_state_init(&s, arena, sizeof arena, &cfg, &e) == ZDEM_OK);
        CHECK(zdem_s2_broadcast_sync((const uint8_t *)sync_text, sizeof sync_text - 1, &sync, &e) == ZDEM_OK);
        CHECK_EQ_INT(zdem_s2_broadcast_init(&b, s, &sync, &e), ZDEM_ERR_NO_SPACE);
        /* the order of the fragments */
        cfg.gather_buffer = 4096;
        zdem_error_clear(&e);
        CHECK(zdem_s2_state_init(&s, arena, sizeof arena, &cfg, &e) == ZDEM_OK);
        CHECK(zdem_s2_broadcast_init(&b, s, &sync, &e) == ZDEM_OK);
        CHECK(zdem_s2_broadcast_next(&b, &k, &n) && k == ZDEM_S2_BC_START && n == 0);
        CHECK(zdem_s2_broadcast_end_fragment(&b, &e) == ZDEM_OK); /* not begun: nothing */
        CHECK(zdem_s2_broadcast_begin(&b, k, n, &e) == ZDEM_OK);
        CHECK(zdem_s2_broadcast_end_fragment(&b, &e) == ZDEM_OK);
        CHECK(zdem_s2_broadcast_next(&b, &k, &n) && k == ZDEM_S2_BC_FULL && n == 22);
        CHECK(zdem_s2_broadcast_begin(&b, k, n, &e) == ZDEM_OK);
        CHECK(zdem_s2_broadcast_next(&b, &k, &n) && k == ZDEM_S2_BC_FULL && n == 22);
        CHECK(zdem_s2_broadcast_end_fragment(&b, &e) == ZDEM_OK);
        CHECK(zdem_s2_broadcast_next(&b, &k, &n) && k == ZDEM_S2_BC_DELTA && n == 22);
        CHECK(zdem_s2_broadcast_begin(&b, k, n, &e) == ZDEM_OK);
        CHECK(zdem_s2_broadcast_end_fragment(&b, &e) == ZDEM_OK);
        CHECK(zdem_s2_broadcast_next(&b, &k, &n) && k == ZDEM_S2_BC_DELTA && n == 23);
        CHECK(zdem_s2_broadcast_feed(&b, (const uint8_t *)"\0\0\0\0\0\0", 6, &e) == ZDEM_OK);
        CHECK(b.ended && !zdem_s2_broadcast_next(&b, &k, &n));
        CHECK_EQ_INT(zdem_s2_broadcast_end(&b, &e), ZDEM_OK);
        CHECK_EQ_STR(zdem_s2_bc_kind_name(ZDEM_S2_BC_DELTA), "delta");
    }
    for (i = 0; i < nfrags; i++)
        free(frags[i].data);
    return zt_finish();
}
