/* Quake III rows into a zdem_table: playerstate or entity fields per
 * snapshot, or the obituaries, chat or score events, for the CLI's
 * `ticks` and for bindings that want whole columns (Python).
 *
 * Columns: snapshots: "server_time", "entity" (the playerstate's clientNum,
 * or the entity number), then the fields asked, by their netfield names
 * ("origin", "viewangles.1", "pos.trBase[2]", "stats.0"; a vector or array
 * without an index fills NAME.0 .. NAME.n-1; floats are decoded from their
 * bit patterns). Events: see zdem_q3_rows_kind. */
#ifndef ZDEM_QUAKE3_ROWS_H
#define ZDEM_QUAKE3_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"
#include "zdem_table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum zdem_q3_rows_kind {
    ZDEM_Q3_ROWS_PLAYER = 0, /* the recorded player's playerstate, per snapshot */
    ZDEM_Q3_ROWS_ENTITY,     /* every entity of every snapshot */
    /* server_time, gamestate, attacker, attacker_name, target, target_name,
     * mod, mod_name */
    ZDEM_Q3_ROWS_OBITUARY,
    /* server_time, gamestate, type ("chat" / "tchat"), command_seq, text
     * (the command's argument as sent), kind (chat, tchat, mm2), slot and
     * sender (its configstring name) where the command names the sender
     * by slot (CPMA's mm2, Quake Live's "NN " prefix), location (mm2) */
    ZDEM_Q3_ROWS_CHAT,
    /* server_time, gamestate, command_seq, score1, score2 */
    ZDEM_Q3_ROWS_SCORES,
    /* one row per gamestate: gamestate, protocol, map_name, gamename,
     * client_num (the recording player's slot), snapshots,
     * first_server_time, last_server_time (no value: no snapshot) */
    ZDEM_Q3_ROWS_HEADER,
    /* one row per player, name and team in a gamestate (a new row when
     * the slot empties or its name or team changes, each player command
     * taken in order): gamestate, slot, name (as its configstring has it,
     * colour codes included), team, first_server_time, last_server_time
     * (from the latest snapshot when the row began, as events are timed,
     * to the last one while it lasted) */
    ZDEM_Q3_ROWS_PLAYERS
} zdem_q3_rows_kind;

#define ZDEM_Q3_ROWS_MAX_PROPS 64u /* fields in one run */

typedef struct zdem_q3_rows_config {
    zdem_q3_rows_kind kind;
    const char *const *props; /* snapshot kinds: field names */
    uint32_t nprops;
    const int32_t *times;     /* snapshot kinds: only these server times
                                 (ascending); NULL: all */
    uint32_t ntimes;
    uint32_t every;           /* > 1: every every-th valid snapshot */
    int protocol;             /* 0: from the first gamestate (or pass
                                 zdem_q3_protocol_from_path) */
} zdem_q3_rows_config;

/* Memory zdem_q3_rows_run needs (the parser included). */
size_t zdem_q3_rows_size(void);

/* 1 when name is a field of the playerstate (player = 1) or entity state. */
int zdem_q3_rows_field_known(int player, const char *name);

/* Field i of the playerstate (player = 1) or entity state, for listing
 * them: its name, its elements (3 for a vector, 16 for stats; a name
 * ".N" reads element N) and whether it is a float. 0 past the last. */
int zdem_q3_rows_field_at(int player, uint32_t i, const char **name, uint32_t *elements,
                          int *is_float);

/* Reads the whole file into t (rows are flushed as chunks fill; the last
 * chunk is flushed too). On damage everything before it is in t and err
 * has a file byte offset. ZDEM_ERR_UNKNOWN_NAME: an unknown field name
 * (err->msg names it and the closest fields; it points into mem; nothing
 * was read). ZDEM_ERR_LIMIT: more than ZDEM_Q3_ROWS_MAX_PROPS fields. */
zdem_status zdem_q3_rows_run(void *mem, size_t size, const zdem_q3_rows_config *c,
                             const uint8_t *file, size_t n, zdem_table *t,
                             zdem_error *err);

/* The same over push input (pieces of any size, as zdem_q3_push): start
 * (checks the names, as run), feed, end (flushes the last chunk; call it
 * after a feed error too, the rows before it still come). The errors are
 * run's. */
zdem_status zdem_q3_rows_start(void *mem, size_t size, const zdem_q3_rows_config *c,
                               zdem_table *t, zdem_error *err);
zdem_status zdem_q3_rows_feed(void *mem, const uint8_t *data, size_t n, zdem_error *err);
zdem_status zdem_q3_rows_end(void *mem, zdem_error *err);
/* 1 once the -1/-1 end marker came through zdem_q3_rows_feed (a reader
 * following a file still being written stops there). */
int zdem_q3_rows_ended(const void *mem);
#ifdef __cplusplus
}
#endif

#endif
