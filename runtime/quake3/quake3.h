/* Quake III Arena / Quake Live demo reader (.dm_66 .. .dm_91).
 *
 * Two levels:
 *  - framing (zdem_q3_reader): the file is a list of blocks
 *    [int32 sequence][int32 length][length bytes], ended by -1/-1;
 *  - messages (zdem_q3_parser): each block is one server message, Huffman
 *    coded; the parser keeps the gamestate (configstrings, baselines), the
 *    snapshot ring (32 deep by default) and the entity states needed for
 *    delta decoding, and reports snapshots, server commands and game
 *    events to callbacks.
 *
 * All memory is the caller's: zdem_q3_parser_size() bytes (the defaults)
 * or zdem_q3_parser_size_for(&limits), any alignment.
 * Nothing is allocated. Every error is reported with the byte offset in
 * the file (framing) or the bit offset inside the message. */
#ifndef ZDEM_QUAKE3_H
#define ZDEM_QUAKE3_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"
#include "quake3_tables.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZDEM_Q3_MAX_MSGLEN 16384
#define ZDEM_Q3_MAX_CONFIGSTRINGS 1024
#define ZDEM_Q3_GENTITYNUM_BITS 10
#define ZDEM_Q3_MAX_GENTITIES 1024
#define ZDEM_Q3_ENTITYNUM_NONE 1023
#define ZDEM_Q3_ENTITYNUM_WORLD 1022
#define ZDEM_Q3_MAX_CLIENTS 64
#define ZDEM_Q3_MAX_LOCATIONS 64
#define ZDEM_Q3_PACKET_BACKUP 32
/* ioquake3's limit on how far back (in entity states) a delta source may
 * lie before it counts as too old; kept for the same validity rule. */
#define ZDEM_Q3_MAX_PARSE_ENTITIES 8192
/* Entity states shared by the snapshot ring; when full, the oldest ring
 * snapshots stop being delta sources. */
#define ZDEM_Q3_ENTITY_POOL 2048
/* Baselines are kept as the gamestate sent them (their bits, 3 bytes of
 * header each) and decoded when an entity enters a snapshot: one
 * gamestate message is at most 16384 bytes. */
#define ZDEM_Q3_BASELINE_STORE (ZDEM_Q3_MAX_MSGLEN + 3 * ZDEM_Q3_MAX_GENTITIES)
#define ZDEM_Q3_MAX_SNAPSHOT_ENTITIES 256
#define ZDEM_Q3_MAX_STRING_CHARS 1024
#define ZDEM_Q3_BIG_INFO_STRING 8192
/* MAX_GAMESTATE_CHARS: the client errors out when the configstrings of a
 * gamestate, each with its NUL, plus one byte, pass 16000 (Quake III and
 * the Quake Live clients alike); the parser warns and drops a string
 * that would pass it. */
#define ZDEM_Q3_GAMESTATE_CHARS 16000
/* The store appends each new value (a 4-byte record header, the text, a
 * NUL) and compacts when full. Twice the largest live content, so every
 * compaction frees at least half the store: linear work in the input. */
#define ZDEM_Q3_CS_STORE (2 * (ZDEM_Q3_GAMESTATE_CHARS + 4 * ZDEM_Q3_MAX_CONFIGSTRINGS))

/* ------------------------------------------------------------ framing */
typedef struct zdem_q3_frame {
    int32_t sequence;     /* server message sequence number */
    const uint8_t *data;  /* payload, inside the caller's buffer */
    size_t len;
    uint64_t offset;      /* file offset of the 8-byte block header */
    uint32_t index;       /* 0-based message number */
} zdem_q3_frame;

typedef struct zdem_q3_reader {
    const uint8_t *data;
    size_t size;
    size_t pos;
    uint32_t index;       /* whole messages delivered so far */
    int ended;            /* the -1/-1 end marker was read */
    size_t trailing;      /* bytes after the end marker (not an error) */
} zdem_q3_reader;

void zdem_q3_reader_init(zdem_q3_reader *r, const uint8_t *data, size_t size);
/* ZDEM_OK and *got = 1: a message in *f. ZDEM_OK and *got = 0: end marker
 * (r->trailing tells about bytes after it). Otherwise an error at a file
 * offset; r->index is the number of whole messages before it:
 * ZDEM_ERR_TRUNCATED (file ends without the end marker, inside a header,
 * or inside a payload) or ZDEM_ERR_BAD_LENGTH (length < 0 or > 16384). */
zdem_status zdem_q3_reader_next(zdem_q3_reader *r, zdem_q3_frame *f, int *got,
                                zdem_error *err);

/* ------------------------------------------------------------ parser */
typedef struct zdem_q3_snapshot {
    int32_t valid;          /* decoded from a valid delta source */
    int32_t message_num;    /* sequence of the message carrying it */
    int32_t delta_num;      /* message_num of the delta source, -1: none */
    int32_t server_time;
    int32_t snap_flags;
    int32_t server_command_num;
    int32_t num_entities;
    int32_t first_entity;   /* internal: ring slot of the entity list */
    int32_t parse_index;    /* internal: entity states parsed before it */
    uint8_t areamask_len;
    uint8_t areamask[32];
    zdem_q3_player ps;
} zdem_q3_snapshot;

typedef enum zdem_q3_event_type {
    ZDEM_Q3_EV_OBITUARY,    /* EV_OBITUARY entity event */
    ZDEM_Q3_EV_CHAT,        /* "chat": said to everyone */
    ZDEM_Q3_EV_TCHAT,       /* team message: "tchat", CPMA "mm2" (chat_kind) */
    ZDEM_Q3_EV_PRINT,       /* "print" */
    ZDEM_Q3_EV_CENTERPRINT, /* "cp" */
    ZDEM_Q3_EV_SCORES,      /* "scores"/CS_SCORES1/2 update */
    ZDEM_Q3_EV_COUNT
} zdem_q3_event_type;

/* The command form a chat line came in (UberDemoTools counts these three;
 * its chat list is the reference the tests compare with). */
typedef enum zdem_q3_chat_kind {
    ZDEM_Q3_CHAT_NONE,      /* not a chat event */
    ZDEM_Q3_CHAT_SAY,       /* chat "text" */
    ZDEM_Q3_CHAT_TEAM,      /* tchat "text" */
    ZDEM_Q3_CHAT_MM2,       /* CPMA team call: mm2 <client> <location> "text" */
    ZDEM_Q3_CHAT_KIND_COUNT
} zdem_q3_chat_kind;

typedef struct zdem_q3_event {
    zdem_q3_event_type type;
    int32_t server_time;   /* latest snapshot time when the event happened */
    uint32_t gamestate;    /* 1-based gamestate number */
    /* obituary */
    int attacker;          /* client number, or -1 for the world */
    int target;
    int mod;               /* means of death, protocol's numbering */
    const char *mod_name;
    const char *attacker_name; /* from the player configstrings; "" if none */
    const char *target_name;
    /* text events: the command's argument, quotes removed (not NUL-safe:
     * use text_len); scores: score1/score2 */
    const char *text;
    size_t text_len;
    int32_t command_seq;
    int32_t score1, score2;
    /* chat: the command form; for mm2 also the sender (client number,
     * name in attacker_name) and the location (CPMA's location
     * configstrings, "" if unset); client is -1 when the form has none */
    zdem_q3_chat_kind chat_kind;
    int client;
    const char *location;
    size_t location_len;
} zdem_q3_event;

struct zdem_q3_parser;
typedef struct zdem_q3_parser zdem_q3_parser;

/* Callbacks may be NULL. A nonzero return stops parsing with
 * ZDEM_ERR_ABORTED. Strings passed in are valid during the call only. */
typedef struct zdem_q3_callbacks {
    int (*gamestate)(void *user, const zdem_q3_parser *p);
    int (*snapshot)(void *user, const zdem_q3_parser *p, const zdem_q3_snapshot *s);
    int (*server_command)(void *user, const zdem_q3_parser *p, int32_t seq,
                          const char *cmd, size_t len);
    int (*event)(void *user, const zdem_q3_parser *p, const zdem_q3_event *ev);
    /* Non-fatal problems (delta from an invalid frame, configstring store
     * full, ...): static message, bit offset in the current message. */
    int (*warning)(void *user, const zdem_q3_parser *p, const zdem_error *w);
} zdem_q3_callbacks;

/* Memory limits, chosen at init (zdem_q3_parser_size_for). Storage grows
 * with them, not with what the format could hold. A demo that passes one
 * is reported with a warning naming the limit ("limit max_...") at the
 * bit offset where it happened, counted by zdem_q3_limit_hits:
 *  - entity_states: pool of decoded entity states (236 bytes each) of the
 *    ring snapshots; a full pool drops the oldest ring snapshots as delta
 *    sources;
 *  - snapshot_ring: snapshots kept as delta sources (a power of two, at
 *    most 32); a snapshot whose delta base fell out of it is dropped, as
 *    the game drops one whose base is too old;
 *  - snapshot_entities: entities in one snapshot (at most 256); a larger
 *    snapshot fails its message (damaged, skipped);
 *  - configstring_store: bytes of configstring text (each value takes 4
 *    bytes of header, its text and a NUL; a big configstring being sent
 *    in pieces waits at the top); a value that does not fit is dropped;
 *  - baseline_store: bytes of a gamestate's baselines as sent (3 bytes of
 *    header and the bits of each); baselines that do not fit drop the
 *    gamestate's snapshots;
 *  - baseline_cache: decoded baselines kept (a power of two, at most 1024,
 *    by entity number; 0: none), so an entity that enters snapshots again
 *    and again is not decoded from its bits each time. Speed only: any
 *    value gives the same output. */
typedef struct zdem_q3_limits {
    uint32_t entity_states;
    uint32_t snapshot_ring;
    uint32_t snapshot_entities;
    uint32_t configstring_store;
    uint32_t baseline_store;
    uint32_t baseline_cache;
} zdem_q3_limits;

/* Today's (the game's) bounds: 2048 states, 32 ring snapshots, 256
 * entities per snapshot, twice the largest gamestate, a whole gamestate
 * message of baselines; CACHE decoded baselines. */
#define ZDEM_Q3_LIMITS_DEFAULT {ZDEM_Q3_ENTITY_POOL, ZDEM_Q3_PACKET_BACKUP, \
    ZDEM_Q3_MAX_SNAPSHOT_ENTITIES, ZDEM_Q3_CS_STORE, ZDEM_Q3_BASELINE_STORE, 256u}
/* A microcontroller: what the corpus needs (README "Microcontrollers"):
 * at most 93 entities a snapshot, deltas at most 8 messages back for most
 * demos, at most 9.2 KB of configstrings and SMALLBASE bytes of baselines. */
#define ZDEM_Q3_LIMITS_SMALL {192u, 8u, 128u, 12288u, 6144u, 0u}

void zdem_q3_limits_default(zdem_q3_limits *lim);
void zdem_q3_limits_small(zdem_q3_limits *lim);

/* Bytes the caller provides for a parser (includes alignment slack):
 * at the default limits, or at lim (clamped as init clamps it). */
size_t zdem_q3_parser_size(void);
size_t zdem_q3_parser_size_for(const zdem_q3_limits *lim);

/* protocol: 66, 67, 68, 71, 73, 90 or 91; 0 = take it from the first
 * gamestate's serverinfo "protocol" key. 3 and 48 (and anything else) give
 * ZDEM_ERR_UNSUPPORTED. Returns NULL if mem is too small or the protocol
 * is unsupported (err says which). */
zdem_q3_parser *zdem_q3_parser_init(void *mem, size_t size, int protocol,
                                    const zdem_q3_callbacks *cb, void *user,
                                    zdem_error *err);
/* The same with limits (NULL: the defaults); mem of at least
 * zdem_q3_parser_size_for(lim) bytes. */
zdem_q3_parser *zdem_q3_parser_init_limits(void *mem, size_t size, int protocol,
                                           const zdem_q3_limits *lim,
                                           const zdem_q3_callbacks *cb, void *user,
                                           zdem_error *err);

/* Parse one message (one framing block). On error err->offset counts bits
 * inside the message (offset_is_bits = 1); what the message delivered
 * before the fault stands. The parser stays usable: the caller may go on
 * with the next message (a damaged one is dropped as the game drops it:
 * snapshots that delta from it are dropped, with a warning, until a valid
 * base or an uncompressed snapshot arrives; a damaged gamestate is
 * delivered with what was read before the damage, and its snapshots are
 * dropped until the next gamestate). ZDEM_ERR_ABORTED (a
 * callback asked to stop) is not damage. */
zdem_status zdem_q3_parse_message(zdem_q3_parser *p, const zdem_q3_frame *f,
                                  zdem_error *err);

/* The parser's message copy, for a caller that gathers a message of len
 * (at most 16384) bytes itself and then parses it with f->data pointing
 * here: no copy, no second buffer (the push input does this). */
uint8_t *zdem_q3_message_buffer(zdem_q3_parser *p, size_t len);

/* Walk a whole file: framing + every message. A damaged message is
 * skipped and the walk goes on with the next; a framing error or a
 * callback abort ends it. Returns the first fault, with err->offset a
 * file offset (offset_is_bits = 0) even for a fault inside a message. */
zdem_status zdem_q3_parse_file(zdem_q3_parser *p, const uint8_t *data, size_t size,
                               zdem_q3_reader *r, zdem_error *err);

/* ------------------------------------------------------------ accessors */
int zdem_q3_protocol(const zdem_q3_parser *p);          /* 0 until known */
const zdem_q3_protocol_info *zdem_q3_protocol_info_of(const zdem_q3_parser *p);
int32_t zdem_q3_client_num(const zdem_q3_parser *p);
int32_t zdem_q3_checksum_feed(const zdem_q3_parser *p);
int32_t zdem_q3_server_command_sequence(const zdem_q3_parser *p);
uint32_t zdem_q3_gamestate_count(const zdem_q3_parser *p);
/* 1 when the current gamestate was damaged part way: the gamestate
 * callback then has what was read before the damage (configstrings,
 * whole baselines; client number -1), its message fails after it, and
 * its snapshots are dropped until the next gamestate. */
int zdem_q3_gamestate_damaged(const zdem_q3_parser *p);
uint32_t zdem_q3_baseline_count(const zdem_q3_parser *p);   /* current gamestate */
uint32_t zdem_q3_snapshot_count(const zdem_q3_parser *p);   /* valid snapshots */
uint32_t zdem_q3_invalid_snapshot_count(const zdem_q3_parser *p);
/* ZEQ2-Lite demos (gamename "ZEQ2"): the mod's netfields are not known, so
 * snapshots are reported with their header only (valid = 0, no entities). */
uint32_t zdem_q3_time_only_snapshot_count(const zdem_q3_parser *p);
/* Largest configstring content of any gamestate so far, counted as the
 * client counts it against MAX_GAMESTATE_CHARS (1 + each string and its
 * NUL), and the strings dropped because they would pass it. */
uint32_t zdem_q3_configstring_peak(const zdem_q3_parser *p);
uint32_t zdem_q3_configstrings_dropped(const zdem_q3_parser *p);
/* Messages whose parse failed (damaged: skipped by zdem_q3_parse_file). */
uint32_t zdem_q3_damaged_message_count(const zdem_q3_parser *p);
/* Warnings that named a limit (zdem_q3_limits), and the limits in use. */
uint32_t zdem_q3_limit_hits(const zdem_q3_parser *p);
const zdem_q3_limits *zdem_q3_parser_limits(const zdem_q3_parser *p);
/* Configstring i of the current state (gamestate + "cs" commands), or NULL
 * when unset; *len gets its length. The pointer is valid until the next
 * message is parsed (the store compacts). */
const char *zdem_q3_configstring(const zdem_q3_parser *p, int i, size_t *len);
/* Entity i (0 .. s->num_entities-1) of a snapshot. */
const zdem_q3_entity *zdem_q3_snapshot_entity(const zdem_q3_parser *p,
                                              const zdem_q3_snapshot *s, int i);
/* Baseline of entity number n decoded into the parser's scratch state
 * (valid until the next call or message; callable from callbacks), or
 * NULL if the current gamestate sent none (a delta from it starts from
 * zero). */
const zdem_q3_entity *zdem_q3_baseline(const zdem_q3_parser *p, int n);

/* Value of key in an info string "\k\v\k\v"; NULL if absent. */
const char *zdem_q3_info_value(const char *info, size_t len, const char *key,
                               size_t *vlen);
/* Name of a means of death for a protocol ("rocket splash"); "unknown". */
const char *zdem_q3_mod_name(int protocol, int mod);
const char *zdem_q3_event_type_name(zdem_q3_event_type t);
/* "chat", "tchat", "mm2" ("" for ZDEM_Q3_CHAT_NONE). */
const char *zdem_q3_chat_kind_name(zdem_q3_chat_kind k);

/* Extension-based hint: ".dm_68" -> 68, ".dm3" -> 3; 0 if none. */
int zdem_q3_protocol_from_path(const char *path);

#ifdef __cplusplus
}
#endif

#endif
