/* Source 2 players at the current tick, and the players an event names.
 *
 * A player is a slot: the userinfo string-table entry at that index and
 * the player controller at entity index slot + 1 (CS2, Deadlock and
 * Dota 2 all lay them out so). From them: userid, name, SteamID, team,
 * the controller and its pawn, Dota's player id. With entities decoded the
 * controller speaks first (its name and SteamID are what the game shows at
 * that tick); without (the events mode) only userinfo is there.
 *
 * An event names players through keys of several kinds, each giving a
 * role (the prefix of demoparser2's columns: user_name, attacker_steamid):
 *   userid, attacker, assister, victim, *_userid and keys the descriptor
 *     types as a player slot (9): a userid, which is the slot in Source 2
 *     (looked up in userinfo first, as demoparser2 does);
 *   entityid (a grenade: its owner), *_pawn and handle-typed keys (8),
 *     entindex_*: a pawn or controller entity;
 *   chat: entityindex (the speaker's controller), Dota's source_player_id;
 *   Dota's player ids (playerid, PlayerID, killer_id, victim_id, ...);
 *   the combat log's attacker_name and target_name when they name a hero
 *   (is_attacker_hero, is_target_hero): the player the hero is assigned
 *   to (m_hAssignedHero; "npc_dota_hero_doom_bringer" is the class
 *   CDOTA_Unit_Hero_DoomBringer), as roles attacker_player and
 *   target_player (attacker_name is the entry's own key).
 * A role comes from the first key that gives it (userid before
 * userid_pawn, as demoparser2 does); 65535, -1 and the invalid handle
 * name no player. Every lookup is bounded: at most ZDEM_S2_PLAYER_SLOTS
 * controllers or userinfo entries are looked at, never the input's
 * counts. Nothing is allocated: zdem_s2_roster is a fixed-size cache the
 * caller keeps. */
#ifndef ZDEM_SOURCE2_PLAYERS_H
#define ZDEM_SOURCE2_PLAYERS_H

#include <stddef.h>
#include <stdint.h>
#include "source2_state.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZDEM_S2_PLAYER_SLOTS 64u  /* player slots looked at (the games' maximum) */
#define ZDEM_S2_EVENT_MAX_ROLES 8u /* roles kept per event */
#define ZDEM_S2_ROSTER_TEAMS 16u /* team entities tracked (Dota 2 has 14) */

typedef struct zdem_s2_player {
    int32_t slot;       /* userinfo index = controller entity - 1 */
    int32_t userid;     /* userinfo userid, -1 unknown */
    int32_t controller; /* controller entity index, -1 none */
    int32_t pawn;       /* its live pawn (or hero) entity, -1 none */
    int32_t team;       /* the pawn's team number, else the controller's; -1 unknown */
    int32_t player_id;  /* Dota's m_nPlayerID, -1 none */
    uint64_t steamid;   /* 0: none (bots, SourceTV) */
    const uint8_t *name; /* NULL: none; valid until the state changes */
    uint32_t name_len;
    uint8_t is_bot, is_hltv; /* userinfo's fakeplayer and ishltv */
} zdem_s2_player;

/* Field paths resolved per class, the rules, team and C4 entities, and the
 * slots' pawns for reverse lookups. Fixed size; zdem_s2_roster_init. */
typedef struct zdem_s2_roster_cls {
    int32_t cls;
    const char *cname;
    int8_t st[12];      /* per property: 0 unresolved, 1 present, -1 absent */
    zdem_s2_fp fp[12];
} zdem_s2_roster_cls;

typedef struct zdem_s2_roster {
    zdem_s2_roster_cls cache[8];
    uint32_t cache_next;
    int32_t rules, c4;
    int32_t teams[ZDEM_S2_ROSTER_TEAMS];
    uint64_t gen[3];    /* entity counters the slot table was built at */
    int slots_valid;
    int32_t slot_pawn[ZDEM_S2_PLAYER_SLOTS], slot_hero[ZDEM_S2_PLAYER_SLOTS],
        slot_id[ZDEM_S2_PLAYER_SLOTS];
    /* userid -> slot from userinfo, rebuilt when the table changed */
    uint32_t ui_changes;
    int ui_table, ui_valid;
    int16_t uid_low[256];                    /* by the userid's low byte */
    int32_t uid_full[ZDEM_S2_PLAYER_SLOTS];  /* each slot's userid, -1 none */
} zdem_s2_roster;

void zdem_s2_roster_init(zdem_s2_roster *p);

/* Keeps the game rules, team and C4 entities: call it from the run's
 * on_entity callback with the entity and its ops. */
void zdem_s2_roster_entity(zdem_s2_roster *p, const zdem_s2_entity *e, unsigned ops);
/* The game rules entity (…GameRulesProxy), or -1. */
int32_t zdem_s2_roster_rules(const zdem_s2_roster *p);
/* The team entity whose m_iTeamNum is team, or -1. */
int32_t zdem_s2_roster_team(zdem_s2_roster *p, const zdem_s2_state *s, int64_t team);
/* The C4 entity (CS2), or -1. */
int32_t zdem_s2_roster_c4(const zdem_s2_roster *p);

/* 1 and *out filled when the slot holds a player (a controller or a
 * userinfo entry). */
int zdem_s2_player_at_slot(zdem_s2_roster *p, const zdem_s2_state *s, int64_t slot,
                           zdem_s2_player *out);
/* By userid: the userinfo entry whose userid (its low byte, as
 * demoparser2 matches it) is userid, else the slot userid. */
int zdem_s2_player_by_userid(zdem_s2_roster *p, const zdem_s2_state *s, int64_t userid,
                             zdem_s2_player *out);
/* By entity: a controller, or the pawn (or Dota hero) of one. */
int zdem_s2_player_by_entity(zdem_s2_roster *p, const zdem_s2_state *s, int64_t index,
                             zdem_s2_player *out);
/* By entity handle (14-bit index; 0xFFFFFF and -1 name none). */
int zdem_s2_player_by_handle(zdem_s2_roster *p, const zdem_s2_state *s, int64_t handle,
                             zdem_s2_player *out);
/* By Dota player id (the controller's m_nPlayerID). */
int zdem_s2_player_by_id(zdem_s2_roster *p, const zdem_s2_state *s, int64_t player_id,
                         zdem_s2_player *out);

/* ---- the players an event names ------------------------------------------ */
typedef struct zdem_s2_role {
    const char *name;   /* "user", "attacker", ...: the column prefix */
    uint32_t name_len;
    uint32_t key;       /* the event key it comes from */
    int found;          /* 0: the key names no player */
    zdem_s2_player player;
} zdem_s2_role;

/* The roles of ev (game events, chat, combat log), in key order, at most cap;
 * returns how many. */
uint32_t zdem_s2_event_roles(zdem_s2_roster *p, const zdem_s2_state *s,
                             const zdem_s2_event *ev, zdem_s2_role *out, uint32_t cap);

/* The event keys demoparser2 folds into its player columns (userid,
 * attacker, assister, victim and their _pawn handles): 1 for those. */
int zdem_s2_event_key_internal(const char *name, size_t len);

#ifdef __cplusplus
}
#endif

#endif
