/* zdem CLI for Quake III / Quake Live demos: info, events, dump. The CLI
 * may allocate (it is not library code): the parser state and a copy of
 * the first gamestate's configstrings are malloc'd once. */
#include "cli.h"
#include "quake3.h"
#include "quake3_push.h"

#include <stdlib.h>
#include <string.h>

typedef struct q3cli {
    const zdem_cli_args *a;
    const zdem_cli_file *f;
    zdem_q3_parser *p;
    const zdem_q3_frame *frame;   /* message being parsed */
    int dump, events;             /* the command (compared once, not per callback) */
    /* summary */
    int32_t first_sequence;
    uint32_t snapshots;
    int have_time;
    int32_t first_time, last_time;
    uint32_t commands, obituaries, chats;
    uint32_t chat_kinds[ZDEM_Q3_CHAT_KIND_COUNT];
    /* first gamestate */
    int gs_seen;
    char *cs[ZDEM_Q3_MAX_CONFIGSTRINGS];
    size_t cs_len[ZDEM_Q3_MAX_CONFIGSTRINGS];
    uint32_t baselines;
    int32_t client_num;
    char map[256];
    /* players: first non-empty name seen per client, and the team its
     * configstring named then */
    char *players[ZDEM_Q3_MAX_CLIENTS];
    int teams[ZDEM_Q3_MAX_CLIENTS];
    int players_dirty;
    /* warnings by kind (the parser's static message): counted for info,
     * one line each in dump */
    struct { const char *kind; unsigned long count; } warn[24];
    int nwarn;
    unsigned long skipped;  /* damaged messages skipped */
    /* the first fatal problem: file offset and text */
    int failed;
    unsigned long long fail_offset;
    char fail_msg[512];
} q3cli;

/* The line types of dump (its --type) and of events (its --name). */
static const char *const dump_types[] = {"message", "gamestate", "snapshot", "command", "warning",
                                         "skipped"};
static const char *const event_types[] = {"obituary", "chat", "tchat", "print", "centerprint",
                                          "scores", "warning"};

static int dump_wants(const q3cli *c, const char *type)
{
    return !c->a->type || strcmp(c->a->type, type) == 0;
}

/* Bytes of a dump line, against --max-output (the main loop stops). */
static void out_line(int n)
{
    (void)zdem_cli_out_bytes(n > 0 ? (uint64_t)n : 0u);
}

static void add_warning(q3cli *c, const char *kind, unsigned long n)
{
    int i;
    for (i = 0; i < c->nwarn; i++)
        if (strcmp(c->warn[i].kind, kind) == 0) {
            c->warn[i].count += n;
            return;
        }
    if (c->nwarn < (int)(sizeof c->warn / sizeof c->warn[0])) {
        c->warn[c->nwarn].kind = kind;
        c->warn[c->nwarn].count = n;
        c->nwarn++;
    }
}

/* A configstring value's leading integer (team numbers), -1 if none. */
static int atoi_n(const char *v, size_t n)
{
    int x = 0;
    size_t i;
    if (!n || v[0] < '0' || v[0] > '9')
        return -1;
    for (i = 0; i < n && i < 4 && v[i] >= '0' && v[i] <= '9'; i++)
        x = x * 10 + (v[i] - '0');
    return x;
}

static void update_players(q3cli *c, const zdem_q3_parser *p)
{
    const zdem_q3_protocol_info *pi = zdem_q3_protocol_info_of(p);
    int i;
    if (!pi)
        return;
    for (i = 0; i < ZDEM_Q3_MAX_CLIENTS; i++) {
        size_t n, vn;
        const char *cs, *v;
        if (c->players[i])
            continue;
        cs = zdem_q3_configstring(p, pi->cs_players + i, &n);
        v = zdem_q3_info_value(cs, n, "n", &vn);
        if (v && vn) {
            c->players[i] = malloc(vn + 1);
            if (c->players[i]) {
                memcpy(c->players[i], v, vn);
                c->players[i][vn] = 0;
            }
            v = zdem_q3_info_value(cs, n, "t", &vn);
            c->teams[i] = v ? atoi_n(v, vn) : -1;
        }
    }
    c->players_dirty = 0;
}

static int on_gamestate(void *user, const zdem_q3_parser *p)
{
    q3cli *c = user;
    if (!c->gs_seen) {
        int i;
        size_t n, vn;
        const char *v;
        c->gs_seen = 1;
        for (i = 0; i < ZDEM_Q3_MAX_CONFIGSTRINGS; i++) {
            const char *s = zdem_q3_configstring(p, i, &n);
            if (!s)
                continue;
            c->cs[i] = malloc(n + 1);
            if (c->cs[i]) {
                memcpy(c->cs[i], s, n + 1);
                c->cs_len[i] = n;
            }
        }
        c->baselines = zdem_q3_baseline_count(p);
        c->client_num = zdem_q3_client_num(p);
        v = zdem_q3_info_value(c->cs[0], c->cs_len[0], "mapname", &vn);
        if (v) {
            if (vn >= sizeof c->map)
                vn = sizeof c->map - 1;
            memcpy(c->map, v, vn);
            c->map[vn] = 0;
        }
    }
    update_players(c, p);
    if (c->dump && dump_wants(c, "gamestate")) {
        /* a damaged gamestate: what was read before the damage (the
         * message's "skipped" line follows) */
        int dmg = zdem_q3_gamestate_damaged(p);
        if (c->a->json)
            out_line(printf("{\"type\":\"gamestate\",\"sequence\":%ld,\"client_num\":%ld,"
                   "\"baselines\":%lu,\"protocol\":%d%s}\n",
                   (long)c->frame->sequence, (long)zdem_q3_client_num(p),
                   (unsigned long)zdem_q3_baseline_count(p), zdem_q3_protocol(p),
                   dmg ? ",\"damaged\":true" : ""));
        else
            out_line(printf("gamestate  seq %ld  client %ld  baselines %lu  protocol %d%s\n",
                   (long)c->frame->sequence, (long)zdem_q3_client_num(p),
                   (unsigned long)zdem_q3_baseline_count(p), zdem_q3_protocol(p),
                   dmg ? "  damaged (read up to the damage)" : ""));
    }
    return 0;
}

static int on_snapshot(void *user, const zdem_q3_parser *p, const zdem_q3_snapshot *s)
{
    q3cli *c = user;
    (void)p;
    c->snapshots++;
    if (!c->have_time) {
        c->have_time = 1;
        c->first_time = s->server_time;
    }
    c->last_time = s->server_time;
    if (c->players_dirty)
        update_players(c, p);
    if (c->dump && dump_wants(c, "snapshot")) {
        if (c->a->json)
            out_line(printf("{\"type\":\"snapshot\",\"sequence\":%ld,\"server_time\":%ld,"
                   "\"delta\":%ld,\"snap_flags\":%ld,\"entities\":%ld,"
                   "\"command_time\":%ld}\n",
                   (long)s->message_num, (long)s->server_time, (long)s->delta_num,
                   (long)s->snap_flags, (long)s->num_entities, (long)s->ps.commandTime));
        else
            out_line(printf("snapshot   seq %ld  time %ld  delta %ld  entities %ld\n",
                   (long)s->message_num, (long)s->server_time, (long)s->delta_num,
                   (long)s->num_entities));
    }
    return 0;
}

static int on_command(void *user, const zdem_q3_parser *p, int32_t seq, const char *s, size_t n)
{
    q3cli *c = user;
    (void)p;
    c->commands++;
    if (n > 3 && (memcmp(s, "cs ", 3) == 0 || memcmp(s, "bcs", 3) == 0))
        c->players_dirty = 1;
    if (c->dump && dump_wants(c, "command")) {
        if (c->a->json) {
            out_line(printf("{\"type\":\"command\",\"sequence\":%ld,\"command_seq\":%ld,\"text\":",
                   (long)c->frame->sequence, (long)seq));
            zdem_json_str(stdout, (const uint8_t *)s, n);
            out_line(printf("}\n") + (int)(n < 0x7FFFFFF ? n : 0x7FFFFFF));
        } else {
            out_line(printf("command    seq %ld  #%ld  %.*s\n", (long)c->frame->sequence, (long)seq,
                   (int)(n > 200 ? 200 : n), s));
        }
    }
    return 0;
}

static int on_event(void *user, const zdem_q3_parser *p, const zdem_q3_event *ev)
{
    q3cli *c = user;
    (void)p;
    if (ev->type == ZDEM_Q3_EV_OBITUARY)
        c->obituaries++;
    if (ev->type == ZDEM_Q3_EV_CHAT || ev->type == ZDEM_Q3_EV_TCHAT) {
        c->chats++;
        c->chat_kinds[(unsigned)ev->chat_kind % ZDEM_Q3_CHAT_KIND_COUNT]++;
    }
    if (!c->events || !zdem_cli_name_wanted(c->a, NULL, 0, zdem_q3_event_type_name(ev->type)))
        return 0;
    printf("{\"type\":\"%s\",\"server_time\":%ld,\"gamestate\":%lu",
           zdem_q3_event_type_name(ev->type), (long)ev->server_time,
           (unsigned long)ev->gamestate);
    if (ev->type == ZDEM_Q3_EV_OBITUARY) {
        printf(",\"attacker\":%d,\"attacker_name\":", ev->attacker);
        zdem_json_cstr(stdout, ev->attacker_name);
        printf(",\"target\":%d,\"target_name\":", ev->target);
        zdem_json_cstr(stdout, ev->target_name);
        printf(",\"mod\":%d,\"mod_name\":", ev->mod);
        zdem_json_cstr(stdout, ev->mod_name);
    } else if (ev->type == ZDEM_Q3_EV_SCORES) {
        printf(",\"command_seq\":%ld,\"score1\":%ld,\"score2\":%ld", (long)ev->command_seq,
               (long)ev->score1, (long)ev->score2);
        if (ev->text_len) {
            printf(",\"text\":");
            zdem_json_str(stdout, (const uint8_t *)ev->text, ev->text_len);
        }
    } else {
        printf(",\"command_seq\":%ld", (long)ev->command_seq);
        if (ev->chat_kind != ZDEM_Q3_CHAT_NONE)
            printf(",\"kind\":\"%s\"", zdem_q3_chat_kind_name(ev->chat_kind));
        if (ev->chat_kind == ZDEM_Q3_CHAT_MM2) {
            printf(",\"client\":%d,\"name\":", ev->client);
            zdem_json_cstr(stdout, ev->attacker_name);
            printf(",\"location\":");
            zdem_json_str(stdout, (const uint8_t *)ev->location, ev->location_len);
        }
        printf(",\"text\":");
        zdem_json_str(stdout, (const uint8_t *)ev->text, ev->text_len);
    }
    printf("}\n");
    return 0;
}

static int on_warning(void *user, const zdem_q3_parser *p, const zdem_error *w)
{
    q3cli *c = user;
    add_warning(c, w->msg, 1);
    /* Warnings that lose data are events too (the rest are counted in
     * info): a configstring dropped at MAX_GAMESTATE_CHARS means later
     * names and scores are missing. */
    if (c->events && zdem_cli_name_wanted(c->a, NULL, 0, "warning") &&
        (w->code == ZDEM_ERR_NO_SPACE || strncmp(w->msg, "limit max_", 10) == 0)) {
        printf("{\"type\":\"warning\",\"server_time\":%ld,\"gamestate\":%lu,\"offset\":%llu,"
               "\"message\":",
               (long)c->last_time, (unsigned long)zdem_q3_gamestate_count(p),
               (unsigned long long)(c->frame->offset + 8 + w->offset / 8));
        zdem_json_cstr(stdout, w->msg);
        printf("}\n");
    }
    /* In the dump's own stream (stdout): stderr carries only the one
     * error line of a damaged file. */
    if (c->dump && dump_wants(c, "warning")) {
        unsigned long long off = c->frame->offset + 8 + w->offset / 8;
        if (c->a->json) {
            printf("{\"type\":\"warning\",\"index\":%lu,\"offset\":%llu,\"bit\":%llu,"
                   "\"message\":",
                   (unsigned long)c->frame->index, off, (unsigned long long)w->offset);
            zdem_json_cstr(stdout, w->msg);
            printf("}\n");
        } else {
            printf("warning    message %lu  offset %llu  bit %llu  %s\n",
                   (unsigned long)c->frame->index, off, (unsigned long long)w->offset, w->msg);
        }
    }
    return 0;
}

/* How far the reading got: messages, end marker, bytes after it. */
typedef struct q3_read {
    uint32_t index;
    int ended;
    uint64_t trailing;
} q3_read;

static void print_info(q3cli *c, int protocol, const q3_read *r)
{
    int i, first;
    if (!c->a->json) {
        printf("format          quake3\n");
        printf("protocol        %d\n", protocol);
        printf("map             %s\n", c->map);
        printf("messages        %lu\n", (unsigned long)r->index);
        printf("first sequence  %ld\n", (long)c->first_sequence);
        printf("gamestates      %lu\n", (unsigned long)(c->p ? zdem_q3_gamestate_count(c->p) : 0));
        printf("snapshots       %lu\n", (unsigned long)c->snapshots);
        if (c->have_time)
            printf("server time     %ld .. %ld (%.3f s)\n", (long)c->first_time,
                   (long)c->last_time, (c->last_time - c->first_time) / 1000.0);
        printf("client num      %ld\n", (long)c->client_num);
        printf("baselines       %lu\n", (unsigned long)c->baselines);
        printf("commands        %lu\n", (unsigned long)c->commands);
        printf("obituaries      %lu\n", (unsigned long)c->obituaries);
        printf("configstrings   peak %lu of %d bytes (MAX_GAMESTATE_CHARS)\n",
               (unsigned long)(c->p ? zdem_q3_configstring_peak(c->p) : 0), ZDEM_Q3_GAMESTATE_CHARS);
        printf("chat lines      %lu (chat %lu, tchat %lu, mm2 %lu)\n", (unsigned long)c->chats,
               (unsigned long)c->chat_kinds[ZDEM_Q3_CHAT_SAY],
               (unsigned long)c->chat_kinds[ZDEM_Q3_CHAT_TEAM],
               (unsigned long)c->chat_kinds[ZDEM_Q3_CHAT_MM2]);
        printf("end marker      %s", r->ended ? "yes" : "no");
        if (r->trailing)
            printf(" (%lu trailing bytes)", (unsigned long)r->trailing);
        printf("\nplayers\n");
        for (i = 0; i < ZDEM_Q3_MAX_CLIENTS; i++)
            if (c->players[i])
                printf("  %2d  %s  (team %d)\n", i, c->players[i], c->teams[i]);
        for (i = 0; i < c->nwarn; i++)
            printf("warning         %s: %lu\n", c->warn[i].kind, c->warn[i].count);
        if (c->failed)
            printf("error           offset %llu: %s\n", c->fail_offset, c->fail_msg);
        return;
    }
    printf("{\"format\":\"quake3\",\"protocol\":%d,\"messages\":%lu,\"first_sequence\":%ld,"
           "\"gamestates\":%lu,\"snapshots\":%lu,\"invalid_snapshots\":%lu,",
           protocol, (unsigned long)r->index, (long)c->first_sequence,
           (unsigned long)(c->p ? zdem_q3_gamestate_count(c->p) : 0),
           (unsigned long)c->snapshots,
           (unsigned long)(c->p ? zdem_q3_invalid_snapshot_count(c->p) : 0));
    if (c->have_time)
        printf("\"first_server_time\":%ld,\"last_server_time\":%ld,", (long)c->first_time,
               (long)c->last_time);
    else
        printf("\"first_server_time\":null,\"last_server_time\":null,");
    printf("\"map_name\":");
    zdem_json_cstr(stdout, c->map);
    printf(",\"client_num\":%ld,\"baselines\":%lu,\"server_commands\":%lu,\"obituaries\":%lu,"
           "\"configstring_peak\":%lu,\"chats\":%lu,\"chat_kinds\":{\"chat\":%lu,\"tchat\":%lu,\"mm2\":%lu},"
           "\"end_marker\":%s,\"trailing_bytes\":%lu,\"configstrings\":{",
           (long)c->client_num, (unsigned long)c->baselines, (unsigned long)c->commands,
           (unsigned long)c->obituaries,
           (unsigned long)(c->p ? zdem_q3_configstring_peak(c->p) : 0), (unsigned long)c->chats,
           (unsigned long)c->chat_kinds[ZDEM_Q3_CHAT_SAY],
           (unsigned long)c->chat_kinds[ZDEM_Q3_CHAT_TEAM],
           (unsigned long)c->chat_kinds[ZDEM_Q3_CHAT_MM2], r->ended ? "true" : "false",
           (unsigned long)r->trailing);
    for (i = 0, first = 1; i < ZDEM_Q3_MAX_CONFIGSTRINGS; i++) {
        if (!c->cs[i])
            continue;
        printf("%s\"%d\":", first ? "" : ",", i);
        zdem_json_str(stdout, (const uint8_t *)c->cs[i], c->cs_len[i]);
        first = 0;
    }
    /* players: one shape for every format (slot, name, team) */
    printf("},\"players\":[");
    for (i = 0, first = 1; i < ZDEM_Q3_MAX_CLIENTS; i++) {
        if (!c->players[i])
            continue;
        printf("%s{\"slot\":%d,\"name\":", first ? "" : ",", i);
        zdem_json_cstr(stdout, c->players[i]);
        if (c->teams[i] >= 0)
            printf(",\"team\":%d}", c->teams[i]);
        else
            printf(",\"team\":null}");
        first = 0;
    }
    printf("],\"warnings\":{");
    for (i = 0; i < c->nwarn; i++) {
        printf("%s", i ? "," : "");
        zdem_json_cstr(stdout, c->warn[i].kind);
        printf(":%lu", c->warn[i].count);
    }
    printf("},\"error\":");
    if (c->failed) {
        printf("{\"offset\":%llu,\"message\":", c->fail_offset);
        zdem_json_cstr(stdout, c->fail_msg);
        printf("}");
    } else {
        printf("null");
    }
    printf("}\n");
}

#define Q3_SKIP_LINES 10 /* skipped messages named one by one on stderr */

/* A damaged message was skipped: counted, a line in dump's stream, and
 * one stderr line each for the first few (the rest are counted there). */
static void skipped(q3cli *c, unsigned long long offset, const char *msg)
{
    add_warning(c, "damaged messages skipped", 1);
    c->skipped++;
    if (c->dump && dump_wants(c, "skipped")) {
        if (c->a->json) {
            printf("{\"type\":\"skipped\",\"index\":%lu,\"offset\":%llu,\"message\":",
                   (unsigned long)c->frame->index, offset);
            zdem_json_cstr(stdout, msg);
            printf("}\n");
        } else {
            printf("skipped    message %lu  offset %llu  %s\n", (unsigned long)c->frame->index,
                   offset, msg);
        }
    }
    if (c->skipped <= Q3_SKIP_LINES) {
        fflush(stdout); /* the warning follows what was decoded before it */
        fprintf(stderr, "zdem: %s: offset %llu: warning: damaged message skipped: %s\n",
                c->f->path, offset, msg);
    }
}

static void set_failure(q3cli *c, unsigned long long offset, const char *msg)
{
    if (c->failed)
        return;
    c->failed = 1;
    c->fail_offset = offset;
    snprintf(c->fail_msg, sizeof c->fail_msg, "%s", msg);
}

/* Before a message is parsed (the file's reader or the push input). */
static void q3_before(void *user, const zdem_q3_frame *fr)
{
    q3cli *c = user;
    if (fr->index == 0)
        c->first_sequence = fr->sequence;
    c->frame = fr;
    if (c->dump && dump_wants(c, "message")) {
        if (c->a->json)
            out_line(printf("{\"type\":\"message\",\"index\":%lu,\"offset\":%llu,\"sequence\":%ld,"
                   "\"length\":%lu}\n",
                   (unsigned long)fr->index, (unsigned long long)fr->offset,
                   (long)fr->sequence, (unsigned long)fr->len));
        else
            out_line(printf("message %6lu  offset %8llu  seq %ld  len %lu\n", (unsigned long)fr->index,
                   (unsigned long long)fr->offset, (long)fr->sequence, (unsigned long)fr->len));
    }
}

/* After: a damaged message is skipped and the next one read (the parser
 * drops what depended on it); the first fault is the verdict at the end,
 * every skip is a warning. */
static void q3_after(void *user, const zdem_q3_frame *fr, zdem_status st, const zdem_error *err)
{
    q3cli *c = user;
    char msg[512];
    unsigned long long off;
    if (st == ZDEM_OK)
        return;
    /* bit offset inside the payload -> the file byte holding it */
    off = fr->offset + 8 + err->offset / 8;
    snprintf(msg, sizeof msg, "message %lu (sequence %ld), bit %llu: %s",
             (unsigned long)fr->index, (long)fr->sequence,
             (unsigned long long)err->offset, err->msg);
    skipped(c, off, msg);
    set_failure(c, off, msg);
}

/* A framing error ends the reading (after index whole messages). */
static void q3_framing(q3cli *c, uint32_t index, unsigned long long offset, const char *what)
{
    char msg[512];
    snprintf(msg, sizeof msg, "message %lu: %s", (unsigned long)index, what);
    if (c->failed) {
        /* not the verdict (an earlier message was damaged), but it ended
         * the reading: said, not lost */
        add_warning(c, "reading stopped by a later framing error", 1);
        fflush(stdout);
        fprintf(stderr, "zdem: %s: offset %llu: warning: reading stopped: %s\n", c->f->path,
                offset, msg);
    }
    set_failure(c, offset, msg);
}

/* The whole mapped file, message by message. */
static void q3_read_file(q3cli *c, const zdem_cli_file *f, q3_read *out)
{
    zdem_q3_reader r;
    zdem_q3_frame fr;
    zdem_error err;
    zdem_status st;
    int got;
    zdem_q3_reader_init(&r, f->data, f->size);
    while (c->p) {
        zdem_error_clear(&err); /* first error wins inside one call only */
        st = zdem_q3_reader_next(&r, &fr, &got, &err);
        if (st != ZDEM_OK) {
            q3_framing(c, r.index, err.offset, err.msg);
            break;
        }
        if (!got)
            break;
        if (c->dump && zdem_cli_out.over)
            break; /* --max-output */
        q3_before(c, &fr);
        zdem_error_clear(&err);
        q3_after(c, &fr, zdem_q3_parse_message(c->p, &fr, &err), &err);
    }
    out->index = r.index;
    out->ended = r.ended;
    out->trailing = r.trailing;
}

/* --follow stops at the -1/-1 end marker. */
static int q3_ended(void *ps)
{
    return ((const zdem_q3_push *)ps)->ended;
}

/* Standard input through the push API: the same hooks around each message;
 * framing errors as the file reader words them. */
static void q3_read_stream(q3cli *c, const zdem_cli_file *f, q3_read *out)
{
    zdem_q3_push ps;
    zdem_error err;
    uint8_t *buf = malloc(ZDEM_CLI_PIECE);
    size_t n;
    memset(out, 0, sizeof *out);
    if (!buf) {
        set_failure(c, 0, "out of memory");
        return;
    }
    zdem_q3_push_init(&ps, c->p);
    ps.on_message = q3_before;
    ps.on_parsed = q3_after;
    ps.user = c;
    zdem_error_clear(&err);
    zdem_cli_follow_until(f, q3_ended, &ps);
    while (ps.failed == ZDEM_OK && !(c->dump && zdem_cli_out.over) &&
           (n = zdem_cli_read(f, buf, ZDEM_CLI_PIECE)) > 0)
        (void)zdem_q3_push_feed(&ps, buf, n, &err);
    free(buf);
    if (c->dump && zdem_cli_out.over) { /* --max-output: the rest not read */
        out->index = ps.index;
        out->ended = ps.ended;
        out->trailing = ps.trailing;
        return;
    }
    /* a read error is said by zdem_cli_read_error; a callback's stop
     * (ABORTED) needs nothing more */
    if (!f->in->error && ps.failed != ZDEM_ERR_ABORTED) {
        if (ps.failed == ZDEM_ERR_BAD_LENGTH)
            q3_framing(c, ps.index, ps.offset, "message length below 0 or above 16384");
        else if (ps.failed != ZDEM_OK)
            q3_framing(c, ps.index, ps.offset, err.msg ? err.msg : "stopped");
        else if (ps.in_body)
            q3_framing(c, ps.index, ps.offset, "message length runs past the end of the file");
        else if (ps.head_have != 0 && !ps.ended)
            q3_framing(c, ps.index, ps.offset, "file ends inside a message header");
        else if (!ps.ended)
            q3_framing(c, ps.index, ps.offset, "file ends without the -1/-1 end marker");
    }
    out->index = ps.index;
    out->ended = ps.ended;
    out->trailing = ps.trailing;
}

int zdem_cli_quake3(const zdem_cli_args *a, const zdem_cli_file *f)
{
    q3cli c;
    zdem_q3_callbacks cb;
    q3_read rd;
    zdem_error err;
    void *mem;
    zdem_q3_limits lim;
    size_t mem_size;
    int hint, i, rc = ZDEM_EXIT_OK, info = strcmp(a->command, "info") == 0;

    if (strcmp(a->command, "ticks") == 0)
        return zdem_cli_quake3_ticks(a, f);
    if (!info && strcmp(a->command, "events") != 0 && strcmp(a->command, "dump") != 0)
        return zdem_cli_unsupported(a, "quake3");
    if (strcmp(a->command, "dump") == 0 && a->type &&
        (rc = zdem_cli_check_names(f, "dump line type", dump_types,
                                   sizeof dump_types / sizeof dump_types[0], &a->type, 1, NULL)) != 0)
        return rc;
    if (strcmp(a->command, "events") == 0 &&
        (rc = zdem_cli_check_names(f, "event", event_types, sizeof event_types / sizeof event_types[0],
                                   a->names, a->nnames, NULL)) != 0)
        return rc;
    memset(&c, 0, sizeof c);
    memset(&rd, 0, sizeof rd);
    c.a = a;
    c.f = f;
    c.dump = strcmp(a->command, "dump") == 0;
    c.events = strcmp(a->command, "events") == 0;
    c.client_num = -1;
    memset(&cb, 0, sizeof cb);
    cb.gamestate = on_gamestate;
    cb.snapshot = on_snapshot;
    cb.server_command = on_command;
    cb.event = on_event;
    cb.warning = on_warning;
    zdem_error_clear(&err);

    hint = a->protocol ? a->protocol : f->in && !f->in->follow ? 0 : zdem_q3_protocol_from_path(f->path);
    /* --small: the microcontroller limits (ZDEM_Q3_LIMITS_SMALL) */
    if (a->small)
        zdem_q3_limits_small(&lim);
    else
        zdem_q3_limits_default(&lim);
    mem_size = zdem_q3_parser_size_for(&lim);
    mem = malloc(mem_size);
    if (!mem) {
        fprintf(stderr, "zdem: out of memory\n");
        return ZDEM_EXIT_BAD_INPUT;
    }
    /* The extension names the protocol (UberDemoTools does the same); an
     * unknown extension (or standard input) leaves it to the serverinfo. */
    c.p = hint ? zdem_q3_parser_init_limits(mem, mem_size, hint, &lim, &cb, &c, &err) : NULL;
    if (!c.p) {
        zdem_error_clear(&err);
        c.p = zdem_q3_parser_init_limits(mem, mem_size, 0, &lim, &cb, &c, &err);
    }
    if (!c.p)
        set_failure(&c, err.offset, err.msg ? err.msg : "cannot start the parser");
    else if (f->in)
        q3_read_stream(&c, f, &rd);
    else
        q3_read_file(&c, f, &rd);
    if (c.p && rd.trailing)
        add_warning(&c, "bytes after the end marker (ignored)", 1);
    if (c.p && zdem_q3_time_only_snapshot_count(c.p))
        add_warning(&c, "snapshots read to their header only (mod netfields unknown)",
                    (unsigned long)zdem_q3_time_only_snapshot_count(c.p));
    if (c.p && c.players_dirty) /* names sent after the last snapshot */
        update_players(&c, c.p);
    if (info)
        print_info(&c, c.p ? zdem_q3_protocol(c.p) : hint, &rd);
    (void)zdem_cli_out_report(f);
    if (c.skipped > Q3_SKIP_LINES)
        fprintf(stderr, "zdem: %s: warning: %lu more damaged messages skipped (%lu in all)\n",
                f->path, c.skipped - Q3_SKIP_LINES, c.skipped);
    rc = zdem_cli_read_error(f);
    if (rc == 0 && c.failed) {
        fflush(stdout);
        rc = zdem_cli_failf(f, c.fail_offset, c.fail_msg);
    }
    else if (rc == 0 && rd.trailing && !info)
        fprintf(stderr, "zdem: %s: offset %lu: %lu bytes after the end marker (ignored)\n",
                f->path, (unsigned long)(f->in ? f->in->got - rd.trailing : f->size - rd.trailing),
                (unsigned long)rd.trailing);
    for (i = 0; i < ZDEM_Q3_MAX_CONFIGSTRINGS; i++)
        free(c.cs[i]);
    for (i = 0; i < ZDEM_Q3_MAX_CLIENTS; i++)
        free(c.players[i]);
    free(mem);
    return rc;
}
