/* The closest-name ranking behind "unknown property 'Health'; did you
 * mean 'health', 'm_iHealth'?" (runtime/zdem_near). The banded distance is
 * checked against a plain full-matrix optimal-string-alignment distance
 * written here from its definition, on textbook pairs and on random
 * strings; the ranking and the message on the cases the CLI and Python
 * report (issue 21). */
#include <string.h>

#include "zdem_near.h"
#include "zdem_test.h"

static int fold(char c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : (unsigned char)c;
}

/* Full matrix: d[i][j] = min(delete, insert, replace, swap of neighbours). */
static unsigned full_osa(const char *a, size_t la, const char *b, size_t lb)
{
    static unsigned d[ZDEM_NEAR_NAME_MAX + 1][ZDEM_NEAR_NAME_MAX + 1];
    size_t i, j;
    for (i = 0; i <= la; i++)
        d[i][0] = (unsigned)i;
    for (j = 0; j <= lb; j++)
        d[0][j] = (unsigned)j;
    for (i = 1; i <= la; i++)
        for (j = 1; j <= lb; j++) {
            unsigned v = d[i - 1][j - 1] + (fold(a[i - 1]) != fold(b[j - 1]));
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) && fold(a[i - 2]) == fold(b[j - 1]) &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb];
}

static unsigned dist(const char *a, const char *b, unsigned bound)
{
    return zdem_near_distance(a, strlen(a), b, strlen(b), bound);
}

static void offer_all(zdem_near *n, const char *const *names, size_t k)
{
    size_t i;
    for (i = 0; i < k; i++)
        zdem_near_offer(n, names[i], strlen(names[i]));
}

int main(void)
{
    uint64_t rs = 0x9E3779B97F4A7C15ull;
    int i;
    zdem_near n;
    char msg[256];

    /* textbook distances */
    CHECK_EQ_INT(dist("kitten", "sitting", 5), 3);
    CHECK_EQ_INT(dist("flaw", "lawn", 5), 2);
    CHECK_EQ_INT(dist("ca", "ac", 5), 1);          /* a swap is one edit */
    CHECK_EQ_INT(dist("Health", "health", 5), 0);  /* case does not count */
    CHECK_EQ_INT(dist("", "abc", 5), 3);
    CHECK_EQ_INT(dist("kitten", "sitting", 2), 3); /* over the bound: bound + 1 */
    CHECK_EQ_INT(dist("abcdefgh", "ab", 3), 4);

    /* the band gives the full matrix's answer whenever that is within the
     * bound, and bound + 1 otherwise */
    for (i = 0; i < 20000; i++) {
        char a[24], b[24];
        size_t la = (size_t)(zt_rand(&rs) % 12), lb = (size_t)(zt_rand(&rs) % 12), k;
        unsigned bound = (unsigned)(zt_rand(&rs) % 6), full, got;
        for (k = 0; k < la; k++)
            a[k] = "abcAB_"[zt_rand(&rs) % 6];
        for (k = 0; k < lb; k++)
            b[k] = (k < la && zt_rand(&rs) % 3) ? a[k] : "abcAB_"[zt_rand(&rs) % 6];
        full = full_osa(a, la, b, lb);
        got = zdem_near_distance(a, la, b, lb, bound);
        if (!CHECK(got == (full <= bound ? full : bound + 1))) {
            printf("  %.*s / %.*s bound %u: %u, full %u\n", (int)la, a, (int)lb, b, bound, got, full);
            break;
        }
    }

    /* issue 21's example: the friendly name first (case only), then the
     * property whose word after the type prefix it is */
    {
        static const char *const names[] = {"X", "Y", "health", "team_num", "m_iHealth", "m_iMaxHealth",
                                            "m_ArmorValue", "CBodyComponent.m_cellX", "m_iHealth"};
        zdem_near_init(&n, "Health", 6);
        offer_all(&n, names, sizeof names / sizeof names[0]);
        zdem_near_message(&n, "property", msg, sizeof msg);
        CHECK_EQ_STR(msg, "unknown property 'Health'; did you mean 'health', 'm_iHealth'?");
    }
    /* the last word of a dotted name, an index after it skipped */
    {
        static const char *const names[] = {"m_pWeaponServices.m_hActiveWeapon",
                                            "m_pWeaponServices.m_hMyWeapons",
                                            "m_pWeaponServices.m_hMyWeapons.0"};
        zdem_near_init(&n, "MyWeapons", 9);
        offer_all(&n, names, 3);
        CHECK_EQ_INT(n.n, 2);
        CHECK_EQ_STR(n.best[0], "m_pWeaponServices.m_hMyWeapons");
    }
    /* nothing close: the name alone */
    {
        static const char *const names[] = {"health", "X", "team_num", "m_iHealth"};
        zdem_near_init(&n, "bogus_prop", 10);
        offer_all(&n, names, 4);
        zdem_near_message(&n, "property", msg, sizeof msg);
        CHECK_EQ_STR(msg, "unknown property 'bogus_prop'");
    }
    /* at most three, closest first, ties in the order offered */
    {
        static const char *const names[] = {"player_team", "player_death", "player_decal", "player_deaths",
                                            "round_end"};
        zdem_near_init(&n, "player_deth", 11);
        offer_all(&n, names, 5);
        zdem_near_message(&n, "event", msg, sizeof msg);
        CHECK_EQ_STR(msg, "unknown event 'player_deth'; did you mean 'player_death', 'player_deaths', "
                          "'player_team'?");
    }
    /* a short buffer cuts the message, always terminated */
    zdem_near_message(&n, "event", msg, 10);
    CHECK_EQ_STR(msg, "unknown e");
    /* the work is bounded: past ZDEM_NEAR_MAX_OFFERS names nothing more is looked at */
    zdem_near_init(&n, "zz", 2);
    for (i = 0; i < (int)ZDEM_NEAR_MAX_OFFERS + 10; i++)
        zdem_near_offer(&n, "aaaaaa", 6);
    zdem_near_offer(&n, "zz", 2);
    CHECK_EQ_INT(n.offers, ZDEM_NEAR_MAX_OFFERS);
    CHECK_EQ_INT(n.n, 0);
    return zt_finish();
}
