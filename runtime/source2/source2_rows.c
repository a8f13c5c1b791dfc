/* Whole-file Source 2 runs into a zdem_table (see source2_rows.h). */
#include "source2_rows.h"
#include "source2_state.h"
#include "source2_players.h"
#include "source2_pb.h"

#include <string.h>

static size_t up16(size_t n)
{
    return (n + 15u) & ~(size_t)15u;
}

static void config(zdem_s2_config *cfg, uint64_t seed)
{
    zdem_s2_config_default(cfg);
    cfg->gather_buffer = 0; /* a whole file: nothing to gather */
    cfg->hash_seed = seed;
}

size_t zdem_s2_rows_fixed_size(void)
{
    zdem_s2_config cfg;
    config(&cfg, 0);
    return zdem_s2_state_fixed_size(&cfg);
}

/* Runs the file, flushes the table; the first error of the two. */
static zdem_status run(zdem_s2_config *cfg, void *arena, size_t arena_size,
                       const uint8_t *file, size_t size, zdem_table *t, zdem_error *err)
{
    zdem_s2_state *s;
    zdem_status st, fs;
    if ((st = zdem_s2_state_init(&s, arena, arena_size, cfg, err)) != ZDEM_OK)
        return st;
    st = zdem_s2_state_run(s, file, size, -1, err);
    fs = zdem_table_flush(t);
    if (st == ZDEM_OK && fs != ZDEM_OK)
        st = zdem_fail(err, fs, size, "stopped by the table's consumer");
    return st;
}

zdem_status zdem_s2_rows_ticks(const uint8_t *file, size_t size, void *arena,
                               size_t arena_size, const zdem_s2_ticks_config *tc,
                               uint64_t hash_seed, zdem_table *t, zdem_error *err)
{
    zdem_s2_config cfg;
    zdem_s2_ticks *tk;
    size_t head = up16(zdem_s2_ticks_size(tc));
    zdem_status st;
    if (!arena || ((uintptr_t)arena & 15u) || arena_size < head)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "rows: arena too small or not 16-byte aligned");
    config(&cfg, hash_seed);
    cfg.skip_events = 1; /* rows need entities only */
    if ((st = zdem_s2_ticks_init(&tk, arena, head, tc, t, &cfg, err)) != ZDEM_OK)
        return st;
    st = run(&cfg, (uint8_t *)arena + head, arena_size - head, file, size, t, err);
    if (zdem_s2_ticks_error(tk)) { /* an unknown name stopped it, not the file */
        zdem_error_clear(err);
        st = zdem_fail(err, ZDEM_ERR_UNKNOWN_NAME, 0, zdem_s2_ticks_error(tk));
    }
    return st;
}

/* ---- events ------------------------------------------------------------------ */

typedef struct ev_rows {
    zdem_table *t;
    const char *const *names;
    uint32_t nnames;
    int checked;     /* names checked against the descriptors */
    int bad;         /* msg: an unknown name stopped the run */
    char msg[320];
    zdem_s2_roster roster;
} ev_rows;

/* The names, once the descriptor list has come (or at the end): one no
 * event can have stops the run, before its rows. */
static zdem_status ev_check(ev_rows *r, const zdem_s2_state *s, int at_end)
{
    int32_t i;
    if (r->checked || !r->names || (!at_end && !zdem_s2_event_descriptor_count(s)))
        return ZDEM_OK;
    r->checked = 1;
    if ((i = zdem_s2_event_names_check(s, r->names, r->nnames)) < 0)
        return ZDEM_OK;
    zdem_s2_event_name_message(s, r->names[i], r->msg, sizeof r->msg);
    r->bad = 1;
    return ZDEM_ERR_ABORTED;
}

/* The name or the type of an event is one of names. */
static int ev_wanted(const ev_rows *r, const zdem_s2_event *ev, const char *ty)
{
    uint32_t i;
    size_t tl = strlen(ty);
    for (i = 0; i < r->nnames; i++) {
        size_t l = strlen(r->names[i]);
        if ((l == ev->name_len && memcmp(r->names[i], ev->name, l) == 0) ||
            (l == tl && memcmp(r->names[i], ty, l) == 0))
            return 1;
    }
    return 0;
}

/* A column named prefix + suffix (cut to the table's name limit). */
static int32_t col2(zdem_table *t, const char *a, size_t al, const char *b, size_t bl)
{
    char buf[ZDEM_TABLE_NAME_MAX];
    if (al > sizeof buf)
        al = sizeof buf;
    if (bl > sizeof buf - al)
        bl = sizeof buf - al;
    memcpy(buf, a, al);
    memcpy(buf + al, b, bl);
    return zdem_table_column(t, buf, al + bl);
}

/* <role>_name, <role>_steamid, <role>_team_num: the columns exist on every
 * row with the role; a player that is not there leaves them empty. */
static void put_role(zdem_table *t, const zdem_s2_role *r)
{
    int32_t cn = col2(t, r->name, r->name_len, "_name", 5);
    int32_t cs = col2(t, r->name, r->name_len, "_steamid", 8);
    int32_t ct = col2(t, r->name, r->name_len, "_team_num", 9);
    if (!r->found)
        return;
    if (r->player.name)
        zdem_table_str(t, cn, r->player.name, r->player.name_len);
    if (r->player.steamid)
        zdem_table_uint(t, cs, r->player.steamid);
    if (r->player.team >= 0)
        zdem_table_int(t, ct, r->player.team);
}

static int wanted_event(const char *const *names, uint32_t n, const zdem_s2_event *ev)
{
    uint32_t i;
    if (!names)
        return 1;
    for (i = 0; i < n; i++)
        if (strlen(names[i]) == ev->name_len && memcmp(names[i], ev->name, ev->name_len) == 0)
            return 1;
    return 0;
}

static void put_value(zdem_table *t, int32_t col, const char *name, size_t nl, const zdem_s2_value *v)
{
    unsigned k;
    switch (v->kind) {
    case ZDEM_S2_V_BOOL: zdem_table_bool(t, col, v->v.u != 0); break;
    case ZDEM_S2_V_UINT: zdem_table_uint(t, col, v->v.u); break;
    case ZDEM_S2_V_INT: zdem_table_int(t, col, v->v.i); break;
    case ZDEM_S2_V_FLOAT: zdem_table_float(t, col, (double)v->v.f[0]); break;
    case ZDEM_S2_V_DOUBLE: zdem_table_float(t, col, v->v.d); break;
    case ZDEM_S2_V_STRING: zdem_table_str(t, col, v->s, v->len); break;
    case ZDEM_S2_V_VEC: /* a vector key: one column per component */
        for (k = 0; k < v->n && k < 4u && nl + 2u <= ZDEM_TABLE_NAME_MAX; k++) {
            char buf[ZDEM_TABLE_NAME_MAX];
            memcpy(buf, name, nl);
            buf[nl] = '.';
            buf[nl + 1] = (char)('0' + k);
            zdem_table_float(t, zdem_table_column(t, buf, nl + 2u), (double)v->v.f[k]);
        }
        break;
    default: break;
    }
}

static zdem_status rows_on_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    static const char *const types[] = {"game_event", "chat", "combat_log"};
    ev_rows *r = (ev_rows *)user;
    zdem_table *t = r->t;
    const char *ty = types[ev->type <= ZDEM_S2_EV_COMBAT_LOG ? ev->type : 0];
    zdem_status st;
    zdem_s2_role roles[ZDEM_S2_EVENT_MAX_ROLES];
    uint32_t i, nroles;
    if ((st = ev_check(r, s, 0)) != ZDEM_OK)
        return st;
    if (r->names && !ev_wanted(r, ev, ty))
        return ZDEM_OK;
    if ((st = zdem_table_row(t)) != ZDEM_OK)
        return st;
    zdem_table_int(t, zdem_table_column(t, "tick", 4), ev->tick);
    zdem_table_str(t, zdem_table_column(t, "type", 4), ty, strlen(ty));
    zdem_table_str(t, zdem_table_column(t, "event_name", 10), ev->name, ev->name_len);
    for (i = 0; i < ev->nkeys && i < ZDEM_S2_EVENT_MAX_KEYS; i++) {
        const zdem_s2_event_key *k = &ev->keys[i];
        const char *kn = k->name;
        size_t kl = k->name_len;
        char buf[ZDEM_TABLE_NAME_MAX];
        /* a key named like a fixed column gets "key_" in front */
        if (((kl == 4 && (memcmp(kn, "tick", 4) == 0 || memcmp(kn, "type", 4) == 0)) ||
             (kl == 10 && memcmp(kn, "event_name", 10) == 0))) {
            memcpy(buf, "key_", 4);
            memcpy(buf + 4, kn, kl);
            kn = buf;
            kl += 4;
        }
        put_value(t, k->value.kind == ZDEM_S2_V_VEC ? -1 : zdem_table_column(t, kn, kl), kn, kl, &k->value);
    }
    nroles = zdem_s2_event_roles(&r->roster, s, ev, roles, ZDEM_S2_EVENT_MAX_ROLES);
    for (i = 0; i < nroles; i++)
        put_role(t, &roles[i]);
    return ZDEM_OK;
}

zdem_status zdem_s2_rows_events(const uint8_t *file, size_t size, void *arena,
                                size_t arena_size, const char *const *names,
                                uint32_t nnames, uint64_t hash_seed, zdem_table *t,
                                zdem_error *err)
{
    zdem_s2_config cfg;
    zdem_s2_state *s;
    ev_rows *r = (ev_rows *)arena; /* at the arena's head: its message outlives the call */
    size_t head = up16(sizeof(ev_rows));
    zdem_status st, fs;
    if (!arena || ((uintptr_t)arena & 15u) || arena_size < head)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "rows: arena too small or not 16-byte aligned");
    config(&cfg, hash_seed);
    /* entities are decoded (the controllers and pawns name the players),
     * each where the packet has it, as demoparser2 reads them */
    cfg.entities_in_wire_order = 1;
    memset(r, 0, sizeof *r);
    r->t = t;
    r->names = names;
    r->nnames = nnames;
    zdem_s2_roster_init(&r->roster);
    cfg.user = r;
    cfg.on_event = rows_on_event;
    if ((st = zdem_s2_state_init(&s, (uint8_t *)arena + head, arena_size - head, &cfg, err)) != ZDEM_OK)
        return st;
    st = zdem_s2_state_run(s, file, size, -1, err);
    /* at the end: a demo without a descriptor list has only the fixed
     * names (unless it was cut before the list: then the damage speaks) */
    if (!r->bad && !r->checked && (st == ZDEM_OK || zdem_s2_event_descriptor_count(s)))
        (void)ev_check(r, s, 1);
    if (r->bad) { /* an unknown name stopped it, not the file */
        zdem_error_clear(err);
        return zdem_fail(err, ZDEM_ERR_UNKNOWN_NAME, 0, r->msg);
    }
    fs = zdem_table_flush(t);
    if (st == ZDEM_OK && fs != ZDEM_OK)
        st = zdem_fail(err, fs, size, "stopped by the table's consumer");
    return st;
}

/* ---- property names ------------------------------------------------------------ */

/* Rows a listing gives at most: far above a real demo (Dota's every
 * class: about 10^6), a bound for crafted serializers that many classes
 * share. */
#define PROPS_MAX_ROWS (1u << 23)

typedef struct props_rows {
    zdem_table *t;
    const char *cls;
    uint32_t cls_len;
    int32_t col[4];  /* class, name, type, reads */
    zdem_status st;
    uint32_t rows;
} props_rows;

zdem_status zdem_s2_rows_props_hook(void *user, zdem_s2_state *s, const zdem_s2_outer *m,
                                    const uint8_t *p, size_t n)
{
    (void)user;
    (void)m;
    (void)p;
    (void)n;
    /* the serializers and classes are in: nothing after them is needed */
    return zdem_s2_class_count(s) && zdem_s2_serializer_count(s) ? ZDEM_ERR_ABORTED : ZDEM_OK;
}

static int props_row(void *user, const char *name, size_t len, const char *type, size_t tl)
{
    props_rows *r = (props_rows *)user;
    if (++r->rows > PROPS_MAX_ROWS) {
        r->st = ZDEM_ERR_LIMIT;
        return 1;
    }
    if ((r->st = zdem_table_row(r->t)) != ZDEM_OK)
        return 1;
    zdem_table_str(r->t, r->col[0], r->cls, r->cls_len);
    zdem_table_str(r->t, r->col[1], name, len);
    zdem_table_str(r->t, r->col[2], type, tl);
    return 0;
}

/* The demoparser2 names: all of them for player rows, those whose
 * property class cls has for its rows (cls >= 0). */
static zdem_status props_aliases(props_rows *r, const zdem_s2_state *s, int32_t cls)
{
    const char *a, *target;
    uint32_t i;
    zdem_s2_fp fp;
    for (i = 0; zdem_s2_ticks_alias_at(i, &a, &target); i++) {
        zdem_status st;
        if (cls >= 0 && !zdem_s2_class_prop_fp(s, cls, target, &fp))
            continue;
        if ((st = zdem_table_row(r->t)) != ZDEM_OK)
            return st;
        if (cls >= 0)
            zdem_table_str(r->t, r->col[0], r->cls, r->cls_len);
        zdem_table_str(r->t, r->col[1], a, strlen(a));
        zdem_table_str(r->t, r->col[3], target, strlen(target));
    }
    return ZDEM_OK;
}

static zdem_status props_class(props_rows *r, const zdem_s2_state *s, int32_t cls)
{
    r->cls = zdem_s2_class_name(s, cls, &r->cls_len);
    if (!r->cls)
        return ZDEM_OK;
    zdem_s2_class_prop_names(s, cls, props_row, r);
    return r->st;
}

zdem_status zdem_s2_rows_props_list(const zdem_s2_state *s, const char *class_name, zdem_table *t,
                                    char *msg, size_t msg_cap, zdem_error *err)
{
    props_rows r;
    zdem_status fs;
    uint32_t c, lim = zdem_s2_class_id_limit(s);
    int all = class_name && strcmp(class_name, "*") == 0;
    memset(&r, 0, sizeof r);
    r.t = t;
    r.col[0] = zdem_table_column(t, "class", 5);
    r.col[1] = zdem_table_column(t, "name", 4);
    r.col[2] = zdem_table_column(t, "type", 4);
    r.col[3] = zdem_table_column(t, "reads", 5);
    if (class_name && !all) {
        int32_t cls = zdem_s2_class_find(s, class_name, strlen(class_name));
        if (cls < 0) {
            zdem_s2_class_message(s, class_name, msg, msg_cap);
            return zdem_fail(err, ZDEM_ERR_UNKNOWN_NAME, 0, msg);
        }
        r.cls = class_name;
        r.cls_len = (uint32_t)strlen(class_name);
        fs = props_aliases(&r, s, cls);
        if (fs == ZDEM_OK)
            fs = props_class(&r, s, cls);
    } else {
        int any = 0;
        fs = props_aliases(&r, s, -1);
        for (c = 0; c < lim; c++)
            any |= zdem_s2_ticks_player_class(s, (int32_t)c);
        /* player rows read controllers and pawns (any class in a game
         * whose players are not known) */
        for (c = 0; c < lim && fs == ZDEM_OK; c++)
            if (all || !any || zdem_s2_ticks_player_class(s, (int32_t)c))
                fs = props_class(&r, s, (int32_t)c);
    }
    if (fs == ZDEM_ERR_LIMIT) { /* what was listed still comes */
        (void)zdem_table_flush(t);
        return zdem_fail(err, fs, 0, "props: more than 2^23 names (crafted serializers?): the rest not listed");
    }
    if (fs == ZDEM_OK)
        fs = zdem_table_flush(t);
    if (fs != ZDEM_OK)
        return zdem_fail(err, fs, 0, "stopped by the table's consumer");
    return ZDEM_OK;
}

zdem_status zdem_s2_rows_props(const uint8_t *file, size_t size, void *arena,
                               size_t arena_size, const char *class_name,
                               uint64_t hash_seed, zdem_table *t, zdem_error *err)
{
    zdem_s2_config cfg;
    zdem_s2_state *s;
    char *msg = (char *)arena; /* at the arena's head: the message outlives the call */
    const size_t head = 320;
    zdem_status st, ls;
    zdem_error le;
    if (!arena || ((uintptr_t)arena & 15u) || arena_size < head)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "rows: arena too small or not 16-byte aligned");
    config(&cfg, hash_seed);
    cfg.skip_entities = 1;
    cfg.skip_events = 1;
    cfg.on_frame = zdem_s2_rows_props_hook;
    msg[0] = 0;
    if ((st = zdem_s2_state_init(&s, (uint8_t *)arena + head, arena_size - head, &cfg, err)) != ZDEM_OK)
        return st;
    st = zdem_s2_state_run(s, file, size, -1, err);
    if (st == ZDEM_ERR_ABORTED) { /* stopped after the classes, by the hook */
        zdem_error_clear(err);
        st = ZDEM_OK;
    }
    if (st != ZDEM_OK && !zdem_s2_class_count(s)) { /* damaged before the classes */
        (void)zdem_table_flush(t);
        return st;
    }
    zdem_error_clear(&le);
    ls = zdem_s2_rows_props_list(s, class_name, t, msg, head, &le);
    if (ls != ZDEM_OK) {
        *err = le;
        return ls;
    }
    return st;
}

/* ---- events with players' and the game's properties (parseEvent) ------------ */

/* demoparser2 reads these after the rest of their packet, entities
 * included (the inferno or decoy they name is created by that packet):
 * they are kept until the packet ends. */
#define EVP_DEFER 4u          /* events kept per packet (more: at once) */
#define EVP_DEFER_POOL 4096u  /* bytes of their string values */

typedef struct evp_rows {
    zdem_table *t;
    const zdem_s2_event_rows_config *c;
    zdem_s2_ticks *pp, *op; /* player= and other= properties */
    zdem_s2_roster roster;
    int names_checked;      /* the event names, against the descriptors */
    const char *bad;        /* an unknown name's message: it stopped the run */
    char msg[320];
    uint32_t ndefer, pool_used;
    zdem_s2_event defer[EVP_DEFER];
    uint8_t pool[EVP_DEFER_POOL];
} evp_rows;

static int evp_deferred_kind(const zdem_s2_event *ev)
{
    static const char *const names[] = {"inferno_startburn", "decoy_started", "inferno_expire"};
    size_t i;
    if (ev->type != ZDEM_S2_EV_GAME_EVENT)
        return 0;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == ev->name_len && memcmp(names[i], ev->name, ev->name_len) == 0)
            return 1;
    return 0;
}

/* A copy of ev that outlives the message: names point into the state's
 * descriptors (they stay), string values are copied to the pool. */
static int evp_defer(evp_rows *r, const zdem_s2_event *ev)
{
    zdem_s2_event *d;
    uint32_t i, need = 0, nk = ev->nkeys < ZDEM_S2_EVENT_MAX_KEYS ? ev->nkeys : ZDEM_S2_EVENT_MAX_KEYS;
    for (i = 0; i < nk; i++)
        if (ev->keys[i].value.kind == ZDEM_S2_V_STRING)
            need += ev->keys[i].value.len;
    if (r->ndefer >= EVP_DEFER || need > EVP_DEFER_POOL - r->pool_used)
        return 0;
    d = &r->defer[r->ndefer++];
    memcpy(d, ev, offsetof(zdem_s2_event, keys) + sizeof d->keys[0] * nk);
    for (i = 0; i < nk; i++)
        if (d->keys[i].value.kind == ZDEM_S2_V_STRING && d->keys[i].value.len) {
            memcpy(r->pool + r->pool_used, d->keys[i].value.s, d->keys[i].value.len);
            d->keys[i].value.s = r->pool + r->pool_used;
            r->pool_used += d->keys[i].value.len;
        }
    return 1;
}

/* The names asked for, as parse_ticks and parse_events check them: the
 * properties once the classes are read, the event names once the
 * descriptors are (at_end: whatever has come). One that the demo cannot
 * have stops the run before its rows. */
static zdem_status evp_check(evp_rows *r, const zdem_s2_state *s, int at_end)
{
    int32_t i;
    if (r->bad)
        return ZDEM_ERR_ABORTED;
    if (zdem_s2_ticks_check(r->pp, s) != ZDEM_OK)
        r->bad = zdem_s2_ticks_error(r->pp);
    else if (zdem_s2_ticks_check(r->op, s) != ZDEM_OK)
        r->bad = zdem_s2_ticks_error(r->op);
    else if (!r->names_checked && r->c->names && (at_end || zdem_s2_event_descriptor_count(s))) {
        r->names_checked = 1;
        if ((i = zdem_s2_event_names_check(s, r->c->names, r->c->nnames)) >= 0) {
            zdem_s2_event_name_message(s, r->c->names[i], r->msg, sizeof r->msg);
            r->bad = r->msg;
        }
    }
    return r->bad ? ZDEM_ERR_ABORTED : ZDEM_OK;
}

static zdem_status evp_on_entity(void *user, zdem_s2_state *s, const zdem_s2_entity *e,
                                 unsigned ops, const zdem_s2_fp *changed, uint32_t nchanged)
{
    evp_rows *r = (evp_rows *)user;
    (void)changed, (void)nchanged;
    if (evp_check(r, s, 0) != ZDEM_OK)
        return ZDEM_ERR_ABORTED;
    zdem_s2_roster_entity(&r->roster, e, ops);
    if (r->pp)
        zdem_s2_roster_entity(zdem_s2_ticks_roster(r->pp), e, ops);
    if (r->op)
        zdem_s2_roster_entity(zdem_s2_ticks_roster(r->op), e, ops);
    return ZDEM_OK;
}

/* Property k of tk into column prefix + name (a vector: one column per
 * component); the column is made even when there is no value. */
static void put_prop(zdem_table *t, zdem_s2_ticks *tk, const zdem_s2_state *s, uint32_t k,
                     const char *pre, size_t pl, const char *name, int32_t pawn, int32_t ctrl,
                     int64_t team, int have_player)
{
    char buf[ZDEM_TABLE_NAME_MAX];
    size_t nl = strlen(name), bl;
    zdem_s2_value v;
    int have = have_player && zdem_s2_ticks_value(tk, s, k, pawn, ctrl, team, &v);
    if (pl > sizeof buf)
        pl = sizeof buf;
    if (nl > sizeof buf - pl)
        nl = sizeof buf - pl;
    memcpy(buf, pre, pl);
    memcpy(buf + pl, name, nl);
    bl = pl + nl;
    if (have && v.kind == ZDEM_S2_V_VEC)
        put_value(t, -1, buf, bl, &v);
    else {
        int32_t col = zdem_table_column(t, buf, bl);
        if (have)
            put_value(t, col, buf, bl, &v);
    }
}

static zdem_status evp_row(evp_rows *r, zdem_s2_state *s, const zdem_s2_event *ev);

static zdem_status evp_on_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    evp_rows *r = (evp_rows *)user;
    if (evp_check(r, s, 0) != ZDEM_OK)
        return ZDEM_ERR_ABORTED;
    if (!wanted_event(r->c->names, r->c->nnames, ev))
        return ZDEM_OK;
    if (evp_deferred_kind(ev) && evp_defer(r, ev))
        return ZDEM_OK;
    return evp_row(r, s, ev);
}

/* The packet ended (its entities are in): the events kept for it. */
static zdem_status evp_flush(evp_rows *r, zdem_s2_state *s)
{
    uint32_t i, n = r->ndefer;
    zdem_status st = ZDEM_OK;
    r->ndefer = 0;
    for (i = 0; i < n && st == ZDEM_OK; i++)
        st = evp_row(r, s, &r->defer[i]);
    r->pool_used = 0;
    return st;
}

static zdem_status evp_on_tick(void *user, zdem_s2_state *s, int32_t tick)
{
    (void)tick;
    return evp_flush((evp_rows *)user, s);
}

static zdem_status evp_row(evp_rows *r, zdem_s2_state *s, const zdem_s2_event *ev)
{
    const zdem_s2_event_rows_config *c = r->c;
    zdem_table *t = r->t;
    zdem_s2_role roles[ZDEM_S2_EVENT_MAX_ROLES];
    uint32_t i, k, nroles;
    zdem_status st;
    if ((st = zdem_table_row(t)) != ZDEM_OK)
        return st;
    zdem_table_int(t, zdem_table_column(t, "tick", 4), ev->tick);
    zdem_table_str(t, zdem_table_column(t, "event_name", 10), ev->name, ev->name_len);
    for (i = 0; i < ev->nkeys && i < ZDEM_S2_EVENT_MAX_KEYS; i++) {
        const zdem_s2_event_key *k2 = &ev->keys[i];
        const char *kn = k2->name;
        size_t kl = k2->name_len;
        char buf[ZDEM_TABLE_NAME_MAX];
        if (c->fold_player_keys && zdem_s2_event_key_internal(kn, kl))
            continue; /* demoparser2 gives these as the player columns only */
        if ((kl == 4 && memcmp(kn, "tick", 4) == 0) || (kl == 10 && memcmp(kn, "event_name", 10) == 0)) {
            memcpy(buf, "key_", 4);
            memcpy(buf + 4, kn, kl);
            kn = buf;
            kl += 4;
        }
        put_value(t, k2->value.kind == ZDEM_S2_V_VEC ? -1 : zdem_table_column(t, kn, kl), kn, kl, &k2->value);
    }
    nroles = zdem_s2_event_roles(&r->roster, s, ev, roles, ZDEM_S2_EVENT_MAX_ROLES);
    for (i = 0; i < nroles; i++) {
        char pre[ZDEM_TABLE_NAME_MAX];
        size_t pl = roles[i].name_len < sizeof pre - 1u ? roles[i].name_len : sizeof pre - 1u;
        put_role(t, &roles[i]);
        memcpy(pre, roles[i].name, pl);
        pre[pl++] = '_';
        for (k = 0; k < c->nplayer; k++) {
            const char *pn = c->player_props[k];
            /* name and steamid are the role's own columns (demoparser2
             * skips them as props too); so is team_num (the pawn's team,
             * as the tick rows read it, else the controller's) */
            if (strcmp(pn, "name") == 0 || strcmp(pn, "steamid") == 0 || strcmp(pn, "tick") == 0 ||
                strcmp(pn, "team_num") == 0)
                continue;
            put_prop(t, r->pp, s, k, pre, pl, pn, roles[i].player.pawn, roles[i].player.controller,
                     -1, roles[i].found);
        }
    }
    for (k = 0; k < c->nother; k++) {
        const char *on = c->other_props[k];
        switch (zdem_s2_ticks_prop_kind(r->op, k)) {
        case ZDEM_S2_PROP_RULES:
            put_prop(t, r->op, s, k, "", 0, on, -1, -1, -1, 1);
            break;
        case ZDEM_S2_PROP_TEAM: /* demoparser2's t_ and ct_ columns: teams 2 and 3 */
            put_prop(t, r->op, s, k, "t_", 2, on, -1, -1, 2, 1);
            put_prop(t, r->op, s, k, "ct_", 3, on, -1, -1, 3, 1);
            break;
        default:
            break;
        }
    }
    return ZDEM_OK;
}

size_t zdem_s2_rows_event_size(const zdem_s2_event_rows_config *c)
{
    zdem_s2_ticks_config a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.nprops = c->nplayer;
    b.nprops = c->nother;
    a.max_rows_per_tick = b.max_rows_per_tick = 1;
    return up16(zdem_s2_ticks_size(&a)) + up16(zdem_s2_ticks_size(&b)) + up16(sizeof(evp_rows));
}

zdem_status zdem_s2_rows_event(const uint8_t *file, size_t size, void *arena,
                               size_t arena_size, const zdem_s2_event_rows_config *c,
                               uint64_t hash_seed, zdem_table *t, zdem_error *err)
{
    zdem_s2_config cfg;
    zdem_s2_ticks_config a, b;
    uint8_t *p = (uint8_t *)arena;
    size_t head = zdem_s2_rows_event_size(c), sa, sb;
    evp_rows *r;
    zdem_status st;
    if (!arena || ((uintptr_t)arena & 15u) || arena_size < head)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "rows: arena too small or not 16-byte aligned");
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.props = c->player_props;
    a.nprops = c->nplayer;
    b.props = c->other_props;
    b.nprops = c->nother;
    a.max_rows_per_tick = b.max_rows_per_tick = 1;
    sa = up16(zdem_s2_ticks_size(&a));
    sb = up16(zdem_s2_ticks_size(&b));
    r = (evp_rows *)(void *)(p + sa + sb);
    memset(r, 0, sizeof *r);
    r->t = t;
    r->c = c;
    zdem_s2_roster_init(&r->roster);
    if ((st = zdem_s2_ticks_init(&r->pp, p, sa, &a, NULL, NULL, err)) != ZDEM_OK ||
        (st = zdem_s2_ticks_init(&r->op, p + sa, sb, &b, NULL, NULL, err)) != ZDEM_OK)
        return st;
    config(&cfg, hash_seed);
    cfg.entities_in_wire_order = 1;
    cfg.user = r;
    cfg.on_event = evp_on_event;
    cfg.on_entity = evp_on_entity;
    cfg.on_tick = evp_on_tick;
    {
        zdem_s2_state *s;
        zdem_status fs;
        if ((st = zdem_s2_state_init(&s, p + head, arena_size - head, &cfg, err)) != ZDEM_OK)
            return st;
        st = zdem_s2_state_run(s, file, size, -1, err);
        /* at the end: a demo without a descriptor list has only the fixed
         * names (unless it was cut before the list: then the damage speaks) */
        if (!r->bad && (st == ZDEM_OK || zdem_s2_event_descriptor_count(s)))
            (void)evp_check(r, s, 1);
        if (r->bad) { /* an unknown name stopped it, not the file */
            zdem_error_clear(err);
            return zdem_fail(err, ZDEM_ERR_UNKNOWN_NAME, 0, r->bad);
        }
        fs = evp_flush(r, s); /* kept from a last packet cut short */
        if (fs == ZDEM_OK)
            fs = zdem_table_flush(t);
        if (st == ZDEM_OK && fs != ZDEM_OK)
            st = zdem_fail(err, fs, size, "stopped by the table's consumer");
        return st;
    }
}

/* ---- event names ---------------------------------------------------------------- */

#define EN_SLOTS 1024u  /* distinct names kept (a hash with linear probing) */
#define EN_NAME 64u     /* a name longer than this is cut */

typedef struct en_rows {
    zdem_table *t;
    uint32_t n;
    struct {
        uint32_t len, hash;
        int32_t row;
        char name[EN_NAME];
    } slot[EN_SLOTS];
} en_rows;

static zdem_status en_on_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    static const char *const types[] = {"game_event", "chat", "combat_log"};
    en_rows *r = (en_rows *)user;
    uint32_t len = ev->name_len < EN_NAME ? ev->name_len : EN_NAME, h = 2166136261u, i, k;
    const char *ty = types[ev->type <= ZDEM_S2_EV_COMBAT_LOG ? ev->type : 0];
    zdem_status st;
    (void)s;
    for (i = 0; i < len; i++)
        h = (h ^ (uint8_t)ev->name[i]) * 16777619u;
    for (k = 0; k < EN_SLOTS; k++) {
        i = (h + k) & (EN_SLOTS - 1u);
        if (r->slot[i].row < 0)
            break;
        if (r->slot[i].hash == h && r->slot[i].len == len && memcmp(r->slot[i].name, ev->name, len) == 0)
            return ZDEM_OK; /* seen */
    }
    if (k == EN_SLOTS || r->n >= EN_SLOTS / 2u)
        return ZDEM_OK; /* half full: 512 names, far more than a game has */
    r->slot[i].hash = h;
    r->slot[i].len = len;
    r->slot[i].row = (int32_t)r->n++;
    memcpy(r->slot[i].name, ev->name, len);
    if ((st = zdem_table_row(r->t)) != ZDEM_OK)
        return st;
    zdem_table_str(r->t, zdem_table_column(r->t, "event_name", 10), ev->name, len);
    zdem_table_str(r->t, zdem_table_column(r->t, "type", 4), ty, strlen(ty));
    return ZDEM_OK;
}

zdem_status zdem_s2_rows_event_names(const uint8_t *file, size_t size, void *arena,
                                     size_t arena_size, uint64_t hash_seed, zdem_table *t,
                                     zdem_error *err)
{
    zdem_s2_config cfg;
    en_rows *r = (en_rows *)arena;
    size_t head = up16(sizeof(en_rows));
    uint32_t i;
    if (!arena || ((uintptr_t)arena & 15u) || arena_size < head)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "rows: arena too small or not 16-byte aligned");
    r->t = t;
    r->n = 0;
    for (i = 0; i < EN_SLOTS; i++)
        r->slot[i].row = -1;
    config(&cfg, hash_seed);
    cfg.skip_entities = 1; /* names need no entity state */
    cfg.user = r;
    cfg.on_event = en_on_event;
    return run(&cfg, (uint8_t *)arena + head, arena_size - head, file, size, t, err);
}

/* ---- players ------------------------------------------------------------------- */

zdem_status zdem_s2_rows_players(const uint8_t *file, size_t size, void *arena,
                                 size_t arena_size, uint64_t hash_seed, zdem_table *t,
                                 zdem_error *err)
{
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_status st, fs = ZDEM_OK;
    zdem_s2_roster *ro;
    uint32_t i;
    size_t head = up16(sizeof(zdem_s2_roster));
    if (!arena || ((uintptr_t)arena & 15u) || arena_size < head)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "rows: arena too small or not 16-byte aligned");
    ro = (zdem_s2_roster *)arena;
    zdem_s2_roster_init(ro);
    config(&cfg, hash_seed);
    cfg.skip_events = 1;
    if ((st = zdem_s2_state_init(&s, (uint8_t *)arena + head, arena_size - head, &cfg, err)) != ZDEM_OK)
        return st;
    st = zdem_s2_state_run(s, file, size, -1, err);
    /* the players as the demo leaves them (also after damage: what was read) */
    for (i = 0; i < ZDEM_S2_PLAYER_SLOTS && fs == ZDEM_OK; i++) {
        zdem_s2_player p;
        if (!zdem_s2_player_at_slot(ro, s, i, &p) || p.is_hltv)
            continue;
        if ((fs = zdem_table_row(t)) != ZDEM_OK)
            break;
        zdem_table_int(t, zdem_table_column(t, "slot", 4), p.slot);
        if (p.userid >= 0)
            zdem_table_int(t, zdem_table_column(t, "userid", 6), p.userid);
        else
            (void)zdem_table_column(t, "userid", 6);
        if (p.steamid)
            zdem_table_uint(t, zdem_table_column(t, "steamid", 7), p.steamid);
        else
            (void)zdem_table_column(t, "steamid", 7);
        if (p.name)
            zdem_table_str(t, zdem_table_column(t, "name", 4), p.name, p.name_len);
        else
            (void)zdem_table_column(t, "name", 4);
        if (p.team >= 0)
            zdem_table_int(t, zdem_table_column(t, "team_number", 11), p.team);
        else
            (void)zdem_table_column(t, "team_number", 11);
        if (p.controller >= 0)
            zdem_table_int(t, zdem_table_column(t, "controller_entity", 17), p.controller);
        else
            (void)zdem_table_column(t, "controller_entity", 17);
        if (p.pawn >= 0)
            zdem_table_int(t, zdem_table_column(t, "pawn_entity", 11), p.pawn);
        else
            (void)zdem_table_column(t, "pawn_entity", 11);
        if (p.player_id >= 0)
            zdem_table_int(t, zdem_table_column(t, "player_id", 9), p.player_id);
        zdem_table_bool(t, zdem_table_column(t, "is_bot", 6), p.is_bot);
    }
    if (fs == ZDEM_OK)
        fs = zdem_table_flush(t);
    if (st == ZDEM_OK && fs != ZDEM_OK)
        st = zdem_fail(err, fs, size, "stopped by the table's consumer");
    return st;
}

/* ---- header ------------------------------------------------------------------ */

static void view(zdem_table *t, const char *col, uint8_t has, zdem_view v)
{
    if (has)
        zdem_table_str(t, zdem_table_column(t, col, strlen(col)), v.ptr, v.len);
}

static void num(zdem_table *t, const char *col, uint8_t has, int64_t v)
{
    if (has)
        zdem_table_int(t, zdem_table_column(t, col, strlen(col)), v);
}

static zdem_status rows_on_frame(void *user, zdem_s2_state *s, const zdem_s2_outer *m,
                            const uint8_t *p, size_t n)
{
    zdem_table *t = (zdem_table *)user;
    zdem_error e;
    zdem_status st;
    (void)s;
    zdem_error_clear(&e);
    if (!p)
        return ZDEM_OK;
    if (m->cmd == ZDEM_S2_DEM_FILEHEADER) {
        zdem_pb_CDemoFileHeader h;
        if (zdem_pb_CDemoFileHeader_decode(p, n, &h, NULL, NULL, &e) != ZDEM_OK)
            return ZDEM_OK; /* the state layer reports the damage */
        if ((st = zdem_table_row(t)) != ZDEM_OK)
            return st;
        view(t, "map_name", h.has_map_name, h.map_name);
        view(t, "server_name", h.has_server_name, h.server_name);
        view(t, "client_name", h.has_client_name, h.client_name);
        view(t, "game_directory", h.has_game_directory, h.game_directory);
        view(t, "demo_file_stamp", h.has_demo_file_stamp, h.demo_file_stamp);
        view(t, "demo_version_name", h.has_demo_version_name, h.demo_version_name);
        view(t, "demo_version_guid", h.has_demo_version_guid, h.demo_version_guid);
        view(t, "addons", h.has_addons, h.addons);
        view(t, "game", h.has_game, h.game);
        num(t, "network_protocol", h.has_network_protocol, h.network_protocol);
        num(t, "build_num", h.has_build_num, h.build_num);
        num(t, "fullpackets_version", h.has_fullpackets_version, h.fullpackets_version);
        num(t, "server_start_tick", h.has_server_start_tick, h.server_start_tick);
        if (h.has_allow_clientside_entities)
            zdem_table_bool(t, zdem_table_column(t, "allow_clientside_entities", 25), h.allow_clientside_entities);
        if (h.has_allow_clientside_particles)
            zdem_table_bool(t, zdem_table_column(t, "allow_clientside_particles", 26), h.allow_clientside_particles);
    } else if (m->cmd == ZDEM_S2_DEM_FILEINFO) {
        zdem_pb_CDemoFileInfo fi;
        if (zdem_pb_CDemoFileInfo_decode(p, n, &fi, NULL, NULL, &e) != ZDEM_OK)
            return ZDEM_OK;
        if (!zdem_table_rows(t) && (st = zdem_table_row(t)) != ZDEM_OK)
            return st;
        num(t, "playback_ticks", fi.has_playback_ticks, fi.playback_ticks);
        num(t, "playback_frames", fi.has_playback_frames, fi.playback_frames);
        if (fi.has_playback_time)
            zdem_table_float(t, zdem_table_column(t, "playback_time", 13), (double)fi.playback_time);
    }
    return ZDEM_OK;
}

zdem_status zdem_s2_rows_header(const uint8_t *file, size_t size, void *arena,
                                size_t arena_size, zdem_table *t, zdem_error *err)
{
    zdem_s2_config cfg;
    config(&cfg, 0);
    cfg.skip_entities = 1;
    cfg.skip_events = 1;
    cfg.frame_payloads = (1u << ZDEM_S2_DEM_FILEHEADER) | (1u << ZDEM_S2_DEM_FILEINFO);
    cfg.on_frame = rows_on_frame;
    cfg.user = t;
    return run(&cfg, arena, arena_size, file, size, t, err);
}
