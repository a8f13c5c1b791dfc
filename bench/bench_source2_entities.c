/* Source 2 full parse with entities and events on: per file, the time of
 * the parse inside the process, the arena the demo needed (peak), and what
 * was decoded. With a FILE argument, parses that one file once (for the
 * whole-process comparison in bench_source2_entities.sh); with none, every
 * corpus/source2 demo, best of 5. With --serve, a worker for
 * bench_source2_cpu.sh: each stdin line names a file, parsed once; the reply
 * line is "cpu_us fields updates" (CPU time of the parse alone, the file
 * read before). Numbers only, no assertions. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "source2_state.h"
#include "bench_common.h"

#define ARENA_SIZE ((size_t)256 << 20)

static zdem_status on_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    (void)s;
    (void)ev;
    (*(uint64_t *)user)++;
    return ZDEM_OK;
}

static int bench(const char *path, int reps, uint8_t *arena)
{
    size_t size, fixed = 0;
    uint8_t *file = bench_read_file(path, &size);
    double best = 1e9;
    int r;
    zdem_s2_usage use;
    zdem_s2_stats st;
    uint64_t events = 0;
    uint32_t live = 0;
    zdem_error err;
    int stopped = 0;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (!file) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    memset(&use, 0, sizeof use);
    memset(&st, 0, sizeof st);
    zdem_error_clear(&err);
    for (r = 0; r < reps; r++) {
        zdem_s2_config cfg;
        zdem_s2_state *s;
        double t0;
        events = 0;
        zdem_s2_config_default(&cfg);
        cfg.gather_buffer = 0; /* whole files */
        cfg.on_event = on_event;
        cfg.user = &events;
        zdem_error_clear(&err);
        t0 = bench_now();
        if (zdem_s2_state_init(&s, arena, ARENA_SIZE, &cfg, &err) != ZDEM_OK) {
            fprintf(stderr, "%s: %s\n", path, err.msg ? err.msg : "?");
            free(file);
            return 1;
        }
        /* a cut or damaged file (no DEM_Stop) parses up to its fault: that
         * work is measured, and the row says where it stopped */
        stopped = zdem_s2_state_run(s, file, size, -1, &err) != ZDEM_OK;
        t0 = bench_now() - t0;
        if (t0 < best)
            best = t0;
        zdem_s2_state_usage(s, &use);
        zdem_s2_state_stats(s, &st);
        live = zdem_s2_entity_count(s);
        fixed = zdem_s2_state_fixed_size(&cfg);
    }
    /* arena: what the demo's state took beyond the fixed buffers */
    printf("source2_entities %-48s %7.2f ms %7.1f MB/s arena %6.2f MB frame %5.0f KB entities %4u updates %7llu fields %9llu events %5llu%s%s\n",
           base, best * 1e3, (double)size / best / 1e6,
           (double)(use.arena_peak - (use.arena_peak > fixed ? fixed : use.arena_peak)) / 1048576.0,
           (double)use.max_frame / 1024.0, live, (unsigned long long)st.entity_updates,
           (unsigned long long)st.fields_decoded, (unsigned long long)events,
           stopped ? "  stopped: " : "", stopped ? (err.msg ? err.msg : "?") : "");
    free(file);
    return 0;
}

/* bench_source2_cpu.sh's worker (see the top). */
static int serve(uint8_t *arena)
{
    char path[4096];
    while (fgets(path, sizeof path, stdin)) {
        size_t size, n = strlen(path);
        uint8_t *file;
        zdem_s2_config cfg;
        zdem_s2_state *s;
        zdem_s2_stats st;
        zdem_error err;
        uint64_t events = 0;
        struct timespec a, b;
        while (n && (path[n - 1] == '\n' || path[n - 1] == '\r'))
            path[--n] = 0;
        if (!(file = bench_read_file(path, &size))) {
            printf("error cannot read\n");
            fflush(stdout);
            continue;
        }
        zdem_s2_config_default(&cfg);
        cfg.gather_buffer = 0;
        cfg.on_event = on_event;
        cfg.user = &events;
        zdem_error_clear(&err);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
        if (zdem_s2_state_init(&s, arena, ARENA_SIZE, &cfg, &err) != ZDEM_OK) {
            printf("error state_init\n");
            fflush(stdout);
            free(file);
            continue;
        }
        (void)zdem_s2_state_run(s, file, size, -1, &err);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
        zdem_s2_state_stats(s, &st);
        printf("%.0f %llu %llu\n", ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3,
               (unsigned long long)st.fields_decoded, (unsigned long long)st.entity_updates);
        fflush(stdout);
        free(file);
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const files[] = {
        "cs2_demofile-net-gotv-14011-cs-italy.dem", "cs2_demofile-net-gotv-14065-de-nuke.dem",
        "cs2_demofile-net-gotv-14090-cs-italy.dem", "cs2_demofile-net-gotv-14132-de-ancient.dem",
        "cs2_demofile-net-gotv-14150-ag2-de-train.dem", "cs2_demofile-net-gotv-14155-de-dust2.dem",
        "cs2_demofile-net-gotv-14160-de-dust2.dem", "deadlock_demofile-net-hltv-10423-dl-midtown.dem",
        "dota2_haste-nekit-pov.dem"};
    uint8_t *arena = calloc(1, ARENA_SIZE); /* untouched pages stay unmapped */
    int rc = 0, i;
    if (!arena)
        return 1;
    if (argc > 1 && strcmp(argv[1], "--serve") == 0) {
        rc = serve(arena);
    } else if (argc > 1) {
        for (i = 1; i < argc; i++)
            rc |= bench(argv[i], 1, arena);
    } else {
        const char *corpus = getenv("ZDEM_CORPUS");
        char path[1024];
        for (i = 0; i < (int)(sizeof files / sizeof files[0]); i++) {
            snprintf(path, sizeof path, "%s/source2/%s", corpus ? corpus : "../shared/corpus", files[i]);
            rc |= bench(path, 5, arena);
        }
    }
    free(arena);
    return rc;
}
