/* Board support and output for the QEMU firmwares: see fw_out.h. */
#include "fw_out.h"

#include <string.h>

enum { SYS_WRITE0 = 0x04 };

/* ------------------------------------------------------------ output */
static char obuf[256];
static size_t olen;

void flush(void)
{
    if (!olen)
        return;
    obuf[olen] = 0;
    zdem_mcu_semihost(SYS_WRITE0, obuf);
    olen = 0;
}

void put_c(char c)
{
    if (olen + 1 >= sizeof obuf)
        flush();
    obuf[olen++] = c;
    if (c == '\n')
        flush();
}

void put_n(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        put_c(s[i]);
}

void put_s(const char *s) { put_n(s, strlen(s)); }

void put_u(uint64_t v)
{
    char b[24];
    int i = 0;
    do {
        b[i++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (i)
        put_c(b[--i]);
}

void put_i(int64_t v)
{
    if (v < 0) {
        put_c('-');
        put_u((uint64_t)0 - (uint64_t)v);
    } else {
        put_u((uint64_t)v);
    }
}

void put_hex(const uint8_t *d, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    size_t i;
    for (i = 0; i < n; i++) {
        put_c(hx[d[i] >> 4]);
        put_c(hx[d[i] & 15]);
    }
}

/* Length of a valid UTF-8 sequence at s, 0 if invalid: the same rule as
 * tools/cli_common.c, so that both sides decode to the same strings. */
static size_t utf8_len(const uint8_t *s, size_t n)
{
    size_t len, i;
    uint32_t cp;
    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xE0) == 0xC0) { len = 2; cp = s[0] & 0x1F; }
    else if ((s[0] & 0xF0) == 0xE0) { len = 3; cp = s[0] & 0x0F; }
    else if ((s[0] & 0xF8) == 0xF0) { len = 4; cp = s[0] & 0x07; }
    else return 0;
    if (len > n)
        return 0;
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

void put_json(const uint8_t *s, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    size_t i = 0;
    put_c('"');
    while (i < n) {
        uint8_t c = s[i];
        size_t l;
        if (c == '"' || c == '\\') {
            put_c('\\');
            put_c((char)c);
            i++;
            continue;
        }
        if (c == '\n' || c == '\r' || c == '\t') {
            put_c('\\');
            put_c(c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
            i++;
            continue;
        }
        l = (c < 0x20 || c == 0x7F) ? 0 : utf8_len(s + i, n - i);
        if (l == 0) {
            put_s("\\u00");
            put_c(hx[c >> 4]);
            put_c(hx[c & 15]);
            i++;
            continue;
        }
        put_n((const char *)s + i, l);
        i += l;
    }
    put_c('"');
}

void put_jcstr(const char *s) { put_json((const uint8_t *)s, strlen(s)); }

void put_key(const char *k)
{
    put_c(',');
    put_c('"');
    put_s(k);
    put_s("\":");
}

void put_bool(int v) { put_s(v ? "true" : "false"); }

void begin_line(const char *name)
{
    put_s("{\"file\":");
    put_jcstr(name);
}

/* The parsers' memory: the arena the linker script leaves free, 8-aligned. */
void *arena(size_t need, size_t *have)
{
    *have = (size_t)(__arena_end - __arena_start);
    return need <= *have ? (void *)__arena_start : NULL;
}

size_t arena_peak; /* largest state handed out */


/* Stack high-water mark: startup.S paints the whole stack; between files
 * main repaints what lies below its own frame, so each file's figure is
 * its own (main's frame included). */
size_t stack_used(void)
{
    const uint32_t *w = (const uint32_t *)(void *)__stack_limit;
    const uint32_t *top = (const uint32_t *)(void *)__stack_top;
    while (w < top && *w == 0xA5A5A5A5u)
        w++;
    return (size_t)((const uint8_t *)top - (const uint8_t *)w);
}

void repaint_stack(void)
{
    volatile uint32_t here = 0;
    uintptr_t end = ((uintptr_t)&here & ~(uintptr_t)3) - 256; /* clear of this frame */
    uint32_t *w = (uint32_t *)(void *)__stack_limit;
    while ((uintptr_t)w < end)
        *w++ = 0xA5A5A5A5u;
}

void put_stack_line(const char *name, const char *format, size_t used)
{
    begin_line(name);
    put_key("mcu_format");
    put_jcstr(format);
    put_key("mcu_stack_bytes");
    put_u(used);
    put_s("}\n");
}

