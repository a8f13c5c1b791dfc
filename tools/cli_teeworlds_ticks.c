/* zdem ticks for Teeworlds: a snapshot object's fields per snapshot
 * (--class character by default, player, or any schema object), through
 * teeworlds_rows.h. */
#include "cli.h"
#include "cli_table.h"
#include "teeworlds_rows.h"

#include <stdlib.h>
#include <string.h>

int zdem_cli_teeworlds_ticks(const zdem_cli_args *a, const zdem_cli_file *f)
{
    zdem_tw_rows_config c;
    zdem_cli_table_out o;
    zdem_table *t;
    zdem_error err;
    zdem_status st;
    void *mem;
    int rc = zdem_cli_props_limit(a, ZDEM_TW_ROWS_MAX_PROPS);
    if (rc != 0)
        return rc;
    memset(&c, 0, sizeof c);
    memset(&o, 0, sizeof o);
    c.kind = ZDEM_TW_ROWS_OBJECT;
    c.object = a->class_name;
    c.props = a->props;
    c.nprops = a->nprops;
    c.ticks = a->ticks;
    c.nticks = a->nticks;
    c.every = (uint32_t)a->every;
    o.out = stdout;
    o.csv = zdem_cli_table_format(a->format);
    t = zdem_cli_table_new(2u + a->nprops, &o);
    mem = malloc(zdem_tw_rows_size());
    if (!t || !mem) {
        free(t);
        free(mem);
        return zdem_cli_failf(f, 0, "out of memory");
    }
    zdem_error_clear(&err);
    if (!f->in)
        st = zdem_tw_rows_run(mem, zdem_tw_rows_size(), &c, f->data, f->size, t, &err);
    else if ((st = zdem_tw_rows_start(mem, zdem_tw_rows_size(), &c, t, &err)) == ZDEM_OK) {
        /* standard input: pushed as it is read */
        uint8_t *buf = malloc(ZDEM_CLI_PIECE);
        size_t n;
        if (!buf)
            st = zdem_fail(&err, ZDEM_ERR_NO_SPACE, 0, "out of memory");
        while (st == ZDEM_OK && (n = zdem_cli_read(f, buf, ZDEM_CLI_PIECE)) > 0)
            st = zdem_tw_rows_feed(mem, buf, n, &err);
        if (buf && !f->in->error) /* also after a feed error: the rows before it */
            st = zdem_tw_rows_end(mem, &err);
        free(buf);
    }
    fflush(stdout);
    if (zdem_cli_out_report(f))
        st = ZDEM_OK; /* stopped by --max-rows */
    if (st == ZDEM_ERR_UNKNOWN_NAME)
        rc = zdem_cli_unknown(f, err.msg, "'zdem props FILE' lists the names");
    else if (st == ZDEM_ERR_LIMIT && err.offset == 0 && err.msg && strncmp(err.msg, "tw rows", 7) == 0) {
        fprintf(stderr, "zdem: %s\n", err.msg);
        rc = ZDEM_EXIT_USAGE;
    } else if ((rc = zdem_cli_read_error(f)) != 0)
        ;
    else if (st != ZDEM_OK)
        rc = zdem_cli_fail(f, &err);
    free(t);
    free(mem);
    return rc;
}
