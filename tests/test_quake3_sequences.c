/* Hostile message sequence numbers (they come straight from the framing
 * block headers): a real demo with sequences rewritten to jump across the
 * int32 range must parse or fail cleanly, with no signed overflow (UBSan
 * aborts the test on one). Regression for a fuzz find in the snapshot ring
 * invalidation. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quake3.h"
#include "zdem_test.h"

static void put_le32(uint8_t *p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    p[0] = (uint8_t)u;
    p[1] = (uint8_t)(u >> 8);
    p[2] = (uint8_t)(u >> 16);
    p[3] = (uint8_t)(u >> 24);
}

static void run(const uint8_t *file, size_t size, const int32_t *seqs, size_t nseq,
                size_t first, void *mem)
{
    uint8_t *copy = malloc(size);
    size_t pos = 0, msg = 0;
    zdem_q3_reader r;
    zdem_q3_parser *p;
    zdem_error err;
    zdem_status st;
    memcpy(copy, file, size);
    /* rewrite the sequence of messages first .. first + nseq - 1 */
    while (pos + 8 <= size) {
        int32_t len = (int32_t)((uint32_t)copy[pos + 4] | ((uint32_t)copy[pos + 5] << 8) |
                                ((uint32_t)copy[pos + 6] << 16) | ((uint32_t)copy[pos + 7] << 24));
        if (len < 0 || (size_t)len > size - pos - 8)
            break;
        if (msg >= first && msg < first + nseq)
            put_le32(copy + pos, seqs[msg - first]);
        pos += 8 + (size_t)len;
        msg++;
    }
    zdem_error_clear(&err);
    p = zdem_q3_parser_init(mem, zdem_q3_parser_size(), 68, NULL, NULL, &err);
    if (CHECK(p != NULL)) {
        st = zdem_q3_parse_file(p, copy, size, &r, &err);
        CHECK(st == ZDEM_OK || err.msg != NULL);
    }
    free(copy);
}

int main(void)
{
    size_t size = 0;
    uint8_t *file = zt_read_file(zt_corpus_path("q3/q3-cpma_udt-core-gameplay-dev.dm_68"), &size);
    void *mem = malloc(zdem_q3_parser_size());
    static const int32_t jumps[][4] = {
        {INT32_MAX - 1, INT32_MAX, INT32_MIN, INT32_MIN + 1},
        {1000000, INT32_MIN + 3, INT32_MAX, 5},
        {INT32_MIN, INT32_MIN + 2, INT32_MIN + 1, INT32_MAX},
        {-5, -4, INT32_MAX - 40, INT32_MIN + 40},
    };
    size_t i, first;
    if (!CHECK(file && mem))
        return zt_finish();
    for (i = 0; i < sizeof jumps / sizeof jumps[0]; i++)
        for (first = 1; first < 20; first += 3)
            run(file, size, jumps[i], 4, first, mem);
    free(mem);
    free(file);
    return zt_finish();
}
