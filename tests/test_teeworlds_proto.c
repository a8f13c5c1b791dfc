/* Generated object/message decoders over every corpus demo:
 *  - message id counts (game/sys/ex) equal the ddnet_demo_c99 peer's,
 *  - chat lines (tick, team, client id, text) and kill-message counts equal
 *    the peer's,
 *  - every message the schema knows decodes without running off its end,
 *  - every snapshot item of a fixed type has the pre-agreed size; items of
 *    unknown types stay raw without error,
 *  - names announced in chat ("'NAME' entered and joined the game") are
 *    found in the decoded client_info items (names packed in ints and
 *    rebuilt through deltas). */
#include <stdlib.h>
#include <string.h>
#include "teeworlds_reader.h"
#include "test_teeworlds_common.h"

static zdem_tw_reader rd;
static uint32_t rd_mem[ZDEM_TW_READER_MEM(65536, 1024, 16384) / 4]; /* default limits */

/* Decodes a JSON string starting after its opening quote (escapes incl.
 * \uXXXX to UTF-8); returns the position after the closing quote. */
static const char *json_string(const char *p, char *out, size_t cap)
{
    size_t k = 0;
    while (*p && *p != '"') {
        unsigned cp;
        if (*p != '\\') {
            cp = (unsigned char)*p++;
            if (k + 1 < cap)
                out[k++] = (char)cp;
            continue;
        }
        p++;
        switch (*p) {
        case 'n': cp = '\n'; p++; break;
        case 't': cp = '\t'; p++; break;
        case 'r': cp = '\r'; p++; break;
        case 'u': sscanf(p + 1, "%4x", &cp); p += 5; break;
        default: cp = (unsigned char)*p++; break;
        }
        if (cp < 0x80) {
            if (k + 1 < cap) out[k++] = (char)cp;
        } else if (cp < 0x800) {
            if (k + 2 < cap) { out[k++] = (char)(0xC0 | (cp >> 6)); out[k++] = (char)(0x80 | (cp & 63)); }
        } else if (k + 3 < cap) {
            out[k++] = (char)(0xE0 | (cp >> 12));
            out[k++] = (char)(0x80 | ((cp >> 6) & 63));
            out[k++] = (char)(0x80 | (cp & 63));
        }
    }
    out[k] = 0;
    return *p ? p + 1 : p;
}

/* Generic decode through the descriptor: 1 if every field was present. */
static int decode_generic(const zdem_tw_msg_desc *d, const zdem_tw_msg *m)
{
    zdem_tw_unpacker u;
    unsigned i;
    zdem_tw_unp_init(&u, m->body, m->body_len);
    for (i = 0; i < d->num_fields; i++) {
        if (d->fields[i].kind == ZDEM_TW_FIELD_INT)
            (void)zdem_tw_unp_int(&u);
        else if (d->fields[i].kind == ZDEM_TW_FIELD_STRING)
            (void)zdem_tw_unp_str(&u);
        else
            (void)zdem_tw_unp_rest(&u);
    }
    return !u.error;
}

#define MAX_NAMES 256

static void check_file(const zdem_tw_expect *e)
{
    size_t size;
    uint8_t *d = zdem_tw_load(e->file, &size);
    char *peer = zdem_tw_peer(e->file);
    static char names[MAX_NAMES][20];
    int nnames = 0;
    long long game[64] = {0}, sys[64] = {0}, ex_game = 0, ex_sys = 0, kills = 0;
    long long known_bad = 0, unknown_msgs = 0, size_bad = 0, unknown_items = 0;
    const char *chat = peer ? strstr(peer, "\"chat\":[") : NULL;
    int chats = 0, chat_ok = 0;
    zdem_error err;
    zdem_tw_event ev;
    int rc;
    char buf[600];

    fprintf(stderr, "-- %s\n", e->file);
    if (!CHECK(d != NULL) || !CHECK(peer != NULL) || !CHECK(chat != NULL)) {
        free(d);
        free(peer);
        return;
    }
    zdem_error_clear(&err);
    CHECK_EQ_INT(zdem_tw_reader_open(&rd, d, size, &err), ZDEM_OK);
    while ((rc = zdem_tw_reader_next(&rd, &ev, &err)) == 1) {
        if (ev.chunk.kind == ZDEM_TW_CHUNK_MESSAGE && ev.num_ints > 0) {
            const zdem_tw_msg *m = &ev.msg;
            if (m->id == 0) {
                if (m->sys)
                    ex_sys++;
                else
                    ex_game++;
            } else if (m->id < 64) {
                if (m->sys)
                    sys[m->id]++;
                else
                    game[m->id]++;
            }
            if (!ev.desc) {
                unknown_msgs++;
                continue;
            }
            if (!decode_generic(ev.desc, m))
                known_bad++;
            if (!m->sys && m->id == ZDEM_TW_MSG_SV_CHAT) {
                zdem_tw_game_sv_chat c;
                char want[512];
                const char *t;
                CHECK_EQ_INT(zdem_tw_game_sv_chat_decode(m->body, m->body_len, &c), ZDEM_OK);
                chats++;
                /* The peer lists the chat lines in order. */
                chat = strstr(chat, "{\"tick\":");
                if (!CHECK(chat != NULL))
                    continue;
                t = strstr(chat, "\"text\":\"");
                if (!CHECK(t != NULL))
                    continue;
                json_string(t + 8, want, sizeof want);
                if (ev.chunk.tick == zdem_tw_json_int(peer, chat, "tick", -1) &&
                    c.team == zdem_tw_json_int(peer, chat, "team", -99) &&
                    c.client_id == zdem_tw_json_int(peer, chat, "client_id", -99) &&
                    c.message.n == strlen(want) && memcmp(c.message.p, want, c.message.n) == 0)
                    chat_ok++;
                else
                    fprintf(stderr, "chat mismatch at tick %d: %.*s / %s\n", (int)ev.chunk.tick,
                            (int)c.message.n, (const char *)c.message.p, want);
                chat = t;
            }
            if (!m->sys && m->id == ZDEM_TW_MSG_SV_KILL_MSG) {
                zdem_tw_game_sv_kill_msg k;
                CHECK_EQ_INT(zdem_tw_game_sv_kill_msg_decode(m->body, m->body_len, &k), ZDEM_OK);
                kills++;
            }
        } else if (ev.snap && (ev.chunk.kind == ZDEM_TW_CHUNK_SNAPSHOT || ev.chunk.kind == ZDEM_TW_CHUNK_DELTA)) {
            uint32_t i;
            for (i = zdem_tw_snap_first(ev.snap); i != ZDEM_TW_SNAP_END; i = zdem_tw_snap_next(ev.snap, i)) {
                const zdem_tw_obj_desc *od = zdem_tw_item_desc(ev.snap, i);
                int type = zdem_tw_snap_type(ev.snap, i);
                if (type == 0)
                    continue;
                if (!od) {
                    unknown_items++;
                    continue;
                }
                if (od->size && ev.snap->len[i] != od->size)
                    size_bad++;
                if (type == ZDEM_TW_OBJ_CLIENT_INFO) {
                    zdem_tw_obj_client_info ci;
                    int j, seen = 0;
                    zdem_tw_obj_client_info_decode(zdem_tw_snap_data(ev.snap, i), ev.snap->len[i], &ci);
                    for (j = 0; j < nnames; j++)
                        seen |= strcmp(names[j], ci.name) == 0;
                    if (!seen && nnames < MAX_NAMES)
                        strcpy(names[nnames++], ci.name);
                }
            }
        }
    }
    CHECK_EQ_INT(rc, 0);
    if (rc != 0)
        fprintf(stderr, "error at %llu: %s\n", (unsigned long long)err.offset, err.msg);
    CHECK_EQ_INT(known_bad, 0);
    CHECK_EQ_INT(size_bad, 0);
    fprintf(stderr, "unknown messages %lld, unknown extension items %lld (kept raw)\n",
            unknown_msgs, unknown_items);

    /* Peer message counts, per id. */
    {
        const char *g = strstr(peer, "\"game\":{");
        const char *s = strstr(peer, "\"sys\":{");
        int id;
        long long peer_total = 0, ours_total = 0;
        for (id = 1; id < 64; id++) {
            char key[8];
            snprintf(key, sizeof key, "%d", id);
            if (g) {
                const char *end = strchr(g, '}');
                long long v = zdem_tw_json_int(peer, g, key, 0);
                /* zdem_tw_json_int searches forward: only count hits inside {}. */
                const char *hit;
                char pat[16];
                snprintf(pat, sizeof pat, "\"%d\":", id);
                hit = strstr(g, pat);
                if (!hit || hit > end)
                    v = 0;
                if (game[id] != v)
                    fprintf(stderr, "game msg %d: ours %lld peer %lld\n", id, game[id], v);
                CHECK_EQ_INT(game[id], v);
                peer_total += v;
                ours_total += game[id];
            }
            if (s) {
                const char *end = strchr(s, '}');
                char pat[16];
                const char *hit;
                snprintf(pat, sizeof pat, "\"%d\":", id);
                hit = strstr(s, pat);
                CHECK_EQ_INT(sys[id], (hit && hit < end) ? zdem_tw_json_int(peer, s, key, 0) : 0);
            }
        }
        CHECK_EQ_INT(ours_total, peer_total);
        CHECK_EQ_INT(ex_game, zdem_tw_json_int(peer, NULL, "ex_game", -1));
        CHECK_EQ_INT(ex_sys, zdem_tw_json_int(peer, NULL, "ex_sys", -1));
        CHECK_EQ_INT(0, zdem_tw_json_int(peer, NULL, "undecodable", -1));
    }
    CHECK_EQ_INT(chats, zdem_tw_json_int(peer, NULL, "chat_count", -1));
    CHECK_EQ_INT(chat_ok, chats);
    CHECK_EQ_INT(kills, zdem_tw_json_int(peer, NULL, "killmsg_count", -1));

    /* Join announcements name players we decoded from client_info. */
    {
        const char *p = peer;
        while ((p = strstr(p, "\"text\":\"'")) != NULL) {
            char text[512], *q;
            json_string(p + 8, text, sizeof text);
            p += 8;
            q = strstr(text, "' entered and joined the game");
            if (q && text[0] == '\'') {
                int j, found = 0;
                *q = 0;
                for (j = 0; j < nnames; j++)
                    found |= strcmp(names[j], text + 1) == 0;
                snprintf(buf, sizeof buf, "client_info name \"%s\"", text + 1);
                if (!found)
                    fprintf(stderr, "%s not found\n", buf);
                CHECK(found);
            }
        }
    }
    free(d);
    free(peer);
}

int main(void)
{
    zdem_tw_reader_init(&rd, NULL, rd_mem, sizeof rd_mem, NULL); /* once: open resets it */
    size_t i;
    for (i = 0; i < ZDEM_TW_CORPUS_N; i++)
        check_file(&zdem_tw_corpus[i]);
    return zt_finish();
}
