/* libFuzzer target: a whole TWDEMO file through the reader (header, chunk
 * walk, Huffman, ints, snapshots, messages) and the generated decoders. */
#include <stddef.h>
#include <stdint.h>
#include "teeworlds_reader.h"

static tw_reader rd; /* ~350 KiB: static, as on a device */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zdem_error err;
    tw_event ev;
    zdem_error_clear(&err);
    if (tw_reader_open(&rd, data, size, &err) != ZDEM_OK)
        return 0;
    (void)tw_demo_map_crc_ok(&rd.info);
    (void)tw_demo_map_sha256_ok(&rd.info);
    while (tw_reader_next(&rd, &ev, &err) == 1) {
        if (ev.desc && ev.desc->num_fields) {
            tw_game_sv_chat chat;
            tw_game_sv_kill_msg kill;
            (void)tw_game_sv_chat_decode(ev.msg.body, ev.msg.body_len, &chat);
            (void)tw_game_sv_kill_msg_decode(ev.msg.body, ev.msg.body_len, &kill);
        }
        if (ev.snap) {
            uint32_t i;
            for (i = 0; i < ev.snap->num_items; i++) {
                const tw_obj_desc *d = tw_item_desc(ev.snap, i);
                if (d && tw_snap_type(ev.snap, i) == TW_OBJ_CLIENT_INFO) {
                    tw_obj_client_info ci;
                    tw_obj_client_info_decode(tw_snap_data(ev.snap, i), ev.snap->len[i], &ci);
                }
            }
        }
    }
    return 0;
}
