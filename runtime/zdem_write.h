/* Output of the writers (zdem_q3_writer, zdem_tw_writer, zdem_s2_writer):
 * bytes go to a callback as they are made, or into a caller's buffer
 * through zdem_out_buffer_write. No allocation. */
#ifndef ZDEM_WRITE_H
#define ZDEM_WRITE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Takes len bytes of output; nonzero stops the writer (ZDEM_ERR_ABORTED,
 * or ZDEM_ERR_NO_SPACE from zdem_out_buffer_write). */
typedef int (*zdem_write_fn)(void *user, const void *data, size_t len);

/* A caller's buffer as the output: pass zdem_out_buffer_write and a
 * zdem_out_buffer (data, cap; len = 0) as its user. A write that does
 * not fit stores nothing and sets full (the writer then fails with
 * ZDEM_ERR_NO_SPACE); len is the bytes kept. */
typedef struct zdem_out_buffer {
    uint8_t *data;
    size_t cap;
    size_t len;
    int full;
} zdem_out_buffer;

int zdem_out_buffer_write(void *user, const void *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif
