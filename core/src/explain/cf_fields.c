/* core/src/explain/cf_fields.c -- the workload fields a user controls, in the order in
 * which a change to them is smaller (docs/explanations.md), and the round
 * numbers a threshold is reported as. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_internal.h"

/* Only what a user decides for this workload: limits first (a number moved,
 * nothing rewritten), then where and how the work is bought, then what it
 * optimises, then its numerics and training method, then the team's stated
 * experience (the opt-out of either team gate). What the model and its code
 * are (custom ops, dynamic shapes, framework, whether it must run alike on
 * every provider: `portable`) and the project's stage are facts, not
 * choices. Bounds are the contract's. */
static const struct cf_field fields[] = {
    {"/constraints/budget_usd", CF_NUMBER, CF_ANY, false, 0, 1e12},
    {"/training/deadline_hours", CF_NUMBER, CF_TRAINING, false, 0, 1e6},
    {"/constraints/max_accelerators", CF_NUMBER, CF_ANY, true, 1, 1e5},
    {"/constraints/pricing", CF_ENUM, CF_ANY, false, 0, 0},
    {"/constraints/providers", CF_LIST, CF_ANY, false, 0, 0},
    {"/constraints/deployment", CF_ENUM, CF_ANY, false, 0, 0},
    {"/constraints/accelerators", CF_LIST, CF_ANY, false, 0, 0},
    {"/objective", CF_ENUM, CF_ANY, false, 0, 0},
    {"/precision", CF_ENUM, CF_ANY, false, 0, 0},
    {"/training/method", CF_ENUM, CF_FINE_TUNING, false, 0, 0},
    {"/team/xla_experience", CF_ENUM, CF_ANY, false, 0, 0},
    {"/team/cuda_experience", CF_ENUM, CF_ANY, false, 0, 0},
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
    const struct dc_workload *w = &c->base->workload;
    switch (f->scope) {
    case CF_ANY:
        break;
    case CF_TRAINING:
        return w->task != DC_TASK_INFERENCE;
    case CF_FINE_TUNING:
        return w->task == DC_TASK_FINE_TUNING;
    }
    /* An fp64 workload (a simulation) cannot drop its precision. */
    return strcmp(f->pointer, "/precision") != 0 || w->precision != DC_PREC_FP64;
}

bool cf__value_applies(const struct cf_ctx *c, const struct cf_field *f, const char *value)
{
    /* Only a precision the team can move the model to without new weights
     * (issue 29): training in bf16, fp16 or fp8 (mixed precision; fp4 and
     * integer training are not practice, and nobody moves to fp32 or fp64
     * to change the accelerator), an fp32 run also with TF32 matmuls; a
     * served model in 16 bits or fp8, which engines quantize on load (int8,
     * int4 and fp4 need a model quantized for them: `quantization`). */
    static const char *const training[] = {"bf16", "fp16", "fp8", NULL};
    static const char *const fp32_training[] = {"tf32", "bf16", "fp16", "fp8", NULL};
    static const char *const serving[] = {"bf16", "fp16", "fp8", NULL};
    if (strcmp(f->pointer, "/precision") != 0)
        return true;
    const struct dc_workload *w = &c->base->workload;
    const char *const *ok = w->task == DC_TASK_INFERENCE               ? serving
                            : w->precision == DC_PREC_FP32 && !w->tf32 ? fp32_training
                                                                       : training;
    for (size_t i = 0; ok[i] != NULL; i++)
        if (strcmp(ok[i], value) == 0)
            return true;
    return false;
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

/* Collect the numbers compared with `name` anywhere under `node` (a
 * condition of rule `rule`). */
static void collect(const cJSON *node, const char *name, const char *rule, struct cf_constant *out,
                    size_t max, size_t *n)
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
                    out[(*n)++] = (struct cf_constant){arg->valuedouble, rule};
            }
        }
        collect(it, name, rule, out, max, n);
    }
}

/* By value; the same value keeps the first rule (stable on rule order). */
static int cmp_constant(const void *a, const void *b)
{
    const struct cf_constant *x = a, *y = b;
    return x->value < y->value ? -1 : x->value > y->value;
}

size_t cf__rule_constants(const dc_ruleset *rs, const struct cf_field *f, struct cf_constant *out,
                          size_t max)
{
    char name[64];
    size_t n = 0, k = 0;
    /* "/constraints/budget_usd" is "constraints.budget_usd" to a condition. */
    snprintf(name, sizeof(name), "%s", f->pointer + 1);
    for (char *p = name; *p != '\0'; p++)
        *p = *p == '/' ? '.' : *p;
    for (size_t i = 0; i < dc_ruleset_rule_count(rs); i++)
        collect(dc_ruleset_rule(rs, i)->when, name, dc_ruleset_rule(rs, i)->id, out, max, &n);
    /* Insertion sort: stable, so a value shared by several rules names the
     * first in file order. */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && cmp_constant(&out[j - 1], &out[j]) > 0; j--) {
            struct cf_constant t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    for (size_t i = 0; i < n; i++) {
        if ((k == 0 || out[i].value != out[k - 1].value) && isfinite(out[i].value) &&
            out[i].value > f->min && out[i].value < f->max)
            out[k++] = out[i];
    }
    return k;
}
