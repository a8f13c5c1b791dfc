/* zdem info / dump for Source 2 demos (events and entities are in
 * cli_source2_state.c). Every command is one forward pass over the file;
 * on damage it prints what it decoded, then the error, and exits 2. */
#include "cli.h"
#include "cli_source2_state.h"
#include "cli_live.h"

#include <stdlib.h>
#include <string.h>

#include "source2_demo.h"
#include "zdem_near.h"
#include "source2_parse.h"
#include "source2_dispatch.h"
#include "source2_ids.h"
#include "source2_pb.h"

/* A string of the file header, copied: the payload it came from is gone
 * once the next frame decompresses. */
typedef struct copied {
    char *p;
    size_t n;
    int has;
} copied;

enum { FH_MAP, FH_SERVER, FH_CLIENT, FH_GAMEDIR, FH_STAMP, FH_VERSION, FH_COUNT };

typedef struct s2_summary {
    copied fh[FH_COUNT];
    int have_fh, have_fi;
    long network_protocol, build_num;
    long playback_ticks, playback_frames;
    double playback_time;
    zdem_s2_game game;
    uint32_t outer, compressed;
    uint32_t cmd_count[64];
    uint32_t unknown_cmds;
    int64_t first_tick, last_tick, max_tick;
} s2_summary;

static void copy_view(copied *c, const zdem_view *v, int has)
{
    c->has = has;
    c->n = has ? v->len : 0;
    c->p = malloc(c->n + 1);
    if (!c->p) {
        c->has = 0;
        c->n = 0;
        return;
    }
    if (c->n)
        memcpy(c->p, v->ptr, c->n);
    c->p[c->n] = 0;
}

static zdem_status on_frame(void *user, zdem_s2_state *st, const zdem_s2_outer *m,
                            const uint8_t *p, size_t n)
{
    s2_summary *s = (s2_summary *)user;
    zdem_error ignore;
    (void)st;
    if (s->outer == 0)
        s->first_tick = m->tick;
    s->outer++;
    s->compressed += m->compressed ? 1u : 0u;
    if (m->cmd < 64)
        s->cmd_count[m->cmd]++;
    else
        s->unknown_cmds++;
    if (m->tick >= 0) {
        s->last_tick = m->tick; /* last in stream order: POV demos rewind at SyncTick */
        if (m->tick > s->max_tick)
            s->max_tick = m->tick;
    }
    zdem_error_clear(&ignore);
    /* a header that does not decode keeps what came before the error (the
     * state layer reports the damage) */
    if (p && m->cmd == ZDEM_S2_DEM_FILEHEADER && !s->have_fh) {
        zdem_pb_CDemoFileHeader fh;
        (void)zdem_pb_CDemoFileHeader_decode(p, n, &fh, NULL, NULL, &ignore);
        copy_view(&s->fh[FH_MAP], &fh.map_name, fh.has_map_name);
        copy_view(&s->fh[FH_SERVER], &fh.server_name, fh.has_server_name);
        copy_view(&s->fh[FH_CLIENT], &fh.client_name, fh.has_client_name);
        copy_view(&s->fh[FH_GAMEDIR], &fh.game_directory, fh.has_game_directory);
        copy_view(&s->fh[FH_STAMP], &fh.demo_file_stamp, fh.has_demo_file_stamp);
        copy_view(&s->fh[FH_VERSION], &fh.demo_version_name, fh.has_demo_version_name);
        s->network_protocol = (long)fh.network_protocol;
        s->build_num = (long)fh.build_num;
        s->game = fh.has_game_directory
                      ? zdem_s2_game_from_dir(fh.game_directory.ptr, fh.game_directory.len)
                      : ZDEM_S2_GAME_UNKNOWN;
        s->have_fh = 1;
    }
    if (p && m->cmd == ZDEM_S2_DEM_FILEINFO && !s->have_fi) {
        zdem_pb_CDemoFileInfo fi;
        (void)zdem_pb_CDemoFileInfo_decode(p, n, &fi, NULL, NULL, &ignore);
        s->playback_ticks = (long)fi.playback_ticks;
        s->playback_frames = (long)fi.playback_frames;
        s->playback_time = (double)fi.playback_time;
        s->have_fi = 1;
    }
    return ZDEM_OK;
}

static void free_summary(s2_summary *s)
{
    int i;
    for (i = 0; i < FH_COUNT; i++)
        free(s->fh[i].p);
}

static void json_copied(FILE *o, const char *key, const copied *c)
{
    fprintf(o, ",\"%s\":", key);
    if (c->has)
        zdem_json_str(o, (const uint8_t *)c->p, c->n);
    else
        fputs("null", o);
}

static void print_cmd_name(FILE *o, uint32_t id)
{
    const char *n = zdem_s2_demo_cmd_name(id);
    if (n)
        fputs(n, o);
    else
        fprintf(o, "DEM_%u", id);
}

/* One shape for every format: slot, name, team, then steamid (null when
 * the source has none). */
static int print_player(void *user, const zdem_s2_player_entry *p)
{
    FILE *o = ((FILE **)user)[0];
    int *n = (int *)((FILE **)user)[1];
    if (p->slot >= 0)
        fprintf(o, "%s{\"slot\":%ld,\"name\":", (*n)++ ? "," : "", (long)p->slot);
    else
        fprintf(o, "%s{\"slot\":null,\"name\":", (*n)++ ? "," : "");
    zdem_json_str(o, p->name, p->name_len);
    if (p->has_team)
        fprintf(o, ",\"team\":%lld", (long long)p->team);
    else
        fputs(",\"team\":null", o);
    if (p->has_steamid)
        fprintf(o, ",\"steamid\":%llu}", (unsigned long long)p->steamid);
    else
        fputs(",\"steamid\":null}", o);
    return 0;
}

static int print_player_text(void *user, const uint8_t *name, uint32_t len)
{
    fprintf((FILE *)user, "  %.*s\n", (int)len, (const char *)name);
    return 0;
}

static void info_json(FILE *o, const s2_summary *s, zdem_s2_state *st, const zdem_error *err,
                      uint32_t *tmp, uint32_t cap)
{
    uint32_t i, n;
    int first = 1, np = 0;
    void *pp[2];
    fprintf(o, "{\"format\":\"source2\",\"game\":\"%s\"", zdem_s2_game_name(s->game));
    json_copied(o, "map_name", &s->fh[FH_MAP]);
    json_copied(o, "server_name", &s->fh[FH_SERVER]);
    json_copied(o, "client_name", &s->fh[FH_CLIENT]);
    json_copied(o, "game_directory", &s->fh[FH_GAMEDIR]);
    json_copied(o, "demo_file_stamp", &s->fh[FH_STAMP]);
    json_copied(o, "demo_version_name", &s->fh[FH_VERSION]);
    if (s->have_fh)
        fprintf(o, ",\"network_protocol\":%ld,\"build_num\":%ld", s->network_protocol, s->build_num);
    else
        fputs(",\"network_protocol\":null,\"build_num\":null", o);
    fprintf(o, ",\"fileinfo_offset\":%lu,\"spawngroups_offset\":%lu",
            (unsigned long)zdem_s2_state_header(st)->fileinfo_offset,
            (unsigned long)zdem_s2_state_header(st)->spawngroups_offset);
    if (s->have_fi)
        fprintf(o, ",\"playback_ticks\":%ld,\"playback_frames\":%ld,\"playback_time\":%.4f",
                s->playback_ticks, s->playback_frames, s->playback_time);
    else /* no DEM_FileInfo: a demo cut short or still being written */
        fputs(",\"playback_ticks\":null,\"playback_frames\":null,\"playback_time\":null", o);
    fprintf(o, ",\"outer_messages\":%lu,\"compressed_messages\":%lu", (unsigned long)s->outer,
            (unsigned long)s->compressed);
    fputs(",\"commands\":{", o);
    for (i = 0; i < 64; i++) {
        if (!s->cmd_count[i])
            continue;
        fputs(first ? "\"" : ",\"", o);
        first = 0;
        print_cmd_name(o, i);
        fprintf(o, "\":%lu", (unsigned long)s->cmd_count[i]);
    }
    fputs("}", o);
    if (s->unknown_cmds)
        fprintf(o, ",\"unknown_commands\":%lu", (unsigned long)s->unknown_cmds);
    fprintf(o, ",\"first_tick\":%lld,\"last_tick\":%lld,\"max_tick\":%lld",
            (long long)s->first_tick, (long long)s->last_tick, (long long)s->max_tick);
    fprintf(o, ",\"entity_classes\":%u,\"serializers\":%u,\"string_tables\":{",
            zdem_s2_class_count(st), zdem_s2_serializer_count(st));
    n = zdem_s2_string_table_count(st);
    for (i = 0; i < n; i++) {
        uint32_t entries = 0, len = 0;
        const char *name = zdem_s2_string_table_name(st, i, &len);
        zdem_s2_string_table_info(st, i, &entries);
        if (i)
            fputs(",", o);
        zdem_json_str(o, (const uint8_t *)name, len);
        fprintf(o, ":%u", entries);
    }
    fprintf(o, "},\"entities_at_end\":%u,\"players\":[", zdem_s2_entity_count(st));
    pp[0] = o;
    pp[1] = &np;
    zdem_s2_player_list(st, print_player, pp, tmp, cap);
    fputc(']', o);
    zdem_cli_s2_warnings_json(o, zdem_s2_state_warnings(st));
    if (err->code != ZDEM_OK)
        zdem_cli_error_json(o, err);
    fputs("}\n", o);
}

static void info_text(FILE *o, const s2_summary *s, zdem_s2_state *st, const zdem_error *err,
                      uint32_t *tmp, uint32_t cap)
{
    uint32_t i;
    fprintf(o, "format:            source2 (%s)\n", zdem_s2_game_name(s->game));
    fprintf(o, "map:               %s\n", s->fh[FH_MAP].has ? s->fh[FH_MAP].p : "");
    fprintf(o, "server:            %s\n", s->fh[FH_SERVER].has ? s->fh[FH_SERVER].p : "");
    fprintf(o, "client:            %s\n", s->fh[FH_CLIENT].has ? s->fh[FH_CLIENT].p : "");
    fprintf(o, "network protocol:  %ld\n", s->network_protocol);
    fprintf(o, "build:             %ld\n", s->build_num);
    if (s->have_fi)
        fprintf(o, "playback:          %ld ticks, %ld frames, %.3f s\n", s->playback_ticks,
                s->playback_frames, s->playback_time);
    else
        fputs("playback:          unknown (no DEM_FileInfo)\n", o);
    fprintf(o, "outer messages:    %lu (%lu compressed)\n", (unsigned long)s->outer,
            (unsigned long)s->compressed);
    fprintf(o, "ticks:             first %lld, last %lld\n", (long long)s->first_tick,
            (long long)s->last_tick);
    for (i = 0; i < 64; i++)
        if (s->cmd_count[i]) {
            fputs("  ", o);
            print_cmd_name(o, i);
            fprintf(o, ": %lu\n", (unsigned long)s->cmd_count[i]);
        }
    fprintf(o, "classes:           %u (%u serializers)\n", zdem_s2_class_count(st),
            zdem_s2_serializer_count(st));
    fprintf(o, "string tables:     %u\n", zdem_s2_string_table_count(st));
    fprintf(o, "entities at end:   %u\n", zdem_s2_entity_count(st));
    fputs("players:\n", o);
    zdem_s2_players(st, print_player_text, o, tmp, cap);
    zdem_cli_s2_warnings_text(o, zdem_s2_state_warnings(st));
    if (err->code != ZDEM_OK) {
        fputs("error:             ", o);
        zdem_cli_where(o, err);
        fprintf(o, ": %s\n", err->msg ? err->msg : "error");
    }
}

static int info(const zdem_cli_args *a, const zdem_cli_file *f)
{
    s2_summary s;
    zdem_s2_config cfg;
    zdem_cli_s2_run r;
    uint32_t *tmp;
    const uint32_t cap = 1u << 16;
    int rc;

    memset(&s, 0, sizeof s);
    s.first_tick = s.last_tick = s.max_tick = -1;
    zdem_s2_config_default(&cfg);
    cfg.skip_events = 1;
    cfg.on_frame = on_frame;
    cfg.frame_payloads = (1u << ZDEM_S2_DEM_FILEHEADER) | (1u << ZDEM_S2_DEM_FILEINFO);
    cfg.user = &s;
    if ((rc = zdem_cli_s2_open(&r, a, f, &cfg)) != 0)
        return rc;
    tmp = malloc(sizeof(uint32_t) * cap);
    if (!tmp) {
        zdem_cli_s2_close(&r);
        return zdem_cli_failf(f, 0, "out of memory");
    }
    zdem_cli_s2_go(&r, f, -1, 0);
    if (f->live && !s.fh[FH_MAP].has) { /* a broadcast: its sync names the map */
        zdem_view v;
        uint32_t n;
        if ((v.ptr = (const uint8_t *)zdem_cli_live_map(&n)) != NULL) {
            v.len = n;
            copy_view(&s.fh[FH_MAP], &v, 1);
        }
    }
    if (a->json)
        info_json(stdout, &s, r.s, &r.err, tmp, cap);
    else
        info_text(stdout, &s, r.s, &r.err, tmp, cap);
    free(tmp);
    free_summary(&s);
    rc = zdem_cli_s2_report(&r, f);
    zdem_cli_s2_close(&r);
    return rc;
}

/* ---- dump ------------------------------------------------------------------ */

static int name_matches(const char *filter, const char *name, uint32_t id)
{
    char num[16];
    if (!filter)
        return 1;
    if (name && strcmp(filter, name) == 0)
        return 1;
    snprintf(num, sizeof num, "%lu", (unsigned long)id);
    return strcmp(filter, num) == 0;
}

/* Past --max-output a callback stops the run (see dump). */
static zdem_status dump_outer(void *user, const zdem_s2_outer *m)
{
    const zdem_cli_args *a = user;
    const char *name = zdem_s2_demo_cmd_name(m->cmd);
    char buf[32];
    int n;
    if (!name_matches(a->type, name, m->cmd))
        return ZDEM_OK;
    if (!name) {
        snprintf(buf, sizeof buf, "DEM_%lu", (unsigned long)m->cmd);
        name = buf;
    }
    if (zdem_cli_out.over)
        return ZDEM_ERR_ABORTED;
    if (a->json)
        n = printf("{\"kind\":\"outer\",\"index\":%lu,\"offset\":%llu,\"tick\":%lld,"
               "\"id\":%lu,\"name\":\"%s\",\"size\":%lu,\"compressed\":%s}\n",
               (unsigned long)m->index, (unsigned long long)m->offset,
               (long long)m->tick, (unsigned long)m->cmd, name,
               (unsigned long)m->stored_size, m->compressed ? "true" : "false");
    else
        n = printf("%6lu  off %-9llu tick %-7lld id %-4lu %-36s %lu%s\n",
               (unsigned long)m->index, (unsigned long long)m->offset,
               (long long)m->tick, (unsigned long)m->cmd, name,
               (unsigned long)m->stored_size, m->compressed ? " (snappy)" : "");
    (void)zdem_cli_out_bytes(n > 0 ? (uint64_t)n : 0u);
    return ZDEM_OK;
}

static zdem_status dump_inner(void *user, zdem_s2_game game, const zdem_s2_outer *o,
                              const zdem_s2_inner *m)
{
    const zdem_cli_args *a = user;
    const char *name = zdem_s2_inner_msg_name(game, m->type);
    char buf[32];
    int n;
    if (!name_matches(a->type, name, m->type))
        return ZDEM_OK;
    if (!name) {
        snprintf(buf, sizeof buf, "unknown_%lu", (unsigned long)m->type);
        name = buf;
    }
    if (zdem_cli_out.over)
        return ZDEM_ERR_ABORTED;
    if (a->json)
        n = printf("{\"kind\":\"inner\",\"outer\":%lu,\"index\":%lu,\"bit_offset\":%llu,"
               "\"tick\":%lld,\"id\":%lu,\"name\":\"%s\",\"size\":%lu}\n",
               (unsigned long)o->index, (unsigned long)m->index,
               (unsigned long long)m->bit_offset, (long long)o->tick,
               (unsigned long)m->type, name, (unsigned long)m->size);
    else
        n = printf("%6lu.%-4lu bit %-9llu tick %-7lld id %-4lu %-36s %lu\n",
               (unsigned long)o->index, (unsigned long)m->index,
               (unsigned long long)m->bit_offset, (long long)o->tick,
               (unsigned long)m->type, name, (unsigned long)m->size);
    (void)zdem_cli_out_bytes(n > 0 ? (uint64_t)n : 0u);
    return ZDEM_OK;
}

/* Message ids the generated tables name (the largest is below 1024). */
#define DUMP_MAX_ID 1024u

/* --type: a number, or a command or message name of some game; else the
 * closest names. */
static int dump_type_check(const zdem_cli_args *a, const zdem_cli_file *f)
{
    static const zdem_s2_game games[] = {ZDEM_S2_GAME_UNKNOWN, ZDEM_S2_GAME_DOTA2,
                                         ZDEM_S2_GAME_CS2, ZDEM_S2_GAME_DEADLOCK};
    const char *t = a->type, *n;
    zdem_near nr;
    char msg[320];
    uint32_t id, g;
    int pass;
    if (!t || (*t >= '0' && *t <= '9' && strspn(t, "0123456789") == strlen(t)))
        return 0;
    zdem_near_init(&nr, t, strlen(t));
    for (pass = 0; pass < 2; pass++) /* 0: is it one, 1: the closest */
        for (id = 0; id < DUMP_MAX_ID; id++) {
            if ((n = zdem_s2_demo_cmd_name(id)) != NULL) {
                if (!pass && strcmp(n, t) == 0)
                    return 0;
                if (pass)
                    zdem_near_offer(&nr, n, strlen(n));
            }
            for (g = 0; g < sizeof games / sizeof games[0]; g++)
                if ((n = zdem_s2_inner_msg_name(games[g], id)) != NULL) {
                    if (!pass && strcmp(n, t) == 0)
                        return 0;
                    if (pass)
                        zdem_near_offer(&nr, n, strlen(n));
                }
        }
    zdem_near_message(&nr, "message type", msg, sizeof msg);
    return zdem_cli_unknown(f, msg, NULL);
}

/* --follow stops at the demo's end. */
static int s2_push_complete(void *push)
{
    return zdem_s2_push_complete((const zdem_s2_push *)push);
}

static int dump(const zdem_cli_args *a, const zdem_cli_file *f)
{
    zdem_s2_parse_cbs cbs;
    zdem_s2_parser p;
    zdem_error err;
    uint8_t *scratch, *gather = NULL;
    size_t cap = (size_t)(a->frame_mib ? a->frame_mib : ZDEM_CLI_S2_FRAME_MIB) << 21;
    int rc;

    if ((rc = dump_type_check(a, f)) != 0)
        return rc;
    zdem_error_clear(&err);
    /* two frame buffers: payloads, unaligned inner messages (and for
     * standard input a third, to gather a frame split across reads) */
    scratch = malloc(cap);
    if (f->in)
        gather = malloc(cap / 2);
    if (!scratch || (f->in && !gather)) {
        free(scratch);
        free(gather);
        return zdem_cli_failf(f, 0, "out of memory for the frame buffers (see --max-frame)");
    }
    memset(&cbs, 0, sizeof cbs);
    cbs.on_outer = dump_outer;
    cbs.on_inner = dump_inner;
    zdem_s2_parser_init(&p, &cbs, (void *)a, scratch, cap, gather, gather ? cap / 2 : 0);
    zdem_cli_s2_work(a, NULL, &p.work);
    if (f->in) {
        uint8_t *buf = malloc(ZDEM_CLI_PIECE);
        zdem_status st = ZDEM_OK;
        size_t n;
        if (!buf)
            st = zdem_fail(&err, ZDEM_ERR_NO_SPACE, 0, "out of memory");
        zdem_cli_follow_until(f, s2_push_complete, &p.push);
        while (st == ZDEM_OK && (n = zdem_cli_read(f, buf, ZDEM_CLI_PIECE)) > 0)
            st = zdem_s2_parser_feed(&p, buf, n, &err);
        if (st == ZDEM_OK && !f->in->error)
            (void)zdem_s2_parser_end(&p, &err);
        free(buf);
    } else
        (void)zdem_s2_parser_file(&p, f->data, f->size, &err);
    if (zdem_cli_out_report(f)) {
        /* stopped by --max-output: the verdict is the damage before it */
        zdem_error_clear(&err);
        (void)zdem_s2_warn_result(&p.warn, ZDEM_OK, &err);
    }
    rc = zdem_cli_s2_verdict(f, &p.warn, &err, cap / 2);
    free(scratch);
    free(gather);
    return rc;
}

int zdem_cli_source2(const zdem_cli_args *a, const zdem_cli_file *f)
{
    if (a->small && strcmp(a->command, "events") != 0) {
        fprintf(stderr, "zdem: --small: Source 2 has it for events only (the events mode)\n");
        return ZDEM_EXIT_USAGE;
    }
    if (strcmp(a->command, "info") == 0)
        return info(a, f);
    if (strcmp(a->command, "dump") == 0)
        return dump(a, f);
    if (strcmp(a->command, "events") == 0)
        return zdem_cli_source2_events(a, f);
    if (strcmp(a->command, "entities") == 0)
        return zdem_cli_source2_entities(a, f);
    if (strcmp(a->command, "ticks") == 0)
        return zdem_cli_source2_ticks(a, f);
    return zdem_cli_unsupported(a, "Source 2");
}
