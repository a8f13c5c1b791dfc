/* The Source 2 keyed-structure targets' state: small fixed buffers (no
 * frames are read, messages go straight to the handlers), the seed from
 * the input, an arena allocated once. */
#ifndef ZDEM_FUZZ_SOURCE2_KEYS_H
#define ZDEM_FUZZ_SOURCE2_KEYS_H

#include "fuzz_keys.h"
#include "source2_state_int.h"

#define FK_S2_ARENA ((size_t)8 << 20)

static zdem_s2_state *fk_s2_state(uint64_t seed, zdem_s2_event_fn on_event, void *user)
{
    static uint8_t *arena;
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_error err;
    if (!arena)
        arena = malloc(FK_S2_ARENA);
    if (!arena)
        return 0;
    zdem_s2_config_default(&cfg);
    cfg.max_entities = 64;
    cfg.max_field_paths = 64;
    cfg.tmp_size = 1u << 16;
    cfg.frame_buffer = 1u << 12;
    cfg.gather_buffer = 0;
    cfg.plan_cache = 0; /* keys only: its set-up is per-input work here (fuzz_source2_entities has it) */
    cfg.hash_seed = seed;
    cfg.on_event = on_event;
    cfg.user = user;
    zdem_error_clear(&err);
    if (zdem_s2_state_init(&s, arena, FK_S2_ARENA, &cfg, &err) != ZDEM_OK)
        return 0;
    return s;
}

static inline uint32_t fk_s2_probe_limits(const zdem_s2_state *s)
{
    return zdem_s2_state_warnings(s)->count[ZDEM_S2_W_PROBE_LIMIT];
}

#endif
