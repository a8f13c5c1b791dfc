/* libFuzzer target: string tables by name (a hash of the names,
 * runtime/source2/source2_stringtables.c) fed adversarial names: 256
 * 16-byte names with one and the same 64-bit hash under the run's seed
 * (the built-in one, 1, or any: input byte 0; solved through the inverse
 * mixer, so no table size separates them), mixed with short names from the
 * input, in CSVCMsg_CreateStringTable messages, and ClearAllStringTables.
 * A create of a name the state can find reuses that table; any other makes
 * a new one (the id is the creation order). After each create the table
 * must be found by its name, or the name must have been refused with a
 * probe_limit warning counted during that create; at the end every
 * findable name finds its table and every table keeps its name.
 * Ops: [0..6] create: u8 (< 0xC0: colliding name, else a short name:
 * length, bytes); [7] clear all. 512 bytes (up to 255 creates: five
 * times what fills a cluster to the probe bound) keep it over 2,000
 * inputs/s on the shared machine (1,024 ran at 1,750 per CPU second). */
#define FK_MAX_INPUT 512u
#include "fuzz_source2_keys.h"

#define NSET 256u
#define MAXT 1024u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t set_name[2][NSET][16];

static void make_sets(void)
{
    unsigned k, i;
    for (k = 0; k < 2; k++) {
        uint64_t seed = fk_state_seed(k);
        uint64_t h0 = seed ^ (16u * 0x9E3779B97F4A7C15ull);
        uint8_t first[16] = "zk00000000000000";
        uint64_t target = zdem_hash_bytes(first, 16, seed);
        uint64_t inner = fk_unmix64(fk_unmix64(target)); /* mix(h0 ^ w0) ^ w1 */
        uint32_t ctr = 0;
        for (i = 0; i < NSET; i++) {
            /* w0: "zk" and a counter; w1 solved for; names holding a NUL
             * are passed over (the public lookup takes C strings) */
            for (;;) {
                uint64_t w0 = 0, w1;
                uint8_t *n = set_name[k][i];
                unsigned b, nul = 0;
                snprintf((char *)n, 9, "zk%06u", (unsigned)ctr++);
                for (b = 0; b < 8; b++)
                    w0 |= (uint64_t)n[b] << (8u * b);
                w1 = inner ^ zdem_hash_mix64(h0 ^ w0);
                for (b = 0; b < 8; b++) {
                    n[8 + b] = (uint8_t)(w1 >> (8u * b));
                    nul |= n[8 + b] == 0;
                }
                if (!nul)
                    break;
            }
            FK_CHECK(zdem_hash_bytes(set_name[k][i], 16, seed) == target, "colliding name", k, i);
        }
    }
}

typedef struct mt {
    uint8_t name[32];
    unsigned len;
    int findable;
    int coll; /* its place in the colliding set, -1 */
} mt;

static mt model[MAXT];
static unsigned nmodel;
static int coll_table[NSET]; /* the findable table of a colliding name, -1 */

/* The findable table of a name: colliding names directly, the few short
 * ones by a scan. */
static int model_find(const uint8_t *name, unsigned len, int coll)
{
    unsigned i;
    if (coll >= 0)
        return coll_table[coll];
    for (i = 0; i < nmodel; i++)
        if (model[i].coll < 0 && model[i].findable && model[i].len == len &&
            memcmp(model[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

static void model_clear(void)
{
    unsigned i;
    nmodel = 0;
    for (i = 0; i < NSET; i++)
        coll_table[i] = -1;
}

/* zdem's lookup by a C string: names here never hold a NUL */
static int zdem_find(const zdem_s2_state *s, const uint8_t *name, unsigned len)
{
    char c[33];
    memcpy(c, name, len);
    c[len] = 0;
    return zdem_s2_string_table_find(s, c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    fk_in in;
    fk_pb pb;
    zdem_s2_state *s;
    zdem_error err;
    unsigned set, i;
    uint64_t seed;
    if (!ready) {
        make_sets();
        ready = 1;
    }
    fk_in_init(&in, data, size);
    seed = fk_seed(&in, &set);
    if (!(s = fk_s2_state(seed, NULL, NULL)))
        return 0;
    model_clear();
    while (fk_more(&in) && nmodel < MAXT) {
        unsigned op = fk_u8(&in) % 8u;
        if (op < 7) {
            uint8_t name[32];
            unsigned len, sel = fk_u8(&in);
            uint32_t before = fk_s2_probe_limits(s);
            int want, got, coll = -1;
            if (sel < 0xC0u) {
                coll = (int)(sel % NSET);
                memcpy(name, set_name[set][coll], 16);
                len = 16;
            } else {
                len = 1u + fk_u8(&in) % 20u;
                for (i = 0; i < len; i++)
                    name[i] = (uint8_t)(fk_u8(&in) | 1u); /* no NUL */
            }
            pb.n = 0;
            fk_pb_bytes(&pb, 1, name, len);
            zdem_error_clear(&err);
            FK_CHECK(zdem_s2_st_create(s, pb.buf, pb.n, &err) == ZDEM_OK, "create", len, err.code);
            want = model_find(name, len, coll);
            if (want < 0) {
                want = (int)nmodel++;
                memcpy(model[want].name, name, len);
                model[want].len = len;
                model[want].findable = 1;
                model[want].coll = coll;
                if (coll >= 0)
                    coll_table[coll] = want;
            }
            FK_CHECK(zdem_s2_string_table_count(s) == nmodel, "table count",
                     zdem_s2_string_table_count(s), nmodel);
            got = zdem_find(s, name, len);
            if (got < 0 && fk_s2_probe_limits(s) > before) {
                model[want].findable = 0; /* refused, reported */
                if (coll >= 0)
                    coll_table[coll] = -1;
            } else {
                FK_CHECK(got == want, "table by name", (unsigned)got, (unsigned)want);
            }
        } else {
            zdem_s2_st_clear_all(s);
            model_clear();
            FK_CHECK(zdem_s2_string_table_count(s) == 0, "cleared", 0, 0);
        }
    }
    for (i = 0; i < nmodel; i++) {
        uint32_t len;
        const char *nm = zdem_s2_string_table_name(s, i, &len);
        FK_CHECK(nm && len == model[i].len && memcmp(nm, model[i].name, len) == 0, "table name", i, len);
        if (model[i].findable)
            FK_CHECK(zdem_find(s, model[i].name, model[i].len) == (int)i, "table by name at the end", i, 0);
    }
    if (fk_verbose())
        fprintf(stderr, "names: seed set %u, %u tables, probe_limit %lu\n", set, nmodel,
                (unsigned long)fk_s2_probe_limits(s));
    return 0;
}
