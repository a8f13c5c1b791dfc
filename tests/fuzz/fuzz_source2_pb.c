/* libFuzzer target: every generated Source 2 protobuf decoder on the input
 * (all fields, repeated submessages included), plus both dispatchers. Any
 * status is fine; sanitizers catch the rest. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "source2_dispatch.h"
#include "source2_pb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Aligned for every struct member type. */
    static union {
        uint64_t u;
        double d;
        void *p;
        uint8_t b[ZDEM_S2_MAX_MSG_STRUCT_SIZE];
    } out;
    zdem_error err;
    int i;
    for (i = 0; i < ZDEM_PB_S2_MESSAGE_COUNT; i++) {
        zdem_error_clear(&err);
        if (zdem_pb_s2_messages[i].decode_all(data, size, out.b, &err) != ZDEM_OK &&
            (err.code == ZDEM_OK || err.offset > size))
            abort(); /* an error must be recorded, inside the input */
    }
    if (size >= 2) {
        zdem_s2_demo_handlers dh;
        zdem_s2_inner_handlers ih;
        memset(&dh, 0, sizeof dh);
        memset(&ih, 0, sizeof ih);
        zdem_error_clear(&err);
        /* No handlers: must not decode, must not fail. */
        if (zdem_s2_dispatch_demo(data[0], data + 2, size - 2, &dh, NULL, &err) != ZDEM_OK ||
            zdem_s2_dispatch_inner((zdem_s2_game)(data[1] & 3), data[0] + 256u * (data[1] >> 2),
                                   data + 2, size - 2, &ih, NULL, &err) != ZDEM_OK)
            abort();
    }
    return 0;
}
