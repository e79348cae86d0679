/* The JSON writer escapes every string, writes only UTF-8 (a byte that is
 * not replaced by U+FFFD) and never writes NaN. */
#include "check.h"
#include "core/json.h"
#include <math.h>
#include <string.h>

int main(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_t j;
    json_init(&j, f);
    json_obj_begin(&j);
    json_kstr(&j, "s", "a\"b\\c\n\x01<tag>");
    json_knum(&j, "nan", NAN);
    json_key(&j, "arr");
    json_arr_begin(&j);
    json_int(&j, 1);
    json_int(&j, -2);
    json_arr_end(&j);
    json_obj_end(&j);
    fclose(f);
    CHECK(strcmp(buf, "{\"s\":\"a\\\"b\\\\c\\n\\u0001<tag>\",\"nan\":null,\"arr\":[1,-2]}") == 0, "got %s",
          buf);
    free(buf);

    /* another program's bytes: well-formed UTF-8 kept, the rest replaced byte by byte (a lone continuation,
     * a truncated sequence, an overlong form, a surrogate, a byte above F4) */
    f = open_memstream(&buf, &len);
    json_init(&j, f);
    json_str(&j, "caf\xc3\xa9 \xf0\x9f\x98\x80 \x80 \xe9t \xc0\xaf \xed\xa0\x80 \xff");
    fclose(f);
    CHECK(strcmp(buf, "\"caf\xc3\xa9 \xf0\x9f\x98\x80 \\ufffd \\ufffdt \\ufffd\\ufffd \\ufffd\\ufffd\\ufffd "
                      "\\ufffd\"") == 0,
          "got %s", buf);
    free(buf);
    CHECK_DONE("json writer");
}
