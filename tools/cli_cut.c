/* zdem cut: a clip of a demo, written by the format's writer
 * (zdem_q3_cut, zdem_tw_writer_*, zdem_s2_writer_*). The range is
 * --start/--end (ticks; Quake III server time in ms), seconds from the
 * demo's start, or seconds around the event on line I of `zdem events`
 * (that command runs in a child whose lines are read here, so the count
 * is exactly the one a user sees). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "quake3.h"
#include "quake3_write.h"
#include "teeworlds_demo.h"
#include "teeworlds_write.h"
#include "cli_source2_state.h"
#include "source2_pb.h"
#include "source2_write.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct cut_out {
    FILE *fp;
    int failed;
} cut_out;

static int write_out(void *user, const void *data, size_t len)
{
    cut_out *o = (cut_out *)user;
    if (len && fwrite(data, 1, len, o->fp) != len)
        o->failed = 1;
    return o->failed;
}

/* The time of the event on line `index` of `zdem events --json` (key:
 * "server_time" or "tick"): 0, or an exit status after a message. */
static int around_time(const zdem_cli_args *a, const zdem_cli_file *f,
                       int (*events)(const zdem_cli_args *, const zdem_cli_file *), const char *key,
                       long long *t)
{
    int fds[2], status = 0, rc = -1;
    pid_t pid;
    FILE *in;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long long n = 0;
    fflush(stdout);
    if (pipe(fds) != 0)
        return zdem_cli_failf(f, 0, "cannot create a pipe for --around");
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return zdem_cli_failf(f, 0, "cannot fork for --around");
    }
    if (pid == 0) {
        zdem_cli_args e;
        int r;
        close(fds[0]);
        if (dup2(fds[1], 1) < 0)
            _exit(ZDEM_EXIT_BAD_INPUT);
        close(fds[1]);
        memset(&e, 0, sizeof e);
        e.command = "events";
        e.json = 1;
        e.protocol = a->protocol;
        r = events(&e, f);
        fflush(stdout);
        _exit(r);
    }
    close(fds[1]);
    in = fdopen(fds[0], "r");
    if (!in) {
        close(fds[0]);
        waitpid(pid, &status, 0);
        return zdem_cli_failf(f, 0, "cannot read the events for --around");
    }
    while ((len = getline(&line, &cap, in)) > 0) {
        if (n++ == a->around) {
            const char *v;
            size_t vn;
            char buf[32];
            zdem_cli_json_member(line, line + len, key, &v, &vn);
            if (!v || vn == 0 || vn >= sizeof buf) {
                fprintf(stderr, "zdem: %s: event %lld has no \"%s\"\n", f->path, a->around, key);
                rc = ZDEM_EXIT_USAGE;
            } else {
                memcpy(buf, v, vn);
                buf[vn] = 0;
                *t = strtoll(buf, NULL, 10);
                rc = 0;
            }
        }
    }
    free(line);
    fclose(in);
    waitpid(pid, &status, 0); /* the events' own faults are the cut's to report */
    if (rc < 0) {
        fprintf(stderr, "zdem: %s: no event %lld ('zdem events' prints %lld lines)\n", f->path,
                a->around, n);
        rc = ZDEM_EXIT_USAGE;
    }
    return rc;
}

static int32_t clamp32(long long v)
{
    return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

/* ---------------------------------------------------------------- Quake III */

static int first_time_cb(void *user, const zdem_q3_parser *p, const zdem_q3_snapshot *s)
{
    (void)p;
    if (!s->valid)
        return 0;
    *(int32_t *)user = s->server_time;
    return 1; /* found: stop */
}

/* The server time of the first valid snapshot (the demo's start), or
 * INT32_MIN when there is none. */
static int32_t q3_first_time(const zdem_cli_file *f, int protocol, void *mem)
{
    zdem_q3_callbacks cb;
    zdem_q3_reader r;
    zdem_error err;
    int32_t t = INT32_MIN;
    zdem_q3_parser *p;
    memset(&cb, 0, sizeof cb);
    cb.snapshot = first_time_cb;
    zdem_error_clear(&err);
    p = zdem_q3_parser_init(mem, zdem_q3_parser_size(), protocol, &cb, &t, &err);
    if (p)
        (void)zdem_q3_parse_file(p, f->data, f->size, &r, &err);
    return t;
}

static int cut_quake3(const zdem_cli_args *a, const zdem_cli_file *f,
                      int (*events)(const zdem_cli_args *, const zdem_cli_file *))
{
    int protocol = a->protocol ? a->protocol : zdem_q3_protocol_from_path(f->path);
    int32_t start = INT32_MIN, end = INT32_MAX;
    zdem_q3_cut_info info;
    zdem_error err;
    zdem_status st;
    cut_out o;
    void *mem;
    int rc = ZDEM_EXIT_OK;
    mem = malloc(zdem_q3_writer_size());
    if (!mem)
        return zdem_cli_failf(f, 0, "out of memory");
    if (a->has_around) {
        long long t = 0;
        if ((rc = around_time(a, f, events, "server_time", &t)) != 0) {
            free(mem);
            return rc;
        }
        start = clamp32(t - (long long)(a->before_s * 1000.0 + 0.5));
        end = clamp32(t + (long long)(a->after_s * 1000.0 + 0.5));
    } else {
        if (a->has_start_s || a->has_end_s) {
            int32_t t0 = q3_first_time(f, protocol, mem);
            if (t0 != INT32_MIN) {
                if (a->has_start_s)
                    start = clamp32(t0 + (long long)(a->start_s * 1000.0 + 0.5));
                if (a->has_end_s)
                    end = clamp32(t0 + (long long)(a->end_s * 1000.0 + 0.5));
            }
        }
        if (a->has_start)
            start = clamp32(a->start);
        if (a->has_end)
            end = clamp32(a->end);
    }
    o.failed = 0;
    o.fp = fopen(a->out, "wb");
    if (!o.fp) {
        fprintf(stderr, "zdem: %s: cannot write: %s\n", a->out, strerror(errno));
        free(mem);
        return ZDEM_EXIT_BAD_INPUT;
    }
    zdem_error_clear(&err);
    memset(&info, 0, sizeof info);
    st = zdem_q3_cut(mem, zdem_q3_writer_size(), protocol, f->data, f->size, start, end,
                     write_out, &o, &info, &err);
    if (fclose(o.fp) != 0)
        o.failed = 1;
    if (o.failed) {
        fprintf(stderr, "zdem: %s: cannot write: %s\n", a->out, strerror(errno));
        free(mem);
        return ZDEM_EXIT_BAD_INPUT;
    }
    if (a->json) {
        printf("{\"format\":\"quake3\",\"out\":");
        zdem_json_cstr(stdout, a->out);
        printf(",\"start\":%ld,\"end\":%ld,\"snapshots\":%lu", (long)start, (long)end,
               (unsigned long)info.snapshots);
        if (info.started)
            printf(",\"first_server_time\":%ld,\"last_server_time\":%ld",
                   (long)info.first_server_time, (long)info.last_server_time);
        printf(",\"messages\":%lu,\"snapshots_whole\":%lu,\"bytes\":%llu",
               (unsigned long)info.messages, (unsigned long)info.whole,
               (unsigned long long)info.bytes);
        if (st != ZDEM_OK)
            zdem_cli_error_json(stdout, &err);
        printf("}\n");
    }
    if (st != ZDEM_OK)
        rc = zdem_cli_fail(f, &err);
    free(mem);
    return rc;
}

/* ---------------------------------------------------------------- shared */

/* The output file, opened; NULL after a message. */
static FILE *open_out(const zdem_cli_args *a)
{
    FILE *fp = fopen(a->out, "wb");
    if (!fp)
        fprintf(stderr, "zdem: %s: cannot write: %s\n", a->out, strerror(errno));
    return fp;
}

static int close_out(const zdem_cli_args *a, cut_out *o)
{
    if (fclose(o->fp) != 0)
        o->failed = 1;
    if (o->failed) {
        fprintf(stderr, "zdem: %s: cannot write: %s\n", a->out, strerror(errno));
        return ZDEM_EXIT_BAD_INPUT;
    }
    return 0;
}

/* The range in ticks from the options: ticks as given, seconds from
 * first (tick_rate ticks a second), or around an event's tick. */
static int tick_range(const zdem_cli_args *a, const zdem_cli_file *f,
                      int (*events)(const zdem_cli_args *, const zdem_cli_file *), int64_t first,
                      double tick_rate, int32_t *start, int32_t *end)
{
    *start = INT32_MIN;
    *end = INT32_MAX;
    if (a->has_around) {
        long long t = 0;
        int rc = around_time(a, f, events, "tick", &t);
        if (rc)
            return rc;
        *start = clamp32(t - (long long)(a->before_s * tick_rate + 0.5));
        *end = clamp32(t + (long long)(a->after_s * tick_rate + 0.5));
        return 0;
    }
    if (a->has_start_s)
        *start = clamp32(first + (long long)(a->start_s * tick_rate + 0.5));
    if (a->has_end_s)
        *end = clamp32(first + (long long)(a->end_s * tick_rate + 0.5));
    if (a->has_start)
        *start = clamp32(a->start);
    if (a->has_end)
        *end = clamp32(a->end);
    return 0;
}

/* ---------------------------------------------------------------- Teeworlds */

static int cut_teeworlds(const zdem_cli_args *a, const zdem_cli_file *f,
                         int (*events)(const zdem_cli_args *, const zdem_cli_file *))
{
    zdem_tw_demo_info di;
    zdem_tw_chunk_reader cr;
    zdem_tw_chunk c;
    zdem_tw_cut_info info;
    zdem_error err;
    zdem_status st;
    int32_t start, end;
    int64_t first = 0;
    cut_out o;
    void *mem;
    int rc;
    zdem_error_clear(&err);
    /* the first tick marker: where seconds count from (50 ticks a second) */
    if (zdem_tw_demo_open(f->data, f->size, &di, &err) == ZDEM_OK) {
        zdem_tw_chunks_init(&cr, &di, f->data, f->size);
        while (zdem_tw_chunks_next(&cr, &c, &err) == 1)
            if (c.kind == ZDEM_TW_CHUNK_TICK) {
                first = c.tick;
                break;
            }
    }
    zdem_error_clear(&err);
    if ((rc = tick_range(a, f, events, first, 50.0, &start, &end)) != 0)
        return rc;
    mem = malloc(zdem_tw_writer_size());
    if (!mem)
        return zdem_cli_failf(f, 0, "out of memory");
    o.failed = 0;
    o.fp = open_out(a);
    if (!o.fp) {
        free(mem);
        return ZDEM_EXIT_BAD_INPUT;
    }
    st = zdem_tw_writer_cut(mem, zdem_tw_writer_size(), f->data, f->size, start, end, write_out,
                            &o, &info, &err);
    free(mem);
    if ((rc = close_out(a, &o)) != 0)
        return rc;
    if (info.sizes_unstated)
        fprintf(stderr, "zdem: %s: warning: item types (%lu) whose size only a full snapshot before the "
                "clip states (net version not known): a reader that guesses the protocol misreads them "
                "in the clip\n", f->path, (unsigned long)info.sizes_unstated);
    if (a->json) {
        printf("{\"format\":\"teeworlds\",\"out\":");
        zdem_json_cstr(stdout, a->out);
        printf(",\"start\":%ld,\"end\":%ld", (long)start, (long)end);
        if (info.started)
            printf(",\"first_tick\":%ld,\"last_tick\":%ld", (long)info.first_tick,
                   (long)info.last_tick);
        printf(",\"length\":%ld,\"timeline_markers\":%lu,\"chunks_copied\":%lu,"
               "\"snapshot_whole\":%s,\"bytes\":%llu",
               (long)info.length, (unsigned long)info.markers, (unsigned long)info.copied,
               info.whole ? "true" : "false", (unsigned long long)info.bytes);
        printf(",\"sizes_unstated\":%lu", (unsigned long)info.sizes_unstated);
        if (st != ZDEM_OK)
            zdem_cli_error_json(stdout, &err);
        printf("}\n");
    }
    return st != ZDEM_OK ? zdem_cli_fail(f, &err) : ZDEM_EXIT_OK;
}

/* ---------------------------------------------------------------- Source 2 */

/* The demo's first game tick and ticks a second (its DEM_FileInfo's
 * playback ticks over time; 64 without one). */
static void s2_clock(const zdem_cli_file *f, int64_t *first, double *rate)
{
    zdem_s2_header hdr;
    zdem_s2_outer m;
    zdem_error e;
    size_t pos = ZDEM_S2_HEADER_SIZE, next;
    zdem_pb_CDemoFileInfo fi;
    *first = 0;
    *rate = 64.0;
    zdem_error_clear(&e);
    if (zdem_s2_read_header(f->data, f->size, &hdr, &e) != ZDEM_OK)
        return;
    while (pos < f->size && zdem_s2_read_frame(f->data, f->size, pos, &m, &next, &e) == 1) {
        if (m.cmd == ZDEM_S2_DEM_PACKET || m.cmd == ZDEM_S2_DEM_FULLPACKET) {
            *first = m.tick;
            break;
        }
        pos = next;
    }
    if (hdr.fileinfo_offset < f->size &&
        zdem_s2_read_frame(f->data, f->size, hdr.fileinfo_offset, &m, &next, &e) == 1 &&
        m.cmd == ZDEM_S2_DEM_FILEINFO && !m.compressed &&
        zdem_pb_CDemoFileInfo_decode(m.stored, m.stored_size, &fi, NULL, NULL, &e) == ZDEM_OK &&
        fi.has_playback_ticks && fi.has_playback_time && fi.playback_ticks > 0 &&
        fi.playback_time > 0.0f)
        *rate = fi.playback_ticks / (double)fi.playback_time;
}

static int cut_source2(const zdem_cli_args *a, const zdem_cli_file *f,
                       int (*events)(const zdem_cli_args *, const zdem_cli_file *))
{
    zdem_cli_s2_run run;
    zdem_s2_config cfg;
    zdem_s2_cut_info info;
    zdem_error err;
    zdem_status st;
    int64_t first;
    double rate;
    int32_t start, end;
    cut_out o;
    int rc;
    s2_clock(f, &first, &rate);
    if ((rc = tick_range(a, f, events, first, rate, &start, &end)) != 0)
        return rc;
    zdem_s2_config_default(&cfg);
    if ((rc = zdem_cli_s2_open(&run, a, f, &cfg)) != 0)
        return rc;
    o.failed = 0;
    o.fp = open_out(a);
    if (!o.fp) {
        zdem_cli_s2_close(&run);
        return ZDEM_EXIT_BAD_INPUT;
    }
    zdem_error_clear(&err);
    st = zdem_s2_writer_cut(run.s, f->data, f->size, start, end, write_out, &o, &info, &err);
    zdem_cli_s2_close(&run);
    if ((rc = close_out(a, &o)) != 0)
        return rc;
    if (info.bytes == 0)
        (void)remove(a->out); /* damage before the clip's first frame: no demo to leave */
    if (a->json) {
        printf("{\"format\":\"source2\",\"out\":");
        zdem_json_cstr(stdout, a->out);
        printf(",\"start\":%ld,\"end\":%ld", (long)start, (long)end);
        if (info.started)
            printf(",\"first_tick\":%lld,\"last_tick\":%lld", (long long)info.first_tick,
                   (long long)info.last_tick);
        printf(",\"from_full_packet\":%s,\"frames\":%lu,\"playback_ticks\":%ld,"
               "\"playback_frames\":%ld,\"playback_time\":%.4f,\"bytes\":%llu",
               info.from_full_packet ? "true" : "false", (unsigned long)info.frames,
               (long)info.playback_ticks, (long)info.playback_frames, (double)info.playback_time,
               (unsigned long long)info.bytes);
        if (st != ZDEM_OK)
            zdem_cli_error_json(stdout, &err);
        printf("}\n");
    }
    return st != ZDEM_OK ? zdem_cli_fail(f, &err) : ZDEM_EXIT_OK;
}

int zdem_cli_cut(const zdem_cli_args *a, const zdem_cli_file *f, const char *format,
                 int (*events)(const zdem_cli_args *, const zdem_cli_file *))
{
    if (strcmp(format, "quake3") == 0)
        return cut_quake3(a, f, events);
    if (strcmp(format, "teeworlds") == 0)
        return cut_teeworlds(a, f, events);
    if (strcmp(format, "source2") == 0)
        return cut_source2(a, f, events);
    return zdem_cli_unsupported(a, format);
}
