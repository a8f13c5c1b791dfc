/* The work budget per input byte (zdem_s2_config.max_*_per_byte) against
 * the corpus: every Source 2 demo, in the full mode and in the events
 * mode, runs with no work_limit warning, and at every frame the work done
 * so far is far under the default budget for the input read so far. The
 * highest ratios are printed (the README quotes them) and must stay at
 * least 8x under the defaults: a budget that real demos come near would
 * skip real data. */
#include <stdlib.h>
#include <string.h>
#include "zdem_test.h"
#include "source2_state.h"

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

/* highest work / (input + slack) seen at a frame, by kind, and where */
static double worst[ZDEM_S2_WORK_KINDS];
static const char *worst_demo[ZDEM_S2_WORK_KINDS];
static const char *cur_demo;
static uint64_t prev_input; /* the input when the previous frame was read */

/* The work done up to the end of the previous frame, against the budget
 * that frame had: the input up to its end. */
static void measure(zdem_s2_state *s)
{
    zdem_s2_usage u;
    double in = (double)prev_input + (double)ZDEM_S2_WORK_SLACK;
    unsigned k;
    zdem_s2_state_usage(s, &u);
    for (k = 0; k < ZDEM_S2_WORK_KINDS; k++)
        if ((double)u.work[k] / in > worst[k]) {
            worst[k] = (double)u.work[k] / in;
            worst_demo[k] = cur_demo;
        }
    prev_input = u.input_bytes;
}

static zdem_status on_frame(void *user, zdem_s2_state *s, const zdem_s2_outer *m,
                            const uint8_t *p, size_t n)
{
    (void)user;
    (void)m;
    (void)p;
    (void)n;
    measure(s);
    return ZDEM_OK;
}

static void run(const char *rel, int events)
{
    size_t size = 0, mem = events ? (size_t)1 << 20 : (size_t)256 << 20;
    uint8_t *file = zt_read_file(zt_corpus_path(rel), &size);
    void *arena = calloc(1, mem);
    zdem_s2_config cfg;
    zdem_s2_state *s = NULL;
    zdem_error err;
    zdem_s2_usage u;
    CHECK(file != NULL && arena != NULL);
    if (!file || !arena) {
        free(file);
        free(arena);
        return;
    }
    if (events)
        zdem_s2_config_events(&cfg);
    else
        zdem_s2_config_default(&cfg);
    cfg.on_frame = on_frame;
    cur_demo = rel;
    prev_input = 0;
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_s2_state_init(&s, arena, mem, &cfg, &err), ZDEM_OK);
    if (s) {
        CHECK_EQ_INT(zdem_s2_state_run(s, file, size, -1, &err), ZDEM_OK);
        measure(s); /* the last frame's work */
        CHECK_EQ_INT(zdem_s2_state_warnings(s)->count[ZDEM_S2_W_WORK_LIMIT], 0);
        zdem_s2_state_usage(s, &u);
        CHECK(u.input_bytes > 0 && u.input_bytes <= size); /* frames up to DEM_Stop and after */
        printf("%s%s: %llu bytes; expanded %.2f, items %.4f, fields %.4f per byte\n", rel,
               events ? " (events mode)" : "", (unsigned long long)u.input_bytes,
               (double)u.work[ZDEM_S2_WORK_EXPAND] / (double)size,
               (double)u.work[ZDEM_S2_WORK_ITEMS] / (double)size,
               (double)u.work[ZDEM_S2_WORK_FIELDS] / (double)size);
    }
    free(file);
    free(arena);
}

int main(void)
{
    static const char *const names[ZDEM_S2_WORK_KINDS] = {"max_expand_per_byte",
                                                          "max_items_per_byte",
                                                          "max_fields_per_byte"};
    static const unsigned defaults[ZDEM_S2_WORK_KINDS] = {
        ZDEM_S2_WORK_EXPAND_DEFAULT, ZDEM_S2_WORK_ITEMS_DEFAULT, ZDEM_S2_WORK_FIELDS_DEFAULT};
    unsigned i, k;
    for (i = 0; i < sizeof demos / sizeof demos[0]; i++) {
        run(demos[i], 0);
        run(demos[i], 1);
    }
    for (k = 0; k < ZDEM_S2_WORK_KINDS; k++) {
        printf("highest running ratio, %s: %.4f (%s); default %u, %.1fx that\n", names[k],
               worst[k], worst_demo[k] ? worst_demo[k] : "-", defaults[k],
               worst[k] > 0 ? defaults[k] / worst[k] : 0.0);
        CHECK(worst[k] * 8.0 <= (double)defaults[k]);
    }
    return zt_finish();
}
