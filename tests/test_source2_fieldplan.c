/* The entity reader's field-path planner (zdem_s2_plan_read, with its
 * windowed fast paths) against the plain reader (zdem_s2_fp_read_all, one
 * operation at a time through zdem_bits) on random bit strings: the same
 * status, paths, end position and overflow flag, and on a fault the same
 * error at the same bit offset. The class is unknown (serializer -1), so
 * only the operations are compared; what a path resolves to is covered
 * by the corpus tests. Half of the strings are thinned towards zero bits,
 * the PlusOne code, so that long runs of the fast loop come up too. */
#include <stdlib.h>
#include <string.h>
#include "zdem_test.h"
#include "source2_state_int.h"

#define CAP 64u

static uint64_t rs = 88172645463325252ull;

static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

int main(void)
{
    static zdem_s2_fp ref[CAP];
    zdem_s2_config cfg;
    zdem_s2_state *s;
    zdem_error e;
    size_t size;
    void *arena;
    long it, differ = 0, faults = 0, paths = 0;
    zdem_s2_config_default(&cfg);
    cfg.max_field_paths = CAP;
    size = zdem_s2_state_fixed_size(&cfg) + (1u << 20);
    arena = malloc(size);
    CHECK(arena != NULL);
    if (!arena)
        return 1;
    CHECK_EQ_INT(zdem_s2_state_init(&s, arena, size, &cfg, &e), ZDEM_OK);
    for (it = 0; it < 60000; it++) {
        uint8_t buf[64];
        size_t len = 1u + (size_t)(rnd() % 63u), i;
        zdem_bits b1, b2;
        zdem_error e1, e2;
        uint32_t n1 = 0, n2 = 0;
        zdem_status s1, s2;
        int bad;
        for (i = 0; i < len; i++)
            buf[i] = (uint8_t)rnd();
        if (it & 1)
            for (i = 0; i < len; i++)
                if (rnd() & 1u)
                    buf[i] &= (uint8_t)rnd();
        zdem_bits_init(&b1, buf, len);
        zdem_bits_init(&b2, buf, len);
        zdem_error_clear(&e1);
        zdem_error_clear(&e2);
        s1 = zdem_s2_fp_read_all(&b1, ref, CAP, &n1, &e1);
        s2 = zdem_s2_plan_read(s, -1, &b2, &n2, &e2);
        bad = s1 != s2;
        if (s1 == ZDEM_OK) {
            bad |= n1 != n2 || b1.pos != b2.pos || b1.overflow != b2.overflow;
            for (i = 0; !bad && i < n1; i++)
                bad |= memcmp(&ref[i], &s->fps[i], sizeof ref[i]) != 0;
            paths += n1;
        } else {
            faults++;
            bad |= e1.offset != e2.offset || e1.offset_is_bits != e2.offset_is_bits ||
                   strcmp(e1.msg ? e1.msg : "", e2.msg ? e2.msg : "") != 0;
        }
        if (bad && differ++ < 5)
            fprintf(stderr, "input %ld: status %d / %d, paths %u / %u, bit %zu / %zu, %s / %s\n", it,
                    (int)s1, (int)s2, n1, n2, b1.pos, b2.pos, e1.msg ? e1.msg : "",
                    e2.msg ? e2.msg : "");
    }
    CHECK_EQ_INT(differ, 0);
    /* the strings reach both ends: faults (runs past the end, too many
     * paths, bad components) and updates that finish */
    CHECK(faults > 1000);
    CHECK(paths > 100000);
    free(arena);
    return zt_finish();
}
