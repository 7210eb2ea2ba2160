/* tests/unit/core/test_properties.c -- properties of the sizing model over sweeps
 * of workloads against the default rule set: what must hold for every workload,
 * not just the worked examples of test_sizing.c.
 *   - doubling the parameters never lowers a candidate's chips;
 *   - more tokens never lower the hours at a given chip count, never lower the
 *     chips or the accelerator-hours the model recommends, and never lower the
 *     hours while the recommended shape stays the same;
 *   - a higher request rate never lowers the chips;
 *   - a decode step is never faster than reading the weights it needs once at
 *     the peak HBM bandwidth;
 *   - every chip count is a purchasable shape, replicas included;
 *   - every meets_* and within_budget flag agrees with the numbers beside it;
 *   - the same workload gives the same bytes;
 *   - with a budget, every recommendation has a known cost within it, and an
 *     empty answer says why; a larger budget never drops a candidate;
 *   - under objective cost no unpriced part ranks above a priced one;
 *   - another price basis changes only what is priced: costs, prices, their
 *     reasons and (unless the objective is time) scores and order. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/convert.h"
#include "dc/embedded.h"
#include "core_run.h"
#include "dc/engine.h"

static dc_ruleset *rules;
static size_t checked;

static int setup(void **state)
{
    (void)state;
    return dc_ruleset_load_embedded(aa_embedded_files, &rules, NULL) == DC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    dc_ruleset_release(rules);
    print_message("properties: %zu candidate checks\n", checked);
    return 0;
}

static struct run run(const char *json)
{
    return core_run(rules, json);
}

static void done(struct run *r)
{
    core_done(r);
}

/* The candidate for `id` when it was not excluded, else NULL. */
static const struct dc_candidate *kept(const struct run *r, const char *id)
{
    for (size_t i = 0; i < r->res->n_recommendations; i++) {
        if (strcmp(r->res->recommendations[i].acc->id, id) == 0)
            return &r->res->recommendations[i];
    }
    return NULL;
}

/* A workload of the sweep: task, architecture, precision, method and sizes. */
struct wl {
    const char *task;
    const char *arch;
    const char *precision;
    const char *method;
    double params;
    double tokens; /* 0: the default */
    double rps;
    double latency;  /* 0: none */
    double deadline; /* 0: none */
    const char *objective;
};

static void render(const struct wl *w, char *buf, size_t len)
{
    char extra[256] = "";
    if (strcmp(w->arch, "moe") == 0)
        snprintf(extra, sizeof(extra), ",\"active_parameters\":%g", w->params / 4);
    else if (strcmp(w->arch, "cnn") == 0)
        snprintf(extra, sizeof(extra), ",\"flops_per_sample\":%g", w->params * 300);
    char train[200] = "", inf[200] = "";
    if (strcmp(w->task, "inference") != 0) {
        int n = snprintf(train, sizeof(train), ",\"training\":{\"method\":\"%s\"", w->method);
        if (w->tokens > 0)
            n += snprintf(train + n, sizeof(train) - (size_t)n, ",\"tokens\":%g", w->tokens);
        if (w->deadline > 0)
            n += snprintf(train + n, sizeof(train) - (size_t)n, ",\"deadline_hours\":%g",
                          w->deadline);
        snprintf(train + n, sizeof(train) - (size_t)n, "}");
    } else {
        int n = snprintf(inf, sizeof(inf), ",\"inference\":{\"requests_per_second\":%g", w->rps);
        if (w->latency > 0)
            n += snprintf(inf + n, sizeof(inf) - (size_t)n, ",\"latency_ms_p99\":%g", w->latency);
        snprintf(inf + n, sizeof(inf) - (size_t)n, "}");
    }
    snprintf(buf, len,
             "{\"task\":\"%s\",\"precision\":\"%s\",\"objective\":\"%s\",\"model\":{"
             "\"architecture\":\"%s\",\"parameters\":%g%s}%s%s}",
             w->task, w->precision, w->objective, w->arch, w->params, extra, train, inf);
}

/* Calls `fn` for every workload of the sweep. */
static void sweep(void (*fn)(const struct wl *))
{
    static const char *const tasks[] = {"training", "fine-tuning", "inference"};
    static const char *const archs[] = {"transformer", "moe", "cnn"};
    static const char *const precs[] = {"bf16", "fp8", "fp32"};
    static const char *const methods[] = {"full", "lora", "qlora"};
    static const char *const objectives[] = {"balanced", "time", "cost"};
    static const double params[] = {1e7, 1e9, 7e9, 7e10, 4e11};
    for (size_t t = 0; t < 3; t++)
        for (size_t a = 0; a < 3; a++)
            for (size_t p = 0; p < 3; p++)
                for (size_t n = 0; n < sizeof(params) / sizeof(params[0]); n++) {
                    struct wl w = {
                        tasks[t], archs[a], precs[p], methods[(a + p + n) % 3], params[n], 0,
                        1,        0,        0,        objectives[(t + n) % 3]};
                    if (t == 2) {
                        w.method = "full";
                        w.rps = n % 2 == 0 ? 1 : 40;
                        w.latency = p == 1 ? 60 : 0;
                    } else if ((a + n) % 3 == 0) {
                        w.deadline = 200;
                    }
                    fn(&w);
                }
}

static void for_each_kept(const struct run *a, const struct run *b,
                          void (*fn)(const struct dc_candidate *, const struct dc_candidate *,
                                     const char *),
                          const char *what)
{
    for (size_t i = 0; i < a->res->n_recommendations; i++) {
        const struct dc_candidate *x = &a->res->recommendations[i];
        const struct dc_candidate *y = kept(b, x->acc->id);
        if (y != NULL)
            fn(x, y, what);
    }
}

static void chips_not_lower(const struct dc_candidate *x, const struct dc_candidate *y,
                            const char *what)
{
    checked++;
    if (y->sizing.chips < x->sizing.chips ||
        y->sizing.chips_for_memory < x->sizing.chips_for_memory)
        fail_msg("%s: %s went from %u chips (%u for memory) to %u (%u)", what, x->acc->id,
                 x->sizing.chips, x->sizing.chips_for_memory, y->sizing.chips,
                 y->sizing.chips_for_memory);
}

static void doubling_params(const struct wl *w)
{
    char a[512], b[512];
    struct wl w2 = *w;
    w2.params *= 2;
    render(w, a, sizeof(a));
    render(&w2, b, sizeof(b));
    struct run ra = run(a), rb = run(b);
    for_each_kept(&ra, &rb, chips_not_lower, a);
    done(&ra);
    done(&rb);
}

static void test_doubling_parameters_never_lowers_chips(void **state)
{
    (void)state;
    sweep(doubling_params);
}

static void tokens_not_faster(const struct dc_candidate *x, const struct dc_candidate *y,
                              const char *what)
{
    checked++;
    const struct dc_sizing *a = &x->sizing, *b = &y->sizing;
    if (!isfinite(a->hours) || !isfinite(b->hours))
        return;
    if (b->chips < a->chips)
        fail_msg("%s: more tokens, fewer %s chips (%u -> %u)", what, x->acc->id, a->chips,
                 b->chips);
    if (b->chips * b->hours < a->chips * a->hours * (1 - 1e-9))
        fail_msg("%s: more tokens, fewer %s accelerator-hours", what, x->acc->id);
    if (b->chips == a->chips && b->hours < a->hours * (1 - 1e-9))
        fail_msg("%s: more tokens on the same %u %s chips, fewer hours (%g -> %g)", what, a->chips,
                 x->acc->id, a->hours, b->hours);
}

static void more_tokens(const struct wl *w)
{
    if (strcmp(w->task, "inference") == 0)
        return;
    static const double tokens[] = {1e8, 1e9, 3e10, 1e12, 1e13};
    for (size_t i = 0; i + 1 < sizeof(tokens) / sizeof(tokens[0]); i++) {
        struct wl lo = *w, hi = *w;
        lo.tokens = tokens[i];
        hi.tokens = tokens[i + 1];
        char a[512], b[512];
        render(&lo, a, sizeof(a));
        render(&hi, b, sizeof(b));
        struct run ra = run(a), rb = run(b);
        for_each_kept(&ra, &rb, tokens_not_faster, a);
        /* At one chip count (a published run's, dc_size_at), hours only grow. */
        for (size_t k = 0; k < ra.res->n_recommendations; k++) {
            const struct dc_candidate *c = &ra.res->recommendations[k];
            struct dc_sizing za, zb;
            unsigned chips = c->sizing.chips;
            assert_int_equal(dc_size_at(rules, ra.json, c->acc->id, chips, &za, NULL), DC_OK);
            assert_int_equal(dc_size_at(rules, rb.json, c->acc->id, chips, &zb, NULL), DC_OK);
            if (isfinite(za.hours) && !(zb.hours >= za.hours))
                fail_msg("%s on %u %s: hours %g -> %g", a, chips, c->acc->id, za.hours, zb.hours);
        }
        done(&ra);
        done(&rb);
    }
}

static void test_more_tokens_never_lowers_hours(void **state)
{
    (void)state;
    sweep(more_tokens);
}

static void higher_rate(const struct wl *w)
{
    if (strcmp(w->task, "inference") != 0)
        return;
    struct wl hi = *w;
    hi.rps = w->rps * 10;
    char a[512], b[512];
    render(w, a, sizeof(a));
    render(&hi, b, sizeof(b));
    struct run ra = run(a), rb = run(b);
    for_each_kept(&ra, &rb, chips_not_lower, a);
    done(&ra);
    done(&rb);
}

static void test_higher_rate_never_lowers_chips(void **state)
{
    (void)state;
    sweep(higher_rate);
}

/* Whether `chips` is a shape of `a`: a machine size or a slice, or several of
 * the largest. */
static bool purchasable(const struct dc_accelerator *a, unsigned chips)
{
    unsigned unit =
        a->n_slices > 0 ? a->slices[a->n_slices - 1].chips : a->node_sizes[a->n_node_sizes - 1];
    for (size_t i = 0; i < a->n_slices; i++) {
        if (a->slices[i].chips == chips)
            return true;
    }
    for (size_t i = 0; i < a->n_node_sizes; i++) {
        if (a->node_sizes[i] == chips)
            return true;
    }
    return chips >= unit && chips % unit == 0;
}

/* A replica: a tensor-parallel group of 1, 2, 4 ... chips within one machine,
 * or whole machines; one slice for TPUs. */
static bool replica_size(const struct dc_accelerator *a, unsigned chips)
{
    if (a->n_slices > 0) {
        for (size_t i = 0; i < a->n_slices; i++) {
            if (a->slices[i].chips == chips)
                return true;
        }
        return false;
    }
    unsigned unit = a->node_sizes[a->n_node_sizes - 1];
    if (chips >= unit)
        return chips % unit == 0;
    return (chips & (chips - 1)) == 0;
}

static void check_candidate(const struct run *r, const struct dc_candidate *c, const char *what)
{
    const struct dc_workload *w = &r->res->workload;
    const struct dc_sizing *z = &c->sizing;
    const struct dc_accelerator *a = c->acc;
    checked++;
    if (!z->fits)
        fail_msg("%s: %s recommended but does not fit", what, a->id);
    if (dc_shape_at_least(a, 1, UINT32_MAX, &(struct dc_shape){0}) &&
        z->shape.units * z->shape.per_unit != z->chips)
        fail_msg("%s: %s shape of %u x %u is not its %u chips", what, a->id, z->shape.units,
                 z->shape.per_unit, z->chips);
    if (!purchasable(a, z->chips) &&
        !(a->n_slices > 0 && z->shape.units * z->shape.per_unit == z->chips))
        fail_msg("%s: %s: %u chips cannot be bought", what, a->id, z->chips);
    if (w->task == DC_TASK_INFERENCE && !replica_size(a, z->chips_per_replica))
        fail_msg("%s: %s: %u chips per replica is not a machine's group or a slice", what, a->id,
                 z->chips_per_replica);
    if (z->replicas * z->chips_per_replica > z->chips)
        fail_msg("%s: %s: %u replicas of %u exceed %u chips", what, a->id, z->replicas,
                 z->chips_per_replica, z->chips);
    unsigned cap = a->max_chips;
    if (isfinite(w->max_accelerators) && w->max_accelerators < cap)
        cap = (unsigned)w->max_accelerators;
    if (z->chips > cap)
        fail_msg("%s: %s: %u chips over the cap of %u", what, a->id, z->chips, cap);
    if (isfinite(w->deadline_hours) && isfinite(z->hours) &&
        z->meets_deadline != (z->hours <= w->deadline_hours * (1 + 1e-9)))
        fail_msg("%s: %s meets_deadline disagrees with %g h", what, a->id, z->hours);
    if (isfinite(w->latency_ms_p99) && isfinite(z->decode_ms) &&
        z->meets_latency != (z->decode_ms <= w->latency_ms_p99 * (1 + 1e-9)))
        fail_msg("%s: %s meets_latency disagrees with %g ms", what, a->id, z->decode_ms);
    if (w->task == DC_TASK_INFERENCE && isfinite(z->throughput_rps) &&
        z->meets_rate != (z->throughput_rps >= w->requests_per_second * (1 - 1e-9)))
        fail_msg("%s: %s meets_rate disagrees with %g req/s", what, a->id, z->throughput_rps);
    if (isfinite(w->budget_usd) && isfinite(z->cost_usd) &&
        z->within_budget != (z->cost_usd <= w->budget_usd))
        fail_msg("%s: %s within_budget disagrees with $%g", what, a->id, z->cost_usd);
    if (w->task == DC_TASK_INFERENCE && isfinite(z->decode_ms) &&
        isfinite(a->memory_bandwidth_gbps)) {
        /* One step reads at least one token's weights once, at the peak rate. */
        double bytes =
            w->active_parameters * dc_ruleset_sizing(rules)->infer_bytes_per_param[w->precision];
        double floor_ms = bytes / (z->chips_per_replica * a->memory_bandwidth_gbps * 1e9) * 1000;
        if (z->decode_ms < floor_ms * (1 - 1e-9))
            fail_msg("%s: %s decodes in %g ms, under one read of the weights (%g ms)", what, a->id,
                     z->decode_ms, floor_ms);
    }
}

static void invariants(const struct wl *w)
{
    char a[512];
    render(w, a, sizeof(a));
    struct run r = run(a);
    for (size_t i = 0; i < r.res->n_recommendations; i++)
        check_candidate(&r, &r.res->recommendations[i], a);
    /* Determinism: the same workload, the same bytes. */
    struct run again = run(a);
    size_t la = 0, lb = 0;
    char *ba = api_result_render(r.res, &la), *bb = api_result_render(again.res, &lb);
    assert_non_null(ba);
    assert_non_null(bb);
    if (la != lb || memcmp(ba, bb, la) != 0)
        fail_msg("%s: two runs rendered different bodies", a);
    free(ba);
    free(bb);
    done(&again);
    done(&r);
}

static void test_invariants(void **state)
{
    (void)state;
    sweep(invariants);
    /* And with budgets and caps that bind. */
    static const char *const extra[] = {
        "{\"task\":\"training\",\"model\":{\"parameters\":7e10},\"constraints\":{\"budget_usd\":"
        "50000}}",
        "{\"task\":\"training\",\"model\":{\"parameters\":7e10},\"constraints\":{\"max_"
        "accelerators\":64}}",
        "{\"task\":\"inference\",\"model\":{\"parameters\":7e10},\"inference\":{\"requests_per_"
        "second\":500},"
        "\"constraints\":{\"max_accelerators\":16}}",
        "{\"task\":\"inference\",\"model\":{\"parameters\":8e9,\"kv_heads\":8,\"attention_heads\":"
        "32},"
        "\"inference\":{\"requests_per_second\":100,\"latency_ms_p99\":25,\"input_tokens\":32000,"
        "\"output_tokens\":1000},\"constraints\":{\"budget_usd\":20000}}",
    };
    for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
        struct run r = run(extra[i]);
        for (size_t k = 0; k < r.res->n_recommendations; k++)
            check_candidate(&r, &r.res->recommendations[k], extra[i]);
        done(&r);
    }
}

/* ---- prices and budgets ------------------------------------------------------ */

static bool has_warning(const struct dc_result *r, const char *code)
{
    for (size_t i = 0; i < r->n_warnings; i++) {
        if (strcmp(r->warnings[i].code, code) == 0)
            return true;
    }
    return false;
}

/* `json` (an object's text, "{...}") with constraints `extra` added. */
static void with_constraints(const char *json, const char *extra, char *buf, size_t len)
{
    snprintf(buf, len, "%.*s,\"constraints\":{%s}}", (int)strlen(json) - 1, json, extra);
}

static void budgets(const struct wl *w)
{
    char base[512], with[700];
    render(w, base, sizeof(base));
    struct run free_run = run(base);
    double cheapest = INFINITY;
    for (size_t i = 0; i < free_run.res->n_recommendations; i++)
        cheapest = fmin(cheapest, free_run.res->recommendations[i].sizing.cost_usd);
    done(&free_run);
    if (!isfinite(cheapest) || cheapest <= 0)
        cheapest = 1000;
    static const double levels[] = {0.5, 1.0001, 3, 100};
    struct run prev = {0};
    for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
        char extra[64];
        double budget = cheapest * levels[l];
        snprintf(extra, sizeof(extra), "\"budget_usd\":%.17g", budget);
        with_constraints(base, extra, with, sizeof(with));
        struct run r = run(with);
        for (size_t i = 0; i < r.res->n_recommendations; i++) {
            const struct dc_candidate *c = &r.res->recommendations[i];
            checked++;
            if (!(c->sizing.cost_usd <= budget))
                fail_msg("%s: %s recommended at a cost of %g", with, c->acc->id,
                         c->sizing.cost_usd);
        }
        if (r.res->n_recommendations == 0 && !has_warning(r.res, "nothing_within_budget") &&
            !has_warning(r.res, "nothing_fits_memory") && !has_warning(r.res, "no_candidates"))
            fail_msg("%s: nothing recommended and no warning says why", with);
        /* A larger budget keeps every candidate the smaller one kept. */
        for (size_t i = 0; prev.res != NULL && i < prev.res->n_recommendations; i++) {
            if (kept(&r, prev.res->recommendations[i].acc->id) == NULL)
                fail_msg("%s: %s dropped by a larger budget", with,
                         prev.res->recommendations[i].acc->id);
        }
        if (prev.res != NULL)
            done(&prev);
        prev = r;
    }
    done(&prev);
}

static void test_budgets(void **state)
{
    (void)state;
    sweep(budgets);
}

/* Under objective cost every priced candidate ranks above every unpriced one. */
static void priced_first(const struct wl *w)
{
    struct wl cost = *w;
    cost.objective = "cost";
    char json[512];
    render(&cost, json, sizeof(json));
    struct run r = run(json);
    bool unpriced_seen = false;
    for (size_t i = 0; i < r.res->n_recommendations; i++) {
        const struct dc_candidate *c = &r.res->recommendations[i];
        checked++;
        if (!isfinite(c->sizing.cost_usd))
            unpriced_seen = true;
        else if (unpriced_seen)
            fail_msg("%s: priced %s ranks below an unpriced part", json, c->acc->id);
    }
    done(&r);
}

static void test_objective_cost_never_prefers_unknown(void **state)
{
    (void)state;
    sweep(priced_first);
}

static const char *sort_key;

static int by_key(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    return strcmp(cJSON_GetObjectItem(x, sort_key)->valuestring,
                  cJSON_GetObjectItem(y, sort_key)->valuestring);
}

/* An array's items in the order of their string member `key`: detached, sorted
 * and added back (cJSON keeps no index to sort in place). */
static void sort_by(cJSON *array, const char *key)
{
    int n = cJSON_GetArraySize(array);
    cJSON **items = calloc((size_t)n + 1, sizeof(*items));
    assert_non_null(items);
    for (int i = 0; i < n; i++)
        items[i] = cJSON_DetachItemFromArray(array, 0);
    sort_key = key;
    qsort(items, (size_t)n, sizeof(*items), by_key);
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(array, items[i]);
    free(items);
}

/* Remove from a rendered result what a price basis may change: costs, prices
 * and their reasons; with `scores`, also scores, impacts and the order. */
static void strip_priced(cJSON *res, bool scores)
{
    static const char *const sizing_keys[] = {"cost_usd", "cost_per_hour_usd", "cost_basis",
                                              "energy_usd", "within_budget"};
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(res, "workload"), "constraints");
    cJSON_DeleteItemFromObject(res, "warnings");
    cJSON *c = NULL;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(res, "recommendations"))
    {
        cJSON *z = cJSON_GetObjectItem(c, "sizing");
        for (size_t k = 0; k < sizeof(sizing_keys) / sizeof(sizing_keys[0]); k++)
            cJSON_DeleteItemFromObject(z, sizing_keys[k]);
        cJSON_DeleteItemFromObject(c, "price");
        cJSON *reasons = cJSON_GetObjectItem(c, "reasons");
        for (int i = cJSON_GetArraySize(reasons) - 1; i >= 0; i--) {
            cJSON *r = cJSON_GetArrayItem(reasons, i);
            if (strcmp(cJSON_GetObjectItem(r, "rule_id")->valuestring, "sizing.cost") == 0)
                cJSON_DeleteItemFromArray(reasons, i);
            else if (scores)
                cJSON_DeleteItemFromObject(r, "impact");
        }
        if (scores) {
            cJSON_DeleteItemFromObject(c, "score");
            cJSON_DeleteItemFromObject(c, "objective_score");
            cJSON_DeleteItemFromObject(c, "capped_by");
            sort_by(reasons, "rule_id");
        }
    }
    if (scores) {
        sort_by(cJSON_GetObjectItem(res, "recommendations"), "accelerator");
        cJSON *f = NULL;
        cJSON_ArrayForEach(f, cJSON_GetObjectItem(res, "families"))
        {
            cJSON_DeleteItemFromObject(f, "score");
            cJSON_DeleteItemFromObject(f, "best");
        }
        sort_by(cJSON_GetObjectItem(res, "families"), "family");
    }
}

/* The rendered result of `json` with constraints `extra`, stripped. */
static cJSON *priced_view(const char *json, const char *extra, bool scores)
{
    char with[700];
    with_constraints(json, extra, with, sizeof(with));
    struct run r = run(with);
    size_t len = 0;
    char *text = api_result_render(r.res, &len);
    cJSON *view = cJSON_ParseWithLength(text, len);
    assert_non_null(view);
    free(text);
    done(&r);
    cJSON_DeleteItemFromObject(view, "excluded");
    strip_priced(view, scores);
    return view;
}

static void bases(const struct wl *w)
{
    char json[512];
    render(w, json, sizeof(json));
    /* Objective time: the price basis changes nothing but prices. Otherwise
     * scores, impacts and order may move, but not the sizing, the rules that
     * hold or the candidates left. */
    bool time = strcmp(w->objective, "time") == 0;
    cJSON *a = priced_view(json, "\"pricing\":\"on_demand\"", !time);
    static const char *const others[] = {"\"pricing\":\"spot\"", "\"pricing\":\"committed_1y\"",
                                         "\"pricing\":\"committed_3y\""};
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        cJSON *b = priced_view(json, others[i], !time);
        checked++;
        if (!cJSON_Compare(a, b, true)) {
            char *x = cJSON_PrintUnformatted(a), *y = cJSON_PrintUnformatted(b);
            fail_msg("%s: %s changed more than prices:\n%s\n%s", json, others[i], x, y);
        }
        cJSON_Delete(b);
    }
    cJSON_Delete(a);
}

static void test_price_basis_changes_only_prices(void **state)
{
    (void)state;
    sweep(bases);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doubling_parameters_never_lowers_chips),
        cmocka_unit_test(test_more_tokens_never_lowers_hours),
        cmocka_unit_test(test_higher_rate_never_lowers_chips),
        cmocka_unit_test(test_invariants),
        cmocka_unit_test(test_budgets),
        cmocka_unit_test(test_objective_cost_never_prefers_unknown),
        cmocka_unit_test(test_price_basis_changes_only_prices),
    };
    return cmocka_run_group_tests_name("properties", tests, setup, teardown);
}
