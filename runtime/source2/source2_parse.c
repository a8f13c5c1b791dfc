#include "source2_parse.h"

#include <string.h>
#include "source2_pb.h"

typedef struct inner_ctx {
    const zdem_s2_parse_cbs *cbs;
    void *user;
    const zdem_s2_outer *outer;
    zdem_s2_game game;
    zdem_error *err;
} inner_ctx;

static zdem_status deliver_inner(void *p, const zdem_s2_inner *in)
{
    inner_ctx *c = p;
    zdem_status st;
    if (c->cbs->on_inner && (st = c->cbs->on_inner(c->user, c->game, c->outer, in)) != ZDEM_OK)
        return st;
    if (c->cbs->inner)
        return zdem_s2_dispatch_inner(c->game, in->type, in->data, in->size,
                                      c->cbs->inner, c->user, c->err);
    return ZDEM_OK;
}

static int is_packet(uint32_t cmd)
{
    return cmd == ZDEM_S2_DEM_PACKET || cmd == ZDEM_S2_DEM_SIGNONPACKET ||
           cmd == ZDEM_S2_DEM_FULLPACKET;
}

/* CDemoPacket.data (DEM_FullPacket nests a CDemoPacket). */
static zdem_status packet_data(uint32_t cmd, const uint8_t *p, size_t n,
                               zdem_view *data, zdem_error *err)
{
    zdem_status st;
    if (cmd == ZDEM_S2_DEM_FULLPACKET) {
        zdem_pb_CDemoFullPacket fp;
        st = zdem_pb_CDemoFullPacket_decode(p, n, &fp, NULL, NULL, err);
        *data = fp.packet.data;
    } else {
        zdem_pb_CDemoPacket pk;
        st = zdem_pb_CDemoPacket_decode(p, n, &pk, NULL, NULL, err);
        *data = pk.data;
    }
    return st;
}

/* A decoder's byte offset is relative to the payload; make it a file
 * offset. Inside a Snappy payload the decompressed position has no file
 * offset, so the payload's start is reported instead. */
static void to_file_offset(zdem_error *err, const zdem_s2_outer *m)
{
    if (!err || err->offset_is_bits)
        return;
    err->offset = m->compressed ? m->payload_offset : err->offset + m->payload_offset;
}

void zdem_s2_parser_init(zdem_s2_parser *p, const zdem_s2_parse_cbs *cbs,
                         void *user, uint8_t *scratch, size_t scratch_cap)
{
    p->cbs = cbs;
    p->user = user;
    p->game = cbs->game;
    p->scratch = scratch;
    p->scratch_cap = scratch_cap;
}

zdem_status zdem_s2_parse_frame(zdem_s2_parser *ps, const zdem_s2_outer *m,
                                zdem_error *err)
{
    const zdem_s2_parse_cbs *cbs = ps->cbs;
    size_t half = ps->scratch_cap / 2;
    int want_inner = cbs->on_inner || cbs->inner;
    int want_payload = zdem_s2_demo_wants(m->cmd, cbs->demo) ||
                       (want_inner && is_packet(m->cmd)) ||
                       (ps->game == ZDEM_S2_GAME_UNKNOWN && m->cmd == ZDEM_S2_DEM_FILEHEADER);
    const uint8_t *p;
    size_t n;
    zdem_status st;

    if (cbs->on_outer && (st = cbs->on_outer(ps->user, m)) != ZDEM_OK)
        return zdem_fail(err, st, m->offset, "outer frame handler failed");
    if (!want_payload)
        return ZDEM_OK;
    if ((st = zdem_s2_payload(m, ps->scratch, half, &p, &n, err)) != ZDEM_OK)
        return st;
    if (m->cmd == ZDEM_S2_DEM_FILEHEADER && ps->game == ZDEM_S2_GAME_UNKNOWN) {
        zdem_pb_CDemoFileHeader fh;
        zdem_error ignore;
        zdem_error_clear(&ignore);
        if (zdem_pb_CDemoFileHeader_decode(p, n, &fh, NULL, NULL, &ignore) == ZDEM_OK &&
            fh.has_game_directory)
            ps->game = zdem_s2_game_from_dir(fh.game_directory.ptr, fh.game_directory.len);
    }
    if (cbs->demo && zdem_s2_demo_wants(m->cmd, cbs->demo)) {
        st = zdem_s2_dispatch_demo(m->cmd, p, n, cbs->demo, ps->user, err);
        if (st != ZDEM_OK) {
            to_file_offset(err, m);
            return st;
        }
    }
    if (want_inner && is_packet(m->cmd)) {
        inner_ctx ic;
        zdem_view data;
        if ((st = packet_data(m->cmd, p, n, &data, err)) != ZDEM_OK) {
            to_file_offset(err, m);
            return st;
        }
        ic.cbs = cbs;
        ic.user = ps->user;
        ic.outer = m;
        ic.game = ps->game;
        ic.err = err;
        return zdem_s2_for_each_inner(data.ptr, data.len, cbs->ordered,
                                      ps->scratch + half, ps->scratch_cap - half,
                                      deliver_inner, &ic, err);
    }
    return ZDEM_OK;
}

zdem_status zdem_s2_parse(const uint8_t *file, size_t size,
                          const zdem_s2_parse_cbs *cbs, void *user,
                          uint8_t *scratch, size_t scratch_cap,
                          zdem_error *err)
{
    zdem_s2_header hdr;
    zdem_s2_reader r;
    zdem_s2_outer m;
    zdem_s2_parser ps;
    zdem_status st;
    int rc;

    if ((st = zdem_s2_read_header(file, size, &hdr, err)) != ZDEM_OK)
        return st;
    zdem_s2_parser_init(&ps, cbs, user, scratch, scratch_cap);
    zdem_s2_reader_init(&r, file, size);
    while ((rc = zdem_s2_next(&r, &m, err)) == 1)
        if ((st = zdem_s2_parse_frame(&ps, &m, err)) != ZDEM_OK)
            return st;
    return rc < 0 ? (err ? err->code : ZDEM_ERR_CORRUPT) : ZDEM_OK;
}
