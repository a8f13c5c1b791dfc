/* Whole-file Source 2 runs into a zdem_table, for bindings (the Python
 * package) that hand over a mapped file and an arena and get columns back:
 * tick rows (source2_ticks.h), game events / chat / combat log, and the
 * header. Each takes the state arena from the caller (untouched pages stay
 * unallocated if it comes from an anonymous mapping) and flushes the last
 * chunk, also on damage, so everything read before a fault is delivered;
 * the result is then the run's error (err->offset a file offset, see
 * zdem_error_in_frame). */
#ifndef ZDEM_SOURCE2_ROWS_H
#define ZDEM_SOURCE2_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"
#include "zdem_table.h"
#include "source2_ticks.h"
#include "source2_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The arena the runs below need at least: the fixed buffers at the
 * default configuration; the demo's state comes on top (the CLI gives
 * 256 MiB in all). */
size_t zdem_s2_rows_fixed_size(void);

/* Tick rows (columns as in source2_ticks.h). hash_seed: see
 * zdem_s2_config (0: built-in). */
zdem_status zdem_s2_rows_ticks(const uint8_t *file, size_t size, void *arena,
                               size_t arena_size, const zdem_s2_ticks_config *tc,
                               uint64_t hash_seed, zdem_table *t, zdem_error *err);

/* One row per game event, chat line and combat-log entry: tick, type
 * ("game_event", "chat", "combat_log"), event_name (as demoparser2 names
 * it), then one column per key (added as keys appear; a key called tick,
 * type or event_name becomes key_tick ...), then for each player the
 * event names (source2_players.h) <role>_name, <role>_steamid and
 * <role>_team_num. names: NULL, or nnames event names (or types) to keep;
 * once the demo's game event list has come, a name no event of it can
 * have stops the run: ZDEM_ERR_UNKNOWN_NAME, err->msg names it and the
 * closest ones (it points into the arena). */
zdem_status zdem_s2_rows_events(const uint8_t *file, size_t size, void *arena,
                                size_t arena_size, const char *const *names,
                                uint32_t nnames, uint64_t hash_seed, zdem_table *t,
                                zdem_error *err);

/* Every name tick rows accept for this demo, one row each: class, name,
 * type (the field's type string) and, for demoparser2's names, reads (the
 * property it stands for; class is then missing). class_name NULL: the
 * names of player rows (demoparser2's, then those of the controller and
 * pawn classes); "*": every class; else that class's (its demoparser2
 * names first). Only the demo's start is read (up to its classes). An
 * unknown class: ZDEM_ERR_UNKNOWN_NAME, err->msg (in the arena) names the
 * closest. More than 2^23 names (only crafted serializers shared by many
 * classes come there): ZDEM_ERR_LIMIT after those. */
zdem_status zdem_s2_rows_props(const uint8_t *file, size_t size, void *arena,
                               size_t arena_size, const char *class_name,
                               uint64_t hash_seed, zdem_table *t, zdem_error *err);
/* The same for a caller that runs the state itself (push input): an
 * on_frame hook that stops the run (ZDEM_ERR_ABORTED) once the classes
 * are read, then the listing from that state; msg (msg_cap bytes, 320 is
 * plenty) holds an unknown class's message. */
zdem_status zdem_s2_rows_props_hook(void *user, zdem_s2_state *s, const zdem_s2_outer *m,
                                    const uint8_t *payload, size_t size);
zdem_status zdem_s2_rows_props_list(const zdem_s2_state *s, const char *class_name, zdem_table *t,
                                    char *msg, size_t msg_cap, zdem_error *err);
/* Game events (and chat) with the properties of the players they name and
 * of the game at the event's tick: demoparser2's parseEvent. Columns:
 * tick, event_name, the keys, then per role (source2_players.h)
 * <role>_name, <role>_steamid, <role>_team_num and <role>_<prop> for each
 * player prop, then each other prop: a game-rules one as <prop>, a team
 * one as t_<prop> and ct_<prop> (teams 2 and 3). Props are read as the
 * tick rows read them (every name zdem_s2_rows_ticks takes). An unknown
 * event or property name: ZDEM_ERR_UNKNOWN_NAME, as zdem_s2_rows_events. */
typedef struct zdem_s2_event_rows_config {
    const char *const *names;        /* events to keep; NULL: all */
    uint32_t nnames;
    const char *const *player_props; /* per player named */
    uint32_t nplayer;
    const char *const *other_props;  /* the game's: rules and teams */
    uint32_t nother;
    int fold_player_keys;            /* leave out the keys the player
                                        columns stand for (userid,
                                        attacker, ..._pawn), as
                                        demoparser2 does */
} zdem_s2_event_rows_config;

/* The part of the arena zdem_s2_rows_event takes before the state's. */
size_t zdem_s2_rows_event_size(const zdem_s2_event_rows_config *c);
zdem_status zdem_s2_rows_event(const uint8_t *file, size_t size, void *arena,
                               size_t arena_size, const zdem_s2_event_rows_config *c,
                               uint64_t hash_seed, zdem_table *t, zdem_error *err);

/* One row per distinct event name, in the order they first come:
 * event_name, type (demoparser2's listGameEvents; entities are not
 * decoded). */
zdem_status zdem_s2_rows_event_names(const uint8_t *file, size_t size, void *arena,
                                     size_t arena_size, uint64_t hash_seed, zdem_table *t,
                                     zdem_error *err);

/* One row per player slot as the demo leaves it (SourceTV left out):
 * slot, userid, steamid, name, team_number, controller_entity,
 * pawn_entity (the tick rows' entity), player_id (Dota), is_bot. */
zdem_status zdem_s2_rows_players(const uint8_t *file, size_t size, void *arena,
                                 size_t arena_size, uint64_t hash_seed, zdem_table *t,
                                 zdem_error *err);

/* One row: CDemoFileHeader's fields (map_name, server_name, client_name,
 * game_directory, network_protocol, build_num, demo_version_name, ...)
 * and CDemoFileInfo's playback_ticks, playback_frames, playback_time. */
zdem_status zdem_s2_rows_header(const uint8_t *file, size_t size, void *arena,
                                size_t arena_size, zdem_table *t, zdem_error *err);

#ifdef __cplusplus
}
#endif

#endif
