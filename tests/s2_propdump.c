/* Prints the property changes of a Source 2 demo as zdem decodes them, one
 * line per change, for comparison scripts that rebuild the state at any
 * tick (tests/s2_dp2_compare.js):
 *   T <a> <b>                     the state is final for ticks a .. b-1
 *                                 (printed before the first change of
 *                                 tick b; b = a + 1 at the end)
 *   C <index> <class>             entity created (its props follow)
 *   D <index>                     entity deleted
 *   P <index> <name> <value> <step> <kind>
 *                                 property value after an update, with the
 *                                 quantization step (0: exact) and kind of
 *                                 its decoder
 *   E <tick> <name> {json keys}   a game event (with --events)
 *   S <table> <index> <key> <value>  with --tables, at the end: every
 *                                 string-table entry, key and value in hex
 *                                 ("-" when absent)
 * Fields are tab-separated. Values: integers in decimal, bools true/false,
 * floats with 9 significant digits, vectors as [a,b,c], strings as JSON
 * strings. A test helper, not a CLI command: it exists so that a reference
 * parser's per-tick values can be checked value by value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zdem_test.h"
#include "source2_state.h"
#include "source2_state_int.h" /* the field decoder, for the step column */

#define ARENA (128u << 20)
#define TMP_WORDS (1u << 16)

typedef struct dump {
    FILE *out;
    const zdem_s2_state *s;
    uint64_t *tmp;
    int32_t open_tick; /* tick of the changes printed last */
    int any;           /* a change was printed */
} dump;

/* Closes the open tick before the first change of a later one, so that
 * ticks without changes are covered too. */
static void at_tick(dump *d, int32_t tick)
{
    if (d->any && tick != d->open_tick)
        fprintf(d->out, "T\t%d\t%d\n", (int)d->open_tick, (int)tick);
    d->open_tick = tick;
    d->any = 1;
}

static void put_string(FILE *o, const uint8_t *p, size_t n)
{
    size_t i;
    fputc('"', o);
    for (i = 0; i < n; i++) {
        unsigned c = p[i];
        if (c == '"' || c == '\\')
            fprintf(o, "\\%c", (int)c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(o, "\\u%04x", c);
        else
            fputc((int)c, o);
    }
    fputc('"', o);
}

static void put_float(FILE *o, double d)
{
    /* JSON has no NaN or infinity; the comparison reads these names */
    if (d != d)
        fputs("\"nan\"", o);
    else if (d > 1e308 || d < -1e308)
        fputs(d > 0 ? "\"inf\"" : "\"-inf\"", o);
    else
        fprintf(o, "%.9g", d);
}

static void put_value(FILE *o, const zdem_s2_value *v)
{
    unsigned i;
    switch (v->kind) {
    case ZDEM_S2_V_BOOL:
        fputs(v->v.u ? "true" : "false", o);
        break;
    case ZDEM_S2_V_UINT:
        fprintf(o, "%llu", (unsigned long long)v->v.u);
        break;
    case ZDEM_S2_V_INT:
        fprintf(o, "%lld", (long long)v->v.i);
        break;
    case ZDEM_S2_V_FLOAT:
        put_float(o, v->v.f[0]);
        break;
    case ZDEM_S2_V_DOUBLE:
        put_float(o, v->v.d);
        break;
    case ZDEM_S2_V_VEC:
        fputc('[', o);
        for (i = 0; i < v->n && i < 6; i++) {
            if (i)
                fputc(',', o);
            put_float(o, v->v.f[i]);
        }
        fputc(']', o);
        break;
    case ZDEM_S2_V_STRING:
        put_string(o, v->s, v->len);
        break;
    default:
        fputs("null", o);
        break;
    }
}

static void put_name(FILE *o, const char *name, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) /* names may hold any byte: keep lines intact */
        fputc(name[i] == '\t' || name[i] == '\n' ? '?' : name[i], o);
}


/* One quantization step of the decoder behind fp (0: exact), and its kind:
 * the comparison allows one step, and names the decoder in mismatches. */
static double fp_step(const zdem_s2_state *s, const zdem_s2_entity *e,
                      const zdem_s2_fp *fp, const char **kind)
{
    const zdem_s2_fdec *fd;
    *kind = "int";
    if (e->class_id < 0)
        return 0.0;
    fd = zdem_s2_resolve_ent(s, s->classes[e->class_id].ser, fp, &s->ents[e->index]);
    if (!fd)
        return 0.0;
    switch (fd->dec) {
    case ZDEM_S2_DEC_FLOAT:
    case ZDEM_S2_DEC_VECTOR2:
    case ZDEM_S2_DEC_VECTOR3:
    case ZDEM_S2_DEC_VECTOR4:
    case ZDEM_S2_DEC_TRANSFORM:
        switch (fd->fkind) {
        case ZDEM_S2_F_QUANT:
            *kind = "quant";
            return ((double)fd->q.high - fd->q.low) * fd->q.dec_mul;
        case ZDEM_S2_F_COORD:
            *kind = "coord";
            return 1.0 / 32.0;
        case ZDEM_S2_F_SIMTIME:
            *kind = "simtime";
            return s->tick_interval;
        case ZDEM_S2_F_NORMAL:
            *kind = "normal";
            return 1.0 / 2047.0;
        case ZDEM_S2_F_RUNETIME:
            *kind = "runetime";
            return 0.0;
        default:
            *kind = "noscale";
            return 0.0;
        }
    case ZDEM_S2_DEC_QANGLE:
        *kind = "qangle";
        switch (fd->akind) {
        case ZDEM_S2_A_BITS:
        case ZDEM_S2_A_PITCH_YAW:
            return 360.0 / (double)(1ull << fd->abits);
        case ZDEM_S2_A_PRECISE:
            return 360.0 / (double)(1u << 20);
        case ZDEM_S2_A_COORD:
            return 1.0 / 32.0;
        default:
            return 0.0;
        }
    case ZDEM_S2_DEC_SVAR32:
        *kind = "svar32";
        return 0.0;
    case ZDEM_S2_DEC_SVAR64:
        *kind = "svar64";
        return 0.0;
    case ZDEM_S2_DEC_UVAR64:
        *kind = "uvar64";
        return 0.0;
    case ZDEM_S2_DEC_FIXED64:
        *kind = "fixed64";
        return 0.0;
    case ZDEM_S2_DEC_MINUSONE:
        *kind = "minusone";
        return 0.0;
    case ZDEM_S2_DEC_UNKNOWN:
        *kind = "unknown";
        return 0.0;
    default:
        return 0.0;
    }
}

typedef struct prop_ctx {
    FILE *out;
    const zdem_s2_state *s;
    const zdem_s2_entity *e;
} prop_ctx;

static int on_prop(void *user, const char *name, size_t name_len, const zdem_s2_value *v)
{
    prop_ctx *c = (prop_ctx *)user;
    char buf[512];
    zdem_s2_fp fp;
    const char *kind = "?";
    double step = 0.0;
    fprintf(c->out, "P\t%d\t", (int)c->e->index);
    put_name(c->out, name, name_len);
    fputc('\t', c->out);
    put_value(c->out, v);
    if (name_len < sizeof buf) {
        memcpy(buf, name, name_len);
        buf[name_len] = 0;
        if (zdem_s2_class_prop_fp(c->s, c->e->class_id, buf, &fp))
            step = fp_step(c->s, c->e, &fp, &kind);
    }
    fprintf(c->out, "\t%.9g\t%s\n", step, kind);
    return 0;
}

static zdem_status on_entity(void *user, zdem_s2_state *s, const zdem_s2_entity *e,
                             unsigned ops, const zdem_s2_fp *changed, uint32_t nchanged)
{
    dump *d = (dump *)user;
    char name[512];
    uint32_t i;
    at_tick(d, zdem_s2_state_tick(s));
    if (ops & ZDEM_S2_ENT_DELETED) {
        fprintf(d->out, "D\t%d\n", (int)e->index);
        return ZDEM_OK;
    }
    if (ops & ZDEM_S2_ENT_CREATED) {
        prop_ctx c;
        zdem_error err;
        zdem_error_clear(&err);
        c.out = d->out;
        c.s = s;
        c.e = e;
        fprintf(d->out, "C\t%d\t%.*s\n", (int)e->index, (int)e->class_name_len, e->class_name);
        if (zdem_s2_entity_props(s, e->index, on_prop, &c, d->tmp, TMP_WORDS, &err) != ZDEM_OK)
            return ZDEM_ERR_NO_SPACE;
        return ZDEM_OK;
    }
    for (i = 0; i < nchanged; i++) {
        zdem_s2_value v;
        size_t n;
        const char *kind;
        double step;
        if (!zdem_s2_entity_prop_fp(s, e->index, &changed[i], &v))
            continue;
        n = zdem_s2_fp_name(s, e->class_id, &changed[i], name, sizeof name);
        if (n >= sizeof name)
            n = sizeof name - 1;
        fprintf(d->out, "P\t%d\t", (int)e->index);
        put_name(d->out, name, n);
        fputc('\t', d->out);
        put_value(d->out, &v);
        step = fp_step(s, e, &changed[i], &kind);
        fprintf(d->out, "\t%.9g\t%s\n", step, kind);
    }
    return ZDEM_OK;
}

static zdem_status on_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    dump *d = (dump *)user;
    uint32_t i;
    if (ev->type != ZDEM_S2_EV_GAME_EVENT)
        return ZDEM_OK;
    at_tick(d, zdem_s2_state_tick(s));
    fprintf(d->out, "E\t%d\t%.*s\t{", (int)zdem_s2_state_tick(s), (int)ev->name_len, ev->name);
    for (i = 0; i < ev->nkeys; i++) {
        if (i)
            fputc(',', d->out);
        put_string(d->out, (const uint8_t *)ev->keys[i].name, ev->keys[i].name_len);
        fputc(':', d->out);
        put_value(d->out, &ev->keys[i].value);
    }
    fputs("}\n", d->out);
    return ZDEM_OK;
}

static void put_hex(FILE *o, const uint8_t *p, uint32_t n)
{
    uint32_t i;
    if (!p) {
        fputc('-', o);
        return;
    }
    for (i = 0; i < n; i++)
        fprintf(o, "%02x", p[i]);
}

typedef struct entry_ctx {
    FILE *out;
    const char *table;
} entry_ctx;

static int on_entry(void *user, uint32_t index, const uint8_t *key, uint32_t key_len,
                    const uint8_t *val, uint32_t val_len)
{
    entry_ctx *c = (entry_ctx *)user;
    fprintf(c->out, "S\t%s\t%u\t", c->table, index);
    put_hex(c->out, key, key_len);
    fputc('\t', c->out);
    put_hex(c->out, val, val_len);
    fputc('\n', c->out);
    return 0;
}

static void dump_tables(const zdem_s2_state *s, FILE *o)
{
    static uint32_t tmp[1u << 20];
    uint32_t i;
    for (i = 0; i < zdem_s2_string_table_count(s); i++) {
        entry_ctx c;
        zdem_error err;
        uint32_t entries;
        c.out = o;
        c.table = zdem_s2_string_table_info(s, i, &entries);
        zdem_error_clear(&err);
        fprintf(o, "S\t%s\tcount\t%u\n", c.table, entries);
        if (zdem_s2_string_table_each(s, i, on_entry, &c, tmp, 1u << 20, &err) != ZDEM_OK)
            fprintf(o, "S\t%s\terror\t%s\n", c.table, err.msg ? err.msg : "?");
    }
}

int main(int argc, char **argv)
{
    size_t size;
    uint8_t *file, *arena;
    zdem_s2_config cfg;
    zdem_s2_state *s = NULL;
    zdem_error err;
    zdem_status st;
    dump d;
    int events = 0, tables = 0, a = 1;
    for (; a < argc - 1 && argv[a][0] == '-'; a++) {
        if (strcmp(argv[a], "--events") == 0)
            events = 1;
        else if (strcmp(argv[a], "--tables") == 0)
            tables = 1;
        else
            break;
    }
    if (a + 1 != argc) {
        fprintf(stderr, "usage: s2_propdump [--events] [--tables] FILE.dem\n");
        return 1;
    }
    file = zt_read_file(argv[a], &size);
    arena = malloc(ARENA);
    memset(&d, 0, sizeof d);
    d.tmp = malloc(TMP_WORDS * sizeof *d.tmp);
    if (!file || !arena || !d.tmp) {
        fprintf(stderr, "s2_propdump: cannot read %s\n", argv[a]);
        return 1;
    }
    d.out = stdout;
    zdem_error_clear(&err);
    zdem_s2_config_default(&cfg);
    cfg.user = &d;
    cfg.on_entity = on_entity;
    if (events)
        cfg.on_event = on_event;
    if (zdem_s2_state_init(&s, arena, ARENA, &cfg, &err) != ZDEM_OK) {
        fprintf(stderr, "s2_propdump: init: %s\n", err.msg ? err.msg : "?");
        return 1;
    }
    d.s = s;
    st = zdem_s2_state_run(s, file, size, -1, &err);
    if (d.any) /* closes the last tick */
        fprintf(d.out, "T\t%d\t%d\n", (int)d.open_tick, (int)zdem_s2_state_tick(s) + 1);
    if (tables)
        dump_tables(s, d.out);
    if (st != ZDEM_OK)
        fprintf(stderr, "s2_propdump: %s at %llu\n", err.msg ? err.msg : "?",
                (unsigned long long)err.offset);
    free(d.tmp);
    free(arena);
    free(file);
    return st == ZDEM_OK ? 0 : 2;
}
