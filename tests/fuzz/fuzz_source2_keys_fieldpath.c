/* libFuzzer target: the value tables of entities and baselines (a hash
 * per table keyed by packed field paths, runtime/source2/source2_entities.c)
 * fed adversarial keys directly: 512 field paths (f, k) whose hashes share
 * their top 12 bits under the run's seed (the built-in one, 1, or any:
 * input byte 0), mixed with paths of every depth from the input. Each put
 * must read back (get) its value, or be refused with a probe_limit warning
 * counted; refused keys read as absent; at the end every key the model
 * holds reads back and the table holds nothing else.
 * Ops: [0..3] put: u16 key (bit 15: colliding set), u8 value; [4] get:
 * u16 key; [5] put a run: u8 start, u8 count of colliding keys; [6] clear
 * the table. */
#define FK_MAX_INPUT 1024u
#include "fuzz_source2_keys.h"

#define NSET 512u
#define NSMALL 4096u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t set_hi[2][NSET];
static const uint64_t set_lo = (uint64_t)2 << 56; /* depth 2 (zdem_s2_fp_pack) */
static int16_t model[NSMALL + NSET]; /* value + 1, 0 = absent */
static uint16_t touched[FK_MAX_INPUT * 64u]; /* slots put, in order (repeats too) */
static uint32_t ntouched;

static void make_sets(void)
{
    unsigned k;
    for (k = 0; k < 2; k++) {
        s2_fphash h;
        uint64_t want;
        uint32_t f, i, n = 0;
        zdem_s2_fphash_init(&h, fk_state_seed(k));
        want = zdem_s2_fphash_key(&h, 0, set_lo) >> 52;
        for (f = 0; n < NSET; f++)
            for (i = 0; i < 16384u && n < NSET; i++) {
                uint64_t hi = (uint64_t)f << 48 | (uint64_t)i << 32;
                if (zdem_s2_fphash_key(&h, hi, set_lo) >> 52 == want)
                    set_hi[k][n++] = hi;
            }
    }
}

/* Key of model slot sl: a small id names a path of depth 1..7 (distinct
 * for distinct ids); the rest are the colliding set. */
static void key_of(unsigned set, uint32_t sl, uint64_t *hi, uint64_t *lo)
{
    zdem_s2_fp fp;
    unsigned i;
    if (sl >= NSMALL) {
        *hi = set_hi[set][sl - NSMALL];
        *lo = set_lo;
        return;
    }
    memset(&fp, 0, sizeof fp);
    fp.depth = (uint8_t)(1u + sl % 7u);
    fp.path[0] = (uint16_t)(sl / 7u);
    for (i = 1; i < fp.depth; i++)
        fp.path[i] = (uint16_t)((sl * 40503u + i * 977u) & 0xFFFFu);
    zdem_s2_fp_pack(&fp, hi, lo);
}

static int get(const zdem_s2_state *s, const s2_vtab *v, unsigned set, uint32_t sl)
{
    uint64_t hi, lo, a = 0;
    key_of(set, sl, &hi, &lo);
    return zdem_s2_vt_get(s, v, hi, lo, &a) ? (int)a + 1 : 0;
}

static void put(zdem_s2_state *s, s2_vtab *v, unsigned set, uint32_t sl, unsigned val)
{
    uint64_t hi, lo;
    uint32_t before = fk_s2_probe_limits(s);
    int r;
    key_of(set, sl, &hi, &lo);
    r = zdem_s2_vt_put(s, v, hi, lo, val);
    FK_CHECK(r != 0, "arena full", sl, 0);
    if (r < 0) {
        FK_CHECK(fk_s2_probe_limits(s) > before, "refused, not reported", sl, before);
        FK_CHECK(!model[sl], "a key the table held was refused", sl, 0);
        FK_CHECK(get(s, v, set, sl) == 0, "a refused key reads back", sl, 0);
        return;
    }
    model[sl] = (int16_t)(val + 1);
    touched[ntouched++] = (uint16_t)sl;
    FK_CHECK(get(s, v, set, sl) == model[sl], "value read back", sl, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    fk_in in;
    zdem_s2_state *s;
    s2_vtab v;
    unsigned set;
    uint64_t seed;
    uint32_t i, n;
    if (!ready) {
        make_sets();
        ready = 1;
    }
    fk_in_init(&in, data, size);
    seed = fk_seed(&in, &set);
    if (!(s = fk_s2_state(seed, NULL, NULL)))
        return 0;
    memset(model, 0, sizeof model);
    ntouched = 0;
    memset(&v, 0, sizeof v);
    while (fk_more(&in)) {
        unsigned op = fk_u8(&in) % 7u, key;
        if (op < 5) {
            key = fk_u16(&in);
            key = key & 0x8000u ? NSMALL + key % NSET : key % NSMALL;
            if (op < 4)
                put(s, &v, set, key, fk_u8(&in));
            else
                FK_CHECK(get(s, &v, set, key) == model[key], "get", key, 0);
        } else if (op == 5) {
            unsigned a = fk_u8(&in), c = fk_u8(&in) % 64u, j;
            for (j = 0; j < c; j++)
                put(s, &v, set, NSMALL + (a * 2u + j) % NSET, (a + j) & 0xFFu);
        } else {
            zdem_s2_vt_clear(s, &v);
            for (i = 0; i < ntouched; i++)
                model[touched[i]] = 0;
            ntouched = 0;
        }
    }
    /* every key put since the last clear reads back; counted once each */
    for (i = n = 0; i < ntouched; i++) {
        uint32_t sl = touched[i];
        if (model[sl] > 0) {
            FK_CHECK(get(s, &v, set, sl) == model[sl], "value at the end", sl, 0);
            model[sl] = (int16_t)-model[sl];
            n++;
        }
    }
    FK_CHECK(v.count == n, "value count", v.count, n);
    if (fk_verbose())
        fprintf(stderr, "fieldpath: seed set %u, %lu values, probe_limit %lu\n", set,
                (unsigned long)n, (unsigned long)fk_s2_probe_limits(s));
    zdem_s2_vt_clear(s, &v);
    return 0;
}
