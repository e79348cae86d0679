/* Which optional libraries this engine binary was built with. */
#ifndef CTXBENCH_BUILD_LIBS_H
#define CTXBENCH_BUILD_LIBS_H
#include "core/json.h"
/* Write the "libraries" member of the tool/build record: each library's
 * version, or null and a note when it was left out of this build. */
void build_libs_write(json_t *j);
#endif
