/* libFuzzer target: the generated Source 2 protobuf encoders
 * (generated/source2_encode.c) are the inverse of the generated decoders:
 * decode(encode(x)) == x for what the decode struct holds. The input
 * picks a message the writers encode (its first byte) and is decoded as
 * it; a struct x that decodes is encoded (e1), e1 decodes without error to
 * y, y equals x field by field (the generated equality: presence, values,
 * floats by their bits, strings by their bytes, submessages, repeated
 * scalars), and y encodes to the same bytes (e2 == e1: one encoding). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "source2_encode.h"
#include "source2_pb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static union {
    uint64_t align;
    uint8_t b[ZDEM_S2_MAX_MSG_STRUCT_SIZE];
} x, y;
static uint8_t e1[1u << 17], e2[1u << 17];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const zdem_pb_s2_encoder *m;
    zdem_error err;
    size_t n1, n2;
    if (size < 1)
        return 0;
    m = &zdem_pb_s2_encoders[data[0] % ZDEM_PB_S2_ENCODER_COUNT];
    zdem_error_clear(&err);
    if (m->decode(data + 1, size - 1, x.b, &err) != ZDEM_OK)
        return 0; /* not a message of that type: nothing to encode */
    if (m->encode(x.b, e1, sizeof e1, &n1) != ZDEM_OK)
        return 0; /* (the input is at most what fits: see .options) */
    zdem_error_clear(&err);
    if (m->decode(e1, n1, y.b, &err) != ZDEM_OK || !m->equal(x.b, y.b))
        abort();
    if (m->encode(y.b, e2, sizeof e2, &n2) != ZDEM_OK || n2 != n1 || memcmp(e1, e2, n1) != 0)
        abort();
    return 0;
}
