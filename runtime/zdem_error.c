#include "zdem_error.h"

static const char *const status_names[ZDEM_STATUS_COUNT] = {
    "ok",
    "truncated input",
    "bad magic",
    "varint too long",
    "bad length",
    "wire type mismatch",
    "corrupt snappy data",
    "caller buffer too small",
    "unsupported version",
    "corrupt data",
    "limit exceeded",
    "aborted by callback",
    "invalid huffman code",
    "unknown name",
};

const char *zdem_status_str(zdem_status code)
{
    if ((unsigned)code >= ZDEM_STATUS_COUNT)
        return "unknown error";
    return status_names[code];
}

static zdem_status record(zdem_error *err, zdem_status code, uint64_t off,
                          uint8_t bits, const char *msg)
{
    if (err && err->code == ZDEM_OK) {
        err->code = code;
        err->offset = off;
        err->offset_is_bits = bits;
        err->msg = msg ? msg : zdem_status_str(code);
    }
    return code;
}

zdem_status zdem_fail(zdem_error *err, zdem_status code, uint64_t offset,
                      const char *msg)
{
    return record(err, code, offset, 0, msg);
}

zdem_status zdem_fail_bits(zdem_error *err, zdem_status code,
                           uint64_t bit_offset, const char *msg)
{
    return record(err, code, bit_offset, 1, msg);
}
