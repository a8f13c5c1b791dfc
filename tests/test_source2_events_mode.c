/* Source 2 events mode (zdem_s2_config_events) on every Source 2 corpus
 * demo, fed through the push API in small pieces into an arena of exactly
 * 1 MiB (nothing else is used: gather, frame and table buffers all live in
 * it):
 *  - the events (type, tick, name, descriptor id, every key and value) and
 *    the players equal those of the full state run over the whole file
 *    (the configuration `zdem events` uses, 16 MiB frame buffers, whose
 *    events test_source2_state_corpus checks against EXPECTED.md and the
 *    peers); the run ends the same way with the same damage warnings;
 *  - no limit is hit (frame_limit, table_limit, arena_full, skipped
 *    frames), the arena peak stays within 1 MiB, and the SendTables,
 *    ClassInfo and full-packet frames were never read: the largest payload
 *    decompressed is smaller than the full run's largest.
 * Prints the arena peak per demo (the figure the README quotes). */
#include <stdlib.h>
#include <string.h>
#include "source2_state.h"
#include "zdem_test.h"

static const char *const demos[] = {
    "source2/cs2_demofile-net-gotv-14011-cs-italy.dem",
    "source2/cs2_demofile-net-gotv-14065-de-nuke.dem",
    "source2/cs2_demofile-net-gotv-14090-cs-italy.dem",
    "source2/cs2_demofile-net-gotv-14132-de-ancient.dem",
    "source2/cs2_demofile-net-gotv-14150-ag2-de-train.dem",
    "source2/cs2_demofile-net-gotv-14155-de-dust2.dem",
    "source2/cs2_demofile-net-gotv-14160-de-dust2.dem",
    "source2/deadlock_demofile-net-hltv-10423-dl-midtown.dem",
    "source2/dota2_haste-nekit-pov.dem",
};

#define EVENTS_ARENA ((size_t)1 << 20)

/* One 64-bit FNV-1a digest per event, and one over the players. */
typedef struct digests {
    uint64_t *h;
    size_t n, cap;
} digests;

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
    digests *d = user;
    uint64_t h = 14695981039346656037ull;
    uint32_t i;
    (void)s;
    h = fnv(h, &ev->type, sizeof ev->type);
    h = fnv(h, &ev->tick, sizeof ev->tick);
    h = fnv(h, ev->name, ev->name_len);
    h = fnv(h, &ev->event_id, sizeof ev->event_id);
    h = fnv(h, &ev->nkeys, sizeof ev->nkeys);
    for (i = 0; i < ev->nkeys; i++) {
        const zdem_s2_value *v = &ev->keys[i].value;
        h = fnv(h, ev->keys[i].name, ev->keys[i].name_len);
        h = fnv(h, &v->kind, 1);
        h = fnv(h, &v->n, 1);
        if (v->kind == ZDEM_S2_V_STRING)
            h = fnv(h, v->s, v->len);
        else if (v->kind == ZDEM_S2_V_VEC)
            h = fnv(h, v->v.f, sizeof(float) * (v->n < 4 ? v->n : 4));
        else if (v->kind == ZDEM_S2_V_FLOAT)
            h = fnv(h, v->v.f, sizeof(float));
        else
            h = fnv(h, &v->v.u, sizeof v->v.u);
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 4096;
        uint64_t *nh = realloc(d->h, cap * sizeof *nh);
        if (!nh)
            return ZDEM_ERR_ABORTED;
        d->h = nh;
        d->cap = cap;
    }
    d->h[d->n++] = h;
    return ZDEM_OK;
}

static int on_player(void *user, const uint8_t *name, uint32_t len)
{
    uint64_t *h = user;
    *h = fnv(*h, name, len);
    *h = fnv(*h, "\n", 1);
    return 0;
}

typedef struct result {
    digests ev;
    uint64_t players;
    uint32_t nplayers;
    zdem_status st;
    zdem_s2_warnings warn;
    zdem_s2_usage usage;
    zdem_s2_stats stats;
} result;

static void finish(zdem_s2_state *s, result *r)
{
    static uint32_t tmp[1 << 16];
    r->players = 14695981039346656037ull;
    r->nplayers = zdem_s2_players(s, on_player, &r->players, tmp, 1u << 16);
    r->warn = *zdem_s2_state_warnings(s);
    zdem_s2_state_usage(s, &r->usage);
    zdem_s2_state_stats(s, &r->stats);
}

static void run_full(const uint8_t *file, size_t size, result *r)
{
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_error err;
    size_t mem;
    void *arena;
    zdem_s2_config_default(&cfg); /* as `zdem events` */
    cfg.skip_entities = 1;
    cfg.gather_buffer = 0;
    cfg.tmp_size = 16u << 20;
    cfg.on_event = on_event;
    cfg.user = &r->ev;
    mem = zdem_s2_state_fixed_size(&cfg) + ((size_t)64 << 20);
    arena = calloc(1, mem);
    zdem_error_clear(&err);
    if (!CHECK(arena && zdem_s2_state_init(&s, arena, mem, &cfg, &err) == ZDEM_OK)) {
        free(arena);
        return;
    }
    r->st = zdem_s2_state_run(s, file, size, -1, &err);
    finish(s, r);
    free(arena);
}

static void run_events(const uint8_t *file, size_t size, size_t piece, result *r)
{
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_error err;
    size_t off;
    void *arena = malloc(EVENTS_ARENA);
    zdem_s2_config_events(&cfg);
    cfg.on_event = on_event;
    cfg.user = &r->ev;
    zdem_error_clear(&err);
    CHECK(zdem_s2_state_fixed_size(&cfg) < EVENTS_ARENA);
    if (!CHECK(arena && zdem_s2_state_init(&s, arena, EVENTS_ARENA, &cfg, &err) == ZDEM_OK)) {
        free(arena);
        return;
    }
    r->st = ZDEM_OK;
    for (off = 0; off < size && r->st == ZDEM_OK; off += piece)
        r->st = zdem_s2_state_feed(s, file + off, size - off < piece ? size - off : piece, &err);
    if (r->st == ZDEM_OK)
        r->st = zdem_s2_state_end(s, &err);
    finish(s, r);
    free(arena);
}

int main(void)
{
    size_t i, k;
    size_t worst = 0;
    for (i = 0; i < sizeof demos / sizeof demos[0]; i++) {
        size_t size = 0;
        uint8_t *file = zt_read_file(zt_corpus_path(demos[i]), &size);
        result full, ev;
        unsigned w;
        if (!CHECK(file != NULL))
            continue;
        memset(&full, 0, sizeof full);
        memset(&ev, 0, sizeof ev);
        run_full(file, size, &full);
        run_events(file, size, 4096, &ev);

        CHECK(full.ev.n > 0);
        CHECK_EQ_INT(ev.ev.n, full.ev.n);
        for (k = 0; k < ev.ev.n && k < full.ev.n; k++)
            if (ev.ev.h[k] != full.ev.h[k]) {
                CHECK_EQ_INT(k, -1); /* the first event that differs */
                break;
            }
        CHECK_EQ_INT(ev.nplayers, full.nplayers);
        CHECK(ev.players == full.players);
        CHECK_EQ_INT(ev.st, full.st);
        for (w = 0; w < ZDEM_S2_W_COUNT; w++)
            if (zdem_s2_warn_is_damage((zdem_s2_warn_kind)w))
                CHECK_EQ_INT(ev.warn.count[w], full.warn.count[w]);
        CHECK_EQ_INT(ev.warn.count[ZDEM_S2_W_FRAME_LIMIT], 0);
        CHECK_EQ_INT(ev.warn.count[ZDEM_S2_W_TABLE_LIMIT], 0);
        CHECK_EQ_INT(ev.warn.count[ZDEM_S2_W_ARENA_FULL], 0);
        CHECK(ev.usage.arena_peak <= EVENTS_ARENA);
        CHECK(ev.stats.frames_unread > 0);
        CHECK(ev.usage.max_frame < full.usage.max_frame);
        CHECK(ev.usage.max_frame <= ZDEM_S2_EVENTS_FRAME_BUFFER);
        if (ev.usage.arena_peak > worst)
            worst = ev.usage.arena_peak;
        printf("%s: %lu events, %u players; events mode: arena peak %lu bytes (%.1f KiB), "
               "largest payload %lu (full run: %lu), %lu frames unread\n",
               demos[i], (unsigned long)ev.ev.n, (unsigned)ev.nplayers,
               (unsigned long)ev.usage.arena_peak, ev.usage.arena_peak / 1024.0,
               (unsigned long)ev.usage.max_frame, (unsigned long)full.usage.max_frame,
               (unsigned long)ev.stats.frames_unread);

        /* Other piece sizes give the same events. */
        {
            result odd;
            memset(&odd, 0, sizeof odd);
            run_events(file, size, 613, &odd);
            CHECK_EQ_INT(odd.ev.n, ev.ev.n);
            CHECK(odd.ev.n == ev.ev.n && memcmp(odd.ev.h, ev.ev.h, ev.ev.n * 8u) == 0);
            free(odd.ev.h);
        }
        free(full.ev.h);
        free(ev.ev.h);
        free(file);
    }
    printf("largest events-mode arena peak: %lu bytes (%.1f KiB) of %lu\n", (unsigned long)worst,
           worst / 1024.0, (unsigned long)EVENTS_ARENA);
    return zt_finish();
}
