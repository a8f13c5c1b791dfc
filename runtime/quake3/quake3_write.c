/* Quake III / Quake Live clips (see quake3_write.h): the original is read
 * by a parser; the messages of the range are copied, a gamestate and the
 * snapshots that cannot be copied are written with the generated
 * encoders (generated/quake3_encode.c) through the bit writer
 * (quake3_bw.h). Message layouts as ioquake3 writes them
 * (SV_SendClientGameState, SV_WriteSnapshotToClient, CL_Record). */
#include "quake3_write.h"
#include "quake3_int.h"
#include "quake3_bw.h"
#include "quake3_encode.h"

#include <stddef.h>
#include <string.h>

#define WRITER_MAGIC 0x51335752u /* "Q3WR" */

enum { BEFORE, IN_RANGE, DONE };

struct zdem_q3_writer {
    uint32_t magic;
    int32_t start, end;
    zdem_write_fn write;
    void *user;
    zdem_q3_cut_info info;
    int state;
    int32_t first_msg;     /* message number of the clip's first snapshot */
    /* set by the snapshot callback for the message being parsed */
    int first;             /* it holds the first snapshot: gamestate written */
    int whole;             /* its snapshot is written whole (snap holds it) */
    int past_end;          /* it holds a snapshot past the range */
    zdem_status cb_fail;   /* an encoding failed inside the callback */
    const char *cb_msg;
    size_t snap_bits;
    size_t gs_len;
    int32_t cmdseq0;       /* server command sequence before the message */
    size_t snap_at;        /* w_snap_start of the snapshot written whole */
    int flagged;           /* one of the four above is set (or was: cleared
                              at the next message) */
    const uint8_t *span;   /* messages of zdem_q3_cut's input copied as they */
    size_t span_len;       /* are, consecutive there, not handed over yet */
    const zdem_q3_encoder *enc;
    zdem_q3_parser *p;
    zdem_q3_entity zero_ent;
    zdem_q3_player zero_ps;
    uint8_t gs[ZDEM_Q3_MAX_MSGLEN];       /* the gamestate message */
    uint8_t snap[ZDEM_Q3_MAX_MSGLEN];     /* a whole snapshot's bits */
    uint8_t out[ZDEM_Q3_MAX_MSGLEN];      /* a message written again */
    int direct;            /* the output is a zdem_out_buffer: written in place */
    size_t nbatch;
    uint8_t batch[32768];                  /* output not yet handed over */
};

static size_t writer_head(void)
{
    return (sizeof(struct zdem_q3_writer) + 15u) & ~(size_t)15u;
}

size_t zdem_q3_writer_size(void)
{
    return writer_head() + 16u + zdem_q3_parser_size();
}

/* ---------------------------------------------------------------- encoding */

/* MSG_WriteDeltaEntity(from, to, force) with `to` present: the number,
 * then not removed, then the changes (or none) from `from`. */
static void write_entity(const zdem_q3_writer *w, zdem_q3_bw *b, const zdem_q3_entity *from,
                         const zdem_q3_entity *to)
{
    zdem_q3_bw_bits_n(b, (uint32_t)to->number, ZDEM_Q3_GENTITYNUM_BITS);
    zdem_q3_bw_bit(b, 0); /* not removed */
    if (w->enc->legacy_entity_mask) {
        /* a predefined change mask by its index, or (31) the mask itself */
        uint64_t mask = w->enc->legacy_entity_mask(from, to);
        unsigned k, n = w->p->proto->entity_fields;
        if (!mask) {
            zdem_q3_bw_bit(b, 0);
            return;
        }
        zdem_q3_bw_bit(b, 1);
        for (k = 0; k < 31u && zdem_q3_legacy_masks[k] != mask; k++)
            ;
        zdem_q3_bw_put(b, k, 5);
        if (k == 31u) {
            zdem_q3_bw_put(b, (uint32_t)mask, 32);
            zdem_q3_bw_put(b, (uint32_t)(mask >> 32), n - 32u);
        }
        w->enc->legacy_encode_entity(b, to, mask);
        return;
    }
    {
        unsigned lc = w->enc->entity_lc(from, to);
        if (!lc) {
            zdem_q3_bw_bit(b, 0);
            return;
        }
        zdem_q3_bw_bit(b, 1);
        zdem_q3_bw_byte(b, lc);
        w->enc->encode_entity(b, from, to, lc);
    }
}

/* One playerstate array of MSG_WriteDeltaPlayerstate: its changed bit,
 * the 16-bit mask, the entries (16 bits; powerups 32). */
static void write_array(zdem_q3_bw *b, const int32_t *from, const int32_t *to, unsigned bits)
{
    uint32_t mask = 0;
    unsigned i;
    for (i = 0; i < 16u; i++)
        if (from[i] != to[i])
            mask |= 1u << i;
    if (!mask) {
        zdem_q3_bw_bit(b, 0);
        return;
    }
    zdem_q3_bw_bit(b, 1);
    zdem_q3_bw_bits_n(b, mask, 16);
    for (i = 0; i < 16u; i++)
        if (mask & (1u << i))
            zdem_q3_bw_bits_n(b, (uint32_t)to[i], bits);
}

static int arrays_differ(const zdem_q3_player *a, const zdem_q3_player *b)
{
    return memcmp(a->stats, b->stats, sizeof a->stats) != 0 ||
           memcmp(a->persistant, b->persistant, sizeof a->persistant) != 0 ||
           memcmp(a->ammo, b->ammo, sizeof a->ammo) != 0 ||
           memcmp(a->powerups, b->powerups, sizeof a->powerups) != 0;
}

/* MSG_WriteDeltaPlayerstate(from, to). */
static void write_player(const zdem_q3_writer *w, zdem_q3_bw *b, const zdem_q3_player *from,
                         const zdem_q3_player *to)
{
    if (w->enc->legacy_encode_player) {
        /* every field with its changed bit; the four array bits follow
         * with no bit before them */
        w->enc->legacy_encode_player(b, from, to);
    } else {
        unsigned lc = w->enc->player_lc(from, to);
        zdem_q3_bw_byte(b, lc);
        w->enc->encode_player(b, from, to, lc);
        if (!arrays_differ(from, to)) {
            zdem_q3_bw_bit(b, 0);
            return;
        }
        zdem_q3_bw_bit(b, 1);
    }
    write_array(b, from->stats, to->stats, 16);
    write_array(b, from->persistant, to->persistant, 16);
    write_array(b, from->ammo, to->ammo, 16);
    write_array(b, from->powerups, to->powerups, 32);
}

/* svc_snapshot with no delta (SV_WriteSnapshotToClient without an old
 * frame): the playerstate from zero, every entity from its baseline. */
static int encode_whole_snapshot(zdem_q3_writer *w, const zdem_q3_snapshot *s)
{
    zdem_q3_parser *p = w->p;
    zdem_q3_bw b;
    int i;
    zdem_q3_bw_init(&b, w->snap, sizeof w->snap);
    b.raw = p->proto->legacy;
    zdem_q3_bw_byte(&b, 7); /* svc_snapshot */
    if (p->proto->protocol == 3)
        zdem_q3_bw_long(&b, p->w_snap_ccs);
    zdem_q3_bw_long(&b, s->server_time);
    zdem_q3_bw_byte(&b, 0); /* no delta */
    zdem_q3_bw_byte(&b, (unsigned)s->snap_flags);
    zdem_q3_bw_byte(&b, s->areamask_len);
    for (i = 0; i < s->areamask_len; i++)
        zdem_q3_bw_byte(&b, s->areamask[i]);
    write_player(w, &b, &w->zero_ps, &s->ps);
    for (i = 0; i < s->num_entities; i++) {
        const zdem_q3_entity *e = zdem_q3_snapshot_entity(p, s, i);
        const zdem_q3_entity *base = zdem_q3_baseline(p, e->number);
        write_entity(w, &b, base ? base : &w->zero_ent, e);
    }
    zdem_q3_bw_bits_n(&b, ZDEM_Q3_MAX_GENTITIES - 1, ZDEM_Q3_GENTITYNUM_BITS);
    w->snap_bits = zdem_q3_bw_bits(&b);
    zdem_q3_bw_align(&b);
    return b.over;
}

/* The reliable acknowledge of the message being parsed (its first 32
 * bits; none in dm3), read again here: the parser skips it. */
static int32_t ack_of(const zdem_q3_parser *p)
{
    zdem_q3_msg m;
    zdem_q3_msg_init(&m, p->msgbuf, ZDEM_Q3_MAX_MSGLEN);
    m.raw = p->proto->legacy;
    return zdem_q3_read_long(&m);
}

/* The gamestate of the clip (CL_Record's): the configstrings and the
 * baselines as they stand, the server command sequence before the
 * message, whose commands the clip replays. */
static int encode_gamestate(zdem_q3_writer *w)
{
    zdem_q3_parser *p = w->p;
    zdem_q3_bw b;
    int i;
    zdem_q3_bw_init(&b, w->gs, sizeof w->gs);
    b.raw = p->proto->legacy;
    if (p->proto->protocol != 3)
        zdem_q3_bw_long(&b, ack_of(p));
    zdem_q3_bw_byte(&b, 2); /* svc_gamestate */
    zdem_q3_bw_long(&b, w->cmdseq0);
    for (i = 0; i < ZDEM_Q3_MAX_CONFIGSTRINGS; i++) {
        size_t n, k;
        const char *s = zdem_q3_configstring(p, i, &n);
        if (!s)
            continue;
        zdem_q3_bw_byte(&b, 3); /* svc_configstring */
        zdem_q3_bw_bits_n(&b, (uint32_t)i, 16);
        if (b.raw)
            for (k = 0; k < n; k++)
                zdem_q3_bw_byte(&b, (uint8_t)s[k]);
        else
            zdem_q3_bw_hbytes(&b, (const uint8_t *)s, n);
        zdem_q3_bw_byte(&b, 0);
    }
    for (i = 0; i < ZDEM_Q3_MAX_GENTITIES; i++) {
        const uint8_t *r;
        uint32_t nbits;
        if (p->base_off[i] == 0xFFFFu)
            continue;
        r = p->base_data + p->base_off[i];
        nbits = r[1] | (uint32_t)r[2] << 8;
        zdem_q3_bw_byte(&b, 4); /* svc_baseline */
        zdem_q3_bw_bits_n(&b, (uint32_t)i, ZDEM_Q3_GENTITYNUM_BITS);
        zdem_q3_bw_copy(&b, r + 3, r[0], r[0] + (size_t)nbits); /* as sent */
    }
    zdem_q3_bw_byte(&b, 8); /* svc_EOF */
    if (!p->proto->legacy) {
        zdem_q3_bw_long(&b, p->client_num);
        zdem_q3_bw_long(&b, p->checksum_feed);
        zdem_q3_bw_byte(&b, 8);
    }
    w->gs_len = zdem_q3_bw_finish(&b);
    return b.over;
}

/* ---------------------------------------------------------------- callbacks */

static int on_gamestate(void *user, const zdem_q3_parser *p)
{
    zdem_q3_writer *w = (zdem_q3_writer *)user;
    if (p->time_only && w->cb_fail == ZDEM_OK) {
        w->cb_fail = ZDEM_ERR_UNSUPPORTED;
        w->flagged = 1;
        w->cb_msg = "ZEQ2-Lite demos cannot be cut (their netfields are not known)";
        return 1;
    }
    return 0;
}

/* The first snapshot of the range and those written whole: out of the
 * per-snapshot path (external, so that the encoders inlined here do not
 * weigh on every snapshot's call). */
int zdem_q3__writer_snapshot_whole(zdem_q3_writer *w, const zdem_q3_snapshot *s);

int zdem_q3__writer_snapshot_whole(zdem_q3_writer *w, const zdem_q3_snapshot *s)
{
    if (w->state == BEFORE) {
        /* the protocol's encoders: known once the protocol is */
        w->enc = &zdem_q3_encoders[w->p->proto - zdem_q3_protocols];
        w->first_msg = s->message_num;
        if (encode_gamestate(w)) {
            w->cb_fail = ZDEM_ERR_LIMIT;
            w->flagged = 1;
            w->cb_msg = "the clip's gamestate is longer than a message (16384 bytes)";
            return 1;
        }
        w->first = 1;
    }
    w->whole = 1;
    w->flagged = 1;
    if (encode_whole_snapshot(w, s)) {
        w->cb_fail = ZDEM_ERR_LIMIT;
        w->cb_msg = "a snapshot written whole is longer than a message (16384 bytes)";
        return 1;
    }
    w->snap_at = w->p->w_snap_start;
    w->info.whole++;
    if (!w->info.started) {
        w->info.started = 1;
        w->info.first_server_time = s->server_time;
    }
    w->info.last_server_time = s->server_time;
    w->info.snapshots++;
    return 0;
}

static int on_snapshot(void *user, const zdem_q3_parser *p, const zdem_q3_snapshot *s)
{
    zdem_q3_writer *w = (zdem_q3_writer *)user;
    (void)p;
    if (!s->valid || w->state == DONE)
        return 0;
    if (s->server_time > w->end) {
        if (w->state == BEFORE) {
            w->state = DONE; /* nothing of the range: an empty clip */
        } else {
            w->past_end = 1;
            w->flagged = 1;
        }
        return 0;
    }
    if (w->state == BEFORE) {
        if (s->server_time < w->start)
            return 0;
        return zdem_q3__writer_snapshot_whole(w, s);
    }
    if (w->whole || (s->delta_num > 0 && s->delta_num < w->first_msg))
        return zdem_q3__writer_snapshot_whole(w, s); /* its delta source is not in the clip */
    w->info.last_server_time = s->server_time;
    w->info.snapshots++;
    return 0;
}

/* ---------------------------------------------------------------- output */

static zdem_status flush(zdem_q3_writer *w, zdem_error *err)
{
    size_t n = w->nbatch;
    w->nbatch = 0;
    if (n && w->write(w->user, w->batch, n))
        return zdem_fail(err, w->write == zdem_out_buffer_write ? ZDEM_ERR_NO_SPACE : ZDEM_ERR_ABORTED,
                         0, "the output did not take the clip");
    return ZDEM_OK;
}

/* The caller's buffer itself when the output is one (zdem_out_buffer:
 * no batch, no second copy), else the batch. */
static void sink_of(zdem_q3_writer *w, uint8_t **at, size_t *room)
{
    if (w->direct) {
        zdem_out_buffer *o = (zdem_out_buffer *)w->user;
        *at = o->data + o->len;
        *room = o->full ? 0u : o->cap - o->len;
    } else {
        *at = w->batch + w->nbatch;
        *room = sizeof w->batch - w->nbatch;
    }
}

static void sink_took(zdem_q3_writer *w, size_t n)
{
    w->info.bytes += n;
    if (w->direct)
        ((zdem_out_buffer *)w->user)->len += n;
    else
        w->nbatch += n;
}

/* Output goes out in batches (a callback per 32 KiB, not per message);
 * a span of the input as large as the batch or larger goes straight to
 * the output, uncopied. */
static zdem_status emit_raw(zdem_q3_writer *w, const uint8_t *data, size_t len, zdem_error *err)
{
    if (w->direct) {
        w->info.bytes += len;
        if (zdem_out_buffer_write(w->user, data, len))
            return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "the output did not take the clip");
        return ZDEM_OK;
    }
    w->info.bytes += len;
    if (len > sizeof w->batch - w->nbatch) {
        zdem_status st = flush(w, err);
        if (st != ZDEM_OK)
            return st;
        if (len >= sizeof w->batch) {
            if (w->write(w->user, data, len))
                return zdem_fail(err, w->write == zdem_out_buffer_write ? ZDEM_ERR_NO_SPACE
                                                                       : ZDEM_ERR_ABORTED,
                                 0, "the output did not take the clip");
            return ZDEM_OK;
        }
    }
    memcpy(w->batch + w->nbatch, data, len);
    w->nbatch += len;
    return ZDEM_OK;
}

/* The input's messages waiting in w->span go first. */
static zdem_status flush_span(zdem_q3_writer *w, zdem_error *err)
{
    size_t n = w->span_len;
    w->span_len = 0;
    return n ? emit_raw(w, w->span, n, err) : ZDEM_OK;
}

static zdem_status emit(zdem_q3_writer *w, const uint8_t *data, size_t len, zdem_error *err)
{
    zdem_status st = flush_span(w, err);
    return st == ZDEM_OK ? emit_raw(w, data, len, err) : st;
}

static void store_le32(uint8_t *d, uint32_t v)
{
    d[0] = (uint8_t)v;
    d[1] = (uint8_t)(v >> 8);
    d[2] = (uint8_t)(v >> 16);
    d[3] = (uint8_t)(v >> 24);
}

/* [sequence][length][the message]: into the batch in one go when it
 * fits (most messages are a few hundred bytes). */
static zdem_status emit_message(zdem_q3_writer *w, int32_t seq, const uint8_t *data, size_t len,
                                zdem_error *err)
{
    uint8_t h[8];
    zdem_status st;
    store_le32(h, (uint32_t)seq);
    store_le32(h + 4, (uint32_t)len);
    uint8_t *at;
    size_t room;
    w->info.messages++;
    st = flush_span(w, err);
    if (st != ZDEM_OK)
        return st;
    sink_of(w, &at, &room);
    if (8u + len <= room) {
        memcpy(at, h, 8);
        memcpy(at + 8, data, len);
        sink_took(w, 8u + len);
        return ZDEM_OK;
    }
    st = emit(w, h, 8, err);
    if (st == ZDEM_OK)
        st = emit(w, data, len, err);
    return st;
}

/* Where the commands after a snapshot end, for a message written again:
 * the bit after svc_EOF (dm_90+: after the commands an svc_extension
 * adds), or where a cut svc_EOF code begins (*cut: Quake Live may leave
 * out the last bits); legacy messages end where they end. Server
 * commands and no-ops are stepped over; anything else after a snapshot
 * is not written again (-1). Read from the parser's padded copy. */
static long tail_end(const zdem_q3_parser *p, size_t from, size_t len, int *cut)
{
    zdem_q3_msg m;
    char dummy[1];
    *cut = 0;
    if (p->proto->legacy)
        return (long)(len * 8u);
    zdem_q3_msg_init(&m, p->msgbuf, len);
    m.lim = len + ZDEM_Q3_MSG_PAD;
    m.bit = from;
    for (;;) {
        size_t at = m.bit;
        uint32_t cmd = zdem_q3_read_byte(&m);
        if (m.overflow) {
            *cut = 1;
            return (long)at;
        }
        if (cmd == 8) { /* svc_EOF */
            size_t after = m.bit;
            if (p->proto->protocol >= 90 && zdem_q3_read_byte(&m) == 9 && !m.overflow)
                continue; /* svc_extension: a command follows */
            return (long)after;
        }
        if (cmd == 1) /* svc_nop */
            continue;
        if (cmd != 5) /* svc_serverCommand */
            return -1;
        (void)zdem_q3_read_long(&m);
        (void)zdem_q3__read_string((zdem_q3_parser *)(uintptr_t)p, &m, ZDEM_Q3_MAX_STRING_CHARS,
                                   dummy, sizeof dummy);
        if (m.overflow || (m.bad & 0x8000u))
            return -1;
    }
}

/* The message just parsed with its snapshot replaced by the one in
 * w->snap: its bits before the snapshot and after it are copied as they
 * are (a cut svc_EOF code is written whole). External: out of the
 * per-message path. */
zdem_status zdem_q3__writer_reassembled(zdem_q3_writer *w, const zdem_q3_frame *f, zdem_error *err);

zdem_status zdem_q3__writer_reassembled(zdem_q3_writer *w, const zdem_q3_frame *f, zdem_error *err)
{
    const zdem_q3_parser *p = w->p;
    zdem_q3_bw b;
    size_t tail = p->w_snap_end, len,
           start = p->w_snap_start - (p->proto->legacy ? 8u : (zdem_q3_huff_encode[7] >> 11));
    int cut;
    long end = tail_end(p, tail, f->len, &cut);
    if (p->w_snap_start != w->snap_at || end < 0)
        return zdem_fail(err, ZDEM_ERR_UNSUPPORTED, 0,
                         "a message with more than a snapshot and server commands cannot be re-encoded");
    zdem_q3_bw_init(&b, w->out, ZDEM_Q3_MAX_MSGLEN);
    b.raw = p->proto->legacy;
    zdem_q3_bw_copy(&b, f->data, 0, start);
    zdem_q3_bw_copy(&b, w->snap, 0, w->snap_bits);
    if (b.raw) { /* legacy commands start on a byte boundary */
        zdem_q3_bw_align(&b);
        tail = (tail + 7u) & ~(size_t)7u;
    }
    if (tail < (size_t)end)
        zdem_q3_bw_copy(&b, f->data, tail, (size_t)end);
    if (cut)
        zdem_q3_bw_byte(&b, 8); /* svc_EOF */
    len = zdem_q3_bw_finish(&b);
    if (b.over)
        return zdem_fail(err, ZDEM_ERR_LIMIT, 0,
                         "a message with its snapshot written whole is longer than 16384 bytes");
    return emit_message(w, f->sequence, w->out, len, err);
}

/* ---------------------------------------------------------------- API */

zdem_q3_writer *zdem_q3_writer_init(void *mem, size_t size, int protocol,
                                    int32_t start_ms, int32_t end_ms,
                                    zdem_write_fn write, void *user, zdem_error *err)
{
    zdem_q3_writer *w;
    zdem_q3_callbacks cb;
    uintptr_t a = (uintptr_t)mem;
    uint8_t *pm;
    if (!mem || size < zdem_q3_writer_size() || !write) {
        zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "writer memory smaller than zdem_q3_writer_size()");
        return NULL;
    }
    a = (a + 15u) & ~(uintptr_t)15u;
    w = (zdem_q3_writer *)a;
    memset(w, 0, offsetof(struct zdem_q3_writer, gs));
    w->nbatch = 0;
    w->direct = write == zdem_out_buffer_write;
    w->magic = WRITER_MAGIC;
    w->start = start_ms;
    w->end = end_ms;
    w->write = write;
    w->user = user;
    w->state = BEFORE;
    memset(&cb, 0, sizeof cb);
    cb.gamestate = on_gamestate;
    cb.snapshot = on_snapshot;
    pm = (uint8_t *)w + writer_head();
    w->p = zdem_q3_parser_init(pm, size - (size_t)(pm - (uint8_t *)mem), protocol, &cb, w, err);
    if (!w->p)
        return NULL;
    w->p->no_events = 1; /* a clip needs the state, not the events */
    w->zero_ent.number = 0;
    return w;
}

/* The rest of a message that set one of the flags above or failed:
 * external, out of the per-message path. */
zdem_status zdem_q3__writer_flagged(zdem_q3_writer *w, const zdem_q3_frame *f, zdem_status st,
                                    zdem_error *err);

zdem_status zdem_q3__writer_flagged(zdem_q3_writer *w, const zdem_q3_frame *f, zdem_status st,
                                    zdem_error *err)
{
    if (w->cb_fail != ZDEM_OK) { /* the writer's own stop, not the input's */
        zdem_error_clear(err);
        return zdem_fail(err, w->cb_fail, 0, w->cb_msg);
    }
    if (st != ZDEM_OK)
        return st; /* damaged: the clip ends before this message */
    if (w->first) {
        st = emit_message(w, (int32_t)((uint32_t)f->sequence - 1u), w->gs, w->gs_len, err);
        if (st != ZDEM_OK)
            return st;
        w->state = IN_RANGE;
    }
    if (w->state != IN_RANGE)
        return ZDEM_OK;
    if (w->past_end) {
        w->state = DONE;
        return ZDEM_OK;
    }
    if (w->whole)
        return zdem_q3__writer_reassembled(w, f, err);
    return emit_message(w, f->sequence, f->data, f->len, err);
}

/* One message (zdem_q3_writer_message without the check of w). in_file:
 * f is a message of zdem_q3_cut's input (its 8-byte header just before
 * f->data, as read): one copied as it is goes out with that header,
 * joined to the messages before it when it follows them there. */
static zdem_status writer_step(zdem_q3_writer *w, const zdem_q3_frame *f, zdem_error *err,
                               int in_file)
{
    zdem_status st;
    if (w->state == DONE)
        return ZDEM_OK;
    if (w->flagged) {
        w->first = w->whole = w->past_end = 0;
        w->cb_fail = ZDEM_OK;
        w->flagged = 0;
    }
    w->cmdseq0 = w->p->server_command_sequence;
    st = zdem_q3_parse_message(w->p, f, err);
    if (st != ZDEM_OK || w->flagged)
        return zdem_q3__writer_flagged(w, f, st, err);
    if (w->state != IN_RANGE)
        return ZDEM_OK;
    if (in_file) {
        const uint8_t *at = f->data - 8;
        w->info.messages++;
        if (w->span_len && w->span + w->span_len == at) {
            w->span_len += f->len + 8u;
            return ZDEM_OK;
        }
        st = flush_span(w, err);
        w->span = at;
        w->span_len = f->len + 8u;
        return st;
    }
    return emit_message(w, f->sequence, f->data, f->len, err);
}

zdem_status zdem_q3_writer_message(zdem_q3_writer *w, const zdem_q3_frame *f, zdem_error *err)
{
    if (!w || w->magic != WRITER_MAGIC)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "writer not initialised");
    return writer_step(w, f, err, 0);
}

int zdem_q3_writer_done(const zdem_q3_writer *w)
{
    return w->state == DONE;
}

zdem_status zdem_q3_writer_finish(zdem_q3_writer *w, zdem_error *err)
{
    static const uint8_t end[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    if (!w || w->magic != WRITER_MAGIC)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "writer not initialised");
    zdem_status st;
    w->state = DONE;
    st = emit(w, end, sizeof end, err);
    if (st == ZDEM_OK)
        st = flush(w, err);
    return st;
}

const zdem_q3_cut_info *zdem_q3_writer_info(const zdem_q3_writer *w)
{
    return &w->info;
}

const zdem_q3_parser *zdem_q3_writer_parser(const zdem_q3_writer *w)
{
    return w->p;
}

zdem_status zdem_q3_cut(void *mem, size_t size, int protocol, const uint8_t *data,
                        size_t n, int32_t start_ms, int32_t end_ms, zdem_write_fn write,
                        void *user, zdem_q3_cut_info *info, zdem_error *err)
{
    zdem_q3_writer *w = zdem_q3_writer_init(mem, size, protocol, start_ms, end_ms, write, user, err);
    zdem_q3_reader r;
    zdem_q3_frame f;
    zdem_status st = ZDEM_OK, fin;
    zdem_error e;
    int got;
    if (!w)
        return err ? err->code : ZDEM_ERR_NO_SPACE;
    zdem_q3_reader_init(&r, data, n);
    zdem_error_clear(&e);
    while (w->state != DONE) {
        st = zdem_q3__reader_next(&r, &f, &got, &e);
        if (st != ZDEM_OK || !got)
            break;
        st = writer_step(w, &f, &e, 1);
        if (st != ZDEM_OK) {
            if (e.offset_is_bits) { /* inside the message: a file offset */
                e.offset = f.offset + 8u + e.offset / 8u;
                e.offset_is_bits = 0;
            } else if (st != ZDEM_ERR_ABORTED && st != ZDEM_ERR_NO_SPACE) {
                e.offset = f.offset;
            }
            break;
        }
    }
    fin = zdem_q3_writer_finish(w, st == ZDEM_OK ? &e : NULL);
    if (st == ZDEM_OK)
        st = fin;
    if (info)
        *info = w->info;
    if (st != ZDEM_OK && err)
        *err = e;
    return st;
}
