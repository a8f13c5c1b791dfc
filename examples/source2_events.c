/* Prints the game events of a Source 2 demo (Dota 2, CS2, Deadlock), one
 * per line: tick, name, then the keys. The events mode reads the file in
 * 4 KiB pieces in 1 MiB of memory, as a device streaming it would. Build:
 *   cc source2_events.c $(pkg-config --cflags --libs zdem) -o source2_events */
#include <stdio.h>
#include <stdlib.h>
#include <zdem/zdem.h>

static zdem_status on_event(void *user, zdem_s2_state *s, const zdem_s2_event *ev)
{
    uint32_t k;
    (void)user, (void)s;
    if (ev->type != ZDEM_S2_EV_GAME_EVENT)
        return ZDEM_OK;
    printf("%ld %.*s", (long)ev->tick, (int)ev->name_len, ev->name);
    for (k = 0; k < ev->nkeys; k++)
        printf(" %.*s", (int)ev->keys[k].name_len, ev->keys[k].name);
    putchar('\n');
    return ZDEM_OK;
}

int main(int argc, char **argv)
{
    size_t n, arena_size = 1u << 20; /* events mode: every corpus demo fits */
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_error err;
    zdem_status st = ZDEM_OK;
    static uint8_t piece[4096];
    void *arena = malloc(arena_size);
    FILE *f = argc == 2 ? fopen(argv[1], "rb") : NULL;
    if (!f || !arena)
        return fprintf(stderr, "usage: source2_events FILE.dem\n"), 1;
    zdem_error_clear(&err);
    zdem_s2_config_events(&cfg); /* no entities: packets only, two tables */
    cfg.on_event = on_event;
    if (zdem_s2_state_init(&s, arena, arena_size, &cfg, &err) != ZDEM_OK)
        return fprintf(stderr, "%s: %s\n", argv[1], err.msg), 1;
    while (st == ZDEM_OK && (n = fread(piece, 1, sizeof piece, f)) > 0)
        st = zdem_s2_state_feed(s, piece, n, &err);
    if (st == ZDEM_OK)
        st = zdem_s2_state_end(s, &err);
    fclose(f);
    free(arena);
    if (st != ZDEM_OK) { /* every event before the damage was printed */
        fprintf(stderr, "%s: offset %llu: %s\n", argv[1], (unsigned long long)err.offset, err.msg);
        return 2;
    }
    return 0;
}
