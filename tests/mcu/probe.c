/* Size probe: one firmware per format (-DPROBE_QUAKE3, ...) that calls that
 * format's whole-file API on an input the compiler cannot see, so that
 * --gc-sections keeps exactly the decoder code a user of that format
 * carries. Run under QEMU it prints the caller-memory sizes the API
 * reports on the 32-bit target. tests/mcu/size_table.sh builds, links and
 * runs one probe per format. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "zdem_error.h"
#if defined(PROBE_QUAKE3) || defined(PROBE_QUAKE3_PUSH)
#include "quake3.h"
#include "quake3_push.h"
#elif defined(PROBE_TEEWORLDS)
#include "teeworlds_reader.h"
#elif defined(PROBE_SOURCE2) || defined(PROBE_SOURCE2_PUSH)
#include "source2_parse.h"
#include "source2_push.h"
#elif defined(PROBE_SOURCE2_STATE) || defined(PROBE_SOURCE2_EVENTS)
#include "source2_state.h"
#endif

int zdem_mcu_semihost(int op, const void *arg); /* startup.S */
extern uint8_t __arena_start[], __arena_end[];

/* Unknown to the compiler: nothing is folded away. */
const uint8_t *volatile probe_data;
volatile size_t probe_size;

static char line[160];
static size_t len;

static void put_s(const char *s)
{
    while (*s && len + 1 < sizeof line)
        line[len++] = *s++;
}

static void put_u(size_t v)
{
    char b[24];
    int i = 0;
    do {
        b[i++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (i && len + 1 < sizeof line)
        line[len++] = b[--i];
}

static void report(const char *what, size_t state, size_t buffer)
{
    len = 0;
    put_s("probe ");
    put_s(what);
    put_s(" state ");
    put_u(state);
    put_s(" buffer ");
    put_u(buffer);
    put_s("\n");
    line[len] = 0;
    zdem_mcu_semihost(4, line); /* SYS_WRITE0 */
}

#if defined(PROBE_SOURCE2) || defined(PROBE_SOURCE2_PUSH)
static zdem_status on_inner(void *user, zdem_s2_game game, const zdem_s2_outer *m,
                            const zdem_s2_inner *in)
{
    (void)user;
    (void)game;
    (void)m;
    (void)in;
    return ZDEM_OK;
}
#endif

int main(void)
{
    void *mem = __arena_start;
    size_t cap = (size_t)(__arena_end - __arena_start);
    zdem_error err;
    zdem_error_clear(&err);
#if defined(PROBE_CORE)
    /* The core alone: nothing to call that is not a format's. */
    (void)mem;
    (void)cap;
    report("core", 0, 0);
#elif defined(PROBE_QUAKE3)
    {
        zdem_q3_reader r;
        zdem_q3_limits small;
        zdem_q3_parser *p = zdem_q3_parser_init(mem, cap, 0, NULL, NULL, &err);
        zdem_q3_limits_small(&small);
        if (p)
            zdem_q3_parse_file(p, probe_data, probe_size, &r, &err);
        /* the small limits' size in the second column */
        report("quake3", zdem_q3_parser_size(), zdem_q3_parser_size_for(&small));
    }
#elif defined(PROBE_QUAKE3_PUSH)
    {
        zdem_q3_push ps;
        zdem_q3_limits small;
        zdem_q3_parser *p = zdem_q3_parser_init(mem, cap, 0, NULL, NULL, &err);
        zdem_q3_limits_small(&small);
        if (p) {
            zdem_q3_push_init(&ps, p); /* gathers in the parser's buffer */
            zdem_q3_push_feed(&ps, probe_data, probe_size, &err);
            zdem_q3_push_end(&ps, &err);
        }
        report("quake3_push", zdem_q3_parser_size() + sizeof(zdem_q3_push),
               zdem_q3_parser_size_for(&small) + sizeof(zdem_q3_push));
    }
#elif defined(PROBE_TEEWORLDS)
    {
        static zdem_tw_reader rd;
        zdem_tw_event ev;
        zdem_tw_limits small;
        zdem_tw_limits_small(&small);
        if (zdem_tw_reader_init(&rd, NULL, mem, cap, &err) == ZDEM_OK &&
            zdem_tw_reader_open(&rd, probe_data, probe_size, &err) == ZDEM_OK)
            while (zdem_tw_reader_next(&rd, &ev, &err) == 1)
                if (ev.snap && ev.snap->num_items)
                    (void)zdem_tw_item_desc(ev.snap, 0);
        /* state at the default limits; buffer: at the small ones */
        report("teeworlds", sizeof(zdem_tw_reader) + zdem_tw_reader_mem_size(NULL),
               sizeof(zdem_tw_reader) + zdem_tw_reader_mem_size(&small));
    }
#elif defined(PROBE_SOURCE2)
    {
        zdem_s2_parse_cbs cbs;
        memset(&cbs, 0, sizeof cbs);
        cbs.on_inner = on_inner;
        zdem_s2_parse(probe_data, probe_size, &cbs, NULL, mem, cap, &err);
        report("source2", sizeof(zdem_s2_parser), 0);
    }
#elif defined(PROBE_SOURCE2_PUSH)
    {
        zdem_s2_parse_cbs cbs;
        zdem_s2_parser p;
        memset(&cbs, 0, sizeof cbs);
        cbs.on_inner = on_inner;
        zdem_s2_parser_init(&p, &cbs, NULL, mem, cap / 2, (uint8_t *)mem + cap / 2, cap / 2);
        zdem_s2_parser_feed(&p, probe_data, probe_size, &err);
        zdem_s2_parser_end(&p, &err);
        report("source2_push", sizeof(zdem_s2_parser), 0);
    }
#elif defined(PROBE_SOURCE2_STATE)
    {
        zdem_s2_config cfg;
        zdem_s2_state *s;
        zdem_s2_config_default(&cfg);
        cfg.gather_buffer = 0;
        if (zdem_s2_state_init(&s, mem, cap, &cfg, &err) == ZDEM_OK)
            zdem_s2_state_run(s, probe_data, probe_size, -1, &err);
        report("source2_state", zdem_s2_state_fixed_size(&cfg), cfg.tmp_size);
    }
#elif defined(PROBE_SOURCE2_EVENTS)
    {
        /* events mode through the push API, as a device feeds it */
        zdem_s2_config cfg;
        zdem_s2_state *s;
        zdem_s2_config_events(&cfg);
        if (zdem_s2_state_init(&s, mem, cap, &cfg, &err) == ZDEM_OK) {
            zdem_s2_state_feed(s, probe_data, probe_size, &err);
            zdem_s2_state_end(s, &err);
        }
        report("source2_events", zdem_s2_state_fixed_size(&cfg), cfg.frame_buffer);
    }
#else
#error "define one PROBE_<FORMAT>"
#endif
    return 0;
}
