/* zdem ticks for Quake III: playerstate (--class player, the default) or
 * entity fields (--class entity) per snapshot, through quake3_rows.h. */
#include "cli.h"
#include "cli_table.h"
#include "quake3.h"
#include "quake3_rows.h"

#include <stdlib.h>
#include <string.h>

/* --follow stops at the -1/-1 end marker. */
static int q3_rows_ended(void *mem)
{
    return zdem_q3_rows_ended(mem);
}

int zdem_cli_quake3_ticks(const zdem_cli_args *a, const zdem_cli_file *f)
{
    zdem_q3_rows_config c;
    zdem_cli_table_out o;
    zdem_table *t;
    zdem_error err;
    zdem_status st;
    void *mem;
    static const char *const classes[] = {"player", "entity"};
    int rc = zdem_cli_props_limit(a, ZDEM_Q3_ROWS_MAX_PROPS);
    if (rc != 0)
        return rc;
    memset(&c, 0, sizeof c);
    memset(&o, 0, sizeof o);
    if (a->class_name && (rc = zdem_cli_check_names(f, "class", classes, 2, &a->class_name, 1,
                                                    "Quake III: player or entity")) != 0)
        return rc;
    c.kind = a->class_name && strcmp(a->class_name, "entity") == 0 ? ZDEM_Q3_ROWS_ENTITY
                                                                   : ZDEM_Q3_ROWS_PLAYER;
    c.props = a->props;
    c.nprops = a->nprops;
    c.times = a->ticks; /* Quake III has no ticks: --ticks are server times */
    c.ntimes = a->nticks;
    c.every = (uint32_t)a->every; /* every K-th snapshot */
    c.protocol = a->protocol ? a->protocol : f->in && !f->in->follow ? 0 : zdem_q3_protocol_from_path(f->path);
    o.out = stdout;
    o.csv = zdem_cli_table_format(a->format);
    t = zdem_cli_table_new(2u + 16u * a->nprops, &o);
    mem = malloc(zdem_q3_rows_size());
    if (!t || !mem) {
        free(t);
        free(mem);
        return zdem_cli_failf(f, 0, "out of memory");
    }
    zdem_error_clear(&err);
    if (!f->in)
        st = zdem_q3_rows_run(mem, zdem_q3_rows_size(), &c, f->data, f->size, t, &err);
    else if ((st = zdem_q3_rows_start(mem, zdem_q3_rows_size(), &c, t, &err)) == ZDEM_OK) {
        /* standard input: pushed as it is read */
        uint8_t *buf = malloc(ZDEM_CLI_PIECE);
        size_t n;
        if (!buf)
            st = zdem_fail(&err, ZDEM_ERR_NO_SPACE, 0, "out of memory");
        zdem_cli_follow_until(f, q3_rows_ended, mem);
        while (st == ZDEM_OK && (n = zdem_cli_read(f, buf, ZDEM_CLI_PIECE)) > 0)
            st = zdem_q3_rows_feed(mem, buf, n, &err);
        if (buf && !f->in->error) /* also after a feed error: the rows before it */
            st = zdem_q3_rows_end(mem, &err);
        free(buf);
    }
    fflush(stdout);
    if (zdem_cli_out_report(f))
        st = ZDEM_OK; /* stopped by --max-rows */
    if (st == ZDEM_ERR_UNKNOWN_NAME)
        rc = zdem_cli_unknown(f, err.msg, "'zdem props FILE' lists the names");
    else if (st == ZDEM_ERR_LIMIT && err.offset == 0 && err.msg && strncmp(err.msg, "q3 rows", 7) == 0) {
        fprintf(stderr, "zdem: %s\n", err.msg);
        rc = ZDEM_EXIT_USAGE;
    } else if ((rc = zdem_cli_read_error(f)) != 0)
        ;
    else if (st != ZDEM_OK)
        rc = zdem_cli_failf(f, err.offset, err.msg ? err.msg : "damaged");
    free(t);
    free(mem);
    return rc;
}
