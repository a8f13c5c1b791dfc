/* Source 2 tick rows into a zdem_table (see source2_ticks.h). */
#include "source2_ticks.h"
#include "zdem_near.h"

#include <string.h>

enum { TG_SELF = 0, TG_PAWN = 1, TG_CTRL = 2, TG_ANY = 3 };
enum { SP_PLAIN = 0, SP_COORD = 1 };
#define NOT_YET (-2)
#define MAX_COMP 4

/* One property name and where it was found, cached per class: the
 * entities read for one name are nearly always of one class, so a name is
 * resolved once, not once per row. Slot 0: pawn (or the row's entity),
 * slot 1: controller. */
typedef struct tref {
    char name[ZDEM_S2_TICKS_NAME_MAX + 1];
    uint32_t len;
    uint8_t target;
    int32_t cls[2];
    int8_t ok[2];
    int8_t comp[2];  /* vector component the name's ".N" picked, or -1 */
    zdem_s2_fp fp[2];
    zdem_s2_fp vec_fp[2]; /* ok == 2: the name without ".N" */
} tref;

typedef struct tprop {
    char col_name[ZDEM_S2_TICKS_NAME_MAX + 1]; /* as asked */
    uint8_t special;
    uint8_t alias;   /* a demoparser2 name: known whatever the demo */
    tref a, b;       /* b: SP_COORD's offset */
    int32_t col;     /* NOT_YET until the first row; -1 none */
    int32_t comp_col[MAX_COMP];
} tprop;

struct zdem_s2_ticks {
    zdem_table *table;
    const char *class_name; /* NULL: players */
    size_t class_len;
    const int32_t *ticks;
    uint32_t nticks, tick_at, every;
    int64_t last_tick;
    uint32_t nprops;
    tprop *props;
    int32_t *ents;          /* tracked entity indexes, ascending */
    uint32_t nents, cap;
    uint64_t untracked;
    int32_t col_tick, col_ent;
    tref pawn_handle[4];    /* controller -> pawn handles, first found wins */
    int checked;            /* the names were checked against the classes */
    const char *bad;        /* NULL, or msg: an unknown property or class */
    char msg[384];
};

/* demoparser2's player names (its friendly-name table) and what they read. */
static const struct alias {
    const char *name, *target_name, *offset_name;
    uint8_t target, special;
} aliases[] = {
    {"X", "CBodyComponent.m_cellX", "CBodyComponent.m_vecX", TG_PAWN, SP_COORD},
    {"Y", "CBodyComponent.m_cellY", "CBodyComponent.m_vecY", TG_PAWN, SP_COORD},
    {"Z", "CBodyComponent.m_cellZ", "CBodyComponent.m_vecZ", TG_PAWN, SP_COORD},
    {"pitch", "m_angEyeAngles.0", NULL, TG_PAWN, SP_PLAIN},
    {"yaw", "m_angEyeAngles.1", NULL, TG_PAWN, SP_PLAIN},
    {"health", "m_iHealth", NULL, TG_PAWN, SP_PLAIN},
    {"team_num", "m_iTeamNum", NULL, TG_PAWN, SP_PLAIN},
    {"name", "m_iszPlayerName", NULL, TG_CTRL, SP_PLAIN},
    {"steamid", "m_steamID", NULL, TG_CTRL, SP_PLAIN},
    {"balance", "m_pInGameMoneyServices.m_iAccount", NULL, TG_CTRL, SP_PLAIN},
    {"active_weapon", "m_pWeaponServices.m_hActiveWeapon", NULL, TG_PAWN, SP_PLAIN},
    {"armor_value", "m_ArmorValue", NULL, TG_PAWN, SP_PLAIN},
    {"life_state", "m_lifeState", NULL, TG_PAWN, SP_PLAIN},
    {"is_alive", "m_bPawnIsAlive", NULL, TG_CTRL, SP_PLAIN},
    {"score", "m_iScore", NULL, TG_CTRL, SP_PLAIN},
    {"ping", "m_iPing", NULL, TG_CTRL, SP_PLAIN},
    {"player_name", "m_iszPlayerName", NULL, TG_CTRL, SP_PLAIN},
    {"player_steamid", "m_steamID", NULL, TG_CTRL, SP_PLAIN},
};

static const struct alias *find_alias(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i].name, name) == 0)
            return &aliases[i];
    return NULL;
}

const char *zdem_s2_ticks_alias(const char *name)
{
    const struct alias *a = find_alias(name);
    return a ? a->target_name : NULL;
}

const char *zdem_s2_ticks_alias_at(uint32_t i, const char **target)
{
    if (i >= sizeof aliases / sizeof aliases[0])
        return NULL;
    if (target)
        *target = aliases[i].target_name;
    return aliases[i].name;
}

static size_t ticks_up8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

static uint32_t track_cap(const zdem_s2_ticks_config *c)
{
    return c->max_rows_per_tick ? c->max_rows_per_tick : 1024u;
}

size_t zdem_s2_ticks_size(const zdem_s2_ticks_config *c)
{
    return ticks_up8(sizeof(zdem_s2_ticks)) + ticks_up8(sizeof(tprop) * (size_t)c->nprops) +
           ticks_up8(sizeof(int32_t) * (size_t)track_cap(c));
}

static zdem_status ref_set(tref *r, const char *name, size_t len, uint8_t target, zdem_error *err)
{
    if (len > ZDEM_S2_TICKS_NAME_MAX)
        return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "ticks: property name too long");
    memcpy(r->name, name, len);
    r->name[len] = 0;
    r->len = (uint32_t)len;
    r->target = target;
    r->cls[0] = r->cls[1] = -1;
    r->ok[0] = r->ok[1] = 0;
    return ZDEM_OK;
}

/* The first component as a class prefix: "CCSPlayerPawn.m_iHealth" reads
 * the pawn; in class mode the class's own name is dropped. */
static uint8_t strip_prefix(const zdem_s2_ticks *t, const char **name, size_t *len)
{
    const char *dot = memchr(*name, '.', *len);
    size_t pl;
    if (!dot)
        return t->class_name ? TG_SELF : TG_ANY;
    pl = (size_t)(dot - *name);
    if (t->class_name) {
        if (pl == t->class_len && memcmp(*name, t->class_name, pl) == 0) {
            *len -= pl + 1u;
            *name = dot + 1;
        }
        return TG_SELF;
    }
    if (pl >= 4 && memcmp(dot - 4, "Pawn", 4) == 0 && (*name)[0] == 'C') {
        *len -= pl + 1u;
        *name = dot + 1;
        return TG_PAWN;
    }
    if (pl >= 10 && memcmp(dot - 10, "Controller", 10) == 0 && (*name)[0] == 'C') {
        *len -= pl + 1u;
        *name = dot + 1;
        return TG_CTRL;
    }
    return TG_ANY;
}

zdem_status zdem_s2_ticks_init(zdem_s2_ticks **out, void *mem, size_t size,
                               const zdem_s2_ticks_config *c, zdem_table *table,
                               zdem_s2_config *cfg, zdem_error *err);

static zdem_status ticks_on_entity(void *user, zdem_s2_state *s, const zdem_s2_entity *e,
                             unsigned ops, const zdem_s2_fp *changed, uint32_t nchanged);
static zdem_status ticks_on_tick(void *user, zdem_s2_state *s, int32_t tick);

zdem_status zdem_s2_ticks_init(zdem_s2_ticks **out, void *mem, size_t size,
                               const zdem_s2_ticks_config *c, zdem_table *table,
                               zdem_s2_config *cfg, zdem_error *err)
{
    zdem_s2_ticks *t = (zdem_s2_ticks *)mem;
    uint8_t *p = (uint8_t *)mem;
    uint32_t i;
    zdem_status st;
    static const char *const handles[4] = {"m_hPlayerPawn", "m_hHeroPawn", "m_hPawn", "m_hAssignedHero"};
    *out = NULL;
    if (!mem || ((uintptr_t)mem & 7u) || size < zdem_s2_ticks_size(c))
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "ticks: memory smaller than zdem_s2_ticks_size()");
    if (c->nprops > ZDEM_S2_TICKS_MAX_PROPS)
        return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "ticks: more than ZDEM_S2_TICKS_MAX_PROPS (16383) properties");
    for (i = 1; c->ticks && i < c->nticks; i++)
        if (c->ticks[i] <= c->ticks[i - 1])
            return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "ticks: the tick list must be ascending");
    memset(t, 0, sizeof *t);
    p += ticks_up8(sizeof(zdem_s2_ticks));
    t->props = (tprop *)(void *)p;
    p += ticks_up8(sizeof(tprop) * (size_t)c->nprops);
    t->ents = (int32_t *)(void *)p;
    t->cap = track_cap(c);
    t->table = table;
    t->class_name = c->class_name;
    t->class_len = c->class_name ? strlen(c->class_name) : 0;
    t->ticks = c->ticks;
    t->nticks = c->ticks ? c->nticks : 0;
    t->every = c->every;
    t->last_tick = -1;
    t->nprops = c->nprops;
    for (i = 0; i < 4; i++)
        if ((st = ref_set(&t->pawn_handle[i], handles[i], strlen(handles[i]), TG_CTRL, err)) != ZDEM_OK)
            return st;
    for (i = 0; i < c->nprops; i++) {
        tprop *pr = &t->props[i];
        const char *name = c->props[i];
        size_t len = strlen(name);
        const struct alias *a = find_alias(name);
        unsigned k;
        memset(pr, 0, sizeof *pr);
        if (len > ZDEM_S2_TICKS_NAME_MAX)
            return zdem_fail(err, ZDEM_ERR_LIMIT, 0, "ticks: property name too long");
        memcpy(pr->col_name, name, len);
        pr->col = NOT_YET;
        for (k = 0; k < MAX_COMP; k++)
            pr->comp_col[k] = NOT_YET;
        if (a) {
            uint8_t tg = t->class_name ? TG_SELF : a->target;
            pr->special = a->special;
            pr->alias = 1;
            if ((st = ref_set(&pr->a, a->target_name, strlen(a->target_name), tg, err)) != ZDEM_OK)
                return st;
            if (a->offset_name &&
                (st = ref_set(&pr->b, a->offset_name, strlen(a->offset_name), tg, err)) != ZDEM_OK)
                return st;
        } else {
            uint8_t tg = strip_prefix(t, &name, &len);
            if ((st = ref_set(&pr->a, name, len, tg, err)) != ZDEM_OK)
                return st;
        }
    }
    cfg->user = t;
    cfg->on_entity = ticks_on_entity;
    cfg->on_tick = ticks_on_tick;
    *out = t;
    return ZDEM_OK;
}

uint64_t zdem_s2_ticks_untracked(const zdem_s2_ticks *t)
{
    return t->untracked;
}

const char *zdem_s2_ticks_error(const zdem_s2_ticks *t)
{
    return t->bad;
}

/* ---- the names, checked once the classes are known ------------------------- */

static int ticks_ends_with(const char *s, uint32_t n, const char *suffix)
{
    size_t l = strlen(suffix);
    return n >= l && memcmp(s + n - l, suffix, l) == 0;
}

/* Which player rows may read a class: 1 controller, 2 pawn (what a
 * controller's pawn handle points at: CS2 and Deadlock pawns, Dota's
 * heroes), 0 neither. */
int zdem_s2_ticks_player_class(const zdem_s2_state *s, int32_t cls)
{
    uint32_t n = 0;
    const char *name = zdem_s2_class_name(s, cls, &n);
    if (!name)
        return 0;
    if (ticks_ends_with(name, n, "PlayerController"))
        return 1;
    if (ticks_ends_with(name, n, "Pawn") || (n > 16 && memcmp(name, "CDOTA_Unit_Hero_", 16) == 0))
        return 2;
    return 0;
}

static int role_reads(uint8_t target, int role)
{
    return role && (target == TG_ANY || (target == TG_CTRL) == (role == 1));
}

/* 1 when r's name is a property of a class the rows read it from. */
static int name_ok(const zdem_s2_ticks *t, const zdem_s2_state *s, int32_t self, const tref *r)
{
    zdem_s2_fp fp;
    uint32_t c, lim = zdem_s2_class_id_limit(s);
    int any_role = 0;
    if (t->class_name)
        return zdem_s2_class_prop_fp(s, self, r->name, &fp);
    for (c = 0; c < lim; c++) {
        int role = zdem_s2_ticks_player_class(s, (int32_t)c);
        any_role |= role;
        if (role_reads(r->target, role) && zdem_s2_class_prop_fp(s, (int32_t)c, r->name, &fp))
            return 1;
    }
    if (any_role)
        return 0;
    /* a game whose players this does not know: any class will do */
    for (c = 0; c < lim; c++)
        if (zdem_s2_class_prop_fp(s, (int32_t)c, r->name, &fp))
            return 1;
    return 0;
}

static int offer_name(void *user, const char *name, size_t len, const char *type, size_t tl)
{
    zdem_near *nr = (zdem_near *)user;
    (void)type;
    (void)tl;
    zdem_near_offer(nr, name, len);
    return nr->offers >= ZDEM_NEAR_MAX_OFFERS; /* enough looked at: stop the walk */
}

static void msg_append(zdem_s2_ticks *t, const char *a, const char *b, size_t bl)
{
    size_t l = strlen(t->msg), al = strlen(a);
    if (l + al + bl + 2u >= sizeof t->msg)
        return;
    memcpy(t->msg + l, a, al);
    memcpy(t->msg + l + al, b, bl);
    t->msg[l + al + bl] = ')';
    t->msg[l + al + bl + 1u] = 0;
}

/* The message for an unknown property: the closest names of the classes
 * the rows read (at most 16 of each kind: Dota's heroes share theirs),
 * then the class that has it, when one does. */
static void bad_name(zdem_s2_ticks *t, const zdem_s2_state *s, int32_t self, const tprop *p)
{
    zdem_near nr;
    const char *fn;
    uint32_t i, c, lim = zdem_s2_class_id_limit(s), seen[3] = {0, 0, 0};
    zdem_s2_fp fp;
    zdem_near_init(&nr, p->col_name, strlen(p->col_name));
    for (i = 0; (fn = zdem_s2_ticks_alias_at(i, NULL)) != NULL; i++)
        zdem_near_offer(&nr, fn, strlen(fn));
    if (t->class_name)
        zdem_s2_class_prop_names(s, self, offer_name, &nr);
    else
        for (c = 0; c < lim; c++) {
            int role = zdem_s2_ticks_player_class(s, (int32_t)c);
            if (role_reads(p->a.target, role) && seen[role]++ < 16u)
                zdem_s2_class_prop_names(s, (int32_t)c, offer_name, &nr);
        }
    zdem_near_message(&nr, "property", t->msg, sizeof t->msg);
    for (c = 0; c < lim; c++) {
        uint32_t n = 0;
        const char *cn = zdem_s2_class_name(s, (int32_t)c, &n);
        if (cn && (int32_t)c != self && zdem_s2_class_prop_fp(s, (int32_t)c, p->a.name, &fp)) {
            msg_append(t, t->class_name ? " (a property of " : " (not of the players; a property of ", cn, n);
            break;
        }
    }
}

/* Once the classes are known (before any entity, so before any row):
 * every name must be there. ZDEM_ERR_ABORTED stops the run; t->bad says
 * why. */
static zdem_status ticks_check(zdem_s2_ticks *t, const zdem_s2_state *s)
{
    int32_t self = -1;
    uint32_t i;
    if (zdem_s2_class_count(s) == 0 || zdem_s2_serializer_count(s) == 0)
        return ZDEM_OK; /* not yet */
    t->checked = 1;
    if (t->class_name && (self = zdem_s2_class_find(s, t->class_name, t->class_len)) < 0) {
        zdem_s2_class_message(s, t->class_name, t->msg, sizeof t->msg);
        t->bad = t->msg;
        return ZDEM_ERR_ABORTED;
    }
    for (i = 0; i < t->nprops; i++) {
        const tprop *p = &t->props[i];
        if (p->alias || name_ok(t, s, self, &p->a))
            continue;
        bad_name(t, s, self, p);
        t->bad = t->msg;
        return ZDEM_ERR_ABORTED;
    }
    return ZDEM_OK;
}

/* ---- the tracked entities ---------------------------------------------------- */

static uint32_t ent_pos(const zdem_s2_ticks *t, int32_t idx)
{
    uint32_t lo = 0, hi = t->nents;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (t->ents[mid] < idx)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo;
}

static void ent_add(zdem_s2_ticks *t, int32_t idx)
{
    uint32_t at = ent_pos(t, idx);
    if (at < t->nents && t->ents[at] == idx)
        return;
    if (t->nents >= t->cap) {
        t->untracked++;
        return;
    }
    memmove(t->ents + at + 1, t->ents + at, sizeof(int32_t) * (t->nents - at));
    t->ents[at] = idx;
    t->nents++;
}

static void ent_del(zdem_s2_ticks *t, int32_t idx)
{
    uint32_t at = ent_pos(t, idx);
    if (at < t->nents && t->ents[at] == idx) {
        memmove(t->ents + at, t->ents + at + 1, sizeof(int32_t) * (t->nents - at - 1u));
        t->nents--;
    }
}

static int wanted_class(const zdem_s2_ticks *t, const zdem_s2_entity *e)
{
    static const char suffix[] = "PlayerController";
    size_t sl = sizeof suffix - 1u;
    if (!e->class_name)
        return 0;
    if (t->class_name)
        return e->class_name_len == t->class_len &&
               memcmp(e->class_name, t->class_name, t->class_len) == 0;
    return e->class_name_len >= sl &&
           memcmp(e->class_name + e->class_name_len - sl, suffix, sl) == 0;
}

static zdem_status ticks_on_entity(void *user, zdem_s2_state *s, const zdem_s2_entity *e,
                             unsigned ops, const zdem_s2_fp *changed, uint32_t nchanged)
{
    zdem_s2_ticks *t = (zdem_s2_ticks *)user;
    zdem_status st;
    (void)changed;
    (void)nchanged;
    if (!t->checked && (st = ticks_check(t, s)) != ZDEM_OK)
        return st;
    if (ops & ZDEM_S2_ENT_DELETED)
        ent_del(t, e->index);
    else if (ops & ZDEM_S2_ENT_CREATED) {
        if (wanted_class(t, e))
            ent_add(t, e->index);
        else /* the index was reused by another class */
            ent_del(t, e->index);
    }
    return ZDEM_OK;
}

/* ---- reading values ------------------------------------------------------------ */

/* r's value on entity idx (class cls), through slot's cache. A name
 * ending in ".N" is an array element or component N of a vector: both
 * paths are kept (ok == 2) until an entity has a value at one of them. */
static int ref_get(const zdem_s2_state *s, tref *r, int slot, int32_t idx, int32_t cls,
                   zdem_s2_value *v)
{
    if (r->cls[slot] != cls) {
        char *dot = strrchr(r->name, '.');
        r->cls[slot] = cls;
        r->comp[slot] = -1;
        r->ok[slot] = (int8_t)zdem_s2_class_prop_fp(s, cls, r->name, &r->fp[slot]);
        if (dot && dot[1] >= '0' && dot[1] <= '3' && dot[2] == 0) {
            int vec;
            *dot = 0;
            vec = zdem_s2_class_prop_fp(s, cls, r->name, &r->vec_fp[slot]);
            *dot = '.';
            if (vec) {
                r->comp[slot] = (int8_t)(dot[1] - '0');
                r->ok[slot] = r->ok[slot] ? 2 : 3; /* 3: only the vector */
            }
        }
    }
    if (!r->ok[slot])
        return 0;
    if (r->ok[slot] != 3 && zdem_s2_entity_prop_fp(s, idx, &r->fp[slot], v)) {
        if (r->ok[slot] == 2) /* an element: the name is a plain path */
            r->ok[slot] = 1;
        return 1;
    }
    if (r->ok[slot] == 1 || !zdem_s2_entity_prop_fp(s, idx, &r->vec_fp[slot], v))
        return 0;
    if (v->kind != ZDEM_S2_V_VEC || (unsigned)r->comp[slot] >= v->n)
        return 0;
    r->ok[slot] = 3;
    v->kind = ZDEM_S2_V_FLOAT;
    v->v.f[0] = v->v.f[(unsigned)r->comp[slot]];
    return 1;
}

static int32_t class_of(const zdem_s2_state *s, int32_t idx)
{
    zdem_s2_entity e;
    return idx >= 0 && zdem_s2_entity_get(s, idx, &e) ? e.class_id : -1;
}

/* The value of r for the row (pawn / controller / entity). */
static int row_get(const zdem_s2_state *s, tref *r, int32_t ent, int32_t ent_cls,
                   int32_t ctrl, int32_t ctrl_cls, zdem_s2_value *v)
{
    switch (r->target) {
    case TG_SELF:
    case TG_PAWN:
        return ref_get(s, r, 0, ent, ent_cls, v);
    case TG_CTRL:
        return ref_get(s, r, 1, ctrl, ctrl_cls, v);
    default:
        return ref_get(s, r, 0, ent, ent_cls, v) || ref_get(s, r, 1, ctrl, ctrl_cls, v);
    }
}

static void put(zdem_table *tb, int32_t col, const zdem_s2_value *v)
{
    switch (v->kind) {
    case ZDEM_S2_V_BOOL: zdem_table_bool(tb, col, v->v.u != 0); break;
    case ZDEM_S2_V_UINT: zdem_table_uint(tb, col, v->v.u); break;
    case ZDEM_S2_V_INT: zdem_table_int(tb, col, v->v.i); break;
    case ZDEM_S2_V_FLOAT: zdem_table_float(tb, col, (double)v->v.f[0]); break;
    case ZDEM_S2_V_DOUBLE: zdem_table_float(tb, col, v->v.d); break;
    case ZDEM_S2_V_STRING: zdem_table_str(tb, col, v->s, v->len); break;
    default: break;
    }
}

static int32_t column(zdem_table *tb, const char *name, size_t len, int comp)
{
    char buf[ZDEM_S2_TICKS_NAME_MAX + 3];
    if (comp < 0)
        return zdem_table_column(tb, name, len);
    memcpy(buf, name, len);
    buf[len] = '.';
    buf[len + 1] = (char)('0' + comp);
    return zdem_table_column(tb, buf, len + 2u);
}

static void emit_prop(zdem_s2_ticks *t, const zdem_s2_state *s, tprop *p, int32_t ent,
                      int32_t ent_cls, int32_t ctrl, int32_t ctrl_cls)
{
    zdem_s2_value v, off;
    size_t nl = strlen(p->col_name);
    int have = row_get(s, &p->a, ent, ent_cls, ctrl, ctrl_cls, &v);
    if (have && p->special == SP_COORD) {
        /* demoparser2's arithmetic, in float: cell * 2^9 - 2^14 + offset */
        float cell, o;
        if (!row_get(s, &p->b, ent, ent_cls, ctrl, ctrl_cls, &off) || off.kind != ZDEM_S2_V_FLOAT ||
            (v.kind != ZDEM_S2_V_UINT && v.kind != ZDEM_S2_V_INT))
            have = 0;
        else {
            cell = v.kind == ZDEM_S2_V_UINT ? (float)v.v.u : (float)v.v.i;
            o = off.v.f[0];
            v.kind = ZDEM_S2_V_FLOAT;
            v.v.f[0] = (cell * 512.0f - 16384.0f) + o;
        }
    }
    if (p->col == NOT_YET) /* the first row fixes the columns' order */
        p->col = have && v.kind == ZDEM_S2_V_VEC ? -1 : zdem_table_column(t->table, p->col_name, nl);
    if (!have)
        return;
    if (v.kind == ZDEM_S2_V_VEC) {
        unsigned k;
        for (k = 0; k < v.n && k < MAX_COMP; k++) {
            if (p->comp_col[k] == NOT_YET)
                p->comp_col[k] = column(t->table, p->col_name, nl, (int)k);
            zdem_table_float(t->table, p->comp_col[k], (double)v.v.f[k]);
        }
        return;
    }
    put(t->table, p->col, &v);
}

static int ticks_wanted(zdem_s2_ticks *t, int32_t tick)
{
    if (t->every > 1u && (uint32_t)tick % t->every != 0)
        return 0;
    if (t->ticks) {
        while (t->tick_at < t->nticks && t->ticks[t->tick_at] < tick)
            t->tick_at++;
        return t->tick_at < t->nticks && t->ticks[t->tick_at] == tick;
    }
    return 1;
}

static zdem_status ticks_on_tick(void *user, zdem_s2_state *s, int32_t tick)
{
    zdem_s2_ticks *t = (zdem_s2_ticks *)user;
    uint32_t i, k;
    zdem_status st;
    if (!t->checked && (st = ticks_check(t, s)) != ZDEM_OK)
        return st;
    if (tick < 0 || (int64_t)tick <= t->last_tick)
        return ZDEM_OK;
    t->last_tick = tick;
    if (!ticks_wanted(t, tick))
        return ZDEM_OK;
    for (i = 0; i < t->nents; i++) {
        int32_t ent = t->ents[i], ctrl = -1, ctrl_cls = -1, ent_cls;
        if (!t->class_name) { /* a player: the controller's pawn */
            zdem_s2_value h;
            ctrl = ent;
            ctrl_cls = class_of(s, ctrl);
            ent = -1;
            for (k = 0; k < 4 && ent < 0; k++)
                if (ref_get(s, &t->pawn_handle[k], 1, ctrl, ctrl_cls, &h) &&
                    (h.kind == ZDEM_S2_V_UINT || h.kind == ZDEM_S2_V_INT) && (h.v.u & 0xFFFFFFu) != 0xFFFFFFu)
                    ent = (int32_t)(h.v.u & 0x3FFFu); /* CS2 handles: 14-bit index */
            if (ent < 0)
                continue;
        }
        if ((ent_cls = class_of(s, ent)) < 0)
            continue;
        if ((st = zdem_table_row(t->table)) != ZDEM_OK)
            return st;
        if (t->col_tick == 0 && t->col_ent == 0 && zdem_table_ncols(t->table) == 0) {
            t->col_tick = zdem_table_column(t->table, "tick", 4);
            t->col_ent = zdem_table_column(t->table, "entity", 6);
        }
        zdem_table_int(t->table, t->col_tick, tick);
        zdem_table_int(t->table, t->col_ent, ent);
        for (k = 0; k < t->nprops; k++)
            emit_prop(t, s, &t->props[k], ent, ent_cls, ctrl, ctrl_cls);
    }
    return ZDEM_OK;
}
