/* Quake III clips round trip (zdem_q3_cut): for every Quake III corpus
 * demo and at least 20 ranges each (the whole file, then seeded random
 * ones), the clip read back gives exactly what the original gives over
 * that range: every valid snapshot (server time, message number, flags,
 * areamask, playerstate, every entity's state), the configstrings at
 * each snapshot, every server command delivered (sequence and text),
 * warnings, and every event (obituaries, chat, prints, scores; at the
 * clip's first snapshot, where the original had a previous snapshot,
 * the clip may fire more event entities, never fewer). The range of the
 * original is the messages from the one holding the first valid snapshot
 * at or after the start to the last before the first valid snapshot past
 * the end (the clip's unit is a message), stopped at the first damaged
 * message. A cut of a clip equals the cut of the original (byte for
 * byte), the clip reads clean (framing and messages), and the fault of a
 * damaged original is the one zdem_q3_parse_file reports. ZEQ2-Lite
 * (netfields unknown) is refused. */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quake3.h"
#include "quake3_write.h"
#include "zdem_test.h"
#include "cut_out.h"

typedef struct rec {
    uint32_t msg;   /* message index in its file */
    char kind;      /* S snapshot, K configstrings at it, C command, E event, W warning */
    int64_t a;
    uint64_t h;
} rec;

typedef struct log {
    rec *r;
    size_t n, cap;
    uint32_t msg;        /* message being parsed */
    uint64_t cs_hash;    /* configstrings, recomputed when a command or gamestate may change them */
    int cs_dirty;
} log;

/* FNV-1a, 4 bytes a step (the states are arrays of int32) */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t w;
        memcpy(&w, b + i, 4);
        h = (h ^ w) * UINT64_C(0x100000001b3);
    }
    for (; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

static void add(log *l, char kind, int64_t a, uint64_t h)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4096;
        l->r = realloc(l->r, l->cap * sizeof *l->r);
    }
    l->r[l->n].msg = l->msg;
    l->r[l->n].kind = kind;
    l->r[l->n].a = a;
    l->r[l->n].h = h;
    l->n++;
}

static int on_gamestate(void *u, const zdem_q3_parser *p)
{
    (void)p;
    ((log *)u)->cs_dirty = 1;
    return 0;
}

static int on_snapshot(void *u, const zdem_q3_parser *p, const zdem_q3_snapshot *s)
{
    log *l = u;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    int i;
    if (!s->valid)
        return 0;
    h = fnv(h, &s->message_num, sizeof s->message_num);
    h = fnv(h, &s->snap_flags, sizeof s->snap_flags);
    h = fnv(h, &s->server_command_num, sizeof s->server_command_num);
    h = fnv(h, &s->areamask_len, 1);
    h = fnv(h, s->areamask, s->areamask_len);
    h = fnv(h, &s->ps, sizeof s->ps);
    h = fnv(h, &s->num_entities, sizeof s->num_entities);
    for (i = 0; i < s->num_entities; i++)
        h = fnv(h, zdem_q3_snapshot_entity(p, s, i), sizeof(zdem_q3_entity));
    add(l, 'S', s->server_time, h);
    if (l->cs_dirty) {
        uint64_t c = UINT64_C(0xcbf29ce484222325);
        for (i = 0; i < ZDEM_Q3_MAX_CONFIGSTRINGS; i++) {
            size_t n;
            const char *cs = zdem_q3_configstring(p, i, &n);
            if (cs) {
                c = fnv(c, &i, sizeof i);
                c = fnv(c, cs, n + 1);
            }
        }
        l->cs_hash = c;
        l->cs_dirty = 0;
    }
    add(l, 'K', 0, l->cs_hash);
    return 0;
}

static int on_command(void *u, const zdem_q3_parser *p, int32_t seq, const char *cmd, size_t len)
{
    log *l = u;
    (void)p;
    if ((len >= 3 && memcmp(cmd, "cs ", 3) == 0) || (len >= 3 && memcmp(cmd, "bcs", 3) == 0))
        l->cs_dirty = 1;
    add(l, 'C', seq, fnv(UINT64_C(0xcbf29ce484222325), cmd, len));
    return 0;
}

static int on_event(void *u, const zdem_q3_parser *p, const zdem_q3_event *ev)
{
    log *l = u;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    (void)p;
    h = fnv(h, &ev->type, sizeof ev->type);
    h = fnv(h, &ev->attacker, sizeof ev->attacker);
    h = fnv(h, &ev->target, sizeof ev->target);
    h = fnv(h, &ev->mod, sizeof ev->mod);
    h = fnv(h, ev->attacker_name ? ev->attacker_name : "", ev->attacker_name ? strlen(ev->attacker_name) : 0);
    h = fnv(h, ev->target_name ? ev->target_name : "", ev->target_name ? strlen(ev->target_name) : 0);
    h = fnv(h, ev->text ? ev->text : "", ev->text ? ev->text_len : 0);
    h = fnv(h, &ev->score1, sizeof ev->score1);
    h = fnv(h, &ev->score2, sizeof ev->score2);
    h = fnv(h, &ev->chat_kind, sizeof ev->chat_kind);
    add(l, ev->type == ZDEM_Q3_EV_OBITUARY ? 'O' : 'E', ev->command_seq, h);
    return 0;
}

static int on_warning(void *u, const zdem_q3_parser *p, const zdem_error *w)
{
    (void)p;
    add(u, 'W', w->code, fnv(UINT64_C(0xcbf29ce484222325), w->msg, strlen(w->msg)));
    return 0;
}

static uint8_t *parser_mem;

/* Reads a demo, logging per message; returns the index of the first
 * damaged message (or the message count), *st the first fault. */
static uint32_t read_log(const uint8_t *data, size_t size, int protocol, log *l,
                         zdem_status *st, zdem_error *first)
{
    zdem_q3_callbacks cb;
    zdem_q3_parser *p;
    zdem_q3_reader r;
    zdem_q3_frame f;
    zdem_error e;
    uint32_t bad = UINT32_MAX;
    int got;
    memset(&cb, 0, sizeof cb);
    cb.gamestate = on_gamestate;
    cb.snapshot = on_snapshot;
    cb.server_command = on_command;
    cb.event = on_event;
    cb.warning = on_warning;
    memset(l, 0, sizeof *l);
    *st = ZDEM_OK;
    zdem_error_clear(first);
    zdem_error_clear(&e);
    p = zdem_q3_parser_init(parser_mem, zdem_q3_parser_size(), protocol, &cb, l, &e);
    if (!p) {
        *st = e.code;
        return 0;
    }
    zdem_q3_reader_init(&r, data, size);
    for (;;) {
        zdem_status s;
        zdem_error_clear(&e);
        s = zdem_q3_reader_next(&r, &f, &got, &e);
        if (s != ZDEM_OK) {
            if (*st == ZDEM_OK) {
                *st = s;
                *first = e;
            }
            break;
        }
        if (!got)
            break;
        l->msg = f.index;
        s = zdem_q3_parse_message(p, &f, &e);
        if (s != ZDEM_OK && *st == ZDEM_OK) {
            *st = s;
            *first = e;
            first->offset = f.offset + 8u + e.offset / 8u;
            first->offset_is_bits = 0;
            bad = f.index;
        }
    }
    return bad == UINT32_MAX ? r.index : bad;
}


static uint8_t *writer_mem;

static zdem_status cut(const uint8_t *data, size_t size, int protocol, int32_t a, int32_t b,
                       out *o, zdem_q3_cut_info *info, zdem_error *err)
{
    o->n = 0;
    zdem_error_clear(err);
    return zdem_q3_cut(writer_mem, zdem_q3_writer_size(), protocol, data, size, a, b, to_out, o,
                       info, err);
}

static int same(const rec *x, const rec *y)
{
    return x->kind == y->kind && x->a == y->a && x->h == y->h;
}

static unsigned long ranges_checked, clips_nonempty, whole_snaps;

/* The original's log over [a, b] (message range) against the clip's. */
static void check_range(const char *demo, const uint8_t *data, size_t size, int protocol,
                        const log *orig, uint32_t bad, zdem_status ost, const zdem_error *oerr,
                        int32_t a, int32_t b, out *o)
{
    size_t i, j, lo = orig->n, hi = orig->n;
    uint32_t m0 = UINT32_MAX, m1 = bad;
    zdem_q3_cut_info info;
    zdem_error err;
    zdem_status st;
    log clip;
    zdem_status cst;
    zdem_error cerr;
    uint32_t cbad;
    int ok = 1;
    for (i = 0; i < orig->n; i++) {
        const rec *r = &orig->r[i];
        if (r->msg >= bad)
            break;
        if (r->kind != 'S')
            continue;
        if (m0 == UINT32_MAX) {
            if (r->a >= a) {
                if (r->a > b)
                    break; /* nothing in the range */
                m0 = r->msg;
            }
        } else if (r->a > b) {
            m1 = r->msg;
            break;
        }
    }
    if (m0 != UINT32_MAX) {
        for (lo = 0; lo < orig->n && orig->r[lo].msg < m0; lo++)
            ;
        for (hi = lo; hi < orig->n && orig->r[hi].msg < m1; hi++)
            ;
    }
    st = cut(data, size, protocol, a, b, o, &info, &err);
    ranges_checked++;
    /* the clip stops where the original's first fault is, if it reaches it */
    if (st != ZDEM_OK) {
        CHECK_EQ_INT(st, ost);
        CHECK_EQ_INT(err.offset, oerr->offset);
    }
    cbad = read_log(o->d, o->n, protocol, &clip, &cst, &cerr);
    if (!CHECK_EQ_INT(cst, ZDEM_OK))
        printf("  %s [%d, %d]: clip fault %s at %llu\n", demo, (int)a, (int)b,
               cerr.msg, (unsigned long long)cerr.offset);
    (void)cbad;
    /* obituaries of the first snapshot: the original's are among the clip's */
    {
        size_t k = 0, n0 = 0;
        uint32_t cm0 = UINT32_MAX;
        for (i = 0; i < clip.n; i++)
            if (clip.r[i].kind == 'S') {
                cm0 = clip.r[i].msg;
                break;
            }
        for (i = lo; i < hi; i++) {
            if (orig->r[i].kind != 'O' || orig->r[i].msg != m0)
                continue;
            n0++;
            for (j = 0; j < clip.n; j++)
                if (clip.r[j].kind == 'O' && clip.r[j].msg == cm0 && same(&clip.r[j], &orig->r[i])) {
                    k++;
                    break;
                }
        }
        CHECK_EQ_INT(k, n0);
        /* everything else, in order */
        i = lo;
        j = 0;
        for (;;) {
            while (i < hi && orig->r[i].kind == 'O' && orig->r[i].msg == m0)
                i++;
            while (j < clip.n && clip.r[j].kind == 'O' && clip.r[j].msg == cm0)
                j++;
            if (i >= hi || j >= clip.n)
                break;
            if (!same(&orig->r[i], &clip.r[j])) {
                ok = 0;
                break;
            }
            i++;
            j++;
        }
        if (!CHECK(ok && i >= hi && j >= clip.n))
            printf("  %s [%d, %d]: differs at original record %zu/%zu (%c %lld), clip %zu/%zu (%c %lld)\n",
                   demo, (int)a, (int)b, i, hi, i < hi ? orig->r[i].kind : '-',
                   i < hi ? (long long)orig->r[i].a : 0LL, j, clip.n,
                   j < clip.n ? clip.r[j].kind : '-', j < clip.n ? (long long)clip.r[j].a : 0LL);
    }
    if (m0 != UINT32_MAX) {
        clips_nonempty++;
        CHECK(info.started);
        CHECK(info.whole >= 1);
        whole_snaps += info.whole;
    } else {
        CHECK(!info.started);
        CHECK_EQ_INT(o->n, 8); /* the end marker alone */
    }
    free(clip.r);
}

static void check_demo(const char *demo)
{
    char rel[512];
    size_t size = 0, i;
    uint8_t *data;
    int protocol = zdem_q3_protocol_from_path(demo);
    log orig;
    zdem_status ost;
    zdem_error oerr;
    uint32_t bad;
    int32_t *times = NULL;
    size_t nt = 0;
    uint64_t seed = 0x9e3779b97f4a7c15u;
    out o = {NULL, 0, 0}, o2 = {NULL, 0, 0}, o3 = {NULL, 0, 0};
    int k;
    snprintf(rel, sizeof rel, "q3/%s", demo);
    data = zt_read_file(zt_corpus_path(rel), &size);
    if (!CHECK(data != NULL))
        return;
    for (i = 0; demo[i]; i++)
        seed = (seed ^ (uint8_t)demo[i]) * UINT64_C(0x100000001b3);
    bad = read_log(data, size, protocol, &orig, &ost, &oerr);
    if (strstr(demo, "zeq2")) {
        zdem_q3_cut_info info;
        zdem_error err;
        CHECK_EQ_INT(cut(data, size, protocol, INT32_MIN, INT32_MAX, &o, &info, &err),
                     ZDEM_ERR_UNSUPPORTED);
        goto out;
    }
    for (i = 0; i < orig.n; i++)
        if (orig.r[i].kind == 'S' && orig.r[i].msg < bad) {
            times = realloc(times, (nt + 1) * sizeof *times);
            times[nt++] = (int32_t)orig.r[i].a;
        }
    if (!CHECK(nt > 0))
        goto out;
    check_range(demo, data, size, protocol, &orig, bad, ost, &oerr, INT32_MIN, INT32_MAX, &o);
    for (k = 0; k < 22; k++) {
        int32_t a, b, t1 = times[zt_rand(&seed) % nt], t2 = times[zt_rand(&seed) % nt];
        if (t1 > t2) {
            int32_t t = t1;
            t1 = t2;
            t2 = t;
        }
        a = t1 - (int32_t)(zt_rand(&seed) % 80);
        b = k % 7 == 3 ? a : t2 + (int32_t)(zt_rand(&seed) % 80); /* some single snapshots */
        if (k == 21) { /* past the end: an empty clip */
            a = times[nt - 1] + 1;
            b = INT32_MAX;
        }
        check_range(demo, data, size, protocol, &orig, bad, ost, &oerr, a, b, &o);
        if (k % 4 == 0 && o.n > 8) {
            /* a cut of the clip equals the cut of the original */
            /* a range inside [a, b] (both ends within the original's times) */
            int64_t lo2 = a > times[0] ? a : times[0], hi2 = b < times[nt - 1] ? b : times[nt - 1];
            int32_t a2 = (int32_t)(lo2 + (int64_t)(zt_rand(&seed) % (uint64_t)(hi2 - lo2 + 1)));
            int32_t b2 = (int32_t)(hi2 - (int64_t)(zt_rand(&seed) % (uint64_t)(hi2 - a2 + 1)));
            zdem_q3_cut_info info;
            zdem_error err;
            cut(o.d, o.n, protocol, a2, b2, &o2, &info, &err);
            cut(data, size, protocol, a2, b2, &o3, &info, &err);
            if (!CHECK(o2.n == o3.n && memcmp(o2.d, o3.d, o2.n) == 0))
                printf("  %s: cut of [%d, %d] at [%d, %d]: %zu bytes, the original's %zu\n", demo,
                       (int)a, (int)b, (int)a2, (int)b2, o2.n, o3.n);
        }
    }
out:
    free(times);
    free(orig.r);
    free(o.d);
    free(o2.d);
    free(o3.d);
    free(data);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
    DIR *d = opendir(zt_corpus_path("q3"));
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, i;
    parser_mem = malloc(zdem_q3_parser_size());
    writer_mem = malloc(zdem_q3_writer_size());
    if (!CHECK(d != NULL && parser_mem && writer_mem))
        return zt_finish();
    while ((e = readdir(d)) != NULL) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || strncmp(dot, ".dm", 3) != 0)
            continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n] = malloc(strlen(e->d_name) + 1);
        strcpy(names[n++], e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    CHECK(n >= 40);
    for (i = 0; i < n; i++) {
        unsigned long before = (unsigned long)zt_failed;
        check_demo(names[i]);
        if ((unsigned long)zt_failed != before)
            printf("FAILED: %s\n", names[i]);
        free(names[i]);
    }
    printf("%lu ranges on %zu demos, %lu clips with snapshots, %lu snapshots written whole\n",
           ranges_checked, n, clips_nonempty, whole_snaps);
    free(names);
    free(parser_mem);
    free(writer_mem);
    return zt_finish();
}
