/* Several files in one call: each runs in a child whose standard output
 * comes back through a pipe, line by line, marked with its file: a JSON
 * line gets "file" as its first member, a CSV record a first column
 * "file" (the header's name "file"; a header the same as the last file's
 * is not repeated), anything else (text) follows a line "==> FILE <==".
 * Errors go to stderr as they are (they name the file). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* The last CSV header printed (until exit). */
static char *last_header;

static void free_header(void)
{
    free(last_header);
}

int zdem_cli_multi(const zdem_cli_args *a, const char *path,
                   int (*run)(const zdem_cli_args *, const char *))
{
    int fds[2], status = 0, csv = a->format && strcmp(a->format, "csv") == 0;
    int header_done = 0, in_quotes = 0, csv_first = 1;
    int live = a->follow || strncmp(path, "http://", 7) == 0 || strncmp(path, "https://", 8) == 0;
    pid_t pid;
    FILE *in;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    fflush(stdout);
    if (pipe(fds) != 0) {
        fprintf(stderr, "zdem: %s: cannot create a pipe\n", path);
        return ZDEM_EXIT_BAD_INPUT;
    }
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        fprintf(stderr, "zdem: %s: cannot fork\n", path);
        return ZDEM_EXIT_BAD_INPUT;
    }
    if (pid == 0) {
        int rc;
        close(fds[0]);
        if (dup2(fds[1], 1) < 0)
            _exit(ZDEM_EXIT_BAD_INPUT);
        close(fds[1]);
        rc = run(a, path);
        fflush(stdout);
        _exit(rc);
    }
    close(fds[1]);
    in = fdopen(fds[0], "r");
    if (!in) {
        close(fds[0]);
        waitpid(pid, &status, 0);
        fprintf(stderr, "zdem: %s: cannot read the output\n", path);
        return ZDEM_EXIT_BAD_INPUT;
    }
    while ((len = getline(&line, &cap, in)) > 0) {
        ssize_t i;
        if (csv) {
            if (csv_first && !in_quotes && last_header && strcmp(last_header, line) == 0) {
                csv_first = 0; /* the same columns as the file before */
                continue;
            }
            if (csv_first && !in_quotes) {
                if (!last_header)
                    atexit(free_header);
                free(last_header);
                last_header = strdup(line);
            }
            if (!in_quotes) { /* a record starts: a line inside a quoted field does not */
                if (csv_first)
                    fputs("file,", stdout);
                else {
                    zdem_csv_str(stdout, (const uint8_t *)path, strlen(path));
                    fputc(',', stdout);
                }
            }
            for (i = 0; i < len; i++)
                in_quotes ^= line[i] == '"';
            if (!in_quotes)
                csv_first = 0;
            fwrite(line, 1, (size_t)len, stdout);
        } else if (line[0] == '{') {
            fputs("{\"file\":", stdout);
            zdem_json_cstr(stdout, path);
            if (len > 1 && line[1] != '}')
                fputc(',', stdout);
            fwrite(line + 1, 1, (size_t)len - 1u, stdout);
        } else {
            if (!header_done)
                printf("==> %s <==\n", path);
            header_done = 1;
            fwrite(line, 1, (size_t)len, stdout);
        }
        if (live) /* each line as it comes */
            fflush(stdout);
    }
    free(line);
    fclose(in);
    fflush(stdout);
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
        return ZDEM_EXIT_BAD_INPUT;
    return WEXITSTATUS(status);
}
