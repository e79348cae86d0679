/* The JSON writer escapes every string and never writes NaN. */
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
    CHECK_DONE("json writer");
}
