/* Teeworlds Huffman coder (static tree, 257 symbols with EOF) and the
 * variable-length int packing that follows it in demo chunks. Tables come
 * from generated/teeworlds_hufftab.c; nothing is built at run time. */
#ifndef ZDEM_TEEWORLDS_HUFFMAN_H
#define ZDEM_TEEWORLDS_HUFFMAN_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decodes src until the EOF symbol into dst (cap bytes). Table-driven: one
 * lookup per symbol for codes up to ZDEM_TW_HUFF_LUT_BITS bits, two for
 * longer ones. dst bytes past *out_len are left as they were.
 * Errors (offset = byte in src where the bad code starts):
 *   ZDEM_ERR_HUFFMAN   a code runs past the end / no EOF symbol,
 *   ZDEM_ERR_NO_SPACE  output larger than cap. */
zdem_status zdem_tw_huff_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                           size_t *out_len, zdem_error *err);

/* Same result, one tree step per bit: the reference for tests and the
 * benchmark, not for production use. */
zdem_status zdem_tw_huff_decode_bitwise(const uint8_t *src, size_t n, uint8_t *dst,
                                   size_t cap, size_t *out_len, zdem_error *err);

/* Encodes n bytes plus EOF, byte for byte as the reference encoder does
 * (including its final byte when the bits end on a byte boundary).
 * Returns ZDEM_OK or ZDEM_ERR_NO_SPACE. */
zdem_status zdem_tw_huff_encode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                           size_t *out_len);

/* Unpacks the variable-length ints of src into dst (cap ints). An int cut
 * by the end of src is ZDEM_ERR_TRUNCATED (offset = its first byte); more
 * than cap ints is ZDEM_ERR_NO_SPACE. Overlong encodings are accepted as
 * the reference does. */
zdem_status zdem_tw_ints_unpack(const uint8_t *src, size_t n, int32_t *dst, size_t cap,
                           size_t *count, zdem_error *err);

/* One int from [*p, end); ZDEM_ERR_TRUNCATED if cut. */
zdem_status zdem_tw_int_read(const uint8_t **p, const uint8_t *end, int32_t *out);

/* Packs ints (for tests and fuzzers that build inputs). */
zdem_status zdem_tw_ints_pack(const int32_t *src, size_t count, uint8_t *dst, size_t cap,
                         size_t *out_len);

#ifdef __cplusplus
}
#endif

#endif
