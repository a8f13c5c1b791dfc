/* Quake III snapshots: baselines, the shared entity pool, entity and
 * playerstate deltas (the generated decoders, quake3_tables.c), the
 * merge with the delta source, entity events */
#include "quake3_int.h"

#include <stddef.h>
#include <string.h>

/* ---------------------------------------------------------------- entities */

/* A baseline record: [start bit 0..7][u16 bit count][the bits as the
 * gamestate sent them, from that bit of the first byte]. Decoding it
 * again (baseline_of) reads the same bits with the same code, so gives
 * the same state; 236 bytes of state become the 10-40 bytes sent. */
int zdem_q3__store_baseline(zdem_q3_parser *p, uint32_t num, const zdem_q3_msg *m, size_t b0)
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
zdem_status zdem_q3__read_delta_entity(zdem_q3_parser *p, zdem_q3_msg *m,
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
    if (zdem_q3__read_delta_entity(p, &bm, NULL, dst, n, &e) != ZDEM_OK)
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
        st = zdem_q3__read_delta_entity(p, m, old, to, number, err);
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
    if ((was_event || is_event) && !p->no_events) {
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
    o.attacker_name = zdem_q3__player_name(p, o.attacker, p->name_a, sizeof p->name_a);
    o.target_name = zdem_q3__player_name(p, o.target, p->name_t, sizeof p->name_t);
    o.text = "";
    o.location = "";
    o.client = -1;
    return zdem_q3__emit_event(p, &o);
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

zdem_status zdem_q3__parse_snapshot(zdem_q3_parser *p, zdem_q3_msg *m, zdem_error *err)
{
    const zdem_q3_snapshot *old = NULL;
    int32_t delta, server_time, delta_num;
    uint32_t len, flags, k = (uint32_t)p->message_sequence & p->ring_mask;
    zdem_status st;
    zdem_q3_snapshot *ns, *bp;

    if (!p->proto || (!p->gamestates && !p->gamestate_damaged))
        return zdem_fail_bits(err, ZDEM_ERR_CORRUPT, m->bit, "snapshot before any gamestate");
    p->w_snap_start = m->bit;
    /* the padded copy (parse_message): unchecked reads, settled where a
     * checked read's position or overflow flag is looked at */
    if (p->proto->protocol == 3)
        p->w_snap_ccs = (int32_t)zdem_q3_pread_bits(m, 32); /* dm3: the client command sequence first */
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
        if (zdem_q3__warn(p, ZDEM_ERR_CORRUPT, m->bit, "snapshot after a damaged gamestate (dropped)"))
            return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
    } else if (p->baselines_over) {
        if (zdem_q3__warn_limit(p, m->bit, "limit max_baseline_store: snapshot dropped "
                                  "(its gamestate's baselines did not fit)"))
            return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
    } else if (bp->delta_num <= 0) {
        bp->valid = 1; /* uncompressed frame */
    } else {
        old = &p->snaps[(uint32_t)bp->delta_num & p->ring_mask];
        if ((!old->valid || old->message_num != bp->delta_num) &&
            delta >= (int32_t)p->lim.snapshot_ring && delta < ZDEM_Q3_PACKET_BACKUP) {
            /* the game's ring would still hold the base; ours is smaller */
            if (zdem_q3__warn_limit(p, m->bit, "limit max_snapshot_ring: snapshot delta base "
                                      "older than the ring (dropped)"))
                return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
        } else if (!old->valid && old->message_num == bp->delta_num &&
                   (p->evicted & (1u << ((uint32_t)bp->delta_num & p->ring_mask)))) {
            if (zdem_q3__warn_limit(p, m->bit, "limit max_entity_states: snapshot delta base "
                                      "evicted from the entity pool (dropped)"))
                return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
        } else if (!old->valid) {
            if (zdem_q3__warn(p, ZDEM_ERR_CORRUPT, m->bit, "snapshot delta from an invalid frame"))
                return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
        } else if (old->message_num != bp->delta_num) {
            if (zdem_q3__warn(p, ZDEM_ERR_CORRUPT, m->bit, "snapshot delta frame too old"))
                return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
        } else if (p->parse_entities_num - old->parse_index >
                   ZDEM_Q3_MAX_PARSE_ENTITIES - ZDEM_Q3_MAX_SNAPSHOT_ENTITIES) {
            if (zdem_q3__warn(p, ZDEM_ERR_CORRUPT, m->bit, "snapshot delta entities too old"))
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
        int stop = p->snap_over[0] == 'l' ? zdem_q3__warn_limit(p, m->bit, p->snap_over)
                                          : zdem_q3__warn(p, ZDEM_ERR_CORRUPT, m->bit, p->snap_over);
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
    p->w_snap_end = m->bit;
    /* entity events unless the caller takes none (a clip's writer) */
    if (!p->no_events && snapshot_events(p, ns, old))
        return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
    if (p->cb.snapshot && p->cb.snapshot(p->user, p, ns))
        return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
    return ZDEM_OK;
}

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
