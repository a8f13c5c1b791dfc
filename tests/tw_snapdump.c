/* tw_snapdump FILE.demo [--small]: every snapshot zdem rebuilds (from a
 * full snapshot or a delta on the one before), item by item, in the form
 * tests/tw07_ref.py --snapshots prints from its own decoder:
 *   <chunk index> <tick> snapshot|delta <items>
 *     <type>:<id> <int> <int> ...        (items by key)
 * then "end <status>" (0, or the error's offset and message). Read through
 * the push input in 509-byte pieces with --push. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "teeworlds_push.h"
#include "teeworlds_reader.h"

static zdem_tw_reader rd;
static uint32_t mem[ZDEM_TW_READER_MEM(65536, 1024, 16384) / 4];
static uint8_t gather[ZDEM_TW_PUSH_BUFFER];
static unsigned long long idx;

static void print_snap(const zdem_tw_event *ev)
{
    const zdem_tw_snap *s = ev->snap;
    uint32_t k, j;
    printf("%llu %ld %s %lu\n", idx, (long)ev->chunk.tick,
           ev->chunk.kind == ZDEM_TW_CHUNK_SNAPSHOT ? "snapshot" : "delta",
           (unsigned long)s->num_items);
    for (k = 0; k < s->num_items; k++) {
        uint32_t i = s->order[k];
        const int32_t *d = zdem_tw_snap_data(s, i);
        printf("  %d:%d", zdem_tw_snap_type(s, i), zdem_tw_snap_id(s, i));
        for (j = 0; j < s->len[i]; j++)
            printf(" %ld", (long)d[j]);
        putchar('\n');
    }
}

static int on_event(void *user, const zdem_tw_event *ev)
{
    (void)user;
    if (ev->snap && (ev->chunk.kind == ZDEM_TW_CHUNK_SNAPSHOT || ev->chunk.kind == ZDEM_TW_CHUNK_DELTA))
        print_snap(ev);
    idx++;
    return 0;
}

int main(int argc, char **argv)
{
    FILE *f;
    uint8_t *data;
    long size;
    zdem_error err;
    zdem_tw_limits lim;
    int push = argc > 2 && strcmp(argv[2], "--push") == 0, rc = 0;
    if (argc < 2 || !(f = fopen(argv[1], "rb"))) {
        fprintf(stderr, "usage: tw_snapdump FILE.demo [--push]\n");
        return 1;
    }
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = malloc(size > 0 ? (size_t)size : 1u);
    if (!data || fread(data, 1, (size_t)size, f) != (size_t)size)
        return 1;
    fclose(f);
    zdem_tw_limits_default(&lim);
    zdem_error_clear(&err);
    if (zdem_tw_reader_init(&rd, &lim, mem, sizeof mem, &err) != ZDEM_OK)
        return 1;
    if (push) {
        zdem_tw_push p;
        size_t at = 0;
        zdem_status st = ZDEM_OK;
        zdem_tw_push_init(&p, &rd, gather, sizeof gather);
        p.on_event = on_event;
        while (st == ZDEM_OK && at < (size_t)size) {
            size_t n = (size_t)size - at < 509 ? (size_t)size - at : 509;
            st = zdem_tw_push_feed(&p, data + at, n, &err);
            at += n;
        }
        if (st == ZDEM_OK)
            st = zdem_tw_push_end(&p, &err);
        rc = st != ZDEM_OK;
    } else if (zdem_tw_reader_open(&rd, data, (size_t)size, &err) == ZDEM_OK) {
        zdem_tw_event ev;
        int got;
        while ((got = zdem_tw_reader_next(&rd, &ev, &err)) == 1)
            on_event(NULL, &ev);
        rc = got < 0;
    } else {
        rc = 1;
    }
    if (rc)
        printf("end %llu %s\n", (unsigned long long)err.offset, err.msg ? err.msg : "error");
    else
        printf("end 0\n");
    printf("protocol %s%s mismatches %lu\n", rd.proto->name, rd.proto_known ? "" : " (guessed)",
           (unsigned long)rd.mismatches);
    free(data);
    return 0;
}
