/* In-place heapsort: O(n log n) whatever the input order (a crafted input
 * cannot make it quadratic), no recursion, no allocation. */
#ifndef ZDEM_SORT_H
#define ZDEM_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts a[0..n) ascending. */
void zdem_sort_u64(uint64_t *a, size_t n);
void zdem_sort_u32_values(uint32_t *a, size_t n);

/* Sorts an index array with a comparator (<0, 0, >0 as strcmp); equal
 * elements end in an unspecified order, so comparators break ties. */
typedef int (*zdem_sort_cmp)(const void *ctx, uint32_t a, uint32_t b);
void zdem_sort_u32(uint32_t *a, size_t n, zdem_sort_cmp cmp, const void *ctx);

#endif
