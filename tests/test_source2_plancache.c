/* The plan cache (zdem_s2_config.plan_cache) changes no output: every
 * Source 2 corpus demo, and damaged copies of two of them, decoded with
 * the cache off, at its default size and at one set (4 plans: constant
 * eviction), give the same entity callbacks (index, class, operations,
 * changed paths and the value at each), the same statistics, warnings,
 * status and error offset. The default cache must reuse plans on every
 * demo (the count is in the statistics), so the comparison is not one of
 * two runs that never use it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zdem_test.h"
#include "source2_state.h"

#define ARENA (64u << 20)

typedef struct digest {
    uint64_t h, calls;
} digest;

static void mix(digest *d, const void *p, size_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    size_t i;
    for (i = 0; i < n; i++)
        d->h = (d->h ^ b[i]) * 0x100000001B3ull; /* FNV-1a */
}

static zdem_status on_entity(void *user, zdem_s2_state *s, const zdem_s2_entity *e, unsigned ops,
                             const zdem_s2_fp *changed, uint32_t n)
{
    digest *d = (digest *)user;
    uint32_t i;
    d->calls++;
    mix(d, &e->index, sizeof e->index);
    mix(d, &e->class_id, sizeof e->class_id);
    mix(d, &ops, sizeof ops);
    mix(d, &n, sizeof n);
    for (i = 0; i < n; i++) {
        zdem_s2_value v;
        mix(d, changed[i].path, sizeof changed[i].path);
        mix(d, &changed[i].depth, sizeof changed[i].depth);
        if (zdem_s2_entity_prop_fp(s, e->index, &changed[i], &v)) {
            mix(d, &v.kind, sizeof v.kind);
            mix(d, &v.n, sizeof v.n);
            mix(d, &v.v, sizeof v.v);
            if (v.s)
                mix(d, v.s, v.len);
        }
    }
    return ZDEM_OK;
}

typedef struct outcome {
    zdem_status st;
    uint64_t offset;
    digest d;
    zdem_s2_stats stats;
    zdem_s2_warnings warn;
} outcome;

static void run(const uint8_t *data, size_t size, uint32_t plan_cache, void *arena, outcome *o)
{
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_error err;
    memset(o, 0, sizeof *o);
    o->d.h = 0xCBF29CE484222325ull;
    zdem_s2_config_default(&cfg);
    cfg.plan_cache = plan_cache;
    cfg.on_entity = on_entity;
    cfg.user = &o->d;
    zdem_error_clear(&err);
    o->st = zdem_s2_state_init(&s, arena, ARENA, &cfg, &err);
    if (o->st != ZDEM_OK)
        return;
    o->st = zdem_s2_state_run(s, data, size, -1, &err);
    o->offset = err.offset;
    zdem_s2_state_stats(s, &o->stats);
    o->warn = *zdem_s2_state_warnings(s);
}

/* Same outputs; the plan counts aside (they differ by design). */
static int same(const outcome *a, const outcome *b)
{
    zdem_s2_stats x = a->stats, y = b->stats;
    x.plans_reused = y.plans_reused = 0;
    return a->st == b->st && a->offset == b->offset && a->d.h == b->d.h &&
           a->d.calls == b->d.calls && x.entity_updates == y.entity_updates &&
           x.fields_decoded == y.fields_decoded && x.created == y.created &&
           x.deleted == y.deleted && x.events == y.events && x.frames == y.frames &&
           memcmp(a->warn.count, b->warn.count, sizeof a->warn.count) == 0;
}

static void compare(const char *name, const uint8_t *data, size_t size, void *arena,
                    int must_reuse)
{
    outcome off, def, tiny;
    run(data, size, 0, arena, &off);
    run(data, size, ZDEM_S2_PLAN_CACHE_DEFAULT, arena, &def);
    run(data, size, 4, arena, &tiny);
    if (!same(&off, &def) || !same(&off, &tiny))
        fprintf(stderr, "%s: off st %d at %llu, %llu calls, %llu fields / default st %d at %llu, "
                        "%llu calls, %llu fields / tiny st %d at %llu\n",
                name, (int)off.st, (unsigned long long)off.offset,
                (unsigned long long)off.d.calls, (unsigned long long)off.stats.fields_decoded,
                (int)def.st, (unsigned long long)def.offset, (unsigned long long)def.d.calls,
                (unsigned long long)def.stats.fields_decoded, (int)tiny.st,
                (unsigned long long)tiny.offset);
    if (getenv("ZDEM_PC_VERBOSE"))
        fprintf(stderr, "%s: st %d, %llu calls, %llu fields, %llu of %llu updates reused (tiny %llu)\n", name, (int)off.st, (unsigned long long)off.d.calls, (unsigned long long)off.stats.fields_decoded, (unsigned long long)def.stats.plans_reused, (unsigned long long)def.stats.entity_updates, (unsigned long long)tiny.stats.plans_reused);
    CHECK(same(&off, &def));
    CHECK(same(&off, &tiny));
    CHECK_EQ_INT(off.stats.plans_reused, 0);
    if (must_reuse) {
        CHECK(off.stats.fields_decoded > 0);
        CHECK(def.stats.plans_reused > 0);
        CHECK(tiny.stats.plans_reused > 0);
    }
}

int main(void)
{
    static const char *const demos[] = {
        "cs2_demofile-net-gotv-14011-cs-italy.dem", "cs2_demofile-net-gotv-14065-de-nuke.dem",
        "cs2_demofile-net-gotv-14090-cs-italy.dem", "cs2_demofile-net-gotv-14132-de-ancient.dem",
        "cs2_demofile-net-gotv-14150-ag2-de-train.dem", "cs2_demofile-net-gotv-14155-de-dust2.dem",
        "cs2_demofile-net-gotv-14160-de-dust2.dem",
        "deadlock_demofile-net-hltv-10423-dl-midtown.dem", "dota2_haste-nekit-pov.dem"};
    void *arena = malloc(ARENA);
    uint64_t seed = 0x504C414E43414348ull; /* "PLANCACH" */
    size_t i;
    CHECK(arena != NULL);
    if (!arena)
        return zt_finish();
    for (i = 0; i < sizeof demos / sizeof demos[0]; i++) {
        char rel[256];
        size_t size, k;
        uint8_t *data;
        snprintf(rel, sizeof rel, "source2/%s", demos[i]);
        data = zt_read_file(zt_corpus_path(rel), &size);
        CHECK(data != NULL);
        if (!data)
            continue;
        compare(demos[i], data, size, arena, 1);
        /* damaged copies of the smallest two: bit flips past the header
         * (a damaged packet skipped, or entity data read wrong from
         * there on) and cuts */
        if (i == 1 || i == 3) {
            uint8_t *m = (uint8_t *)malloc(size);
            CHECK(m != NULL);
            for (k = 0; m && k < 12; k++) {
                size_t f, at = size / 2;
                memcpy(m, data, size);
                if (k < 8) {
                    for (f = 0; f < 1 + k % 4; f++) {
                        at = 16 + (size_t)(zt_rand(&seed) % (size - 16));
                        m[at] ^= (uint8_t)(1u << (zt_rand(&seed) % 8));
                    }
                    compare("bit-flipped copy", m, size, arena, 0);
                } else {
                    at = 16 + (size_t)(zt_rand(&seed) % (size - 16));
                    compare("cut copy", m, at, arena, 0);
                }
            }
            free(m);
        }
        free(data);
    }
    free(arena);
    return zt_finish();
}
