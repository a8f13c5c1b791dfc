/* zdem commands for Teeworlds demos, the 0.7 protocol's part: players from
 * the demo's client-info items (and the client messages a recording keeps),
 * and the events lines of 0.7's messages. */
#include "cli_teeworlds.h"

#include <string.h>
#include "teeworlds_proto7.h"

const char *const zdem_cli_tw_event_types[] = {"chat", "kill", "broadcast", "motd", "emoticon", "vote",
                                                "team", "join", "leave"};
const size_t zdem_cli_tw_num_event_types =
    sizeof zdem_cli_tw_event_types / sizeof zdem_cli_tw_event_types[0];

static zdem_cli_tw_player *slot(zdem_cli_tw_player *players, int32_t id)
{
    return id >= 0 && id < ZDEM_CLI_TW_MAX_CLIENTS ? &players[id] : NULL;
}

static void set_name(zdem_cli_tw_player *p, zdem_tw_str name)
{
    size_t n = name.n < sizeof p->name - 1 ? name.n : sizeof p->name - 1;
    memcpy(p->name, name.p, n);
    p->name[n] = 0;
    p->seen = 1;
}

void zdem_cli_tw7_track(zdem_cli_tw_player *players, zdem_tw_reader *rd, const zdem_tw_snap *s)
{
    const uint16_t *w;
    int all;
    uint32_t n = zdem_tw_snap_written(&rd->snaps, &w, &all), k, it = zdem_tw_snap_first(s);
    if (all)
        n = s->num_items;
    for (k = 0; k < n; k++, it = all ? zdem_tw_snap_next(s, it) : it) {
        uint32_t i = all ? it : w[k];
        zdem_tw7_obj_de_client_info ci;
        zdem_cli_tw_player *p;
        int j;
        if (zdem_tw_snap_type(s, i) != ZDEM_TW7_OBJ_DE_CLIENT_INFO ||
            !(p = slot(players, zdem_tw_snap_id(s, i))))
            continue;
        zdem_tw7_obj_de_client_info_decode(zdem_tw_snap_data(s, i), s->len[i], &ci);
        p->seen = 1;
        memcpy(p->name, ci.name, sizeof p->name);
        memcpy(p->clan, ci.clan, sizeof p->clan);
        p->has_team = 1;
        p->team = ci.team;
        p->country = ci.country;
        p->has_skin = 1;
        for (j = 0; j < 6; j++)
            memcpy(p->skin[j], ci.skin_part_names[j], sizeof p->skin[j]);
    }
}

int zdem_cli_tw7_count_kind(const zdem_tw_event *ev)
{
    if (ev->chunk.kind != ZDEM_TW_CHUNK_MESSAGE || !ev->desc || ev->msg.sys)
        return 0;
    if (ev->msg.id == ZDEM_TW7_MSG_SV_CHAT)
        return 1;
    if (ev->msg.id == ZDEM_TW7_MSG_SV_KILL_MSG)
        return 2;
    return 0;
}

static void json_view(FILE *o, zdem_tw_str s) { zdem_json_str(o, s.p, s.n); }

static void name_field(FILE *o, zdem_cli_tw_player *players, const char *key, int32_t id)
{
    zdem_cli_tw_player *p = slot(players, id);
    if (!p || !p->seen)
        return;
    fprintf(o, ",\"%s\":", key);
    zdem_json_cstr(o, p->name);
}

int zdem_cli_tw7_event(FILE *o, const zdem_cli_args *a, zdem_cli_tw_player *players,
                       const zdem_tw_event *ev)
{
    const zdem_tw_msg *m = &ev->msg;
    long tick = (long)ev->chunk.tick;
    zdem_cli_tw_player *p;
    if (ev->chunk.kind != ZDEM_TW_CHUNK_MESSAGE || !ev->desc || m->sys || m->id == 0)
        return 0;
    switch (m->id) {
    case ZDEM_TW7_MSG_SV_CHAT: {
        zdem_tw7_game_sv_chat c;
        if (zdem_tw7_game_sv_chat_decode(m->body, m->body_len, &c) != ZDEM_OK ||
            !zdem_cli_name_wanted(a, NULL, 0, "chat"))
            return 0;
        fprintf(o, "{\"type\":\"chat\",\"tick\":%ld,\"mode\":%ld,\"client_id\":%ld,\"target_id\":%ld",
                tick, (long)c.mode, (long)c.client_id, (long)c.target_id);
        name_field(o, players, "name", c.client_id);
        name_field(o, players, "target_name", c.target_id);
        fputs(",\"text\":", o);
        json_view(o, c.message);
        fputs("}\n", o);
        break;
    }
    case ZDEM_TW7_MSG_SV_KILL_MSG: {
        zdem_tw7_game_sv_kill_msg k;
        if (zdem_tw7_game_sv_kill_msg_decode(m->body, m->body_len, &k) != ZDEM_OK ||
            !zdem_cli_name_wanted(a, NULL, 0, "kill"))
            return 0;
        fprintf(o, "{\"type\":\"kill\",\"tick\":%ld,\"killer\":%ld,\"victim\":%ld,"
                   "\"weapon\":%ld,\"mode_special\":%ld",
                tick, (long)k.killer, (long)k.victim, (long)k.weapon, (long)k.mode_special);
        name_field(o, players, "killer_name", k.killer);
        name_field(o, players, "victim_name", k.victim);
        fputs("}\n", o);
        break;
    }
    case ZDEM_TW7_MSG_SV_BROADCAST:
    case ZDEM_TW7_MSG_SV_MOTD: {
        zdem_tw7_game_sv_broadcast b; /* same layout as motd: one string */
        const char *type = m->id == ZDEM_TW7_MSG_SV_MOTD ? "motd" : "broadcast";
        if (zdem_tw7_game_sv_broadcast_decode(m->body, m->body_len, &b) != ZDEM_OK ||
            !zdem_cli_name_wanted(a, NULL, 0, type))
            return 0;
        fprintf(o, "{\"type\":\"%s\",\"tick\":%ld,\"text\":", type, tick);
        json_view(o, b.message);
        fputs("}\n", o);
        break;
    }
    case ZDEM_TW7_MSG_SV_EMOTICON: {
        zdem_tw7_game_sv_emoticon e;
        if (zdem_tw7_game_sv_emoticon_decode(m->body, m->body_len, &e) != ZDEM_OK ||
            !zdem_cli_name_wanted(a, NULL, 0, "emoticon"))
            return 0;
        fprintf(o, "{\"type\":\"emoticon\",\"tick\":%ld,\"client_id\":%ld,\"emoticon\":%ld", tick,
                (long)e.client_id, (long)e.emoticon);
        name_field(o, players, "name", e.client_id);
        fputs("}\n", o);
        break;
    }
    case ZDEM_TW7_MSG_SV_VOTE_SET: {
        zdem_tw7_game_sv_vote_set v;
        if (zdem_tw7_game_sv_vote_set_decode(m->body, m->body_len, &v) != ZDEM_OK ||
            !zdem_cli_name_wanted(a, NULL, 0, "vote"))
            return 0;
        fprintf(o, "{\"type\":\"vote\",\"tick\":%ld,\"client_id\":%ld,\"vote_type\":%ld,\"timeout\":%ld",
                tick, (long)v.client_id, (long)v.type, (long)v.timeout);
        name_field(o, players, "name", v.client_id);
        fputs(",\"description\":", o);
        json_view(o, v.description);
        fputs(",\"reason\":", o);
        json_view(o, v.reason);
        fputs("}\n", o);
        break;
    }
    case ZDEM_TW7_MSG_SV_TEAM: {
        zdem_tw7_game_sv_team t;
        if (zdem_tw7_game_sv_team_decode(m->body, m->body_len, &t) != ZDEM_OK)
            return 0;
        if ((p = slot(players, t.client_id)) != NULL) {
            p->has_team = 1;
            p->team = t.team;
        }
        if (!zdem_cli_name_wanted(a, NULL, 0, "team"))
            return 0;
        fprintf(o, "{\"type\":\"team\",\"tick\":%ld,\"client_id\":%ld,\"team\":%ld,\"silent\":%s,"
                   "\"cooldown_tick\":%ld",
                tick, (long)t.client_id, (long)t.team, t.silent ? "true" : "false",
                (long)t.cooldown_tick);
        name_field(o, players, "name", t.client_id);
        fputs("}\n", o);
        break;
    }
    case ZDEM_TW7_MSG_DE_CLIENT_ENTER:
    case ZDEM_TW7_MSG_SV_CLIENT_INFO: {
        /* 0.7's client records who entered (de_client_enter); DDNet's keeps
         * the server's client info itself */
        int32_t id, team;
        zdem_tw_str name;
        int silent = 0;
        if (m->id == ZDEM_TW7_MSG_DE_CLIENT_ENTER) {
            zdem_tw7_game_de_client_enter e;
            if (zdem_tw7_game_de_client_enter_decode(m->body, m->body_len, &e) != ZDEM_OK)
                return 0;
            id = e.client_id, team = e.team, name = e.name;
        } else {
            zdem_tw7_game_sv_client_info ci;
            if (zdem_tw7_game_sv_client_info_decode(m->body, m->body_len, &ci) != ZDEM_OK)
                return 0;
            id = ci.client_id, team = ci.team, name = ci.name;
            silent = ci.silent || ci.local;
        }
        if ((p = slot(players, id)) != NULL) {
            set_name(p, name);
            p->has_team = 1;
            p->team = team;
        }
        if (silent || !zdem_cli_name_wanted(a, NULL, 0, "join"))
            return 0;
        fprintf(o, "{\"type\":\"join\",\"tick\":%ld,\"client_id\":%ld,\"team\":%ld,\"name\":", tick,
                (long)id, (long)team);
        json_view(o, name);
        fputs("}\n", o);
        break;
    }
    case ZDEM_TW7_MSG_DE_CLIENT_LEAVE: {
        zdem_tw7_game_de_client_leave l;
        if (zdem_tw7_game_de_client_leave_decode(m->body, m->body_len, &l) != ZDEM_OK ||
            !zdem_cli_name_wanted(a, NULL, 0, "leave"))
            return 0;
        fprintf(o, "{\"type\":\"leave\",\"tick\":%ld,\"client_id\":%ld,\"name\":", tick,
                (long)l.client_id);
        json_view(o, l.name);
        fputs(",\"reason\":", o);
        json_view(o, l.reason);
        fputs("}\n", o);
        break;
    }
    case ZDEM_TW7_MSG_SV_CLIENT_DROP: {
        zdem_tw7_game_sv_client_drop d;
        if (zdem_tw7_game_sv_client_drop_decode(m->body, m->body_len, &d) != ZDEM_OK || d.silent ||
            !zdem_cli_name_wanted(a, NULL, 0, "leave"))
            return 0;
        fprintf(o, "{\"type\":\"leave\",\"tick\":%ld,\"client_id\":%ld", tick, (long)d.client_id);
        name_field(o, players, "name", d.client_id);
        fputs(",\"reason\":", o);
        json_view(o, d.reason);
        fputs("}\n", o);
        break;
    }
    default:
        break;
    }
    return 0;
}
