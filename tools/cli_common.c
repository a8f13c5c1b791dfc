#include "cli.h"
#include "zdem_near.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

void (*zdem_cli_where_more)(FILE *out, const zdem_error *err);

void zdem_cli_where(FILE *out, const zdem_error *err)
{
    /* bit offsets are an inner layer's; the byte that holds the bit is
     * what a file offset can say */
    unsigned long long off = err ? (unsigned long long)err->offset : 0;
    if (err && err->offset_is_bits)
        off /= 8u;
    fprintf(out, "offset %llu", off);
    if (err && err->in_payload)
        fprintf(out, " (payload byte %llu)", (unsigned long long)err->payload_pos);
    if (zdem_cli_where_more)
        zdem_cli_where_more(out, err);
}

int zdem_cli_fail(const zdem_cli_file *f, const zdem_error *err)
{
    fprintf(stderr, "zdem: %s: ", f->path);
    zdem_cli_where(stderr, err);
    fprintf(stderr, ": %s\n", err && err->msg ? err->msg : "error");
    return ZDEM_EXIT_BAD_INPUT;
}

void zdem_cli_error_json(FILE *out, const zdem_error *err)
{
    unsigned long long off = (unsigned long long)err->offset;
    if (err->offset_is_bits)
        off /= 8u;
    fprintf(out, ",\"error\":{\"offset\":%llu", off);
    if (err->in_payload)
        fprintf(out, ",\"payload_byte\":%llu", (unsigned long long)err->payload_pos);
    fputs(",\"message\":", out);
    zdem_json_cstr(out, err->msg ? err->msg : "error");
    fputc('}', out);
}

int zdem_cli_failf(const zdem_cli_file *f, unsigned long long offset, const char *msg)
{
    fprintf(stderr, "zdem: %s: offset %llu: %s\n", f->path, offset, msg);
    return ZDEM_EXIT_BAD_INPUT;
}

int zdem_cli_props_limit(const zdem_cli_args *a, unsigned limit)
{
    if (a->nprops <= limit)
        return 0;
    fprintf(stderr, "zdem: too many properties: %u (limit %u)\n", a->nprops, limit);
    return ZDEM_EXIT_USAGE;
}

size_t zdem_cli_read(const zdem_cli_file *f, uint8_t *buf, size_t cap)
{
    zdem_cli_stream *in = f->in;
    size_t n = 0;
    if (!in || !cap)
        return 0;
    if (in->head_pos < in->head_len) { /* the bytes format detection read */
        n = in->head_len - in->head_pos;
        n = n < cap ? n : cap;
        memcpy(buf, in->head + in->head_pos, n);
        in->head_pos += n;
        return n;
    }
    if (in->error)
        return 0;
    for (;;) {
        ssize_t r = read(in->fd, buf, cap);
        if (r > 0) {
            in->got += (unsigned long long)r;
            return (size_t)r;
        }
        if (r == 0) {
            if (in->follow && zdem_cli_follow_wait(in))
                continue; /* the file grew */
            return 0;
        }
        if (errno != EINTR) {
            in->error = errno;
            return 0;
        }
    }
}

int zdem_cli_read_error(const zdem_cli_file *f)
{
    if (!f->in || !f->in->error)
        return 0;
    fflush(stdout);
    fprintf(stderr, "zdem: %s: offset %llu: cannot read: %s\n", f->path, f->in->got,
            strerror(f->in->error));
    return ZDEM_EXIT_BAD_INPUT;
}

int zdem_cli_unknown(const zdem_cli_file *f, const char *msg, const char *hint)
{
    fflush(stdout);
    fprintf(stderr, "zdem: %s: %s%s%s%s\n", f->path, msg, hint ? " (" : "", hint ? hint : "",
            hint ? ")" : "");
    return ZDEM_EXIT_USAGE;
}

int zdem_cli_check_names(const zdem_cli_file *f, const char *what, const char *const *valid,
                         size_t nvalid, const char *const *names, unsigned n,
                         const char *hint)
{
    unsigned i;
    size_t k;
    for (i = 0; i < n; i++) {
        zdem_near nr;
        char msg[320];
        for (k = 0; k < nvalid; k++)
            if (strcmp(valid[k], names[i]) == 0)
                break;
        if (k < nvalid)
            continue;
        zdem_near_init(&nr, names[i], strlen(names[i]));
        for (k = 0; k < nvalid; k++)
            zdem_near_offer(&nr, valid[k], strlen(valid[k]));
        zdem_near_message(&nr, what, msg, sizeof msg);
        return zdem_cli_unknown(f, msg, hint);
    }
    return 0;
}

int zdem_cli_name_wanted(const zdem_cli_args *a, const char *name, size_t len, const char *type)
{
    unsigned i;
    if (!a->nnames)
        return 1;
    for (i = 0; i < a->nnames; i++)
        if ((name && strlen(a->names[i]) == len && memcmp(a->names[i], name, len) == 0) ||
            (type && strcmp(a->names[i], type) == 0))
            return 1;
    return 0;
}

int zdem_cli_unsupported(const zdem_cli_args *a, const char *format)
{
    fprintf(stderr, "zdem: '%s' is not supported for %s files (see zdem --help)\n",
            a->command, format);
    return ZDEM_EXIT_USAGE;
}

/* Length of a valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
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
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

void zdem_json_str(FILE *out, const uint8_t *s, size_t n)
{
    /* bytes that need no escape go out in one fwrite per run: per-byte
     * stdio calls were half of `entities --json` */
    size_t i = 0, run = 0;
    fputc('"', out);
    while (i < n) {
        uint8_t c = s[i];
        size_t l;
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
            i++;
            continue;
        }
        if (c >= 0x80 && (l = utf8_len(s + i, n - i)) != 0) {
            i += l;
            continue;
        }
        if (i > run)
            fwrite(s + run, 1, i - run, out);
        switch (c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default: /* controls, DEL, and a stray byte read as Latin-1 */
            fprintf(out, "\\u%04x", c);
            break;
        }
        run = ++i;
    }
    if (i > run)
        fwrite(s + run, 1, i - run, out);
    fputc('"', out);
}

void zdem_csv_str(FILE *out, const uint8_t *s, size_t n)
{
    size_t i;
    int quote = 0;
    for (i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
            quote = 1;
    if (!quote) {
        fwrite(s, 1, n, out);
        return;
    }
    fputc('"', out);
    for (i = 0; i < n; i++) {
        if (s[i] == '"')
            fputc('"', out);
        fputc(s[i], out);
    }
    fputc('"', out);
}

void zdem_json_cstr(FILE *out, const char *s)
{
    zdem_json_str(out, (const uint8_t *)s, strlen(s));
}
