/* Source 2 state: arena, frame dispatch, whole-file run, seeking, queries. */
#include "source2_state_int.h"
#include "zdem_snappy.h"

void zdem_s2_config_default(zdem_s2_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->max_entities = 16384;
    cfg->max_field_paths = 8192;
    cfg->tmp_size = 4u << 20;
}

/* ---- arena --------------------------------------------------------------- */

static void touch_peak(zdem_s2_state *s)
{
    if (s->used > s->peak)
        s->peak = s->used;
}

uint32_t s2_alloc(zdem_s2_state *s, size_t n)
{
    size_t off = (s->used + 7u) & ~(size_t)7u;
    if (n > s->cap || off > s->cap - n || off + n > 0xFFFFFFF0u)
        return 0;
    s->used = off + n;
    touch_peak(s);
    return (uint32_t)off;
}

uint8_t *s2_alloc_peek(zdem_s2_state *s, size_t *avail)
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

uint32_t s2_pool_alloc(zdem_s2_state *s, size_t n)
{
    unsigned c = pool_class(n);
    uint32_t off = s->free_head[c];
    if (((size_t)16u << c) < n)
        return 0;
    if (off) {
        memcpy(&s->free_head[c], s->base + off, 4);
        return off;
    }
    return s2_alloc(s, (size_t)16u << c);
}

void s2_pool_free(zdem_s2_state *s, uint32_t off, size_t n)
{
    unsigned c = pool_class(n);
    if (!off)
        return;
    memcpy(s->base + off, &s->free_head[c], 4);
    s->free_head[c] = off;
}

size_t zdem_s2_state_fixed_size(const zdem_s2_config *cfg)
{
    return sizeof(zdem_s2_state) + 64u + (size_t)cfg->max_entities * sizeof(s2_ent) +
           (size_t)cfg->max_field_paths * sizeof(zdem_s2_fp) + cfg->tmp_size + 64u;
}

zdem_status zdem_s2_state_init(zdem_s2_state **out, void *arena,
                               size_t arena_size, const zdem_s2_config *cfg,
                               zdem_error *err)
{
    zdem_s2_state *s;
    uintptr_t a = (uintptr_t)arena;
    size_t pad = (size_t)((8u - (a & 7u)) & 7u);
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
    s->baseline_table = -1;
    s->tick = -1;
    s->tick_interval = 1.0f / 30.0f;
    s->max_ents = s->cfg.max_entities;
    off = s2_alloc(s, (size_t)s->max_ents * sizeof(s2_ent));
    if (!off)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for max_entities");
    s->ents = (s2_ent *)s2_ptr(s, off);
    {
        uint32_t i;
        for (i = 0; i < s->max_ents; i++) {
            memset(&s->ents[i], 0, sizeof(s2_ent));
            s->ents[i].cls = -1;
        }
    }
    s->max_fps = s->cfg.max_field_paths;
    off = s2_alloc(s, (size_t)s->max_fps * sizeof(zdem_s2_fp));
    if (!off)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for max_field_paths");
    s->fps = (zdem_s2_fp *)s2_ptr(s, off);
    s->tmp_size = s->cfg.tmp_size;
    if (s->tmp_size) {
        off = s2_alloc(s, s->tmp_size);
        if (!off)
            return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for tmp_size");
        s->tmp = s->base + off;
    }
    *out = s;
    return ZDEM_OK;
}

/* ---- inner messages --------------------------------------------------- */

static zdem_status server_info(zdem_s2_state *s, const uint8_t *msg, size_t n)
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
    return ZDEM_OK;
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

static zdem_status on_inner(void *user, const zdem_s2_inner *m)
{
    zdem_s2_state *s = (zdem_s2_state *)user;
    zdem_error e;
    zdem_status st = ZDEM_OK;
    zdem_error_clear(&e);
    switch (m->type) {
    case ZDEM_S2_net_Tick:
        net_tick(s, m->data, m->size);
        break;
    case ZDEM_S2_svc_ServerInfo:
        st = server_info(s, m->data, m->size);
        break;
    case ZDEM_S2_net_SetConVar:
        if (!s->cfg.skip_events)
            st = s2_convars(s, m->data, m->size, &e);
        break;
    case ZDEM_S2_GE_FireBulletsId:
        if (!s->cfg.skip_events)
            st = s2_simple_event(s, "fire_bullets", &e);
        break;
    case ZDEM_S2_svc_CreateStringTable:
        st = s2_st_create(s, m->data, m->size, &e);
        break;
    case ZDEM_S2_svc_UpdateStringTable:
        if (s2_st_update(s, m->data, m->size, &e) != ZDEM_OK)
            s->stats.bad_string_updates++; /* reported, not fatal */
        break;
    case ZDEM_S2_svc_PacketEntities:
        if (!s->cfg.skip_entities)
            st = s2_packet_entities(s, m->data, m->size, &e);
        break;
    case ZDEM_S2_GE_Source1LegacyGameEventList:
        st = s2_event_list(s, m->data, m->size, &e);
        break;
    case ZDEM_S2_GE_Source1LegacyGameEvent:
        if (!s->cfg.skip_events)
            st = s2_game_event(s, m->data, m->size, &e);
        break;
    case ZDEM_S2_UM_SayText:
    case ZDEM_S2_UM_SayText2:
    case ZDEM_S2_DOTA_UM_ChatMessage:
        if (!s->cfg.skip_events)
            st = s2_chat(s, m->type, m->data, m->size, &e);
        break;
    case ZDEM_S2_DOTA_UM_CombatLogDataHLTV:
    case ZDEM_S2_DOTA_UM_CombatLogBulkData:
        if (!s->cfg.skip_events)
            st = s2_combat_log(s, m->type, m->data, m->size, &e);
        break;
    default:
        break;
    }
    /* Only a callback abort or a full arena stops the run: a malformed
     * message of one kind is counted and skipped. */
    if (st == ZDEM_ERR_ABORTED || st == ZDEM_ERR_NO_SPACE)
        return st;
    return ZDEM_OK;
}

static zdem_status packet(zdem_s2_state *s, const uint8_t *msg, size_t n,
                          uint8_t *scratch, size_t scratch_cap, zdem_error *err)
{
    zdem_pb_CDemoPacket m;
    zdem_status st = zdem_pb_CDemoPacket_decode(msg, n, &m, NULL, NULL, err);
    if (st != ZDEM_OK || !m.has_data)
        return st;
    return zdem_s2_for_each_inner(m.data.ptr, m.data.len, 1, scratch, scratch_cap,
                                  on_inner, s, err);
}

/* CDemoFullPacket: the string tables go through their callbacks while it
 * decodes, then the packet. */
static zdem_status full_packet(zdem_s2_state *s, const uint8_t *msg, size_t n,
                               uint8_t *scratch, size_t scratch_cap, zdem_error *err)
{
    static const zdem_pb_CDemoFullPacket_cb cb = {&s2_st_demo_tables_cb};
    zdem_pb_CDemoFullPacket m;
    s2_pbctx c;
    zdem_status st;
    c.s = s;
    c.err = err;
    s->in_fullpacket = 1;
    st = zdem_pb_CDemoFullPacket_decode(msg, n, &m, &cb, &c, err);
    if (st == ZDEM_OK && m.has_packet && m.packet.has_data)
        st = zdem_s2_for_each_inner(m.packet.data.ptr, m.packet.data.len, 1, scratch,
                                    scratch_cap, on_inner, s, err);
    s->in_fullpacket = 0;
    return st;
}

zdem_status zdem_s2_state_frame(zdem_s2_state *s, const zdem_s2_outer *m,
                                const uint8_t *payload, size_t size,
                                uint8_t *scratch, size_t scratch_cap,
                                zdem_error *err)
{
    zdem_status st = ZDEM_OK;
    if (m->tick >= 0 && m->cmd != ZDEM_S2_DEM_SYNCTICK)
        s->tick = m->tick;
    switch (m->cmd) {
    case ZDEM_S2_DEM_SENDTABLES:
        st = s2_ser_load(s, payload, size, err);
        if (st == ZDEM_ERR_CORRUPT || st == ZDEM_ERR_TRUNCATED || st == ZDEM_ERR_BAD_LENGTH ||
            st == ZDEM_ERR_VARINT || st == ZDEM_ERR_WIRE_TYPE)
            st = ZDEM_OK; /* entities will report; the rest still works */
        break;
    case ZDEM_S2_DEM_CLASSINFO:
        st = s2_classinfo(s, payload, size, err);
        break;
    case ZDEM_S2_DEM_STRINGTABLES:
        st = s2_st_demo_tables(s, payload, size, err);
        break;
    case ZDEM_S2_DEM_PACKET:
    case ZDEM_S2_DEM_SIGNONPACKET:
        st = packet(s, payload, size, scratch, scratch_cap, err);
        break;
    case ZDEM_S2_DEM_FULLPACKET:
        st = full_packet(s, payload, size, scratch, scratch_cap, err);
        break;
    default:
        break;
    }
    if (st == ZDEM_OK && s->cfg.on_tick &&
        (m->cmd == ZDEM_S2_DEM_PACKET || m->cmd == ZDEM_S2_DEM_FULLPACKET))
        st = s->cfg.on_tick(s->cfg.user, s, s->tick);
    return st;
}

zdem_status zdem_s2_state_run(zdem_s2_state *s, const uint8_t *file,
                              size_t size, uint8_t *scratch, size_t scratch_cap,
                              int64_t stop_tick, zdem_error *err)
{
    zdem_s2_header hdr;
    zdem_s2_reader rd;
    zdem_s2_outer m;
    zdem_status st;
    int r;
    size_t half = scratch_cap / 2u;
    if ((st = zdem_s2_read_header(file, size, &hdr, err)) != ZDEM_OK)
        return st;
    zdem_s2_reader_init(&rd, file, size);
    while ((r = zdem_s2_next(&rd, &m, err)) > 0) {
        const uint8_t *data;
        size_t n;
        if (stop_tick >= 0 && m.tick > stop_tick && m.cmd != ZDEM_S2_DEM_STOP &&
            (m.cmd == ZDEM_S2_DEM_PACKET || m.cmd == ZDEM_S2_DEM_FULLPACKET))
            break;
        if (m.cmd != ZDEM_S2_DEM_SENDTABLES && m.cmd != ZDEM_S2_DEM_CLASSINFO &&
            m.cmd != ZDEM_S2_DEM_PACKET && m.cmd != ZDEM_S2_DEM_SIGNONPACKET &&
            m.cmd != ZDEM_S2_DEM_FULLPACKET && m.cmd != ZDEM_S2_DEM_STRINGTABLES)
            continue; /* nothing for the state layer: do not even decompress */
        if ((st = zdem_s2_payload(&m, scratch, half, &data, &n, err)) != ZDEM_OK)
            return st;
        st = zdem_s2_state_frame(s, &m, data, n, scratch + half, scratch_cap - half, err);
        if (st != ZDEM_OK)
            return st;
        if (m.cmd == ZDEM_S2_DEM_STOP)
            break;
    }
    if (r < 0)
        return err ? err->code : ZDEM_ERR_CORRUPT;
    return ZDEM_OK;
}

zdem_status zdem_s2_state_seek(zdem_s2_state *s, const uint8_t *file,
                               size_t size, uint8_t *scratch,
                               size_t scratch_cap, int64_t tick,
                               zdem_error *err)
{
    zdem_s2_header hdr;
    zdem_s2_reader rd;
    zdem_s2_outer m;
    zdem_status st;
    int r;
    size_t half = scratch_cap / 2u;
    size_t best = 0; /* offset of the full packet to start from */
    int64_t best_tick = -2;
    if ((st = zdem_s2_read_header(file, size, &hdr, err)) != ZDEM_OK)
        return st;
    /* Pass 1: framing only, find the last full packet at or before tick. */
    zdem_s2_reader_init(&rd, file, size);
    while ((r = zdem_s2_next(&rd, &m, err)) > 0) {
        if (m.cmd == ZDEM_S2_DEM_FULLPACKET && m.tick <= tick && m.tick >= best_tick) {
            best = (size_t)m.offset;
            best_tick = m.tick;
        }
    }
    if (r < 0)
        return err ? err->code : ZDEM_ERR_CORRUPT;
    if (!best)
        return zdem_s2_state_run(s, file, size, scratch, scratch_cap, tick, err);
    /* Pass 2: set-up frames up to the first game packet, then jump to the
     * full packet and play forward. */
    zdem_s2_reader_init(&rd, file, size);
    {
        int jumped = 0;
        while ((r = zdem_s2_next(&rd, &m, err)) > 0) {
            const uint8_t *data;
            size_t n;
            int game = m.cmd == ZDEM_S2_DEM_PACKET || m.cmd == ZDEM_S2_DEM_FULLPACKET;
            if (!jumped && game) {
                jumped = 1;
                if ((size_t)m.offset != best) {
                    rd.pos = best;
                    continue;
                }
            }
            if (jumped && game && m.tick > tick)
                break;
            if (m.cmd != ZDEM_S2_DEM_SENDTABLES && m.cmd != ZDEM_S2_DEM_CLASSINFO &&
                m.cmd != ZDEM_S2_DEM_SIGNONPACKET && !game)
                continue;
            if ((st = zdem_s2_payload(&m, scratch, half, &data, &n, err)) != ZDEM_OK)
                return st;
            st = zdem_s2_state_frame(s, &m, data, n, scratch + half, scratch_cap - half, err);
            if (st != ZDEM_OK)
                return st;
        }
    }
    if (r < 0)
        return err ? err->code : ZDEM_ERR_CORRUPT;
    return ZDEM_OK;
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
}

void zdem_s2_state_usage(const zdem_s2_state *s, zdem_s2_usage *out)
{
    *out = s->usage;
    out->arena_used = s->used;
    out->arena_peak = s->peak;
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
