#define _POSIX_C_SOURCE 200809L
/* The Source 2 state CLI commands (events, entities, info) on the corpus,
 * run as the zdem binary ($ZDEM_BIN), checked against gem
 * (peers/<file>.s2-gem.json) and demoparser2 (peers/<file>.cs2-ref.json). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "zdem_test.h"

/* Output of "zdem ARGS corpus/source2/NAME" (stderr discarded); *rc is
 * its exit status. */
static char *run(const char *args, const char *name, int *rc)
{
    char cmd[2048];
    FILE *p;
    char *b = NULL;
    size_t n = 0, cap = 0;
    int st;
    snprintf(cmd, sizeof cmd, "'%s' %s '%s/source2/%s' 2>/dev/null", getenv("ZDEM_BIN"), args,
             getenv("ZDEM_CORPUS"), name);
    p = popen(cmd, "r");
    if (!p)
        return NULL;
    for (;;) {
        size_t got;
        if (n + 65536 + 1 > cap) {
            char *nb = realloc(b, cap = (n + 65536 + 1) * 2);
            if (!nb)
                break;
            b = nb;
        }
        got = fread(b + n, 1, 65536, p);
        n += got;
        if (!got)
            break;
    }
    st = pclose(p);
    *rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (b)
        b[n] = 0;
    return b;
}

static char *peer(const char *name, const char *suffix)
{
    char rel[256];
    size_t n;
    uint8_t *b;
    char *s;
    snprintf(rel, sizeof rel, "peers/%s.%s", name, suffix);
    b = zt_read_file(zt_corpus_path(rel), &n);
    if (!b)
        return NULL;
    s = realloc(b, n + 1);
    s[n] = 0;
    return s;
}

static void test_info_dota(void)
{
    int rc = -1;
    char *out = run("info --json", "dota2_haste-nekit-pov.dem", &rc);
    char *gem = peer("dota2_haste-nekit-pov.dem", "s2-gem.json");
    const char *names[] = {"Otaku", "Nekit", "bc kmotito", "Kaizen", "Scourge of God"};
    size_t i;
    CHECK_EQ_INT(rc, 0);
    CHECK(out != NULL && gem != NULL);
    if (out && gem) {
        /* same figures as gem's summary */
        CHECK(strstr(out, "\"entity_classes\":1468") != NULL);
        CHECK(strstr(gem, "\"entity_classes\": 1468") != NULL);
        CHECK(strstr(out, "\"serializers\":1509") != NULL);
        CHECK(strstr(gem, "\"serializers\": 1509") != NULL);
        CHECK(strstr(out, "\"entities_at_end\":78") != NULL);
        CHECK(strstr(gem, "\"live_entities_at_end\": 78") != NULL);
        CHECK(strstr(out, "\"ModifierNames\":3042") != NULL);
        CHECK(strstr(gem, "\"ModifierNames\": 3042") != NULL);
        for (i = 0; i < sizeof names / sizeof names[0]; i++) {
            char q[64];
            snprintf(q, sizeof q, "\"%s\"", names[i]);
            CHECK(strstr(out, q) != NULL);
        }
        CHECK(strstr(out, "\"error\"") == NULL);
    }
    free(out);
    free(gem);
}

static void test_events_cs2(const char *name)
{
    char *out, *ref;
    int rc = -1;
    out = run("events --json", name, &rc);
    CHECK_EQ_INT(rc, 0);
    ref = peer(name, "cs2-ref.json");
    CHECK(out != NULL && ref != NULL);
    if (out && ref) {
        /* every game-event name demoparser2 lists appears as "name" */
        const char *p = strstr(ref, "\"game_events\":[");
        if (p) {
            p += strlen("\"game_events\":[");
            while (*p == '"') {
                const char *e = strchr(p + 1, '"');
                char q[128];
                if (!e || e - p > 100)
                    break;
                snprintf(q, sizeof q, "\"type\":\"game_event\",\"name\":\"%.*s\"", (int)(e - p - 1), p + 1);
                CHECK(strstr(out, q) != NULL);
                p = e + 1;
                if (*p == ',')
                    p++;
            }
        }
        /* every line is an object with tick, type and name */
        {
            const char *l = out;
            int lines = 0;
            while (*l) {
                const char *nl = strchr(l, '\n');
                CHECK(strncmp(l, "{\"tick\":", 8) == 0);
                if (!nl)
                    break;
                l = nl + 1;
                lines++;
            }
            CHECK(lines > 0);
        }
    }
    free(out);
    free(ref);
}

static void test_entities(void)
{
    char *out;
    int rc = -1;
    out = run("entities --json --class CDOTA_PlayerResource", "dota2_haste-nekit-pov.dem", &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK(out != NULL);
    if (out) {
        /* gem's player names are properties of the player resource */
        CHECK(strstr(out, "\"class\":\"CDOTA_PlayerResource\"") != NULL);
        CHECK(strstr(out, "\"m_vecPlayerData.1.m_iszPlayerName\":\"Nekit\"") != NULL);
    }
    free(out);
    /* at a tick: seeking through the full packet on CS2 */
    out = run("entities --tick 100 --class CCSTeam", "cs2_demofile-net-gotv-14132-de-ancient.dem", &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK(out != NULL && strstr(out, "\"class\":\"CCSTeam\"") != NULL);
    CHECK(out != NULL && strstr(out, "\"tick\":100,") != NULL);
    free(out);
    /* a negative tick is a usage error, not "the end" */
    out = run("entities --tick -5", "cs2_demofile-net-gotv-14132-de-ancient.dem", &rc);
    CHECK_EQ_INT(rc, 1);
    CHECK(out != NULL && out[0] == 0);
    free(out);
}

int main(void)
{
    if (!getenv("ZDEM_BIN") || !getenv("ZDEM_CORPUS")) {
        fprintf(stderr, "ZDEM_BIN and ZDEM_CORPUS must be set\n");
        return 1;
    }
    test_info_dota();
    test_events_cs2("cs2_demofile-net-gotv-14011-cs-italy.dem");
    test_events_cs2("cs2_demofile-net-gotv-14090-cs-italy.dem");
    test_events_cs2("deadlock_demofile-net-hltv-10423-dl-midtown.dem");
    test_entities();
    return zt_finish();
}
