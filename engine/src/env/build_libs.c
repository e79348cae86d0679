#include "env/build_libs.h"
#ifdef HAVE_ZLIB
#include <zlib.h>
#endif
#ifdef HAVE_LIBCRYPTO
#include <openssl/crypto.h>
#endif

#ifndef CTXBENCH_LIBS_NOTE
#define CTXBENCH_LIBS_NOTE NULL
#endif

void build_libs_write(json_t *j)
{
    json_key(j, "libraries");
    json_obj_begin(j);
#ifdef HAVE_ZLIB
    json_kstr(j, "zlib", zlibVersion());
#else
    json_kstr(j, "zlib", NULL);
#endif
#ifdef HAVE_LIBCRYPTO
    json_kstr(j, "libcrypto", OpenSSL_version(OPENSSL_VERSION));
#else
    json_kstr(j, "libcrypto", NULL);
#endif
#ifdef HAVE_HWLOC
    json_kbool(j, "hwloc", 1);
#else
    json_kbool(j, "hwloc", 0);
#endif
    /* why a library is missing (set by the build, e.g. the ARM cross build) */
    json_kstr(j, "note", CTXBENCH_LIBS_NOTE);
    json_obj_end(j);
}
