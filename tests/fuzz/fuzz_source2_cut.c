/* libFuzzer target: Source 2 clips (zdem_s2_writer_cut) of hostile demos.
 * The input is a demo; the range comes from its size (so that the seeds
 * are plain demos). The clip goes into a buffer of twice the input plus
 * room for the frames the writer makes (it copies each frame at most
 * once: a clip that does not fit is a bug), and whatever the cut returns,
 * what it wrote reads clean in a fresh state: a valid demo of the part
 * before the damage. Configured as the zdem CLI runs (arena, frame
 * buffer); the arena is allocated once and serves both runs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "source2_state.h"
#include "source2_write.h"

#define ARENA_SIZE ((size_t)256 << 20) /* zdem --memory default */
#define FRAME_SIZE ((size_t)16 << 20)  /* zdem --max-frame default */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static zdem_s2_state *fresh(uint8_t *arena)
{
    zdem_s2_config cfg;
    zdem_s2_state *s = NULL;
    zdem_error err;
    zdem_error_clear(&err);
    zdem_s2_config_default(&cfg);
    cfg.frame_buffer = FRAME_SIZE;
    return zdem_s2_state_init(&s, arena, ARENA_SIZE, &cfg, &err) == ZDEM_OK ? s : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t *arena, *clip;
    static size_t clip_cap;
    zdem_out_buffer o;
    zdem_s2_cut_info info;
    zdem_s2_state *s;
    zdem_error err;
    zdem_status st;
    uint32_t h = (uint32_t)size * 2654435761u;
    int64_t a = (int64_t)(h >> 24) - 8, b = a + (int64_t)((h >> 8) & 0xFFu);
    if (!arena)
        arena = malloc(ARENA_SIZE);
    if (clip_cap < 2 * size + 4096) {
        free(clip);
        clip_cap = 2 * size + 4096;
        clip = malloc(clip_cap);
    }
    if (!arena || !clip || !(s = fresh(arena)))
        return 0;
    o.data = clip;
    o.cap = clip_cap;
    o.len = 0;
    o.full = 0;
    zdem_error_clear(&err);
    st = zdem_s2_writer_cut(s, data, size, (h & 1u) ? INT64_MIN : a, (h & 2u) ? INT64_MAX : b,
                            zdem_out_buffer_write, &o, &info, &err);
    if (st == ZDEM_ERR_NO_SPACE && o.full)
        abort(); /* more than a copy of each frame */
    if (o.len > 0) {
        if (!(s = fresh(arena)))
            return 0;
        zdem_error_clear(&err);
        if (zdem_s2_state_run(s, clip, o.len, -1, &err) != ZDEM_OK)
            abort(); /* the clip is not a valid demo */
    }
    return 0;
}
