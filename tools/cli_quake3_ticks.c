/* zdem ticks for Quake III: playerstate (--class player, the default) or
 * entity fields (--class entity) per snapshot, through quake3_rows.h. */
#include "cli.h"
#include "cli_table.h"
#include "quake3.h"
#include "quake3_rows.h"

#include <stdlib.h>
#include <string.h>

int zdem_cli_quake3_ticks(const zdem_cli_args *a, const zdem_cli_file *f)
{
    zdem_q3_rows_config c;
    zdem_cli_table_out o;
    zdem_table *t;
    zdem_error err;
    zdem_status st;
    void *mem;
    int rc = ZDEM_EXIT_OK;
    memset(&c, 0, sizeof c);
    memset(&o, 0, sizeof o);
    if (a->class_name && strcmp(a->class_name, "player") != 0 && strcmp(a->class_name, "entity") != 0) {
        fprintf(stderr, "zdem: Quake III ticks: --class is player or entity\n");
        return ZDEM_EXIT_USAGE;
    }
    c.kind = a->class_name && strcmp(a->class_name, "entity") == 0 ? ZDEM_Q3_ROWS_ENTITY
                                                                   : ZDEM_Q3_ROWS_PLAYER;
    c.props = a->props;
    c.nprops = a->nprops;
    c.times = a->ticks; /* Quake III has no ticks: --ticks are server times */
    c.ntimes = a->nticks;
    c.every = (uint32_t)a->every; /* every K-th snapshot */
    c.protocol = zdem_q3_protocol_from_path(f->path);
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
    st = zdem_q3_rows_run(mem, zdem_q3_rows_size(), &c, f->data, f->size, t, &err);
    fflush(stdout);
    if (zdem_cli_out_report(f))
        st = ZDEM_OK; /* stopped by --max-rows */
    if (st == ZDEM_ERR_LIMIT && err.offset == 0 && err.msg && strncmp(err.msg, "q3 rows", 7) == 0) {
        fprintf(stderr, "zdem: %s (fields: origin.0, viewangles.1, velocity, stats.0, weapon, ...)\n", err.msg);
        rc = ZDEM_EXIT_USAGE;
    } else if (st != ZDEM_OK)
        rc = zdem_cli_failf(f, err.offset, err.msg ? err.msg : "damaged");
    free(t);
    free(mem);
    return rc;
}
