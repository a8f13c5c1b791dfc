/* Full-parse throughput per format over the corpus, in one run: MB/s and
 * ns per message (Source 2: outer frames, with entities and events
 * decoded; Quake III: messages; Teeworlds: chunks). `--once` runs a single pass (for callgrind, whose
 * instruction counts are repeatable where wall time is not); `--format F`
 * limits the run to source2, quake3 or teeworlds. Numbers only: no
 * assertions. Every parse runs in memory allocated once up front. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, scandir: host-only tool */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quake3.h"
#include "source2_demo.h"
#include "source2_parse.h"
#include "source2_state.h"
#include "teeworlds_reader.h"
#include "bench_common.h"

typedef struct file {
    char name[256];
    uint8_t *data;
    size_t size;
} file;

static size_t load_dir(const char *corpus, const char *sub, const char *const *exts,
                       file *out, size_t max)
{
    char path[4096];
    struct dirent **list;
    int n, i;
    size_t count = 0;
    snprintf(path, sizeof path, "%s/%s", corpus, sub);
    n = scandir(path, &list, NULL, alphasort);
    for (i = 0; i < n; i++) {
        const char *dot = strrchr(list[i]->d_name, '.');
        const char *const *e;
        int keep = 0;
        for (e = exts; *e && dot; e++)
            if (strncmp(dot, *e, strlen(*e)) == 0)
                keep = 1;
        if (keep && count < max) {
            FILE *f;
            long len;
            snprintf(path, sizeof path, "%s/%s/%s", corpus, sub, list[i]->d_name);
            f = fopen(path, "rb");
            if (f) {
                fseek(f, 0, SEEK_END);
                len = ftell(f);
                fseek(f, 0, SEEK_SET);
                out[count].data = malloc((size_t)len + 1);
                out[count].size = fread(out[count].data, 1, (size_t)len, f);
                snprintf(out[count].name, sizeof out[count].name, "%s", list[i]->d_name);
                fclose(f);
                count++;
            }
        }
        free(list[i]);
    }
    free(list);
    return count;
}

/* ---- per-format full parse: returns messages parsed ------------------------ */

static void *s2_arena;
static const size_t s2_arena_size = (size_t)64 << 20;

/* Source 2 full parse: string tables, serializers, every entity update and
 * game event (the state layer), over the container. */
static unsigned long parse_source2(const file *f)
{
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_s2_reader r;
    zdem_s2_outer m;
    zdem_error err;
    unsigned long frames = 0;
    zdem_error_clear(&err);
    zdem_s2_config_default(&cfg);
    cfg.gather_buffer = 0; /* whole files */
    if (zdem_s2_state_init(&s, s2_arena, s2_arena_size, &cfg, &err) != ZDEM_OK)
        return 0;
    zdem_s2_state_run(s, f->data, f->size, -1, &err);
    zdem_s2_reader_init(&r, f->data, f->size);
    while (zdem_s2_next(&r, &m, &err) == 1)
        frames++;
    return frames;
}

static void *q3_mem;

static unsigned long parse_quake3(const file *f)
{
    zdem_error err;
    zdem_q3_reader r;
    zdem_q3_parser *p;
    int proto = zdem_q3_protocol_from_path(f->name);
    zdem_error_clear(&err);
    p = zdem_q3_parser_init(q3_mem, zdem_q3_parser_size(), proto, NULL, NULL, &err);
    if (!p)
        return 0;
    zdem_q3_parse_file(p, f->data, f->size, &r, &err);
    return r.index;
}

static zdem_tw_reader *tw;

static unsigned long parse_teeworlds(const file *f)
{
    zdem_error err;
    zdem_tw_event ev;
    unsigned long n = 0;
    zdem_error_clear(&err);
    if (zdem_tw_reader_open(tw, f->data, f->size, &err) != ZDEM_OK)
        return 0;
    while (zdem_tw_reader_next(tw, &ev, &err) == 1)
        n++;
    return n;
}

typedef struct format {
    const char *name, *dir;
    const char *exts[6];
    unsigned long (*parse)(const file *);
} format;

static const format formats[] = {
    {"source2", "source2", {".dem", NULL}, parse_source2},
    {"quake3", "q3", {".dm_6", ".dm_7", ".dm_9", NULL}, parse_quake3},
    {"teeworlds", "teeworlds", {".demo", NULL}, parse_teeworlds},
};

int main(int argc, char **argv)
{
    const char *corpus = getenv("ZDEM_CORPUS");
    const char *only = NULL;
    int once = 0, i;
    size_t k;
    static file files[64];

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--once") == 0)
            once = 1;
        else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
            only = argv[++i];
    }
    if (!corpus)
        corpus = "../shared/corpus";
    s2_arena = malloc(s2_arena_size);
    q3_mem = malloc(zdem_q3_parser_size());
    tw = malloc(sizeof *tw);

    printf("| format | files | MB | MB/s | messages | ns/message |\n|---|---|---|---|---|---|\n");
    for (k = 0; k < sizeof formats / sizeof formats[0]; k++) {
        const format *fm = &formats[k];
        size_t nf, j;
        double bytes = 0, best = 1e30;
        unsigned long msgs = 0;
        int rep, reps = once ? 1 : 5;
        if (only && strcmp(only, fm->name) != 0)
            continue;
        nf = load_dir(corpus, fm->dir, fm->exts, files, 64);
        for (j = 0; j < nf; j++)
            bytes += (double)files[j].size;
        for (rep = 0; rep < reps; rep++) { /* best of reps: least disturbed */
            double t0 = bench_now(), dt;
            msgs = 0;
            for (j = 0; j < nf; j++)
                msgs += fm->parse(&files[j]);
            dt = bench_now() - t0;
            if (dt < best)
                best = dt;
        }
        printf("| %s | %zu | %.1f | %.0f | %lu | %.0f |\n", fm->name, nf, bytes / 1e6,
               bytes / 1e6 / best, msgs, msgs ? best * 1e9 / (double)msgs : 0.0);
        for (j = 0; j < nf; j++)
            free(files[j].data);
    }
    free(s2_arena);
    free(q3_mem);
    free(tw);
    return 0;
}
