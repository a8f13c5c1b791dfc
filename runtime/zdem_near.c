/* Closest names for an error message (see zdem_near.h). */
#include "zdem_near.h"

#include <string.h>

#define NEAR_N ZDEM_NEAR_NAME_MAX

static unsigned near_fold(char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned)(c - 'A' + 'a') : (unsigned)(unsigned char)c;
}

/* Edit distance ignoring case (insert, delete, replace, swap of two
 * neighbours), or bound + 1 when it is over bound. Only the band of
 * cells within bound of the diagonal is computed: la x (2 bound + 1). */
static uint32_t near_dist(const char *a, uint32_t la, const char *b, uint32_t lb, uint32_t bound)
{
    uint32_t rows[3][NEAR_N + 2];
    uint32_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2], *t;
    uint32_t big = bound + 1u, i, j;
    if (la > NEAR_N)
        la = NEAR_N;
    if (lb > NEAR_N)
        lb = NEAR_N;
    if ((la > lb ? la - lb : lb - la) > bound)
        return big;
    for (j = 0; j <= lb && j <= bound; j++)
        prev[j] = j;
    if (bound + 1u <= lb)
        prev[bound + 1u] = big;
    for (i = 1; i <= la; i++) {
        uint32_t lo = i > bound ? i - bound : 1u, hi = i + bound < lb ? i + bound : lb;
        uint32_t rowmin = big;
        unsigned ca = near_fold(a[i - 1]);
        cur[0] = i <= bound ? i : big;
        if (lo == 1u)
            rowmin = cur[0];
        else
            cur[lo - 1u] = big;
        for (j = lo; j <= hi; j++) {
            unsigned cb = near_fold(b[j - 1]);
            uint32_t v = prev[j - 1] + (ca != cb);
            if (prev[j] + 1u < v)
                v = prev[j] + 1u;
            if (cur[j - 1] + 1u < v)
                v = cur[j - 1] + 1u;
            if (i > 1u && j > 1u && ca == near_fold(b[j - 2]) && near_fold(a[i - 2]) == cb &&
                prev2[j - 2] + 1u < v)
                v = prev2[j - 2] + 1u;
            cur[j] = v < big ? v : big;
            if (cur[j] < rowmin)
                rowmin = cur[j];
        }
        if (hi < lb)
            cur[hi + 1u] = big;
        if (rowmin > bound)
            return big;
        t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb] < big ? prev[lb] : big;
}

uint32_t zdem_near_distance(const char *a, size_t la, const char *b, size_t lb, uint32_t bound)
{
    if (la > NEAR_N)
        la = NEAR_N;
    if (lb > NEAR_N)
        lb = NEAR_N;
    return near_dist(a, (uint32_t)la, b, (uint32_t)lb, bound);
}

void zdem_near_init(zdem_near *n, const char *want, size_t len)
{
    memset(n, 0, sizeof *n);
    if (len > NEAR_N)
        len = NEAR_N;
    memcpy(n->want, want, len);
    n->want[len] = 0;
    n->want_len = (uint32_t)len;
    /* a third of the name may differ, at least 2 edits (1 for the shortest) */
    n->bound = len <= 3u ? 1u : len / 3u > 2u ? (uint32_t)(len / 3u) : 2u;
}

/* The distance to a name: the whole, its last word (+1), and that word
 * after "m_" or after its type prefix ("m_iHealth": "Health") (+1). */
static uint32_t near_score(const zdem_near *n, const char *s, uint32_t len, uint32_t bound)
{
    uint32_t d = near_dist(n->want, n->want_len, s, len, bound), end = len, k, w;
    const char *last;
    /* the last word is the last one that is not an index ("m_hMyWeapons.0") */
    while (end > 0) {
        k = end;
        while (k > 0 && s[k - 1] != '.')
            k--;
        if (k < end && s[k] >= '0' && s[k] <= '9' && k > 0) {
            end = k - 1u;
            continue;
        }
        break;
    }
    for (k = end; k > 0 && s[k - 1] != '.'; k--)
        ;
    last = s + k;
    w = end - k;
    if (bound == 0 || d <= 1u)
        return d;
    if (w && w < len) {
        uint32_t e = near_dist(n->want, n->want_len, last, w, bound - 1u) + 1u;
        d = e < d ? e : d;
    }
    if (w > 2u && last[0] == 'm' && last[1] == '_') {
        uint32_t e = near_dist(n->want, n->want_len, last + 2, w - 2u, bound - 1u) + 1u, p = 2;
        d = e < d ? e : d;
        while (p < w && last[p] >= 'a' && last[p] <= 'z')
            p++;
        if (p > 2u && p < w && last[p] >= 'A' && last[p] <= 'Z') {
            e = near_dist(n->want, n->want_len, last + p, w - p, bound - 1u) + 1u;
            d = e < d ? e : d;
        }
    }
    return d;
}

void zdem_near_offer(zdem_near *n, const char *name, size_t len)
{
    uint32_t d, i, l = len > NEAR_N ? NEAR_N : (uint32_t)len, bound = n->bound;
    if (n->offers >= ZDEM_NEAR_MAX_OFFERS || !len)
        return;
    n->offers++;
    if (n->n == ZDEM_NEAR_KEEP) { /* full: only a closer one gets in */
        if (n->dist[ZDEM_NEAR_KEEP - 1] == 0)
            return;
        if (n->dist[ZDEM_NEAR_KEEP - 1] - 1u < bound)
            bound = n->dist[ZDEM_NEAR_KEEP - 1] - 1u;
    }
    d = near_score(n, name, l, bound);
    if (d > bound)
        return;
    for (i = 0; i < n->n; i++) /* the same name from another class */
        if (strlen(n->best[i]) == l && memcmp(n->best[i], name, l) == 0)
            return;
    i = n->n < ZDEM_NEAR_KEEP ? n->n++ : ZDEM_NEAR_KEEP - 1u;
    while (i > 0 && n->dist[i - 1] > d) { /* ties: the one offered first stays first */
        n->dist[i] = n->dist[i - 1];
        memcpy(n->best[i], n->best[i - 1], sizeof n->best[i]);
        i--;
    }
    n->dist[i] = d;
    memcpy(n->best[i], name, l);
    n->best[i][l] = 0;
}

static size_t near_put(char *buf, size_t cap, size_t at, const char *s)
{
    size_t l = strlen(s);
    if (at + 1u >= cap)
        return at;
    if (l > cap - 1u - at)
        l = cap - 1u - at;
    memcpy(buf + at, s, l);
    buf[at + l] = 0;
    return at + l;
}

size_t zdem_near_message(const zdem_near *n, const char *what, char *buf, size_t cap)
{
    size_t at = 0;
    uint32_t i;
    if (!cap)
        return 0;
    buf[0] = 0;
    at = near_put(buf, cap, at, "unknown ");
    at = near_put(buf, cap, at, what);
    at = near_put(buf, cap, at, " '");
    at = near_put(buf, cap, at, n->want);
    at = near_put(buf, cap, at, "'");
    for (i = 0; i < n->n; i++) {
        at = near_put(buf, cap, at, i ? ", '" : "; did you mean '");
        at = near_put(buf, cap, at, n->best[i]);
        at = near_put(buf, cap, at, "'");
    }
    if (n->n)
        at = near_put(buf, cap, at, "?");
    return at;
}
