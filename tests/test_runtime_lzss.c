/* Valve LZSS decompressor tests, against references independent of
 * runtime/zdem_lzss.c:
 *  (a) vectors written by hand from the format description (zdem_lzss.h);
 *  (b) vectors compressed by tests/lzss_ref.py (empty, 1 byte, runs, random,
 *      text, window edges, two-byte references, slices of corpus files read
 *      at test time): ours must give back exactly the original bytes, honour
 *      dst_cap, and report every truncation as truncated;
 *  (c) differential: bit flips, lying header sizes, small capacities,
 *      random valid streams built here (with the output they must give) and
 *      random junk are decompressed here, then lzss_ref.py decompresses the
 *      same inputs and must agree on outcome, error offset and bytes.
 * Output buffers and truncated inputs are malloc'd at their exact size so
 * that ASan reports any access past them. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zdem_lzss.h"
#include "zdem_test.h"

/* ------------------------------------------------------------ utilities */

static uint64_t rng_state = 0x243F6A8885A308D3ull;
static uint64_t rnd(void)
{
    return zt_rand(&rng_state);
}
static size_t rnd_below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint8_t *dup_exact(const uint8_t *p, size_t n)
{
    uint8_t *d = malloc(n ? n : 1);
    if (n)
        memcpy(d, p, n);
    return d;
}

/* Decompresses a copy of src (exact size) into a malloc'd buffer of exactly
 * cap bytes; returns the status, the output in *out (caller frees). */
static zdem_status run(const uint8_t *src, size_t n, size_t cap, uint8_t **out,
                       size_t *out_len, zdem_error *e)
{
    uint8_t *s = dup_exact(src, n);
    uint8_t *d = malloc(cap ? cap : 1);
    zdem_status st;
    zdem_error_clear(e);
    *out_len = 0;
    st = zdem_lzss_decompress(s, n, d, cap, out_len, e);
    free(s);
    *out = d;
    return st;
}

/* Expects success with exactly want[0..wn). */
static void expect_ok(const char *what, const uint8_t *src, size_t n,
                      const uint8_t *want, size_t wn)
{
    uint8_t *out;
    size_t len, hdr = 0;
    zdem_error e;
    zdem_status st = run(src, n, wn, &out, &len, &e);
    if (!CHECK_EQ_INT(st, ZDEM_OK))
        fprintf(stderr, "  %s: %s at %llu\n", what, e.msg ? e.msg : "?",
                (unsigned long long)e.offset);
    CHECK_EQ_INT(len, wn);
    CHECK(st != ZDEM_OK || memcmp(out, want, wn) == 0);
    zdem_error_clear(&e);
    CHECK_EQ_INT(zdem_lzss_uncompressed_length(src, n, &hdr, &e), ZDEM_OK);
    CHECK_EQ_INT(hdr, wn);
    free(out);
}

/* Expects the error `code` at byte offset `off`. */
static void expect_err(const char *what, const uint8_t *src, size_t n,
                       size_t cap, zdem_status code, uint64_t off)
{
    uint8_t *out;
    size_t len;
    zdem_error e;
    zdem_status st = run(src, n, cap, &out, &len, &e);
    if (!CHECK_EQ_INT(st, code) || !CHECK_EQ_INT(e.offset, off))
        fprintf(stderr, "  %s: %s at %llu\n", what, e.msg ? e.msg : "(none)",
                (unsigned long long)e.offset);
    CHECK(e.code == st && e.msg != NULL && !e.offset_is_bits);
    free(out);
}

/* ------------------------------------------------------------ (a) by hand */

static void test_hand_vectors(void)
{
    /* "abc", then position 2 (distance 3) count 8 = b1 0x27, end marker;
     * element kinds 0,0,0,1,1 read from bit 0 up: command byte 0x18. */
    static const uint8_t abc[] = {'L', 'Z', 'S', 'S', 11, 0, 0, 0, 0x18,
                                  'a', 'b', 'c', 0x00, 0x27, 0x00, 0x00};
    /* 'a', then distance 1 count 16 (overlapping: a run), end: 0x06 */
    static const uint8_t run17[] = {'L', 'Z', 'S', 'S', 17, 0, 0, 0, 0x06,
                                    'a', 0x00, 0x0F, 0x00, 0x00};
    /* 8 literals fill a command byte; the end marker needs a new one */
    static const uint8_t eight[] = {'L', 'Z', 'S', 'S', 8, 0, 0, 0, 0x00,
                                    'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H',
                                    0x01, 0x00, 0x00};
    /* two-byte reference (count 2): "xy" + distance 2 count 2 */
    static const uint8_t xyxy[] = {'L', 'Z', 'S', 'S', 4, 0, 0, 0, 0x0C,
                                   'x', 'y', 0x00, 0x11, 0x00, 0x00};
    /* end marker with non-zero position bits: ignored */
    static const uint8_t endpos[] = {'L', 'Z', 'S', 'S', 1, 0, 0, 0, 0x02,
                                     'q', 0xAB, 0xC0};
    static const uint8_t empty[] = {'L', 'Z', 'S', 'S', 0, 0, 0, 0, 0x01,
                                    0x00, 0x00};
    static uint8_t far[8 + 4096 / 8 * 9 + 1 + 4 + 2 + 8 + 2];
    static uint8_t far_want[4096 + 16 + 8];
    size_t i, k, len = 0;
    zdem_error e;

    expect_ok("abc", abc, sizeof abc, (const uint8_t *)"abcabcabcab", 11);
    expect_ok("run17", run17, sizeof run17,
              (const uint8_t *)"aaaaaaaaaaaaaaaaa", 17);
    expect_ok("eight", eight, sizeof eight, (const uint8_t *)"ABCDEFGH", 8);
    expect_ok("xyxy", xyxy, sizeof xyxy, (const uint8_t *)"xyxy", 4);
    expect_ok("endpos", endpos, sizeof endpos, (const uint8_t *)"q", 1);
    expect_ok("empty", empty, sizeof empty, (const uint8_t *)"", 0);

    /* The empty stream needs no buffer at all. */
    zdem_error_clear(&e);
    CHECK_EQ_INT(zdem_lzss_decompress(empty, sizeof empty, NULL, 0, &len, &e),
                 ZDEM_OK);
    CHECK_EQ_INT(len, 0);

    /* 4096 literals (512 command bytes of 0), then the farthest reference:
     * position 0xFFF (distance 4096) count 16 = FF FF; then position 0x123
     * (distance 292) count 5 = 12 34; then the end marker: kinds 1,1,1 =
     * command byte 0x07. */
    memcpy(far, "LZSS", 4);
    put_u32(far + 4, 4096 + 16 + 5);
    k = 8;
    for (i = 0; i < 4096; i++) {
        if (i % 8 == 0)
            far[k++] = 0x00;
        far_want[i] = (uint8_t)(i * 7 + i / 256);
        far[k++] = far_want[i];
    }
    far[k++] = 0x07;
    far[k++] = 0xFF;
    far[k++] = 0xFF;
    far[k++] = 0x12;
    far[k++] = 0x34;
    far[k++] = 0x00;
    far[k++] = 0x00;
    for (i = 0; i < 16; i++)
        far_want[4096 + i] = far_want[i];
    for (i = 0; i < 5; i++)
        far_want[4112 + i] = far_want[4112 - 292 + i];
    expect_ok("far", far, k, far_want, 4096 + 16 + 5);

    /* ---- hostile, by hand */
    {
        static const uint8_t first_ref[] = {'L', 'Z', 'S', 'S', 3, 0, 0, 0,
                                            0x01, 0x00, 0x02, 0x00, 0x00};
        static const uint8_t before[] = {'L', 'Z', 'S', 'S', 3, 0, 0, 0, 0x02,
                                         'a', 0x00, 0x11, 0x00, 0x00};
        static const uint8_t no_end[] = {'L', 'Z', 'S', 'S', 1, 0, 0, 0, 0x00,
                                         'a'};
        static const uint8_t extra_lit[] = {'L', 'Z', 'S', 'S', 1, 0, 0, 0,
                                            0x04, 'a', 'b', 0x00, 0x00};
        static const uint8_t half_ref[] = {'L', 'Z', 'S', 'S', 1, 0, 0, 0,
                                           0x02, 'a', 0x00};
        static const uint8_t no_cmd[] = {'L', 'Z', 'S', 'S', 0, 0, 0, 0};
        uint8_t buf[64];

        expect_err("ref first", first_ref, sizeof first_ref, 3,
                   ZDEM_ERR_CORRUPT, 9);
        expect_err("ref before start", before, sizeof before, 3,
                   ZDEM_ERR_CORRUPT, 10);
        expect_err("no end marker", no_end, sizeof no_end, 1,
                   ZDEM_ERR_TRUNCATED, 10);
        expect_err("literal past size", extra_lit, sizeof extra_lit, 16,
                   ZDEM_ERR_CORRUPT, 10);
        expect_err("half reference", half_ref, sizeof half_ref, 1,
                   ZDEM_ERR_TRUNCATED, 10);
        expect_err("no command byte", no_cmd, sizeof no_cmd, 0,
                   ZDEM_ERR_TRUNCATED, 8);
        memcpy(buf, abc, sizeof abc);
        buf[sizeof abc] = 0;
        expect_err("trailing byte", buf, sizeof abc + 1, 11, ZDEM_ERR_CORRUPT,
                   16);
        put_u32(buf + 4, 10); /* header too small: the reference overflows */
        expect_err("size 10", buf, sizeof abc, 64, ZDEM_ERR_CORRUPT, 12);
        put_u32(buf + 4, 12); /* too large: the end marker comes early */
        expect_err("size 12", buf, sizeof abc, 64, ZDEM_ERR_CORRUPT, 14);
        put_u32(buf + 4, 0xFFFFFFFFu);
        expect_err("size 4G", buf, sizeof abc, 64, ZDEM_ERR_NO_SPACE, 4);
        expect_err("cap 10", abc, sizeof abc, 10, ZDEM_ERR_NO_SPACE, 4);
        expect_err("cap 0", abc, sizeof abc, 0, ZDEM_ERR_NO_SPACE, 4);
        memcpy(buf, abc, sizeof abc);
        buf[3] = 'X';
        expect_err("bad magic", buf, sizeof abc, 64, ZDEM_ERR_BAD_MAGIC, 0);
        expect_err("snappy magic", (const uint8_t *)"SNAP\0\0\0\0", 8, 64,
                   ZDEM_ERR_BAD_MAGIC, 0);
        for (i = 0; i < 8; i++) /* every header prefix: truncated */
            expect_err("header prefix", abc, i, 64, ZDEM_ERR_TRUNCATED, i);
        CHECK(zdem_lzss_has_magic(abc, 4) && !zdem_lzss_has_magic(abc, 3) &&
              !zdem_lzss_has_magic((const uint8_t *)"SNAP", 4));

        /* Capacity too small: nothing written. Capacity larger than the
         * size: nothing written past the size. */
        memset(buf, 0xA5, sizeof buf);
        zdem_error_clear(&e);
        CHECK_EQ_INT(zdem_lzss_decompress(abc, sizeof abc, buf, 10, &len, &e),
                     ZDEM_ERR_NO_SPACE);
        for (i = 0; i < sizeof buf && buf[i] == 0xA5; i++)
            ;
        CHECK_EQ_INT(i, sizeof buf);
        zdem_error_clear(&e);
        CHECK_EQ_INT(zdem_lzss_decompress(abc, sizeof abc, buf, sizeof buf,
                                          &len, &e), ZDEM_OK);
        for (i = 11; i < sizeof buf && buf[i] == 0xA5; i++)
            ;
        CHECK_EQ_INT(i, sizeof buf);
        /* First error wins. */
        zdem_fail(&e, ZDEM_ERR_LIMIT, 99, "earlier");
        CHECK_EQ_INT(zdem_lzss_decompress(before, sizeof before, buf, 64, &len,
                                          &e), ZDEM_ERR_CORRUPT);
        CHECK_EQ_INT(e.code, ZDEM_ERR_LIMIT);
        CHECK_EQ_INT(e.offset, 99);
    }
}

/* ------------------------------------------------------------ (c) cases */

/* Cases for lzss_ref.py check: records (u32 cap, u32 len, bytes); results
 * (u32 kind, u32 offset, u32 len, bytes) with kind as in lzss_ref.KINDS. */
static FILE *cases_f, *results_f;
static long n_cases, n_cases_ok;

static void put_rec_u32(FILE *f, uint32_t v)
{
    uint8_t b[4];
    put_u32(b, v);
    fwrite(b, 1, 4, f);
}

static uint32_t kind_of(zdem_status st)
{
    switch (st) {
    case ZDEM_OK: return 0;
    case ZDEM_ERR_TRUNCATED: return 1;
    case ZDEM_ERR_BAD_MAGIC: return 2;
    case ZDEM_ERR_CORRUPT: return 3;
    case ZDEM_ERR_NO_SPACE: return 4;
    default: return 99;
    }
}

/* Decompresses src with capacity cap here and records input and result for
 * the reference. Also checks what holds for every input: the error is
 * recorded, its offset lies within the input, success gives the header's
 * size. Returns the status. */
static zdem_status add_case(const uint8_t *src, size_t n, size_t cap)
{
    uint8_t *out;
    size_t len = 0, hdr = 0;
    zdem_error e, he;
    zdem_status st = run(src, n, cap, &out, &len, &e);

    zdem_error_clear(&he);
    if (st == ZDEM_OK) {
        CHECK(zdem_lzss_uncompressed_length(src, n, &hdr, &he) == ZDEM_OK &&
              hdr == len);
        n_cases_ok++;
    } else if (e.code != st || !e.msg || e.offset > n || kind_of(st) == 99) {
        CHECK(!"error not recorded within the input");
    }
    n_cases++;
    if (cases_f) {
        put_rec_u32(cases_f, (uint32_t)cap);
        put_rec_u32(cases_f, (uint32_t)n);
        fwrite(src, 1, n, cases_f);
        put_rec_u32(results_f, kind_of(st));
        put_rec_u32(results_f, st == ZDEM_OK ? 0 : (uint32_t)e.offset);
        put_rec_u32(results_f, st == ZDEM_OK ? (uint32_t)len : 0);
        if (st == ZDEM_OK)
            fwrite(out, 1, len, results_f);
    }
    free(out);
    return st;
}

static size_t header_size(const uint8_t *src, size_t n)
{
    size_t h = 0;
    zdem_error e;
    zdem_error_clear(&e);
    if (zdem_lzss_uncompressed_length(src, n, &h, &e) != ZDEM_OK)
        return 0;
    return h;
}

/* Builds a random valid stream into s and the output it must give into
 * want; returns the stream's length. Distances favour the edges: 1, the
 * whole output so far, the window's 4096. */
static size_t gen_stream(uint8_t *s, uint8_t *want, size_t *want_len,
                         size_t max_elems, size_t max_out)
{
    size_t ip = 8, op = 0, cmd_at = 0, el, elems = rnd_below(max_elems + 1);
    unsigned bit = 8;
    int lit_bias = (int)rnd_below(4); /* literal-heavy .. reference-heavy */

    memcpy(s, "LZSS", 4);
    for (el = 0; el < elems; el++) {
        size_t lim = op < 4096 ? op : 4096, dist, count, i;
        if (bit == 8) {
            cmd_at = ip;
            s[ip++] = 0;
            bit = 0;
        }
        count = 2 + rnd_below(15);
        if (op == 0 || op + count > max_out || (int)rnd_below(4) < lit_bias) {
            if (op >= max_out)
                break;
            want[op] = (uint8_t)(rnd_below(3) ? 'a' + rnd_below(4) : rnd());
            s[ip++] = want[op++];
        } else {
            switch (rnd_below(4)) {
            case 0: dist = 1 + rnd_below(count < lim ? count : lim); break;
            case 1: dist = lim; break;
            default: dist = 1 + rnd_below(lim); break;
            }
            s[ip++] = (uint8_t)((dist - 1) >> 4);
            s[ip++] = (uint8_t)(((dist - 1) & 15u) << 4 | (count - 1));
            s[cmd_at] |= (uint8_t)(1u << bit);
            for (i = 0; i < count; i++, op++)
                want[op] = want[op - dist];
        }
        bit++;
    }
    if (bit == 8) {
        cmd_at = ip;
        s[ip++] = 0;
        bit = 0;
    }
    s[cmd_at] |= (uint8_t)(1u << bit);
    s[cmd_at] |= (uint8_t)(rnd() << (bit + 1)); /* unused bits: ignored */
    s[ip++] = (uint8_t)(rnd_below(4) ? 0 : rnd());
    s[ip++] = (uint8_t)(rnd_below(4) ? 0 : rnd() & 0xF0);
    put_u32(s + 4, (uint32_t)op);
    *want_len = op;
    return ip;
}

static void test_random_streams(void)
{
    static uint8_t s[8 + 4000 * 2 + 600], want[4000 * 16], m[sizeof s];
    size_t t, n, wn, i, bad = 0;
    for (t = 0; t < 3000; t++) {
        size_t max_el = t % 50 == 0 ? 4000 : 60;
        uint8_t *out;
        size_t len;
        zdem_error e;
        n = gen_stream(s, want, &wn, max_el, sizeof want);
        if (run(s, n, wn, &out, &len, &e) != ZDEM_OK || len != wn ||
            memcmp(out, want, wn) != 0) {
            if (bad++ < 5)
                fprintf(stderr, "random stream %zu: %s at %llu\n", t,
                        e.msg ? e.msg : "wrong bytes",
                        (unsigned long long)e.offset);
        }
        free(out);
        add_case(s, n, wn + rnd_below(3) * rnd_below(40));
        /* mutants: a few bytes changed, a lying size, a cut */
        memcpy(m, s, n);
        for (i = 0; i < 1 + rnd_below(3); i++)
            m[8 + rnd_below(n - 8)] ^= (uint8_t)(1u << rnd_below(8));
        add_case(m, n, wn + 64);
        memcpy(m, s, n);
        put_u32(m + 4, (uint32_t)(wn + rnd_below(33) - 16));
        add_case(m, n, wn + 64);
        add_case(s, rnd_below(n), wn);
    }
    CHECK_EQ_INT(bad, 0);
    /* junk after a valid header: mostly errors, some short successes */
    for (t = 0; t < 3000; t++) {
        n = 8 + rnd_below(40);
        memcpy(s, "LZSS", 4);
        put_u32(s + 4, (uint32_t)(rnd_below(8) ? rnd_below(40) : rnd()));
        for (i = 8; i < n; i++)
            s[i] = (uint8_t)(rnd_below(3) ? rnd_below(4) << (4 * rnd_below(2))
                                          : rnd());
        add_case(s, n, rnd_below(64));
    }
}

/* ------------------------------------------------------------ (b) vectors */

static char vec_dir[4096];

static uint8_t *read_vec(const char *name, const char *ext, size_t *n)
{
    char path[4096 + 512 + 16];
    snprintf(path, sizeof path, "%s/%s.%s", vec_dir, name, ext);
    return zt_read_file(path, n);
}

/* Every cut of the stream is a truncation: copied into an exact-size
 * buffer, and (for `poison`) as the full buffer with the tail poisoned. */
static void truncations(const char *name, const uint8_t *c, size_t cn,
                        size_t ulen, size_t step, int poison)
{
    uint8_t *full = dup_exact(c, cn), *out = malloc(ulen ? ulen : 1);
    size_t cut, wrong = 0, len;
    for (cut = 0; cut < cn; cut += (cut < 16 || cn - cut < 16) ? 1 : step) {
        uint8_t *p = dup_exact(c, cut);
        zdem_error e;
        zdem_status st;
        zdem_error_clear(&e);
        st = zdem_lzss_decompress(p, cut, out, ulen, &len, &e);
        if (st != ZDEM_ERR_TRUNCATED || e.offset > cut)
            wrong++;
        free(p);
        if (poison) {
            ZT_POISON(full + cut, cn - cut);
            zdem_error_clear(&e);
            st = zdem_lzss_decompress(full, cut, out, ulen, &len, &e);
            ZT_UNPOISON(full + cut, cn - cut);
            if (st != ZDEM_ERR_TRUNCATED)
                wrong++;
        }
    }
    if (!CHECK_EQ_INT(wrong, 0))
        fprintf(stderr, "  truncations of %s\n", name);
    free(full);
    free(out);
}

static void test_vectors(void)
{
    char name[512];
    char manifest[4400];
    FILE *mf;
    size_t count = 0;

    snprintf(manifest, sizeof manifest, "%s/MANIFEST", vec_dir);
    mf = fopen(manifest, "r");
    if (!CHECK(mf != NULL))
        return;
    while (fscanf(mf, "%511s", name) == 1) {
        size_t rn = 0, cn = 0, len = 0, i, small;
        uint8_t *raw = read_vec(name, "raw", &rn);
        uint8_t *c = read_vec(name, "lzss", &cn);
        uint8_t *out, *big;
        zdem_error e;
        zdem_status st;

        if (!CHECK(raw && c)) {
            free(raw);
            free(c);
            continue;
        }
        count++;
        CHECK_EQ_INT(header_size(c, cn), rn);
        st = run(c, cn, rn, &out, &len, &e);
        if (!CHECK_EQ_INT(st, ZDEM_OK) || !CHECK_EQ_INT(len, rn) ||
            !CHECK(memcmp(out, raw, rn) == 0))
            fprintf(stderr, "  vector %s: %s at %llu\n", name,
                    e.msg ? e.msg : "wrong bytes", (unsigned long long)e.offset);
        free(out);
        /* one byte too little room: refused before writing */
        if (rn) {
            st = run(c, cn, rn - 1, &out, &len, &e);
            CHECK_EQ_INT(st, ZDEM_ERR_NO_SPACE);
            free(out);
        }
        /* more room than needed: nothing written past the size */
        big = malloc(rn + 64);
        memset(big, 0x5A, rn + 64);
        zdem_error_clear(&e);
        st = zdem_lzss_decompress(c, cn, big, rn + 64, &len, &e);
        CHECK(st == ZDEM_OK && len == rn && memcmp(big, raw, rn) == 0);
        for (i = rn; i < rn + 64 && big[i] == 0x5A; i++)
            ;
        CHECK_EQ_INT(i, rn + 64);
        free(big);

        small = cn <= 6000;
        truncations(name, c, cn, rn, small ? 1 : cn / 200 + 1, small);

        /* for the reference: the stream itself, lying sizes, bit flips */
        add_case(c, cn, rn);
        {
            uint8_t *m = dup_exact(c, cn);
            static const int deltas[] = {-16, -1, 1, 16};
            for (i = 0; i < 4; i++) {
                size_t h = rn + (size_t)(long)deltas[i];
                if (deltas[i] < 0 && rn < 16)
                    continue;
                put_u32(m + 4, (uint32_t)h);
                add_case(m, cn, rn + 16);
            }
            put_u32(m + 4, 0);
            add_case(m, cn, rn + 16);
            put_u32(m + 4, (uint32_t)rn);
            if (cn <= 400) { /* every single-bit flip */
                for (i = 0; i < cn * 8; i++) {
                    m[i / 8] ^= (uint8_t)(1u << (i % 8));
                    add_case(m, cn, rn + 32);
                    m[i / 8] ^= (uint8_t)(1u << (i % 8));
                }
            } else {
                for (i = 0; i < 40; i++) {
                    size_t at = 8 + rnd_below(cn - 8);
                    uint8_t old = m[at];
                    m[at] ^= (uint8_t)(1u << rnd_below(8));
                    add_case(m, cn, rn + 32);
                    m[at] = old;
                }
            }
            free(m);
        }
        free(raw);
        free(c);
    }
    fclose(mf);
    CHECK(count >= 30);
    printf("%zu vectors from lzss_ref.py\n", count);
}

int main(void)
{
    const char *py = getenv("ZDEM_PYTHON");
    const char *src_dir = getenv("ZDEM_SOURCE_DIR");
    const char *build = getenv("ZDEM_BUILD_DIR");
    const char *corpus = getenv("ZDEM_CORPUS");
    char cases_path[4400], results_path[4400], cmd[16384];

    if (!py || !*py)
        py = "python3";
    if (!src_dir)
        src_dir = "..";
    if (!build)
        build = ".";
    if (!corpus)
        corpus = "../shared/corpus";
    snprintf(vec_dir, sizeof vec_dir, "%s/lzss_vectors", build);
    snprintf(cases_path, sizeof cases_path, "%s/lzss_vectors/cases.bin", build);
    snprintf(results_path, sizeof results_path, "%s/lzss_vectors/results.bin",
             build);

    test_hand_vectors();

    /* The reference writes the vectors (and creates vec_dir). */
    snprintf(cmd, sizeof cmd, "'%s' '%s/tests/lzss_ref.py' gen '%s' '%s'", py,
             src_dir, vec_dir, corpus);
    fflush(stdout);
    CHECK_EQ_INT(system(cmd), 0);
    cases_f = fopen(cases_path, "wb");
    results_f = fopen(results_path, "wb");
    CHECK(cases_f && results_f);
    test_vectors();
    test_random_streams();
    if (cases_f)
        fclose(cases_f);
    if (results_f)
        fclose(results_f);
    printf("%ld differential cases (%ld decoded)\n", n_cases, n_cases_ok);
    snprintf(cmd, sizeof cmd, "'%s' '%s/tests/lzss_ref.py' check '%s' '%s'", py,
             src_dir, cases_path, results_path);
    fflush(stdout);
    CHECK_EQ_INT(system(cmd), 0);
    return zt_finish();
}
