/* Header, map checks and the chunk walk on every corpus demo, against
 * EXPECTED.md B2/A9 and the ddnet_demo_c99 peer outputs. */
#include <stdlib.h>
#include <string.h>
#include "teeworlds_demo.h"
#include "teeworlds_hash.h"
#include "test_teeworlds_common.h"

static void str_of(zdem_tw_str s, char *out, size_t cap)
{
    size_t n = s.n < cap - 1 ? s.n : cap - 1;
    memcpy(out, s.p, n);
    out[n] = 0;
}

static void hex32(const uint8_t *d, char *out)
{
    int i;
    for (i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static void check_file(const zdem_tw_expect *e)
{
    size_t size;
    uint8_t *d = zdem_tw_load(e->file, &size);
    char *peer = zdem_tw_peer(e->file);
    zdem_tw_demo_info info;
    zdem_tw_chunk_reader r;
    zdem_tw_chunk c;
    zdem_error err;
    int rc, counts[5] = {0, 0, 0, 0, 0}, kf = 0;
    long long first = -1, last = -1;
    char buf[128], pbuf[128];

    fprintf(stderr, "-- %s\n", e->file);
    if (!CHECK(d != NULL) || !CHECK(peer != NULL)) {
        free(d);
        free(peer);
        return;
    }
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_demo_open(d, size, &info, &err), ZDEM_OK);
    CHECK_EQ_INT(info.version, e->version);
    str_of(info.map_name, buf, sizeof buf);
    CHECK_EQ_STR(buf, e->map);
    CHECK_EQ_INT(info.map_size, e->map_size);
    CHECK_EQ_INT(info.map_crc, e->map_crc);
    CHECK_EQ_INT(info.length, e->length);
    CHECK_EQ_INT(info.map_offset, e->header_end);
    CHECK_EQ_INT(zdem_tw_demo_map_crc_ok(&info), e->crc_ok);
    CHECK_EQ_INT(info.has_sha256, e->sha_ok >= 0);
    if (e->sha_ok >= 0)
        CHECK_EQ_INT(zdem_tw_demo_map_sha256_ok(&info), e->sha_ok);

    /* Peer cross-checks. */
    str_of(info.net_version, buf, sizeof buf);
    CHECK(zdem_tw_json_str(peer, NULL, "net_version", pbuf, sizeof pbuf));
    CHECK_EQ_STR(buf, pbuf);
    str_of(info.type, buf, sizeof buf);
    CHECK(zdem_tw_json_str(peer, NULL, "type", pbuf, sizeof pbuf));
    CHECK_EQ_STR(buf, pbuf);
    str_of(info.timestamp, buf, sizeof buf);
    CHECK(zdem_tw_json_str(peer, NULL, "timestamp", pbuf, sizeof pbuf));
    CHECK_EQ_STR(buf, pbuf);
    CHECK_EQ_INT(info.num_timeline_markers, zdem_tw_json_int(peer, NULL, "num_timeline_markers", -1));
    CHECK_EQ_INT(info.data_offset, zdem_tw_json_int(peer, NULL, "chunk_data_offset", -1));
    if (info.has_sha256) {
        hex32(info.map_sha256, buf);
        CHECK(zdem_tw_json_str(peer, NULL, "map_sha256", pbuf, sizeof pbuf));
        CHECK_EQ_STR(buf, pbuf);
    }

    zdem_tw_chunks_init(&r, &info, d, size);
    while ((rc = zdem_tw_chunks_next(&r, &c, &err)) == 1) {
        counts[c.kind]++;
        if (c.kind == ZDEM_TW_CHUNK_TICK) {
            if (first < 0)
                first = c.tick;
            last = c.tick;
            kf += c.keyframe;
        }
    }
    CHECK_EQ_INT(rc, 0); /* A9: the stream ends exactly at EOF */
    CHECK_EQ_INT(r.pos, size);
    CHECK_EQ_INT(counts[ZDEM_TW_CHUNK_TICK], e->markers);
    CHECK_EQ_INT(kf, e->keyframes);
    CHECK_EQ_INT(counts[ZDEM_TW_CHUNK_SNAPSHOT], e->snap);
    CHECK_EQ_INT(counts[ZDEM_TW_CHUNK_MESSAGE], e->msg);
    CHECK_EQ_INT(counts[ZDEM_TW_CHUNK_DELTA], e->delta);
    CHECK_EQ_INT(counts[ZDEM_TW_CHUNK_UNKNOWN], 0);
    CHECK_EQ_INT(first, e->first_tick);
    CHECK_EQ_INT(last, e->last_tick);
    CHECK_EQ_INT((last - first) / 50, info.length); /* A9 */
    /* Peer: same counts from ddnet_demo_c99. */
    {
        const char *ch = strstr(peer, "\"chunks\":");
        CHECK_EQ_INT(counts[ZDEM_TW_CHUNK_TICK], zdem_tw_json_int(peer, NULL, "tick_markers", -1));
        CHECK_EQ_INT(kf, zdem_tw_json_int(peer, NULL, "keyframes", -1));
        CHECK_EQ_INT(first, zdem_tw_json_int(peer, NULL, "first_tick", -1));
        CHECK_EQ_INT(last, zdem_tw_json_int(peer, NULL, "last_tick", -1));
        CHECK(ch != NULL);
        CHECK_EQ_INT(counts[ZDEM_TW_CHUNK_SNAPSHOT], zdem_tw_json_int(peer, ch, "snapshot", -1));
        CHECK_EQ_INT(counts[ZDEM_TW_CHUNK_MESSAGE], zdem_tw_json_int(peer, ch, "message", -1));
        CHECK_EQ_INT(counts[ZDEM_TW_CHUNK_DELTA], zdem_tw_json_int(peer, ch, "delta", -1));
    }
    free(d);
    free(peer);
}

/* Known-answer vectors for the hashes (FIPS 180-2, the CRC-32 check value). */
static void check_hashes(void)
{
    static const char *abc =
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    static const char *two =
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
    const char *msg2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    uint8_t d[32];
    char hex[65];
    zdem_tw_sha256 s;
    size_t i;
    zdem_tw_sha256_once((const uint8_t *)"abc", 3, d);
    hex32(d, hex);
    CHECK_EQ_STR(hex, abc);
    /* Fed in odd pieces to exercise the buffering. */
    zdem_tw_sha256_init(&s);
    for (i = 0; i < strlen(msg2); i += 7)
        zdem_tw_sha256_update(&s, (const uint8_t *)msg2 + i,
                         strlen(msg2) - i < 7 ? strlen(msg2) - i : 7);
    zdem_tw_sha256_final(&s, d);
    hex32(d, hex);
    CHECK_EQ_STR(hex, two);
    CHECK_EQ_INT(zdem_tw_crc32(0, (const uint8_t *)"123456789", 9), 0xCBF43926u);
}

/* Synthetic v3/v4 and v5 tick forms, which the corpus (v5/v6, DDNet
 * writer) does not exercise fully. */
static void check_tick_forms(void)
{
    uint8_t f[ZDEM_TW_HEADER_SIZE + ZDEM_TW_MARKERS_SIZE + 16];
    zdem_tw_demo_info info;
    zdem_tw_chunk_reader r;
    zdem_tw_chunk c;
    zdem_error err;
    size_t n;
    memset(f, 0, sizeof f);
    memcpy(f, "TWDEMO\0\3", 8);
    n = ZDEM_TW_HEADER_SIZE;
    /* v3: absolute tick 1000 (delta 0 => absolute), then +5 with keyframe. */
    f[n++] = 0x80; f[n++] = 0; f[n++] = 0; f[n++] = 0x03; f[n++] = 0xE8;
    f[n++] = 0xC5;
    f[n++] = 0x21; f[n++] = 0xAA; /* snapshot chunk of 1 byte */
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_demo_open(f, n, &info, &err), ZDEM_OK);
    zdem_tw_chunks_init(&r, &info, f, n);
    CHECK_EQ_INT(zdem_tw_chunks_next(&r, &c, &err), 1);
    CHECK_EQ_INT(c.tick, 1000);
    CHECK_EQ_INT(zdem_tw_chunks_next(&r, &c, &err), 1);
    CHECK_EQ_INT(c.tick, 1005);
    CHECK_EQ_INT(c.keyframe, 1);
    CHECK_EQ_INT(zdem_tw_chunks_next(&r, &c, &err), 1);
    CHECK_EQ_INT(c.kind, ZDEM_TW_CHUNK_SNAPSHOT);
    CHECK_EQ_INT(c.size, 1);
    CHECK_EQ_INT(zdem_tw_chunks_next(&r, &c, &err), 0);

    /* v5: absolute (inline bit clear), inline +3, 30 and 31 size escapes,
     * then a chunk cut short: error at its header after the whole ones. */
    memset(f, 0, sizeof f);
    memcpy(f, "TWDEMO\0\5", 8);
    n = ZDEM_TW_HEADER_SIZE + ZDEM_TW_MARKERS_SIZE;
    f[n++] = 0xC0; f[n++] = 0; f[n++] = 0; f[n++] = 0; f[n++] = 7;
    f[n++] = 0xA3;
    f[n++] = 0x40 | 30; f[n++] = 2; f[n++] = 1; f[n++] = 2;       /* msg, 2 bytes */
    f[n++] = 0x60 | 31; f[n++] = 1; f[n++] = 0; f[n++] = 9;       /* delta, 1 byte */
    f[n++] = 0x40 | 5; f[n++] = 1;                                 /* cut */
    CHECK_EQ_INT(zdem_tw_demo_open(f, n, &info, &err), ZDEM_OK);
    zdem_tw_chunks_init(&r, &info, f, n);
    CHECK_EQ_INT(zdem_tw_chunks_next(&r, &c, &err), 1);
    CHECK_EQ_INT(c.tick, 7);
    CHECK_EQ_INT(c.keyframe, 1);
    CHECK_EQ_INT(c.inline_tick, 0);
    CHECK_EQ_INT(zdem_tw_chunks_next(&r, &c, &err), 1);
    CHECK_EQ_INT(c.tick, 10);
    CHECK_EQ_INT(c.inline_tick, 1);
    CHECK_EQ_INT(zdem_tw_chunks_next(&r, &c, &err), 1);
    CHECK_EQ_INT(c.kind, ZDEM_TW_CHUNK_MESSAGE);
    CHECK_EQ_INT(c.size, 2);
    CHECK_EQ_INT(zdem_tw_chunks_next(&r, &c, &err), 1);
    CHECK_EQ_INT(c.kind, ZDEM_TW_CHUNK_DELTA);
    CHECK_EQ_INT(c.size, 1);
    CHECK_EQ_INT(c.data[0], 9);
    CHECK_EQ_INT(zdem_tw_chunks_next(&r, &c, &err), -1);
    CHECK_EQ_INT(err.code, ZDEM_ERR_TRUNCATED);
    CHECK_EQ_INT(err.offset, n - 2);
    CHECK_EQ_INT(zdem_tw_chunks_next(&r, &c, &err), 0);

    /* Bad magic, bad version, truncated map. */
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_demo_open((const uint8_t *)"TWDEMX\0\6", 8, &info, &err), ZDEM_ERR_BAD_MAGIC);
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_demo_open((const uint8_t *)"TWDEMO\0\x09", 8, &info, &err), ZDEM_ERR_UNSUPPORTED);
    f[8 + 128 + 3] = 200; /* map_size 200 > what remains */
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_demo_open(f, n, &info, &err), ZDEM_ERR_TRUNCATED);
}

int main(void)
{
    size_t i;
    check_hashes();
    check_tick_forms();
    for (i = 0; i < ZDEM_TW_CORPUS_N; i++)
        check_file(&zdem_tw_corpus[i]);
    return zt_finish();
}
