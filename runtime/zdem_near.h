/* Closest names, for the message of an unknown name: "unknown property
 * 'Health'; did you mean 'health', 'm_iHealth'?". The valid names are
 * offered one at a time; the ZDEM_NEAR_KEEP closest within a bound are
 * kept. Closeness is an edit distance that ignores case, also against a
 * dotted name's last word and that word without its Hungarian prefix
 * ("m_iHealth" -> "Health"), each costing one more. The work is bounded:
 * a banded distance (length x bound steps) per name, and at most
 * ZDEM_NEAR_MAX_OFFERS names are looked at. Internal (the library's
 * layers and the CLI), not installed. */
#ifndef ZDEM_NEAR_H
#define ZDEM_NEAR_H

#include <stddef.h>
#include <stdint.h>

#define ZDEM_NEAR_KEEP 3
#define ZDEM_NEAR_NAME_MAX 96u      /* longer names are compared by their start */
#define ZDEM_NEAR_MAX_OFFERS 200000u

typedef struct zdem_near {
    char want[ZDEM_NEAR_NAME_MAX + 1];
    uint32_t want_len;
    uint32_t bound;   /* largest distance still kept */
    uint32_t n;       /* names kept */
    uint32_t offers;  /* names looked at */
    uint32_t dist[ZDEM_NEAR_KEEP];
    char best[ZDEM_NEAR_KEEP][ZDEM_NEAR_NAME_MAX + 1];
} zdem_near;

void zdem_near_init(zdem_near *n, const char *want, size_t len);

/* The distance used: edits ignoring case (insert, delete, replace, swap of
 * two neighbours) between a and b (their first ZDEM_NEAR_NAME_MAX bytes),
 * or bound + 1 when it is over bound. */
uint32_t zdem_near_distance(const char *a, size_t la, const char *b, size_t lb, uint32_t bound);

/* One valid name (len bytes, any bytes). */
void zdem_near_offer(zdem_near *n, const char *name, size_t len);

/* "unknown WHAT 'WANT'; did you mean 'a', 'b'?" (without the question
 * when nothing is close), into buf (cut to cap - 1 bytes, always
 * NUL-terminated); returns its length. */
size_t zdem_near_message(const zdem_near *n, const char *what, char *buf, size_t cap);

#endif
