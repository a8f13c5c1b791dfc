/* libFuzzer target: a whole TWDEMO file through the reader (header, map
 * checks, chunk walk, Huffman, ints, snapshots, messages) as the CLI reads
 * it (fuzz_teeworlds_cli.h); odd-sized inputs at ZDEM_TW_LIMITS_SMALL, so
 * that the limit paths (dropped snapshots, stale deltas, payloads over
 * max_payload) are reached with small inputs. */
#include <stddef.h>
#include <stdint.h>
#include "fuzz_teeworlds_cli.h"

static zdem_tw_reader rd; /* static, as on a device */
static uint32_t rd_mem[ZDEM_TW_READER_MEM(65536, 1024, 16384) / 4]; /* default limits */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const zdem_tw_limits small = ZDEM_TW_LIMITS_SMALL;
    zdem_error err;
    zdem_tw_event ev;
    zdem_error_clear(&err);
    if (zdem_tw_reader_init(&rd, (size & 1) ? &small : NULL, rd_mem, sizeof rd_mem, &err) != ZDEM_OK ||
        zdem_tw_reader_open(&rd, data, size, &err) != ZDEM_OK) {
        zdem_error_clear(&err);
        (void)zdem_tw_demo_open_header(data, size, &rd.info, &err); /* info of a cut map */
        return 0;
    }
    fuzz_tw_sink += (size_t)zdem_tw_demo_map_crc_ok(&rd.info) + (size_t)zdem_tw_demo_map_sha256_ok(&rd.info);
    while (zdem_tw_reader_next(&rd, &ev, &err) == 1)
        fuzz_tw_event(&ev);
    return 0;
}
