/* A minimal check macro set for the engine's unit tests: each test binary
 * prints one line per failed check and "ok: <name> (<n> checks)" at the
 * end; its exit status is the verdict: 0 passed, 1 failed, CHECK_SKIPPED
 * (77, the automake convention) could not run here, with the reason on
 * stdout (tests/test_engine_units.py reports it as a pytest skip). */
#ifndef CTXBENCH_CHECK_H
#define CTXBENCH_CHECK_H
#include <stdio.h>
#include <stdlib.h>

static int check_failures, check_count;

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        check_count++;                                                                                       \
        if (!(cond)) {                                                                                       \
            check_failures++;                                                                                \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                         \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fputc('\n', stderr);                                                                             \
        }                                                                                                    \
    } while (0)

#define CHECK_DONE(name)                                                                                     \
    do {                                                                                                     \
        if (check_failures) {                                                                                \
            fprintf(stderr, "FAILED: %s: %d of %d checks\n", name, check_failures, check_count);             \
            return 1;                                                                                        \
        }                                                                                                    \
        printf("ok: %s (%d checks)\n", name, check_count);                                                   \
        return 0;                                                                                            \
    } while (0)

#define CHECK_SKIPPED 77

/* What this binary needed could not be had here (a privilege, an ABI): the
 * checks made so far must still have passed; the reason goes on stdout. */
#define CHECK_SKIP(name, ...)                                                                                \
    do {                                                                                                     \
        if (check_failures) {                                                                                \
            fprintf(stderr, "FAILED: %s: %d of %d checks\n", name, check_failures, check_count);             \
            return 1;                                                                                        \
        }                                                                                                    \
        printf("skip: %s: ", name);                                                                          \
        printf(__VA_ARGS__);                                                                                 \
        putchar('\n');                                                                                       \
        return CHECK_SKIPPED;                                                                                \
    } while (0)
#endif
