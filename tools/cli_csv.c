/* events --format csv: the command runs in a child whose stdout is a pipe;
 * each JSON line it prints becomes a CSV row here as soon as it arrives
 * (streamed, every format's events at once, and the JSON printers stay
 * the one place that knows the events). Columns: time (the tick; Quake
 * III: server_time in ms), type, name (when the event has one) and the
 * whole event as JSON. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* End of the JSON value at p (string, number, literal, object, array). */
static const char *skip_value(const char *p, const char *end)
{
    int depth = 0;
    while (p < end) {
        char c = *p;
        if (c == '"') {
            for (p++; p < end && *p != '"'; p++)
                if (*p == '\\')
                    p++;
            p++;
            if (!depth)
                return p;
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']') {
            if (!depth)
                return p;
            if (--depth == 0)
                return p + 1;
        } else if (!depth && (c == ',' || c == '\n'))
            return p;
        p++;
    }
    return end;
}

/* A top-level member's value as text: strings without quotes (escapes
 * kept as they are), numbers as they are. */
void zdem_cli_json_member(const char *line, const char *end, const char *key, const char **v,
                          size_t *n)
{
    const char *p = line, *k;
    size_t kl = strlen(key);
    *v = NULL;
    *n = 0;
    if (p < end && *p == '{')
        p++;
    while (p < end && *p == '"') {
        k = ++p;
        while (p < end && *p != '"') {
            if (*p == '\\')
                p++;
            p++;
        }
        if (p >= end)
            return;
        {
            size_t len = (size_t)(p - k);
            const char *val, *vend;
            p++; /* closing quote */
            if (p >= end || *p != ':')
                return;
            val = ++p;
            vend = skip_value(val, end);
            if (len == kl && memcmp(k, key, kl) == 0) {
                if (vend - val >= 2 && *val == '"') {
                    *v = val + 1;
                    *n = (size_t)(vend - val - 2);
                } else {
                    *v = val;
                    *n = (size_t)(vend - val);
                }
                return;
            }
            p = vend;
            if (p < end && *p == ',')
                p++;
        }
    }
}

int zdem_cli_events_csv(int (*run)(const zdem_cli_args *, const zdem_cli_file *),
                        const zdem_cli_args *a, const zdem_cli_file *f)
{
    int fds[2], status = 0;
    pid_t pid;
    FILE *in;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    fflush(stdout);
    if (pipe(fds) != 0)
        return zdem_cli_failf(f, 0, "cannot create a pipe for --format csv");
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return zdem_cli_failf(f, 0, "cannot fork for --format csv");
    }
    if (pid == 0) {
        int rc;
        close(fds[0]);
        if (dup2(fds[1], 1) < 0)
            _exit(ZDEM_EXIT_BAD_INPUT);
        close(fds[1]);
        rc = run(a, f);
        fflush(stdout);
        _exit(rc);
    }
    close(fds[1]);
    in = fdopen(fds[0], "r");
    if (!in) {
        close(fds[0]);
        waitpid(pid, &status, 0);
        return zdem_cli_failf(f, 0, "cannot read the events for --format csv");
    }
    fputs("time,type,name,json\n", stdout);
    while ((len = getline(&line, &cap, in)) > 0) {
        const char *end = line + len, *v;
        size_t n;
        while (end > line && (end[-1] == '\n' || end[-1] == '\r'))
            end--;
        zdem_cli_json_member(line, end, "tick", &v, &n);
        if (!v)
            zdem_cli_json_member(line, end, "server_time", &v, &n);
        if (v)
            zdem_csv_str(stdout, (const uint8_t *)v, n);
        fputc(',', stdout);
        zdem_cli_json_member(line, end, "type", &v, &n);
        if (v)
            zdem_csv_str(stdout, (const uint8_t *)v, n);
        fputc(',', stdout);
        zdem_cli_json_member(line, end, "name", &v, &n);
        if (v)
            zdem_csv_str(stdout, (const uint8_t *)v, n);
        fputc(',', stdout);
        zdem_csv_str(stdout, (const uint8_t *)line, (size_t)(end - line));
        fputc('\n', stdout);
        if (a->follow || f->live) /* live input: each row as it comes */
            fflush(stdout);
    }
    free(line);
    fclose(in);
    fflush(stdout);
    /* A worker that did not exit (killed: by the OOM killer, by hand, a
     * crash) says nothing of the input: named, with its signal, and a
     * status of its own. */
    if (waitpid(pid, &status, 0) < 0) {
        fprintf(stderr, "zdem: worker for '%s --format csv %s' lost: %s\n", a->command, f->path,
                strerror(errno));
        return ZDEM_EXIT_FAILURE;
    }
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "zdem: worker for '%s --format csv %s' killed by signal %d (%s)\n",
                a->command, f->path, WTERMSIG(status), strsignal(WTERMSIG(status)));
        return ZDEM_EXIT_FAILURE;
    }
    if (!WIFEXITED(status)) {
        fprintf(stderr, "zdem: worker for '%s --format csv %s' ended without an exit status\n",
                a->command, f->path);
        return ZDEM_EXIT_FAILURE;
    }
    return WEXITSTATUS(status);
}
