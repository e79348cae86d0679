#include "core/json.h"
#include <math.h>
#include <stddef.h>
#include <inttypes.h>

void json_init(json_t *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->first[0] = 1;
    j->after_key = 0;
}

/* Emit the separator that belongs before a new value or key. */
static void sep(json_t *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (!j->first[j->depth]) fputc(',', j->f);
    j->first[j->depth] = 0;
}

static void open_(json_t *j, char c)
{
    sep(j);
    fputc(c, j->f);
    if (j->depth + 1 < JSON_MAX_DEPTH) j->depth++;
    j->first[j->depth] = 1;
}

static void close_(json_t *j, char c)
{
    fputc(c, j->f);
    if (j->depth > 0) j->depth--;
}

void json_obj_begin(json_t *j)
{
    open_(j, '{');
}
void json_obj_end(json_t *j)
{
    close_(j, '}');
}
void json_arr_begin(json_t *j)
{
    open_(j, '[');
}
void json_arr_end(json_t *j)
{
    close_(j, ']');
}

/* The length of the well-formed UTF-8 sequence at p (1 to 4), or 0 where
 * the bytes there are not one (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF). */
static int utf8_length(const unsigned char *p)
{
    unsigned char c = p[0];
    int n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
    if (c >= 0xf5) n = 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80) return 0;
    if (n == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0))) return 0;
    if (n == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90))) return 0;
    return n;
}

/* The code point of the well-formed sequence of n bytes at p. */
static uint32_t utf8_decode(const unsigned char *p, int n)
{
    uint32_t c = n == 2 ? p[0] & 0x1fu : n == 3 ? p[0] & 0x0fu : p[0] & 0x07u;
    for (int i = 1; i < n; i++) c = c << 6 | (p[i] & 0x3fu);
    return c;
}

/* What a terminal or an editor must not be given raw, though valid in
 * JSON: the C1 controls (U+0080-U+009F: U+009B is the 8-bit CSI that starts
 * a terminal escape) and the characters that are invisible yet change what
 * is shown: Unicode's format characters (category Cf: the bidi controls
 * U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069 reorder the text
 * after them; zero-width spaces and joiners, the BOM, the soft hyphen, the
 * tags), the line and paragraph separators (Zl, Zp) and the Hangul fillers
 * (blank letters). The same list as the front end's core/errors.py
 * (_UNPRINTABLE, Unicode 14 and U+13439-U+1343F of 15). */
static const uint32_t invisible[][2] = {
    {0x80, 0x9f},       {0xad, 0xad},       {0x600, 0x605},     {0x61c, 0x61c},     {0x6dd, 0x6dd},
    {0x70f, 0x70f},     {0x890, 0x891},     {0x8e2, 0x8e2},     {0x115f, 0x1160},   {0x180e, 0x180e},
    {0x200b, 0x200f},   {0x2028, 0x202e},   {0x2060, 0x2064},   {0x2066, 0x206f},   {0x3164, 0x3164},
    {0xfeff, 0xfeff},   {0xffa0, 0xffa0},   {0xfff9, 0xfffb},   {0x110bd, 0x110bd}, {0x110cd, 0x110cd},
    {0x13430, 0x1343f}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0001, 0xe0001}, {0xe0020, 0xe007f},
};

static int is_invisible(uint32_t c)
{
    for (size_t i = 0; i < sizeof invisible / sizeof *invisible; i++)
        if (c >= invisible[i][0] && c <= invisible[i][1]) return 1;
    return 0;
}

/* \uXXXX, or the UTF-16 surrogate pair JSON writes a code point above
 * U+FFFF as. */
static void put_escaped(FILE *f, uint32_t c)
{
    if (c > 0xffff) {
        c -= 0x10000;
        fprintf(f, "\\u%04x\\u%04x", (unsigned)(0xd800 + (c >> 10)), (unsigned)(0xdc00 + (c & 0x3ff)));
    } else {
        fprintf(f, "\\u%04x", (unsigned)c);
    }
}

/* A JSON string: quotes, backslashes, controls (C0, DEL, C1) and invisible
 * characters escaped as \uXXXX (a surrogate pair above U+FFFF), and bytes
 * that are not UTF-8 (another program's output, a path) replaced by U+FFFD,
 * so that what the engine prints is always valid JSON text, and shown on a
 * terminal, moves no cursor and reorders nothing. */
static void raw_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*p < 0x20 || *p == 0x7f) {
                put_escaped(f, *p);
            } else if (*p < 0x80) {
                fputc(*p, f);
            } else {
                int n = utf8_length(p);
                uint32_t c = n ? utf8_decode(p, n) : 0;
                if (!n) {
                    fputs("\\ufffd", f);
                } else if (is_invisible(c)) {
                    put_escaped(f, c);
                } else {
                    fwrite(p, 1, (size_t)n, f);
                }
                if (n) p += n - 1;
            }
        }
    }
    fputc('"', f);
}

void json_key(json_t *j, const char *k)
{
    sep(j);
    raw_string(j->f, k);
    fputc(':', j->f);
    j->after_key = 1;
}
void json_str(json_t *j, const char *s)
{
    sep(j);
    raw_string(j->f, s);
}
void json_num(json_t *j, double v)
{
    sep(j);
    if (!isfinite(v))
        fputs("null", j->f);
    else
        fprintf(j->f, "%.17g", v);
}
void json_num_digits(json_t *j, double v, int digits)
{
    sep(j);
    if (!isfinite(v))
        fputs("null", j->f);
    else
        fprintf(j->f, "%.*g", digits, v);
}
void json_int(json_t *j, int64_t v)
{
    sep(j);
    fprintf(j->f, "%" PRId64, v);
}
void json_bool(json_t *j, int v)
{
    sep(j);
    fputs(v ? "true" : "false", j->f);
}
void json_null(json_t *j)
{
    sep(j);
    fputs("null", j->f);
}
void json_kstr(json_t *j, const char *k, const char *s)
{
    json_key(j, k);
    if (s)
        json_str(j, s);
    else
        json_null(j);
}
void json_knum(json_t *j, const char *k, double v)
{
    json_key(j, k);
    json_num(j, v);
}
void json_kint(json_t *j, const char *k, int64_t v)
{
    json_key(j, k);
    json_int(j, v);
}
void json_kbool(json_t *j, const char *k, int v)
{
    json_key(j, k);
    json_bool(j, v);
}

void json_knull(json_t *j, const char *k)
{
    json_key(j, k);
    json_null(j);
}
