/* Differential test: our generated decoders (generated/source2_pb.c) versus
 * nanopb's decoders generated at build time from the same schema
 * (tests/gen_nanopb_cmp.py). Both write a canonical record stream of every
 * field (views as offsets into the input, so zero copy is checked too); the
 * streams must be byte-identical.
 *   (a) every outer message of the corpus whose command has a schema
 *       message, the inner messages of every packet, and the serializers
 *       inside CDemoSendTables;
 *   (b) random encodings of every message type (s2nb_random.bin);
 *   (c) truncations and bit flips of real payloads: no crash (run under
 *       ASan/UBSan), same success/failure as nanopb except where nanopb is
 *       stricter about integer ranges than protobuf itself, same fields when
 *       both succeed. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <snappy-c.h>

#include "s2nb_cmp.h"
#include "source2_ids.h"
#include "source2_pb.h"
#include "zdem_bits.h"
#include "zdem_test.h"

#ifndef S2NB_RANDOM
#error "S2NB_RANDOM (path of s2nb_random.bin) must be defined by tests/gen.cmake"
#endif

static zs A, B;
static long n_same, n_both_fail, n_lenient, n_stricter, n_mutations;
static long per_type[256];
static int reported;

/* nanopb checks that a varint fits the field's C type; protobuf (and our
 * decoder) truncate like a C cast. Only these failures may differ. */
static int nanopb_stricter(const char *msg)
{
    return msg && (strstr(msg, "integer too large") || strstr(msg, "varint overflow"));
}

/* nanopb hands a callback field (our views and callback fields) whatever
 * wire type arrives; we reject a known field with the wrong wire type. True
 * when our error is that: the key at the error offset has the number of
 * such a field in this message or one nested in it. */
static int wrong_wire_on_nb_callback(int idx, const uint8_t *buf, size_t len, const zdem_error *err)
{
    const uint8_t *p = buf + err->offset;
    uint32_t key;
    if (err->offset >= len || zdem_varuint32(&p, buf + len, &key) != ZDEM_OK)
        return 0;
    return s2nb_nb_callback_field(idx, key >> 3);
}

/* Returns 1 when both decoders agree. must_succeed: real payloads. */
static int compare(int idx, const uint8_t *buf, size_t len, int must_succeed, const char *what)
{
    zdem_error err;
    const char *nerr = NULL;
    zdem_status st;
    int ok;
    zdem_error_clear(&err);
    A.len = B.len = 0;
    A.on = B.on = 1;
    st = s2nb_ours(idx, buf, len, &A, &err);
    ok = s2nb_nanopb(idx, buf, len, &B, &nerr);
    s2nb_reset();
    if (st != ZDEM_OK && (err.code != st || err.offset > len || !err.msg)) {
        if (reported++ < 20)
            fprintf(stderr, "%s %s: error not recorded properly (st %d code %d off %llu)\n",
                    what, s2nb_names[idx], st, err.code, (unsigned long long)err.offset);
        CHECK(0);
        return 0;
    }
    if ((st == ZDEM_OK) != (ok != 0)) {
        if (st == ZDEM_OK && !must_succeed && nanopb_stricter(nerr)) {
            n_lenient++;
            return 1;
        }
        if (st == ZDEM_ERR_WIRE_TYPE && !must_succeed && wrong_wire_on_nb_callback(idx, buf, len, &err)) {
            n_stricter++;
            return 1;
        }
        if (reported++ < 20)
            fprintf(stderr, "%s %s (%zu bytes): ours %s at %llu (%s), nanopb %s (%s)\n",
                    what, s2nb_names[idx], len, zdem_status_str(st),
                    (unsigned long long)err.offset, err.msg ? err.msg : "",
                    ok ? "ok" : "failed", nerr ? nerr : "");
        CHECK(0);
        return 0;
    }
    if (must_succeed && st != ZDEM_OK) {
        if (reported++ < 20)
            fprintf(stderr, "%s %s: real payload rejected by both: %s / %s\n", what,
                    s2nb_names[idx], err.msg, nerr ? nerr : "");
        CHECK(0);
        return 0;
    }
    if (st != ZDEM_OK) {
        n_both_fail++;
        return 1;
    }
    if (A.len != B.len || memcmp(A.buf, B.buf, A.len) != 0) {
        if (reported++ < 20)
            fprintf(stderr, "%s %s (%zu bytes): decoded fields differ (%zu vs %zu record bytes)\n",
                    what, s2nb_names[idx], len, A.len, B.len);
        CHECK(0);
        return 0;
    }
    n_same++;
    return 1;
}

/* ------------------------------------------------------------ mutations */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    return (uint32_t)(zt_rand(&rng_state) >> 32);
}

static void mutate(int idx, const uint8_t *buf, size_t len)
{
    uint8_t *copy;
    size_t i, step;
    /* Every prefix of short payloads, 48 prefixes of long ones. Each prefix
     * is a fresh allocation so ASan sees reads past its end. */
    step = len <= 256 ? 1 : len / 48;
    for (i = 0; i < len; i += step) {
        copy = malloc(i ? i : 1);
        memcpy(copy, buf, i);
        compare(idx, copy, i, 0, "truncated");
        free(copy);
        n_mutations++;
    }
    copy = malloc(len ? len : 1);
    for (i = 0; i < 24 && len; i++) {
        size_t bit = rnd() % (len * 8);
        memcpy(copy, buf, len);
        copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        if (i & 1) {
            bit = rnd() % (len * 8);
            copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        compare(idx, copy, len, 0, "bitflip");
        n_mutations++;
    }
    free(copy);
}

/* Real payload: compare, and mutate a sample (every type's first 30, then
 * every 50th) to keep the sanitizer run short. */
static void real(int idx, const uint8_t *buf, size_t len, const char *what)
{
    static long seen;
    compare(idx, buf, len, 1, what);
    per_type[idx]++;
    seen++;
    if (per_type[idx] <= 30 || seen % 50 == 0)
        mutate(idx, buf, len);
}

/* ------------------------------------------------------------ corpus walk */

static int read_varuint32(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
    return zdem_varuint32(p, end, v) == ZDEM_OK;
}

static void inner_walk(const uint8_t *data, size_t n, int game)
{
    zdem_bits br;
    uint8_t *scratch = malloc(n ? n : 1);
    zdem_bits_init(&br, data, n);
    while (zdem_bits_left(&br) >= 8) {
        uint32_t type = zdem_bits_read_ubitvar(&br);
        uint32_t size = zdem_bits_read_varuint32(&br);
        int idx;
        if (br.overflow || size > zdem_bits_left(&br) / 8)
            break;
        zdem_bits_read_bytes(&br, scratch, size);
        idx = s2nb_inner_msg(game, type);
        if (idx >= 0)
            real(idx, scratch, size, "inner");
    }
    CHECK(!br.overflow);
    free(scratch);
}

static void walk_file(const char *path)
{
    size_t size, off = 16;
    uint8_t *file = zt_read_file(path, &size);
    int game = ZDEM_S2_GAME_UNKNOWN;
    long msgs = 0;
    if (!CHECK(file != NULL && size >= 16))
        return;
    while (off < size) {
        const uint8_t *p = file + off, *end = file + size;
        uint32_t cmd, tick, len;
        const uint8_t *payload;
        uint8_t *plain = NULL;
        size_t plen;
        int idx;
        if (!read_varuint32(&p, end, &cmd) || !read_varuint32(&p, end, &tick) ||
            !read_varuint32(&p, end, &len) || len > (size_t)(end - p))
            break; /* a truncated tail is the container's business */
        payload = p;
        plen = len;
        off = (size_t)(p - file) + len;
        if (cmd & 64u) {
            size_t out_len;
            if (!CHECK(snappy_uncompressed_length((const char *)payload, len, &out_len) == SNAPPY_OK))
                continue;
            plain = malloc(out_len ? out_len : 1);
            if (!CHECK(snappy_uncompress((const char *)payload, len, (char *)plain, &out_len) == SNAPPY_OK)) {
                free(plain);
                continue;
            }
            payload = plain;
            plen = out_len;
            cmd &= ~64u;
        }
        msgs++;
        idx = s2nb_demo_msg(cmd);
        if (idx >= 0)
            real(idx, payload, plen, "outer");
        if (cmd == ZDEM_S2_DEM_FileHeader) {
            zdem_pb_CDemoFileHeader h;
            if (zdem_pb_CDemoFileHeader_decode(payload, plen, &h, NULL, NULL, NULL) == ZDEM_OK)
                game = zdem_s2_game_from_dir(h.game_directory.ptr, h.game_directory.len);
        } else if (cmd == ZDEM_S2_DEM_Packet || cmd == ZDEM_S2_DEM_SignonPacket) {
            zdem_pb_CDemoPacket m;
            if (CHECK(zdem_pb_CDemoPacket_decode(payload, plen, &m, NULL, NULL, NULL) == ZDEM_OK))
                inner_walk(m.data.ptr, m.data.len, game);
        } else if (cmd == ZDEM_S2_DEM_FullPacket) {
            zdem_pb_CDemoFullPacket m;
            if (CHECK(zdem_pb_CDemoFullPacket_decode(payload, plen, &m, NULL, NULL, NULL) == ZDEM_OK))
                inner_walk(m.packet.data.ptr, m.packet.data.len, game);
        } else if (cmd == ZDEM_S2_DEM_SendTables) {
            zdem_pb_CDemoSendTables m;
            if (CHECK(zdem_pb_CDemoSendTables_decode(payload, plen, &m, NULL, NULL, NULL) == ZDEM_OK)) {
                const uint8_t *q = m.data.ptr, *qend = q + m.data.len;
                uint32_t n = 0;
                if (CHECK(read_varuint32(&q, qend, &n) && n <= (size_t)(qend - q)))
                    real(s2nb_index("CSVCMsg_FlattenedSerializer"), q, n, "sendtables");
            }
        }
        free(plain);
    }
    CHECK(game != ZDEM_S2_GAME_UNKNOWN);
    printf("%s: %ld outer messages\n", path, msgs);
    free(file);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void corpus(void)
{
    const char *dir = zt_corpus_path("source2");
    DIR *d = opendir(dir);
    char *names[64];
    int n = 0, i;
    struct dirent *e;
    if (!CHECK(d != NULL))
        return;
    while ((e = readdir(d)) && n < 64)
        if (strstr(e->d_name, ".dem"))
            {
            size_t l = strlen(e->d_name) + 1;
            names[n] = malloc(l);
            memcpy(names[n++], e->d_name, l);
        }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    CHECK(n >= 3);
    for (i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        walk_file(path);
        free(names[i]);
    }
}

/* ------------------------------------------------------------ random */

static void random_messages(void)
{
    size_t size, off = 0;
    long n = 0;
    uint8_t *data = zt_read_file(S2NB_RANDOM, &size);
    if (!CHECK(data != NULL))
        return;
    while (off + 8 <= size) {
        uint32_t idx = zdem_load_le32(data + off), len = zdem_load_le32(data + off + 4);
        uint8_t *copy;
        off += 8;
        if (!CHECK(len <= size - off && (int)idx < s2nb_count))
            break;
        copy = malloc(len ? len : 1); /* exact size: ASan catches overreads */
        memcpy(copy, data + off, len);
        compare((int)idx, copy, len, 0, "random");
        free(copy);
        off += len;
        n++;
    }
    printf("random: %ld messages\n", n);
    CHECK(n >= (long)s2nb_count * 10);
    free(data);
}

int main(void)
{
    int i, covered = 0;
    random_messages();
    corpus();
    for (i = 0; i < s2nb_count; i++)
        if (per_type[i]) {
            printf("  %-48s %ld real payloads\n", s2nb_names[i], per_type[i]);
            covered++;
        }
    printf("%d of %d message types seen in the corpus; %ld identical, %ld rejected by both, "
           "%ld accepted only by us (nanopb range check), %ld rejected only by us (wire type of "
           "a nanopb callback field), %ld mutations\n",
           covered, s2nb_count, n_same, n_both_fail, n_lenient, n_stricter, n_mutations);
    CHECK(covered >= 20);
    free(A.buf);
    free(B.buf);
    return zt_finish();
}
