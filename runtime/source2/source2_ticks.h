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
 *    health, team_num, name, steamid, balance, active_weapon and ~180 more
 *    (zdem_s2_ticks_alias_at lists them): the pawn's, the controller's,
 *    the game rules' (total_rounds_played), the player's team's
 *    (team_name), the active weapon's (active_weapon_name, the item's
 *    name), and inventory (the pawn's weapons' names joined by ",").
 *    A first component naming a rules proxy or a team class
 *    ("CCSGameRulesProxy.", "CCSTeam.") reads those entities.
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
#include "source2_players.h"

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
/* Friendly name i (0, 1, ... while it returns 1): its name and the
 * property it reads; zdem_s2_ticks_alias_kind(i) says where ("pawn",
 * "controller", "rules", "team", "weapon", ...), NULL past the end. */
int zdem_s2_ticks_alias_at(uint32_t i, const char **name, const char **target);
const char *zdem_s2_ticks_alias_kind(uint32_t i);

/* Which classes player rows read: 1 a controller (class
 * "*PlayerController"), 2 a pawn (what a controller's pawn handle points
 * at: "*Pawn", Dota's "CDOTA_Unit_Hero_*"), 0 neither. */
int zdem_s2_ticks_player_class(const zdem_s2_state *s, int32_t class_id);

size_t zdem_s2_ticks_size(const zdem_s2_ticks_config *c);

/* Sets up the rows in mem and hooks cfg (on_entity, on_tick, user: the
 * caller keeps the other callbacks). Rows go to table. ZDEM_ERR_LIMIT for
 * more than ZDEM_S2_TICKS_MAX_PROPS properties, a name longer than
 * ZDEM_S2_TICKS_NAME_MAX or ticks not ascending. With cfg and table NULL:
 * the properties only, for zdem_s2_ticks_value (the caller then passes
 * every entity op to zdem_s2_ticks_roster's zdem_s2_roster_entity, and
 * checks the names with zdem_s2_ticks_check). */
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

/* ---- the same properties read for other row makers (events) ------------- */
enum { ZDEM_S2_PROP_PLAYER = 0, ZDEM_S2_PROP_RULES = 1, ZDEM_S2_PROP_TEAM = 2 };
/* Whose property k is: a player's, the game rules', a team's. */
int zdem_s2_ticks_prop_kind(const zdem_s2_ticks *t, uint32_t k);
/* Property k for a player (pawn and controller entity, -1 for none) or,
 * with team >= 0, for that team's entity: 1 and *v when it has a value
 * (strings valid until the state changes or the next call). */
int zdem_s2_ticks_value(zdem_s2_ticks *t, const zdem_s2_state *s, uint32_t k, int32_t pawn,
                        int32_t ctrl, int64_t team, zdem_s2_value *v);
/* The rules, team and C4 entities the properties read. */
zdem_s2_roster *zdem_s2_ticks_roster(zdem_s2_ticks *t);
/* The check the hooks make, for such callers: ZDEM_OK (also while the
 * classes are not read yet) or ZDEM_ERR_ABORTED with zdem_s2_ticks_error. */
zdem_status zdem_s2_ticks_check(zdem_s2_ticks *t, const zdem_s2_state *s);

#ifdef __cplusplus
}
#endif

#endif
