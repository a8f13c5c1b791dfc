/* Source 2 clips (see source2_write.h): a few framing walks over the
 * original (frame headers only) find the signon, the full packet to start
 * from and the range's end; a state run checks that part; then the clip
 * is written: the header, copies of the original's frames, and the
 * frames the writer makes (DEM_Stop, DEM_FileInfo) from the generated
 * encoders. */
#include "source2_write.h"
#include "source2_state_int.h"
#include "source2_encode.h"
#include "zdem_pb.h"
#include "zdem_pb_write.h"

#include <string.h>

static int s2cut_game_frame(uint32_t cmd)
{
    return cmd == ZDEM_S2_DEM_PACKET || cmd == ZDEM_S2_DEM_FULLPACKET;
}

typedef struct s2cut {
    const uint8_t *file;
    size_t size;
    zdem_write_fn write;
    void *user;
    zdem_s2_cut_info *info;
    zdem_error *err;
    int writing;        /* 0: the layout pass (sizes), 1: the writing pass */
    size_t spawn_old;   /* the original's DEM_SpawnGroups frame offset */
    uint32_t nframes;   /* original frames kept */
} s2cut;

static zdem_status s2cut_out(s2cut *c, const void *p, size_t n)
{
    if (n && c->write(c->user, p, n))
        return zdem_fail(c->err, c->write == zdem_out_buffer_write ? ZDEM_ERR_NO_SPACE
                                                                   : ZDEM_ERR_ABORTED,
                         0, "the output did not take the clip");
    c->info->bytes += n;
    return ZDEM_OK;
}

/* The original's frames in [from, to) that the clip keeps (game frames
 * only when games is set; never a DEM_FileInfo: the clip's own, written
 * last, is the one its header points at), consecutive ones in one
 * write. *o counts the clip's bytes; the DEM_SpawnGroups frame's new
 * offset goes to *spawn_new. */
static zdem_status s2cut_copy(s2cut *c, size_t from, size_t to, int games, size_t *o,
                              size_t *spawn_new)
{
    zdem_s2_outer m;
    zdem_error e;
    size_t pos, next, run = from;
    zdem_status st = ZDEM_OK;
    zdem_error_clear(&e);
    for (pos = from; pos < to && st == ZDEM_OK;) {
        if (zdem_s2_read_frame(c->file, c->size, pos, &m, &next, &e) != 1)
            break; /* (the walks ended every range at a whole frame) */
        if (m.cmd == ZDEM_S2_DEM_FILEINFO || (!games && s2cut_game_frame(m.cmd))) {
            if (c->writing)
                st = s2cut_out(c, c->file + run, pos - run);
            run = next;
        } else {
            if (pos == c->spawn_old)
                *spawn_new = *o;
            *o += next - pos;
            c->nframes++;
        }
        pos = next;
    }
    if (c->writing && st == ZDEM_OK)
        st = s2cut_out(c, c->file + run, pos - run);
    return st;
}

/* A frame the writer makes: command, tick, payload in two parts. */
static size_t s2cut_frame_head(uint8_t h[15], uint32_t cmd, int64_t tick, size_t size)
{
    uint8_t *p = zdem_pb_put_varint(h, cmd);
    p = zdem_pb_put_varint(p, tick < 0 ? 0xFFFFFFFFu : (uint32_t)tick);
    p = zdem_pb_put_varint(p, (uint32_t)size);
    return (size_t)(p - h);
}

/* The original's CDemoFileInfo fields other than the playback ones
 * (game info, unknown fields): spans [start, end) of its payload, handed
 * to fn, or their total size when fn is NULL. */
static size_t s2cut_fileinfo_extras(const uint8_t *p, size_t n, s2cut *c, zdem_status *st)
{
    const uint8_t *q = p, *end = p + n;
    size_t total = 0;
    zdem_error e;
    zdem_error_clear(&e);
    while (q < end) {
        const uint8_t *at = q;
        uint32_t key;
        if (zdem_pb_key(p, &q, end, &key, &e) != ZDEM_OK ||
            zdem_pb_skip(p, at, &q, end, key & 7u, &e) != ZDEM_OK)
            break; /* a broken tail is not copied */
        if ((key >> 3) > 3u) {
            total += (size_t)(q - at);
            if (c && *st == ZDEM_OK)
                *st = s2cut_out(c, at, (size_t)(q - at));
        }
    }
    return total;
}

zdem_status zdem_s2_writer_cut(zdem_s2_state *s, const uint8_t *file, size_t size,
                               int64_t start_tick, int64_t end_tick, zdem_write_fn write,
                               void *user, zdem_s2_cut_info *info_out, zdem_error *err)
{
    zdem_s2_cut_info info;
    zdem_s2_header hdr;
    zdem_s2_outer m;
    zdem_error e, fault;
    zdem_status st;
    s2cut c;
    size_t pos, next, first_game = 0, start = 0, end = 0, stop_at = 0;
    size_t spawn_new = 0, spawn_trailing = 0, spawn_len = 0, fi_at = 0, fi_len = 0;
    const uint8_t *spawn_body = NULL;
    size_t spawn_body_len = 0;
    uint32_t spawn_cmd = 15u;
    size_t out_pos, fi_extra = 0;
    int64_t first_game_tick = 0, last_game_tick = 0, clip_last = 0;
    int have_first = 0, have_full = 0, stopped_early = 0, fault_kind = 0, damage = 0;
    int32_t packets = 0;
    const uint8_t *fi = NULL;
    size_t fi_size = 0;
    zdem_pb_CDemoFileInfo ofi, nfi;
    uint8_t fi_buf[64], h[16], fh[15];
    size_t fi_enc = 0, hl;

    memset(&info, 0, sizeof info);
    if (info_out)
        *info_out = info;
    c.file = file;
    c.size = size;
    c.write = write;
    c.user = user;
    c.info = &info;
    c.err = err;
    c.writing = 0;
    c.spawn_old = 0;
    c.nframes = 0;
    zdem_error_clear(&fault);
    if (!write)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "no output");
    if ((st = zdem_s2_read_header(file, size, &hdr, err)) != ZDEM_OK)
        return st;

    /* walk 1: the first game frame, the last full packet at or before
     * start after it, the original's last game tick and DEM_Stop */
    zdem_error_clear(&e);
    for (pos = ZDEM_S2_HEADER_SIZE; pos < size;) {
        if (zdem_s2_read_frame(file, size, pos, &m, &next, &e) != 1)
            break;
        if (s2cut_game_frame(m.cmd)) {
            if (!have_first) {
                have_first = 1;
                first_game = pos;
                first_game_tick = m.tick;
            } else if (m.cmd == ZDEM_S2_DEM_FULLPACKET && m.tick <= start_tick &&
                       m.tick > first_game_tick) {
                have_full = 1;
                start = pos;
            }
            last_game_tick = m.tick;
        } else if (m.cmd == ZDEM_S2_DEM_STOP && !stop_at) {
            stop_at = pos;
        }
        pos = next;
    }
    if (!have_first) /* no game frames: the signon is all */
        first_game = stop_at ? stop_at : pos;
    if (!have_full)
        start = first_game;

    /* walk 2: the range's end: the first game frame past end_tick, the
     * DEM_Stop, a framing error or the end of the file */
    zdem_error_clear(&e);
    for (pos = start; pos < size;) {
        if (zdem_s2_read_frame(file, size, pos, &m, &next, &e) != 1)
            break;
        if (m.cmd == ZDEM_S2_DEM_STOP)
            break;
        if (s2cut_game_frame(m.cmd) && m.tick > end_tick) {
            stopped_early = 1;
            break;
        }
        pos = next;
    }
    end = pos < size ? pos : size;

    /* the check: the signon, then (as a seek does) from the full packet */
    s->seek_from = have_full ? start : 0;
    zdem_error_clear(&fault);
    st = zdem_s2_state_run(s, file, size, end_tick < 0 ? 0 : end_tick, &fault);
    {
        /* the run's result is the truncation when there is one; the clip
         * ends before the first damage, which may come earlier (a frame
         * or message the reader skipped and went on) */
        const zdem_s2_warnings *w = zdem_s2_state_warnings(s);
        if (w->damage.code != ZDEM_OK && (st == ZDEM_OK || w->damage.offset <= fault.offset)) {
            fault = w->damage;
            st = fault.code;
            damage = 1;
        }
    }
    if (st != ZDEM_OK) {
        /* damage found at a frame's end (a payload that ended too soon)
         * belongs to that frame: the byte before it is taken, so the
         * frame goes too (an offset in a payload names its frame's start) */
        uint64_t at = damage && !fault.in_payload && fault.offset > 0 ? fault.offset - 1u : fault.offset;
        if (at < start) { /* before the clip's game frames: nothing valid to write */
            if (err)
                *err = fault;
            return st;
        }
        if (!(stopped_early && at >= end)) {
            fault_kind = 1;
            if (at < end) { /* the clip ends before the frame at fault */
                zdem_error_clear(&e);
                for (pos = start; pos < end;) {
                    if (zdem_s2_read_frame(file, size, pos, &m, &next, &e) != 1 || next > at)
                        break;
                    pos = next;
                }
                end = pos;
            }
        }
    }

    /* walk 3: the range's game frames (first and last tick, packets) */
    zdem_error_clear(&e);
    for (pos = start; pos < end;) {
        if (zdem_s2_read_frame(file, size, pos, &m, &next, &e) != 1)
            break;
        if (s2cut_game_frame(m.cmd)) {
            if (!info.started) {
                info.started = 1;
                info.first_tick = m.tick;
            }
            clip_last = m.tick;
            if (m.cmd == ZDEM_S2_DEM_PACKET)
                packets++;
        }
        pos = next;
    }
    end = pos < end ? pos : end;
    info.from_full_packet = have_full;
    info.start_offset = start;
    info.last_tick = clip_last;

    /* the DEM_SpawnGroups frame: where the header points, if the clip
     * keeps it (in the signon, between it and the full packet, in the
     * range: found by the layout pass, or after DEM_Stop: rewritten) */
    c.spawn_old = hdr.spawngroups_offset >= ZDEM_S2_HEADER_SIZE ? hdr.spawngroups_offset : 0;
    if (stop_at && hdr.spawngroups_offset > stop_at &&
        zdem_s2_read_frame(file, size, hdr.spawngroups_offset, &m, &next, &e) == 1 &&
        m.cmd == 15u /* DEM_SpawnGroups */) {
        /* after DEM_Stop: after ours, its payload copied, its tick the
         * clip's last (the original's is past the clip) */
        spawn_trailing = hdr.spawngroups_offset;
        spawn_body = m.stored;
        spawn_body_len = m.stored_size;
        spawn_cmd = 15u | (m.compressed ? 64u : 0u);
    }

    /* the new DEM_FileInfo: the playback fields of the clip (the
     * original's less what was cut from each end), the rest copied */
    memset(&ofi, 0, sizeof ofi);
    zdem_error_clear(&e);
    if (hdr.fileinfo_offset >= ZDEM_S2_HEADER_SIZE && hdr.fileinfo_offset < size &&
        zdem_s2_read_frame(file, size, hdr.fileinfo_offset, &m, &next, &e) == 1 &&
        m.cmd == ZDEM_S2_DEM_FILEINFO && !m.compressed &&
        zdem_pb_CDemoFileInfo_decode(m.stored, m.stored_size, &ofi, NULL, NULL, &e) == ZDEM_OK) {
        fi = m.stored;
        fi_size = m.stored_size;
    }
    memset(&nfi, 0, sizeof nfi);
    nfi.has_playback_frames = 1;
    /* the whole demo keeps its own count (recorders differ on whether
     * full packets count); a part counts its DEM_Packet frames */
    nfi.playback_frames = fi && ofi.has_playback_frames && start == first_game &&
                                  end == (stop_at ? stop_at : size)
                              ? ofi.playback_frames
                              : packets;
    nfi.has_playback_ticks = 1;
    if (fi && ofi.has_playback_ticks) {
        int64_t t = (int64_t)ofi.playback_ticks - (last_game_tick - clip_last) -
                    (info.first_tick - first_game_tick);
        nfi.playback_ticks = !info.started ? 0 : t < 0 ? 0 : t > INT32_MAX ? INT32_MAX : (int32_t)t;
        if (ofi.has_playback_time) {
            /* the original's when nothing was cut, else the ticks at its
             * tick rate (whole ticks a second: a cut of a clip gives the
             * cut of the original exactly) */
            double r = ofi.playback_time > 0.0f ? ofi.playback_ticks / (double)ofi.playback_time : 0.0;
            double rate = r >= 0.5 && r < 1e6 ? (double)(int64_t)(r + 0.5) : 0.0;
            nfi.has_playback_time = 1;
            nfi.playback_time = nfi.playback_ticks == ofi.playback_ticks ? ofi.playback_time
                                : rate > 0.0 ? (float)(nfi.playback_ticks / rate)
                                             : 0.0f;
        }
    } else {
        int64_t t = info.started ? clip_last - info.first_tick : 0;
        nfi.playback_ticks = t < 0 ? 0 : t > INT32_MAX ? INT32_MAX : (int32_t)t;
    }
    if (zdem_pb_CDemoFileInfo_encode(&nfi, fi_buf, sizeof fi_buf, &fi_enc) != ZDEM_OK)
        return zdem_fail(err, ZDEM_ERR_NO_SPACE, 0, "file info does not fit");
    if (fi)
        fi_extra = s2cut_fileinfo_extras(fi, fi_size, NULL, &st);
    info.playback_ticks = nfi.playback_ticks;
    info.playback_frames = nfi.playback_frames;
    info.playback_time = nfi.playback_time;

    /* two passes over the same frames: the layout (the offsets the
     * header holds), then the clip */
    {
        zdem_pb_CDemoStop stop;
        uint8_t sb[8];
        size_t sl = 0;
        int pass;
        memset(&stop, 0, sizeof stop);
        (void)zdem_pb_CDemoStop_encode(&stop, sb, sizeof sb, &sl);
        fi_len = fi_enc + fi_extra;
        if (spawn_trailing)
            spawn_len = s2cut_frame_head(fh, spawn_cmd, clip_last, spawn_body_len) + spawn_body_len;
        st = ZDEM_OK;
        for (pass = 0; pass < 2 && st == ZDEM_OK; pass++) {
            c.writing = pass;
            c.nframes = 0;
            out_pos = ZDEM_S2_HEADER_SIZE;
            if (pass) {
                memcpy(h, "PBDEMS2", 8);
                zdem_pb_put_fixed(h + 8, (uint32_t)fi_at, 4u);
                zdem_pb_put_fixed(h + 12, (uint32_t)spawn_new, 4u);
                st = s2cut_out(&c, h, 16);
            } else {
                spawn_new = 0;
            }
            /* the signon, the non-game frames up to the full packet, the range */
            if (st == ZDEM_OK)
                st = s2cut_copy(&c, ZDEM_S2_HEADER_SIZE, first_game, 1, &out_pos, &spawn_new);
            if (st == ZDEM_OK && have_full)
                st = s2cut_copy(&c, first_game, start, 0, &out_pos, &spawn_new);
            if (st == ZDEM_OK)
                st = s2cut_copy(&c, start, end, 1, &out_pos, &spawn_new);
            hl = s2cut_frame_head(fh, ZDEM_S2_DEM_STOP, clip_last, sl);
            if (st == ZDEM_OK && pass) {
                st = s2cut_out(&c, fh, hl);
                if (st == ZDEM_OK)
                    st = s2cut_out(&c, sb, sl);
            }
            out_pos += hl + sl;
            if (spawn_trailing) {
                spawn_new = out_pos;
                out_pos += spawn_len;
                if (st == ZDEM_OK && pass) {
                    hl = s2cut_frame_head(fh, spawn_cmd, clip_last, spawn_body_len);
                    st = s2cut_out(&c, fh, hl);
                    if (st == ZDEM_OK)
                        st = s2cut_out(&c, spawn_body, spawn_body_len);
                }
            }
            fi_at = out_pos;
        }
    }
    if (st == ZDEM_OK) {
        hl = s2cut_frame_head(fh, ZDEM_S2_DEM_FILEINFO, clip_last, fi_len);
        st = s2cut_out(&c, fh, hl);
        if (st == ZDEM_OK)
            st = s2cut_out(&c, fi_buf, fi_enc);
        if (st == ZDEM_OK && fi)
            (void)s2cut_fileinfo_extras(fi, fi_size, &c, &st);
    }
    /* frames written: the original's kept ones, ours */
    info.frames = c.nframes + 2u + (spawn_trailing ? 1u : 0u);
    if (info_out)
        *info_out = info;
    if (st != ZDEM_OK)
        return st;
    if (fault_kind) {
        if (err)
            *err = fault;
        return fault.code;
    }
    return ZDEM_OK;
}
