/* Quake III demo parsing speed over the corpus (q3/ demos, dm_66 .. dm_91, that
 * parse to the end): a full parse (every message, gamestate, snapshot,
 * playerstate and entity delta, events), and the Huffman decoder alone:
 * the 11-bit lookup table against a bit-at-a-time walk of the code tree,
 * in the same run over the same message payloads. Best of several rounds;
 * prints numbers only. The parser state is allocated once before timing;
 * the library itself never allocates.
 *
 *   bench_quake3 [CORPUS_DIR] [ROUNDS]     (default $ZDEM_CORPUS, 5) */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quake3.h"
#include "quake3_msg.h"
#include "bench_common.h"

typedef struct demo {
    char name[256];
    uint8_t *data;
    size_t size;
    int protocol;
} demo;

static demo demos[128];
static int n_demos;

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = malloc(n > 0 ? (size_t)n : 1);
    if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *size = (size_t)(n > 0 ? n : 0);
    return b;
}

static volatile uint32_t sink;

static int count_entities(void *user, const zdem_q3_parser *p, const zdem_q3_snapshot *s)
{
    (void)p;
    *(uint64_t *)user += (uint64_t)s->num_entities;
    return 0;
}

/* Bit-at-a-time reference: ioquake3's tree walk. */
static unsigned tree_byte(const uint8_t *d, size_t len, size_t *bit)
{
    int node = 0;
    for (;;) {
        size_t b = *bit;
        int v = b < len * 8 ? (d[b >> 3] >> (b & 7)) & 1 : 0;
        int next = zdem_q3_huff_tree[node][v];
        (*bit)++;
        if (next < 0)
            return (unsigned)(-next - 1);
        if (next == 0x7FFF)
            return 0;
        node = next;
    }
}

int main(int argc, char **argv)
{
    const char *corpus = argc > 1 ? argv[1] : getenv("ZDEM_CORPUS");
    int rounds = argc > 2 ? atoi(argv[2]) : 5, i, k;
    char dir[1024];
    DIR *dd;
    struct dirent *de;
    void *mem;
    size_t total = 0, payload_bytes = 0;
    double best_full = 1e9, best_table = 1e9, best_tree = 1e9;
    uint64_t entities = 0, symbols = 0;

    if (!corpus)
        corpus = "../shared/corpus";
    snprintf(dir, sizeof dir, "%s/q3", corpus);
    dd = opendir(dir);
    if (!dd) {
        fprintf(stderr, "bench_quake3: cannot open %s\n", dir);
        return 1;
    }
    mem = malloc(zdem_q3_parser_size());
    while ((de = readdir(dd)) != NULL && n_demos < 128) {
        char path[2048];
        demo *d = &demos[n_demos];
        zdem_q3_parser *p;
        zdem_q3_reader r;
        zdem_error err;
        int proto = zdem_q3_protocol_from_path(de->d_name);
        if (proto < 66)
            continue; /* dm3/dm_48: unsupported */
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        d->data = read_all(path, &d->size);
        if (!d->data)
            continue;
        zdem_error_clear(&err);
        p = zdem_q3_parser_init(mem, zdem_q3_parser_size(), proto, NULL, NULL, &err);
        /* only files that parse to the end, fully decoded (not ZEQ2) */
        if (!p || zdem_q3_parse_file(p, d->data, d->size, &r, &err) != ZDEM_OK ||
            zdem_q3_time_only_snapshot_count(p) > 0) {
            free(d->data);
            continue;
        }
        snprintf(d->name, sizeof d->name, "%s", de->d_name);
        d->protocol = proto;
        total += d->size;
        n_demos++;
    }
    closedir(dd);

    for (k = 0; k < rounds; k++) {
        double t0 = bench_now(), t;
        uint64_t ents = 0;
        zdem_q3_callbacks cb;
        memset(&cb, 0, sizeof cb);
        cb.snapshot = count_entities;
        for (i = 0; i < n_demos; i++) {
            zdem_q3_reader r;
            zdem_error err;
            zdem_q3_parser *p = zdem_q3_parser_init(mem, zdem_q3_parser_size(),
                                                    demos[i].protocol, &cb, &ents, &err);
            if (p)
                (void)zdem_q3_parse_file(p, demos[i].data, demos[i].size, &r, &err);
        }
        t = bench_now() - t0;
        if (t < best_full)
            best_full = t;
        entities = ents;
    }

    /* Huffman alone: decode every message payload as a byte stream. */
    for (k = 0; k < rounds; k++) {
        double t0, t;
        uint32_t acc = 0;
        uint64_t syms = 0;
        size_t bytes = 0;
        t0 = bench_now();
        for (i = 0; i < n_demos; i++) {
            zdem_q3_reader r;
            zdem_q3_frame f;
            zdem_error err;
            int got;
            zdem_q3_reader_init(&r, demos[i].data, demos[i].size);
            while (zdem_q3_reader_next(&r, &f, &got, &err) == ZDEM_OK && got) {
                zdem_q3_msg m;
                zdem_q3_msg_init(&m, f.data, f.len);
                while (m.bit + 11 <= m.end) {
                    acc += zdem_q3_read_byte(&m);
                    syms++;
                }
                bytes += f.len;
            }
        }
        t = bench_now() - t0;
        if (t < best_table)
            best_table = t;
        symbols = syms;
        payload_bytes = bytes;
        sink = acc;

        acc = 0;
        t0 = bench_now();
        for (i = 0; i < n_demos; i++) {
            zdem_q3_reader r;
            zdem_q3_frame f;
            zdem_error err;
            int got;
            zdem_q3_reader_init(&r, demos[i].data, demos[i].size);
            while (zdem_q3_reader_next(&r, &f, &got, &err) == ZDEM_OK && got) {
                size_t bit = 0, end = f.len * 8;
                while (bit + 11 <= end)
                    acc += tree_byte(f.data, f.len, &bit);
            }
        }
        t = bench_now() - t0;
        if (t < best_tree)
            best_tree = t;
        sink ^= acc;
    }

    printf("quake3 corpus: %d demos, %.1f MB, %llu entity states per round\n", n_demos,
           total / 1e6, (unsigned long long)entities);
    printf("full parse:          %8.1f MB/s  (%.3f s best of %d)\n", total / 1e6 / best_full,
           best_full, rounds);
    printf("huffman table 11-bit:%8.1f MB/s  (%.1f Msym/s)\n", payload_bytes / 1e6 / best_table,
           symbols / 1e6 / best_table);
    printf("huffman tree walk:   %8.1f MB/s  (%.1f Msym/s)\n", payload_bytes / 1e6 / best_tree,
           symbols / 1e6 / best_tree);
    printf("huffman speedup:     %8.2fx\n", best_tree / best_table);
    printf("parser state: %lu bytes (caller-provided, no allocation while parsing)\n",
           (unsigned long)zdem_q3_parser_size());
    for (i = 0; i < n_demos; i++)
        free(demos[i].data);
    free(mem);
    return 0;
}
