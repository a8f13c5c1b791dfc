#include "source2_broadcast.h"

#include <string.h>
#include "source2_state_int.h"
#include "zdem_varint.h"

/* ---- sync.json ------------------------------------------------------------ */

typedef struct json_in {
    const uint8_t *p, *start, *end;
} json_in;

static void json_ws(json_in *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static zdem_status json_bad(const json_in *j, zdem_error *err, const char *msg)
{
    return zdem_fail(err, ZDEM_ERR_CORRUPT, (uint64_t)(j->p - j->start), msg);
}

/* A string at p (on its opening quote): *s, *n the bytes between the
 * quotes, escapes as they are. */
static int json_string(json_in *j, const uint8_t **s, size_t *n)
{
    const uint8_t *q = j->p + 1;
    while (q < j->end && *q != '"') {
        if (*q == '\\')
            q++;
        q++;
    }
    if (q >= j->end)
        return 0;
    *s = j->p + 1;
    *n = (size_t)(q - *s);
    j->p = q + 1;
    return 1;
}

/* A number: *is_int when it is an integer that fits int64 (then *i). */
static int json_number(json_in *j, int64_t *i, double *d, int *is_int)
{
    const uint8_t *q = j->p;
    int neg = 0, digits = 0, big = 0;
    uint64_t u = 0;
    double v = 0.0, scale = 1.0;
    long ex = 0;
    if (q < j->end && *q == '-') {
        neg = 1;
        q++;
    }
    for (; q < j->end && *q >= '0' && *q <= '9'; q++, digits++) {
        if (u > (UINT64_C(0x7FFFFFFFFFFFFFFF) - (uint64_t)(*q - '0')) / 10u)
            big = 1;
        else
            u = u * 10u + (uint64_t)(*q - '0');
        v = v * 10.0 + (double)(*q - '0');
    }
    if (!digits)
        return 0;
    *is_int = !big;
    if (q < j->end && *q == '.') {
        *is_int = 0;
        for (q++, digits = 0; q < j->end && *q >= '0' && *q <= '9'; q++, digits++) {
            scale /= 10.0;
            v += scale * (double)(*q - '0');
        }
        if (!digits)
            return 0;
    }
    if (q < j->end && (*q == 'e' || *q == 'E')) {
        int eneg = 0;
        *is_int = 0;
        q++;
        if (q < j->end && (*q == '+' || *q == '-'))
            eneg = *q++ == '-';
        for (digits = 0; q < j->end && *q >= '0' && *q <= '9'; q++, digits++)
            if (ex < 1000)
                ex = ex * 10 + (*q - '0');
        if (!digits)
            return 0;
        for (; ex > 0 && v != 0.0; ex--) /* bounded: ex < 1000 */
            v = eneg ? v / 10.0 : v * 10.0;
    }
    *i = neg ? -(int64_t)u : (int64_t)u;
    *d = neg ? -v : v;
    j->p = q;
    return 1;
}

/* Passes over any value (nested ones with a depth count, no recursion). */
static int json_skip(json_in *j)
{
    size_t depth = 0;
    do {
        json_ws(j);
        if (j->p >= j->end)
            return 0;
        if (*j->p == '"') {
            const uint8_t *s;
            size_t n;
            if (!json_string(j, &s, &n))
                return 0;
        } else if (*j->p == '{' || *j->p == '[') {
            depth++;
            j->p++;
        } else if (*j->p == '}' || *j->p == ']') {
            if (!depth)
                return 0;
            depth--;
            j->p++;
        } else if (*j->p == ',' || *j->p == ':') {
            if (!depth)
                return 0;
            j->p++;
        } else {
            const uint8_t *q = j->p;
            while (q < j->end && ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') ||
                                  *q == '-' || *q == '+' || *q == '.' || *q == 'E'))
                q++;
            if (q == j->p)
                return 0;
            j->p = q;
        }
    } while (depth);
    return 1;
}

static int key_is(const uint8_t *k, size_t n, const char *name)
{
    return strlen(name) == n && memcmp(k, name, n) == 0;
}

zdem_status zdem_s2_broadcast_sync(const uint8_t *json, size_t n, zdem_s2_bc_sync *out,
                                   zdem_error *err)
{
    static const char *const ints[] = {"tick", "endtick", "maxtick", "fragment",
                                       "signup_fragment", "tps", "keyframe_interval",
                                       "protocol"};
    int64_t *const slot[] = {&out->tick, &out->endtick, &out->maxtick, &out->fragment,
                             &out->signup_fragment, &out->tps, &out->keyframe_interval,
                             &out->protocol};
    json_in j;
    size_t k;
    for (k = 0; k < sizeof ints / sizeof ints[0]; k++)
        *slot[k] = -1;
    out->rtdelay = out->rcvage = -1.0;
    out->map = out->token_redirect = 0;
    out->map_len = out->token_redirect_len = 0;
    j.p = j.start = json;
    j.end = json + n;
    json_ws(&j);
    if (j.p >= j.end || *j.p != '{')
        return json_bad(&j, err, "sync: not a JSON object");
    j.p++;
    json_ws(&j);
    if (j.p < j.end && *j.p == '}')
        j.p++;
    else
        for (;;) {
            const uint8_t *key, *at;
            size_t klen;
            json_ws(&j);
            if (j.p >= j.end || *j.p != '"' || !json_string(&j, &key, &klen))
                return json_bad(&j, err, "sync: a member name is not a string");
            json_ws(&j);
            if (j.p >= j.end || *j.p != ':')
                return json_bad(&j, err, "sync: no ':' after a member name");
            j.p++;
            json_ws(&j);
            at = j.p;
            for (k = 0; k < sizeof ints / sizeof ints[0] && !key_is(key, klen, ints[k]); k++)
                ;
            if (k < sizeof ints / sizeof ints[0]) {
                int64_t i;
                double d;
                int is_int;
                if (!json_number(&j, &i, &d, &is_int) || !is_int)
                    return json_bad(&j, err, "sync: an integer member is not an integer");
                *slot[k] = i;
            } else if (key_is(key, klen, "rtdelay") || key_is(key, klen, "rcvage")) {
                int64_t i;
                double d;
                int is_int;
                if (!json_number(&j, &i, &d, &is_int))
                    return json_bad(&j, err, "sync: a number member is not a number");
                *(key[1] == 't' ? &out->rtdelay : &out->rcvage) = d;
            } else if ((key_is(key, klen, "map") || key_is(key, klen, "token_redirect")) &&
                       j.p < j.end && *j.p == '"') {
                const uint8_t *s;
                size_t sn;
                if (!json_string(&j, &s, &sn) || sn > 0xFFFFFFFFu)
                    return json_bad(&j, err, "sync: a string member is cut off");
                if (key[0] == 'm') {
                    out->map = (const char *)s;
                    out->map_len = (uint32_t)sn;
                } else {
                    out->token_redirect = (const char *)s;
                    out->token_redirect_len = (uint32_t)sn;
                }
            } else if (!json_skip(&j)) {
                j.p = at;
                return json_bad(&j, err, "sync: a member's value is not JSON");
            }
            json_ws(&j);
            if (j.p < j.end && *j.p == ',') {
                j.p++;
                continue;
            }
            if (j.p < j.end && *j.p == '}') {
                j.p++;
                break;
            }
            return json_bad(&j, err, "sync: no ',' or '}' after a member");
        }
    json_ws(&j);
    if (j.p != j.end)
        return json_bad(&j, err, "sync: text after the object");
    if (out->fragment < 0)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "sync: no \"fragment\" to start from");
    if (out->protocol >= 0 && out->protocol != 5)
        return zdem_fail(err, ZDEM_ERR_UNSUPPORTED, 0,
                         "sync: broadcast protocol is not 5 (the only one known)");
    return ZDEM_OK;
}

/* ---- records ---------------------------------------------------------------- */

const char *zdem_s2_bc_kind_name(zdem_s2_bc_kind kind)
{
    return kind == ZDEM_S2_BC_START ? "start" : kind == ZDEM_S2_BC_FULL ? "full" : "delta";
}

/* A record header: varuint command, u32 tick, u8, and (command != 0) u32
 * size. *hdr: its length. 1, 0 (more bytes needed) or -1 (bad varint). */
static int record_header(const uint8_t *p, size_t avail, uint32_t *cmd, uint32_t *tick,
                         uint32_t *size, size_t *hdr)
{
    const uint8_t *q = p;
    size_t v;
    zdem_status st = zdem_varuint32(&q, p + avail, cmd);
    if (st == ZDEM_ERR_TRUNCATED)
        return 0;
    if (st != ZDEM_OK)
        return -1;
    v = (size_t)(q - p);
    if (avail - v < 5u)
        return 0;
    *tick = zdem_load_le32(q);
    if (*cmd == 0) { /* the end record: no size */
        *size = 0;
        *hdr = v + 5u;
        return 1;
    }
    if (avail - v < 9u)
        return 0;
    *size = zdem_load_le32(q + 5);
    *hdr = v + 9u;
    return 1;
}

static int bc_sizer(void *ctx, const uint8_t *p, size_t avail, size_t *len, zdem_error *err)
{
    zdem_s2_broadcast *b = (zdem_s2_broadcast *)ctx;
    zdem_s2_state *s = b->s;
    uint32_t cmd, tick, size, c;
    size_t hdr;
    int rc = record_header(p, avail, &cmd, &tick, &size, &hdr);
    if (rc < 0) {
        zdem_fail(err, ZDEM_ERR_VARINT, 0, "bad varint in broadcast record command");
        return -1;
    }
    if (rc == 0)
        return 0;
    /* a size past what size_t holds (32-bit hosts) cannot fit a buffer */
    *len = (size_t)size > (size_t)-1 - hdr ? (size_t)-1 : hdr + (size_t)size;
    c = cmd & ~(uint32_t)ZDEM_S2_CMD_COMPRESSED;
    /* events mode: the commands it never reads are not gathered */
    if (cmd != 0 && s->cfg.events_only && c < 32u &&
        ((zdem_s2_events_unread_cmds() & ~s->cfg.frame_payloads) >> c & 1u)) {
        b->records++;
        s->push.skipped++;
        return ZDEM_PUSH_SKIP;
    }
    return 1;
}

static zdem_status bc_sink(void *ctx, const uint8_t *rec, size_t len, uint64_t offset,
                           zdem_error *err)
{
    zdem_s2_broadcast *b = (zdem_s2_broadcast *)ctx;
    zdem_s2_outer m;
    uint32_t cmd, tick, size;
    size_t hdr;
    zdem_status st;
    (void)record_header(rec, len, &cmd, &tick, &size, &hdr); /* the sizer read it */
    b->records++;
    if (cmd == 0) {
        /* stops the assembler: the bytes after the end are not records */
        b->ended = 1;
        b->end_at = offset + len;
        return ZDEM_ERR_ABORTED;
    }
    m.index = b->records - 1u;
    m.offset = offset;
    m.cmd = cmd & ~(uint32_t)ZDEM_S2_CMD_COMPRESSED;
    m.compressed = (cmd & ZDEM_S2_CMD_COMPRESSED) != 0;
    /* the start fragment's records (tick 0) are the pregame */
    m.tick = b->kind == ZDEM_S2_BC_START || tick == 0xFFFFFFFFu ? -1 : (int64_t)tick;
    b->last_tick = m.tick;
    m.payload_offset = offset + hdr;
    m.stored = rec + hdr;
    m.stored_size = size;
    st = zdem_s2_state_push_frame(b->s, &m, err);
    if (st != ZDEM_OK) {
        b->failed = st;
        if (err)
            b->fail_err = *err;
    }
    return st;
}

static zdem_status bc_skip(void *ctx, uint64_t offset, size_t len, zdem_error *err)
{
    zdem_s2_broadcast *b = (zdem_s2_broadcast *)ctx;
    (void)len;
    (void)err;
    b->records++;
    zdem_s2_warn_skipped(&b->s->warn, offset);
    return ZDEM_OK;
}

/* The assembler after a fragment: empty, at the next fragment's start. */
static void reset_records(zdem_s2_broadcast *b)
{
    b->in.have = 0;
    b->in.need = 0;
    b->in.skipping = 0;
    b->in.failed = ZDEM_OK;
    b->in.offset = b->fed;
}

static zdem_status stopped(zdem_s2_broadcast *b, zdem_error *err)
{
    if (err && err->code == ZDEM_OK)
        *err = b->fail_err;
    return b->failed;
}

zdem_status zdem_s2_broadcast_init(zdem_s2_broadcast *b, zdem_s2_state *s,
                                   const zdem_s2_bc_sync *sync, zdem_error *err)
{
    memset(b, 0, sizeof *b);
    b->s = s;
    b->max_fragment = ZDEM_S2_BC_MAX_FRAGMENT;
    b->failed = ZDEM_OK;
    b->last_tick = -1;
    zdem_error_clear(&b->fail_err);
    if (!sync || sync->fragment < 0)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "broadcast: no fragment to start from");
    /* a record header is at most 14 bytes: less cannot gather anything */
    if (s->gather_cap < 16u)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0,
                         "broadcast: the state has no gather buffer (zdem_s2_config.gather_buffer)");
    s->raw_packets = 1;
    b->next_kind = ZDEM_S2_BC_START;
    b->next_fragment = sync->signup_fragment >= 0 ? sync->signup_fragment : 0;
    b->first_full = sync->fragment;
    zdem_push_init(&b->in, s->gather_buf, s->gather_cap, bc_sizer, bc_sink, b);
    zdem_push_set_skip(&b->in, bc_skip);
    return ZDEM_OK;
}

int zdem_s2_broadcast_next(const zdem_s2_broadcast *b, zdem_s2_bc_kind *kind, int64_t *fragment)
{
    if (b->ended || b->failed != ZDEM_OK)
        return 0;
    *kind = b->next_kind;
    *fragment = b->next_fragment;
    return 1;
}

zdem_status zdem_s2_broadcast_begin(zdem_s2_broadcast *b, zdem_s2_bc_kind kind,
                                    int64_t fragment, zdem_error *err)
{
    zdem_status st;
    if (b->in_fragment && (st = zdem_s2_broadcast_end_fragment(b, err)) != ZDEM_OK)
        return st;
    if (b->failed != ZDEM_OK)
        return stopped(b, err);
    b->kind = kind;
    b->fragment = fragment;
    b->in_fragment = 1;
    b->fragment_broken = 0;
    b->fragment_start = b->fed;
    b->fragment_bytes = 0;
    return ZDEM_OK;
}

zdem_status zdem_s2_broadcast_feed(zdem_s2_broadcast *b, const uint8_t *data, size_t n,
                                   zdem_error *err)
{
    zdem_status st;
    zdem_error e;
    uint64_t at = b->fed;
    if (b->failed != ZDEM_OK)
        return stopped(b, err);
    if (!b->in_fragment && !b->ended &&
        (st = zdem_s2_broadcast_begin(b, b->next_kind, b->next_fragment, err)) != ZDEM_OK)
        return st;
    if (b->max_fragment && n > b->max_fragment - b->fragment_bytes) {
        /* an endless fragment: what fits is read, then the broadcast stops */
        size_t fit = (size_t)(b->max_fragment - b->fragment_bytes);
        if (fit && (st = zdem_s2_broadcast_feed(b, data, fit, err)) != ZDEM_OK)
            return st;
        b->failed = ZDEM_ERR_LIMIT;
        zdem_error_clear(&b->fail_err);
        zdem_fail(&b->fail_err, ZDEM_ERR_LIMIT, b->fed,
                  "broadcast fragment larger than the limit (max_fragment); the rest is not read");
        return stopped(b, err);
    }
    b->fed += n;
    b->fragment_bytes += n;
    if (b->ended) {
        b->after_end += n;
        return ZDEM_OK;
    }
    if (b->fragment_broken)
        return ZDEM_OK;
    zdem_error_clear(&e);
    st = zdem_push_feed(&b->in, data, n, &e);
    if (st == ZDEM_OK)
        return ZDEM_OK;
    if (b->failed != ZDEM_OK) /* a callback stopped the run */
        return stopped(b, err);
    if (b->ended) {
        b->after_end += at + n - b->end_at;
        reset_records(b);
        return ZDEM_OK;
    }
    /* framing broke: no record boundary to go on from inside this
     * fragment, so the rest of it is lost; the next one starts clean */
    zdem_s2_warn(&b->s->warn, ZDEM_S2_W_BAD_FRAMES, &e); /* a broadcast offset */
    b->fragment_broken = 1;
    return ZDEM_OK;
}

zdem_status zdem_s2_broadcast_end_fragment(zdem_s2_broadcast *b, zdem_error *err)
{
    if (b->failed != ZDEM_OK)
        return stopped(b, err);
    if (!b->in_fragment)
        return ZDEM_OK;
    if (!b->ended && !b->fragment_broken && (b->in.have || b->in.skipping)) {
        zdem_error e;
        zdem_error_clear(&e);
        zdem_fail(&e, ZDEM_ERR_TRUNCATED, b->in.offset, "broadcast fragment ends inside a record");
        zdem_s2_warn(&b->s->warn, ZDEM_S2_W_BAD_FRAMES, &e); /* a broadcast offset */
    }
    reset_records(b);
    b->in_fragment = 0;
    b->fragments++;
    if (b->kind == ZDEM_S2_BC_START) {
        b->next_kind = ZDEM_S2_BC_FULL;
        b->next_fragment = b->first_full;
    } else {
        b->next_kind = ZDEM_S2_BC_DELTA;
        b->next_fragment = b->kind == ZDEM_S2_BC_FULL ? b->fragment : b->fragment + 1;
    }
    return ZDEM_OK;
}

zdem_status zdem_s2_broadcast_end(zdem_s2_broadcast *b, zdem_error *err)
{
    zdem_status st = zdem_s2_broadcast_end_fragment(b, err);
    if (st == ZDEM_OK && !b->ended)
        st = zdem_fail(err, ZDEM_ERR_TRUNCATED, b->fed,
                       "no end fragment: the broadcast is cut short (or still live)");
    return zdem_s2_warn_result(&b->s->warn, st, err);
}
