/* The JSON writer leaves nothing raw that a terminal acts on or that hides
 * or reorders text (issue 46, C007/C008/C056): DEL, the C1 controls and
 * Unicode's format characters are written as \uXXXX (a surrogate pair
 * above U+FFFF); printable text stays UTF-8, and a byte that is not UTF-8
 * still becomes U+FFFD. */
#include "check.h"
#include "core/json.h"
#include <string.h>

static char *written(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_t j;
    json_init(&j, f);
    json_str(&j, s);
    fclose(f);
    return buf;
}

static void expect(const char *in, const char *out)
{
    char *got = written(in);
    CHECK(strcmp(got, out) == 0, "got %s, not %s", got, out);
    free(got);
}

int main(void)
{
    expect("a\177b", "\"a\\u007fb\""); /* DEL */
    expect("\xc2\x80\xc2\x85\xc2\x9b[2J\xc2\x9f",
           "\"\\u0080\\u0085\\u009b[2J\\u009f\""); /* C1, the 8-bit CSI */
    expect("x\xe2\x80\xaey", "\"x\\u202ey\"");     /* right-to-left override */
    expect("\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9\xd8\x9c", "\"\\u202a\\u2066\\u2069\\u061c\""); /* bidi */
    expect("\xe2\x80\x8b\xe2\x80\x8f\xef\xbb\xbf\xc2\xad",
           "\"\\u200b\\u200f\\ufeff\\u00ad\"");               /* zero-width, BOM */
    expect("\xe2\x80\xa8\xe2\x80\xa9", "\"\\u2028\\u2029\""); /* line and paragraph separators */
    expect("\xf3\xa0\x81\x81", "\"\\udb40\\udc41\"");         /* a tag, U+E0041: a surrogate pair */
    /* kept: printable characters next to them, the highest C1's neighbour U+00A0 and U+202F */
    expect("caf\xc3\xa9 \xc2\xa0\xe2\x80\xaf \xf0\x9f\x98\x80",
           "\"caf\xc3\xa9 \xc2\xa0\xe2\x80\xaf \xf0\x9f\x98\x80\"");
    expect("\x9b\xff", "\"\\ufffd\\ufffd\""); /* a raw 0x9b byte is not UTF-8: U+FFFD, as before */
    CHECK_DONE("json writer: invisible characters");
}
