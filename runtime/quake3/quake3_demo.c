/* Quake III demo framing and message parsing (see quake3.h). The message
 * layout follows seed 002 (Parse_DemoMessage and friends) and ioquake3's
 * cl_parse.c; the netfield decoders are generated (quake3_tables.c). */
#include "quake3.h"
#include "quake3_msg.h"

#include <stddef.h>
#include <string.h>

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

/* ================================================================ framing */

void zdem_q3_reader_init(zdem_q3_reader *r, const uint8_t *data, size_t size)
{
    r->data = data;
    r->size = size;
    r->pos = 0;
    r->index = 0;
    r->ended = 0;
    r->trailing = 0;
}

/* inline in zdem_q3_parse_file's loop (a call per message otherwise) */
static inline zdem_status reader_next(zdem_q3_reader *r, zdem_q3_frame *f, int *got,
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

zdem_status zdem_q3_reader_next(zdem_q3_reader *r, zdem_q3_frame *f, int *got,
                                zdem_error *err)
{
    return reader_next(r, f, got, err);
}

/* ================================================================ parser */

void zdem_q3_limits_default(zdem_q3_limits *lim)
{
    static const zdem_q3_limits d = ZDEM_Q3_LIMITS_DEFAULT;
    *lim = d;
}

void zdem_q3_limits_small(zdem_q3_limits *lim)
{
    static const zdem_q3_limits d = ZDEM_Q3_LIMITS_SMALL;
    *lim = d;
}

/* Limits the parser can work with: the ring a power of two in 2..32 (slots
 * are sequence & mask), at most 256 entities a snapshot (the lists'
 * width), slots below 65535 (uint16 lists; the change log packs a slot
 * in 21 bits), stores of 64 .. 65535 bytes (16-bit offsets). */
static zdem_q3_limits clamp_limits(const zdem_q3_limits *in)
{
    zdem_q3_limits l;
    uint32_t r = 2;
    if (in)
        l = *in;
    else
        zdem_q3_limits_default(&l);
    while (r * 2u <= l.snapshot_ring && r < ZDEM_Q3_PACKET_BACKUP)
        r *= 2u;
    l.snapshot_ring = r;
    if (l.snapshot_entities < 1u)
        l.snapshot_entities = 1u;
    if (l.snapshot_entities > ZDEM_Q3_MAX_SNAPSHOT_ENTITIES)
        l.snapshot_entities = ZDEM_Q3_MAX_SNAPSHOT_ENTITIES;
    if (l.entity_states < 1u)
        l.entity_states = 1u;
    if (l.entity_states > 65535u)
        l.entity_states = 65535u;
    if (l.configstring_store < 64u)
        l.configstring_store = 64u;
    if (l.configstring_store > 65535u) /* 16-bit offsets */
        l.configstring_store = 65535u;
    if (l.baseline_store < 64u)
        l.baseline_store = 64u;
    if (l.baseline_store > 65535u)
        l.baseline_store = 65535u;
    if (l.baseline_cache > ZDEM_Q3_MAX_GENTITIES)
        l.baseline_cache = ZDEM_Q3_MAX_GENTITIES;
    while (l.baseline_cache & (l.baseline_cache - 1u)) /* a power of two (or 0) */
        l.baseline_cache &= l.baseline_cache - 1u;
    return l;
}

static size_t align16(size_t n)
{
    return (n + 15u) & ~(size_t)15u;
}

/* Byte offsets of the limit-sized parts after the struct; returns the
 * total (struct included, alignment slack not). */
static size_t layout(const zdem_q3_limits *l, size_t off[11])
{
    size_t n = align16(sizeof(struct zdem_q3_parser)), r = l->snapshot_ring,
           e = l->entity_states;
    off[0] = n; n = align16(n + r * sizeof(zdem_q3_snapshot));
    off[1] = n; n = align16(n + r * sizeof(uint16_t));
    off[2] = n; n = align16(n + r * sizeof(uint16_t) * l->snapshot_entities);
    off[3] = n; n = align16(n + r * sizeof(uint16_t) * (l->snapshot_entities + 1u));
    off[4] = n; n = align16(n + r * sizeof(uint64_t) * (ZDEM_Q3_MAX_GENTITIES / 64));
    off[5] = n; n = align16(n + e * sizeof(uint16_t));
    off[6] = n; n = align16(n + (e + 31u) / 32u * sizeof(uint32_t));
    off[7] = n; n = align16(n + l->configstring_store);
    off[8] = n; n = align16(n + l->baseline_store + ZDEM_Q3_MSG_PAD);
    off[9] = n; n = align16(n + l->baseline_cache * sizeof(uint16_t));
    off[10] = n; n = align16(n + l->baseline_cache * sizeof(zdem_q3_entity));
    return n + e * sizeof(zdem_q3_entity);
}

size_t zdem_q3_parser_size_for(const zdem_q3_limits *lim)
{
    zdem_q3_limits l = clamp_limits(lim);
    size_t off[11];
    return layout(&l, off) + 16;
}

size_t zdem_q3_parser_size(void)
{
    return zdem_q3_parser_size_for(NULL);
}

static const zdem_q3_protocol_info *find_protocol(int protocol)
{
    int i;
    for (i = 0; i < ZDEM_Q3_PROTOCOL_COUNT; i++)
        if (zdem_q3_protocols[i].protocol == protocol)
            return &zdem_q3_protocols[i];
    return NULL;
}

static void clear_gamestate(zdem_q3_parser *p)
{
    memset(p->cs_off, 0, sizeof p->cs_off);
    memset(p->cs_len, 0, sizeof p->cs_len);
    p->cs_used = 1; /* offset 0 means "unset" */
    p->cs_garbage = 0;
    p->cs_live = 1;
    p->cs_data[0] = 0;
    p->bcs_index = -1;
    p->bcs_len = 0;
    p->bcs_over = 0;
    memset(p->base_off, 0xFF, sizeof p->base_off);
    memset(p->base_cache_num, 0xFF, p->lim.baseline_cache * sizeof p->base_cache_num[0]);
    p->base_bytes = 0;
    p->baselines_over = 0;
    memset(p->snaps, 0, p->lim.snapshot_ring * sizeof p->snaps[0]);
    p->evicted = 0;
    memset(&p->cur, 0, sizeof p->cur);
    p->prev_nz = 0;
    memset(p->ev_nz, 0, sizeof p->ev_nz);
    p->event_have = 0;
    p->baselines = 0;
    p->parse_entities_num = 0;
    p->have_snapshot = 0;
    memset(p->snap_nents, 0, p->lim.snapshot_ring * sizeof p->snap_nents[0]);
    {
        uint32_t k; /* empty lists, ended by their sentinel */
        for (k = 0; k < p->lim.snapshot_ring; k++)
            SNAP_NUMS(p, k)[0] = 0xFFFFu;
    }
    /* every slot is free: handed out in order from `fresh` (no list to
     * fill at each gamestate) until the first sweep */
    p->nfree = 0;
    p->fresh = 0;
    p->last_snapshot_message = 0;
}

zdem_q3_parser *zdem_q3_parser_init(void *mem, size_t size, int protocol,
                                    const zdem_q3_callbacks *cb, void *user,
                                    zdem_error *err)
{
    return zdem_q3_parser_init_limits(mem, size, protocol, NULL, cb, user, err);
}

zdem_q3_parser *zdem_q3_parser_init_limits(void *mem, size_t size, int protocol,
                                           const zdem_q3_limits *lim,
                                           const zdem_q3_callbacks *cb, void *user,
                                           zdem_error *err)
{
    zdem_q3_parser *p;
    uintptr_t a = (uintptr_t)mem;
    zdem_q3_limits l = clamp_limits(lim);
    size_t off[11];
    uint8_t *base;
    if (!mem || size < layout(&l, off) + 16) {
        zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "parser memory smaller than zdem_q3_parser_size_for()");
        return NULL;
    }
    if (protocol != 0 && !find_protocol(protocol)) {
        zdem_fail(err, ZDEM_ERR_UNSUPPORTED, 0,
                  protocol == 43 || protocol == 45
                      ? "unsupported protocol: Quake III 1.11-1.17 demos are read as protocol 3 (.dm3)"
                      : "unsupported protocol");
        return NULL;
    }
    a = (a + 15u) & ~(uintptr_t)15u;
    p = (zdem_q3_parser *)a;
    memset(p, 0, offsetof(struct zdem_q3_parser, msgbuf));
    p->magic = PARSER_MAGIC;
    p->lim = l;
    p->ring_mask = l.snapshot_ring - 1u;
    base = (uint8_t *)p;
    p->snaps = (zdem_q3_snapshot *)(void *)(base + off[0]);
    p->snap_nents = (uint16_t *)(void *)(base + off[1]);
    p->snap_ents = (uint16_t *)(void *)(base + off[2]);
    p->snap_nums = (uint16_t *)(void *)(base + off[3]);
    p->ev_bits = (uint64_t (*)[ZDEM_Q3_MAX_GENTITIES / 64])(void *)(base + off[4]);
    p->free_slots = (uint16_t *)(void *)(base + off[5]);
    p->pool_mark = (uint32_t *)(void *)(base + off[6]);
    p->cs_data = (char *)(base + off[7]);
    p->base_data = base + off[8];
    /* the pad past the records is read by a baseline's decode (never
     * used as its value): defined bytes */
    memset(p->base_data, 0, l.baseline_store + ZDEM_Q3_MSG_PAD);
    p->base_cache_num = (uint16_t *)(void *)(base + off[9]);
    p->base_cache = (zdem_q3_entity *)(void *)(base + off[10]);
    p->pool = (zdem_q3_entity *)(void *)(base + align16(off[10] + l.baseline_cache * sizeof(zdem_q3_entity)));
    p->protocol = protocol;
    p->proto = protocol ? find_protocol(protocol) : NULL;
    if (cb)
        p->cb = *cb;
    p->user = user;
    p->client_num = -1;
    p->checksum_feed = 0;
    p->server_command_sequence = 0;
    p->msgbuf_dirty = sizeof p->msgbuf; /* not cleared: anything */
    clear_gamestate(p);
    return p;
}

/* quake3_msg.h: a float sent in full (flag bit, then four Huffman bytes),
 * read from the parser's padded message copy. */
int32_t zdem_q3__huff_float32(zdem_q3_msg *m)
{
    uint64_t w = zdem_load_le64(m->data + (m->bit >> 3)) >> (m->bit & 7u);
    unsigned used = 1, e, i, bad = 0;
    uint32_t v = 0;
    for (i = 0; i < 4; i++) {
        e = zdem_q3_huff_decode[(w >> used) & 0x7FFu];
        bad |= e;
        v |= (uint32_t)(e & 0xFFu) << (8u * i);
        used += (e >> 8) & 15u;
    }
    m->bad |= bad;
    m->bit += used;
    return (int32_t)v;
}

/* The out-of-line reads of a build for size (quake3_msg.h). */
int32_t zdem_q3__huff_float(zdem_q3_msg *m)
{
    uint64_t w = zdem_load_le64(m->data + (m->bit >> 3)) >> (m->bit & 7u);
    unsigned e;
    if (w & 1u)
        return zdem_q3__huff_float32(m);
    e = zdem_q3_huff_decode[(w >> 6) & 0x7FFu];
    m->bad |= e;
    m->bit += 6u + ((e >> 8) & 15u);
    return zdem_q3__int_float((uint32_t)((w >> 1) & 31u) | ((uint32_t)(e & 0xFFu) << 5));
}

uint32_t zdem_q3__huff_bits(zdem_q3_msg *m, unsigned n)
{
    return zdem_q3_phuff_bits(m, n);
}

/* ---------------------------------------------------------------- strings */

/* MSG_ReadString / MSG_ReadBigString: stops at 0, at the end of the
 * message, or at max - 1 characters; '%' (and bytes > 127 before dm_91)
 * read as '.'. The first cap - 1 characters go to dst (NUL-terminated);
 * the rest are consumed as the game consumes them. Returns the count
 * read: more than cap - 1 means dst holds a cut copy. */
static size_t read_string(zdem_q3_parser *p, zdem_q3_msg *m, size_t max, char *dst,
                          size_t cap)
{
    size_t n = 0;
    int keep_high = p->proto ? p->proto->high_ascii : 0;
    if (!m->raw && m->lim >= m->len + 8u) {
        /* the parser's padded copy: each byte is one table lookup on a
         * local position, the end checked once per byte (strings are most
         * of what server commands cost) */
        const uint8_t *d = m->data;
        size_t bit = m->bit, end = m->end;
        unsigned bad = 0;
        while (n < max - 1) {
            unsigned e = zdem_q3_huff_decode[(zdem_load_le64(d + (bit >> 3)) >> (bit & 7u)) & 0x7FFu];
            uint32_t c = e & 0xFFu;
            bad |= e;
            bit += (e >> 8) & 15u;
            if (bit > end) { /* ran past the end: overflow, as the checked read */
                bit = end + 1u;
                m->overflow = 1;
                break;
            }
            if (c == 0)
                break;
            if (c == '%' || (c > 127 && !keep_high))
                c = '.';
            if (n < cap - 1)
                dst[n] = (char)c;
            n++;
        }
        m->bit = bit;
        m->bad |= bad;
        dst[n < cap - 1 ? n : cap - 1] = 0;
        return n;
    }
    while (n < max - 1) {
        uint32_t c = zdem_q3_read_byte(m);
        if (m->overflow || c == 0)
            break;
        if (c == '%' || (c > 127 && !keep_high))
            c = '.';
        if (n < cap - 1)
            dst[n] = (char)c;
        n++;
    }
    dst[n < cap - 1 ? n : cap - 1] = 0;
    return n;
}

/* ---------------------------------------------------------------- configstrings */

static int warn(zdem_q3_parser *p, zdem_status code, uint64_t bit, const char *msg)
{
    zdem_error w;
    w.code = code;
    w.offset_is_bits = 1;
    w.offset = bit;
    w.msg = msg;
    if (p->cb.warning)
        return p->cb.warning(p->user, p, &w);
    return 0;
}

#define CS_DROPPED_MSG "configstrings over MAX_GAMESTATE_CHARS (16000): value dropped"
#define CS_STORE_MSG "limit max_configstring_store: configstrings over the store, value dropped"

/* A warning that names a limit of zdem_q3_limits (counted). */
static int warn_limit(zdem_q3_parser *p, uint64_t bit, const char *msg)
{
    p->limit_hits++;
    return warn(p, ZDEM_ERR_LIMIT, bit, msg);
}

/* Store records: [u16 index][u16 length][text][NUL]. A replaced value
 * stays in place as garbage until the store fills; compaction then walks
 * the records once and keeps those a configstring still points at. A big
 * configstring arriving in pieces (bcs0..bcs2) is gathered at the top of
 * the store, above the records. */
#define CS_HEAD 4u

/* Bytes free between the records and a pending big configstring. */
static uint32_t cs_room(const zdem_q3_parser *p)
{
    return p->lim.configstring_store - (p->bcs_over ? 0u : p->bcs_len) - p->cs_used;
}

static void compact_configstrings(zdem_q3_parser *p)
{
    uint32_t rd = 1, wr = 1;
    while (rd + CS_HEAD <= p->cs_used) {
        const uint8_t *h = (const uint8_t *)p->cs_data + rd;
        uint32_t idx = h[0] | (uint32_t)h[1] << 8, len = h[2] | (uint32_t)h[3] << 8;
        uint32_t size = CS_HEAD + len + 1u;
        if (idx < ZDEM_Q3_MAX_CONFIGSTRINGS && p->cs_off[idx] == rd + CS_HEAD) {
            memmove(p->cs_data + wr, p->cs_data + rd, size);
            p->cs_off[idx] = (uint16_t)(wr + CS_HEAD);
            wr += size;
        }
        rd += size;
    }
    p->cs_used = wr;
    p->cs_garbage = 0;
}

/* Make room for need bytes by compacting, only when the garbage is enough
 * (a compaction that could not help would be wasted work). */
static int cs_make_room(zdem_q3_parser *p, uint32_t need)
{
    uint32_t room = cs_room(p);
    if (need <= room)
        return 1;
    if (p->cs_garbage < need - room)
        return 0;
    compact_configstrings(p);
    return need <= cs_room(p);
}

/* Configstring i loses its value (the record becomes garbage). */
static void unset_configstring(zdem_q3_parser *p, int i)
{
    if (p->cs_off[i]) {
        p->cs_live -= p->cs_len[i] + 1u;
        p->cs_garbage += CS_HEAD + p->cs_len[i] + 1u;
        p->cs_off[i] = 0;
        p->cs_len[i] = 0;
    }
}

/* A value of n characters would take the content past MAX_GAMESTATE_CHARS
 * (where the client errors out). */
static int over_gamestate_chars(const zdem_q3_parser *p, size_t n)
{
    return n > ZDEM_Q3_GAMESTATE_CHARS || p->cs_live + n + 1u > ZDEM_Q3_GAMESTATE_CHARS;
}

/* A value of n characters that cannot be kept: -1 past
 * MAX_GAMESTATE_CHARS, -2 when it does not fit the store (a limit). */
static int drop_configstring(zdem_q3_parser *p, int i, size_t n)
{
    unset_configstring(p, i);
    p->cs_dropped++;
    return over_gamestate_chars(p, n) ? -1 : -2;
}

/* Store configstring i (replacing any previous value); s may lie in the
 * store above the records (read there, or a gathered big configstring).
 * Returns 0, or -1 / -2 as drop_configstring; the configstring is then
 * left unset. */
static int set_configstring(zdem_q3_parser *p, int i, const char *s, size_t n)
{
    uint32_t need;
    unset_configstring(p, i);
    if (n == 0)
        return 0; /* the engine stores empty strings as unset */
    need = CS_HEAD + (uint32_t)n + 1u;
    /* at the default store the live records fit in half of it */
    if (over_gamestate_chars(p, n) || !cs_make_room(p, need))
        return drop_configstring(p, i, n);
    {
        uint8_t *h = (uint8_t *)p->cs_data + p->cs_used;
        h[0] = (uint8_t)i;
        h[1] = (uint8_t)((unsigned)i >> 8);
        h[2] = (uint8_t)n;
        h[3] = (uint8_t)(n >> 8);
    }
    memmove(p->cs_data + p->cs_used + CS_HEAD, s, n); /* s may be where it goes */
    p->cs_data[p->cs_used + CS_HEAD + n] = 0;
    p->cs_off[i] = (uint16_t)(p->cs_used + CS_HEAD);
    p->cs_len[i] = (uint16_t)n;
    p->cs_used += need;
    p->cs_live += (uint32_t)n + 1u;
    if (p->cs_live > p->cs_peak)
        p->cs_peak = p->cs_live;
    return 0;
}

/* A gamestate configstring (MSG_ReadBigString), read straight into the
 * store where its record goes: no string buffer of 8 KiB. When it does
 * not fit and compaction would free room, the string is read again. */
static int read_gamestate_configstring(zdem_q3_parser *p, zdem_q3_msg *m, int i)
{
    zdem_q3_msg save = *m;
    int pass;
    for (pass = 0;; pass++) {
        uint32_t room = cs_room(p);
        size_t cap = room > CS_HEAD ? room - CS_HEAD : 0u, n;
        char *dst = p->cs_data + p->cs_used + CS_HEAD;
        if (cap > ZDEM_Q3_BIG_INFO_STRING)
            cap = ZDEM_Q3_BIG_INFO_STRING;
        if (cap == 0) {
            dst = p->str;
            cap = 1;
        }
        n = read_string(p, m, ZDEM_Q3_BIG_INFO_STRING, dst, cap);
        if (n < cap)
            return set_configstring(p, i, dst, n);
        if (pass > 0 || p->cs_garbage == 0)
            return drop_configstring(p, i, n);
        compact_configstrings(p);
        *m = save;
    }
}

/* One piece of a big configstring (bcs0/1/2 "index" "piece"), gathered
 * at the top of the store. When it does not fit, the value it replaces at
 * bcs2 is let go early (a small store need not hold both); when it still
 * does not fit, the new value is dropped at bcs2 (a limit). */
static void gather_big_configstring(zdem_q3_parser *p, const char *a, size_t an)
{
    char *top = p->cs_data + p->lim.configstring_store;
    if (p->bcs_over || an == 0) {
        p->bcs_len += (uint32_t)an;
        return;
    }
    if (!cs_make_room(p, (uint32_t)an) && p->cs_off[p->bcs_index])
        unset_configstring(p, p->bcs_index);
    if (!cs_make_room(p, (uint32_t)an)) {
        p->bcs_over = 1; /* the gathered part is given up: dropped at bcs2 */
        p->bcs_len += (uint32_t)an;
        return;
    }
    memmove(top - p->bcs_len - an, top - p->bcs_len, p->bcs_len);
    memcpy(top - an, a, an);
    p->bcs_len += (uint32_t)an;
}

static int cs_warn(zdem_q3_parser *p, int r, uint64_t bit)
{
    if (r == -2)
        return warn_limit(p, bit, CS_STORE_MSG);
    return warn(p, ZDEM_ERR_NO_SPACE, bit, CS_DROPPED_MSG);
}

const char *zdem_q3_configstring(const zdem_q3_parser *p, int i, size_t *len)
{
    if (i < 0 || i >= ZDEM_Q3_MAX_CONFIGSTRINGS || !p->cs_off[i]) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = p->cs_len[i];
    return p->cs_data + p->cs_off[i];
}

const char *zdem_q3_info_value(const char *info, size_t len, const char *key,
                               size_t *vlen)
{
    size_t i = 0, klen = strlen(key);
    if (!info)
        return NULL;
    while (i < len) {
        size_t ks, ke, vs, ve;
        if (info[i] == '\\')
            i++;
        ks = i;
        while (i < len && info[i] != '\\')
            i++;
        ke = i;
        if (i < len)
            i++;
        vs = i;
        while (i < len && info[i] != '\\')
            i++;
        ve = i;
        if (ke - ks == klen && memcmp(info + ks, key, klen) == 0) {
            if (vlen)
                *vlen = ve - vs;
            return info + vs;
        }
    }
    return NULL;
}

static int parse_int(const char *s, size_t n, int32_t *out)
{
    size_t i = 0;
    int neg = 0;
    int64_t v = 0;
    while (i < n && s[i] == ' ')
        i++;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    if (i >= n || s[i] < '0' || s[i] > '9')
        return -1;
    while (i < n && s[i] >= '0' && s[i] <= '9' && v < 100000000000LL)
        v = v * 10 + (s[i++] - '0');
    *out = (int32_t)(neg ? -v : v);
    return 0;
}

/* The protocol from the first serverinfo when the caller gave none. */
static zdem_status resolve_protocol(zdem_q3_parser *p, zdem_error *err, uint64_t bit)
{
    size_t n, vn;
    const char *si, *v;
    int32_t proto;
    if (p->proto)
        return ZDEM_OK;
    si = zdem_q3_configstring(p, 0, &n);
    v = zdem_q3_info_value(si, n, "protocol", &vn);
    if (!v || parse_int(v, vn, &proto) != 0)
        return zdem_fail_bits(err, ZDEM_ERR_UNSUPPORTED, bit,
                              "no protocol given and none in the serverinfo");
    p->proto = find_protocol(proto);
    if (p->proto && p->proto->legacy) {
        /* the messages so far were read as 1.29+: the legacy layout must
         * be known from the start (the file extension) */
        p->proto = NULL;
        return zdem_fail_bits(err, ZDEM_ERR_UNSUPPORTED, bit,
                              "Quake III 1.11-1.27 demos need the protocol (file extension .dm3/.dm_48)");
    }
    if (!p->proto)
        return zdem_fail_bits(err, ZDEM_ERR_UNSUPPORTED, bit, "unsupported protocol");
    p->protocol = proto;
    return ZDEM_OK;
}

/* ---------------------------------------------------------------- entities */

/* A baseline record: [start bit 0..7][u16 bit count][the bits as the
 * gamestate sent them, from that bit of the first byte]. Decoding it
 * again (baseline_of) reads the same bits with the same code, so gives
 * the same state; 236 bytes of state become the 10-40 bytes sent. */
static int store_baseline(zdem_q3_parser *p, uint32_t num, const zdem_q3_msg *m, size_t b0)
{
    size_t nbits = m->bit - b0, sbit = b0 & 7u, nbytes = (sbit + nbits + 7u) >> 3;
    uint32_t need = 3u + (uint32_t)nbytes, at = p->base_off[num];
    uint8_t *r;
    if (nbits > 0xFFFFu)
        return -1;
    if (at != 0xFFFFu) { /* sent twice: in place when it fits */
        const uint8_t *o = p->base_data + at;
        if (need > 3u + ((o[0] + (uint32_t)(o[1] | o[2] << 8) + 7u) >> 3))
            at = 0xFFFFu;
    }
    if (at == 0xFFFFu) {
        if (need > p->lim.baseline_store - p->base_bytes)
            return -1;
        at = p->base_bytes;
        p->base_bytes += need;
    }
    r = p->base_data + at;
    r[0] = (uint8_t)sbit;
    r[1] = (uint8_t)nbits;
    r[2] = (uint8_t)(nbits >> 8);
    memcpy(r + 3, m->data + (b0 >> 3), nbytes);
    p->base_off[num] = (uint16_t)at;
    return 0;
}

/* MSG_ReadDeltaEntity: `from` may alias nothing in `to`. */
static zdem_status read_delta_entity(zdem_q3_parser *p, zdem_q3_msg *m,
                                     const zdem_q3_entity *from, zdem_q3_entity *to,
                                     int number, zdem_error *err)
{
    unsigned lc;
    if (zdem_q3_read_bit(m)) { /* removed */
        memset(to, 0, sizeof *to);
        to->number = ZDEM_Q3_ENTITYNUM_NONE;
        return ZDEM_OK;
    }
    if (from)
        *to = *from;
    else
        memset(to, 0, sizeof *to);
    to->number = number;
    if (!zdem_q3_read_bit(m))
        return ZDEM_OK; /* unchanged */
    if (p->proto->legacy) {
        /* a predefined change mask, or (index 31) the mask itself */
        unsigned k = zdem_q3_raw_bits(m, 5), n = p->proto->entity_fields;
        uint64_t mask;
        if (k == 31) {
            mask = zdem_q3_raw_bits(m, 32);
            mask |= (uint64_t)zdem_q3_raw_bits(m, n - 32u) << 32;
        } else {
            mask = zdem_q3_legacy_masks[k];
        }
        p->proto->legacy_entity(m, to, mask);
        return ZDEM_OK;
    }
    lc = zdem_q3_read_byte(m);
    if (lc > p->proto->entity_fields)
        return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, m->bit,
                              "entity delta: field count above the table size");
    p->proto->delta_entity(m, to, lc);
    return ZDEM_OK;
}

static zdem_status read_gamestate(zdem_q3_parser *p, zdem_q3_msg *m, zdem_error *err)
{
    zdem_status st;
    p->server_command_sequence = zdem_q3_read_long(m);
    for (;;) {
        uint32_t cmd = zdem_q3_read_byte(m);
        if (m->overflow)
            return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, m->bit,
                                  "gamestate runs past the end of the message");
        if (cmd == SVC_EOF || (cmd == SVC_BAD && m->raw))
            break;
        if (cmd == SVC_CONFIGSTRING) {
            int32_t i = (int16_t)zdem_q3_read_bits(m, 16);
            if (i < 0 || i >= ZDEM_Q3_MAX_CONFIGSTRINGS)
                return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, m->bit,
                                      "gamestate: configstring index out of range");
            int r = read_gamestate_configstring(p, m, i);
            if (m->overflow) { /* cut by the end of the message: not kept */
                unset_configstring(p, i);
                return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, m->bit,
                                      "gamestate runs past the end of the message");
            }
            if (r != 0 && cs_warn(p, r, m->bit))
                return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
        } else if (cmd == SVC_BASELINE) {
            uint32_t num = zdem_q3_read_bits(m, ZDEM_Q3_GENTITYNUM_BITS);
            size_t b0;
            st = resolve_protocol(p, err, m->bit);
            if (st != ZDEM_OK)
                return st;
            b0 = m->bit;
            st = read_delta_entity(p, m, NULL, &p->base_tmp, (int)num, err);
            if (st != ZDEM_OK)
                return st;
            if (m->bad & 0x8000u)
                return zdem_fail_bits(err, ZDEM_ERR_HUFFMAN, m->bit, "invalid Huffman code");
            zdem_q3__settle(m);
            if (m->overflow) /* only whole baselines are kept: they decode again alike */
                return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, m->bit,
                                      "gamestate runs past the end of the message");
            /* a number sent twice: its cached decode is stale */
            if (p->lim.baseline_cache && p->base_cache_num[num & (p->lim.baseline_cache - 1u)] == num)
                p->base_cache_num[num & (p->lim.baseline_cache - 1u)] = 0xFFFFu;
            if (store_baseline(p, num, m, b0) != 0) {
                /* the gamestate's snapshots would decode from wrong ones */
                if (!p->baselines_over && warn_limit(p, m->bit,
                        "limit max_baseline_store: baselines over the baseline store, "
                        "snapshots of this gamestate dropped"))
                    return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
                p->baselines_over = 1;
            }
            p->baselines++;
        } else {
            return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, m->bit,
                                  "gamestate: unknown command byte");
        }
    }
    if (m->raw) { /* the legacy gamestate ends here */
        p->client_num = -1;
        p->checksum_feed = 0;
    } else {
        p->client_num = zdem_q3_read_long(m);
        p->checksum_feed = zdem_q3_read_long(m);
    }
    if (m->overflow)
        return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, m->bit,
                              "gamestate runs past the end of the message");
    return resolve_protocol(p, err, m->bit);
}

/* A gamestate damaged part way is delivered with what was read before the
 * damage (configstrings, whole baselines; zdem_q3_gamestate_damaged says
 * so), as UberDemoTools keeps it, and then fails its message; its
 * snapshots are dropped (their baselines may be missing) until the next
 * gamestate. Without a protocol there is nothing to read it by. */
static zdem_status parse_gamestate(zdem_q3_parser *p, zdem_q3_msg *m, zdem_error *err)
{
    zdem_status st;
    zdem_error e2;
    clear_gamestate(p);
    p->gamestate_damaged = 1; /* until it is read whole */
    st = read_gamestate(p, m, err);
    if (st == ZDEM_ERR_ABORTED)
        return st;
    if (st != ZDEM_OK) {
        p->client_num = -1; /* the two longs after the commands were not reached */
        p->checksum_feed = 0;
        if (resolve_protocol(p, &e2, m->bit) != ZDEM_OK)
            return st;
    }
    {
        size_t n, vn;
        const char *si = zdem_q3_configstring(p, 0, &n);
        const char *g = zdem_q3_info_value(si, n, "gamename", &vn);
        p->time_only = g && vn >= 4 && memcmp(g, "ZEQ2", 4) == 0;
    }
    p->gamestate_damaged = st != ZDEM_OK;
    p->gamestates++;
    if (p->cb.gamestate && p->cb.gamestate(p->user, p))
        return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
    return st;
}

/* ---------------------------------------------------------------- server commands */

/* Name of a client from its player configstring ("n\\name\\..."), copied
 * into buf (the store keeps whole info strings). */
static const char *player_name(const zdem_q3_parser *p, int client, char *buf, size_t size)
{
    size_t n, vn;
    const char *cs, *v;
    buf[0] = 0;
    if (client < 0 || client >= ZDEM_Q3_MAX_CLIENTS || !p->proto)
        return buf;
    cs = zdem_q3_configstring(p, p->proto->cs_players + client, &n);
    v = zdem_q3_info_value(cs, n, "n", &vn);
    if (!v)
        return buf;
    if (vn > size - 1)
        vn = size - 1;
    memcpy(buf, v, vn);
    buf[vn] = 0;
    return buf;
}

static int emit_event(zdem_q3_parser *p, zdem_q3_event *ev)
{
    ev->server_time = p->server_time;
    ev->gamestate = p->gamestates;
    if (p->cb.event)
        return p->cb.event(p->user, p, ev);
    return 0;
}

/* Argument of a command: after the first space, surrounding quotes off. */
static void command_arg(const char *s, size_t n, size_t skip, const char **a, size_t *an)
{
    size_t i = skip;
    while (i < n && s[i] == ' ')
        i++;
    if (i < n && s[i] == '"') {
        size_t e = n;
        i++;
        while (e > i && (s[e - 1] == '\n' || s[e - 1] == ' '))
            e--;
        if (e > i && s[e - 1] == '"')
            e--;
        *a = s + i;
        *an = e - i;
        return;
    }
    *a = s + i;
    *an = n - i;
}

/* Scores from configstrings: CS_SCORES1/CS_SCORES2 (6, 7) in baseq3 and
 * OSP; CPMA keeps the two scores as "sb"/"sr" in its round-info
 * configstring 710 (UberDemoTools' CPMA_RoundInfo). */
static int scores_event(zdem_q3_parser *p, int32_t seq, int idx)
{
    zdem_q3_event ev;
    size_t n1, n2;
    const char *s1, *s2;
    memset(&ev, 0, sizeof ev);
    ev.type = ZDEM_Q3_EV_SCORES;
    ev.command_seq = seq;
    ev.attacker = ev.target = ev.client = -1;
    ev.text = "";
    ev.location = "";
    if (idx == 710) {
        size_t n;
        const char *cs = zdem_q3_configstring(p, 710, &n);
        s1 = zdem_q3_info_value(cs, n, "sb", &n1);
        s2 = zdem_q3_info_value(cs, n, "sr", &n2);
        if (!s1 || !s2)
            return 0;
        ev.text = cs;
        ev.text_len = n;
    } else {
        s1 = zdem_q3_configstring(p, 6, &n1);
        s2 = zdem_q3_configstring(p, 7, &n2);
    }
    if (!s1 || parse_int(s1, n1, &ev.score1) != 0)
        ev.score1 = 0;
    if (!s2 || parse_int(s2, n2, &ev.score2) != 0)
        ev.score2 = 0;
    return emit_event(p, &ev);
}

static int is_score_cs(const zdem_q3_parser *p, int idx)
{
    return idx == 6 || idx == 7 || (idx == 710 && p->proto && p->proto->protocol <= 71);
}

/* Apply "cs N "value"" to the configstring store. */
/* "<index> <arg>" after the command word of cs/bcsN: -1 on a bad index. */
static int cs_index_arg(const char *s, size_t n, size_t i, int32_t *idx,
                        const char **a, size_t *an)
{
    while (i < n && s[i] == ' ')
        i++;
    if (parse_int(s + i, n - i, idx) != 0 || *idx < 0 || *idx >= ZDEM_Q3_MAX_CONFIGSTRINGS)
        return -1;
    while (i < n && s[i] != ' ')
        i++;
    command_arg(s, n, i, a, an);
    return 0;
}

static int apply_cs(zdem_q3_parser *p, const char *s, size_t n, size_t skip,
                    int32_t seq, uint64_t bit)
{
    int32_t idx;
    const char *a;
    size_t an;
    if (cs_index_arg(s, n, skip, &idx, &a, &an) != 0)
        return warn(p, ZDEM_ERR_CORRUPT, bit, "cs command: bad index");
    {
        int r = set_configstring(p, idx, a, an);
        if (r != 0)
            return cs_warn(p, r, bit);
    }
    if (is_score_cs(p, idx))
        return scores_event(p, seq, idx);
    return 0;
}

/* Cmd_TokenizeString's rules (tokens split at bytes <= ' ', a quoted
 * token runs to the closing quote, "//" ends the line): up to `max`
 * token spans; returns the token count, at most max + 1 (more). */
static int tokenize(const char *s, size_t n, size_t *start, size_t *len, int max)
{
    size_t i = 0;
    int argc = 0;
    for (;;) {
        size_t b;
        while (i < n && (unsigned char)s[i] <= ' ')
            i++;
        if (i >= n || (i + 1 < n && s[i] == '/' && s[i + 1] == '/'))
            return argc;
        if (argc == max)
            return argc + 1;
        if (s[i] == '"') {
            b = ++i;
            while (i < n && s[i] != '"')
                i++;
            start[argc] = b;
            len[argc] = i - b;
            if (i < n)
                i++;
        } else {
            b = i;
            while (i < n && (unsigned char)s[i] > ' ' && s[i] != '"' &&
                   !(i + 1 < n && s[i] == '/' && s[i + 1] == '/'))
                i++;
            start[argc] = b;
            len[argc] = i - b;
        }
        argc++;
    }
}

/* CPMA's team call "mm2 <client> <location> "text"": the sender's name
 * from the player configstrings, the location from the configstrings
 * after them (CS_LOCATIONS). Other argument counts are not team calls. */
static int mm2_event(zdem_q3_parser *p, zdem_q3_event *ev, const char *s, size_t n)
{
    size_t st[4], ln[4];
    int32_t client, loc;
    if (tokenize(s, n, st, ln, 4) != 4 || parse_int(s + st[1], ln[1], &client) != 0 ||
        client < 0 || client >= ZDEM_Q3_MAX_CLIENTS)
        return 0;
    ev->type = ZDEM_Q3_EV_TCHAT;
    ev->chat_kind = ZDEM_Q3_CHAT_MM2;
    ev->client = client;
    ev->attacker_name = player_name(p, client, p->name_a, sizeof p->name_a);
    if (p->proto && parse_int(s + st[2], ln[2], &loc) == 0 && loc >= 0 &&
        loc < ZDEM_Q3_MAX_LOCATIONS) {
        const char *l = zdem_q3_configstring(p, p->proto->cs_players + ZDEM_Q3_MAX_CLIENTS + loc,
                                             &ev->location_len);
        if (l)
            ev->location = l;
    }
    ev->text = s + st[3];
    ev->text_len = ln[3];
    return emit_event(p, ev);
}

static int handle_command(zdem_q3_parser *p, int32_t seq, const char *s, size_t n,
                          uint64_t bit)
{
    size_t w = 0;
    zdem_q3_event ev;
    while (w < n && s[w] != ' ')
        w++;
    if (p->cb.server_command && p->cb.server_command(p->user, p, seq, s, n))
        return 1;
    if (w == 2 && memcmp(s, "cs", 2) == 0)
        return apply_cs(p, s, n, w, seq, bit);
    if (w == 4 && memcmp(s, "bcs", 3) == 0 && s[3] >= '0' && s[3] <= '2') {
        /* big configstring in pieces: bcs0 starts, bcs1 continues, bcs2 ends */
        int32_t idx;
        const char *a;
        size_t an;
        if (cs_index_arg(s, n, w, &idx, &a, &an) != 0)
            return warn(p, ZDEM_ERR_CORRUPT, bit, "bcs command: bad index");
        if (s[3] == '0') {
            p->bcs_index = idx;
            p->bcs_len = 0;
            p->bcs_over = 0;
        }
        if (p->bcs_index != idx)
            return warn(p, ZDEM_ERR_CORRUPT, bit, "bcs command without bcs0");
        if (an > ZDEM_Q3_BIG_INFO_STRING - p->bcs_len) {
            an = ZDEM_Q3_BIG_INFO_STRING - p->bcs_len;
            if (warn(p, ZDEM_ERR_LIMIT, bit, "big configstring longer than 8192 bytes (cut)"))
                return 1;
        }
        gather_big_configstring(p, a, an);
        if (s[3] == '2') {
            uint32_t len = p->bcs_len;
            int r, over = p->bcs_over;
            p->bcs_index = -1;
            p->bcs_len = 0; /* the gathered text is free space now */
            p->bcs_over = 0;
            r = over ? drop_configstring(p, idx, len)
                     : set_configstring(p, idx, p->cs_data + p->lim.configstring_store - len, len);
            if (r != 0)
                return cs_warn(p, r, bit);
            if (is_score_cs(p, idx))
                return scores_event(p, seq, idx);
        }
        return 0;
    }
    memset(&ev, 0, sizeof ev);
    ev.attacker = ev.target = ev.client = -1;
    ev.command_seq = seq;
    ev.location = "";
    if (w == 4 && memcmp(s, "chat", 4) == 0) {
        ev.type = ZDEM_Q3_EV_CHAT;
        ev.chat_kind = ZDEM_Q3_CHAT_SAY;
    } else if (w == 5 && memcmp(s, "tchat", 5) == 0) {
        ev.type = ZDEM_Q3_EV_TCHAT;
        ev.chat_kind = ZDEM_Q3_CHAT_TEAM;
    } else if (w == 3 && memcmp(s, "mm2", 3) == 0)
        return mm2_event(p, &ev, s, n);
    else if (w == 5 && memcmp(s, "print", 5) == 0)
        ev.type = ZDEM_Q3_EV_PRINT;
    else if (w == 2 && memcmp(s, "cp", 2) == 0)
        ev.type = ZDEM_Q3_EV_CENTERPRINT;
    else if (w == 6 && memcmp(s, "scores", 6) == 0)
        ev.type = ZDEM_Q3_EV_SCORES;
    else
        return 0;
    command_arg(s, n, w, &ev.text, &ev.text_len);
    if (ev.type == ZDEM_Q3_EV_SCORES) {
        /* "scores N red blue ...": the team scores follow the count */
        const char *t = ev.text;
        size_t tn = ev.text_len, k = 0;
        while (k < tn && t[k] != ' ')
            k++;
        if (parse_int(t + k, tn - k, &ev.score1) == 0) {
            while (k < tn && t[k] == ' ')
                k++;
            while (k < tn && t[k] != ' ')
                k++;
            if (parse_int(t + k, tn - k, &ev.score2) != 0)
                ev.score2 = 0;
        }
    }
    return emit_event(p, &ev);
}

static zdem_status parse_server_command(zdem_q3_parser *p, zdem_q3_msg *m, zdem_error *err)
{
    int32_t seq = (int32_t)zdem_q3_pread_bits(m, 32); /* the padded copy */
    size_t n;
    zdem_q3__settle(m);
    n = read_string(p, m, ZDEM_Q3_MAX_STRING_CHARS, p->str, sizeof p->str);
    if (m->overflow)
        return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, m->bit,
                              "server command runs past the end of the message");
    if (seq <= p->server_command_sequence && p->gamestates)
        return ZDEM_OK; /* already seen (commands are resent until acked) */
    p->server_command_sequence = seq;
    if (handle_command(p, seq, p->str, n, m->bit))
        return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
    return ZDEM_OK;
}

/* ---------------------------------------------------------------- snapshots */

/* Entity states are shared by the ring snapshots without reference
 * counts (an unchanged entity costs one list entry, nothing else): when
 * the free list runs empty, one pass marks the slots that a valid ring
 * snapshot, the delta source (`keep`) or the frame being built still
 * lists, and every other slot is free again. */
static void sweep_pool(zdem_q3_parser *p, int keep, uint32_t ncur)
{
    uint32_t i, k;
    memset(p->pool_mark, 0, (p->lim.entity_states + 31u) / 32u * sizeof p->pool_mark[0]);
    for (k = 0; k < p->lim.snapshot_ring; k++) {
        if (!p->snaps[k].valid && (int)k != keep)
            continue;
        for (i = 0; i < p->snap_nents[k]; i++) {
            uint32_t s = SNAP_ENTS(p, k)[i];
            p->pool_mark[s >> 5] |= 1u << (s & 31u);
        }
    }
    for (i = 0; i < ncur; i++) {
        uint32_t s = p->build_ents[i];
        p->pool_mark[s >> 5] |= 1u << (s & 31u);
    }
    /* the clear bits of each mark word, lowest first (slot order) */
    p->nfree = 0;
    p->fresh = p->lim.entity_states; /* the list holds every free slot now */
    for (k = 0; k * 32u < p->lim.entity_states; k++) {
        uint32_t c = ~p->pool_mark[k];
        if (p->lim.entity_states - k * 32u < 32u)
            c &= (1u << (p->lim.entity_states - k * 32u)) - 1u; /* past the pool */
        while (c) {
            p->free_slots[p->nfree++] = (uint16_t)(k * 32u + zdem_q3__low_bit(c));
            c &= c - 1u;
        }
    }
}

/* The oldest valid ring snapshots other than `keep` stop being delta
 * sources: the older half of them, or (all = 1) every one. Nothing is
 * lost unless a later snapshot deltas from one: that one is dropped with
 * a warning naming the limit (evicted). */
static void drop_oldest(zdem_q3_parser *p, int keep, int all)
{
    int k, n = 0, dropped = 0, ring = (int)p->lim.snapshot_ring;
    for (k = 0; k < ring; k++)
        if (p->snaps[k].valid && k != keep)
            n++;
    while (n > 0 && (all || dropped < (n + 1) / 2)) {
        int oldest = -1;
        for (k = 0; k < ring; k++)
            if (p->snaps[k].valid && k != keep &&
                (oldest < 0 || p->snaps[k].message_num < p->snaps[oldest].message_num))
                oldest = k;
        if (oldest < 0)
            break;
        p->snaps[oldest].valid = 0;
        p->evicted |= 1u << oldest;
        dropped++;
    }
}

/* A free pool slot. A sweep that frees fewer than a snapshot's worth
 * (or a quarter of the pool, if less) means the pool is full: the oldest
 * ring snapshots other than the delta source stop being delta sources,
 * at most three sweeps, so each sweep pays for many allocations and the
 * work stays linear. -1: nothing to free. */
static int alloc_slot(zdem_q3_parser *p, int keep, uint32_t ncur)
{
    if (p->nfree == 0 && p->fresh < p->lim.entity_states)
        return (int)p->fresh++;
    if (p->nfree == 0) {
        uint32_t enough = p->lim.snapshot_entities < p->lim.entity_states / 4u
                              ? p->lim.snapshot_entities : p->lim.entity_states / 4u;
        sweep_pool(p, keep, ncur);
        if (p->nfree < enough) {
            drop_oldest(p, keep, 0);
            sweep_pool(p, keep, ncur);
            if (p->nfree < enough) {
                drop_oldest(p, keep, 1);
                sweep_pool(p, keep, ncur);
            }
        }
        if (p->nfree == 0)
            return -1;
    }
    return p->free_slots[--p->nfree];
}

/* Baseline of entity n (0..1023) decoded into base_tmp from its record,
 * NULL if the gamestate sent none (a delta from NULL starts from zero, as
 * from the engine's cleared array). */
static const zdem_q3_entity *baseline_of(zdem_q3_parser *p, int n)
{
    uint32_t at = p->base_off[n], nbits, k = 0;
    const uint8_t *r;
    zdem_q3_entity *dst = &p->base_tmp;
    zdem_q3_msg bm;
    zdem_error e;
    if (at == 0xFFFFu || !p->proto)
        return NULL;
    if (p->lim.baseline_cache) {
        k = (uint32_t)n & (p->lim.baseline_cache - 1u);
        if (p->base_cache_num[k] == (uint32_t)n)
            return &p->base_cache[k];
        dst = &p->base_cache[k];
        p->base_cache_num[k] = 0xFFFFu; /* until decoded whole */
    }
    r = p->base_data + at;
    nbits = r[1] | (uint32_t)r[2] << 8;
    zdem_q3_msg_init(&bm, r + 3, (r[0] + nbits + 7u) >> 3);
    bm.bit = r[0];
    bm.end = r[0] + nbits;
    bm.lim = bm.len + ZDEM_Q3_MSG_PAD; /* the store has the pad after its end */
    bm.raw = p->proto->legacy;
    if (read_delta_entity(p, &bm, NULL, dst, n, &e) != ZDEM_OK)
        return NULL; /* a record is kept only when it decoded whole */
    if (p->lim.baseline_cache)
        p->base_cache_num[k] = (uint16_t)n;
    return dst;
}

/* A snapshot with more entities than the lists hold: the game's own bound
 * (256), or a smaller limit (named and counted at the end of the
 * snapshot). The rest of the snapshot is still read, to reach what the
 * message holds after it. */
static void snapshot_entities_over(zdem_q3_parser *p)
{
    if (!p->snap_over)
        p->snap_over = p->lim.snapshot_entities >= ZDEM_Q3_MAX_SNAPSHOT_ENTITIES
                           ? "more than 256 entities in a snapshot (dropped)"
                           : "limit max_snapshot_entities: more entities in a snapshot than "
                             "the limit (dropped)";
}

/* One entity delta read into `to` from `old` (a pool state, a baseline,
 * or NULL): *removed when the delta removes it. */
static inline zdem_status decode_entity(zdem_q3_parser *p, zdem_q3_msg *m, int number,
                                        const zdem_q3_entity *old, zdem_q3_entity *to,
                                        int *removed, zdem_error *err)
{
    zdem_status st = ZDEM_OK;
    if (m->raw) {
        st = read_delta_entity(p, m, old, to, number, err);
        *removed = to->number == ZDEM_Q3_ENTITYNUM_NONE;
    } else {
        /* read_delta_entity on the padded copy (parse_message): the two
         * flag bits and the field count from one unchecked window; past
         * the end it reads zeros, as a checked read would, and the
         * position is settled where it is reported (the decoder settles,
         * the next entity number tests it); a removed entity's slot is
         * freed unwritten (nothing reads it) */
        uint64_t w = zdem_q3__pwindow(m);
        *removed = (int)(w & 1u);
        if (*removed) {
            m->bit += 1u;
        } else {
            if (!old)
                memset(to, 0, sizeof *to);
            else if (old != to)
                memcpy(to, old, sizeof *to);
            to->number = number;
            if (w & 2u) {
                unsigned e = zdem_q3_huff_decode[(w >> 2) & 0x7FFu], lc = e & 0xFFu;
                m->bad |= e;
                m->bit += 2u + ((e >> 8) & 15u);
                if (lc > p->proto->entity_fields) {
                    zdem_q3__settle(m);
                    st = zdem_fail_bits(err, ZDEM_ERR_CORRUPT, m->bit,
                                        "entity delta: field count above the table size");
                } else {
                    p->proto->delta_entity(m, to, lc); /* settles */
                }
            } else {
                m->bit += 2u; /* unchanged */
            }
        }
        /* a position past the end is caught at the next entity number */
    }
    return st;
}

/* An entity of a snapshot that went over a limit: read into a scratch
 * state (a baseline decoded into that same scratch is read in place) and
 * let go, only to reach what follows. The frame's count stays at the limit,
 * so every later entity and copy of this snapshot comes here (no test on
 * the common path). */
static zdem_status skip_entity(zdem_q3_parser *p, zdem_q3_msg *m, zdem_q3_snapshot *frame,
                               int number, const zdem_q3_entity *old, zdem_error *err)
{
    int removed;
    snapshot_entities_over(p);
    frame->num_entities = (int32_t)p->lim.snapshot_entities;
    return decode_entity(p, m, number, old, &p->base_tmp, &removed, err);
}

/* Parse_DeltaEntity: `number` read as a delta from `old` (a pool state or
 * a baseline) into a new pool slot, added to the new frame unless the
 * delta removes it. was_event: old is the delta source frame's state of
 * an event entity. */
static zdem_status delta_entity(zdem_q3_parser *p, zdem_q3_msg *m, zdem_q3_snapshot *frame,
                                int number, const zdem_q3_entity *old, int keep, int was_event,
                                zdem_error *err)
{
    uint16_t slot;
    zdem_status st;
    zdem_q3_entity *to;
    int s, removed, is_event;
    if ((uint32_t)frame->num_entities >= p->lim.snapshot_entities)
        return skip_entity(p, m, frame, number, old, err);
    s = alloc_slot(p, keep, (uint32_t)frame->num_entities);
    if (s < 0) {
        p->snap_over = "limit max_entity_states: entity pool full (snapshot dropped)";
        return skip_entity(p, m, frame, number, old, err);
    }
    slot = (uint16_t)s;
    to = &p->pool[slot];
    st = decode_entity(p, m, number, old, to, &removed, err);
    /* the event pass updates the source frame's event-entity set by the
     * changes: only an entity that is or was an event entity can change
     * it (the set holds the source frame's event entities), so only those
     * are listed */
    is_event = !removed && to->eType > p->proto->et_events;
    if (was_event || is_event) {
        if (p->nchg < sizeof p->chg / sizeof p->chg[0]) /* else: full event pass */
            p->chg[p->nchg] = ((uint32_t)number & (ZDEM_Q3_MAX_GENTITIES - 1)) | (uint32_t)slot << 10 |
                              (removed ? 0x80000000u : is_event ? 0x40000000u : 0u);
        p->nchg++;
    }
    if (st != ZDEM_OK || removed) {
        p->free_slots[p->nfree++] = slot; /* removed (or failed): not in the frame */
        return st;
    }
    p->build_nums[frame->num_entities] = (uint16_t)number;
    p->build_ents[frame->num_entities++] = slot;
    p->parse_entities_num++;
    return ZDEM_OK;
}

/* Entities oldindex.. of the old frame (lists nums/ents) whose numbers are
 * below `below` (at most 0xFFFF: the list's sentinel stops the run) are
 * unchanged: their list entries are copied. Four at a time while all four
 * numbers pass: the numbers are below 1024 or the 0xFFFF sentinel, so one
 * 64-bit subtraction compares the four 16-bit lanes with a bound of at
 * most 0x7FFF (no borrow crosses a lane); runs are short and many. The
 * new lists have room for the limit only: when the rest of the old frame
 * could pass it, each entry is counted against it (rare). */
static zdem_status copy_unchanged(zdem_q3_parser *p, zdem_q3_msg *m, zdem_q3_snapshot *frame,
                                  const uint16_t *nums, const uint16_t *ents, uint32_t oldcount,
                                  uint32_t *oldindex, uint32_t below, zdem_error *err)
{
    const uint64_t hi = UINT64_C(0x8000800080008000);
    uint64_t lanes = (uint64_t)(below < 0x7FFFu ? below : 0x7FFFu) * UINT64_C(0x0001000100010001);
    uint16_t *cn = p->build_nums, *ce = p->build_ents;
    uint32_t j = *oldindex, n = (uint32_t)frame->num_entities, n0 = n;
    (void)m;
    (void)err;
    if (n + (oldcount - j) > p->lim.snapshot_entities) {
        while (nums[j] < below) {
            if (n == p->lim.snapshot_entities)
                snapshot_entities_over(p);
            if (p->snap_over) { /* passed over: the snapshot is dropped */
                j++;
                continue;
            }
            cn[n] = nums[j];
            ce[n++] = ents[j++];
        }
    } else if (below == 0xFFFFu) {
        /* the rest of the list (its numbers are below 1024): one copy */
        memcpy(cn + n, nums + j, (oldcount - j) * sizeof *cn);
        memcpy(ce + n, ents + j, (oldcount - j) * sizeof *ce);
        n += oldcount - j;
        j = oldcount;
    } else {
        while (j + 3u <= oldcount) { /* the four lanes end at the sentinel at most */
            uint64_t x, y;
            memcpy(&x, nums + j, sizeof x);
            if (((x | hi) - lanes) & hi)
                break; /* one of them is >= below */
            memcpy(&y, ents + j, sizeof y); /* all four are entities: j + 3 < oldcount */
            memcpy(cn + n, &x, sizeof x);
            memcpy(ce + n, &y, sizeof y);
            j += 4u;
            n += 4u;
        }
        while (nums[j] < below) {
            cn[n] = nums[j];
            ce[n++] = ents[j++];
        }
    }
    frame->num_entities = (int32_t)n;
    p->parse_entities_num += (int32_t)(n - n0);
    *oldindex = j;
    return ZDEM_OK;
}

/* Parse_PacketEntities: the new frame is the old one merged with the
 * entities the message sends (in number order, as the engine merges). */
static zdem_status parse_packet_entities(zdem_q3_parser *p, zdem_q3_msg *m,
                                         const zdem_q3_snapshot *oldframe,
                                         zdem_q3_snapshot *newframe, zdem_error *err)
{
    /* without a delta source, an empty list (its sentinel): nothing is
     * below it, so the tests below need not look at keep */
    static const uint16_t no_nums[1] = {0xFFFFu};
    uint32_t oldindex = 0, oldcount = 0, newnum;
    int keep = -1, et_events = p->proto->et_events;
    zdem_status st;
    const uint16_t *nums = no_nums, *ents = NULL;
    if (oldframe) {
        keep = (int)(oldframe - p->snaps);
        oldcount = p->snap_nents[keep];
        nums = SNAP_NUMS(p, keep);
        ents = SNAP_ENTS(p, keep);
    }
    newframe->parse_index = p->parse_entities_num;
    newframe->num_entities = 0;
    p->nchg = 0;
    p->snap_over = NULL;
    for (;;) {
        const zdem_q3_entity *from;
        uint32_t below;
        int was_event;
        newnum = zdem_q3_pread_bits(m, ZDEM_Q3_GENTITYNUM_BITS); /* the padded copy */
        /* one test for both: an overflow leaves the position past the end */
        if (m->bit > m->end) {
            zdem_q3__settle(m);
            return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, m->bit,
                                  "packet entities run past the end of the message");
        }
        /* one call site, so that it is inlined: at the end the rest of
         * the old frame is unchanged; most runs are empty (checked here) */
        below = newnum == ZDEM_Q3_ENTITYNUM_NONE ? 0xFFFFu : newnum;
        if (nums[oldindex] < below) {
            st = copy_unchanged(p, m, newframe, nums, ents, oldcount, &oldindex, below, err);
            if (st != ZDEM_OK)
                return st;
        }
        if (newnum == ZDEM_Q3_ENTITYNUM_NONE)
            break;
        was_event = 0;
        if (oldindex < oldcount && nums[oldindex] == newnum) {
            from = &p->pool[ents[oldindex++]]; /* delta from the old frame */
            was_event = from->eType > et_events;
        } else {
            from = baseline_of(p, (int)newnum); /* new entity, delta from its baseline */
        }
        st = delta_entity(p, m, newframe, (int)newnum, from, keep, was_event, err);
        if (st != ZDEM_OK)
            return st;
    }
    return ZDEM_OK;
}

/* One changed playerstate array of MSG_ReadDeltaPlayerstate (its change
 * bit read): a 16-bit mask, the entries it names (16 bits signed;
 * powerups 32), read unchecked from the padded copy (at most 726 bits)
 * and settled. */
static void read_player_array(zdem_q3_msg *m, int32_t *a, unsigned bits)
{
    uint32_t mask;
    if (m->raw) {
        mask = zdem_q3_praw_bits(m, 16);
        while (mask) { /* set bits, lowest first */
            unsigned i = zdem_q3__low_bit(mask);
            mask &= mask - 1u;
            a[i] = bits == 32u ? (int32_t)zdem_q3_praw_bits(m, 32) : zdem_q3_praw_sbits(m, 16);
        }
    } else { /* whole Huffman-coded bytes */
        mask = (uint32_t)zdem_q3_phuff_bytes(m, 2);
        while (mask) {
            unsigned i = zdem_q3__low_bit(mask);
            mask &= mask - 1u;
            a[i] = bits == 32u ? (int32_t)(uint32_t)zdem_q3_phuff_bytes(m, 4)
                               : zdem_q3__sext((uint32_t)zdem_q3_phuff_bytes(m, 2), 16);
        }
    }
    zdem_q3__settle(m);
}

/* MSG_ReadDeltaPlayerstate, on the padded copy (parse_message) */
static zdem_status read_delta_player(zdem_q3_parser *p, zdem_q3_msg *m,
                                     const zdem_q3_player *from, zdem_q3_player *to,
                                     zdem_error *err)
{
    unsigned lc;
    if (from) { /* in two halves, each copied inline (whole: a rep movs) */
        size_t h = sizeof *to / 2u;
        memcpy(to, from, h);
        memcpy((uint8_t *)to + h, (const uint8_t *)from + h, sizeof *to - h);
    } else
        memset(to, 0, sizeof *to);
    if (p->proto->legacy) {
        /* every field with its changed bit; no "any array" bit */
        p->proto->legacy_player(m, to);
    } else {
        lc = zdem_q3_pread_bits(m, 8);
        if (lc > p->proto->player_fields) {
            zdem_q3__settle(m);
            return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, m->bit,
                                  "playerstate delta: field count above the table size");
        }
        p->proto->delta_player(m, to, lc); /* reads on past the end as zeros */
        lc = zdem_q3_pbit(m);
        if (!lc)
            return ZDEM_OK; /* no array changed (the caller settles) */
    }
    /* each array's change bit (mostly clear) tested here; four bits at
     * most past the end before the settle */
    if (zdem_q3_pbit(m))
        read_player_array(m, to->stats, 16);
    if (zdem_q3_pbit(m))
        read_player_array(m, to->persistant, 16);
    if (zdem_q3_pbit(m))
        read_player_array(m, to->ammo, 16);
    if (zdem_q3_pbit(m))
        read_player_array(m, to->powerups, 32);
    zdem_q3__settle(m);
    return ZDEM_OK;
}

/* Means of death by number: baseq3's meansOfDeath_t (1.32 game source,
 * without the Team Arena entries, as UberDemoTools reads dm3..dm_68) and
 * Quake Live's (its game module's enum as published by minqlx; 31..33
 * are QL's own additions). */
static const char *const mod_q3[] = {
    "unknown", "shotgun", "gauntlet", "machine gun", "grenade", "grenade splash",
    "rocket", "rocket splash", "plasma", "plasma splash", "railgun", "lightning",
    "BFG", "BFG splash", "water", "slime", "lava", "crush", "telefrag", "fall",
    "suicide", "target laser", "trigger hurt", "grapple"};
static const char *const mod_ql[] = {
    "unknown", "shotgun", "gauntlet", "machine gun", "grenade", "grenade splash",
    "rocket", "rocket splash", "plasma", "plasma splash", "railgun", "lightning",
    "BFG", "BFG splash", "water", "slime", "lava", "crush", "telefrag", "fall",
    "suicide", "target laser", "trigger hurt", "nailgun", "chaingun",
    "proximity mine", "kamikaze", "juiced", "grapple", "team switch", "thaw",
    "lightning discharge", "heavy machine gun", "railgun headshot"};

const char *zdem_q3_mod_name(int protocol, int mod)
{
    if (protocol >= 73) {
        if (mod >= 0 && mod < (int)(sizeof mod_ql / sizeof mod_ql[0]))
            return mod_ql[mod];
    } else if (mod >= 0 && mod < (int)(sizeof mod_q3 / sizeof mod_q3[0])) {
        return mod_q3[mod];
    }
    return "unknown";
}

const char *zdem_q3_event_type_name(zdem_q3_event_type t)
{
    static const char *const names[ZDEM_Q3_EV_COUNT] = {
        "obituary", "chat", "tchat", "print", "centerprint", "scores"};
    return (unsigned)t < ZDEM_Q3_EV_COUNT ? names[t] : "unknown";
}

const char *zdem_q3_chat_kind_name(zdem_q3_chat_kind k)
{
    static const char *const names[ZDEM_Q3_CHAT_KIND_COUNT] = {"", "chat", "tchat", "mm2"};
    return (unsigned)k < ZDEM_Q3_CHAT_KIND_COUNT ? names[k] : "";
}

/* EV_OBITUARY of an event entity that just appeared. */
static int fire_event(zdem_q3_parser *p, const zdem_q3_entity *e)
{
    int ev = (e->eType - p->proto->et_events) & ~0x300; /* EV_EVENT_BITS */
    zdem_q3_event o;
    if (ev != p->proto->ev_obituary)
        return 0;
    memset(&o, 0, sizeof o);
    o.type = ZDEM_Q3_EV_OBITUARY;
    o.target = e->otherEntityNum;
    o.attacker = e->otherEntityNum2;
    if (o.attacker < 0 || o.attacker >= ZDEM_Q3_MAX_CLIENTS)
        o.attacker = -1;
    if (o.target < 0 || o.target >= ZDEM_Q3_MAX_CLIENTS)
        o.target = -1;
    o.mod = e->eventParm;
    o.mod_name = zdem_q3_mod_name(p->protocol, o.mod);
    o.attacker_name = player_name(p, o.attacker, p->name_a, sizeof p->name_a);
    o.target_name = player_name(p, o.target, p->name_t, sizeof p->name_t);
    o.text = "";
    o.location = "";
    o.client = -1;
    return emit_event(p, &o);
}

/* The state of entity `num` in frame s (its lists are in number order
 * when the input is sane: `*j` walks them once per snapshot; otherwise a
 * search), or NULL. */
static const zdem_q3_entity *frame_entity(const zdem_q3_parser *p, const zdem_q3_snapshot *s,
                                          uint32_t num, uint32_t *j)
{
    const uint16_t *nums = SNAP_NUMS(p, s->first_entity), *ents = SNAP_ENTS(p, s->first_entity);
    uint32_t n = (uint32_t)s->num_entities, i;
    while (*j < n && nums[*j] < num)
        ++*j;
    if (*j < n && nums[*j] == num)
        return &p->pool[ents[*j]];
    for (i = 0; i < n; i++)
        if (nums[i] == num)
            return &p->pool[ents[i]];
    return NULL;
}

/* Entity events of a new valid snapshot (stored in its ring slot): fire
 * each event entity once, when it first appears, i.e. is not one in the
 * previous valid snapshot (cgame fires temp-entity events the same way).
 * The snapshot's event entities are its delta source's updated with the
 * entities it changed (a full pass without a delta source); the new ones
 * come in number order, as a pass over the frame would meet them. */
static int snapshot_events(zdem_q3_parser *p, const zdem_q3_snapshot *s,
                           const zdem_q3_snapshot *old)
{
    /* built in place in the snapshot's ring slot; only the words in nz
     * count (the rest of the slot is garbage; when it is also the delta
     * source's slot its words are the start) */
    uint64_t *now = p->ev_bits[s->first_entity];
    uint32_t w, j = 0, nz = 0;
    int i, et_events = p->proto->et_events;
    int incremental = old && p->nchg <= sizeof p->chg / sizeof p->chg[0];
    if (incremental) {
        uint32_t k = (uint32_t)(old - p->snaps);
        const uint64_t *src = p->ev_bits[k];
        nz = p->ev_nz[k];
        if (src != now)
            for (w = nz; w; w &= w - 1u) {
                uint32_t x = zdem_q3__low_bit(w);
                now[x] = src[x];
            }
        for (w = 0; w < p->nchg; w++) {
            uint32_t c = p->chg[w], num = c & (ZDEM_Q3_MAX_GENTITIES - 1), x = num >> 6;
            uint64_t bit = UINT64_C(1) << (num & 63u);
            if (!(c & 0x40000000u)) { /* removed, or no event entity (its eType) */
                if (nz & (1u << x))
                    now[x] &= ~bit;
            } else {
                if (!(nz & (1u << x))) {
                    now[x] = 0;
                    nz |= 1u << x;
                }
                now[x] |= bit;
            }
        }
    } else {
        for (i = 0; i < s->num_entities; i++) {
            const zdem_q3_entity *e = &p->pool[SNAP_ENTS(p, s->first_entity)[i]];
            uint32_t num = (uint32_t)e->number & (ZDEM_Q3_MAX_GENTITIES - 1), x = num >> 6;
            if (e->eType > et_events) {
                if (!(nz & (1u << x))) {
                    now[x] = 0;
                    nz |= 1u << x;
                }
                now[x] |= UINT64_C(1) << (num & 63u);
            }
        }
    }
    /* (ev_nz is stored at the end: a callback's stop drops the slot) */
    if (incremental && p->event_have && old->message_num == p->event_src) {
        /* the delta source is the snapshot the last pass saw: only the
         * entities changed since can be new event entities (those are
         * set in now: their words are in nz) */
        for (w = 0; w < p->nchg; w++) {
            uint32_t c = p->chg[w], num = c & (ZDEM_Q3_MAX_GENTITIES - 1), x = num >> 6;
            uint64_t bit = UINT64_C(1) << (num & 63u);
            if ((c & 0x80000000u) || !(nz & (1u << x)) || !(now[x] & bit))
                continue;
            if (p->prev_nz & (1u << x)) {
                if (p->event_prev[x] & bit)
                    continue;
            } else {
                p->event_prev[x] = 0;
                p->prev_nz |= 1u << x;
            }
            p->event_prev[x] |= bit; /* fired */
            if (fire_event(p, &p->pool[(c >> 10) & 0xFFFFu]))
                return 1;
        }
    } else {
        for (w = nz; w; w &= w - 1u) { /* set bits, lowest word first */
            uint32_t x = zdem_q3__low_bit(w);
            uint64_t c = now[x] & ((p->prev_nz & (1u << x)) ? ~p->event_prev[x] : ~UINT64_C(0));
            while (c) { /* set bits, lowest first */
                const zdem_q3_entity *e = frame_entity(p, s, x * 64u + zdem_q3__low_bit(c), &j);
                c &= c - 1u;
                if (e && fire_event(p, e))
                    return 1;
            }
        }
    }
    for (w = nz; w; w &= w - 1u) { /* words emptied since leave the set */
        uint32_t x = zdem_q3__low_bit(w);
        p->event_prev[x] = now[x];
        if (!now[x])
            nz &= ~(1u << x);
    }
    p->ev_nz[s->first_entity] = (uint16_t)nz;
    p->prev_nz = (uint16_t)nz;
    p->event_src = s->message_num;
    p->event_have = 1;
    return 0;
}

static zdem_status parse_snapshot(zdem_q3_parser *p, zdem_q3_msg *m, zdem_error *err)
{
    const zdem_q3_snapshot *old = NULL;
    int32_t delta, server_time, delta_num;
    uint32_t len, flags, k = (uint32_t)p->message_sequence & p->ring_mask;
    zdem_status st;
    zdem_q3_snapshot *ns, *bp;

    if (!p->proto || (!p->gamestates && !p->gamestate_damaged))
        return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, m->bit, "snapshot before any gamestate");
    /* the padded copy (parse_message): unchecked reads, settled where a
     * checked read's position or overflow flag is looked at */
    if (p->proto->protocol == 3)
        (void)zdem_q3_pread_bits(m, 32); /* dm3: the client command sequence first */
    if (m->raw) {
        server_time = (int32_t)zdem_q3_pread_bits(m, 32);
        delta = (int32_t)zdem_q3_pread_bits(m, 8);
        flags = zdem_q3_pread_bits(m, 8);
    } else { /* the same codes, fewer windows */
        server_time = (int32_t)(uint32_t)zdem_q3_phuff_bytes(m, 4);
        flags = (uint32_t)zdem_q3_phuff_bytes(m, 2);
        delta = (int32_t)(flags & 0xFFu);
        flags >>= 8;
    }
    /* 64-bit: a hostile sequence near INT32_MIN must not overflow */
    delta_num = delta && (int64_t)p->message_sequence - delta >= INT32_MIN
                    ? (int32_t)((int64_t)p->message_sequence - delta) : -1;
    /* Decoded in place in its ring slot (no copy), unless that slot is the
     * delta source (a delta of 32): then in a scratch slot, copied once.
     * Until it is stored whole, the ring slot is no delta source. */
    bp = delta_num > 0 && ((uint32_t)delta_num & p->ring_mask) == k ? &p->cur
                                                                               : &p->snaps[k];
    bp->valid = 0;
    bp->num_entities = 0;
    bp->first_entity = 0;
    bp->parse_index = 0;
    memset(bp->areamask, 0, sizeof bp->areamask);
    bp->server_command_num = p->server_command_sequence;
    bp->server_time = server_time;
    bp->message_num = p->message_sequence;
    bp->delta_num = delta_num;
    bp->snap_flags = (int32_t)flags;
    zdem_q3__settle(m);
    if (p->time_only) {
        /* netfields unknown: report the header, skip the rest */
        if (m->overflow)
            return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, m->bit,
                                  "snapshot runs past the end of the message");
        p->snapshots_time_only++;
        p->server_time = bp->server_time;
        m->bit = m->end;
        if (p->cb.snapshot && p->cb.snapshot(p->user, p, bp))
            return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
        return ZDEM_OK;
    }
    if (p->gamestate_damaged) {
        /* baselines and configstrings are incomplete: read, not trusted */
        if (warn(p, ZDEM_ERR_CORRUPT, m->bit, "snapshot after a damaged gamestate (dropped)"))
            return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
    } else if (p->baselines_over) {
        if (warn_limit(p, m->bit, "limit max_baseline_store: snapshot dropped "
                                  "(its gamestate's baselines did not fit)"))
            return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
    } else if (bp->delta_num <= 0) {
        bp->valid = 1; /* uncompressed frame */
    } else {
        old = &p->snaps[(uint32_t)bp->delta_num & p->ring_mask];
        if ((!old->valid || old->message_num != bp->delta_num) &&
            delta >= (int32_t)p->lim.snapshot_ring && delta < ZDEM_Q3_PACKET_BACKUP) {
            /* the game's ring would still hold the base; ours is smaller */
            if (warn_limit(p, m->bit, "limit max_snapshot_ring: snapshot delta base "
                                      "older than the ring (dropped)"))
                return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
        } else if (!old->valid && old->message_num == bp->delta_num &&
                   (p->evicted & (1u << ((uint32_t)bp->delta_num & p->ring_mask)))) {
            if (warn_limit(p, m->bit, "limit max_entity_states: snapshot delta base "
                                      "evicted from the entity pool (dropped)"))
                return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
        } else if (!old->valid) {
            if (warn(p, ZDEM_ERR_CORRUPT, m->bit, "snapshot delta from an invalid frame"))
                return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
        } else if (old->message_num != bp->delta_num) {
            if (warn(p, ZDEM_ERR_CORRUPT, m->bit, "snapshot delta frame too old"))
                return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
        } else if (p->parse_entities_num - old->parse_index >
                   ZDEM_Q3_MAX_PARSE_ENTITIES - ZDEM_Q3_MAX_SNAPSHOT_ENTITIES) {
            if (warn(p, ZDEM_ERR_CORRUPT, m->bit, "snapshot delta entities too old"))
                return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
        } else {
            bp->valid = 1;
        }
    }
    p->evicted &= ~(1u << k); /* slot k holds a new snapshot */
    len = zdem_q3_pread_bits(m, 8);
    if (len > sizeof bp->areamask) {
        zdem_q3__settle(m);
        return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, m->bit, "snapshot: areamask longer than 32 bytes");
    }
    bp->areamask_len = (uint8_t)len;
    {
        uint32_t i;
        for (i = 0; i < len; i++) /* at most 32 bytes: within the pad */
            bp->areamask[i] = (uint8_t)zdem_q3_pread_bits(m, 8);
        zdem_q3__settle(m);
    }
    st = read_delta_player(p, m, old ? &old->ps : NULL, &bp->ps, err);
    if (st != ZDEM_OK)
        return st;
    if (m->bit > m->end) { /* past the end: an overflow (settled here) */
        zdem_q3__settle(m);
        return zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, m->bit,
                              "playerstate runs past the end of the message");
    }
    if (bp == &p->snaps[k] && bp->valid) {
        /* slot k's old list is dead (its snapshot can no longer be
         * named): no sweep marks it while the new one is built there.
         * A snapshot that will be dropped is built aside: the slot's
         * list stays what a later delta from it reads, as before. */
        p->snap_nents[k] = 0;
        p->build_ents = SNAP_ENTS(p, k);
        p->build_nums = SNAP_NUMS(p, k);
    } else {
        p->build_ents = p->cur_ents;
        p->build_nums = p->cur_nums;
    }
    st = parse_packet_entities(p, m, old, bp, err);
    if (st == ZDEM_OK && (m->bad & 0x8000u))
        st = zdem_fail_bits(err, ZDEM_ERR_HUFFMAN, m->bit, "invalid Huffman code");
    if (st == ZDEM_OK && p->snap_over) {
        /* read to its end, dropped: what the message holds after it goes on */
        int stop = p->snap_over[0] == 'l' ? warn_limit(p, m->bit, p->snap_over)
                                          : warn(p, ZDEM_ERR_CORRUPT, m->bit, p->snap_over);
        bp->valid = 0;
        if (stop)
            st = zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
    }
    if (st != ZDEM_OK || !bp->valid) {
        /* its new states are garbage for the next sweep; a list built in
         * place is ended empty (a delta from the dropped slot reads it) */
        if (p->build_nums != p->cur_nums)
            p->build_nums[0] = 0xFFFFu;
        bp->valid = 0;
        if (st != ZDEM_OK)
            return st;
        p->snapshots_invalid++;
        return ZDEM_OK; /* read and dropped, as the engine does */
    }
    if (p->build_nums == p->cur_nums) { /* built aside: the ring slot takes it */
        memcpy(SNAP_ENTS(p, k), p->cur_ents, (size_t)bp->num_entities * sizeof p->cur_ents[0]);
        memcpy(SNAP_NUMS(p, k), p->cur_nums, (size_t)bp->num_entities * sizeof p->cur_nums[0]);
    }
    SNAP_NUMS(p, k)[bp->num_entities] = 0xFFFFu; /* run sentinel */
    p->snap_nents[k] = (uint16_t)bp->num_entities;
    bp->first_entity = (int32_t)k;
    /* Invalidate ring slots between the previous valid snapshot and this
     * one, so a dropped message is never used as a delta source. */
    if (p->have_snapshot) {
        /* 64-bit: sequence numbers come from the file and may be anything */
        int64_t oldnum = (int64_t)p->last_snapshot_message + 1;
        if ((int64_t)bp->message_num - oldnum >= (int64_t)p->lim.snapshot_ring)
            oldnum = (int64_t)bp->message_num - (int64_t)p->ring_mask;
        for (; oldnum < bp->message_num; oldnum++)
            p->snaps[(uint32_t)((uint64_t)oldnum & p->ring_mask)].valid = 0;
    }
    p->have_snapshot = 1;
    p->last_snapshot_message = bp->message_num;
    ns = &p->snaps[k];
    if (bp != ns)
        *ns = *bp;
    p->server_time = bp->server_time;
    p->snapshots_valid++;
    if (snapshot_events(p, ns, old))
        return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
    if (p->cb.snapshot && p->cb.snapshot(p->user, p, ns))
        return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
    return ZDEM_OK;
}

/* ---------------------------------------------------------------- messages */

/* A message failed part way (what it delivered before the fault stands).
 * The game drops such a message; so does the parser: a snapshot it may
 * have stored is no delta source (its bits are suspect), and later
 * snapshots that delta from it are dropped until a valid base or an
 * uncompressed snapshot arrives (the ring's validity rules do that). */
static zdem_status message_failed(zdem_q3_parser *p, const zdem_q3_frame *f, zdem_status st)
{
    zdem_q3_snapshot *s = &p->snaps[(uint32_t)f->sequence & p->ring_mask];
    /* the slot now stands for this message (a snapshot may have been
     * decoded into it part way), so a delta from it is reported as a
     * delta from an invalid frame */
    s->valid = 0;
    s->message_num = f->sequence;
    if (st != ZDEM_ERR_ABORTED)
        p->messages_damaged++;
    return st;
}

zdem_status zdem_q3_parse_message(zdem_q3_parser *p, const zdem_q3_frame *f,
                                  zdem_error *err)
{
    zdem_q3_msg m;
    zdem_status st = ZDEM_OK;
    int legacy;
    if (!p || p->magic != PARSER_MAGIC)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "parser not initialised");
    legacy = p->proto && p->proto->legacy;
    if (f->len > ZDEM_Q3_MAX_MSGLEN)
        return zdem_fail(err, ZDEM_ERR_BAD_LENGTH, 0, "message longer than 16384 bytes");
    if (f->data != p->msgbuf) /* else gathered there (zdem_q3_message_buffer) */
        memcpy(p->msgbuf, f->data, f->len);
    /* bytes from msgbuf_dirty on are zero: only the previous message's
     * tail past this one needs clearing (no more than was copied) */
    if (p->msgbuf_dirty > f->len)
        memset(p->msgbuf + f->len, 0, p->msgbuf_dirty - f->len);
    p->msgbuf_dirty = f->len;
    zdem_q3_msg_init(&m, p->msgbuf, f->len);
    m.lim = f->len + ZDEM_Q3_MSG_PAD; /* zero bytes follow: loads need no check */
    p->message_sequence = f->sequence;
    m.raw = legacy;
    /* reads on the padded copy are unchecked, settled where looked at;
     * the reliable acknowledge is not reported (its codes are checked);
     * dm3 has none, and UberDemoTools reads the same */
    if (!(p->proto && p->proto->protocol == 3)) {
        if (m.raw)
            m.bit += 32u;
        else
            (void)zdem_q3_phuff_bytes(&m, 4);
    }
    zdem_q3__settle(&m);
    for (;;) {
        uint32_t cmd;
        if (m.overflow)
            return message_failed(p, f, zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, m.bit,
                                                        "read past the end of the message"));
        if (legacy && m.bit >= m.end)
            break; /* the legacy layout may end without svc_EOF */
        cmd = legacy ? zdem_q3_praw_bits(&m, 8) : (uint32_t)zdem_q3_phuff_bytes(&m, 1);
        if (m.bit > m.end)
            break; /* Quake Live may cut the last byte, which holds the end
                    * of svc_EOF's code: the message is complete anyway
                    * (and so is any other that ends inside a command byte) */
        if (legacy && cmd == SVC_BAD)
            break; /* legacy: a zero byte ends the message too */
        if (cmd == SVC_EOF && p->proto && p->proto->protocol >= 90) {
            /* dm_90+: svc_extension after EOF carries more commands that
             * old clients ignore */
            zdem_q3_msg save = m;
            uint32_t ext = zdem_q3_pread_bits(&m, 8);
            zdem_q3__settle(&m);
            if (ext == SVC_EXTENSION && !m.overflow) {
                cmd = zdem_q3_pread_bits(&m, 8);
                zdem_q3__settle(&m);
                if (m.overflow)
                    cmd = SVC_EOF;
            } else {
                m = save;
            }
        }
        if (m.overflow)
            break; /* svc_EOF, then a cut svc_extension */
        if (cmd == SVC_EOF)
            break;
        switch (cmd) {
        case SVC_NOP:
            break;
        case SVC_GAMESTATE:
            st = parse_gamestate(p, &m, err);
            break;
        case SVC_SERVERCOMMAND:
            st = parse_server_command(p, &m, err);
            break;
        case SVC_SNAPSHOT:
            st = parse_snapshot(p, &m, err);
            break;
        default:
            st = zdem_fail_bits(err, ZDEM_ERR_CORRUPT, m.bit,
                                "unknown server message command byte");
            break;
        }
        if (st == ZDEM_OK && (m.bad & 0x8000u))
            st = zdem_fail_bits(err, ZDEM_ERR_HUFFMAN, m.bit, "invalid Huffman code");
        if (st != ZDEM_OK)
            return message_failed(p, f, st);
        if (legacy) /* legacy commands start on a byte boundary */
            m.bit = m.bit > m.end ? m.bit : (m.bit + 7u) & ~(size_t)7u;
    }
    return ZDEM_OK;
}

uint8_t *zdem_q3_message_buffer(zdem_q3_parser *p, size_t len)
{
    /* the caller writes [0, len): from there on the buffer stays zero */
    if (len > ZDEM_Q3_MAX_MSGLEN)
        len = ZDEM_Q3_MAX_MSGLEN;
    if (p->msgbuf_dirty < len)
        p->msgbuf_dirty = len;
    return p->msgbuf;
}

zdem_status zdem_q3_parse_file(zdem_q3_parser *p, const uint8_t *data, size_t size,
                               zdem_q3_reader *r, zdem_error *err)
{
    zdem_q3_frame f;
    zdem_error e;
    zdem_status first = ZDEM_OK;
    int got;
    zdem_q3_reader_init(r, data, size);
    zdem_error_clear(&e); /* written only by a failure, cleared after one */
    for (;;) {
        zdem_status st;
        st = reader_next(r, &f, &got, &e);
        if (st == ZDEM_OK && !got)
            break;
        if (st == ZDEM_OK) {
            st = zdem_q3_parse_message(p, &f, &e);
            if (st == ZDEM_OK || st == ZDEM_ERR_ABORTED) {
                if (st == ZDEM_OK)
                    continue;
            } else {
                /* a damaged message: skipped, the next one is read */
                if (first == ZDEM_OK) {
                    first = st;
                    *err = e;
                    err->offset_is_bits = 0;
                    err->offset = f.offset + 8u + e.offset / 8u;
                }
                zdem_error_clear(&e);
                continue;
            }
        }
        /* framing errors and callback aborts end the walk */
        if (first == ZDEM_OK) {
            first = st;
            *err = e;
        }
        break;
    }
    return first;
}

/* ---------------------------------------------------------------- accessors */

int zdem_q3_protocol(const zdem_q3_parser *p) { return p->proto ? p->proto->protocol : 0; }
const zdem_q3_protocol_info *zdem_q3_protocol_info_of(const zdem_q3_parser *p) { return p->proto; }
int32_t zdem_q3_client_num(const zdem_q3_parser *p) { return p->client_num; }
int32_t zdem_q3_checksum_feed(const zdem_q3_parser *p) { return p->checksum_feed; }
int32_t zdem_q3_server_command_sequence(const zdem_q3_parser *p) { return p->server_command_sequence; }
uint32_t zdem_q3_gamestate_count(const zdem_q3_parser *p) { return p->gamestates; }
int zdem_q3_gamestate_damaged(const zdem_q3_parser *p) { return p->gamestate_damaged; }
uint32_t zdem_q3_baseline_count(const zdem_q3_parser *p) { return p->baselines; }
uint32_t zdem_q3_snapshot_count(const zdem_q3_parser *p) { return p->snapshots_valid; }
uint32_t zdem_q3_invalid_snapshot_count(const zdem_q3_parser *p) { return p->snapshots_invalid; }
uint32_t zdem_q3_time_only_snapshot_count(const zdem_q3_parser *p) { return p->snapshots_time_only; }
uint32_t zdem_q3_limit_hits(const zdem_q3_parser *p)
{
    return p->limit_hits;
}

const zdem_q3_limits *zdem_q3_parser_limits(const zdem_q3_parser *p)
{
    return &p->lim;
}

uint32_t zdem_q3_damaged_message_count(const zdem_q3_parser *p) { return p->messages_damaged; }
uint32_t zdem_q3_configstring_peak(const zdem_q3_parser *p) { return p->cs_peak; }
uint32_t zdem_q3_configstrings_dropped(const zdem_q3_parser *p) { return p->cs_dropped; }

const zdem_q3_entity *zdem_q3_snapshot_entity(const zdem_q3_parser *p,
                                              const zdem_q3_snapshot *s, int i)
{
    /* i outside the snapshot (a caller's mistake) reads a pool state,
     * never past the lists or the pool */
    uint32_t j = (uint32_t)i < p->lim.snapshot_entities ? (uint32_t)i : 0u;
    uint32_t slot = SNAP_ENTS(p, (uint32_t)s->first_entity & p->ring_mask)[j];
    return &p->pool[slot < p->lim.entity_states ? slot : 0u];
}

const zdem_q3_entity *zdem_q3_baseline(const zdem_q3_parser *p, int n)
{
    /* the decode goes to the parser's scratch and cache (memory the
     * caller gave as writable): callbacks, which get a const parser, can
     * ask for baselines too */
    zdem_q3_parser *w = (zdem_q3_parser *)(uintptr_t)p;
    return baseline_of(w, (int)((unsigned)n & (ZDEM_Q3_MAX_GENTITIES - 1)));
}

int zdem_q3_protocol_from_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    int v = 0;
    if (!dot)
        return 0;
    if (strcmp(dot, ".dm3") == 0)
        return 3;
    if (strncmp(dot, ".dm_", 4) != 0)
        return 0;
    for (dot += 4; *dot >= '0' && *dot <= '9' && v < 1000; dot++)
        v = v * 10 + (*dot - '0');
    return *dot == 0 ? v : 0;
}
