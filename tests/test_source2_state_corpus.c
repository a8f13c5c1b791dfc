/* Source 2 state layer on the public corpus, checked against independent
 * parsers: gem (peers/<file>.s2-gem.json: Dota 2 classes, serializers, string
 * tables, live entities, players) and demoparser2 (peers/<file>.cs2-ref.json:
 * game-event names), plus demofile-net's last ticks (EXPECTED.md A1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zdem_test.h"
#include "source2_state.h"

#define ARENA (64u << 20)

typedef struct evnames {
    char names[64][64];
    int n;
    uint64_t events;
} evnames;

static zdem_status on_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    evnames *en = (evnames *)user;
    int i;
    (void)s;
    en->events++;
    if (ev->type != ZDEM_S2_EV_GAME_EVENT || ev->name_len >= 64)
        return ZDEM_OK;
    for (i = 0; i < en->n; i++)
        if (strlen(en->names[i]) == ev->name_len && memcmp(en->names[i], ev->name, ev->name_len) == 0)
            return ZDEM_OK;
    if (en->n < 64) {
        memcpy(en->names[en->n], ev->name, ev->name_len);
        en->names[en->n][ev->name_len] = 0;
        en->n++;
    }
    return ZDEM_OK;
}

typedef struct players {
    char name[64][64];
    uint32_t len[64];
    uint32_t n;
} players;

static int add_player(void *user, const uint8_t *name, uint32_t len)
{
    players *p = (players *)user;
    if (p->n < 64 && len < 64) {
        memcpy(p->name[p->n], name, len);
        p->len[p->n] = len;
    }
    p->n++;
    return 0;
}

/* Tiny JSON helpers: good enough for the flat peer files. */
static char *slurp(const char *path)
{
    size_t n;
    uint8_t *b = zt_read_file(path, &n);
    char *s;
    if (!b)
        return NULL;
    s = realloc(b, n + 1);
    if (!s) {
        free(b);
        return NULL;
    }
    s[n] = 0;
    return s;
}

static long long json_int(const char *j, const char *key)
{
    char pat[128];
    const char *p;
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    p = strstr(j, pat);
    if (!p) {
        snprintf(pat, sizeof pat, "\"%s\":", key);
        p = strstr(j, pat);
    }
    if (!p)
        return -1;
    return strtoll(p + strlen(pat), NULL, 10);
}

static int contains_name(const evnames *en, const char *name, size_t len)
{
    int i;
    for (i = 0; i < en->n; i++)
        if (strlen(en->names[i]) == len && memcmp(en->names[i], name, len) == 0)
            return 1;
    return 0;
}

/* EXPECTED.md A1: demofile-net's last tick per CS2 file (0: none given). */
static long long expected_last_tick(const char *name)
{
    static const struct { const char *f; long long t; } a1[] = {
        {"cs2_demofile-net-gotv-14011-cs-italy.dem", 391},
        {"cs2_demofile-net-gotv-14065-de-nuke.dem", 185},
        {"cs2_demofile-net-gotv-14090-cs-italy.dem", 572},
        {"cs2_demofile-net-gotv-14132-de-ancient.dem", 125},
        {"cs2_demofile-net-gotv-14155-de-dust2.dem", 161}};
    size_t i;
    for (i = 0; i < sizeof a1 / sizeof a1[0]; i++)
        if (strcmp(a1[i].f, name) == 0)
            return a1[i].t;
    return 0;
}

/* CS2 weapons at the end of the demo, against the game's weapon data
 * (magazine and reserve sizes, independent of any parser): m_iClip1 is
 * sent as clip + 1 under the "minusone" var_serializer, so a clip reads
 * 0..magazine and a weapon without one (C4) -1. m_pReserveAmmo changed
 * meaning in build 14150, not its encoding (same serializer, int32[2]):
 * up to 14132 it counts rounds, from 14150 magazines (the weapon data's
 * m_bReserveAmmoAsClips): P2000 and AK-47, whose reserve kept its size,
 * read 52 / 13 = 4 and 90 / 30 = 3; every weapon at least one magazine
 * and no more than its old reserve. */
static void check_weapons(zdem_s2_state *s, const char *name)
{
    static const struct { const char *cls; int mag, rounds, mags; } w[] = {
        {"CWeaponHKP2000", 13, 52, 4}, {"CWeaponGlock", 20, 120, 0},
        {"CAK47", 30, 90, 3}, {"CWeaponAWP", 5, 30, 0}};
    static uint32_t live[16384];
    int build = atoi(name + strlen("cs2_demofile-net-gotv-"));
    uint32_t n = zdem_s2_entities_live(s, live, 16384), i, seen = 0;
    for (i = 0; i < n && i < 16384; i++) {
        zdem_s2_entity e;
        zdem_s2_value clip, res;
        size_t k;
        if (!zdem_s2_entity_get(s, (int32_t)live[i], &e))
            continue;
        if (e.class_name_len == 3 && memcmp(e.class_name, "CC4", 3) == 0) {
            CHECK(zdem_s2_entity_prop(s, e.index, "m_iClip1", &clip) && clip.kind == ZDEM_S2_V_INT &&
                  clip.v.i == -1);
            seen++;
            continue;
        }
        for (k = 0; k < sizeof w / sizeof w[0]; k++) {
            if (strlen(w[k].cls) != e.class_name_len || memcmp(w[k].cls, e.class_name, e.class_name_len))
                continue;
            seen++;
            if (!CHECK(zdem_s2_entity_prop(s, e.index, "m_iClip1", &clip) && clip.kind == ZDEM_S2_V_INT &&
                       clip.v.i >= 0 && clip.v.i <= w[k].mag))
                fprintf(stderr, "  %s %s: m_iClip1 %lld\n", name, w[k].cls, (long long)clip.v.i);
            if (!CHECK(zdem_s2_entity_prop(s, e.index, "m_pReserveAmmo.0", &res) &&
                       (build <= 14132 ? res.v.i == w[k].rounds
                        : w[k].mags ? res.v.i == w[k].mags
                                    : res.v.i >= 1 && res.v.i * w[k].mag <= w[k].rounds)))
                fprintf(stderr, "  %s %s: m_pReserveAmmo.0 %lld\n", name, w[k].cls, (long long)res.v.i);
        }
    }
    CHECK(seen > 0);
}

static void check_file(const char *name, int is_dota)
{
    char rel[256], peer[256];
    size_t size;
    uint8_t *file, *arena;
    zdem_s2_config cfg;
    zdem_s2_state *s = NULL;
    zdem_error err;
    zdem_status st;
    zdem_s2_stats stats;
    evnames en;
    char *gem, *ref;
    const zdem_s2_warnings *w;
    unsigned k;

    snprintf(rel, sizeof rel, "source2/%s", name);
    file = zt_read_file(zt_corpus_path(rel), &size);
    CHECK(file != NULL);
    if (!file)
        return;
    zdem_error_clear(&err);
    arena = malloc(ARENA);
    memset(&en, 0, sizeof en);
    zdem_s2_config_default(&cfg);
    cfg.user = &en;
    cfg.on_event = on_event;
    CHECK_EQ_INT(zdem_s2_state_init(&s, arena, ARENA, &cfg, &err), ZDEM_OK);
    st = zdem_s2_state_run(s, file, size, -1, &err);
    CHECK_EQ_INT(st, ZDEM_OK);
    if (st != ZDEM_OK)
        fprintf(stderr, "  %s: %s at %llu\n", name, err.msg ? err.msg : "?", (unsigned long long)err.offset);
    zdem_s2_state_stats(s, &stats);
    w = zdem_s2_state_warnings(s);
    fprintf(stderr, "%s: classes %u serializers %u fields %u tables %u live %u events %llu/%d unknown_types %u (%.*s) enc %u created %llu deleted %llu updates %llu tick %d\n",
            name, zdem_s2_class_count(s), zdem_s2_serializer_count(s), stats.fields,
            zdem_s2_string_table_count(s), zdem_s2_entity_count(s),
            (unsigned long long)en.events, en.n, w->count[ZDEM_S2_W_UNKNOWN_TYPES],
            (int)stats.first_unknown_type_len, stats.first_unknown_type ? stats.first_unknown_type : "",
            w->count[ZDEM_S2_W_UNKNOWN_ENCODERS],
            (unsigned long long)stats.created, (unsigned long long)stats.deleted,
            (unsigned long long)stats.entity_updates, zdem_s2_state_tick(s));
    if (w->damage.code != ZDEM_OK)
        fprintf(stderr, "  first damage: %s at %llu (payload byte %llu)\n",
                w->damage.msg ? w->damage.msg : "?", (unsigned long long)w->damage.offset,
                (unsigned long long)w->damage.payload_pos);
    if (expected_last_tick(name))
        CHECK_EQ_INT(zdem_s2_state_tick(s), expected_last_tick(name));
    /* No damage and no limit on the real corpus: every packet decodes, and
     * the only fallbacks are types read by the generic decoder. */
    for (k = 0; k < ZDEM_S2_W_UNKNOWN_TYPES; k++)
        if (!CHECK_EQ_INT(w->count[k], 0))
            fprintf(stderr, "  warning %s\n", zdem_s2_warn_name((zdem_s2_warn_kind)k));
    /* every encoder and var_serializer in the corpus is known, and no
     * quantized float falls back (Dota's m_flRuneTime is rune time) */
    CHECK_EQ_INT(w->count[ZDEM_S2_W_UNKNOWN_ENCODERS], 0);
    CHECK_EQ_INT(w->count[ZDEM_S2_W_UNKNOWN_CLASSES], 0);
    CHECK_EQ_INT(w->count[ZDEM_S2_W_UNSTORED_FIELDS], 0);
    CHECK(stats.created > 0);

    snprintf(peer, sizeof peer, "peers/%s.s2-gem.json", name);
    gem = slurp(zt_corpus_path(peer));
    snprintf(peer, sizeof peer, "peers/%s.cs2-ref.json", name);
    ref = slurp(zt_corpus_path(peer));
    CHECK(gem != NULL && ref != NULL);
    if (gem) {
        /* Classes and serializers come before gem's failure point, so they
         * hold for every game. */
        CHECK_EQ_INT(zdem_s2_class_count(s), json_int(gem, "entity_classes"));
        CHECK_EQ_INT(zdem_s2_serializer_count(s), json_int(gem, "serializers"));
        if (is_dota) {
            const char *p = strstr(gem, "\"string_tables\": {");
            uint32_t i;
            CHECK_EQ_INT(zdem_s2_entity_count(s), json_int(gem, "live_entities_at_end"));
            CHECK(p != NULL);
            for (i = 0; p && i < zdem_s2_string_table_count(s); i++) {
                uint32_t entries;
                const char *tn = zdem_s2_string_table_info(s, i, &entries);
                long long want = json_int(p, tn);
                if (want != (long long)entries)
                    fprintf(stderr, "  table %s: %u, gem %lld\n", tn, entries, want);
                /* EntityNames: gem reports 221, the entries its messages
                 * name; the independent decoder (tests/s2_stringtables_ref.py,
                 * test_source2_stringtables.sh) also applies the
                 * DEM_StringTables snapshot (268 entries at tick 0) and
                 * finds 279, every key distinct, as zdem does. Every other
                 * table must match gem exactly. */
                if (strcmp(tn, "EntityNames") == 0) {
                    CHECK_EQ_INT(want, 221);
                    CHECK_EQ_INT(entries, 279);
                } else
                    CHECK_EQ_INT(entries, want);
            }
            /* players: every name gem lists, in order */
            {
                const char *q = strstr(gem, "\"players\": [");
                uint32_t k = 0;
                players pl;
                static uint32_t tmp[4096];
                uint32_t count;
                memset(&pl, 0, sizeof pl);
                count = zdem_s2_players(s, add_player, &pl, tmp, 4096);
                CHECK_EQ_INT(count, pl.n);
                while (q && (q = strstr(q, "{\"name\": \"")) != NULL) {
                    const char *e;
                    q += 10;
                    e = strchr(q, '"');
                    CHECK(k < pl.n && e != NULL && (size_t)(e - q) == pl.len[k] &&
                          memcmp(pl.name[k], q, pl.len[k]) == 0);
                    if (k < pl.n)
                        fprintf(stderr, "  player %.*s / %.*s\n", (int)pl.len[k], pl.name[k],
                                e ? (int)(e - q) : 0, q);
                    k++;
                }
                CHECK_EQ_INT(pl.n, k);
            }
        }
    }
    if (ref) {
        /* every game-event name demoparser2 lists, and no others */
        const char *p = strstr(ref, "\"game_events\":[");
        int want = 0;
        if (p) {
            p += strlen("\"game_events\":[");
            while (*p == '"') {
                const char *e = strchr(p + 1, '"');
                if (!e)
                    break;
                CHECK(contains_name(&en, p + 1, (size_t)(e - p - 1)));
                if (!contains_name(&en, p + 1, (size_t)(e - p - 1)))
                    fprintf(stderr, "  missing event %.*s\n", (int)(e - p - 1), p + 1);
                want++;
                p = e + 1;
                if (*p == ',')
                    p++;
            }
        }
        CHECK_EQ_INT(en.n, want);
    }
    if (strncmp(name, "cs2_", 4) == 0)
        check_weapons(s, name);
    free(gem);
    free(ref);
    free(arena);
    free(file);
}

int main(void)
{
    static const char *const cs2[] = {
        "cs2_demofile-net-gotv-14011-cs-italy.dem", "cs2_demofile-net-gotv-14065-de-nuke.dem",
        "cs2_demofile-net-gotv-14090-cs-italy.dem", "cs2_demofile-net-gotv-14132-de-ancient.dem",
        "cs2_demofile-net-gotv-14150-ag2-de-train.dem", "cs2_demofile-net-gotv-14155-de-dust2.dem",
        "cs2_demofile-net-gotv-14160-de-dust2.dem", "deadlock_demofile-net-hltv-10423-dl-midtown.dem"};
    size_t i;
    check_file("dota2_haste-nekit-pov.dem", 1);
    for (i = 0; i < sizeof cs2 / sizeof cs2[0]; i++)
        check_file(cs2[i], 0);
    return zt_finish();
}
