/* Source 2 CLI pieces backed by the state layer: the run (memory from the
 * command line, one pass, warnings and the damage contract), events,
 * entities. Called from tools/cli_source2.c. */
#ifndef ZDEM_CLI_SOURCE2_STATE_H
#define ZDEM_CLI_SOURCE2_STATE_H

#include <stdio.h>
#include "cli.h"
#include "source2_state.h"

/* Default --memory and --max-frame, MiB. */
#define ZDEM_CLI_S2_MEMORY_MIB 256u
#define ZDEM_CLI_S2_FRAME_MIB 16u

typedef struct zdem_cli_s2_run {
    size_t frame; /* frame buffer, bytes */
    void *arena;
    zdem_s2_state *s;
    zdem_error err; /* the run's error (code OK: none) */
} zdem_cli_s2_run;

/* Allocates the arena (--memory) and initializes the state with cfg
 * (frame buffer from --max-frame). 0, or an exit status after a message. */
int zdem_cli_s2_open(zdem_cli_s2_run *r, const zdem_cli_args *a,
                     const zdem_cli_file *f, zdem_s2_config *cfg);
/* Runs the whole file (stop_tick >= 0: up to that tick; seek: through the
 * nearest full packet); r->err holds the run's error. */
void zdem_cli_s2_go(zdem_cli_s2_run *r, const zdem_cli_file *f, int64_t tick, int seek);
/* One stderr line per warning kind seen, then the run's error line.
 * Returns the exit status (2 when the run had an error). */
int zdem_cli_s2_report(const zdem_cli_s2_run *r, const zdem_cli_file *f);
int zdem_cli_s2_verdict(const zdem_cli_file *f, const zdem_s2_warnings *w,
                        const zdem_error *err, size_t frame_limit);
/* The work budget --max-work asks for, into a config and/or a parser's. */
void zdem_cli_s2_work(const zdem_cli_args *a, zdem_s2_config *cfg, zdem_s2_work *w);
/* The frame buffer --max-frame asks for, bytes. */
size_t zdem_cli_s2_frame_size(const zdem_cli_args *a);
void zdem_cli_s2_close(zdem_cli_s2_run *r);

/* ,"warnings":{"kind":count,...} (empty when there are none). */
void zdem_cli_s2_warnings_json(FILE *out, const zdem_s2_warnings *w);
/* "warning: ..." lines for the text info. */
void zdem_cli_s2_warnings_text(FILE *out, const zdem_s2_warnings *w);
/* A property or event value as JSON. */
void zdem_cli_s2_value_json(FILE *out, const zdem_s2_value *v);

/* zdem events: game events, chat, combat log; one JSON object a line with
 * "tick", "type" and "name". Returns an exit status. */
int zdem_cli_source2_events(const zdem_cli_args *a, const zdem_cli_file *f);

/* zdem entities [--tick N] [--class NAME]: live entities and their
 * properties at tick N (the end by default), one JSON object a line. */
int zdem_cli_source2_entities(const zdem_cli_args *a, const zdem_cli_file *f);

#endif
