/* tests/unit/core/test_properties.c -- properties of the sizing model and of
 * the selection over sweeps of workloads against the default rule set: what
 * must hold for every workload, not just the worked examples of
 * test_sizing.c and test_engine.c.
 *   - doubling the parameters never lowers the chips a part needs for memory,
 *     nor (objective cost, costs above negligible_cost_usd) its chips;
 *   - more tokens never lower the hours at a given chip count, and (same
 *     conditions) never lower the chips or the accelerator-hours recommended,
 *     nor the hours while the recommended shape stays the same;
 *   - a higher request rate never lowers the chips;
 *   - a decode step is never faster than reading the weights it needs once at
 *     the peak HBM bandwidth;
 *   - every chip count is a purchasable shape, replicas included;
 *   - every meets_* and within_budget flag agrees with the numbers beside it;
 *   - the same workload gives the same bytes;
 *   - with a budget, every recommendation has a known cost within it, and an
 *     empty answer says why; a larger budget never drops a candidate;
 *   - the selection (docs/scoring.md, sections 7-8), under every objective:
 *     the pick is never dominated by a feasible priced configuration of its
 *     gate group (another candidate's, or one on the frontier); under cost it
 *     is the cheapest of its group, under time the fastest; an unpriced part
 *     is never first while a priced one meets every target; candidates of equal
 *     score are in the objective's order, never the ids' (one stays below a
 *     part with a configuration that beats its pick); a larger budget,
 *     deadline or chip limit never makes the pick worse on its objective;
 *   - another price basis never changes which rules hold or the chips a part
 *     needs for memory;
 *   - the answer's status (docs/scoring.md, section 10): ok exactly when the
 *     first recommendation meets every hard target; an infeasible request has
 *     no feasible-looking pick (none scores 100 or meets every target, ranked
 *     by the share met) and says so first; a withheld estimate has no pick
 *     (every score 0) and names the field to give; what would_meet names does
 *     meet the targets when asked for. */
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
#include "sizing.h"
#include "workload_internal.h"

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
    /* A truncated body would be malformed JSON, not the workload meant. */
    int n = snprintf(buf, len,
                     "{\"task\":\"%s\",\"precision\":\"%s\",\"objective\":\"%s\",\"model\":{"
                     "\"architecture\":\"%s\",\"parameters\":%g%s}%s%s}",
                     w->task, w->precision, w->objective, w->arch, w->params, extra, train, inf);
    assert_true(n > 0 && (size_t)n < len);
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

/* The recommended count follows the objective: monotone where cost decides
 * and the costs count (under negligible_cost_usd every cost is a tie and
 * speed decides). Under time a part buys whatever is fastest among the layouts
 * tried, and under balanced the band's reference is another part. A fleet
 * capped short of its rate (basis limit) holds as many whole replicas as the
 * cap allows, which a larger replica can round to fewer chips. */
static bool count_comparable(const struct dc_workload *w, const struct dc_candidate *x,
                             const struct dc_candidate *y)
{
    double floor = dc_ruleset_sizing(rules)->negligible_cost_usd;
    bool material = (!isfinite(x->sizing.cost_usd) || x->sizing.cost_usd >= floor) &&
                    (!isfinite(y->sizing.cost_usd) || y->sizing.cost_usd >= floor);
    return material && w->objective == DC_OBJECTIVE_COST &&
           x->selection.priced == y->selection.priced && x->sizing.basis != DC_BASIS_LIMIT &&
           y->sizing.basis != DC_BASIS_LIMIT;
}

static const struct dc_workload *compared_workload;

static void chips_not_lower(const struct dc_candidate *x, const struct dc_candidate *y,
                            const char *what)
{
    checked++;
    if (y->sizing.chips_for_memory < x->sizing.chips_for_memory ||
        (count_comparable(compared_workload, x, y) && y->sizing.chips < x->sizing.chips))
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
    compared_workload = &ra.res->workload;
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
    if (!isfinite(a->hours) || !isfinite(b->hours) || !count_comparable(compared_workload, x, y))
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
        compared_workload = &ra.res->workload;
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
    compared_workload = &ra.res->workload;
    for_each_kept(&ra, &rb, chips_not_lower, a);
    done(&ra);
    done(&rb);
}

static void test_higher_rate_never_lowers_chips(void **state)
{
    (void)state;
    sweep(higher_rate);
}

/* Whether shape `s` can be bought: whole machines of one of the catalog's
 * sizes, or slices of one documented type. */
static bool purchasable(const struct dc_accelerator *a, const struct dc_shape *s)
{
    if (s->units == 0)
        return false;
    for (size_t i = 0; i < a->n_slices; i++)
        if (a->slices[i].chips == s->per_unit && s->slice != NULL &&
            strcmp(a->slices[i].name, s->slice) == 0)
            return true;
    for (size_t i = 0; i < a->n_node_sizes; i++)
        if (a->node_sizes[i] == s->per_unit && s->slice == NULL)
            return true;
    return false;
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
    if (!purchasable(a, &z->shape))
        fail_msg("%s: %s: %u x %u cannot be bought", what, a->id, z->shape.units,
                 z->shape.per_unit);
    if (w->task == DC_TASK_INFERENCE && !replica_size(a, z->chips_per_replica))
        fail_msg("%s: %s: %u chips per replica is not a machine's group or a slice", what, a->id,
                 z->chips_per_replica);
    if (z->replicas * z->chips_per_replica > z->chips)
        fail_msg("%s: %s: %u replicas of %u exceed %u chips", what, a->id, z->replicas,
                 z->chips_per_replica, z->chips);
    /* One job within the cluster; serving replicas are independent machines,
     * within the fleet. */
    unsigned cap = w->task == DC_TASK_INFERENCE
                       ? (unsigned)dc_ruleset_sizing(rules)->serving_max_chips.value
                       : a->max_chips;
    if (isfinite(w->max_accelerators) && w->max_accelerators < cap)
        cap = (unsigned)w->max_accelerators;
    if (z->chips > cap || (w->task == DC_TASK_INFERENCE && z->chips_per_replica > a->max_chips))
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
        if (r.res->n_recommendations == 0 && !core_has_warning(r.res, "nothing_within_budget") &&
            !core_has_warning(r.res, "nothing_fits_memory") &&
            !core_has_warning(r.res, "no_candidates"))
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

/* ---- the selection (docs/scoring.md, sections 7 and 8) ---------------------- */

static double spend_of(const struct dc_workload *w, const struct dc_sizing *z)
{
    (void)w;
    return fmax(z->cost_usd, dc_ruleset_sizing(rules)->negligible_cost_usd);
}

static double time_of(const struct dc_workload *w, const struct dc_sizing *z)
{
    if (w->task == DC_TASK_INFERENCE)
        return z->request_ms;
    /* The objective's time: the run and its start-up (core/src/sizing/overheads.c). */
    double start = isfinite(z->overheads.startup_hours) ? z->overheads.startup_hours : 0;
    return fmax(z->hours + start, dc_ruleset_sizing(rules)->min_run_hours.value);
}

/* x beats y on both cost and time (both priced), beyond float noise. */
static bool beats(const struct dc_workload *w, const struct dc_sizing *x, const struct dc_sizing *y)
{
    const double eps = 1e-9;
    double cx = spend_of(w, x), cy = spend_of(w, y), tx = time_of(w, x), ty = time_of(w, y);
    if (!isfinite(cx) || !isfinite(cy) || !isfinite(tx) || !isfinite(ty))
        return false;
    return cx <= cy * (1 + eps) && tx <= ty * (1 + eps) &&
           (cx < cy * (1 - eps) || tx < ty * (1 - eps));
}

/* Some feasible priced configuration of x's part, its pick or another, beats
 * y's pick: the engine then keeps y below x (core/src/select/select.c, dominates()),
 * whatever their objective values. */
static bool part_beats(const struct dc_result *r, const struct dc_candidate *x,
                       const struct dc_candidate *y)
{
    const struct dc_workload *w = &r->workload;
    if (!x->selection.meets_targets)
        return false;
    struct dc__derived d;
    dc__derive(rules, w, &d);
    struct dc__part p;
    dc__part_init(&p, rules, w, &d, x->acc, DC__UNPERTURBED);
    struct dc__points pts = {0};
    struct dc_sizing pick;
    enum dc_status rc = DC_OK;
    (void)dc__configure(&p, x->index_, NULL, &pts, &pick, &rc);
    assert_int_equal(rc, DC_OK);
    bool found = false;
    for (size_t i = 0; i < pts.n && !found; i++)
        found = beats(w, &pts.v[i].z, &y->sizing);
    free(pts.v);
    return found;
}

static bool same_group(const struct dc_workload *w, const struct dc_candidate *a,
                       const struct dc_candidate *b)
{
    const struct dc_selection *x = &a->selection, *y = &b->selection;
    return x->meets_targets == y->meets_targets && x->priced == y->priced && x->gates == y->gates &&
           (w->objective != DC_OBJECTIVE_BALANCED || x->in_band == y->in_band);
}

static const struct dc_candidate *recommended(const struct dc_result *r,
                                              const struct dc_accelerator *a)
{
    for (size_t i = 0; i < r->n_recommendations; i++)
        if (r->recommendations[i].acc == a)
            return &r->recommendations[i];
    return NULL;
}

/* Never dominated; the cheapest (cost) or fastest (time) of its group within
 * the soft band; an unpriced pick only when nothing priced meets every target;
 * equal scores in the objective's order. */
static void check_selection(const char *json, const struct dc_result *r)
{
    const struct dc_workload *w = &r->workload;
    if (r->n_recommendations == 0)
        return;
    const struct dc_candidate *top = &r->recommendations[0];
    double band = 1 + dc_ruleset_sizing(rules)->soft_band + 1e-9;
    for (size_t i = 1; i < r->n_recommendations; i++) {
        const struct dc_candidate *c = &r->recommendations[i];
        checked++;
        if (!top->selection.priced && c->selection.priced && c->selection.meets_targets &&
            w->deployment == DC_DEPLOY_CLOUD)
            fail_msg("%s: unpriced %s first while priced %s meets every target", json, top->acc->id,
                     c->acc->id);
        if (!same_group(w, top, c) || !top->selection.priced || !top->selection.meets_targets)
            continue;
        if (beats(w, &c->sizing, &top->sizing))
            fail_msg("%s: %s beats the pick %s on cost and time", json, c->acc->id, top->acc->id);
        if (w->objective == DC_OBJECTIVE_COST &&
            spend_of(w, &top->sizing) > spend_of(w, &c->sizing) * band)
            fail_msg("%s: %s is cheaper than the pick %s beyond the band", json, c->acc->id,
                     top->acc->id);
        if (w->objective == DC_OBJECTIVE_TIME &&
            time_of(w, &top->sizing) > time_of(w, &c->sizing) * band)
            fail_msg("%s: %s is faster than the pick %s beyond the band", json, c->acc->id,
                     top->acc->id);
        /* Equal scores: the earlier is no worse on the objective (soft points
         * included), unless the later one is dominated by it: by its pick, or
         * by another of its part's configurations. */
        const struct dc_candidate *p = &r->recommendations[i - 1];
        double kp = p->selection.objective_value * p->selection.adjustment;
        double kc = c->selection.objective_value * c->selection.adjustment;
        if (p->score == c->score && same_group(w, p, c) && isfinite(kp) && isfinite(kc) &&
            kp > kc * (1 + 1e-9) && !beats(w, &p->sizing, &c->sizing) && !part_beats(r, p, c))
            fail_msg("%s: %s before %s at equal scores against the objective", json, p->acc->id,
                     c->acc->id);
    }
    /* No configuration on the frontier, of a part in the pick's group, beats it. */
    for (size_t i = 0; top->selection.priced && top->selection.meets_targets && i < r->n_frontier;
         i++) {
        const struct dc_frontier_point *f = &r->frontier[i];
        const struct dc_candidate *owner = recommended(r, f->acc);
        struct dc_sizing z = {.cost_usd = f->cost_usd,
                              .hours = w->task == DC_TASK_INFERENCE ? NAN : f->time,
                              .request_ms = w->task == DC_TASK_INFERENCE ? f->time : NAN,
                              /* every configuration of a run pays one start-up */
                              .overheads = top->sizing.overheads};
        checked++;
        if (owner != NULL && same_group(w, owner, top) && beats(w, &z, &top->sizing))
            fail_msg("%s: a %u-chip %s configuration on the frontier beats the pick", json,
                     f->chips, f->acc->id);
    }
}

static void selection(const struct wl *w)
{
    static const char *const objectives[] = {"cost", "time", "balanced"};
    for (size_t o = 0; o < 3; o++) {
        struct wl x = *w;
        x.objective = objectives[o];
        char json[512];
        render(&x, json, sizeof(json));
        struct run r = run(json);
        check_selection(json, r.res);
        done(&r);
    }
}

static void test_selection(void **state)
{
    (void)state;
    sweep(selection);
}

/* The pick's value on the objective, or NAN when it cannot be compared. */
static double pick_value(const struct dc_result *r, const struct dc_accelerator *a)
{
    const struct dc_candidate *c = recommended(r, a);
    const struct dc_workload *w = &r->workload;
    if (c == NULL || !c->selection.priced || !c->selection.meets_targets || c->selection.gates > 0)
        return NAN;
    if (w->objective == DC_OBJECTIVE_COST)
        return spend_of(w, &c->sizing);
    return time_of(w, &c->sizing);
}

/* A larger limit never makes the pick worse on its own objective: when the
 * smaller limit's pick is still there, ungated, the larger limit's pick is no
 * worse than it (cost under cost, time under time). */
static void larger_limits(const struct wl *w)
{
    if (strcmp(w->objective, "balanced") == 0)
        return;
    char base[512], lo[700], hi[700];
    render(w, base, sizeof(base));
    static const char *const pairs[][2] = {
        {"\"budget_usd\":2000", "\"budget_usd\":200000"},
        {"\"max_accelerators\":8", "\"max_accelerators\":256"},
    };
    for (size_t k = 0; k < 2; k++) {
        with_constraints(base, pairs[k][0], lo, sizeof(lo));
        with_constraints(base, pairs[k][1], hi, sizeof(hi));
        struct run a = run(lo), b = run(hi);
        checked++;
        if (a.res->n_recommendations > 0 && b.res->n_recommendations > 0) {
            const struct dc_accelerator *old = a.res->recommendations[0].acc;
            double before = pick_value(b.res, old);
            double now = pick_value(b.res, b.res->recommendations[0].acc);
            double band = 1 + dc_ruleset_sizing(rules)->soft_band + 1e-9;
            if (isfinite(before) && isfinite(now) && now > before * band)
                fail_msg("%s: %s made the pick worse (%g -> %g)", hi, pairs[k][1], before, now);
        }
        done(&a);
        done(&b);
    }
}

static void test_larger_limits_never_worse(void **state)
{
    (void)state;
    sweep(larger_limits);
}

/* Another price basis moves costs, and with them the configuration each
 * objective picks, but never which rules hold nor what memory needs. */
static void bases(const struct wl *w)
{
    char json[512], other[700];
    render(w, json, sizeof(json));
    struct run a = run(json);
    static const char *const others[] = {"\"pricing\":\"spot\"", "\"pricing\":\"committed_1y\"",
                                         "\"pricing\":\"committed_3y\""};
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        with_constraints(json, others[i], other, sizeof(other));
        struct run b = run(other);
        for (size_t k = 0; k < a.res->n_recommendations; k++) {
            const struct dc_candidate *x = &a.res->recommendations[k];
            const struct dc_candidate *y = kept(&b, x->acc->id);
            checked++;
            if (y == NULL)
                continue; /* a budget or portability can exclude on another basis */
            /* The training need itself: the smallest shape holding it may
             * differ, as each basis rents its own machine sizes (AWS's A10G
             * spot), and a serving need holds the configuration's batch. */
            if (a.res->workload.task != DC_TASK_INFERENCE &&
                y->sizing.memory_need_gb != x->sizing.memory_need_gb)
                fail_msg("%s: %s changed %s's memory need", json, others[i], x->acc->id);
            for (size_t j = 0; j < x->n_reasons; j++) {
                const char *id = x->reasons[j].rule_id;
                bool found = strncmp(id, "sizing.", 7) == 0 || strncmp(id, "probe.", 6) == 0;
                for (size_t m = 0; !found && m < y->n_reasons; m++)
                    found = strcmp(y->reasons[m].rule_id, id) == 0;
                if (!found)
                    fail_msg("%s: %s dropped rule %s on %s", json, others[i], id, x->acc->id);
            }
        }
        done(&b);
    }
    done(&a);
}

static void test_price_basis_changes_only_prices(void **state)
{
    (void)state;
    sweep(bases);
}

/* ---- the answer's status ------------------------------------------------------- */

/* What must hold of any result's status, target_met and would_meet. */
static void check_status(const struct run *r, const char *what)
{
    const struct dc_result *res = r->res;
    char text[DC_ANSWER_TEXT_MAX], note[400];
    const char *said = dc_answer_text(res, text, sizeof(text));
    const struct dc_candidate *top = res->n_recommendations > 0 ? &res->recommendations[0] : NULL;
    checked++;
    switch (res->status) {
    case DC_ANSWER_OK:
        if (top == NULL || !(top->target_met >= 1.0) || said != NULL)
            fail_msg("%s: ok without a first recommendation meeting every target", what);
        break;
    case DC_ANSWER_NO_FIT:
        if (said == NULL || dc_pick_note(res, note, sizeof(note)) != NULL)
            fail_msg("%s: no fit, but the answer does not say so first", what);
        /* Parts that may be the pick come first, each nearer the targets than
         * the next; after them, parts that cannot be the pick (a gate holds
         * them while their price is unknown and priced parts are left,
         * docs/scoring.md section 8), which alone may meet every target. */
        bool any_priced = false, seen_unpickable = false;
        for (size_t i = 0; i < res->n_recommendations; i++)
            any_priced |= res->recommendations[i].selection.priced;
        for (size_t i = 0; i < res->n_recommendations; i++) {
            const struct dc_candidate *c = &res->recommendations[i];
            bool pickable = c->selection.priced || !any_priced || c->selection.gates == 0;
            if (pickable && seen_unpickable)
                fail_msg("%s: %s may be the pick but ranks below one that may not", what,
                         c->acc->id);
            if (c->score >= 100 || (pickable && c->target_met >= 1.0))
                fail_msg("%s: no fit, but %s scores %d and meets %g of the targets", what,
                         c->acc->id, c->score, c->target_met);
            if (i > 0 && c->score > res->recommendations[i - 1].score)
                fail_msg("%s: %s scores more than the one above it", what, c->acc->id);
            bool same_group = i > 0 && pickable == !seen_unpickable;
            if (same_group && c->target_met > res->recommendations[i - 1].target_met + 0.01)
                fail_msg("%s: %s meets more of the targets than the one above it", what,
                         c->acc->id);
            seen_unpickable |= !pickable;
        }
        if (res->would_meet.acc != NULL && !(res->would_meet.chips >= 1))
            fail_msg("%s: would_meet names %s without chips", what, res->would_meet.acc->id);
        break;
    case DC_ANSWER_WITHHELD:
        for (size_t i = 0; i < res->n_recommendations; i++)
            if (res->recommendations[i].score != 0)
                fail_msg("%s: estimate withheld, but %s scores %d", what,
                         res->recommendations[i].acc->id, res->recommendations[i].score);
        if (said == NULL || res->would_meet.n_fields == 0 ||
            strstr(said, res->would_meet.fields[0]) == NULL)
            fail_msg("%s: estimate withheld without the field that would give one", what);
        break;
    }
}

static void statuses(const struct wl *w)
{
    char json[512];
    render(w, json, sizeof(json));
    struct run r = run(json);
    check_status(&r, json);
    done(&r);
}

/* `json` with constraints.max_accelerators, budget_usd and accelerators set
 * to what would_meet names: that is asked, and it meets the targets. */
static void would_meet_suffices(const char *json, const struct dc_would_meet *m)
{
    cJSON *w = cJSON_Parse(json);
    assert_non_null(w);
    cJSON *c = cJSON_GetObjectItem(w, "constraints");
    if (c == NULL)
        c = cJSON_AddObjectToObject(w, "constraints");
    cJSON_DeleteItemFromObject(c, "max_accelerators");
    cJSON_DeleteItemFromObject(c, "budget_usd");
    cJSON_AddNumberToObject(c, "max_accelerators", m->chips);
    if (isfinite(m->budget_usd))
        cJSON_AddNumberToObject(c, "budget_usd", m->budget_usd * 1.001);
    cJSON *only = cJSON_AddArrayToObject(c, "accelerators");
    cJSON_AddItemToArray(only, cJSON_CreateString(m->acc->id));
    char *asked = cJSON_PrintUnformatted(w);
    struct run r = run(asked);
    checked++;
    if (r.res->status != DC_ANSWER_OK)
        fail_msg("%s: what would_meet named (%s, %g chips) does not meet the targets: %s", asked,
                 m->acc->id, m->chips, dc_answer_status_name(r.res->status));
    done(&r);
    free(asked);
    cJSON_Delete(w);
}

static void test_answer_status(void **state)
{
    (void)state;
    sweep(statuses);
    /* Targets no configuration meets, estimates withheld, and limits that put
     * everything out. */
    static const char *const hard[] = {
        "{\"task\":\"inference\",\"model\":{\"name\":\"llama-3.1-405b\"},"
        "\"inference\":{\"requests_per_second\":4000}}",
        "{\"task\":\"inference\",\"model\":{\"parameters\":7e10},"
        "\"inference\":{\"requests_per_second\":500},\"constraints\":{\"max_accelerators\":16}}",
        "{\"task\":\"inference\",\"model\":{\"name\":\"llama-3.1-405b\"},"
        "\"inference\":{\"requests_per_second\":1,\"latency_ms_p99\":1}}",
        "{\"task\":\"training\",\"model\":{\"parameters\":1e12},\"training\":{\"tokens\":2e13,"
        "\"deadline_hours\":720},\"constraints\":{\"max_accelerators\":1024}}",
        "{\"task\":\"training\",\"model\":{\"parameters\":7e9},\"training\":{\"tokens\":1e11,"
        "\"deadline_hours\":24},\"constraints\":{\"max_accelerators\":8}}",
        "{\"task\":\"fine-tuning\",\"model\":{\"name\":\"llama-3.1-8b\"},"
        "\"training\":{\"method\":\"full\",\"tokens\":1e9},\"constraints\":{\"budget_usd\":5}}",
        "{\"task\":\"training\",\"model\":{\"name\":\"llama-3.1-405b\"},"
        "\"training\":{\"tokens\":1e9},\"constraints\":{\"max_accelerators\":8}}",
        "{\"task\":\"inference\",\"model\":{\"parameters\":7e10},\"inference\":{\"job\":"
        "{\"requests\":1e7,\"deadline_hours\":1}},\"constraints\":{\"max_accelerators\":8}}",
        "{\"task\":\"training\",\"model\":{\"architecture\":\"cnn\",\"parameters\":2.5e7},"
        "\"training\":{\"samples\":1.28e7,\"deadline_hours\":1}}",
        "{\"task\":\"inference\",\"model\":{\"architecture\":\"diffusion\",\"parameters\":3e9},"
        "\"inference\":{\"requests_per_second\":2}}",
        "{\"task\":\"training\",\"model\":{\"architecture\":\"recommender\",\"parameters\":2e9},"
        "\"training\":{\"samples\":4e9}}",
    };
    size_t no_fit = 0, withheld = 0;
    for (size_t i = 0; i < sizeof(hard) / sizeof(hard[0]); i++) {
        struct run r = run(hard[i]);
        check_status(&r, hard[i]);
        no_fit += r.res->status == DC_ANSWER_NO_FIT;
        withheld += r.res->status == DC_ANSWER_WITHHELD;
        if (r.res->status == DC_ANSWER_NO_FIT && r.res->would_meet.acc != NULL)
            would_meet_suffices(hard[i], &r.res->would_meet);
        done(&r);
    }
    /* The hard cases are what they say they are. */
    assert_int_equal(no_fit, 8);
    assert_int_equal(withheld, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doubling_parameters_never_lowers_chips),
        cmocka_unit_test(test_more_tokens_never_lowers_hours),
        cmocka_unit_test(test_higher_rate_never_lowers_chips),
        cmocka_unit_test(test_invariants),
        cmocka_unit_test(test_budgets),
        cmocka_unit_test(test_selection),
        cmocka_unit_test(test_larger_limits_never_worse),
        cmocka_unit_test(test_price_basis_changes_only_prices),
        cmocka_unit_test(test_answer_status),
    };
    return cmocka_run_group_tests_name("properties", tests, setup, teardown);
}
