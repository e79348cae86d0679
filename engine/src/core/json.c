#include "core/json.h"
#include <math.h>
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

/* A JSON string: quotes, backslashes and control characters escaped, and
 * bytes that are not UTF-8 (another program's output, a path) replaced by
 * U+FFFD, so that what the engine prints is always valid JSON text. */
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
            if (*p < 0x20) {
                fprintf(f, "\\u%04x", *p);
            } else if (*p < 0x80) {
                fputc(*p, f);
            } else {
                int n = utf8_length(p);
                if (n) {
                    fwrite(p, 1, (size_t)n, f);
                    p += n - 1;
                } else {
                    fputs("\\ufffd", f);
                }
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
