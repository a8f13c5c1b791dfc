/* Snappy differential tests: our decompressor against Snappy's C interface
 * (libsnappy) and against a naive byte-at-a-time reference written here from
 * the format description.
 *  (a) every compressed payload of every Source 2 corpus file, with the
 *      per-file count checked against corpus/EXPECTED.md B1 "compressed=";
 *  (b) random data of many sizes and entropies compressed by libsnappy,
 *      plus random valid streams using every tag form (libsnappy's
 *      compressor never emits copy-4 or 3/4-byte literal lengths);
 *  (c) truncations and byte flips of real payloads, random tag soup:
 *      ours succeeds exactly when libsnappy does, with the same bytes.
 * Output buffers are malloc'd at exactly the needed size so that ASan
 * catches any write past them. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "zdem_snappy.h"
#include "zdem_test.h"
#include "snappy_ref.h"

/* ------------------------------------------------------------ utilities */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    return zt_rand(&rng_state); /* deterministic, unlike libc rand() */
}
static size_t rnd_below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static size_t put_varint(uint8_t *p, uint32_t v)
{
    size_t i = 0;
    while (v >= 0x80u) {
        p[i++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    p[i++] = (uint8_t)v;
    return i;
}

/* Naive reference decoder straight from the format: returns 0 on success.
 * dst must hold `cap` bytes. */
static int ref_decompress(const uint8_t *s, size_t n, uint8_t *dst, size_t cap,
                          size_t *out_len)
{
    size_t i = 0, ulen = 0;
    unsigned shift = 0;
    for (;;) { /* preamble: at most 5 bytes, value fits 32 bits */
        uint8_t b;
        if (i >= n || shift > 28)
            return -1;
        b = s[i++];
        if (shift == 28 && b > 15)
            return -1;
        ulen |= (size_t)(b & 0x7F) << shift;
        if (!(b & 0x80))
            break;
        shift += 7;
    }
    if (ulen > cap)
        return -2;
    if (snappy_ref_tags(s, n, i, dst, ulen) != 0)
        return -1;
    *out_len = ulen;
    return 0;
}

/* ------------------------------------------------------------ comparison */

#define MAX_OUT (64u << 20) /* corrupted preambles may claim up to 4 GiB */

static long mismatches;
static long runs, lib_ok_runs;

static void mismatch(const char *what, const char *why, size_t n)
{
    if (mismatches++ < 10)
        fprintf(stderr, "mismatch [%s] (%zu input bytes): %s\n", what, n, why);
}

/* Runs libsnappy, ours and the reference on c[0..n) and records whether they
 * agree: same success, same bytes. Returns 1 when libsnappy succeeded. */
static int compare(const uint8_t *c, size_t n, const char *what)
{
    size_t lib_len = 0, our_len = 0, cap, lib_out, our_out = 0, ref_out = 0;
    snappy_status ls;
    zdem_status zs, zl;
    zdem_error e;
    char *a;
    uint8_t *b, *r;
    int rs, ok = 0;

    runs++;
    ls = snappy_uncompressed_length((const char *)c, n, &lib_len);
    zdem_error_clear(&e);
    zl = zdem_snappy_uncompressed_length(c, n, &our_len, &e);
    if ((ls == SNAPPY_OK) != (zl == ZDEM_OK)) {
        mismatch(what, "uncompressed_length status differs", n);
        return 0;
    }
    if (ls != SNAPPY_OK) {
        if (zl != ZDEM_ERR_SNAPPY || e.msg == NULL)
            mismatch(what, "bad preamble not reported as ZDEM_ERR_SNAPPY", n);
        zdem_error_clear(&e);
        if (zdem_snappy_decompress(c, n, NULL, 0, &our_out, &e) != ZDEM_ERR_SNAPPY)
            mismatch(what, "decompress accepted a bad preamble", n);
        return 0;
    }
    if (lib_len != our_len) {
        mismatch(what, "uncompressed_length value differs", n);
        return 0;
    }
    cap = lib_len <= MAX_OUT ? lib_len : 0;
    a = malloc(cap ? cap : 1);
    b = malloc(cap ? cap : 1);
    r = malloc(cap ? cap : 1);
    lib_out = cap;
    ls = snappy_uncompress((const char *)c, n, a, &lib_out);
    zdem_error_clear(&e);
    zs = zdem_snappy_decompress(c, n, b, cap, &our_out, &e);
    rs = ref_decompress(c, n, r, cap, &ref_out);
    if (lib_len > cap) {
        if (zs != ZDEM_ERR_NO_SPACE || ls != SNAPPY_BUFFER_TOO_SMALL || rs != -2)
            mismatch(what, "oversized preamble not refused", n);
    } else if ((ls == SNAPPY_OK) != (zs == ZDEM_OK)) {
        mismatch(what, ls == SNAPPY_OK ? "libsnappy ok, ours failed"
                                       : "ours ok, libsnappy failed", n);
        if (zs != ZDEM_OK)
            fprintf(stderr, "  ours: %s at %llu\n", e.msg,
                    (unsigned long long)e.offset);
    } else if ((rs == 0) != (zs == ZDEM_OK)) {
        mismatch(what, "reference decoder disagrees on success", n);
    } else if (zs == ZDEM_OK) {
        ok = 1;
        lib_ok_runs++;
        if (our_out != lib_out || our_out != ref_out ||
            memcmp(a, b, our_out) != 0 || memcmp(r, b, our_out) != 0)
            mismatch(what, "output bytes differ", n);
    } else if (zs != ZDEM_ERR_SNAPPY || e.msg == NULL || e.offset > n ||
               e.offset_is_bits) {
        mismatch(what, "error not reported as ZDEM_ERR_SNAPPY within input", n);
    }
    free(a);
    free(b);
    free(r);
    return ok;
}

/* ------------------------------------------------------------ (a) corpus */

typedef struct payload {
    uint8_t *data;
    size_t len;
} payload;

static payload payloads[8192];
static size_t n_payloads;

static int read_var(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
    /* Independent of zdem_varint.h on purpose. */
    uint32_t x = 0;
    unsigned shift = 0;
    while (*p < end && shift < 35) {
        uint8_t b = *(*p)++;
        x |= (uint32_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 1;
        }
        shift += 7;
    }
    return 0;
}

/* The "compressed=" count for `file` in EXPECTED.md section B1, or -1. */
static long expected_compressed(const char *expected, const char *file)
{
    const char *sec = strstr(expected, "### B1.");
    const char *end, *p;
    if (!sec)
        return -1;
    end = strstr(sec + 1, "\n### ");
    if (!end)
        end = sec + strlen(sec);
    for (p = sec; p && p < end; p = strchr(p + 1, '\n')) {
        const char *line = p + 1, *eol = strchr(line, '\n'), *c;
        size_t fl = strlen(file);
        if (!eol)
            eol = line + strlen(line);
        if (strncmp(line, "| ", 2) != 0 || strncmp(line + 2, file, fl) != 0 ||
            line[2 + fl] != ' ')
            continue;
        c = strstr(line, "compressed=");
        if (c && c < eol)
            return strtol(c + 11, NULL, 10);
    }
    return -1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_corpus(void)
{
    char *names[64];
    size_t n_names = 0, i, expected_len = 0;
    long before, ok_before = lib_ok_runs;
    char *expected;
    DIR *d;
    struct dirent *de;

    expected = (char *)zt_read_file(zt_corpus_path("EXPECTED.md"), &expected_len);
    if (!CHECK(expected != NULL))
        return;
    expected = realloc(expected, expected_len + 1);
    expected[expected_len] = 0;

    d = opendir(zt_corpus_path("source2"));
    if (!CHECK(d != NULL)) {
        free(expected);
        return;
    }
    while ((de = readdir(d)) != NULL && n_names < 64) {
        size_t l = strlen(de->d_name);
        if (l > 4 && strcmp(de->d_name + l - 4, ".dem") == 0)
            names[n_names++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, n_names, sizeof names[0], cmp_str);
    CHECK(n_names >= 9); /* the corpus as of EXPECTED.md B1 */

    before = mismatches;
    for (i = 0; i < n_names; i++) {
        char rel[512];
        size_t size = 0;
        uint8_t *file;
        const uint8_t *p, *end;
        long compressed = 0, want;
        int framing_ok = 1;

        snprintf(rel, sizeof rel, "source2/%s", names[i]);
        file = zt_read_file(zt_corpus_path(rel), &size);
        if (!CHECK(file != NULL && size >= 16))
            continue;
        CHECK(memcmp(file, "PBDEMS2", 8) == 0);
        p = file + 16;
        end = file + size;
        while (p < end) {
            uint32_t cmd, tick, len;
            if (!read_var(&p, end, &cmd) || !read_var(&p, end, &tick) ||
                !read_var(&p, end, &len) || len > (size_t)(end - p)) {
                framing_ok = 0;
                break;
            }
            if (cmd & 0x40u) {
                compressed++;
                compare(p, len, names[i]);
                if (n_payloads < sizeof payloads / sizeof payloads[0]) {
                    payloads[n_payloads].data = malloc(len ? len : 1);
                    memcpy(payloads[n_payloads].data, p, len);
                    payloads[n_payloads].len = len;
                    n_payloads++;
                }
            }
            p += len;
        }
        if (!CHECK(framing_ok))
            fprintf(stderr, "  %s: outer framing broken\n", names[i]);
        want = expected_compressed(expected, names[i]);
        if (!CHECK_EQ_INT(compressed, want))
            fprintf(stderr, "  %s: compressed payload count\n", names[i]);
        free(file);
    }
    printf("corpus: %zu files, %zu compressed payloads, all decompressed\n",
           n_names, n_payloads);
    CHECK_EQ_INT(mismatches - before, 0);
    CHECK(n_payloads > 1000);
    /* Every payload must have decompressed fine in libsnappy too. */
    CHECK_EQ_INT(lib_ok_runs - ok_before, (long)n_payloads);

    /* Too-small buffers are refused before any write: give exactly
     * ulen-1 bytes (ASan would catch a write). */
    {
        long bad = 0;
        for (i = 0; i < n_payloads; i += 7) {
            size_t ulen = 0, out = 0;
            zdem_error e;
            uint8_t *buf;
            zdem_error_clear(&e);
            if (zdem_snappy_uncompressed_length(payloads[i].data, payloads[i].len,
                                                &ulen, &e) != ZDEM_OK || ulen == 0)
                continue;
            buf = malloc(ulen - 1 ? ulen - 1 : 1);
            if (zdem_snappy_decompress(payloads[i].data, payloads[i].len, buf,
                                       ulen - 1, &out, &e) != ZDEM_ERR_NO_SPACE ||
                e.code != ZDEM_ERR_NO_SPACE)
                bad++;
            free(buf);
        }
        CHECK_EQ_INT(bad, 0);
    }

    for (i = 0; i < n_names; i++)
        free(names[i]);
    free(expected);
}

/* ------------------------------------------------------------ (b) valid */

static void fill(uint8_t *p, size_t n, int kind)
{
    size_t i;
    switch (kind) {
    case 0: /* zeros */
        memset(p, 0, n);
        break;
    case 1: /* incompressible */
        for (i = 0; i < n; i++)
            p[i] = (uint8_t)rnd();
        break;
    case 2: /* 2-symbol alphabet */
        for (i = 0; i < n; i++)
            p[i] = (uint8_t)('a' + (rnd() & 1));
        break;
    case 3: /* 16-symbol alphabet */
        for (i = 0; i < n; i++)
            p[i] = (uint8_t)(rnd() & 15);
        break;
    case 4: { /* short period, exercises overlapping copies */
        size_t per = 1 + rnd_below(20);
        uint8_t pat[20];
        for (i = 0; i < per; i++)
            pat[i] = (uint8_t)rnd();
        for (i = 0; i < n; i++)
            p[i] = pat[i % per];
        break;
    }
    default: /* text-like: random chunks copied from earlier, with noise */
        for (i = 0; i < n;) {
            size_t run = 1 + rnd_below(80);
            if (run > n - i)
                run = n - i;
            if (i > 0 && (rnd() & 3)) {
                size_t from = rnd_below(i), k;
                for (k = 0; k < run; k++)
                    p[i + k] = p[from + (k % (i - from))];
            } else {
                size_t k;
                for (k = 0; k < run; k++)
                    p[i + k] = (uint8_t)(' ' + rnd_below(64));
            }
            i += run;
        }
        break;
    }
}

static void roundtrip(const uint8_t *plain, size_t n, const char *what)
{
    size_t clen = snappy_max_compressed_length(n), out = 0;
    char *comp = malloc(clen ? clen : 1);
    uint8_t *dst = malloc(n ? n : 1), *big;
    zdem_error e;
    zdem_status st;

    if (snappy_compress((const char *)plain, n, comp, &clen) != SNAPPY_OK) {
        mismatch(what, "snappy_compress failed", n);
        goto done;
    }
    zdem_error_clear(&e);
    st = zdem_snappy_decompress((const uint8_t *)comp, clen, dst, n, &out, &e);
    if (st != ZDEM_OK || out != n || memcmp(dst, plain, n) != 0) {
        mismatch(what, "roundtrip differs", n);
        goto done;
    }
    /* With spare room, the bytes past the output stay untouched. */
    big = malloc(n + 64);
    memset(big, 0xA5, n + 64);
    zdem_error_clear(&e);
    st = zdem_snappy_decompress((const uint8_t *)comp, clen, big, n + 64, &out, &e);
    if (st != ZDEM_OK || out != n || memcmp(big, plain, n) != 0) {
        mismatch(what, "roundtrip with spare room differs", n);
    } else {
        size_t k;
        for (k = n; k < n + 64; k++)
            if (big[k] != 0xA5) {
                mismatch(what, "wrote past the output length", n);
                break;
            }
    }
    free(big);
    compare((const uint8_t *)comp, clen, what);
done:
    free(comp);
    free(dst);
}

/* Random valid stream using every element form; plain is the expected
 * output. Returns the stream length. */
static size_t gen_stream(uint8_t *s, uint8_t *plain, size_t ulen)
{
    size_t i = put_varint(s, (uint32_t)ulen), o = 0;
    while (o < ulen) {
        if (o == 0 || rnd_below(3) == 0) {
            size_t len, lm1, k, extra;
            unsigned form = (unsigned)rnd_below(6);
            size_t maxl = form < 3 ? 16 : form < 5 ? 64 : 3000;
            len = 1 + rnd_below(maxl);
            if (len > ulen - o)
                len = ulen - o;
            lm1 = len - 1;
            /* Shortest form, or randomly a longer length encoding. */
            extra = lm1 < 60 ? 0 : lm1 < 256 ? 1 : lm1 < 65536 ? 2 : 3;
            if (rnd_below(3) == 0)
                extra += rnd_below(5 - extra);
            if (extra == 0) {
                s[i++] = (uint8_t)(lm1 << 2);
            } else {
                s[i++] = (uint8_t)((59 + extra) << 2);
                for (k = 0; k < extra; k++)
                    s[i++] = (uint8_t)(lm1 >> (8 * k));
            }
            for (k = 0; k < len; k++)
                plain[o + k] = s[i++] = (uint8_t)(rnd() & (form & 1 ? 0xFF : 7));
            o += len;
        } else {
            size_t off, len, k;
            unsigned form;
            off = rnd_below(2) ? 1 + rnd_below(o < 20 ? o : 20)
                               : 1 + rnd_below(o);
            len = 1 + rnd_below(64);
            if (len > ulen - o)
                len = ulen - o;
            form = (unsigned)rnd_below(3);
            if (form == 0 && (len < 4 || len > 11 || off >= 2048))
                form = 1;
            if (form == 1 && off >= 65536)
                form = 2;
            if (form == 0) {
                s[i++] = (uint8_t)(1 | ((len - 4) << 2) | ((off >> 8) << 5));
                s[i++] = (uint8_t)off;
            } else if (form == 1) {
                s[i++] = (uint8_t)(2 | ((len - 1) << 2));
                s[i++] = (uint8_t)off;
                s[i++] = (uint8_t)(off >> 8);
            } else {
                s[i++] = (uint8_t)(3 | ((len - 1) << 2));
                for (k = 0; k < 4; k++)
                    s[i++] = (uint8_t)(off >> (8 * k));
            }
            for (k = 0; k < len; k++, o++)
                plain[o] = plain[o - off];
        }
    }
    return i;
}

static void test_random_valid(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31,
                                   32, 33, 60, 61, 63, 64, 65, 100, 255, 256,
                                   257, 1000, 4095, 4096, 4097, 65535, 65536,
                                   65537, 100000, 300000, 1 << 20};
    long before = mismatches;
    size_t si, rep;
    int kind;

    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        uint8_t *plain = malloc(n ? n : 1);
        for (kind = 0; kind < 6; kind++) {
            fill(plain, n, kind);
            roundtrip(plain, n, "libsnappy-compressed");
        }
        free(plain);
    }
    for (rep = 0; rep < 300; rep++) { /* random sizes too */
        size_t n = rnd_below(rep < 250 ? 300 : 70000);
        uint8_t *plain = malloc(n ? n : 1);
        fill(plain, n, (int)rnd_below(6));
        roundtrip(plain, n, "libsnappy-compressed random size");
        free(plain);
    }
    CHECK_EQ_INT(mismatches - before, 0);

    /* Hand-built streams with every tag form, checked against the expected
     * plain text and against libsnappy. */
    before = mismatches;
    for (rep = 0; rep < 2000; rep++) {
        size_t ulen = rep < 1500 ? rnd_below(200) : rnd_below(100000);
        uint8_t *plain = malloc(ulen ? ulen : 1);
        uint8_t *s = malloc(ulen * 6 + 16);
        uint8_t *dst = malloc(ulen ? ulen : 1);
        size_t n = gen_stream(s, plain, ulen), out = 0;
        zdem_error e;
        zdem_error_clear(&e);
        if (zdem_snappy_decompress(s, n, dst, ulen, &out, &e) != ZDEM_OK ||
            out != ulen || memcmp(dst, plain, ulen) != 0)
            mismatch("generated stream", "differs from generator's plain", n);
        if (!compare(s, n, "generated stream"))
            mismatch("generated stream", "libsnappy rejected a valid stream", n);
        free(plain);
        free(s);
        free(dst);
    }
    CHECK_EQ_INT(mismatches - before, 0);
}

/* ------------------------------------------------------------ (c) corrupt */

static void test_errors_by_hand(void)
{
    /* Expected status and error offset derived from the format by hand. */
    static const struct {
        const char *name;
        uint8_t in[16];
        size_t n;
        zdem_status st;
        uint64_t off;
    } cases[] = {
        {"empty input", {0}, 0, ZDEM_ERR_SNAPPY, 0},
        {"empty output", {0x00}, 1, ZDEM_OK, 0},
        {"empty output, trailing tag", {0x00, 0x00}, 2, ZDEM_ERR_SNAPPY, 1},
        {"preamble truncated", {0x80}, 1, ZDEM_ERR_SNAPPY, 1},
        {"preamble 33 bits", {0xFF, 0xFF, 0xFF, 0xFF, 0x10}, 5, ZDEM_ERR_SNAPPY, 0},
        {"preamble 6 bytes", {0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 6, ZDEM_ERR_SNAPPY, 0},
        {"literal ok", {0x02, 0x04, 'a', 'b'}, 4, ZDEM_OK, 0},
        {"literal past input", {0x03, 0x08, 'a', 'b'}, 4, ZDEM_ERR_SNAPPY, 1},
        {"literal past output", {0x01, 0x04, 'a', 'b'}, 4, ZDEM_ERR_SNAPPY, 1},
        {"1-byte literal length past input", {0x05, 0xF0, 0x01}, 3, ZDEM_ERR_SNAPPY, 1},
        {"literal length bytes missing", {0x05, 0xF4, 0x01}, 3, ZDEM_ERR_SNAPPY, 1},
        {"4-byte literal length 2^32", {0x05, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 'a'}, 7, ZDEM_ERR_SNAPPY, 1},
        {"2-byte literal length", {0x02, 0xF4, 0x01, 0x00, 'x', 'y'}, 6, ZDEM_OK, 0},
        {"output short", {0x03, 0x04, 'a', 'b'}, 4, ZDEM_ERR_SNAPPY, 4},
        {"copy offset 0", {0x06, 0x04, 'a', 'b', 0x01, 0x00}, 6, ZDEM_ERR_SNAPPY, 4},
        {"copy offset before start", {0x06, 0x04, 'a', 'b', 0x01, 0x03}, 6, ZDEM_ERR_SNAPPY, 4},
        {"copy-1 overlapping ok", {0x06, 0x04, 'a', 'b', 0x01, 0x02}, 6, ZDEM_OK, 0},
        {"copy-1 past output", {0x05, 0x04, 'a', 'b', 0x01, 0x02}, 6, ZDEM_ERR_SNAPPY, 4},
        {"copy-1 truncated", {0x06, 0x04, 'a', 'b', 0x01}, 5, ZDEM_ERR_SNAPPY, 4},
        {"copy-2 ok", {0x03, 0x00, 'z', 0x06, 0x01, 0x00}, 6, ZDEM_OK, 0},
        {"copy-2 truncated", {0x03, 0x00, 'z', 0x06, 0x01}, 5, ZDEM_ERR_SNAPPY, 3},
        {"copy-4 ok", {0x03, 0x00, 'z', 0x07, 0x01, 0x00, 0x00, 0x00}, 8, ZDEM_OK, 0},
        {"copy-4 huge offset", {0x03, 0x00, 'z', 0x07, 0x01, 0x00, 0x00, 0x80}, 8, ZDEM_ERR_SNAPPY, 3},
        {"copy-4 truncated", {0x03, 0x00, 'z', 0x07, 0x01, 0x00, 0x00}, 7, ZDEM_ERR_SNAPPY, 3},
        {"copy first", {0x04, 0x01, 0x01}, 3, ZDEM_ERR_SNAPPY, 1},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t out[64];
        size_t out_len = 0;
        zdem_error e;
        zdem_status st;
        zdem_error_clear(&e);
        st = zdem_snappy_decompress(cases[i].in, cases[i].n, out, sizeof out,
                                    &out_len, &e);
        if (!CHECK_EQ_INT(st, cases[i].st) ||
            (st != ZDEM_OK && !CHECK_EQ_INT(e.offset, cases[i].off)))
            fprintf(stderr, "  case: %s (%s)\n", cases[i].name,
                    e.msg ? e.msg : "ok");
        if (st != ZDEM_OK)
            CHECK(e.code == st && e.msg != NULL && !e.offset_is_bits);
        compare(cases[i].in, cases[i].n, cases[i].name);
    }
    {
        /* Known outputs. */
        static const uint8_t ov[] = {0x06, 0x04, 'a', 'b', 0x01, 0x02};
        static const uint8_t lit2[] = {0x02, 0xF4, 0x01, 0x00, 'x', 'y'};
        uint8_t out[8];
        size_t len = 0;
        zdem_error e;
        zdem_error_clear(&e);
        CHECK(zdem_snappy_decompress(ov, sizeof ov, out, 6, &len, &e) == ZDEM_OK &&
              len == 6 && memcmp(out, "ababab", 6) == 0);
        CHECK(zdem_snappy_decompress(lit2, sizeof lit2, out, 2, &len, &e) == ZDEM_OK &&
              len == 2 && memcmp(out, "xy", 2) == 0);
        CHECK(zdem_snappy_uncompressed_length((const uint8_t *)"\xFF\xFF\xFF\xFF\x0F",
                                              5, &len, &e) == ZDEM_OK &&
              len == 0xFFFFFFFFu);
        CHECK(zdem_snappy_decompress(ov, sizeof ov, out, 5, &len, &e) ==
              ZDEM_ERR_NO_SPACE);
    }
}

static void test_corrupt(void)
{
    long before = mismatches, ok_before;
    size_t i, picked = 0, trunc_runs = 0, flip_runs = 0;

    /* (c1) every truncation of a few small payloads per size class, plus
     * sampled truncations of the biggest payloads. */
    for (i = 0; i < n_payloads; i++) {
        const payload *pl = &payloads[i];
        size_t cut, step = 1;
        if (pl->len > 6000) {
            if (i % 97 != 0)
                continue;
            step = pl->len / 150 + 1;
        } else if (i % 23 != 0) {
            continue;
        }
        picked++;
        for (cut = 0; cut < pl->len; cut += step) {
            uint8_t *t = malloc(cut ? cut : 1);
            memcpy(t, pl->data, cut);
            /* A strict prefix of a valid stream always falls short. */
            ok_before = lib_ok_runs;
            compare(t, cut, "truncated payload");
            if (lib_ok_runs != ok_before)
                mismatch("truncated payload", "a prefix decompressed", cut);
            trunc_runs++;
            free(t);
        }
    }
    printf("truncation: %zu payloads, %zu truncations\n", picked, trunc_runs);
    CHECK(picked >= 20);

    /* (c2) random byte flips, 1..4 per copy, anywhere incl. the preamble. */
    for (i = 0; i < n_payloads; i += 3) {
        const payload *pl = &payloads[i];
        int rep;
        if (pl->len == 0 || pl->len > 20000)
            continue;
        for (rep = 0; rep < 6; rep++) {
            uint8_t *t = malloc(pl->len);
            int k, flips = 1 + (int)rnd_below(4);
            memcpy(t, pl->data, pl->len);
            for (k = 0; k < flips; k++) {
                size_t pos = rnd_below(8) == 0 ? rnd_below(pl->len < 5 ? pl->len : 5)
                                                : rnd_below(pl->len);
                t[pos] ^= (uint8_t)(1 + rnd_below(255));
            }
            compare(t, pl->len, "byte flips");
            flip_runs++;
            free(t);
        }
    }
    printf("byte flips: %zu corrupted payloads\n", flip_runs);

    /* (c3) tag soup: random bytes after a plausible preamble. */
    for (i = 0; i < 20000; i++) {
        uint8_t buf[64];
        size_t n = 1 + rnd_below(sizeof buf - 5), k, pre;
        pre = put_varint(buf, (uint32_t)rnd_below(i & 1 ? 40 : 300));
        for (k = pre; k < n + pre; k++)
            buf[k] = (uint8_t)rnd();
        compare(buf, n + pre, "tag soup");
    }
    CHECK_EQ_INT(mismatches - before, 0);
}

int main(void)
{
    test_errors_by_hand();
    test_corpus();
    test_random_valid();
    test_corrupt();
    printf("snappy: %ld comparisons, %ld successful decompressions\n", runs,
           lib_ok_runs);
    for (size_t i = 0; i < n_payloads; i++)
        free(payloads[i].data);
    return zt_finish();
}
