/* Source 2 events on a Cortex-M (QEMU mps2-an386), linked with 1 MiB of
 * RAM: each demo embedded in flash goes through the push API in small
 * pieces, as from a UART or an SD card, into the events mode
 * (zdem_s2_config_events) with the arena the linker script leaves. Every
 * event is printed as `zdem events --json` prints it on the host, except
 * that a float is printed as its bit pattern ({"f32":"3f800000"}, there is
 * no printf here): tests/mcu/compare_s2.py turns those into the CLI's
 * %.9g / %.17g and compares line by line. Per demo a begin line, the
 * events, an end line with the result, warnings and memory. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "zdem.h" /* the amalgamation's header: the whole public API */

#include "fw_out.h"

#define PIECE 509 /* odd: frames straddle pieces */

static void put_bits(const void *p, size_t n)
{
    /* big-endian hex of the value's bits, as struct.pack('>f') gives */
    uint8_t b[8];
    size_t i;
    memcpy(b, p, n);
    put_c('"');
    for (i = n; i > 0; i--)
        put_hex(&b[i - 1], 1);
    put_c('"');
}

static void put_f32(float f)
{
    put_s("{\"f32\":");
    put_bits(&f, 4);
    put_c('}');
}

static void put_value(const zdem_s2_value *v)
{
    unsigned i;
    switch (v->kind) {
    case ZDEM_S2_V_BOOL:
        put_bool(v->v.u != 0);
        break;
    case ZDEM_S2_V_INT:
        put_i(v->v.i);
        break;
    case ZDEM_S2_V_UINT:
        put_u(v->v.u);
        break;
    case ZDEM_S2_V_FLOAT:
        put_f32(v->v.f[0]);
        break;
    case ZDEM_S2_V_DOUBLE:
        put_s("{\"f64\":");
        put_bits(&v->v.d, 8);
        put_c('}');
        break;
    case ZDEM_S2_V_VEC:
        put_c('[');
        for (i = 0; i < v->n && i < 4u; i++) {
            if (i)
                put_c(',');
            put_f32(v->v.f[i]);
        }
        put_c(']');
        break;
    case ZDEM_S2_V_STRING:
        put_json(v->s, v->len);
        break;
    default:
        put_s("null");
        break;
    }
}

static uint32_t nevents;

/* The line tools/cli_source2_state.c (print_event) writes. */
static zdem_status on_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    static const char *const types[] = {"game_event", "chat", "combat_log"};
    uint32_t i;
    (void)user;
    (void)s;
    nevents++;
    put_s("{\"tick\":");
    put_i(ev->tick);
    put_s(",\"type\":\"");
    put_s(types[ev->type <= ZDEM_S2_EV_COMBAT_LOG ? ev->type : 0]);
    put_s("\",\"name\":");
    put_json((const uint8_t *)ev->name, ev->name_len);
    if (ev->nkeys) {
        put_s(",\"keys\":{");
        for (i = 0; i < ev->nkeys; i++) {
            if (i)
                put_c(',');
            put_json((const uint8_t *)ev->keys[i].name, ev->keys[i].name_len);
            put_c(':');
            put_value(&ev->keys[i].value);
        }
        put_c('}');
    }
    put_s("}\n");
    return ZDEM_OK;
}

static int run_source2(const mcu_demo *d)
{
    zdem_s2_config cfg;
    zdem_s2_state *s = NULL;
    zdem_s2_usage u;
    zdem_s2_stats stats;
    const zdem_s2_warnings *w;
    zdem_error err;
    zdem_status st;
    size_t have, off, n;
    void *mem;
    unsigned k, limits = 0;
    int first;

    zdem_s2_config_events(&cfg);
    cfg.on_event = on_event;
    mem = arena(zdem_s2_state_fixed_size(&cfg), &have);
    begin_line(d->name);
    put_s(",\"mcu_s2\":\"begin\"}\n");
    nevents = 0;
    zdem_error_clear(&err);
    if (!mem || zdem_s2_state_init(&s, mem, have, &cfg, &err) != ZDEM_OK) {
        begin_line(d->name);
        put_s(",\"mcu_s2\":\"end\",\"mcu_error\":\"arena too small\"}\n");
        return 1;
    }
    st = ZDEM_OK;
    for (off = 0; off < d->size && st == ZDEM_OK; off += n) {
        n = d->size - off < PIECE ? d->size - off : PIECE;
        st = zdem_s2_state_feed(s, d->data + off, n, &err);
    }
    if (st == ZDEM_OK)
        st = zdem_s2_state_end(s, &err);
    zdem_s2_state_usage(s, &u);
    zdem_s2_state_stats(s, &stats);
    w = zdem_s2_state_warnings(s);
    if (u.arena_peak > arena_peak)
        arena_peak = u.arena_peak;
    begin_line(d->name);
    put_s(",\"mcu_s2\":\"end\",\"events\":");
    put_u(nevents);
    put_key("error");
    if (st != ZDEM_OK)
        put_jcstr(err.msg ? err.msg : "error");
    else
        put_s("null");
    put_key("warnings");
    put_c('{');
    for (k = 0, first = 1; k < ZDEM_S2_W_COUNT; k++) {
        if (!w->count[k])
            continue;
        if (!zdem_s2_warn_is_damage((zdem_s2_warn_kind)k))
            limits += w->count[k];
        if (!first)
            put_c(',');
        first = 0;
        put_jcstr(zdem_s2_warn_name((zdem_s2_warn_kind)k));
        put_c(':');
        put_u(w->count[k]);
    }
    put_c('}');
    put_key("mcu_arena_peak"); put_u(u.arena_peak);
    put_key("mcu_max_payload"); put_u(u.max_frame);
    put_key("mcu_frames_unread"); put_u(stats.frames_unread);
    put_key("mcu_piece_bytes"); put_u(PIECE);
    put_s("}\n");
    return limits != 0;
}

int main(void)
{
    uint32_t i;
    int bad = 0;
    size_t max_stack = stack_used(), used;
    for (i = 0; i < zdem_mcu_demo_count; i++) {
        const mcu_demo *d = &zdem_mcu_demos[i];
        repaint_stack();
        bad |= run_source2(d);
        used = stack_used();
        if (used > max_stack)
            max_stack = used;
        put_stack_line(d->name, "source2", used);
    }
    put_s("{\"mcu\":\"memory\"");
    put_key("ram"); put_u((size_t)(__stack_top - __data_start));
    put_key("data"); put_u((size_t)(__data_end - __data_start));
    put_key("bss"); put_u((size_t)(__bss_end - __bss_start));
    put_key("arena_available"); put_u((size_t)(__arena_end - __arena_start));
    put_key("arena_used"); put_u(arena_peak);
    put_key("stack_size"); put_u((size_t)(__stack_top - __stack_limit));
    put_key("stack_used"); put_u(max_stack);
    put_key("demos_flash"); put_u((size_t)(__demos_end - __demos_start));
    put_s("}\n");
    put_s(bad ? "zdem-mcu: FAIL\n" : "zdem-mcu: OK\n");
    flush();
    return bad;
}
