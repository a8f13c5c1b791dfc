/* The output bounds of `dump` (bytes) and `ticks` (rows): --max-output and
 * --max-rows, or by default a multiple of the input's size. Without them a
 * small file could make the CLI write without end: Source 2 frames of
 * nothing decompress into millions of one-line inner messages, and empty
 * frames repeat every entity's row at each new tick. Past the bound a
 * command stops, says so on stderr and exits 0 (2 when the input was
 * damaged before it). */
#include "cli.h"

#include <string.h>

zdem_cli_bound zdem_cli_out;

/* The defaults for n input bytes. */
static void bound_defaults(uint64_t n)
{
    int s2 = zdem_cli_out.source2;
    if (!zdem_cli_out.explicit_bytes)
        zdem_cli_out.max_bytes =
            (s2 ? ZDEM_CLI_OUTPUT_PER_BYTE_S2 : ZDEM_CLI_OUTPUT_PER_BYTE) * n + ZDEM_CLI_OUTPUT_SLACK;
    if (!zdem_cli_out.explicit_rows)
        zdem_cli_out.max_rows =
            (s2 ? ZDEM_CLI_ROWS_PER_BYTE_S2 : ZDEM_CLI_ROWS_PER_BYTE) * n + ZDEM_CLI_ROWS_SLACK;
}

void zdem_cli_bound_init(const zdem_cli_args *a, const zdem_cli_file *f, int source2)
{
    memset(&zdem_cli_out, 0, sizeof zdem_cli_out);
    zdem_cli_out.source2 = source2;
    zdem_cli_out.max_bytes = a->max_output;
    zdem_cli_out.max_rows = a->max_rows;
    zdem_cli_out.explicit_bytes = a->max_output != 0;
    zdem_cli_out.explicit_rows = a->max_rows != 0;
    /* standard input has no size yet: the bound follows the bytes read
     * so far (zdem_cli_out_grow), which output never runs ahead of */
    zdem_cli_out.in = f->in;
    bound_defaults(f->in ? f->in->got : f->size);
}

int zdem_cli_out_grow(void)
{
    if (zdem_cli_out.in)
        bound_defaults(zdem_cli_out.in->got);
    return 0;
}

int zdem_cli_out_bytes(uint64_t n)
{
    zdem_cli_out.bytes += n;
    if (zdem_cli_out.bytes >= zdem_cli_out.max_bytes) {
        zdem_cli_out_grow();
        if (zdem_cli_out.bytes >= zdem_cli_out.max_bytes)
            zdem_cli_out.over = 1;
    }
    return zdem_cli_out.over;
}

int zdem_cli_out_report(const zdem_cli_file *f)
{
    if (!zdem_cli_out.over)
        return 0;
    fflush(stdout);
    if (zdem_cli_out.rows >= zdem_cli_out.max_rows)
        fprintf(stderr, "zdem: %s: warning: output limit: stopped after %llu rows (%s); "
                        "the rest is not printed\n",
                f->path, (unsigned long long)zdem_cli_out.rows,
                zdem_cli_out.explicit_rows ? "--max-rows"
                : zdem_cli_out.source2     ? "--max-rows, by default "
                                             ZDEM_CLI_STR(ZDEM_CLI_ROWS_PER_BYTE_S2)
                                             " per input byte + "
                                             ZDEM_CLI_STR(ZDEM_CLI_ROWS_SLACK)
                                           : "--max-rows, by default "
                                             ZDEM_CLI_STR(ZDEM_CLI_ROWS_PER_BYTE)
                                             " per input byte + "
                                             ZDEM_CLI_STR(ZDEM_CLI_ROWS_SLACK));
    else
        fprintf(stderr, "zdem: %s: warning: output limit: stopped after %llu bytes (%s); "
                        "the rest is not printed\n",
                f->path, (unsigned long long)zdem_cli_out.bytes,
                zdem_cli_out.explicit_bytes ? "--max-output"
                : zdem_cli_out.source2      ? "--max-output, by default "
                                              ZDEM_CLI_STR(ZDEM_CLI_OUTPUT_PER_BYTE_S2)
                                              " per input byte + 64 KiB"
                                            : "--max-output, by default "
                                              ZDEM_CLI_STR(ZDEM_CLI_OUTPUT_PER_BYTE)
                                              " per input byte + 64 KiB");
    return 1;
}
