/* core/src/cf_fields.c -- the workload fields a user controls, in the order in
 * which a change to them is smaller (docs/explanations.md), and the round
 * numbers a threshold is reported as. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_internal.h"

/* Limits first (a number moved, nothing rewritten), then where and how the
 * work is bought, then what it optimises, then the model's numerics and code,
 * then the people and the project. Bounds are the contract's. */
static const struct cf_field fields[] = {
    {"/constraints/budget_usd", CF_NUMBER, false, false, 0, 1e12},
    {"/training/deadline_hours", CF_NUMBER, true, false, 0, 1e6},
    {"/constraints/max_accelerators", CF_NUMBER, false, true, 1, 1e5},
    {"/constraints/pricing", CF_ENUM, false, false, 0, 0},
    {"/constraints/providers", CF_LIST, false, false, 0, 0},
    {"/constraints/deployment", CF_ENUM, false, false, 0, 0},
    {"/constraints/accelerators", CF_LIST, false, false, 0, 0},
    {"/objective", CF_ENUM, false, false, 0, 0},
    {"/precision", CF_ENUM, false, false, 0, 0},
    {"/training/method", CF_ENUM, true, false, 0, 0},
    {"/model/dynamic_shapes", CF_BOOL, false, false, 0, 0},
    {"/model/custom_ops", CF_BOOL, false, false, 0, 0},
    {"/framework", CF_ENUM, false, false, 0, 0},
    {"/team/xla_experience", CF_ENUM, false, false, 0, 0},
    {"/team/cuda_experience", CF_ENUM, false, false, 0, 0},
    {"/stage", CF_ENUM, false, false, 0, 0},
};
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

const struct cf_field *cf__fields(size_t *n)
{
    *n = N_FIELDS;
    return fields;
}

size_t cf__field_rank(const char *pointer)
{
    for (size_t i = 0; pointer != NULL && i < N_FIELDS; i++) {
        if (strcmp(fields[i].pointer, pointer) == 0)
            return i;
    }
    return N_FIELDS;
}

const struct cf_field *cf__field(const char *pointer)
{
    size_t i = cf__field_rank(pointer);
    return i < N_FIELDS ? &fields[i] : NULL;
}

bool cf__field_applies(const struct cf_ctx *c, const struct cf_field *f)
{
    return !f->training_only || c->base->workload.task != DC_TASK_INFERENCE;
}

/* 10^e, exact for the integer powers a double holds. */
static double pow10i(int e)
{
    double p = 1;
    for (int i = 0; i < (e < 0 ? -e : e); i++)
        p *= 10;
    return e < 0 ? 1 / p : p;
}

double cf__roundest(double lo, double hi, bool integer)
{
    if (!(lo > 0) || !(hi >= lo) || !isfinite(hi))
        return lo;
    /* From the coarsest step down: the first step with a multiple inside the
     * window gives the fewest significant digits. Dividing by a power of ten
     * (rather than multiplying by its inexact inverse) keeps 0.3 as 0.3. */
    for (int e = (int)floor(log10(hi)); e >= (integer ? 0 : -9); e--) {
        double step = pow10i(e < 0 ? -e : e);
        double m = e < 0 ? ceil(lo * step) : ceil(lo / step);
        double v = e < 0 ? m / step : m * step;
        if (v >= lo && v <= hi)
            return v;
    }
    return integer && ceil(lo) <= hi ? ceil(lo) : lo;
}

/* Whether `v` is {"var": name} or {"var": [name, default]}. */
static bool is_var(const cJSON *v, const char *name)
{
    const cJSON *var = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "var") : NULL;
    if (cJSON_IsArray(var))
        var = cJSON_GetArrayItem(var, 0);
    return cJSON_IsString(var) && strcmp(var->valuestring, name) == 0;
}

static bool is_comparison(const char *op)
{
    static const char *const ops[] = {"<", "<=", ">", ">=", "==", "===", "!=", "!=="};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (strcmp(op, ops[i]) == 0)
            return true;
    }
    return false;
}

/* Collect the numbers compared with `name` anywhere under `node`. */
static void collect(const cJSON *node, const char *name, double *out, size_t max, size_t *n)
{
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, node)
    {
        if (it->string != NULL && is_comparison(it->string) && cJSON_IsArray(it)) {
            bool compares = false;
            const cJSON *arg = NULL;
            cJSON_ArrayForEach(arg, it)
            {
                compares = compares || is_var(arg, name);
            }
            cJSON_ArrayForEach(arg, it)
            {
                if (compares && cJSON_IsNumber(arg) && *n < max)
                    out[(*n)++] = arg->valuedouble;
            }
        }
        collect(it, name, out, max, n);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

size_t cf__rule_constants(const dc_ruleset *rs, const struct cf_field *f, double *out, size_t max)
{
    char name[64];
    size_t n = 0, k = 0;
    /* "/constraints/budget_usd" is "constraints.budget_usd" to a condition. */
    snprintf(name, sizeof(name), "%s", f->pointer + 1);
    for (char *p = name; *p != '\0'; p++)
        *p = *p == '/' ? '.' : *p;
    for (size_t i = 0; i < dc_ruleset_rule_count(rs); i++)
        collect(dc_ruleset_rule(rs, i)->when, name, out, max, &n);
    qsort(out, n, sizeof(*out), cmp_double);
    for (size_t i = 0; i < n; i++) {
        if ((k == 0 || out[i] != out[k - 1]) && isfinite(out[i]) && out[i] > f->min &&
            out[i] < f->max)
            out[k++] = out[i];
    }
    return k;
}
