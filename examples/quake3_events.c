/* Prints the obituaries and chat of a Quake III / Quake Live demo, one per
 * line: server time, then who killed whom how, or the chat text. Build:
 *   cc quake3_events.c $(pkg-config --cflags --libs zdem) -o quake3_events */
#include <stdio.h>
#include <stdlib.h>
#include <zdem/zdem.h>

static int on_event(void *user, const zdem_q3_parser *p, const zdem_q3_event *ev)
{
    (void)user, (void)p;
    if (ev->type == ZDEM_Q3_EV_OBITUARY)
        printf("%ld obituary %d %d %s\n", (long)ev->server_time, ev->attacker,
               ev->target, ev->mod_name);
    else if (ev->type == ZDEM_Q3_EV_CHAT || ev->type == ZDEM_Q3_EV_TCHAT)
        printf("%ld chat %.*s\n", (long)ev->server_time, (int)ev->text_len, ev->text);
    return 0;
}

int main(int argc, char **argv)
{
    zdem_q3_callbacks cb = {0};
    zdem_q3_parser *p;
    zdem_q3_reader r;
    zdem_error err;
    uint8_t *file;
    size_t size;
    void *mem = malloc(zdem_q3_parser_size());
    FILE *f = argc == 2 ? fopen(argv[1], "rb") : NULL;
    if (!f || !mem || fseek(f, 0, SEEK_END) != 0)
        return fprintf(stderr, "usage: quake3_events FILE.dm_68\n"), 1;
    size = (size_t)ftell(f);
    rewind(f);
    if (!(file = (uint8_t *)malloc(size ? size : 1)) || fread(file, 1, size, f) != size)
        return fprintf(stderr, "%s: cannot read\n", argv[1]), 1;
    fclose(f);
    cb.event = on_event;
    /* the protocol from the extension (.dm_68 -> 68), else from the demo */
    p = zdem_q3_parser_init(mem, zdem_q3_parser_size(),
                            zdem_q3_protocol_from_path(argv[1]), &cb, NULL, &err);
    if (!p || zdem_q3_parse_file(p, file, size, &r, &err) != ZDEM_OK) {
        fprintf(stderr, "%s: offset %llu: %s\n", argv[1],
                (unsigned long long)err.offset, err.msg);
        return 2;
    }
    free(mem);
    free(file);
    return 0;
}
