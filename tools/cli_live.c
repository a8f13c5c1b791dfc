/* Live input: Source 2 HTTP broadcasts (a directory laid out like the
 * relay's tree, or an http:// URL) read fragment by fragment into the
 * state, and --follow on a file still being written. Output is flushed
 * whenever zdem is about to wait (after each fragment, at the end of the
 * file so far), so each line is out as soon as its bytes are decoded. */
#define _POSIX_C_SOURCE 200809L
#include "cli_live.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/inotify.h>
#endif
#include "source2_broadcast.h"

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(unsigned long ms)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(ms / 1000u);
    ts.tv_nsec = (long)(ms % 1000u) * 1000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int is_url(const char *p)
{
    return strncmp(p, "http://", 7) == 0 || strncmp(p, "https://", 8) == 0;
}

static int exists(const char *dir, const char *name)
{
    char p[4096];
    struct stat st;
    if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, name) >= sizeof p)
        return 0;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_broadcast_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
           (exists(path, "sync.json") || exists(path, "sync"));
}

int zdem_cli_live_wanted(const zdem_cli_args *a, const char *path)
{
    if (strcmp(path, "-") == 0)
        return 0;
    return is_url(path) || a->follow || is_broadcast_dir(path);
}

static unsigned long idle_ms(const zdem_cli_args *a)
{
    return (a->idle_s ? a->idle_s : ZDEM_CLI_IDLE_S) * 1000ul;
}

/* ---- --follow ---------------------------------------------------------------- */

void zdem_cli_follow_until(const zdem_cli_file *f, int (*done)(void *ctx), void *ctx)
{
    if (f->in && f->in->follow) {
        f->in->done = done;
        f->in->done_ctx = ctx;
    }
}

/* Sleeps until the file changes (inotify) or ms pass. */
static void follow_sleep(zdem_cli_stream *in, unsigned long ms)
{
#ifdef __linux__
    if (in->notify >= 0) {
        struct pollfd p;
        char buf[4096];
        p.fd = in->notify;
        p.events = POLLIN;
        p.revents = 0;
        if (poll(&p, 1, (int)ms) > 0)
            while (read(in->notify, buf, sizeof buf) > 0) /* drain: non-blocking */
                ;
        return;
    }
#endif
    sleep_ms(ms);
}

int zdem_cli_follow_wait(zdem_cli_stream *in)
{
    uint64_t start = now_ms();
    fflush(stdout); /* what is decoded is out before zdem waits */
    for (;;) {
        struct stat st;
        uint64_t waited;
        if (fstat(in->fd, &st) == 0 && (unsigned long long)st.st_size > in->got)
            return 1;
        if (in->done && in->done(in->done_ctx))
            return 0;
        waited = now_ms() - start;
        if (waited >= in->idle_ms) {
            in->idled = 1; /* said now: the reader's verdict comes last */
            fprintf(stderr, "zdem: %s: no more bytes for %lu s (--idle-timeout): stopped following\n",
                    in->path, in->idle_ms / 1000u);
            return 0;
        }
        follow_sleep(in, in->poll_ms < in->idle_ms - waited ? in->poll_ms
                                                              : (unsigned long)(in->idle_ms - waited));
    }
}

/* Teeworlds has no end record: its recorder writes the demo's length into
 * the header (152 bytes in, big-endian) when it stops, after the last
 * chunk. A nonzero length means the file is whole. */
static int tw_finished(void *ctx)
{
    zdem_cli_stream *in = (zdem_cli_stream *)ctx;
    uint8_t b[4];
    return pread(in->fd, b, 4, 152) == 4 && (b[0] | b[1] | b[2] | b[3]) != 0;
}

static int run_follow(const zdem_cli_args *a, const char *path, zdem_cli_dispatch_fn dispatch)
{
    zdem_cli_stream in;
    zdem_cli_file f;
    struct stat st;
    int rc;
    memset(&in, 0, sizeof in);
    in.notify = -1;
    in.follow = 1;
    in.path = path;
    in.idle_ms = idle_ms(a);
    in.poll_ms = a->poll_ms ? a->poll_ms : ZDEM_CLI_POLL_MS;
    in.fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (in.fd < 0 || fstat(in.fd, &st) != 0) {
        fprintf(stderr, "zdem: %s: offset 0: cannot open: %s\n", path, strerror(errno));
        if (in.fd >= 0)
            close(in.fd);
        return ZDEM_EXIT_BAD_INPUT;
    }
    if (!S_ISREG(st.st_mode)) {
        close(in.fd);
        fprintf(stderr, "zdem: %s: offset 0: --follow needs a regular file\n", path);
        return ZDEM_EXIT_BAD_INPUT;
    }
#ifdef __linux__
    in.notify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (in.notify >= 0 &&
        inotify_add_watch(in.notify, path, IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE |
                                               IN_DELETE_SELF | IN_MOVE_SELF) < 0) {
        close(in.notify);
        in.notify = -1; /* polling it is */
    }
#endif
    /* the first bytes decide the format: waited for like the rest */
    while (in.head_len < 8) {
        ssize_t r = read(in.fd, in.head + in.head_len, 8 - in.head_len);
        if (r > 0) {
            in.head_len += (size_t)r;
            in.got += (unsigned long long)r;
        } else if (r == 0) {
            if (!zdem_cli_follow_wait(&in))
                break;
        } else if (errno != EINTR) {
            in.error = errno;
            break;
        }
    }
    f.path = path;
    f.data = NULL;
    f.size = 0;
    f.in = &in;
    f.live = NULL;
    if (in.error)
        rc = zdem_cli_read_error(&f);
    else {
        if (in.head_len >= 7 && memcmp(in.head, "TWDEMO\0", 7) == 0)
            zdem_cli_follow_until(&f, tw_finished, &in);
        rc = dispatch(a, &f, in.head, in.head_len);
    }
    fflush(stdout);
#ifdef __linux__
    if (in.notify >= 0)
        close(in.notify);
#endif
    close(in.fd);
    return rc;
}

/* ---- where an offset of a broadcast is ----------------------------------------
 * Offsets count the bytes of the fragments one after another; an error line
 * also names the fragment and the byte in it. Kept: the fragment being read
 * and those where a warning kind happened first (bounded by the kinds). */
typedef struct frag_place {
    uint64_t start, bytes;
    int64_t number;
    int kind;
} frag_place;

static frag_place places[ZDEM_S2_W_COUNT + 1], current;
static unsigned nplaces;
static int have_current;

static int in_place(const frag_place *p, uint64_t off)
{
    return off >= p->start && off <= p->start + p->bytes;
}

static void where_fragment(FILE *out, const zdem_error *err)
{
    uint64_t off = err->offset_is_bits ? err->offset / 8u : err->offset;
    const frag_place *p = NULL;
    unsigned i;
    for (i = 0; i < nplaces && !p; i++)
        if (in_place(&places[i], off))
            p = &places[i];
    if (!p && have_current && in_place(&current, off))
        p = &current;
    if (p)
        fprintf(out, " (fragment %lld/%s, byte %llu)", (long long)p->number,
                zdem_s2_bc_kind_name((zdem_s2_bc_kind)p->kind),
                (unsigned long long)(off - p->start));
}

/* After a fragment: keep it if a warning kind happened first in it. */
static void note_places(const zdem_s2_warnings *w)
{
    unsigned k, i;
    for (k = 0; k < ZDEM_S2_W_COUNT; k++) {
        uint64_t off;
        int known = 0;
        if (!w->count[k])
            continue;
        off = w->first[k].offset_is_bits ? w->first[k].offset / 8u : w->first[k].offset;
        for (i = 0; i < nplaces; i++)
            known |= in_place(&places[i], off);
        if (!known && in_place(&current, off) && nplaces < sizeof places / sizeof places[0])
            places[nplaces++] = current;
    }
}

/* ---- broadcasts ------------------------------------------------------------------ */

typedef struct bc_run {
    const zdem_cli_file *f;
    zdem_cli_s2_run *r;
    zdem_s2_broadcast b;
    zdem_cli_http *http;
    unsigned long idle, poll;
    char prefix[4096]; /* where the fragments are */
    int stopped;       /* the library stopped the run */
} bc_run;

static int feed_piece(void *ctx, const uint8_t *p, size_t n)
{
    bc_run *br = (bc_run *)ctx;
    zdem_status st = zdem_s2_broadcast_feed(&br->b, p, n, &br->r->err);
    current.bytes = br->b.fragment_bytes;
    if (st != ZDEM_OK)
        br->stopped = 1;
    return st != ZDEM_OK;
}

/* A fragment from the directory: 1 read, 0 not there. */
static int dir_fragment(bc_run *br, const char *name)
{
    char p[4096];
    uint8_t *buf;
    int fd = -1;
    ssize_t k;
    const char *const ext[] = {"", ".bin"};
    unsigned i;
    for (i = 0; i < 2 && fd < 0; i++)
        if ((size_t)snprintf(p, sizeof p, "%s/%s%s", br->prefix, name, ext[i]) < sizeof p)
            fd = open(p, O_RDONLY | O_NOCTTY);
    if (fd < 0)
        return 0;
    buf = malloc(ZDEM_CLI_PIECE);
    while (buf && (k = read(fd, buf, ZDEM_CLI_PIECE)) != 0) {
        if (k < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "zdem: %s: cannot read: %s\n", p, strerror(errno));
            break;
        }
        if (feed_piece(br, buf, (size_t)k))
            break;
    }
    free(buf);
    close(fd);
    return 1;
}

/* A fragment from the server: asked again while it is not there (404 or
 * any failure before its first byte) every --poll, until --idle-timeout
 * passes without a byte; a connection that drops mid-way is resumed where
 * it stopped. 1 read, 0 not there in time. */
static int url_fragment(bc_run *br, const char *name)
{
    char url[8192], msg[256];
    uint64_t got = 0, last = now_ms();
    long code = 0;
    if ((size_t)snprintf(url, sizeof url, "%s/%s", br->prefix, name) >= sizeof url)
        return 0;
    for (;;) {
        uint64_t before = got;
        msg[0] = 0;
        code = zdem_cli_http_get(br->http, url, got, feed_piece, br, &got, (long)br->idle, msg,
                                 sizeof msg);
        if (br->stopped || code == 200 || code == 206)
            return 1;
        if (got > before) /* a dropped connection: go on from there */
            last = now_ms();
        else if (now_ms() - last >= br->idle) {
            if (code)
                fprintf(stderr, "zdem: %s: HTTP %ld for %lu s (--idle-timeout): stopped\n", url,
                        code, br->idle / 1000u);
            else
                fprintf(stderr, "zdem: %s: %s for %lu s (--idle-timeout): stopped\n", url,
                        msg[0] ? msg : "no answer", br->idle / 1000u);
            return 0;
        } else
            sleep_ms(br->poll);
    }
}

static char sync_map[256];
static uint32_t sync_map_len;
static int have_sync_map;

const char *zdem_cli_live_map(uint32_t *len)
{
    *len = sync_map_len;
    return have_sync_map ? sync_map : NULL;
}

/* JSON's "\/" (and "\\") in a path: the rest is kept as it is. */
static void unescape_into(char *out, size_t cap, const char *s, size_t n)
{
    size_t i, k = 0;
    for (i = 0; i < n && k + 1 < cap; i++) {
        if (s[i] == '\\' && i + 1 < n && (s[i + 1] == '/' || s[i + 1] == '\\'))
            i++;
        out[k++] = s[i];
    }
    out[k] = 0;
}

typedef struct sync_out {
    uint8_t *p, *end;
    int over; /* larger than any sync: refused */
} sync_out;

static int sync_piece(void *ctx, const uint8_t *p, size_t n)
{
    sync_out *w = (sync_out *)ctx;
    if ((size_t)(w->end - w->p) < n) {
        w->over = 1;
        return 1;
    }
    memcpy(w->p, p, n);
    w->p += n;
    return 0;
}

#define SYNC_MAX 65536u

/* sync.json or BASE/sync into buf: its length, or 0 after a message. */
static size_t read_sync(bc_run *br, uint8_t *buf)
{
    const char *base = br->f->live->base;
    if (!br->f->live->url) {
        const char *const names[] = {"sync.json", "sync"};
        unsigned i;
        for (i = 0; i < 2; i++) {
            char p[4096];
            FILE *in;
            size_t n;
            if ((size_t)snprintf(p, sizeof p, "%s/%s", base, names[i]) >= sizeof p ||
                !(in = fopen(p, "rb")))
                continue;
            n = fread(buf, 1, SYNC_MAX, in);
            fclose(in);
            if (n == SYNC_MAX) {
                fprintf(stderr, "zdem: %s: larger than %u bytes: not a broadcast's sync\n", p,
                        SYNC_MAX);
                return 0;
            }
            return n;
        }
        fprintf(stderr, "zdem: %s: no sync.json\n", base);
        return 0;
    } else {
        char url[4096], msg[256];
        uint64_t got = 0, last = now_ms();
        for (;;) {
            sync_out w;
            long code;
            w.p = buf;
            w.end = buf + SYNC_MAX;
            w.over = 0;
            got = 0;
            msg[0] = 0;
            if ((size_t)snprintf(url, sizeof url, "%s/sync", br->prefix) >= sizeof url)
                return 0; /* cannot be: the prefix is shorter (zdem_cli_live_s2_go) */
            code = zdem_cli_http_get(br->http, url, 0, sync_piece, &w, &got, (long)br->idle, msg,
                                     sizeof msg);
            if (code == 200 && !w.over)
                return (size_t)(w.p - buf);
            if (code == 200) {
                fprintf(stderr, "zdem: %s: larger than %u bytes: not a broadcast's sync\n", url,
                        SYNC_MAX);
                return 0;
            }
            if (now_ms() - last >= br->idle) {
                if (code)
                    fprintf(stderr, "zdem: %s: HTTP %ld for %lu s (--idle-timeout)\n", url, code,
                            br->idle / 1000u);
                else
                    fprintf(stderr, "zdem: %s: %s for %lu s (--idle-timeout)\n", url,
                            msg[0] ? msg : "no answer", br->idle / 1000u);
                return 0;
            }
            sleep_ms(br->poll);
        }
    }
}

void zdem_cli_live_s2_go(zdem_cli_s2_run *r, const zdem_cli_file *f, int64_t stop_tick)
{
    static bc_run br; /* the broadcast state is large for a stack */
    uint8_t *sync_buf = malloc(SYNC_MAX);
    zdem_s2_bc_sync sync;
    zdem_s2_bc_kind kind;
    int64_t number;
    size_t n;
    char msg[256];
    int past = 0;
    memset(&br, 0, sizeof br);
    br.f = f;
    br.r = r;
    zdem_error_clear(&r->err);
    if (!sync_buf) {
        zdem_fail(&r->err, ZDEM_ERR_NO_SPACE, 0, "out of memory");
        return;
    }
    br.idle = idle_ms(f->live->args);
    br.poll = f->live->args->poll_ms ? f->live->args->poll_ms : 0;
    if (strlen(f->live->base) > 2048) {
        free(sync_buf);
        zdem_fail(&r->err, ZDEM_ERR_LIMIT, 0, "the broadcast's path or URL is longer than 2048 bytes");
        return;
    }
    if ((size_t)snprintf(br.prefix, sizeof br.prefix, "%s", f->live->base) >= sizeof br.prefix)
        br.prefix[0] = 0; /* cannot be: checked above */
    n = strlen(br.prefix);
    while (n > 0 && br.prefix[n - 1] == '/')
        br.prefix[--n] = 0;
    if (f->live->url && zdem_cli_http_open(&br.http, msg, sizeof msg) != 0) {
        free(sync_buf);
        zdem_fail(&r->err, ZDEM_ERR_UNSUPPORTED, 0, "URLs need libcurl");
        fprintf(stderr, "zdem: %s: %s\n", f->path, msg);
        return;
    }
    if (!br.poll)
        br.poll = f->live->url ? ZDEM_CLI_URL_POLL_MS : ZDEM_CLI_POLL_MS;
    if (!(n = read_sync(&br, sync_buf)))
        zdem_fail(&r->err, ZDEM_ERR_TRUNCATED, 0, "no broadcast sync");
    else if (zdem_s2_broadcast_sync(sync_buf, n, &sync, &r->err) != ZDEM_OK ||
             zdem_s2_broadcast_init(&br.b, r->s, &sync, &r->err) != ZDEM_OK)
        ;
    else {
        if (f->live->args->fragment_mib)
            br.b.max_fragment = (uint64_t)f->live->args->fragment_mib << 20;
        else
            br.b.max_fragment = (uint64_t)ZDEM_CLI_MAX_FRAGMENT_MIB << 20;
        /* the server's fragment interval paces the polling when not given */
        if (f->live->url && !f->live->args->poll_ms && sync.keyframe_interval > 0) {
            unsigned long q = (unsigned long)(sync.keyframe_interval > 60 ? 60 : sync.keyframe_interval) * 250u;
            br.poll = q < 100u ? 100u : q > 1000u ? 1000u : q;
        }
        if (sync.map) {
            unescape_into(sync_map, sizeof sync_map, sync.map, sync.map_len);
            sync_map_len = (uint32_t)strlen(sync_map);
            have_sync_map = 1;
        }
        if (sync.token_redirect && sync.token_redirect_len) {
            char tok[2048];
            unescape_into(tok, sizeof tok, sync.token_redirect, sync.token_redirect_len);
            n = strlen(tok);
            while (n > 0 && tok[n - 1] == '/')
                tok[--n] = 0;
            /* tok is under 2048 bytes, the prefix so far too: both fit */
            if (is_url(tok)) {
                if ((size_t)snprintf(br.prefix, sizeof br.prefix, "%s", tok) >= sizeof br.prefix)
                    br.prefix[0] = 0;
            } else {
                size_t k = strlen(br.prefix);
                if ((size_t)snprintf(br.prefix + k, sizeof br.prefix - k, "/%s", tok) >= sizeof br.prefix - k)
                    br.prefix[k] = 0;
            }
        }
        zdem_s2_state_stop_at(r->s, stop_tick);
        zdem_cli_where_more = where_fragment;
        while (!br.stopped && zdem_s2_broadcast_next(&br.b, &kind, &number)) {
            char name[64];
            int found;
            if ((size_t)snprintf(name, sizeof name, "%lld/%s", (long long)number,
                                 zdem_s2_bc_kind_name(kind)) >= sizeof name)
                break; /* cannot be: a number and "start", "full" or "delta" */
            if (zdem_s2_broadcast_begin(&br.b, kind, number, &r->err) != ZDEM_OK)
                break;
            current.start = br.b.fragment_start;
            current.bytes = 0;
            current.number = number;
            current.kind = (int)kind;
            have_current = 1;
            found = f->live->url ? url_fragment(&br, name) : dir_fragment(&br, name);
            if (br.stopped)
                break;
            if (!found) {
                if (!f->live->url)
                    fprintf(stderr, "zdem: %s: no fragment %s: the broadcast so far is read\n",
                            f->path, name);
                break;
            }
            if (zdem_s2_broadcast_end_fragment(&br.b, &r->err) != ZDEM_OK)
                break;
            note_places(zdem_s2_state_warnings(r->s));
            fflush(stdout); /* the fragment's lines are out before the next wait */
            /* a live server's match goes on: the state at stop_tick is
             * complete (a directory is read to its end, as a .dem is) */
            if (stop_tick >= 0 && f->live->url && br.b.last_tick > stop_tick) {
                past = 1;
                break;
            }
        }
        if (past)
            (void)zdem_s2_warn_result(zdem_s2_state_warnings(r->s), ZDEM_OK, &r->err);
        else
            (void)zdem_s2_broadcast_end(&br.b, &r->err);
    }
    zdem_cli_http_close(br.http);
    free(sync_buf);
}

/* ---- entry -------------------------------------------------------------------- */

int zdem_cli_live_run(const zdem_cli_args *a, const char *path, zdem_cli_dispatch_fn dispatch)
{
    static const uint8_t s2_magic[8] = {'P', 'B', 'D', 'E', 'M', 'S', '2', 0};
    zdem_cli_live live;
    zdem_cli_file f;
    int rc;
    if (!is_url(path) && !is_broadcast_dir(path))
        return run_follow(a, path, dispatch);
    if (strcmp(a->command, "dump") == 0 || strcmp(a->command, "map") == 0 || a->small) {
        fprintf(stderr, "zdem: %s: a broadcast is read by info, events, entities, ticks and "
                        "props (without --small)\n", path);
        return ZDEM_EXIT_USAGE;
    }
    live.base = path;
    live.url = is_url(path);
    live.args = a;
    f.path = path;
    f.data = NULL;
    f.size = 0;
    f.in = NULL;
    f.live = &live;
    rc = dispatch(a, &f, s2_magic, sizeof s2_magic);
    fflush(stdout);
    zdem_cli_where_more = NULL;
    return rc;
}
