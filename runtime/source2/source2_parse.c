#include "source2_parse.h"

#include <string.h>
#include "source2_pb.h"
#include "zdem_snappy.h"

typedef struct parser_inner_ctx {
    zdem_s2_parser *ps;
    const zdem_s2_outer *outer;
    uint64_t data_pos; /* of the packet data in the payload */
} parser_inner_ctx;

/* Counts a damage kind at a position inside the current frame's payload. */
static void damage(zdem_s2_parser *ps, zdem_s2_warn_kind k, zdem_error *e,
                   uint64_t base, const zdem_s2_outer *m)
{
    zdem_error_rebase(e, base);
    zdem_error_in_frame(e, m->offset);
    zdem_s2_warn(&ps->warn, k, e);
}

static zdem_status deliver_inner(void *p, const zdem_s2_inner *in)
{
    parser_inner_ctx *c = p;
    zdem_s2_parser *ps = c->ps;
    const zdem_s2_parse_cbs *cbs = ps->cbs;
    zdem_error e;
    zdem_status st;
    if (!in->data) { /* larger than the scratch: this one only */
        zdem_error_clear(&e);
        zdem_fail(&e, ZDEM_ERR_LIMIT, 0, "inner message larger than the scratch: skipped");
        damage(ps, ZDEM_S2_W_MESSAGE_LIMIT, &e, c->data_pos + in->data_bit / 8u, c->outer);
        return ZDEM_OK;
    }
    if (cbs->on_inner && (st = cbs->on_inner(ps->user, ps->game, c->outer, in)) != ZDEM_OK)
        return st;
    if (!cbs->inner)
        return ZDEM_OK;
    zdem_error_clear(&e);
    st = zdem_s2_dispatch_inner(ps->game, in->type, in->data, in->size, cbs->inner,
                                ps->user, &e);
    if (st == ZDEM_ERR_ABORTED)
        return st;
    if (st != ZDEM_OK)
        damage(ps, ZDEM_S2_W_BAD_MESSAGES, &e, c->data_pos + in->data_bit / 8u, c->outer);
    return ZDEM_OK;
}

static int is_packet(uint32_t cmd)
{
    return cmd == ZDEM_S2_DEM_PACKET || cmd == ZDEM_S2_DEM_SIGNONPACKET ||
           cmd == ZDEM_S2_DEM_FULLPACKET;
}

/* CDemoPacket.data (DEM_FullPacket nests a CDemoPacket). */
static zdem_status parser_packet_data(uint32_t cmd, const uint8_t *p, size_t n,
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

static zdem_status parser_on_frame(void *ctx, const zdem_s2_outer *m, zdem_error *err)
{
    return zdem_s2_parse_frame((zdem_s2_parser *)ctx, m, err);
}

static void parser_on_skip(void *ctx, uint64_t offset, uint64_t len)
{
    (void)len;
    zdem_s2_warn_skipped(&((zdem_s2_parser *)ctx)->warn, offset);
}

size_t zdem_s2_parser_size(void) { return sizeof(zdem_s2_parser); }

void zdem_s2_parser_init(zdem_s2_parser *p, const zdem_s2_parse_cbs *cbs,
                         void *user, uint8_t *scratch, size_t scratch_cap,
                         uint8_t *gather, size_t gather_cap)
{
    p->cbs = cbs;
    p->user = user;
    p->game = cbs->game;
    p->scratch = scratch;
    p->scratch_cap = scratch_cap;
    memset(&p->warn, 0, sizeof p->warn);
    zdem_s2_work_init(&p->work);
    zdem_s2_push_init(&p->push, parser_on_frame, parser_on_skip, p, gather, gather ? gather_cap : 0);
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
    zdem_error e;

    if (m->payload_offset + m->stored_size > ps->work.input)
        ps->work.input = m->payload_offset + m->stored_size;
    if (cbs->on_outer && (st = cbs->on_outer(ps->user, m)) != ZDEM_OK)
        return zdem_fail(err, st, m->offset, "stopped by the frame callback");
    if (!want_payload)
        return ZDEM_OK;
    zdem_error_clear(&e);
    {
        /* what a frame claims is taken from the budget before it is
         * decompressed (a claim over the buffer is a frame_limit below) */
        size_t claim = 0;
        if (m->compressed &&
            zdem_snappy_uncompressed_length(m->stored, m->stored_size, &claim, &e) == ZDEM_OK &&
            claim <= half && !zdem_s2_work_take(&ps->work, ZDEM_S2_WORK_EXPAND, claim)) {
            zdem_fail(&e, ZDEM_ERR_LIMIT, m->offset,
                      "work limit max_expand_per_byte: frame not decompressed");
            zdem_s2_warn(&ps->warn, ZDEM_S2_W_WORK_LIMIT, &e);
            return ZDEM_OK;
        }
        zdem_error_clear(&e);
    }
    if ((st = zdem_s2_payload(m, ps->scratch, half, &p, &n, &e)) != ZDEM_OK) {
        /* a Snappy error's offset is in the stored bytes: a file offset */
        zdem_s2_warn(&ps->warn, st == ZDEM_ERR_NO_SPACE ? ZDEM_S2_W_FRAME_LIMIT
                                                         : ZDEM_S2_W_BAD_FRAMES, &e);
        return ZDEM_OK;
    }
    if (m->cmd == ZDEM_S2_DEM_FILEHEADER && ps->game == ZDEM_S2_GAME_UNKNOWN) {
        zdem_pb_CDemoFileHeader fh;
        zdem_error ignore;
        zdem_error_clear(&ignore);
        if (zdem_pb_CDemoFileHeader_decode(p, n, &fh, NULL, NULL, &ignore) == ZDEM_OK &&
            fh.has_game_directory)
            ps->game = zdem_s2_game_from_dir(fh.game_directory.ptr, fh.game_directory.len);
    }
    if (cbs->demo && zdem_s2_demo_wants(m->cmd, cbs->demo)) {
        st = zdem_s2_dispatch_demo(m->cmd, p, n, cbs->demo, ps->user, &e);
        if (st == ZDEM_ERR_ABORTED)
            return zdem_fail(err, st, m->offset, "stopped by a message callback");
        if (st != ZDEM_OK) {
            damage(ps, ZDEM_S2_W_BAD_FRAMES, &e, 0, m);
            return ZDEM_OK;
        }
    }
    if (want_inner && is_packet(m->cmd)) {
        parser_inner_ctx ic;
        zdem_view data;
        if ((st = parser_packet_data(m->cmd, p, n, &data, &e)) != ZDEM_OK) {
            damage(ps, ZDEM_S2_W_BAD_FRAMES, &e, 0, m);
            return ZDEM_OK;
        }
        ic.ps = ps;
        ic.outer = m;
        ic.data_pos = data.ptr ? (uint64_t)(data.ptr - p) : 0;
        st = zdem_s2_for_each_inner_work(data.ptr, data.len, cbs->ordered, NULL,
                                         ps->scratch + half, ps->scratch_cap - half,
                                         deliver_inner, &ic, &ps->work, &e);
        if (st == ZDEM_ERR_ABORTED)
            return zdem_fail(err, st, m->offset, "stopped by a message callback");
        if (st == ZDEM_ERR_LIMIT) /* the budget: the rest of the packet is skipped */
            damage(ps, ZDEM_S2_W_WORK_LIMIT, &e, ic.data_pos, m);
        else if (st != ZDEM_OK)
            damage(ps, ZDEM_S2_W_BAD_PACKETS, &e, ic.data_pos, m);
    }
    return ZDEM_OK;
}


zdem_status zdem_s2_parser_feed(zdem_s2_parser *p, const uint8_t *data,
                                size_t n, zdem_error *err)
{
    return zdem_s2_push_feed(&p->push, data, n, err);
}

zdem_status zdem_s2_parser_end(zdem_s2_parser *p, zdem_error *err)
{
    return zdem_s2_warn_result(&p->warn, zdem_s2_push_end(&p->push, err), err);
}

zdem_status zdem_s2_parser_file(zdem_s2_parser *p, const uint8_t *file,
                                size_t size, zdem_error *err)
{
    return zdem_s2_warn_result(&p->warn, zdem_s2_push_file(&p->push, file, size, err), err);
}

zdem_status zdem_s2_parse(const uint8_t *file, size_t size,
                          const zdem_s2_parse_cbs *cbs, void *user,
                          uint8_t *scratch, size_t scratch_cap,
                          zdem_error *err)
{
    zdem_s2_parser ps;
    zdem_s2_parser_init(&ps, cbs, user, scratch, scratch_cap, NULL, 0);
    return zdem_s2_parser_file(&ps, file, size, err);
}
