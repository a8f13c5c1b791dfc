/* Shared pieces of the zdem command-line tool. Each format has its own
 * tools/cli_<format>.c implementing the commands it supports. */
#ifndef ZDEM_CLI_H
#define ZDEM_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "zdem_error.h"

typedef struct zdem_cli_file {
    const char *path;
    const uint8_t *data; /* whole file, mmap'd (read-only) */
    size_t size;
} zdem_cli_file;

typedef struct zdem_cli_args {
    const char *command;  /* info, dump, events, entities, map */
    int json;             /* --json */
    const char *type;     /* --type NAME (dump filter) */
    long long tick;       /* --tick N */
    int has_tick;
    const char *class_name; /* --class NAME */
    const char *out;      /* -o OUT */
    unsigned long memory_mib; /* --memory MIB (0: default) */
    unsigned long frame_mib;  /* --max-frame MIB (0: default) */
    unsigned long max_work;   /* --max-work N: x the default work budget (0: 1) */
    int small;                /* --small: the microcontroller limits */
    /* ticks */
    const char *const *props; /* --props P1,P2,... (split) */
    unsigned nprops;
    const int32_t *ticks;     /* --ticks A,B,... (ascending, no repeats) */
    unsigned nticks;
    unsigned long every;      /* --every K (0: every tick) */
    const char *format;       /* --format jsonl|csv (NULL: jsonl) */
    unsigned long long max_output; /* --max-output BYTES (dump; 0: default) */
    unsigned long long max_rows;   /* --max-rows N (ticks; 0: default) */
} zdem_cli_args;

/* Exit statuses. */
enum { ZDEM_EXIT_OK = 0, ZDEM_EXIT_USAGE = 1, ZDEM_EXIT_BAD_INPUT = 2 };

/* Output bounds (tools/cli_output.c): dump stops after max_bytes, ticks
 * after max_rows; by default a multiple of the input's size, far above what
 * real demos print (README, Damage and warnings). */
#define ZDEM_CLI_OUTPUT_PER_BYTE 64    /* Quake III, Teeworlds */
#define ZDEM_CLI_OUTPUT_PER_BYTE_S2 8  /* Source 2: frames inflate */
#define ZDEM_CLI_OUTPUT_SLACK 65536
#define ZDEM_CLI_ROWS_PER_BYTE 16     /* Quake III, Teeworlds */
#define ZDEM_CLI_ROWS_PER_BYTE_S2 3   /* Source 2 */
#define ZDEM_CLI_ROWS_SLACK 65536
#define ZDEM_CLI_STR_(x) #x
#define ZDEM_CLI_STR(x) ZDEM_CLI_STR_(x)
typedef struct zdem_cli_bound {
    uint64_t max_bytes, max_rows; /* the bounds of this run */
    uint64_t bytes, rows;         /* printed so far */
    int explicit_bytes, explicit_rows;
    int source2;                  /* its default --max-output is lower */
    int over;                     /* a bound was reached: the command stops */
} zdem_cli_bound;
extern zdem_cli_bound zdem_cli_out;
void zdem_cli_bound_init(const zdem_cli_args *a, const zdem_cli_file *f, int source2);
/* Counts n bytes printed; 1 once the byte bound is reached. */
int zdem_cli_out_bytes(uint64_t n);
/* The stderr warning when a bound stopped the command; 1 if one did. */
int zdem_cli_out_report(const zdem_cli_file *f);

/* Per-format entry points: return an exit status. */
int zdem_cli_source2(const zdem_cli_args *a, const zdem_cli_file *f);
int zdem_cli_quake3(const zdem_cli_args *a, const zdem_cli_file *f);
int zdem_cli_teeworlds(const zdem_cli_args *a, const zdem_cli_file *f);
/* `zdem ticks` of each format (tools/cli_<format>_ticks.c). */
int zdem_cli_source2_ticks(const zdem_cli_args *a, const zdem_cli_file *f);
int zdem_cli_quake3_ticks(const zdem_cli_args *a, const zdem_cli_file *f);
int zdem_cli_teeworlds_ticks(const zdem_cli_args *a, const zdem_cli_file *f);
/* `events --format csv`: runs the command with its JSON lines turned into
 * CSV rows as they come (tools/cli_csv.c). */
int zdem_cli_events_csv(int (*run)(const zdem_cli_args *, const zdem_cli_file *),
                        const zdem_cli_args *a, const zdem_cli_file *f);

/* "zdem: FILE: offset N: message" on stderr (offset N (payload byte P)
 * for an error inside a frame's payload); returns ZDEM_EXIT_BAD_INPUT. */
int zdem_cli_fail(const zdem_cli_file *f, const zdem_error *err);
/* "offset N" or "offset N (payload byte P)" of an error. */
void zdem_cli_where(FILE *out, const zdem_error *err);
/* ,"error":{"offset":N,["payload_byte":P,]"message":"..."} */
void zdem_cli_error_json(FILE *out, const zdem_error *err);
/* Same, for a message without an error record. */
int zdem_cli_failf(const zdem_cli_file *f, unsigned long long offset, const char *msg);
/* "zdem: COMMAND is not supported for FORMAT files"; returns ZDEM_EXIT_USAGE. */
int zdem_cli_unsupported(const zdem_cli_args *a, const char *format);

/* JSON helpers: a quoted, escaped string (bytes that are not valid UTF-8 are
 * written as \u00XX of the byte, so output is always valid JSON). */
void zdem_json_str(FILE *out, const uint8_t *s, size_t n);
/* One CSV field (RFC 4180): quoted, with quotes doubled, when it holds a
 * comma, quote or line break. */
void zdem_csv_str(FILE *out, const uint8_t *s, size_t n);
void zdem_json_cstr(FILE *out, const char *s);

#endif
