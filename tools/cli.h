/* Shared pieces of the zdem command-line tool. Each format has its own
 * tools/cli_<format>.c implementing the commands it supports. */
#ifndef ZDEM_CLI_H
#define ZDEM_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "zdem_error.h"

/* Standard input ("-"): read in pieces through the push APIs. */
typedef struct zdem_cli_stream {
    int fd;
    uint8_t head[16];     /* the first bytes, read to detect the format */
    size_t head_len, head_pos;
    int error;            /* errno of a failed read, 0 none */
    unsigned long long got; /* bytes read so far */
    /* --follow (tools/cli_live.c): a file still being written; its end is
     * waited for, not taken as the end of the demo */
    int follow;
    int idled;            /* stopped after --idle-timeout without growth */
    int notify;           /* inotify descriptor, -1 none */
    const char *path;
    unsigned long idle_ms, poll_ms;
    int (*done)(void *ctx); /* the format's end reached: stop following */
    void *done_ctx;
} zdem_cli_stream;

typedef struct zdem_cli_file {
    const char *path;
    const uint8_t *data; /* whole file, mmap'd (read-only); NULL for a stream */
    size_t size;
    zdem_cli_stream *in; /* standard input ("-") or --follow, else NULL */
    const struct zdem_cli_live *live; /* a Source 2 broadcast, else NULL */
} zdem_cli_file;

/* Pieces of standard input are read this large. */
#define ZDEM_CLI_PIECE ((size_t)64 << 10)

/* The next bytes of a stream (the detected head first): up to cap, 0 at
 * its end or on a read error (then f->in->error is set). */
size_t zdem_cli_read(const zdem_cli_file *f, uint8_t *buf, size_t cap);
/* --follow (tools/cli_live.c): at the end of the file so far, 1 when more
 * bytes came (read again), 0 at the format's end (in->done) or after
 * --idle-timeout. Flushes standard output before it waits. */
int zdem_cli_follow_wait(zdem_cli_stream *in);
/* The reader's end test for --follow, set before its read loop (a no-op
 * on other input): stop when done(ctx) says the demo is complete. */
void zdem_cli_follow_until(const zdem_cli_file *f, int (*done)(void *ctx), void *ctx);
/* After the last zdem_cli_read: 0, or the exit status after "zdem: -:
 * offset N: cannot read: ..." for a read error. */
int zdem_cli_read_error(const zdem_cli_file *f);

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
    int protocol;             /* --protocol N: Quake III protocol (0: from the
                                 file name, else the serverinfo) */
    /* ticks */
    const char *const *props; /* --props P1,P2,... (split) */
    unsigned nprops;
    const int32_t *ticks;     /* --ticks A,B,... (ascending, no repeats) */
    unsigned nticks;
    unsigned long every;      /* --every K (0: every tick) */
    const char *format;       /* --format jsonl|csv (NULL: jsonl) */
    /* events */
    const char *const *names; /* --name A,B,... (split): event names or types */
    unsigned nnames;
    /* cut: --start/--end (ticks; Quake III: server time in ms),
     * --start-seconds/--end-seconds, --around I --before S --after S */
    int has_start, has_end, has_start_s, has_end_s, has_around;
    long long start, end, around;
    double start_s, end_s, before_s, after_s;
    unsigned long long max_output; /* --max-output BYTES (dump; 0: default) */
    unsigned long long max_rows;   /* --max-rows N (ticks; 0: default) */
    /* live input (tools/cli_live.c) */
    int follow;                  /* --follow */
    unsigned long idle_s;        /* --idle-timeout SECONDS (0: default) */
    unsigned long poll_ms;       /* --poll MS (0: default) */
    unsigned long fragment_mib;  /* --max-fragment MIB (0: default) */
} zdem_cli_args;

/* Exit statuses. */
enum {
    ZDEM_EXIT_OK = 0,
    ZDEM_EXIT_USAGE = 1,
    ZDEM_EXIT_BAD_INPUT = 2,
    ZDEM_EXIT_FAILURE = 3 /* zdem itself failed (a worker killed), not the input */
};

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
    struct zdem_cli_stream *in;   /* standard input: the bound follows it */
} zdem_cli_bound;
extern zdem_cli_bound zdem_cli_out;
void zdem_cli_bound_init(const zdem_cli_args *a, const zdem_cli_file *f, int source2);
/* Standard input: the default bounds again for the bytes read so far. */
int zdem_cli_out_grow(void);
/* Counts n bytes printed; 1 once the byte bound is reached. */
int zdem_cli_out_bytes(uint64_t n);
/* The stderr warning when a bound stopped the command; 1 if one did. */
int zdem_cli_out_report(const zdem_cli_file *f);

/* Per-format entry points: return an exit status. */
int zdem_cli_source2(const zdem_cli_args *a, const zdem_cli_file *f);
int zdem_cli_quake3(const zdem_cli_args *a, const zdem_cli_file *f);
int zdem_cli_teeworlds(const zdem_cli_args *a, const zdem_cli_file *f);
/* `zdem props` of each format: the names `ticks` accepts (tools/cli_props.c). */
int zdem_cli_source2_props(const zdem_cli_args *a, const zdem_cli_file *f);
int zdem_cli_quake3_props(const zdem_cli_args *a, const zdem_cli_file *f);
int zdem_cli_teeworlds_props(const zdem_cli_args *a, const zdem_cli_file *f);
/* `zdem ticks` of each format (tools/cli_<format>_ticks.c). */
int zdem_cli_source2_ticks(const zdem_cli_args *a, const zdem_cli_file *f);
int zdem_cli_quake3_ticks(const zdem_cli_args *a, const zdem_cli_file *f);
int zdem_cli_teeworlds_ticks(const zdem_cli_args *a, const zdem_cli_file *f);
/* `zdem cut` (tools/cli_cut.c): format "source2", "quake3" or
 * "teeworlds"; events is the format's entry point, run for --around. */
int zdem_cli_cut(const zdem_cli_args *a, const zdem_cli_file *f, const char *format,
                 int (*events)(const zdem_cli_args *, const zdem_cli_file *));
/* A top-level member of a JSON line as text (tools/cli_csv.c): a string
 * without its quotes, a number as it is; *v NULL when absent. */
void zdem_cli_json_member(const char *line, const char *end, const char *key, const char **v,
                          size_t *n);
/* `events --format csv`: runs the command with its JSON lines turned into
 * CSV rows as they come (tools/cli_csv.c). */
int zdem_cli_events_csv(int (*run)(const zdem_cli_args *, const zdem_cli_file *),
                        const zdem_cli_args *a, const zdem_cli_file *f);

/* One of several files: run(a, path) in a child, its output marked with
 * the file (tools/cli_multi.c). Returns its exit status. */
int zdem_cli_multi(const zdem_cli_args *a, const char *path,
                   int (*run)(const zdem_cli_args *, const char *));

/* "zdem: FILE: offset N: message" on stderr (offset N (payload byte P)
 * for an error inside a frame's payload); returns ZDEM_EXIT_BAD_INPUT. */
int zdem_cli_fail(const zdem_cli_file *f, const zdem_error *err);
/* "offset N" or "offset N (payload byte P)" of an error. */
void zdem_cli_where(FILE *out, const zdem_error *err);
/* Set by a source whose offsets need more words (a broadcast names the
 * fragment an offset falls in); called at the end of zdem_cli_where. */
extern void (*zdem_cli_where_more)(FILE *out, const zdem_error *err);
/* ,"error":{"offset":N,["payload_byte":P,]"message":"..."} */
void zdem_cli_error_json(FILE *out, const zdem_error *err);
/* Same, for a message without an error record. */
int zdem_cli_failf(const zdem_cli_file *f, unsigned long long offset, const char *msg);
/* More --props than the format's rows take: "zdem: too many properties:
 * N (limit L)", ZDEM_EXIT_USAGE (a usage error, found before any memory is
 * sized by it); 0 when within the limit. */
int zdem_cli_props_limit(const zdem_cli_args *a, unsigned limit);
/* An unknown name the user gave: "zdem: FILE: MSG (HINT)" (hint may be
 * NULL); returns ZDEM_EXIT_USAGE. */
int zdem_cli_unknown(const zdem_cli_file *f, const char *msg, const char *hint);
/* Checks names[0..n) against the valid names (a fixed list): for the
 * first that is not one, the message with the closest valid names (see
 * runtime/zdem_near.h) and ZDEM_EXIT_USAGE; else 0. what: "event",
 * "message type", ... */
int zdem_cli_check_names(const zdem_cli_file *f, const char *what, const char *const *valid,
                         size_t nvalid, const char *const *names, unsigned n,
                         const char *hint);
/* --name: 1 when the list is empty or holds name (len bytes) or type. */
int zdem_cli_name_wanted(const zdem_cli_args *a, const char *name, size_t len, const char *type);
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
