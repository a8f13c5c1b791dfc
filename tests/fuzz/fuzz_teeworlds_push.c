/* Teeworlds push input on arbitrary bytes, fed in pieces whose size comes
 * from the input: header, streamed map, chunk framing across pieces; each
 * chunk handled as the CLI handles it (fuzz_teeworlds_cli.h). */
#include <stdlib.h>
#include "fuzz_teeworlds_cli.h"
#include "teeworlds_push.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t buf[ZDEM_TW_PUSH_BUFFER];
static zdem_tw_reader rd;

static int on_event(void *user, const zdem_tw_event *ev)
{
    (void)user;
    fuzz_tw_event(ev);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zdem_error err;
    zdem_tw_push s;
    zdem_status st = ZDEM_OK;
    size_t pos = 0, piece = size ? 1 + data[size - 1] % 131 : 1;
    zdem_error_clear(&err);
    zdem_tw_push_init(&s, &rd, buf, sizeof buf);
    s.on_event = on_event;
    while (pos < size && st == ZDEM_OK) {
        size_t k = size - pos < piece ? size - pos : piece;
        st = zdem_tw_push_feed(&s, data + pos, k, &err);
        pos += k;
    }
    if (st == ZDEM_OK)
        (void)zdem_tw_push_end(&s, &err);
    return 0;
}
