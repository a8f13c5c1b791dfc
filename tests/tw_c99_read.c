/* A reading of a Teeworlds demo by ddnet_demo_c99 (Teero888), an
 * independent C library, for tests/test_teeworlds_cut_c99.sh: the header
 * (H: version, length, map size, CRC and name; K: the timeline markers), then one
 * line per chunk as that library reads it: T tick keyframe, S tick
 * (a full snapshot) items, D tick (a delta), M tick size. Its snapshot
 * rebuild from deltas is not trusted with extended items, so deltas are
 * only listed. Built by the test against the library's header in
 * bench/peers/ddnet_demo_c99/ (not part of zdem). */
#include <stdio.h>

#define DDNET_DEMO_IMPLEMENTATION
#include "ddnet_demo.h"

int main(int argc, char **argv)
{
    FILE *f;
    dd_demo_reader *dr;
    const dd_demo_info *info;
    dd_demo_chunk c;
    int i;
    if (argc != 2 || !(f = fopen(argv[1], "rb")))
        return 2;
    dr = demo_r_create();
    if (!demo_r_open(dr, f)) {
        printf("E open\n");
        return 1;
    }
    info = demo_r_get_info(dr);
    printf("H %d %d %u %u %s\n", info->header.version, info->length, info->map_size,
           info->map_crc, info->header.map_name);
    printf("K");
    for (i = 0; i < info->num_markers; i++)
        printf(" %d", info->markers[i]);
    printf("\n");
    while (demo_r_next_chunk(dr, &c)) {
        switch (c.type) {
        case DD_CHUNK_TICK_MARKER:
            printf("T %d %d\n", c.tick, c.is_keyframe ? 1 : 0);
            break;
        case DD_CHUNK_SNAP:
            printf("S %d %d\n", c.tick, ((const dd_snapshot *)c.data)->num_items);
            break;
        case DD_CHUNK_SNAP_DELTA:
            printf("D %d\n", c.tick);
            break;
        case DD_CHUNK_MSG:
            printf("M %d %d\n", c.tick, c.size);
            break;
        default:
            printf("X %d\n", c.tick);
        }
    }
    demo_r_destroy(&dr);
    fclose(f);
    return 0;
}
