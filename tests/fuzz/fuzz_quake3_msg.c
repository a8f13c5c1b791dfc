/* libFuzzer target: the input is a Quake III demo file (framing blocks of
 * Huffman-coded messages); the protocol comes from the first gamestate's
 * serverinfo, so one target covers dm_66 .. dm_91. The parser state is
 * allocated once (the library itself never allocates). */
#include <stdint.h>
#include <stdlib.h>
#include "quake3.h"

static int on_event(void *user, const zdem_q3_parser *p, const zdem_q3_event *ev)
{
    (void)user;
    (void)p;
    /* touch the strings so ASan checks them */
    volatile size_t n = 0;
    if (ev->attacker_name)
        while (ev->attacker_name[n])
            n++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static void *mem;
    zdem_q3_callbacks cb = {0};
    zdem_q3_parser *p;
    zdem_q3_reader r;
    zdem_error err;
    if (!mem)
        mem = malloc(zdem_q3_parser_size());
    if (!mem)
        return 0;
    cb.event = on_event;
    zdem_error_clear(&err);
    p = zdem_q3_parser_init(mem, zdem_q3_parser_size(), 0, &cb, NULL, &err);
    if (p)
        (void)zdem_q3_parse_file(p, data, size, &r, &err);
    return 0;
}
