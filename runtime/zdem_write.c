/* zdem_out_buffer_write: a writer's output into a caller's buffer. */
#include "zdem_write.h"

#include <string.h>

int zdem_out_buffer_write(void *user, const void *data, size_t len)
{
    zdem_out_buffer *b = (zdem_out_buffer *)user;
    if (b->full || len > b->cap - b->len) {
        b->full = 1;
        return 1;
    }
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}
