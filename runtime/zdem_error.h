/* Error reporting shared by every layer: one enum, a static message per
 * code, and the offset where decoding stopped. No allocation, no printf. */
#ifndef ZDEM_ERROR_H
#define ZDEM_ERROR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum zdem_status {
    ZDEM_OK = 0,
    ZDEM_ERR_TRUNCATED,    /* input ended inside a field or frame */
    ZDEM_ERR_BAD_MAGIC,    /* not the format we were asked to read */
    ZDEM_ERR_VARINT,       /* varint longer than its type allows */
    ZDEM_ERR_BAD_LENGTH,   /* a length field is negative or out of range */
    ZDEM_ERR_WIRE_TYPE,    /* protobuf wire type does not match schema */
    ZDEM_ERR_SNAPPY,       /* malformed Snappy stream */
    ZDEM_ERR_NO_SPACE,     /* caller-provided memory too small */
    ZDEM_ERR_UNSUPPORTED,  /* valid but unsupported version/protocol */
    ZDEM_ERR_CORRUPT,      /* value outside what the format permits */
    ZDEM_ERR_LIMIT,        /* a fixed limit (count, depth) was exceeded */
    ZDEM_ERR_ABORTED,      /* a user callback asked to stop */
    ZDEM_ERR_HUFFMAN,      /* bit pattern that is not a Huffman code */
    ZDEM_ERR_UNKNOWN_NAME, /* a name the caller asked for (property, class,
                              field, event) is not in the demo or schema */
    ZDEM_STATUS_COUNT
} zdem_status;

typedef struct zdem_error {
    zdem_status code;
    uint8_t offset_is_bits; /* 1: offset counts bits, 0: bytes */
    /* 1: offset is the file offset of the frame (container record) the
     * error is in, and payload_pos the byte position inside that frame's
     * (decompressed) payload: a compressed payload has no file offsets. */
    uint8_t in_payload;
    uint64_t offset;        /* position in the innermost buffer being read */
    uint64_t payload_pos;   /* with in_payload */
    const char *msg;        /* static string, never NULL after an error */
} zdem_error;

/* Short static description of a status code. */
const char *zdem_status_str(zdem_status code);

/* Record an error (first one wins: inner layers know best) and return code. */
zdem_status zdem_fail(zdem_error *err, zdem_status code, uint64_t offset,
                      const char *msg);
zdem_status zdem_fail_bits(zdem_error *err, zdem_status code,
                           uint64_t bit_offset, const char *msg);

static inline void zdem_error_clear(zdem_error *err)
{
    if (err) {
        err->code = ZDEM_OK;
        err->offset_is_bits = 0;
        err->in_payload = 0;
        err->offset = 0;
        err->payload_pos = 0;
        err->msg = 0;
    }
}

/* An error found while reading a sub-buffer that starts `base` bytes into
 * the buffer the caller reads: make its offset relative to the caller's
 * buffer. A bit offset becomes the byte that holds that bit. */
static inline void zdem_error_rebase(zdem_error *err, uint64_t base)
{
    if (err && err->code != ZDEM_OK && !err->in_payload) {
        err->offset = base + (err->offset_is_bits ? err->offset / 8u : err->offset);
        err->offset_is_bits = 0;
    }
}

/* The error's offset is a byte position inside the payload of the frame at
 * file offset frame_offset: record both. */
static inline void zdem_error_in_frame(zdem_error *err, uint64_t frame_offset)
{
    if (err && err->code != ZDEM_OK && !err->in_payload) {
        err->payload_pos = err->offset_is_bits ? err->offset / 8u : err->offset;
        err->offset = frame_offset;
        err->offset_is_bits = 0;
        err->in_payload = 1;
    }
}

#ifdef __cplusplus
}
#endif

#endif
