/* Quake III configstrings and the gamestate: the configstring store
 * (append, compact), big configstrings in pieces, info strings, and the
 * gamestate message that sets them and the baselines */
#include "quake3_int.h"

#include <stddef.h>
#include <string.h>

#define CS_DROPPED_MSG "configstrings over MAX_GAMESTATE_CHARS (16000): value dropped"
#define CS_STORE_MSG "limit max_configstring_store: configstrings over the store, value dropped"

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
int zdem_q3__drop_configstring(zdem_q3_parser *p, int i, size_t n)
{
    unset_configstring(p, i);
    p->cs_dropped++;
    return over_gamestate_chars(p, n) ? -1 : -2;
}

/* Store configstring i (replacing any previous value); s may lie in the
 * store above the records (read there, or a gathered big configstring).
 * Returns 0, or -1 / -2 as drop_configstring; the configstring is then
 * left unset. */
int zdem_q3__set_configstring(zdem_q3_parser *p, int i, const char *s, size_t n)
{
    uint32_t need;
    unset_configstring(p, i);
    if (n == 0)
        return 0; /* the engine stores empty strings as unset */
    need = CS_HEAD + (uint32_t)n + 1u;
    /* at the default store the live records fit in half of it */
    if (over_gamestate_chars(p, n) || !cs_make_room(p, need))
        return zdem_q3__drop_configstring(p, i, n);
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
        n = zdem_q3__read_string(p, m, ZDEM_Q3_BIG_INFO_STRING, dst, cap);
        if (n < cap)
            return zdem_q3__set_configstring(p, i, dst, n);
        if (pass > 0 || p->cs_garbage == 0)
            return zdem_q3__drop_configstring(p, i, n);
        compact_configstrings(p);
        *m = save;
    }
}

/* One piece of a big configstring (bcs0/1/2 "index" "piece"), gathered
 * at the top of the store. When it does not fit, the value it replaces at
 * bcs2 is let go early (a small store need not hold both); when it still
 * does not fit, the new value is dropped at bcs2 (a limit). */
void zdem_q3__gather_big_configstring(zdem_q3_parser *p, const char *a, size_t an)
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

int zdem_q3__cs_warn(zdem_q3_parser *p, int r, uint64_t bit)
{
    if (r == -2)
        return zdem_q3__warn_limit(p, bit, CS_STORE_MSG);
    return zdem_q3__warn(p, ZDEM_ERR_NO_SPACE, bit, CS_DROPPED_MSG);
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

int zdem_q3__parse_int(const char *s, size_t n, int32_t *out)
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
    if (!v || zdem_q3__parse_int(v, vn, &proto) != 0)
        return zdem_fail_bits(err, ZDEM_ERR_UNSUPPORTED, bit,
                              "no protocol given and none in the serverinfo");
    p->proto = zdem_q3__find_protocol(proto);
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
            if (r != 0 && zdem_q3__cs_warn(p, r, m->bit))
                return zdem_fail_bits(err, ZDEM_ERR_ABORTED, m->bit, "stopped by callback");
        } else if (cmd == SVC_BASELINE) {
            uint32_t num = zdem_q3_read_bits(m, ZDEM_Q3_GENTITYNUM_BITS);
            size_t b0;
            st = resolve_protocol(p, err, m->bit);
            if (st != ZDEM_OK)
                return st;
            b0 = m->bit;
            st = zdem_q3__read_delta_entity(p, m, NULL, &p->base_tmp, (int)num, err);
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
            if (zdem_q3__store_baseline(p, num, m, b0) != 0) {
                /* the gamestate's snapshots would decode from wrong ones */
                if (!p->baselines_over && zdem_q3__warn_limit(p, m->bit,
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
zdem_status zdem_q3__parse_gamestate(zdem_q3_parser *p, zdem_q3_msg *m, zdem_error *err)
{
    zdem_status st;
    zdem_error e2;
    zdem_q3__clear_gamestate(p);
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
