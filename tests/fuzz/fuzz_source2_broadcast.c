/* libFuzzer target: a Source 2 HTTP broadcast. The input is sync.json and
 * the fragments, each after the marker "\n~~\n" (sync first; a sync that
 * does not parse is replaced by {"fragment":1}, so the fragments are read
 * either way); the fragments go to the state in the order
 * zdem_s2_broadcast_next names them (start, full, deltas), configured as
 * the zdem CLI reads a broadcast (arena, frame and gather buffers), whole
 * (even-sized inputs) or in pieces whose sizes come from the input (odd).
 * A quarter of the inputs run with a small max_fragment, to reach the
 * limit. The arena is allocated once (the library never allocates). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "source2_broadcast.h"

#define ARENA_SIZE ((size_t)256 << 20) /* zdem --memory default */
#define FRAME_SIZE ((size_t)16 << 20)  /* zdem --max-frame default */
#define GATHER_SIZE ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint32_t sink;

static zdem_status on_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    uint32_t i, sum = 0;
    (void)user;
    (void)s;
    for (i = 0; i < ev->name_len; i++) /* touch the name so ASan checks it */
        sum += (uint8_t)ev->name[i];
    for (i = 0; i < ev->nkeys; i++)
        if (ev->keys[i].value.kind == ZDEM_S2_V_STRING && ev->keys[i].value.len)
            sum += ev->keys[i].value.s[ev->keys[i].value.len - 1];
    sink = sum;
    return ZDEM_OK;
}

/* The next part: up to the marker or the end. */
static const uint8_t *part(const uint8_t *p, const uint8_t *end, size_t *n)
{
    const uint8_t *q;
    for (q = p; q + 4 <= end; q++)
        if (q[0] == '\n' && q[1] == '~' && q[2] == '~' && q[3] == '\n') {
            *n = (size_t)(q - p);
            return q + 4;
        }
    *n = (size_t)(end - p);
    return end;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t *arena;
    static const char fallback[] = "{\"fragment\":1}";
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_s2_broadcast b;
    zdem_s2_bc_sync sync;
    zdem_s2_bc_kind kind;
    zdem_error err;
    const uint8_t *p = data, *end = data + size, *next;
    size_t n, piece = 64u + (size * 40503u) % 4033u;
    int64_t num;
    if (!arena)
        arena = malloc(ARENA_SIZE);
    if (!arena)
        return 0;
    zdem_error_clear(&err);
    zdem_s2_config_default(&cfg);
    cfg.frame_buffer = FRAME_SIZE;
    cfg.gather_buffer = GATHER_SIZE;
    cfg.on_event = on_event;
    if (zdem_s2_state_init(&s, arena, ARENA_SIZE, &cfg, &err) != ZDEM_OK)
        return 0;
    next = part(p, end, &n);
    if (zdem_s2_broadcast_sync(p, n, &sync, &err) != ZDEM_OK ||
        zdem_s2_broadcast_init(&b, s, &sync, &err) != ZDEM_OK) {
        zdem_error_clear(&err);
        if (zdem_s2_broadcast_sync((const uint8_t *)fallback, sizeof fallback - 1, &sync, &err) != ZDEM_OK ||
            zdem_s2_broadcast_init(&b, s, &sync, &err) != ZDEM_OK)
            return 0;
    }
    if ((size & 6) == 6)
        b.max_fragment = 1u + size / 3u;
    for (p = next; p < end && zdem_s2_broadcast_next(&b, &kind, &num);) {
        zdem_status st = zdem_s2_broadcast_begin(&b, kind, num, &err);
        next = part(p, end, &n);
        if (size & 1) {
            size_t pos = 0;
            while (st == ZDEM_OK && pos < n) {
                size_t k = n - pos < piece ? n - pos : piece;
                st = zdem_s2_broadcast_feed(&b, p + pos, k, &err);
                pos += k;
            }
        } else if (st == ZDEM_OK) {
            st = zdem_s2_broadcast_feed(&b, p, n, &err);
        }
        if (st != ZDEM_OK || zdem_s2_broadcast_end_fragment(&b, &err) != ZDEM_OK)
            break;
        p = next;
    }
    (void)zdem_s2_broadcast_end(&b, &err);
    sink = zdem_s2_entity_count(s) + (uint32_t)zdem_s2_state_tick(s);
    return 0;
}
