#include "zdem_sort.h"

static void sift_u64(uint64_t *a, size_t root, size_t n)
{
    uint64_t v = a[root];
    for (;;) {
        size_t c = 2u * root + 1u;
        if (c >= n)
            break;
        if (c + 1u < n && a[c + 1u] > a[c])
            c++;
        if (a[c] <= v)
            break;
        a[root] = a[c];
        root = c;
    }
    a[root] = v;
}

void zdem_sort_u64(uint64_t *a, size_t n)
{
    size_t i;
    if (n < 2u)
        return;
    for (i = n / 2u; i-- > 0;)
        sift_u64(a, i, n);
    for (i = n - 1u; i > 0; i--) {
        uint64_t t = a[0];
        a[0] = a[i];
        a[i] = t;
        sift_u64(a, 0, i);
    }
}

static void sift_u32(uint32_t *a, size_t root, size_t n, zdem_sort_cmp cmp,
                     const void *ctx)
{
    uint32_t v = a[root];
    for (;;) {
        size_t c = 2u * root + 1u;
        if (c >= n)
            break;
        if (c + 1u < n && cmp(ctx, a[c + 1u], a[c]) > 0)
            c++;
        if (cmp(ctx, a[c], v) <= 0)
            break;
        a[root] = a[c];
        root = c;
    }
    a[root] = v;
}

void zdem_sort_u32(uint32_t *a, size_t n, zdem_sort_cmp cmp, const void *ctx)
{
    size_t i;
    if (n < 2u)
        return;
    for (i = n / 2u; i-- > 0;)
        sift_u32(a, i, n, cmp, ctx);
    for (i = n - 1u; i > 0; i--) {
        uint32_t t = a[0];
        a[0] = a[i];
        a[i] = t;
        sift_u32(a, 0, i, cmp, ctx);
    }
}

static int cmp_value(const void *ctx, uint32_t a, uint32_t b)
{
    (void)ctx;
    return a < b ? -1 : a > b;
}

void zdem_sort_u32_values(uint32_t *a, size_t n)
{
    zdem_sort_u32(a, n, cmp_value, 0);
}
