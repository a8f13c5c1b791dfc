/* The Quake III fuzz targets parse the way tools/cli_quake3.c does: every
 * callback set, the protocol from the serverinfo (the CLI's path for a file
 * without a known extension), configstrings and player names read at each
 * gamestate, entities and event strings touched so that ASan checks them.
 * The parser memory is allocated once and reused: init only clears what
 * the parser needs cleared. */
#ifndef FUZZ_QUAKE3_CLI_H
#define FUZZ_QUAKE3_CLI_H

#include <stdlib.h>
#include <string.h>
#include "quake3.h"

static volatile size_t fuzz_q3_sink;

/* Scaffolding, not code under test: no coverage hooks (clang), so its
 * loops neither slow each input nor add features for the fuzzer. */
#if defined(__clang__)
#define FUZZ_Q3_NO_COV __attribute__((no_sanitize("coverage")))
#else
#define FUZZ_Q3_NO_COV
#endif

FUZZ_Q3_NO_COV static void fuzz_q3_touch(const char *s, size_t n)
{
    size_t i, h = 0;
    for (i = 0; i < n; i++)
        h += (unsigned char)s[i];
    fuzz_q3_sink += h;
}

FUZZ_Q3_NO_COV static int fuzz_q3_gamestate(void *user, const zdem_q3_parser *p)
{
    const zdem_q3_protocol_info *pi = zdem_q3_protocol_info_of(p);
    size_t n, vn;
    int i;
    const char *s;
    (void)user;
    for (i = 0; i < ZDEM_Q3_MAX_CONFIGSTRINGS; i++)
        if ((s = zdem_q3_configstring(p, i, &n)) != NULL)
            fuzz_q3_touch(s, n);
    s = zdem_q3_configstring(p, 0, &n);
    if ((s = zdem_q3_info_value(s, n, "mapname", &vn)) != NULL)
        fuzz_q3_touch(s, vn);
    for (i = 0; pi && i < ZDEM_Q3_MAX_CLIENTS; i++) {
        s = zdem_q3_configstring(p, pi->cs_players + i, &n);
        if ((s = zdem_q3_info_value(s, n, "n", &vn)) != NULL)
            fuzz_q3_touch(s, vn);
    }
    fuzz_q3_sink += zdem_q3_baseline_count(p) + (size_t)zdem_q3_client_num(p);
    {
        /* each stored baseline decoded again (up to the count stored) */
        size_t left = zdem_q3_baseline_count(p);
        for (i = 0; i < ZDEM_Q3_MAX_GENTITIES && left; i++) {
            const zdem_q3_entity *b = zdem_q3_baseline(p, i);
            if (b) {
                fuzz_q3_sink += (size_t)b->number + (size_t)b->eType;
                left--;
            }
        }
    }
    return 0;
}

FUZZ_Q3_NO_COV static int fuzz_q3_snapshot(void *user, const zdem_q3_parser *p, const zdem_q3_snapshot *s)
{
    int i;
    (void)user;
    for (i = 0; i < s->num_entities; i++)
        fuzz_q3_sink += (size_t)zdem_q3_snapshot_entity(p, s, i)->number;
    fuzz_q3_sink += (size_t)s->server_time + (size_t)s->ps.commandTime;
    return 0;
}

FUZZ_Q3_NO_COV static int fuzz_q3_command(void *user, const zdem_q3_parser *p, int32_t seq, const char *s,
                           size_t n)
{
    (void)user;
    (void)p;
    fuzz_q3_touch(s, n);
    fuzz_q3_sink += (size_t)seq;
    return 0;
}

FUZZ_Q3_NO_COV static int fuzz_q3_event(void *user, const zdem_q3_parser *p, const zdem_q3_event *ev)
{
    (void)user;
    (void)p;
    fuzz_q3_touch(ev->attacker_name ? ev->attacker_name : "", ev->attacker_name ? strlen(ev->attacker_name) : 0);
    fuzz_q3_touch(ev->target_name ? ev->target_name : "", ev->target_name ? strlen(ev->target_name) : 0);
    fuzz_q3_touch(ev->mod_name ? ev->mod_name : "", ev->mod_name ? strlen(ev->mod_name) : 0);
    if (ev->text)
        fuzz_q3_touch(ev->text, ev->text_len);
    fuzz_q3_touch(zdem_q3_event_type_name(ev->type), strlen(zdem_q3_event_type_name(ev->type)));
    return 0;
}

FUZZ_Q3_NO_COV static int fuzz_q3_warning(void *user, const zdem_q3_parser *p, const zdem_error *w)
{
    (void)user;
    (void)p;
    fuzz_q3_touch(w->msg, strlen(w->msg));
    return 0;
}

/* A parser over memory allocated on the first call; protocol 0: from the
 * serverinfo (the legacy 1.11-1.27 layout needs it given, as the CLI
 * gives it from the file extension); small: at ZDEM_Q3_LIMITS_SMALL (the
 * stores and the pool run full, evictions happen). */
static zdem_q3_parser *fuzz_q3_parser_limits(int protocol, int small)
{
    zdem_q3_limits lim;
    static void *mem;
    zdem_q3_callbacks cb;
    zdem_error err;
    if (!mem)
        mem = malloc(zdem_q3_parser_size());
    if (!mem)
        return NULL;
    memset(&cb, 0, sizeof cb);
    cb.gamestate = fuzz_q3_gamestate;
    cb.snapshot = fuzz_q3_snapshot;
    cb.server_command = fuzz_q3_command;
    cb.event = fuzz_q3_event;
    cb.warning = fuzz_q3_warning;
    zdem_error_clear(&err);
    if (small)
        zdem_q3_limits_small(&lim);
    else
        zdem_q3_limits_default(&lim);
    return zdem_q3_parser_init_limits(mem, zdem_q3_parser_size(), protocol, &lim, &cb, NULL, &err);
}

#define fuzz_q3_parser_for(protocol) fuzz_q3_parser_limits((protocol), 0)
#define fuzz_q3_parser() fuzz_q3_parser_limits(0, 0)

#endif
