/* Source 2 state commands: events, entities, and the state part of info. */
#include "cli_source2_state.h"

#include <stdlib.h>
#include <string.h>
#include "source2_state.h"

/* The arena is allocated once with calloc: pages the parse never touches
 * are never faulted in, so the resident size follows what the demo needs. */
#define ARENA_SIZE ((size_t)256 << 20)

typedef struct run {
    uint8_t *arena, *scratch;
    size_t scratch_cap;
    zdem_s2_state *s;
} run;

static int run_open(run *r, const zdem_cli_file *f, zdem_s2_config *cfg)
{
    zdem_error err;
    size_t need = 0;
    memset(r, 0, sizeof *r);
    zdem_error_clear(&err);
    if (zdem_s2_scratch_needed(f->data, f->size, &need, &err) != ZDEM_OK)
        return zdem_cli_fail(f, &err);
    r->scratch_cap = need + 64u;
    r->scratch = malloc(r->scratch_cap);
    r->arena = calloc(1, ARENA_SIZE);
    if (!r->scratch || !r->arena) {
        free(r->scratch);
        free(r->arena);
        return zdem_cli_failf(f, 0, "out of memory");
    }
    if (zdem_s2_state_init(&r->s, r->arena, ARENA_SIZE, cfg, &err) != ZDEM_OK) {
        free(r->scratch);
        free(r->arena);
        return zdem_cli_fail(f, &err);
    }
    return 0;
}

static void run_close(run *r)
{
    free(r->scratch);
    free(r->arena);
}

static void json_value(FILE *out, const zdem_s2_value *v)
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
        if (v->v.f[0] != v->v.f[0] || v->v.f[0] > 3.4e38f || v->v.f[0] < -3.4e38f)
            fputs("null", out); /* NaN / inf are not JSON */
        else
            fprintf(out, "%.9g", (double)v->v.f[0]);
        break;
    case ZDEM_S2_V_DOUBLE:
        if (v->v.d != v->v.d || v->v.d > 1.7e308 || v->v.d < -1.7e308)
            fputs("null", out);
        else
            fprintf(out, "%.17g", v->v.d);
        break;
    case ZDEM_S2_V_VEC:
        fputc('[', out);
        for (i = 0; i < v->n && i < 4u; i++) {
            float x = v->v.f[i];
            if (i)
                fputc(',', out);
            if (x != x || x > 3.4e38f || x < -3.4e38f)
                fputs("null", out);
            else
                fprintf(out, "%.9g", (double)x);
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

static void report_fallbacks(const zdem_cli_file *f, zdem_s2_state *s)
{
    zdem_s2_stats st;
    zdem_s2_state_stats(s, &st);
    if (st.bad_entity_packets)
        fprintf(stderr, "zdem: %s: %u entity packets skipped (first: %s)\n", f->path,
                st.bad_entity_packets,
                st.first_entity_error.msg ? st.first_entity_error.msg : "?");
}

/* ---- events ---------------------------------------------------------------- */

static zdem_status print_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    FILE *out = (FILE *)user;
    static const char *const types[] = {"game_event", "chat", "combat_log"};
    uint32_t i;
    (void)s;
    fprintf(out, "{\"tick\":%d,\"type\":\"%s\",\"name\":", ev->tick,
            types[ev->type <= ZDEM_S2_EV_COMBAT_LOG ? ev->type : 0]);
    zdem_json_str(out, (const uint8_t *)ev->name, ev->name_len);
    if (ev->nkeys) {
        fputs(",\"keys\":{", out);
        for (i = 0; i < ev->nkeys; i++) {
            if (i)
                fputc(',', out);
            zdem_json_str(out, (const uint8_t *)ev->keys[i].name, ev->keys[i].name_len);
            fputc(':', out);
            json_value(out, &ev->keys[i].value);
        }
        fputc('}', out);
    }
    fputs("}\n", out);
    return ZDEM_OK;
}

int zdem_cli_source2_events(const zdem_cli_args *a, const zdem_cli_file *f)
{
    zdem_s2_config cfg;
    run r;
    zdem_error err;
    int rc;
    FILE *out = stdout;
    (void)a;
    zdem_s2_config_default(&cfg);
    cfg.skip_entities = 1; /* events need no entity state */
    cfg.on_event = print_event;
    cfg.user = out;
    if ((rc = run_open(&r, f, &cfg)) != 0)
        return rc;
    zdem_error_clear(&err);
    if (zdem_s2_state_run(r.s, f->data, f->size, r.scratch, r.scratch_cap, -1, &err) != ZDEM_OK) {
        rc = zdem_cli_fail(f, &err);
        run_close(&r);
        return rc;
    }
    run_close(&r);
    return 0;
}

/* ---- entities --------------------------------------------------------------- */

typedef struct prop_out {
    FILE *out;
    int n;
} prop_out;

static int print_prop(void *user, const char *name, const zdem_s2_value *v)
{
    prop_out *po = (prop_out *)user;
    if (po->n++)
        fputc(',', po->out);
    zdem_json_cstr(po->out, name);
    fputc(':', po->out);
    json_value(po->out, v);
    return 0;
}

int zdem_cli_source2_entities(const zdem_cli_args *a, const zdem_cli_file *f)
{
    zdem_s2_config cfg;
    run r;
    zdem_error err;
    zdem_status st;
    int rc;
    uint32_t i, lim;
    uint64_t *tmp;
    const uint32_t tmp_cap = 1u << 16;
    FILE *out = stdout;
    zdem_s2_config_default(&cfg);
    cfg.skip_events = 1;
    if ((rc = run_open(&r, f, &cfg)) != 0)
        return rc;
    tmp = malloc(sizeof(uint64_t) * tmp_cap);
    if (!tmp) {
        run_close(&r);
        return zdem_cli_failf(f, 0, "out of memory");
    }
    zdem_error_clear(&err);
    if (a->has_tick)
        st = zdem_s2_state_seek(r.s, f->data, f->size, r.scratch, r.scratch_cap, a->tick, &err);
    else
        st = zdem_s2_state_run(r.s, f->data, f->size, r.scratch, r.scratch_cap, -1, &err);
    if (st != ZDEM_OK) {
        free(tmp);
        run_close(&r);
        return zdem_cli_fail(f, &err);
    }
    report_fallbacks(f, r.s);
    lim = zdem_s2_entity_limit(r.s);
    for (i = 0; i < lim; i++) {
        zdem_s2_entity e;
        prop_out po;
        if (!zdem_s2_entity_get(r.s, (int32_t)i, &e))
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
        if (zdem_s2_entity_props(r.s, (int32_t)i, print_prop, &po, tmp, tmp_cap, &err) != ZDEM_OK)
            fprintf(stderr, "zdem: %s: entity %u: %s\n", f->path, i, err.msg ? err.msg : "?");
        fputs("}}\n", out);
    }
    free(tmp);
    run_close(&r);
    return 0;
}

/* ---- info ------------------------------------------------------------------- */

int zdem_cli_source2_info_state(FILE *out, const zdem_cli_file *f)
{
    zdem_s2_config cfg;
    run r;
    zdem_error err;
    int rc;
    uint32_t i, n;
    zdem_s2_config_default(&cfg);
    cfg.skip_events = 1;
    if ((rc = run_open(&r, f, &cfg)) != 0)
        return rc;
    zdem_error_clear(&err);
    if (zdem_s2_state_run(r.s, f->data, f->size, r.scratch, r.scratch_cap, -1, &err) != ZDEM_OK) {
        rc = zdem_cli_fail(f, &err);
        run_close(&r);
        return rc;
    }
    report_fallbacks(f, r.s);
    fprintf(out, ", \"entity_classes\": %u, \"serializers\": %u, \"string_tables\": {",
            zdem_s2_class_count(r.s), zdem_s2_serializer_count(r.s));
    n = zdem_s2_string_table_count(r.s);
    for (i = 0; i < n; i++) {
        uint32_t entries = 0;
        const char *name = zdem_s2_string_table_info(r.s, i, &entries);
        if (i)
            fputs(", ", out);
        zdem_json_cstr(out, name);
        fprintf(out, ": %u", entries);
    }
    fprintf(out, "}, \"entities_at_end\": %u, \"players\": [", zdem_s2_entity_count(r.s));
    n = zdem_s2_player_count(r.s);
    for (i = 0; i < n; i++) {
        uint32_t len = 0;
        const uint8_t *nm = zdem_s2_player_name(r.s, i, &len);
        if (i)
            fputs(", ", out);
        zdem_json_str(out, nm ? nm : (const uint8_t *)"", nm ? len : 0);
    }
    fputc(']', out);
    run_close(&r);
    return 0;
}
