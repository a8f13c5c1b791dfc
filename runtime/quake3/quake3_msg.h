/* Quake III message bit reader: MSG_ReadBits semantics over one demo
 * message. A read of n bits takes the low n % 8 bits raw (LSB first), then
 * n / 8 Huffman-coded bytes of the static Quake III code. Each Huffman
 * symbol is looked up in an 11-bit table (codes are at most 11 bits), and
 * a whole 32-bit read needs at most 7 + 4 * 11 = 51 bits, so it is served
 * from one 64-bit load. Past the end the input reads as zero bits and the
 * sticky `overflow` flag is set; callers check it once per field group.
 *
 * Quake III before 1.29 (dm3, dm_48) sent plain bits, no Huffman code
 * (`raw` set): zdem_q3_raw_* read those. zdem_q3_huff_* are the Huffman
 * reads (the generated decoders of each layout call their own), and
 * zdem_q3_read_* pick by `raw` for the hand-written code. */
#ifndef ZDEM_QUAKE3_MSG_H
#define ZDEM_QUAKE3_MSG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "zdem_varint.h"
#include "quake3_tables.h"

/* The 8 KiB zdem_q3_huff_fast table serves the inline reads of a build for
 * speed; a build for size (ZDEM_SMALL, or the compiler's -Os) reads with
 * the 4 KiB zdem_q3_huff_decode only, and links no other table. */
#if defined(ZDEM_SMALL) || defined(__OPTIMIZE_SIZE__)
#define ZDEM_Q3_FAST_TABLE 0
#else
#define ZDEM_Q3_FAST_TABLE 1
#endif

typedef struct zdem_q3_msg {
    const uint8_t *data;
    size_t len;       /* bytes */
    size_t bit;       /* read position in bits */
    size_t end;       /* len * 8 */
    size_t lim;       /* 8-byte loads are safe below this byte (len, or
                       * len + ZDEM_Q3_MSG_PAD for a padded copy) */
    int overflow;     /* a read went past the end */
    unsigned bad;     /* 0x8000 set: a bit pattern that is no Huffman code */
    int raw;          /* plain bits (Quake III before 1.29) */
} zdem_q3_msg;

static inline void zdem_q3_msg_init(zdem_q3_msg *m, const uint8_t *data, size_t len)
{
    m->data = data;
    m->len = len;
    m->bit = 0;
    m->end = len * 8u;
    m->lim = len;
    m->overflow = 0;
    m->bad = 0;
    m->raw = 0;
}

/* At least 57 bits from the read position, zero-padded past the end. */
static inline uint64_t zdem_q3__window(const zdem_q3_msg *m)
{
    size_t byte = m->bit >> 3;
    uint64_t w = 0;
    if (byte + 8u <= m->lim) {
        w = zdem_load_le64(m->data + byte);
    } else {
        size_t i;
        for (i = 0; byte + i < m->len && i < 8u; i++)
            w |= (uint64_t)m->data[byte + i] << (8u * i);
    }
    return w >> (m->bit & 7u);
}

static inline void zdem_q3__advance(zdem_q3_msg *m, unsigned n)
{
    m->bit += n;
    if (m->bit > m->end) {
        m->overflow = 1;
        m->bit = m->end + 1u; /* stays past the end: no wrap, no progress */
    }
}

/* One raw bit (MSG_ReadBits(msg, 1) never uses the Huffman code). */
static inline unsigned zdem_q3_read_bit(zdem_q3_msg *m)
{
    unsigned v = 0;
    if (m->bit < m->end)
        v = (m->data[m->bit >> 3] >> (m->bit & 7u)) & 1u;
    zdem_q3__advance(m, 1);
    return v;
}

/* MSG_ReadBits(msg, n) for n in 1..32, unsigned result. */
static inline uint32_t zdem_q3_huff_bits(zdem_q3_msg *m, unsigned n)
{
    uint64_t w = zdem_q3__window(m);
    unsigned raw = n & 7u, used = raw, i, nbytes = n >> 3;
    uint32_t v = (uint32_t)(w & ((1u << raw) - 1u));
    for (i = 0; i < nbytes; i++) {
        unsigned e = zdem_q3_huff_decode[(w >> used) & 0x7FFu];
        m->bad |= e;
        v |= (uint32_t)(e & 0xFFu) << (raw + 8u * i);
        used += (e >> 8) & 15u;
    }
    zdem_q3__advance(m, used);
    return v;
}

static inline int32_t zdem_q3__sext(uint32_t v, unsigned n)
{
    if (n < 32u && (v & (1u << (n - 1u))))
        v |= ~((1u << n) - 1u);
    return (int32_t)v;
}

/* n plain bits, n in 1..32 (the window holds at least 57). */
static inline uint32_t zdem_q3_raw_bits(zdem_q3_msg *m, unsigned n)
{
    uint64_t w = zdem_q3__window(m);
    zdem_q3__advance(m, n);
    return (uint32_t)(w & ((UINT64_C(1) << n) - 1u));
}

/* Either coding, as the message says. */
static inline uint32_t zdem_q3_read_bits(zdem_q3_msg *m, unsigned n)
{
    return m->raw ? zdem_q3_raw_bits(m, n) : zdem_q3_huff_bits(m, n);
}

static inline uint32_t zdem_q3_read_byte(zdem_q3_msg *m)
{
    uint64_t w;
    unsigned e;
    if (m->raw)
        return zdem_q3_raw_bits(m, 8);
    w = zdem_q3__window(m);
    e = zdem_q3_huff_decode[w & 0x7FFu];
    m->bad |= e;
    zdem_q3__advance(m, (e >> 8) & 15u);
    return e & 0xFFu;
}

static inline int32_t zdem_q3_read_long(zdem_q3_msg *m)
{
    return (int32_t)zdem_q3_read_bits(m, 32);
}

/* Index of the lowest set bit of c (c != 0), in plain C11: the isolated
 * bit times a de Bruijn constant puts a unique 6-bit pattern on top
 * (compilers turn this into one instruction where they can). */
static inline unsigned zdem_q3__low_bit(uint64_t c)
{
    static const uint8_t idx[64] = {
        0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4,
        62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
        63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
        46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6};
    return idx[((c & (0u - c)) * UINT64_C(0x03f79d71b4cb0a89)) >> 58];
}

static inline int32_t zdem_q3__int_float(uint32_t v)
{
    float f = (float)((int32_t)v - 4096);
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (int32_t)u;
}


/* ---- Readers for a padded message (the parser's copy): at least
 * ZDEM_Q3_MSG_PAD zero bytes follow the message, so reads need no bounds
 * check and may run past the end into zeros; the generated delta decoders
 * use them for one entity or playerstate (well under the pad) and settle
 * the position once at the end (zdem_q3__settle): past the end means
 * overflow, exactly as the checked readers would have flagged it. */
#define ZDEM_Q3_MSG_PAD 512

static inline uint64_t zdem_q3__pwindow(const zdem_q3_msg *m)
{
    return zdem_load_le64(m->data + (m->bit >> 3)) >> (m->bit & 7u);
}

static inline void zdem_q3__settle(zdem_q3_msg *m)
{
    if (m->bit > m->end) {
        m->overflow = 1;
        m->bit = m->end + 1u;
    }
}

static inline unsigned zdem_q3_pbit(zdem_q3_msg *m)
{
    unsigned v = (m->data[m->bit >> 3] >> (m->bit & 7u)) & 1u;
    m->bit++;
    return v;
}

/* A flag bit from a decoder's local copy of the position (kept in a
 * register; stored back to m->bit around the other reads). */
static inline unsigned zdem_q3_lbit(const uint8_t *d, size_t *bit)
{
    unsigned v = (d[*bit >> 3] >> (*bit & 7u)) & 1u;
    ++*bit;
    return v;
}

static inline uint32_t zdem_q3_phuff_bits(zdem_q3_msg *m, unsigned n)
{
    uint64_t w = zdem_q3__pwindow(m);
    unsigned raw = n & 7u, used = raw, i, nbytes = n >> 3;
    uint32_t v = (uint32_t)(w & ((1u << raw) - 1u));
    for (i = 0; i < nbytes; i++) {
        unsigned e = zdem_q3_huff_decode[(w >> used) & 0x7FFu];
        m->bad |= e;
        v |= (uint32_t)(e & 0xFFu) << (raw + 8u * i);
        used += (e >> 8) & 15u;
    }
    m->bit += used;
    return v;
}

/* n (<= 5) Huffman-coded bytes from one window of the padded copy,
 * unchecked (5 codes of at most 11 bits fit in the 57 bits it holds):
 * byte i in bits 8i..8i+7 of the result. */
#if ZDEM_Q3_FAST_TABLE
static inline uint64_t zdem_q3_phuff_bytes(zdem_q3_msg *m, unsigned n)
{
    uint64_t w = zdem_q3__pwindow(m), v = 0;
    uint32_t s = 0, bad = 0;
    unsigned i;
    for (i = 0; i < n; i++) { /* zdem_q3_huff_fast: shift by the entry */
        uint32_t e = zdem_q3_huff_fast[w & 0x7FFu];
        w >>= e & 63u;
        s += e;
        bad |= e;
        v |= (uint64_t)((e >> 8) & 0xFFu) << (8u * i);
    }
    m->bad |= bad >> 1; /* 0x10000 -> the message's 0x8000 */
    m->bit += s >> 24;  /* the entries' top bytes sum to the lengths */
    return v;
}
#else
static inline uint64_t zdem_q3_phuff_bytes(zdem_q3_msg *m, unsigned n)
{
    uint64_t w = zdem_q3__pwindow(m), v = 0;
    unsigned used = 0, i;
    for (i = 0; i < n; i++) {
        unsigned e = zdem_q3_huff_decode[(w >> used) & 0x7FFu];
        m->bad |= e;
        v |= (uint64_t)(e & 0xFFu) << (8u * i);
        used += (e >> 8) & 15u;
    }
    m->bit += used;
    return v;
}
#endif

/* Either coding on the padded copy, unchecked: the caller settles
 * (zdem_q3__settle) before ZDEM_Q3_MSG_PAD bytes are passed. */
static inline uint32_t zdem_q3_pread_bits(zdem_q3_msg *m, unsigned n)
{
    if (m->raw) {
        uint64_t w = zdem_q3__pwindow(m);
        m->bit += n;
        return (uint32_t)(w & ((UINT64_C(1) << n) - 1u));
    }
    return zdem_q3_phuff_bits(m, n);
}

/* The full 32-bit float (flag bit set): four Huffman bytes, out of line
 * (quake3_messages.c), for the build for size below. */
int32_t zdem_q3__huff_float32(zdem_q3_msg *m);

/* One netfield of a generated delta decoder, as a statement on its
 * locals d, bit and bad (and what ZDEM_Q3_FIELDS_BEGIN declares, once
 * before the first field; ZDEM_Q3_FIELDS_RELOAD before field 57 and
 * every 57th after): ZDEM_Q3_E* an entity field (changed bit, zero
 * bit, value), ZDEM_Q3_P* a playerstate field (changed bit, value);
 * FLOAT a float (integral 13-bit or full 32-bit), INT n bits, SINT n bits
 * sign-extended (n a constant, 1..32). Macros, so that they are inlined
 * into the large unrolled decoders (compilers stop inlining functions
 * into those). A build for size (ZDEM_SMALL, or the compiler's -Os)
 * reads each value with a call instead: about 40 KiB less code on a
 * Cortex-M4, at some speed. */
#if defined(ZDEM_SMALL) || defined(__OPTIMIZE_SIZE__)
int32_t zdem_q3__huff_float(zdem_q3_msg *m);
uint32_t zdem_q3__huff_bits(zdem_q3_msg *m, unsigned n);
#define ZDEM_Q3__BAD(bad) (bad)
#define ZDEM_Q3_FIELDS_BEGIN(d, bit) (void)0
#define ZDEM_Q3_FIELDS_RELOAD(d, bit) (void)0
#define ZDEM_Q3__CALL(m, bit, dst, call)                                        \
    do {                                                                        \
        (m)->bit = (bit);                                                       \
        (dst) = (call);                                                         \
        (bit) = (m)->bit;                                                       \
    } while (0)
#define ZDEM_Q3__EFIELD(d, bit, dst, read)                                      \
    do {                                                                        \
        if (zdem_q3_lbit(d, &(bit))) {                                          \
            if (zdem_q3_lbit(d, &(bit))) {                                      \
                read;                                                           \
            } else {                                                            \
                (dst) = 0;                                                      \
            }                                                                   \
        }                                                                       \
    } while (0)
#define ZDEM_Q3__PFIELD(d, bit, read)                                           \
    do {                                                                        \
        if (zdem_q3_lbit(d, &(bit)))                                            \
            read;                                                               \
    } while (0)
#define ZDEM_Q3_EFLOAT(m, d, bit, bad, dst)                                     \
    ZDEM_Q3__EFIELD(d, bit, dst, ZDEM_Q3__CALL(m, bit, dst, zdem_q3__huff_float(m)))
#define ZDEM_Q3_EINT(m, d, bit, bad, n, dst)                                    \
    ZDEM_Q3__EFIELD(d, bit, dst, ZDEM_Q3__CALL(m, bit, dst, (int32_t)zdem_q3__huff_bits(m, n)))
#define ZDEM_Q3_ESINT(m, d, bit, bad, n, dst)                                   \
    ZDEM_Q3__EFIELD(d, bit, dst,                                                \
                    ZDEM_Q3__CALL(m, bit, dst, zdem_q3__sext(zdem_q3__huff_bits(m, n), n)))
#define ZDEM_Q3_PFLOAT(m, d, bit, bad, dst)                                     \
    ZDEM_Q3__PFIELD(d, bit, ZDEM_Q3__CALL(m, bit, dst, zdem_q3__huff_float(m)))
#define ZDEM_Q3_PINT(m, d, bit, bad, n, dst)                                    \
    ZDEM_Q3__PFIELD(d, bit, ZDEM_Q3__CALL(m, bit, dst, (int32_t)zdem_q3__huff_bits(m, n)))
#define ZDEM_Q3_PSINT(m, d, bit, bad, n, dst)                                   \
    ZDEM_Q3__PFIELD(d, bit, ZDEM_Q3__CALL(m, bit, dst, zdem_q3__sext(zdem_q3__huff_bits(m, n), n)))
#else
/* Each field is decoded from one 64-bit window at its first bit (at least
 * 57 bits; the longest field, flags and a full float, takes 47): the flag
 * bits are tests of the window, the value reads shift it (by the table
 * entry itself: zdem_q3_huff_fast). `at` counts the window bits used; bit
 * advances by it once. bad collects zdem_q3_huff_fast's 0x10000 flag
 * (ZDEM_Q3__BAD makes it the message's 0x8000). */
#define ZDEM_Q3__BAD(bad) ((bad) >> 1)
#define ZDEM_Q3__WIN(w, d, bit)                                                 \
    do {                                                                        \
        ZDEM_Q3__LOAD64(w, (d) + ((bit) >> 3));                                 \
        (w) >>= (bit) & 7u;                                                     \
    } while (0)
/* zdem_load_le64 as a statement: one load, and unlike the function never
 * left out of line in the large decoders (the byte-wise form is not
 * always merged there); a copy where the byte order is known to match */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ZDEM_Q3__LOAD64(w, p) memcpy(&(w), (p), 8)
#else
#define ZDEM_Q3__LOAD64(w, p)                                                   \
    ((w) = (uint64_t)(p)[0] | (uint64_t)(p)[1] << 8 | (uint64_t)(p)[2] << 16 | \
           (uint64_t)(p)[3] << 24 | (uint64_t)(p)[4] << 32 |                    \
           (uint64_t)(p)[5] << 40 | (uint64_t)(p)[6] << 48 | (uint64_t)(p)[7] << 56)
#endif

/* n (a constant, 1..32) Huffman-coded bits from the window (bit 0 next):
 * n % 8 raw bits, then n / 8 coded bytes; the window is shifted past
 * them. The entries are summed: their top bytes add up to the lengths. */
#define ZDEM_Q3__WBITS(w, at, bad, n, dst)                                      \
    do {                                                                        \
        unsigned k_;                                                            \
        uint32_t v_ = (uint32_t)(w) & ((1u << ((n) & 7u)) - 1u), s_ = 0;        \
        (w) >>= (n) & 7u;                                                       \
        for (k_ = 8u; k_ <= (unsigned)(n); k_ += 8u) {                         \
            uint32_t e_ = zdem_q3_huff_fast[(w) & 0x7FFu];                      \
            (w) >>= e_ & 63u;                                                   \
            s_ += e_;                                                           \
            (bad) |= e_;                                                        \
            v_ |= ((e_ >> 8) & 0xFFu) << (((n) & 7u) + k_ - 8u);                \
        }                                                                       \
        (at) += ((n) & 7u) + (s_ >> 24);                                        \
        (dst) = v_;                                                             \
    } while (0)

/* A float from the window: a flag bit, then the full 32 bits or a 13-bit
 * integer (5 raw bits and one coded byte, biased by 4096). */
#define ZDEM_Q3__WFLOAT(w, at, bad, dst)                                        \
    do {                                                                        \
        if ((w) & 1u) {                                                         \
            uint32_t f_;                                                        \
            (w) >>= 1;                                                          \
            (at) += 1u;                                                         \
            ZDEM_Q3__WBITS(w, at, bad, 32u, f_);                                \
            (dst) = (int32_t)f_;                                                \
        } else {                                                                \
            uint32_t e_ = zdem_q3_huff_fast[((w) >> 6) & 0x7FFu];               \
            int32_t i_ = (int32_t)((((uint32_t)(w) >> 1) & 31u) |               \
                                   (((e_ >> 8) & 0xFFu) << 5)) - 4096;          \
            float fl_ = (float)i_;                                              \
            uint32_t b_;                                                        \
            memcpy(&b_, &fl_, sizeof b_);                                       \
            (bad) |= e_;                                                        \
            (at) += 6u + (e_ & 63u);                                            \
            (dst) = (int32_t)b_;                                                \
        }                                                                       \
    } while (0)

/* The changed bits: f_ is the window at the next field's changed bit,
 * fv_ how many of its bits are still the message's. An unchanged field
 * only shifts it; a changed one decodes from it when it still holds the
 * whole field (at most 47 bits), else from a new window, and reloads it
 * after. 57 unchanged fields in a row empty it: FIELDS_RELOAD before
 * field 57. */
#define ZDEM_Q3_FIELDS_BEGIN(d, bit)                                            \
    uint64_t f_;                                                                \
    unsigned fv_ = 57u;                                                         \
    ZDEM_Q3__WIN(f_, d, bit)
#define ZDEM_Q3_FIELDS_RELOAD(d, bit)                                           \
    do {                                                                        \
        ZDEM_Q3__WIN(f_, d, bit);                                               \
        fv_ = 57u;                                                              \
    } while (0)
/* An entity field: changed bit, zero bit, then `read` of the rest. */
#define ZDEM_Q3__EFIELD(d, bit, dst, read)                                      \
    do {                                                                        \
        if (f_ & 1u) {                                                          \
            uint64_t w_ = f_;                                                   \
            unsigned at_ = 2u;                                                  \
            if (fv_ < 47u)                                                      \
                ZDEM_Q3__WIN(w_, d, bit);                                       \
            if (w_ & 2u) {                                                      \
                w_ >>= 2;                                                       \
                read;                                                           \
            } else {                                                            \
                (dst) = 0;                                                      \
            }                                                                   \
            (bit) += at_;                                                       \
            ZDEM_Q3__WIN(f_, d, bit);                                           \
            fv_ = 57u;                                                          \
        } else {                                                                \
            f_ >>= 1;                                                           \
            fv_--;                                                              \
            (bit)++;                                                            \
        }                                                                       \
    } while (0)
/* A playerstate field: changed bit, then `read` of the rest. */
#define ZDEM_Q3__PFIELD(d, bit, read)                                           \
    do {                                                                        \
        if (f_ & 1u) {                                                          \
            uint64_t w_ = f_;                                                   \
            unsigned at_ = 1u;                                                  \
            if (fv_ < 46u)                                                      \
                ZDEM_Q3__WIN(w_, d, bit);                                       \
            w_ >>= 1;                                                           \
            read;                                                               \
            (bit) += at_;                                                       \
            ZDEM_Q3__WIN(f_, d, bit);                                           \
            fv_ = 57u;                                                          \
        } else {                                                                \
            f_ >>= 1;                                                           \
            fv_--;                                                              \
            (bit)++;                                                            \
        }                                                                       \
    } while (0)
#define ZDEM_Q3__WINT(bad, n, dst)                                              \
    do {                                                                        \
        uint32_t u_;                                                            \
        ZDEM_Q3__WBITS(w_, at_, bad, n, u_);                                    \
        (dst) = (int32_t)u_;                                                    \
    } while (0)
#define ZDEM_Q3__WSINT(bad, n, dst)                                             \
    do {                                                                        \
        uint32_t u_;                                                            \
        ZDEM_Q3__WBITS(w_, at_, bad, n, u_);                                    \
        (dst) = zdem_q3__sext(u_, n);                                           \
    } while (0)
#define ZDEM_Q3_EFLOAT(m, d, bit, bad, dst)                                     \
    ZDEM_Q3__EFIELD(d, bit, dst, ZDEM_Q3__WFLOAT(w_, at_, bad, dst))
#define ZDEM_Q3_EINT(m, d, bit, bad, n, dst)                                    \
    ZDEM_Q3__EFIELD(d, bit, dst, ZDEM_Q3__WINT(bad, n, dst))
#define ZDEM_Q3_ESINT(m, d, bit, bad, n, dst)                                   \
    ZDEM_Q3__EFIELD(d, bit, dst, ZDEM_Q3__WSINT(bad, n, dst))
#define ZDEM_Q3_PFLOAT(m, d, bit, bad, dst)                                     \
    ZDEM_Q3__PFIELD(d, bit, ZDEM_Q3__WFLOAT(w_, at_, bad, dst))
#define ZDEM_Q3_PINT(m, d, bit, bad, n, dst)                                    \
    ZDEM_Q3__PFIELD(d, bit, ZDEM_Q3__WINT(bad, n, dst))
#define ZDEM_Q3_PSINT(m, d, bit, bad, n, dst)                                   \
    ZDEM_Q3__PFIELD(d, bit, ZDEM_Q3__WSINT(bad, n, dst))
#endif

static inline uint32_t zdem_q3_praw_bits(zdem_q3_msg *m, unsigned n)
{
    uint64_t w = zdem_q3__pwindow(m);
    m->bit += n;
    return (uint32_t)(w & ((UINT64_C(1) << n) - 1u));
}

static inline int32_t zdem_q3_praw_sbits(zdem_q3_msg *m, unsigned n)
{
    return zdem_q3__sext(zdem_q3_praw_bits(m, n), n);
}

static inline int32_t zdem_q3_praw_float(zdem_q3_msg *m)
{
    if (zdem_q3_pbit(m))
        return (int32_t)zdem_q3_praw_bits(m, 32);
    return zdem_q3__int_float(zdem_q3_praw_bits(m, 13));
}

#endif
