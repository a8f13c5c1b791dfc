/* libFuzzer target: the input is a Source 2 demo, read by the row layer the
 * Python package and `zdem ticks` use (source2_rows.h): tick rows with
 * demoparser2's player names and dotted names (players, or one class), or
 * event rows (with the players they name, with players' and the game's
 * props) or the players, chosen by the input size. The table is small (64-row chunks,
 * 16 columns, a 4 KiB string pool) so that chunk flushes, dropped columns
 * and cut strings are all reached. Memory is allocated once. */
#include <stdint.h>
#include <stdlib.h>
#include "source2_rows.h"
#include "fuzz_table_sink.h"

#define ARENA_SIZE ((size_t)256 << 20) /* zdem --memory default */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const props[] = {"X", "Y", "Z", "health", "team_num", "name",
                                        "steamid", "yaw", "m_iClip1", "m_vecOrigin"};
    static const int32_t ticks[] = {0, 1, 64, 128, 1000};
    static uint8_t *arena;
    zdem_s2_ticks_config tc = {0};
    zdem_table *t;
    zdem_error err;
    if (!arena)
        arena = malloc(ARENA_SIZE);
    if (!arena || !(t = fuzz_table_open()))
        return 0;
    zdem_error_clear(&err);
    tc.props = props;
    tc.nprops = sizeof props / sizeof props[0];
    switch (size % 4) {
    case 0: break;                                   /* players, every tick */
    case 1: tc.class_name = "CCSPlayerPawn"; tc.every = 2; break;
    case 2: tc.ticks = ticks; tc.nticks = 5; tc.max_rows_per_tick = 4; break;
    default: {
        /* events with their players; with players' and the game's props;
         * the players at the end */
        static const char *const other[] = {"total_rounds_played", "team_name", "CCSTeam.m_iScore"};
        static const char *const player[] = {"X", "health", "active_weapon_name", "inventory",
                                             "team_rounds_total", "m_vecOrigin"};
        zdem_s2_event_rows_config ec = {0};
        ec.player_props = player;
        ec.nplayer = sizeof player / sizeof player[0];
        ec.other_props = other;
        ec.nother = sizeof other / sizeof other[0];
        ec.fold_player_keys = (size >> 2) & 1;
        switch ((size >> 2) % 3) {
        case 0: (void)zdem_s2_rows_events(data, size, arena, ARENA_SIZE, NULL, 0, 1, t, &err); break;
        case 1: (void)zdem_s2_rows_event(data, size, arena, ARENA_SIZE, &ec, 1, t, &err); break;
        default: (void)zdem_s2_rows_players(data, size, arena, ARENA_SIZE, 1, t, &err); break;
        }
        return 0;
    }
    }
    (void)zdem_s2_rows_ticks(data, size, arena, ARENA_SIZE, &tc, 1, t, &err);
    return 0;
}
