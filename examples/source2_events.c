/* Prints the game events of a Source 2 demo (Dota 2, CS2, Deadlock), one
 * per line: tick, name, then the keys. Build:
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
    size_t size, arena_size = 256u << 20; /* the CLI's default --memory */
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_error err;
    uint8_t *file;
    void *arena = malloc(arena_size);
    FILE *f = argc == 2 ? fopen(argv[1], "rb") : NULL;
    if (!f || !arena || fseek(f, 0, SEEK_END) != 0)
        return fprintf(stderr, "usage: source2_events FILE.dem\n"), 1;
    size = (size_t)ftell(f);
    rewind(f);
    if (!(file = malloc(size ? size : 1)) || fread(file, 1, size, f) != size)
        return fprintf(stderr, "%s: cannot read\n", argv[1]), 1;
    fclose(f);
    zdem_s2_config_default(&cfg);
    cfg.skip_entities = 1; /* events only: entities are not decoded */
    cfg.on_event = on_event;
    if (zdem_s2_state_init(&s, arena, arena_size, &cfg, &err) != ZDEM_OK ||
        zdem_s2_state_run(s, file, size, -1, &err) != ZDEM_OK) {
        fprintf(stderr, "%s: offset %llu: %s\n", argv[1],
                (unsigned long long)err.offset, err.msg);
        return 2;
    }
    free(arena);
    free(file);
    return 0;
}
