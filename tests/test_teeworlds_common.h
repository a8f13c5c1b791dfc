/* Shared bits of the Teeworlds tests: the corpus table (EXPECTED.md B2,
 * with A9's CRC/SHA facts) and a tiny reader for the flat fields of the
 * peers/<file>.tw-ref.json outputs of ddnet_demo_c99. */
#ifndef TEST_TEEWORLDS_COMMON_H
#define TEST_TEEWORLDS_COMMON_H

#include <stdlib.h>
#include <string.h>
#include "zdem_test.h"

typedef struct zdem_tw_expect {
    const char *file;
    int version;
    const char *map;
    long map_size;
    unsigned long map_crc;
    int length;
    long header_end;
    long first_tick, last_tick;
    int markers, keyframes, snap, msg, delta;
    int crc_ok, sha_ok; /* sha_ok -1: no extension (v5) */
} zdem_tw_expect;

/* EXPECTED.md B2 (derived) and A9 (independent: CRC/SHA match, length
 * formula, EOF end). */
static const zdem_tw_expect zdem_tw_corpus[] = {
    {"ddnet_demo-edit-cat-catzone.demo", 6, "CatZone", 1439051, 0x01e95e00, 39, 484,
     750, 2712, 982, 8, 8, 1070, 842, 1, 1},
    {"ddnet_demo-edit-clip-fng.demo", 6, "fng", 106512, 0x1d57660f, 13, 484,
     49628368, 49629031, 664, 3, 3, 714, 562, 1, 1},
    {"ddnet_demo-edit-test2-pepeg-v5.demo", 5, "pepeg", 164957, 0x00000000, 7, 436,
     15531019, 15531383, 365, 2, 2, 378, 276, 0, -1},
    {"ddnet_webviewer-big-chungus-daydream.demo", 6, "Daydream_I", 1190051, 0x45cb5698, 8, 484,
     2176, 2594, 210, 2, 2, 212, 16, 1, 1},
    {"ddnet_webviewer-bit3-noobfilter-touchpad.demo", 6, "Back in Time 3", 1356394, 0x226ac88d, 27, 484,
     1934, 3298, 683, 6, 6, 714, 125, 1, 1},
    {"ddnet_webviewer-gigachad-tutorial.demo", 6, "Tutorial", 1060485, 0x03726b6e, 23, 484,
     2062628, 2063824, 599, 5, 5, 624, 444, 1, 1},
    {"ddnet_webviewer-goat-yeyou3.demo", 6, "Yeyou 3", 656218, 0x38695897, 22, 484,
     325060, 326170, 548, 5, 5, 737, 543, 1, 1},
};
#define ZDEM_TW_CORPUS_N (sizeof zdem_tw_corpus / sizeof zdem_tw_corpus[0])

static inline uint8_t *zdem_tw_load(const char *file, size_t *size)
{
    char rel[512];
    snprintf(rel, sizeof rel, "teeworlds/%s", file);
    return zt_read_file(zt_corpus_path(rel), size);
}

/* The peer output of ddnet_demo_c99 for a corpus file (malloc'd, NUL-ended). */
static inline char *zdem_tw_peer(const char *file)
{
    char rel[512];
    size_t n;
    uint8_t *d, *s;
    snprintf(rel, sizeof rel, "peers/%s.tw-ref.json", file);
    d = zt_read_file(zt_corpus_path(rel), &n);
    if (!d)
        return NULL;
    s = realloc(d, n + 1);
    if (!s) {
        free(d);
        return NULL;
    }
    s[n] = 0;
    return (char *)s;
}

/* Value of the first "key": <int> after position `from` (NULL: whole doc);
 * returns def when absent. Enough for the flat fields we cross-check. */
static inline long long zdem_tw_json_int(const char *doc, const char *from, const char *key,
                                    long long def)
{
    char pat[128];
    const char *p;
    snprintf(pat, sizeof pat, "\"%s\":", key);
    p = strstr(from ? from : doc, pat);
    if (!p)
        return def;
    p += strlen(pat);
    if (*p != '-' && (*p < '0' || *p > '9'))
        return def;
    return strtoll(p, NULL, 10);
}

/* Copies the string value of "key" (no escapes expected) into out. */
static inline int zdem_tw_json_str(const char *doc, const char *from, const char *key,
                              char *out, size_t cap)
{
    char pat[128];
    const char *p, *q;
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    p = strstr(from ? from : doc, pat);
    if (!p)
        return 0;
    p += strlen(pat);
    q = strchr(p, '"');
    if (!q || (size_t)(q - p) >= cap)
        return 0;
    memcpy(out, p, (size_t)(q - p));
    out[q - p] = 0;
    return 1;
}

#endif
