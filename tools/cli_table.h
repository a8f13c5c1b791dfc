/* Prints zdem_table chunks as they are flushed: JSON lines or CSV (header
 * from the columns of the first chunk). Shared by every format's `ticks`. */
#ifndef ZDEM_CLI_TABLE_H
#define ZDEM_CLI_TABLE_H

#include <stdio.h>
#include "zdem_table.h"

typedef struct zdem_cli_table_out {
    FILE *out;
    int csv;
    int header_done;
    uint32_t header_cols; /* CSV: columns in the header */
    uint64_t late_cols;   /* CSV: values of columns that came after it */
} zdem_cli_table_out;

/* A zdem_table_flush_fn; user is a zdem_cli_table_out. */
zdem_status zdem_cli_table_print(void *user, const zdem_table *t);

/* Allocates a table for the CLI (chunks of 256 rows: output streams as
 * the demo is read). NULL when out of memory. */
zdem_table *zdem_cli_table_new(uint32_t max_cols, zdem_cli_table_out *o);

/* "jsonl" or "csv" (NULL: jsonl) -> 0/1, or -1. */
int zdem_cli_table_format(const char *format);

#endif
