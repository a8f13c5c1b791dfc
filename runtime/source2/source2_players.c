/* Source 2 players at the current tick and the players an event names
 * (see source2_players.h). */
#include "source2_players.h"
#include "source2_state_int.h"

#include <string.h>

/* Properties read on controllers, pawns and grenades, resolved once per
 * class (zdem_s2_roster_cls.fp). */
enum {
    PL_NAME, PL_STEAMID, PL_TEAM, PL_PAWN0, PL_PAWN1, PL_PAWN2, PL_HERO,
    PL_PLAYER_ID, PL_CONTROLLER, PL_OWNER, PL_OWNER_ID, PL_COUNT
};
static const char *const pl_prop_names[PL_COUNT] = {
    "m_iszPlayerName", "m_steamID", "m_iTeamNum",
    /* the controller's pawn: the first valid of these (as the tick rows) */
    "m_hPlayerPawn", "m_hHeroPawn", "m_hPawn", "m_hAssignedHero",
    "m_nPlayerID", "m_hController", "m_hOwnerEntity", "m_nOwnerId"};

#define PL_HANDLE_INDEX(h) ((int32_t)((uint64_t)(h) & 0x3FFFu)) /* 14-bit index */
#define PL_HANDLE_NONE(h) ((((uint64_t)(h)) & 0xFFFFFFu) == 0xFFFFFFu || (int64_t)(h) < 0)

void zdem_s2_roster_init(zdem_s2_roster *p)
{
    uint32_t i;
    memset(p, 0, sizeof *p);
    for (i = 0; i < sizeof p->cache / sizeof p->cache[0]; i++)
        p->cache[i].cls = -1;
    p->rules = p->c4 = -1;
    p->ui_table = -1;
    for (i = 0; i < ZDEM_S2_ROSTER_TEAMS; i++)
        p->teams[i] = -1;
}

/* ---- entities the players context follows --------------------------------- */

static int pl_ends_with(const char *s, uint32_t n, const char *suf)
{
    size_t k = strlen(suf);
    return s && n >= k && memcmp(s + n - k, suf, k) == 0;
}

static int pl_is_rules(const zdem_s2_entity *e)
{
    /* CCSGameRulesProxy, CCitadelGameRulesProxy, CDOTAGamerulesProxy */
    return pl_ends_with(e->class_name, e->class_name_len, "GameRulesProxy") ||
           pl_ends_with(e->class_name, e->class_name_len, "GamerulesProxy");
}

static int pl_is_team(const zdem_s2_entity *e)
{
    /* CCSTeam, CCitadelTeam, CDOTATeam: "C" + game + "Team" */
    return e->class_name_len >= 5 && e->class_name_len <= 16 && e->class_name[0] == 'C' &&
           pl_ends_with(e->class_name, e->class_name_len, "Team");
}

static int pl_is_controller(const char *name, uint32_t len)
{
    return pl_ends_with(name, len, "PlayerController");
}

void zdem_s2_roster_entity(zdem_s2_roster *p, const zdem_s2_entity *e, unsigned ops)
{
    uint32_t i, free_at = ZDEM_S2_ROSTER_TEAMS;
    int gone = (ops & ZDEM_S2_ENT_DELETED) != 0;
    if (!(ops & (ZDEM_S2_ENT_CREATED | ZDEM_S2_ENT_DELETED)))
        return;
    /* a create may reuse the index of an entity of another class */
    if (p->rules == e->index)
        p->rules = -1;
    if (p->c4 == e->index)
        p->c4 = -1;
    for (i = 0; i < ZDEM_S2_ROSTER_TEAMS; i++) {
        if (p->teams[i] == e->index)
            p->teams[i] = -1;
        if (p->teams[i] < 0 && free_at == ZDEM_S2_ROSTER_TEAMS)
            free_at = i;
    }
    if (gone)
        return;
    if (pl_is_rules(e))
        p->rules = e->index;
    else if (e->class_name_len == 3 && memcmp(e->class_name, "CC4", 3) == 0)
        p->c4 = e->index;
    else if (pl_is_team(e) && free_at < ZDEM_S2_ROSTER_TEAMS)
        p->teams[free_at] = e->index;
}

int32_t zdem_s2_roster_rules(const zdem_s2_roster *p)
{
    return p->rules;
}

int32_t zdem_s2_roster_c4(const zdem_s2_roster *p)
{
    return p->c4;
}

/* ---- properties through the per-class cache --------------------------------- */

static zdem_s2_roster_cls *pl_cls_cache(zdem_s2_roster *p, const zdem_s2_entity *e)
{
    uint32_t i, n = sizeof p->cache / sizeof p->cache[0];
    zdem_s2_roster_cls *c;
    for (i = 0; i < n; i++)
        if (p->cache[i].cls == e->class_id && p->cache[i].cname == e->class_name)
            return &p->cache[i];
    c = &p->cache[p->cache_next++ % n];
    memset(c, 0, sizeof *c);
    c->cls = e->class_id;
    c->cname = e->class_name;
    return c;
}

/* Property k of the live entity e: 1 and *v when it has a value. */
static int pl_prop(zdem_s2_roster *p, const zdem_s2_state *s, const zdem_s2_entity *e, int k,
                 zdem_s2_value *v)
{
    zdem_s2_roster_cls *c = pl_cls_cache(p, e);
    if (!c->st[k])
        c->st[k] = zdem_s2_class_prop_fp(s, e->class_id, pl_prop_names[k], &c->fp[k]) ? 1 : -1;
    return c->st[k] > 0 && zdem_s2_entity_prop_fp(s, e->index, &c->fp[k], v);
}

static int pl_prop_int(zdem_s2_roster *p, const zdem_s2_state *s, const zdem_s2_entity *e, int k,
                     int64_t *out)
{
    zdem_s2_value v;
    if (!pl_prop(p, s, e, k, &v))
        return 0;
    if (v.kind == ZDEM_S2_V_INT)
        *out = v.v.i;
    else if ((v.kind == ZDEM_S2_V_UINT || v.kind == ZDEM_S2_V_BOOL) && v.v.u <= 0x7FFFFFFFFFFFFFFFull)
        *out = (int64_t)v.v.u;
    else
        return 0;
    return 1;
}

/* An unsigned 64-bit property (a SteamID): 1 and *out. */
static int pl_prop_u64(zdem_s2_roster *p, const zdem_s2_state *s, const zdem_s2_entity *e, int k,
                       uint64_t *out)
{
    zdem_s2_value v;
    if (!pl_prop(p, s, e, k, &v) || (v.kind != ZDEM_S2_V_UINT && v.kind != ZDEM_S2_V_INT))
        return 0;
    *out = v.v.u;
    return 1;
}

/* A team number: 0 .. 2^31 - 1, else none. */
static int32_t pl_team(int64_t x)
{
    return x >= 0 && x <= 0x7FFFFFFF ? (int32_t)x : -1;
}

static int pl_live(const zdem_s2_state *s, int64_t index, zdem_s2_entity *e)
{
    return index >= 0 && index <= 0x7FFFFFFF && zdem_s2_entity_get(s, (int32_t)index, e);
}

/* The live entity a handle property of e points to, or -1. */
static int32_t pl_handle_target(zdem_s2_roster *p, const zdem_s2_state *s, const zdem_s2_entity *e,
                             int k)
{
    int64_t h;
    zdem_s2_entity t;
    if (!pl_prop_int(p, s, e, k, &h) || PL_HANDLE_NONE(h) || !pl_live(s, PL_HANDLE_INDEX(h), &t))
        return -1;
    return t.index;
}

int32_t zdem_s2_roster_team(zdem_s2_roster *p, const zdem_s2_state *s, int64_t team)
{
    uint32_t i;
    for (i = 0; i < ZDEM_S2_ROSTER_TEAMS; i++) {
        zdem_s2_entity e;
        int64_t t;
        if (p->teams[i] >= 0 && pl_live(s, p->teams[i], &e) && pl_prop_int(p, s, &e, PL_TEAM, &t) &&
            t == team)
            return e.index;
    }
    return -1;
}

/* ---- userinfo ------------------------------------------------------------------ */

typedef struct pl_uinfo {
    int present, has_userid;
    int32_t userid;
    uint64_t xuid;
    const uint8_t *name;
    uint32_t name_len;
    uint8_t bot, hltv;
} pl_uinfo;

/* The userinfo entry at index i (a malformed one keeps what decoded). */
static int pl_userinfo_at(const zdem_s2_state *s, int64_t i, pl_uinfo *u)
{
    const uint8_t *k, *v;
    uint32_t kl, vl;
    zdem_pb_CMsgPlayerInfo m;
    zdem_error e;
    memset(u, 0, sizeof *u);
    if (s->userinfo_table < 0 || i < 0 || i > 0xFFFFFFFF ||
        !zdem_s2_string_table_entry(s, (uint32_t)s->userinfo_table, (uint32_t)i, &k, &kl, &v, &vl) ||
        !v || !vl)
        return 0;
    zdem_error_clear(&e);
    (void)zdem_pb_CMsgPlayerInfo_decode(v, vl, &m, NULL, NULL, &e);
    u->present = 1;
    u->has_userid = m.has_userid;
    u->userid = m.has_userid ? m.userid : -1;
    u->xuid = m.has_xuid ? m.xuid : 0;
    if (m.has_name && m.name.len) {
        u->name = m.name.ptr;
        u->name_len = (uint32_t)m.name.len;
    }
    u->bot = m.has_fakeplayer && m.fakeplayer;
    u->hltv = m.has_ishltv && m.ishltv;
    return 1;
}

/* ---- players -------------------------------------------------------------------- */

static void pl_clear(zdem_s2_player *out, int64_t slot)
{
    memset(out, 0, sizeof *out);
    out->slot = slot >= 0 && slot <= 0x7FFFFFFF ? (int32_t)slot : -1;
    out->userid = out->controller = out->pawn = out->team = out->player_id = -1;
}

/* The controller's pawn: the first valid handle of the list. */
static int32_t pl_controller_pawn(zdem_s2_roster *p, const zdem_s2_state *s, const zdem_s2_entity *c)
{
    int k;
    for (k = PL_PAWN0; k <= PL_HERO; k++) {
        int32_t t = pl_handle_target(p, s, c, k);
        if (t >= 0)
            return t;
    }
    return -1;
}

int zdem_s2_player_at_slot(zdem_s2_roster *p, const zdem_s2_state *s, int64_t slot,
                           zdem_s2_player *out)
{
    zdem_s2_entity c, pw;
    zdem_s2_value v;
    int64_t x;
    pl_uinfo u;
    int found = 0;
    pl_clear(out, slot);
    if (slot < 0 || slot >= 0x7FFFFFFF)
        return 0;
    if (pl_live(s, slot + 1, &c) && pl_is_controller(c.class_name, c.class_name_len)) {
        found = 1;
        out->controller = c.index;
        if (pl_prop(p, s, &c, PL_NAME, &v) && v.kind == ZDEM_S2_V_STRING && v.len) {
            out->name = v.s;
            out->name_len = v.len;
        }
        (void)pl_prop_u64(p, s, &c, PL_STEAMID, &out->steamid);
        if (pl_prop_int(p, s, &c, PL_PLAYER_ID, &x) && x >= -0x7FFFFFFF && x <= 0x7FFFFFFF)
            out->player_id = (int32_t)x;
        out->pawn = pl_controller_pawn(p, s, &c);
        if (out->pawn >= 0 && pl_live(s, out->pawn, &pw) && pl_prop_int(p, s, &pw, PL_TEAM, &x))
            out->team = pl_team(x);
        else if (pl_prop_int(p, s, &c, PL_TEAM, &x))
            out->team = pl_team(x);
    }
    if (pl_userinfo_at(s, slot, &u)) {
        found = 1;
        out->userid = u.userid;
        out->is_bot = u.bot;
        out->is_hltv = u.hltv;
        if (!out->name && u.name) {
            out->name = u.name;
            out->name_len = u.name_len;
        }
        if (out->controller < 0)
            out->steamid = u.xuid;
    }
    return found;
}

/* The userids of the slots' userinfo entries, read once per change of the
 * table (one pass over the slots), not once per event. */
static void pl_userids(zdem_s2_roster *p, const zdem_s2_state *s)
{
    uint32_t i;
    if (p->ui_valid && p->ui_changes == s->userinfo_changes && p->ui_table == s->userinfo_table)
        return;
    p->ui_valid = 1;
    p->ui_changes = s->userinfo_changes;
    p->ui_table = s->userinfo_table;
    for (i = 0; i < 256u; i++)
        p->uid_low[i] = -1;
    for (i = 0; i < ZDEM_S2_PLAYER_SLOTS; i++) {
        pl_uinfo u;
        p->uid_full[i] = -1;
        if (!pl_userinfo_at(s, i, &u) || !u.has_userid || u.userid < 0)
            continue;
        p->uid_full[i] = u.userid;
        if (p->uid_low[u.userid & 0xFF] < 0)
            p->uid_low[u.userid & 0xFF] = (int16_t)i;
    }
}

int zdem_s2_player_by_userid(zdem_s2_roster *p, const zdem_s2_state *s, int64_t userid,
                             zdem_s2_player *out)
{
    uint32_t i;
    pl_clear(out, -1);
    /* 65535 (an unsigned short -1) and negative values name no player */
    if (userid < 0 || userid == 0xFFFF || userid > 0x7FFFFFFF)
        return 0;
    /* Source 2 writes the slot as the userid, and userinfo says so;
     * demoparser2 matches the userid's low byte, else the whole of it */
    pl_userids(p, s);
    if (userid < 256 && p->uid_low[userid] >= 0)
        return zdem_s2_player_at_slot(p, s, p->uid_low[userid], out);
    for (i = 0; i < ZDEM_S2_PLAYER_SLOTS; i++)
        if (p->uid_full[i] == userid)
            return zdem_s2_player_at_slot(p, s, i, out);
    return zdem_s2_player_at_slot(p, s, userid, out);
}

/* The slots' pawns, heroes and player ids, rebuilt when entities changed
 * since: one pass over the slots per packet at most. */
static void pl_slot_table(zdem_s2_roster *p, const zdem_s2_state *s)
{
    zdem_s2_stats st;
    uint32_t i;
    zdem_s2_state_stats(s, &st);
    if (p->slots_valid && p->gen[0] == st.entity_updates && p->gen[1] == st.created &&
        p->gen[2] == st.deleted)
        return;
    p->gen[0] = st.entity_updates;
    p->gen[1] = st.created;
    p->gen[2] = st.deleted;
    p->slots_valid = 1;
    for (i = 0; i < ZDEM_S2_PLAYER_SLOTS; i++) {
        zdem_s2_entity c;
        int64_t x;
        p->slot_pawn[i] = p->slot_hero[i] = p->slot_id[i] = -1;
        if (!pl_live(s, (int64_t)i + 1, &c) || !pl_is_controller(c.class_name, c.class_name_len))
            continue;
        p->slot_pawn[i] = pl_controller_pawn(p, s, &c);
        p->slot_hero[i] = pl_handle_target(p, s, &c, PL_HERO);
        if (pl_prop_int(p, s, &c, PL_PLAYER_ID, &x) && x >= 0 && x <= 0x7FFFFFFF)
            p->slot_id[i] = (int32_t)x;
    }
}

int zdem_s2_player_by_entity(zdem_s2_roster *p, const zdem_s2_state *s, int64_t index,
                             zdem_s2_player *out)
{
    zdem_s2_entity e, c;
    uint32_t i;
    int k;
    pl_clear(out, -1);
    if (!pl_live(s, index, &e))
        return 0;
    if (pl_is_controller(e.class_name, e.class_name_len))
        return zdem_s2_player_at_slot(p, s, (int64_t)e.index - 1, out);
    /* a pawn names its controller (CS2: m_hController; Deadlock: the
     * owner); it counts when that controller's pawn is this one */
    for (k = PL_CONTROLLER; k <= PL_OWNER; k++) {
        int32_t t = pl_handle_target(p, s, &e, k);
        if (t > 0 && pl_live(s, t, &c) && pl_is_controller(c.class_name, c.class_name_len) &&
            (pl_controller_pawn(p, s, &c) == e.index || pl_handle_target(p, s, &c, PL_HERO) == e.index))
            return zdem_s2_player_at_slot(p, s, (int64_t)t - 1, out);
    }
    pl_slot_table(p, s);
    for (i = 0; i < ZDEM_S2_PLAYER_SLOTS; i++)
        if (p->slot_pawn[i] == e.index || p->slot_hero[i] == e.index)
            return zdem_s2_player_at_slot(p, s, i, out);
    return 0;
}

int zdem_s2_player_by_handle(zdem_s2_roster *p, const zdem_s2_state *s, int64_t handle,
                             zdem_s2_player *out)
{
    pl_clear(out, -1);
    if (PL_HANDLE_NONE(handle))
        return 0;
    return zdem_s2_player_by_entity(p, s, PL_HANDLE_INDEX(handle), out);
}

int zdem_s2_player_by_id(zdem_s2_roster *p, const zdem_s2_state *s, int64_t player_id,
                         zdem_s2_player *out)
{
    uint32_t i;
    pl_clear(out, -1);
    if (player_id < 0 || player_id > 0x7FFFFFFF)
        return 0;
    pl_slot_table(p, s);
    for (i = 0; i < ZDEM_S2_PLAYER_SLOTS; i++)
        if (p->slot_id[i] == player_id)
            return zdem_s2_player_at_slot(p, s, i, out);
    return 0;
}

/* ---- event roles ------------------------------------------------------------------ */

enum { PLK_NONE, PLK_USERID, PLK_CONTROLLER, PLK_OWNER, PLK_HANDLE, PLK_ENTITY, PLK_PLAYER_ID,
       PLK_HERO };

static int pl_key_is(const char *k, uint32_t n, const char *w)
{
    size_t l = strlen(w);
    return n == l && memcmp(k, w, l) == 0;
}

static int pl_has_suffix(const char *k, uint32_t n, const char *w)
{
    size_t l = strlen(w);
    return n > l && memcmp(k + n - l, w, l) == 0;
}

/* What key i names and the role it gives (pass: 0 userids and ids,
 * 1 grenade owners, 2 handles and entity indexes; the first key that gives
 * a role keeps it). */
static int pl_classify(const zdem_s2_state *s, const zdem_s2_event *ev, uint32_t i, int pass,
                    const char **role, uint32_t *rlen)
{
    const char *k = ev->keys[i].name;
    uint32_t n = ev->keys[i].name_len;
    int type = zdem_s2_event_key_type(s, ev, i);
    *role = k;
    *rlen = n;
    if (!k)
        return PLK_NONE;
    if (ev->type == ZDEM_S2_EV_CHAT) {
        if (pass == 0 && pl_key_is(k, n, "entityindex")) {
            *role = "user";
            *rlen = 4;
            return PLK_CONTROLLER;
        }
        if (pass == 0 && pl_key_is(k, n, "source_player_id")) {
            *rlen = n - 3;
            return PLK_PLAYER_ID;
        }
        return PLK_NONE;
    }
    if (ev->type == ZDEM_S2_EV_COMBAT_LOG) {
        /* a hero by its unit name: the player it is assigned to */
        if (pass == 0 && (pl_key_is(k, n, "attacker_name") || pl_key_is(k, n, "target_name"))) {
            *role = k[0] == 'a' ? "attacker_player" : "target_player";
            *rlen = (uint32_t)strlen(*role);
            return PLK_HERO;
        }
        return PLK_NONE;
    }
    if (ev->type != ZDEM_S2_EV_GAME_EVENT)
        return PLK_NONE;
    if (pass == 0) {
        if (pl_key_is(k, n, "userid")) {
            *role = "user";
            *rlen = 4;
            return PLK_USERID;
        }
        if (pl_key_is(k, n, "attacker") || pl_key_is(k, n, "assister") || pl_key_is(k, n, "victim"))
            return type == 8 ? PLK_HANDLE : PLK_USERID;
        if (pl_has_suffix(k, n, "_userid")) { /* Dota: victim_userid, killer1_userid */
            *rlen = n - 7;
            return PLK_USERID;
        }
        /* Dota's player ids */
        if (pl_key_is(k, n, "PlayerID") || pl_key_is(k, n, "player_id") ||
            (pl_key_is(k, n, "playerid") && type != 9)) {
            *role = "player";
            *rlen = 6;
            return PLK_PLAYER_ID;
        }
        if (type != 9 && (pl_key_is(k, n, "killer_id") || pl_key_is(k, n, "victim_id"))) {
            *rlen = n - 3;
            return PLK_PLAYER_ID;
        }
        if (type != 9 && pl_has_suffix(k, n, "playerid")) { /* killer_playerid, target1playerid */
            *rlen = n - 8;
            if (*rlen && k[*rlen - 1] == '_')
                (*rlen)--;
            return *rlen ? PLK_PLAYER_ID : PLK_NONE;
        }
        if (type == 9) { /* a player slot: assister1controller, avenger_id, botid */
            static const char *const sufs[] = {"_controller", "controller", "playerid", "_id", "id"};
            size_t j;
            for (j = 0; j < sizeof sufs / sizeof sufs[0]; j++)
                if (pl_has_suffix(k, n, sufs[j])) {
                    *rlen = n - (uint32_t)strlen(sufs[j]);
                    break;
                }
            return PLK_USERID;
        }
        return PLK_NONE;
    }
    if (pass == 1)
        return pl_key_is(k, n, "entityid") ? (*role = "user", *rlen = 4, PLK_OWNER) : PLK_NONE;
    if (pl_has_suffix(k, n, "_pawn") || type == 8) {
        if (pl_has_suffix(k, n, "_pawn"))
            *rlen = n - 5;
        if (*rlen == 6 && memcmp(k, "userid", 6) == 0) { /* userid_pawn: user */
            *role = "user";
            *rlen = 4;
        }
        return PLK_HANDLE;
    }
    if (n > 9 && memcmp(k, "entindex_", 9) == 0) {
        *role = k + 9;
        *rlen = n - 9;
        return PLK_ENTITY;
    }
    return PLK_NONE;
}

static int pl_role_taken(const zdem_s2_role *out, uint32_t n, const char *r, uint32_t rl)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        if (out[i].name_len == rl && memcmp(out[i].name, r, rl) == 0)
            return 1;
    return 0;
}

/* "npc_dota_hero_doom_bringer" and the class CDOTA_Unit_Hero_DoomBringer
 * name one hero: compared without case and underscores. */
static int pl_same_hero(const uint8_t *unit, uint32_t ul, const char *cls, uint32_t cl)
{
    static const char up[] = "npc_dota_hero_", cp[] = "CDOTA_Unit_Hero_";
    uint32_t i = sizeof up - 1u, j = sizeof cp - 1u;
    if (ul <= i || cl <= j || memcmp(unit, up, i) != 0 || memcmp(cls, cp, j) != 0)
        return 0;
    for (;;) {
        int a, b;
        while (i < ul && unit[i] == '_')
            i++;
        while (j < cl && cls[j] == '_')
            j++;
        if (i == ul || j == cl)
            return i == ul && j == cl;
        a = unit[i++];
        b = cls[j++];
        if (a >= 'A' && a <= 'Z')
            a += 'a' - 'A';
        if (b >= 'A' && b <= 'Z')
            b += 'a' - 'A';
        if (a != b)
            return 0;
    }
}

/* The bool key name of a combat-log entry: 1, 0, or -1 when absent. */
static int pl_ev_bool(const zdem_s2_event *ev, const char *name)
{
    uint32_t i, nk = ev->nkeys < ZDEM_S2_EVENT_MAX_KEYS ? ev->nkeys : ZDEM_S2_EVENT_MAX_KEYS;
    for (i = 0; i < nk; i++)
        if (ev->keys[i].name && pl_key_is(ev->keys[i].name, ev->keys[i].name_len, name))
            return ev->keys[i].value.v.u != 0;
    return -1;
}

/* The player whose assigned hero the unit name names. */
static int pl_by_hero(zdem_s2_roster *p, const zdem_s2_state *s, const zdem_s2_value *v,
                      zdem_s2_player *pl)
{
    uint32_t i;
    pl_clear(pl, -1);
    if (v->kind != ZDEM_S2_V_STRING || !v->len)
        return 0;
    pl_slot_table(p, s);
    for (i = 0; i < ZDEM_S2_PLAYER_SLOTS; i++) {
        zdem_s2_entity h;
        if (p->slot_hero[i] >= 0 && pl_live(s, p->slot_hero[i], &h) &&
            pl_same_hero(v->s, v->len, h.class_name, h.class_name_len))
            return zdem_s2_player_at_slot(p, s, i, pl);
    }
    return 0;
}

static int pl_resolve(zdem_s2_roster *p, const zdem_s2_state *s, int kind, const zdem_s2_value *v,
                   zdem_s2_player *pl)
{
    int64_t x;
    zdem_s2_entity g;
    if (kind == PLK_HERO)
        return pl_by_hero(p, s, v, pl);
    if (v->kind == ZDEM_S2_V_INT)
        x = v->v.i;
    else if (v->kind == ZDEM_S2_V_UINT && v->v.u <= 0x7FFFFFFFFFFFFFFFull)
        x = (int64_t)v->v.u;
    else {
        pl_clear(pl, -1);
        return 0;
    }
    switch (kind) {
    case PLK_USERID: return zdem_s2_player_by_userid(p, s, x, pl);
    case PLK_CONTROLLER:
        pl_clear(pl, -1);
        return pl_live(s, x, &g) && pl_is_controller(g.class_name, g.class_name_len) &&
               zdem_s2_player_at_slot(p, s, x - 1, pl);
    case PLK_OWNER: { /* a grenade's thrower: its m_nOwnerId (a handle) */
        int64_t h;
        pl_clear(pl, -1);
        if (!pl_live(s, x, &g) || !pl_prop_int(p, s, &g, PL_OWNER_ID, &h))
            return 0;
        return zdem_s2_player_by_handle(p, s, h, pl);
    }
    case PLK_HANDLE: return zdem_s2_player_by_handle(p, s, x, pl);
    case PLK_ENTITY: return zdem_s2_player_by_entity(p, s, x, pl);
    case PLK_PLAYER_ID: return zdem_s2_player_by_id(p, s, x, pl);
    default: pl_clear(pl, -1); return 0;
    }
}

uint32_t zdem_s2_event_roles(zdem_s2_roster *p, const zdem_s2_state *s,
                             const zdem_s2_event *ev, zdem_s2_role *out, uint32_t cap)
{
    uint32_t n = 0, i, nk = ev->nkeys < ZDEM_S2_EVENT_MAX_KEYS ? ev->nkeys : ZDEM_S2_EVENT_MAX_KEYS;
    int pass;
    for (pass = 0; pass < 3; pass++)
        for (i = 0; i < nk && n < cap; i++) {
            const char *r;
            uint32_t rl;
            int kind = pl_classify(s, ev, i, pass, &r, &rl);
            if (kind == PLK_NONE || !rl || pl_role_taken(out, n, r, rl))
                continue;
            if (kind == PLK_HERO && pl_ev_bool(ev, r[0] == 'a' ? "is_attacker_hero" : "is_target_hero") != 1)
                continue; /* a creep, a building, a neutral: no player */
            out[n].name = r;
            out[n].name_len = rl;
            out[n].key = i;
            out[n].found = pl_resolve(p, s, kind, &ev->keys[i].value, &out[n].player);
            n++;
        }
    /* key order, as the keys came */
    for (i = 1; i < n; i++) {
        zdem_s2_role t = out[i];
        uint32_t j = i;
        while (j > 0 && out[j - 1].key > t.key) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = t;
    }
    return n;
}

int zdem_s2_event_key_internal(const char *name, size_t len)
{
    static const char *const keys[] = {"userid", "attacker", "assister", "victim",
                                       "userid_pawn", "attacker_pawn", "assister_pawn",
                                       "victim_pawn"};
    size_t i;
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strlen(keys[i]) == len && memcmp(keys[i], name, len) == 0)
            return 1;
    return 0;
}
