#include "source2_demo.h"

#include <string.h>
#include "zdem_snappy.h"
#include "zdem_varint.h"

static const uint8_t s2_magic[8] = {'P', 'B', 'D', 'E', 'M', 'S', '2', 0};

zdem_status zdem_s2_read_header(const uint8_t *file, size_t size,
                                zdem_s2_header *hdr, zdem_error *err)
{
    if (size < ZDEM_S2_HEADER_SIZE) {
        if (size < 8 && memcmp(file, s2_magic, size) != 0)
            return zdem_fail(err, ZDEM_ERR_BAD_MAGIC, 0, "not a Source 2 demo (magic is not PBDEMS2)");
        return zdem_fail(err, ZDEM_ERR_TRUNCATED, size, "file shorter than the 16-byte Source 2 header");
    }
    if (memcmp(file, s2_magic, 8) != 0)
        return zdem_fail(err, ZDEM_ERR_BAD_MAGIC, 0, "not a Source 2 demo (magic is not PBDEMS2)");
    hdr->fileinfo_offset = zdem_load_le32(file + 8);
    hdr->spawngroups_offset = zdem_load_le32(file + 12);
    return ZDEM_OK;
}

void zdem_s2_reader_init(zdem_s2_reader *r, const uint8_t *file, size_t size)
{
    r->file = file;
    r->size = size;
    r->pos = size < ZDEM_S2_HEADER_SIZE ? size : ZDEM_S2_HEADER_SIZE;
    r->index = 0;
    r->stopped = 0;
}

int zdem_s2_read_frame(const uint8_t *file, size_t size, size_t pos,
                       zdem_s2_outer *out, size_t *next, zdem_error *err)
{
    const uint8_t *p = file + pos, *end = file + size;
    uint32_t cmd, tick, len;
    zdem_status st;

    if ((st = zdem_varuint32(&p, end, &cmd)) != ZDEM_OK) {
        zdem_fail(err, st, (uint64_t)(p - file), st == ZDEM_ERR_TRUNCATED
                  ? "truncated frame: command" : "bad varint in frame command");
        return -1;
    }
    if ((st = zdem_varuint32(&p, end, &tick)) != ZDEM_OK) {
        zdem_fail(err, st, (uint64_t)(p - file), st == ZDEM_ERR_TRUNCATED
                  ? "truncated frame: tick" : "bad varint in frame tick");
        return -1;
    }
    if ((st = zdem_varuint32(&p, end, &len)) != ZDEM_OK) {
        zdem_fail(err, st, (uint64_t)(p - file), st == ZDEM_ERR_TRUNCATED
                  ? "truncated frame: size" : "bad varint in frame size");
        return -1;
    }
    if (len > (size_t)(end - p)) {
        zdem_fail(err, ZDEM_ERR_TRUNCATED, pos,
                  "frame runs past the end of the file (cut short)");
        return -1;
    }
    out->offset = pos;
    out->compressed = (cmd & ZDEM_S2_CMD_COMPRESSED) != 0;
    out->cmd = cmd & ~ZDEM_S2_CMD_COMPRESSED;
    out->tick = tick == 0xFFFFFFFFu ? -1 : (int64_t)tick; /* pregame */
    out->payload_offset = (uint64_t)(p - file);
    out->stored = p;
    out->stored_size = len;
    *next = (size_t)(p - file) + len;
    return 1;
}

int zdem_s2_next(zdem_s2_reader *r, zdem_s2_outer *out, zdem_error *err)
{
    size_t next;
    if (r->pos >= r->size)
        return 0;
    if (zdem_s2_read_frame(r->file, r->size, r->pos, out, &next, err) < 0)
        return -1;
    out->index = r->index++;
    r->pos = next;
    if (out->cmd == ZDEM_S2_DEM_STOP)
        r->stopped = 1;
    return 1;
}

zdem_status zdem_s2_payload(const zdem_s2_outer *m, uint8_t *scratch,
                            size_t scratch_cap, const uint8_t **data,
                            size_t *size, zdem_error *err)
{
    zdem_error inner;
    zdem_status st;
    if (!m->compressed) {
        *data = m->stored;
        *size = m->stored_size;
        return ZDEM_OK;
    }
    zdem_error_clear(&inner);
    st = zdem_snappy_decompress(m->stored, m->stored_size, scratch, scratch_cap,
                                size, &inner);
    if (st == ZDEM_ERR_NO_SPACE) /* a limit of the caller's: name the frame */
        return zdem_fail(err, st, m->offset, "frame decompresses to more than its buffer");
    if (st != ZDEM_OK)
        /* Report the file offset: the Snappy offset is relative to the payload. */
        return zdem_fail(err, st, m->payload_offset + inner.offset,
                         inner.msg ? inner.msg : "bad compressed payload");
    *data = scratch;
    return ZDEM_OK;
}

zdem_status zdem_s2_read_fileinfo(const uint8_t *file, size_t size,
                                  const zdem_s2_header *hdr, uint8_t *scratch,
                                  size_t scratch_cap, const uint8_t **data,
                                  size_t *size_out, zdem_error *err)
{
    zdem_s2_outer m;
    size_t next;
    zdem_error inner;
    if (hdr->fileinfo_offset < ZDEM_S2_HEADER_SIZE || hdr->fileinfo_offset >= size)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, 8, "DEM_FileInfo offset in header is out of range");
    zdem_error_clear(&inner);
    if (zdem_s2_read_frame(file, size, hdr->fileinfo_offset, &m, &next, &inner) < 0)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, hdr->fileinfo_offset,
                         "DEM_FileInfo offset in header does not point at a whole frame");
    if (m.cmd != ZDEM_S2_DEM_FILEINFO)
        return zdem_fail(err, ZDEM_ERR_CORRUPT, hdr->fileinfo_offset,
                         "DEM_FileInfo offset in header points at another command");
    return zdem_s2_payload(&m, scratch, scratch_cap, data, size_out, err);
}

/* ---- inner messages ------------------------------------------------------ */

void zdem_s2_inner_init(zdem_s2_inner_reader *ir, const uint8_t *data,
                        size_t size, uint8_t *scratch, size_t scratch_cap)
{
    zdem_bits_init(&ir->br, data, size);
    ir->scratch = scratch;
    ir->scratch_cap = scratch_cap;
    ir->scratch_used = 0;
    ir->index = 0;
}

/* Reads a frame header; leaves the reader at the payload. */
static int inner_header(zdem_s2_inner_reader *ir, zdem_s2_inner *out,
                        zdem_error *err)
{
    zdem_bits *br = &ir->br;
    uint64_t start = br->pos;
    uint32_t type, size;

    /* Packets are padded to a byte; fewer than 8 bits left is the end. */
    if (zdem_bits_left(br) < 8)
        return 0;
    type = zdem_bits_read_ubitvar(br);
    size = zdem_bits_read_varuint32(br);
    if (br->overflow) {
        zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, start, "truncated inner message header");
        return -1;
    }
    if (size > zdem_bits_left(br) / 8u) {
        zdem_fail_bits(err, ZDEM_ERR_TRUNCATED, start, "inner message size exceeds packet");
        return -1;
    }
    out->index = ir->index++;
    out->type = type;
    out->bit_offset = start;
    out->data_bit = br->pos;
    out->size = size;
    out->data = 0;
    return 1;
}

static int inner_payload(zdem_s2_inner_reader *ir, zdem_s2_inner *out,
                         zdem_error *err)
{
    zdem_bits *br = &ir->br;
    if ((br->pos & 7u) == 0) {
        out->data = br->data + (br->pos >> 3);
        br->pos += (size_t)out->size * 8u;
        return 1;
    }
    /* Unaligned: copy out. Scratch is reused per message. */
    if (out->size > ir->scratch_cap) {
        zdem_fail_bits(err, ZDEM_ERR_NO_SPACE, out->bit_offset,
                       "scratch too small for an unaligned inner message");
        return -1;
    }
    zdem_bits_read_bytes(br, ir->scratch, out->size);
    out->data = ir->scratch;
    return 1;
}

int zdem_s2_inner_next(zdem_s2_inner_reader *ir, zdem_s2_inner *out,
                       zdem_error *err)
{
    int rc = inner_header(ir, out, err);
    return rc == 1 ? inner_payload(ir, out, err) : rc;
}

zdem_s2_priority zdem_s2_inner_priority(uint32_t type)
{
    switch (type) {
    case 44: /* svc_CreateStringTable */
    case 45: /* svc_UpdateStringTable */
    case 51: /* svc_ClearAllStringTables: in order with the creates */
        return ZDEM_S2_PRIO_STRINGTABLES;
    case 55: /* svc_PacketEntities */
        return ZDEM_S2_PRIO_ENTITIES;
    default:
        return ZDEM_S2_PRIO_NORMAL;
    }
}

zdem_status zdem_s2_for_each_inner(const uint8_t *data, size_t size,
                                   int ordered, uint8_t *scratch,
                                   size_t scratch_cap, zdem_s2_inner_fn fn,
                                   void *user, zdem_error *err)
{
    return zdem_s2_for_each_inner_of(data, size, ordered, NULL, scratch, scratch_cap, fn,
                                     user, err);
}

void zdem_s2_work_init(zdem_s2_work *w)
{
    memset(w, 0, sizeof *w);
}

static uint32_t work_default(zdem_s2_work_kind k)
{
    return k == ZDEM_S2_WORK_EXPAND ? ZDEM_S2_WORK_EXPAND_DEFAULT
           : k == ZDEM_S2_WORK_ITEMS ? ZDEM_S2_WORK_ITEMS_DEFAULT
                                     : ZDEM_S2_WORK_FIELDS_DEFAULT;
}

uint64_t zdem_s2_work_cap(const zdem_s2_work *w, zdem_s2_work_kind k)
{
    uint64_t in = w->input + ZDEM_S2_WORK_SLACK;
    uint32_t per = w->per_byte[k] ? w->per_byte[k] : work_default(k);
    /* input < 2^32 x per_byte cannot overflow; past it, no bound */
    return in > (UINT64_MAX >> 32) ? UINT64_MAX : in * per;
}

uint64_t zdem_s2_work_left(const zdem_s2_work *w, zdem_s2_work_kind k)
{
    uint64_t all = zdem_s2_work_cap(w, k);
    return all > w->used[k] ? all - w->used[k] : 0u;
}

int zdem_s2_work_take(zdem_s2_work *w, zdem_s2_work_kind k, uint64_t n)
{
    if (n > zdem_s2_work_left(w, k))
        return 0;
    w->used[k] += n;
    return 1;
}

zdem_status zdem_s2_for_each_inner_of(const uint8_t *data, size_t size,
                                      int ordered, zdem_s2_inner_want want,
                                      uint8_t *scratch, size_t scratch_cap,
                                      zdem_s2_inner_fn fn, void *user,
                                      zdem_error *err)
{
    return zdem_s2_for_each_inner_work(data, size, ordered, want, scratch, scratch_cap, fn,
                                       user, NULL, err);
}

/* Headers of a packet's messages kept from the first pass, so that the
 * later priority passes visit them without reading the framing again: the
 * type, the size and the header's length in bits (a header starts where
 * the payload before it ends). A packet with more messages than this is
 * read again in every pass, as it always was. */
#define S2_INNER_KEEP 64u

zdem_status zdem_s2_for_each_inner_work(const uint8_t *data, size_t size,
                                        int ordered, zdem_s2_inner_want want,
                                        uint8_t *scratch, size_t scratch_cap,
                                        zdem_s2_inner_fn fn, void *user,
                                        zdem_s2_work *w, zdem_error *err)
{
    int pass, passes = ordered == 2 ? 2 : ordered ? 3 : 1;
    /* headers this call may read: taken from the budget once, the rest
     * given back at the end */
    uint64_t room = w ? zdem_s2_work_left(w, ZDEM_S2_WORK_ITEMS) : UINT64_MAX, read = 0;
    zdem_status over = ZDEM_OK;
    uint32_t valid = 0xFFFFFFFFu; /* messages before a framing break */
    zdem_error broken;
    uint32_t ktype[S2_INNER_KEEP], ksize[S2_INNER_KEEP], nkept = 0;
    uint8_t khlen[S2_INNER_KEEP];
    int kept = passes > 1; /* every header of the first pass is kept */
    zdem_error_clear(&broken);
    for (pass = 0; pass < passes; pass++) {
        zdem_s2_inner_reader ir;
        zdem_s2_inner m;
        int rc;
        zdem_s2_inner_init(&ir, data, size, scratch, scratch_cap);
        if (pass > 0 && kept) {
            /* The same visit as reading the headers again (below): the
             * same messages, the same count of headers read against the
             * budget, the same stop where the first pass found the
             * framing broken. */
            uint32_t i, lim = valid < nkept ? valid : nkept;
            uint64_t bit = 0;
            int stopped = 0;
            for (i = 0; i < lim; i++) {
                zdem_status st;
                int prio;
                if (read == room) {
                    over = ZDEM_ERR_LIMIT;
                    break;
                }
                read++;
                m.index = i;
                m.type = ktype[i];
                m.size = ksize[i];
                m.bit_offset = bit;
                m.data_bit = bit + khlen[i];
                m.data = 0;
                bit = m.data_bit + (uint64_t)m.size * 8u;
                prio = (int)zdem_s2_inner_priority(m.type);
                if (ordered == 2 && prio > ZDEM_S2_PRIO_NORMAL)
                    prio = ZDEM_S2_PRIO_NORMAL;
                if (prio != pass || (want && !want(m.type)))
                    continue;
                ir.br.pos = (size_t)m.data_bit;
                ir.index = i + 1u;
                if (w && (ir.br.pos & 7u) != 0 && m.size > ir.scratch_cap) {
                    m.data = 0;
                } else if (inner_payload(&ir, &m, &broken) < 0) {
                    valid = m.index;
                    stopped = 1;
                    break;
                }
                st = fn(user, &m);
                if (st != ZDEM_OK) {
                    if (w)
                        w->used[ZDEM_S2_WORK_ITEMS] += read;
                    return zdem_fail_bits(err, st, m.bit_offset, "inner message handler failed");
                }
            }
            /* the header read that found the end of the data */
            if (over == ZDEM_OK && !stopped && valid == 0xFFFFFFFFu) {
                if (read == room)
                    over = ZDEM_ERR_LIMIT;
                else
                    read++;
            }
            if (over != ZDEM_OK)
                break;
            continue;
        }
        while (ir.index < valid) {
            zdem_status st;
            int prio;
            if (read == room) {
                over = ZDEM_ERR_LIMIT;
                break;
            }
            read++;
            if ((rc = inner_header(&ir, &m, &broken)) != 1)
                break;
            if (pass == 0 && kept) {
                if (nkept < S2_INNER_KEEP && m.data_bit - m.bit_offset < 256u) {
                    ktype[nkept] = m.type;
                    ksize[nkept] = m.size;
                    khlen[nkept] = (uint8_t)(m.data_bit - m.bit_offset);
                    nkept++;
                } else {
                    kept = 0;
                }
            }
            prio = (int)zdem_s2_inner_priority(m.type);
            if (ordered == 2 && prio > ZDEM_S2_PRIO_NORMAL)
                prio = ZDEM_S2_PRIO_NORMAL;
            if ((ordered && prio != pass) ||
                (want && !want(m.type))) {
                zdem_bits_skip(&ir.br, (size_t)m.size * 8u); /* no copy */
                continue;
            }
            if (w && (ir.br.pos & 7u) != 0 && m.size > ir.scratch_cap) {
                /* over the buffer: stepped over, the handler told */
                zdem_bits_skip(&ir.br, (size_t)m.size * 8u);
                m.data = 0;
            } else if (inner_payload(&ir, &m, &broken) < 0) {
                valid = m.index;
                break;
            }
            st = fn(user, &m);
            if (st != ZDEM_OK) {
                if (w)
                    w->used[ZDEM_S2_WORK_ITEMS] += read;
                return zdem_fail_bits(err, st, m.bit_offset, "inner message handler failed");
            }
        }
        if (over != ZDEM_OK)
            break;
        if (ir.index < valid && broken.code != ZDEM_OK)
            valid = ir.index; /* the header at this index did not read */
    }
    if (w)
        w->used[ZDEM_S2_WORK_ITEMS] += read;
    if (over != ZDEM_OK)
        return zdem_fail(err, over, 0, "work limit max_items_per_byte: rest of the packet not read");
    if (broken.code != ZDEM_OK) {
        if (err && err->code == ZDEM_OK)
            *err = broken;
        return broken.code;
    }
    return ZDEM_OK;
}
