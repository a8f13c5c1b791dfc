/* libFuzzer target: the input is a Quake III demo file (framing blocks of
 * Huffman-coded messages) read as the CLI reads it (fuzz_quake3_cli.h);
 * the protocol comes from the first gamestate's serverinfo, so one target
 * covers dm_66 .. dm_91. */
#include <stdint.h>
#include "fuzz_quake3_cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zdem_q3_parser *p = fuzz_q3_parser();
    zdem_q3_reader r;
    zdem_error err;
    zdem_error_clear(&err);
    if (p)
        (void)zdem_q3_parse_file(p, data, size, &r, &err);
    return 0;
}
