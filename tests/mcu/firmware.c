/* zdem on a Cortex-M (QEMU mps2-an386 / mps2-an385): parses the demo files
 * embedded in flash (demos.S, made by build.sh with .incbin) and prints,
 * per file, one JSON line with the facts `zdem info --json` prints on the
 * host (tools/cli_quake3.c, tools/cli_teeworlds.c do the same walk), then
 * a memory report. Output goes through semihosting SYS_WRITE0; there is no
 * printf, no heap, and the decoders' state lives in one arena that the
 * linker script reserves between .bss and the stack, reused file by file.
 * Quake III demos are parsed twice: whole file from flash, then through the
 * push (streaming) API in small pieces, which must give the same facts.
 * tests/test_mcu_qemu.sh compares the lines with the host CLI. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "zdem.h" /* the amalgamation's header: the whole public API */

#include "fw_out.h"

/* ------------------------------------------------------------ Quake III */
#define Q3_NAME_MAX 96

/* The parser's limits: ZDEM_Q3_LIMITS_SMALL on a small part (build.sh
 * with ZDEM_MCU_SMALL=1), where a demo that hits one is a failure here;
 * the defaults otherwise. */
static void q3_limits(zdem_q3_limits *lim)
{
#ifdef ZDEM_MCU_SMALL
    zdem_q3_limits_small(lim);
#else
    zdem_q3_limits_default(lim);
#endif
}

typedef struct q3fw {
    const char *name;
    int32_t first_sequence;
    uint32_t snapshots;
    int have_time;
    int32_t first_time, last_time;
    uint32_t commands, obituaries, chats;
    int gs_seen;
    uint32_t baselines;
    int32_t client_num;
    char map[256];
    /* first non-empty name per client, as the CLI keeps them */
    char players[ZDEM_Q3_MAX_CLIENTS][Q3_NAME_MAX];
    int16_t teams[ZDEM_Q3_MAX_CLIENTS]; /* "t" of that configstring, -1: none */
    uint8_t have_player[ZDEM_Q3_MAX_CLIENTS];
    uint8_t player_truncated;
    int players_dirty;
    int quiet;          /* second (push) pass: no configstrings line */
} q3fw;

static q3fw q3;

static void q3_update_players(const zdem_q3_parser *p)
{
    const zdem_q3_protocol_info *pi = zdem_q3_protocol_info_of(p);
    int i;
    if (!pi)
        return;
    for (i = 0; i < ZDEM_Q3_MAX_CLIENTS; i++) {
        size_t n, vn;
        const char *cs, *v;
        if (q3.have_player[i])
            continue;
        cs = zdem_q3_configstring(p, pi->cs_players + i, &n);
        v = zdem_q3_info_value(cs, n, "n", &vn);
        if (v && vn) {
            if (vn >= Q3_NAME_MAX) {
                vn = Q3_NAME_MAX - 1;
                q3.player_truncated = 1;
            }
            memcpy(q3.players[i], v, vn);
            q3.players[i][vn] = 0;
            q3.have_player[i] = 1;
            v = zdem_q3_info_value(cs, n, "t", &vn);
            q3.teams[i] = -1;
            if (v && vn && v[0] >= '0' && v[0] <= '9') {
                size_t k;
                q3.teams[i] = 0;
                for (k = 0; k < vn && k < 4 && v[k] >= '0' && v[k] <= '9'; k++)
                    q3.teams[i] = (int16_t)(q3.teams[i] * 10 + (v[k] - '0'));
            }
        }
    }
    q3.players_dirty = 0;
}

/* The first gamestate's configstrings go out as their own line now: the
 * parser overwrites them later, and copying 64 KiB is what we avoid. */
static int q3_on_gamestate(void *user, const zdem_q3_parser *p)
{
    (void)user;
    if (!q3.gs_seen) {
        int i, first = 1;
        size_t n, vn;
        const char *v, *cs0;
        q3.gs_seen = 1;
        q3.baselines = zdem_q3_baseline_count(p);
        q3.client_num = zdem_q3_client_num(p);
        cs0 = zdem_q3_configstring(p, 0, &n);
        v = cs0 ? zdem_q3_info_value(cs0, n, "mapname", &vn) : NULL;
        if (v) {
            if (vn >= sizeof q3.map)
                vn = sizeof q3.map - 1;
            memcpy(q3.map, v, vn);
            q3.map[vn] = 0;
        }
        if (q3.quiet)
            goto done;
        begin_line(q3.name);
        put_key("configstrings");
        put_c('{');
        for (i = 0; i < ZDEM_Q3_MAX_CONFIGSTRINGS; i++) {
            const char *s = zdem_q3_configstring(p, i, &n);
            if (!s)
                continue;
            if (!first)
                put_c(',');
            put_c('"');
            put_u((uint64_t)i);
            put_s("\":");
            put_json((const uint8_t *)s, n);
            first = 0;
        }
        put_s("}}\n");
    }
done:
    q3_update_players(p);
    return 0;
}

static int q3_on_snapshot(void *user, const zdem_q3_parser *p, const zdem_q3_snapshot *s)
{
    (void)user;
    q3.snapshots++;
    if (!q3.have_time) {
        q3.have_time = 1;
        q3.first_time = s->server_time;
    }
    q3.last_time = s->server_time;
    if (q3.players_dirty)
        q3_update_players(p);
    return 0;
}

static int q3_on_command(void *user, const zdem_q3_parser *p, int32_t seq, const char *s,
                         size_t n)
{
    (void)user;
    (void)p;
    (void)seq;
    q3.commands++;
    if (n > 3 && (memcmp(s, "cs ", 3) == 0 || memcmp(s, "bcs", 3) == 0))
        q3.players_dirty = 1;
    return 0;
}

static int q3_on_event(void *user, const zdem_q3_parser *p, const zdem_q3_event *ev)
{
    (void)user;
    (void)p;
    if (ev->type == ZDEM_Q3_EV_OBITUARY)
        q3.obituaries++;
    if (ev->type == ZDEM_Q3_EV_CHAT || ev->type == ZDEM_Q3_EV_TCHAT)
        q3.chats++;
    return 0;
}

/* The facts both passes must agree on, in a few words of RAM. */
typedef struct q3sum {
    uint32_t messages, gamestates, snapshots, baselines, commands, obituaries, chats;
    int32_t first_time, last_time, client_num;
    int have_time, ended;
    uint64_t trailing;
    uint32_t players_hash;
} q3sum;

static q3sum q3_summary(uint32_t messages, const zdem_q3_parser *p, int ended,
                        uint64_t trailing)
{
    q3sum m;
    uint32_t h = 2166136261u;
    int i;
    const char *c;
    memset(&m, 0, sizeof m);
    m.messages = messages;
    m.gamestates = zdem_q3_gamestate_count(p);
    m.snapshots = q3.snapshots;
    m.baselines = q3.baselines;
    m.commands = q3.commands;
    m.obituaries = q3.obituaries;
    m.chats = q3.chats;
    m.first_time = q3.first_time;
    m.last_time = q3.last_time;
    m.client_num = q3.client_num;
    m.have_time = q3.have_time;
    m.ended = ended;
    m.trailing = trailing;
    for (i = 0; i < ZDEM_Q3_MAX_CLIENTS; i++) /* FNV-1a over "i:name;" */
        if (q3.have_player[i]) {
            h = (h ^ (uint32_t)i) * 16777619u;
            h = (h ^ (uint32_t)(q3.teams[i] + 1)) * 16777619u;
            for (c = q3.players[i]; *c; c++)
                h = (h ^ (uint8_t)*c) * 16777619u;
        }
    m.players_hash = h;
    return m;
}

static int q3_equal(const q3sum *a, const q3sum *b)
{
    return a->messages == b->messages && a->gamestates == b->gamestates &&
           a->snapshots == b->snapshots && a->baselines == b->baselines &&
           a->commands == b->commands && a->obituaries == b->obituaries &&
           a->chats == b->chats && a->first_time == b->first_time &&
           a->last_time == b->last_time && a->client_num == b->client_num &&
           a->have_time == b->have_time && a->ended == b->ended &&
           a->trailing == b->trailing && a->players_hash == b->players_hash;
}

/* Second pass through the push (streaming) API, as a device reading the
 * demo from a UART or an SD card would: PIECE-byte pieces, so most
 * messages straddle two or more pieces and go through the gathering
 * buffer. Must give the same facts as the whole-file pass. */
#define Q3_PUSH_PIECE 61

static int run_quake3_push(const mcu_demo *d, const q3sum *whole)
{
    zdem_q3_limits lim;
    size_t need = (q3_limits(&lim), zdem_q3_parser_size_for(&lim)), have, off, n;
    size_t total = need; /* messages are gathered in the parser's own buffer */
    uint8_t *mem = arena(total, &have);
    zdem_q3_callbacks cb;
    zdem_q3_parser *p = NULL;
    zdem_q3_push ps;
    zdem_error err;
    zdem_status st = ZDEM_OK;
    q3sum got;
    uint32_t pieces = 0;
    int hint = zdem_q3_protocol_from_path(d->name), same;

    if (!mem)
        return 1;
    if (total > arena_peak)
        arena_peak = total;
    memset(&q3, 0, sizeof q3);
    q3.name = d->name;
    q3.client_num = -1;
    q3.quiet = 1;
    memset(&cb, 0, sizeof cb);
    cb.gamestate = q3_on_gamestate;
    cb.snapshot = q3_on_snapshot;
    cb.server_command = q3_on_command;
    cb.event = q3_on_event;
    zdem_error_clear(&err);
    if (hint)
        p = zdem_q3_parser_init_limits(mem, need, hint, &lim, &cb, NULL, &err);
    if (!p && hint != 3 && hint != 48) {
        zdem_error_clear(&err);
        p = zdem_q3_parser_init_limits(mem, need, 0, &lim, &cb, NULL, &err);
    }
    if (!p)
        return 1;
    zdem_q3_push_init(&ps, p);
    for (off = 0; off < d->size && st == ZDEM_OK; off += n) {
        n = d->size - off < Q3_PUSH_PIECE ? d->size - off : Q3_PUSH_PIECE;
        st = zdem_q3_push_feed(&ps, d->data + off, n, &err);
        pieces++;
    }
    if (st == ZDEM_OK)
        st = zdem_q3_push_end(&ps, &err);
    if (q3.players_dirty)
        q3_update_players(p);
    got = q3_summary(ps.index, p, ps.ended, ps.trailing);
    same = st == ZDEM_OK && q3_equal(&got, whole);
    begin_line(d->name);
    put_key("mcu_push");
    put_s("{\"piece_bytes\":");
    put_u(Q3_PUSH_PIECE);
    put_s(",\"pieces\":");
    put_u(pieces);
    put_s(",\"messages\":");
    put_u(ps.index);
    put_s(",\"state_bytes\":");
    put_u(total);
    put_s(",\"equal\":");
    put_bool(same);
    if (st != ZDEM_OK) {
        put_s(",\"error\":");
        put_jcstr(err.msg);
    }
    put_s("}}\n");
    return !same;
}

static int run_quake3(const mcu_demo *d)
{
    zdem_q3_callbacks cb;
    zdem_q3_parser *p = NULL;
    zdem_q3_reader r;
    zdem_q3_frame fr;
    zdem_error err;
    zdem_status st = ZDEM_OK;
    zdem_q3_limits lim;
    size_t need = (q3_limits(&lim), zdem_q3_parser_size_for(&lim)), have;
    void *mem = arena(need, &have);
    int hint, got, i, first;
    q3sum whole;

    memset(&q3, 0, sizeof q3);
    q3.name = d->name;
    q3.client_num = -1;
    memset(&cb, 0, sizeof cb);
    cb.gamestate = q3_on_gamestate;
    cb.snapshot = q3_on_snapshot;
    cb.server_command = q3_on_command;
    cb.event = q3_on_event;
    zdem_error_clear(&err);
    if (!mem) {
        begin_line(d->name);
        put_s(",\"mcu_error\":\"arena too small\"}\n");
        return 1;
    }
    if (need > arena_peak)
        arena_peak = need;
    /* Protocol from the extension, else from the serverinfo (as the CLI). */
    hint = zdem_q3_protocol_from_path(d->name);
    if (hint)
        p = zdem_q3_parser_init_limits(mem, need, hint, &lim, &cb, NULL, &err);
    if (!p && hint != 3 && hint != 48) {
        zdem_error_clear(&err);
        p = zdem_q3_parser_init_limits(mem, need, 0, &lim, &cb, NULL, &err);
    }
    if (!p) {
        begin_line(d->name);
        put_key("mcu_error");
        put_jcstr(err.msg ? err.msg : "init failed");
        put_s("}\n");
        return 1;
    }
    zdem_q3_reader_init(&r, d->data, d->size);
    for (;;) {
        st = zdem_q3_reader_next(&r, &fr, &got, &err);
        if (st != ZDEM_OK || !got)
            break;
        if (fr.index == 0)
            q3.first_sequence = fr.sequence;
        st = zdem_q3_parse_message(p, &fr, &err);
        if (st != ZDEM_OK)
            break;
    }

    if (q3.players_dirty) /* names sent after the last snapshot, as the CLI */
        q3_update_players(p);
    begin_line(d->name);
    put_s(",\"format\":\"quake3\"");
    put_key("protocol"); put_i(zdem_q3_protocol(p));
    put_key("messages"); put_u(r.index);
    put_key("first_sequence"); put_i(q3.first_sequence);
    put_key("gamestates"); put_u(zdem_q3_gamestate_count(p));
    put_key("snapshots"); put_u(q3.snapshots);
    put_key("invalid_snapshots"); put_u(zdem_q3_invalid_snapshot_count(p));
    put_key("first_server_time");
    if (q3.have_time) put_i(q3.first_time); else put_s("null");
    put_key("last_server_time");
    if (q3.have_time) put_i(q3.last_time); else put_s("null");
    put_key("map_name"); put_jcstr(q3.map);
    put_key("client_num"); put_i(q3.client_num);
    put_key("baselines"); put_u(q3.baselines);
    put_key("server_commands"); put_u(q3.commands);
    put_key("obituaries"); put_u(q3.obituaries);
    put_key("chats"); put_u(q3.chats);
    put_key("end_marker"); put_bool(r.ended);
    put_key("trailing_bytes"); put_u(r.trailing);
    put_key("players"); /* the host's shape: [{slot, name, team}] */
    put_c('[');
    for (i = 0, first = 1; i < ZDEM_Q3_MAX_CLIENTS; i++) {
        if (!q3.have_player[i])
            continue;
        put_s(first ? "{\"slot\":" : ",{\"slot\":");
        put_u((uint64_t)i);
        put_s(",\"name\":");
        put_jcstr(q3.players[i]);
        put_s(",\"team\":");
        if (q3.teams[i] >= 0)
            put_i(q3.teams[i]);
        else
            put_s("null");
        put_c('}');
        first = 0;
    }
    put_c(']');
    if (q3.player_truncated) {
        put_key("mcu_players_truncated");
        put_bool(1);
    }
    put_key("error");
    if (st != ZDEM_OK)
        put_jcstr(err.msg);
    else
        put_s("null");
    put_key("mcu_state_bytes"); put_u(need);
    /* a demo that does not fit the limits is not a pass here */
    put_key("mcu_limit_hits"); put_u(zdem_q3_limit_hits(p));
    put_s("}\n");
    if (st != ZDEM_OK || zdem_q3_limit_hits(p) != 0)
        return 1;
    whole = q3_summary(r.index, p, r.ended, r.trailing);
    return run_quake3_push(d, &whole);
}

/* ------------------------------------------------------------ Teeworlds */
#define ZDEM_TW_MAX_CLIENTS 64

typedef struct zdem_tw_player {
    uint8_t seen, has_team, has_skin;
    int32_t team, country;
    char name[17];
    char clan[13];
    char skin[6][25]; /* 0.7: the client info's skin parts */
} zdem_tw_player;

/* In the arena after the reader's buffers (12 KiB with 0.7's skin parts:
 * static RAM would take it from the Quake III parser's arena) */
static zdem_tw_player *zdem_tw_players;

/* 0.7: names, clans, teams, countries and skins from de_client_info */
static void zdem_tw_track_players7(const zdem_tw_snap *s)
{
    uint32_t i;
    for (i = zdem_tw_snap_first(s); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(s, i)) {
        int id = zdem_tw_snap_id(s, i);
        zdem_tw7_obj_de_client_info ci;
        zdem_tw_player *p;
        if (id < 0 || id >= ZDEM_TW_MAX_CLIENTS || zdem_tw_snap_type(s, i) != ZDEM_TW7_OBJ_DE_CLIENT_INFO)
            continue;
        zdem_tw7_obj_de_client_info_decode(zdem_tw_snap_data(s, i), s->len[i], &ci);
        p = &zdem_tw_players[id];
        p->seen = p->has_team = p->has_skin = 1;
        p->team = ci.team;
        p->country = ci.country;
        memcpy(p->name, ci.name, sizeof p->name);
        memcpy(p->clan, ci.clan, sizeof p->clan);
        memcpy(p->skin, ci.skin_part_names, sizeof p->skin);
    }
}

static void zdem_tw_track_players(const zdem_tw_snap *s, int version)
{
    uint32_t i;
    if (version == 7) {
        zdem_tw_track_players7(s);
        return;
    }
    for (i = zdem_tw_snap_first(s); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(s, i)) {
        int id = zdem_tw_snap_id(s, i);
        zdem_tw_obj_client_info ci;
        if (id < 0 || id >= ZDEM_TW_MAX_CLIENTS)
            continue;
        if (zdem_tw_snap_type(s, i) == ZDEM_TW_OBJ_PLAYER_INFO) {
            zdem_tw_obj_player_info pi;
            zdem_tw_obj_player_info_decode(zdem_tw_snap_data(s, i), s->len[i], &pi);
            zdem_tw_players[id].has_team = 1;
            zdem_tw_players[id].team = pi.team;
            continue;
        }
        if (zdem_tw_snap_type(s, i) != ZDEM_TW_OBJ_CLIENT_INFO)
            continue;
        zdem_tw_obj_client_info_decode(zdem_tw_snap_data(s, i), s->len[i], &ci);
        zdem_tw_players[id].seen = 1;
        memcpy(zdem_tw_players[id].name, ci.name, sizeof zdem_tw_players[id].name);
        memcpy(zdem_tw_players[id].clan, ci.clan, sizeof zdem_tw_players[id].clan);
    }
}

static void put_view(zdem_tw_str s) { put_json(s.p, s.n); }

/* The reader's control block is static; its buffers, sized by the small
 * limits, come from the arena. */
static zdem_tw_reader tw_reader;

/* FNV-1a over what a pass delivered: every chunk's kind, tick and offset,
 * every message's id and every snapshot's items, so that the push pass
 * can be held to the whole-file one in a few bytes of RAM. */
static uint64_t tw_fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t tw_digest(uint64_t h, const zdem_tw_event *ev)
{
    uint32_t i;
    h = tw_fnv(h, &ev->chunk.kind, sizeof ev->chunk.kind);
    h = tw_fnv(h, &ev->chunk.tick, sizeof ev->chunk.tick);
    h = tw_fnv(h, &ev->chunk.offset, sizeof ev->chunk.offset);
    if (ev->chunk.kind == ZDEM_TW_CHUNK_MESSAGE && ev->num_ints)
        h = tw_fnv(h, &ev->msg.id, sizeof ev->msg.id);
    if (ev->snap)
        for (i = zdem_tw_snap_first(ev->snap); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(ev->snap, i)) {
            h = tw_fnv(h, &ev->snap->key[i], 4);
            h = tw_fnv(h, zdem_tw_snap_data(ev->snap, i), 4u * ev->snap->len[i]);
        }
    return h;
}

/* Second pass through the push API in 61-byte pieces with the small push
 * buffer, as from a UART or an SD card: must deliver the same. */
#define TW_PUSH_PIECE 61

static uint64_t tw_push_digest;
static uint32_t tw_push_events;

static int tw_push_event(void *user, const zdem_tw_event *ev)
{
    (void)user;
    tw_push_digest = tw_digest(tw_push_digest, ev);
    tw_push_events++;
    return 0;
}

static int run_teeworlds_push(const mcu_demo *d, const zdem_tw_limits *lim, uint64_t whole,
                              uint32_t whole_events)
{
    static zdem_tw_push ps;
    size_t mem_size = zdem_tw_reader_mem_size(lim), have, off, n;
    size_t total = mem_size + ((ZDEM_TW_PUSH_BUFFER_SMALL + 7u) & ~(size_t)7u);
    uint8_t *mem = arena(total, &have);
    zdem_error err;
    zdem_status st = ZDEM_OK;
    uint32_t pieces = 0;
    int same;
    if (!mem)
        return 1;
    if (total > arena_peak)
        arena_peak = total;
    zdem_error_clear(&err);
    if (zdem_tw_reader_init(&tw_reader, lim, mem, mem_size, &err) != ZDEM_OK)
        return 1;
    tw_push_digest = 14695981039346656037ull;
    tw_push_events = 0;
    zdem_tw_push_init(&ps, &tw_reader, mem + mem_size, ZDEM_TW_PUSH_BUFFER_SMALL);
    ps.on_event = tw_push_event;
    for (off = 0; off < d->size && st == ZDEM_OK; off += n) {
        n = d->size - off < TW_PUSH_PIECE ? d->size - off : TW_PUSH_PIECE;
        st = zdem_tw_push_feed(&ps, d->data + off, n, &err);
        pieces++;
    }
    if (st == ZDEM_OK)
        st = zdem_tw_push_end(&ps, &err);
    same = st == ZDEM_OK && tw_push_digest == whole && tw_push_events == whole_events &&
           tw_reader.limit_hits == 0;
    begin_line(d->name);
    put_key("mcu_push");
    put_s("{\"piece_bytes\":");
    put_u(TW_PUSH_PIECE);
    put_s(",\"pieces\":");
    put_u(pieces);
    put_s(",\"events\":");
    put_u(tw_push_events);
    put_s(",\"state_bytes\":");
    put_u(sizeof(zdem_tw_reader) + sizeof ps + total);
    put_s(",\"equal\":");
    put_bool(same);
    if (st != ZDEM_OK) {
        put_s(",\"error\":");
        put_jcstr(err.msg);
    }
    put_s("}}\n");
    return !same;
}

static int run_teeworlds(const mcu_demo *d)
{
    size_t have;
    zdem_tw_limits lim;
    zdem_tw_reader *rd = &tw_reader;
    size_t mem_size = (zdem_tw_limits_small(&lim), zdem_tw_reader_mem_size(&lim));
    size_t players_size = sizeof(zdem_tw_player) * ZDEM_TW_MAX_CLIENTS;
    void *mem = arena(mem_size + players_size, &have);
    const zdem_tw_demo_info *in;
    zdem_error err;
    zdem_tw_event ev;
    int rc, i, first_p;
    uint32_t counts[5] = {0, 0, 0, 0, 0}, keyframes = 0, chat = 0, kills = 0, unknown = 0;
    int32_t first = 0, last = 0;
    int have_tick = 0;
    uint64_t digest = 14695981039346656037ull;
    uint32_t events = 0;

    zdem_error_clear(&err);
    if (!mem) {
        begin_line(d->name);
        put_s(",\"mcu_error\":\"arena too small\"}\n");
        return 1;
    }
    zdem_tw_players = (zdem_tw_player *)(void *)((uint8_t *)mem + mem_size);
    memset(zdem_tw_players, 0, players_size);
    if (mem_size + players_size > arena_peak)
        arena_peak = mem_size + players_size;
    if (zdem_tw_reader_init(rd, &lim, mem, mem_size, &err) != ZDEM_OK ||
        zdem_tw_reader_open(rd, d->data, d->size, &err) != ZDEM_OK) {
        begin_line(d->name);
        put_key("error");
        put_jcstr(err.msg);
        put_s("}\n");
        return 1;
    }
    in = &rd->info;
    while ((rc = zdem_tw_reader_next(rd, &ev, &err)) == 1) {
        digest = tw_digest(digest, &ev);
        events++;
        if (ev.chunk.kind >= 0 && ev.chunk.kind < 5)
            counts[ev.chunk.kind]++;
        if (ev.chunk.kind == ZDEM_TW_CHUNK_TICK) {
            if (!have_tick)
                first = ev.chunk.tick;
            have_tick = 1;
            last = ev.chunk.tick;
            keyframes += (uint32_t)ev.chunk.keyframe;
        } else if (ev.chunk.kind == ZDEM_TW_CHUNK_MESSAGE && ev.num_ints) {
            /* the ids of the demo's protocol (0.6 / 0.7 by its net version) */
            int v7 = rd->proto->version == 7;
            if (!ev.desc)
                unknown++;
            else if (!ev.msg.sys && ev.msg.id == (v7 ? ZDEM_TW7_MSG_SV_CHAT : ZDEM_TW_MSG_SV_CHAT))
                chat++;
            else if (!ev.msg.sys && ev.msg.id == (v7 ? ZDEM_TW7_MSG_SV_KILL_MSG : ZDEM_TW_MSG_SV_KILL_MSG))
                kills++;
        } else if (ev.snap) {
            zdem_tw_track_players(ev.snap, rd->proto->version);
        }
    }

    begin_line(d->name);
    put_s(",\"format\":\"teeworlds\"");
    put_key("version"); put_u(in->version);
    put_key("net_version"); put_view(in->net_version);
    put_key("map_name"); put_view(in->map_name);
    put_key("map_size"); put_u(in->map_size);
    put_key("map_crc"); put_u(in->map_crc);
    put_key("map_sha256");
    if (in->has_sha256) {
        put_c('"');
        put_hex(in->map_sha256, 32);
        put_c('"');
    } else {
        put_s("null");
    }
    put_key("map_crc_ok"); put_bool(zdem_tw_demo_map_crc_ok(in));
    put_key("map_sha256_ok");
    if (in->has_sha256) put_bool(zdem_tw_demo_map_sha256_ok(in)); else put_s("null");
    put_key("type"); put_view(in->type);
    put_key("length"); put_i(in->length);
    put_key("timestamp"); put_view(in->timestamp);
    put_key("timeline_markers");
    put_c('[');
    for (i = 0; i < in->num_timeline_markers; i++) {
        if (i)
            put_c(',');
        put_i(in->timeline_markers[i]);
    }
    put_c(']');
    put_key("first_tick");
    if (have_tick) put_i(first); else put_s("null");
    put_key("last_tick");
    if (have_tick) put_i(last); else put_s("null");
    put_key("tick_markers"); put_u(counts[ZDEM_TW_CHUNK_TICK]);
    put_key("keyframes"); put_u(keyframes);
    put_key("chunks");
    put_s("{\"snapshot\":"); put_u(counts[ZDEM_TW_CHUNK_SNAPSHOT]);
    put_s(",\"message\":"); put_u(counts[ZDEM_TW_CHUNK_MESSAGE]);
    put_s(",\"delta\":"); put_u(counts[ZDEM_TW_CHUNK_DELTA]);
    put_c('}');
    put_key("map_offset"); put_u(in->map_offset);
    put_key("data_offset"); put_u(in->data_offset);
    put_key("chat"); put_u(chat);
    put_key("kills"); put_u(kills);
    put_key("unknown_messages"); put_u(unknown);
    put_key("players");
    put_c('[');
    for (i = 0, first_p = 1; i < ZDEM_TW_MAX_CLIENTS; i++) {
        if (!zdem_tw_players[i].seen)
            continue;
        put_s(first_p ? "{\"slot\":" : ",{\"slot\":");
        put_i(i);
        put_s(",\"name\":");
        put_jcstr(zdem_tw_players[i].name);
        put_s(",\"team\":");
        if (zdem_tw_players[i].has_team)
            put_i(zdem_tw_players[i].team);
        else
            put_s("null");
        put_s(",\"clan\":");
        put_jcstr(zdem_tw_players[i].clan);
        if (zdem_tw_players[i].has_skin) {
            int j;
            put_s(",\"country\":");
            put_i(zdem_tw_players[i].country);
            put_s(",\"skin\":[");
            for (j = 0; j < 6; j++) {
                if (j)
                    put_c(',');
                put_jcstr(zdem_tw_players[i].skin[j]);
            }
            put_c(']');
        }
        put_c('}');
        first_p = 0;
    }
    put_c(']');
    put_key("error");
    if (rc < 0)
        put_jcstr(err.msg);
    else
        put_s("null");
    put_key("mcu_state_bytes"); put_u(sizeof(zdem_tw_reader) + mem_size);
    /* a demo that does not fit the small limits is not a pass here */
    put_key("mcu_limit_hits"); put_u(rd->limit_hits);
    put_s("}\n");
    if (rc < 0 || rd->limit_hits != 0)
        return 1;
    return run_teeworlds_push(d, &lim, digest, events);
}

/* ------------------------------------------------------------ main */
int main(void)
{
    uint32_t i;
    int bad = 0;
    size_t max_stack = stack_used(), used;
    for (i = 0; i < zdem_mcu_demo_count; i++) {
        const mcu_demo *d = &zdem_mcu_demos[i];
        int tw = d->size >= 7 && memcmp(d->data, "TWDEMO\0", 7) == 0;
        repaint_stack();
        bad |= tw ? run_teeworlds(d) : run_quake3(d);
        used = stack_used();
        if (used > max_stack)
            max_stack = used;
        put_stack_line(d->name, tw ? "teeworlds" : "quake3", used);
    }
    put_s("{\"mcu\":\"memory\"");
    put_key("data"); put_u((size_t)(__data_end - __data_start));
    put_key("bss"); put_u((size_t)(__bss_end - __bss_start));
    put_key("ram"); put_u((size_t)(__stack_top - __data_start));
    put_key("arena_available"); put_u((size_t)(__arena_end - __arena_start));
    put_key("arena_used"); put_u(arena_peak);
    {
        zdem_q3_limits lim;
        q3_limits(&lim);
        put_key("q3_parser_size"); put_u(zdem_q3_parser_size_for(&lim));
    }
    put_key("zdem_tw_reader_size"); put_u(sizeof(zdem_tw_reader));
    {
        zdem_tw_limits lim;
        zdem_tw_limits_small(&lim);
        put_key("zdem_tw_small_mem"); put_u(zdem_tw_reader_mem_size(&lim));
    }
    put_key("stack_size"); put_u((size_t)(__stack_top - __stack_limit));
    put_key("stack_used"); put_u(max_stack);
    put_key("demos_flash"); put_u((size_t)(__demos_end - __demos_start));
    put_s("}\n");
    put_s(bad ? "zdem-mcu: FAIL\n" : "zdem-mcu: OK\n");
    flush();
    return bad;
}
