/* libFuzzer target: Teeworlds snapshot items by key (a key-sorted index,
 * runtime/teeworlds/teeworlds_snap.c) fed adversarial key sets directly,
 * as full snapshots and deltas of int arrays: keys from a pool of 1024
 * that share one slot of the multiply-shift hash the reader used before
 * (2048 and 256 slots: the default and the small item limits), 1024 in
 * descending order (every insertion at the front of the index) and 2048
 * others, at the default limits or the small ones (input byte 0). A plain
 * model (the game's rules over arrays, keys by pool index) applies the
 * same snapshots and deltas: after each, the reader's snapshot must equal
 * the model's item by item (key, size, data, order), every key must be
 * found at its item and absent keys not, a refused snapshot or delta must
 * leave the previous one, and the items a delta wrote must be listed.
 * Ops: [0] full snapshot: u8 count, then per item u16 pool key, u8 size;
 * [1] full snapshot of a pool range: u16 start, u16 count, u8 flags (bit
 * 0 descending, bit 1 one data int); [2..4] delta: u8 removed, u8 items,
 * removed pool keys (u16), items (u16 pool key, u8 size, u8 diff seed).
 * At most 8 ops an input. */
#define FK_MAX_INPUT 768u
#define MAX_OPS 8u /* a 1024-item snapshot costs ~100k instructions: runs stay short */
#include "fuzz_keys.h"
#include "teeworlds_reader.h"

#define POOL 4096u
#define FIB 2654435761u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t pool[POOL];
static zdem_tw_snapstate st;
static uint32_t st_mem[ZDEM_TW_SNAP_MEM(ZDEM_TW_SNAP_MAX_ITEMS, ZDEM_TW_SNAP_MAX_INTS) / 4 + 1];
static int32_t ints[ZDEM_TW_SNAP_MAX_INTS * 2 + 4096];

/* The model: a snapshot as arrays, pool index per item. */
typedef struct msnap {
    uint32_t n, used;
    uint16_t pid[ZDEM_TW_SNAP_MAX_ITEMS], len[ZDEM_TW_SNAP_MAX_ITEMS], off[ZDEM_TW_SNAP_MAX_ITEMS];
    int32_t data[ZDEM_TW_SNAP_MAX_INTS];
    int16_t at[POOL]; /* item of a pool key, -1 absent */
} msnap;

static msnap mbuf[2];
static msnap *mcur = &mbuf[0], *mnext = &mbuf[1];
static uint32_t max_items, max_ints;
static uint16_t written[ZDEM_TW_SNAP_MAX_ITEMS * 2];
static uint32_t nwritten;

static void make_pool(void)
{
    const uint32_t inv = 0x0E8B2F51u; /* 2654435761^-1 mod 2^32 */
    uint32_t i, r = 0;
    for (i = 0; i < 1024u;) {
        uint32_t key = (((uint32_t)0x2BAu << 21) | r++) * inv;
        if ((key >> 16) >= 0x100u && (key >> 16) <= 0x7FFFu)
            pool[i++] = key;
    }
    for (i = 0; i < 1024u; i++)
        pool[1024u + i] = (uint32_t)0x7000u << 16 | (0xFFFFu - i);
    for (i = 0; i < 2048u; i++)
        pool[2048u + i] = (0x200u + i) << 16 | ((i * 7919u) & 0xFFFFu);
    for (i = 0; i < 1024u; i++) /* one slot of 2048, and so of 256 */
        FK_CHECK((uint32_t)(((uint64_t)(pool[i] * FIB) * 2048u) >> 32) ==
                     (uint32_t)(((uint64_t)(pool[0] * FIB) * 2048u) >> 32), "colliding pool", i, 0);
}

/* Empties m: its keys' places forgotten one by one (no 8 KiB clear). */
static void msnap_clear(msnap *m)
{
    uint32_t i;
    for (i = 0; i < m->n; i++)
        m->at[m->pid[i]] = -1;
    m->n = m->used = 0;
}

static void model_swap(void)
{
    msnap *t = mcur;
    mcur = mnext;
    mnext = t;
}

static size_t wire(uint32_t items, uint32_t nints) { return 8u + 8u * (size_t)items + 4u * (size_t)nints; }

/* Adds an item to m (the game's bounds and the limits); 0 when refused. */
static int madd(msnap *m, uint16_t pid, uint32_t len)
{
    if (m->n >= max_items || len > max_ints - m->used || wire(m->n + 1, m->used + len) > 65536u)
        return 0;
    m->pid[m->n] = pid;
    m->len[m->n] = (uint16_t)len;
    m->off[m->n] = (uint16_t)m->used;
    m->at[pid] = (int16_t)m->n;
    m->used += len;
    m->n++;
    return 1;
}

static void check_find(uint32_t i)
{
    const zdem_tw_snap *z = zdem_tw_snap_current(&st);
    FK_CHECK(zdem_tw_snap_find(z, z->key[i]) == (int)i, "item found by key", i, z->key[i]);
}

/* The reader's slots in item order (zslot[model index]). */
static uint16_t zslot[ZDEM_TW_SNAP_MAX_ITEMS];

/* The reader's snapshot against the model's, item by item in order; lookups
 * by key for every item when `all`, else for a rotating sample of 16 (the
 * items a delta wrote are looked up where it applies). */
static void compare(int all)
{
    static uint32_t turn;
    const zdem_tw_snap *z = zdem_tw_snap_current(&st);
    uint32_t i, k, x, back = ZDEM_TW_SNAP_END;
    FK_CHECK(z->num_items == mcur->n, "item count", z->num_items, mcur->n);
    for (i = 0, x = zdem_tw_snap_first(z); i < mcur->n; i++, x = zdem_tw_snap_next(z, x)) {
        const int32_t *d;
        FK_CHECK(x != ZDEM_TW_SNAP_END && x < max_items, "item order ends early", i, x);
        FK_CHECK(z->prev[x] == back, "item order links", i, x);
        back = x;
        zslot[i] = (uint16_t)x;
        d = zdem_tw_snap_data(z, x);
        FK_CHECK(z->key[x] == pool[mcur->pid[i]], "item key", i, z->key[x]);
        FK_CHECK(z->len[x] == mcur->len[i], "item size", i, z->len[x]);
        for (k = 0; k < mcur->len[i]; k++)
            FK_CHECK(d[k] == mcur->data[mcur->off[i] + k], "item data", i, k);
    }
    FK_CHECK(x == ZDEM_TW_SNAP_END && z->tail == back, "item order ends", x, z->tail);
    for (i = 0; mcur->n && i < (all ? mcur->n : 16u); i++)
        check_find(zslot[all ? i : (turn++ * 40503u) % mcur->n]);
}

static void check_absent(uint32_t pid)
{
    if (mcur->at[pid] < 0)
        FK_CHECK(zdem_tw_snap_find(zdem_tw_snap_current(&st), pool[pid]) < 0, "absent key found", pid, 0);
}

static uint16_t pool_key(fk_in *in) { return (uint16_t)(fk_u16(in) % POOL); }

/* A full snapshot of the listed items: the reader and the model. */
static void full(const uint16_t *pid, const uint8_t *len, uint32_t n)
{
    uint32_t i, k, p, pos = 0, ok = 1;
    zdem_error err;
    zdem_status zs;
    ints[1] = (int32_t)n;
    p = 2u + n;
    for (i = 0; i < n; i++) {
        ints[2 + i] = (int32_t)pos;
        ints[p++] = (int32_t)pool[pid[i]];
        for (k = 0; k < len[i]; k++)
            ints[p++] = (int32_t)(pid[i] * 31u + k);
        pos += 4u * (1u + len[i]);
    }
    ints[0] = (int32_t)pos;
    msnap_clear(mnext);
    if (n > ZDEM_TW_SNAP_MAX_ITEMS || pos > 65536u || n > max_items)
        ok = 0;
    for (i = 0; ok && i < n; i++) {
        if (mnext->at[pid[i]] >= 0 || !madd(mnext, pid[i], len[i]))
            ok = 0;
        else
            for (k = 0; k < len[i]; k++)
                mnext->data[mnext->off[mnext->n - 1] + k] = (int32_t)(pid[i] * 31u + k);
    }
    zdem_error_clear(&err);
    zs = zdem_tw_snap_load_full(&st, ints, p, &err);
    FK_CHECK((zs == ZDEM_OK) == ok, "full snapshot accepted or refused as the model", zs, ok);
    if (ok)
        model_swap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    static uint16_t pid[ZDEM_TW_SNAP_MAX_ITEMS + 64];
    static uint8_t len[ZDEM_TW_SNAP_MAX_ITEMS + 64];
    fk_in in;
    uint32_t i, nops;
    if (!ready) {
        make_pool();
        memset(mbuf[0].at, 0xFF, sizeof mbuf[0].at); /* then kept by msnap_clear */
        memset(mbuf[1].at, 0xFF, sizeof mbuf[1].at);
        ready = 1;
    }
    fk_in_init(&in, data, size);
    if (fk_u8(&in) & 1u) {
        max_items = 128;
        max_ints = 1024;
    } else {
        max_items = ZDEM_TW_SNAP_MAX_ITEMS;
        max_ints = ZDEM_TW_SNAP_MAX_INTS;
    }
    if (zdem_tw_snap_setup(&st, max_items, max_ints, st_mem, sizeof st_mem, NULL) != ZDEM_OK)
        return 0;
    zdem_tw_snap_init(&st, zdem_tw_static_sizes, ZDEM_TW_NUM_STATIC_SIZES);
    msnap_clear(mcur);
    msnap_clear(mnext);
    for (nops = 0; fk_more(&in) && nops < MAX_OPS; nops++) {
        unsigned op = fk_u8(&in) % 5u;
        int compared = 0;
        if (op == 0) {
            uint32_t n = fk_u8(&in);
            for (i = 0; i < n; i++) {
                pid[i] = pool_key(&in);
                len[i] = (uint8_t)(fk_u8(&in) % 6u);
            }
            full(pid, len, n);
        } else if (op == 1) {
            uint32_t start = fk_u16(&in) % POOL, n = fk_u16(&in) % (ZDEM_TW_SNAP_MAX_ITEMS + 33u);
            unsigned flags = fk_u8(&in);
            for (i = 0; i < n; i++) {
                uint32_t j = flags & 1u ? n - 1u - i : i;
                pid[i] = (uint16_t)((start + j) % POOL);
                len[i] = (uint8_t)((flags >> 1) & 1u);
            }
            full(pid, len, n);
        } else {
            uint32_t nr = fk_u8(&in) % 16u, nd = fk_u8(&in) % 48u, p = 3, k, ok = 1;
            uint16_t rem[16];
            zdem_error err;
            zdem_status zs;
            const uint16_t *zw;
            int all;
            ints[0] = (int32_t)nr;
            ints[1] = (int32_t)nd;
            ints[2] = 0;
            for (i = 0; i < nr; i++) {
                rem[i] = pool_key(&in);
                ints[p++] = (int32_t)pool[rem[i]];
            }
            /* the model: kept items in order, then each delta item */
            msnap_clear(mnext);
            for (i = 0; i < mcur->n; i++) {
                uint32_t r, removed = 0;
                for (r = 0; r < nr; r++)
                    removed |= rem[r] == mcur->pid[i];
                if (removed)
                    continue;
                madd(mnext, mcur->pid[i], mcur->len[i]);
                memcpy(mnext->data + mnext->off[mnext->n - 1], mcur->data + mcur->off[i],
                       4u * mcur->len[i]);
            }
            nwritten = 0;
            for (i = 0; i < nd; i++) {
                uint16_t q = pool_key(&in);
                unsigned want = fk_u8(&in), ds = fk_u8(&in);
                int32_t at_from = mcur->at[q], at_to = mnext->at[q];
                uint32_t l = want & 0x80u && at_from >= 0 ? mcur->len[at_from] : want % 6u;
                ints[p++] = (int32_t)(pool[q] >> 16);
                ints[p++] = (int32_t)(pool[q] & 0xFFFFu);
                ints[p++] = (int32_t)l; /* pool types have no pre-agreed size */
                for (k = 0; k < l; k++)
                    ints[p++] = (int32_t)(ds * 7u + k);
                if (!ok)
                    continue;
                if (at_to < 0) {
                    if (!madd(mnext, q, l)) {
                        ok = 0;
                        continue;
                    }
                    at_to = (int32_t)mnext->n - 1;
                } else if (mnext->len[at_to] != l) {
                    ok = 0;
                    continue;
                }
                if (at_from >= 0 && mcur->len[at_from] != l) {
                    ok = 0;
                    continue;
                }
                for (k = 0; k < l; k++)
                    mnext->data[mnext->off[at_to] + k] =
                        (int32_t)((uint32_t)(at_from >= 0 ? mcur->data[mcur->off[at_from] + k] : 0) +
                                  (uint32_t)(ds * 7u + k));
                written[nwritten++] = (uint16_t)at_to;
            }
            zdem_error_clear(&err);
            zs = zdem_tw_snap_apply_delta(&st, ints, p, &err);
            FK_CHECK((zs == ZDEM_OK) == ok, "delta accepted or refused as the model", zs, ok);
            if (ok && (nr || nd)) {
                uint32_t nw = zdem_tw_snap_written(&st, &zw, &all), from, nrem, nadd, first, mrem = 0;
                const uint32_t *rkey;
                const uint16_t *rslot;
                for (i = 0; i < mcur->n; i++) { /* the model's removed items */
                    uint32_t r;
                    for (r = 0; r < nr && rem[r] != mcur->pid[i]; r++)
                        ;
                    mrem += r < nr;
                }
                model_swap();
                compare(0); /* this op's, and zslot[] for the new snapshot */
                compared = 1;
                FK_CHECK(zdem_tw_snap_changes(&st, &from, &rkey, &rslot, &nrem, &nadd, &first),
                         "delta told item by item", 0, 0);
                FK_CHECK(nrem == mrem && nadd == mcur->n - (mnext->n - mrem), "removed and added",
                         nrem, nadd);
                FK_CHECK(nadd == 0 || first == zslot[mcur->n - nadd], "first added", first, nadd);
                for (k = 0; k < nrem; k++) { /* a removed key the old snapshot held */
                    uint32_t r;
                    for (r = 0; r < nr && !(pool[rem[r]] == rkey[k] && mnext->at[rem[r]] >= 0); r++)
                        ;
                    FK_CHECK(r < nr && rslot[k] < max_items, "removed key", k, rkey[k]);
                }
                if (!all) {
                    FK_CHECK(nw == nwritten, "written count", nw, nwritten);
                    for (k = 0; k < nw; k++) {
                        FK_CHECK(zw[k] == zslot[written[k]], "written item", k, zw[k]);
                        check_find(zw[k]);
                    }
                }
            } else if (ok) {
                FK_CHECK(zdem_tw_snap_written(&st, &zw, &all) == 0 && !all, "empty delta wrote", 0, 0);
            }
            for (i = 0; i < nr; i++)
                check_absent(rem[i]);
        }
        if (!compared)
            compare(0);
    }
    compare(1);
    if (fk_verbose())
        fprintf(stderr, "snap: max_items %lu, %lu items at the end\n", (unsigned long)max_items,
                (unsigned long)mcur->n);
    return 0;
}
