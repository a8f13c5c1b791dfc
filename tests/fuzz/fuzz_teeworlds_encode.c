/* libFuzzer target: the Teeworlds encoders of the writer
 * (teeworlds_write.c) are the inverse of the readers: decode(encode(x))
 * == x.
 *  - Two snapshots made from the input (items of random types, ids and
 *    data; an item both have keeps its size, a type with a pre-agreed
 *    size takes that size, as in real snapshots): the second written
 *    whole as a snapshot chunk (ints, packed, Huffman-coded, framed) and
 *    read back through the chunk header, Huffman decoder and int unpacker
 *    gives it item for item in its order; written as a delta from the
 *    first and applied to it gives the same items.
 *  - The input's bytes through the Huffman encoder and decoder, and its
 *    ints through the packer and unpacker, come back unchanged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "teeworlds_reader.h"
#include "teeworlds_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ITEMS 64

static uint32_t mem_a[ZDEM_TW_SNAP_MEM(ITEMS, 4096) / 4 + 1];
static uint32_t mem_b[ZDEM_TW_SNAP_MEM(ITEMS, 4096) / 4 + 1];
static uint32_t mem_c[ZDEM_TW_SNAP_MEM(ITEMS, 4096) / 4 + 1];
static int32_t ints[8192], back[8192];
static uint8_t packed[65536], chunk[140000], huff[65536];

/* A snapshot from input bytes: up to ITEMS items. `like`, when given,
 * fixes the size of a key it already has. */
static void make(zdem_tw_snapstate *s, const uint8_t *d, size_t n, const zdem_tw_snap *like)
{
    size_t k = 2 + 0, p = 0, m = 0, i;
    int32_t off[ITEMS];
    int32_t items[8192];
    size_t used = 0;
    zdem_error e;
    while (p + 4 <= n && m < ITEMS) {
        uint32_t type = d[p] % 24u, id = d[p + 1] % 8u, len = d[p + 2] % 12u, key, j;
        int dup = 0, x;
        if (type == 0)
            type = 1;
        key = type << 16 | id;
        for (i = 0; i < m; i++)
            if ((uint32_t)items[off[i]] == key)
                dup = 1;
        if (type < ZDEM_TW_NUM_STATIC_SIZES && zdem_tw_static_sizes[type])
            len = zdem_tw_static_sizes[type];
        if (like && (x = zdem_tw_snap_find(like, key)) >= 0)
            len = like->len[x];
        p += 3;
        if (dup || used + 1 + len > 4000)
            continue;
        off[m++] = (int32_t)used;
        items[used++] = (int32_t)key;
        for (j = 0; j < len; j++, p++)
            items[used++] = p < n ? (int32_t)((uint32_t)d[p] * 0x01010101u ^ (uint32_t)j << (d[p] % 29u)) : 0;
    }
    ints[0] = (int32_t)(4 * used);
    ints[1] = (int32_t)m;
    for (i = 0; i < m; i++)
        ints[2 + i] = 4 * off[i];
    k = 2 + m;
    memcpy(ints + k, items, 4 * used);
    zdem_error_clear(&e);
    zdem_tw_snap_init(s, zdem_tw_static_sizes, ZDEM_TW_NUM_STATIC_SIZES);
    if (zdem_tw_snap_load_full(s, ints, k + used, &e) != ZDEM_OK)
        abort(); /* made valid */
}

static int same_items(const zdem_tw_snap *a, const zdem_tw_snap *b, int order)
{
    uint32_t i, j = zdem_tw_snap_first(b);
    if (a->num_items != b->num_items)
        return 0;
    /* order: the same items in the same order; else the same keys */
    for (i = zdem_tw_snap_first(a); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(a, i)) {
        int x = order ? (j == ZDEM_TW_SNAP_END ? -1 : (int)j) : zdem_tw_snap_find(b, a->key[i]);
        if (x < 0 || b->key[x] != a->key[i] || b->len[x] != a->len[i] ||
            memcmp(zdem_tw_snap_data(a, i), zdem_tw_snap_data(b, (uint32_t)x), 4u * a->len[i]) != 0)
            return 0;
        if (order)
            j = zdem_tw_snap_next(b, j);
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static zdem_tw_snapstate a, b, c;
    static int ready;
    size_t half = size / 2, k, len, hn, bn, i;
    zdem_error e;
    if (!ready) {
        if (zdem_tw_snap_setup(&a, ITEMS, 4096, mem_a, sizeof mem_a, NULL) != ZDEM_OK ||
            zdem_tw_snap_setup(&b, ITEMS, 4096, mem_b, sizeof mem_b, NULL) != ZDEM_OK ||
            zdem_tw_snap_setup(&c, ITEMS, 4096, mem_c, sizeof mem_c, NULL) != ZDEM_OK)
            abort();
        ready = 1;
    }
    zdem_error_clear(&e);
    make(&a, data, half, NULL);
    make(&b, data + half, size - half, zdem_tw_snap_current(&a));
    /* whole, through a chunk */
    if (zdem_tw_snap_encode_full(zdem_tw_snap_current(&b), ints, sizeof ints / 4, &k) != ZDEM_OK ||
        zdem_tw_chunk_encode(ZDEM_TW_CHUNK_SNAPSHOT, ints, k, packed, sizeof packed, chunk,
                             sizeof chunk, &len) != ZDEM_OK)
        abort();
    {
        size_t hdr = (chunk[0] & 0x1f) == 31 ? 3 : (chunk[0] & 0x1f) == 30 ? 2 : 1;
        size_t sz = hdr == 1 ? (size_t)(chunk[0] & 0x1f) : hdr == 2 ? chunk[1] : (size_t)chunk[1] | (size_t)chunk[2] << 8;
        if ((chunk[0] >> 5) != ZDEM_TW_CHUNK_SNAPSHOT || sz != len - hdr ||
            zdem_tw_huff_decode(chunk + hdr, sz, huff, sizeof huff, &hn, &e) != ZDEM_OK ||
            zdem_tw_ints_unpack(huff, hn, back, sizeof back / 4, &bn, &e) != ZDEM_OK || bn != k ||
            memcmp(back, ints, 4 * k) != 0)
            abort();
        zdem_tw_snap_init(&c, zdem_tw_static_sizes, ZDEM_TW_NUM_STATIC_SIZES);
        if (zdem_tw_snap_load_full(&c, back, bn, &e) != ZDEM_OK ||
            !same_items(zdem_tw_snap_current(&b), zdem_tw_snap_current(&c), 1))
            abort();
    }
    /* as a delta from a */
    if (zdem_tw_snap_encode_delta(zdem_tw_snap_current(&a), zdem_tw_snap_current(&b),
                                  zdem_tw_static_sizes, ZDEM_TW_NUM_STATIC_SIZES, ints,
                                  sizeof ints / 4, &k) != ZDEM_OK ||
        zdem_tw_snap_apply_delta(&a, ints, k, &e) != ZDEM_OK ||
        !same_items(zdem_tw_snap_current(&b), zdem_tw_snap_current(&a), 0))
        abort();
    /* bytes and ints as they are */
    if (size <= sizeof packed - 16) {
        if (zdem_tw_huff_encode(data, size, chunk, sizeof chunk, &len) != ZDEM_OK ||
            zdem_tw_huff_decode(chunk, len, huff, sizeof huff, &hn, &e) != ZDEM_OK || hn != size ||
            (size && memcmp(huff, data, size) != 0))
            abort();
        for (i = 0; i + 4 <= size && i / 4 < sizeof ints / 4; i += 4)
            ints[i / 4] = (int32_t)((uint32_t)data[i] | (uint32_t)data[i + 1] << 8 |
                                    (uint32_t)data[i + 2] << 16 | (uint32_t)data[i + 3] << 24);
        if (zdem_tw_ints_pack(ints, i / 4, packed, sizeof packed, &len) != ZDEM_OK ||
            zdem_tw_ints_unpack(packed, len, back, sizeof back / 4, &bn, &e) != ZDEM_OK ||
            bn != i / 4 || (bn && memcmp(back, ints, 4 * bn) != 0))
            abort();
    }
    return 0;
}
