/* Source 2 game state: string tables, serializers, entities, game events,
 * chat and combat log, for Dota 2, CS2 and Deadlock.
 *
 * All state lives in one caller-provided arena; nothing is allocated.
 * zdem_s2_state_usage() reports the high-water marks, so a caller can run a
 * demo once with a generous arena and learn what it needs. Unknown classes,
 * field types and encoders never stop the parse: they fall back to a
 * generic decoder and are counted in zdem_s2_stats. */
#ifndef ZDEM_SOURCE2_STATE_H
#define ZDEM_SOURCE2_STATE_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"
#include "source2_demo.h"
#include "source2_fieldpath.h"
#include "source2_fielddecode.h"
#include "source2_ids.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Inner message ids: the generated enums of source2_ids.h. */

typedef struct zdem_s2_state zdem_s2_state;

/* ---- values ------------------------------------------------------------- */

typedef struct zdem_s2_value {
    uint8_t kind; /* zdem_s2_vkind */
    uint8_t n;    /* vector components */
    union {
        uint64_t u;
        int64_t i;
        double d;
        float f[6]; /* vectors: n components (6: a CTransform) */
    } v;
    const uint8_t *s; /* string bytes (valid until the next state change) */
    uint32_t len;
} zdem_s2_value;

/* ---- entities ------------------------------------------------------------ */
typedef struct zdem_s2_entity {
    int32_t index;    /* entity index */
    int32_t class_id; /* -1: free slot */
    uint32_t serial;
    int active;       /* in the PVS */
    const char *class_name;
    uint32_t class_name_len;
} zdem_s2_entity;

/* An entity created again while alive with the same class and serial (a
 * DEM_FullPacket restating the state in a forward pass, an entity coming
 * back into the PVS) is the same entity: UPDATED, its values those of the
 * class baseline plus the create's. */
enum {
    ZDEM_S2_ENT_CREATED = 1,
    ZDEM_S2_ENT_UPDATED = 2,
    ZDEM_S2_ENT_LEFT = 4,    /* left the PVS */
    ZDEM_S2_ENT_DELETED = 8
};

/* ---- events -------------------------------------------------------------- */
typedef enum zdem_s2_evtype {
    ZDEM_S2_EV_GAME_EVENT = 0,
    ZDEM_S2_EV_CHAT = 1,
    ZDEM_S2_EV_COMBAT_LOG = 2
} zdem_s2_evtype;

/* A combat-log entry can carry all 79 fields and 24 assisting players. */
#define ZDEM_S2_EVENT_MAX_KEYS 112

typedef struct zdem_s2_event_key {
    const char *name;
    uint32_t name_len;
    zdem_s2_value value;
} zdem_s2_event_key;

typedef struct zdem_s2_event {
    zdem_s2_evtype type;
    int32_t tick;
    const char *name;  /* game event name, "chat", or the combat log type */
    uint32_t name_len;
    int32_t event_id;  /* game events: descriptor id */
    uint32_t nkeys;
    zdem_s2_event_key keys[ZDEM_S2_EVENT_MAX_KEYS];
} zdem_s2_event;

/* ---- configuration ------------------------------------------------------- */
typedef zdem_status (*zdem_s2_entity_fn)(void *user, zdem_s2_state *s,
                                         const zdem_s2_entity *e, unsigned ops,
                                         const zdem_s2_fp *changed,
                                         uint32_t nchanged);
typedef zdem_status (*zdem_s2_event_fn)(void *user, zdem_s2_state *s,
                                        const zdem_s2_event *ev);
typedef zdem_status (*zdem_s2_tick_fn)(void *user, zdem_s2_state *s,
                                       int32_t tick);
/* Every outer frame, in order. payload is NULL unless the frame's command
 * is in cfg.frame_payloads (then it is the decompressed payload, valid
 * for the call). */
typedef zdem_status (*zdem_s2_frame_hook)(void *user, zdem_s2_state *s,
                                          const zdem_s2_outer *m,
                                          const uint8_t *payload, size_t size);

/* zdem_s2_config.plan_cache's default: 256 plans (about 270 KiB). */
#define ZDEM_S2_PLAN_CACHE_DEFAULT 256u

/* Everything a run uses comes from the arena given to zdem_s2_state_init;
 * these sizes fix its parts (zdem_s2_state_fixed_size adds them up). */
typedef struct zdem_s2_config {
    uint32_t max_entities;    /* entity index limit (default 16384) */
    uint32_t max_field_paths; /* per entity update (default 8192) */
    uint32_t tmp_size;        /* string-table decompression buffer (default 4 MiB) */
    size_t frame_buffer;      /* largest decompressed frame payload (default
                                 ZDEM_S2_FRAME_BUFFER_DEFAULT); also the
                                 buffer for unaligned inner messages */
    size_t gather_buffer;     /* push input: largest frame split across
                                 pieces, larger ones are skipped (default
                                 ZDEM_S2_FRAME_BUFFER_DEFAULT; 0 when only
                                 whole files are given, which never
                                 gather) */
    uint64_t hash_seed;       /* seeds the hash tables (0: built-in) */
    int skip_entities;        /* do not decode PacketEntities */
    int skip_events;          /* do not decode game events / chat / combat log */
    int entities_in_wire_order; /* a packet's entities where they come in it,
                                   not after its other messages: an event
                                   sees the entities as the wire has them
                                   at its place (demoparser2's order) */
    uint32_t frame_payloads;  /* bit c: give command c's payload to on_frame */
    uint32_t plan_cache;      /* entity updates whose field-path bits repeat an
                                 earlier update's reuse its plan: how many
                                 plans are kept (default 256, about 1 KiB
                                 each; 0: none, every update reads its paths) */
    void *user;
    zdem_s2_entity_fn on_entity; /* may be NULL */
    zdem_s2_event_fn on_event;   /* may be NULL */
    zdem_s2_tick_fn on_tick;     /* net_Tick and frame ticks; may be NULL */
    zdem_s2_frame_hook on_frame; /* may be NULL */
    /* Events mode (zdem_s2_config_events): SendTables, ClassInfo and full
     * packets are passed over unread (on_frame does not see them), PacketEntities and the inner messages events do
     * not use are stepped over uncopied, and only the userinfo and
     * CombatLogNames string tables are decompressed and kept. */
    int events_only;
    size_t inner_buffer;      /* unaligned inner messages (0: frame_buffer) */
    /* Work budget per input byte (0: the default, ZDEM_S2_WORK_*_DEFAULT
     * in source2_demo.h). After n bytes of input a run has done at most,
     * per byte of n + ZDEM_S2_WORK_SLACK: max_expand_per_byte bytes
     * decompressed (frames, string-table data and values),
     * max_items_per_byte inner-message headers and string-table entries
     * read, max_fields_per_byte entity field values decoded (class
     * baselines included). So compact data cannot multiply the work (a
     * table created again and again from nested Snappy, frames of nothing
     * that are millions of empty messages). What would go over is skipped
     * (the frame, the rest of a packet, of a table message or of an entity
     * message, an entity's baseline) with a work_limit warning; the run
     * goes on. The corpus needs far less: see README, Memory. */
    uint32_t max_expand_per_byte;
    uint32_t max_items_per_byte;
    uint32_t max_fields_per_byte;
} zdem_s2_config;

void zdem_s2_config_default(zdem_s2_config *cfg);

/* Events mode with memory for a microcontroller: ZDEM_S2_EVENTS_FRAME_BUFFER
 * for the largest packet, 64 KiB for an unaligned inner message and for a
 * string table's data, 128 KiB to gather a frame split across pieces, one
 * entity slot. Every corpus demo runs in at most 1 MiB of arena with it
 * (tests/test_source2_events_mode.c). Anything larger is skipped and
 * reported (frame_limit, table_limit), never silent. */
#define ZDEM_S2_EVENTS_FRAME_BUFFER ((size_t)256 << 10)
void zdem_s2_config_events(zdem_s2_config *cfg);

/* Counters of what was decoded; fallbacks and damage are warnings
 * (zdem_s2_state_warnings). */
typedef struct zdem_s2_stats {
    uint32_t serializers, fields, classes, string_tables;
    uint64_t entity_updates, fields_decoded, events, created, deleted;
    uint64_t frames, inner_messages;
    uint64_t frames_unread;   /* passed over by events mode */
    uint64_t plans_reused;    /* field-path reads (entity creates, updates,
                                 class baselines) whose plan came from the
                                 plan cache (zdem_s2_config.plan_cache) */
    const char *first_unknown_type; /* a static-lifetime pointer into the arena */
    uint32_t first_unknown_type_len;
} zdem_s2_stats;

typedef struct zdem_s2_usage {
    size_t arena_used;  /* now */
    size_t arena_peak;  /* high-water mark: the arena this demo needs */
    uint32_t max_entity_index; /* highest entity index seen + 1 */
    uint32_t max_field_paths;  /* most field paths in one update */
    size_t max_frame;          /* largest decompressed payload decoded */
    /* the work budget (zdem_s2_config.max_*_per_byte): the input read
     * (the end of the last frame) and the work done on it, by kind */
    uint64_t input_bytes;
    uint64_t work[ZDEM_S2_WORK_KINDS];
} zdem_s2_usage;

/* Bytes of arena the fixed part of the state takes for cfg (buffers,
 * entity slots); the rest holds serializers, tables and entity values. */
size_t zdem_s2_state_fixed_size(const zdem_s2_config *cfg);

/* Initializes the state in arena (8-byte aligned is best). */
zdem_status zdem_s2_state_init(zdem_s2_state **out, void *arena,
                               size_t arena_size, const zdem_s2_config *cfg,
                               zdem_error *err);

/* ---- feeding ---------------------------------------------------------------
 * One forward pass; every frame is read once, in order. Damage is skipped
 * where the format allows (a frame, an inner message, the rest of a
 * packet) and counted in the warnings; the run's result is then the
 * truncation (a cut frame, no DEM_Stop) or else the first damage, after
 * everything else has been delivered. Only a callback's error stops a run
 * early. */

/* Push input: pieces of any size. */
zdem_status zdem_s2_state_feed(zdem_s2_state *s, const uint8_t *data, size_t n,
                               zdem_error *err);
zdem_status zdem_s2_state_end(zdem_s2_state *s, zdem_error *err);
/* Push input: game frames after the last one at or before stop_tick are
 * framed but not decoded (as zdem_s2_state_run's stop_tick; -1: none). */
void zdem_s2_state_stop_at(zdem_s2_state *s, int64_t stop_tick);

/* A whole file (through the same code). stop_tick >= 0 stops decoding game
 * frames after the last one at or before that tick. */
zdem_status zdem_s2_state_run(zdem_s2_state *s, const uint8_t *file,
                              size_t size, int64_t stop_tick, zdem_error *err);

/* Seeking in a whole file: set-up frames, then a jump to the last
 * DEM_FullPacket at or before tick (frames in between are only framed),
 * then forward to tick. Without a usable full packet: a plain run. */
zdem_status zdem_s2_state_seek(zdem_s2_state *s, const uint8_t *file,
                               size_t size, int64_t tick, zdem_error *err);

/* One outer frame with its (decompressed) payload, for callers that frame
 * the file themselves. Damage goes to the warnings, as above; returns
 * non-OK only when a callback stopped the run. */
zdem_status zdem_s2_state_frame(zdem_s2_state *s, const zdem_s2_outer *m,
                                const uint8_t *payload, size_t size,
                                zdem_error *err);

/* ---- queries ------------------------------------------------------------- */
int32_t zdem_s2_state_tick(const zdem_s2_state *s);
void zdem_s2_state_stats(const zdem_s2_state *s, zdem_s2_stats *out);
void zdem_s2_state_usage(const zdem_s2_state *s, zdem_s2_usage *out);
const zdem_s2_warnings *zdem_s2_state_warnings(const zdem_s2_state *s);
/* The demo header (valid once the first 16 bytes went through). */
const zdem_s2_header *zdem_s2_state_header(const zdem_s2_state *s);
/* 1 when the push input so far is a whole demo (zdem_s2_push_complete):
 * a reader following a file still being written stops there. */
int zdem_s2_state_complete(const zdem_s2_state *s);

uint32_t zdem_s2_class_count(const zdem_s2_state *s);
uint32_t zdem_s2_serializer_count(const zdem_s2_state *s);
/* Class name for a class id (NULL if unknown). */
const char *zdem_s2_class_name(const zdem_s2_state *s, int32_t class_id,
                               uint32_t *len);

uint32_t zdem_s2_string_table_count(const zdem_s2_state *s);
/* Name (NUL-terminated) and length of table i: its highest entry index + 1
 * (entries in between may be absent in a crafted table). */
const char *zdem_s2_string_table_info(const zdem_s2_state *s, uint32_t i,
                                      uint32_t *entries);
const char *zdem_s2_string_table_name(const zdem_s2_state *s, uint32_t i,
                                      uint32_t *name_len);
/* Entry at index j of table i: key and value views (NULL when absent);
 * 0 when the table has no entry at j. */
int zdem_s2_string_table_entry(const zdem_s2_state *s, uint32_t i, uint32_t j,
                               const uint8_t **key, uint32_t *key_len,
                               const uint8_t **val, uint32_t *val_len);
/* Calls fn for every entry of table i in index order; tmp (cap uint32s,
 * at least the entry count) holds the ordering. */
typedef int (*zdem_s2_entry_fn)(void *user, uint32_t index, const uint8_t *key,
                                uint32_t key_len, const uint8_t *val,
                                uint32_t val_len);
zdem_status zdem_s2_string_table_each(const zdem_s2_state *s, uint32_t i,
                                      zdem_s2_entry_fn fn, void *user,
                                      uint32_t *tmp, uint32_t cap,
                                      zdem_error *err);
/* Table index by name, or -1. */
int zdem_s2_string_table_find(const zdem_s2_state *s, const char *name);

/* Entities: count of live ones and iteration by index. */
uint32_t zdem_s2_entity_count(const zdem_s2_state *s);
uint32_t zdem_s2_entity_limit(const zdem_s2_state *s);
/* The indexes of the live entities, ascending, into out (cap of them);
 * returns how many there are (more than cap: call again bigger). Costs
 * what the live entities cost, not the entity limit. */
uint32_t zdem_s2_entities_live(const zdem_s2_state *s, uint32_t *out, uint32_t cap);
/* 1 and *e filled when index holds a live entity. */
int zdem_s2_entity_get(const zdem_s2_state *s, int32_t index, zdem_s2_entity *e);
/* The class id of the live entity at index, or -1: zdem_s2_entity_get's
 * class_id alone (row makers ask it for every row). */
int32_t zdem_s2_entity_class(const zdem_s2_state *s, int32_t index);

/* Property by name: "m_iHealth", "CBodyComponent.m_cellX",
 * "m_vecPlayerData.3.m_iszPlayerName". 1 = found. */
int zdem_s2_entity_prop(const zdem_s2_state *s, int32_t index,
                        const char *name, zdem_s2_value *out);
/* The field path a property name has in a class (resolve once, then read
 * every entity of that class with zdem_s2_entity_prop_fp). 1 = found. */
int zdem_s2_class_prop_fp(const zdem_s2_state *s, int32_t class_id,
                          const char *name, zdem_s2_fp *fp);
/* Value at a field path (as given to the entity callback). 1 = found. */
int zdem_s2_entity_prop_fp(const zdem_s2_state *s, int32_t index,
                           const zdem_s2_fp *fp, zdem_s2_value *out);
/* Calls fn for every stored property of an entity, in field-path order,
 * with the dotted property name (name_len bytes: names may hold any byte);
 * tmp (tmp_cap words) holds the ordering. */
typedef int (*zdem_s2_prop_fn)(void *user, const char *name, size_t name_len,
                               const zdem_s2_value *v);
zdem_status zdem_s2_entity_props(const zdem_s2_state *s, int32_t index,
                                 zdem_s2_prop_fn fn, void *user,
                                 uint64_t *tmp, uint32_t tmp_cap,
                                 zdem_error *err);
/* Dotted name of the field at fp in an entity's class (into buf). */
size_t zdem_s2_fp_name(const zdem_s2_state *s, int32_t class_id,
                       const zdem_s2_fp *fp, char *buf, size_t cap);

/* Game event descriptor count (CMsgSource1LegacyGameEventList). */
uint32_t zdem_s2_event_descriptor_count(const zdem_s2_state *s);
/* Name of descriptor i (NULL when it has none). */
const char *zdem_s2_event_descriptor_name(const zdem_s2_state *s, uint32_t i, uint32_t *len);
/* The event names that come without a descriptor (chat, server_cvar,
 * fire_bullets, the combat-log types, ...): name i, NULL past the last. */
const char *zdem_s2_event_fixed_name(uint32_t i);
/* The first of names[0..n) that no event of this demo can have (not a
 * descriptor's name, a fixed name or a type: game_event, chat,
 * combat_log), or -1. Call once the descriptor list has come. */
int32_t zdem_s2_event_names_check(const zdem_s2_state *s, const char *const *names, uint32_t n);
/* "unknown event 'X'; did you mean 'a', 'b'?" into buf (see zdem_near.h);
 * returns its length. */
size_t zdem_s2_event_name_message(const zdem_s2_state *s, const char *bad, char *buf, size_t cap);

/* ---- names of classes and properties ------------------------------------- */
/* Class ids are 0 .. zdem_s2_class_id_limit() - 1 (an id may have no
 * class: zdem_s2_class_name is NULL). */
uint32_t zdem_s2_class_id_limit(const zdem_s2_state *s);
/* Class id of a class name, or -1. */
int32_t zdem_s2_class_find(const zdem_s2_state *s, const char *name, size_t len);
/* "unknown class 'X'; did you mean 'a', 'b'?" into buf; returns its length. */
size_t zdem_s2_class_message(const zdem_s2_state *s, const char *bad, char *buf, size_t cap);
/* Every property name a class's serializer defines, dotted as
 * zdem_s2_entity_props names them, with the field's type string: a vector
 * also as NAME.0 .. NAME.n-1, a fixed array as its elements NAME.0 ..,
 * a variable-length array (or array of structs) as its count NAME and its
 * element NAME.0 (any index reads), a pointer or component as its
 * presence NAME and its fields NAME.field. fn returns nonzero to stop. Returns
 * 0, 1 when fn stopped, -1 when the class had more than 2^20 names (the
 * rest not listed). */
typedef int (*zdem_s2_name_fn)(void *user, const char *name, size_t len, const char *type,
                               size_t type_len);
int zdem_s2_class_prop_names(const zdem_s2_state *s, int32_t class_id, zdem_s2_name_fn fn,
                             void *user);
/* The descriptor's type of key i of a game event: 1 string, 2 float,
 * 3 long, 4 short, 5 byte, 6 bool, 7 uint64, 8 an entity handle, 9 a
 * player slot; 0 when unknown (no descriptor, not a game event). */
int zdem_s2_event_key_type(const zdem_s2_state *s, const zdem_s2_event *ev, uint32_t i);

/* Player names, in one pass: Dota's player resource, else player
 * controllers (CS2, Deadlock) in entity order, else the userinfo string
 * table in index order (tmp, cap uint32s, orders it). Returns the count. */
typedef int (*zdem_s2_player_fn)(void *user, const uint8_t *name, uint32_t len);
uint32_t zdem_s2_players(const zdem_s2_state *s, zdem_s2_player_fn fn,
                         void *user, uint32_t *tmp, uint32_t cap);

/* The same players with what each source knows of them (the shape
 * `zdem info --json` prints for every format): slot (the controller's
 * entity index - 1, as the userinfo table numbers its entries; -1: a Dota
 * player id without a controller), the controller's entity index (-1:
 * none), SteamID and team number when the source has them. */
typedef struct zdem_s2_player_entry {
    int32_t slot;
    int32_t entity;
    const uint8_t *name;
    uint32_t name_len;
    uint8_t has_steamid, has_team;
    uint64_t steamid;
    int64_t team;
} zdem_s2_player_entry;
typedef int (*zdem_s2_player_list_fn)(void *user, const zdem_s2_player_entry *p);
uint32_t zdem_s2_player_list(const zdem_s2_state *s, zdem_s2_player_list_fn fn,
                             void *user, uint32_t *tmp, uint32_t cap);
#ifdef __cplusplus
}
#endif

#endif
