/* Prints the kills and chat of a Teeworlds / DDNet demo, one per line:
 * tick, then killer victim weapon, or client and text. Build:
 *   cc teeworlds_events.c $(pkg-config --cflags --libs zdem) -o teeworlds_events */
#include <stdio.h>
#include <stdlib.h>
#include <zdem/zdem.h>

int main(int argc, char **argv)
{
    zdem_tw_reader r;                            /* control block */
    size_t mem_size = zdem_tw_reader_mem_size(NULL); /* game bounds: 281 KiB */
    void *mem = malloc(mem_size);
    zdem_tw_event ev;
    zdem_error err;
    uint8_t *file;
    size_t size;
    int rc;
    FILE *f = argc == 2 ? fopen(argv[1], "rb") : NULL;
    if (!f || !mem || fseek(f, 0, SEEK_END) != 0)
        return fprintf(stderr, "usage: teeworlds_events FILE.demo\n"), 1;
    size = (size_t)ftell(f);
    rewind(f);
    if (!(file = (uint8_t *)malloc(size ? size : 1)) || fread(file, 1, size, f) != size)
        return fprintf(stderr, "%s: cannot read\n", argv[1]), 1;
    fclose(f);
    if (zdem_tw_reader_init(&r, NULL, mem, mem_size, &err) != ZDEM_OK ||
        zdem_tw_reader_open(&r, file, size, &err) != ZDEM_OK)
        rc = -1;
    else
        while ((rc = zdem_tw_reader_next(&r, &ev, &err)) == 1) {
            const zdem_tw_msg *m = &ev.msg;
            zdem_tw_game_sv_kill_msg k;
            zdem_tw_game_sv_chat c;
            if (ev.chunk.kind != ZDEM_TW_CHUNK_MESSAGE || !ev.desc || m->sys)
                continue;
            if (m->id == ZDEM_TW_MSG_SV_KILL_MSG &&
                zdem_tw_game_sv_kill_msg_decode(m->body, m->body_len, &k) == ZDEM_OK)
                printf("%ld kill %ld %ld %ld\n", (long)ev.chunk.tick, (long)k.killer,
                       (long)k.victim, (long)k.weapon);
            else if (m->id == ZDEM_TW_MSG_SV_CHAT &&
                     zdem_tw_game_sv_chat_decode(m->body, m->body_len, &c) == ZDEM_OK)
                printf("%ld chat %ld %.*s\n", (long)ev.chunk.tick, (long)c.client_id,
                       (int)c.message.n, (const char *)c.message.p);
        }
    if (rc < 0) {
        fprintf(stderr, "%s: offset %llu: %s\n", argv[1],
                (unsigned long long)err.offset, err.msg);
        return 2;
    }
    free(mem);
    free(file);
    return 0;
}
