/* The entity reader's field-path planner (zdem_s2_plan_read, with its
 * windowed fast paths) against the plain reader (zdem_s2_fp_read_all, one
 * operation at a time through zdem_bits) on random bit strings: the same
 * status, paths, end position and overflow flag, and on a fault the same
 * error at the same bit offset. The class is unknown (serializer -1), so
 * only the operations are compared; what a path resolves to is covered
 * by the corpus tests. A third of the strings are random bits, a third
 * thinned towards zero bits (the PlusOne code: long runs of the fast
 * loop), and a third are updates built from operation codes (fill_codes),
 * so that the rare long codes, the non-topological ones among them, come
 * up in updates that finish. */
#include <stdlib.h>
#include <string.h>
#include "zdem_test.h"
#include "source2_state_int.h"

#define CAP 64u

static uint64_t rs = 88172645463325252ull;

static uint64_t rnd(void)
{
    return zt_rand(&rs);
}

/* Each operation's code (bit i of code[op] is the i-th bit read), found
 * by reading every 17-bit string with the plain reader: the table's own
 * codes, not a copy of them. */
static uint32_t code[ZDEM_S2_FP_OP_COUNT];
static unsigned code_len[ZDEM_S2_FP_OP_COUNT];

static void find_codes(void)
{
    uint32_t v;
    for (v = 0; v < (1u << 17); v++) {
        uint8_t b[3] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16)};
        zdem_bits br;
        int op;
        zdem_bits_init(&br, b, 3);
        op = zdem_s2_fp_read_op(&br);
        if (op >= 0 && op < ZDEM_S2_FP_OP_COUNT && !code_len[op]) {
            code_len[op] = (unsigned)br.pos;
            code[op] = v & ((1u << br.pos) - 1u);
        }
    }
}

/* Writes n bits of v at bit pos of buf (cleared bits past it); returns
 * the position after them, at most len bytes. */
static size_t put_bits(uint8_t *buf, size_t len, size_t pos, uint64_t v, unsigned n)
{
    unsigned i;
    for (i = 0; i < n && i < 64u && pos < len * 8u; i++, pos++)
        buf[pos >> 3] |= (uint8_t)(((v >> i) & 1u) << (pos & 7u));
    return pos;
}

static void clear_from(uint8_t *buf, size_t len, size_t pos)
{
    size_t i;
    if (pos & 7u)
        buf[pos >> 3] &= (uint8_t)((1u << (pos & 7u)) - 1u);
    for (i = (pos + 7u) >> 3; i < len; i++)
        buf[i] = 0;
}

/* Fills buf with up to 24 codes of random operations, each followed by
 * 0..15 random bits (its operands; a NonTopoComplex mostly gets deltas
 * shaped as it reads them), then FieldPathEncodeFinish. An
 * operation is kept when the update, finished after it, reads without a
 * fault (up to 8 tries, then whatever came last): random operations alone
 * soon pop past the root or push past depth 7, and the non-topological
 * ones would hardly come up in an update that finishes. thin: operand
 * bits thinned towards zero (small operands keep paths in range). */
static void fill_codes(uint8_t *buf, size_t len, int thin, zdem_s2_fp *ref)
{
    size_t pos = 0;
    unsigned k, n = 1u + (unsigned)(rnd() % 24u), tries;
    const unsigned fin = ZDEM_S2_FP_FIELDPATHENCODEFINISH;
    memset(buf, 0, len);
    for (k = 0; k < n && pos < len * 8u; k++) {
        size_t next = pos;
        for (tries = 0; tries < 8u; tries++) {
            /* a quarter of them non-topological: the windowed delta
             * reads of the planner */
            static const unsigned nt[3] = {ZDEM_S2_FP_NONTOPOCOMPLEX,
                                           ZDEM_S2_FP_PUSHNANDNONTOPOLOGICAL,
                                           ZDEM_S2_FP_POPNANDNONTOPOGRAPHICAL};
            unsigned op = rnd() % 4u ? (unsigned)(rnd() % ZDEM_S2_FP_OP_COUNT) : nt[rnd() % 3u];
            unsigned extra = (unsigned)(rnd() % 16u);
            uint64_t operand = thin ? rnd() & rnd() & rnd() : rnd();
            zdem_bits br;
            zdem_error e;
            uint32_t np;
            if (op == ZDEM_S2_FP_NONTOPOCOMPLEX && (rnd() & 3u)) {
                /* as a non-topological operation reads them: a presence
                 * bit, then a one-byte varint of a small delta (zigzag:
                 * 0, 2, 4 are 0, +1, +2; 1 is -1, rarer, as a negative
                 * component ends the update) */
                static const unsigned zz[8] = {0, 2, 4, 0, 2, 4, 2, 1};
                unsigned j;
                operand = 0;
                for (j = 0; j < 7u; j++)
                    operand |= (uint64_t)(1u | zz[rnd() % 8u] << 1) << (9u * j);
                extra = 9u * (1u + (unsigned)(rnd() % 7u));
            }
            clear_from(buf, len, pos);
            next = put_bits(buf, len, pos, code[op], code_len[op]);
            next = put_bits(buf, len, next, operand, extra);
            put_bits(buf, len, next, code[fin], code_len[fin]);
            zdem_bits_init(&br, buf, len);
            zdem_error_clear(&e);
            if (zdem_s2_fp_read_all(&br, ref, CAP, &np, &e) == ZDEM_OK)
                break;
        }
        pos = next;
    }
    clear_from(buf, len, pos);
    put_bits(buf, len, pos, code[fin], code_len[fin]);
}

int main(void)
{
    static zdem_s2_fp ref[CAP];
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_error e;
    size_t size;
    void *arena;
    long it, differ = 0, faults = 0, paths = 0, missing = 0;
    unsigned op;
    zdem_s2_config_default(&cfg);
    cfg.max_field_paths = CAP;
    size = zdem_s2_state_fixed_size(&cfg) + (1u << 20);
    arena = malloc(size);
    CHECK(arena != NULL);
    if (!arena)
        return 1;
    CHECK_EQ_INT(zdem_s2_state_init(&s, arena, size, &cfg, &e), ZDEM_OK);
    find_codes();
    for (op = 0; op < ZDEM_S2_FP_OP_COUNT; op++)
        missing += code_len[op] == 0;
    CHECK_EQ_INT(missing, 0); /* every operation has a code of at most 17 bits */
    for (it = 0; it < 60000; it++) {
        uint8_t buf[64];
        size_t len = 1u + (size_t)(rnd() % 63u), i;
        zdem_bits b1, b2;
        zdem_error e1, e2;
        uint32_t n1 = 0, n2 = 0;
        zdem_status s1, s2;
        int bad;
        if (it % 3 == 2) {
            fill_codes(buf, len, (it / 3) & 1, ref);
        } else {
            for (i = 0; i < len; i++)
                buf[i] = (uint8_t)rnd();
            if (it % 3 == 1)
                for (i = 0; i < len; i++)
                    if (rnd() & 1u)
                        buf[i] &= (uint8_t)rnd();
        }
        zdem_bits_init(&b1, buf, len);
        zdem_bits_init(&b2, buf, len);
        zdem_error_clear(&e1);
        zdem_error_clear(&e2);
        s1 = zdem_s2_fp_read_all(&b1, ref, CAP, &n1, &e1);
        s2 = zdem_s2_plan_read(s, -1, &b2, &n2, &e2);
        bad = s1 != s2;
        if (s1 == ZDEM_OK) {
            bad |= n1 != n2 || b1.pos != b2.pos || b1.overflow != b2.overflow;
            for (i = 0; !bad && i < n1; i++)
                bad |= memcmp(&ref[i], &s->fps[i], sizeof ref[i]) != 0;
            paths += n1;
        } else {
            faults++;
            bad |= e1.offset != e2.offset || e1.offset_is_bits != e2.offset_is_bits ||
                   strcmp(e1.msg ? e1.msg : "", e2.msg ? e2.msg : "") != 0;
        }
        if (bad && differ++ < 5)
            fprintf(stderr, "input %ld: status %d / %d, paths %u / %u, bit %zu / %zu, %s / %s\n", it,
                    (int)s1, (int)s2, n1, n2, b1.pos, b2.pos, e1.msg ? e1.msg : "",
                    e2.msg ? e2.msg : "");
    }
    CHECK_EQ_INT(differ, 0);
    /* the strings reach both ends: faults (runs past the end, too many
     * paths, bad components) and updates that finish */
    CHECK(faults > 1000);
    CHECK(paths > 100000);
    free(arena);
    return zt_finish();
}
