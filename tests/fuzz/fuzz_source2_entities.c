/* libFuzzer target: the input is a Source 2 demo; the whole state layer
 * runs over it (string tables, serializers, field paths, entity deltas,
 * game events, players, properties), configured as the zdem CLI runs it
 * (same arena and frame buffer). An odd-sized input goes through the push
 * API in pieces whose sizes come from the input, an even-sized one as a
 * whole file. The arena is allocated once (the library never allocates).
 * A whole-file input whose size is a multiple of 8 that decodes any
 * field runs again without the plan cache: the status, the error offset,
 * the statistics and the warnings must be the same (else abort). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "source2_state.h"

#define ARENA_SIZE ((size_t)256 << 20) /* zdem --memory default */
#define FRAME_SIZE ((size_t)16 << 20)  /* zdem --max-frame default */

static volatile uint32_t sink;

static zdem_status on_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    uint32_t i, sum = 0;
    (void)user;
    (void)s;
    for (i = 0; i < ev->name_len; i++) /* touch the name so ASan checks it */
        sum += (uint8_t)ev->name[i];
    sink = sum;
    return ZDEM_OK;
}

static int on_prop(void *user, const char *name, size_t len, const zdem_s2_value *v)
{
    size_t i;
    uint32_t sum = 0;
    (void)user;
    for (i = 0; i < len; i++)
        sum += (uint8_t)name[i];
    if (v->kind == ZDEM_S2_V_STRING && v->len)
        sum += v->s[v->len - 1];
    sink = sum;
    return 0;
}

static int on_player(void *user, const uint8_t *name, uint32_t len)
{
    (void)user;
    if (len)
        sink = name[len - 1];
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t *arena;
    static uint64_t props[4096];
    static uint32_t order[4096];
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_error err;
    uint32_t i, n;
    if (!arena)
        arena = malloc(ARENA_SIZE);
    if (!arena)
        return 0;
    zdem_error_clear(&err);
    zdem_s2_config_default(&cfg);
    cfg.frame_buffer = FRAME_SIZE;
    cfg.gather_buffer = (size & 1) ? (1u << 20) : 0;
    cfg.on_event = on_event;
    if (zdem_s2_state_init(&s, arena, ARENA_SIZE, &cfg, &err) != ZDEM_OK)
        return 0;
    if (size & 1) {
        /* pieces of 64..4096 bytes, varied by the input size (byte-at-a-time
         * feeding is in the test suite: here it would make inputs slow) */
        size_t pos = 0, piece = 64u + (size * 40503u) % 4033u;
        zdem_status st = ZDEM_OK;
        while (pos < size && st == ZDEM_OK) {
            size_t k = size - pos < piece ? size - pos : piece;
            st = zdem_s2_state_feed(s, data + pos, k, &err);
            pos += k;
        }
        if (st == ZDEM_OK)
            (void)zdem_s2_state_end(s, &err);
    } else {
        zdem_status st = zdem_s2_state_run(s, data, size, -1, &err);
        zdem_s2_stats a, b;
        zdem_s2_state_stats(s, &a);
        if (!(size & 6) && a.fields_decoded) {
            zdem_s2_warnings wa = *zdem_s2_state_warnings(s);
            zdem_s2_state *s2;
            zdem_error err2;
            zdem_error_clear(&err2);
            cfg.plan_cache = 0;
            if (zdem_s2_state_init(&s2, arena, ARENA_SIZE, &cfg, &err2) != ZDEM_OK)
                abort();
            if (zdem_s2_state_run(s2, data, size, -1, &err2) != st || err2.offset != err.offset)
                abort();
            zdem_s2_state_stats(s2, &b);
            if (a.entity_updates != b.entity_updates || a.fields_decoded != b.fields_decoded ||
                a.created != b.created || a.deleted != b.deleted || a.events != b.events ||
                a.frames != b.frames || a.inner_messages != b.inner_messages ||
                memcmp(wa.count, zdem_s2_state_warnings(s2)->count, sizeof wa.count) != 0)
                abort();
            s = s2;
        }
    }
    (void)zdem_s2_players(s, on_player, NULL, order, 4096);
    n = zdem_s2_entities_live(s, order, 4096);
    for (i = 0; i < n && i < 4096 && i < 8; i++) {
        zdem_error e2;
        zdem_error_clear(&e2);
        (void)zdem_s2_entity_props(s, (int32_t)order[i], on_prop, NULL, props, 4096, &e2);
    }
    return 0;
}
