/* libFuzzer target: the generated Quake III delta encoders
 * (generated/quake3_encode.c) are the exact inverse of the decoders:
 * decode(encode(x)) == x.
 *
 * The input picks a protocol (every one zdem reads, dm3 .. dm_91) and is
 * read as two deltas by that protocol's own decoders, giving two states
 * that are, by construction, values the format can carry (each field in
 * its width, floats any bit pattern): an entity pair and a playerstate
 * pair (its arrays from the input). Each second state is encoded as a
 * delta from the first (the field count or change mask the encoder
 * picks), decoded back, and must equal it, with every bit written read.
 * Then messages: a gamestate with configstrings from the input and the
 * second entity as a baseline, and a server command, written with the
 * bit writer (quake3_bw.h) and read by the parser, which must give the
 * same strings (as the game's reader sanitizes them), the same baseline
 * and the same command. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quake3.h"
#include "quake3_bw.h"
#include "quake3_encode.h"
#include "quake3_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PAD ZDEM_Q3_MSG_PAD

static uint8_t buf[4096 + PAD];

/* A padded copy of part of the input, read as a message. */
static void msg_of(zdem_q3_msg *m, const uint8_t *d, size_t n, int raw)
{
    if (n > 4096)
        n = 4096;
    memset(buf, 0, n + PAD);
    if (n)
        memcpy(buf, d, n);
    zdem_q3_msg_init(m, buf, n);
    m->lim = n + PAD;
    m->raw = raw;
}

/* A state decoded from input bits: an entity delta from `from`. */
static void entity_from(const zdem_q3_protocol_info *pi, const uint8_t *d, size_t n,
                        const zdem_q3_entity *from, zdem_q3_entity *to)
{
    zdem_q3_msg m;
    *to = *from;
    if (n < 9)
        return;
    msg_of(&m, d + 8, n - 8, pi->legacy);
    if (pi->legacy) {
        uint64_t mask;
        memcpy(&mask, d, 8);
        if (pi->entity_fields < 64)
            mask &= ((uint64_t)1 << pi->entity_fields) - 1u;
        pi->legacy_entity(&m, to, mask);
    } else {
        pi->delta_entity(&m, to, d[0] % (pi->entity_fields + 1u));
    }
}

static void player_from(const zdem_q3_protocol_info *pi, const uint8_t *d, size_t n,
                        const zdem_q3_player *from, zdem_q3_player *to)
{
    zdem_q3_msg m;
    size_t i;
    *to = *from;
    if (n < 2)
        return;
    msg_of(&m, d + 1, n - 1, pi->legacy);
    if (pi->legacy)
        pi->legacy_player(&m, to);
    else
        pi->delta_player(&m, to, d[0] % (pi->player_fields + 1u));
    /* the arrays: 16-bit signed entries (powerups 32), some unchanged */
    for (i = 0; i < 16 && 2 + 4 * i + 3 < n; i++) {
        const uint8_t *e = d + 2 + 4 * i;
        if (e[0] & 1)
            to->stats[i] = (int16_t)(e[1] | e[2] << 8);
        if (e[0] & 2)
            to->persistant[i] = (int16_t)(e[2] | e[3] << 8);
        if (e[0] & 4)
            to->ammo[i] = (int16_t)(e[1] | e[3] << 8);
        if (e[0] & 8)
            to->powerups[i] = (int32_t)((uint32_t)e[1] | (uint32_t)e[2] << 8 |
                                        (uint32_t)e[3] << 16 | (uint32_t)e[0] << 24);
    }
}

/* The bits written, read back by the decoder: a padded copy. */
static void readback(zdem_q3_msg *m, const uint8_t *w, size_t len, int raw)
{
    memset(buf, 0, len + PAD);
    memcpy(buf, w, len);
    zdem_q3_msg_init(m, buf, len);
    m->lim = len + PAD;
    m->raw = raw;
}

static uint8_t wbuf[ZDEM_Q3_MAX_MSGLEN];

static void check_entity(const zdem_q3_protocol_info *pi, const zdem_q3_encoder *en,
                         const zdem_q3_entity *from, const zdem_q3_entity *to)
{
    zdem_q3_bw w;
    zdem_q3_msg m;
    zdem_q3_entity got = *from;
    size_t bits;
    zdem_q3_bw_init(&w, wbuf, sizeof wbuf);
    w.raw = pi->legacy;
    if (pi->legacy) {
        uint64_t mask = en->legacy_entity_mask(from, to);
        en->legacy_encode_entity(&w, to, mask);
        bits = zdem_q3_bw_bits(&w);
        readback(&m, wbuf, zdem_q3_bw_finish(&w), 1);
        pi->legacy_entity(&m, &got, mask);
    } else {
        unsigned lc = en->entity_lc(from, to);
        en->encode_entity(&w, from, to, lc);
        bits = zdem_q3_bw_bits(&w);
        readback(&m, wbuf, zdem_q3_bw_finish(&w), 0);
        pi->delta_entity(&m, &got, lc);
    }
    got.number = to->number;
    if (memcmp(&got, to, sizeof got) != 0 || m.bit != bits || m.overflow || (m.bad & 0x8000u))
        abort();
}

static void check_player(const zdem_q3_protocol_info *pi, const zdem_q3_encoder *en,
                         const zdem_q3_player *from, const zdem_q3_player *to)
{
    zdem_q3_bw w;
    zdem_q3_msg m;
    zdem_q3_player got = *from;
    size_t bits;
    zdem_q3_bw_init(&w, wbuf, sizeof wbuf);
    w.raw = pi->legacy;
    if (pi->legacy) {
        en->legacy_encode_player(&w, from, to);
        bits = zdem_q3_bw_bits(&w);
        readback(&m, wbuf, zdem_q3_bw_finish(&w), 1);
        pi->legacy_player(&m, &got);
    } else {
        unsigned lc = en->player_lc(from, to);
        en->encode_player(&w, from, to, lc);
        bits = zdem_q3_bw_bits(&w);
        readback(&m, wbuf, zdem_q3_bw_finish(&w), 0);
        pi->delta_player(&m, &got, lc);
    }
    /* the arrays are not the generated encoders' (the writer's own) */
    memcpy(got.stats, to->stats, sizeof got.stats);
    memcpy(got.persistant, to->persistant, sizeof got.persistant);
    memcpy(got.ammo, to->ammo, sizeof got.ammo);
    memcpy(got.powerups, to->powerups, sizeof got.powerups);
    if (memcmp(&got, to, sizeof got) != 0 || m.bit != bits || m.overflow || (m.bad & 0x8000u))
        abort();
}

/* ---- messages through the parser */

typedef struct seen {
    int32_t seq;
    char cmd[ZDEM_Q3_MAX_STRING_CHARS];
    size_t len;
    int got;
} seen;

static int on_command(void *user, const zdem_q3_parser *p, int32_t seq, const char *cmd, size_t len)
{
    seen *s = (seen *)user;
    (void)p;
    s->seq = seq;
    memcpy(s->cmd, cmd, len);
    s->len = len;
    s->got++;
    return 0;
}

static void *parser_mem;

/* A string as the reader keeps it: up to the first NUL, '%' and (but
 * for dm_91) bytes over 127 as '.', at most max - 1 characters. */
static size_t sanitize(const zdem_q3_protocol_info *pi, const uint8_t *d, size_t n, size_t max,
                       char *out)
{
    size_t i;
    for (i = 0; i < n && i < max - 1 && d[i]; i++)
        out[i] = d[i] == '%' || (d[i] > 127 && !pi->high_ascii) ? '.' : (char)d[i];
    out[i] = 0;
    return i;
}

static void check_messages(const zdem_q3_protocol_info *pi, const zdem_q3_encoder *en,
                           const zdem_q3_entity *base, const uint8_t *d, size_t n)
{
    static char want[3][ZDEM_Q3_MAX_STRING_CHARS];
    size_t wn[3], i, k;
    int idx[3];
    seen s;
    zdem_q3_callbacks cb;
    zdem_q3_parser *p;
    zdem_q3_frame f;
    zdem_q3_bw w;
    zdem_error err;
    int32_t seq = 1;
    int num = 0;
    if (!parser_mem && !(parser_mem = malloc(zdem_q3_parser_size())))
        return;
    memset(&cb, 0, sizeof cb);
    cb.server_command = on_command;
    memset(&s, 0, sizeof s);
    zdem_error_clear(&err);
    p = zdem_q3_parser_init(parser_mem, zdem_q3_parser_size(), pi->protocol, &cb, &s, &err);
    if (!p)
        abort();
    if (n >= 6) {
        seq = (int32_t)((uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16) + 1;
        num = (d[3] | d[4] << 8) & (ZDEM_Q3_MAX_GENTITIES - 2); /* not 1023 */
        d += 6;
        n -= 6;
    }
    /* three strings from the input: configstrings 1..3 (0 would be the
     * serverinfo, which names the protocol), the third also a command */
    for (k = 0; k < 3; k++) {
        size_t m = n / (3 - k);
        idx[k] = (int)k + 1;
        wn[k] = sanitize(pi, d, m, k == 2 ? ZDEM_Q3_MAX_STRING_CHARS : 1000, want[k]);
        d += m;
        n -= m;
    }
    /* gamestate: as the writer writes it (quake3_write.c) */
    zdem_q3_bw_init(&w, wbuf, sizeof wbuf);
    w.raw = pi->legacy;
    if (pi->protocol != 3)
        zdem_q3_bw_long(&w, 7);
    zdem_q3_bw_byte(&w, 2);
    zdem_q3_bw_long(&w, 0);
    for (k = 0; k < 3; k++) {
        zdem_q3_bw_byte(&w, 3);
        zdem_q3_bw_bits_n(&w, (uint32_t)idx[k], 16);
        for (i = 0; i < wn[k]; i++)
            zdem_q3_bw_byte(&w, (uint8_t)want[k][i]);
        zdem_q3_bw_byte(&w, 0);
    }
    {
        zdem_q3_entity zero;
        memset(&zero, 0, sizeof zero);
        zdem_q3_bw_byte(&w, 4);
        zdem_q3_bw_bits_n(&w, (uint32_t)num, ZDEM_Q3_GENTITYNUM_BITS);
        zdem_q3_bw_bit(&w, 0);
        if (pi->legacy) {
            uint64_t mask = en->legacy_entity_mask(&zero, base);
            zdem_q3_bw_bit(&w, mask != 0);
            if (mask) {
                zdem_q3_bw_put(&w, 31, 5);
                zdem_q3_bw_put(&w, (uint32_t)mask, 32);
                zdem_q3_bw_put(&w, (uint32_t)(mask >> 32), pi->entity_fields - 32u);
                en->legacy_encode_entity(&w, base, mask);
            }
        } else {
            unsigned lc = en->entity_lc(&zero, base);
            zdem_q3_bw_bit(&w, lc != 0);
            if (lc) {
                zdem_q3_bw_byte(&w, lc);
                en->encode_entity(&w, &zero, base, lc);
            }
        }
    }
    zdem_q3_bw_byte(&w, 8);
    if (!pi->legacy) {
        zdem_q3_bw_long(&w, 3);
        zdem_q3_bw_long(&w, 0);
        zdem_q3_bw_byte(&w, 8);
    }
    f.sequence = 100;
    f.data = wbuf;
    f.len = zdem_q3_bw_finish(&w);
    f.offset = 0;
    f.index = 0;
    if (w.over)
        return;
    if (zdem_q3_parse_message(p, &f, &err) != ZDEM_OK)
        abort();
    for (k = 0; k < 3; k++) {
        size_t len;
        const char *cs = zdem_q3_configstring(p, idx[k], &len);
        if (wn[k] == 0 ? cs != NULL : (!cs || len != wn[k] || memcmp(cs, want[k], len) != 0))
            abort();
    }
    {
        const zdem_q3_entity *b = zdem_q3_baseline(p, num);
        zdem_q3_entity x = *base;
        x.number = num;
        if (!b || memcmp(b, &x, sizeof x) != 0)
            abort();
    }
    /* a server command in the next message */
    zdem_q3_bw_init(&w, wbuf, sizeof wbuf);
    w.raw = pi->legacy;
    if (pi->protocol != 3)
        zdem_q3_bw_long(&w, 8);
    zdem_q3_bw_byte(&w, 5);
    zdem_q3_bw_long(&w, seq);
    for (i = 0; i < wn[2]; i++)
        zdem_q3_bw_byte(&w, (uint8_t)want[2][i]);
    zdem_q3_bw_byte(&w, 0);
    if (pi->legacy)
        zdem_q3_bw_align(&w);
    zdem_q3_bw_byte(&w, 8);
    f.sequence = 101;
    f.len = zdem_q3_bw_finish(&w);
    if (zdem_q3_parse_message(p, &f, &err) != ZDEM_OK)
        abort();
    if (s.got != 1 || s.seq != seq || s.len != wn[2] || memcmp(s.cmd, want[2], s.len) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const zdem_q3_protocol_info *pi;
    const zdem_q3_encoder *en;
    zdem_q3_entity e0, e1, e2;
    zdem_q3_player p0, p1, p2;
    size_t q;
    if (size < 2)
        return 0;
    pi = &zdem_q3_protocols[data[0] % ZDEM_Q3_PROTOCOL_COUNT];
    en = &zdem_q3_encoders[data[0] % ZDEM_Q3_PROTOCOL_COUNT];
    if (en->protocol != pi->protocol)
        abort();
    data++;
    size--;
    q = size / 4;
    memset(&e0, 0, sizeof e0);
    memset(&p0, 0, sizeof p0);
    entity_from(pi, data, q, &e0, &e1);
    entity_from(pi, data + q, q, &e1, &e2);
    player_from(pi, data + 2 * q, q, &p0, &p1);
    player_from(pi, data + 3 * q, size - 3 * q, &p1, &p2);
    check_entity(pi, en, &e1, &e2); /* a delta */
    check_entity(pi, en, &e0, &e2); /* from zero, as from a missing baseline */
    check_entity(pi, en, &e2, &e2); /* nothing changed */
    check_player(pi, en, &p1, &p2);
    check_player(pi, en, &p0, &p2);
    check_messages(pi, en, &e2, data, size);
    return 0;
}
