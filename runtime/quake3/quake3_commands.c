/* Quake III server commands: configstring updates (cs, bcs0..2), chat
 * of every form, prints, scores, and the events they give */
#include "quake3_int.h"

#include <stddef.h>
#include <string.h>

/* ---------------------------------------------------------------- server commands */

/* Name of a client from its player configstring ("n\\name\\..."), copied
 * into buf (the store keeps whole info strings). */
const char *zdem_q3__player_name(const zdem_q3_parser *p, int client, char *buf, size_t size)
{
    size_t n, vn;
    const char *cs, *v;
    buf[0] = 0;
    if (client < 0 || client >= ZDEM_Q3_MAX_CLIENTS || !p->proto)
        return buf;
    cs = zdem_q3_configstring(p, p->proto->cs_players + client, &n);
    v = zdem_q3_info_value(cs, n, "n", &vn);
    if (!v)
        return buf;
    if (vn > size - 1)
        vn = size - 1;
    memcpy(buf, v, vn);
    buf[vn] = 0;
    return buf;
}

int zdem_q3__emit_event(zdem_q3_parser *p, zdem_q3_event *ev)
{
    ev->server_time = p->server_time;
    ev->gamestate = p->gamestates;
    if (p->cb.event)
        return p->cb.event(p->user, p, ev);
    return 0;
}

/* Argument of a command: after the first space, surrounding quotes off. */
static void command_arg(const char *s, size_t n, size_t skip, const char **a, size_t *an)
{
    size_t i = skip;
    while (i < n && s[i] == ' ')
        i++;
    if (i < n && s[i] == '"') {
        size_t e = n;
        i++;
        while (e > i && (s[e - 1] == '\n' || s[e - 1] == ' '))
            e--;
        if (e > i && s[e - 1] == '"')
            e--;
        *a = s + i;
        *an = e - i;
        return;
    }
    *a = s + i;
    *an = n - i;
}

/* Scores from configstrings: CS_SCORES1/CS_SCORES2 (6, 7) in baseq3 and
 * OSP; CPMA keeps the two scores as "sb"/"sr" in its round-info
 * configstring 710 (UberDemoTools' CPMA_RoundInfo). */
static int scores_event(zdem_q3_parser *p, int32_t seq, int idx)
{
    zdem_q3_event ev;
    size_t n1, n2;
    const char *s1, *s2;
    if (p->no_events)
        return 0; /* the caller takes no events: not made */
    memset(&ev, 0, sizeof ev);
    ev.type = ZDEM_Q3_EV_SCORES;
    ev.command_seq = seq;
    ev.attacker = ev.target = ev.client = -1;
    ev.text = "";
    ev.location = "";
    if (idx == 710) {
        size_t n;
        const char *cs = zdem_q3_configstring(p, 710, &n);
        s1 = zdem_q3_info_value(cs, n, "sb", &n1);
        s2 = zdem_q3_info_value(cs, n, "sr", &n2);
        if (!s1 || !s2)
            return 0;
        ev.text = cs;
        ev.text_len = n;
    } else {
        s1 = zdem_q3_configstring(p, 6, &n1);
        s2 = zdem_q3_configstring(p, 7, &n2);
    }
    if (!s1 || zdem_q3__parse_int(s1, n1, &ev.score1) != 0)
        ev.score1 = 0;
    if (!s2 || zdem_q3__parse_int(s2, n2, &ev.score2) != 0)
        ev.score2 = 0;
    return zdem_q3__emit_event(p, &ev);
}

static int is_score_cs(const zdem_q3_parser *p, int idx)
{
    return idx == 6 || idx == 7 || (idx == 710 && p->proto && p->proto->protocol <= 71);
}

/* Apply "cs N "value"" to the configstring store. */
/* "<index> <arg>" after the command word of cs/bcsN: -1 on a bad index. */
static int cs_index_arg(const char *s, size_t n, size_t i, int32_t *idx,
                        const char **a, size_t *an)
{
    while (i < n && s[i] == ' ')
        i++;
    if (zdem_q3__parse_int(s + i, n - i, idx) != 0 || *idx < 0 || *idx >= ZDEM_Q3_MAX_CONFIGSTRINGS)
        return -1;
    while (i < n && s[i] != ' ')
        i++;
    command_arg(s, n, i, a, an);
    return 0;
}

static int apply_cs(zdem_q3_parser *p, const char *s, size_t n, size_t skip,
                    int32_t seq, uint64_t bit)
{
    int32_t idx;
    const char *a;
    size_t an;
    if (cs_index_arg(s, n, skip, &idx, &a, &an) != 0)
        return zdem_q3__warn(p, ZDEM_ERR_CORRUPT, bit, "cs command: bad index");
    {
        int r = zdem_q3__set_configstring(p, idx, a, an);
        if (r != 0)
            return zdem_q3__cs_warn(p, r, bit);
    }
    if (is_score_cs(p, idx))
        return scores_event(p, seq, idx);
    return 0;
}

/* Cmd_TokenizeString's rules (tokens split at bytes <= ' ', a quoted
 * token runs to the closing quote, "//" ends the line): up to `max`
 * token spans; returns the token count, at most max + 1 (more). */
static int tokenize(const char *s, size_t n, size_t *start, size_t *len, int max)
{
    size_t i = 0;
    int argc = 0;
    for (;;) {
        size_t b;
        while (i < n && (unsigned char)s[i] <= ' ')
            i++;
        if (i >= n || (i + 1 < n && s[i] == '/' && s[i + 1] == '/'))
            return argc;
        if (argc == max)
            return argc + 1;
        if (s[i] == '"') {
            b = ++i;
            while (i < n && s[i] != '"')
                i++;
            start[argc] = b;
            len[argc] = i - b;
            if (i < n)
                i++;
        } else {
            b = i;
            while (i < n && (unsigned char)s[i] > ' ' && s[i] != '"' &&
                   !(i + 1 < n && s[i] == '/' && s[i + 1] == '/'))
                i++;
            start[argc] = b;
            len[argc] = i - b;
        }
        argc++;
    }
}

/* CPMA's team call "mm2 <client> <location> "text"": the sender's name
 * from the player configstrings, the location from the configstrings
 * after them (CS_LOCATIONS). Other argument counts are not team calls. */
static int mm2_event(zdem_q3_parser *p, zdem_q3_event *ev, const char *s, size_t n)
{
    size_t st[4], ln[4];
    int32_t client, loc;
    if (tokenize(s, n, st, ln, 4) != 4 || zdem_q3__parse_int(s + st[1], ln[1], &client) != 0 ||
        client < 0 || client >= ZDEM_Q3_MAX_CLIENTS)
        return 0;
    ev->type = ZDEM_Q3_EV_TCHAT;
    ev->chat_kind = ZDEM_Q3_CHAT_MM2;
    ev->client = client;
    ev->attacker_name = zdem_q3__player_name(p, client, p->name_a, sizeof p->name_a);
    if (p->proto && zdem_q3__parse_int(s + st[2], ln[2], &loc) == 0 && loc >= 0 &&
        loc < ZDEM_Q3_MAX_LOCATIONS) {
        const char *l = zdem_q3_configstring(p, p->proto->cs_players + ZDEM_Q3_MAX_CLIENTS + loc,
                                             &ev->location_len);
        if (l)
            ev->location = l;
    }
    ev->text = s + st[3];
    ev->text_len = ln[3];
    return zdem_q3__emit_event(p, ev);
}

static int handle_command(zdem_q3_parser *p, int32_t seq, const char *s, size_t n,
                          uint64_t bit)
{
    size_t w = 0;
    zdem_q3_event ev;
    while (w < n && s[w] != ' ')
        w++;
    if (p->cb.server_command && p->cb.server_command(p->user, p, seq, s, n))
        return 1;
    if (w == 2 && memcmp(s, "cs", 2) == 0)
        return apply_cs(p, s, n, w, seq, bit);
    if (w == 4 && memcmp(s, "bcs", 3) == 0 && s[3] >= '0' && s[3] <= '2') {
        /* big configstring in pieces: bcs0 starts, bcs1 continues, bcs2 ends */
        int32_t idx;
        const char *a;
        size_t an;
        if (cs_index_arg(s, n, w, &idx, &a, &an) != 0)
            return zdem_q3__warn(p, ZDEM_ERR_CORRUPT, bit, "bcs command: bad index");
        if (s[3] == '0') {
            p->bcs_index = idx;
            p->bcs_len = 0;
            p->bcs_over = 0;
        }
        if (p->bcs_index != idx)
            return zdem_q3__warn(p, ZDEM_ERR_CORRUPT, bit, "bcs command without bcs0");
        if (an > ZDEM_Q3_BIG_INFO_STRING - p->bcs_len) {
            an = ZDEM_Q3_BIG_INFO_STRING - p->bcs_len;
            if (zdem_q3__warn(p, ZDEM_ERR_LIMIT, bit, "big configstring longer than 8192 bytes (cut)"))
                return 1;
        }
        zdem_q3__gather_big_configstring(p, a, an);
        if (s[3] == '2') {
            uint32_t len = p->bcs_len;
            int r, over = p->bcs_over;
            p->bcs_index = -1;
            p->bcs_len = 0; /* the gathered text is free space now */
            p->bcs_over = 0;
            r = over ? zdem_q3__drop_configstring(p, idx, len)
                     : zdem_q3__set_configstring(p, idx, p->cs_data + p->lim.configstring_store - len, len);
            if (r != 0)
                return zdem_q3__cs_warn(p, r, bit);
            if (is_score_cs(p, idx))
                return scores_event(p, seq, idx);
        }
        return 0;
    }
    if (p->no_events)
        return 0; /* the rest only makes events: the caller takes none */
    memset(&ev, 0, sizeof ev);
    ev.attacker = ev.target = ev.client = -1;
    ev.command_seq = seq;
    ev.location = "";
    if (w == 4 && memcmp(s, "chat", 4) == 0) {
        ev.type = ZDEM_Q3_EV_CHAT;
        ev.chat_kind = ZDEM_Q3_CHAT_SAY;
    } else if (w == 5 && memcmp(s, "tchat", 5) == 0) {
        ev.type = ZDEM_Q3_EV_TCHAT;
        ev.chat_kind = ZDEM_Q3_CHAT_TEAM;
    } else if (w == 3 && memcmp(s, "mm2", 3) == 0)
        return mm2_event(p, &ev, s, n);
    else if (w == 5 && memcmp(s, "print", 5) == 0)
        ev.type = ZDEM_Q3_EV_PRINT;
    else if (w == 2 && memcmp(s, "cp", 2) == 0)
        ev.type = ZDEM_Q3_EV_CENTERPRINT;
    else if (w == 6 && memcmp(s, "scores", 6) == 0)
        ev.type = ZDEM_Q3_EV_SCORES;
    else
        return 0;
    command_arg(s, n, w, &ev.text, &ev.text_len);
    if (ev.type == ZDEM_Q3_EV_SCORES) {
        /* "scores N red blue ...": the team scores follow the count */
        const char *t = ev.text;
        size_t tn = ev.text_len, k = 0;
        while (k < tn && t[k] != ' ')
            k++;
        if (zdem_q3__parse_int(t + k, tn - k, &ev.score1) == 0) {
            while (k < tn && t[k] == ' ')
                k++;
            while (k < tn && t[k] != ' ')
                k++;
            if (zdem_q3__parse_int(t + k, tn - k, &ev.score2) != 0)
                ev.score2 = 0;
        }
    }
    return zdem_q3__emit_event(p, &ev);
}

zdem_status zdem_q3__parse_server_command(zdem_q3_parser *p, zdem_q3_msg *m, zdem_error *err)
{
    int32_t seq = (int32_t)zdem_q3_pread_bits(m, 32); /* the padded copy */
    size_t n;
    zdem_q3__settle(m);
    n = zdem_q3__read_string(p, m, ZDEM_Q3_MAX_STRING_CHARS, p->str, sizeof p->str);
    if (m->overflow)
        return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, m->bit,
                              "server command runs past the end of the message");
    if (seq <= p->server_command_sequence && p->gamestates)
        return ZDEM_OK; /* already seen (commands are resent until acked) */
    p->server_command_sequence = seq;
    if (handle_command(p, seq, p->str, n, m->bit))
        return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
    return ZDEM_OK;
}

/* Means of death by number: baseq3's meansOfDeath_t (1.32 game source,
 * without the Team Arena entries, as UberDemoTools reads dm3..dm_68) and
 * Quake Live's (its game module's enum as published by minqlx; 31..33
 * are QL's own additions). */
static const char *const mod_q3[] = {
    "unknown", "shotgun", "gauntlet", "machine gun", "grenade", "grenade splash",
    "rocket", "rocket splash", "plasma", "plasma splash", "railgun", "lightning",
    "BFG", "BFG splash", "water", "slime", "lava", "crush", "telefrag", "fall",
    "suicide", "target laser", "trigger hurt", "grapple"};
static const char *const mod_ql[] = {
    "unknown", "shotgun", "gauntlet", "machine gun", "grenade", "grenade splash",
    "rocket", "rocket splash", "plasma", "plasma splash", "railgun", "lightning",
    "BFG", "BFG splash", "water", "slime", "lava", "crush", "telefrag", "fall",
    "suicide", "target laser", "trigger hurt", "nailgun", "chaingun",
    "proximity mine", "kamikaze", "juiced", "grapple", "team switch", "thaw",
    "lightning discharge", "heavy machine gun", "railgun headshot"};

const char *zdem_q3_mod_name(int protocol, int mod)
{
    if (protocol >= 73) {
        if (mod >= 0 && mod < (int)(sizeof mod_ql / sizeof mod_ql[0]))
            return mod_ql[mod];
    } else if (mod >= 0 && mod < (int)(sizeof mod_q3 / sizeof mod_q3[0])) {
        return mod_q3[mod];
    }
    return "unknown";
}

const char *zdem_q3_event_type_name(zdem_q3_event_type t)
{
    static const char *const names[ZDEM_Q3_EV_COUNT] = {
        "obituary", "chat", "tchat", "print", "centerprint", "scores"};
    return (unsigned)t < ZDEM_Q3_EV_COUNT ? names[t] : "unknown";
}

const char *zdem_q3_chat_kind_name(zdem_q3_chat_kind k)
{
    static const char *const names[ZDEM_Q3_CHAT_KIND_COUNT] = {"", "chat", "tchat", "mm2"};
    return (unsigned)k < ZDEM_Q3_CHAT_KIND_COUNT ? names[k] : "";
}
