/* Snappy raw-format decompressor (no framing format) into a caller buffer.
 * No allocation; every length and copy offset is checked against both the
 * input and the output, so hostile input yields ZDEM_ERR_SNAPPY with the
 * byte offset (in `src`) of the offending tag, never an out-of-bounds access.
 * `src` and `dst` must not overlap. */
#ifndef ZDEM_SNAPPY_H
#define ZDEM_SNAPPY_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the varint preamble (the uncompressed length). */
zdem_status zdem_snappy_uncompressed_length(const uint8_t *src, size_t n,
                                            size_t *out_len, zdem_error *err);

/* Decompresses src[0..n) into dst. Fails with ZDEM_ERR_NO_SPACE when the
 * preamble length exceeds dst_cap (before writing anything). On success
 * *out_len is the preamble length and dst[0..*out_len) holds the data; bytes
 * of dst past the preamble length are never written. On error the contents
 * of dst[0..preamble length) are unspecified. */
zdem_status zdem_snappy_decompress(const uint8_t *src, size_t n, uint8_t *dst,
                                   size_t dst_cap, size_t *out_len,
                                   zdem_error *err);

#ifdef __cplusplus
}
#endif

#endif
