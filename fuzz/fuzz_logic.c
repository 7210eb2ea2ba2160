/* fuzz/fuzz_logic.c -- JSONLogic (dc/logic.h): compile a rule, evaluate it.
 *
 * Input: the rule's JSON, a newline, the data's JSON (no newline: the whole
 * input is the rule and the data is null). Both are parsed strictly
 * (api_json_parse); anything that is not JSON is of no interest here.
 *
 * Invariants (each aborts when broken):
 *  - compile returns DC_OK, DC_EPARSE, DC_ELIMIT or DC_ENOMEM (the documented
 *    statuses other than the NULL-argument DC_EINVAL); a failure has a message
 *    and a JSON Pointer into the rule in err.where, and leaves no program;
 *  - the var paths (dc_logic_foreach_var) come sorted and distinct;
 *  - evaluation returns DC_OK, DC_EINVAL, DC_ELIMIT or DC_ENOMEM, a result only
 *    with DC_OK, and is deterministic: a second evaluation gives the same
 *    status and the same JSON value (NaN equal to NaN);
 *  - dc_logic_eval_truthy gives the same status and the JavaScript/JSONLogic
 *    truthiness of dc_logic_eval's value;
 *  - out of memory: compiling or evaluating with one allocation made to fail
 *    (dc_logic_compile_stats / dc_logic_eval_truthy_stats, the allocation
 *    chosen by a hash of the input) returns DC_ENOMEM and leaks nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/openapi.h"
#include "dc/logic.h"
#include "fuzz_common.h"
#include "logic_internal.h"

struct var_walk {
    const char *prev;
    size_t n;
};

static void on_var(const char *path, void *ctx);
static bool json_same(const cJSON *a, const cJSON *b);
static bool json_truthy(const cJSON *j);
static cJSON *parse_part(const uint8_t *data, size_t len);

static void on_var(const char *path, void *ctx)
{
    struct var_walk *w = ctx;
    FUZZ_CHECK(path != NULL, "var path %zu is NULL", w->n);
    if (w->prev != NULL)
        FUZZ_CHECK(strcmp(w->prev, path) < 0, "var paths not sorted and distinct: \"%s\", \"%s\"",
                   w->prev, path);
    w->prev = path;
    w->n++;
}

/* Structural equality in which NaN equals NaN and -0 differs from +0 only
 * where the bits say so (both come from the same code, so bits must match). */
static bool json_same(const cJSON *a, const cJSON *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    if ((a->type & 0xff) != (b->type & 0xff))
        return false;
    if (cJSON_IsNumber(a)) {
        double x = a->valuedouble, y = b->valuedouble;
        return (isnan(x) && isnan(y)) || memcmp(&x, &y, sizeof(x)) == 0;
    }
    if (cJSON_IsString(a))
        return strcmp(a->valuestring, b->valuestring) == 0;
    if (cJSON_IsArray(a) || cJSON_IsObject(a)) {
        const cJSON *x = a->child, *y = b->child;
        for (; x != NULL && y != NULL; x = x->next, y = y->next) {
            if (cJSON_IsObject(a) && strcmp(x->string, y->string) != 0)
                return false;
            if (!json_same(x, y))
                return false;
        }
        return x == NULL && y == NULL;
    }
    return true; /* null, true, false: the type says it all */
}

/* JSONLogic truthiness of a JSON value: JavaScript's, except that an empty
 * array is falsy (jsonlogic.com, "truthy"). */
static bool json_truthy(const cJSON *j)
{
    if (cJSON_IsTrue(j))
        return true;
    if (cJSON_IsNumber(j))
        return j->valuedouble != 0 && !isnan(j->valuedouble);
    if (cJSON_IsString(j))
        return j->valuestring[0] != '\0';
    if (cJSON_IsArray(j))
        return j->child != NULL;
    return cJSON_IsObject(j);
}

static cJSON *parse_part(const uint8_t *data, size_t len)
{
    char *text = fuzz_strndup(data, len);
    cJSON *j = NULL;
    if (api_json_parse(text, len, API_JSON_DEPTH_MAX, &j, NULL) != API_JSON_OK)
        j = NULL;
    free(text);
    return j;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t rule_len = nl != NULL ? (size_t)(nl - data) : size;
    cJSON *rule = parse_part(data, rule_len);
    cJSON *dat = NULL;
    cJSON *r1 = NULL, *r2 = NULL;
    dc_logic *prog = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    if (rule == NULL)
        goto out;
    if (nl != NULL) {
        dat = parse_part(nl + 1, size - rule_len - 1);
        if (dat == NULL)
            goto out;
    }
    uint64_t h = fuzz_hash(data, size);

    struct dc_logic_stats cst = {0, 0, 0, 0};
    enum dc_status rc = dc_logic_compile_stats(rule, NULL, &cst, &prog, &err);
    FUZZ_CHECK(rc == DC_OK || rc == DC_EPARSE || rc == DC_ELIMIT || rc == DC_ENOMEM,
               "compile: undocumented status %s (%s)", dc_status_name(rc), err.msg);
    if (rc != DC_OK) {
        fuzz_check_compile_failure(rc, prog != NULL, &err, rule, "rule");
        goto out;
    }
    FUZZ_CHECK(prog != NULL, "compile DC_OK without a program");

    struct var_walk vw = {NULL, 0};
    dc_logic_foreach_var(prog, on_var, &vw);

    enum dc_status e1 = dc_logic_eval(prog, dat, &r1, &err);
    enum dc_status e2 = dc_logic_eval(prog, dat, &r2, &err);
    FUZZ_CHECK(e1 == DC_OK || e1 == DC_EINVAL || e1 == DC_ELIMIT || e1 == DC_ENOMEM,
               "eval: undocumented status %s (%s)", dc_status_name(e1), err.msg);
    FUZZ_CHECK(e1 == e2, "eval not deterministic: %s then %s", dc_status_name(e1),
               dc_status_name(e2));
    FUZZ_CHECK((e1 == DC_OK) == (r1 != NULL) && (e2 == DC_OK) == (r2 != NULL),
               "eval %s with result %p", dc_status_name(e1), (void *)r1);
    if (e1 == DC_OK) {
        char *p1 = cJSON_PrintUnformatted(r1);
        char *p2 = cJSON_PrintUnformatted(r2);
        FUZZ_CHECK(json_same(r1, r2), "eval not deterministic: %.500s then %.500s",
                   p1 != NULL ? p1 : "?", p2 != NULL ? p2 : "?");
        cJSON_free(p1);
        cJSON_free(p2);
    }

    bool truthy = false;
    enum dc_status et = dc_logic_eval_truthy(prog, dat, &truthy, &err);
    FUZZ_CHECK(et == e1 || et == DC_ENOMEM || e1 == DC_ENOMEM, "eval_truthy %s but eval %s (%s)",
               dc_status_name(et), dc_status_name(e1), err.msg);
    if (et == DC_OK && e1 == DC_OK)
        FUZZ_CHECK(truthy == json_truthy(r1), "eval_truthy says %d, eval's value is %s",
                   (int)truthy, cJSON_IsTrue(r1) ? "true" : "another value");

    /* One allocation of compilation made to fail. */
    if (cst.allocs > 0) {
        struct dc_logic_stats fst = {1 + (size_t)(h % cst.allocs), 0, 0, 0};
        dc_logic *failed = NULL;
        rc = dc_logic_compile_stats(rule, NULL, &fst, &failed, &err);
        FUZZ_CHECK(rc == DC_ENOMEM && failed == NULL,
                   "compile with allocation %zu of %zu failing: %s", fst.fail_at, cst.allocs,
                   dc_status_name(rc));
    }
    /* One allocation of evaluation made to fail. */
    struct dc_logic_stats est = {0, 0, 0, 0};
    bool t2 = false;
    et = dc_logic_eval_truthy_stats(prog, dat, &est, &t2, &err);
    if (et == DC_OK && est.allocs > 0) {
        struct dc_logic_stats fst = {1 + (size_t)((h >> 32) % est.allocs), 0, 0, 0};
        rc = dc_logic_eval_truthy_stats(prog, dat, &fst, &t2, &err);
        FUZZ_CHECK(rc == DC_ENOMEM, "eval with allocation %zu of %zu failing: %s", fst.fail_at,
                   est.allocs, dc_status_name(rc));
    }
out:
    cJSON_Delete(r1);
    cJSON_Delete(r2);
    dc_logic_free(prog);
    cJSON_Delete(dat);
    cJSON_Delete(rule);
    return 0;
}
