/* CRC32 (zlib polynomial) and SHA-256, used to verify the map embedded in a
 * Teeworlds demo against its header. Small, table-light, no allocation:
 * the layer must build for microcontrollers without a crypto library. */
#ifndef ZDEM_TEEWORLDS_HASH_H
#define ZDEM_TEEWORLDS_HASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Standard CRC-32 (reflected 0xEDB88320, init/xorout 0xFFFFFFFF).
 * Chain calls by passing the previous result as `crc` (start with 0). */
uint32_t zdem_tw_crc32(uint32_t crc, const uint8_t *data, size_t n);

typedef struct zdem_tw_sha256 {
    uint32_t h[8];
    uint64_t total;    /* bytes fed so far */
    uint8_t buf[64];
    size_t fill;
} zdem_tw_sha256;

void zdem_tw_sha256_init(zdem_tw_sha256 *s);
void zdem_tw_sha256_update(zdem_tw_sha256 *s, const uint8_t *data, size_t n);
void zdem_tw_sha256_final(zdem_tw_sha256 *s, uint8_t out[32]);
/* One-shot helper. */
void zdem_tw_sha256_once(const uint8_t *data, size_t n, uint8_t out[32]);

#ifdef __cplusplus
}
#endif

#endif
