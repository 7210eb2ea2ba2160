/* tests/unit/core/test_buying.c -- what a buyer gets over sweeps of training
 * workloads against the default rule set (issue 27): the data-parallel
 * gradient all-reduce (core/src/sizing/sync.c).
 *   - at a fixed global batch, scale efficiency never rises with more chips
 *     (1B-405B, full and LoRA, GPUs across machines and TPU slices);
 *   - a step is never shown shorter than the all-reduce it cannot hide, so a
 *     model whose gradients take longer to synchronise than a step computes
 *     is never shown above the efficiency that implies;
 *   - LoRA all-reduces only its adapters: far less than full training;
 *   - a worked example, by hand: an 8B model on 64 H100 (docs/scoring.md);
 *   - balanced and cost buy more machines only for time worth their cost. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dc/embedded.h"
#include "dc/engine.h"
#include "sizing.h"
#include "workload_internal.h"

static dc_ruleset *rules;

static int setup(void **state)
{
    (void)state;
    return dc_ruleset_load_embedded(aa_embedded_files, &rules, NULL) == DC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    dc_ruleset_release(rules);
    return 0;
}

#define TOKENS   1e11
#define SEQUENCE 4096.0
#define BATCH    512.0

static cJSON *training(double params, const char *method)
{
    char buf[512];
    snprintf(buf, sizeof(buf),
             "{\"task\": \"training\", \"model\": {\"architecture\": \"transformer\", "
             "\"parameters\": %g}, \"training\": {\"tokens\": %g, \"sequence_length\": %g, "
             "\"global_batch_size\": %g, \"method\": \"%s\"}}",
             params, TOKENS, SEQUENCE, BATCH, method);
    cJSON *j = cJSON_Parse(buf);
    assert_non_null(j);
    return j;
}

/* The sized configuration and the part's all-reduce terms at `chips`. */
struct sized {
    struct dc_workload w;
    struct dc__derived d;
    struct dc_sizing z;
    struct dc__part p;
};

static bool size_at(const cJSON *j, const char *id, unsigned chips, struct sized *s)
{
    memset(s, 0, sizeof(*s));
    struct dc_error err = {0};
    if (dc__size_workload_at(rules, j, id, chips, &s->w, &s->d, &s->z, &err) != DC_OK)
        return false;
    dc__part_init(&s->p, rules, &s->w, &s->d, dc_ruleset_find_accelerator(rules, id),
                  DC__UNPERTURBED);
    return isfinite(s->z.hours) && s->z.memory_need_gb > 0;
}

static const double sweep_params[] = {1e9, 8e9, 7e10, 4.05e11};
static const char *const sweep_methods[] = {"full", "lora"};
static const char *const sweep_parts[] = {"h100", "b200", "a100", "tpu-v5p", "tpu-v6e"};

/* Chips that hold the model, then doublings to 4,096: the efficiency is
 * non-increasing, and the hours a step takes are never below its
 * un-hidden all-reduce. */
static void test_efficiency_never_rises(void **state)
{
    (void)state;
    size_t checked = 0, synced = 0;
    for (size_t m = 0; m < sizeof(sweep_params) / sizeof(*sweep_params); m++) {
        for (size_t k = 0; k < 2; k++) {
            cJSON *j = training(sweep_params[m], sweep_methods[k]);
            for (size_t a = 0; a < sizeof(sweep_parts) / sizeof(*sweep_parts); a++) {
                double prev = INFINITY;
                for (unsigned chips = 4; chips <= 4096; chips *= 2) {
                    struct sized s;
                    if (!size_at(j, sweep_parts[a], chips, &s))
                        continue;
                    double eff = s.z.scale_efficiency;
                    if (eff > prev * (1 + 1e-12))
                        fail_msg("%s %g %s: efficiency %.6f at %u chips above %.6f at half",
                                 sweep_parts[a], sweep_params[m], sweep_methods[k], eff, chips,
                                 prev);
                    prev = eff;
                    /* One step: the run's hours over its steps, at steady state. */
                    double steps = TOKENS / (BATCH * SEQUENCE);
                    double step_s =
                        s.z.hours * 3600.0 * dc_ruleset_sizing(rules)->goodput.value / steps;
                    double sync = dc__sync_seconds(&s.p, chips);
                    if (sync > 0)
                        synced++;
                    assert_true(step_s >= sync * (1 - 1e-9));
                    checked++;
                }
            }
            cJSON_Delete(j);
        }
    }
    print_message("buying: %zu configurations, %zu with an all-reduce\n", checked, synced);
    assert_true(checked > 100);
    assert_true(synced > 50);
}

/* LoRA all-reduces its adapters only: a small share of full training's
 * bytes, so it is never slower to synchronise. */
static void test_lora_syncs_adapters(void **state)
{
    (void)state;
    cJSON *full = training(7e10, "full"), *lora = training(7e10, "lora");
    struct sized f, l;
    assert_true(size_at(full, "h100", 256, &f));
    assert_true(size_at(lora, "h100", 256, &l));
    double fs = dc__sync_seconds(&f.p, 256), ls = dc__sync_seconds(&l.p, 256);
    assert_true(fs > 0 && ls > 0);
    double share = dc_ruleset_sizing(rules)->lora_adapter_fraction.value;
    /* Per chip: the adapters over the chips one copy of the frozen base
     * needs (fewer than full training's, whose state is 8x larger); the
     * ring's 2 (n - 1) / n lies between 1 and 2 for either. */
    assert_true(l.p.replica_chips < f.p.replica_chips);
    assert_true(ls / fs < share * f.p.replica_chips / l.p.replica_chips * 2);
    assert_true(ls < fs * 0.1);
    cJSON_Delete(full);
    cJSON_Delete(lora);
}

/* By hand (docs/scoring.md, section 5): an 8B model, full training, on 64
 * H100 (8 machines of 8). */
static void test_worked_example(void **state)
{
    (void)state;
    cJSON *j = training(8e9, "full");
    struct sized s;
    assert_true(size_at(j, "h100", 64, &s));
    const struct dc_sizing_params *sp = dc_ruleset_sizing(rules);
    /* One copy of the state: 8e9 x state_bytes_per_parameter over the usable
     * memory of one H100 beside its share of one micro-batch's activations. */
    double usable = 80 * sp->memory_usable_fraction.value;
    double r = ceil(s.d.state_gb / (usable - s.d.activations_gb / 8));
    assert_true(fabs(s.p.replica_chips - r) < 1e-9);
    /* Each chip reduces 8e9 x 2 bytes / r; across machines a ring moves at
     * the machine's network, 8 x 400 Gbit/s = 400 GB/s, under NVLink 4's
     * 450 GB/s each way. */
    assert_true(fabs(s.p.network_bps - 400e9) < 1);
    assert_true(fabs(s.p.domain_bps - 450e9) < 1);
    double n = 64 / r;
    double want = 2 * (n - 1) / n * (8e9 * 2 / r) / 400e9;
    assert_true(fabs(dc__sync_seconds(&s.p, 64) - want) < 1e-12);
    /* Within one machine the ring runs over NVLink. */
    double n8 = 8 / r;
    assert_true(fabs(dc__sync_seconds(&s.p, 8) - 2 * (n8 - 1) / n8 * (8e9 * 2 / r) / 450e9) <
                1e-12);
    print_message("8B on 64 H100: replica %g chips, all-reduce %.1f ms a step\n", r, want * 1e3);
    cJSON_Delete(j);
}

/* What can be had at once (core/src/sizing/buying.c, prices.yaml `capacity:`): AWS
 * on demand up to the stated 16 machines; past it a reservation (Capacity
 * Blocks, up to 256 instances); past that nothing sells it at once. */
static void test_capacity(void **state)
{
    (void)state;
    cJSON *j = cJSON_Parse("{\"task\": \"training\", \"model\": {\"architecture\": "
                           "\"transformer\", \"parameters\": 7e9}, \"training\": {\"tokens\": "
                           "1e11, \"global_batch_size\": 4096}, \"constraints\": "
                           "{\"providers\": [\"aws\"]}}");
    assert_non_null(j);
    const struct dc_capacity *od = dc_capacity_limit(rules, DC_PROVIDER_AWS, DC_BASIS_ON_DEMAND,
                                                     dc_ruleset_find_accelerator(rules, "h100"));
    const struct dc_capacity *rv = dc_capacity_limit(rules, DC_PROVIDER_AWS, DC_BASIS_RESERVED,
                                                     dc_ruleset_find_accelerator(rules, "h100"));
    assert_non_null(od);
    assert_non_null(rv);
    struct sized s;
    unsigned within = od->max_instances * 8, past = od->max_instances * 16,
             beyond = rv->max_instances * 16;
    assert_true(size_at(j, "h100", within, &s));
    assert_int_equal(s.z.machines, od->max_instances);
    assert_true(s.z.capacity.known);
    assert_false(s.z.capacity.binds);
    assert_int_equal(s.z.capacity.basis, DC_BASIS_ON_DEMAND);
    assert_int_equal(s.z.capacity.max_instances, od->max_instances);
    assert_true(size_at(j, "h100", past, &s));
    assert_true(s.z.capacity.binds);
    assert_int_equal(s.z.capacity.basis, DC_BASIS_RESERVED);
    assert_true(size_at(j, "h100", beyond, &s));
    assert_true(s.z.capacity.binds);
    assert_int_equal(s.z.capacity.basis, DC_BASIS_ON_DEMAND);
    /* On premises nothing is rented: no limit applies. */
    cJSON_AddStringToObject(cJSON_GetObjectItem(j, "constraints"), "deployment", "on-prem");
    assert_true(size_at(j, "h100", past, &s) || !isfinite(s.z.hours));
    assert_false(s.z.capacity.known);
    assert_false(s.z.capacity.binds);
    cJSON_Delete(j);
}

/* Over the shipped rules, a pick costing under the negligible floor (where
 * costs compare as equal) is one machine unless memory takes more (basis
 * memory): the tie rule (fewer machines), the start-up every machine pays
 * and min_run_hours together keep a tiny job off a cluster (issue 27: a $100
 * LoRA job is not 8 B200 for 2 minutes). */
static void test_negligible_ties_take_fewer_machines(void **state)
{
    (void)state;
    static const char *const objectives[] = {"cost", "balanced"};
    static const double params[] = {1e8, 3e8, 1e9};
    static const double tokens[] = {1e5, 1e6};
    double floor = dc_ruleset_sizing(rules)->negligible_cost_usd;
    size_t seen = 0;
    for (size_t o = 0; o < 2; o++) {
        for (size_t m = 0; m < 3; m++) {
            for (size_t t = 0; t < 2; t++) {
                char buf[400];
                snprintf(buf, sizeof(buf),
                         "{\"task\": \"fine-tuning\", \"model\": {\"architecture\": "
                         "\"transformer\", \"parameters\": %g}, \"training\": {\"method\": "
                         "\"lora\", \"tokens\": %g}, \"objective\": \"%s\"}",
                         params[m], tokens[t], objectives[o]);
                cJSON *j = cJSON_Parse(buf);
                assert_non_null(j);
                struct dc_result *r = NULL;
                assert_int_equal(dc_recommend(rules, j, NULL, &r, NULL), DC_OK);
                for (size_t i = 0; i < r->n_recommendations; i++) {
                    const struct dc_sizing *z = &r->recommendations[i].sizing;
                    if (!(z->cost_usd <= floor))
                        continue;
                    seen++;
                    if (z->machines > 1 && z->basis != DC_BASIS_MEMORY)
                        fail_msg("%s: %s takes %u machines at $%.2f, under the $%g floor", buf,
                                 r->recommendations[i].acc->id, z->machines, z->cost_usd, floor);
                }
                dc_result_free(r);
                cJSON_Delete(j);
            }
        }
    }
    assert_true(seen > 0);
}

/* On premises a part is bought in the unit it is sold in (catalog
 * shapes.on_prem_unit): GB200 as NVL72 racks, H100 as HGX machines of 8; in
 * the cloud, the machines that are rented (GB200: 4-GPU machines). */
static void test_on_prem_units(void **state)
{
    (void)state;
    static const char onprem[] =
        "{\"task\": \"training\", \"model\": {\"architecture\": \"transformer\", "
        "\"parameters\": 7e10}, \"training\": {\"tokens\": 1e12, \"global_batch_size\": 1024}, "
        "\"constraints\": {\"deployment\": \"on-prem\"}}";
    cJSON *j = cJSON_Parse(onprem);
    assert_non_null(j);
    struct dc_result *r = NULL;
    assert_int_equal(dc_recommend(rules, j, NULL, &r, NULL), DC_OK);
    size_t seen = 0;
    for (size_t i = 0; i < r->n_recommendations; i++) {
        const struct dc_candidate *c = &r->recommendations[i];
        if (c->acc->on_prem_unit == 0 || c->sizing.chips == 0)
            continue;
        seen++;
        assert_int_equal(c->sizing.shape.per_unit, c->acc->on_prem_unit);
        assert_int_equal(c->sizing.chips % c->acc->on_prem_unit, 0);
        assert_int_equal(c->sizing.machines, c->sizing.chips / c->acc->on_prem_unit);
    }
    assert_true(seen >= 2);
    assert_int_equal(dc_ruleset_find_accelerator(rules, "gb200")->on_prem_unit, 72);
    assert_int_equal(dc_ruleset_find_accelerator(rules, "h100")->on_prem_unit, 8);
    dc_result_free(r);
    cJSON_Delete(j);
    struct sized s;
    cJSON *cloud = training(7e10, "full");
    assert_true(size_at(cloud, "gb200", 64, &s));
    assert_int_equal(s.z.shape.per_unit, 4);
    cJSON_Delete(cloud);
}

/* The cheapest candidate of a result that meets every target and is priced,
 * held by `gates` ranking gates; of equal cost, fewer machines. */
static const struct dc_sizing *cheapest_of(const struct dc_result *r, unsigned gates)
{
    const struct dc_sizing *a = NULL;
    const struct dc_sizing_params *s = dc_ruleset_sizing(rules);
    for (size_t i = 0; i < r->n_recommendations; i++) {
        const struct dc_candidate *c = &r->recommendations[i];
        if (!c->selection.meets_targets || !c->selection.priced || c->selection.gates != gates)
            continue;
        double x = dc__config_spend(s, &r->workload, &c->sizing);
        double y = a == NULL ? INFINITY : dc__config_spend(s, &r->workload, a);
        if (x < y || (x == y && c->sizing.machines < a->machines))
            a = &c->sizing;
    }
    return a;
}

/* One workload under `objective`: its top pick (a copy), and the cheapest
 * configuration of the top pick's gate tier under objective cost (each part
 * at its cheapest) in `anchor`. False when either has no priced pick. */
static bool pick_and_anchor(const char *body, const char *objective, struct dc_sizing *pick,
                            struct dc_sizing *anchor)
{
    char buf[600];
    bool ok = false;
    struct dc_result *r = NULL, *rc = NULL;
    snprintf(buf, sizeof(buf), "{%s, \"objective\": \"%s\"}", body, objective);
    cJSON *j = cJSON_Parse(buf);
    snprintf(buf, sizeof(buf), "{%s, \"objective\": \"cost\"}", body);
    cJSON *jc = cJSON_Parse(buf);
    assert_non_null(j);
    assert_non_null(jc);
    assert_int_equal(dc_recommend(rules, j, NULL, &r, NULL), DC_OK);
    assert_int_equal(dc_recommend(rules, jc, NULL, &rc, NULL), DC_OK);
    if (r->n_recommendations > 0 && r->recommendations[0].selection.priced &&
        r->recommendations[0].selection.meets_targets) {
        const struct dc_sizing *a = cheapest_of(rc, r->recommendations[0].selection.gates);
        if (a != NULL) {
            *pick = r->recommendations[0].sizing;
            *anchor = *a;
            ok = true;
        }
    }
    dc_result_free(r);
    dc_result_free(rc);
    cJSON_Delete(j);
    cJSON_Delete(jc);
    return ok;
}

/* Issue 27 item 4, over sweeps (1B-405B, full and LoRA, clouds and
 * on-prem): a pick under balanced that spreads past one machine saves time
 * worth its extra cost over the cheapest configuration of its tier, at
 * docs/scoring.md section 7's price (2 x balanced_premium x the cheapest's
 * cost per hour: halving the time is worth balanced_premium more); under
 * cost it is no dearer than the cheapest beyond what soft points move; and
 * no tie of cost goes to more machines under either. */
static void test_objective_buys_machines_worth_their_cost(void **state)
{
    (void)state;
    static const char *const models[] = {"1.3e9", "8e9", "7e10", "4.05e11"};
    static const char *const runs[] = {
        "\"task\": \"training\", \"training\": {\"tokens\": 2e10}",
        "\"task\": \"fine-tuning\", \"training\": {\"method\": \"lora\", \"tokens\": 2e8}"};
    static const char *const where[] = {"cloud", "on-prem"};
    static const char *const objectives[] = {"balanced", "cost"};
    const struct dc_sizing_params *s = dc_ruleset_sizing(rules);
    size_t spread = 0;
    for (size_t m = 0; m < 4; m++)
        for (size_t k = 0; k < 2; k++)
            for (size_t d = 0; d < 2; d++)
                for (size_t o = 0; o < 2; o++) {
                    char body[400];
                    snprintf(body, sizeof(body),
                             "\"model\": {\"architecture\": \"transformer\", \"parameters\": "
                             "%s}, %s, \"constraints\": {\"deployment\": \"%s\"}",
                             models[m], runs[k], where[d]);
                    struct dc_sizing p, a;
                    if (!pick_and_anchor(body, objectives[o], &p, &a))
                        continue;
                    struct dc_workload w = {.task = DC_TASK_TRAINING};
                    double cp = dc__config_spend(s, &w, &p), ca = dc__config_spend(s, &w, &a);
                    double tp = dc__config_time(s, &w, &p), ta = dc__config_time(s, &w, &a);
                    if (p.machines > 1)
                        spread++;
                    if (fabs(cp - ca) <= 1e-9 * ca && p.machines > a.machines)
                        fail_msg("%s (%s): a tie of cost goes to %u machines, not %u", body,
                                 objectives[o], p.machines, a.machines);
                    if (p.machines <= 1 || cp <= ca * (1 + 1e-9))
                        continue;
                    double worth =
                        o == 0 ? 2 * s->balanced_premium * ca / ta * (ta - tp) : ca * s->soft_band;
                    if (cp - ca > worth * (1 + 1e-9))
                        fail_msg("%s (%s): %u machines cost $%.2f more than $%.2f for %.3g h "
                                 "of %.3g saved, worth $%.2f",
                                 body, objectives[o], p.machines, cp - ca, ca, ta - tp, ta, worth);
                }
    assert_true(spread > 0);
}

/* The top pick's capacity_binds warning, or NULL. */
static const char *capacity_message(const char *json, unsigned *machines, bool *binds)
{
    static char msg[1024];
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    struct dc_result *r = NULL;
    assert_int_equal(dc_recommend(rules, j, NULL, &r, NULL), DC_OK);
    assert_true(r->n_recommendations > 0);
    *machines = r->recommendations[0].sizing.machines;
    *binds = r->recommendations[0].sizing.capacity.binds;
    const char *out = NULL;
    for (size_t i = 0; i < r->n_warnings; i++)
        if (strcmp(r->warnings[i].code, "capacity_binds") == 0) {
            snprintf(msg, sizeof(msg), "%s", r->warnings[i].message);
            out = msg;
        }
    dc_result_free(r);
    cJSON_Delete(j);
    return out;
}

/* A 7B run on AWS H100 with a deadline (%g hours) and an objective (%s); a
 * macro, not a variable, so that -Wformat-nonliteral checks its arguments. */
#define CAPACITY_RUN                                                                               \
    "{\"task\": \"training\", \"model\": {\"architecture\": \"transformer\", "                     \
    "\"parameters\": 7e9}, \"training\": {\"tokens\": 1e12, \"global_batch_size\": 4096, "         \
    "\"deadline_hours\": %g}, \"constraints\": {\"providers\": [\"aws\"], "                        \
    "\"accelerators\": [\"h100\"]}, \"objective\": \"%s\"}"

/* When the top pick's machines are past what the asked basis sells at once,
 * the answer says so, names the limit and the basis that sells them, and
 * says nothing when it does not bind (issue 27 item 3). */
static void test_capacity_warning(void **state)
{
    (void)state;
    const struct dc_capacity *od = dc_capacity_limit(rules, DC_PROVIDER_AWS, DC_BASIS_ON_DEMAND,
                                                     dc_ruleset_find_accelerator(rules, "h100"));
    const struct dc_capacity *rv = dc_capacity_limit(rules, DC_PROVIDER_AWS, DC_BASIS_RESERVED,
                                                     dc_ruleset_find_accelerator(rules, "h100"));
    assert_non_null(od);
    assert_non_null(rv);
    char json[600], limit[64];
    snprintf(limit, sizeof(limit), "more than the %u that on-demand sells", od->max_instances);
    unsigned machines = 0;
    bool binds = false;
    /* Past on demand, within the reservations: a reservation sells them. */
    snprintf(json, sizeof(json), CAPACITY_RUN, 150.0, "balanced");
    const char *m = capacity_message(json, &machines, &binds);
    assert_true(machines > od->max_instances && machines <= rv->max_instances);
    assert_true(binds);
    assert_non_null(m);
    assert_non_null(strstr(m, limit));
    assert_non_null(strstr(m, od->source));
    assert_non_null(strstr(m, "a reservation (capacity blocks or a reserved cluster) sells them"));
    /* Past the reservations too: no basis sells that many at once. */
    snprintf(json, sizeof(json), CAPACITY_RUN, 72.0, "balanced");
    m = capacity_message(json, &machines, &binds);
    assert_true(machines > rv->max_instances);
    assert_non_null(m);
    assert_non_null(strstr(m, "nor do its reservations"));
    /* The cheapest run: within on demand, no warning. */
    snprintf(json, sizeof(json), CAPACITY_RUN, 20000.0, "cost");
    m = capacity_message(json, &machines, &binds);
    assert_true(machines <= od->max_instances);
    assert_false(binds);
    assert_null(m);
}

/* The sizing's own fmax (dc__fmax, used where every probed count calls it)
 * gives the C library's fmax wherever the two arguments differ, NaNs and
 * infinities included, and the second argument when they compare equal, as
 * glibc's does for the order it is given. */
static void test_fmax_as_the_library(void **state)
{
    (void)state;
    const double v[] = {0.0, 1.0, -1.0, 2.5, 1e-300, 5e-324, 1e308, INFINITY, -INFINITY, NAN};
    const size_t n = sizeof(v) / sizeof(v[0]);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            double got = dc__fmax(v[i], v[j]), want = fmax(v[i], v[j]);
            if (isnan(want))
                assert_true(isnan(got));
            else
                assert_true(got == want);
        }
    }
    assert_true(signbit(dc__fmax(0.0, -0.0)));
    assert_false(signbit(dc__fmax(-0.0, 0.0)));
    assert_true(dc__fmax(NAN, 3.0) == 3.0);
    assert_true(dc__fmax(3.0, NAN) == 3.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_efficiency_never_rises),
        cmocka_unit_test(test_lora_syncs_adapters),
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_capacity_warning),
        cmocka_unit_test(test_negligible_ties_take_fewer_machines),
        cmocka_unit_test(test_objective_buys_machines_worth_their_cost),
        cmocka_unit_test(test_on_prem_units),
        cmocka_unit_test(test_fmax_as_the_library),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
