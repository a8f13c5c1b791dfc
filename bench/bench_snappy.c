/* Snappy decompression speed: ours vs libsnappy on every compressed payload
 * of the Source 2 corpus, measured in the same run on the same buffers.
 * Each round decompresses the whole payload set with one decoder, then the
 * other (alternating which goes first); the best round of each is reported,
 * as throughput of uncompressed output (the usual Snappy convention) and of
 * compressed input. Prints numbers only.
 *
 *   bench_snappy [CORPUS_DIR] [SECONDS]     (default $ZDEM_CORPUS, 2 s) */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zdem_snappy.h"
#ifdef ZDEM_HAVE_SNAPPY
#include <snappy-c.h>
#include "bench_common.h"
#endif

typedef struct payload {
    const uint8_t *data;
    size_t len, ulen;
} payload;

static payload *payloads;
static size_t n_payloads, cap_payloads, total_in, total_out, max_out;
static uint8_t *files[256]; /* payloads point into these */
static size_t n_files;

static int read_var(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
    uint32_t x = 0;
    unsigned shift = 0;
    while (*p < end && shift < 35) {
        uint8_t b = *(*p)++;
        x |= (uint32_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 1;
        }
        shift += 7;
    }
    return 0;
}

/* Collects the Snappy payloads of one demo (the file stays loaded). */
static void add_file(const char *path)
{
    size_t size = 0;
    uint8_t *file = bench_read_file(path, &size);
    const uint8_t *p, *end;
    if (!file)
        return;
    if (size < 16 || n_files == 256) {
        free(file);
        return;
    }
    files[n_files++] = file;
    p = file + 16;
    end = file + size;
    while (p < end) {
        uint32_t cmd, tick, len;
        size_t ulen = 0;
        zdem_error e;
        if (!read_var(&p, end, &cmd) || !read_var(&p, end, &tick) ||
            !read_var(&p, end, &len) || len > (size_t)(end - p))
            break;
        zdem_error_clear(&e);
        if ((cmd & 0x40u) &&
            zdem_snappy_uncompressed_length(p, len, &ulen, &e) == ZDEM_OK) {
            if (n_payloads == cap_payloads) {
                cap_payloads = cap_payloads ? cap_payloads * 2 : 1024;
                payloads = realloc(payloads, cap_payloads * sizeof *payloads);
            }
            payloads[n_payloads].data = p;
            payloads[n_payloads].len = len;
            payloads[n_payloads].ulen = ulen;
            n_payloads++;
            total_in += len;
            total_out += ulen;
            if (ulen > max_out)
                max_out = ulen;
        }
        p += len;
    }
}

static volatile uint8_t sink;

static int run_ours(uint8_t *out)
{
    size_t i, got;
    for (i = 0; i < n_payloads; i++) {
        zdem_error e;
        zdem_error_clear(&e);
        if (zdem_snappy_decompress(payloads[i].data, payloads[i].len, out, max_out,
                                   &got, &e) != ZDEM_OK)
            return -1;
        sink ^= out[got ? got - 1 : 0];
    }
    return 0;
}

#ifdef ZDEM_HAVE_SNAPPY
static int run_lib(uint8_t *out)
{
    size_t i;
    for (i = 0; i < n_payloads; i++) {
        size_t got = max_out;
        if (snappy_uncompress((const char *)payloads[i].data, payloads[i].len,
                              (char *)out, &got) != SNAPPY_OK)
            return -1;
        sink ^= out[got ? got - 1 : 0];
    }
    return 0;
}
#endif

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    const char *corpus = argc > 1 ? argv[1] : getenv("ZDEM_CORPUS");
    double budget = argc > 2 ? atof(argv[2]) : 2.0;
    double best_ours = 1e30, best_lib = 1e30, start;
    char dir[4096], *names[256];
    size_t n_names = 0, i;
    int rounds = 0;
    uint8_t *out;
    DIR *d;
    struct dirent *de;

    if (!corpus)
        corpus = "../shared/corpus";
    snprintf(dir, sizeof dir, "%s/source2", corpus);
    d = opendir(dir);
    if (!d) {
        fprintf(stderr, "bench_snappy: cannot open %s\n", dir);
        return 1;
    }
    while ((de = readdir(d)) != NULL && n_names < 256) {
        size_t l = strlen(de->d_name);
        if (l > 4 && strcmp(de->d_name + l - 4, ".dem") == 0)
            names[n_names++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, n_names, sizeof names[0], cmp_str);
    for (i = 0; i < n_names; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        add_file(path);
    }
    if (n_payloads == 0) {
        fprintf(stderr, "bench_snappy: no compressed payloads under %s\n", dir);
        return 1;
    }
    out = malloc(max_out ? max_out : 1);

#ifdef ZDEM_HAVE_SNAPPY
    { /* same bytes from both, once, before timing */
        uint8_t *other = malloc(max_out ? max_out : 1);
        for (i = 0; i < n_payloads; i++) {
            size_t a = 0, b = max_out;
            zdem_error e;
            zdem_error_clear(&e);
            if (zdem_snappy_decompress(payloads[i].data, payloads[i].len, out,
                                       max_out, &a, &e) != ZDEM_OK ||
                snappy_uncompress((const char *)payloads[i].data, payloads[i].len,
                                  (char *)other, &b) != SNAPPY_OK ||
                a != b || memcmp(out, other, a) != 0) {
                fprintf(stderr, "bench_snappy: payload %zu differs\n", i);
                return 1;
            }
        }
        free(other);
    }
#endif

    start = bench_now();
    do {
        double t0, t1;
        int ours_first = rounds % 2 == 0;
        if (ours_first) {
            t0 = bench_now();
            if (run_ours(out) != 0)
                return 1;
            t1 = bench_now();
            if (t1 - t0 < best_ours)
                best_ours = t1 - t0;
        }
#ifdef ZDEM_HAVE_SNAPPY
        t0 = bench_now();
        if (run_lib(out) != 0)
            return 1;
        t1 = bench_now();
        if (t1 - t0 < best_lib)
            best_lib = t1 - t0;
#endif
        if (!ours_first) {
            t0 = bench_now();
            if (run_ours(out) != 0)
                return 1;
            t1 = bench_now();
            if (t1 - t0 < best_ours)
                best_ours = t1 - t0;
        }
        rounds++;
    } while (rounds < 3 || bench_now() - start < budget);

    printf("snappy: %zu payloads from %zu files, %.2f MB compressed -> %.2f MB, "
           "%d rounds, best round each\n",
           n_payloads, n_names, total_in / 1e6, total_out / 1e6, rounds);
    printf("%-10s %12s %12s\n", "decoder", "out MB/s", "in MB/s");
    printf("%-10s %12.1f %12.1f\n", "zdem", total_out / best_ours / 1e6,
           total_in / best_ours / 1e6);
#ifdef ZDEM_HAVE_SNAPPY
    printf("%-10s %12.1f %12.1f\n", "libsnappy", total_out / best_lib / 1e6,
           total_in / best_lib / 1e6);
    printf("ratio zdem/libsnappy: %.2f (>1: zdem faster)\n", best_lib / best_ours);
#else
    printf("libsnappy: not built in (no snappy-c.h / libsnappy)\n");
#endif
    for (i = 0; i < n_names; i++)
        free(names[i]);
    for (i = 0; i < n_files; i++)
        free(files[i]);
    free(out);
    free(payloads);
    return 0;
}
