/* zdem props for Quake III and Teeworlds: the field names `ticks` accepts
 * (fixed by the format, the same for every file), as a table: class (what
 * --class takes), name, type. Source 2's, read from the demo, are in
 * cli_source2_ticks.c. */
#include "cli.h"
#include "cli_table.h"
#include "quake3_rows.h"
#include "teeworlds_rows.h"

#include <stdlib.h>
#include <string.h>

typedef struct props_out {
    zdem_cli_table_out o;
    zdem_table *t;
    int32_t col[3];
} props_out;

static int props_open(props_out *p, const zdem_cli_args *a)
{
    memset(p, 0, sizeof *p);
    p->o.out = stdout;
    p->o.csv = zdem_cli_table_format(a->format);
    if (!(p->t = zdem_cli_table_new(3, &p->o)))
        return -1;
    p->col[0] = zdem_table_column(p->t, "class", 5);
    p->col[1] = zdem_table_column(p->t, "name", 4);
    p->col[2] = zdem_table_column(p->t, "type", 4);
    return 0;
}

static void props_row(props_out *p, const char *cls, const char *name, size_t nl, const char *type)
{
    if (zdem_table_row(p->t) != ZDEM_OK)
        return;
    zdem_table_str(p->t, p->col[0], cls, strlen(cls));
    zdem_table_str(p->t, p->col[1], name, nl);
    zdem_table_str(p->t, p->col[2], type, strlen(type));
}

static int props_close(props_out *p)
{
    (void)zdem_table_flush(p->t);
    free(p->t);
    fflush(stdout);
    return ZDEM_EXIT_OK;
}

int zdem_cli_quake3_props(const zdem_cli_args *a, const zdem_cli_file *f)
{
    static const char *const classes[] = {"player", "entity"};
    props_out p;
    int player, rc;
    if (a->class_name && (rc = zdem_cli_check_names(f, "class", classes, 2, &a->class_name, 1, NULL)) != 0)
        return rc;
    if (props_open(&p, a) != 0)
        return zdem_cli_failf(f, 0, "out of memory");
    for (player = 1; player >= 0; player--) {
        const char *cls = player ? "player" : "entity", *name;
        uint32_t i, k, n;
        int flt;
        if (a->class_name && strcmp(a->class_name, cls) != 0)
            continue;
        for (i = 0; zdem_q3_rows_field_at(player, i, &name, &n, &flt); i++) {
            /* the whole field (a vector or array: one column per element),
             * then each element */
            props_row(&p, cls, name, strlen(name), flt ? "float" : "int32");
            for (k = 0; n > 1 && k < n; k++) {
                char el[96];
                int l = snprintf(el, sizeof el, "%s.%u", name, (unsigned)k);
                if (l > 0 && (size_t)l < sizeof el)
                    props_row(&p, cls, el, (size_t)l, flt ? "float" : "int32");
            }
        }
    }
    return props_close(&p);
}

int zdem_cli_teeworlds_props(const zdem_cli_args *a, const zdem_cli_file *f)
{
    props_out p;
    const char *obj, *field, *want = a->class_name;
    uint32_t i;
    int str, found = 0;
    uint8_t head[8 + 64];
    const uint8_t *h = f->data;
    size_t hn = f->size;
    if (!f->data) { /* standard input: the header names the protocol */
        hn = 0;
        while (hn < sizeof head) {
            size_t got = zdem_cli_read(f, head + hn, sizeof head - hn);
            if (!got)
                break;
            hn += got;
        }
        h = head;
    }
    if (want && strcmp(want, "player") == 0)
        want = "player_info";
    for (i = 0; want && zdem_tw_rows_field_of(h, hn, i, &obj, &field, &str); i++)
        found |= strcmp(obj, want) == 0;
    if (want && !found) { /* the closest object names */
        const char *names[64];
        size_t n = 0;
        names[n++] = "player";
        for (i = 0; zdem_tw_rows_field_of(h, hn, i, &obj, &field, &str) && n < 64; i++)
            if (strcmp(names[n - 1], obj) != 0)
                names[n++] = obj;
        return zdem_cli_check_names(f, "snapshot object", names, n, &a->class_name, 1, NULL);
    }
    if (props_open(&p, a) != 0)
        return zdem_cli_failf(f, 0, "out of memory");
    for (i = 0; zdem_tw_rows_field_of(h, hn, i, &obj, &field, &str); i++)
        if (!want || strcmp(obj, want) == 0)
            props_row(&p, obj, field, strlen(field), str ? "string" : "int");
    return props_close(&p);
}
