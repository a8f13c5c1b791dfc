/* zdem commands for Teeworlds / DDNet demos: info, dump, events, map
 * (the 0.7 protocol's players and events: cli_teeworlds7.c). */
#include "cli.h"
#include "cli_teeworlds.h"

#include <stdlib.h>
#include <string.h>
#include "teeworlds_push.h"
#include "teeworlds_reader.h"

/* ~350 KiB of decoder state: static, not on the stack. */
static zdem_tw_reader rd;
static uint32_t rd_mem[ZDEM_TW_READER_MEM(65536, 1024, 16384) / 4]; /* default limits */

#define MAX_CLIENTS ZDEM_CLI_TW_MAX_CLIENTS

static zdem_cli_tw_player players[MAX_CLIENTS];

/* Warnings by kind (static text) and the first fatal problem, shared by
 * every command: info prints them, the others print the error line. */
static struct { const char *kind; unsigned long count; } warns[16];
static int nwarns;
static int failed;
static zdem_error fail_err;

static void add_warning(const char *kind, unsigned long n)
{
    int i;
    for (i = 0; i < nwarns; i++)
        if (strcmp(warns[i].kind, kind) == 0) {
            warns[i].count += n;
            return;
        }
    if (nwarns < (int)(sizeof warns / sizeof warns[0])) {
        warns[nwarns].kind = kind;
        warns[nwarns].count = n;
        nwarns++;
    }
}

static void set_failure(const zdem_error *err)
{
    if (!failed) {
        failed = 1;
        fail_err = *err;
    }
}

/* Per-chunk warnings: the reader's own, unknown chunk kinds and messages. */
static void chunk_warnings(const zdem_tw_event *ev)
{
    if (ev->warning)
        add_warning(ev->warning, 1);
    if (ev->chunk.kind == ZDEM_TW_CHUNK_UNKNOWN)
        add_warning("chunks of unknown type (skipped)", 1);
    else if (ev->chunk.kind == ZDEM_TW_CHUNK_MESSAGE && ev->num_ints && !ev->desc)
        add_warning("messages not in the schema (kept raw)", 1);
}

/* Map checks once the whole map is there. */
static void map_warnings(const zdem_tw_demo_info *in, int crc_ok, int sha_ok)
{
    /* A mismatch is reported, not fatal: demo tools rewrite headers. */
    if (!crc_ok)
        add_warning("map CRC32 does not match the header", 1);
    if (in->has_sha256 && !sha_ok)
        add_warning("map SHA-256 does not match the header", 1);
}

static void json_view(FILE *o, zdem_tw_str s) { zdem_json_str(o, s.p, s.n); }

/* Names from the client-info items the last chunk wrote (every item of a
 * full snapshot): work follows the delta, not the snapshot it rebuilds,
 * and an item a delta left alone was seen when it was last written. */
static void track_players(const zdem_tw_snap *s)
{
    const uint16_t *w;
    int all;
    uint32_t n, k, it;
    if (rd.proto->version == 7) {
        zdem_cli_tw7_track(players, &rd, s);
        return;
    }
    n = zdem_tw_snap_written(&rd.snaps, &w, &all);
    if (all)
        n = s->num_items;
    it = zdem_tw_snap_first(s);
    for (k = 0; k < n; k++, it = all ? zdem_tw_snap_next(s, it) : it) {
        uint32_t i = all ? it : w[k];
        int id = zdem_tw_snap_id(s, i);
        zdem_tw_obj_client_info ci;
        if (id < 0 || id >= MAX_CLIENTS)
            continue;
        if (zdem_tw_snap_type(s, i) == ZDEM_TW_OBJ_PLAYER_INFO) {
            zdem_tw_obj_player_info pi;
            zdem_tw_obj_player_info_decode(zdem_tw_snap_data(s, i), s->len[i], &pi);
            players[id].has_team = 1;
            players[id].team = pi.team;
            continue;
        }
        if (zdem_tw_snap_type(s, i) != ZDEM_TW_OBJ_CLIENT_INFO)
            continue;
        zdem_tw_obj_client_info_decode(zdem_tw_snap_data(s, i), s->len[i], &ci);
        players[id].seen = 1;
        memcpy(players[id].name, ci.name, sizeof players[id].name);
        memcpy(players[id].clan, ci.clan, sizeof players[id].clan);
    }
}

static const char *player_name(int id)
{
    if (id < 0 || id >= MAX_CLIENTS || !players[id].seen)
        return NULL;
    return players[id].name;
}

static void hex(FILE *o, const uint8_t *d, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        fprintf(o, "%02x", d[i]);
}

static const char *kind_name(int k)
{
    switch (k) {
    case ZDEM_TW_CHUNK_SNAPSHOT: return "snapshot";
    case ZDEM_TW_CHUNK_MESSAGE: return "message";
    case ZDEM_TW_CHUNK_DELTA: return "delta";
    case ZDEM_TW_CHUNK_TICK: return "tick";
    default: return "unknown";
    }
}

/* Opens the demo: 0 ok, -1 the header is bad (nothing known), -2 the
 * header is fine but the map is cut (rd.info holds the header). */
static int small; /* --small */
static const zdem_tw_limits lim_small = ZDEM_TW_LIMITS_SMALL;

static int open_reader(const zdem_cli_file *f)
{
    zdem_error err;
    memset(players, 0, sizeof players);
    nwarns = 0;
    failed = 0;
    zdem_error_clear(&err);
    if (zdem_tw_reader_init(&rd, small ? &lim_small : NULL, rd_mem, sizeof rd_mem, &err) == ZDEM_OK &&
        zdem_tw_reader_open(&rd, f->data, f->size, &err) == ZDEM_OK) {
        if (rd.info.raw_num_markers != rd.info.num_timeline_markers)
            add_warning("timeline marker count outside 0..64 (clamped)", 1);
        return 0;
    }
    set_failure(&err);
    zdem_error_clear(&err);
    if (zdem_tw_demo_open_header(f->data, f->size, &rd.info, &err) != ZDEM_OK)
        return -1;
    return -2;
}

/* Exit status at the end of a command: the one error line, or 0. */
static int finish(const zdem_cli_file *f)
{
    int rc;
    if ((rc = zdem_cli_read_error(f)) != 0)
        return rc;
    if (failed)
        return zdem_cli_fail(f, &fail_err);
    return ZDEM_EXIT_OK;
}

/* ---- one pass over the chunks: the mapped file, or standard input ---- */

typedef int (*tw_handler)(void *user, const zdem_tw_event *ev);

/* Standard input: the push input's gathering buffer; the header's strings
 * copied (the buffer they point into is reused); the map's pieces for
 * `map` as they come. */
static zdem_tw_push twp;
static uint8_t tw_gather[ZDEM_TW_PUSH_BUFFER];
static char info_strs[4][512];
static FILE *map_out;
static const char *map_path;
static int map_write_failed;

static void keep_str(zdem_tw_str *s, char *buf, size_t cap)
{
    size_t n = s->n < cap ? s->n : cap;
    memcpy(buf, s->p, n);
    s->p = (const uint8_t *)buf;
    s->n = n;
}

static int keep_header(void *user, const zdem_tw_demo_info *in)
{
    zdem_tw_demo_info *info = &rd.info;
    (void)user;
    (void)in; /* it is rd.info */
    keep_str(&info->net_version, info_strs[0], sizeof info_strs[0]);
    keep_str(&info->map_name, info_strs[1], sizeof info_strs[1]);
    keep_str(&info->type, info_strs[2], sizeof info_strs[2]);
    keep_str(&info->timestamp, info_strs[3], sizeof info_strs[3]);
    if (info->raw_num_markers != info->num_timeline_markers)
        add_warning("timeline marker count outside 0..64 (clamped)", 1);
    if (map_path && !(map_out = fopen(map_path, "wb")))
        map_write_failed = 1;
    return 0;
}

static int map_piece(void *user, const uint8_t *p, size_t n)
{
    (void)user;
    if (map_out && fwrite(p, 1, n, map_out) != n)
        map_write_failed = 1;
    return 0;
}

/* Once the chunks are read: an unknown net version (read with the closest
 * protocol) and what did not fit the protocol, counted for info and, for
 * the other commands, one stderr line each (before any error line). */
static const char *warn_path; /* NULL: info (its output says it) */

static void protocol_warnings(void)
{
    if (!rd.proto)
        return;
    if (!rd.proto_known) {
        add_warning(rd.proto->version == 7 ? "net version not known (read as the 0.7 protocol)"
                                           : "net version not known (read as the 0.6 protocol)",
                    1);
        if (warn_path)
            fprintf(stderr, "zdem: %s: warning: net version '%.*s' not known: read as the %s protocol\n",
                    warn_path, (int)rd.info.net_version.n, (const char *)rd.info.net_version.p,
                    rd.proto->name);
    }
    if (rd.mismatches) {
        add_warning("snapshot items or messages that do not fit the protocol", rd.mismatches);
        if (warn_path)
            fprintf(stderr, "zdem: %s: offset %llu: warning: %lu snapshot items or messages that do "
                            "not fit the %s protocol (the first: %s)\n",
                    warn_path, (unsigned long long)rd.first_mismatch.offset,
                    (unsigned long)rd.mismatches, rd.proto->name,
                    rd.first_mismatch.msg ? rd.first_mismatch.msg : "?");
    }
}

/* The chunks of the opened file, each to fn (a nonzero return stops). */
static int tw_read_rest(tw_handler fn, void *user, int *crc_ok, int *sha_ok)
{
    zdem_error err;
    zdem_tw_event ev;
    int rc;
    zdem_error_clear(&err);
    while ((rc = zdem_tw_reader_next(&rd, &ev, &err)) == 1)
        if (fn(user, &ev))
            break;
    if (rc < 0)
        set_failure(&err);
    protocol_warnings();
    *crc_ok = zdem_tw_demo_map_crc_ok(&rd.info);
    *sha_ok = zdem_tw_demo_map_sha256_ok(&rd.info);
    return 0;
}

/* Reads the demo, each chunk to fn (a nonzero return stops). Returns 0,
 * -1 when the header is bad (nothing known), -2 when the header is fine
 * but the map is cut (rd.info holds the header); with 0, *crc_ok and
 * *sha_ok say whether the map matches the header. */
static int tw_read(const zdem_cli_file *f, tw_handler fn, void *user, int *crc_ok, int *sha_ok)
{
    zdem_error err;
    int opened;
    *crc_ok = *sha_ok = 0;
    if (!f->in) {
        if ((opened = open_reader(f)) != 0)
            return opened;
        return tw_read_rest(fn, user, crc_ok, sha_ok);
    }
    {
        uint8_t *buf = malloc(ZDEM_CLI_PIECE);
        zdem_status st = ZDEM_OK;
        size_t n;
        memset(players, 0, sizeof players);
        nwarns = 0;
        failed = 0;
        zdem_error_clear(&err);
        if (!buf || zdem_tw_reader_init(&rd, small ? &lim_small : NULL, rd_mem, sizeof rd_mem, &err) != ZDEM_OK) {
            if (!buf)
                zdem_fail(&err, ZDEM_ERR_NO_SPACE, 0, "out of memory");
            set_failure(&err);
            free(buf);
            return -1;
        }
        zdem_tw_push_init(&twp, &rd, tw_gather, small ? ZDEM_TW_PUSH_BUFFER_SMALL : sizeof tw_gather);
        twp.on_header = keep_header;
        twp.on_map = map_piece;
        twp.on_event = fn;
        twp.user = user;
        while (st == ZDEM_OK && (n = zdem_cli_read(f, buf, ZDEM_CLI_PIECE)) > 0)
            st = zdem_tw_push_feed(&twp, buf, n, &err);
        free(buf);
        if (st == ZDEM_OK && !f->in->error)
            st = zdem_tw_push_end(&twp, &err);
        if (st != ZDEM_OK && st != ZDEM_ERR_ABORTED)
            set_failure(&err);
        if (twp.phase > 0)
            protocol_warnings();
        if (map_out) {
            if (fclose(map_out) != 0)
                map_write_failed = 1;
            map_out = NULL;
            if (twp.phase < 2) /* a cut map is not written */
                remove(map_path);
        }
        if (twp.phase < 2)
            return twp.phase == 0 ? -1 : -2;
        *crc_ok = twp.map_crc_ok;
        *sha_ok = twp.map_sha256_ok;
        return 0;
    }
}

static void json_warnings_error(FILE *o)
{
    int i;
    fputs("\"warnings\":{", o);
    for (i = 0; i < nwarns; i++) {
        fputs(i ? "," : "", o);
        zdem_json_cstr(o, warns[i].kind);
        fprintf(o, ":%lu", warns[i].count);
    }
    fputs("},\"error\":", o);
    if (failed) {
        fprintf(o, "{\"offset\":%llu,\"message\":", (unsigned long long)fail_err.offset);
        zdem_json_cstr(o, fail_err.msg ? fail_err.msg : "error");
        fputc('}', o);
    } else {
        fputs("null", o);
    }
}

static void text_warnings_error(FILE *o)
{
    int i;
    for (i = 0; i < nwarns; i++)
        fprintf(o, "warning:     %s: %lu\n", warns[i].kind, warns[i].count);
    if (failed)
        fprintf(o, "error:       offset %llu: %s\n", (unsigned long long)fail_err.offset,
                fail_err.msg ? fail_err.msg : "error");
}

typedef struct info_counts {
    long long counts[5], keyframes, chat, kills, first, last, unknown_msgs;
    int have_tick;
} info_counts;

static int info_event(void *user, const zdem_tw_event *ev)
{
    info_counts *k = (info_counts *)user;
    k->counts[ev->chunk.kind]++;
    chunk_warnings(ev);
    if (ev->chunk.kind == ZDEM_TW_CHUNK_TICK) {
        if (!k->have_tick)
            k->first = ev->chunk.tick;
        k->have_tick = 1;
        k->last = ev->chunk.tick;
        k->keyframes += ev->chunk.keyframe;
    } else if (ev->chunk.kind == ZDEM_TW_CHUNK_MESSAGE && ev->num_ints) {
        int c = rd.proto->version == 7 ? zdem_cli_tw7_count_kind(ev) : 0;
        if (!ev->desc)
            k->unknown_msgs++;
        else if (c == 1 || (rd.proto->version != 7 && !ev->msg.sys && ev->msg.id == ZDEM_TW_MSG_SV_CHAT))
            k->chat++;
        else if (c == 2 || (rd.proto->version != 7 && !ev->msg.sys && ev->msg.id == ZDEM_TW_MSG_SV_KILL_MSG))
            k->kills++;
    } else if (ev->snap) {
        track_players(ev->snap);
    }
    return 0;
}

static int cmd_info(const zdem_cli_args *a, const zdem_cli_file *f)
{
    int crc_ok = 0, sha_ok = 0, i, opened;
    info_counts k;
    const zdem_tw_demo_info *in = &rd.info;
    FILE *o = stdout;
    const uint8_t *head = f->in ? f->in->head : f->data;
    size_t head_len = f->in ? f->in->head_len : f->size;
    memset(&k, 0, sizeof k);
    opened = tw_read(f, info_event, &k, &crc_ok, &sha_ok);
    if (opened == -1) {
        /* Nothing but the error: the header itself is bad. */
        if (a->json) {
            fputs("{\"format\":\"teeworlds\",\"version\":", o);
            if (head_len >= 8)
                fprintf(o, "%d,", head[7]);
            else
                fputs("null,", o);
            json_warnings_error(o);
            fputs("}\n", o);
        } else {
            fputs("format:      teeworlds\n", o);
            text_warnings_error(o);
        }
        return finish(f);
    }
    if (opened == 0)
        map_warnings(in, crc_ok, sha_ok);
    if (a->json) {
        fputs("{\"format\":\"teeworlds\",\"version\":", o);
        fprintf(o, "%d,\"net_version\":", in->version);
        json_view(o, in->net_version);
        fputs(",\"map_name\":", o);
        json_view(o, in->map_name);
        fprintf(o, ",\"map_size\":%lu,\"map_crc\":%lu,\"map_sha256\":", (unsigned long)in->map_size,
                (unsigned long)in->map_crc);
        if (in->has_sha256) {
            fputc('"', o);
            hex(o, in->map_sha256, 32);
            fputc('"', o);
        } else {
            fputs("null", o);
        }
        /* null: the map is cut, so it cannot be checked */
        if (opened == 0)
            fprintf(o, ",\"map_crc_ok\":%s,\"map_sha256_ok\":%s,\"type\":",
                    crc_ok ? "true" : "false",
                    in->has_sha256 ? (sha_ok ? "true" : "false") : "null");
        else
            fputs(",\"map_crc_ok\":null,\"map_sha256_ok\":null,\"type\":", o);
        json_view(o, in->type);
        fprintf(o, ",\"length\":%ld,\"timestamp\":", (long)in->length);
        json_view(o, in->timestamp);
        fputs(",\"timeline_markers\":[", o);
        for (i = 0; i < in->num_timeline_markers; i++)
            fprintf(o, "%s%ld", i ? "," : "", (long)in->timeline_markers[i]);
        fputs("],", o);
        if (k.have_tick)
            fprintf(o, "\"first_tick\":%lld,\"last_tick\":%lld,", k.first, k.last);
        else
            fputs("\"first_tick\":null,\"last_tick\":null,", o);
        fprintf(o, "\"tick_markers\":%lld,\"keyframes\":%lld,"
                   "\"chunks\":{\"snapshot\":%lld,\"message\":%lld,\"delta\":%lld},",
                k.counts[ZDEM_TW_CHUNK_TICK], k.keyframes, k.counts[ZDEM_TW_CHUNK_SNAPSHOT],
                k.counts[ZDEM_TW_CHUNK_MESSAGE], k.counts[ZDEM_TW_CHUNK_DELTA]);
        fprintf(o, "\"map_offset\":%lu,\"data_offset\":%lu,\"chat\":%lld,\"kills\":%lld,"
                   "\"unknown_messages\":%lld,\"players\":[",
                (unsigned long)in->map_offset, (unsigned long)in->data_offset, k.chat, k.kills,
                k.unknown_msgs);
        {
            int first_p = 1;
            for (i = 0; i < MAX_CLIENTS; i++) {
                if (!players[i].seen)
                    continue;
                /* one shape for every format: slot, name, team (null:
                 * no player_info item named it), then clan */
                fprintf(o, "%s{\"slot\":%d,\"name\":", first_p ? "" : ",", i);
                zdem_json_cstr(o, players[i].name);
                if (players[i].has_team)
                    fprintf(o, ",\"team\":%d", players[i].team);
                else
                    fputs(",\"team\":null", o);
                fputs(",\"clan\":", o);
                zdem_json_cstr(o, players[i].clan);
                if (players[i].has_skin) { /* 0.7: the client info's country and skin parts */
                    int j;
                    fprintf(o, ",\"country\":%ld,\"skin\":[", (long)players[i].country);
                    for (j = 0; j < 6; j++) {
                        fputs(j ? "," : "", o);
                        zdem_json_cstr(o, players[i].skin[j]);
                    }
                    fputc(']', o);
                }
                fputc('}', o);
                first_p = 0;
            }
        }
        fputs("],", o);
        json_warnings_error(o);
        fputs("}\n", o);
    } else {
        fprintf(o, "format:      teeworlds (TWDEMO v%d)\n", in->version);
        fprintf(o, "net version: %.*s\n", (int)in->net_version.n, (const char *)in->net_version.p);
        fprintf(o, "map:         %.*s (%lu bytes, crc %08lx %s", (int)in->map_name.n,
                (const char *)in->map_name.p, (unsigned long)in->map_size,
                (unsigned long)in->map_crc,
                opened != 0 ? "not checked: map cut" : crc_ok ? "ok" : "MISMATCH");
        if (in->has_sha256) {
            fputs(", sha256 ", o);
            hex(o, in->map_sha256, 32);
            fputs(opened != 0 ? "" : sha_ok ? " ok" : " MISMATCH", o);
        }
        fputs(")\n", o);
        fprintf(o, "type:        %.*s\n", (int)in->type.n, (const char *)in->type.p);
        fprintf(o, "recorded:    %.*s, length %ld s\n", (int)in->timestamp.n,
                (const char *)in->timestamp.p, (long)in->length);
        if (k.have_tick)
            fprintf(o, "ticks:       %lld..%lld (%lld markers, %lld keyframes)\n", k.first, k.last,
                    k.counts[ZDEM_TW_CHUNK_TICK], k.keyframes);
        fprintf(o, "chunks:      %lld snapshots, %lld deltas, %lld messages\n",
                k.counts[ZDEM_TW_CHUNK_SNAPSHOT], k.counts[ZDEM_TW_CHUNK_DELTA], k.counts[ZDEM_TW_CHUNK_MESSAGE]);
        fprintf(o, "events:      %lld chat lines, %lld kills\n", k.chat, k.kills);
        if (in->num_timeline_markers) {
            fputs("markers:    ", o);
            for (i = 0; i < in->num_timeline_markers; i++)
                fprintf(o, " %ld", (long)in->timeline_markers[i]);
            fputc('\n', o);
        }
        for (i = 0; i < MAX_CLIENTS; i++)
            if (players[i].seen)
                fprintf(o, "player %2d:   %s%s%s%s\n", i, players[i].name,
                        players[i].clan[0] ? " [" : "", players[i].clan,
                        players[i].clan[0] ? "]" : "");
        text_warnings_error(o);
    }
    return finish(f);
}

static void json_name_field(FILE *o, const char *key, int id)
{
    const char *n = player_name(id);
    if (!n)
        return;
    fprintf(o, ",\"%s\":", key);
    zdem_json_cstr(o, n);
}


static int events_event(void *user, const zdem_tw_event *evp)
{
    const zdem_cli_args *a = (const zdem_cli_args *)user;
    const zdem_tw_event *ev = evp;
    FILE *o = stdout;
    {
        const zdem_tw_msg *m = &ev->msg;
        long tick = (long)ev->chunk.tick;
        if (ev->snap) {
            track_players(ev->snap);
            return 0;
        }
        if (rd.proto->version == 7)
            return zdem_cli_tw7_event(o, a, players, ev);
        if (ev->chunk.kind != ZDEM_TW_CHUNK_MESSAGE || !ev->desc || m->sys)
            return 0;
        if (m->id == ZDEM_TW_MSG_SV_CHAT) {
            zdem_tw_game_sv_chat c;
            if (zdem_tw_game_sv_chat_decode(m->body, m->body_len, &c) != ZDEM_OK ||
                !zdem_cli_name_wanted(a, NULL, 0, "chat"))
                return 0;
            fprintf(o, "{\"type\":\"chat\",\"tick\":%ld,\"team\":%ld,\"client_id\":%ld", tick,
                    (long)c.team, (long)c.client_id);
            json_name_field(o, "name", c.client_id);
            fputs(",\"text\":", o);
            json_view(o, c.message);
            fputs("}\n", o);
        } else if (m->id == ZDEM_TW_MSG_SV_KILL_MSG) {
            zdem_tw_game_sv_kill_msg k;
            if (zdem_tw_game_sv_kill_msg_decode(m->body, m->body_len, &k) != ZDEM_OK ||
                !zdem_cli_name_wanted(a, NULL, 0, "kill"))
                return 0;
            fprintf(o, "{\"type\":\"kill\",\"tick\":%ld,\"killer\":%ld,\"victim\":%ld,"
                       "\"weapon\":%ld,\"mode_special\":%ld",
                    tick, (long)k.killer, (long)k.victim, (long)k.weapon, (long)k.mode_special);
            json_name_field(o, "killer_name", k.killer);
            json_name_field(o, "victim_name", k.victim);
            fputs("}\n", o);
        } else if (m->id == ZDEM_TW_MSG_SV_BROADCAST || m->id == ZDEM_TW_MSG_SV_MOTD) {
            zdem_tw_game_sv_broadcast b; /* same layout as motd: one string */
            if (zdem_tw_game_sv_broadcast_decode(m->body, m->body_len, &b) != ZDEM_OK ||
                !zdem_cli_name_wanted(a, NULL, 0, m->id == ZDEM_TW_MSG_SV_MOTD ? "motd" : "broadcast"))
                return 0;
            fprintf(o, "{\"type\":\"%s\",\"tick\":%ld,\"text\":",
                    m->id == ZDEM_TW_MSG_SV_MOTD ? "motd" : "broadcast", tick);
            json_view(o, b.message);
            fputs("}\n", o);
        } else if (m->id == ZDEM_TW_MSG_SV_EMOTICON) {
            zdem_tw_game_sv_emoticon e;
            if (zdem_tw_game_sv_emoticon_decode(m->body, m->body_len, &e) != ZDEM_OK ||
                !zdem_cli_name_wanted(a, NULL, 0, "emoticon"))
                return 0;
            fprintf(o, "{\"type\":\"emoticon\",\"tick\":%ld,\"client_id\":%ld,\"emoticon\":%ld",
                    tick, (long)e.client_id, (long)e.emoticon);
            json_name_field(o, "name", e.client_id);
            fputs("}\n", o);
        } else if (m->id == ZDEM_TW_MSG_SV_VOTE_SET) {
            zdem_tw_game_sv_vote_set v;
            if (zdem_tw_game_sv_vote_set_decode(m->body, m->body_len, &v) != ZDEM_OK ||
                !zdem_cli_name_wanted(a, NULL, 0, "vote"))
                return 0;
            fprintf(o, "{\"type\":\"vote\",\"tick\":%ld,\"timeout\":%ld,\"description\":", tick,
                    (long)v.timeout);
            json_view(o, v.description);
            fputs(",\"reason\":", o);
            json_view(o, v.reason);
            fputs("}\n", o);
        }
    }
    return 0;
}

static int cmd_events(const zdem_cli_args *a, const zdem_cli_file *f)
{
    int crc_ok, sha_ok, rc;
    if ((rc = zdem_cli_check_names(f, "event", zdem_cli_tw_event_types, zdem_cli_tw_num_event_types,
                                   a->names, a->nnames, NULL)) != 0)
        return rc;
    (void)tw_read(f, events_event, (void *)a, &crc_ok, &sha_ok);
    return finish(f);
}

static void msg_label(const zdem_tw_event *ev, char *out, size_t cap)
{
    if (ev->desc)
        snprintf(out, cap, "%s", ev->desc->name);
    else if (ev->msg.id == 0) {
        static const char *hx = "0123456789abcdef";
        size_t i, k = 0;
        k += (size_t)snprintf(out, cap, "uuid:");
        for (i = 0; i < 16 && k + 2 < cap; i++) {
            out[k++] = hx[ev->msg.uuid[i] >> 4];
            out[k++] = hx[ev->msg.uuid[i] & 15];
        }
        out[k < cap ? k : cap - 1] = 0;
    } else
        snprintf(out, cap, "%s_%d", ev->msg.sys ? "sys" : "game", ev->msg.id);
}

/* --type NAME: a chunk kind, a message name, or a numeric message id. */
static int type_matches(const char *t, const zdem_tw_event *ev, const char *label)
{
    char num[16];
    if (!t)
        return 1;
    if (strcmp(t, kind_name(ev->chunk.kind)) == 0)
        return 1;
    if (ev->chunk.kind != ZDEM_TW_CHUNK_MESSAGE || ev->num_ints == 0)
        return 0;
    snprintf(num, sizeof num, "%d", ev->msg.id);
    return strcmp(t, label) == 0 || strcmp(t, num) == 0;
}

typedef struct dump_ctx {
    const zdem_cli_args *a;
    unsigned long long index;
} dump_ctx;

static int dump_event(void *user, const zdem_tw_event *evp)
{
    dump_ctx *dc = (dump_ctx *)user;
    const zdem_cli_args *a = dc->a;
    const zdem_tw_event *ev = evp;
    FILE *o = stdout;
    char label[64];
    unsigned long long index = dc->index++;
    long n = 0;
    const zdem_tw_chunk *c = &ev->chunk;
    label[0] = 0;
    if (c->kind == ZDEM_TW_CHUNK_MESSAGE && ev->num_ints)
        msg_label(ev, label, sizeof label);
    if (!type_matches(a->type, ev, label))
        return 0;
    if (zdem_cli_out.over)
        return 1; /* --max-output: the reading stops */
    if (a->json) {
        n += fprintf(o, "{\"index\":%llu,\"offset\":%lu,\"tick\":%ld,\"kind\":\"%s\"", index,
                     (unsigned long)c->offset, (long)c->tick, kind_name(c->kind));
        if (c->kind == ZDEM_TW_CHUNK_TICK)
            n += fprintf(o, ",\"keyframe\":%s,\"inline\":%s", c->keyframe ? "true" : "false",
                         c->inline_tick ? "true" : "false");
        else
            n += fprintf(o, ",\"size\":%lu,\"ints\":%lu", (unsigned long)c->size,
                         (unsigned long)ev->num_ints);
        if (c->kind == ZDEM_TW_CHUNK_MESSAGE && ev->num_ints) {
            n += fprintf(o, ",\"sys\":%s,\"id\":%d,\"name\":", ev->msg.sys ? "true" : "false",
                         ev->msg.id);
            zdem_json_cstr(o, label);
        }
        if (ev->snap)
            n += fprintf(o, ",\"items\":%lu", (unsigned long)ev->snap->num_items);
        if (ev->warning) {
            fputs(",\"warning\":", o);
            zdem_json_cstr(o, ev->warning);
        }
        fputs("}\n", o);
    } else {
        n += fprintf(o, "%6llu %9lu tick %-9ld %-8s", index, (unsigned long)c->offset,
                     (long)c->tick, kind_name(c->kind));
        if (c->kind == ZDEM_TW_CHUNK_TICK)
            n += fprintf(o, "%s", c->keyframe ? " keyframe" : "");
        else
            n += fprintf(o, " %5lu bytes", (unsigned long)c->size);
        if (label[0])
            n += fprintf(o, " %s%s", ev->msg.sys ? "sys:" : "", label);
        if (ev->snap)
            n += fprintf(o, " %lu items", (unsigned long)ev->snap->num_items);
        if (ev->warning)
            n += fprintf(o, " (warning: %s)", ev->warning);
        fputc('\n', o);
    }
    /* strings (names, warnings) are not counted: the bound is about
     * output the input did not pay for, and they come from the input */
    (void)zdem_cli_out_bytes(n > 0 ? (uint64_t)n + 1u : 1u);
    return 0;
}

/* --type: a chunk kind, a message name of the schema, a number, or the
 * label of a message the schema does not know (sys_N, game_N, uuid:...). */
static int dump_type_check(const zdem_cli_args *a, const zdem_cli_file *f)
{
    const char *t = a->type, *names[ZDEM_TW_NUM_MSG_DESCS + ZDEM_TW7_NUM_MSG_DESCS + 5];
    size_t n = 0, i;
    const zdem_tw_protocol *p = NULL;
    int known;
    if (!t || (*t >= '0' && *t <= '9' && strspn(t, "0123456789") == strlen(t)) ||
        strncmp(t, "uuid:", 5) == 0 ||
        (strncmp(t, "sys_", 4) == 0 && t[4] && strspn(t + 4, "0123456789") == strlen(t + 4)) ||
        (strncmp(t, "game_", 5) == 0 && t[5] && strspn(t + 5, "0123456789") == strlen(t + 5)))
        return 0;
    if (f->data && f->size >= 8 + 64) { /* the file's protocol (standard input: either) */
        zdem_tw_str nv;
        const uint8_t *z = memchr(f->data + 8, 0, 64);
        nv.p = f->data + 8;
        nv.n = z ? (size_t)(z - nv.p) : 64;
        p = zdem_tw_protocol_select(nv, &known);
    }
    for (i = 0; i <= ZDEM_TW_CHUNK_TICK; i++)
        names[n++] = kind_name((int)i);
    for (i = 0; i < ZDEM_TW_NUM_MSG_DESCS; i++) /* 0.6, and DDNet's UUID messages of both */
        if (zdem_tw_msg_descs[i].name && (!p || p->version == 6 || zdem_tw_msg_descs[i].id == 0))
            names[n++] = zdem_tw_msg_descs[i].name;
    for (i = 0; i < ZDEM_TW7_NUM_MSG_DESCS; i++)
        if (!p || p->version == 7)
            names[n++] = zdem_tw7_msg_descs[i].name;
    return zdem_cli_check_names(f, "message type", names, n, &t, 1, NULL);
}

static int cmd_dump(const zdem_cli_args *a, const zdem_cli_file *f)
{
    dump_ctx dc;
    int crc_ok, sha_ok, rc;
    if ((rc = dump_type_check(a, f)) != 0)
        return rc;
    dc.a = a;
    dc.index = 0;
    (void)tw_read(f, dump_event, &dc, &crc_ok, &sha_ok);
    (void)zdem_cli_out_report(f);
    return finish(f);
}

static int no_event(void *user, const zdem_tw_event *ev)
{
    (void)user;
    (void)ev;
    return 0;
}

static int cmd_map(const zdem_cli_args *a, const zdem_cli_file *f)
{
    int crc_ok, sha_ok, opened;
    FILE *out;
    if (!a->out) {
        fprintf(stderr, "zdem: map needs -o OUT.map\n");
        return ZDEM_EXIT_USAGE;
    }
    if (f->in) {
        /* standard input: the map is written as it arrives (from the
         * header on), removed again if it is cut */
        map_path = a->out;
        map_write_failed = 0;
        opened = tw_read(f, no_event, NULL, &crc_ok, &sha_ok);
        map_path = NULL;
        if (map_write_failed) {
            fprintf(stderr, "zdem: %s: write failed\n", a->out);
            return ZDEM_EXIT_BAD_INPUT;
        }
    } else {
        if (open_reader(f) != 0)
            return finish(f); /* no map, or a cut one: nothing is written */
        out = fopen(a->out, "wb");
        if (!out) {
            perror("zdem: map");
            return ZDEM_EXIT_USAGE;
        }
        if (fwrite(rd.info.map, 1, rd.info.map_size, out) != rd.info.map_size || fclose(out) != 0) {
            fprintf(stderr, "zdem: %s: write failed\n", a->out);
            return ZDEM_EXIT_BAD_INPUT;
        }
        /* The rest of the file too: a damaged demo is exit 2 for every
         * command, not only for those that print its chunks. */
        opened = tw_read_rest(no_event, NULL, &crc_ok, &sha_ok);
    }
    if (opened != 0)
        return finish(f);
    map_warnings(&rd.info, crc_ok, sha_ok);
    if (!failed && !crc_ok) /* stderr of a damaged file is its error line only */
        fprintf(stderr, "zdem: %s: warning: map CRC32 does not match the header\n", f->path);
    return finish(f);
}

int zdem_cli_teeworlds(const zdem_cli_args *a, const zdem_cli_file *f)
{
    small = a->small;
    warn_path = strcmp(a->command, "info") == 0 ? NULL : f->path;
    if (strcmp(a->command, "info") == 0)
        return cmd_info(a, f);
    if (strcmp(a->command, "events") == 0)
        return cmd_events(a, f);
    if (strcmp(a->command, "dump") == 0)
        return cmd_dump(a, f);
    if (strcmp(a->command, "ticks") == 0)
        return zdem_cli_teeworlds_ticks(a, f);
    if (strcmp(a->command, "map") == 0)
        return cmd_map(a, f);
    return zdem_cli_unsupported(a, "teeworlds");
}
