/* tests/unit/core/test_explain_table.c -- counterfactual explanations
 * (core/src/explain/counterfactual.c and cf_*.c) over the whole decision table
 * (tests/fixtures/cases.json, the workloads test_cases.c checks): every change
 * returned, applied to the workload by this test's own code, gives the top
 * pick it claims; every threshold's other side (`not_at`) does not, and lies
 * within the tolerance of it; every robustness flip re-runs to the pick it
 * names; and two explanations of one workload are identical. Nothing here
 * names a pick: the rule set may change, the checks hold whatever it says. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dc/engine.h"
#include "dc/explain.h"
#include "default_rules.h"
#include "read_file.h"

static dc_ruleset *rules;

/* `workload` with the member at `pointer` (two levels at most) set to `to`, or
 * removed when `to` is JSON null: written here, not with dc_workload_with, so
 * a fault there cannot hide itself. */
static cJSON *apply(const cJSON *workload, const char *pointer, const cJSON *to)
{
    char path[128];
    snprintf(path, sizeof(path), "%s", pointer);
    assert_true(path[0] == '/');
    cJSON *w = cJSON_Duplicate(workload, true);
    cJSON *obj = w;
    char *key = path + 1;
    char *slash = strchr(key, '/');
    if (slash != NULL) {
        *slash = '\0';
        cJSON *sec = cJSON_GetObjectItemCaseSensitive(w, key);
        if (sec == NULL) {
            sec = cJSON_CreateObject();
            cJSON_AddItemToObject(w, key, sec);
        }
        obj = sec;
        key = slash + 1;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    if (!cJSON_IsNull(to))
        cJSON_AddItemToObject(obj, key, cJSON_Duplicate(to, true));
    return w;
}

/* The top pick of `w` (NULL: nothing recommended) under optional factors. */
static const struct dc_accelerator *top_of(const cJSON *w, const double *price, const double *mfu)
{
    struct dc_recommend_opts o = {.price_scale = price, .mfu_scale = mfu};
    struct dc_result *res = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    if (dc_recommend(rules, w, &o, &res, &err) != DC_OK)
        fail_msg("re-run refused: %s %s", err.where, err.msg);
    const struct dc_accelerator *top =
        res->n_recommendations > 0 ? res->recommendations[0].acc : NULL;
    dc_result_free(res);
    return top;
}

static const char *id(const struct dc_accelerator *a)
{
    return a != NULL ? a->id : "nothing";
}

/* What target `t` asks of a top pick. */
static bool wins(const struct dc_target *t, const struct dc_accelerator *top)
{
    return t->role == DC_ROLE_TOP ? top != t->acc : top == t->acc;
}

static int check_change(const char *name, const cJSON *w, const struct dc_target *t,
                        const struct dc_change *c, int *thresholds)
{
    int bad = 0;
    cJSON *edited = apply(w, c->field, c->to);
    const struct dc_accelerator *top = top_of(edited, NULL, NULL);
    cJSON_Delete(edited);
    if (top != c->top || !wins(t, top)) {
        print_error("%s: %s %s: claims %s, re-run gives %s\n", name, t->acc->id, c->field,
                    id(c->top), id(top));
        bad++;
    }
    if (c->threshold == DC_THRESHOLD_NONE)
        return bad;
    (*thresholds)++;
    double v = c->to->valuedouble;
    bool integer = strcmp(c->field, "/constraints/max_accelerators") == 0;
    bool side = c->threshold == DC_THRESHOLD_ABOVE ? c->not_at < v : c->not_at > v;
    bool near = integer ? fabs(v - c->not_at) == 1
                        : fabs(v - c->not_at) <= DC_EXPLAIN_THRESHOLD_TOLERANCE * v;
    if (!cJSON_IsNumber(c->to) || !side || !near) {
        print_error("%s: %s %s: threshold %g, other side %g\n", name, t->acc->id, c->field, v,
                    c->not_at);
        bad++;
    }
    cJSON *n = cJSON_CreateNumber(c->not_at);
    edited = apply(w, c->field, n);
    top = top_of(edited, NULL, NULL);
    cJSON_Delete(edited);
    cJSON_Delete(n);
    if (wins(t, top)) {
        print_error("%s: %s %s: %s is still the pick at %g, past the threshold %g\n", name,
                    t->acc->id, c->field, id(top), c->not_at, v);
        bad++;
    }
    return bad;
}

/* Re-run a robustness check's perturbation (or, for a robust pick, the worst
 * case it survived). */
static int check_robustness(const char *name, const cJSON *w, const struct dc_robustness *r)
{
    size_t n = dc_ruleset_accelerator_count(rules);
    const struct dc_accelerator *first = dc_ruleset_accelerator(rules, 0);
    double *scale = calloc(n, sizeof(*scale));
    int bad = 0;
    for (size_t k = 0; k < r->n_checks; k++) {
        const struct dc_robust_check *c = &r->checks[k];
        const struct dc_accelerator *want = c->robust ? r->top : c->flip.top;
        double p = DC_EXPLAIN_PERTURBATION;
        double own = c->kind == DC_PERTURB_PRICE ? 1 + p : 1 - p;
        for (size_t i = 0; i < n; i++)
            scale[i] = c->robust ? (c->kind == DC_PERTURB_PRICE ? 1 - p : 1 + p) : c->flip.others;
        if (c->robust)
            scale[r->top - first] = own;
        for (size_t i = 0; !c->robust && i < c->flip.n_scaled; i++)
            scale[c->flip.scaled[i].acc - first] = c->flip.scaled[i].factor;
        const struct dc_accelerator *top =
            c->kind == DC_PERTURB_PRICE ? top_of(w, scale, NULL) : top_of(w, NULL, scale);
        if (top != want || (!c->robust && top == r->top)) {
            print_error("%s: %s check: claims %s, re-run gives %s\n", name,
                        dc_perturbation_name(c->kind), id(want), id(top));
            bad++;
        }
    }
    free(scale);
    return bad;
}

/* Everything an explanation says, as text, to compare two of them. */
static void fingerprint(const struct dc_explanation *e, char *buf, size_t len)
{
    size_t used = 0;
    char line[1024];
    buf[0] = '\0';
    for (size_t i = 0; i < e->n_targets; i++) {
        const struct dc_target *t = &e->targets[i];
        for (size_t k = 0; k < t->n_changes; k++) {
            dc_change_text(t, &t->changes[k], line, sizeof(line));
            used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s|%s\n", t->acc->id,
                                     line);
        }
    }
    for (size_t k = 0; k < e->robustness.n_checks; k++) {
        dc_flip_text(&e->robustness, &e->robustness.checks[k], line, sizeof(line));
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s\n", line);
    }
    used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%u %u\n",
                             e->changes_usage.evaluations, e->robustness.usage.evaluations);
    assert_true(used < len);
}

static struct dc_explanation *explain(const cJSON *w, const struct dc_result *res)
{
    /* No wall-clock cap: under sanitizers a run is many times slower, and the
     * evaluation budget alone makes the result deterministic. */
    struct dc_explain_opts o = {DC_EXPLAIN_CHANGES | DC_EXPLAIN_ROBUSTNESS, 0, 0};
    struct dc_explanation *e = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    if (dc_explain(rules, w, NULL, res, &o, &e, &err) != DC_OK)
        fail_msg("dc_explain: %s", err.msg);
    return e;
}

struct totals {
    int changes;
    int thresholds;
    int failures;
};

static void check_case(const cJSON *c, struct totals *tot)
{
    const char *name = cJSON_GetObjectItem(c, "name")->valuestring;
    const cJSON *w = cJSON_GetObjectItem(c, "workload");
    struct dc_result *res = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    if (dc_recommend(rules, w, NULL, &res, &err) != DC_OK)
        fail_msg("%s: %s", name, err.msg);
    struct dc_explanation *e = explain(w, res);
    struct dc_explanation *again = explain(w, res);
    assert_true(e->changes_usage.evaluations + e->robustness.usage.evaluations <=
                DC_EXPLAIN_MAX_EVALUATIONS);
    assert_true(e->changes_usage.stop != DC_EXPLAIN_STOP_TIME);
    for (size_t i = 0; i < e->n_targets; i++) {
        const struct dc_target *t = &e->targets[i];
        for (size_t k = 0; k < t->n_changes; k++) {
            tot->changes++;
            tot->failures += check_change(name, w, t, &t->changes[k], &tot->thresholds);
        }
    }
    tot->failures += check_robustness(name, w, &e->robustness);
    static char a[1 << 16], b[1 << 16];
    fingerprint(e, a, sizeof(a));
    fingerprint(again, b, sizeof(b));
    if (strcmp(a, b) != 0) {
        print_error("%s: two explanations differ:\n%s---\n%s", name, a, b);
        tot->failures++;
    }
    dc_explanation_free(e);
    dc_explanation_free(again);
    dc_result_free(res);
}

static void test_every_change_verified(void **state)
{
    (void)state;
    char *text = test_read_file(AA_FIXTURES_DIR "/cases.json", 1u << 20);
    assert_non_null(text);
    cJSON *cases = cJSON_Parse(text);
    assert_true(cJSON_IsArray(cases));
    struct totals tot = {0, 0, 0};
    const cJSON *c = NULL;
    cJSON_ArrayForEach(c, cases)
    {
        check_case(c, &tot);
    }
    print_message("explanations: %d cases, %d changes (%d thresholds), %d failures\n",
                  cJSON_GetArraySize(cases), tot.changes, tot.thresholds, tot.failures);
    /* A search that finds nothing anywhere would pass every check above. */
    assert_true(tot.changes >= cJSON_GetArraySize(cases));
    assert_true(tot.thresholds > 0);
    cJSON_Delete(cases);
    free(text);
    assert_int_equal(tot.failures, 0);
}

static int setup(void **state)
{
    (void)state;
    rules = test_default_rules();
    return rules != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    dc_ruleset_release(rules);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_every_change_verified)};
    return cmocka_run_group_tests_name("explain_table", tests, setup, teardown);
}
