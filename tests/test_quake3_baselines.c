/* Baselines are kept as the bits the gamestate sent and decoded again on
 * use (quake3_snapshots.c store_baseline / baseline_of). Against ioquake3's
 * reading (peers/NAME.q3-ioq3ref.json "baselines_total", the baselines its
 * CL_ParseGamestate stored): after every gamestate, each entity number
 * the gamestate sent decodes to a state of that number, and the count
 * over all gamestates equals ioquake3's (Quake Live, which ioquake3 does
 * not read: the count the parser made while reading); a second decode
 * gives the same bytes. At the default limits (a 256-entry cache of
 * decoded baselines), with a one-entry cache and at ZDEM_Q3_LIMITS_SMALL
 * (none). */
#include <stdlib.h>
#include <string.h>

#include "quake3.h"
#include "zdem_test.h"

typedef struct bl_count {
    unsigned long decoded; /* baselines whose decode has their number */
    unsigned long unstable;
    unsigned long wrong;   /* a decode of another number */
    unsigned long counted; /* zdem_q3_baseline_count, summed */
} bl_count;

static int on_gamestate(void *user, const zdem_q3_parser *p)
{
    bl_count *c = user;
    int n;
    c->counted += zdem_q3_baseline_count(p);
    for (n = 0; n < ZDEM_Q3_MAX_GENTITIES; n++) {
        zdem_q3_entity a;
        const zdem_q3_entity *e = zdem_q3_baseline(p, n);
        if (!e)
            continue;
        if (e->number != n) {
            c->wrong++;
            continue;
        }
        a = *e;
        c->decoded++;
        if (memcmp(&a, zdem_q3_baseline(p, n), sizeof a) != 0)
            c->unstable++;
    }
    return 0;
}

/* "baselines_total": N of the ioquake3 reference, -1 when absent. */
static long ioq3_baselines(const char *demo)
{
    char rel[512];
    size_t n = 0;
    char *j, *k;
    long v = -1;
    snprintf(rel, sizeof rel, "peers/%s.q3-ioq3ref.json", demo);
    j = (char *)zt_read_file(zt_corpus_path(rel), &n);
    if (!j)
        return -1;
    j = realloc(j, n + 1);
    j[n] = 0;
    k = strstr(j, "\"baselines_total\":");
    if (k)
        v = strtol(k + 18, NULL, 10);
    free(j);
    return v;
}

/* small: 0 the defaults, 1 ZDEM_Q3_LIMITS_SMALL (no baseline cache), 2 the
 * defaults with a one-entry baseline cache */
static void check_demo(const char *demo, int small)
{
    char rel[512];
    size_t size = 0;
    uint8_t *file;
    zdem_q3_limits lim;
    zdem_q3_callbacks cb;
    bl_count c = {0, 0, 0, 0};
    zdem_q3_reader r;
    zdem_error err;
    zdem_q3_parser *p;
    void *mem;
    long want = ioq3_baselines(demo);
    snprintf(rel, sizeof rel, "q3/%s", demo);
    file = zt_read_file(zt_corpus_path(rel), &size);
    if (small == 1)
        zdem_q3_limits_small(&lim);
    else
        zdem_q3_limits_default(&lim);
    if (small == 2)
        lim.baseline_cache = 1; /* every entity number shares one entry */
    mem = malloc(zdem_q3_parser_size_for(&lim));
    if (!CHECK(file && mem))
        goto out;
    memset(&cb, 0, sizeof cb);
    cb.gamestate = on_gamestate;
    zdem_error_clear(&err);
    p = zdem_q3_parser_init_limits(mem, zdem_q3_parser_size_for(&lim),
                                   zdem_q3_protocol_from_path(demo), &lim, &cb, &c, &err);
    if (!CHECK(p != NULL))
        goto out;
    CHECK_EQ_INT(zdem_q3_parse_file(p, file, size, &r, &err), ZDEM_OK);
    if (want > 0)
        CHECK_EQ_INT(c.decoded, want);
    CHECK(c.decoded > 0);
    CHECK_EQ_INT(c.decoded, c.counted);
    CHECK_EQ_INT(c.unstable, 0);
    CHECK_EQ_INT(c.wrong, 0);
    CHECK_EQ_INT(zdem_q3_limit_hits(p), 0);
out:
    free(mem);
    free(file);
}

int main(void)
{
    /* one demo per protocol and mod family, multi-gamestate ones included */
    static const char *const demos[] = {
        "q3-1.31-osp_udt-2002-tdm1-cpl-oslo.dm_67",
        "q3-baseq3_udt-1map-2matches.dm_68",
        "q3-cpma_udt-3matches-2gamestates.dm_68",
        "q3-defrag-cpm_demoreader-mega-wood-kreator.dm_68",
        "q3-1.31_udt-2002-duel2-cpl-nostromo.dm_67",
        "q3_udt-edawn-1map-2matches.dm_68",
        /* ioquake3 does not read Quake Live: the parser's own count */
        "ql_udt-duel-forfeit-disconnect.dm_91",
        "ql_udt-freeze-tag.dm_90",
    };
    size_t i;
    for (i = 0; i < sizeof demos / sizeof demos[0]; i++) {
        check_demo(demos[i], 0);
        check_demo(demos[i], 1);
        check_demo(demos[i], 2);
    }
    return zt_finish();
}
