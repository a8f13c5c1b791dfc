/* Live input for the zdem CLI: Source 2 HTTP broadcasts (a directory laid
 * out like the relay's tree, or an http:// URL through libcurl), and
 * --follow on a file still being written (every format). */
#ifndef ZDEM_CLI_LIVE_H
#define ZDEM_CLI_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include "cli.h"
#include "cli_source2_state.h"

/* Defaults of --idle-timeout (seconds), --poll (ms) and --max-fragment (MiB). */
#define ZDEM_CLI_IDLE_S 60u
#define ZDEM_CLI_POLL_MS 100u
#define ZDEM_CLI_URL_POLL_MS 500u
#define ZDEM_CLI_MAX_FRAGMENT_MIB 64u

/* A broadcast source: a directory (sync.json, N/start[.bin], N/full[.bin],
 * N/delta[.bin]) or a URL (BASE/sync, BASE/N/start, ...). */
typedef struct zdem_cli_live {
    const char *base; /* the path or URL as given */
    int url;
    const zdem_cli_args *args; /* --idle-timeout, --poll, --max-fragment */
} zdem_cli_live;

/* The format's command, chosen from the first bytes (head) and the path. */
typedef int (*zdem_cli_dispatch_fn)(const zdem_cli_args *a, const zdem_cli_file *f,
                                    const uint8_t *head, size_t n);

/* 1 when path is read by zdem_cli_live_run: a URL, a broadcast directory,
 * or any file with --follow. */
int zdem_cli_live_wanted(const zdem_cli_args *a, const char *path);
/* Runs the command on it; returns the exit status. */
int zdem_cli_live_run(const zdem_cli_args *a, const char *path, zdem_cli_dispatch_fn dispatch);

/* Source 2 state commands on a broadcast (zdem_cli_s2_go calls it):
 * fragments in order into r->s until the end record, a missing fragment
 * (directory), --idle-timeout (URL) or, stop_tick >= 0, a record past it. */
void zdem_cli_live_s2_go(zdem_cli_s2_run *r, const zdem_cli_file *f, int64_t stop_tick);


/* The map the broadcast's sync names (NULL when it names none), once
 * zdem_cli_live_s2_go has read it: info's map_name (a broadcast has no
 * DEM_FileHeader). */
const char *zdem_cli_live_map(uint32_t *len);

/* ---- HTTP (tools/cli_live_http.c: libcurl, loaded when a URL is given) -- */
typedef struct zdem_cli_http zdem_cli_http;
/* 0, or -1 with msg ("URLs need libcurl ...") when libcurl is missing. */
int zdem_cli_http_open(zdem_cli_http **h, char *msg, size_t cap);
void zdem_cli_http_close(zdem_cli_http *h);
/* GET url. The body goes to fn in pieces as it arrives, after its first
 * `skip` bytes (asked for as a range; a server that sends everything has
 * them dropped here); fn returns nonzero to stop. Returns the HTTP status,
 * or 0 when the transfer failed (msg says why; *got counts the body bytes
 * handed to fn, skip included, so a dropped connection can resume).
 * stall_ms: no byte for that long fails the transfer. */
long zdem_cli_http_get(zdem_cli_http *h, const char *url, uint64_t skip,
                       int (*fn)(void *ctx, const uint8_t *p, size_t n), void *ctx,
                       uint64_t *got, long stall_ms, char *msg, size_t cap);

#endif
