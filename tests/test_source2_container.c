/* Source 2 container layer against the corpus: header fields, file info,
 * command counts and last tick from ../shared/corpus/EXPECTED.md (A1: the
 * CS2 last ticks from demofile-net's test suite; B1: the corpus verifier's
 * header/framing values), and every truncation of two files. */
#include <stdlib.h>
#include <string.h>

#include "source2_demo.h"
#include "source2_pb.h"
#include "zdem_test.h"

typedef struct expect {
    const char *file;
    const char *map;
    long protocol, build;
    const char *client;
    unsigned long fi_off, sg_off;
    unsigned msgs;
    long first_tick, max_tick;
    long pb_ticks, pb_frames;
    double pb_time;
    unsigned packets, fullpackets, compressed;
    long a1_last_tick; /* -1: no independent value */
} expect;

/* EXPECTED.md B1 (and A1 in the last column). */
static const expect cases[] = {
    {"cs2_demofile-net-gotv-14011-cs-italy.dem", "cs_italy", 14011, 10072, "SourceTV Demo", 815022, 815018, 485, -1, 391, 391, 391, 6.1094, 391, 1, 470, 391},
    {"cs2_demofile-net-gotv-14065-de-nuke.dem", "de_nuke", 14065, 10231, "SourceTV Demo", 321469, 321465, 238, -1, 185, 185, 185, 2.8906, 185, 1, 72, 185},
    {"cs2_demofile-net-gotv-14090-cs-italy.dem", "cs_italy", 14090, 10498, "SourceTV Demo", 775422, 775418, 607, -1, 572, 572, 552, 8.9375, 552, 1, 498, 572},
    {"cs2_demofile-net-gotv-14132-de-ancient.dem", "de_ancient", 14132, 10679, "SourceTV Demo", 187971, 187968, 154, -1, 125, 125, 125, 1.9531, 125, 1, 20, 125},
    {"cs2_demofile-net-gotv-14150-ag2-de-train.dem", "de_train", 14150, 10750, "SourceTV Demo", 353888, 353884, 173, -1, 154, 154, 154, 2.4062, 154, 1, 161, -1},
    {"cs2_demofile-net-gotv-14155-de-dust2.dem", "de_dust2", 14155, 10772, "SourceTV Demo", 210673, 210669, 180, -1, 161, 161, 161, 2.5156, 161, 1, 168, 161},
    {"cs2_demofile-net-gotv-14160-de-dust2.dem", "de_dust2", 14160, 10772, "SourceTV Demo", 207875, 207871, 175, -1, 156, 156, 156, 2.4375, 156, 1, 162, -1},
    {"deadlock_demofile-net-hltv-10423-dl-midtown.dem", "dl_midtown", 48, 10423, "SourceTV Demo", 268974, 268970, 69, -1, 148, 148, 50, 2.3125, 50, 1, 38, -1},
    {"dota2_haste-nekit-pov.dem", "start", 47, 9358, "Nekit", 596524, 211671, 3781, 0, 4021, 1923, 1941, 64.1000, 1941, 0, 8, -1},
};

static int view_eq(zdem_view v, const char *s)
{
    return v.len == strlen(s) && memcmp(v.ptr, s, v.len) == 0;
}

static void check_file(const expect *e)
{
    char rel[256];
    size_t size = 0, need = 0, n;
    uint8_t *file, *scratch;
    const uint8_t *p;
    zdem_s2_header hdr;
    zdem_s2_reader r;
    zdem_s2_outer m;
    zdem_error err;
    zdem_pb_CDemoFileHeader fh;
    zdem_pb_CDemoFileInfo fi;
    unsigned msgs = 0, packets = 0, full = 0, compressed = 0;
    long first_tick = -2, max_tick = -1, last_tick = -1;
    int rc, have_fh = 0;

    snprintf(rel, sizeof rel, "source2/%s", e->file);
    file = zt_read_file(zt_corpus_path(rel), &size);
    if (!CHECK(file != NULL)) {
        fprintf(stderr, "cannot read %s\n", zt_corpus_path(rel));
        return;
    }
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_s2_read_header(file, size, &hdr, &err), ZDEM_OK);
    CHECK_EQ_INT(hdr.fileinfo_offset, e->fi_off);
    CHECK_EQ_INT(hdr.spawngroups_offset, e->sg_off);
    need = 1u << 20; /* corpus payloads decompress to < 400 KB */
    scratch = malloc(need + 1);

    zdem_s2_reader_init(&r, file, size);
    while ((rc = zdem_s2_next(&r, &m, &err)) == 1) {
        if (first_tick == -2)
            first_tick = (long)m.tick;
        if (m.tick > max_tick)
            max_tick = (long)m.tick;
        if (m.tick >= 0)
            last_tick = (long)m.tick;
        msgs++;
        packets += m.cmd == ZDEM_S2_DEM_PACKET;
        full += m.cmd == ZDEM_S2_DEM_FULLPACKET;
        compressed += (unsigned)m.compressed;
        if (m.index == 0) {
            /* EXPECTED.md B1: the first message is DEM_FileHeader, uncompressed. */
            CHECK_EQ_INT(m.cmd, ZDEM_S2_DEM_FILEHEADER);
            CHECK_EQ_INT(m.compressed, 0);
            CHECK_EQ_INT(zdem_s2_payload(&m, scratch, need, &p, &n, &err), ZDEM_OK);
            have_fh = CHECK_EQ_INT(zdem_pb_CDemoFileHeader_decode(p, n, &fh, NULL, NULL, &err), ZDEM_OK);
        }
        if (m.compressed) /* every compressed payload decompresses in its scratch */
            CHECK_EQ_INT(zdem_s2_payload(&m, scratch, need, &p, &n, &err), ZDEM_OK);
    }
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(r.pos, size); /* B1: every file ends exactly at EOF */
    CHECK_EQ_INT(msgs, e->msgs);
    CHECK_EQ_INT(first_tick, e->first_tick);
    CHECK_EQ_INT(max_tick, e->max_tick);
    CHECK_EQ_INT(packets, e->packets);
    CHECK_EQ_INT(full, e->fullpackets);
    CHECK_EQ_INT(compressed, e->compressed);
    if (e->a1_last_tick >= 0)
        CHECK_EQ_INT(last_tick, e->a1_last_tick);
    if (have_fh) {
        CHECK(view_eq(fh.map_name, e->map));
        CHECK(view_eq(fh.client_name, e->client));
        CHECK_EQ_INT(fh.network_protocol, e->protocol);
        CHECK_EQ_INT(fh.build_num, e->build);
    }

    CHECK_EQ_INT(zdem_s2_read_fileinfo(file, size, &hdr, scratch, need, &p, &n, &err), ZDEM_OK);
    if (CHECK_EQ_INT(zdem_pb_CDemoFileInfo_decode(p, n, &fi, NULL, NULL, &err), ZDEM_OK)) {
        CHECK_EQ_INT(fi.playback_ticks, e->pb_ticks);
        CHECK_EQ_INT(fi.playback_frames, e->pb_frames);
        CHECK((double)fi.playback_time > e->pb_time - 0.0001 && (double)fi.playback_time < e->pb_time + 0.0001);
        if (e->a1_last_tick >= 0) /* A1: the last tick equals playback_ticks */
            CHECK_EQ_INT(fi.playback_ticks, e->a1_last_tick);
    }
    free(scratch);
    free(file);
}

/* Inner stream of every packet: walks to the end without error. */
static zdem_status count_inner(void *user, const zdem_s2_inner *m)
{
    (void)m;
    ++*(unsigned *)user;
    return ZDEM_OK;
}

static void check_inner_walk(const char *rel)
{
    size_t size = 0, need = 0, n;
    uint8_t *file = zt_read_file(zt_corpus_path(rel), &size), *scratch;
    zdem_s2_reader r;
    zdem_s2_outer m;
    zdem_error err;
    unsigned inner = 0, bad = 0;
    const uint8_t *p;
    if (!CHECK(file != NULL))
        return;
    zdem_error_clear(&err);
    need = 2u << 20;
    scratch = malloc(need + 1);
    zdem_s2_reader_init(&r, file, size);
    while (zdem_s2_next(&r, &m, &err) == 1) {
        zdem_pb_CDemoPacket pk;
        if (m.cmd != ZDEM_S2_DEM_PACKET && m.cmd != ZDEM_S2_DEM_SIGNONPACKET)
            continue;
        if (zdem_s2_payload(&m, scratch, need / 2, &p, &n, &err) != ZDEM_OK ||
            zdem_pb_CDemoPacket_decode(p, n, &pk, NULL, NULL, &err) != ZDEM_OK ||
            zdem_s2_for_each_inner(pk.data.ptr, pk.data.len, 1, scratch + need / 2, need / 2,
                                   count_inner, &inner, &err) != ZDEM_OK) {
            bad++;
            zdem_error_clear(&err);
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(inner > 0);
    free(scratch);
    free(file);
}

/* Every prefix of the file: the framing walk and the FileInfo lookup end in
 * success or a clean error. The bytes past the prefix are poisoned, so
 * ASan catches any read beyond the cut. */
static void check_truncations(const char *rel)
{
    size_t size = 0, len, need = 0;
    uint8_t *file = zt_read_file(zt_corpus_path(rel), &size);
    static uint8_t scratch[1 << 20];
    unsigned errors = 0, ok = 0;
    if (!CHECK(file != NULL))
        return;
    for (len = 0; len <= size; len++) {
        zdem_s2_header hdr;
        zdem_s2_reader r;
        zdem_s2_outer m;
        zdem_error err;
        const uint8_t *p;
        size_t n;
        int rc;
        ZT_POISON(file + len, size - len);
        zdem_error_clear(&err);
        if (zdem_s2_read_header(file, len, &hdr, &err) != ZDEM_OK) {
            errors++;
        } else {
            zdem_s2_reader_init(&r, file, len);
            while ((rc = zdem_s2_next(&r, &m, &err)) == 1)
                ;
            if (rc < 0) {
                errors++;
                CHECK(err.msg != NULL && err.offset <= len);
            } else {
                ok++;
            }
            zdem_error_clear(&err);
            if (zdem_s2_read_fileinfo(file, len, &hdr, scratch, sizeof scratch, &p, &n, &err) == ZDEM_OK)
                ok++;
        }
        ZT_UNPOISON(file + len, size - len);
    }
    CHECK(errors > 0);
    CHECK(ok > 0);
    (void)need;
    free(file);
}

int main(void)
{
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_file(&cases[i]);
    check_inner_walk("source2/cs2_demofile-net-gotv-14132-de-ancient.dem");
    check_inner_walk("source2/deadlock_demofile-net-hltv-10423-dl-midtown.dem");
    check_inner_walk("source2/dota2_haste-nekit-pov.dem");
    check_truncations("source2/cs2_demofile-net-gotv-14132-de-ancient.dem");
    check_truncations("source2/cs2_demofile-net-gotv-14160-de-dust2.dem");
    return zt_finish();
}
