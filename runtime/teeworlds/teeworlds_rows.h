/* Teeworlds rows into a zdem_table: one snapshot object's fields per
 * snapshot (characters, player infos, any object of the schema), or the
 * chat, kill messages and players of a demo, for the CLI's `ticks` and for
 * bindings that want whole columns (Python).
 *
 * The names are those of the demo's protocol (its header's net version:
 * 0.6 and DDNet, or 0.7); a name neither protocol has is refused at once,
 * one of the other protocol's only once the header is read.
 * Columns: objects: "tick", "entity" (the item id: the client id for
 * characters and player infos), then the fields asked by their schema
 * names (x, y, vel_x, health, armor, weapon; player_info: score, team,
 * latency; strings of client_info as text; 0.7: player_info has
 * player_flags, score, latency, de_client_info name, team, skin parts).
 * chat: tick, team (the message's: 0 everyone, 1 the team; 0.7: its mode
 * less one, 2 a whisper), client_id, name, text. kills: tick, killer,
 * killer_name, victim, victim_name, weapon, mode_special. players: slot
 * (the client id), name, team (of the last player_info item, 0.7: of the
 * client info; no value without one), clan, country, first_tick, last_tick
 * (one row per client id seen in client_info items, 0.7: de_client_info;
 * names are the last ones seen). header: one
 * row: version, net_version, map_name, map_size, map_crc, map_sha256 (hex;
 * no value without the DDNet extension), type, length (seconds),
 * timestamp, timeline_markers (their count), first_tick, last_tick (the
 * tick markers' span; no value without one). */
#ifndef ZDEM_TEEWORLDS_ROWS_H
#define ZDEM_TEEWORLDS_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"
#include "zdem_table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum zdem_tw_rows_kind {
    ZDEM_TW_ROWS_OBJECT = 0,
    ZDEM_TW_ROWS_CHAT,
    ZDEM_TW_ROWS_KILLS,
    ZDEM_TW_ROWS_PLAYERS,
    ZDEM_TW_ROWS_HEADER
} zdem_tw_rows_kind;

#define ZDEM_TW_ROWS_MAX_PROPS 64u /* fields in one run */

typedef struct zdem_tw_rows_config {
    zdem_tw_rows_kind kind;
    const char *object;       /* OBJECT: schema name ("character",
                                 "player_info"; "player" means player_info);
                                 NULL: character */
    const char *const *props; /* OBJECT: field names */
    uint32_t nprops;
    const int32_t *ticks;     /* OBJECT: only these ticks (ascending) */
    uint32_t nticks;
    uint32_t every;           /* OBJECT: > 1: ticks that are multiples */
} zdem_tw_rows_config;

size_t zdem_tw_rows_size(void);

/* The i-th (object, field) pair of the 0.6 schema, for listing what
 * OBJECT rows accept: object and field names, and whether the field is a
 * string. 0 past the last. */
int zdem_tw_rows_field_at(uint32_t i, const char **object, const char **field,
                          int *is_string);

/* The same for the protocol of the demo whose first n bytes are file (its
 * header's net version: 0.7 lists 0.7's objects; fewer than 72 bytes:
 * 0.6). */
int zdem_tw_rows_field_of(const uint8_t *file, size_t n, uint32_t i, const char **object,
                          const char **field, int *is_string);

/* Reads the whole demo into t (the last chunk flushed too). On damage
 * everything before it is in t and err has the file offset.
 * ZDEM_ERR_UNKNOWN_NAME: an unknown object or field name (err->msg names
 * it and the closest valid ones; it points into mem; nothing was read).
 * ZDEM_ERR_LIMIT: more than ZDEM_TW_ROWS_MAX_PROPS fields. */
zdem_status zdem_tw_rows_run(void *mem, size_t size, const zdem_tw_rows_config *c,
                             const uint8_t *file, size_t n, zdem_table *t,
                             zdem_error *err);

/* The same over push input (pieces of any size, as zdem_tw_push): start
 * (checks the names, as run), feed, end (the players' rows and the last
 * chunk; call it after a feed error too, the rows before it still come).
 * The errors are run's. */
zdem_status zdem_tw_rows_start(void *mem, size_t size, const zdem_tw_rows_config *c,
                               zdem_table *t, zdem_error *err);
zdem_status zdem_tw_rows_feed(void *mem, const uint8_t *data, size_t n, zdem_error *err);
zdem_status zdem_tw_rows_end(void *mem, zdem_error *err);
#ifdef __cplusplus
}
#endif

#endif
