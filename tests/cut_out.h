/* A growable output buffer for the cut tests: the writers' output
 * callback appends a clip here (test code, so malloc is fine). */
#ifndef ZDEM_TEST_CUT_OUT_H
#define ZDEM_TEST_CUT_OUT_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct out {
    uint8_t *d;
    size_t n, cap;
} out;

static int to_out(void *u, const void *data, size_t len)
{
    out *o = u;
    if (o->n + len > o->cap) {
        uint8_t *grown;
        o->cap = (o->n + len) * 2;
        grown = realloc(o->d, o->cap);
        if (!grown) {
            fprintf(stderr, "cut test: out of memory\n");
            abort();
        }
        o->d = grown;
    }
    memcpy(o->d + o->n, data, len);
    o->n += len;
    return 0;
}
#endif
