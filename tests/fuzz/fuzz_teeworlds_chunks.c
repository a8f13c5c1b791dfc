/* libFuzzer target: a whole TWDEMO file through the reader (header, map
 * checks, chunk walk, Huffman, ints, snapshots, messages) as the CLI reads
 * it (fuzz_teeworlds_cli.h). */
#include <stddef.h>
#include <stdint.h>
#include "fuzz_teeworlds_cli.h"

static zdem_tw_reader rd; /* ~350 KiB: static, as on a device */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zdem_error err;
    zdem_tw_event ev;
    zdem_error_clear(&err);
    if (zdem_tw_reader_open(&rd, data, size, &err) != ZDEM_OK) {
        zdem_error_clear(&err);
        (void)zdem_tw_demo_open_header(data, size, &rd.info, &err); /* info of a cut map */
        return 0;
    }
    fuzz_tw_sink += (size_t)zdem_tw_demo_map_crc_ok(&rd.info) + (size_t)zdem_tw_demo_map_sha256_ok(&rd.info);
    while (zdem_tw_reader_next(&rd, &ev, &err) == 1)
        fuzz_tw_event(&ev);
    return 0;
}
