/* Game events (CMsgSource1LegacyGameEventList descriptors +
 * CMsgSource1LegacyGameEvent), chat (SayText, SayText2, Dota chat) and
 * the Dota 2 combat log; players from the userinfo string table. */
#include "source2_state_int.h"
#include "zdem_sort.h"

typedef struct el_ctx {
    zdem_s2_state *s;
    zdem_error *err;
    uint32_t count;  /* descriptors, then keys of one descriptor */
    s2_evdesc *d;
    s2_evkey *keys;
} el_ctx;

static zdem_status el_count_desc(void *user,
                                 const zdem_pb_CMsgSource1LegacyGameEventList_descriptor_t *m,
                                 zdem_view raw)
{
    (void)m;
    (void)raw;
    ((el_ctx *)user)->count++;
    return ZDEM_OK;
}

static zdem_status el_count_key(void *user, const zdem_pb_CMsgSource1LegacyGameEventList_key_t *m,
                                zdem_view raw)
{
    (void)m;
    (void)raw;
    ((el_ctx *)user)->count++;
    return ZDEM_OK;
}

static zdem_status el_key(void *user, const zdem_pb_CMsgSource1LegacyGameEventList_key_t *m,
                          zdem_view raw)
{
    el_ctx *c = (el_ctx *)user;
    zdem_s2_state *s = c->s;
    s2_evkey *kk;
    (void)raw;
    if (c->d->nkeys >= c->count)
        return ZDEM_OK;
    kk = &c->keys[c->d->nkeys++];
    memset(kk, 0, sizeof *kk);
    kk->type = (int16_t)m->type;
    if (m->has_name) {
        kk->name = zdem_s2_alloc(s, m->name.len + 1u);
        if (!kk->name)
            return zdem_fail(c->err, ZDEM_ERR_NO_SPACE, 0, "arena too small for game event keys");
        memcpy(s->base + kk->name, m->name.ptr, m->name.len);
        s->base[kk->name + m->name.len] = 0;
        kk->name_len = (uint16_t)(m->name.len > 0xFFFFu ? 0xFFFFu : m->name.len);
    }
    return ZDEM_OK;
}

/* One descriptor: name, then its keys counted and stored from its raw
 * bytes (so the key array is allocated once). */
static zdem_status el_desc(void *user, const zdem_pb_CMsgSource1LegacyGameEventList_descriptor_t *m,
                           zdem_view raw)
{
    static const zdem_pb_CMsgSource1LegacyGameEventList_descriptor_t_cb count_cb = {el_count_key};
    static const zdem_pb_CMsgSource1LegacyGameEventList_descriptor_t_cb key_cb = {el_key};
    el_ctx *c = (el_ctx *)user;
    zdem_s2_state *s = c->s;
    zdem_pb_CMsgSource1LegacyGameEventList_descriptor_t again;
    zdem_status st;
    s2_evdesc *d;
    if (s->nevd >= s->evd_cap)
        return ZDEM_OK;
    d = &s->evd[s->nevd];
    memset(d, 0, sizeof *d);
    d->id = m->has_eventid ? m->eventid : -1;
    if (m->has_name) {
        d->name = zdem_s2_alloc(s, m->name.len + 1u);
        if (!d->name)
            return zdem_fail(c->err, ZDEM_ERR_NO_SPACE, 0, "arena too small for game event names");
        memcpy(s->base + d->name, m->name.ptr, m->name.len);
        s->base[d->name + m->name.len] = 0;
        d->name_len = (uint16_t)(m->name.len > 0xFFFFu ? 0xFFFFu : m->name.len);
    }
    c->count = 0;
    st = zdem_pb_CMsgSource1LegacyGameEventList_descriptor_t_decode(raw.ptr, raw.len, &again,
                                                                   &count_cb, c, c->err);
    if (st != ZDEM_OK)
        return st;
    d->keys = zdem_s2_alloc(s, (size_t)c->count * sizeof(s2_evkey) + 4u);
    if (!d->keys)
        return zdem_fail(c->err, ZDEM_ERR_NO_SPACE, 0, "arena too small for game event keys");
    c->d = d;
    c->keys = (s2_evkey *)s2_ptr(s, d->keys);
    st = zdem_pb_CMsgSource1LegacyGameEventList_descriptor_t_decode(raw.ptr, raw.len, &again,
                                                                   &key_cb, c, c->err);
    if (st != ZDEM_OK)
        return st;
    s->nevd++;
    return ZDEM_OK;
}

/* Descriptors by id, then position (the first of equal ids wins). */
static int cmp_desc_id(const void *ctx, uint32_t a, uint32_t b)
{
    const zdem_s2_state *s = (const zdem_s2_state *)ctx;
    if (s->evd[a].id != s->evd[b].id)
        return s->evd[a].id < s->evd[b].id ? -1 : 1;
    return a < b ? -1 : a > b;
}

zdem_status zdem_s2_event_list(zdem_s2_state *s, const uint8_t *msg, size_t n,
                          zdem_error *err)
{
    static const zdem_pb_CMsgSource1LegacyGameEventList_cb count_cb = {el_count_desc, NULL};
    static const zdem_pb_CMsgSource1LegacyGameEventList_cb desc_cb = {el_desc, NULL};
    zdem_pb_CMsgSource1LegacyGameEventList m;
    el_ctx c;
    zdem_status st;
    uint32_t off;
    if (s->evd)
        return ZDEM_OK; /* one list per demo */
    memset(&c, 0, sizeof c);
    c.s = s;
    c.err = err;
    if ((st = zdem_pb_CMsgSource1LegacyGameEventList_decode(msg, n, &m, &count_cb, &c, err)) != ZDEM_OK)
        return st;
    off = zdem_s2_alloc(s, (size_t)c.count * sizeof(s2_evdesc) + 8u);
    if (!off)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for game event descriptors");
    s->evd = (s2_evdesc *)s2_ptr(s, off);
    s->evd_cap = c.count;
    if ((st = zdem_pb_CMsgSource1LegacyGameEventList_decode(msg, n, &m, &desc_cb, &c, err)) != ZDEM_OK)
        return st;
    /* by id, for the events: a sorted index, whatever the ids */
    off = zdem_s2_alloc(s, (size_t)s->nevd * 4u + 4u);
    if (!off)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for game event descriptors");
    s->evd_by_id = (uint32_t *)s2_ptr(s, off);
    {
        uint32_t i, rising = 1;
        for (i = 0; i < s->nevd; i++) {
            s->evd_by_id[i] = i;
            if (i && s->evd[i - 1].id >= s->evd[i].id)
                rising = 0;
        }
        /* ids rising with position (the usual list) are sorted already */
        if (!rising)
            zdem_sort_u32(s->evd_by_id, s->nevd, cmp_desc_id, s);
        /* the direct slot may answer only when no id repeats (else the
         * first of equal ids, as the sorted index gives it, must win) */
        s->evd_direct = 1;
        for (i = 1; i < s->nevd; i++)
            if (s->evd[s->evd_by_id[i - 1]].id == s->evd[s->evd_by_id[i]].id)
                s->evd_direct = 0;
    }
    /* replay the events that came first */
    {
        uint32_t i, n = s->npending;
        int32_t tick = s->tick;
        s->npending = 0;
        for (i = 0; i < n; i++) {
            s->tick = s->pending[i].tick;
            st = zdem_s2_game_event(s, s->base + s->pending[i].off, s->pending[i].len, err);
            zdem_s2_pool_free(s, s->pending[i].off, s->pending[i].len);
            if (st != ZDEM_OK && st != ZDEM_ERR_CORRUPT)
                break;
            st = ZDEM_OK;
        }
        s->tick = tick;
    }
    return st;
}

static const s2_evdesc *find_desc(const zdem_s2_state *s, int32_t id)
{
    uint32_t lo = 0, hi = s->evd_by_id ? s->nevd : 0;
    /* Ids are usually dense and in order: try the direct slot first. */
    if (s->evd_direct && id >= 0 && (uint32_t)id < s->nevd && s->evd[id].id == id)
        return &s->evd[id];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (s->evd[s->evd_by_id[mid]].id < id)
            lo = mid + 1u;
        else
            hi = mid;
    }
    if (lo < (s->evd_by_id ? s->nevd : 0) && s->evd[s->evd_by_id[lo]].id == id)
        return &s->evd[s->evd_by_id[lo]];
    return 0;
}

int zdem_s2_event_key_type(const zdem_s2_state *s, const zdem_s2_event *ev, uint32_t i)
{
    const s2_evdesc *d;
    const s2_evkey *keys;
    if (ev->type != ZDEM_S2_EV_GAME_EVENT || ev->event_id < 0 || !(d = find_desc(s, ev->event_id)) ||
        i >= d->nkeys || !(keys = (const s2_evkey *)s2_ptr(s, d->keys)))
        return 0;
    return keys[i].type;
}

static zdem_status deliver(zdem_s2_state *s)
{
    s->stats.events++;
    if (!s->cfg.on_event)
        return ZDEM_OK;
    return s->cfg.on_event(s->cfg.user, s, &s->ev);
}

static void key_str(zdem_s2_event_key *k, const char *name, const uint8_t *p,
                    uint32_t n)
{
    memset(k, 0, sizeof *k);
    k->name = name;
    k->name_len = (uint32_t)strlen(name);
    k->value.kind = ZDEM_S2_V_STRING;
    k->value.s = p ? p : (const uint8_t *)"";
    k->value.len = p ? n : 0;
}

static void key_int(zdem_s2_event_key *k, const char *name, int64_t v)
{
    memset(k, 0, sizeof *k);
    k->name = name;
    k->name_len = (uint32_t)strlen(name);
    k->value.kind = ZDEM_S2_V_INT;
    k->value.v.i = v;
}

/* A key's value as it decodes; names come from the descriptor after. */
static zdem_status ge_key(void *user, const zdem_pb_CMsgSource1LegacyGameEvent_key_t *m,
                          zdem_view raw)
{
    zdem_s2_state *s = (zdem_s2_state *)user;
    zdem_s2_event_key *ek;
    zdem_s2_value *v;
    (void)raw;
    if (s->ev.nkeys >= ZDEM_S2_EVENT_MAX_KEYS) {
        s->ev_keys_dropped = 1;
        return ZDEM_OK;
    }
    ek = &s->ev.keys[s->ev.nkeys++];
    memset(ek, 0, sizeof *ek);
    v = &ek->value;
    /* one val_* is set in practice; if several, the highest field number
     * (the last on the wire) wins */
    if (m->has_val_string) {
        v->kind = ZDEM_S2_V_STRING;
        v->s = m->val_string.ptr;
        v->len = m->val_string.len;
    }
    if (m->has_val_float) {
        v->kind = ZDEM_S2_V_FLOAT;
        v->v.f[0] = m->val_float;
    }
    if (m->has_val_long) {
        v->kind = ZDEM_S2_V_INT;
        v->v.i = m->val_long;
    }
    if (m->has_val_short) {
        v->kind = ZDEM_S2_V_INT;
        v->v.i = m->val_short;
    }
    if (m->has_val_byte) {
        v->kind = ZDEM_S2_V_INT;
        v->v.i = m->val_byte;
    }
    if (m->has_val_bool) {
        v->kind = ZDEM_S2_V_BOOL;
        v->v.u = m->val_bool != 0;
    }
    if (m->has_val_uint64) {
        v->kind = ZDEM_S2_V_UINT;
        v->v.u = m->val_uint64;
    }
    return ZDEM_OK;
}

zdem_status zdem_s2_game_event(zdem_s2_state *s, const uint8_t *msg, size_t n,
                          zdem_error *err)
{
    static const zdem_pb_CMsgSource1LegacyGameEvent_cb key_cb = {ge_key};
    zdem_pb_CMsgSource1LegacyGameEvent m;
    zdem_status st;
    int32_t id;
    const s2_evdesc *d;
    const s2_evkey *keys;
    uint32_t ki;
    memset(&s->ev, 0, sizeof s->ev - sizeof s->ev.keys);
    s->ev_keys_dropped = 0;
    if ((st = zdem_pb_CMsgSource1LegacyGameEvent_decode(msg, n, &m, &key_cb, s, err)) != ZDEM_OK)
        return st;
    id = m.has_eventid ? m.eventid : -1;
    if (!s->evd && s->npending >= S2_PENDING)
        zdem_s2_warn_msg(s, ZDEM_S2_W_PENDING_LIMIT,
                    "game event before its descriptors, past the 64 kept: delivered unnamed");
    if (!s->evd && s->npending < S2_PENDING) {
        /* descriptors not seen yet: keep a copy until they arrive */
        uint32_t off = zdem_s2_pool_alloc(s, n ? n : 1u);
        if (off) {
            memcpy(s->base + off, msg, n);
            s->pending[s->npending].off = off;
            s->pending[s->npending].len = (uint32_t)n;
            s->pending[s->npending].tick = s->tick;
            s->npending++;
            return ZDEM_OK;
        }
    }
    if (s->ev_keys_dropped)
        zdem_s2_warn_msg(s, ZDEM_S2_W_EVENT_KEY_LIMIT, "game event with more keys than an event holds: the rest dropped");
    d = find_desc(s, id);
    s->ev.type = ZDEM_S2_EV_GAME_EVENT;
    s->ev.tick = s->tick;
    s->ev.event_id = id;
    if (d && d->name) {
        s->ev.name = (const char *)s->base + d->name;
        s->ev.name_len = d->name_len;
    } else if (m.has_event_name) {
        s->ev.name = (const char *)m.event_name.ptr;
        s->ev.name_len = m.event_name.len;
    } else {
        s->ev.name = "unknown_event";
        s->ev.name_len = 13;
    }
    keys = d ? (const s2_evkey *)s2_ptr(s, d->keys) : 0;
    for (ki = 0; ki < s->ev.nkeys; ki++) {
        zdem_s2_event_key *ek = &s->ev.keys[ki];
        if (keys && ki < d->nkeys) {
            ek->name = (const char *)s->base + keys[ki].name;
            ek->name_len = keys[ki].name_len;
        } else {
            ek->name = "?";
            ek->name_len = 1;
        }
        if (ek->value.kind == ZDEM_S2_V_NONE) {
            /* every value at its default: type decides what the zero is */
            int type = keys && ki < d->nkeys ? keys[ki].type : 0;
            ek->value.kind = type == 1 ? ZDEM_S2_V_STRING : type == 2 ? ZDEM_S2_V_FLOAT
                           : type == 6 ? ZDEM_S2_V_BOOL : type == 7 ? ZDEM_S2_V_UINT
                           : ZDEM_S2_V_INT;
            ek->value.s = (const uint8_t *)"";
        }
    }
    return deliver(s);
}

static zdem_status chat_dota(zdem_s2_state *s, const uint8_t *msg, size_t n,
                             zdem_error *err)
{
    zdem_pb_CDOTAUserMsg_ChatMessage m;
    zdem_status st = zdem_pb_CDOTAUserMsg_ChatMessage_decode(msg, n, &m, NULL, NULL, err);
    zdem_s2_event_key *k = s->ev.keys;
    if (st != ZDEM_OK)
        return st;
    if (m.has_source_player_id)
        key_int(&k[s->ev.nkeys++], "source_player_id", m.source_player_id);
    if (m.has_channel_type)
        key_int(&k[s->ev.nkeys++], "channel_type", (int64_t)m.channel_type);
    if (m.has_message_text)
        key_str(&k[s->ev.nkeys++], "text", m.message_text.ptr, m.message_text.len);
    return ZDEM_OK;
}

static zdem_status chat_saytext2(zdem_s2_state *s, const uint8_t *msg, size_t n,
                                 zdem_error *err)
{
    zdem_pb_CUserMessageSayText2 m;
    zdem_status st = zdem_pb_CUserMessageSayText2_decode(msg, n, &m, NULL, NULL, err);
    zdem_s2_event_key *k = s->ev.keys;
    if (st != ZDEM_OK)
        return st;
    if (m.has_entityindex)
        key_int(&k[s->ev.nkeys++], "entityindex", m.entityindex);
    if (m.has_messagename)
        key_str(&k[s->ev.nkeys++], "messagename", m.messagename.ptr, m.messagename.len);
    if (m.has_param1)
        key_str(&k[s->ev.nkeys++], "name", m.param1.ptr, m.param1.len);
    if (m.has_param2)
        key_str(&k[s->ev.nkeys++], "text", m.param2.ptr, m.param2.len);
    return ZDEM_OK;
}

static zdem_status chat_saytext(zdem_s2_state *s, const uint8_t *msg, size_t n,
                                zdem_error *err)
{
    zdem_pb_CUserMessageSayText m;
    zdem_status st = zdem_pb_CUserMessageSayText_decode(msg, n, &m, NULL, NULL, err);
    zdem_s2_event_key *k = s->ev.keys;
    if (st != ZDEM_OK)
        return st;
    if (m.has_playerindex)
        key_int(&k[s->ev.nkeys++], "playerindex", m.playerindex);
    if (m.has_text)
        key_str(&k[s->ev.nkeys++], "text", m.text.ptr, m.text.len);
    return ZDEM_OK;
}

/* Keys in field-number order (the order they come on the wire). */
zdem_status zdem_s2_chat(zdem_s2_state *s, uint32_t type, const uint8_t *msg,
                    size_t n, zdem_error *err)
{
    zdem_status st;
    memset(&s->ev, 0, sizeof s->ev - sizeof s->ev.keys);
    s->ev.type = ZDEM_S2_EV_CHAT;
    s->ev.tick = s->tick;
    s->ev.event_id = -1;
    s->ev.name = "chat";
    s->ev.name_len = 4;
    if (type == ZDEM_S2_DOTA_UM_ChatMessage)
        st = chat_dota(s, msg, n, err);
    else if (type == ZDEM_S2_UM_SayText2)
        st = chat_saytext2(s, msg, n, err);
    else
        st = chat_saytext(s, msg, n, err);
    if (st != ZDEM_OK)
        return st;
    return deliver(s);
}

/* CNETMsg_SetConVar: one "server_cvar" event per convar (name, value). */
static zdem_status cvar_one(void *user, const zdem_pb_CMsg_CVars_CVar *m, zdem_view raw)
{
    zdem_s2_state *s = (zdem_s2_state *)user;
    (void)raw;
    memset(&s->ev, 0, sizeof s->ev - sizeof s->ev.keys);
    s->ev.type = ZDEM_S2_EV_GAME_EVENT;
    s->ev.tick = s->tick;
    s->ev.event_id = -1;
    s->ev.name = "server_cvar";
    s->ev.name_len = 11;
    key_str(&s->ev.keys[0], "name", m->has_name ? m->name.ptr : 0, m->name.len);
    key_str(&s->ev.keys[1], "value", m->has_value ? m->value.ptr : 0, m->value.len);
    s->ev.nkeys = 2;
    return deliver(s);
}

zdem_status zdem_s2_convars(zdem_s2_state *s, const uint8_t *msg, size_t n,
                       zdem_error *err)
{
    static const zdem_pb_CMsg_CVars_cb cvars_cb = {cvar_one};
    static const zdem_pb_CNETMsg_SetConVar_cb cb = {&cvars_cb};
    zdem_pb_CNETMsg_SetConVar m;
    return zdem_pb_CNETMsg_SetConVar_decode(msg, n, &m, &cb, s, err);
}

/* An event with a fixed name and no keys (temp-entity notifications). */
zdem_status zdem_s2_simple_event(zdem_s2_state *s, const char *name, zdem_error *err)
{
    (void)err;
    memset(&s->ev, 0, sizeof s->ev - sizeof s->ev.keys);
    s->ev.type = ZDEM_S2_EV_GAME_EVENT;
    s->ev.tick = s->tick;
    s->ev.event_id = -1;
    s->ev.name = name;
    s->ev.name_len = (uint32_t)strlen(name);
    return deliver(s);
}

static const char *const combat_types[] = {
    "DAMAGE", "HEAL", "MODIFIER_ADD", "MODIFIER_REMOVE", "DEATH", "ABILITY",
    "ITEM", "LOCATION", "GOLD", "GAME_STATE", "XP", "PURCHASE", "BUYBACK",
    "ABILITY_TRIGGER", "PLAYERSTATS", "MULTIKILL", "KILLSTREAK",
    "TEAM_BUILDING_KILL", "FIRST_BLOOD", "MODIFIER_STACK_EVENT",
    "NEUTRAL_CAMP_STACK", "PICKUP_RUNE", "REVEALED_INVISIBLE", "HERO_SAVED",
    "MANA_RESTORED", "HERO_LEVELUP", "BOTTLE_HEAL_ALLY", "ENDGAME_STATS",
    "INTERRUPT_CHANNEL", "ALLIED_GOLD", "AEGIS_TAKEN", "MANA_DAMAGE",
    "PHYSICAL_DAMAGE_PREVENTED", "UNIT_SUMMONED", "ATTACK_EVADE", "TREE_CUT",
    "SUCCESSFUL_SCAN", "END_KILLSTREAK", "BLOODSTONE_CHARGE",
    "CRITICAL_DAMAGE", "SPELL_ABSORB", "UNIT_TELEPORTED", "KILL_EATER_EVENT",
    "NEUTRAL_ITEM_EARNED"};

const char *zdem_s2_event_fixed_name(uint32_t i)
{
    /* chat and server_cvar above, fire_bullets (source2_state.c), the
     * names of events without a descriptor, then the combat-log types */
    static const char *const fixed[] = {"chat", "server_cvar", "fire_bullets", "unknown_event", "UNKNOWN"};
    const uint32_t nf = sizeof fixed / sizeof fixed[0];
    if (i < nf)
        return fixed[i];
    i -= nf;
    return i < sizeof combat_types / sizeof combat_types[0] ? combat_types[i] : 0;
}

/* Name from the CombatLogNames table, or NULL. */
static const uint8_t *combat_name(const zdem_s2_state *s, uint64_t idx, uint32_t *len)
{
    const uint8_t *k, *v;
    uint32_t kl, vl;
    if (s->combatlog_table < 0 || idx > 0xFFFFFFFFu ||
        !zdem_s2_string_table_entry(s, (uint32_t)s->combatlog_table, (uint32_t)idx, &k, &kl,
                                    &v, &vl) || !k)
        return 0;
    *len = kl;
    return k;
}

static void combat_name_key(zdem_s2_state *s, const char *key, uint32_t idx)
{
    zdem_s2_event_key *ek = &s->ev.keys[s->ev.nkeys++];
    uint32_t len = 0;
    const uint8_t *nm = combat_name(s, idx, &len);
    if (nm)
        key_str(ek, key, nm, len);
    else
        key_int(ek, key, (int64_t)idx);
}

/* Fields that index the CombatLogNames table: given as the name when the
 * table has it. */
static int combat_is_name(const char *f)
{
    static const char *const names[] = {"target_name", "target_source_name", "attacker_name",
                                        "damage_source_name", "inflictor_name"};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(f, names[i]) == 0)
            return 1;
    return 0;
}

/* One key per field present, in field-number order (the order they come
 * on the wire); repeated fields as "<f>.<i>". The field table is generated
 * from the schema, so a field added there is delivered too. */
static zdem_status combat_entry(zdem_s2_state *s, const zdem_pb_CMsgDOTACombatLogEntry *m)
{
    const uint8_t *b = (const uint8_t *)m;
    uint32_t type = (uint32_t)m->type, i, dropped = 0;
    memset(&s->ev, 0, sizeof s->ev - sizeof s->ev.keys);
    s->ev.type = ZDEM_S2_EV_COMBAT_LOG;
    s->ev.tick = s->tick;
    s->ev.event_id = -1;
    for (i = 0; i < ZDEM_PB_S2_CMsgDOTACombatLogEntry_FIELD_COUNT; i++) {
        const zdem_pb_s2_field *f = &zdem_pb_s2_CMsgDOTACombatLogEntry_fields[i];
        uint32_t n = 1, k;
        if (f->max_count) {
            memcpy(&n, b + f->has, sizeof n);
            if (n > f->max_count)
                n = f->max_count;
        } else if (!b[f->has])
            continue;
        for (k = 0; k < n; k++) {
            zdem_s2_event_key *ek;
            const char *name = f->max_count ? f->elem_names[k] : f->name;
            if (s->ev.nkeys >= ZDEM_S2_EVENT_MAX_KEYS) {
                dropped = 1;
                break;
            }
            ek = &s->ev.keys[s->ev.nkeys++];
            switch (f->type) {
            case ZDEM_PB_S2_F_BOOL:
                key_int(ek, name, b[f->off] != 0);
                ek->value.kind = ZDEM_S2_V_BOOL;
                ek->value.v.u = b[f->off] != 0;
                break;
            case ZDEM_PB_S2_F_UINT32: {
                uint32_t u;
                memcpy(&u, b + f->off + (size_t)k * sizeof u, sizeof u);
                if (combat_is_name(f->name)) {
                    s->ev.nkeys--;
                    combat_name_key(s, name, u);
                } else {
                    key_int(ek, name, u); /* 32 bits: an int64 holds it */
                }
                break;
            }
            case ZDEM_PB_S2_F_INT32: {
                int32_t v;
                memcpy(&v, b + f->off + (size_t)k * sizeof v, sizeof v);
                key_int(ek, name, v);
                break;
            }
            case ZDEM_PB_S2_F_FLOAT: {
                float v;
                memcpy(&v, b + f->off, sizeof v);
                key_int(ek, name, 0);
                ek->value.kind = ZDEM_S2_V_FLOAT;
                ek->value.v.f[0] = v;
                break;
            }
            default: /* no 64-bit or double fields in this message */
                s->ev.nkeys--;
                break;
            }
        }
    }
    if (dropped)
        zdem_s2_warn_msg(s, ZDEM_S2_W_EVENT_KEY_LIMIT, "combat log entry with more keys than an event holds: the rest dropped");
    s->ev.name = type < sizeof combat_types / sizeof combat_types[0] ? combat_types[type] : "UNKNOWN";
    s->ev.name_len = (uint32_t)strlen(s->ev.name);
    return deliver(s);
}

static zdem_status combat_bulk_one(void *user, const zdem_pb_CMsgDOTACombatLogEntry *m,
                                   zdem_view raw)
{
    (void)raw;
    return combat_entry((zdem_s2_state *)user, m);
}

/* The entry struct is large: decoded here, alone on the stack. */
static zdem_status combat_hltv(zdem_s2_state *s, const uint8_t *msg, size_t n,
                               zdem_error *err)
{
    zdem_pb_CMsgDOTACombatLogEntry m;
    zdem_status st = zdem_pb_CMsgDOTACombatLogEntry_decode(msg, n, &m, NULL, NULL, err);
    if (st != ZDEM_OK)
        return st;
    return combat_entry(s, &m);
}

zdem_status zdem_s2_combat_log(zdem_s2_state *s, uint32_t type, const uint8_t *msg,
                          size_t n, zdem_error *err)
{
    static const zdem_pb_CDOTAUserMsg_CombatLogBulkData_cb cb = {combat_bulk_one};
    zdem_pb_CDOTAUserMsg_CombatLogBulkData m;
    if (type == ZDEM_S2_DOTA_UM_CombatLogDataHLTV)
        return combat_hltv(s, msg, n, err);
    return zdem_pb_CDOTAUserMsg_CombatLogBulkData_decode(msg, n, &m, &cb, s, err);
}

/* ---- players --------------------------------------------------------------- */

/* A userinfo entry that names a real player (not the HLTV client). */
static int player_info(const uint8_t *v, uint32_t n, const uint8_t **name,
                       uint32_t *len)
{
    zdem_pb_CMsgPlayerInfo m;
    zdem_error e;
    zdem_error_clear(&e);
    /* a malformed entry keeps what decoded before the error */
    (void)zdem_pb_CMsgPlayerInfo_decode(v, n, &m, NULL, NULL, &e);
    *name = m.has_name ? m.name.ptr : 0;
    *len = m.has_name ? m.name.len : 0;
    return *name && *len && !m.ishltv;
}

typedef struct ui_ctx {
    zdem_s2_player_list_fn fn;
    void *user;
    uint32_t n;
} ui_ctx;

static int ui_entry(void *user, uint32_t index, const uint8_t *key, uint32_t key_len,
                    const uint8_t *val, uint32_t val_len)
{
    ui_ctx *c = (ui_ctx *)user;
    zdem_s2_player_entry pl;
    (void)key, (void)key_len;
    if (!val || !player_info(val, val_len, &pl.name, &pl.name_len))
        return 0;
    c->n++;
    pl.slot = (int32_t)index;
    pl.entity = -1;
    pl.has_steamid = pl.has_team = 0;
    pl.steamid = 0;
    pl.team = 0;
    return c->fn ? c->fn(c->user, &pl) : 0;
}

/* An integer property of an entity (signed or unsigned), 1 = found. */
static int s2pl_int_prop(const zdem_s2_state *s, int32_t idx, const char *name, uint64_t *out)
{
    zdem_s2_value v;
    if (!zdem_s2_entity_prop(s, idx, name, &v) ||
        (v.kind != ZDEM_S2_V_INT && v.kind != ZDEM_S2_V_UINT))
        return 0;
    *out = v.v.u;
    return 1;
}

/* "m_vecPlayerData.K.<field>" for Dota's player resource. */
static size_t player_data_name(char *nm, uint32_t k, const char *field)
{
    char d[8];
    int l = 0;
    size_t q = 16, fl = strlen(field);
    memcpy(nm, "m_vecPlayerData.", 16);
    do {
        d[l++] = (char)('0' + k % 10u);
        k /= 10u;
    } while (k && l < 7);
    while (l)
        nm[q++] = d[--l];
    nm[q++] = '.';
    memcpy(nm + q, field, fl + 1);
    return q + fl;
}

/* Player controllers in entity order: the live entities sorted in tmp, or
 * a scan of every slot when tmp is too small for them. */
static uint32_t controllers(const zdem_s2_state *s, zdem_s2_player_list_fn fn, void *user,
                            uint32_t *tmp, uint32_t cap)
{
    uint32_t sorted = tmp && cap >= s->live, i, n = 0;
    uint32_t end = sorted ? zdem_s2_entities_live(s, tmp, cap) : s->max_ents;
    for (i = 0; i < end; i++) {
        uint32_t idx = sorted ? tmp[i] : i;
        zdem_s2_entity en;
        zdem_s2_value v;
        zdem_s2_player_entry pl;
        uint64_t u = 0;
        if (!zdem_s2_entity_get(s, (int32_t)idx, &en) || en.class_name_len < 16 ||
            memcmp(en.class_name + en.class_name_len - 16, "PlayerController", 16) != 0)
            continue;
        if (!zdem_s2_entity_prop(s, (int32_t)idx, "m_iszPlayerName", &v) ||
            v.kind != ZDEM_S2_V_STRING || !v.len)
            continue;
        n++;
        if (!fn)
            continue;
        pl.slot = (int32_t)idx - 1; /* entity 0 is the world */
        pl.entity = (int32_t)idx;
        pl.name = v.s;
        pl.name_len = v.len;
        pl.has_steamid = (uint8_t)s2pl_int_prop(s, (int32_t)idx, "m_steamID", &pl.steamid);
        pl.has_team = (uint8_t)s2pl_int_prop(s, (int32_t)idx, "m_iTeamNum", &u);
        pl.team = (int64_t)u;
        if (!pl.has_steamid)
            pl.steamid = 0;
        if (!pl.has_team)
            pl.team = 0;
        if (fn(user, &pl))
            break;
    }
    return n;
}

typedef struct s2pl_names_ctx {
    zdem_s2_player_fn fn;
    void *user;
} s2pl_names_ctx;

static int s2pl_name_only(void *user, const zdem_s2_player_entry *p)
{
    s2pl_names_ctx *c = (s2pl_names_ctx *)user;
    return c->fn ? c->fn(c->user, p->name, p->name_len) : 0;
}

uint32_t zdem_s2_players(const zdem_s2_state *s, zdem_s2_player_fn fn,
                         void *user, uint32_t *tmp, uint32_t cap)
{
    s2pl_names_ctx c;
    c.fn = fn;
    c.user = user;
    return zdem_s2_player_list(s, fn ? s2pl_name_only : NULL, &c, tmp, cap);
}

#define DOTA_IDS 64

/* Dota's player ids -> their controllers' entity indexes (-1: none). */
static void s2pl_dota_controllers(const zdem_s2_state *s, int32_t *ctrl_of)
{
    uint32_t i;
    for (i = 0; i < DOTA_IDS; i++)
        ctrl_of[i] = -1;
    for (i = 0; i < s->live; i++) {
        uint32_t idx = s->live_list[i];
        zdem_s2_entity en;
        uint64_t id;
        if (zdem_s2_entity_get(s, (int32_t)idx, &en) && en.class_name_len >= 16 &&
            memcmp(en.class_name + en.class_name_len - 16, "PlayerController", 16) == 0 &&
            s2pl_int_prop(s, (int32_t)idx, "m_nPlayerID", &id) && id < DOTA_IDS)
            ctrl_of[id] = (int32_t)idx;
    }
}

uint32_t zdem_s2_player_list(const zdem_s2_state *s, zdem_s2_player_list_fn fn,
                             void *user, uint32_t *tmp, uint32_t cap)
{
    uint32_t i, n = 0;
    ui_ctx c;
    zdem_error e;
    /* Dota: the player resource lists every player */
    for (i = 0; i < s->live; i++) {
        uint32_t idx = s->live_list[i], k, cnt;
        zdem_s2_entity en;
        zdem_s2_value v;
        int32_t ctrl_of[DOTA_IDS];
        if (!zdem_s2_entity_get(s, (int32_t)idx, &en) || en.class_name_len != 20 ||
            memcmp(en.class_name, "CDOTA_PlayerResource", 20) != 0 ||
            !zdem_s2_entity_prop(s, (int32_t)idx, "m_vecPlayerData", &v))
            continue;
        if (fn)
            s2pl_dota_controllers(s, ctrl_of);
        cnt = v.v.u > ZDEM_S2_FP_MAX_INDEX + 1ull ? ZDEM_S2_FP_MAX_INDEX + 1u : (uint32_t)v.v.u;
        for (k = 0; k < cnt; k++) {
            char nm[80];
            zdem_s2_player_entry pl;
            uint64_t u = 0;
            player_data_name(nm, k, "m_iszPlayerName");
            if (!zdem_s2_entity_prop(s, (int32_t)idx, nm, &v) || v.kind != ZDEM_S2_V_STRING)
                continue;
            n++;
            if (!fn)
                continue;
            /* the slot of the controller with this player id */
            pl.entity = k < DOTA_IDS ? ctrl_of[k] : -1;
            pl.slot = pl.entity > 0 ? pl.entity - 1 : -1;
            pl.name = v.s;
            pl.name_len = v.len;
            player_data_name(nm, k, "m_iPlayerSteamID");
            pl.has_steamid = (uint8_t)s2pl_int_prop(s, (int32_t)idx, nm, &pl.steamid);
            player_data_name(nm, k, "m_iPlayerTeam");
            pl.has_team = (uint8_t)s2pl_int_prop(s, (int32_t)idx, nm, &u);
            pl.team = pl.has_team ? (int64_t)u : 0;
            if (!pl.has_steamid)
                pl.steamid = 0;
            if (fn(user, &pl))
                return n;
        }
        return n;
    }
    /* CS2, Deadlock: player controllers, in entity order */
    n = controllers(s, fn, user, tmp, cap);
    if (n || s->userinfo_table < 0)
        return n;
    /* no entities: the userinfo table */
    c.fn = fn;
    c.user = user;
    c.n = 0;
    zdem_error_clear(&e);
    (void)zdem_s2_string_table_each(s, (uint32_t)s->userinfo_table, ui_entry, &c, tmp, cap, &e);
    return c.n;
}
