/* libFuzzer target: Quake III demos built from the input, then parsed as
 * the CLI parses them (fuzz_quake3_cli.h). Mutating a real demo's Huffman
 * bits rarely keeps a snapshot valid for long, so the deep states (more
 * than 256 entities in a snapshot, the 2048-slot entity pool running full,
 * delta sources dropped from the ring, bcs0/1/2 big configstrings, score
 * configstrings) are never reached that way. Here the input is a script:
 * each byte chooses a count, an entity number step or a command, and the
 * harness writes the messages with MSG_WriteBits' layout (n % 8 raw bits,
 * then n / 8 Huffman-coded bytes: zdem_q3_huff_encode), or for the legacy
 * protocols 3 and 48 their plain-bit layout (no acknowledge in dm3, byte-
 * aligned commands, mask-coded entity deltas, every playerstate field with
 * its changed bit). Bytes past the end of the input read as 0, so every
 * input is a whole demo. */
#include <stdint.h>
#include <stdio.h>
#include "fuzz_quake3_cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The demo writer is scaffolding, not code under test: without coverage
 * hooks (clang) its bit loops neither slow every input (they were a third
 * of the time) nor add features for the fuzzer to chase. */
#if defined(__clang__)
#define NO_COV __attribute__((no_sanitize("coverage")))
#else
#define NO_COV
#endif

typedef struct script {
    const uint8_t *d;
    size_t n, i;
} script;

NO_COV static unsigned take(script *s)
{
    return s->i < s->n ? s->d[s->i++] : 0u;
}

/* One message payload, at most the engine's 16384 bytes (writes past that
 * are dropped: the parser then meets a cut message). */
typedef struct writer {
    uint8_t buf[ZDEM_Q3_MAX_MSGLEN];
    size_t bit;
    int legacy;   /* plain bits, no Huffman code */
} writer;

/* n (at most 11: a Huffman code) raw bits, first bit first */
NO_COV static void put_raw(writer *w, uint32_t v, unsigned n)
{
    size_t byte = w->bit >> 3;
    unsigned sh = (unsigned)(w->bit & 7u);
    uint32_t x = (v & ((1u << n) - 1u)) << sh;
    w->bit += n;
    if (byte + 3 > sizeof w->buf)
        return; /* past the engine's limit: dropped */
    if (!sh)
        w->buf[byte] = 0;
    w->buf[byte] |= (uint8_t)x;
    w->buf[byte + 1] = (uint8_t)(x >> 8);
    w->buf[byte + 2] = (uint8_t)(x >> 16);
}

NO_COV static void put_byte(writer *w, unsigned b)
{
    unsigned e = zdem_q3_huff_encode[b & 0xFFu];
    if (w->legacy)
        put_raw(w, b & 0xFFu, 8);
    else
        put_raw(w, e & 0x7FFu, e >> 11);
}

/* MSG_WriteBits(value, n), n in 1..32 */
NO_COV static void put_bits(writer *w, uint32_t v, unsigned n)
{
    unsigned raw = n & 7u, i;
    if (w->legacy) { /* plain bits, 8 at a time */
        for (i = 0; i < n; i += 8, v = i < 32 ? v >> 8 : 0)
            put_raw(w, v & 0xFFu, n - i < 8 ? n - i : 8);
        return;
    }
    put_raw(w, v & ((1u << raw) - 1u), raw);
    v = raw < 32 ? v >> raw : 0;
    for (i = 0; i < n / 8u; i++, v >>= 8)
        put_byte(w, v & 0xFFu);
}

NO_COV static void put_long(writer *w, int32_t v) { put_bits(w, (uint32_t)v, 32); }

NO_COV static void put_string(writer *w, const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        put_byte(w, (unsigned char)s[i]);
    put_byte(w, 0);
}

/* Legacy layout: each command of a message starts on a byte boundary. */
NO_COV static void align(writer *w)
{
    if (w->legacy)
        w->bit = (w->bit + 7u) & ~(size_t)7u;
}

/* svc_ops_e */
enum { SVC_GAMESTATE = 2, SVC_CONFIGSTRING = 3, SVC_BASELINE = 4, SVC_SERVERCOMMAND = 5,
       SVC_SNAPSHOT = 7, SVC_EOF = 8 };

static uint8_t demo[1 << 18];
static size_t demo_len;
static writer w;

NO_COV static void emit_message(int32_t seq)
{
    size_t len = (w.bit + 7) / 8;
    if (len > sizeof w.buf)
        len = sizeof w.buf;
    if (demo_len + 8 + len > sizeof demo)
        return;
    demo[demo_len] = (uint8_t)seq;
    demo[demo_len + 1] = (uint8_t)((uint32_t)seq >> 8);
    demo[demo_len + 2] = (uint8_t)((uint32_t)seq >> 16);
    demo[demo_len + 3] = (uint8_t)((uint32_t)seq >> 24);
    demo[demo_len + 4] = (uint8_t)len;
    demo[demo_len + 5] = (uint8_t)(len >> 8);
    demo[demo_len + 6] = 0;
    demo[demo_len + 7] = 0;
    memcpy(demo + demo_len + 8, w.buf, len);
    demo_len += 8 + len;
}

/* An entity delta whose fields are all "unchanged" except the field count
 * (the netfield widths are the generated decoder's business). */
static void put_entity(writer *w, script *s, int num, int fields)
{
    unsigned op = take(s) & 3u, lc, i;
    put_bits(w, (uint32_t)num, ZDEM_Q3_GENTITYNUM_BITS);
    if (op == 0) { /* removed */
        put_raw(w, 1, 1);
        return;
    }
    put_raw(w, 0, 1);
    if (op == 1) { /* no change */
        put_raw(w, 0, 1);
        return;
    }
    put_raw(w, 1, 1);
    if (w->legacy) {
        /* a predefined mask (its fields then read from the bytes that
         * follow: any values) or the full mask, mostly empty */
        unsigned k = take(s) & 31u;
        put_raw(w, k, 5);
        if (k == 31u)
            for (i = 0; i < (unsigned)fields; i += 8)
                put_raw(w, i == 0 ? take(s) & 1u : 0u, fields - i < 8 ? fields - i : 8);
        else
            for (i = 0; i < 4; i++)
                put_raw(w, take(s), 8);
        return;
    }
    lc = take(s) % (unsigned)(fields + 1 + (op == 3)); /* sometimes one too many */
    put_byte(w, lc);
    for (i = 0; i < lc; i += 11) /* lc "unchanged" bits */
        put_raw(w, 0, lc - i < 11 ? lc - i : 11);
}

static const char *const templates[] = {
    "cs %d \"", "bcs0 %d \"", "bcs1 %d \"", "bcs2 %d \"", "chat \"", "tchat \"",
    "print \"", "cp \"", "scores %d 3 -1 ", "cs 6 \"%d", "cs 7 \"%d", "cs 710 \"\\sb\\%d\\sr\\",
    "cs %d \"n\\", "bcs0 710 \"\\sb\\%d", "disconnect", "cs %d \"\"", "mm2 %d 5 \""};

/* Long fillers fill the configstring store (16000 bytes): more than that
 * an input never needs, and each byte is written and read again. */
#define FILLER_BUDGET 17000u
static unsigned filler_left;

static void put_command(writer *w, script *s, int32_t cmdseq, int cs_players)
{
    char text[ZDEM_Q3_MAX_STRING_CHARS];
    unsigned t = take(s) % (sizeof templates / sizeof templates[0]), k, len;
    int arg = (int)(take(s) | (take(s) << 8)) % 1100 - 40, n;
    if (t == 12)
        arg = cs_players + arg % 64;
    if (t == 16) /* CPMA team call: client numbers around the valid range */
        arg = arg % 66 - 1;
    n = snprintf(text, sizeof text, templates[t], arg);
    len = take(s);
    if (len & 128u) { /* long filler: big configstrings fill the store */
        unsigned c = take(s);
        for (k = 0; k < (len & 127u) * 8u && n < (int)sizeof text - 2 && filler_left; k++) {
            text[n++] = (char)(c | 1u);
            filler_left--;
        }
    } else { /* text from the input, any bytes */
        for (k = 0; k < len % 64u && n < (int)sizeof text - 2; k++)
            text[n++] = (char)take(s);
    }
    if (take(s) & 1)
        text[n++] = '"';
    put_byte(w, SVC_SERVERCOMMAND);
    put_long(w, cmdseq);
    put_string(w, text, (size_t)n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    script s;
    const zdem_q3_protocol_info *pi;
    zdem_q3_parser *p;
    zdem_q3_reader r;
    zdem_error err;
    char info[128];
    int32_t seq = 100, cmdseq = 0, time = 1000;
    int i, n, msgs;
    s.d = data;
    s.n = size;
    s.i = 0;
    demo_len = 0;
    filler_left = FILLER_BUDGET;
    pi = &zdem_q3_protocols[take(&s) % ZDEM_Q3_PROTOCOL_COUNT];
    w.legacy = pi->legacy;
    p = fuzz_q3_parser_for(pi->legacy ? pi->protocol : 0);
    if (!p)
        return 0;

    /* gamestate: serverinfo with the protocol, a player, baselines */
    w.bit = 0;
    if (pi->protocol != 3)
        put_long(&w, 0); /* reliable acknowledge */
    put_byte(&w, SVC_GAMESTATE);
    put_long(&w, cmdseq);
    n = snprintf(info, sizeof info, "\\protocol\\%d\\mapname\\fuzz\\gamename\\%s", pi->protocol,
                 take(&s) == 255 ? "ZEQ2" : "baseq3");
    put_byte(&w, SVC_CONFIGSTRING);
    put_bits(&w, 0, 16);
    put_string(&w, info, (size_t)n);
    put_byte(&w, SVC_CONFIGSTRING);
    put_bits(&w, pi->cs_players, 16);
    put_string(&w, "n\\fuzzer\\t\\1", 12);
    n = (int)take(&s) * 4;
    for (i = 0; i < n; i++) {
        int num = (int)(take(&s) | (take(&s) << 8)) & (ZDEM_Q3_MAX_GENTITIES - 1);
        put_byte(&w, SVC_BASELINE);
        put_entity(&w, &s, num, pi->entity_fields);
    }
    put_byte(&w, SVC_EOF);
    if (!w.legacy) {
        put_long(&w, 0);   /* client number */
        put_long(&w, 42);  /* checksum feed */
    }
    align(&w);
    put_byte(&w, SVC_EOF);
    emit_message(seq);

    for (msgs = 0; msgs < 64 && s.i < s.n; msgs++) { /* 64: twice the snapshot ring */
        unsigned op = take(&s);
        int num = -1, count;
        seq += 1 + (op & 0x80 ? (int)(take(&s) % 40) : 0); /* gaps: lost delta sources */
        w.bit = 0;
        if (pi->protocol != 3)
            put_long(&w, 0);
        for (i = 0; i < (int)((op >> 4) & 3u); i++) {
            put_command(&w, &s, (op & 0x40) ? cmdseq : ++cmdseq, pi->cs_players);
            align(&w);
        }
        if (op & 1) {
            unsigned d = take(&s), len;
            time += 50;
            put_byte(&w, SVC_SNAPSHOT);
            if (pi->protocol == 3)
                put_long(&w, cmdseq); /* dm3: client command sequence */
            put_long(&w, time);
            put_byte(&w, d < 160 ? 1 : d < 200 ? 0 : d - 200); /* delta: mostly the last one */
            put_byte(&w, 0);                                   /* snap flags */
            len = op & 2 ? take(&s) % 40u : 0;                 /* > 32 is an error */
            put_byte(&w, len);
            for (i = 0; i < (int)len; i++)
                put_byte(&w, take(&s));
            /* playerstate: a field count, no field changed, sometimes arrays
             * (legacy: a changed bit for every field, no outer array bit) */
            n = w.legacy ? pi->player_fields : (int)(take(&s) % (unsigned)(pi->player_fields + 1));
            if (!w.legacy)
                put_byte(&w, (unsigned)n);
            for (i = 0; i < n; i += 11)
                put_raw(&w, 0, n - i < 11 ? (unsigned)(n - i) : 11);
            if (op & 4) {
                if (!w.legacy)
                    put_raw(&w, 1, 1);
                for (i = 0; i < 4; i++) {
                    unsigned mask = take(&s) & 3u, j;
                    put_raw(&w, mask != 0, 1);
                    if (!mask)
                        continue;
                    put_bits(&w, mask, 16);
                    for (j = 0; j < 2; j++)
                        if (mask & (1u << j))
                            put_bits(&w, take(&s), i == 3 ? 32 : 16);
                }
            } else {
                put_raw(&w, 0, w.legacy ? 4 : 1);
            }
            /* entities: ascending numbers (the parser also copes with
             * others), up to 300 of them (the limit is 256) */
            count = (int)take(&s);
            count += take(&s) & 1u ? 45 : 0;
            for (i = 0; i < count; i++) {
                num += 1 + (int)(take(&s) % 3u);
                if (num >= ZDEM_Q3_ENTITYNUM_NONE)
                    break;
                put_entity(&w, &s, num, pi->entity_fields);
            }
            put_bits(&w, ZDEM_Q3_ENTITYNUM_NONE, ZDEM_Q3_GENTITYNUM_BITS);
            align(&w);
        }
        put_byte(&w, SVC_EOF);
        emit_message(seq);
    }
    if (demo_len + 8 <= sizeof demo) {
        memset(demo + demo_len, 0xFF, 8);
        demo_len += 8;
    }
    zdem_error_clear(&err);
    (void)zdem_q3_parse_file(p, demo, demo_len, &r, &err);
    return 0;
}
