/* libFuzzer target: a string table's entries by index (a hash per table,
 * runtime/source2/source2_stringtables.c) fed adversarial indexes: 512
 * indexes whose hashes share their top 12 bits under the run's seed (the
 * built-in one, 1, or any: input byte 0), mixed with any small index, in
 * CSVCMsg_UpdateStringTable messages and CDemoStringTables dumps (which set
 * entries 0..n-1 and drop the rest) built from the input. Every entry an
 * update touched must read back its last value, or be missing with a
 * probe_limit warning counted during that update; at the end every entry
 * the model holds must be there, and no other.
 * Ops: [0..2] update: count, then per entry u16 key (bit 15: colliding
 * set) and a value byte; [3] dump: count (items 0..count-1, a value
 * byte). */
#define FK_MAX_INPUT 640u
#include "fuzz_source2_keys.h"

#define NSET 512u
#define NSMALL 0x1000u /* small indexes 1..0xfff; the set is >= 0x1000 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t set_idx[2][NSET];
static int16_t model[NSMALL + NSET]; /* value + 1, 0 = absent */

static void make_sets(void)
{
    unsigned k;
    for (k = 0; k < 2; k++) {
        uint64_t seed = fk_state_seed(k), want = zdem_hash_u64(NSMALL, seed) >> 52;
        uint32_t i, n = 0;
        for (i = NSMALL; n < NSET; i++)
            if (zdem_hash_u64(i, seed) >> 52 == want)
                set_idx[k][n++] = i;
    }
}

/* The entry's value as zdem has it: value byte + 1, 0 absent. */
static int entry_value(const zdem_s2_state *s, uint32_t index)
{
    const uint8_t *k, *v;
    uint32_t kl, vl;
    if (!zdem_s2_string_table_entry(s, 0, index, &k, &kl, &v, &vl))
        return 0;
    FK_CHECK(v && vl == 1, "entry without its one-byte value", index, vl);
    return v[0] + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    fk_in in;
    fk_pb pb;
    zdem_s2_state *s;
    zdem_error err;
    unsigned set;
    uint64_t seed;
    uint32_t i;
    if (!ready) {
        make_sets();
        ready = 1;
    }
    fk_in_init(&in, data, size);
    seed = fk_seed(&in, &set);
    if (!(s = fk_s2_state(seed, NULL, NULL)))
        return 0;
    memset(model, 0, sizeof model);
    /* the table: created empty */
    pb.n = 0;
    fk_pb_bytes(&pb, 1, "keys", 4);
    fk_pb_int(&pb, 10, 1); /* using_varint_bitcounts */
    zdem_error_clear(&err);
    FK_CHECK(zdem_s2_st_create(s, pb.buf, pb.n, &err) == ZDEM_OK, "create", 0, 0);
    while (fk_more(&in)) {
        unsigned op = fk_u8(&in) % 4u, cnt = 1u + fk_u8(&in) % 32u, k;
        uint32_t idx[32], slot[32], before = fk_s2_probe_limits(s), refused;
        uint8_t val[32];
        fk_bits bw;
        bw.bits = 0;
        if (op < 3) {
            int64_t prev = -1;
            for (k = 0; k < cnt; k++) {
                unsigned key = fk_u16(&in);
                slot[k] = key & 0x8000u ? NSMALL + key % NSET : 1u + key % (NSMALL - 1u);
                idx[k] = slot[k] < NSMALL ? slot[k] : set_idx[set][slot[k] - NSMALL];
                val[k] = (uint8_t)fk_u8(&in);
                if (idx[k] == prev + 1) {
                    fk_bits_put(&bw, 1, 1);
                } else {
                    fk_bits_put(&bw, 0, 1);
                    fk_bits_varuint32(&bw, idx[k] - 1u);
                }
                prev = idx[k];
                fk_bits_put(&bw, 0, 1); /* no key */
                fk_bits_put(&bw, 1, 1); /* a value: length, byte */
                fk_bits_ubitvar(&bw, 1);
                fk_bits_put(&bw, val[k], 8);
            }
            pb.n = 0;
            fk_pb_int(&pb, 1, 0);
            fk_pb_int(&pb, 2, cnt);
            fk_pb_bytes(&pb, 3, bw.buf, fk_bits_bytes(&bw));
            zdem_error_clear(&err);
            FK_CHECK(zdem_s2_st_update(s, pb.buf, pb.n, &err) == ZDEM_OK, "update", cnt, err.code);
            for (k = 0; k < cnt; k++)
                model[slot[k]] = (int16_t)(val[k] + 1);
            /* what this update touched: its last value, or refused and counted */
            refused = 0;
            for (k = 0; k < cnt; k++) {
                uint32_t sl = slot[k];
                int got = entry_value(s, idx[k]);
                if (got == 0 && model[sl]) {
                    refused++;
                    model[sl] = 0;
                }
                FK_CHECK(got == model[sl], "entry value", idx[k], (unsigned)got);
            }
            FK_CHECK(!refused || fk_s2_probe_limits(s) > before, "entry missing, nothing reported",
                     refused, before);
        } else {
            /* a dump: items 0..cnt-1 with one value byte, the rest dropped */
            fk_pb item, table;
            unsigned v = fk_u8(&in);
            table.n = 0;
            fk_pb_bytes(&table, 1, "keys", 4);
            for (k = 0; k < cnt; k++) {
                uint8_t b = (uint8_t)(v + k);
                item.n = 0;
                fk_pb_bytes(&item, 2, &b, 1);
                fk_pb_bytes(&table, 2, item.buf, item.n);
            }
            pb.n = 0;
            fk_pb_bytes(&pb, 1, table.buf, table.n);
            zdem_error_clear(&err);
            FK_CHECK(zdem_s2_st_demo_tables(s, pb.buf, pb.n, &err) == ZDEM_OK, "dump", cnt, err.code);
            for (i = 0; i < NSMALL + NSET; i++)
                model[i] = 0;
            for (k = 0; k < cnt; k++)
                model[k] = (int16_t)((uint8_t)(v + k) + 1);
            for (k = 0; k < cnt; k++)
                FK_CHECK(entry_value(s, k) == model[k], "dump entry value", k, 0);
        }
    }
    /* everything the model holds is there, and nothing else */
    {
        uint32_t n = 0;
        for (i = 0; i < NSMALL + NSET; i++) {
            uint32_t index = i < NSMALL ? i : set_idx[set][i - NSMALL];
            if (model[i]) {
                FK_CHECK(entry_value(s, index) == model[i], "entry at the end", index, 0);
                n++;
            }
        }
        FK_CHECK(s->tables[0].n == n, "entry count", s->tables[0].n, n);
        if (fk_verbose())
            fprintf(stderr, "index: seed set %u, %lu entries, probe_limit %lu\n", set,
                    (unsigned long)n, (unsigned long)fk_s2_probe_limits(s));
    }
    return 0;
}
