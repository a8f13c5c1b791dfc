/* Generated Source 2 protobuf decoders versus nanopb on every corpus message
 * of a type in our schema (outer commands, inner packet messages, the
 * serializers in CDemoSendTables), in the same run. Both decode every field,
 * repeated submessages included (ours through zdem_pb_s2_messages[].decode_all,
 * nanopb through callbacks that decode and drop). Prints MB/s and the ratio;
 * no assertions. Usage: bench_source2_pb [REPEATS] (env ZDEM_CORPUS). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <snappy-c.h>

#include "s2nb_cmp.h"
#include "source2_ids.h"
#include "source2_pb.h"
#include "zdem_bits.h"
#include "bench_common.h"

typedef struct { int idx; uint8_t *buf; size_t len; } item;
static item *items;
static size_t n_items, cap_items, total_bytes;

static void add(int idx, const uint8_t *p, size_t n)
{
    if (n_items == cap_items) {
        cap_items = cap_items ? cap_items * 2 : 4096;
        items = realloc(items, cap_items * sizeof *items);
        if (!items)
            exit(1);
    }
    items[n_items].idx = idx;
    items[n_items].buf = malloc(n ? n : 1);
    memcpy(items[n_items].buf, p, n);
    items[n_items].len = n;
    n_items++;
    total_bytes += n;
}

static void inner(const uint8_t *data, size_t n, int game)
{
    zdem_bits br;
    uint8_t *tmp = malloc(n ? n : 1);
    zdem_bits_init(&br, data, n);
    while (zdem_bits_left(&br) >= 8) {
        uint32_t type = zdem_bits_read_ubitvar(&br), size = zdem_bits_read_varuint32(&br);
        int idx;
        if (br.overflow || size > zdem_bits_left(&br) / 8)
            break;
        zdem_bits_read_bytes(&br, tmp, size);
        if ((idx = s2nb_inner_msg(game, type)) >= 0)
            add(idx, tmp, size);
    }
    free(tmp);
}

static void load(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *file;
    long size;
    size_t off = 16;
    int game = ZDEM_S2_GAME_UNKNOWN;
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    file = malloc((size_t)size);
    if (fread(file, 1, (size_t)size, f) != (size_t)size)
        size = 0;
    fclose(f);
    while (off < (size_t)size) {
        const uint8_t *p = file + off, *end = file + size;
        uint32_t cmd, tick, len;
        uint8_t *plain = NULL;
        const uint8_t *pl;
        size_t plen;
        int idx;
        if (zdem_varuint32(&p, end, &cmd) || zdem_varuint32(&p, end, &tick) ||
            zdem_varuint32(&p, end, &len) || len > (size_t)(end - p))
            break;
        off = (size_t)(p - file) + len;
        pl = p;
        plen = len;
        if (cmd & 64u) {
            if (snappy_uncompressed_length((const char *)p, len, &plen) != SNAPPY_OK)
                continue;
            plain = malloc(plen ? plen : 1);
            if (snappy_uncompress((const char *)p, len, (char *)plain, &plen) != SNAPPY_OK) {
                free(plain);
                continue;
            }
            pl = plain;
            cmd &= ~64u;
        }
        if ((idx = s2nb_demo_msg(cmd)) >= 0)
            add(idx, pl, plen);
        if (cmd == ZDEM_S2_DEM_FileHeader) {
            zdem_pb_CDemoFileHeader h;
            if (!zdem_pb_CDemoFileHeader_decode(pl, plen, &h, NULL, NULL, NULL))
                game = zdem_s2_game_from_dir(h.game_directory.ptr, h.game_directory.len);
        } else if (cmd == ZDEM_S2_DEM_Packet || cmd == ZDEM_S2_DEM_SignonPacket) {
            zdem_pb_CDemoPacket m;
            if (!zdem_pb_CDemoPacket_decode(pl, plen, &m, NULL, NULL, NULL))
                inner(m.data.ptr, m.data.len, game);
        } else if (cmd == ZDEM_S2_DEM_FullPacket) {
            zdem_pb_CDemoFullPacket m;
            if (!zdem_pb_CDemoFullPacket_decode(pl, plen, &m, NULL, NULL, NULL))
                inner(m.packet.data.ptr, m.packet.data.len, game);
        } else if (cmd == ZDEM_S2_DEM_SendTables) {
            zdem_pb_CDemoSendTables m;
            if (!zdem_pb_CDemoSendTables_decode(pl, plen, &m, NULL, NULL, NULL)) {
                const uint8_t *q = m.data.ptr, *qe = q + m.data.len;
                uint32_t n;
                if (!zdem_varuint32(&q, qe, &n) && n <= (size_t)(qe - q))
                    add(s2nb_index("CSVCMsg_FlattenedSerializer"), q, n);
            }
        }
        free(plain);
    }
    free(file);
}

int main(int argc, char **argv)
{
    const char *corpus = getenv("ZDEM_CORPUS");
    char dir[4096], path[8192];
    int reps = argc > 1 ? atoi(argv[1]) : 20, r, bad = 0;
    static union { uint64_t u; double d; void *p; uint8_t b[ZDEM_S2_MAX_MSG_STRUCT_SIZE]; } out;
    double t0, t_ours, t_nb, best_ours = 1e30, best_nb = 1e30;
    DIR *d;
    struct dirent *e;
    zs sink;
    size_t i;
    snprintf(dir, sizeof dir, "%s/source2", corpus ? corpus : "../shared/corpus");
    if (!(d = opendir(dir))) {
        fprintf(stderr, "bench_source2_pb: cannot open %s\n", dir);
        return 1;
    }
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".dem")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            load(path);
        }
    closedir(d);
    memset(&sink, 0, sizeof sink); /* on = 0: nanopb callbacks decode, record nothing */
    for (r = 0; r < reps; r++) {
        t0 = bench_now();
        for (i = 0; i < n_items; i++) {
            zdem_error err;
            zdem_error_clear(&err);
            bad += zdem_pb_s2_messages[items[i].idx].decode_all(items[i].buf, items[i].len, out.b, &err) != ZDEM_OK;
        }
        t_ours = bench_now() - t0;
        t0 = bench_now();
        for (i = 0; i < n_items; i++) {
            const char *msg;
            bad += !s2nb_nanopb(items[i].idx, items[i].buf, items[i].len, &sink, &msg);
        }
        t_nb = bench_now() - t0;
        if (t_ours < best_ours)
            best_ours = t_ours;
        if (t_nb < best_nb)
            best_nb = t_nb;
    }
    printf("bench_source2_pb: %zu messages, %.2f MB, best of %d runs\n", n_items, total_bytes / 1e6, reps);
    printf("  zdem generated: %8.1f MB/s  (%.3f ms)\n", total_bytes / 1e6 / best_ours, best_ours * 1e3);
    printf("  nanopb 0.4.7:   %8.1f MB/s  (%.3f ms)\n", total_bytes / 1e6 / best_nb, best_nb * 1e3);
    printf("  ratio: %.2fx\n", best_nb / best_ours);
    if (bad)
        printf("  (%d decode failures)\n", bad);
    for (i = 0; i < n_items; i++)
        free(items[i].buf);
    free(items);
    return 0;
}
