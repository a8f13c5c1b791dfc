/* Valve LZSS decompressor (the engine's tier1 CLZSS codec; Source 2 string
 * tables use it when string_data starts with "LZSS") into a caller buffer.
 * No allocation; every element is checked against the input, the output
 * produced so far and the header's size, so hostile input yields an error
 * with the byte offset (in `src`) of the offending element, never an
 * out-of-bounds access. `src` and `dst` must not overlap.
 *
 * Format (all multi-byte values little-endian):
 *   "LZSS"  u32 size  then commands:
 *   a command byte gives the kinds of the next 8 elements, least
 *   significant bit first: 0 = literal (1 byte, copied to the output),
 *   1 = back-reference (2 bytes b0 b1): position = b0 << 4 | b1 >> 4,
 *   count = (b1 & 15) + 1; it copies `count` bytes starting position + 1
 *   bytes back from the current end of the output (distance 1..4096,
 *   count 2..16, byte by byte so a distance below the count repeats a
 *   pattern). Count 1 (low nibble 0) is the end marker; its position bits
 *   are ignored, as Valve's decoder does (its encoder writes 0 0).
 *
 * Validity, beyond the format (Valve's decoder accepts less than its
 * encoder promises, we accept exactly what a correct encoder can write):
 *   - the end marker must be present and be the last byte of `src`
 *     (Valve asserts on trailing bytes): ZDEM_ERR_TRUNCATED when the input
 *     ends first, ZDEM_ERR_CORRUPT for bytes after it;
 *   - the output must be exactly the header's size: more is ZDEM_ERR_CORRUPT
 *     at the element that would exceed it (nothing past the size is ever
 *     written), fewer is ZDEM_ERR_CORRUPT at the end marker;
 *   - a back-reference reaching before the start of the output is
 *     ZDEM_ERR_CORRUPT;
 *   - a size of 0 with an immediate end marker is a valid empty stream
 *     (Valve's decoder treats size 0 as "not compressed"; its encoder never
 *     writes it). */
#ifndef ZDEM_LZSS_H
#define ZDEM_LZSS_H

#include <stddef.h>
#include <stdint.h>
#include "zdem_error.h"

#define ZDEM_LZSS_HEADER_SIZE 8u  /* "LZSS" + u32 uncompressed size */
#define ZDEM_LZSS_WINDOW 4096u    /* largest back-reference distance */
#define ZDEM_LZSS_MAX_COUNT 16u   /* longest back-reference */

/* 1 when src[0..n) starts with the 4 bytes "LZSS". */
int zdem_lzss_has_magic(const uint8_t *src, size_t n);

/* Reads the header's uncompressed size. ZDEM_ERR_BAD_MAGIC (offset 0) when
 * the input does not start with "LZSS", ZDEM_ERR_TRUNCATED (offset n) when
 * it is shorter than the 8-byte header. */
zdem_status zdem_lzss_uncompressed_length(const uint8_t *src, size_t n,
                                          size_t *out_len, zdem_error *err);

/* Decompresses src[0..n) into dst. Fails with ZDEM_ERR_NO_SPACE (offset 4,
 * the size field) when the header's size exceeds dst_cap, before writing
 * anything. On success *out_len is the header's size and dst[0..*out_len)
 * holds the data; bytes of dst past the header's size are never written
 * (dst may be NULL when the size is 0). On error the contents of
 * dst[0..header size) are unspecified and *out_len is not set. */
zdem_status zdem_lzss_decompress(const uint8_t *src, size_t n, uint8_t *dst,
                                 size_t dst_cap, size_t *out_len,
                                 zdem_error *err);

#endif
