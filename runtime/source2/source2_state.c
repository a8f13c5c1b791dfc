/* Source 2 state: arena, warnings, the one-pass frame driver (push input
 * and whole files alike), frame and inner-message dispatch, seeking,
 * queries. */
#include "source2_state_int.h"
#include "zdem_snappy.h"

void zdem_s2_config_default(zdem_s2_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->max_entities = 16384;
    cfg->max_field_paths = 8192;
    cfg->tmp_size = 4u << 20;
    cfg->frame_buffer = ZDEM_S2_FRAME_BUFFER_DEFAULT;
    cfg->gather_buffer = ZDEM_S2_FRAME_BUFFER_DEFAULT;
    cfg->max_expand_per_byte = ZDEM_S2_WORK_EXPAND_DEFAULT;
    cfg->max_items_per_byte = ZDEM_S2_WORK_ITEMS_DEFAULT;
    cfg->max_fields_per_byte = ZDEM_S2_WORK_FIELDS_DEFAULT;
    cfg->plan_cache = ZDEM_S2_PLAN_CACHE_DEFAULT;
}

/* ---- arena --------------------------------------------------------------- */

static void touch_peak(zdem_s2_state *s)
{
    if (s->used > s->peak)
        s->peak = s->used;
}

uint32_t zdem_s2_alloc(zdem_s2_state *s, size_t n)
{
    size_t off = (s->used + 7u) & ~(size_t)7u;
    if (n > s->cap || off > s->cap - n || off + n > 0xFFFFFFF0u)
        return 0;
    s->used = off + n;
    touch_peak(s);
    return (uint32_t)off;
}

uint8_t *zdem_s2_alloc_peek(zdem_s2_state *s, size_t *avail)
{
    size_t off = (s->used + 7u) & ~(size_t)7u;
    *avail = 0;
    if (off >= s->cap || off >= 0xFFFFFFF0u)
        return 0;
    *avail = s->cap - off < 0xFFFFFFF0u - off ? s->cap - off : 0xFFFFFFF0u - off;
    return s->base + off;
}

static unsigned pool_class(size_t n)
{
    unsigned c = 0;
    while (((size_t)16u << c) < n && c < S2_POOL_CLASSES - 1u)
        c++;
    return c;
}

uint32_t zdem_s2_pool_alloc(zdem_s2_state *s, size_t n)
{
    unsigned c = pool_class(n);
    uint32_t off = s->free_head[c];
    if (((size_t)16u << c) < n)
        return 0;
    if (off) {
        memcpy(&s->free_head[c], s->base + off, 4);
        return off;
    }
    return zdem_s2_alloc(s, (size_t)16u << c);
}

void zdem_s2_pool_free(zdem_s2_state *s, uint32_t off, size_t n)
{
    unsigned c = pool_class(n);
    if (!off)
        return;
    memcpy(s->base + off, &s->free_head[c], 4);
    s->free_head[c] = off;
}

/* ---- warnings ---------------------------------------------------------- */

void zdem_s2_state_warn(zdem_s2_state *s, zdem_s2_warn_kind k, zdem_error *e)
{
    zdem_error w;
    if (e && e->code != ZDEM_OK) {
        w = *e;
        zdem_error_rebase(&w, s->cur_base);
    } else {
        zdem_error_clear(&w);
        zdem_fail(&w, zdem_s2_warn_is_damage(k) ? ZDEM_ERR_CORRUPT : ZDEM_ERR_LIMIT,
                  s->cur_base, zdem_s2_warn_text(k));
    }
    zdem_error_in_frame(&w, s->cur_frame);
    zdem_s2_warn(&s->warn, k, &w);
}

void zdem_s2_warn_msg(zdem_s2_state *s, zdem_s2_warn_kind k, const char *msg)
{
    zdem_error e;
    zdem_error_clear(&e);
    zdem_fail(&e, zdem_s2_warn_is_damage(k) ? ZDEM_ERR_CORRUPT : ZDEM_ERR_LIMIT, 0, msg);
    zdem_s2_state_warn(s, k, &e);
}

/* ---- work budget --------------------------------------------------------- */

int zdem_s2_spend(zdem_s2_state *s, zdem_s2_work_kind k, uint64_t n, const char *what)
{
    if (zdem_s2_work_take(&s->work, k, n))
        return 1;
    zdem_s2_warn_msg(s, ZDEM_S2_W_WORK_LIMIT, what);
    return 0;
}

/* A handler's result: a callback's stop goes on up; anything else it could
 * not decode is counted under `damage` (a full arena under its own kind)
 * and the run goes on. */
static zdem_status handled(zdem_s2_state *s, zdem_status st, zdem_error *e,
                           zdem_s2_warn_kind damage)
{
    if (st == ZDEM_OK)
        return ZDEM_OK;
    if (st == ZDEM_ERR_ABORTED)
        return st;
    zdem_s2_state_warn(s, st == ZDEM_ERR_NO_SPACE ? ZDEM_S2_W_ARENA_FULL : damage, e);
    return ZDEM_OK;
}

/* ---- set-up ---------------------------------------------------------------- */

size_t zdem_s2_state_fixed_size(const zdem_s2_config *cfg)
{
    return sizeof(zdem_s2_state) + 128u +
           (size_t)cfg->max_entities * (sizeof(s2_ent) + 4u) +
           (size_t)cfg->max_field_paths * (sizeof(zdem_s2_fp) + sizeof(s2_planned)) +
           zdem_s2_pc_size(cfg->plan_cache) +
           cfg->tmp_size +
           cfg->frame_buffer + (cfg->inner_buffer ? cfg->inner_buffer : cfg->frame_buffer) +
           cfg->gather_buffer + 64u;
}

static zdem_status state_on_frame(void *ctx, const zdem_s2_outer *m, zdem_error *err);
zdem_status zdem_s2_state_push_frame(void *ctx, const zdem_s2_outer *m, zdem_error *err)
{
    return state_on_frame(ctx, m, err);
}

static void state_on_skip(void *ctx, uint64_t offset, uint64_t len);

/* A buffer from the arena; NULL (and *cap 0) for a zero size. */
static int carve(zdem_s2_state *s, size_t n, uint8_t **p, size_t *cap)
{
    uint32_t off;
    *p = 0;
    *cap = 0;
    if (!n)
        return 1;
    off = zdem_s2_alloc(s, n);
    if (!off)
        return 0;
    *p = s->base + off;
    *cap = n;
    return 1;
}

zdem_status zdem_s2_state_init(zdem_s2_state **out, void *arena,
                               size_t arena_size, const zdem_s2_config *cfg,
                               zdem_error *err)
{
    zdem_s2_state *s;
    uintptr_t a = (uintptr_t)arena;
    size_t pad = (size_t)((8u - (a & 7u)) & 7u), tmp_cap;
    uint32_t off;
    *out = 0;
    if (!arena || arena_size < pad + sizeof(zdem_s2_state) + 64u)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena smaller than the state header");
    s = (zdem_s2_state *)(void *)((uint8_t *)arena + pad);
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    if (!s->cfg.max_entities)
        s->cfg.max_entities = 16384;
    if (!s->cfg.max_field_paths)
        s->cfg.max_field_paths = 8192;
    s->base = (uint8_t *)s;
    s->cap = arena_size - pad;
    s->used = sizeof *s;
    s->peak = s->used;
    s->seed = s->cfg.hash_seed ? s->cfg.hash_seed : 0x5A44454D53325F31ull; /* "ZDEMS2_1" */
    zdem_s2_fphash_init(&s->fph, s->seed);
    s->baseline_table = s->userinfo_table = s->combatlog_table = -1;
    s->tick = -1;
    s->stop_tick = -1;
    zdem_s2_work_init(&s->work);
    s->work.per_byte[ZDEM_S2_WORK_EXPAND] = s->cfg.max_expand_per_byte;
    s->work.per_byte[ZDEM_S2_WORK_ITEMS] = s->cfg.max_items_per_byte;
    s->work.per_byte[ZDEM_S2_WORK_FIELDS] = s->cfg.max_fields_per_byte;
    s->tick_interval = 1.0f / 30.0f;
    s->max_ents = s->cfg.max_entities;
    off = zdem_s2_alloc(s, (size_t)s->max_ents * sizeof(s2_ent));
    if (!off)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for max_entities");
    s->ents = (s2_ent *)s2_ptr(s, off);
    /* cls == -1 marks a free slot, and a create clears the rest: only
     * cls is written (a 4-byte store per slot costs an eighth of filling
     * every byte, and a state is set up for every input a fuzz target runs) */
    {
        uint32_t i;
        for (i = 0; i < s->max_ents; i++)
            s->ents[i].cls = -1;
    }
    off = zdem_s2_alloc(s, (size_t)s->max_ents * 4u);
    if (!off)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for max_entities");
    s->live_list = (uint32_t *)s2_ptr(s, off);
    s->max_fps = s->cfg.max_field_paths;
    off = zdem_s2_alloc(s, (size_t)s->max_fps * sizeof(zdem_s2_fp));
    if (!off)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for max_field_paths");
    s->fps = (zdem_s2_fp *)s2_ptr(s, off);
    off = zdem_s2_alloc(s, (size_t)s->max_fps * sizeof(*s->plan));
    if (!off)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for max_field_paths");
    s->plan = (s2_planned *)s2_ptr(s, off);
    if (!zdem_s2_pc_init(s, s->cfg.plan_cache))
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for plan_cache");
    if (!carve(s, s->cfg.tmp_size, &s->tmp, &tmp_cap))
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for tmp_size");
    s->tmp_size = (uint32_t)tmp_cap;
    if (!carve(s, s->cfg.frame_buffer, &s->frame_buf, &s->frame_cap) ||
        !carve(s, s->cfg.inner_buffer ? s->cfg.inner_buffer : s->cfg.frame_buffer,
               &s->inner_buf, &s->inner_cap) ||
        !carve(s, s->cfg.gather_buffer, &s->gather_buf, &s->gather_cap))
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for the frame buffers");
    zdem_s2_push_init(&s->push, state_on_frame, state_on_skip, s, s->gather_buf, s->gather_cap);
    if (s->cfg.events_only)
        s->push.skip_cmds = zdem_s2_events_unread_cmds() & ~s->cfg.frame_payloads;
    *out = s;
    return ZDEM_OK;
}

/* ---- inner messages --------------------------------------------------- */

static void server_info(zdem_s2_state *s, const uint8_t *msg, size_t n)
{
    zdem_pb_CSVCMsg_ServerInfo m;
    zdem_error e;
    zdem_error_clear(&e);
    /* a malformed ServerInfo keeps what decoded before the error */
    (void)zdem_pb_CSVCMsg_ServerInfo_decode(msg, n, &m, NULL, NULL, &e);
    if (m.has_max_classes && m.max_classes > 0 && m.max_classes < 0x100000) {
        uint32_t b = 0, c = (uint32_t)m.max_classes;
        s->max_classes = m.max_classes;
        /* floor(log2(max_classes)) + 1 bits */
        while ((c >> b) > 1u)
            b++;
        s->class_bits = b + 1u;
    }
    if (m.has_tick_interval && m.tick_interval > 0.0f && m.tick_interval < 1.0f)
        s->tick_interval = m.tick_interval;
}

/* The server tick; "tick" everywhere else is the demo (frame) tick, the
 * one --tick and playback_ticks count. */
static void net_tick(zdem_s2_state *s, const uint8_t *msg, size_t n)
{
    zdem_pb_CNETMsg_Tick m;
    zdem_error e;
    zdem_error_clear(&e);
    (void)zdem_pb_CNETMsg_Tick_decode(msg, n, &m, NULL, NULL, &e);
    if (m.has_tick)
        s->server_tick = (int32_t)m.tick;
}

/* Events mode: the types on_inner acts on, less PacketEntities. Every other
 * message is stepped over uncopied, so the inner buffer need only hold
 * these. Keep in step with on_inner's switch. */
static int inner_for_events(uint32_t type)
{
    switch (type) {
    case ZDEM_S2_net_Tick:
    case ZDEM_S2_svc_ServerInfo:
    case ZDEM_S2_net_SetConVar:
    case ZDEM_S2_GE_FireBulletsId:
    case ZDEM_S2_svc_ClearAllStringTables:
    case ZDEM_S2_svc_CreateStringTable:
    case ZDEM_S2_svc_UpdateStringTable:
    case ZDEM_S2_GE_Source1LegacyGameEventList:
    case ZDEM_S2_GE_Source1LegacyGameEvent:
    case ZDEM_S2_UM_SayText:
    case ZDEM_S2_UM_SayText2:
    case ZDEM_S2_DOTA_UM_ChatMessage:
    case ZDEM_S2_DOTA_UM_CombatLogDataHLTV:
    case ZDEM_S2_DOTA_UM_CombatLogBulkData:
        return 1;
    default:
        return 0;
    }
}

typedef struct state_inner_ctx {
    zdem_s2_state *s;
    uint64_t data_pos; /* of the packet data in the frame's payload */
} state_inner_ctx;

static zdem_status on_inner(void *user, const zdem_s2_inner *m)
{
    state_inner_ctx *c = (state_inner_ctx *)user;
    zdem_s2_state *s = c->s;
    zdem_error e;
    zdem_status st = ZDEM_OK;
    zdem_s2_warn_kind kind = ZDEM_S2_W_BAD_MESSAGES;
    zdem_error_clear(&e);
    s->cur_base = c->data_pos + m->data_bit / 8u;
    s->stats.inner_messages++;
    if (!m->data) { /* larger than the inner-message buffer: this one only */
        zdem_s2_warn_msg(s, ZDEM_S2_W_MESSAGE_LIMIT,
                         "inner message larger than the inner-message buffer: skipped");
        return ZDEM_OK;
    }
    switch (m->type) {
    case ZDEM_S2_net_Tick:
        net_tick(s, m->data, m->size);
        break;
    case ZDEM_S2_svc_ServerInfo:
        server_info(s, m->data, m->size);
        break;
    case ZDEM_S2_net_SetConVar:
        if (!s->cfg.skip_events)
            st = zdem_s2_convars(s, m->data, m->size, &e);
        break;
    case ZDEM_S2_GE_FireBulletsId:
        if (!s->cfg.skip_events)
            st = zdem_s2_simple_event(s, "fire_bullets", &e);
        break;
    case ZDEM_S2_svc_ClearAllStringTables:
        zdem_s2_st_clear_all(s);
        break;
    case ZDEM_S2_svc_CreateStringTable:
        st = zdem_s2_st_create(s, m->data, m->size, &e);
        kind = ZDEM_S2_W_BAD_STRING_TABLES;
        break;
    case ZDEM_S2_svc_UpdateStringTable:
        st = zdem_s2_st_update(s, m->data, m->size, &e);
        kind = ZDEM_S2_W_BAD_STRING_TABLES;
        break;
    case ZDEM_S2_svc_PacketEntities:
        if (!s->cfg.skip_entities)
            st = zdem_s2_packet_entities(s, m->data, m->size, &e);
        kind = ZDEM_S2_W_BAD_ENTITY_PACKETS;
        break;
    case ZDEM_S2_GE_Source1LegacyGameEventList:
        st = zdem_s2_event_list(s, m->data, m->size, &e);
        break;
    case ZDEM_S2_GE_Source1LegacyGameEvent:
        if (!s->cfg.skip_events)
            st = zdem_s2_game_event(s, m->data, m->size, &e);
        break;
    case ZDEM_S2_UM_SayText:
    case ZDEM_S2_UM_SayText2:
    case ZDEM_S2_DOTA_UM_ChatMessage:
        if (!s->cfg.skip_events)
            st = zdem_s2_chat(s, m->type, m->data, m->size, &e);
        break;
    case ZDEM_S2_DOTA_UM_CombatLogDataHLTV:
    case ZDEM_S2_DOTA_UM_CombatLogBulkData:
        if (!s->cfg.skip_events)
            st = zdem_s2_combat_log(s, m->type, m->data, m->size, &e);
        break;
    default:
        break;
    }
    return handled(s, st, &e, kind);
}

/* The inner messages of a packet's data (a view into payload). */
static zdem_status state_packet_data(zdem_s2_state *s, const uint8_t *payload,
                               zdem_view data)
{
    state_inner_ctx c;
    zdem_error e;
    zdem_status st;
    if (!data.ptr || !data.len)
        return ZDEM_OK;
    c.s = s;
    c.data_pos = (uint64_t)(data.ptr - payload);
    zdem_error_clear(&e);
    st = zdem_s2_for_each_inner_work(data.ptr, data.len, s->cfg.entities_in_wire_order ? 2 : 1,
                                     s->cfg.events_only ? inner_for_events : NULL,
                                     s->inner_buf, s->inner_cap, on_inner, &c, &s->work, &e);
    if (st == ZDEM_ERR_ABORTED)
        return st;
    if (st == ZDEM_ERR_LIMIT) { /* the budget: the rest of the packet is skipped */
        s->cur_base = c.data_pos;
        zdem_s2_state_warn(s, ZDEM_S2_W_WORK_LIMIT, &e);
        return ZDEM_OK;
    }
    if (st != ZDEM_OK) {
        s->cur_base = c.data_pos; /* the framing error is a bit offset in data */
        zdem_s2_state_warn(s, ZDEM_S2_W_BAD_PACKETS, &e);
    }
    return ZDEM_OK;
}

static zdem_status packet(zdem_s2_state *s, const uint8_t *msg, size_t n)
{
    zdem_pb_CDemoPacket m;
    zdem_error e;
    zdem_status st;
    zdem_error_clear(&e);
    if (s->raw_packets) { /* a broadcast record: the data itself */
        zdem_view v;
        v.ptr = msg;
        v.len = (uint32_t)n;
        return state_packet_data(s, msg, v);
    }
    st = zdem_pb_CDemoPacket_decode(msg, n, &m, NULL, NULL, &e);
    if (st != ZDEM_OK)
        return handled(s, st, &e, ZDEM_S2_W_BAD_FRAMES);
    return m.has_data ? state_packet_data(s, msg, m.data) : ZDEM_OK;
}

/* CDemoFullPacket: the string tables go through their callbacks while it
 * decodes, then the packet. */
static zdem_status full_packet(zdem_s2_state *s, const uint8_t *msg, size_t n)
{
    static const zdem_pb_CDemoFullPacket_cb cb = {&zdem_s2_st_demo_tables_cb};
    zdem_pb_CDemoFullPacket m;
    s2_pbctx c;
    zdem_error e;
    zdem_status st;
    zdem_error_clear(&e);
    c.s = s;
    c.err = &e;
    c.msg = msg;
    st = zdem_pb_CDemoFullPacket_decode(msg, n, &m, &cb, &c, &e);
    s->cur_base = 0;
    if (st != ZDEM_OK)
        return handled(s, st, &e, ZDEM_S2_W_BAD_FRAMES);
    return m.has_packet && m.packet.has_data ? state_packet_data(s, msg, m.packet.data) : ZDEM_OK;
}

static zdem_status demo_tables(zdem_s2_state *s, const uint8_t *msg, size_t n)
{
    zdem_error e;
    zdem_status st;
    zdem_error_clear(&e);
    st = zdem_s2_st_demo_tables(s, msg, n, &e);
    s->cur_base = 0;
    return handled(s, st, &e, ZDEM_S2_W_BAD_STRING_TABLES);
}

zdem_status zdem_s2_state_frame(zdem_s2_state *s, const zdem_s2_outer *m,
                                const uint8_t *payload, size_t size,
                                zdem_error *err)
{
    zdem_status st = ZDEM_OK;
    zdem_error e;
    s->cur_frame = m->offset;
    s->cur_base = 0;
    /* a caller that frames the file itself: the budget follows it too */
    if (m->payload_offset + m->stored_size > s->work.input)
        s->work.input = m->payload_offset + m->stored_size;
    /* the demo tick is the game state's: header and file info frames,
     * written at the end, do not move it */
    if (m->tick >= 0 && m->cmd != ZDEM_S2_DEM_SYNCTICK && m->cmd != ZDEM_S2_DEM_FILEHEADER &&
        m->cmd != ZDEM_S2_DEM_FILEINFO)
        s->tick = (int32_t)(m->tick > 0x7FFFFFFF ? 0x7FFFFFFF : m->tick);
    zdem_error_clear(&e);
    switch (m->cmd) {
    case ZDEM_S2_DEM_SENDTABLES:
        st = handled(s, zdem_s2_ser_load(s, payload, size, &e), &e, ZDEM_S2_W_BAD_FRAMES);
        break;
    case ZDEM_S2_DEM_CLASSINFO:
        st = handled(s, zdem_s2_classinfo(s, payload, size, &e), &e, ZDEM_S2_W_BAD_FRAMES);
        break;
    case ZDEM_S2_DEM_STRINGTABLES:
        st = demo_tables(s, payload, size);
        break;
    case ZDEM_S2_DEM_PACKET:
    case ZDEM_S2_DEM_SIGNONPACKET:
        st = packet(s, payload, size);
        break;
    case ZDEM_S2_DEM_FULLPACKET:
        st = full_packet(s, payload, size);
        break;
    case ZDEM_S2_DEM_FILEHEADER: {
        /* checked so that a damaged header is reported like any frame */
        zdem_pb_CDemoFileHeader fh;
        st = handled(s, zdem_pb_CDemoFileHeader_decode(payload, size, &fh, NULL, NULL, &e), &e,
                     ZDEM_S2_W_BAD_FRAMES);
        break;
    }
    case ZDEM_S2_DEM_FILEINFO: {
        zdem_pb_CDemoFileInfo fi;
        st = handled(s, zdem_pb_CDemoFileInfo_decode(payload, size, &fi, NULL, NULL, &e), &e,
                     ZDEM_S2_W_BAD_FRAMES);
        break;
    }
    default:
        break;
    }
    if (st == ZDEM_OK && s->cfg.on_tick &&
        (m->cmd == ZDEM_S2_DEM_PACKET || m->cmd == ZDEM_S2_DEM_FULLPACKET))
        st = s->cfg.on_tick(s->cfg.user, s, s->tick);
    if (st != ZDEM_OK)
        return zdem_fail(err, st, m->offset, "stopped by a callback");
    return ZDEM_OK;
}

/* ---- the frame driver ------------------------------------------------------ */

static int state_cmd(uint32_t cmd)
{
    return cmd == ZDEM_S2_DEM_SENDTABLES || cmd == ZDEM_S2_DEM_CLASSINFO ||
           cmd == ZDEM_S2_DEM_STRINGTABLES || cmd == ZDEM_S2_DEM_PACKET ||
           cmd == ZDEM_S2_DEM_SIGNONPACKET || cmd == ZDEM_S2_DEM_FULLPACKET ||
           cmd == ZDEM_S2_DEM_FILEHEADER || cmd == ZDEM_S2_DEM_FILEINFO;
}

static int game_cmd(uint32_t cmd)
{
    return cmd == ZDEM_S2_DEM_PACKET || cmd == ZDEM_S2_DEM_FULLPACKET;
}

/* The frame's payload in the frame buffer (or a view), or NULL after a
 * warning: a size over the buffer is a limit, a bad stream damage. */
static const uint8_t *frame_payload(zdem_s2_state *s, const zdem_s2_outer *m,
                                    size_t *n)
{
    const uint8_t *p = 0;
    zdem_error e;
    zdem_status st;
    size_t claim = 0;
    zdem_error_clear(&e);
    /* what the frame claims goes against the budget before it is
     * decompressed (a claim over the buffer is a frame_limit below) */
    if (m->compressed &&
        zdem_snappy_uncompressed_length(m->stored, m->stored_size, &claim, &e) == ZDEM_OK &&
        claim <= s->frame_cap &&
        !zdem_s2_spend(s, ZDEM_S2_WORK_EXPAND, claim,
                      "work limit max_expand_per_byte: frame not decompressed"))
        return 0;
    zdem_error_clear(&e);
    if ((st = zdem_s2_payload(m, s->frame_buf, s->frame_cap, &p, n, &e)) != ZDEM_OK) {
        /* offsets are file offsets: the frame, or the bad Snappy tag */
        zdem_s2_warn(&s->warn, st == ZDEM_ERR_NO_SPACE ? ZDEM_S2_W_FRAME_LIMIT
                                                        : ZDEM_S2_W_BAD_FRAMES, &e);
        return 0;
    }
    if (*n > s->usage.max_frame)
        s->usage.max_frame = *n;
    return p;
}

static zdem_status state_on_frame(void *ctx, const zdem_s2_outer *m, zdem_error *err)
{
    zdem_s2_state *s = (zdem_s2_state *)ctx;
    const uint8_t *p = 0;
    size_t n = 0;
    int want_state, want_user;
    zdem_status st;
    s->stats.frames++;
    if (m->payload_offset + m->stored_size > s->work.input)
        s->work.input = m->payload_offset + m->stored_size;
    if (game_cmd(m->cmd)) {
        if (s->seek_from && m->offset < s->seek_from)
            return ZDEM_OK; /* before the full packet a seek starts from */
        if (s->stop_tick >= 0 && m->tick > s->stop_tick)
            s->done = 1;
    }
    want_state = !s->done && state_cmd(m->cmd) &&
                 !(s->cfg.events_only && m->cmd < 32u && ((zdem_s2_events_unread_cmds() >> m->cmd) & 1u));
    want_user = s->cfg.on_frame && m->cmd < 32u && ((s->cfg.frame_payloads >> m->cmd) & 1u);
    s->cur_frame = m->offset;
    s->cur_base = 0;
    if (want_state || want_user)
        p = frame_payload(s, m, &n);
    if (s->cfg.on_frame) {
        st = s->cfg.on_frame(s->cfg.user, s, m, want_user ? p : 0, want_user && p ? n : 0);
        if (st != ZDEM_OK)
            return zdem_fail(err, st, m->offset, "stopped by the frame callback");
    }
    if (want_state && p)
        return zdem_s2_state_frame(s, m, p, n, err);
    return ZDEM_OK;
}

static void state_on_skip(void *ctx, uint64_t offset, uint64_t len)
{
    (void)len;
    zdem_s2_warn_skipped(&((zdem_s2_state *)ctx)->warn, offset);
}


zdem_status zdem_s2_state_feed(zdem_s2_state *s, const uint8_t *data, size_t n,
                               zdem_error *err)
{
    return zdem_s2_push_feed(&s->push, data, n, err);
}

void zdem_s2_state_stop_at(zdem_s2_state *s, int64_t stop_tick)
{
    s->stop_tick = stop_tick;
}

zdem_status zdem_s2_state_end(zdem_s2_state *s, zdem_error *err)
{
    return zdem_s2_warn_result(&s->warn, zdem_s2_push_end(&s->push, err), err);
}

zdem_status zdem_s2_state_run(zdem_s2_state *s, const uint8_t *file,
                              size_t size, int64_t stop_tick, zdem_error *err)
{
    s->stop_tick = stop_tick;
    return zdem_s2_warn_result(&s->warn, zdem_s2_push_file(&s->push, file, size, err), err);
}

zdem_status zdem_s2_state_seek(zdem_s2_state *s, const uint8_t *file,
                               size_t size, int64_t tick, zdem_error *err)
{
    zdem_s2_outer m;
    zdem_error e;
    size_t pos = ZDEM_S2_HEADER_SIZE, next;
    uint64_t best = 0;
    /* Frame headers only, up to the target: the last full packet at or
     * before it. A framing error ends the look-ahead; the run reports it. */
    zdem_error_clear(&e);
    while (size >= ZDEM_S2_HEADER_SIZE && pos < size &&
           zdem_s2_read_frame(file, size, pos, &m, &next, &e) == 1) {
        if (game_cmd(m.cmd) && m.tick > tick)
            break;
        if (m.cmd == ZDEM_S2_DEM_FULLPACKET)
            best = pos;
        pos = next;
    }
    s->seek_from = best;
    return zdem_s2_state_run(s, file, size, tick, err);
}

/* ---- queries --------------------------------------------------------------- */

int32_t zdem_s2_state_tick(const zdem_s2_state *s)
{
    return s->tick;
}

void zdem_s2_state_stats(const zdem_s2_state *s, zdem_s2_stats *out)
{
    *out = s->stats;
    out->string_tables = s->ntables;
    out->frames_unread = s->push.skipped;
}

void zdem_s2_state_usage(const zdem_s2_state *s, zdem_s2_usage *out)
{
    *out = s->usage;
    out->input_bytes = s->work.input;
    memcpy(out->work, s->work.used, sizeof out->work);
    out->arena_used = s->used;
    out->arena_peak = s->peak;
}

const zdem_s2_warnings *zdem_s2_state_warnings(const zdem_s2_state *s)
{
    return &s->warn;
}

const zdem_s2_header *zdem_s2_state_header(const zdem_s2_state *s)
{
    return &s->push.hdr;
}

int zdem_s2_state_complete(const zdem_s2_state *s)
{
    return zdem_s2_push_complete(&s->push);
}

uint32_t zdem_s2_class_count(const zdem_s2_state *s)
{
    return s->nclass_names;
}

uint32_t zdem_s2_serializer_count(const zdem_s2_state *s)
{
    return s->nser_names;
}

const char *zdem_s2_class_name(const zdem_s2_state *s, int32_t class_id,
                               uint32_t *len)
{
    if (class_id < 0 || (uint32_t)class_id >= s->nclasses || !s->classes[class_id].name)
        return 0;
    if (len)
        *len = s->classes[class_id].name_len;
    return (const char *)s->base + s->classes[class_id].name;
}

uint32_t zdem_s2_event_descriptor_count(const zdem_s2_state *s)
{
    return s->nevd;
}
