/* libFuzzer target: snapshot and delta application on raw records, so the
 * fuzzer reaches the snapshot code without building valid Huffman data.
 * Record: [flags] [len lo] [len hi] [len bytes]; flags bit 0: full
 * snapshot (else delta), bit 1: payload is Huffman-coded (else it is the
 * variable-int stream directly). */
#include <stddef.h>
#include <stdint.h>
#include "teeworlds_reader.h"

static zdem_tw_snapstate st;
static uint32_t st_mem[ZDEM_TW_SNAP_MEM(ZDEM_TW_SNAP_MAX_ITEMS, ZDEM_TW_SNAP_MAX_INTS) / 4];
static uint8_t huff[ZDEM_TW_SNAP_MAX_SIZE];
static int32_t ints[ZDEM_TW_SNAP_MAX_INTS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t p = 0;
    zdem_tw_snap_setup(&st, 0, 0, st_mem, sizeof st_mem, NULL);
    zdem_tw_snap_init(&st, zdem_tw_static_sizes, ZDEM_TW_NUM_STATIC_SIZES);
    while (size - p >= 3) {
        uint8_t flags = data[p];
        size_t len = (size_t)data[p + 1] | ((size_t)data[p + 2] << 8), n, k;
        const uint8_t *payload;
        zdem_error err;
        uint32_t i;
        p += 3;
        if (len > size - p)
            len = size - p;
        payload = data + p;
        p += len;
        zdem_error_clear(&err);
        n = len;
        if (flags & 2) {
            if (zdem_tw_huff_decode(payload, len, huff, sizeof huff, &n, &err) != ZDEM_OK)
                continue;
            payload = huff;
        }
        if (zdem_tw_ints_unpack(payload, n, ints, ZDEM_TW_SNAP_MAX_INTS, &k, &err) != ZDEM_OK)
            continue;
        if (flags & 1)
            (void)zdem_tw_snap_load_full(&st, ints, k, &err);
        else
            (void)zdem_tw_snap_apply_delta(&st, ints, k, &err);
        for (i = zdem_tw_snap_first(&st.snap); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(&st.snap, i))
            (void)zdem_tw_item_desc(&st.snap, i);
    }
    return 0;
}
