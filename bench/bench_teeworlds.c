/* Teeworlds benchmark: full parse (chunks, Huffman, ints, snapshots with
 * deltas, message ids) over the corpus demos, and the table-driven Huffman
 * decoder against the bit-at-a-time one on the same chunk payloads, in the
 * same run. Prints figures; asserts nothing about time.
 * usage: bench_teeworlds [CORPUS_DIR]   (default $ZDEM_CORPUS/teeworlds) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "teeworlds_reader.h"
#include "bench_common.h"

static const char *files[] = {
    "ddnet_demo-edit-cat-catzone.demo",
    "ddnet_demo-edit-clip-fng.demo",
    "ddnet_demo-edit-test2-pepeg-v5.demo",
    "ddnet_webviewer-big-chungus-daydream.demo",
    "ddnet_webviewer-bit3-noobfilter-touchpad.demo",
    "ddnet_webviewer-gigachad-tutorial.demo",
    "ddnet_webviewer-goat-yeyou3.demo",
};
#define NFILES (sizeof files / sizeof files[0])

static zdem_tw_reader rd;
static uint8_t out[ZDEM_TW_SNAP_MAX_SIZE];

static uint8_t *load(const char *dir, const char *name, size_t *n)
{
    char path[2048];
    FILE *f;
    uint8_t *d;
    long sz;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    d = malloc(sz > 0 ? (size_t)sz : 1);
    if (d && fread(d, 1, (size_t)sz, f) != (size_t)sz) {
        free(d);
        d = NULL;
    }
    fclose(f);
    *n = (size_t)sz;
    return d;
}

int main(int argc, char **argv)
{
    char dir[1024];
    uint8_t *data[NFILES];
    size_t size[NFILES], total = 0, stream = 0, payload = 0, i;
    unsigned long long items = 0;
    double t0, t_parse, t_table, t_bit, t_hash;
    int reps, r;
    const char *env = getenv("ZDEM_CORPUS");
    if (argc > 1)
        snprintf(dir, sizeof dir, "%s", argv[1]);
    else
        snprintf(dir, sizeof dir, "%s/teeworlds", env ? env : "../shared/corpus");
    for (i = 0; i < NFILES; i++) {
        data[i] = load(dir, files[i], &size[i]);
        if (!data[i]) {
            fprintf(stderr, "bench_teeworlds: cannot read %s/%s\n", dir, files[i]);
            return 1;
        }
        total += size[i];
    }

    /* Full parse: every chunk decoded, every snapshot rebuilt. */
    reps = 20;
    t0 = bench_now();
    for (r = 0; r < reps; r++) {
        for (i = 0; i < NFILES; i++) {
            zdem_error err;
            zdem_tw_event ev;
            zdem_error_clear(&err);
            if (zdem_tw_reader_open(&rd, data[i], size[i], &err) != ZDEM_OK)
                return 1;
            if (r == 0)
                stream += size[i] - rd.info.data_offset;
            while (zdem_tw_reader_next(&rd, &ev, &err) == 1)
                if (ev.snap && r == 0)
                    items += ev.snap->num_items;
        }
    }
    t_parse = (bench_now() - t0) / reps;

    /* Map verification (CRC32 + SHA-256), reported apart: it is per file,
     * not per chunk. */
    t0 = bench_now();
    for (i = 0; i < NFILES; i++) {
        zdem_error err;
        zdem_error_clear(&err);
        zdem_tw_reader_open(&rd, data[i], size[i], &err);
        (void)zdem_tw_demo_map_crc_ok(&rd.info);
        (void)zdem_tw_demo_map_sha256_ok(&rd.info);
    }
    t_hash = bench_now() - t0;

    /* Huffman alone: table vs bit-at-a-time on every chunk payload. */
    t_table = t_bit = 0;
    for (r = 0; r < reps; r++) {
        for (i = 0; i < NFILES; i++) {
            zdem_tw_chunk_reader cr;
            zdem_tw_chunk c;
            zdem_error err;
            size_t n;
            double a;
            zdem_error_clear(&err);
            zdem_tw_reader_open(&rd, data[i], size[i], &err);
            /* Collect payloads first so that only decoding is timed. */
            zdem_tw_chunks_init(&cr, &rd.info, data[i], size[i]);
            a = bench_now();
            while (zdem_tw_chunks_next(&cr, &c, &err) == 1)
                if (c.kind != ZDEM_TW_CHUNK_TICK && c.size)
                    zdem_tw_huff_decode(c.data, c.size, out, sizeof out, &n, &err);
            t_table += bench_now() - a;
            zdem_tw_chunks_init(&cr, &rd.info, data[i], size[i]);
            a = bench_now();
            while (zdem_tw_chunks_next(&cr, &c, &err) == 1)
                if (c.kind != ZDEM_TW_CHUNK_TICK && c.size)
                    zdem_tw_huff_decode_bitwise(c.data, c.size, out, sizeof out, &n, &err);
            t_bit += bench_now() - a;
            if (r == 0) {
                zdem_tw_chunks_init(&cr, &rd.info, data[i], size[i]);
                while (zdem_tw_chunks_next(&cr, &c, &err) == 1)
                    if (c.kind != ZDEM_TW_CHUNK_TICK)
                        payload += c.size;
            }
        }
    }
    t_table /= reps;
    t_bit /= reps;

    printf("teeworlds corpus: %zu files, %.2f MB (chunk streams %.2f MB, Huffman payload %.2f MB)\n",
           (size_t)NFILES, total / 1e6, stream / 1e6, payload / 1e6);
    printf("full parse:      %8.2f ms  %8.1f MB/s of files  %8.1f MB/s of chunk stream"
           "  (%llu snapshot items rebuilt)\n",
           t_parse * 1e3, total / 1e6 / t_parse, stream / 1e6 / t_parse, items);
    printf("map CRC+SHA-256: %8.2f ms  %8.1f MB/s of maps\n", t_hash * 1e3,
           (total - stream) / 1e6 / t_hash);
    printf("huffman table:   %8.2f ms  %8.1f MB/s of compressed payload\n", t_table * 1e3,
           payload / 1e6 / t_table);
    printf("huffman bitwise: %8.2f ms  %8.1f MB/s of compressed payload\n", t_bit * 1e3,
           payload / 1e6 / t_bit);
    printf("huffman speedup: %.2fx (table vs bit-at-a-time)\n", t_bit / t_table);
    for (i = 0; i < NFILES; i++)
        free(data[i]);
    return 0;
}
