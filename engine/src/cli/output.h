/* Where results go (the rule is at the top of output.c): stdout, a stream
 * (a device, a FIFO with a reader), or FILE through FILE.tmp.<pid> renamed
 * at the end; a write that fails is an error; one result in the mode asked
 * for (human line, --json member, --jsonl line), and the progress lines of
 * interleaved runs. */
#ifndef CTXBENCH_CLI_OUTPUT_H
#define CTXBENCH_CLI_OUTPUT_H
#include "cli/options.h"
#include "core/harness.h"
#include "core/json.h"
#include <stdio.h>

FILE *open_out(const char *out);
void close_out(FILE *f, const char *out, int ok);
/* atexit and the signal handler (reap_on_exit): removes the temp file */
void cleanup_tmp(void);
/* At start: hold /dev/null on closed descriptors 0-2 (so that no file
 * becomes "stdout") and remember whether stdout was closed. */
void guard_std_streams(void);
/* Refuse, before measuring, a command whose output goes to a closed stdout. */
void need_stdout(void);
/* atexit: stdout that could not be written fails the command (exit 1). */
void close_stdout(void);
int write_result(const cli_t *c, FILE *f, json_t *j, harness_job_t *h, const bench_t *b);
void progress(const cli_t *c, FILE *f, size_t done, size_t total, const char *id, int group);
#endif
