/* HTTP GET for broadcast URLs through libcurl (Debian's libcurl4), found
 * at configure time (ZDEM_HAVE_CURL). It is loaded with dlopen only when a
 * URL is given: linked in, its ~30 shared libraries would cost every zdem
 * start several milliseconds (a batch of one process per demo pays that on
 * each file). Without libcurl the CLI builds all the same and says that
 * URLs need it. ZDEM_LIBCURL names another library file to load. */
#define _POSIX_C_SOURCE 200809L
#include "cli_live.h"

#include <stdlib.h>
#include <string.h>
#include "zdem_version.h"

#ifndef ZDEM_HAVE_CURL

int zdem_cli_http_open(zdem_cli_http **h, char *msg, size_t cap)
{
    *h = NULL;
    snprintf(msg, cap, "URLs need libcurl: this zdem was built without it "
                       "(install libcurl4-openssl-dev and build again)");
    return -1;
}

void zdem_cli_http_close(zdem_cli_http *h)
{
    (void)h;
}

long zdem_cli_http_get(zdem_cli_http *h, const char *url, uint64_t skip,
                       int (*fn)(void *ctx, const uint8_t *p, size_t n), void *ctx,
                       uint64_t *got, long stall_ms, char *msg, size_t cap)
{
    (void)h, (void)url, (void)skip, (void)fn, (void)ctx, (void)got, (void)stall_ms;
    snprintf(msg, cap, "URLs need libcurl");
    return 0;
}

#else

#include <curl/curl.h>
#include <dlfcn.h>

struct zdem_cli_http {
    void *lib;
    CURL *easy;
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    CURLcode (*setopt)(CURL *c, CURLoption opt, ...);
    CURLcode (*perform)(CURL *c);
    CURLcode (*getinfo)(CURL *c, CURLINFO info, ...);
    void (*cleanup)(CURL *c);
    const char *(*strerror)(CURLcode code);
};

/* POSIX's way from dlsym's object pointer to a function pointer. */
static int sym(void *lib, const char *name, void *fp)
{
    void *p = dlsym(lib, name);
    if (!p)
        return 0;
    memcpy(fp, &p, sizeof p);
    return 1;
}

int zdem_cli_http_open(zdem_cli_http **out, char *msg, size_t cap)
{
    const char *name = getenv("ZDEM_LIBCURL");
    zdem_cli_http *h = calloc(1, sizeof *h);
    *out = NULL;
    if (!h) {
        snprintf(msg, cap, "out of memory");
        return -1;
    }
    if (!name || !*name)
        name = "libcurl.so.4";
    h->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h->lib) {
        snprintf(msg, cap, "URLs need libcurl: %s cannot be loaded (install libcurl4)", name);
        free(h);
        return -1;
    }
    if (!sym(h->lib, "curl_global_init", &h->global_init) ||
        !sym(h->lib, "curl_easy_init", &h->easy_init) ||
        !sym(h->lib, "curl_easy_setopt", &h->setopt) ||
        !sym(h->lib, "curl_easy_perform", &h->perform) ||
        !sym(h->lib, "curl_easy_getinfo", &h->getinfo) ||
        !sym(h->lib, "curl_easy_cleanup", &h->cleanup) ||
        !sym(h->lib, "curl_easy_strerror", &h->strerror) ||
        h->global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(h->easy = h->easy_init())) {
        snprintf(msg, cap, "URLs need libcurl: %s is not a usable libcurl", name);
        dlclose(h->lib);
        free(h);
        return -1;
    }
    *out = h;
    return 0;
}

void zdem_cli_http_close(zdem_cli_http *h)
{
    if (!h)
        return;
    h->cleanup(h->easy);
    /* libcurl stays loaded: its global state is not torn down mid-process */
    free(h);
}

typedef struct get_ctx {
    zdem_cli_http *h;
    int (*fn)(void *ctx, const uint8_t *p, size_t n);
    void *ctx;
    uint64_t skip, got;
    long code;   /* the response's status, once known */
    int stopped; /* fn asked to stop */
} get_ctx;

static size_t on_body(char *p, size_t size, size_t nmemb, void *user)
{
    get_ctx *g = (get_ctx *)user;
    size_t n = size * nmemb, off = 0;
    if (!g->code) {
        g->h->getinfo(g->h->easy, CURLINFO_RESPONSE_CODE, &g->code);
        /* a server that honoured the range starts where it was asked */
        g->got = g->code == 206 ? g->skip : 0;
    }
    if (g->code != 200 && g->code != 206)
        return n; /* an error page: not the fragment */
    if (g->got < g->skip) { /* the part read before the connection dropped */
        uint64_t drop = g->skip - g->got;
        off = drop < n ? (size_t)drop : n;
        g->got += off;
    }
    if (off < n) {
        if (g->fn(g->ctx, (const uint8_t *)p + off, n - off)) {
            g->stopped = 1;
            return 0; /* aborts the transfer */
        }
        g->got += n - off;
    }
    return n;
}

long zdem_cli_http_get(zdem_cli_http *h, const char *url, uint64_t skip,
                       int (*fn)(void *ctx, const uint8_t *p, size_t n), void *ctx,
                       uint64_t *got, long stall_ms, char *msg, size_t cap)
{
    get_ctx g;
    char range[32];
    CURLcode rc;
    long secs = stall_ms / 1000 > 0 ? stall_ms / 1000 : 1;
    memset(&g, 0, sizeof g);
    g.h = h;
    g.fn = fn;
    g.ctx = ctx;
    g.skip = skip;
    g.got = skip;
    snprintf(range, sizeof range, "%llu-", (unsigned long long)skip);
    h->setopt(h->easy, CURLOPT_URL, url);
    h->setopt(h->easy, CURLOPT_WRITEFUNCTION, on_body);
    h->setopt(h->easy, CURLOPT_WRITEDATA, &g);
    h->setopt(h->easy, CURLOPT_NOSIGNAL, 1L);
    h->setopt(h->easy, CURLOPT_FOLLOWLOCATION, 1L);
    h->setopt(h->easy, CURLOPT_MAXREDIRS, 5L);
#if LIBCURL_VERSION_NUM >= 0x075500
    h->setopt(h->easy, CURLOPT_PROTOCOLS_STR, "http,https");
    h->setopt(h->easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
    h->setopt(h->easy, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    h->setopt(h->easy, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    h->setopt(h->easy, CURLOPT_USERAGENT, "zdem/" ZDEM_VERSION_STRING);
    h->setopt(h->easy, CURLOPT_CONNECTTIMEOUT_MS, stall_ms);
    /* a transfer that stalls for --idle-timeout fails (then it is asked again) */
    h->setopt(h->easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
    h->setopt(h->easy, CURLOPT_LOW_SPEED_TIME, secs);
    /* relays gzip; a resumed transfer asks for the plain bytes, so that the
     * range and the bytes already read count the same bytes */
    h->setopt(h->easy, CURLOPT_ACCEPT_ENCODING, skip ? NULL : "");
    h->setopt(h->easy, CURLOPT_RANGE, skip ? range : NULL);
    rc = h->perform(h->easy);
    *got = g.got;
    if (g.stopped)
        return g.code;
    if (rc != CURLE_OK) {
        snprintf(msg, cap, "%s", h->strerror(rc));
        return 0;
    }
    if (!g.code) /* a body-less answer: the status is known now */
        h->getinfo(h->easy, CURLINFO_RESPONSE_CODE, &g.code);
    return g.code;
}

#endif
