/* Source 2 clips round trip (zdem_s2_writer_cut): for every Source 2
 * corpus demo (or the files given as arguments: test_source2_cut_craft.sh
 * gives a synthetic demo with a full packet every 100 ticks) and at least
 * 20 ranges each (the whole file, then seeded random ones), the clip read
 * back gives what the original gives:
 *  - every string table (name; each entry's index, key and value) and the
 *    whole entity state (every live entity: index, class, serial, in
 *    or out of the PVS, every property and value) at start (the clip run
 *    and the original's, each stopped there) and at the clip's last tick;
 *  - every entity change (tick, entity, kind, the changed properties'
 *    values) and every game event, chat line and combat-log entry (tick,
 *    name, every key) after the clip's first tick, up to end, and the
 *    signon's events (tick -1), in order;
 *  - for the whole file, the original's playback values in the clip's
 *    DEM_FileInfo;
 *  - no damage and no DEM_Stop missing: the clip reads clean.
 * The clip starts at the nearest DEM_FullPacket at or before start (the
 * demo's first game frame when there is none after it), so its first
 * tick is at or before start: a clip from a full packet is not compared
 * at that tick, as the full packet restates every entity, which the
 * original does not (one from the first game frame is, from the start). A cut of a clip
 * equals the cut of the original, byte for byte. A truncated original:
 * the cut returns the fault the reader gives, and its clip reads clean. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "source2_state.h"
#include "source2_write.h"
#include "source2_pb.h"
#include "zdem_test.h"
#include "cut_out.h"

typedef struct rec {
    int64_t tick;
    char kind; /* E entity change, V event */
    uint64_t h;
} rec;

typedef struct log {
    rec *r;
    size_t n, cap;
    int64_t stop;   /* ticks past it are not logged */
} log;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

static uint64_t value_hash(uint64_t h, const zdem_s2_value *v)
{
    h = fnv(h, &v->kind, 1);
    if (v->kind == ZDEM_S2_V_STRING)
        return fnv(h, v->s, v->len);
    if (v->kind == ZDEM_S2_V_VEC)
        return fnv(h, v->v.f, 4u * v->n);
    if (v->kind == ZDEM_S2_V_FLOAT)
        return fnv(h, v->v.f, 4);
    return fnv(h, &v->v.u, 8);
}

static void add(log *l, int64_t tick, char kind, uint64_t h)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4096;
        l->r = realloc(l->r, l->cap * sizeof *l->r);
    }
    l->r[l->n].tick = tick;
    l->r[l->n].kind = kind;
    l->r[l->n].h = h;
    l->n++;
}

static zdem_status on_entity(void *user, zdem_s2_state *s, const zdem_s2_entity *e, unsigned ops,
                             const zdem_s2_fp *changed, uint32_t nchanged)
{
    log *l = user;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    uint32_t i;
    int64_t t = zdem_s2_state_tick(s);
    if (t > l->stop)
        return ZDEM_OK;
    h = fnv(h, &e->index, sizeof e->index);
    h = fnv(h, &e->class_id, sizeof e->class_id);
    h = fnv(h, &e->serial, sizeof e->serial);
    h = fnv(h, &ops, sizeof ops);
    for (i = 0; i < nchanged; i++) {
        zdem_s2_value v;
        h = fnv(h, changed[i].path, 2u * changed[i].depth);
        if (zdem_s2_entity_prop_fp(s, e->index, &changed[i], &v))
            h = value_hash(h, &v);
    }
    add(l, t, 'E', h);
    return ZDEM_OK;
}

static zdem_status on_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    log *l = user;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    uint32_t i;
    (void)s;
    if (ev->tick > l->stop)
        return ZDEM_OK;
    h = fnv(h, &ev->type, sizeof ev->type);
    h = fnv(h, ev->name, ev->name_len);
    for (i = 0; i < ev->nkeys; i++) {
        h = fnv(h, ev->keys[i].name, ev->keys[i].name_len);
        h = value_hash(h, &ev->keys[i].value);
    }
    add(l, ev->tick, 'V', h);
    return ZDEM_OK;
}

static int prop_cb(void *user, const char *name, size_t name_len, const zdem_s2_value *v)
{
    uint64_t *h = user;
    *h = fnv(*h, name, name_len);
    *h = value_hash(*h, v);
    return 0;
}

static uint64_t tmp[1u << 16];

static int entry_cb(void *user, uint32_t index, const uint8_t *key, uint32_t key_len,
                    const uint8_t *val, uint32_t val_len)
{
    uint64_t *h = user;
    *h = fnv(*h, &index, sizeof index);
    *h = fnv(*h, &key_len, sizeof key_len);
    *h = fnv(*h, key, key ? key_len : 0);
    *h = fnv(*h, &val_len, sizeof val_len);
    *h = fnv(*h, val, val ? val_len : 0);
    return 0;
}

/* Every string table (name, entries: index, key, value), every live
 * entity and its properties. */
static uint64_t state_hash(zdem_s2_state *s)
{
    static uint32_t live[16384];
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    uint32_t n = zdem_s2_entities_live(s, live, 16384), i, nt = zdem_s2_string_table_count(s);
    zdem_error e;
    for (i = 0; i < nt; i++) {
        uint32_t len = 0;
        const char *name = zdem_s2_string_table_name(s, i, &len);
        h = fnv(h, name, name ? len : 0);
        zdem_error_clear(&e);
        CHECK_EQ_INT(zdem_s2_string_table_each(s, i, entry_cb, &h, (uint32_t *)tmp,
                                               2u * (sizeof tmp / 8), &e), ZDEM_OK);
    }
    for (i = 0; i < n && i < 16384; i++) {
        zdem_s2_entity ent;
        if (!zdem_s2_entity_get(s, (int32_t)live[i], &ent))
            continue;
        h = fnv(h, &ent.index, sizeof ent.index);
        h = fnv(h, &ent.class_id, sizeof ent.class_id);
        h = fnv(h, &ent.serial, sizeof ent.serial);
        h = fnv(h, &ent.active, sizeof ent.active);
        zdem_error_clear(&e);
        (void)zdem_s2_entity_props(s, (int32_t)live[i], prop_cb, &h, tmp, sizeof tmp / 8, &e);
    }
    return h;
}

static void *arena;
static size_t arena_size = (size_t)96 << 20;

static zdem_s2_state *fresh(log *l)
{
    zdem_s2_config cfg;
    zdem_s2_state *s = NULL;
    zdem_error e;
    zdem_s2_config_default(&cfg);
    cfg.frame_buffer = (size_t)4 << 20;
    cfg.tmp_size = 4u << 20;
    cfg.gather_buffer = 0;
    cfg.user = l;
    cfg.on_entity = l ? on_entity : NULL;
    cfg.on_event = l ? on_event : NULL;
    zdem_error_clear(&e);
    if (zdem_s2_state_init(&s, arena, arena_size, &cfg, &e) != ZDEM_OK)
        return NULL;
    return s;
}

/* A run over a file up to stop (-1: all): its state hash at the end, its
 * log (NULL: none), its result. */
static zdem_status run(const uint8_t *d, size_t n, int64_t stop, log *l, uint64_t *h,
                       zdem_error *err)
{
    zdem_s2_state *s;
    zdem_status st;
    if (l) {
        memset(l, 0, sizeof *l);
        l->stop = stop < 0 ? INT64_MAX : stop;
    }
    s = fresh(l);
    if (!CHECK(s != NULL))
        return ZDEM_ERR_NO_SPACE;
    zdem_error_clear(err);
    st = zdem_s2_state_run(s, d, n, stop, err);
    if (h)
        *h = state_hash(s);
    return st;
}


static zdem_status cut(const uint8_t *d, size_t n, int64_t a, int64_t b, out *o,
                       zdem_s2_cut_info *info, zdem_error *err)
{
    zdem_s2_state *s = fresh(NULL);
    o->n = 0;
    zdem_error_clear(err);
    if (!CHECK(s != NULL))
        return ZDEM_ERR_NO_SPACE;
    return zdem_s2_writer_cut(s, d, n, a, b, to_out, o, info, err);
}

/* The playback values the clip's DEM_FileInfo holds. */
static int file_info(const uint8_t *d, size_t n, zdem_pb_CDemoFileInfo *fi)
{
    zdem_s2_header hdr;
    zdem_s2_outer m;
    zdem_error e;
    size_t next;
    zdem_error_clear(&e);
    return zdem_s2_read_header(d, n, &hdr, &e) == ZDEM_OK && hdr.fileinfo_offset < n &&
           zdem_s2_read_frame(d, n, hdr.fileinfo_offset, &m, &next, &e) == 1 &&
           m.cmd == ZDEM_S2_DEM_FILEINFO &&
           zdem_pb_CDemoFileInfo_decode(m.stored, m.stored_size, fi, NULL, NULL, &e) == ZDEM_OK;
}

static unsigned long ranges, from_full, compared;

static void check_range(const char *name, const uint8_t *d, size_t n, const log *orig,
                        zdem_status ost, const zdem_error *oerr, int64_t a, int64_t b, out *o)
{
    zdem_s2_cut_info info;
    zdem_error err, ce;
    zdem_status st, cst;
    log clip;
    uint64_t ha = 0, hb = 0, ca = 0, cb_ = 0;
    int64_t lo;
    size_t i, j;
    st = cut(d, n, a, b, o, &info, &err);
    ranges++;
    from_full += (unsigned long)info.from_full_packet;
    if (st != ZDEM_OK && !CHECK(ost != ZDEM_OK && st == ost && err.offset == oerr->offset))
        printf("  %s [%lld, %lld]: cut fault %s at %llu, the reader's %s\n", name, (long long)a,
               (long long)b, err.msg ? err.msg : "?", (unsigned long long)err.offset,
               oerr->msg ? oerr->msg : "none");
    cst = run(o->d, o->n, -1, &clip, &cb_, &ce);
    if (!CHECK_EQ_INT(cst, ZDEM_OK))
        printf("  %s [%lld, %lld]: clip fault %s at %llu\n", name, (long long)a, (long long)b,
               ce.msg ? ce.msg : "?", (unsigned long long)ce.offset);
    {
        /* the clip's DEM_FileInfo counts its DEM_Packet frames; a clip
         * that keeps every game frame (a whole range, or one that happens
         * to cover them all) keeps the demo's own count, as recorders
         * differ on whether full packets count (the caller checks the
         * whole demo's) */
        zdem_s2_reader r;
        zdem_s2_outer m;
        zdem_pb_CDemoFileInfo fi, ofi;
        zdem_error e;
        int32_t packets = 0, opackets = 0;
        zdem_error_clear(&e);
        zdem_s2_reader_init(&r, o->d, o->n);
        while (zdem_s2_next(&r, &m, &e) == 1)
            packets += m.cmd == ZDEM_S2_DEM_PACKET;
        zdem_error_clear(&e);
        zdem_s2_reader_init(&r, d, n);
        while (zdem_s2_next(&r, &m, &e) == 1)
            opackets += m.cmd == ZDEM_S2_DEM_PACKET;
        if (CHECK(file_info(o->d, o->n, &fi)) && (a != INT64_MIN || b != INT64_MAX)) {
            if (fi.playback_frames != packets && packets == opackets && file_info(d, n, &ofi))
                CHECK_EQ_INT(fi.playback_frames, ofi.playback_frames);
            else
                CHECK_EQ_INT(fi.playback_frames, packets);
        }
    }
    if (!info.started) {
        free(clip.r);
        return;
    }
    /* the state at start, and at the clip's end */
    if (a >= info.first_tick && a <= info.last_tick) {
        (void)run(d, n, a, NULL, &ha, &ce);
        (void)run(o->d, o->n, a, NULL, &ca, &ce);
        if (!CHECK(ha == ca))
            printf("  %s [%lld, %lld]: state at %lld differs\n", name, (long long)a, (long long)b,
                   (long long)a);
    }
    (void)run(d, n, info.last_tick, NULL, &hb, &ce);
    if (!CHECK(hb == cb_))
        printf("  %s [%lld, %lld]: state at the clip's end (%lld) differs\n", name, (long long)a,
               (long long)b, (long long)info.last_tick);
    /* changes and events after the first tick, and the signon's events;
     * a clip from the demo's first game frame is compared from the start
     * (its first tick included) */
    lo = info.from_full_packet ? info.first_tick : INT64_MIN;
    for (i = 0, j = 0;;) {
        while (i < orig->n && !((orig->r[i].tick > lo && orig->r[i].tick <= info.last_tick) ||
                                (orig->r[i].tick < 0 && orig->r[i].kind == 'V')))
            i++;
        while (j < clip.n && !((clip.r[j].tick > lo && clip.r[j].tick <= info.last_tick) ||
                               (clip.r[j].tick < 0 && clip.r[j].kind == 'V')))
            j++;
        if (i >= orig->n || j >= clip.n)
            break;
        if (orig->r[i].tick != clip.r[j].tick || orig->r[i].kind != clip.r[j].kind ||
            orig->r[i].h != clip.r[j].h)
            break;
        i++;
        j++;
        compared++;
    }
    while (i < orig->n && !(orig->r[i].tick > lo && orig->r[i].tick <= info.last_tick))
        i++;
    if (!CHECK(i >= orig->n && j >= clip.n))
        printf("  %s [%lld, %lld]: differs at original record %zu (tick %lld %c), clip %zu of %zu (tick %lld %c)\n",
               name, (long long)a, (long long)b, i, i < orig->n ? (long long)orig->r[i].tick : -9LL,
               i < orig->n ? orig->r[i].kind : '-', j, clip.n,
               j < clip.n ? (long long)clip.r[j].tick : -9LL, j < clip.n ? clip.r[j].kind : '-');
    free(clip.r);
}

static void check_demo(const char *name, const uint8_t *d, size_t n)
{
    log orig;
    zdem_error oerr;
    zdem_status ost;
    int64_t *ticks = NULL;
    size_t nt = 0, i;
    uint64_t seed = 0x9e3779b97f4a7c15u;
    out o = {NULL, 0, 0}, o2 = {NULL, 0, 0}, o3 = {NULL, 0, 0};
    int k;
    for (i = 0; name[i]; i++)
        seed = (seed ^ (uint8_t)name[i]) * UINT64_C(0x100000001b3);
    ost = run(d, n, -1, &orig, NULL, &oerr);
    CHECK_EQ_INT(ost, ZDEM_OK);
    {
        zdem_s2_reader r;
        zdem_s2_outer m;
        zdem_s2_header hdr;
        zdem_error e;
        zdem_error_clear(&e);
        zdem_s2_read_header(d, n, &hdr, &e);
        zdem_s2_reader_init(&r, d, n);
        while (zdem_s2_next(&r, &m, &e) == 1)
            if (m.cmd == ZDEM_S2_DEM_PACKET) {
                ticks = realloc(ticks, (nt + 1) * sizeof *ticks);
                ticks[nt++] = m.tick;
            }
    }
    if (!CHECK(nt > 10))
        goto out;
    /* the whole file: the original's playback values */
    check_range(name, d, n, &orig, ost, &oerr, INT64_MIN, INT64_MAX, &o);
    {
        zdem_pb_CDemoFileInfo a, b;
        if (CHECK(file_info(d, n, &a) && file_info(o.d, o.n, &b))) {
            CHECK_EQ_INT(b.playback_ticks, a.playback_ticks);
            CHECK_EQ_INT(b.playback_frames, a.playback_frames);
            CHECK(b.playback_time == a.playback_time);
        }
    }
    for (k = 0; k < 21; k++) {
        int64_t a = ticks[zt_rand(&seed) % nt], b = ticks[zt_rand(&seed) % nt];
        if (a > b) {
            int64_t t = a;
            a = b;
            b = t;
        }
        if (k % 7 == 3)
            b = a;
        check_range(name, d, n, &orig, ost, &oerr, a, b, &o);
        if (k % 5 == 0 && o.n > 0) { /* a cut of the clip equals the cut of the original */
            zdem_s2_cut_info info;
            zdem_error err;
            int64_t a2 = a + (int64_t)(zt_rand(&seed) % (uint64_t)(b - a + 1));
            int64_t b2 = b - (int64_t)(zt_rand(&seed) % (uint64_t)(b - a2 + 1));
            cut(o.d, o.n, a2, b2, &o2, &info, &err);
            cut(d, n, a2, b2, &o3, &info, &err);
            if (!CHECK(o2.n == o3.n && memcmp(o2.d, o3.d, o2.n) == 0))
                printf("  %s: cut of [%lld, %lld] at [%lld, %lld]: %zu bytes, the original's %zu\n",
                       name, (long long)a, (long long)b, (long long)a2, (long long)b2, o2.n, o3.n);
        }
    }
    /* truncated originals: the cut stops where the reader does */
    for (k = 0; k < 2; k++) {
        size_t at = n / 2 + (size_t)(zt_rand(&seed) % (n / 2));
        log tl;
        zdem_error te;
        zdem_status tst = run(d, at, -1, &tl, NULL, &te);
        CHECK(tst != ZDEM_OK);
        check_range(name, d, at, &tl, tst, &te, ticks[zt_rand(&seed) % nt], INT64_MAX, &o);
        free(tl.r);
    }
out:
    free(ticks);
    free(orig.r);
    free(o.d);
    free(o2.d);
    free(o3.d);
}

int main(int argc, char **argv)
{
    static const char *const corpus[] = {
        "cs2_demofile-net-gotv-14011-cs-italy.dem", "cs2_demofile-net-gotv-14065-de-nuke.dem",
        "cs2_demofile-net-gotv-14090-cs-italy.dem", "cs2_demofile-net-gotv-14132-de-ancient.dem",
        "cs2_demofile-net-gotv-14150-ag2-de-train.dem", "cs2_demofile-net-gotv-14155-de-dust2.dem",
        "cs2_demofile-net-gotv-14160-de-dust2.dem", "deadlock_demofile-net-hltv-10423-dl-midtown.dem",
        "dota2_haste-nekit-pov.dem"};
    int i, n = argc > 1 ? argc - 1 : (int)(sizeof corpus / sizeof corpus[0]);
    arena = malloc(arena_size);
    if (!CHECK(arena != NULL))
        return zt_finish();
    for (i = 0; i < n; i++) {
        char rel[512];
        size_t size = 0;
        uint8_t *d;
        int before = zt_failed;
        if (argc > 1) {
            d = zt_read_file(argv[i + 1], &size);
        } else {
            snprintf(rel, sizeof rel, "source2/%s", corpus[i]);
            d = zt_read_file(zt_corpus_path(rel), &size);
        }
        if (!CHECK(d != NULL))
            continue;
        check_demo(argc > 1 ? argv[i + 1] : corpus[i], d, size);
        if (zt_failed != before)
            printf("FAILED: %s\n", argc > 1 ? argv[i + 1] : corpus[i]);
        free(d);
    }
    printf("%lu ranges, %lu from a full packet after the start, %lu changes and events compared\n",
           ranges, from_full, compared);
    free(arena);
    return zt_finish();
}
