/* Writing a clip against reading the same range (`zdem cut`): for every
 * corpus demo of a format, the middle half of its time span (ticks;
 * Quake III server time; Source 2: game frames' ticks).
 *
 * Read: what a reader of that range does, with the library's ordinary
 * reader, from the file's start (the state at the range's start depends
 * on all before it) to the range's end:
 *  - Quake III: zdem_q3_parse_file, every message decoded (snapshots,
 *    entities, playerstates, configstrings, server commands), every
 *    snapshot and every event (obituaries, chat, prints, scores) handed
 *    to a callback, stopped at the first snapshot past the range;
 *  - Teeworlds: zdem_tw_reader_next on every chunk (Huffman, ints,
 *    snapshot deltas applied, messages parsed and checked against the
 *    protocol) to the first tick marker past the range;
 *  - Source 2: zdem_s2_state_run to the range's end, entities and events
 *    decoded (default config, no callbacks).
 * Write: the library's cut of the same range (zdem_q3_cut,
 * zdem_tw_writer_cut, zdem_s2_writer_cut): the same decoding up to the
 * range's end (what the clip needs: the state at its start, and every
 * message of the range checked, so that damage ends the clip before it;
 * not the events or protocol warnings the clip does not use), plus the
 * clip: gamestate / header, the first snapshot written whole, the
 * range's messages and frames copied, the writer's own frames. The clip
 * goes to one of two sinks (--sink):
 *  - memory (default): a zdem_out_buffer, every byte of the clip copied
 *    once more into it (under callgrind a copy over glibc's rep-movsb
 *    threshold counts one instruction a byte: a Teeworlds clip is mostly
 *    its map);
 *  - file: stdio to /dev/null, as `zdem cut -o` writes (spans of the
 *    input as large as stdio's buffer go to write(2) uncopied; the
 *    kernel's side is not counted).
 * Wall time, best of N rounds, both in the same run; `--once --mode
 * read|write` does one pass of one side, for callgrind (bench/run.sh;
 * `--mode none` loads the demos only, the part to subtract). Numbers only.
 *
 *   bench_cut [--format quake3|teeworlds|source2] [--sink memory|file]
 *             [--once --mode read|write|none] [CORPUS_DIR] [ROUNDS] */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quake3.h"
#include "quake3_write.h"
#include "teeworlds_reader.h"
#include "teeworlds_write.h"
#include "source2_state.h"
#include "source2_write.h"
#include "zdem_write.h"
#include "bench_common.h"

typedef struct demo {
    char name[256];
    uint8_t *data;
    size_t size;
    int protocol;
    int32_t a, b;    /* the range */
} demo;

static demo demos[128];
static int n_demos;
static volatile uint64_t sink;
static uint8_t *mem, *outbuf;
static size_t outcap = (size_t)64 << 20;

/* Where a clip goes: into memory (zdem_out_buffer: every byte copied
 * once more, here) or, as `zdem cut -o` writes it, through stdio to a
 * file (/dev/null: the kernel's side of write(2) is not measured) */
static FILE *outfile;

static int file_write(void *user, const void *data, size_t len)
{
    return fwrite(data, 1, len, (FILE *)user) != len;
}

typedef struct clip_out {
    zdem_out_buffer o;
} clip_out;

static zdem_write_fn clip_sink(clip_out *c, void **user)
{
    c->o.data = outbuf;
    c->o.cap = outcap;
    c->o.len = 0;
    c->o.full = 0;
    if (outfile) {
        *user = outfile;
        return file_write;
    }
    *user = &c->o;
    return zdem_out_buffer_write;
}

/* ---------------------------------------------------------------- Quake III */

typedef struct q3span {
    int32_t first, last, end;
    uint64_t entities, events;
} q3span;

static int q3_span_cb(void *user, const zdem_q3_parser *p, const zdem_q3_snapshot *s)
{
    q3span *sp = user;
    (void)p;
    if (s->valid) {
        if (sp->first == INT32_MIN)
            sp->first = s->server_time;
        sp->last = s->server_time;
    }
    return 0;
}

/* reading: stop at the first snapshot past the range (as the cut does) */
static int q3_read_cb(void *user, const zdem_q3_parser *p, const zdem_q3_snapshot *s)
{
    q3span *sp = user;
    (void)p;
    if (!s->valid)
        return 0;
    if (s->server_time > sp->end)
        return 1;
    sp->entities += (uint64_t)s->num_entities;
    return 0;
}

static void q3_load(const char *corpus)
{
    char dir[1024];
    DIR *d;
    struct dirent *e;
    snprintf(dir, sizeof dir, "%s/q3", corpus);
    d = opendir(dir);
    if (!d)
        return;
    while ((e = readdir(d)) != NULL && n_demos < 128) {
        char path[1400];
        demo *dm = &demos[n_demos];
        zdem_q3_callbacks cb;
        zdem_q3_reader r;
        zdem_error err;
        zdem_q3_parser *p;
        q3span sp = {INT32_MIN, INT32_MIN, 0, 0, 0};
        int proto = zdem_q3_protocol_from_path(e->d_name);
        if (proto < 66) /* dm_66 .. dm_91, as bench_quake3 */
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        dm->data = bench_read_file(path, &dm->size);
        if (!dm->data)
            continue;
        memset(&cb, 0, sizeof cb);
        cb.snapshot = q3_span_cb;
        zdem_error_clear(&err);
        p = zdem_q3_parser_init(mem, zdem_q3_parser_size(), proto, &cb, &sp, &err);
        if (!p || zdem_q3_parse_file(p, dm->data, dm->size, &r, &err) != ZDEM_OK ||
            sp.first == INT32_MIN || zdem_q3_time_only_snapshot_count(p)) {
            free(dm->data); /* damaged or not writable: left out */
            continue;
        }
        snprintf(dm->name, sizeof dm->name, "%s", e->d_name);
        dm->protocol = proto;
        dm->a = sp.first + (sp.last - sp.first) / 4;
        dm->b = sp.last - (sp.last - sp.first) / 4;
        n_demos++;
    }
    closedir(d);
}

/* reading takes the range's events too (obituaries, chat, prints,
 * scores), as `zdem events` does: the parser makes them only for a
 * caller that takes them */
static int q3_event_cb(void *user, const zdem_q3_parser *p, const zdem_q3_event *ev)
{
    q3span *sp = user;
    (void)p;
    sp->events += (uint64_t)ev->type + 1u;
    return 0;
}

static void q3_read(const demo *dm)
{
    zdem_q3_callbacks cb;
    zdem_q3_reader r;
    zdem_error err;
    q3span sp = {0, 0, dm->b, 0, 0};
    zdem_q3_parser *p;
    memset(&cb, 0, sizeof cb);
    cb.snapshot = q3_read_cb;
    cb.event = q3_event_cb;
    zdem_error_clear(&err);
    p = zdem_q3_parser_init(mem, zdem_q3_parser_size(), dm->protocol, &cb, &sp, &err);
    if (p)
        (void)zdem_q3_parse_file(p, dm->data, dm->size, &r, &err);
    sink += sp.entities + sp.events;
}

static void q3_write(const demo *dm)
{
    clip_out c;
    void *user;
    zdem_write_fn fn = clip_sink(&c, &user);
    zdem_q3_cut_info info;
    zdem_error err;
    zdem_error_clear(&err);
    (void)zdem_q3_cut(mem, zdem_q3_writer_size(), dm->protocol, dm->data, dm->size, dm->a, dm->b,
                      fn, user, &info, &err);
    sink += info.bytes;
}

/* ---------------------------------------------------------------- Teeworlds */

static zdem_tw_reader tw;
static void *tw_mem;

static void tw_load(const char *corpus)
{
    char dir[1024];
    DIR *d;
    struct dirent *e;
    snprintf(dir, sizeof dir, "%s/teeworlds", corpus);
    d = opendir(dir);
    if (!d)
        return;
    while ((e = readdir(d)) != NULL && n_demos < 128) {
        char path[1400];
        demo *dm = &demos[n_demos];
        zdem_tw_event ev;
        zdem_error err;
        int32_t first = INT32_MIN, last = 0;
        int rc;
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || strcmp(dot, ".demo") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        dm->data = bench_read_file(path, &dm->size);
        if (!dm->data)
            continue;
        zdem_error_clear(&err);
        if (zdem_tw_reader_open(&tw, dm->data, dm->size, &err) != ZDEM_OK) {
            free(dm->data);
            continue;
        }
        while ((rc = zdem_tw_reader_next(&tw, &ev, &err)) == 1)
            if (ev.snap) {
                if (first == INT32_MIN)
                    first = ev.chunk.tick;
                last = ev.chunk.tick;
            }
        if (rc < 0 || first == INT32_MIN) {
            free(dm->data);
            continue;
        }
        snprintf(dm->name, sizeof dm->name, "%s", e->d_name);
        dm->a = first + (last - first) / 4;
        dm->b = last - (last - first) / 4;
        n_demos++;
    }
    closedir(d);
}

/* reading: every chunk decoded up to the first tick marker past the range */
static void tw_read(const demo *dm)
{
    zdem_tw_event ev;
    zdem_error err;
    uint64_t items = 0;
    zdem_error_clear(&err);
    if (zdem_tw_reader_open(&tw, dm->data, dm->size, &err) != ZDEM_OK)
        return;
    while (zdem_tw_reader_next(&tw, &ev, &err) == 1) {
        if (ev.chunk.kind == ZDEM_TW_CHUNK_TICK && ev.chunk.tick > dm->b)
            break;
        if (ev.snap)
            items += ev.snap->num_items;
    }
    sink += items;
}

static void tw_write(const demo *dm)
{
    clip_out c;
    void *user;
    zdem_write_fn fn = clip_sink(&c, &user);
    zdem_tw_cut_info info;
    zdem_error err;
    zdem_error_clear(&err);
    (void)zdem_tw_writer_cut(mem, zdem_tw_writer_size(), dm->data, dm->size, dm->a, dm->b, fn,
                             user, &info, &err);
    sink += info.bytes;
}

/* ---------------------------------------------------------------- Source 2 */

static void *s2_arena;
static const size_t s2_arena_size = (size_t)96 << 20;

static zdem_s2_state *s2_fresh(void)
{
    zdem_s2_config cfg;
    zdem_s2_state *s = NULL;
    zdem_error err;
    zdem_s2_config_default(&cfg);
    zdem_error_clear(&err);
    return zdem_s2_state_init(&s, s2_arena, s2_arena_size, &cfg, &err) == ZDEM_OK ? s : NULL;
}

static void s2_load(const char *corpus)
{
    char dir[1024];
    DIR *d;
    struct dirent *e;
    snprintf(dir, sizeof dir, "%s/source2", corpus);
    d = opendir(dir);
    if (!d)
        return;
    while ((e = readdir(d)) != NULL && n_demos < 128) {
        char path[1400];
        demo *dm = &demos[n_demos];
        zdem_s2_reader r;
        zdem_s2_outer m;
        zdem_error err;
        int64_t first = INT64_MIN, last = 0;
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || strcmp(dot, ".dem") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        dm->data = bench_read_file(path, &dm->size);
        if (!dm->data)
            continue;
        zdem_error_clear(&err);
        zdem_s2_reader_init(&r, dm->data, dm->size);
        while (zdem_s2_next(&r, &m, &err) == 1)
            if (m.cmd == ZDEM_S2_DEM_PACKET || m.cmd == ZDEM_S2_DEM_FULLPACKET) {
                if (first == INT64_MIN)
                    first = m.tick;
                last = m.tick;
            }
        if (first == INT64_MIN) {
            free(dm->data);
            continue;
        }
        snprintf(dm->name, sizeof dm->name, "%s", e->d_name);
        dm->a = (int32_t)(first + (last - first) / 4);
        dm->b = (int32_t)(last - (last - first) / 4);
        n_demos++;
    }
    closedir(d);
}

static void s2_read(const demo *dm)
{
    zdem_s2_state *s = s2_fresh();
    zdem_error err;
    zdem_error_clear(&err);
    if (s)
        (void)zdem_s2_state_run(s, dm->data, dm->size, dm->b, &err);
    sink += s ? (uint64_t)zdem_s2_state_tick(s) : 0u;
}

static void s2_write(const demo *dm)
{
    clip_out c;
    void *user;
    zdem_write_fn fn = clip_sink(&c, &user);
    zdem_s2_cut_info info;
    zdem_s2_state *s = s2_fresh();
    zdem_error err;
    zdem_error_clear(&err);
    memset(&info, 0, sizeof info);
    if (s)
        (void)zdem_s2_writer_cut(s, dm->data, dm->size, dm->a, dm->b, fn, user, &info, &err);
    sink += info.bytes;
}

/* ---------------------------------------------------------------- driver */

int main(int argc, char **argv)
{
    const char *corpus = getenv("ZDEM_CORPUS"), *format = "quake3", *mode = NULL,
               *sink_name = "memory";
    int rounds = 5, once = 0, i, k, argi = 0;
    double best_r = 1e30, best_w = 1e30, mb = 0;
    void (*rd)(const demo *) = q3_read, (*wr)(const demo *) = q3_write;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--once") == 0)
            once = 1;
        else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
            format = argv[++i];
        else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc)
            mode = argv[++i];
        else if (strcmp(argv[i], "--sink") == 0 && i + 1 < argc)
            sink_name = argv[++i];
        else if (argi++ == 0)
            corpus = argv[i];
        else
            rounds = atoi(argv[i]);
    }
    if (!corpus)
        corpus = "../shared/corpus";
    if (strcmp(sink_name, "file") == 0) {
        outfile = fopen("/dev/null", "wb");
        if (!outfile)
            return 1;
    } else if (strcmp(sink_name, "memory") != 0) {
        fprintf(stderr, "bench_cut: unknown sink %s\n", sink_name);
        return 1;
    }
    mem = malloc(zdem_q3_writer_size() > zdem_tw_writer_size() ? zdem_q3_writer_size()
                                                                : zdem_tw_writer_size());
    outbuf = malloc(outcap);
    tw_mem = malloc(zdem_tw_reader_mem_size(NULL));
    if (!mem || !outbuf || !tw_mem ||
        zdem_tw_reader_init(&tw, NULL, tw_mem, zdem_tw_reader_mem_size(NULL), NULL) != ZDEM_OK)
        return 1;
    if (strcmp(format, "quake3") == 0) {
        q3_load(corpus);
    } else if (strcmp(format, "source2") == 0) {
        s2_arena = malloc(s2_arena_size);
        if (!s2_arena)
            return 1;
        s2_load(corpus);
        rd = s2_read;
        wr = s2_write;
    } else if (strcmp(format, "teeworlds") == 0) {
        tw_load(corpus);
        rd = tw_read;
        wr = tw_write;
    } else {
        fprintf(stderr, "bench_cut: unknown format %s\n", format);
        return 1;
    }
    for (i = 0; i < n_demos; i++)
        mb += (double)demos[i].size / 1e6;
    if (once) {
        /* --mode none: loading alone, to subtract from the others */
        for (i = 0; i < n_demos && !(mode && strcmp(mode, "none") == 0); i++)
            (mode && strcmp(mode, "write") == 0 ? wr : rd)(&demos[i]);
        printf("bench_cut %s %s: %d demos\n", format, mode ? mode : "read", n_demos);
        return 0;
    }
    for (k = 0; k < rounds; k++) { /* interleaved: both see the same machine */
        double t0 = bench_now(), t1;
        for (i = 0; i < n_demos; i++)
            rd(&demos[i]);
        t1 = bench_now();
        if (t1 - t0 < best_r)
            best_r = t1 - t0;
        t0 = bench_now();
        for (i = 0; i < n_demos; i++)
            wr(&demos[i]);
        t1 = bench_now();
        if (t1 - t0 < best_w)
            best_w = t1 - t0;
    }
    printf("cut %s: %d demos (%.1f MB), the middle half of each, best of %d rounds\n", format,
           n_demos, mb, rounds);
    printf("  read the range (file start to its end):  %8.2f ms\n", best_r * 1e3);
    printf("  write the clip (zdem cut, to %s):%*s%8.2f ms  (%.3fx the read)\n", sink_name,
           (int)(11 - strlen(sink_name)), "", best_w * 1e3, best_w / best_r);
    return 0;
}
