/* libFuzzer target: Teeworlds chunks below the Huffman layer. Random bytes
 * rarely survive the Huffman decoder, so here the input holds the decoded
 * payloads (the variable-int streams) and the harness encodes them before
 * the reader decodes them as it decodes a file's chunks: mutations reach
 * the int unpacker, message ids and UUIDs, the generated message decoders
 * and snapshot deltas directly. Records: [flags] [len u16 LE] [len bytes];
 * flags & 3: 1 snapshot, 2 message, 3 delta, 0 unknown chunk; flags & 4:
 * the bytes are the chunk as stored (not encoded: any bytes, also empty);
 * flags >> 3: tick advance. Chunks are handled as the CLI handles them
 * (fuzz_teeworlds_cli.h); an error ends only that chunk, so one input
 * covers many. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "fuzz_teeworlds_cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static zdem_tw_reader rd; /* ~350 KiB: static, as on a device */
static uint8_t enc[2 * ZDEM_TW_SNAP_MAX_SIZE + 16]; /* codes are at most 15 bits */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t p = 0;
    int32_t tick = 0;
    zdem_tw_snap_init(&rd.snaps, zdem_tw_static_sizes, ZDEM_TW_NUM_STATIC_SIZES);
    rd.decode_snapshots = 1;
    rd.decode_messages = 1;
    while (size - p >= 3) {
        uint8_t flags = data[p];
        size_t len = (size_t)data[p + 1] | ((size_t)data[p + 2] << 8), n;
        zdem_tw_event ev;
        zdem_error err;
        p += 3;
        if (len > size - p)
            len = size - p;
        memset(&ev, 0, sizeof ev);
        tick += flags >> 3;
        ev.chunk.kind = flags & 3;
        ev.chunk.tick = tick;
        ev.chunk.offset = p - 3;
        ev.chunk.data_offset = p;
        if (flags & 4) {
            ev.chunk.data = data + p;
            ev.chunk.size = len;
        } else {
            if (zdem_tw_huff_encode(data + p, len, enc, sizeof enc, &n) != ZDEM_OK)
                abort();
            ev.chunk.data = enc;
            ev.chunk.size = n;
        }
        p += len;
        zdem_error_clear(&err);
        if (zdem_tw_reader_decode(&rd, &ev, &err) == 1)
            fuzz_tw_event(&ev);
    }
    return 0;
}
