#include "teeworlds_msg.h"

zdem_status zdem_tw_msg_parse(const uint8_t *p, size_t n, zdem_tw_msg *out, zdem_error *err)
{
    zdem_tw_unpacker u;
    int32_t v;
    memset(out, 0, sizeof *out);
    zdem_tw_unp_init(&u, p, n);
    v = zdem_tw_unp_int(&u);
    if (u.error)
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, 0, "message: missing id");
    out->sys = (int)(v & 1);
    /* Shift as unsigned: the id is a plain 31-bit field. */
    out->id = (int)((uint32_t)v >> 1);
    if (out->id == 0) {
        if ((size_t)(u.end - u.p) < 16)
            return zdem_fail(err, ZDEM_ERR_TRUNCATED, (size_t)(u.p - p),
                             "message: UUID truncated");
        memcpy(out->uuid, u.p, 16);
        u.p += 16;
    }
    out->body = u.p;
    out->body_len = (size_t)(u.end - u.p);
    return ZDEM_OK;
}

void zdem_tw_ints_to_bytes(const int32_t *ints, size_t n, uint8_t *out)
{
    size_t i;
    for (i = 0; i < n; i++) {
        uint32_t v = (uint32_t)ints[i];
        out[4 * i] = (uint8_t)v;
        out[4 * i + 1] = (uint8_t)(v >> 8);
        out[4 * i + 2] = (uint8_t)(v >> 16);
        out[4 * i + 3] = (uint8_t)(v >> 24);
    }
}

size_t zdem_tw_ints_to_str(const int32_t *ints, size_t n, char *out, size_t cap)
{
    size_t i, k = 0;
    if (cap == 0)
        return 0;
    for (i = 0; i < n; i++) {
        uint32_t v = (uint32_t)ints[i];
        int b;
        for (b = 3; b >= 0; b--) {
            uint8_t c = (uint8_t)(((v >> (8 * b)) & 0xFFu) - 128u);
            /* The game zeroes the final byte; a NUL ends the string. */
            if (c == 0 || (i == n - 1 && b == 0) || k + 1 >= cap) {
                out[k] = 0;
                return k;
            }
            out[k++] = (char)c;
        }
    }
    out[k] = 0;
    return k;
}
