/* What tools/cli_teeworlds.c does with each decoded chunk, for the
 * Teeworlds fuzz targets: client info items of every snapshot, the typed
 * decoders of the messages it prints, item descriptors (extension UUIDs),
 * the reader's warnings; strings are read so that ASan checks them. */
#ifndef FUZZ_TEEWORLDS_CLI_H
#define FUZZ_TEEWORLDS_CLI_H

#include <string.h>
#include "teeworlds_reader.h"

static volatile size_t fuzz_tw_sink;

static void fuzz_tw_touch(const uint8_t *s, size_t n)
{
    size_t i, h = 0;
    for (i = 0; i < n; i++)
        h += s[i];
    fuzz_tw_sink += h;
}

static void fuzz_tw_event(const zdem_tw_event *ev)
{
    const zdem_tw_msg *m = &ev->msg;
    if (ev->warning)
        fuzz_tw_sink += strlen(ev->warning);
    if (ev->snap) {
        uint32_t i;
        for (i = zdem_tw_snap_first(ev->snap); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(ev->snap, i)) {
            const zdem_tw_obj_desc *d = zdem_tw_item_desc(ev->snap, i);
            fuzz_tw_sink += d != NULL;
            if (zdem_tw_snap_type(ev->snap, i) == ZDEM_TW_OBJ_CLIENT_INFO) {
                zdem_tw_obj_client_info ci;
                zdem_tw_obj_client_info_decode(zdem_tw_snap_data(ev->snap, i), ev->snap->len[i], &ci);
                fuzz_tw_touch((const uint8_t *)ci.name, sizeof ci.name);
                fuzz_tw_touch((const uint8_t *)ci.clan, sizeof ci.clan);
            }
        }
        return;
    }
    if (ev->chunk.kind != ZDEM_TW_CHUNK_MESSAGE || !ev->num_ints)
        return;
    if (ev->desc)
        fuzz_tw_touch((const uint8_t *)ev->desc->name, strlen(ev->desc->name));
    else
        fuzz_tw_touch(m->uuid, sizeof m->uuid);
    if (!ev->desc || m->sys)
        return;
    if (m->id == ZDEM_TW_MSG_SV_CHAT) {
        zdem_tw_game_sv_chat c;
        if (zdem_tw_game_sv_chat_decode(m->body, m->body_len, &c) == ZDEM_OK)
            fuzz_tw_touch(c.message.p, c.message.n);
    } else if (m->id == ZDEM_TW_MSG_SV_KILL_MSG) {
        zdem_tw_game_sv_kill_msg k;
        if (zdem_tw_game_sv_kill_msg_decode(m->body, m->body_len, &k) == ZDEM_OK)
            fuzz_tw_sink += (size_t)k.killer + (size_t)k.victim;
    } else if (m->id == ZDEM_TW_MSG_SV_BROADCAST || m->id == ZDEM_TW_MSG_SV_MOTD) {
        zdem_tw_game_sv_broadcast b;
        if (zdem_tw_game_sv_broadcast_decode(m->body, m->body_len, &b) == ZDEM_OK)
            fuzz_tw_touch(b.message.p, b.message.n);
    } else if (m->id == ZDEM_TW_MSG_SV_EMOTICON) {
        zdem_tw_game_sv_emoticon e;
        if (zdem_tw_game_sv_emoticon_decode(m->body, m->body_len, &e) == ZDEM_OK)
            fuzz_tw_sink += (size_t)e.emoticon;
    } else if (m->id == ZDEM_TW_MSG_SV_VOTE_SET) {
        zdem_tw_game_sv_vote_set v;
        if (zdem_tw_game_sv_vote_set_decode(m->body, m->body_len, &v) == ZDEM_OK) {
            fuzz_tw_touch(v.description.p, v.description.n);
            fuzz_tw_touch(v.reason.p, v.reason.n);
        }
    }
}

#endif
