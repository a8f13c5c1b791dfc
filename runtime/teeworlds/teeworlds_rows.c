/* Teeworlds rows into a zdem_table (see teeworlds_rows.h). */
#include "teeworlds_rows.h"
#include "teeworlds_push.h"
#include "teeworlds_reader.h"
#include "teeworlds_proto.h"
#include "teeworlds_proto7.h"
#include "teeworlds_protocol.h"
#include "zdem_near.h"

#include <string.h>

#define MAXP ZDEM_TW_ROWS_MAX_PROPS
#define MAX_CLIENTS 64

typedef struct tw_prop {
    const char *name;
    uint32_t at;    /* first int of the field in the item */
    uint8_t kind, ints;
    int32_t col;
} tw_prop;

typedef struct tw_player {
    int seen, has_team;
    char name[17], clan[13];
    int32_t country, first_tick, last_tick, team;
} tw_player;

typedef struct tw_rows {
    zdem_tw_reader rd;      /* its buffers follow the struct in mem */
    const zdem_tw_rows_config *c;
    const zdem_tw_obj_desc *obj; /* OBJECT: in the demo's protocol, once its header is read */
    zdem_table *t;
    uint32_t nprops, tick_at;
    tw_prop props[MAXP];
    int32_t cols[8];
    int cols_done;
    tw_player players[MAX_CLIENTS];
    char msg[256];          /* an unknown name's message (err->msg points here) */
    zdem_tw_push push;      /* zdem_tw_rows_feed */
    zdem_status st;         /* what stopped the run from an event */
    zdem_status failed;     /* feed's error: end only finishes */
    uint8_t gather[ZDEM_TW_PUSH_BUFFER];
    int have_tick;
    int32_t first_tick, last_tick; /* HEADER: the tick markers' span */
    /* A delta that changes nothing leaves the snapshot as it was: what
     * was found in it is kept, so that empty deltas cost O(1) each, not a
     * pass over every item (1024 items and a 2-byte delta chunk) */
    const zdem_tw_snap *seen_snap; /* the snapshot last passed over */
    uint32_t seen_version;  /* and its version then */
    uint32_t seen_items;
    uint64_t present;       /* clients whose info item it holds */
    int32_t present_tick;   /* their last_tick, not yet written */
    int match_valid;        /* match[]: r->obj's items in seen_snap */
    uint32_t nmatch;
    uint16_t match[ZDEM_TW_SNAP_MAX_ITEMS]; /* their slots, in item order */
    uint8_t gone[ZDEM_TW_SNAP_MAX_ITEMS / 8]; /* bit per slot: removed by the last delta (0 between uses) */
} tw_rows;

/* The struct, then the reader's buffers at the game's bounds (8-aligned). */
#define ROWS_HEAD ((sizeof(tw_rows) + 7u) & ~(size_t)7u)

size_t zdem_tw_rows_size(void)
{
    return ROWS_HEAD + zdem_tw_reader_mem_size(NULL);
}

static const char *obj_name(const char *name)
{
    if (!name)
        return "character";
    return strcmp(name, "player") == 0 ? "player_info" : name;
}

int zdem_tw_rows_field_at(uint32_t i, const char **object, const char **field,
                          int *is_string)
{
    return zdem_tw_protocol_field_at(&zdem_tw_protocol_06, i, object, field, is_string);
}

int zdem_tw_rows_field_of(const uint8_t *file, size_t n, uint32_t i, const char **object,
                          const char **field, int *is_string)
{
    const zdem_tw_protocol *p = &zdem_tw_protocol_06;
    if (file && n >= 8 + 64 && memcmp(file, "TWDEMO", 6) == 0) {
        zdem_tw_str nv;
        const uint8_t *z = (const uint8_t *)memchr(file + 8, 0, 64);
        int known;
        nv.p = file + 8;
        nv.n = z ? (size_t)(z - nv.p) : 64;
        p = zdem_tw_protocol_select(nv, &known);
    }
    return zdem_tw_protocol_field_at(p, i, object, field, is_string);
}

/* The protocols a name is looked up in: the demo's once its header is
 * read, both before (a name neither has fails at once). */
static const zdem_tw_protocol *const both[2] = {&zdem_tw_protocol_06, &zdem_tw_protocol_07};

/* An unknown object ("snapshot object") or field of the object named
 * oname (the protocols' objects of that name): the closest names into
 * r->msg. */
static zdem_status twrows_unknown(tw_rows *r, const char *bad, const char *oname,
                                  const zdem_tw_protocol *const *ps, int np, zdem_error *err)
{
    zdem_near nr;
    uint32_t k;
    int q;
    const char *obj = oname;
    zdem_near_init(&nr, bad, strlen(bad));
    if (!obj)
        zdem_near_offer(&nr, "player", 6);
    for (q = 0; q < np; q++) {
        const zdem_tw_obj_desc *d;
        if (obj) {
            if ((d = zdem_tw_protocol_obj_by_name(ps[q], obj)) != NULL)
                for (k = 0; k < d->num_fields; k++)
                    zdem_near_offer(&nr, d->fields[k].name, strlen(d->fields[k].name));
            continue;
        }
        for (k = 0; (d = zdem_tw_protocol_obj_at(ps[q], k)) != NULL; k++)
            if (d->name)
                zdem_near_offer(&nr, d->name, strlen(d->name));
    }
    zdem_near_message(&nr, obj ? "field" : "snapshot object", r->msg, sizeof r->msg);
    if (obj) { /* say whose field it is not */
        size_t l = strlen(r->msg);
        const char *of = " (object ";
        if (l + strlen(of) + strlen(obj) + 2u < sizeof r->msg) {
            memcpy(r->msg + l, of, strlen(of));
            l += strlen(of);
            memcpy(r->msg + l, obj, strlen(obj));
            l += strlen(obj);
            r->msg[l++] = ')';
            r->msg[l] = 0;
        }
    }
    return zdem_fail(err, ZDEM_ERR_UNKNOWN_NAME, 0, r->msg);
}

static int32_t col(tw_rows *r, int k, const char *name)
{
    if (!(r->cols_done & (1 << k))) {
        r->cols_done |= 1 << k;
        r->cols[k] = zdem_table_column(r->t, name, strlen(name));
    }
    return r->cols[k];
}

/* One item's part in the players' record: 0.7's de_client_info (names,
 * teams, countries), 0.6's client_info and player_info (its team). */
static void track_item(tw_rows *r, const zdem_tw_snap *s, uint32_t i, int32_t tick)
{
    int id = zdem_tw_snap_id(s, i), type = zdem_tw_snap_type(s, i);
    tw_player *p;
    if (id < 0 || id >= MAX_CLIENTS)
        return;
    p = &r->players[id];
    if (r->rd.proto->version == 7) {
        zdem_tw7_obj_de_client_info ci;
        if (type != ZDEM_TW7_OBJ_DE_CLIENT_INFO)
            return;
        zdem_tw7_obj_de_client_info_decode(zdem_tw_snap_data(s, i), s->len[i], &ci);
        memcpy(p->name, ci.name, sizeof p->name);
        memcpy(p->clan, ci.clan, sizeof p->clan);
        p->country = ci.country;
        p->has_team = 1;
        p->team = ci.team;
    } else if (type == ZDEM_TW_OBJ_PLAYER_INFO) {
        zdem_tw_obj_player_info pi;
        zdem_tw_obj_player_info_decode(zdem_tw_snap_data(s, i), s->len[i], &pi);
        p->has_team = 1;
        p->team = pi.team;
        return;
    } else if (type == ZDEM_TW_OBJ_CLIENT_INFO) {
        zdem_tw_obj_client_info ci;
        zdem_tw_obj_client_info_decode(zdem_tw_snap_data(s, i), s->len[i], &ci);
        memcpy(p->name, ci.name, sizeof p->name);
        memcpy(p->clan, ci.clan, sizeof p->clan);
        p->country = ci.country;
    } else {
        return;
    }
    r->present |= (uint64_t)1 << id;
    if (!p->seen)
        p->first_tick = tick;
    p->seen = 1;
    p->last_tick = tick;
}

/* The clients of the snapshot last passed over were in every snapshot up
 * to present_tick. */
static void present_flush(tw_rows *r)
{
    int id;
    for (id = 0; id < MAX_CLIENTS; id++)
        if (r->present >> id & 1u)
            r->players[id].last_tick = r->present_tick;
}

/* How this snapshot follows the one passed over last. */
enum { SNAP_NEW, SNAP_SAME, SNAP_CHANGED };

/* What the last delta changed (zdem_tw_snap_changes) and wrote. */
typedef struct tw_change {
    uint32_t from;          /* the version of the snapshot it changed */
    const uint32_t *rkey;   /* the removed items' keys and slots */
    const uint16_t *rslot, *w;
    uint32_t nremoved, added, first_added, nw;
} tw_change;

/* Client names from the snapshot's client_info items, for the rows that
 * name players. SNAP_SAME: the snapshot passed over last, unchanged;
 * SNAP_CHANGED: that one changed as *c tells, so that only the items
 * removed and written are read (a delta costs what it changes: a client
 * whose info item goes was present up to the snapshot before); SNAP_NEW:
 * every item. */
static void track(tw_rows *r, const zdem_tw_snap *s, int32_t tick, int how,
                  const tw_change *c)
{
    uint32_t i;
    if (how != SNAP_NEW) {
        if (how == SNAP_CHANGED) {
            int info = r->rd.proto->version == 7 ? ZDEM_TW7_OBJ_DE_CLIENT_INFO
                                                 : ZDEM_TW_OBJ_CLIENT_INFO;
            for (i = 0; i < c->nremoved; i++) {
                uint32_t key = c->rkey[i], id = key & 0xffffu;
                if ((int)(key >> 16) == info && id < MAX_CLIENTS && (r->present >> id & 1u)) {
                    r->players[id].last_tick = r->present_tick;
                    r->present &= ~((uint64_t)1 << id);
                }
            }
            for (i = 0; i < c->nw; i++)
                track_item(r, s, c->w[i], tick);
        }
        r->present_tick = tick;
        return;
    }
    present_flush(r);
    r->present = 0;
    r->present_tick = tick;
    for (i = zdem_tw_snap_first(s); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(s, i))
        track_item(r, s, i, tick);
}

static void name_cell(tw_rows *r, int k, const char *colname, int32_t id)
{
    int32_t c = col(r, k, colname);
    if (id >= 0 && id < MAX_CLIENTS && r->players[id].seen)
        zdem_table_str(r->t, c, r->players[id].name, strlen(r->players[id].name));
}

static int twrows_tick_wanted(tw_rows *r, int32_t tick)
{
    const zdem_tw_rows_config *c = r->c;
    if (c->every > 1u && (tick < 0 || (uint32_t)tick % c->every != 0))
        return 0;
    if (c->ticks) {
        while (r->tick_at < c->nticks && c->ticks[r->tick_at] < tick)
            r->tick_at++;
        return r->tick_at < c->nticks && c->ticks[r->tick_at] == tick;
    }
    return 1;
}

static zdem_status objects(tw_rows *r, const zdem_tw_snap *s, int32_t tick, int how,
                           const tw_change *c)
{
    uint32_t i, j, k;
    zdem_status st;
    if (how == SNAP_NEW) {
        r->match_valid = 0;
    } else if (how == SNAP_CHANGED && r->match_valid) {
        /* the items found stay, less the removed ones (by slot: a slot
         * may hold a new item now); the new ones are the last `added`,
         * looked at alone; a type's UUID item written or removed may give
         * other items another object: then every item again */
        for (j = 0; j < c->nw && r->match_valid; j++)
            if (zdem_tw_snap_type(s, c->w[j]) == 0)
                r->match_valid = 0;
        for (j = 0; j < c->nremoved && r->match_valid; j++)
            if (c->rkey[j] >> 16 == 0)
                r->match_valid = 0;
        if (c->nremoved && r->match_valid) {
            uint32_t m = 0;
            for (j = 0; j < c->nremoved; j++)
                r->gone[c->rslot[j] >> 3] |= (uint8_t)(1u << (c->rslot[j] & 7u));
            for (j = 0; j < r->nmatch; j++)
                if (!(r->gone[r->match[j] >> 3] >> (r->match[j] & 7u) & 1u))
                    r->match[m++] = r->match[j];
            for (j = 0; j < c->nremoved; j++)
                r->gone[c->rslot[j] >> 3] = 0;
            r->nmatch = m;
        }
        for (i = c->first_added, k = 0; k < c->added && r->match_valid; k++, i = zdem_tw_snap_next(s, i))
            if (zdem_tw_protocol_item_desc(r->rd.proto, s, i) == r->obj) {
                if (r->nmatch >= ZDEM_TW_SNAP_MAX_ITEMS)
                    r->match_valid = 0;
                else
                    r->match[r->nmatch++] = (uint16_t)i;
            }
    }
    if (!twrows_tick_wanted(r, tick))
        return ZDEM_OK;
    if (!r->match_valid) {
        r->nmatch = 0;
        for (i = zdem_tw_snap_first(s); i != ZDEM_TW_SNAP_END && r->nmatch < ZDEM_TW_SNAP_MAX_ITEMS;
             i = zdem_tw_snap_next(s, i))
            if (zdem_tw_protocol_item_desc(r->rd.proto, s, i) == r->obj)
                r->match[r->nmatch++] = (uint16_t)i;
        /* more items than the game's bound (a caller's larger limits):
         * passed over again each time */
        r->match_valid = i == ZDEM_TW_SNAP_END;
    }
    for (j = 0; j < r->nmatch; j++) {
        const int32_t *d;
        uint32_t len;
        i = r->match[j];
        if ((st = zdem_table_row(r->t)) != ZDEM_OK)
            return st;
        zdem_table_int(r->t, col(r, 0, "tick"), tick);
        zdem_table_int(r->t, col(r, 1, "entity"), zdem_tw_snap_id(s, i));
        if (!r->cols_done || !(r->cols_done & 4)) {
            r->cols_done |= 4;
            for (k = 0; k < r->nprops; k++)
                r->props[k].col = zdem_table_column(r->t, r->props[k].name, strlen(r->props[k].name));
        }
        d = zdem_tw_snap_data(s, i);
        len = s->len[i];
        for (k = 0; k < r->nprops; k++) {
            const tw_prop *p = &r->props[k];
            if (p->at + p->ints > len) /* a short item: no value */
                continue;
            if (p->kind == ZDEM_TW_FIELD_PACKED_STR) {
                char buf[4 * 255 + 1];
                size_t n = zdem_tw_ints_to_str(d + p->at, p->ints, buf, sizeof buf);
                zdem_table_str(r->t, p->col, buf, n);
            } else
                zdem_table_int(r->t, p->col, d[p->at]);
        }
    }
    return ZDEM_OK;
}

/* One chat row and one kill row, whichever protocol the message came in. */
static zdem_status chat_row(tw_rows *r, int32_t tick, int64_t team, int32_t client_id,
                            const void *text, size_t text_len)
{
    zdem_table *t = r->t;
    zdem_status st;
    if ((st = zdem_table_row(t)) != ZDEM_OK)
        return st;
    zdem_table_int(t, col(r, 0, "tick"), tick);
    zdem_table_int(t, col(r, 1, "team"), team);
    zdem_table_int(t, col(r, 2, "client_id"), client_id);
    name_cell(r, 3, "name", client_id);
    zdem_table_str(t, col(r, 4, "text"), text, text_len);
    return ZDEM_OK;
}

static zdem_status kill_row(tw_rows *r, int32_t tick, int32_t killer, int32_t victim,
                            int64_t weapon, int64_t mode_special)
{
    zdem_table *t = r->t;
    zdem_status st;
    if ((st = zdem_table_row(t)) != ZDEM_OK)
        return st;
    zdem_table_int(t, col(r, 0, "tick"), tick);
    zdem_table_int(t, col(r, 1, "killer"), killer);
    name_cell(r, 2, "killer_name", killer);
    zdem_table_int(t, col(r, 3, "victim"), victim);
    name_cell(r, 4, "victim_name", victim);
    zdem_table_int(t, col(r, 5, "weapon"), weapon);
    zdem_table_int(t, col(r, 6, "mode_special"), mode_special);
    return ZDEM_OK;
}

/* 0.7's chat (team: its mode less one, 0 everyone, 1 the team, 2 a
 * whisper) and kill messages, in the 0.6 rows' columns. */
static zdem_status message7(tw_rows *r, const zdem_tw_event *ev)
{
    const zdem_tw_msg *m = &ev->msg;
    int32_t tick = ev->chunk.tick;
    if (r->c->kind == ZDEM_TW_ROWS_CHAT && m->id == ZDEM_TW7_MSG_SV_CHAT) {
        zdem_tw7_game_sv_chat c;
        if (zdem_tw7_game_sv_chat_decode(m->body, m->body_len, &c) != ZDEM_OK)
            return ZDEM_OK;
        return chat_row(r, tick, c.mode - 1, c.client_id, c.message.p, c.message.n);
    } else if (r->c->kind == ZDEM_TW_ROWS_KILLS && m->id == ZDEM_TW7_MSG_SV_KILL_MSG) {
        zdem_tw7_game_sv_kill_msg k;
        if (zdem_tw7_game_sv_kill_msg_decode(m->body, m->body_len, &k) != ZDEM_OK)
            return ZDEM_OK;
        return kill_row(r, tick, k.killer, k.victim, k.weapon, k.mode_special);
    }
    return ZDEM_OK;
}

static zdem_status message(tw_rows *r, const zdem_tw_event *ev)
{
    const zdem_tw_msg *m = &ev->msg;
    int32_t tick = ev->chunk.tick;
    if (!ev->desc || m->sys || m->id == 0)
        return ZDEM_OK;
    if (r->rd.proto->version == 7)
        return message7(r, ev);
    if (r->c->kind == ZDEM_TW_ROWS_CHAT && m->id == ZDEM_TW_MSG_SV_CHAT) {
        zdem_tw_game_sv_chat c;
        if (zdem_tw_game_sv_chat_decode(m->body, m->body_len, &c) != ZDEM_OK)
            return ZDEM_OK;
        return chat_row(r, tick, c.team, c.client_id, c.message.p, c.message.n);
    } else if (r->c->kind == ZDEM_TW_ROWS_KILLS && m->id == ZDEM_TW_MSG_SV_KILL_MSG) {
        zdem_tw_game_sv_kill_msg k;
        if (zdem_tw_game_sv_kill_msg_decode(m->body, m->body_len, &k) != ZDEM_OK)
            return ZDEM_OK;
        return kill_row(r, tick, k.killer, k.victim, k.weapon, k.mode_special);
    }
    return ZDEM_OK;
}

static zdem_status players(tw_rows *r)
{
    int i;
    zdem_status st;
    present_flush(r);
    for (i = 0; i < MAX_CLIENTS; i++) {
        const tw_player *p = &r->players[i];
        if (!p->seen)
            continue;
        if ((st = zdem_table_row(r->t)) != ZDEM_OK)
            return st;
        zdem_table_int(r->t, col(r, 0, "slot"), i);
        zdem_table_str(r->t, col(r, 1, "name"), p->name, strlen(p->name));
        if (p->has_team)
            zdem_table_int(r->t, col(r, 2, "team"), p->team);
        else
            col(r, 2, "team");
        zdem_table_str(r->t, col(r, 3, "clan"), p->clan, strlen(p->clan));
        zdem_table_int(r->t, col(r, 4, "country"), p->country);
        zdem_table_int(r->t, col(r, 5, "first_tick"), p->first_tick);
        zdem_table_int(r->t, col(r, 6, "last_tick"), p->last_tick);
    }
    return ZDEM_OK;
}

static void twr_hex32(char *out, const uint8_t *d)
{
    static const char digits[] = "0123456789abcdef";
    int i;
    for (i = 0; i < 32; i++) {
        out[2 * i] = digits[d[i] >> 4];
        out[2 * i + 1] = digits[d[i] & 15];
    }
}

/* The header's row (HEADER), with the tick span read after it. */
static zdem_status twr_header(tw_rows *r)
{
    const zdem_tw_demo_info *in = &r->rd.info;
    zdem_table *t = r->t;
    zdem_status st;
    if ((st = zdem_table_row(t)) != ZDEM_OK)
        return st;
    zdem_table_int(t, col(r, 0, "version"), in->version);
    zdem_table_str(t, col(r, 1, "net_version"), in->net_version.p, in->net_version.n);
    zdem_table_str(t, col(r, 2, "map_name"), in->map_name.p, in->map_name.n);
    zdem_table_int(t, col(r, 3, "map_size"), in->map_size);
    zdem_table_int(t, col(r, 4, "map_crc"), in->map_crc);
    if (in->has_sha256) {
        char h[64];
        twr_hex32(h, in->map_sha256);
        zdem_table_str(t, col(r, 5, "map_sha256"), h, sizeof h);
    } else
        col(r, 5, "map_sha256");
    zdem_table_str(t, col(r, 6, "type"), in->type.p, in->type.n);
    zdem_table_int(t, col(r, 7, "length"), in->length);
    zdem_table_str(t, zdem_table_column(t, "timestamp", 9), in->timestamp.p, in->timestamp.n);
    zdem_table_int(t, zdem_table_column(t, "timeline_markers", 16), in->num_timeline_markers);
    if (r->have_tick) {
        zdem_table_int(t, zdem_table_column(t, "first_tick", 10), r->first_tick);
        zdem_table_int(t, zdem_table_column(t, "last_tick", 9), r->last_tick);
    } else {
        zdem_table_column(t, "first_tick", 10);
        zdem_table_column(t, "last_tick", 9);
    }
    return ZDEM_OK;
}

zdem_status zdem_tw_rows_start(void *mem, size_t size, const zdem_tw_rows_config *c,
                               zdem_table *t, zdem_error *err)
{
    tw_rows *r = (tw_rows *)mem;
    uint32_t i, k;
    if (!mem || size < zdem_tw_rows_size() || ((uintptr_t)mem & 7u))
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "tw rows: memory smaller than zdem_tw_rows_size()");
    memset(r, 0, sizeof *r);
    if (zdem_tw_reader_init(&r->rd, NULL, (uint8_t *)mem + ROWS_HEAD, size - ROWS_HEAD, err) != ZDEM_OK)
        return err->code;
    r->c = c;
    r->t = t;
    if (c->kind == ZDEM_TW_ROWS_OBJECT) {
        const char *on = obj_name(c->object);
        int q, has = 0;
        for (q = 0; q < 2; q++)
            has |= zdem_tw_protocol_obj_by_name(both[q], on) != NULL;
        if (!has)
            return twrows_unknown(r, c->object, NULL, both, 2, err);
        if (c->nprops > MAXP)
            return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "tw rows: more than 64 fields");
        for (i = 0; i < c->nprops; i++) {
            for (q = 0, has = 0; q < 2; q++) {
                const zdem_tw_obj_desc *d = zdem_tw_protocol_obj_by_name(both[q], on);
                for (k = 0; d && k < d->num_fields && !has; k++)
                    has = strcmp(d->fields[k].name, c->props[i]) == 0;
            }
            if (!has)
                return twrows_unknown(r, c->props[i], on, both, 2, err);
        }
        r->nprops = c->nprops;
    }
    return ZDEM_OK;
}

/* The object and its fields in the demo's protocol, once its header is
 * read (a name of the other protocol only is unknown here). */
static zdem_status twrows_resolve(tw_rows *r, zdem_error *err)
{
    const zdem_tw_rows_config *c = r->c;
    const zdem_tw_protocol *p = r->rd.proto;
    const char *on = obj_name(c->object);
    uint32_t i, k;
    if (c->kind != ZDEM_TW_ROWS_OBJECT)
        return ZDEM_OK;
    if (!(r->obj = zdem_tw_protocol_obj_by_name(p, on)))
        return twrows_unknown(r, c->object, NULL, &p, 1, err);
    for (i = 0; i < r->nprops; i++) {
        uint32_t at = 0;
        for (k = 0; k < r->obj->num_fields; k++) {
            if (strcmp(r->obj->fields[k].name, c->props[i]) == 0)
                break;
            at += r->obj->fields[k].ints;
        }
        if (k == r->obj->num_fields)
            return twrows_unknown(r, c->props[i], on, &p, 1, err);
        r->props[i].name = c->props[i];
        r->props[i].at = at;
        r->props[i].kind = r->obj->fields[k].kind;
        r->props[i].ints = r->obj->fields[k].ints;
    }
    return ZDEM_OK;
}

static int twrows_push_header(void *user, const zdem_tw_demo_info *info)
{
    tw_rows *r = (tw_rows *)user;
    zdem_error e;
    (void)info;
    zdem_error_clear(&e);
    return (r->st = twrows_resolve(r, &e)) != ZDEM_OK;
}

/* One chunk, from the reader or the push input. */
static zdem_status twrows_event(tw_rows *r, const zdem_tw_event *ev)
{
    if (ev->chunk.kind == ZDEM_TW_CHUNK_TICK) {
        if (!r->have_tick)
            r->first_tick = ev->chunk.tick;
        r->have_tick = 1;
        r->last_tick = ev->chunk.tick;
    }
    if (ev->snap) {
        /* unchanged: the same snapshot (a delta copies it, an empty one
         * does not) with nothing written into it */
        tw_change c;
        int all, how = SNAP_NEW;
        c.nw = zdem_tw_snap_written(&r->rd.snaps, &c.w, &all);
        if (ev->snap == r->seen_snap && ev->snap->version == r->seen_version &&
            ev->snap->num_items == r->seen_items && c.nw == 0 && !all)
            how = SNAP_SAME;
        else if (!all &&
                 zdem_tw_snap_changes(&r->rd.snaps, &c.from, &c.rkey, &c.rslot, &c.nremoved,
                                      &c.added, &c.first_added) &&
                 ev->snap == r->seen_snap && c.from == r->seen_version && r->seen_items >= c.nremoved &&
                 ev->snap->num_items == r->seen_items - c.nremoved + c.added)
            how = SNAP_CHANGED; /* the one passed over, changed item by item */
        r->seen_snap = ev->snap;
        r->seen_version = ev->snap->version;
        r->seen_items = ev->snap->num_items;
        track(r, ev->snap, ev->chunk.tick, how, &c);
        if (r->c->kind == ZDEM_TW_ROWS_OBJECT)
            return objects(r, ev->snap, ev->chunk.tick, how, &c);
    } else if (ev->chunk.kind == ZDEM_TW_CHUNK_MESSAGE)
        return message(r, ev);
    return ZDEM_OK;
}

static int twrows_push_event(void *user, const zdem_tw_event *ev)
{
    tw_rows *r = (tw_rows *)user;
    return (r->st = twrows_event(r, ev)) != ZDEM_OK;
}

/* The players' rows, then the last chunk. */
static zdem_status twrows_finish(tw_rows *r, zdem_error *err)
{
    zdem_status st = ZDEM_OK;
    if (r->c->kind == ZDEM_TW_ROWS_PLAYERS)
        st = players(r);
    if (st == ZDEM_OK && r->c->kind == ZDEM_TW_ROWS_HEADER)
        st = twr_header(r);
    if (st != ZDEM_OK)
        return zdem_fail(err, st, 0, "stopped by the table's consumer");
    if ((st = zdem_table_flush(r->t)) != ZDEM_OK)
        return zdem_fail(err, st, 0, "stopped by the table's consumer");
    return ZDEM_OK;
}

zdem_status zdem_tw_rows_feed(void *mem, const uint8_t *data, size_t n, zdem_error *err)
{
    tw_rows *r = (tw_rows *)mem;
    zdem_status st;
    if (!r->push.r) { /* the first piece */
        zdem_tw_push_init(&r->push, &r->rd, r->gather, sizeof r->gather);
        r->push.on_event = twrows_push_event;
        r->push.on_header = twrows_push_header;
        r->push.user = r;
        r->rd.decode_messages = r->c->kind == ZDEM_TW_ROWS_CHAT || r->c->kind == ZDEM_TW_ROWS_KILLS;
        r->rd.decode_snapshots = r->c->kind != ZDEM_TW_ROWS_HEADER;
    }
    if (r->failed != ZDEM_OK)
        return zdem_fail(err, r->failed, 0, "push input already failed");
    st = zdem_tw_push_feed(&r->push, data, n, err);
    if (st != ZDEM_OK && r->st != ZDEM_OK) {
        zdem_error_clear(err);
        st = zdem_fail(err, r->st, 0,
                       r->st == ZDEM_ERR_UNKNOWN_NAME ? r->msg : "stopped by the table's consumer");
    }
    r->failed = st;
    return st;
}

zdem_status zdem_tw_rows_end(void *mem, zdem_error *err)
{
    tw_rows *r = (tw_rows *)mem;
    zdem_status st, fs;
    zdem_error fe;
    if (!r->push.r && (st = zdem_tw_rows_feed(mem, (const uint8_t *)"", 0, err)) != ZDEM_OK)
        return st;
    if (r->failed == ZDEM_ERR_ABORTED || (r->st != ZDEM_OK && r->failed != ZDEM_OK))
        return r->failed; /* the consumer stopped it: nothing more to flush */
    st = r->failed != ZDEM_OK ? r->failed : zdem_tw_push_end(&r->push, err);
    zdem_error_clear(&fe);
    if ((fs = twrows_finish(r, &fe)) != ZDEM_OK) {
        *err = fe;
        return fs;
    }
    return st;
}

zdem_status zdem_tw_rows_run(void *mem, size_t size, const zdem_tw_rows_config *c,
                             const uint8_t *file, size_t n, zdem_table *t,
                             zdem_error *err)
{
    tw_rows *r = (tw_rows *)mem;
    zdem_tw_event ev;
    zdem_status st = ZDEM_OK;
    int got;
    if ((st = zdem_tw_rows_start(mem, size, c, t, err)) != ZDEM_OK)
        return st;
    zdem_error_clear(err);
    if (zdem_tw_reader_open(&r->rd, file, n, err) != ZDEM_OK)
        return err->code;
    if ((st = twrows_resolve(r, err)) != ZDEM_OK)
        return st;
    r->rd.decode_messages = c->kind == ZDEM_TW_ROWS_CHAT || c->kind == ZDEM_TW_ROWS_KILLS;
    r->rd.decode_snapshots = c->kind != ZDEM_TW_ROWS_HEADER; /* the header needs ticks only */
    while ((got = zdem_tw_reader_next(&r->rd, &ev, err)) == 1)
        if ((st = twrows_event(r, &ev)) != ZDEM_OK)
            break;
    if (st != ZDEM_OK)
        return zdem_fail(err, st, 0, "stopped by the table's consumer");
    if ((st = twrows_finish(r, err)) != ZDEM_OK)
        return st;
    return got < 0 ? (err->code ? err->code : ZDEM_ERR_CORRUPT) : ZDEM_OK;
}
