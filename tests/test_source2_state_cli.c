#define _POSIX_C_SOURCE 200809L
/* The Source 2 state CLI commands (events, entities, info additions) on the
 * corpus, checked against gem (peers/<file>.s2-gem.json) and demoparser2
 * (peers/<file>.cs2-ref.json). Output is captured through a temp file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "zdem_test.h"
#include "cli_source2_state.h"

static char *capture_begin(FILE **f)
{
    *f = tmpfile();
    return NULL;
}

static char *read_all(FILE *f)
{
    long n;
    char *b;
    fflush(f);
    n = ftell(f);
    if (n < 0)
        return NULL;
    b = malloc((size_t)n + 1);
    if (!b)
        return NULL;
    rewind(f);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        return NULL;
    }
    b[n] = 0;
    return b;
}

/* Runs fn with stdout redirected into a string. */
static char *run_stdout(int (*fn)(const zdem_cli_args *, const zdem_cli_file *),
                        const zdem_cli_args *a, const zdem_cli_file *f, int *rc)
{
    char path[] = "/tmp/zdem_s2_cli_XXXXXX";
    int fd, saved;
    FILE *in;
    char *out;
    fflush(stdout);
    fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    saved = dup(1);
    dup2(fd, 1);
    *rc = fn(a, f);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(fd);
    in = fopen(path, "rb");
    if (!in)
        return NULL;
    fseek(in, 0, SEEK_END);
    out = read_all(in);
    fclose(in);
    remove(path);
    return out;
}

static int load(const char *name, zdem_cli_file *f)
{
    char rel[256];
    size_t size;
    snprintf(rel, sizeof rel, "source2/%s", name);
    f->path = name;
    f->data = zt_read_file(zt_corpus_path(rel), &size);
    f->size = size;
    return f->data != NULL;
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
    zdem_cli_file f;
    FILE *tf;
    char *out, *gem;
    const char *names[] = {"Otaku", "Nekit", "bc kmotito", "Kaizen", "Scourge of God"};
    size_t i;
    CHECK(load("dota2_haste-nekit-pov.dem", &f));
    capture_begin(&tf);
    CHECK(tf != NULL);
    CHECK_EQ_INT(zdem_cli_source2_info_state(tf, &f), 0);
    out = read_all(tf);
    fclose(tf);
    gem = peer("dota2_haste-nekit-pov.dem", "s2-gem.json");
    CHECK(out != NULL && gem != NULL);
    if (out && gem) {
        /* same figures as gem's summary */
        CHECK(strstr(out, "\"entity_classes\": 1468") != NULL);
        CHECK(strstr(gem, "\"entity_classes\": 1468") != NULL);
        CHECK(strstr(out, "\"serializers\": 1509") != NULL);
        CHECK(strstr(gem, "\"serializers\": 1509") != NULL);
        CHECK(strstr(out, "\"entities_at_end\": 78") != NULL);
        CHECK(strstr(gem, "\"live_entities_at_end\": 78") != NULL);
        CHECK(strstr(out, "\"ModifierNames\": 3042") != NULL);
        CHECK(strstr(gem, "\"ModifierNames\": 3042") != NULL);
        for (i = 0; i < sizeof names / sizeof names[0]; i++) {
            char q[64];
            snprintf(q, sizeof q, "\"%s\"", names[i]);
            CHECK(strstr(out, q) != NULL);
        }
        CHECK(out[0] == ',');
    }
    free(out);
    free(gem);
    free((void *)f.data);
}

static void test_events_cs2(const char *name)
{
    zdem_cli_file f;
    zdem_cli_args a;
    char *out, *ref;
    int rc = -1;
    memset(&a, 0, sizeof a);
    a.command = "events";
    a.json = 1;
    CHECK(load(name, &f));
    out = run_stdout(zdem_cli_source2_events, &a, &f, &rc);
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
    free((void *)f.data);
}

static void test_entities(void)
{
    zdem_cli_file f;
    zdem_cli_args a;
    char *out;
    int rc = -1;
    memset(&a, 0, sizeof a);
    a.command = "entities";
    a.json = 1;
    a.class_name = "CDOTA_PlayerResource";
    CHECK(load("dota2_haste-nekit-pov.dem", &f));
    out = run_stdout(zdem_cli_source2_entities, &a, &f, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK(out != NULL);
    if (out) {
        /* gem's player names are properties of the player resource */
        CHECK(strstr(out, "\"class\":\"CDOTA_PlayerResource\"") != NULL);
        CHECK(strstr(out, "\"m_vecPlayerData.1.m_iszPlayerName\":\"Nekit\"") != NULL);
    }
    free(out);
    /* at a tick: seeking through the full packet on CS2 */
    free((void *)f.data);
    memset(&a, 0, sizeof a);
    a.command = "entities";
    a.has_tick = 1;
    a.tick = 100;
    a.class_name = "CCSTeam";
    CHECK(load("cs2_demofile-net-gotv-14132-de-ancient.dem", &f));
    out = run_stdout(zdem_cli_source2_entities, &a, &f, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK(out != NULL && strstr(out, "\"class\":\"CCSTeam\"") != NULL);
    CHECK(out != NULL && strstr(out, "\"tick\":100,") != NULL);
    free(out);
    free((void *)f.data);
}

int main(void)
{
    test_info_dota();
    test_events_cs2("cs2_demofile-net-gotv-14011-cs-italy.dem");
    test_events_cs2("cs2_demofile-net-gotv-14090-cs-italy.dem");
    test_events_cs2("deadlock_demofile-net-hltv-10423-dl-midtown.dem");
    test_entities();
    return zt_finish();
}
