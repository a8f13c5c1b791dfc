/* The push assembler's declined frames (sizer returns ZDEM_PUSH_SKIP): a
 * toy framing ([len][type][len - 2 bytes], type 0xEE declined) fed in
 * pieces of 1..all bytes through an 8-byte gathering buffer, with
 * declined frames of up to 255 bytes (never gathered) between wanted
 * ones. The sink must see exactly the wanted frames, in order, at their
 * file offsets and with their bytes (checked against a walk of the stream
 * written here); an input cut inside a declined frame is truncated; and a
 * wanted frame over the buffer still fails with NO_SPACE. */
#include <string.h>
#include "zdem_push.h"
#include "zdem_test.h"

#define DECLINED 0xEE

typedef struct seen {
    uint64_t off[64];
    uint8_t type[64];
    size_t len[64];
    int bad_bytes;
    unsigned n;
} seen;

static int sizer(void *ctx, const uint8_t *p, size_t avail, size_t *len, zdem_error *err)
{
    (void)ctx;
    if (avail < 2)
        return 0;
    if (p[0] < 2) {
        zdem_fail(err, ZDEM_ERR_CORRUPT, 0, "toy frame shorter than its header");
        return -1;
    }
    *len = p[0];
    return p[1] == DECLINED ? ZDEM_PUSH_SKIP : 1;
}

static zdem_status sink(void *ctx, const uint8_t *frame, size_t len, uint64_t offset,
                        zdem_error *err)
{
    seen *s = ctx;
    size_t i;
    (void)err;
    if (s->n < 64) {
        s->off[s->n] = offset;
        s->type[s->n] = frame[1];
        s->len[s->n] = len;
        s->n++;
    }
    for (i = 2; i < len; i++) /* payload byte = type + index */
        if (frame[i] != (uint8_t)(frame[1] + i))
            s->bad_bytes++;
    return ZDEM_OK;
}

static size_t put_frame(uint8_t *b, size_t at, uint8_t len, uint8_t type)
{
    size_t i;
    b[at] = len;
    b[at + 1] = type;
    for (i = 2; i < len; i++)
        b[at + i] = (uint8_t)(type + i);
    return at + len;
}

int main(void)
{
    static uint8_t stream[4096];
    uint8_t buf[8];
    size_t n = 0, pieces[] = {1, 2, 3, 7, 64, 4096}, k;
    uint64_t want_off[64];
    uint8_t want_type[64];
    unsigned nwant = 0, i;
    /* wanted frames of 2..8 bytes between declined ones of 9..255 */
    for (i = 0; i < 20; i++) {
        if (i % 3 == 1) {
            n = put_frame(stream, n, (uint8_t)(9 + i * 12), DECLINED);
        } else {
            want_off[nwant] = n;
            want_type[nwant++] = (uint8_t)(i + 1);
            n = put_frame(stream, n, (uint8_t)(2 + i % 7), (uint8_t)(i + 1));
        }
    }
    n = put_frame(stream, n, 255, DECLINED); /* ends on a declined frame */

    for (k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        zdem_push ps;
        seen s;
        zdem_error err;
        zdem_status st = ZDEM_OK;
        size_t off;
        memset(&s, 0, sizeof s);
        zdem_error_clear(&err);
        zdem_push_init(&ps, buf, sizeof buf, sizer, sink, &s);
        for (off = 0; off < n && st == ZDEM_OK; off += pieces[k])
            st = zdem_push_feed(&ps, stream + off, n - off < pieces[k] ? n - off : pieces[k], &err);
        CHECK_EQ_INT(st, ZDEM_OK);
        CHECK_EQ_INT(zdem_push_end(&ps, &err), ZDEM_OK);
        CHECK_EQ_INT(s.n, nwant);
        CHECK_EQ_INT(s.bad_bytes, 0);
        for (i = 0; i < nwant && i < s.n; i++) {
            CHECK_EQ_INT(s.off[i], want_off[i]);
            CHECK_EQ_INT(s.type[i], want_type[i]);
        }

        /* cut inside the last (declined) frame: truncated at its offset */
        memset(&s, 0, sizeof s);
        zdem_error_clear(&err);
        zdem_push_init(&ps, buf, sizeof buf, sizer, sink, &s);
        st = ZDEM_OK;
        for (off = 0; off < n - 100 && st == ZDEM_OK; off += pieces[k])
            st = zdem_push_feed(&ps, stream + off,
                                n - 100 - off < pieces[k] ? n - 100 - off : pieces[k], &err);
        CHECK_EQ_INT(st, ZDEM_OK);
        CHECK_EQ_INT(zdem_push_end(&ps, &err), ZDEM_ERR_TRUNCATED);
        CHECK_EQ_INT(err.offset, n - 255);
        CHECK_EQ_INT(s.n, nwant);
    }

    /* the whole stream in one call, ended (a mapped file) */
    {
        zdem_push ps;
        seen s;
        zdem_error err;
        memset(&s, 0, sizeof s);
        zdem_error_clear(&err);
        zdem_push_init(&ps, buf, sizeof buf, sizer, sink, &s);
        CHECK_EQ_INT(zdem_push_feed_last(&ps, stream, n, &err), ZDEM_OK);
        CHECK_EQ_INT(s.n, nwant);
    }

    /* a wanted frame over the buffer is still an error */
    {
        zdem_push ps;
        seen s;
        zdem_error err;
        uint8_t big[40];
        memset(&s, 0, sizeof s);
        zdem_error_clear(&err);
        put_frame(big, 0, 40, 7);
        zdem_push_init(&ps, buf, sizeof buf, sizer, sink, &s);
        CHECK_EQ_INT(zdem_push_feed(&ps, big, 5, &err), ZDEM_ERR_NO_SPACE);
    }
    return zt_finish();
}
