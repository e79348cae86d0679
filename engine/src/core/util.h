/* Errors, warnings and small parsing helpers shared by the engine. */
#ifndef CTXBENCH_UTIL_H
#define CTXBENCH_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Print "ctxbench-engine: <msg>" on stderr and exit with `code`. */
void die(int code, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
/* Write `s` with control characters as \\xNN escapes. */
void put_escaped(FILE *f, const char *s);
/* Parse a non-negative integer with optional K/M/G (binary) suffix.
 * Returns 0 on success. */
int parse_u64(const char *s, uint64_t *out);
int parse_size(const char *s, uint64_t *out);
/* Read a whole small file (trailing newline stripped). 0 on success. */
int read_file_str(const char *path, char *buf, size_t len);
/* Read the value of "key<sep>value" in a /proc style file. */
int read_keyed(const char *path, const char *key, char *buf, size_t len);
/* Busy-spin for about `ms` milliseconds (CPU warm-up). */
void spin_ms(unsigned ms);
#endif
