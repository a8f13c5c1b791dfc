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
    int rc = ZDEM_EXIT_OK;
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
    st = zdem_tw_rows_run(mem, zdem_tw_rows_size(), &c, f->data, f->size, t, &err);
    fflush(stdout);
    if (zdem_cli_out_report(f))
        st = ZDEM_OK; /* stopped by --max-rows */
    if (st == ZDEM_ERR_LIMIT && err.offset == 0 && err.msg && strncmp(err.msg, "tw rows", 7) == 0) {
        fprintf(stderr, "zdem: %s (character: x, y, vel_x, vel_y, health, armor, weapon, ...; "
                        "player: score, team, latency, ...)\n", err.msg);
        rc = ZDEM_EXIT_USAGE;
    } else if (st != ZDEM_OK)
        rc = zdem_cli_fail(f, &err);
    free(t);
    free(mem);
    return rc;
}
