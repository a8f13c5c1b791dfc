#include "zdem_test.h"

#include <stdlib.h>
#include <string.h>

int zt_passed, zt_failed;

int zt_check(int ok, const char *expr, const char *file, int line)
{
    if (ok) {
        zt_passed++;
    } else {
        zt_failed++;
        fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, expr);
    }
    return ok;
}

int zt_check_int(long long a, long long b, const char *ea, const char *eb,
                 const char *file, int line)
{
    if (a == b) {
        zt_passed++;
        return 1;
    }
    zt_failed++;
    fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", file, line, ea, a, eb, b);
    return 0;
}

int zt_check_str(const char *a, const char *b, const char *ea, const char *file, int line)
{
    if (a && b && strcmp(a, b) == 0) {
        zt_passed++;
        return 1;
    }
    zt_failed++;
    fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", file, line, ea,
            a ? a : "(null)", b ? b : "(null)");
    return 0;
}

const char *zt_corpus_path(const char *rel)
{
    static char buf[4096];
    const char *base = getenv("ZDEM_CORPUS");
    if (!base)
        base = "../shared/corpus";
    snprintf(buf, sizeof buf, "%s/%s", base, rel);
    return buf;
}

uint8_t *zt_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        *size = (size_t)n;
    return buf;
}

int zt_finish(void)
{
    printf("%d passed, %d failed\n", zt_passed, zt_failed);
    return zt_failed ? 1 : 0;
}

uint64_t zt_rand(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545F4914F6CDD1Dull;
}
