/* Source 2 tick rows: one row per (tick, entity) with chosen properties,
 * written into a zdem_table as the demo is read (the table's chunks bound
 * the memory, however long the demo).
 *
 * Two row sets:
 *  - players (class_name NULL): one row per player controller (class
 *    "*PlayerController") whose pawn (m_hPlayerPawn, else m_hPawn) is live;
 *    the row's entity is the pawn. Properties are read from the pawn, then
 *    the controller; a "...Pawn." or "...Controller." first component picks
 *    one. demoparser2's player names are understood: X Y Z (cell * 512 -
 *    16384 + vec, in float as it computes them), pitch yaw (m_angEyeAngles),
 *    health, team_num, name, steamid, balance, active_weapon, and a few
 *    more (zdem_s2_ticks_alias).
 *  - one class (class_name "CCSTeam"): one row per live entity of it; a
 *    leading "CCSTeam." is optional.
 * A trailing ".N" picks component N of a vector; a vector without one
 * fills columns NAME.0 .. NAME.n-1. Columns: "tick", "entity", then the
 * properties in the order asked (created with the first row). A tick's row
 * is taken once, after the first packet that reaches it. */
#ifndef ZDEM_SOURCE2_TICKS_H
#define ZDEM_SOURCE2_TICKS_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"
#include "zdem_table.h"
#include "source2_state.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZDEM_S2_TICKS_NAME_MAX 160u /* longest property name */
/* Most properties in one run: a vector takes up to 4 columns, tick and
 * entity 2, in a table of at most ZDEM_TABLE_MAX_COLS (16383). */
#define ZDEM_S2_TICKS_MAX_PROPS ((ZDEM_TABLE_MAX_COLS - 2u) / 4u)

typedef struct zdem_s2_ticks_config {
    const char *const *props; /* property names (copied at init) */
    uint32_t nprops;
    const char *class_name;   /* NULL: players; else rows of that class */
    const int32_t *ticks;     /* NULL: every tick; else these, ascending */
    uint32_t nticks;
    uint32_t every;           /* > 1: only ticks that are multiples of it */
    uint32_t max_rows_per_tick; /* entities tracked (default 1024; more are
                                   counted in zdem_s2_ticks_untracked) */
} zdem_s2_ticks_config;

typedef struct zdem_s2_ticks zdem_s2_ticks;

/* The real property a demoparser2 player name stands for ("health" ->
 * "m_iHealth"), or NULL when name is not one of them. */
const char *zdem_s2_ticks_alias(const char *name);

/* The i-th demoparser2 name and (target) the property it reads; NULL
 * past the last. */
const char *zdem_s2_ticks_alias_at(uint32_t i, const char **target);

/* Which classes player rows read: 1 a controller (class
 * "*PlayerController"), 2 a pawn (what a controller's pawn handle points
 * at: "*Pawn", Dota's "CDOTA_Unit_Hero_*"), 0 neither. */
int zdem_s2_ticks_player_class(const zdem_s2_state *s, int32_t class_id);

size_t zdem_s2_ticks_size(const zdem_s2_ticks_config *c);

/* Sets up the rows in mem and hooks cfg (on_entity, on_tick, user: the
 * caller keeps the other callbacks). Rows go to out. ZDEM_ERR_LIMIT for
 * more than ZDEM_S2_TICKS_MAX_PROPS properties, a name longer than
 * ZDEM_S2_TICKS_NAME_MAX or ticks not ascending. */
zdem_status zdem_s2_ticks_init(zdem_s2_ticks **out, void *mem, size_t size,
                               const zdem_s2_ticks_config *c, zdem_table *table,
                               zdem_s2_config *cfg, zdem_error *err);

/* Once the demo's classes are read (at its signon, before any row), the
 * class and every property name are checked: one that no class the rows
 * read has stops the run (the state's run returns ZDEM_ERR_ABORTED), and
 * this gives the message: "unknown property 'Health'; did you mean
 * 'health', 'm_iHealth'?" (or "unknown class ..."), valid while the
 * memory given to zdem_s2_ticks_init is. NULL otherwise. */
const char *zdem_s2_ticks_error(const zdem_s2_ticks *t);

/* Entities that matched but did not fit max_rows_per_tick. */
uint64_t zdem_s2_ticks_untracked(const zdem_s2_ticks *t);

#ifdef __cplusplus
}
#endif

#endif
