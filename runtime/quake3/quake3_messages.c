/* Quake III parser state and messages (see quake3.h): memory layout and
 * limits, the command loop of one server message, warnings, strings,
 * accessors. The message layout follows seed 002 (Parse_DemoMessage and
 * friends) and ioquake3's cl_parse.c */
#include "quake3_int.h"

#include <stddef.h>
#include <string.h>

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

const zdem_q3_protocol_info *zdem_q3__find_protocol(int protocol)
{
    int i;
    for (i = 0; i < ZDEM_Q3_PROTOCOL_COUNT; i++)
        if (zdem_q3_protocols[i].protocol == protocol)
            return &zdem_q3_protocols[i];
    return NULL;
}

void zdem_q3__clear_gamestate(zdem_q3_parser *p)
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
    if (protocol != 0 && !zdem_q3__find_protocol(protocol)) {
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
    p->proto = protocol ? zdem_q3__find_protocol(protocol) : NULL;
    if (cb)
        p->cb = *cb;
    p->user = user;
    p->client_num = -1;
    p->checksum_feed = 0;
    p->server_command_sequence = 0;
    p->msgbuf_dirty = sizeof p->msgbuf; /* not cleared: anything */
    zdem_q3__clear_gamestate(p);
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
size_t zdem_q3__read_string(zdem_q3_parser *p, zdem_q3_msg *m, size_t max, char *dst,
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

/* ---------------------------------------------------------------- warnings */

int zdem_q3__warn(zdem_q3_parser *p, zdem_status code, uint64_t bit, const char *msg)
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

/* A warning that names a limit of zdem_q3_limits (counted). */
int zdem_q3__warn_limit(zdem_q3_parser *p, uint64_t bit, const char *msg)
{
    p->limit_hits++;
    return zdem_q3__warn(p, ZDEM_ERR_LIMIT, bit, msg);
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
            st = zdem_q3__parse_gamestate(p, &m, err);
            break;
        case SVC_SERVERCOMMAND:
            st = zdem_q3__parse_server_command(p, &m, err);
            break;
        case SVC_SNAPSHOT:
            st = zdem_q3__parse_snapshot(p, &m, err);
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
