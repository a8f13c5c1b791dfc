/* libFuzzer target: the input is a Source 2 demo read in the events mode
 * (zdem_s2_config_events: frames passed over unread, inner messages
 * stepped over uncopied, only two string tables kept) in the 1 MiB the
 * microcontroller firmware has, through the push API in pieces whose sizes
 * come from the input (odd sizes) or as a whole file (even sizes). Players
 * come from the userinfo table (the players each event names, too). The
 * arena is allocated once. */
#include <stdint.h>
#include <stdlib.h>
#include "source2_state.h"
#include "source2_players.h"

#define ARENA_SIZE ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint32_t sink;

static zdem_status on_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    static zdem_s2_roster roster;
    zdem_s2_role roles[ZDEM_S2_EVENT_MAX_ROLES];
    uint32_t i, n, sum = 0;
    (void)user;
    /* the players it names, from the userinfo table (no entities here) */
    zdem_s2_roster_init(&roster);
    n = zdem_s2_event_roles(&roster, s, ev, roles, ZDEM_S2_EVENT_MAX_ROLES);
    for (i = 0; i < n; i++)
        if (roles[i].found && roles[i].player.name && roles[i].player.name_len)
            sum += roles[i].player.name[roles[i].player.name_len - 1] + roles[i].name[0];
    for (i = 0; i < ev->name_len; i++) /* touch the name and keys for ASan */
        sum += (uint8_t)ev->name[i];
    for (i = 0; i < ev->nkeys; i++)
        if (ev->keys[i].value.kind == ZDEM_S2_V_STRING && ev->keys[i].value.len)
            sum += ev->keys[i].value.s[ev->keys[i].value.len - 1];
    sink = sum;
    return ZDEM_OK;
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
    static uint32_t tmp[1024];
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_error err;
    if (!arena)
        arena = malloc(ARENA_SIZE);
    if (!arena)
        return 0;
    zdem_error_clear(&err);
    zdem_s2_config_events(&cfg);
    cfg.on_event = on_event;
    if (zdem_s2_state_init(&s, arena, ARENA_SIZE, &cfg, &err) != ZDEM_OK)
        return 0;
    if (size & 1) {
        size_t pos = 0, piece = 1u + (size * 40503u) % 4096u;
        zdem_status st = ZDEM_OK;
        while (pos < size && st == ZDEM_OK) {
            size_t k = size - pos < piece ? size - pos : piece;
            st = zdem_s2_state_feed(s, data + pos, k, &err);
            pos += k;
        }
        if (st == ZDEM_OK)
            (void)zdem_s2_state_end(s, &err);
    } else {
        (void)zdem_s2_state_run(s, data, size, -1, &err);
    }
    (void)zdem_s2_players(s, on_player, NULL, tmp, 1024);
    return 0;
}
