/* Teeworlds clips round trip (zdem_tw_writer_cut): for every Teeworlds
 * corpus demo and at least 20 ranges each (the whole file, then seeded
 * random ones), the clip read back gives exactly what the original gives
 * over that range: every tick marker's tick, every snapshot after each
 * snapshot or delta chunk (items in order: keys, sizes, data), every
 * message (its chunk and its decoded ints). The original's range is its
 * chunks from the tick marker of the first snapshot at or after the start
 * to the last before the first tick marker past the end. The clip's
 * header: the original's but for its length ((last tick - first tick) /
 * 50, which the reader's end check holds it to) and the timeline markers
 * inside it (written into copies of the demos: none of them has any); the
 * clip reads to its end with no fault. A cut of a clip
 * equals the cut of the original, byte for byte. A truncated original:
 * the cut returns the reader's fault, and its clip (the part before)
 * reads clean (cut inside its header or map: nothing is written). The encoders alone: a full snapshot and a delta between
 * snapshots of the demos, encoded and read back, give the snapshot. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "teeworlds_reader.h"
#include "teeworlds_write.h"
#include "test_teeworlds_common.h"
#include "zdem_test.h"
#include "cut_out.h"

typedef struct rec {
    char kind; /* T tick, S snapshot, M message, U other chunk */
    char full; /* S: a full snapshot chunk (not compared: a clip's first is one) */
    int32_t tick;
    uint64_t h;
} rec;

typedef struct log {
    rec *r;
    size_t n, cap;
    int version;
    int32_t length;
    int32_t markers[64];
    int nmarkers;
} log;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

static void add(log *l, char kind, int32_t tick, uint64_t h)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->r = realloc(l->r, l->cap * sizeof *l->r);
    }
    l->r[l->n].kind = kind;
    l->r[l->n].tick = tick;
    l->r[l->n].h = h;
    l->r[l->n].full = 0;
    l->n++;
}

static uint64_t snap_hash(const zdem_tw_snap *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    uint32_t i;
    h = fnv(h, &s->num_items, sizeof s->num_items);
    for (i = zdem_tw_snap_first(s); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(s, i)) {
        h = fnv(h, &s->key[i], 4);
        h = fnv(h, &s->len[i], 2);
        h = fnv(h, zdem_tw_snap_data(s, i), 4u * s->len[i]);
    }
    return h;
}

static zdem_tw_reader rd;
static void *rd_mem;

/* Reads a demo into a log; returns the reader's status (0 clean, -1 a
 * fault in *e). */
static int read_log(const uint8_t *data, size_t size, log *l, zdem_error *e)
{
    zdem_tw_event ev;
    int rc, i;
    memset(l, 0, sizeof *l);
    zdem_error_clear(e);
    if (zdem_tw_reader_open(&rd, data, size, e) != ZDEM_OK)
        return -1;
    l->version = rd.info.version;
    l->length = rd.info.length;
    l->nmarkers = rd.info.num_timeline_markers;
    for (i = 0; i < l->nmarkers; i++)
        l->markers[i] = rd.info.timeline_markers[i];
    while ((rc = zdem_tw_reader_next(&rd, &ev, e)) == 1) {
        uint64_t h = UINT64_C(0xcbf29ce484222325);
        switch (ev.chunk.kind) {
        case ZDEM_TW_CHUNK_TICK:
            add(l, 'T', ev.chunk.tick, 0);
            break;
        case ZDEM_TW_CHUNK_SNAPSHOT:
        case ZDEM_TW_CHUNK_DELTA:
            if (ev.snap) {
                add(l, 'S', ev.chunk.tick, snap_hash(ev.snap));
                l->r[l->n - 1].full = ev.chunk.kind == ZDEM_TW_CHUNK_SNAPSHOT;
            }
            break;
        case ZDEM_TW_CHUNK_MESSAGE:
            h = fnv(h, ev.chunk.data, ev.chunk.size);
            h = fnv(h, &ev.num_ints, sizeof ev.num_ints);
            add(l, 'M', ev.chunk.tick, h);
            break;
        default:
            add(l, 'U', ev.chunk.tick, fnv(h, ev.chunk.data, ev.chunk.size));
        }
    }
    return rc;
}


static uint8_t *writer_mem;

static zdem_status cut(const uint8_t *data, size_t size, int32_t a, int32_t b, out *o,
                       zdem_tw_cut_info *info, zdem_error *err)
{
    o->n = 0;
    zdem_error_clear(err);
    return zdem_tw_writer_cut(writer_mem, zdem_tw_writer_size(), data, size, a, b, to_out, o,
                              info, err);
}

static unsigned long ranges_checked, whole_written, records_compared, copied_first;

/* The original's log over [a, b] against the clip's. */
static void check_range(const char *demo, const uint8_t *data, size_t size, const log *orig,
                        int orc, const zdem_error *oerr, int32_t a, int32_t b, out *o)
{
    size_t i, lo = orig->n, hi = orig->n, j;
    zdem_tw_cut_info info;
    zdem_error err, cerr;
    zdem_status st;
    log clip;
    int crc, k, kept = 0;
    int32_t last = 0;
    for (i = 0; i < orig->n; i++)
        if (orig->r[i].kind == 'S' && orig->r[i].tick >= a) {
            if (orig->r[i].tick <= b) {
                /* back to its tick marker */
                lo = i;
                while (lo > 0 && orig->r[lo].kind != 'T')
                    lo--;
                if (orig->r[lo].kind != 'T')
                    lo = i;
            }
            break;
        }
    for (hi = lo; hi < orig->n; hi++) {
        if (orig->r[hi].kind == 'T' && hi > lo && orig->r[hi].tick > b)
            break;
        if (orig->r[hi].kind == 'T')
            last = orig->r[hi].tick;
    }
    st = cut(data, size, a, b, o, &info, &err);
    ranges_checked++;
    whole_written += (unsigned long)info.whole;
    copied_first += (unsigned long)(info.started && !info.whole);
    if (orc < 0) { /* the original's fault, once the clip reaches it */
        if (st != ZDEM_OK) {
            CHECK_EQ_INT(st, oerr->code);
            CHECK_EQ_INT(err.offset, oerr->offset);
        }
    } else {
        CHECK_EQ_INT(st, ZDEM_OK);
    }
    crc = read_log(o->d, o->n, &clip, &cerr);
    if (!CHECK_EQ_INT(crc, 0))
        printf("  %s [%d, %d]: clip fault %s at %llu\n", demo, (int)a, (int)b, cerr.msg,
               (unsigned long long)cerr.offset);
    /* records: the first tick marker by its tick only (the clip's is a
     * keyframe), then everything in order */
    for (i = lo, j = 0; i < hi && j < clip.n; i++, j++)
        if (clip.r[j].kind != orig->r[i].kind || clip.r[j].tick != orig->r[i].tick ||
            clip.r[j].h != orig->r[i].h)
            break;
    records_compared += j;
    if (!CHECK(i == hi && j == clip.n))
        printf("  %s [%d, %d]: differs at original record %zu of [%zu, %zu) (%c %d), clip %zu of %zu (%c %d)\n",
               demo, (int)a, (int)b, i, lo, hi, i < hi ? orig->r[i].kind : '-',
               i < hi ? orig->r[i].tick : 0, j, clip.n, j < clip.n ? clip.r[j].kind : '-',
               j < clip.n ? clip.r[j].tick : 0);
    /* the header */
    CHECK_EQ_INT(clip.version, orig->version);
    if (lo < hi) {
        CHECK(info.started);
        CHECK_EQ_INT(info.first_tick, orig->r[lo].tick);
        CHECK_EQ_INT(info.last_tick, last);
        CHECK_EQ_INT(clip.length, (last - orig->r[lo].tick) / 50);
        for (k = 0; k < orig->nmarkers; k++)
            if (orig->markers[k] >= orig->r[lo].tick && orig->markers[k] <= last)
                CHECK(kept < clip.nmarkers && clip.markers[kept++] == orig->markers[k]);
        CHECK_EQ_INT(clip.nmarkers, kept);
    } else {
        CHECK(!info.started);
        CHECK_EQ_INT(clip.n, 0);
        CHECK_EQ_INT(clip.length, 0);
    }
    free(clip.r);
}

/* The encoders alone: every snapshot of the demo written whole and as a
 * delta from the one before, read back. The delta leaves out the sizes the
 * reader takes as agreed: those of the demo's protocol (0.6 or 0.7), or the
 * ones its full snapshots taught it. */
static void check_encoders(const uint8_t *data, size_t size, unsigned long min_snaps)
{
    static int32_t ints[80000];
    static uint8_t packed[65536], chunk[140000], huff[65536];
    static int32_t back[20000];
    static uint32_t mem_a[ZDEM_TW_SNAP_MEM(1024, 16384) / 4 + 1];
    zdem_tw_snapstate a;
    zdem_tw_event ev;
    zdem_error e;
    unsigned long n = 0, bad = 0;
    zdem_tw_snap prev;
    int have = 0;
    uint32_t *prev_mem = malloc(ZDEM_TW_SNAP_MEM(1024, 16384));
    zdem_tw_snapstate keep;
    zdem_error_clear(&e);
    if (zdem_tw_snap_setup(&a, 0, 0, mem_a, sizeof mem_a, &e) != ZDEM_OK ||
        zdem_tw_snap_setup(&keep, 0, 0, prev_mem, ZDEM_TW_SNAP_MEM(1024, 16384), &e) != ZDEM_OK ||
        zdem_tw_reader_open(&rd, data, size, &e) != ZDEM_OK) {
        CHECK(0);
        free(prev_mem);
        return;
    }
    zdem_tw_snap_init(&keep, rd.snaps.static_sizes, rd.snaps.num_static_sizes);
    while (zdem_tw_reader_next(&rd, &ev, &e) == 1) {
        size_t k, len, hn, bn, t;
        zdem_error ie;
        const zdem_tw_snap *got;
        uint8_t agreed[ZDEM_TW_SNAP_MAX_STATIC];
        if (!ev.snap)
            continue;
        for (t = 0; t < rd.snaps.num_static_sizes; t++)
            agreed[t] = (uint8_t)(rd.snaps.learned[t] ? rd.snaps.learned[t] : rd.snaps.static_sizes[t]);
        /* whole: ints -> chunk -> Huffman -> ints -> snapshot */
        zdem_error_clear(&ie);
        zdem_tw_snap_init(&a, rd.snaps.static_sizes, rd.snaps.num_static_sizes);
        if (zdem_tw_snap_encode_full(ev.snap, ints, sizeof ints / 4, &k) != ZDEM_OK ||
            zdem_tw_chunk_encode(ZDEM_TW_CHUNK_SNAPSHOT, ints, k, packed, sizeof packed, chunk,
                                 sizeof chunk, &len) != ZDEM_OK) {
            bad++;
            continue;
        }
        {
            size_t hdr = (chunk[0] & 0x1f) == 31 ? 3 : (chunk[0] & 0x1f) == 30 ? 2 : 1;
            if ((chunk[0] >> 5) != ZDEM_TW_CHUNK_SNAPSHOT ||
                zdem_tw_huff_decode(chunk + hdr, len - hdr, huff, sizeof huff, &hn, &ie) != ZDEM_OK ||
                zdem_tw_ints_unpack(huff, hn, back, sizeof back / 4, &bn, &ie) != ZDEM_OK ||
                zdem_tw_snap_load_full(&a, back, bn, &ie) != ZDEM_OK) {
                bad++;
                continue;
            }
        }
        got = zdem_tw_snap_current(&a);
        if (snap_hash(got) != snap_hash(ev.snap))
            bad++;
        /* as a delta from the previous snapshot (kept in `keep`) */
        if (have) {
            if (zdem_tw_snap_encode_delta(&prev, ev.snap, agreed, rd.snaps.num_static_sizes, ints,
                                          sizeof ints / 4, &k) != ZDEM_OK ||
                zdem_tw_snap_apply_delta(&keep, ints, k, &ie) != ZDEM_OK) {
                bad++;
            } else {
                const zdem_tw_snap *d = zdem_tw_snap_current(&keep);
                uint32_t i;
                /* the same items (a delta puts new ones last) */
                if (d->num_items != ev.snap->num_items)
                    bad++;
                for (i = zdem_tw_snap_first(ev.snap); i != ZDEM_TW_SNAP_END;
                     i = zdem_tw_snap_next(ev.snap, i)) {
                    int x = zdem_tw_snap_find(d, ev.snap->key[i]);
                    if (x < 0 || d->len[x] != ev.snap->len[i] ||
                        memcmp(zdem_tw_snap_data(d, (uint32_t)x), zdem_tw_snap_data(ev.snap, i),
                               4u * ev.snap->len[i]) != 0) {
                        bad++;
                        break;
                    }
                }
            }
        }
        /* keep this one (as the reader holds it) for the next delta */
        if (zdem_tw_snap_encode_full(ev.snap, ints, sizeof ints / 4, &k) == ZDEM_OK &&
            zdem_tw_snap_load_full(&keep, ints, k, &ie) == ZDEM_OK) {
            prev = *zdem_tw_snap_current(&keep);
            have = 1;
        }
        n++;
    }
    CHECK(n >= min_snaps);
    CHECK_EQ_INT(bad, 0);
    free(prev_mem);
}

static unsigned long starts_on_full, starts_on_delta;

/* demo: a corpus name, or (path 1) a file's path */
static void check_demo(const char *demo, int path)
{
    size_t size = 0;
    uint8_t *data = path ? zt_read_file(demo, &size) : zdem_tw_load(demo, &size);
    unsigned long whole_before = whole_written, copied_before = copied_first;
    log orig;
    zdem_error oerr;
    int orc, k;
    int32_t *ticks = NULL;
    size_t nt = 0, i;
    uint64_t seed = 0x9e3779b97f4a7c15u;
    out o = {NULL, 0, 0}, o2 = {NULL, 0, 0}, o3 = {NULL, 0, 0};
    if (!CHECK(data != NULL))
        return;
    for (i = 0; demo[i]; i++)
        seed = (seed ^ (uint8_t)demo[i]) * UINT64_C(0x100000001b3);
    orc = read_log(data, size, &orig, &oerr);
    CHECK_EQ_INT(orc, 0);
    for (i = 0; i < orig.n; i++)
        if (orig.r[i].kind == 'S') {
            ticks = realloc(ticks, (nt + 1) * sizeof *ticks);
            ticks[nt++] = orig.r[i].tick;
        }
    /* (the real 0.7 recordings are short: 3 to 37 snapshots) */
    if (!CHECK(nt >= (path ? 3u : 11u)))
        goto out;
    check_range(demo, data, size, &orig, orc, &oerr, INT32_MIN, INT32_MAX, &o);
    /* ranges that start on a full snapshot (copied) and on a delta (the
     * first snapshot written whole), the last full one and the delta after it */
    {
        size_t f = orig.n, d = orig.n;
        for (i = 0; i < orig.n; i++)
            if (orig.r[i].kind == 'S' && orig.r[i].full)
                f = i;
        for (i = f; i < orig.n; i++)
            if (orig.r[i].kind == 'S' && !orig.r[i].full) {
                d = i;
                break;
            }
        if (f < orig.n) {
            check_range(demo, data, size, &orig, orc, &oerr, orig.r[f].tick, ticks[nt - 1], &o);
            starts_on_full++;
        }
        if (d < orig.n) {
            check_range(demo, data, size, &orig, orc, &oerr, orig.r[d].tick, orig.r[d].tick + 60, &o);
            starts_on_delta++;
        }
    }
    for (k = 0; k < 22; k++) {
        int32_t a, b, t1 = ticks[zt_rand(&seed) % nt], t2 = ticks[zt_rand(&seed) % nt];
        if (t1 > t2) {
            int32_t t = t1;
            t1 = t2;
            t2 = t;
        }
        a = t1 - (int32_t)(zt_rand(&seed) % 3);
        b = k % 7 == 3 ? a : t2 + (int32_t)(zt_rand(&seed) % 3);
        if (k == 21) { /* past the end: header and map only */
            a = ticks[nt - 1] + 1;
            b = INT32_MAX;
        }
        check_range(demo, data, size, &orig, orc, &oerr, a, b, &o);
        if (k % 4 == 0 && o.n > 0) {
            zdem_tw_cut_info info;
            zdem_error err;
            /* a range inside [a, b] (both ends within the original's ticks) */
            int32_t lo2 = a > ticks[0] ? a : ticks[0], hi2 = b < ticks[nt - 1] ? b : ticks[nt - 1];
            int32_t a2 = lo2 + (int32_t)(zt_rand(&seed) % (uint64_t)(hi2 - lo2 + 1));
            int32_t b2 = hi2 - (int32_t)(zt_rand(&seed) % (uint64_t)(hi2 - a2 + 1));
            cut(o.d, o.n, a2, b2, &o2, &info, &err);
            cut(data, size, a2, b2, &o3, &info, &err);
            if (!CHECK(o2.n == o3.n && memcmp(o2.d, o3.d, o2.n) == 0))
                printf("  %s: cut of [%d, %d] at [%d, %d]: %zu bytes, the original's %zu\n", demo,
                       (int)a, (int)b, (int)a2, (int)b2, o2.n, o3.n);
        }
    }
    /* truncated originals: the cut stops where the reader does */
    for (k = 0; k < 3; k++) {
        size_t cutat = size / 2 + (size_t)(zt_rand(&seed) % (size / 2));
        log tl;
        zdem_error te;
        int trc = read_log(data, cutat, &tl, &te);
        if (tl.version == 0) { /* cut inside the header or map: nothing to write */
            zdem_tw_cut_info info;
            zdem_error err;
            CHECK_EQ_INT(cut(data, cutat, INT32_MIN, INT32_MAX, &o, &info, &err), te.code);
            CHECK_EQ_INT(o.n, 0);
        } else {
            check_range(demo, data, cutat, &tl, trc, &te, ticks[zt_rand(&seed) % nt], INT32_MAX, &o);
        }
        free(tl.r);
    }
    /* timeline markers (no corpus demo has any): the same demo with five
     * written into its header, some inside the ranges, some not */
    if (orig.version >= 4) {
        uint8_t *m = malloc(size);
        log ml;
        zdem_error me;
        int mrc;
        memcpy(m, data, size);
        m[176] = m[177] = m[178] = 0;
        m[179] = 5;
        for (k = 0; k < 5; k++) {
            uint32_t v = (uint32_t)ticks[(size_t)k * (nt - 1) / 4];
            m[180 + 4 * k] = (uint8_t)(v >> 24);
            m[181 + 4 * k] = (uint8_t)(v >> 16);
            m[182 + 4 * k] = (uint8_t)(v >> 8);
            m[183 + 4 * k] = (uint8_t)v;
        }
        mrc = read_log(m, size, &ml, &me);
        CHECK_EQ_INT(ml.nmarkers, 5);
        for (k = 0; k < 4; k++) {
            int32_t a = ticks[zt_rand(&seed) % nt], b = ticks[zt_rand(&seed) % nt];
            check_range(demo, m, size, &ml, mrc, &me, a < b ? a : b, a < b ? b : a, &o);
        }
        free(ml.r);
        free(m);
    }
    check_encoders(data, size, path ? 3 : 11);
    /* some clips began with a copied snapshot, some with one written whole */
    CHECK(whole_written > whole_before && copied_first > copied_before);
out:
    free(ticks);
    free(orig.r);
    free(o.d);
    free(o2.d);
    free(o3.d);
    free(data);
}

/* No arguments: the corpus. Arguments: those demo files (the 0.7 ones of
 * test_teeworlds7_cut.sh). */
int main(int argc, char **argv)
{
    size_t i;
    int f;
    zdem_error e;
    rd_mem = malloc(zdem_tw_reader_mem_size(NULL));
    writer_mem = malloc(zdem_tw_writer_size());
    zdem_error_clear(&e);
    if (!CHECK(rd_mem && writer_mem &&
               zdem_tw_reader_init(&rd, NULL, rd_mem, zdem_tw_reader_mem_size(NULL), &e) == ZDEM_OK))
        return zt_finish();
    for (i = 0; argc < 2 && i < ZDEM_TW_CORPUS_N; i++) {
        int before = zt_failed;
        check_demo(zdem_tw_corpus[i].file, 0);
        if (zt_failed != before)
            printf("FAILED: %s\n", zdem_tw_corpus[i].file);
    }
    for (f = 1; f < argc; f++) {
        int before = zt_failed;
        check_demo(argv[f], 1);
        printf("%s: %s\n", zt_failed != before ? "FAILED" : "ok", argv[f]);
    }
    printf("%lu ranges (%lu starting on a full snapshot, %lu on a delta), %lu first snapshots written "
           "whole, %lu records compared\n", ranges_checked, starts_on_full, starts_on_delta, whole_written,
           records_compared);
    free(rd_mem);
    free(writer_mem);
    return zt_finish();
}
