/* Source 2 HTTP broadcasts (CS2 GOTV+, Deadlock): the fragments a relay
 * serves (BASE/sync, then BASE/N/start, BASE/N/full, BASE/N/delta), read
 * into a zdem_s2_state as a frame source beside the .dem one.
 *
 * A fragment is a run of records: varuint command, u32le tick, one byte
 * (0), u32le size, then size bytes of payload. A record whose command is 0
 * (no size, no payload) ends the broadcast. DEM_Packet and
 * DEM_SignonPacket payloads are the inner-message bit stream itself (not a
 * CDemoPacket); the other commands' payloads are as in a .dem. The start
 * fragment holds the set-up (signon packets, SendTables, ClassInfo); its
 * records carry tick 0 and are read as the pregame, tick -1, as a .dem's.
 *
 * Fragments go in pieces of any size through the state's push path: a
 * record inside one piece is read in place, one split across pieces is
 * gathered in the state's gather buffer (zdem_s2_config.gather_buffer,
 * which must be set), one larger than that is skipped and reported
 * (frame_limit). Nothing in a fragment, its records or sync.json decides
 * an allocation; a fragment longer than max_fragment stops the broadcast
 * with ZDEM_ERR_LIMIT (a server sending an endless fragment).
 *
 * Offsets in errors and warnings count the bytes of the fragments in the
 * order they were fed, one after another (fragment_start says where the
 * current one began). Damage is as for a .dem: a record that does not
 * decode is skipped; framing that breaks inside a fragment (a bad varint)
 * loses the rest of that fragment only, and the next one is read. */
#ifndef ZDEM_SOURCE2_BROADCAST_H
#define ZDEM_SOURCE2_BROADCAST_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"
#include "zdem_push.h"
#include "source2_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sync ------------------------------------------------------------------
 * BASE/sync: a flat JSON object, e.g. {"tick":7244,"endtick":7424,
 * "maxtick":8504,"rtdelay":19.572,"rcvage":0.511,"fragment":22,
 * "signup_fragment":0,"tps":60,"keyframe_interval":3,"map":"street_test",
 * "protocol":5}. Members not listed here are passed over; an absent
 * integer is -1, an absent number -1.0, an absent string NULL. */
typedef struct zdem_s2_bc_sync {
    int64_t tick, endtick, maxtick;
    int64_t fragment;          /* the first full fragment to read */
    int64_t signup_fragment;   /* where the start fragment is */
    int64_t tps;               /* ticks per second */
    int64_t keyframe_interval; /* seconds between fragments */
    int64_t protocol;          /* 5: the only one known */
    double rtdelay, rcvage;    /* seconds */
    /* views into the JSON text, between the quotes, escapes as they are */
    const char *map;
    uint32_t map_len;
    const char *token_redirect; /* a path prefix for the fragments */
    uint32_t token_redirect_len;
} zdem_s2_bc_sync;

/* Reads sync.json (n bytes, not NUL-terminated). ZDEM_ERR_CORRUPT for
 * text that is not a JSON object, an integer member that is not an
 * integer, or no "fragment"; ZDEM_ERR_UNSUPPORTED for a protocol other
 * than 5. The offset is the byte in the text. */
zdem_status zdem_s2_broadcast_sync(const uint8_t *json, size_t n, zdem_s2_bc_sync *out,
                                   zdem_error *err);

/* ---- fragments --------------------------------------------------------------- */
typedef enum zdem_s2_bc_kind {
    ZDEM_S2_BC_START = 0, /* N/start: the set-up (N: signup_fragment) */
    ZDEM_S2_BC_FULL = 1,  /* N/full: the state at fragment N */
    ZDEM_S2_BC_DELTA = 2  /* N/delta: what happens during fragment N */
} zdem_s2_bc_kind;

/* "start", "full", "delta". */
const char *zdem_s2_bc_kind_name(zdem_s2_bc_kind kind);

/* The largest fragment read by default (a real one is under 1 MB: about
 * 3 s of a 10-player match; the signon fragment about 250 KB). */
#define ZDEM_S2_BC_MAX_FRAGMENT ((uint64_t)64 << 20)

typedef struct zdem_s2_broadcast {
    zdem_push in;          /* records; gathers in the state's gather buffer */
    zdem_s2_state *s;
    uint64_t max_fragment; /* bytes of one fragment (0: no limit) */
    /* the fragment being read */
    zdem_s2_bc_kind kind;
    int64_t fragment;
    int in_fragment;
    int fragment_broken;     /* its framing broke: the rest is passed over */
    uint64_t fragment_start; /* its offset (the bytes of the fragments before) */
    uint64_t fragment_bytes;
    /* what comes next (zdem_s2_broadcast_next) */
    zdem_s2_bc_kind next_kind;
    int64_t next_fragment;
    int64_t first_full;
    int ended;             /* the end record came */
    uint64_t end_at;       /* offset just past it */
    uint64_t after_end;    /* bytes after it, passed over */
    uint64_t fed;          /* bytes of every fragment so far */
    int64_t last_tick;     /* of the last record read (-1: none yet) */
    uint32_t records;      /* records read (the end record included) */
    uint32_t fragments;    /* fragments ended */
    zdem_status failed;    /* a callback's stop or the fragment limit: sticky */
    zdem_error fail_err;
} zdem_s2_broadcast;

/* Starts reading a broadcast into s (freshly initialized, with a gather
 * buffer): the start fragment at sync->signup_fragment (0 when absent),
 * then the full fragment sync->fragment, its delta, the next deltas.
 * ZDEM_ERR_NO_SPACE without a gather buffer, ZDEM_ERR_CORRUPT without a
 * fragment number. */
zdem_status zdem_s2_broadcast_init(zdem_s2_broadcast *b, zdem_s2_state *s,
                                   const zdem_s2_bc_sync *sync, zdem_error *err);

/* The fragment to fetch next: 1 and *kind, *fragment; 0 once the end
 * record came or the broadcast failed. */
int zdem_s2_broadcast_next(const zdem_s2_broadcast *b, zdem_s2_bc_kind *kind,
                           int64_t *fragment);

/* A fragment begins (the previous one, if not ended, ends first). Feeding
 * without a begin begins the one zdem_s2_broadcast_next names. */
zdem_status zdem_s2_broadcast_begin(zdem_s2_broadcast *b, zdem_s2_bc_kind kind,
                                    int64_t fragment, zdem_error *err);
/* Its bytes, in pieces of any size. Returns non-OK only when a callback
 * stopped the run or the fragment went over max_fragment (then every
 * later call returns the same). */
zdem_status zdem_s2_broadcast_feed(zdem_s2_broadcast *b, const uint8_t *data, size_t n,
                                   zdem_error *err);
/* The fragment is complete (a record cut off by its end is damage). */
zdem_status zdem_s2_broadcast_end_fragment(zdem_s2_broadcast *b, zdem_error *err);
/* End of input. The run's result, as zdem_s2_state_end's: a failure,
 * else ZDEM_ERR_TRUNCATED when the end record never came (the broadcast
 * was cut short, or is still live), else the first damage, else OK. */
zdem_status zdem_s2_broadcast_end(zdem_s2_broadcast *b, zdem_error *err);

#ifdef __cplusplus
}
#endif

#endif
