/* libFuzzer target: the Teeworlds 0.7 item and message tables. The input
 * holds decoded chunk payloads (as fuzz_teeworlds_ints: records [flags]
 * [len u16 LE] [len bytes]; flags & 3: 1 snapshot, 2 message, 3 delta;
 * flags >> 3: tick advance), encoded and decoded by the reader under the
 * 0.7 protocol (or, when the first byte is odd, under 0.6 as a demo of an
 * unknown net version is: the sizes full snapshots carry are learned).
 * Every item of every snapshot goes through its 0.7 descriptor (lookup by
 * type or extension UUID, every field by the descriptor's kinds and
 * ranges, the mismatch check, the typed decoders the CLI uses) and every
 * message through the 0.7 message table (the mismatch check and the typed
 * decoders of the events lines). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "teeworlds_reader.h"
#include "teeworlds_proto7.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static zdem_tw_reader rd;
static uint32_t rd_mem[ZDEM_TW_READER_MEM(65536, 1024, 16384) / 4];
static uint8_t enc[2 * ZDEM_TW_SNAP_MAX_SIZE + 16];
static volatile size_t sink;

static void touch(const void *p, size_t n)
{
    const uint8_t *s = (const uint8_t *)p;
    size_t i, h = 0;
    for (i = 0; i < n; i++)
        h += s[i];
    sink += h;
}

static void item(const zdem_tw_snap *s, uint32_t i)
{
    const zdem_tw_obj_desc *d = zdem_tw_protocol_item_desc(&zdem_tw_protocol_07, s, i);
    const int32_t *v = zdem_tw_snap_data(s, i);
    uint32_t len = s->len[i], k, at = 0;
    int type = zdem_tw_snap_type(s, i);
    if (!d)
        return;
    sink += (size_t)zdem_tw_item_mismatch(d, v, len, type < ZDEM_TW7_NUM_STATIC_SIZES);
    for (k = 0; k < d->num_fields && at + d->fields[k].ints <= len; k++) {
        if (d->fields[k].kind == ZDEM_TW_FIELD_PACKED_STR) {
            char buf[4 * 255 + 1];
            touch(buf, zdem_tw_ints_to_str(v + at, d->fields[k].ints, buf, sizeof buf));
        } else {
            sink += (size_t)v[at];
        }
        at += d->fields[k].ints;
    }
    if (type == ZDEM_TW7_OBJ_DE_CLIENT_INFO) {
        zdem_tw7_obj_de_client_info ci;
        zdem_tw7_obj_de_client_info_decode(v, len, &ci);
        touch(&ci, sizeof ci);
    } else if (type == ZDEM_TW7_OBJ_CHARACTER) {
        zdem_tw7_obj_character c;
        zdem_tw7_obj_character_decode(v, len, &c);
        touch(&c, sizeof c);
    } else if (type == ZDEM_TW7_OBJ_DE_TUNE_PARAMS) {
        zdem_tw7_obj_de_tune_params t;
        zdem_tw7_obj_de_tune_params_decode(v, len, &t);
        touch(&t, sizeof t);
    }
}

#define DECODE(T, f)                                                          \
    do {                                                                      \
        zdem_tw7_game_##T x;                                                  \
        if (zdem_tw7_game_##T##_decode(m->body, m->body_len, &x) == ZDEM_OK) \
            f;                                                                \
    } while (0)

static void message(const zdem_tw_event *ev)
{
    const zdem_tw_msg *m = &ev->msg;
    const zdem_tw_msg_desc *d = zdem_tw_protocol_msg(&zdem_tw_protocol_07, m->sys, m->id, m->uuid);
    if (!d)
        return;
    touch(d->name, strlen(d->name));
    sink += (size_t)zdem_tw_msg_mismatch(d, m->body, m->body_len);
    if (m->sys || m->id == 0)
        return;
    switch (m->id) {
    case ZDEM_TW7_MSG_SV_CHAT: DECODE(sv_chat, touch(x.message.p, x.message.n)); break;
    case ZDEM_TW7_MSG_SV_KILL_MSG: DECODE(sv_kill_msg, sink += (size_t)x.killer); break;
    case ZDEM_TW7_MSG_SV_TEAM: DECODE(sv_team, sink += (size_t)x.team); break;
    case ZDEM_TW7_MSG_SV_BROADCAST: DECODE(sv_broadcast, touch(x.message.p, x.message.n)); break;
    case ZDEM_TW7_MSG_SV_VOTE_SET: DECODE(sv_vote_set, touch(x.reason.p, x.reason.n)); break;
    case ZDEM_TW7_MSG_DE_CLIENT_ENTER: DECODE(de_client_enter, touch(x.name.p, x.name.n)); break;
    case ZDEM_TW7_MSG_DE_CLIENT_LEAVE: DECODE(de_client_leave, touch(x.reason.p, x.reason.n)); break;
    case ZDEM_TW7_MSG_SV_CLIENT_INFO:
        DECODE(sv_client_info, touch(x.skin_part_names[5].p, x.skin_part_names[5].n));
        break;
    case ZDEM_TW7_MSG_SV_CLIENT_DROP: DECODE(sv_client_drop, touch(x.reason.p, x.reason.n)); break;
    case ZDEM_TW7_MSG_SV_RACE_FINISH: DECODE(sv_race_finish, sink += (size_t)x.record_server); break;
    default: break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t p = 1;
    int32_t tick = 0;
    const zdem_tw_protocol *proto = size && (data[0] & 1) ? &zdem_tw_protocol_06 : &zdem_tw_protocol_07;
    if (!size)
        return 0;
    zdem_tw_reader_init(&rd, NULL, rd_mem, sizeof rd_mem, NULL);
    rd.proto = proto;
    zdem_tw_snap_init(&rd.snaps, proto->static_sizes, proto->num_static_sizes);
    rd.decode_snapshots = 1;
    rd.decode_messages = 1;
    while (size - p >= 3) {
        uint8_t flags = data[p];
        size_t len = (size_t)data[p + 1] | ((size_t)data[p + 2] << 8), n;
        zdem_tw_event ev;
        zdem_error err;
        p += 3;
        if (len > size - p)
            len = size - p;
        memset(&ev, 0, sizeof ev);
        tick += flags >> 3;
        ev.chunk.kind = flags & 3;
        ev.chunk.tick = tick;
        ev.chunk.offset = p - 3;
        ev.chunk.data_offset = p;
        if (zdem_tw_huff_encode(data + p, len, enc, sizeof enc, &n) != ZDEM_OK)
            abort();
        ev.chunk.data = enc;
        ev.chunk.size = n;
        p += len;
        zdem_error_clear(&err);
        if (zdem_tw_reader_decode(&rd, &ev, &err) != 1)
            continue;
        if (ev.snap) {
            uint32_t i;
            for (i = zdem_tw_snap_first(ev.snap); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(ev.snap, i))
                item(ev.snap, i);
        } else if (ev.chunk.kind == ZDEM_TW_CHUNK_MESSAGE && ev.num_ints) {
            message(&ev);
        }
    }
    sink += rd.mismatches;
    return 0;
}
