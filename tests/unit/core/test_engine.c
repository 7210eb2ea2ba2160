/* tests/unit/core/test_engine.c -- core/src/engine.c and workload.c: workload
 * checking, sizing arithmetic (checked by hand against tests/support/mini_rules.h),
 * scoring, exclusions, warnings, explanation text and reentrancy. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core_run.h"
#include "dc/engine.h"
#include "mini_rules.h"

static dc_ruleset *mini;

static int setup(void **state)
{
    (void)state;
    return mini_load(&mini);
}

static int teardown(void **state)
{
    (void)state;
    dc_ruleset_release(mini);
    return 0;
}

static struct dc_result *run(const char *json)
{
    cJSON *w = cJSON_Parse(json);
    assert_non_null(w);
    struct dc_result *res = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    enum dc_status rc = dc_recommend(mini, w, NULL, &res, &err);
    if (rc != DC_OK)
        fail_msg("dc_recommend: %s: %s", err.where, err.msg);
    /* The result keeps views into the workload JSON: keep it alive with the
     * result by parking it in the result's name slot owner (tests free both). */
    res->workload.name = NULL;
    cJSON_Delete(w);
    return res;
}

static void expect_invalid(const char *json, const char *pointer, const char *msg_part)
{
    cJSON *w = cJSON_Parse(json);
    assert_non_null(w);
    struct dc_result *res = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(dc_recommend(mini, w, NULL, &res, &err), DC_EINVAL);
    assert_null(res);
    assert_string_equal(err.where, pointer);
    if (strstr(err.msg, msg_part) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, msg_part);
    cJSON_Delete(w);
}

static void test_invalid_workloads(void **state)
{
    (void)state;
    expect_invalid("[]", "", "must be a JSON object");
    expect_invalid("{\"model\":{\"parameters\":1}}", "/task", "required field \"task\"");
    expect_invalid("{\"task\":\"baking\",\"model\":{\"parameters\":1}}", "/task", "unknown value");
    expect_invalid("{\"task\":\"training\"}", "/model", "required field \"model\"");
    expect_invalid("{\"task\":\"training\",\"model\":{}}", "/model/parameters", "required");
    expect_invalid("{\"task\":\"training\",\"model\":{\"parameters\":0}}", "/model/parameters",
                   "out of range");
    /* Counts: parameters and tokens are at least 1, as in the contract (a
     * 1e-299-parameter model once rendered its memory need as null). */
    expect_invalid("{\"task\":\"training\",\"model\":{\"parameters\":1.1e-299}}",
                   "/model/parameters", "out of range");
    expect_invalid("{\"task\":\"training\",\"model\":{\"parameters\":1},"
                   "\"training\":{\"tokens\":0.5}}",
                   "/training/tokens", "out of range");
    expect_invalid("{\"task\":\"training\",\"model\":{\"parameters\":\"7B\"}}", "/model/parameters",
                   "must be a number");
    expect_invalid("{\"task\":\"training\",\"model\":{\"parameters\":1,\"layers\":2.5}}",
                   "/model/layers", "integer");
    expect_invalid("{\"task\":\"training\",\"model\":{\"parameters\":1},\"colour\":1}", "/colour",
                   "unknown field");
    expect_invalid("{\"task\":\"training\",\"model\":{\"parameters\":1,\"x\":1}}", "/model/x",
                   "unknown field");
    expect_invalid("{\"task\":\"training\",\"model\":{\"parameters\":1},\"training\":[]}",
                   "/training", "must be an object");
    expect_invalid("{\"task\":\"training\",\"model\":{\"parameters\":1},"
                   "\"constraints\":{\"providers\":[\"gcp\",\"gcp\"]}}",
                   "/constraints/providers", "twice");
    expect_invalid("{\"task\":\"training\",\"model\":{\"parameters\":1},"
                   "\"constraints\":{\"providers\":[\"ibm\"]}}",
                   "/constraints/providers", "unknown provider");
    expect_invalid("{\"task\":\"training\",\"model\":{\"parameters\":1},"
                   "\"prefer_available\":1}",
                   "/prefer_available", "true or false");
    expect_invalid("{\"task\":\"training\",\"model\":{\"parameters\":1},\"name\":\"\"}", "/name",
                   "1 to 128");
    /* maxLength counts characters, as JSON Schema does: 128 two-byte "é" fit. */
    char name[64 + 129 * 2 + 64], *p = name;
    p += sprintf(p, "{\"task\":\"training\",\"model\":{\"parameters\":1},\"name\":\"");
    for (int i = 0; i < 128; i++)
        p += sprintf(p, "\xc3\xa9");
    sprintf(p, "\"}");
    cJSON *w = cJSON_Parse(name);
    struct dc_result *ok = NULL;
    assert_int_equal(dc_recommend(mini, w, NULL, &ok, NULL), DC_OK);
    dc_result_free(ok);
    cJSON_Delete(w);
    sprintf(p, "\xc3\xa9\"}");
    expect_invalid(name, "/name", "1 to 128");
    expect_invalid("{\"task\":\"inference\",\"model\":{\"parameters\":1},"
                   "\"inference\":{\"batch_size\":0}}",
                   "/inference/batch_size", "out of range");
    struct dc_result *res = NULL;
    assert_int_equal(dc_recommend(NULL, NULL, NULL, &res, NULL), DC_EINVAL);
    assert_int_equal(dc_recommend(mini, NULL, NULL, NULL, NULL), DC_EINVAL);
    dc_result_free(NULL);
}

static void test_defaults(void **state)
{
    (void)state;
    cJSON *j = cJSON_Parse("{\"task\":\"training\",\"model\":{\"parameters\":1e9}}");
    struct dc_workload w;
    assert_int_equal(dc_workload_parse(mini, j, &w, NULL), DC_OK);
    assert_string_equal(w.framework, "pytorch");
    assert_string_equal(w.stage, "development");
    assert_string_equal(w.architecture, "transformer");
    assert_string_equal(w.compute_pattern, "matmul");
    assert_int_equal(w.precision, DC_PREC_BF16);
    assert_true(w.tokens == 20e9); /* Chinchilla default: 20 tokens per parameter */
    assert_true(w.tokens_defaulted);
    assert_true(w.global_batch_size == 256);
    assert_true(w.sequence_length == 4096);
    assert_int_equal(w.method, DC_METHOD_FULL);
    assert_true(isnan(w.deadline_hours));
    assert_int_equal(w.deployment, DC_DEPLOY_CLOUD);
    assert_int_equal(w.providers, 0);
    assert_string_equal(w.cuda_experience, "some");
    assert_int_equal(w.objective, DC_OBJECTIVE_BALANCED);
    assert_false(w.prefer_available);
    cJSON_Delete(j);
    j = cJSON_Parse("{\"task\":\"fine-tuning\",\"model\":{\"parameters\":1e9}}");
    assert_int_equal(dc_workload_parse(mini, j, &w, NULL), DC_OK);
    assert_true(w.tokens == 1e8);
    cJSON_Delete(j);
    j = cJSON_Parse("{\"task\":\"inference\",\"model\":{\"parameters\":1e9}}");
    assert_int_equal(dc_workload_parse(mini, j, &w, NULL), DC_OK);
    assert_true(w.tokens == 0);
    assert_true(w.context_tokens == 2048);
    assert_true(w.input_tokens == 1792 && w.output_tokens == 256);
    assert_true(isnan(w.batch_size)); /* chosen per accelerator */
    assert_true(w.requests_per_second == 1);
    assert_true(w.active_parameters == 1e9 && w.embedding_parameters == 0);
    cJSON_Delete(j);
    assert_int_equal(dc_workload_parse(NULL, NULL, &w, NULL), DC_EINVAL);
}

static void test_rules_and_exclusions(void **state)
{
    (void)state;
    /* fp64: the rule excludes the TPU family and names itself. */
    struct dc_result *r = run("{\"task\":\"training\",\"precision\":\"fp64\","
                              "\"model\":{\"parameters\":1e8}}");
    bool ex;
    const struct dc_candidate *t = core_find(r, "tpu-b", &ex);
    assert_true(ex);
    assert_string_equal(t->excluded_by->rule_id, "no-fp64-tpu");
    assert_non_null(strstr(t->excluded_by->source, "https://"));
    assert_int_equal(r->families[0].family, DC_FAMILY_GPU);
    bool tpu_excluded = false;
    for (size_t i = 0; i < DC_FAMILY_COUNT; i++) {
        if (r->families[i].family == DC_FAMILY_TPU)
            tpu_excluded = r->families[i].excluded;
    }
    assert_true(tpu_excluded);
    dc_result_free(r);
    /* jax: +15 TPU family, -5 gpu-a; both show as signed reasons. */
    r = run("{\"task\":\"training\",\"framework\":\"jax\",\"model\":{\"parameters\":1e8}}");
    const struct dc_candidate *g = core_find(r, "gpu-a", &ex);
    t = core_find(r, "tpu-b", &ex);
    assert_int_equal(g->rule_score, 45);
    assert_int_equal(t->rule_score, 65);
    assert_string_equal(t->reasons[0].rule_id, "jax-likes-tpu");
    assert_int_equal(t->reasons[0].impact, 15);
    assert_string_equal(t->reasons[0].message, "JAX runs natively on TPUs.");
    assert_int_equal(g->reasons[0].impact, -5);
    dc_result_free(r);
    /* On-prem: the TPU is not sold on premises. */
    r = run("{\"task\":\"training\",\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},"
            "\"constraints\":{\"deployment\":\"on-prem\"}}");
    t = core_find(r, "tpu-b", &ex);
    assert_true(ex);
    assert_string_equal(t->excluded_by->rule_id, "catalog.on-prem");
    dc_result_free(r);
    /* Providers: aws only leaves the GPU. */
    r = run("{\"task\":\"training\",\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},"
            "\"constraints\":{\"providers\":[\"aws\"]}}");
    t = core_find(r, "tpu-b", &ex);
    assert_true(ex);
    assert_string_equal(t->excluded_by->rule_id, "catalog.providers");
    dc_result_free(r);
}

static void test_warnings_nothing_fits(void **state)
{
    (void)state;
    /* 1T parameters x 19.2 B within 4 chips: nothing fits. */
    struct dc_result *r = run("{\"task\":\"training\",\"model\":{\"parameters\":1e12},"
                              "\"constraints\":{\"max_accelerators\":4}}");
    assert_int_equal(r->n_recommendations, 0);
    assert_true(core_has_warning(r, "nothing_fits_memory"));
    assert_true(core_has_warning(r, "no_candidates"));
    bool ex;
    const struct dc_candidate *g = core_find(r, "gpu-a", &ex);
    assert_string_equal(g->excluded_by->rule_id, "sizing.memory");
    char buf[512];
    const char *text = dc_reason_text(r, g, g->excluded_by, buf, sizeof(buf));
    assert_non_null(strstr(text, "constraints.max_accelerators"));
    dc_result_free(r);
    /* Budget: $1 cannot pay for 7B training: excluded by budget, warning. */
    r = run("{\"task\":\"training\",\"model\":{\"parameters\":7e9},"
            "\"training\":{\"tokens\":1e8},\"constraints\":{\"budget_usd\":1,"
            "\"providers\":[\"aws\"]}}");
    g = core_find(r, "gpu-a", &ex);
    assert_true(ex);
    assert_string_equal(g->excluded_by->rule_id, "sizing.budget");
    assert_true(core_has_warning(r, "nothing_within_budget"));
    dc_result_free(r);
    /* A price dated 2024-12 is over 540 days old by now: price_stale. */
    r = run("{\"task\":\"training\",\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},"
            "\"constraints\":{\"providers\":[\"aws\"]}}");
    assert_string_equal(r->recommendations[0].acc->id, "gpu-a");
    assert_true(core_has_warning(r, "price_stale"));
    dc_result_free(r);
    /* Unknown price at the top: only where nothing is priced (gpu-a has no
     * GCP offer), since an unpriced part never ranks above a priced one. */
    r = run("{\"task\":\"training\",\"framework\":\"jax\",\"model\":{\"parameters\":1e8},"
            "\"training\":{\"tokens\":1e9},"
            "\"constraints\":{\"providers\":[\"gcp\"]}}");
    assert_false(r->recommendations[0].selection.priced);
    assert_true(core_has_warning(r, "price_unknown"));
    dc_result_free(r);
}

/* The reason with rule id `id` of candidate `c`, or NULL. */
static const struct dc_reason *reason(const struct dc_candidate *c, const char *id)
{
    for (size_t i = 0; i < c->n_reasons; i++) {
        if (strcmp(c->reasons[i].rule_id, id) == 0)
            return &c->reasons[i];
    }
    return NULL;
}

/* A low-confidence price counts as low_confidence_points (10) soft points
 * against its part, shown on its cost reason, and is flagged. */
static void test_low_confidence_price(void **state)
{
    (void)state;
    char low_prices[sizeof(prices_ok) + 8];
    const char *high = strstr(prices_ok, "confidence: high");
    assert_non_null(high);
    int n = snprintf(low_prices, sizeof(low_prices), "%.*sconfidence: low%s",
                     (int)(high - prices_ok), prices_ok, high + strlen("confidence: high"));
    assert_true(n > 0 && (size_t)n < sizeof(low_prices));
    dc_ruleset *low_rs = NULL;
    assert_int_equal(load4(catalog_ok, sizing_ok, rules_ok, low_prices, &low_rs, NULL), DC_OK);
    /* The first offer (machines of 1) is the low-confidence one. */
    static const char w[] =
        "{\"task\":\"training\",\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},"
        "\"objective\":\"cost\"}";
    cJSON *json = cJSON_Parse(w);
    struct dc_result *firm = NULL, *soft = NULL;
    assert_int_equal(dc_recommend(mini, json, NULL, &firm, NULL), DC_OK);
    assert_int_equal(dc_recommend(low_rs, json, NULL, &soft, NULL), DC_OK);
    bool ex;
    const struct dc_candidate *f = core_find(firm, "gpu-a", &ex),
                              *g = core_find(soft, "gpu-a", &ex);
    assert_int_equal(g->sizing.shape.per_unit, 1);
    assert_true(g->sizing.offer->low_confidence);
    assert_int_equal(g->selection.soft_points, f->selection.soft_points - 10);
    assert_int_equal(reason(g, "sizing.cost")->impact, -10);
    assert_true(g->selection.adjustment > f->selection.adjustment);
    assert_false(core_has_warning(firm, "price_low_confidence"));
    assert_true(core_has_warning(soft, "price_low_confidence"));
    dc_result_free(firm);
    dc_result_free(soft);
    cJSON_Delete(json);
    dc_ruleset_release(low_rs);
}

/* Unknown cost: never passes a budget, ranks after every priced part under
 * objective cost, and a part without a price on the asked basis says so. */
static void test_unknown_cost_gates(void **state)
{
    (void)state;
    char buf[512];
    bool ex;
    /* A rule worth +50 to TPUs cannot lift tpu-b, which has no price, above
     * gpu-a, which has one: it ranks after it, gated by its cost reason, and
     * says what price would make it match the pick. */
    static const char strong[] = "rules:\n  - id: tpu-strong\n    description: S.\n"
                                 "    source: https://example.com/s\n    when: true\n"
                                 "    effect: {families: {tpu: 50}}\n";
    dc_ruleset *rs = NULL;
    assert_int_equal(load3(catalog_ok, sizing_ok, strong, &rs, NULL), DC_OK);
    cJSON *json = cJSON_Parse(
        "{\"task\":\"training\",\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},"
        "\"objective\":\"cost\"}");
    struct dc_result *r = NULL;
    assert_int_equal(dc_recommend(rs, json, NULL, &r, NULL), DC_OK);
    cJSON_Delete(json);
    assert_string_equal(r->recommendations[0].acc->id, "gpu-a");
    const struct dc_candidate *t = core_find(r, "tpu-b", &ex);
    assert_false(ex);
    assert_true(t->score < r->recommendations[0].score);
    assert_non_null(t->capped_by);
    assert_string_equal(t->capped_by->rule_id, "sizing.cost");
    assert_false(t->selection.priced);
    assert_true(t->selection.breakeven_usd_per_chip_hour > 0);
    const struct dc_reason *cut = reason(t, "sizing.cost");
    assert_int_equal(cut->impact, 0);
    const char *text = dc_reason_text(r, t, cut, buf, sizeof(buf));
    assert_non_null(strstr(text, "No public on-demand price for Test TPU B from any provider"));
    assert_non_null(strstr(text, "ranks after every priced part"));
    assert_non_null(strstr(text, "/chip-hour or less it would match the top pick"));
    assert_true(core_has_warning(r, "unpriced_ranked_last"));
    assert_null(r->recommendations[0].capped_by);
    /* The family summary follows the ranking, not the family rules. */
    assert_int_equal(r->families[0].family, DC_FAMILY_GPU);
    assert_int_equal(r->families[0].score, r->recommendations[0].score);
    assert_true(r->families[1].rule_score > r->families[0].rule_score);
    dc_result_free(r);
    /* Objective time: the same order; an unpriced part never ranks first
     * while a priced one fits, under any objective. */
    json = cJSON_Parse(
        "{\"task\":\"training\",\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},"
        "\"objective\":\"time\"}");
    assert_int_equal(dc_recommend(rs, json, NULL, &r, NULL), DC_OK);
    cJSON_Delete(json);
    dc_ruleset_release(rs);
    assert_string_equal(r->recommendations[0].acc->id, "gpu-a");
    assert_string_equal(core_find(r, "tpu-b", &ex)->capped_by->rule_id, "sizing.cost");
    assert_true(isnan(core_find(r, "tpu-b", &ex)->selection.breakeven_usd_per_chip_hour));
    assert_true(core_has_warning(r, "unpriced_ranked_last"));
    dc_result_free(r);
    /* A budget cannot be checked against no price: tpu-b is excluded. */
    r = run("{\"task\":\"training\",\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},"
            "\"constraints\":{\"budget_usd\":1e9}}");
    t = core_find(r, "tpu-b", &ex);
    assert_true(ex);
    assert_string_equal(t->excluded_by->rule_id, "sizing.budget");
    text = dc_reason_text(r, t, t->excluded_by, buf, sizeof(buf));
    assert_non_null(strstr(text, "No public on-demand price to check the budget"));
    assert_false(core_find(r, "gpu-a", &ex)->sizing.cost_usd > 1e9);
    dc_result_free(r);
    /* Spot: gpu-a's spot price; committed 3 years: none, so unknown. */
    r = run("{\"task\":\"training\",\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},"
            "\"constraints\":{\"pricing\":\"spot\"}}");
    const struct dc_candidate *g = core_find(r, "gpu-a", &ex);
    assert_int_equal(g->sizing.cost_basis, DC_COST_CLOUD);
    assert_true(g->sizing.usd_per_chip_hour == 2.0);
    assert_string_equal(g->sizing.offer->price[DC_PRICING_SPOT].as_of, "2024-12-01");
    text = dc_reason_text(r, g, reason(g, "sizing.cost"), buf, sizeof(buf));
    assert_non_null(strstr(text, "$2.00/chip-hour, spot on aws us-east-1 (test machine 1)"));
    dc_result_free(r);
    r = run("{\"task\":\"training\",\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},"
            "\"constraints\":{\"pricing\":\"committed_3y\",\"budget_usd\":1e9}}");
    assert_int_equal(r->n_recommendations, 0);
    assert_true(core_has_warning(r, "nothing_within_budget"));
    g = core_find(r, "gpu-a", &ex);
    text = dc_reason_text(r, g, g->excluded_by, buf, sizeof(buf));
    assert_non_null(strstr(text, "No public 3-year committed price"));
    dc_result_free(r);
    /* Only the GCP offers count when only GCP is allowed: gpu-a has none. */
    r = run("{\"task\":\"training\",\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},"
            "\"constraints\":{\"providers\":[\"gcp\"]}}");
    assert_int_equal(core_find(r, "gpu-a", &ex)->sizing.cost_basis, DC_COST_UNKNOWN);
    dc_result_free(r);
}

/* On premises: energy is shown, the cost needs a hardware list price. */
static void test_on_prem_cost(void **state)
{
    (void)state;
    char buf[512];
    bool ex;
    /* 1e8 parameters on gpu-a: 100 W? No: the mini catalog lists no power, so
     * neither energy nor cost is known. */
    struct dc_result *r =
        run("{\"task\":\"inference\",\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},"
            "\"constraints\":{\"deployment\":\"on-prem\"}}");
    const struct dc_candidate *g = core_find(r, "gpu-a", &ex);
    assert_false(ex);
    assert_int_equal(g->sizing.cost_basis, DC_COST_UNKNOWN);
    assert_true(isnan(g->sizing.energy_usd));
    const char *text = dc_reason_text(r, g, reason(g, "sizing.cost"), buf, sizeof(buf));
    assert_non_null(strstr(text, "neither its power nor a hardware list price"));
    assert_true(core_has_warning(r, "price_unknown"));
    dc_result_free(r);

    /* With 700 W and a $25,000 list price over 4 years (730 h a month):
     * energy 0.7 kW x 1.5 x $0.1 = $0.105/h; hardware 25000 / 35040 h. */
    char *cat = malloc(sizeof(catalog_ok) + 32);
    const char *at = strstr(catalog_ok, "    on_prem: true\n");
    sprintf(cat, "%.*s    power_watts: 700\n%s", (int)(at - catalog_ok), catalog_ok, at);
    char prices[sizeof(prices_ok) + 160];
    const char *hw = strstr(prices_ok, "hardware: []");
    sprintf(prices,
            "%.*shardware:\n  - {accelerator: gpu-a, usd_per_chip: 25000, "
            "as_of: \"2025-06\", source: https://example.com/h}\n",
            (int)(hw - prices_ok), prices_ok);
    dc_ruleset *rs = NULL;
    assert_int_equal(load4(cat, sizing_ok, rules_ok, prices, &rs, NULL), DC_OK);
    cJSON *json = cJSON_Parse(
        "{\"task\":\"inference\",\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},"
        "\"constraints\":{\"deployment\":\"on-prem\"}}");
    assert_int_equal(dc_recommend(rs, json, NULL, &r, NULL), DC_OK);
    g = core_find(r, "gpu-a", &ex);
    assert_int_equal(g->sizing.cost_basis, DC_COST_ON_PREM);
    assert_null(g->sizing.offer);
    double rate = 0.7 * 1.5 * 0.1 + 25000.0 / (4 * 12 * 730);
    assert_true(fabs(g->sizing.usd_per_chip_hour - rate) < 1e-9);
    assert_true(fabs(g->sizing.energy_usd - 0.105 * 730 * g->sizing.chips) < 1e-6);
    assert_true(fabs(g->sizing.cost_usd - rate * 730 * g->sizing.chips) < 1e-6);
    text = dc_reason_text(r, g, reason(g, "sizing.cost"), buf, sizeof(buf));
    assert_non_null(strstr(text, "on premises"));
    assert_non_null(strstr(text, "amortised over 4 years"));
    dc_result_free(r);
    cJSON_Delete(json);
    /* Hybrid takes the cheaper known: the cloud's $4.90 beats nothing here,
     * but on-prem's ~$0.96 beats $4.90. */
    json = cJSON_Parse(
        "{\"task\":\"inference\",\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},"
        "\"constraints\":{\"deployment\":\"hybrid\"}}");
    assert_int_equal(dc_recommend(rs, json, NULL, &r, NULL), DC_OK);
    assert_int_equal(core_find(r, "gpu-a", &ex)->sizing.cost_basis, DC_COST_ON_PREM);
    dc_result_free(r);
    cJSON_Delete(json);
    dc_ruleset_release(rs);
    free(cat);
}

/* A rule set with a gate and two rules citing one fact. */
static const char rules_gate[] =
    "rules:\n"
    "  - id: tpu-bonus-a\n"
    "    description: A.\n"
    "    source: https://example.com/a\n"
    "    fact: F1.3\n"
    "    when: {\"==\": [{\"var\": \"framework\"}, \"jax\"]}\n"
    "    effect: {families: {tpu: 20}}\n"
    "  - id: tpu-bonus-b\n"
    "    description: B.\n"
    "    source: https://example.com/b\n"
    "    fact: F1.3\n"
    "    when: {\"==\": [{\"var\": \"framework\"}, \"jax\"]}\n"
    "    effect: {accelerators: {tpu-b: 10}}\n"
    "  - id: tpu-bonus-c\n"
    "    description: C.\n"
    "    source: https://example.com/c\n"
    "    fact: F2.9\n"
    "    when: {\"==\": [{\"var\": \"framework\"}, \"jax\"]}\n"
    "    effect: {families: {tpu: 5}}\n"
    "  - id: cuda-team-gate\n"
    "    description: No XLA experience.\n"
    "    source: https://example.com/gate\n"
    "    fact: F1.13\n"
    "    when: {\"==\": [{\"var\": \"team.xla_experience\"}, \"none\"]}\n"
    "    effect: {rank_below: {families: [tpu], below: gpu}}\n";

static void test_gate_and_fact_once(void **state)
{
    (void)state;
    dc_ruleset *rs = NULL;
    if (mini_load_priced_tpu(rules_gate, "3", &rs) != 0)
        fail_msg("the gate rules do not load");
    bool ex;
    cJSON *json = cJSON_Parse(
        "{\"task\":\"training\",\"framework\":\"jax\","
        "\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},\"objective\":\"time\","
        "\"team\":{\"xla_experience\":\"expert\"}}");
    struct dc_result *r = NULL;
    assert_int_equal(dc_recommend(rs, json, NULL, &r, NULL), DC_OK);
    const struct dc_candidate *t = core_find(r, "tpu-b", &ex);
    /* F1.3 twice: the +20 counts, the +10 drops to 0 and names it; F2.9 adds. */
    assert_int_equal(reason(t, "tpu-bonus-a")->impact, 20);
    assert_int_equal(reason(t, "tpu-bonus-b")->impact, 0);
    assert_string_equal(reason(t, "tpu-bonus-b")->counted_with, "tpu-bonus-a");
    assert_string_equal(reason(t, "tpu-bonus-b")->fact, "F1.3");
    assert_int_equal(reason(t, "tpu-bonus-c")->impact, 5);
    assert_int_equal(t->rule_score, 75);
    assert_null(reason(t, "cuda-team-gate")); /* the gate's condition is false */
    assert_string_equal(r->recommendations[0].acc->id, "tpu-b");
    dc_result_free(r);
    cJSON_Delete(json);
    /* No XLA experience: tpu-b still has the most soft points, but the gate
     * holds it after every GPU, and says by which rule (a gate, no points). */
    json = cJSON_Parse(
        "{\"task\":\"training\",\"framework\":\"jax\","
        "\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},\"objective\":\"time\","
        "\"team\":{\"xla_experience\":\"none\"}}");
    assert_int_equal(dc_recommend(rs, json, NULL, &r, NULL), DC_OK);
    assert_string_equal(r->recommendations[0].acc->id, "gpu-a");
    t = core_find(r, "tpu-b", &ex);
    assert_true(t->score < r->recommendations[0].score);
    assert_int_equal(t->selection.gates, 1);
    assert_string_equal(t->capped_by->rule_id, "cuda-team-gate");
    assert_int_equal(reason(t, "cuda-team-gate")->impact, 0);
    assert_int_equal(r->families[0].family, DC_FAMILY_GPU);
    dc_result_free(r);
    cJSON_Delete(json);
    /* No GPU left (allow-list): the gate has nothing to hold it below. */
    json = cJSON_Parse(
        "{\"task\":\"training\",\"framework\":\"jax\","
        "\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},\"objective\":\"time\","
        "\"team\":{\"xla_experience\":\"none\"},"
        "\"constraints\":{\"accelerators\":[\"tpu-b\"]}}");
    assert_int_equal(dc_recommend(rs, json, NULL, &r, NULL), DC_OK);
    assert_null(r->recommendations[0].capped_by);
    assert_int_equal(reason(&r->recommendations[0], "cuda-team-gate")->impact, 0);
    dc_result_free(r);
    cJSON_Delete(json);
    dc_ruleset_release(rs);
}

/* A rule that spends about 180,000 steps: `all` over 300 numbers, each checked
 * against `none` over 300 more that never match. */
static void heavy_rule(char *buf, size_t len, const char *id)
{
    size_t k = (size_t)snprintf(buf, len,
                                "  - id: %s\n    description: Heavy.\n    source: https://e.com/h\n"
                                "    when: {\"all\": [[",
                                id);
    for (int i = 0; i < 300; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%d", i ? "," : "", i);
    k += (size_t)snprintf(buf + k, len - k, "], {\"none\": [[");
    for (int i = 0; i < 300; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%d", i ? "," : "", i);
    snprintf(buf + k, len - k, "], {\"==\": [1, 2]}]}]}\n    effect: {families: {gpu: 5}}\n");
}

/* The rules of one request share DC_RECOMMEND_MAX_RULE_STEPS: past it the rest
 * are skipped with a warning naming where it ran out; `check`'s measure finds
 * the rules that can spend most of it. */
static void test_rule_budget(void **state)
{
    (void)state;
    static char rules[16384];
    size_t k = (size_t)snprintf(rules, sizeof(rules), "rules:\n");
    heavy_rule(rules + k, sizeof(rules) - k, "heavy-1");
    k = strlen(rules);
    heavy_rule(rules + k, sizeof(rules) - k, "heavy-2");
    k = strlen(rules);
    snprintf(rules + k, sizeof(rules) - k,
             "  - id: light\n    description: Light.\n    source: https://e.com/l\n"
             "    when: true\n    effect: {families: {tpu: 5}}\n");
    dc_ruleset *rs = NULL;
    struct dc_diags d;
    dc_diags_init(&d);
    enum dc_status rc = load3(catalog_ok, sizing_ok, rules, &rs, &d);
    if (rc != DC_OK)
        fail_msg("%s: %s", dc_status_name(rc), d.count > 0 ? d.items[0].msg : "");
    dc_diags_cleanup(&d);
    uint64_t steps[3] = {0};
    assert_int_equal(dc_ruleset_rule_steps(rs, steps, NULL), DC_OK);
    assert_true(steps[0] > DC_RULE_STEPS_WARN && steps[1] == steps[0]);
    assert_true(steps[2] < 10); /* a literal condition costs next to nothing */
    cJSON *json = cJSON_Parse("{\"task\":\"training\",\"model\":{\"parameters\":1e8}}");
    struct dc_result *r = NULL;
    assert_int_equal(dc_recommend(rs, json, NULL, &r, NULL), DC_OK);
    /* heavy-1 fits the budget (it is true: none of the numbers is 1 == 2);
     * heavy-2 runs out of it, and light after it never runs. */
    assert_true(core_has_warning(r, "rules_budget_exhausted"));
    const char *msg = NULL;
    for (size_t i = 0; i < r->n_warnings; i++)
        if (strcmp(r->warnings[i].code, "rules_budget_exhausted") == 0)
            msg = r->warnings[i].message;
    assert_non_null(strstr(msg, "rule heavy-2 and the 1 after it were skipped"));
    bool ex;
    assert_non_null(reason(core_find(r, "gpu-a", &ex), "heavy-1"));
    assert_null(reason(core_find(r, "gpu-a", &ex), "heavy-2"));
    assert_null(reason(core_find(r, "tpu-b", &ex), "light"));
    dc_result_free(r);
    cJSON_Delete(json);
    dc_ruleset_release(rs);
    assert_int_equal(dc_ruleset_rule_steps(NULL, steps, NULL), DC_EINVAL);
}

/* rank_below in a rule file: every mistake reported. */
static void test_gate_errors(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"{rank_below: {families: [npu], below: gpu}}", "unknown family in rank_below"},
        {"{rank_below: {families: [tpu], below: npu}}", "unknown family \"npu\""},
        {"{rank_below: {families: [gpu], below: gpu}}", "cannot hold a family below itself"},
        {"{rank_below: {families: [tpu]}}", "missing required field \"below\""},
        {"{rank_below: {families: [tpu], below: gpu, by: 3}}", "unknown key \"by\""},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char rules[512];
        snprintf(rules, sizeof(rules),
                 "rules:\n  - id: g\n    description: G.\n    source: https://example.com/g\n"
                 "    when: true\n    effect: %s\n",
                 bad[i][0]);
        dc_ruleset *rs = NULL;
        struct dc_diags d;
        dc_diags_init(&d);
        assert_int_equal(load3(catalog_ok, sizing_ok, rules, &rs, &d), DC_EVALIDATE);
        bool found = false;
        for (size_t k = 0; k < d.count; k++)
            found = found || (strstr(d.items[k].msg, bad[i][1]) != NULL &&
                              strcmp(d.items[k].id, "g") == 0 && d.items[k].line == 6);
        if (!found)
            fail_msg("no \"%s\" at rules.yaml:6 for %s (first: %s)", bad[i][1], bad[i][0],
                     d.count > 0 ? d.items[0].msg : "none");
        dc_diags_cleanup(&d);
    }
}

/* Every reason renders text; the sizing ones carry their numbers (worked in
 * test_sizing.c). */
static void test_reason_texts(void **state)
{
    (void)state;
    struct dc_result *r = run("{\"task\":\"training\",\"model\":{\"parameters\":7e9,"
                              "\"layers\":32,\"hidden_size\":4096},\"training\":{\"tokens\":1e8}}");
    bool ex;
    const struct dc_candidate *g = core_find(r, "gpu-a", &ex);
    char buf[512];
    size_t seen = 0;
    for (size_t i = 0; i < g->n_reasons; i++) {
        const char *t = dc_reason_text(r, g, &g->reasons[i], buf, sizeof(buf));
        assert_true(strlen(t) > 10);
        if (strcmp(g->reasons[i].rule_id, "sizing.memory") == 0) {
            assert_non_null(strstr(t, "Needs 114 GB"));
            seen++;
        } else if (strcmp(g->reasons[i].rule_id, "sizing.time") == 0) {
            assert_non_null(strstr(t, "About 47.6 min"));
            seen++;
        } else if (strcmp(g->reasons[i].rule_id, "sizing.cost") == 0) {
            assert_non_null(strstr(t, "$15.56"));
            seen++;
        }
    }
    assert_int_equal(seen, 3);
    dc_result_free(r);
}

static void test_availability(void **state)
{
    (void)state;
    cJSON *w = cJSON_Parse(
        "{\"task\":\"training\",\"model\":{\"parameters\":1e8},\"training\":{\"tokens\":1e9},"
        "\"prefer_available\":true}");
    /* One host with all four chips free: the smallest slice (tpu-b-4) fits. */
    struct dc_availability av[1] = {
        {.accelerator_id = "tpu-b", .attached = 4, .free = 4, .memory_free_gb = 64}};
    struct dc_recommend_opts o = {.availability = av,
                                  .n_availability = 1,
                                  .probe_enabled = true,
                                  .probe_source = "probe",
                                  .request_id = "req-1"};
    struct dc_result *r = NULL;
    assert_int_equal(dc_recommend(mini, w, &o, &r, NULL), DC_OK);
    bool ex;
    const struct dc_candidate *t = core_find(r, "tpu-b", &ex);
    assert_true(t->availability.known);
    assert_int_equal(t->availability.free, 4);
    bool bonus = false;
    for (size_t i = 0; i < t->n_reasons; i++)
        bonus = bonus || (strcmp(t->reasons[i].rule_id, "probe.available") == 0 &&
                          t->reasons[i].impact == 20);
    assert_true(bonus);
    assert_string_equal(r->request_id, "req-1");
    const struct dc_candidate *g = core_find(r, "gpu-a", &ex);
    assert_int_equal(g->availability.attached, 0);
    dc_result_free(r);
    cJSON_Delete(w);
}

static void test_deterministic(void **state)
{
    (void)state;
    const char *j = "{\"task\":\"training\",\"framework\":\"jax\",\"model\":{\"parameters\":3e9}}";
    struct dc_result *a = run(j);
    struct dc_result *b = run(j);
    assert_int_equal(a->n_recommendations, b->n_recommendations);
    for (size_t i = 0; i < a->n_recommendations; i++) {
        assert_string_equal(a->recommendations[i].acc->id, b->recommendations[i].acc->id);
        assert_int_equal(a->recommendations[i].score, b->recommendations[i].score);
    }
    dc_result_free(a);
    dc_result_free(b);
}

static void *worker(void *arg)
{
    const char *j = arg;
    cJSON *w = cJSON_Parse(j);
    int bad = 0;
    for (int i = 0; i < 2000 && w != NULL; i++) {
        struct dc_result *r = NULL;
        if (dc_recommend(mini, w, NULL, &r, NULL) != DC_OK || r->n_recommendations == 0)
            bad++;
        dc_result_free(r);
    }
    cJSON_Delete(w);
    return (void *)(intptr_t)bad;
}

static void test_reentrant(void **state)
{
    (void)state;
    pthread_t t[2];
    const char *j1 = "{\"task\":\"training\",\"framework\":\"jax\",\"model\":{\"parameters\":3e9}}";
    const char *j2 = "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}}";
    assert_int_equal(pthread_create(&t[0], NULL, worker, (void *)(uintptr_t)j1), 0);
    assert_int_equal(pthread_create(&t[1], NULL, worker, (void *)(uintptr_t)j2), 0);
    void *r0 = NULL, *r1 = NULL;
    pthread_join(t[0], &r0);
    pthread_join(t[1], &r1);
    assert_int_equal((intptr_t)r0, 0);
    assert_int_equal((intptr_t)r1, 0);
}

static void test_result_outlives_ruleset_handle(void **state)
{
    (void)state;
    dc_ruleset *rs = NULL;
    assert_int_equal(load3(catalog_ok, sizing_ok, rules_ok, &rs, NULL), DC_OK);
    cJSON *w = cJSON_Parse("{\"task\":\"training\",\"model\":{\"parameters\":1e8}}");
    struct dc_result *r = NULL;
    assert_int_equal(dc_recommend(rs, w, NULL, &r, NULL), DC_OK);
    /* A reload drops the server's reference; the result still reads rule strings. */
    dc_ruleset_release(rs);
    assert_non_null(r->recommendations[0].acc->name);
    char buf[256];
    assert_non_null(dc_reason_text(r, &r->recommendations[0], &r->recommendations[0].reasons[0],
                                   buf, sizeof(buf)));
    dc_result_free(r);
    cJSON_Delete(w);
}

/* Rules on the sized configuration (sized.*): an exclusion is a constraint
 * each configuration must meet, so the part is sized in one that meets it,
 * and excluded by the rule only when none does; a score impact counts on the
 * configuration picked. The 7B job of test_reason_texts holds on 2 chips and is picked on 4. */
static void test_sized_rules(void **state)
{
    (void)state;
    static const char job[] = "{\"task\":\"training\",\"model\":{\"parameters\":7e9,"
                              "\"layers\":32,\"hidden_size\":4096},\"training\":{\"tokens\":1e8}}";
    static const char fmt[] = "rules:\n  - id: sized-rule\n    description: D.\n"
                              "    source: https://example.com/s\n    when: %s\n"
                              "    effect: %s\n";
    static const struct {
        const char *when, *effect;
        unsigned chips; /* gpu-a's pick; 0: excluded by the rule */
        int impact;     /* the rule's reason on gpu-a (-999: none) */
    } cases[] = {
        {"{\">\": [{\"var\": \"sized.chips\"}, 2]}", "{exclude: {accelerators: [gpu-a]}}", 2, -999},
        {"{\">=\": [{\"var\": \"sized.chips\"}, 1]}", "{exclude: {accelerators: [gpu-a]}}", 0,
         -999},
        {"{\"==\": [{\"var\": \"sized.replicas\"}, 1]}", "{accelerators: {gpu-a: 7}}", 4, 7},
        {"{\">\": [{\"var\": \"sized.memory_gb\"}, 1e6]}", "{accelerators: {gpu-a: 7}}", 4, -999},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char rules[512];
        snprintf(rules, sizeof(rules), fmt, cases[i].when, cases[i].effect);
        dc_ruleset *rs = NULL;
        struct dc_diags d;
        dc_diags_init(&d);
        if (load3(catalog_ok, sizing_ok, rules, &rs, &d) != DC_OK)
            fail_msg("%s: %s", rules, d.count > 0 ? d.items[0].msg : "?");
        dc_diags_cleanup(&d);
        cJSON *json = cJSON_Parse(job);
        struct dc_result *r = NULL;
        assert_int_equal(dc_recommend(rs, json, NULL, &r, NULL), DC_OK);
        bool ex;
        const struct dc_candidate *g = core_find(r, "gpu-a", &ex);
        if (cases[i].chips == 0) {
            assert_true(ex);
            assert_string_equal(g->excluded_by->rule_id, "sized-rule");
        } else {
            assert_false(ex);
            assert_int_equal(g->sizing.chips, cases[i].chips);
            const struct dc_reason *why = reason(g, "sized-rule");
            if (cases[i].impact == -999)
                assert_null(why);
            else
                assert_int_equal(why->impact, cases[i].impact);
        }
        /* The TPU is not reached by the rule. */
        assert_null(reason(core_find(r, "tpu-b", &ex), "sized-rule"));
        dc_result_free(r);
        cJSON_Delete(json);
        dc_ruleset_release(rs);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invalid_workloads),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_rules_and_exclusions),
        cmocka_unit_test(test_warnings_nothing_fits),
        cmocka_unit_test(test_low_confidence_price),
        cmocka_unit_test(test_unknown_cost_gates),
        cmocka_unit_test(test_on_prem_cost),
        cmocka_unit_test(test_gate_and_fact_once),
        cmocka_unit_test(test_gate_errors),
        cmocka_unit_test(test_rule_budget),
        cmocka_unit_test(test_reason_texts),
        cmocka_unit_test(test_availability),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_reentrant),
        cmocka_unit_test(test_result_outlives_ruleset_handle),
        cmocka_unit_test(test_sized_rules),
    };
    return cmocka_run_group_tests_name("engine", tests, setup, teardown);
}
