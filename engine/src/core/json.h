/* Minimal streaming JSON writer: the engine's only output format. */
#ifndef CTXBENCH_JSON_H
#define CTXBENCH_JSON_H
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

typedef struct json {
    FILE *f;
    int depth;
    int first[JSON_MAX_DEPTH]; /* 1 until the first member is written */
    int after_key;
} json_t;

void json_init(json_t *j, FILE *f);
void json_obj_begin(json_t *j);
void json_obj_end(json_t *j);
void json_arr_begin(json_t *j);
void json_arr_end(json_t *j);
void json_key(json_t *j, const char *k);
void json_str(json_t *j, const char *s);
void json_num(json_t *j, double v); /* non-finite values become null */
/* with `digits` significant digits (%.*g): a reduction's numbers, not a sample's */
void json_num_digits(json_t *j, double v, int digits);
void json_int(json_t *j, int64_t v);
void json_bool(json_t *j, int v);
void json_null(json_t *j);
/* key + value shorthands */
void json_kstr(json_t *j, const char *k, const char *s);
void json_knum(json_t *j, const char *k, double v);
void json_kint(json_t *j, const char *k, int64_t v);
void json_kbool(json_t *j, const char *k, int v);
void json_knull(json_t *j, const char *k);
#endif
