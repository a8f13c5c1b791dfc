/* Whole-file Source 2 runs into a zdem_table (see source2_rows.h). */
#include "source2_rows.h"
#include "source2_state.h"
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
    uint32_t i;
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
    cfg.skip_entities = 1; /* events need no entity state */
    memset(r, 0, sizeof *r);
    r->t = t;
    r->names = names;
    r->nnames = nnames;
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
    for (i = 0; (a = zdem_s2_ticks_alias_at(i, &target)) != NULL; i++) {
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
