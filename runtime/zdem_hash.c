/* The hash mixer, out of line: it is called from a few places, none of
 * them tight enough to need it inlined, and each inlined copy costs a
 * microcontroller build about 80 bytes of flash. */
#include "zdem_hash.h"

uint64_t zdem_hash_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}
