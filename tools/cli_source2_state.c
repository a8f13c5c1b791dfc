/* Source 2 state commands: the run, events, entities. */
#include "cli_source2_state.h"
#include "cli_live.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "zdem_snappy.h"
#include "source2_players.h"

/* The hash tables' seed: random per run, so that no crafted file can
 * count on colliding keys (the output never depends on it: everything is
 * listed in sorted order); ZDEM_HASH_SEED fixes it for repeatable counts. */
static uint64_t hash_seed(void)
{
    const char *env = getenv("ZDEM_HASH_SEED");
    uint64_t seed = 0;
    FILE *r;
    if (env && *env)
        return strtoull(env, NULL, 0);
    r = fopen("/dev/urandom", "rb");
    if (r) {
        if (fread(&seed, sizeof seed, 1, r) != 1)
            seed = 0;
        fclose(r);
    }
    if (!seed)
        seed = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)&seed;
    return seed;
}

void zdem_cli_s2_work(const zdem_cli_args *a, zdem_s2_config *cfg, zdem_s2_work *w)
{
    uint32_t m = a->max_work ? (uint32_t)a->max_work : 1u;
    if (cfg) {
        cfg->max_expand_per_byte = m * ZDEM_S2_WORK_EXPAND_DEFAULT;
        cfg->max_items_per_byte = m * ZDEM_S2_WORK_ITEMS_DEFAULT;
        cfg->max_fields_per_byte = m * ZDEM_S2_WORK_FIELDS_DEFAULT;
    }
    if (w) {
        w->per_byte[ZDEM_S2_WORK_EXPAND] = m * ZDEM_S2_WORK_EXPAND_DEFAULT;
        w->per_byte[ZDEM_S2_WORK_ITEMS] = m * ZDEM_S2_WORK_ITEMS_DEFAULT;
        w->per_byte[ZDEM_S2_WORK_FIELDS] = m * ZDEM_S2_WORK_FIELDS_DEFAULT;
    }
}

size_t zdem_cli_s2_frame_size(const zdem_cli_args *a)
{
    return (size_t)(a->frame_mib ? a->frame_mib : ZDEM_CLI_S2_FRAME_MIB) << 20;
}

int zdem_cli_s2_open(zdem_cli_s2_run *r, const zdem_cli_args *a,
                     const zdem_cli_file *f, zdem_s2_config *cfg)
{
    size_t mem = (size_t)(a->memory_mib ? a->memory_mib : ZDEM_CLI_S2_MEMORY_MIB) << 20;
    zdem_error err;
    memset(r, 0, sizeof *r);
    zdem_error_clear(&err);
    r->frame = zdem_cli_s2_frame_size(a);
    cfg->frame_buffer = r->frame;
    /* string-table data inflates inside a frame: the same bound (half for
     * a table's data, half for one value) */
    cfg->tmp_size = r->frame > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)r->frame;
    /* a mapped file is given whole: nothing to gather; standard input
     * gathers a frame split across reads, up to the frame limit */
    cfg->gather_buffer = f->in || f->live ? r->frame : 0;
    zdem_cli_s2_work(a, cfg, NULL);
    cfg->hash_seed = hash_seed();
    if (zdem_s2_state_fixed_size(cfg) > mem) {
        fprintf(stderr, "zdem: %s: --memory %lu MiB is less than the %lu MiB the buffers "
                        "need (lower --max-frame or raise --memory)\n",
                f->path, (unsigned long)(mem >> 20),
                (unsigned long)((zdem_s2_state_fixed_size(cfg) + (1u << 20) - 1u) >> 20));
        return ZDEM_EXIT_USAGE;
    }
    /* calloc: pages the run never touches are never faulted in, so the
     * resident size follows what the demo needs, up to the bound */
    r->arena = calloc(1, mem);
    if (!r->arena)
        return zdem_cli_failf(f, 0, "out of memory for the state arena (see --memory)");
    if (zdem_s2_state_init(&r->s, r->arena, mem, cfg, &err) != ZDEM_OK) {
        free(r->arena);
        r->arena = NULL;
        return zdem_cli_fail(f, &err);
    }
    return 0;
}

/* --follow stops at the demo's end (DEM_Stop, and the DEM_FileInfo its
 * header points at). */
static int s2_complete(void *s)
{
    return zdem_s2_state_complete((const zdem_s2_state *)s);
}

void zdem_cli_s2_go(zdem_cli_s2_run *r, const zdem_cli_file *f, int64_t tick, int seek)
{
    zdem_error_clear(&r->err);
    if (f->live) { /* a broadcast: fragment by fragment */
        zdem_cli_live_s2_go(r, f, tick);
        return;
    }
    if (f->in) { /* standard input: pushed as it is read (no seeking) */
        uint8_t *buf = malloc(ZDEM_CLI_PIECE);
        zdem_status st = ZDEM_OK;
        size_t n;
        if (!buf) {
            zdem_fail(&r->err, ZDEM_ERR_NO_SPACE, 0, "out of memory");
            return;
        }
        zdem_s2_state_stop_at(r->s, tick);
        zdem_cli_follow_until(f, s2_complete, r->s);
        while (st == ZDEM_OK && (n = zdem_cli_read(f, buf, ZDEM_CLI_PIECE)) > 0)
            st = zdem_s2_state_feed(r->s, buf, n, &r->err);
        if (st == ZDEM_OK && !f->in->error)
            (void)zdem_s2_state_end(r->s, &r->err);
        free(buf);
        return;
    }
    if (seek)
        (void)zdem_s2_state_seek(r->s, f->data, f->size, tick, &r->err);
    else
        (void)zdem_s2_state_run(r->s, f->data, f->size, tick, &r->err);
}

int zdem_cli_s2_report(const zdem_cli_s2_run *r, const zdem_cli_file *f)
{
    return zdem_cli_s2_verdict(f, zdem_s2_state_warnings(r->s), &r->err, r->frame);
}

/* What a frame over the limit claims: its Snappy size, or its stored size. */
static uint64_t frame_claim(const zdem_cli_file *f, uint64_t offset)
{
    zdem_s2_outer m;
    zdem_error e;
    size_t next, n = 0;
    zdem_error_clear(&e);
    if (!f->data || offset >= f->size || zdem_s2_read_frame(f->data, f->size, (size_t)offset, &m, &next, &e) < 0)
        return 0;
    if (m.compressed && zdem_snappy_uncompressed_length(m.stored, m.stored_size, &n, &e) == ZDEM_OK)
        return n;
    return m.stored_size;
}

int zdem_cli_s2_verdict(const zdem_cli_file *f, const zdem_s2_warnings *w,
                        const zdem_error *err, size_t frame_limit)
{
    unsigned k;
    int rc;
    fflush(stdout); /* everything decoded comes before the verdict */
    if ((rc = zdem_cli_read_error(f)) != 0)
        return rc;
    for (k = 0; k < ZDEM_S2_W_COUNT; k++) {
        const zdem_error *e = &w->first[k];
        /* fallbacks that lose nothing (an enum read by the generic decoder)
         * are counted in info, not shouted on every run */
        if (!w->count[k] || k == ZDEM_S2_W_UNKNOWN_TYPES || k == ZDEM_S2_W_UNKNOWN_ENCODERS)
            continue;
        fprintf(stderr, "zdem: %s: ", f->path);
        zdem_cli_where(stderr, e);
        fprintf(stderr, ": warning: %s: %lu (%s); first: %s", zdem_s2_warn_name((zdem_s2_warn_kind)k),
                (unsigned long)w->count[k], zdem_s2_warn_text((zdem_s2_warn_kind)k),
                e->msg ? e->msg : "?");
        if (k == ZDEM_S2_W_FRAME_LIMIT && !f->data)
            ; /* standard input: the frame is gone */
        else if (k == ZDEM_S2_W_FRAME_LIMIT && frame_limit < ((size_t)1 << 20))
            fprintf(stderr, " (it claims %llu bytes; the limit is %lu KiB, the events mode's)",
                    (unsigned long long)frame_claim(f, e->offset), (unsigned long)(frame_limit >> 10));
        else if (k == ZDEM_S2_W_FRAME_LIMIT)
            fprintf(stderr, " (it claims %llu bytes; the limit is %lu MiB, --max-frame)",
                    (unsigned long long)frame_claim(f, e->offset), (unsigned long)(frame_limit >> 20));
        else if (k == ZDEM_S2_W_ARENA_FULL)
            fputs(" (raise --memory)", stderr);
        else if (k == ZDEM_S2_W_TABLE_LIMIT)
            fputs(" (raise --max-frame)", stderr);
        else if (k == ZDEM_S2_W_WORK_LIMIT)
            fputs(" (raise --max-work)", stderr);
        fputc('\n', stderr);
    }
    if (err->code != ZDEM_OK)
        return zdem_cli_fail(f, err);
    return ZDEM_EXIT_OK;
}

void zdem_cli_s2_close(zdem_cli_s2_run *r)
{
    free(r->arena);
    r->arena = NULL;
}

void zdem_cli_s2_warnings_json(FILE *out, const zdem_s2_warnings *w)
{
    unsigned k, n = 0;
    fputs(",\"warnings\":{", out);
    for (k = 0; k < ZDEM_S2_W_COUNT; k++) {
        if (!w->count[k])
            continue;
        fprintf(out, "%s\"%s\":%lu", n++ ? "," : "", zdem_s2_warn_name((zdem_s2_warn_kind)k),
                (unsigned long)w->count[k]);
    }
    fputc('}', out);
}

void zdem_cli_s2_warnings_text(FILE *out, const zdem_s2_warnings *w)
{
    unsigned k;
    for (k = 0; k < ZDEM_S2_W_COUNT; k++) {
        if (!w->count[k])
            continue;
        /* what it means, here where it is read (the first place of each
         * is on stderr, but unknown types and encoders are not: they lose
         * nothing else) */
        fprintf(out, "warning:           %s: %lu (%s)\n", zdem_s2_warn_name((zdem_s2_warn_kind)k),
                (unsigned long)w->count[k], zdem_s2_warn_text((zdem_s2_warn_kind)k));
    }
}

static void json_float(FILE *out, double x)
{
    if (x != x || x > 1.7e308 || x < -1.7e308)
        fputs("null", out); /* NaN / inf are not JSON */
    else
        fprintf(out, "%.9g", x);
}

void zdem_cli_s2_value_json(FILE *out, const zdem_s2_value *v)
{
    unsigned i;
    switch (v->kind) {
    case ZDEM_S2_V_BOOL:
        fputs(v->v.u ? "true" : "false", out);
        break;
    case ZDEM_S2_V_INT:
        fprintf(out, "%lld", (long long)v->v.i);
        break;
    case ZDEM_S2_V_UINT:
        fprintf(out, "%llu", (unsigned long long)v->v.u);
        break;
    case ZDEM_S2_V_FLOAT:
        json_float(out, (double)v->v.f[0]);
        break;
    case ZDEM_S2_V_DOUBLE:
        if (v->v.d != v->v.d || v->v.d > 1.7e308 || v->v.d < -1.7e308)
            fputs("null", out);
        else
            fprintf(out, "%.17g", v->v.d);
        break;
    case ZDEM_S2_V_VEC:
        fputc('[', out);
        for (i = 0; i < v->n && i < 6u; i++) {
            if (i)
                fputc(',', out);
            json_float(out, (double)v->v.f[i]);
        }
        fputc(']', out);
        break;
    case ZDEM_S2_V_STRING:
        zdem_json_str(out, v->s, v->len);
        break;
    default:
        fputs("null", out);
        break;
    }
}

/* ---- events ---------------------------------------------------------------- */

/* "<role><suffix>": as a JSON key (a role longer than the buffer is cut). */
static void json_key_suffix(FILE *out, const char *role, uint32_t len, const char *suffix)
{
    char buf[192];
    size_t sl = strlen(suffix), n = len < sizeof buf - sl ? len : sizeof buf - sl;
    memcpy(buf, role, n);
    memcpy(buf + n, suffix, sl);
    zdem_json_str(out, (const uint8_t *)buf, n + sl);
    fputc(':', out);
}

/* The players an event names, after its keys: "<role>_name",
 * "<role>_steamid", "<role>_team_num" (null where there is none). */
static void print_roles(FILE *out, zdem_s2_roster *r, zdem_s2_state *s, const zdem_s2_event *ev)
{
    zdem_s2_role roles[ZDEM_S2_EVENT_MAX_ROLES];
    uint32_t i, n = zdem_s2_event_roles(r, s, ev, roles, ZDEM_S2_EVENT_MAX_ROLES);
    for (i = 0; i < n; i++) {
        const zdem_s2_player *p = &roles[i].player;
        int f = roles[i].found;
        fputc(',', out);
        json_key_suffix(out, roles[i].name, roles[i].name_len, "_name");
        if (f && p->name)
            zdem_json_str(out, p->name, p->name_len);
        else
            fputs("null", out);
        fputc(',', out);
        json_key_suffix(out, roles[i].name, roles[i].name_len, "_steamid");
        if (f && p->steamid)
            fprintf(out, "%llu", (unsigned long long)p->steamid);
        else
            fputs("null", out);
        fputc(',', out);
        json_key_suffix(out, roles[i].name, roles[i].name_len, "_team_num");
        if (f && p->team >= 0)
            fprintf(out, "%d", p->team);
        else
            fputs("null", out);
    }
}

/* Where events go, the players they name, and --name: checked once the
 * game event list is in. */
typedef struct ev_out {
    FILE *out;
    const zdem_cli_args *a;
    int checked, bad;
    char msg[320];
    zdem_s2_roster roster;
} ev_out;

static zdem_status ev_check(ev_out *o, const zdem_s2_state *s, int at_end)
{
    int32_t i;
    if (o->checked || !o->a->nnames || (!at_end && !zdem_s2_event_descriptor_count(s)))
        return ZDEM_OK;
    o->checked = 1;
    if ((i = zdem_s2_event_names_check(s, o->a->names, o->a->nnames)) < 0)
        return ZDEM_OK;
    zdem_s2_event_name_message(s, o->a->names[i], o->msg, sizeof o->msg);
    o->bad = 1;
    return ZDEM_ERR_ABORTED;
}

/* After the run: an unknown --name (exit 1), else the run's verdict. */
static int ev_verdict(ev_out *o, const zdem_s2_state *s, const zdem_cli_file *f, const zdem_error *err,
                      size_t frame_limit)
{
    /* a demo without an event list: only the fixed names (unless it was
     * cut before the list: then the damage speaks) */
    if (!o->bad && !o->checked && (err->code == ZDEM_OK || zdem_s2_event_descriptor_count(s)))
        (void)ev_check(o, s, 1);
    if (o->bad)
        return zdem_cli_unknown(f, o->msg, NULL);
    return zdem_cli_s2_verdict(f, zdem_s2_state_warnings(s), err, frame_limit);
}

static zdem_status print_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    ev_out *o = (ev_out *)user;
    FILE *out = o->out;
    static const char *const types[] = {"game_event", "chat", "combat_log"};
    const char *ty = types[ev->type <= ZDEM_S2_EV_COMBAT_LOG ? ev->type : 0];
    uint32_t i;
    zdem_status st;
    if ((st = ev_check(o, s, 0)) != ZDEM_OK)
        return st;
    if (!zdem_cli_name_wanted(o->a, ev->name, ev->name_len, ty))
        return ZDEM_OK;
    fprintf(out, "{\"tick\":%d,\"type\":\"%s\",\"name\":", ev->tick, ty);
    zdem_json_str(out, (const uint8_t *)ev->name, ev->name_len);
    if (ev->nkeys) {
        fputs(",\"keys\":{", out);
        for (i = 0; i < ev->nkeys; i++) {
            if (i)
                fputc(',', out);
            zdem_json_str(out, (const uint8_t *)ev->keys[i].name, ev->keys[i].name_len);
            fputc(':', out);
            zdem_cli_s2_value_json(out, &ev->keys[i].value);
        }
        fputc('}', out);
    }
    print_roles(out, &o->roster, s, ev);
    fputs("}\n", out);
    return ZDEM_OK;
}

/* --small: the events mode in 1 MiB, fed in 4 KiB pieces as a device
 * would feed it; the same lines as the full run, or a warning naming the
 * limit a frame or table went over. */
#define SMALL_ARENA ((size_t)1 << 20)
#define SMALL_PIECE 4096u

static int events_small(const zdem_cli_args *a, const zdem_cli_file *f)
{
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_error err;
    zdem_status st;
    size_t off, n;
    int rc;
    uint8_t piece[SMALL_PIECE];
    static ev_out o; /* the roster is large for a stack */
    void *arena = malloc(SMALL_ARENA);
    if (!arena)
        return zdem_cli_failf(f, 0, "out of memory");
    memset(&o, 0, sizeof o);
    o.out = stdout;
    o.a = a;
    zdem_s2_roster_init(&o.roster);
    zdem_s2_config_events(&cfg);
    zdem_cli_s2_work(a, &cfg, NULL);
    cfg.on_event = print_event;
    cfg.user = &o;
    cfg.hash_seed = hash_seed();
    zdem_error_clear(&err);
    if ((st = zdem_s2_state_init(&s, arena, SMALL_ARENA, &cfg, &err)) != ZDEM_OK) {
        free(arena);
        return zdem_cli_fail(f, &err);
    }
    zdem_cli_follow_until(f, s2_complete, s);
    if (f->in) /* standard input: in the same 4 KiB pieces */
        for (st = ZDEM_OK; st == ZDEM_OK && (n = zdem_cli_read(f, piece, SMALL_PIECE)) > 0;)
            st = zdem_s2_state_feed(s, piece, n, &err);
    else
        for (off = 0, st = ZDEM_OK; off < f->size && st == ZDEM_OK; off += n) {
            n = f->size - off < SMALL_PIECE ? f->size - off : SMALL_PIECE;
            st = zdem_s2_state_feed(s, f->data + off, n, &err);
        }
    if (st == ZDEM_OK && !(f->in && f->in->error))
        (void)zdem_s2_state_end(s, &err);
    rc = ev_verdict(&o, s, f, &err, cfg.frame_buffer);
    free(arena);
    return rc;
}

int zdem_cli_source2_events(const zdem_cli_args *a, const zdem_cli_file *f)
{
    zdem_s2_config cfg;
    zdem_cli_s2_run r;
    static ev_out o; /* the roster is large for a stack */
    int rc;
    if (a->small)
        return events_small(a, f);
    memset(&o, 0, sizeof o);
    o.out = stdout;
    o.a = a;
    zdem_s2_roster_init(&o.roster);
    zdem_s2_config_default(&cfg);
    /* entities are decoded, each where the packet has it: the controllers
     * and pawns name the players as of the event (without them, in
     * --small, only the userinfo table does) */
    cfg.entities_in_wire_order = 1;
    cfg.on_event = print_event;
    cfg.user = &o;
    if ((rc = zdem_cli_s2_open(&r, a, f, &cfg)) != 0)
        return rc;
    zdem_cli_s2_go(&r, f, -1, 0);
    rc = ev_verdict(&o, r.s, f, &r.err, r.frame);
    zdem_cli_s2_close(&r);
    return rc;
}

/* ---- entities --------------------------------------------------------------- */

typedef struct prop_out {
    FILE *out;
    int n;
} prop_out;

static int print_prop(void *user, const char *name, size_t name_len, const zdem_s2_value *v)
{
    prop_out *po = (prop_out *)user;
    if (po->n++)
        fputc(',', po->out);
    zdem_json_str(po->out, (const uint8_t *)name, name_len);
    fputc(':', po->out);
    zdem_cli_s2_value_json(po->out, v);
    return 0;
}

/* --class: once the classes are in, a class the demo does not have stops
 * the run before anything is printed. */
typedef struct ent_check {
    const zdem_cli_args *a;
    int checked, bad;
    char msg[320];
} ent_check;

static zdem_status ent_class_check(ent_check *c, const zdem_s2_state *s)
{
    if (c->checked || !c->a->class_name || !zdem_s2_class_count(s))
        return ZDEM_OK;
    c->checked = 1;
    if (zdem_s2_class_find(s, c->a->class_name, strlen(c->a->class_name)) >= 0)
        return ZDEM_OK;
    zdem_s2_class_message(s, c->a->class_name, c->msg, sizeof c->msg);
    c->bad = 1;
    return ZDEM_ERR_ABORTED;
}

static zdem_status ent_frame(void *user, zdem_s2_state *s, const zdem_s2_outer *m,
                             const uint8_t *p, size_t n)
{
    (void)m;
    (void)p;
    (void)n;
    return ent_class_check((ent_check *)user, s);
}

int zdem_cli_source2_entities(const zdem_cli_args *a, const zdem_cli_file *f)
{
    zdem_s2_config cfg;
    zdem_cli_s2_run r;
    zdem_error err;
    ent_check chk;
    int rc;
    uint32_t i, n;
    uint64_t *tmp;
    uint32_t *live;
    uint32_t tmp_cap = 1u << 16;
    FILE *out = stdout;
    memset(&chk, 0, sizeof chk);
    chk.a = a;
    zdem_s2_config_default(&cfg);
    cfg.skip_events = 1;
    cfg.on_frame = ent_frame;
    cfg.user = &chk;
    if ((rc = zdem_cli_s2_open(&r, a, f, &cfg)) != 0)
        return rc;
    tmp = malloc(sizeof(uint64_t) * tmp_cap);
    live = malloc(sizeof(uint32_t) * (size_t)zdem_s2_entity_limit(r.s));
    if (!tmp || !live) {
        free(tmp);
        free(live);
        zdem_cli_s2_close(&r);
        return zdem_cli_failf(f, 0, "out of memory");
    }
    zdem_cli_s2_go(&r, f, a->has_tick ? a->tick : -1, a->has_tick);
    if (!chk.bad)
        (void)ent_class_check(&chk, r.s);
    if (chk.bad) {
        free(tmp);
        free(live);
        zdem_cli_s2_close(&r);
        return zdem_cli_unknown(f, chk.msg, NULL);
    }
    if (a->has_tick && zdem_s2_state_tick(r.s) < a->tick)
        fprintf(stderr, "zdem: %s: warning: the demo ends at tick %d, before tick %lld: "
                        "the entities at its end follow\n",
                f->path, zdem_s2_state_tick(r.s), a->tick);
    n = zdem_s2_entities_live(r.s, live, zdem_s2_entity_limit(r.s));
    for (i = 0; i < n; i++) {
        zdem_s2_entity e;
        prop_out po;
        if (!zdem_s2_entity_get(r.s, (int32_t)live[i], &e))
            continue;
        if (a->class_name && (strlen(a->class_name) != e.class_name_len ||
                              memcmp(a->class_name, e.class_name, e.class_name_len) != 0))
            continue;
        fprintf(out, "{\"tick\":%d,\"index\":%d,\"class\":", zdem_s2_state_tick(r.s), e.index);
        zdem_json_str(out, (const uint8_t *)e.class_name, e.class_name_len);
        fprintf(out, ",\"class_id\":%d,\"serial\":%u,\"active\":%s,\"props\":{", e.class_id,
                e.serial, e.active ? "true" : "false");
        po.out = out;
        po.n = 0;
        for (;;) {
            zdem_status st;
            uint64_t *bigger;
            zdem_error_clear(&err);
            st = zdem_s2_entity_props(r.s, e.index, print_prop, &po, tmp, tmp_cap, &err);
            /* the ordering buffer is checked before any property is
             * printed: a bigger one and again */
            if (st != ZDEM_ERR_NO_SPACE || tmp_cap >= (1u << 26) ||
                !(bigger = realloc(tmp, sizeof(uint64_t) * (size_t)tmp_cap * 2u))) {
                if (st != ZDEM_OK)
                    fprintf(stderr, "zdem: %s: entity %d: %s\n", f->path, e.index,
                            err.msg ? err.msg : "?");
                break;
            }
            tmp = bigger;
            tmp_cap *= 2u;
        }
        fputs("}}\n", out);
    }
    free(tmp);
    free(live);
    rc = zdem_cli_s2_report(&r, f);
    zdem_cli_s2_close(&r);
    return rc;
}
