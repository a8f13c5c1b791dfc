/* Game events (CMsgSource1LegacyGameEventList descriptors +
 * CMsgSource1LegacyGameEvent), chat (SayText, SayText2, Dota chat) and
 * the Dota 2 combat log; players from the userinfo string table. */
#include "source2_state_int.h"

zdem_status s2_event_list(zdem_s2_state *s, const uint8_t *msg, size_t n,
                          zdem_error *err)
{
    zdem_s2pb r, r2, r3;
    zdem_s2pb_field pf, f2, f3;
    zdem_status st = ZDEM_OK;
    uint32_t count = 0, off;
    int k;
    if (s->evd)
        return ZDEM_OK; /* one list per demo */
    zdem_s2pb_init(&r, msg, n);
    while ((k = zdem_s2pb_next(&r, &pf, &st)) > 0)
        if (pf.num == 1 && pf.wire == 2)
            count++;
    if (k < 0)
        return zdem_fail(err, st, (uint64_t)(r.p - msg), "bad protobuf in game event list");
    off = s2_alloc(s, (size_t)count * sizeof(s2_evdesc) + 8u);
    if (!off)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for game event descriptors");
    s->evd = (s2_evdesc *)s2_ptr(s, off);
    s->evd_cap = count;
    zdem_s2pb_init(&r, msg, n);
    while (zdem_s2pb_next(&r, &pf, &st) > 0) {
        s2_evdesc *d;
        uint32_t nkeys = 0;
        s2_evkey *keys;
        if (pf.num != 1 || pf.wire != 2 || s->nevd >= s->evd_cap)
            continue;
        d = &s->evd[s->nevd];
        memset(d, 0, sizeof *d);
        d->id = -1;
        zdem_s2pb_init(&r2, pf.ptr, pf.len);
        while (zdem_s2pb_next(&r2, &f2, &st) > 0) {
            if (f2.num == 1)
                d->id = (int32_t)f2.v;
            else if (f2.num == 2 && f2.wire == 2) {
                d->name = s2_alloc(s, f2.len + 1u);
                if (!d->name)
                    return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for game event names");
                memcpy(s->base + d->name, f2.ptr, f2.len);
                s->base[d->name + f2.len] = 0;
                d->name_len = (uint16_t)(f2.len > 0xFFFFu ? 0xFFFFu : f2.len);
            } else if (f2.num == 3 && f2.wire == 2)
                nkeys++;
        }
        d->keys = s2_alloc(s, (size_t)nkeys * sizeof(s2_evkey) + 4u);
        if (!d->keys)
            return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for game event keys");
        keys = (s2_evkey *)s2_ptr(s, d->keys);
        zdem_s2pb_init(&r2, pf.ptr, pf.len);
        while (zdem_s2pb_next(&r2, &f2, &st) > 0) {
            s2_evkey *kk;
            if (f2.num != 3 || f2.wire != 2 || d->nkeys >= nkeys)
                continue;
            kk = &keys[d->nkeys++];
            memset(kk, 0, sizeof *kk);
            zdem_s2pb_init(&r3, f2.ptr, f2.len);
            while (zdem_s2pb_next(&r3, &f3, &st) > 0) {
                if (f3.num == 1)
                    kk->type = (int16_t)f3.v;
                else if (f3.num == 2 && f3.wire == 2) {
                    kk->name = s2_alloc(s, f3.len + 1u);
                    if (!kk->name)
                        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "arena too small for game event keys");
                    memcpy(s->base + kk->name, f3.ptr, f3.len);
                    s->base[kk->name + f3.len] = 0;
                    kk->name_len = (uint16_t)(f3.len > 0xFFFFu ? 0xFFFFu : f3.len);
                }
            }
        }
        s->nevd++;
    }
    /* replay the events that came first */
    {
        uint32_t i, n = s->npending;
        int32_t tick = s->tick;
        s->npending = 0;
        for (i = 0; i < n; i++) {
            s->tick = s->pending[i].tick;
            st = s2_game_event(s, s->base + s->pending[i].off, s->pending[i].len, err);
            s2_pool_free(s, s->pending[i].off, s->pending[i].len);
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
    uint32_t i;
    /* Ids are usually dense and in order: try the direct slot first. */
    if (id >= 0 && (uint32_t)id < s->nevd && s->evd[id].id == id)
        return &s->evd[id];
    for (i = 0; i < s->nevd; i++)
        if (s->evd[i].id == id)
            return &s->evd[i];
    return 0;
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

zdem_status s2_game_event(zdem_s2_state *s, const uint8_t *msg, size_t n,
                          zdem_error *err)
{
    zdem_s2pb r, r2;
    zdem_s2pb_field pf, f2;
    zdem_status st = ZDEM_OK;
    int32_t id = -1;
    const s2_evdesc *d;
    const s2_evkey *keys;
    const uint8_t *ename = 0;
    uint32_t ename_len = 0, ki = 0;
    int k;
    zdem_s2pb_init(&r, msg, n);
    while ((k = zdem_s2pb_next(&r, &pf, &st)) > 0) {
        if (pf.num == 2)
            id = (int32_t)pf.v;
        else if (pf.num == 1 && pf.wire == 2) {
            ename = pf.ptr;
            ename_len = pf.len;
        }
    }
    if (k < 0)
        return zdem_fail(err, st, (uint64_t)(r.p - msg), "bad protobuf in game event");
    if (!s->evd && s->npending < 64u) {
        /* descriptors not seen yet: keep a copy until they arrive */
        uint32_t off = s2_pool_alloc(s, n ? n : 1u);
        if (off) {
            memcpy(s->base + off, msg, n);
            s->pending[s->npending].off = off;
            s->pending[s->npending].len = (uint32_t)n;
            s->pending[s->npending].tick = s->tick;
            s->npending++;
            return ZDEM_OK;
        }
    }
    d = find_desc(s, id);
    memset(&s->ev, 0, sizeof s->ev - sizeof s->ev.keys);
    s->ev.type = ZDEM_S2_EV_GAME_EVENT;
    s->ev.tick = s->tick;
    s->ev.event_id = id;
    if (d && d->name) {
        s->ev.name = (const char *)s->base + d->name;
        s->ev.name_len = d->name_len;
    } else if (ename) {
        s->ev.name = (const char *)ename;
        s->ev.name_len = ename_len;
    } else {
        s->ev.name = "unknown_event";
        s->ev.name_len = 13;
    }
    keys = d ? (const s2_evkey *)s2_ptr(s, d->keys) : 0;
    zdem_s2pb_init(&r, msg, n);
    while (zdem_s2pb_next(&r, &pf, &st) > 0) {
        zdem_s2_event_key *ek;
        if (pf.num != 3 || pf.wire != 2)
            continue;
        if (s->ev.nkeys >= ZDEM_S2_EVENT_MAX_KEYS)
            break;
        ek = &s->ev.keys[s->ev.nkeys];
        memset(ek, 0, sizeof *ek);
        if (keys && ki < d->nkeys) {
            ek->name = (const char *)s->base + keys[ki].name;
            ek->name_len = keys[ki].name_len;
        } else {
            ek->name = "?";
            ek->name_len = 1;
        }
        ki++;
        zdem_s2pb_init(&r2, pf.ptr, pf.len);
        while (zdem_s2pb_next(&r2, &f2, &st) > 0) {
            zdem_s2_value *v = &ek->value;
            switch (f2.num) {
            case 2:
                if (f2.wire == 2) {
                    v->kind = ZDEM_S2_V_STRING;
                    v->s = f2.ptr;
                    v->len = f2.len;
                }
                break;
            case 3:
                v->kind = ZDEM_S2_V_FLOAT;
                v->v.f[0] = zdem_s2pb_float(&f2);
                break;
            case 4: case 5: case 6:
                v->kind = ZDEM_S2_V_INT;
                v->v.i = (int32_t)(uint32_t)f2.v;
                break;
            case 7:
                v->kind = ZDEM_S2_V_BOOL;
                v->v.u = f2.v != 0;
                break;
            case 8:
                v->kind = ZDEM_S2_V_UINT;
                v->v.u = f2.v;
                break;
            default:
                break;
            }
        }
        if (ek->value.kind == ZDEM_S2_V_NONE) {
            /* every value at its default: type decides what the zero is */
            int type = keys && ki - 1u < d->nkeys ? keys[ki - 1u].type : 0;
            ek->value.kind = type == 1 ? ZDEM_S2_V_STRING : type == 2 ? ZDEM_S2_V_FLOAT
                           : type == 6 ? ZDEM_S2_V_BOOL : ZDEM_S2_V_INT;
            ek->value.s = (const uint8_t *)"";
        }
        s->ev.nkeys++;
    }
    return deliver(s);
}

zdem_status s2_chat(zdem_s2_state *s, uint32_t type, const uint8_t *msg,
                    size_t n, zdem_error *err)
{
    zdem_s2pb r;
    zdem_s2pb_field pf;
    zdem_status st = ZDEM_OK;
    int k;
    memset(&s->ev, 0, sizeof s->ev - sizeof s->ev.keys);
    s->ev.type = ZDEM_S2_EV_CHAT;
    s->ev.tick = s->tick;
    s->ev.event_id = -1;
    s->ev.name = "chat";
    s->ev.name_len = 4;
    zdem_s2pb_init(&r, msg, n);
    while ((k = zdem_s2pb_next(&r, &pf, &st)) > 0) {
        zdem_s2_event_key *ek = &s->ev.keys[s->ev.nkeys];
        if (s->ev.nkeys >= 8)
            break;
        if (type == ZDEM_S2_DOTA_UM_CHATMESSAGE) {
            if (pf.num == 1) { key_int(ek, "source_player_id", (int32_t)(uint32_t)pf.v); s->ev.nkeys++; }
            else if (pf.num == 2) { key_int(ek, "channel_type", (int64_t)pf.v); s->ev.nkeys++; }
            else if (pf.num == 3 && pf.wire == 2) { key_str(ek, "text", pf.ptr, pf.len); s->ev.nkeys++; }
        } else if (type == ZDEM_S2_UM_SAYTEXT2) {
            if (pf.num == 1) { key_int(ek, "entityindex", (int32_t)(uint32_t)pf.v); s->ev.nkeys++; }
            else if (pf.num == 3 && pf.wire == 2) { key_str(ek, "messagename", pf.ptr, pf.len); s->ev.nkeys++; }
            else if (pf.num == 4 && pf.wire == 2) { key_str(ek, "name", pf.ptr, pf.len); s->ev.nkeys++; }
            else if (pf.num == 5 && pf.wire == 2) { key_str(ek, "text", pf.ptr, pf.len); s->ev.nkeys++; }
        } else {
            if (pf.num == 1) { key_int(ek, "playerindex", (int32_t)(uint32_t)pf.v); s->ev.nkeys++; }
            else if (pf.num == 2 && pf.wire == 2) { key_str(ek, "text", pf.ptr, pf.len); s->ev.nkeys++; }
        }
    }
    if (k < 0)
        return zdem_fail(err, st, (uint64_t)(r.p - msg), "bad protobuf in chat message");
    return deliver(s);
}

/* CNETMsg_SetConVar: one "server_cvar" event per convar (name, value). */
zdem_status s2_convars(zdem_s2_state *s, const uint8_t *msg, size_t n,
                       zdem_error *err)
{
    zdem_s2pb r, r2, r3;
    zdem_s2pb_field pf, f2, f3;
    zdem_status st = ZDEM_OK;
    int k;
    zdem_s2pb_init(&r, msg, n);
    while ((k = zdem_s2pb_next(&r, &pf, &st)) > 0) {
        if (pf.num != 1 || pf.wire != 2)
            continue;
        zdem_s2pb_init(&r2, pf.ptr, pf.len);
        while (zdem_s2pb_next(&r2, &f2, &st) > 0) {
            if (f2.num != 1 || f2.wire != 2)
                continue;
            memset(&s->ev, 0, sizeof s->ev - sizeof s->ev.keys);
            s->ev.type = ZDEM_S2_EV_GAME_EVENT;
            s->ev.tick = s->tick;
            s->ev.event_id = -1;
            s->ev.name = "server_cvar";
            s->ev.name_len = 11;
            key_str(&s->ev.keys[0], "name", 0, 0);
            key_str(&s->ev.keys[1], "value", 0, 0);
            s->ev.nkeys = 2;
            zdem_s2pb_init(&r3, f2.ptr, f2.len);
            while (zdem_s2pb_next(&r3, &f3, &st) > 0) {
                if (f3.wire == 2 && (f3.num == 1 || f3.num == 2))
                    key_str(&s->ev.keys[f3.num - 1], f3.num == 1 ? "name" : "value", f3.ptr, f3.len);
            }
            if ((st = deliver(s)) != ZDEM_OK)
                return st;
        }
    }
    if (k < 0)
        return zdem_fail(err, st, (uint64_t)(r.p - msg), "bad protobuf in CNETMsg_SetConVar");
    return ZDEM_OK;
}

/* An event with a fixed name and no keys (temp-entity notifications). */
zdem_status s2_simple_event(zdem_s2_state *s, const char *name, zdem_error *err)
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

/* Name from the CombatLogNames table, or NULL. */
static const uint8_t *combat_name(const zdem_s2_state *s, uint64_t idx, uint32_t *len)
{
    int t = zdem_s2_string_table_find(s, "CombatLogNames");
    const uint8_t *k, *v;
    uint32_t kl, vl;
    if (t < 0 || idx > 0xFFFFFFFFu ||
        !zdem_s2_string_table_entry(s, (uint32_t)t, (uint32_t)idx, &k, &kl, &v, &vl) || !k)
        return 0;
    *len = kl;
    return k;
}

static zdem_status combat_entry(zdem_s2_state *s, const uint8_t *msg, size_t n,
                                zdem_error *err)
{
    static const struct { uint32_t num; const char *name; } names[] = {
        {2, "target_name"}, {3, "target_source_name"}, {4, "attacker_name"},
        {5, "damage_source_name"}, {6, "inflictor_name"}};
    zdem_s2pb r;
    zdem_s2pb_field pf;
    zdem_status st = ZDEM_OK;
    int k;
    uint32_t type = 0;
    memset(&s->ev, 0, sizeof s->ev - sizeof s->ev.keys);
    s->ev.type = ZDEM_S2_EV_COMBAT_LOG;
    s->ev.tick = s->tick;
    s->ev.event_id = -1;
    zdem_s2pb_init(&r, msg, n);
    while ((k = zdem_s2pb_next(&r, &pf, &st)) > 0) {
        zdem_s2_event_key *ek;
        unsigned i;
        if (pf.num == 1) {
            type = (uint32_t)pf.v;
            continue;
        }
        if (s->ev.nkeys >= ZDEM_S2_EVENT_MAX_KEYS)
            continue;
        ek = &s->ev.keys[s->ev.nkeys];
        for (i = 0; i < sizeof names / sizeof names[0]; i++) {
            if (names[i].num == pf.num) {
                uint32_t len = 0;
                const uint8_t *nm = combat_name(s, pf.v, &len);
                if (nm)
                    key_str(ek, names[i].name, nm, len);
                else
                    key_int(ek, names[i].name, (int64_t)pf.v);
                s->ev.nkeys++;
                break;
            }
        }
        if (i == sizeof names / sizeof names[0]) {
            if (pf.num == 8) { key_int(ek, "value", (int64_t)pf.v); s->ev.nkeys++; }
            else if (pf.num == 9) { key_int(ek, "health", (int64_t)pf.v); s->ev.nkeys++; }
            else if (pf.num == 10) {
                key_int(ek, "timestamp", 0);
                ek->value.kind = ZDEM_S2_V_FLOAT;
                ek->value.v.f[0] = zdem_s2pb_float(&pf);
                s->ev.nkeys++;
            }
        }
    }
    if (k < 0)
        return zdem_fail(err, st, (uint64_t)(r.p - msg), "bad protobuf in combat log entry");
    s->ev.name = type < sizeof combat_types / sizeof combat_types[0] ? combat_types[type] : "UNKNOWN";
    s->ev.name_len = (uint32_t)strlen(s->ev.name);
    return deliver(s);
}

zdem_status s2_combat_log(zdem_s2_state *s, uint32_t type, const uint8_t *msg,
                          size_t n, zdem_error *err)
{
    zdem_s2pb r;
    zdem_s2pb_field pf;
    zdem_status st = ZDEM_OK;
    int k;
    if (type == ZDEM_S2_DOTA_UM_COMBATLOGDATAHLTV)
        return combat_entry(s, msg, n, err);
    zdem_s2pb_init(&r, msg, n);
    while ((k = zdem_s2pb_next(&r, &pf, &st)) > 0) {
        if (pf.num == 1 && pf.wire == 2) {
            st = combat_entry(s, pf.ptr, pf.len, err);
            if (st != ZDEM_OK)
                return st;
        }
    }
    if (k < 0)
        return zdem_fail(err, st, (uint64_t)(r.p - msg), "bad protobuf in combat log bulk data");
    return ZDEM_OK;
}

/* ---- players --------------------------------------------------------------- */

/* CMsgPlayerInfo: name = 1, fakeplayer = 5, ishltv = 6. */
static int player_info(const uint8_t *v, uint32_t n, const uint8_t **name,
                       uint32_t *len)
{
    zdem_s2pb r;
    zdem_s2pb_field pf;
    zdem_status st = ZDEM_OK;
    int hltv = 0;
    *name = 0;
    *len = 0;
    zdem_s2pb_init(&r, v, n);
    while (zdem_s2pb_next(&r, &pf, &st) > 0) {
        if (pf.num == 1 && pf.wire == 2) {
            *name = pf.ptr;
            *len = pf.len;
        } else if (pf.num == 6 && pf.wire == 0)
            hltv = pf.v != 0;
    }
    return *name && *len && !hltv;
}

static const uint8_t *player_at(const zdem_s2_state *s, uint32_t want,
                                uint32_t *len, uint32_t *count)
{
    int t = zdem_s2_string_table_find(s, "userinfo");
    uint32_t i, n = 0, entries = 0;
    if (t < 0) {
        *count = 0;
        return 0;
    }
    zdem_s2_string_table_info(s, (uint32_t)t, &entries);
    for (i = 0; i < entries; i++) {
        const uint8_t *k, *v, *name;
        uint32_t kl, vl, nl;
        if (!zdem_s2_string_table_entry(s, (uint32_t)t, i, &k, &kl, &v, &vl) || !v)
            continue;
        if (!player_info(v, vl, &name, &nl))
            continue;
        if (n == want) {
            *len = nl;
            *count = n + 1u;
            return name;
        }
        n++;
    }
    *count = n;
    return 0;
}

/* Players from entities: Dota's player resource (m_vecPlayerData.N.
 * m_iszPlayerName), else player controllers (CS2, Deadlock) in index
 * order. Returns the count; name and len are set for player `want`. */
static uint32_t players_from_entities(const zdem_s2_state *s, uint32_t want,
                                      const uint8_t **name, uint32_t *len)
{
    uint32_t i, n = 0;
    for (i = 0; i < s->max_ents; i++) {
        zdem_s2_entity e;
        zdem_s2_value v;
        if (s->ents[i].cls < 0 || !zdem_s2_entity_get(s, (int32_t)i, &e))
            continue;
        if (e.class_name_len == 20 && memcmp(e.class_name, "CDOTA_PlayerResource", 20) == 0 &&
            zdem_s2_entity_prop(s, (int32_t)i, "m_vecPlayerData", &v)) {
            uint32_t cnt = (uint32_t)v.v.u, k;
            char nm[64];
            for (k = 0; k < cnt && k < 64u; k++) {
                int l = 0;
                unsigned x = k;
                char d[4];
                memcpy(nm, "m_vecPlayerData.", 16);
                do { d[l++] = (char)('0' + x % 10u); x /= 10u; } while (x);
                {
                    int q = 16;
                    while (l)
                        nm[q++] = d[--l];
                    memcpy(nm + q, ".m_iszPlayerName", 17);
                }
                if (!zdem_s2_entity_prop(s, (int32_t)i, nm, &v) || v.kind != ZDEM_S2_V_STRING)
                    continue;
                if (n == want) {
                    *name = v.s;
                    *len = v.len;
                }
                n++;
            }
            return n;
        }
    }
    for (i = 0; i < s->max_ents; i++) {
        zdem_s2_entity e;
        zdem_s2_value v;
        if (s->ents[i].cls < 0 || !zdem_s2_entity_get(s, (int32_t)i, &e))
            continue;
        if (e.class_name_len < 16 ||
            memcmp(e.class_name + e.class_name_len - 16, "PlayerController", 16) != 0)
            continue;
        if (!zdem_s2_entity_prop(s, (int32_t)i, "m_iszPlayerName", &v) ||
            v.kind != ZDEM_S2_V_STRING || !v.len)
            continue;
        if (n == want) {
            *name = v.s;
            *len = v.len;
        }
        n++;
    }
    return n;
}

uint32_t zdem_s2_player_count(const zdem_s2_state *s)
{
    uint32_t len, count;
    const uint8_t *nm;
    count = players_from_entities(s, 0xFFFFFFFFu, &nm, &len);
    if (count)
        return count;
    player_at(s, 0xFFFFFFFFu, &len, &count);
    return count;
}

const uint8_t *zdem_s2_player_name(const zdem_s2_state *s, uint32_t i,
                                   uint32_t *len)
{
    uint32_t count;
    const uint8_t *nm = 0;
    if (players_from_entities(s, i, &nm, len))
        return nm;
    return player_at(s, i, len, &count);
}
