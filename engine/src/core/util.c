#include "core/util.h"
#include "core/clock.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Control characters (an ESC from a user's id or file name) are shown as
 * \xNN: an error line must not drive the terminal. */
void put_escaped(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
}

void die(int code, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    fflush(stdout);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fputs("ctxbench-engine: ", stderr);
    put_escaped(stderr, msg);
    fputc('\n', stderr);
    exit(code);
}

int parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end) return -1;
    *out = v;
    return 0;
}

int parse_size(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return -1;
    unsigned shift = 0;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K':
            shift = 10;
            break;
        case 'M':
            shift = 20;
            break;
        case 'G':
            shift = 30;
            break;
        default:
            return -1;
        }
        end++;
        if (*end == 'i' || *end == 'I') end++;
        if (*end == 'B' || *end == 'b') end++;
        if (*end) return -1;
    }
    if (shift && v > (~0ull >> shift)) return -1;
    *out = v << shift;
    return 0;
}

int read_file_str(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = 0;
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ')) buf[--n] = 0;
    return 0;
}

int read_keyed(const char *path, const char *key, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    char line[512];
    size_t kl = strlen(key);
    int rc = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl)) continue;
        char *p = line + kl;
        if (*p != ' ' && *p != '\t' && *p != ':') continue;
        while (*p == ' ' || *p == '\t' || *p == ':') p++;
        size_t n = strcspn(p, "\n");
        if (n >= len) n = len - 1;
        memcpy(buf, p, n);
        buf[n] = 0;
        rc = 0;
        break;
    }
    fclose(f);
    return rc;
}

void spin_ms(unsigned ms)
{
    volatile double x = 1.0;
    uint64_t end = clock_ns() + (uint64_t)ms * 1000000ull;
    while (clock_ns() < end)
        for (int i = 0; i < 1000; i++) x = x * 1.0000001 + 1e-9;
}
