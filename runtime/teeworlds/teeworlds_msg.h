/* Teeworlds net messages as recorded in demo message chunks: the chunk's
 * ints, written back as little-endian bytes, are the raw message:
 *   int (id << 1 | system), [16-byte UUID when id == 0], fields...
 * Fields are variable-length ints and NUL-terminated strings; the typed
 * decoders in generated/teeworlds_proto.c read them with this unpacker.
 * Strings are views into the caller's buffer, never copied. */
#ifndef ZDEM_TEEWORLDS_MSG_H
#define ZDEM_TEEWORLDS_MSG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "teeworlds_demo.h"
#include "teeworlds_huffman.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zdem_tw_unpacker {
    const uint8_t *start, *p, *end;
    int error; /* sticky: a field ran past the end */
} zdem_tw_unpacker;

static inline void zdem_tw_unp_init(zdem_tw_unpacker *u, const uint8_t *p, size_t n)
{
    u->start = u->p = p;
    u->end = p + n;
    u->error = 0;
}

static inline int32_t zdem_tw_unp_int(zdem_tw_unpacker *u)
{
    int32_t v = 0;
    if (u->error || zdem_tw_int_read(&u->p, u->end, &v) != ZDEM_OK) {
        u->error = 1;
        return 0;
    }
    return v;
}

static inline zdem_tw_str zdem_tw_unp_str(zdem_tw_unpacker *u)
{
    zdem_tw_str s = {0, 0};
    const uint8_t *z;
    if (u->error || u->p >= u->end) {
        u->error = 1;
        return s;
    }
    z = (const uint8_t *)memchr(u->p, 0, (size_t)(u->end - u->p));
    if (!z) {
        u->error = 1;
        return s;
    }
    s.p = u->p;
    s.n = (size_t)(z - u->p);
    u->p = z + 1;
    return s;
}

static inline zdem_tw_str zdem_tw_unp_rest(zdem_tw_unpacker *u)
{
    zdem_tw_str s;
    s.p = u->p;
    s.n = u->error ? 0 : (size_t)(u->end - u->p);
    u->p = u->end;
    return s;
}

typedef struct zdem_tw_msg {
    int sys;              /* 1: system message, 0: game message */
    int id;               /* 0: UUID-identified (see uuid) */
    uint8_t uuid[16];
    const uint8_t *body;  /* fields, after id (and UUID) */
    size_t body_len;
} zdem_tw_msg;

/* Reads the message id (and UUID). Errors: TRUNCATED. */
zdem_status zdem_tw_msg_parse(const uint8_t *p, size_t n, zdem_tw_msg *out, zdem_error *err);

/* Writes ints as little-endian bytes (the layout the game recorded). */
void zdem_tw_ints_to_bytes(const int32_t *ints, size_t n, uint8_t *out);

/* Teeworlds packs short strings into object ints: 4 bytes per int, most
 * significant first, each biased by +128; the last byte is forced to 0.
 * Writes at most 4*n bytes + NUL into out (cap >= 4*n + 1). Returns the
 * length. */
size_t zdem_tw_ints_to_str(const int32_t *ints, size_t n, char *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
