/* zdem ticks for Source 2: the library's tick rows (source2_ticks.h)
 * printed chunk by chunk as the demo is read. */
#include "cli.h"
#include "cli_source2_state.h"
#include "cli_table.h"
#include "source2_rows.h"
#include "source2_ticks.h"

#include <stdlib.h>
#include <string.h>

int zdem_cli_source2_ticks(const zdem_cli_args *a, const zdem_cli_file *f)
{
    zdem_s2_config cfg;
    zdem_s2_ticks_config tc;
    zdem_s2_ticks *tk;
    zdem_cli_s2_run r;
    zdem_cli_table_out o;
    zdem_table *table;
    zdem_error err;
    void *mem;
    int rc;
    if ((rc = zdem_cli_props_limit(a, ZDEM_S2_TICKS_MAX_PROPS)) != 0)
        return rc;
    memset(&tc, 0, sizeof tc);
    memset(&o, 0, sizeof o);
    o.out = stdout;
    o.csv = zdem_cli_table_format(a->format);
    tc.props = a->props;
    tc.nprops = a->nprops;
    tc.class_name = a->class_name;
    tc.ticks = a->ticks;
    tc.nticks = a->nticks;
    tc.every = (uint32_t)a->every;
    zdem_error_clear(&err);
    zdem_s2_config_default(&cfg);
    cfg.skip_events = 1; /* rows need entities only */
    /* a vector property takes one column per component */
    table = zdem_cli_table_new(2u + 4u * a->nprops, &o);
    mem = malloc(zdem_s2_ticks_size(&tc));
    if (!table || !mem) {
        free(table);
        free(mem);
        return zdem_cli_failf(f, 0, "out of memory");
    }
    if (zdem_s2_ticks_init(&tk, mem, zdem_s2_ticks_size(&tc), &tc, table, &cfg, &err) != ZDEM_OK) {
        fprintf(stderr, "zdem: %s\n", err.msg);
        free(table);
        free(mem);
        return ZDEM_EXIT_USAGE;
    }
    if ((rc = zdem_cli_s2_open(&r, a, f, &cfg)) != 0) {
        free(table);
        free(mem);
        return rc;
    }
    /* with a tick list nothing after its last tick is needed */
    zdem_cli_s2_go(&r, f, a->nticks ? a->ticks[a->nticks - 1] : -1, 0);
    if (zdem_s2_ticks_error(tk)) { /* stopped at the signon, before any row */
        rc = zdem_cli_unknown(f, zdem_s2_ticks_error(tk), "'zdem props FILE' lists the names");
        zdem_cli_s2_close(&r);
        free(table);
        free(mem);
        return rc;
    }
    if (!zdem_cli_out.over)
        (void)zdem_table_flush(table); /* the rows of the last chunk */
    if (zdem_cli_out_report(f)) {
        /* stopped by --max-rows: the verdict is the damage before it */
        zdem_error_clear(&r.err);
        (void)zdem_s2_warn_result(zdem_s2_state_warnings(r.s), ZDEM_OK, &r.err);
    }
    if (zdem_s2_ticks_untracked(tk))
        fprintf(stderr, "zdem: %s: warning: %llu entities over the 1024 tracked per tick were left out\n",
                f->path, (unsigned long long)zdem_s2_ticks_untracked(tk));
    if (o.late_cols)
        fprintf(stderr, "zdem: %s: warning: %llu values of columns that first appeared after the "
                        "CSV header were left out (use --format jsonl)\n",
                f->path, (unsigned long long)o.late_cols);
    rc = zdem_cli_s2_report(&r, f);
    zdem_cli_s2_close(&r);
    free(table);
    free(mem);
    return rc;
}

/* zdem props: the names ticks accepts, from the demo's start (up to its
 * class list: the run stops there). */
int zdem_cli_source2_props(const zdem_cli_args *a, const zdem_cli_file *f)
{
    zdem_s2_config cfg;
    zdem_cli_s2_run r;
    zdem_cli_table_out o;
    zdem_table *table;
    zdem_error err;
    char msg[320];
    zdem_status ls;
    int rc;
    memset(&o, 0, sizeof o);
    o.out = stdout;
    o.csv = zdem_cli_table_format(a->format);
    zdem_s2_config_default(&cfg);
    cfg.skip_entities = 1;
    cfg.skip_events = 1;
    cfg.on_frame = zdem_s2_rows_props_hook;
    if ((rc = zdem_cli_s2_open(&r, a, f, &cfg)) != 0)
        return rc;
    zdem_cli_s2_go(&r, f, -1, 0);
    if (r.err.code == ZDEM_ERR_ABORTED) /* the hook: the classes are in */
        zdem_error_clear(&r.err);
    if (!(table = zdem_cli_table_new(4, &o))) {
        zdem_cli_s2_close(&r);
        return zdem_cli_failf(f, 0, "out of memory");
    }
    zdem_error_clear(&err);
    ls = ZDEM_OK;
    if (r.err.code == ZDEM_OK || zdem_s2_class_count(r.s))
        ls = zdem_s2_rows_props_list(r.s, a->class_name, table, msg, sizeof msg, &err);
    if (ls == ZDEM_ERR_UNKNOWN_NAME)
        rc = zdem_cli_unknown(f, err.msg, NULL);
    else if ((rc = zdem_cli_s2_report(&r, f)) == 0 && ls != ZDEM_OK)
        rc = zdem_cli_fail(f, &err); /* a limit: what was listed came first */
    zdem_cli_s2_close(&r);
    free(table);
    return rc;
}
