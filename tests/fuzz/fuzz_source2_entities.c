/* libFuzzer target: the input is a Source 2 demo; the whole state layer
 * runs over it (string tables, serializers, field paths, entity deltas,
 * game events). Seed with corpus/source2/<file>.dem: mutations then reach the
 * entity decoder with real serializers. State and scratch are allocated
 * once, sized for the corpus (the library itself never allocates). */
#include <stdint.h>
#include <stdlib.h>
#include "source2_state.h"

#define ARENA_SIZE (64u << 20)
#define SCRATCH_SIZE (8u << 20)

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t *arena, *scratch;
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_error err;
    size_t need = 0;
    if (!arena)
        arena = malloc(ARENA_SIZE);
    if (!scratch)
        scratch = malloc(SCRATCH_SIZE);
    if (!arena || !scratch)
        return 0;
    zdem_error_clear(&err);
    if (zdem_s2_scratch_needed(data, size, &need, &err) != ZDEM_OK || need > SCRATCH_SIZE)
        return 0;
    zdem_s2_config_default(&cfg);
    cfg.tmp_size = 1u << 20;
    cfg.on_event = on_event;
    if (zdem_s2_state_init(&s, arena, ARENA_SIZE, &cfg, &err) != ZDEM_OK)
        return 0;
    (void)zdem_s2_state_run(s, data, size, scratch, SCRATCH_SIZE, -1, &err);
    return 0;
}
