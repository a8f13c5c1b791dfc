/* zdem CLI commands backed by the Source 2 state layer (string tables,
 * serializers, entities, game events). Called from tools/cli_source2.c. */
#ifndef ZDEM_CLI_SOURCE2_STATE_H
#define ZDEM_CLI_SOURCE2_STATE_H

#include <stdio.h>
#include "cli.h"

/* zdem events: game events, chat, combat log; one JSON object a line with
 * "tick", "type" and "name". Returns an exit status. */
int zdem_cli_source2_events(const zdem_cli_args *a, const zdem_cli_file *f);

/* zdem entities [--tick N] [--class NAME]: live entities and their
 * properties at tick N (the end by default), one JSON object a line. */
int zdem_cli_source2_entities(const zdem_cli_args *a, const zdem_cli_file *f);

/* Extra members for "zdem info --json", each preceded by a comma:
 * "entity_classes", "serializers", "string_tables" {name: entries},
 * "entities_at_end", "players" [names]. Returns 0 or an exit status. */
int zdem_cli_source2_info_state(FILE *out, const zdem_cli_file *f);

#endif
