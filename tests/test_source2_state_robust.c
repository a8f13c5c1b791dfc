/* Hostile and patched input for the Source 2 state layer:
 * - real serializers with types renamed (as a game patch would) must fall
 *   back and report, never abort; a renamed enum type decodes exactly as
 *   before through the generic fallback; a renamed float type is reported
 *   and the packets it breaks are skipped;
 * - a serializer removed (renamed away) makes its class unknown: reported;
 * - random byte flips and truncations never crash or hang (run under
 *   ASan/UBSan in the sanitizer build).
 * Reference figures are the unmodified run's, which test_source2_state_corpus
 * checks against gem and demoparser2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zdem_test.h"
#include "source2_state.h"

#define ARENA (64u << 20)

typedef struct result {
    zdem_status st;
    zdem_s2_stats stats;
    zdem_s2_warnings w;
    uint32_t live, classes;
    uint64_t events;
} result;

static zdem_status count_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    (void)s;
    (void)ev;
    (*(uint64_t *)user)++;
    return ZDEM_OK;
}

/* Replaces every occurrence of `from` by `to` (same length) in buf. */
static int patch(uint8_t *buf, size_t n, const char *from, const char *to)
{
    size_t l = strlen(from), i;
    int hits = 0;
    for (i = 0; i + l <= n; i++) {
        if (memcmp(buf + i, from, l) == 0 && (i + l == n || buf[i + l] < 0x20 || buf[i + l] > 0x7e)) {
            /* whole symbol only: the next byte is a protobuf key, not text */
            if (i > 0 && buf[i - 1] == l) {
                memcpy(buf + i, to, l);
                hits++;
            }
        }
    }
    return hits;
}

/* Runs a demo frame by frame; the SendTables payload is patched first. */
static void run(const uint8_t *file, size_t size, const char *from, const char *to,
                result *res, int *hits)
{
    zdem_s2_header hdr;
    zdem_s2_reader rd;
    zdem_s2_outer m;
    zdem_error err;
    zdem_s2_config cfg;
    zdem_s2_state *s;
    size_t need = 2u << 20; /* corpus payloads are < 400 KB */
    uint8_t *scratch, *arena, *copy = NULL;
    int r;
    memset(res, 0, sizeof *res);
    zdem_error_clear(&err);
    if (zdem_s2_read_header(file, size, &hdr, &err) != ZDEM_OK) {
        res->st = err.code;
        return;
    }
    scratch = malloc(need);
    arena = malloc(ARENA);
    zdem_s2_config_default(&cfg);
    cfg.on_event = count_event;
    cfg.user = &res->events;
    CHECK_EQ_INT(zdem_s2_state_init(&s, arena, ARENA, &cfg, &err), ZDEM_OK);
    zdem_s2_reader_init(&rd, file, size);
    while ((r = zdem_s2_next(&rd, &m, &err)) > 0) {
        const uint8_t *data;
        size_t n;
        if ((res->st = zdem_s2_payload(&m, scratch, need, &data, &n, &err)) != ZDEM_OK)
            break;
        if (m.cmd == ZDEM_S2_DEM_SENDTABLES && from) {
            copy = malloc(n);
            memcpy(copy, data, n);
            *hits = patch(copy, n, from, to);
            data = copy;
        }
        res->st = zdem_s2_state_frame(s, &m, data, n, &err);
        if (res->st != ZDEM_OK)
            break;
    }
    zdem_s2_state_stats(s, &res->stats);
    res->w = *zdem_s2_state_warnings(s);
    res->live = zdem_s2_entity_count(s);
    res->classes = zdem_s2_class_count(s);
    free(copy);
    free(scratch);
    free(arena);
}

static uint8_t *load(const char *name, size_t *size)
{
    char rel[256];
    snprintf(rel, sizeof rel, "source2/%s", name);
    return zt_read_file(zt_corpus_path(rel), size);
}

static void patched_types(const char *name, const char *enum_type, const char *enum_to,
                          const char *class_ser, const char *class_to)
{
    size_t size;
    uint8_t *file = load(name, &size);
    result base, r;
    int hits = 0;
    CHECK(file != NULL);
    if (!file)
        return;
    run(file, size, NULL, NULL, &base, &hits);
    CHECK_EQ_INT(base.st, ZDEM_OK);
    CHECK_EQ_INT(base.w.count[ZDEM_S2_W_BAD_ENTITY_PACKETS], 0);

    /* An enum type unknown to the table: generic varint fallback, reported,
     * and the entity state is exactly the same. */
    run(file, size, enum_type, enum_to, &r, &hits);
    CHECK(hits > 0);
    CHECK_EQ_INT(r.st, ZDEM_OK);
    CHECK(r.w.count[ZDEM_S2_W_UNKNOWN_TYPES] > base.w.count[ZDEM_S2_W_UNKNOWN_TYPES]);
    CHECK_EQ_INT(r.w.count[ZDEM_S2_W_BAD_ENTITY_PACKETS], 0);
    CHECK_EQ_INT(r.live, base.live);
    CHECK_EQ_INT(r.stats.fields_decoded, base.stats.fields_decoded);

    /* float32 renamed: values are misread, packets desync; the parse goes
     * on, reports, and events are unaffected. */
    run(file, size, "float32", "floot32", &r, &hits);
    CHECK(hits > 0);
    CHECK_EQ_INT(r.st, ZDEM_OK);
    CHECK(r.w.count[ZDEM_S2_W_UNKNOWN_TYPES] > base.w.count[ZDEM_S2_W_UNKNOWN_TYPES]);
    CHECK_EQ_INT(r.events, base.events);
    fprintf(stderr, "%s: float32 renamed: %u bad entity packets of a clean run's 0, events %llu\n",
            name, r.w.count[ZDEM_S2_W_BAD_ENTITY_PACKETS], (unsigned long long)r.events);

    /* A class's serializer removed (renamed away): its creates are
     * reported as unknown classes, the rest continues. */
    run(file, size, class_ser, class_to, &r, &hits);
    CHECK(hits > 0);
    CHECK_EQ_INT(r.st, ZDEM_OK);
    CHECK(r.w.count[ZDEM_S2_W_UNKNOWN_CLASSES] > 0);
    CHECK_EQ_INT(r.classes, base.classes);
    CHECK_EQ_INT(r.events, base.events);
    free(file);
}

static uint32_t rnd_state = 12345u;
static uint32_t rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 8;
}

static void mutations(const char *name)
{
    size_t size, i;
    uint8_t *file = load(name, &size), *m;
    result r;
    int hits, k;
    CHECK(file != NULL);
    if (!file)
        return;
    m = malloc(size);
    for (k = 0; k < 24; k++) {
        memcpy(m, file, size);
        /* flip bytes past the header (framing stays mostly valid, so the
         * damage reaches the state layer) */
        for (i = 0; i < 8; i++)
            m[16 + rnd() % (size - 16)] ^= (uint8_t)(1u + rnd() % 255u);
        run(m, size, NULL, NULL, &r, &hits);
        CHECK(r.st < ZDEM_STATUS_COUNT); /* returned, did not crash */
    }
    for (k = 0; k < 8; k++) {
        size_t cut = 16 + rnd() % (size - 16);
        run(file, cut, NULL, NULL, &r, &hits);
        CHECK(r.st < ZDEM_STATUS_COUNT);
    }
    free(m);
    free(file);
}

/* Seeking through the full packet gives the same entities as playing
 * every packet up to the tick. */
static void seek_equals_run(const char *name, int64_t tick)
{
    size_t size;
    uint8_t *file = load(name, &size), *a1, *a2;
    zdem_s2_config cfg;
    zdem_s2_state *s1, *s2;
    zdem_error err;
    uint32_t i, same = 0, n1 = 0;
    CHECK(file != NULL);
    if (!file)
        return;
    zdem_error_clear(&err);
    a1 = malloc(ARENA);
    a2 = malloc(ARENA);
    zdem_s2_config_default(&cfg);
    CHECK_EQ_INT(zdem_s2_state_init(&s1, a1, ARENA, &cfg, &err), ZDEM_OK);
    CHECK_EQ_INT(zdem_s2_state_init(&s2, a2, ARENA, &cfg, &err), ZDEM_OK);
    CHECK_EQ_INT(zdem_s2_state_run(s1, file, size, tick, &err), ZDEM_OK);
    CHECK_EQ_INT(zdem_s2_state_seek(s2, file, size, tick, &err), ZDEM_OK);
    CHECK_EQ_INT(zdem_s2_state_tick(s1), zdem_s2_state_tick(s2));
    CHECK_EQ_INT(zdem_s2_entity_count(s1), zdem_s2_entity_count(s2));
    for (i = 0; i < zdem_s2_entity_limit(s1); i++) {
        zdem_s2_entity e1, e2;
        zdem_s2_value v1, v2;
        if (!zdem_s2_entity_get(s1, (int32_t)i, &e1))
            continue;
        n1++;
        if (!zdem_s2_entity_get(s2, (int32_t)i, &e2) || e1.class_id != e2.class_id ||
            e1.serial != e2.serial)
            continue;
        if (zdem_s2_entity_prop(s1, (int32_t)i, "m_iTeamNum", &v1) !=
            zdem_s2_entity_prop(s2, (int32_t)i, "m_iTeamNum", &v2))
            continue;
        same++;
    }
    CHECK(n1 > 0);
    CHECK_EQ_INT(same, n1);
    free(a1);
    free(a2);
    free(file);
}

int main(void)
{
    seek_equals_run("cs2_demofile-net-gotv-14090-cs-italy.dem", 300);
    seek_equals_run("deadlock_demofile-net-hltv-10423-dl-midtown.dem", 100);
    patched_types("dota2_haste-nekit-pov.dem", "MoveCollide_t", "MoveCollide_x",
                  "CDOTA_PlayerResource", "CDOTA_PlayerResourcX");
    patched_types("cs2_demofile-net-gotv-14155-de-dust2.dem", "MoveCollide_t", "MoveCollide_x",
                  "CCSTeam", "CCSTeaX");
    patched_types("deadlock_demofile-net-hltv-10423-dl-midtown.dem", "MoveCollide_t", "MoveCollide_x",
                  "CCitadelTeam", "CCitadelTeaX");
    mutations("cs2_demofile-net-gotv-14132-de-ancient.dem");
    mutations("dota2_haste-nekit-pov.dem");
    return zt_finish();
}
