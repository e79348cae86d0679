/* Another program, launched and watched by the engine (ctxbench peers):
 *
 *   ctxbench-engine which NAME...
 *   ctxbench-engine exec [--cpus C,...] [--timeout-ms T] [--drain-ms D]
 *                        [--max-output B] -- PROGRAM [ARG...]
 *
 * The launcher lives in the engine, not the front end, so that a peer runs
 * the same way here and on a --host (through the engine seam, over SSH):
 * its CPUs, its process group killed on every way out (and, the engine
 * being its subreaper, what left the group and outlived it), its output
 * bounded (and always UTF-8: core/json.c), its tree's CPU time,
 * the switches its whole tree made (wait4), each CPU's busy time around it,
 * and a watchdog; one JSON record on stdout. */
#ifndef CTXBENCH_CLI_EXEC_H
#define CTXBENCH_CLI_EXEC_H

int cmd_which(int argc, char **argv); /* argv: the names */
int cmd_exec(int argc, char **argv);  /* argv: the options, --, the program */
#endif
