/* Quake III parser internals shared by its files (quake3_frame.c,
 * quake3_messages.c, quake3_configstrings.c, quake3_commands.c,
 * quake3_snapshots.c) and the writer (quake3_write.c). Not installed. */
#ifndef ZDEM_QUAKE3_INT_H
#define ZDEM_QUAKE3_INT_H

#include <stddef.h>
#include <stdint.h>
#include "quake3.h"
#include "quake3_msg.h"

/* svc_ops_e */
enum {
    SVC_BAD, SVC_NOP, SVC_GAMESTATE, SVC_CONFIGSTRING, SVC_BASELINE,
    SVC_SERVERCOMMAND, SVC_DOWNLOAD, SVC_SNAPSHOT, SVC_EOF, SVC_EXTENSION
};

#define PARSER_MAGIC 0x51334450u /* "Q3DP" */

struct zdem_q3_parser {
    /* Everything up to `msgbuf` is zeroed by zdem_q3_parser_init; the
     * buffers from `msgbuf` on (and the parts sized by the limits, after
     * the struct) are set up by clear_gamestate or written before they
     * are read, so init and each gamestate stay cheap. */
    uint32_t magic;
    zdem_q3_limits lim;   /* clamped; ring a power of two */
    uint32_t ring_mask;   /* lim.snapshot_ring - 1 */
    uint32_t limit_hits;  /* warnings that named a limit */
    /* the gamestate's baselines did not all fit the baseline store: its
     * snapshots are dropped (each with a warning) until the next gamestate */
    int baselines_over;
    uint32_t base_bytes;  /* baseline store bytes in use */
    uint32_t evicted;     /* ring slots dropped as delta sources for room */
    int protocol;
    const zdem_q3_protocol_info *proto;
    zdem_q3_callbacks cb;
    void *user;

    int32_t server_command_sequence; /* last command number seen */
    int32_t client_num;
    int32_t checksum_feed;
    uint32_t gamestates;
    uint32_t baselines;
    uint32_t snapshots_valid;
    uint32_t snapshots_invalid;
    int32_t server_time;           /* latest snapshot */
    size_t msgbuf_dirty;           /* msgbuf is zero from here on */
    int32_t message_sequence;      /* current message */
    uint32_t messages_damaged;     /* messages that failed (skipped) */
    /* the last gamestate failed part way: its configstrings and baselines
     * are incomplete, so snapshots are read (to reach the commands after
     * them) but dropped until the next whole gamestate */
    int gamestate_damaged;

    /* configstrings: offsets of the text in cs_data (0 = unset), lengths;
     * cs_used: end of the appended records; cs_live: the content as the
     * client counts it (1 + each live string and its NUL) */
    uint16_t cs_off[ZDEM_Q3_MAX_CONFIGSTRINGS]; /* the store is at most 65535 bytes */
    uint16_t cs_len[ZDEM_Q3_MAX_CONFIGSTRINGS]; /* at most 16000 */
    uint32_t cs_used;
    uint32_t cs_garbage;  /* bytes of replaced records below cs_used */
    uint32_t cs_live;
    uint32_t cs_peak;
    uint32_t cs_dropped;

    /* bcs0/bcs1/bcs2: a big configstring sent in pieces, gathered in the
     * top bcs_len bytes of the store (set_configstring leaves them be) */
    int32_t bcs_index;
    uint32_t bcs_len;
    int bcs_over;         /* a piece did not fit the store: dropped at bcs2 */

    /* ZEQ2-Lite (ioquake3 engine, own netfields): snapshots are read up
     * to their header only (server time, delta, flags) */
    int time_only;
    int no_events;        /* events are not made (a clip's writer takes none) */
    uint32_t snapshots_time_only;

    int32_t parse_entities_num;
    int32_t last_snapshot_message;  /* message_num of the latest valid snapshot */
    int have_snapshot;
    zdem_q3_snapshot cur;

    /* event entities present in the previous valid snapshot: an event
     * fires when its entity appears (as in cgame's CG_CheckEvents) */
    uint64_t event_prev[ZDEM_Q3_MAX_GENTITIES / 64];
    /* which words of event_prev and of each ring slot's ev_bits hold
     * bits (the others read as zero, whatever is in memory): event
     * entities are few, so the sets are copied and compared by these */
    uint16_t prev_nz;
    uint16_t ev_nz[ZDEM_Q3_PACKET_BACKUP];
    int32_t event_src;   /* message_num of the snapshot event_prev is of */
    int event_have;      /* event_src is of this gamestate */
    /* the entities a snapshot changed or removed (entity number | pool
     * slot << 10 | event entity << 30 | removed << 31): a snapshot's
     * event entities are its delta source's (ev_bits) updated with these */
    uint32_t nchg;
    uint32_t chg[2 * ZDEM_Q3_MAX_SNAPSHOT_ENTITIES];
    /* the snapshot being read went over a limit (its entity lists or the
     * entity pool): the rest of it is read, not kept, and it is dropped
     * with a warning naming the limit; the message goes on */
    const char *snap_over;

    /* offset in base_data of each entity's baseline record in the
     * current gamestate, 0xFFFF: none sent (reads as zero) */
    uint16_t base_off[ZDEM_Q3_MAX_GENTITIES];
    uint32_t nfree;
    uint32_t fresh; /* pool slots from here on were never handed out */

    /* The last snapshot's bits in its message, for the writer
     * (quake3_write.c): after its command byte, and its end (set before
     * its callbacks); dm3: its client command sequence. */
    size_t w_snap_start, w_snap_end;
    int32_t w_snap_ccs;

    /* ---- not cleared: written before read */
    /* the message being parsed, zero-padded: the delta decoders read it
     * without bounds checks (quake3_msg.h, ZDEM_Q3_MSG_PAD) */
    uint8_t msgbuf[ZDEM_Q3_MAX_MSGLEN + ZDEM_Q3_MSG_PAD];
    /* a server command (MSG_ReadString's bound); gamestate strings are
     * read straight into the configstring store */
    char str[ZDEM_Q3_MAX_STRING_CHARS];
    zdem_q3_entity base_tmp;   /* a baseline decoded for use */
    char name_a[ZDEM_Q3_MAX_STRING_CHARS], name_t[ZDEM_Q3_MAX_STRING_CHARS];
    /* The parts sized by the limits follow the struct in the caller's
     * memory (carve_limits). Entity states are shared between snapshots:
     * each ring snapshot keeps a list of pool slots, an entity unchanged
     * since the delta source reuses its slot (not a 236-byte copy). */
    zdem_q3_snapshot *snaps;                             /* [ring] */
    uint16_t *snap_nents;                                /* [ring] */
    uint16_t *snap_ents;       /* [ring][snapshot_entities]: SNAP_ENTS */
    /* the entity numbers of those lists, each ended by 0xFFFF: the merge
     * with the next frame walks runs of unchanged entities without
     * touching their states */
    uint16_t *snap_nums;       /* [ring][snapshot_entities + 1]: SNAP_NUMS */
    /* The frame being built: its ring slot's lists (no copy after), or
     * these when that slot is its delta source (a delta of the ring's
     * size), copied once stored */
    uint16_t *build_ents, *build_nums;
    uint16_t cur_ents[ZDEM_Q3_MAX_SNAPSHOT_ENTITIES];
    uint16_t cur_nums[ZDEM_Q3_MAX_SNAPSHOT_ENTITIES];
    /* per ring snapshot: the entity numbers that are event entities in it
     * (written when a valid snapshot is stored, read only from those) */
    uint64_t (*ev_bits)[ZDEM_Q3_MAX_GENTITIES / 64];      /* [ring] */
    uint16_t *free_slots;                                 /* [entity_states] */
    uint32_t *pool_mark;            /* [entity_states / 32]: sweep_pool's marks */
    char *cs_data;                                        /* [configstring_store] */
    uint8_t *base_data;           /* [baseline_store + ZDEM_Q3_MSG_PAD] */
    uint16_t *base_cache_num;     /* [baseline_cache]: entity number, 0xFFFF: empty */
    zdem_q3_entity *base_cache;   /* [baseline_cache]: slot number & (cache - 1) */
    zdem_q3_entity *pool;                                 /* [entity_states] */
};

/* Ring snapshot k's lists, as wide as the limit on entities a snapshot. */
#define SNAP_ENTS(p, k) ((p)->snap_ents + (size_t)(k) * (p)->lim.snapshot_entities)
#define SNAP_NUMS(p, k) ((p)->snap_nums + (size_t)(k) * ((p)->lim.snapshot_entities + 1u))

/* ---- shared between the parser's files (quake3_*.c) */
const zdem_q3_protocol_info *zdem_q3__find_protocol(int protocol);
void zdem_q3__clear_gamestate(zdem_q3_parser *p);
/* A warning through the callback (static message, bit offset); nonzero:
 * the callback asked to stop. _limit names a limit (counted). */
int zdem_q3__warn(zdem_q3_parser *p, zdem_status code, uint64_t bit, const char *msg);
int zdem_q3__warn_limit(zdem_q3_parser *p, uint64_t bit, const char *msg);
size_t zdem_q3__read_string(zdem_q3_parser *p, zdem_q3_msg *m, size_t max, char *dst,
                            size_t cap);
int zdem_q3__parse_int(const char *s, size_t n, int32_t *out);
/* configstrings (quake3_configstrings.c) */
int zdem_q3__set_configstring(zdem_q3_parser *p, int i, const char *s, size_t n);
int zdem_q3__drop_configstring(zdem_q3_parser *p, int i, size_t n);
void zdem_q3__gather_big_configstring(zdem_q3_parser *p, const char *a, size_t an);
int zdem_q3__cs_warn(zdem_q3_parser *p, int r, uint64_t bit);
zdem_status zdem_q3__parse_gamestate(zdem_q3_parser *p, zdem_q3_msg *m, zdem_error *err);
/* server commands (quake3_commands.c) */
const char *zdem_q3__player_name(const zdem_q3_parser *p, int client, char *buf, size_t size);
int zdem_q3__emit_event(zdem_q3_parser *p, zdem_q3_event *ev);
zdem_status zdem_q3__parse_server_command(zdem_q3_parser *p, zdem_q3_msg *m, zdem_error *err);
/* snapshots and baselines (quake3_snapshots.c) */
int zdem_q3__store_baseline(zdem_q3_parser *p, uint32_t num, const zdem_q3_msg *m, size_t b0);
zdem_status zdem_q3__read_delta_entity(zdem_q3_parser *p, zdem_q3_msg *m,
                                       const zdem_q3_entity *from, zdem_q3_entity *to,
                                       int number, zdem_error *err);
zdem_status zdem_q3__parse_snapshot(zdem_q3_parser *p, zdem_q3_msg *m, zdem_error *err);

/* The next framing block (zdem_q3_reader_next), inline in the loops of
 * zdem_q3_parse_file and zdem_q3_cut (a call per message otherwise). */
static inline zdem_status zdem_q3__reader_next(zdem_q3_reader *r, zdem_q3_frame *f, int *got,
                                              zdem_error *err)
{
    size_t left;
    int32_t seq, len;
    *got = 0;
    if (r->ended)
        return ZDEM_OK;
    left = r->size - r->pos;
    if (left == 0)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, r->pos,
                         "file ends without the -1/-1 end marker");
    if (left < 8)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, r->pos,
                         "file ends inside a message header");
    seq = (int32_t)zdem_load_le32(r->data + r->pos);
    len = (int32_t)zdem_load_le32(r->data + r->pos + 4);
    if (seq == -1 || len == -1) {
        /* The engine stops at either -1; anything after is reported only. */
        r->ended = 1;
        r->pos += 8;
        r->trailing = r->size - r->pos;
        return ZDEM_OK;
    }
    if (len < 0 || len > ZDEM_Q3_MAX_MSGLEN)
        return zdem_fail(err, ZDEM_ERR_BAD_LENGTH, r->pos,
                         "message length below 0 or above 16384");
    if ((size_t)len > left - 8)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, r->pos,
                         "message length runs past the end of the file");
    f->sequence = seq;
    f->data = r->data + r->pos + 8;
    f->len = (size_t)len;
    f->offset = r->pos;
    f->index = r->index;
    r->pos += 8 + (size_t)len;
    r->index++;
    *got = 1;
    return ZDEM_OK;
}

#endif
