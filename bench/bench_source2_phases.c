/* Source 2 full parse (entities and events, the work of bench_all
 * --format source2) split in two phases: the signon (every frame before
 * the first DEM_Packet or DEM_FullPacket: serializers, class info, string
 * tables, signon packets) and the packets (the rest). Per file: bytes,
 * MB/s of each phase (best of N wall time), fields and entity updates
 * decoded. Under callgrind (bench_source2_phases.sh) the counters are
 * dumped at each phase end, so instructions per byte and per field come
 * by phase too. Numbers only, no assertions.
 *   bench_source2_phases [FILE...]   (none: every corpus/source2 demo) */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "source2_state.h"
#include "bench_common.h"
#ifdef ZDEM_HAVE_CALLGRIND_H
#include <valgrind/callgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#define CALLGRIND_DUMP_STATS_AT(x) ((void)(x))
#endif

#define ARENA_SIZE ((size_t)256 << 20)

typedef struct phase_ctx {
    int in_packets;
    uint64_t boundary; /* file offset of the first game frame */
    double t_boundary;
    zdem_s2_stats at; /* counters when the packets began */
    const char *name;
} phase_ctx;

static zdem_status on_frame(void *user, zdem_s2_state *s, const zdem_s2_outer *m,
                            const uint8_t *payload, size_t size)
{
    phase_ctx *c = (phase_ctx *)user;
    (void)payload;
    (void)size;
    if (!c->in_packets && (m->cmd == ZDEM_S2_DEM_PACKET || m->cmd == ZDEM_S2_DEM_FULLPACKET)) {
        c->in_packets = 1;
        c->boundary = m->offset;
        zdem_s2_state_stats(s, &c->at);
        if (RUNNING_ON_VALGRIND) {
            char tag[320];
            snprintf(tag, sizeof tag, "signon %s", c->name);
            CALLGRIND_DUMP_STATS_AT(tag);
        }
        c->t_boundary = bench_now();
    }
    return ZDEM_OK;
}

static int run(const char *path, int reps, uint8_t *arena)
{
    size_t size;
    uint8_t *file = bench_read_file(path, &size);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    double best_sig = 1e30, best_pkt = 1e30;
    zdem_s2_stats st;
    phase_ctx c;
    int r;
    memset(&st, 0, sizeof st);
    memset(&c, 0, sizeof c);
    if (!file) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    for (r = 0; r < reps; r++) {
        zdem_s2_config cfg;
        zdem_s2_state *s;
        zdem_error err;
        double t0, t1;
        memset(&c, 0, sizeof c);
        c.name = base;
        zdem_s2_config_default(&cfg);
        cfg.gather_buffer = 0; /* whole files */
        cfg.on_frame = on_frame;
        cfg.user = &c;
        zdem_error_clear(&err);
        if (RUNNING_ON_VALGRIND) /* start-up and loading in a part of their own */
            CALLGRIND_DUMP_STATS_AT("start");
        t0 = bench_now();
        if (zdem_s2_state_init(&s, arena, ARENA_SIZE, &cfg, &err) != ZDEM_OK) {
            fprintf(stderr, "%s: %s\n", path, err.msg ? err.msg : "?");
            free(file);
            return 1;
        }
        /* a damaged or cut file still parses up to its fault: measured */
        (void)zdem_s2_state_run(s, file, size, -1, &err);
        t1 = bench_now();
        if (RUNNING_ON_VALGRIND) {
            char tag[320];
            snprintf(tag, sizeof tag, "packets %s", base);
            CALLGRIND_DUMP_STATS_AT(tag);
        }
        if (!c.in_packets) {
            c.boundary = size;
            zdem_s2_state_stats(s, &c.at);
            c.t_boundary = t1;
        }
        if (c.t_boundary - t0 < best_sig)
            best_sig = c.t_boundary - t0;
        if (t1 - c.t_boundary < best_pkt)
            best_pkt = t1 - c.t_boundary;
        zdem_s2_state_stats(s, &st);
    }
    printf("%-48s signon %8llu B %7.1f MB/s  packets %8llu B %7.1f MB/s  fields %7llu updates %6llu"
           "  signon_fields %7llu signon_updates %6llu\n",
           base, (unsigned long long)c.boundary,
           best_sig > 0 ? (double)c.boundary / best_sig / 1e6 : 0.0,
           (unsigned long long)(size - c.boundary),
           best_pkt > 0 ? (double)(size - c.boundary) / best_pkt / 1e6 : 0.0,
           (unsigned long long)st.fields_decoded, (unsigned long long)st.entity_updates,
           (unsigned long long)c.at.fields_decoded, (unsigned long long)c.at.entity_updates);
    free(file);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
    uint8_t *arena = calloc(1, ARENA_SIZE); /* untouched pages stay unmapped */
    int rc = 0, i, reps = RUNNING_ON_VALGRIND ? 1 : 5;
    if (!arena)
        return 1;
    if (argc > 1) {
        for (i = 1; i < argc; i++)
            rc |= run(argv[i], reps, arena);
    } else {
        const char *corpus = getenv("ZDEM_CORPUS");
        char dir[1024], path[2048];
        struct dirent **list;
        int n;
        snprintf(dir, sizeof dir, "%s/source2", corpus ? corpus : "../shared/corpus");
        n = scandir(dir, &list, NULL, by_name);
        for (i = 0; i < n; i++) {
            size_t l = strlen(list[i]->d_name);
            if (l > 4 && strcmp(list[i]->d_name + l - 4, ".dem") == 0) {
                snprintf(path, sizeof path, "%s/%s", dir, list[i]->d_name);
                rc |= run(path, reps, arena);
            }
            free(list[i]);
        }
        if (n >= 0)
            free(list);
    }
    free(arena);
    return rc;
}
