/* Quake III rows into a zdem_table (see quake3_rows.h). */
#include "quake3_rows.h"
#include "quake3.h"
#include "quake3_push.h"
#include "zdem_near.h"

#include <stddef.h>
#include <string.h>

/* A netfield of the decoded structs: name, place, elements, float. The
 * structs are the generated supersets of every protocol's fields. */
typedef struct q3_field {
    const char *name;
    size_t off;
    uint8_t n, flt;
} q3_field;

static const q3_field entity_fields[] = {
    {"number", offsetof(zdem_q3_entity, number), 1, 0},
    {"pos_trTime", offsetof(zdem_q3_entity, pos_trTime), 1, 0},
    {"pos_trBase", offsetof(zdem_q3_entity, pos_trBase), 3, 1},
    {"pos_trDelta", offsetof(zdem_q3_entity, pos_trDelta), 3, 1},
    {"apos_trBase", offsetof(zdem_q3_entity, apos_trBase), 3, 1},
    {"event", offsetof(zdem_q3_entity, event), 1, 0},
    {"angles2", offsetof(zdem_q3_entity, angles2), 3, 1},
    {"eType", offsetof(zdem_q3_entity, eType), 1, 0},
    {"torsoAnim", offsetof(zdem_q3_entity, torsoAnim), 1, 0},
    {"eventParm", offsetof(zdem_q3_entity, eventParm), 1, 0},
    {"legsAnim", offsetof(zdem_q3_entity, legsAnim), 1, 0},
    {"groundEntityNum", offsetof(zdem_q3_entity, groundEntityNum), 1, 0},
    {"pos_trType", offsetof(zdem_q3_entity, pos_trType), 1, 0},
    {"eFlags", offsetof(zdem_q3_entity, eFlags), 1, 0},
    {"otherEntityNum", offsetof(zdem_q3_entity, otherEntityNum), 1, 0},
    {"weapon", offsetof(zdem_q3_entity, weapon), 1, 0},
    {"clientNum", offsetof(zdem_q3_entity, clientNum), 1, 0},
    {"angles", offsetof(zdem_q3_entity, angles), 3, 1},
    {"pos_trDuration", offsetof(zdem_q3_entity, pos_trDuration), 1, 0},
    {"apos_trType", offsetof(zdem_q3_entity, apos_trType), 1, 0},
    {"origin", offsetof(zdem_q3_entity, origin), 3, 1},
    {"solid", offsetof(zdem_q3_entity, solid), 1, 0},
    {"powerups", offsetof(zdem_q3_entity, powerups), 1, 0},
    {"modelindex", offsetof(zdem_q3_entity, modelindex), 1, 0},
    {"otherEntityNum2", offsetof(zdem_q3_entity, otherEntityNum2), 1, 0},
    {"loopSound", offsetof(zdem_q3_entity, loopSound), 1, 0},
    {"generic1", offsetof(zdem_q3_entity, generic1), 1, 0},
    {"origin2", offsetof(zdem_q3_entity, origin2), 3, 1},
    {"modelindex2", offsetof(zdem_q3_entity, modelindex2), 1, 0},
    {"time", offsetof(zdem_q3_entity, time), 1, 0},
    {"apos_trTime", offsetof(zdem_q3_entity, apos_trTime), 1, 0},
    {"apos_trDuration", offsetof(zdem_q3_entity, apos_trDuration), 1, 0},
    {"apos_trDelta", offsetof(zdem_q3_entity, apos_trDelta), 3, 1},
    {"time2", offsetof(zdem_q3_entity, time2), 1, 0},
    {"constantLight", offsetof(zdem_q3_entity, constantLight), 1, 0},
    {"frame", offsetof(zdem_q3_entity, frame), 1, 0},
    {"pos_gravity", offsetof(zdem_q3_entity, pos_gravity), 1, 0},
    {"apos_gravity", offsetof(zdem_q3_entity, apos_gravity), 1, 0},
    {"jumpTime", offsetof(zdem_q3_entity, jumpTime), 1, 0},
    {"doubleJumped", offsetof(zdem_q3_entity, doubleJumped), 1, 0},
    {"health", offsetof(zdem_q3_entity, health), 1, 0},
    {"armor", offsetof(zdem_q3_entity, armor), 1, 0},
    {"location", offsetof(zdem_q3_entity, location), 1, 0},
};
static const q3_field player_fields[] = {
    {"commandTime", offsetof(zdem_q3_player, commandTime), 1, 0},
    {"origin", offsetof(zdem_q3_player, origin), 3, 1},
    {"bobCycle", offsetof(zdem_q3_player, bobCycle), 1, 0},
    {"velocity", offsetof(zdem_q3_player, velocity), 3, 1},
    {"viewangles", offsetof(zdem_q3_player, viewangles), 3, 1},
    {"weaponTime", offsetof(zdem_q3_player, weaponTime), 1, 0},
    {"legsTimer", offsetof(zdem_q3_player, legsTimer), 1, 0},
    {"pm_time", offsetof(zdem_q3_player, pm_time), 1, 0},
    {"eventSequence", offsetof(zdem_q3_player, eventSequence), 1, 0},
    {"torsoAnim", offsetof(zdem_q3_player, torsoAnim), 1, 0},
    {"movementDir", offsetof(zdem_q3_player, movementDir), 1, 0},
    {"events", offsetof(zdem_q3_player, events), 2, 0},
    {"legsAnim", offsetof(zdem_q3_player, legsAnim), 1, 0},
    {"pm_flags", offsetof(zdem_q3_player, pm_flags), 1, 0},
    {"groundEntityNum", offsetof(zdem_q3_player, groundEntityNum), 1, 0},
    {"weaponstate", offsetof(zdem_q3_player, weaponstate), 1, 0},
    {"eFlags", offsetof(zdem_q3_player, eFlags), 1, 0},
    {"externalEvent", offsetof(zdem_q3_player, externalEvent), 1, 0},
    {"gravity", offsetof(zdem_q3_player, gravity), 1, 0},
    {"speed", offsetof(zdem_q3_player, speed), 1, 0},
    {"delta_angles", offsetof(zdem_q3_player, delta_angles), 3, 0},
    {"externalEventParm", offsetof(zdem_q3_player, externalEventParm), 1, 0},
    {"viewheight", offsetof(zdem_q3_player, viewheight), 1, 0},
    {"damageEvent", offsetof(zdem_q3_player, damageEvent), 1, 0},
    {"damageYaw", offsetof(zdem_q3_player, damageYaw), 1, 0},
    {"damagePitch", offsetof(zdem_q3_player, damagePitch), 1, 0},
    {"damageCount", offsetof(zdem_q3_player, damageCount), 1, 0},
    {"generic1", offsetof(zdem_q3_player, generic1), 1, 0},
    {"pm_type", offsetof(zdem_q3_player, pm_type), 1, 0},
    {"torsoTimer", offsetof(zdem_q3_player, torsoTimer), 1, 0},
    {"eventParms", offsetof(zdem_q3_player, eventParms), 2, 0},
    {"clientNum", offsetof(zdem_q3_player, clientNum), 1, 0},
    {"weapon", offsetof(zdem_q3_player, weapon), 1, 0},
    {"grapplePoint", offsetof(zdem_q3_player, grapplePoint), 3, 1},
    {"jumppad_ent", offsetof(zdem_q3_player, jumppad_ent), 1, 0},
    {"loopSound", offsetof(zdem_q3_player, loopSound), 1, 0},
    {"jumpTime", offsetof(zdem_q3_player, jumpTime), 1, 0},
    {"doubleJumped", offsetof(zdem_q3_player, doubleJumped), 1, 0},
    {"weaponPrimary", offsetof(zdem_q3_player, weaponPrimary), 1, 0},
    {"crouchTime", offsetof(zdem_q3_player, crouchTime), 1, 0},
    {"crouchSlideTime", offsetof(zdem_q3_player, crouchSlideTime), 1, 0},
    {"location", offsetof(zdem_q3_player, location), 1, 0},
    {"fov", offsetof(zdem_q3_player, fov), 1, 0},
    {"forwardmove", offsetof(zdem_q3_player, forwardmove), 1, 0},
    {"rightmove", offsetof(zdem_q3_player, rightmove), 1, 0},
    {"upmove", offsetof(zdem_q3_player, upmove), 1, 0},
    {"stats", offsetof(zdem_q3_player, stats), 16, 0},
    {"persistant", offsetof(zdem_q3_player, persistant), 16, 0},
    {"ammo", offsetof(zdem_q3_player, ammo), 16, 0},
    {"powerups", offsetof(zdem_q3_player, powerups), 16, 0},
};

#define MAXP ZDEM_Q3_ROWS_MAX_PROPS
#define NAME_MAX_LEN 64

typedef struct q3_prop {
    const q3_field *f;
    int index;            /* element, or -1: all of them */
    char name[NAME_MAX_LEN + 1];
    int32_t col[16];      /* per element (index -1), else col[0] */
} q3_prop;

#define PNAME_MAX 64 /* player names kept (longer ones are cut) */

/* A player's stay in a gamestate (ZDEM_Q3_ROWS_PLAYERS). */
typedef struct q3_stay {
    uint8_t active, seen;     /* seen: a snapshot while there */
    char name[PNAME_MAX];
    int32_t team;             /* -1: none */
    int32_t first, last;      /* server times */
} q3_stay;

typedef struct q3_rows {
    const zdem_q3_rows_config *c;
    zdem_table *t;
    uint32_t nprops;
    q3_prop props[MAXP];
    uint32_t time_at, snaps;
    zdem_status st;       /* a flush callback's stop */
    int32_t col_time, col_ent, col_gs, cols_done;
    int32_t ev_cols[12];
    char msg[256];        /* an unknown field's message (err->msg points here) */
    zdem_q3_parser *p;
    zdem_q3_push push;    /* zdem_q3_rows_feed */
    /* HEADER: the gamestate being read */
    uint32_t gs;          /* 0: none yet */
    int protocol;
    int32_t client_num, first_time, last_time;
    uint32_t gs_snaps;
    char map[PNAME_MAX], gamename[PNAME_MAX];
    /* PLAYERS */
    int players_dirty;
    q3_stay stay[ZDEM_Q3_MAX_CLIENTS];
} q3_rows;

size_t zdem_q3_rows_size(void)
{
    return ((sizeof(q3_rows) + 15u) & ~(size_t)15u) + zdem_q3_parser_size();
}

/* "pos.trBase[2]" -> base "pos_trBase", index 2; "stats.0" likewise. */
static const q3_field *find_field(int player, const char *name, int *index)
{
    char base[NAME_MAX_LEN + 1];
    size_t i, n = 0, cnt = player ? sizeof player_fields / sizeof player_fields[0]
                                  : sizeof entity_fields / sizeof entity_fields[0];
    const q3_field *tab = player ? player_fields : entity_fields;
    const char *p = name;
    *index = -1;
    while (*p && *p != '[' && !(*p == '.' && p[1] >= '0' && p[1] <= '9')) {
        if (n >= NAME_MAX_LEN)
            return NULL;
        base[n++] = *p == '.' ? '_' : *p;
        p++;
    }
    base[n] = 0;
    if (*p) {
        int v = 0;
        p++;
        if (*p < '0' || *p > '9')
            return NULL;
        while (*p >= '0' && *p <= '9' && v < 100)
            v = v * 10 + (*p++ - '0');
        if (*p == ']')
            p++;
        if (*p)
            return NULL;
        *index = v;
    }
    for (i = 0; i < cnt; i++)
        if (strcmp(tab[i].name, base) == 0)
            return *index < (int)tab[i].n ? &tab[i] : NULL;
    return NULL;
}

int zdem_q3_rows_field_known(int player, const char *name)
{
    int index;
    return find_field(player, name, &index) != NULL;
}

int zdem_q3_rows_field_at(int player, uint32_t i, const char **name, uint32_t *elements,
                          int *is_float)
{
    size_t cnt = player ? sizeof player_fields / sizeof player_fields[0]
                        : sizeof entity_fields / sizeof entity_fields[0];
    const q3_field *f = player ? player_fields : entity_fields;
    if (i >= cnt)
        return 0;
    *name = f[i].name;
    *elements = f[i].n;
    *is_float = f[i].flt;
    return 1;
}

/* "unknown playerstate field 'viewangle'; did you mean 'viewangles', ...?"
 * into r->msg: every field and every element is a candidate. */
static zdem_status unknown_field(q3_rows *r, int player, const char *bad, zdem_error *err)
{
    zdem_near nr;
    const char *name;
    uint32_t i, k, n;
    int flt;
    zdem_near_init(&nr, bad, strlen(bad));
    for (i = 0; zdem_q3_rows_field_at(player, i, &name, &n, &flt); i++) {
        zdem_near_offer(&nr, name, strlen(name));
        for (k = 0; n > 1u && k < n; k++) {
            char el[NAME_MAX_LEN + 8];
            size_t l = strlen(name);
            memcpy(el, name, l);
            el[l++] = '.';
            if (k >= 10u)
                el[l++] = (char)('0' + k / 10u);
            el[l++] = (char)('0' + k % 10u);
            zdem_near_offer(&nr, el, l);
        }
    }
    zdem_near_message(&nr, player ? "playerstate field" : "entity field", r->msg, sizeof r->msg);
    return zdem_fail(err, ZDEM_ERR_UNKNOWN_NAME, 0, r->msg);
}

static void put_field(q3_rows *r, q3_prop *pr, const uint8_t *base)
{
    int k, from = pr->index < 0 ? 0 : pr->index, to = pr->index < 0 ? pr->f->n : pr->index + 1;
    for (k = from; k < to; k++) {
        int32_t v;
        int32_t col = pr->col[pr->index < 0 && pr->f->n > 1 ? k : 0];
        memcpy(&v, base + pr->f->off + sizeof(int32_t) * (size_t)k, sizeof v);
        if (pr->f->flt) { /* kept as the IEEE-754 bits the wire carried */
            float x;
            memcpy(&x, &v, sizeof x);
            zdem_table_float(r->t, col, (double)x);
        } else
            zdem_table_int(r->t, col, v);
    }
}

static int make_cols(q3_rows *r)
{
    uint32_t i;
    int k;
    if (r->cols_done)
        return 0;
    r->cols_done = 1;
    r->col_time = zdem_table_column(r->t, "server_time", 11);
    r->col_ent = zdem_table_column(r->t, "entity", 6);
    for (i = 0; i < r->nprops; i++) {
        q3_prop *pr = &r->props[i];
        size_t nl = strlen(pr->name);
        if (pr->index >= 0 || pr->f->n == 1) {
            pr->col[0] = zdem_table_column(r->t, pr->name, nl);
            continue;
        }
        for (k = 0; k < pr->f->n && k < 16; k++) {
            char buf[NAME_MAX_LEN + 4];
            memcpy(buf, pr->name, nl);
            buf[nl] = '.';
            if (k >= 10) {
                buf[nl + 1] = (char)('0' + k / 10);
                buf[nl + 2] = (char)('0' + k % 10);
                pr->col[k] = zdem_table_column(r->t, buf, nl + 3);
            } else {
                buf[nl + 1] = (char)('0' + k);
                pr->col[k] = zdem_table_column(r->t, buf, nl + 2);
            }
        }
    }
    return 0;
}

static int row(q3_rows *r, int32_t time, int32_t ent, const uint8_t *base)
{
    uint32_t i;
    if ((r->st = zdem_table_row(r->t)) != ZDEM_OK)
        return 1;
    make_cols(r);
    zdem_table_int(r->t, r->col_time, time);
    zdem_table_int(r->t, r->col_ent, ent);
    for (i = 0; i < r->nprops; i++)
        put_field(r, &r->props[i], base);
    return 0;
}

static int q3rows_on_snapshot(void *user, const zdem_q3_parser *p, const zdem_q3_snapshot *s)
{
    q3_rows *r = (q3_rows *)user;
    const zdem_q3_rows_config *c = r->c;
    int i;
    if (!s->valid)
        return 0;
    if (c->every > 1u && r->snaps++ % c->every != 0)
        return 0;
    if (c->times) {
        while (r->time_at < c->ntimes && c->times[r->time_at] < s->server_time)
            r->time_at++;
        if (r->time_at >= c->ntimes || c->times[r->time_at] != s->server_time)
            return 0;
    }
    if (c->kind == ZDEM_Q3_ROWS_PLAYER)
        return row(r, s->server_time, s->ps.clientNum, (const uint8_t *)&s->ps);
    for (i = 0; i < s->num_entities; i++) {
        const zdem_q3_entity *e = zdem_q3_snapshot_entity(p, s, i);
        if (e && row(r, s->server_time, e->number, (const uint8_t *)e))
            return 1;
    }
    return 0;
}

static int32_t ev_col(q3_rows *r, int k, const char *name)
{
    if (r->ev_cols[k] == 0)
        r->ev_cols[k] = zdem_table_column(r->t, name, strlen(name)) + 1;
    return r->ev_cols[k] - 1;
}

/* The sender of a chat line where the command names it by slot: CPMA's
 * mm2 (the parser looked the name up), and Quake Live, whose chat and
 * tchat text starts with the sender's slot as two digits ("04 ..."): its
 * name then comes from the player configstring, as the game wrote it. */
static void q3r_chat_sender(q3_rows *r, const zdem_q3_parser *p, const zdem_q3_event *ev)
{
    const zdem_q3_protocol_info *pi = zdem_q3_protocol_info_of(p);
    const char *x = ev->text;
    int32_t slot = ev->client;
    const char *name = ev->attacker_name;
    size_t nl = name ? strlen(name) : 0;
    if (slot < 0 && pi && zdem_q3_protocol(p) >= 73 && ev->text_len > 3 && x[0] >= '0' &&
        x[0] <= '9' && x[1] >= '0' && x[1] <= '9' && x[2] == ' ') {
        size_t n = 0;
        const char *cs;
        slot = (x[0] - '0') * 10 + (x[1] - '0');
        cs = slot < ZDEM_Q3_MAX_CLIENTS ? zdem_q3_configstring(p, pi->cs_players + slot, &n) : NULL;
        name = cs ? zdem_q3_info_value(cs, n, "n", &nl) : NULL;
        if (slot >= ZDEM_Q3_MAX_CLIENTS)
            slot = -1;
    }
    if (slot >= 0)
        zdem_table_int(r->t, ev_col(r, 6, "slot"), slot);
    else
        ev_col(r, 6, "slot");
    if (slot >= 0 && name && nl)
        zdem_table_str(r->t, ev_col(r, 7, "sender"), name, nl);
    else
        ev_col(r, 7, "sender");
}

static int q3rows_on_event(void *user, const zdem_q3_parser *p, const zdem_q3_event *ev)
{
    q3_rows *r = (q3_rows *)user;
    zdem_table *t = r->t;
    zdem_q3_rows_kind k = r->c->kind;
    if (!((k == ZDEM_Q3_ROWS_OBITUARY && ev->type == ZDEM_Q3_EV_OBITUARY) ||
          (k == ZDEM_Q3_ROWS_CHAT && (ev->type == ZDEM_Q3_EV_CHAT || ev->type == ZDEM_Q3_EV_TCHAT)) ||
          (k == ZDEM_Q3_ROWS_SCORES && ev->type == ZDEM_Q3_EV_SCORES)))
        return 0;
    if ((r->st = zdem_table_row(t)) != ZDEM_OK)
        return 1;
    /* columns in a fixed order, made with the first row */
    zdem_table_int(t, ev_col(r, 0, "server_time"), ev->server_time);
    zdem_table_int(t, ev_col(r, 1, "gamestate"), ev->gamestate);
    if (k == ZDEM_Q3_ROWS_OBITUARY) {
        zdem_table_int(t, ev_col(r, 2, "attacker"), ev->attacker);
        zdem_table_str(t, ev_col(r, 3, "attacker_name"), ev->attacker_name, strlen(ev->attacker_name));
        zdem_table_int(t, ev_col(r, 4, "target"), ev->target);
        zdem_table_str(t, ev_col(r, 5, "target_name"), ev->target_name, strlen(ev->target_name));
        zdem_table_int(t, ev_col(r, 6, "mod"), ev->mod);
        zdem_table_str(t, ev_col(r, 7, "mod_name"), ev->mod_name, strlen(ev->mod_name));
    } else if (k == ZDEM_Q3_ROWS_CHAT) {
        const char *ty = zdem_q3_event_type_name(ev->type);
        zdem_table_str(t, ev_col(r, 2, "type"), ty, strlen(ty));
        zdem_table_int(t, ev_col(r, 3, "command_seq"), ev->command_seq);
        zdem_table_str(t, ev_col(r, 4, "text"), ev->text, ev->text_len);
        ty = zdem_q3_chat_kind_name(ev->chat_kind); /* chat, tchat or CPMA's mm2 */
        zdem_table_str(t, ev_col(r, 5, "kind"), ty, strlen(ty));
        q3r_chat_sender(r, p, ev);
        if (ev->location && ev->location_len)
            zdem_table_str(t, ev_col(r, 8, "location"), ev->location, ev->location_len);
        else
            ev_col(r, 8, "location");
    } else {
        zdem_table_int(t, ev_col(r, 2, "command_seq"), ev->command_seq);
        zdem_table_int(t, ev_col(r, 3, "score1"), ev->score1);
        zdem_table_int(t, ev_col(r, 4, "score2"), ev->score2);
    }
    return 0;
}

/* ---- header and players -------------------------------------------------- */

static void q3r_copy_value(char *dst, const char *v, size_t n)
{
    if (!v)
        n = 0;
    if (n >= PNAME_MAX)
        n = PNAME_MAX - 1; /* names and map names are far shorter */
    memcpy(dst, v ? v : "", n);
    dst[n] = 0;
}

static int32_t q3r_leading_int(const char *v, size_t n)
{
    int32_t x = 0;
    size_t i;
    if (!v || !n || v[0] < '0' || v[0] > '9')
        return -1;
    for (i = 0; i < n && i < 4 && v[i] >= '0' && v[i] <= '9'; i++)
        x = x * 10 + (v[i] - '0');
    return x;
}

/* The row of the gamestate read so far (HEADER). */
static int q3r_header_row(q3_rows *r)
{
    zdem_table *t = r->t;
    if (!r->gs)
        return 0;
    if ((r->st = zdem_table_row(t)) != ZDEM_OK)
        return 1;
    zdem_table_int(t, ev_col(r, 0, "gamestate"), r->gs);
    zdem_table_int(t, ev_col(r, 1, "protocol"), r->protocol);
    zdem_table_str(t, ev_col(r, 2, "map_name"), r->map, strlen(r->map));
    zdem_table_str(t, ev_col(r, 3, "gamename"), r->gamename, strlen(r->gamename));
    if (r->client_num >= 0) /* protocols before 66 do not say */
        zdem_table_int(t, ev_col(r, 4, "client_num"), r->client_num);
    else
        ev_col(r, 4, "client_num");
    zdem_table_int(t, ev_col(r, 5, "snapshots"), r->gs_snaps);
    if (r->gs_snaps) {
        zdem_table_int(t, ev_col(r, 6, "first_server_time"), r->first_time);
        zdem_table_int(t, ev_col(r, 7, "last_server_time"), r->last_time);
    } else {
        ev_col(r, 6, "first_server_time");
        ev_col(r, 7, "last_server_time");
    }
    return 0;
}

/* A stay ends: its row (PLAYERS). */
static int q3r_stay_row(q3_rows *r, int slot)
{
    zdem_table *t = r->t;
    q3_stay *y = &r->stay[slot];
    y->active = 0;
    if ((r->st = zdem_table_row(t)) != ZDEM_OK)
        return 1;
    zdem_table_int(t, ev_col(r, 0, "gamestate"), r->gs);
    zdem_table_int(t, ev_col(r, 1, "slot"), slot);
    zdem_table_str(t, ev_col(r, 2, "name"), y->name, strlen(y->name));
    if (y->team >= 0)
        zdem_table_int(t, ev_col(r, 3, "team"), y->team);
    else
        ev_col(r, 3, "team");
    if (y->seen) {
        zdem_table_int(t, ev_col(r, 4, "first_server_time"), y->first);
        zdem_table_int(t, ev_col(r, 5, "last_server_time"), y->last);
    } else {
        ev_col(r, 4, "first_server_time");
        ev_col(r, 5, "last_server_time");
    }
    return 0;
}

/* A slot's player configstring now says info (n bytes; empty: nobody): a
 * stay ends when the slot empties or its name or team changes, and one
 * starts, at the latest snapshot's time (the time events carry). */
static int q3r_player_info(q3_rows *r, int slot, const char *info, size_t n)
{
    q3_stay *y = &r->stay[slot];
    size_t vn = 0, tn = 0;
    const char *v = info ? zdem_q3_info_value(info, n, "n", &vn) : NULL;
    const char *tv = info ? zdem_q3_info_value(info, n, "t", &tn) : NULL;
    char name[PNAME_MAX];
    int32_t team = q3r_leading_int(tv, tn);
    if (!v || !vn)
        return y->active ? q3r_stay_row(r, slot) : 0;
    q3r_copy_value(name, v, vn);
    if (y->active && (strcmp(name, y->name) != 0 || team != y->team) && q3r_stay_row(r, slot))
        return 1;
    if (!y->active) {
        y->active = 1;
        y->seen = r->gs_snaps != 0;
        y->first = y->last = r->last_time;
        memcpy(y->name, name, sizeof name);
        y->team = team;
    }
    return 0;
}

/* Every player configstring as the store has it (a gamestate, a big
 * configstring sent in pieces). */
static int q3r_players_scan(q3_rows *r, const zdem_q3_parser *p)
{
    const zdem_q3_protocol_info *pi = zdem_q3_protocol_info_of(p);
    int i;
    r->players_dirty = 0;
    if (!pi)
        return 0;
    for (i = 0; i < ZDEM_Q3_MAX_CLIENTS; i++) {
        size_t n = 0;
        const char *cs = zdem_q3_configstring(p, pi->cs_players + i, &n);
        if (q3r_player_info(r, i, cs, cs ? n : 0))
            return 1;
    }
    return 0;
}

/* Every stay of the gamestate ends (a new gamestate, the end). */
static int q3r_players_end(q3_rows *r)
{
    int i;
    for (i = 0; i < ZDEM_Q3_MAX_CLIENTS; i++)
        if (r->stay[i].active && q3r_stay_row(r, i))
            return 1;
    return 0;
}

static int q3rows_on_gamestate(void *user, const zdem_q3_parser *p)
{
    q3_rows *r = (q3_rows *)user;
    size_t n = 0, vn = 0;
    const char *cs0, *v;
    if (r->c->kind == ZDEM_Q3_ROWS_HEADER ? q3r_header_row(r) : q3r_players_end(r))
        return 1;
    r->gs++;
    r->protocol = zdem_q3_protocol(p);
    r->client_num = zdem_q3_client_num(p);
    r->gs_snaps = 0;
    cs0 = zdem_q3_configstring(p, 0, &n);
    v = cs0 ? zdem_q3_info_value(cs0, n, "mapname", &vn) : NULL;
    q3r_copy_value(r->map, v, vn);
    v = cs0 ? zdem_q3_info_value(cs0, n, "gamename", &vn) : NULL;
    q3r_copy_value(r->gamename, v, vn);
    return r->c->kind == ZDEM_Q3_ROWS_PLAYERS ? q3r_players_scan(r, p) : 0;
}

/* Player configstrings as their commands come, one by one (several in one
 * message are all seen): "cs N "value"" read here, before the parser
 * stores it; big ones in pieces (bcs0..2) from the store afterwards. */
static int q3rows_on_command(void *user, const zdem_q3_parser *p, int32_t seq, const char *s,
                             size_t n)
{
    q3_rows *r = (q3_rows *)user;
    const zdem_q3_protocol_info *pi = zdem_q3_protocol_info_of(p);
    size_t i = 3, b, e;
    int32_t idx = 0;
    (void)seq;
    if (r->c->kind != ZDEM_Q3_ROWS_PLAYERS || n < 4)
        return 0;
    if (memcmp(s, "bcs", 3) == 0) {
        r->players_dirty = 1;
        return 0;
    }
    if (memcmp(s, "cs ", 3) != 0 || !pi)
        return 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && idx < 100000)
        idx = idx * 10 + (s[i++] - '0');
    if (i == 3 || idx < pi->cs_players || idx >= pi->cs_players + ZDEM_Q3_MAX_CLIENTS)
        return 0;
    while (i < n && s[i] == ' ')
        i++;
    b = i;
    e = n;
    if (b < n && s[b] == '"') { /* the quoted value, as Cmd_Argv gives it */
        b++;
        for (e = b; e < n && s[e] != '"'; e++)
            ;
    }
    return q3r_player_info(r, idx - pi->cs_players, s + b, e - b);
}

static int q3rows_on_frame(void *user, const zdem_q3_parser *p, const zdem_q3_snapshot *s)
{
    q3_rows *r = (q3_rows *)user;
    int i;
    if (!r->gs_snaps++)
        r->first_time = s->server_time;
    r->last_time = s->server_time;
    if (r->c->kind != ZDEM_Q3_ROWS_PLAYERS)
        return 0;
    if (r->players_dirty && q3r_players_scan(r, p))
        return 1;
    for (i = 0; i < ZDEM_Q3_MAX_CLIENTS; i++) {
        q3_stay *y = &r->stay[i];
        if (!y->active)
            continue;
        if (!y->seen)
            y->first = s->server_time;
        y->seen = 1;
        y->last = s->server_time;
    }
    return 0;
}

zdem_status zdem_q3_rows_start(void *mem, size_t size, const zdem_q3_rows_config *c,
                               zdem_table *t, zdem_error *err)
{
    q3_rows *r = (q3_rows *)mem;
    size_t head = (sizeof(q3_rows) + 15u) & ~(size_t)15u;
    zdem_q3_callbacks cb;
    uint32_t i;
    if (!mem || size < zdem_q3_rows_size() || ((uintptr_t)mem & 7u))
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "q3 rows: memory smaller than zdem_q3_rows_size()");
    memset(r, 0, sizeof *r);
    r->c = c;
    r->t = t;
    if (c->kind <= ZDEM_Q3_ROWS_ENTITY) {
        if (c->nprops > MAXP)
            return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "q3 rows: more than 64 fields");
        for (i = 0; i < c->nprops; i++) {
            q3_prop *pr = &r->props[i];
            size_t nl = strlen(c->props[i]);
            pr->f = find_field(c->kind == ZDEM_Q3_ROWS_PLAYER, c->props[i], &pr->index);
            if (!pr->f || nl > NAME_MAX_LEN)
                return unknown_field(r, c->kind == ZDEM_Q3_ROWS_PLAYER, c->props[i], err);
            memcpy(pr->name, c->props[i], nl + 1);
        }
        r->nprops = c->nprops;
    }
    memset(&cb, 0, sizeof cb);
    if (c->kind <= ZDEM_Q3_ROWS_ENTITY)
        cb.snapshot = q3rows_on_snapshot;
    else if (c->kind == ZDEM_Q3_ROWS_HEADER || c->kind == ZDEM_Q3_ROWS_PLAYERS) {
        cb.gamestate = q3rows_on_gamestate;
        cb.snapshot = q3rows_on_frame;
        cb.server_command = q3rows_on_command;
    } else
        cb.event = q3rows_on_event;
    r->p = c->protocol ? zdem_q3_parser_init((uint8_t *)mem + head, size - head, c->protocol, &cb, r, err) : NULL;
    if (!r->p && c->protocol != 3 && c->protocol != 48) {
        zdem_error_clear(err);
        r->p = zdem_q3_parser_init((uint8_t *)mem + head, size - head, 0, &cb, r, err);
    }
    if (!r->p)
        return err->code ? err->code : zdem_fail(err, ZDEM_ERR_UNSUPPORTED, 0, "cannot start the parser");
    zdem_q3_push_init(&r->push, r->p);
    return ZDEM_OK;
}

/* The last chunk, unless the table's consumer stopped the run. */
static zdem_status q3rows_finish(q3_rows *r, zdem_status st, size_t n, zdem_error *err)
{
    /* the gamestate read last (damaged or not: what was read of it) */
    if (r->st == ZDEM_OK && st != ZDEM_ERR_ABORTED) {
        if (r->c->kind == ZDEM_Q3_ROWS_HEADER)
            (void)q3r_header_row(r);
        else if (r->c->kind == ZDEM_Q3_ROWS_PLAYERS && !(r->players_dirty && q3r_players_scan(r, r->p)))
            (void)q3r_players_end(r);
    }
    if (r->st == ZDEM_OK) {
        zdem_status fs = zdem_table_flush(r->t);
        if (st == ZDEM_OK && fs != ZDEM_OK)
            st = zdem_fail(err, fs, n, "stopped by the table's consumer");
    }
    return st;
}

int zdem_q3_rows_ended(const void *mem)
{
    return ((const q3_rows *)mem)->push.ended;
}

zdem_status zdem_q3_rows_feed(void *mem, const uint8_t *data, size_t n, zdem_error *err)
{
    q3_rows *r = (q3_rows *)mem;
    zdem_status st = zdem_q3_push_feed(&r->push, data, n, err);
    if (st != ZDEM_OK && r->st != ZDEM_OK) /* the consumer stopped it */
        st = r->st;
    return st;
}

zdem_status zdem_q3_rows_end(void *mem, zdem_error *err)
{
    q3_rows *r = (q3_rows *)mem;
    zdem_status st;
    if (r->st != ZDEM_OK)
        st = r->st;
    else if (r->push.failed != ZDEM_OK) /* feed said why (err): the rows before it still count */
        st = r->push.fault != ZDEM_OK ? r->push.fault : r->push.failed;
    else
        st = zdem_q3_push_end(&r->push, err);
    return q3rows_finish(r, st, r->push.offset, err);
}

zdem_status zdem_q3_rows_run(void *mem, size_t size, const zdem_q3_rows_config *c,
                             const uint8_t *file, size_t n, zdem_table *t,
                             zdem_error *err)
{
    q3_rows *r = (q3_rows *)mem;
    zdem_q3_reader rd;
    zdem_q3_frame fr;
    zdem_status st;
    int got;
    if ((st = zdem_q3_rows_start(mem, size, c, t, err)) != ZDEM_OK)
        return st;
    zdem_q3_reader_init(&rd, file, n);
    {
        /* A damaged message is skipped and the rows after it still come
         * (the parser drops what depended on it); the first fault is
         * returned at the end, as zdem_q3_parse_file does. */
        zdem_error e;
        zdem_status first = ZDEM_OK;
        for (;;) {
            zdem_error_clear(&e);
            if ((st = zdem_q3_reader_next(&rd, &fr, &got, &e)) != ZDEM_OK || !got)
                break;
            if ((st = zdem_q3_parse_message(r->p, &fr, &e)) != ZDEM_OK) {
                if (r->st != ZDEM_OK || st == ZDEM_ERR_ABORTED) { /* the consumer stopped it */
                    st = r->st != ZDEM_OK ? r->st : st;
                    break;
                }
                /* bit offset inside the payload -> the file byte holding it */
                e.offset = fr.offset + 8u + e.offset / 8u;
                e.offset_is_bits = 0;
                if (first == ZDEM_OK) {
                    first = st;
                    *err = e;
                }
                st = ZDEM_OK;
            }
        }
        if (first != ZDEM_OK && st != ZDEM_ERR_ABORTED && r->st == ZDEM_OK)
            st = first; /* the earliest fault names the run */
        else if (st != ZDEM_OK)
            *err = e;
    }
    return q3rows_finish(r, st, n, err);
}
