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

#include "dc/engine.h"
#include "mini_rules.h"

static dc_ruleset *mini;

static int setup(void **state)
{
    (void)state;
    return load3(catalog_ok, sizing_ok, rules_ok, &mini, NULL) == DC_OK ? 0 : -1;
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

static const struct dc_candidate *find(const struct dc_result *r, const char *id, bool *excluded)
{
    for (size_t i = 0; i < r->n_recommendations; i++) {
        if (strcmp(r->recommendations[i].acc->id, id) == 0) {
            *excluded = false;
            return &r->recommendations[i];
        }
    }
    for (size_t i = 0; i < r->n_excluded; i++) {
        if (strcmp(r->excluded[i].acc->id, id) == 0) {
            *excluded = true;
            return &r->excluded[i];
        }
    }
    fail_msg("candidate %s not in result", id);
    return NULL;
}

static bool has_warning(const struct dc_result *r, const char *code)
{
    for (size_t i = 0; i < r->n_warnings; i++) {
        if (strcmp(r->warnings[i].code, code) == 0)
            return true;
    }
    return false;
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
    const struct dc_candidate *t = find(r, "tpu-b", &ex);
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
    const struct dc_candidate *g = find(r, "gpu-a", &ex);
    t = find(r, "tpu-b", &ex);
    assert_int_equal(g->rule_score, 45);
    assert_int_equal(t->rule_score, 65);
    assert_string_equal(t->reasons[0].rule_id, "jax-likes-tpu");
    assert_int_equal(t->reasons[0].impact, 15);
    assert_string_equal(t->reasons[0].message, "JAX runs natively on TPUs.");
    assert_int_equal(g->reasons[0].impact, -5);
    dc_result_free(r);
    /* On-prem: the TPU is not sold on premises. */
    r = run("{\"task\":\"training\",\"model\":{\"parameters\":1e8},"
            "\"constraints\":{\"deployment\":\"on-prem\"}}");
    t = find(r, "tpu-b", &ex);
    assert_true(ex);
    assert_string_equal(t->excluded_by->rule_id, "catalog.on-prem");
    dc_result_free(r);
    /* Providers: aws only leaves the GPU. */
    r = run("{\"task\":\"training\",\"model\":{\"parameters\":1e8},"
            "\"constraints\":{\"providers\":[\"aws\"]}}");
    t = find(r, "tpu-b", &ex);
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
    assert_true(has_warning(r, "nothing_fits_memory"));
    assert_true(has_warning(r, "no_candidates"));
    bool ex;
    const struct dc_candidate *g = find(r, "gpu-a", &ex);
    assert_string_equal(g->excluded_by->rule_id, "sizing.memory");
    char buf[512];
    const char *text = dc_reason_text(r, g, g->excluded_by, buf, sizeof(buf));
    assert_non_null(strstr(text, "constraints.max_accelerators"));
    dc_result_free(r);
    /* Budget: $1 cannot pay for 7B training: excluded by budget, warning. */
    r = run("{\"task\":\"training\",\"model\":{\"parameters\":7e9},"
            "\"training\":{\"tokens\":1e8},\"constraints\":{\"budget_usd\":1,"
            "\"providers\":[\"aws\"]}}");
    g = find(r, "gpu-a", &ex);
    assert_true(ex);
    assert_string_equal(g->excluded_by->rule_id, "sizing.budget");
    assert_true(has_warning(r, "nothing_within_budget"));
    dc_result_free(r);
    /* A price dated 2024-12 is over 540 days old by now: price_stale. */
    r = run("{\"task\":\"training\",\"model\":{\"parameters\":1e8},"
            "\"constraints\":{\"providers\":[\"aws\"]}}");
    assert_string_equal(r->recommendations[0].acc->id, "gpu-a");
    assert_true(has_warning(r, "price_stale"));
    dc_result_free(r);
    /* Unknown price at the top: price_unknown. */
    r = run("{\"task\":\"training\",\"framework\":\"jax\",\"model\":{\"parameters\":1e8}}");
    assert_string_equal(r->recommendations[0].acc->id, "tpu-b");
    assert_true(has_warning(r, "price_unknown"));
    dc_result_free(r);
}

/* A low-confidence price keeps half of its lead over an unknown price (50) and is
 * flagged on the top recommendation. */
static void test_low_confidence_price(void **state)
{
    (void)state;
    char catalog[sizeof(catalog_ok) + 32];
    const char *high = strstr(catalog_ok, "confidence: high");
    assert_non_null(high);
    int n = snprintf(catalog, sizeof(catalog), "%.*sconfidence: low%s", (int)(high - catalog_ok),
                     catalog_ok, high + strlen("confidence: high"));
    assert_true(n > 0 && (size_t)n < sizeof(catalog));
    dc_ruleset *low = NULL;
    struct dc_diags d;
    dc_diags_init(&d);
    enum dc_status rc = load3(catalog, sizing_ok, rules_ok, &low, &d);
    if (rc != DC_OK)
        fail_msg("%s: %s", dc_status_name(rc), d.count > 0 ? d.items[0].msg : "");
    dc_diags_cleanup(&d);
    static const char w[] = "{\"task\":\"training\",\"model\":{\"parameters\":1e8},"
                            "\"objective\":\"cost\"}";
    cJSON *json = cJSON_Parse(w);
    struct dc_result *firm = NULL, *soft = NULL;
    assert_int_equal(dc_recommend(mini, json, NULL, &firm, NULL), DC_OK);
    assert_int_equal(dc_recommend(low, json, NULL, &soft, NULL), DC_OK);
    bool ex;
    /* gpu-a is the only priced candidate: the best cost, 100 points when firm. */
    assert_int_equal(find(firm, "gpu-a", &ex)->objective_score, 100);
    assert_int_equal(find(soft, "gpu-a", &ex)->objective_score, 75);
    assert_int_equal(find(soft, "tpu-b", &ex)->objective_score, 50); /* unknown price */
    assert_false(has_warning(firm, "price_low_confidence"));
    assert_string_equal(soft->recommendations[0].acc->id, "gpu-a");
    assert_true(has_warning(soft, "price_low_confidence"));
    dc_result_free(firm);
    dc_result_free(soft);
    cJSON_Delete(json);
    dc_ruleset_release(low);
}

/* Every reason renders text; the sizing ones carry their numbers (worked in
 * test_sizing.c). */
static void test_reason_texts(void **state)
{
    (void)state;
    struct dc_result *r = run("{\"task\":\"training\",\"model\":{\"parameters\":7e9,"
                              "\"layers\":32,\"hidden_size\":4096},\"training\":{\"tokens\":1e8}}");
    bool ex;
    const struct dc_candidate *g = find(r, "gpu-a", &ex);
    char buf[512];
    size_t seen = 0;
    for (size_t i = 0; i < g->n_reasons; i++) {
        const char *t = dc_reason_text(r, g, &g->reasons[i], buf, sizeof(buf));
        assert_true(strlen(t) > 10);
        if (strcmp(g->reasons[i].rule_id, "sizing.memory") == 0) {
            assert_non_null(strstr(t, "Needs 113.6 GB"));
            seen++;
        } else if (strcmp(g->reasons[i].rule_id, "sizing.time") == 0) {
            assert_non_null(strstr(t, "About 1.5 hours"));
            seen++;
        } else if (strcmp(g->reasons[i].rule_id, "sizing.cost") == 0) {
            assert_non_null(strstr(t, "$14.45"));
            seen++;
        }
    }
    assert_int_equal(seen, 3);
    dc_result_free(r);
}

static void test_availability(void **state)
{
    (void)state;
    cJSON *w = cJSON_Parse("{\"task\":\"training\",\"model\":{\"parameters\":1e8},"
                           "\"prefer_available\":true}");
    struct dc_availability av[1] = {{"tpu-b", 4, 2, 64}};
    struct dc_recommend_opts o = {av, 1, true, "probe", false, "req-1"};
    struct dc_result *r = NULL;
    assert_int_equal(dc_recommend(mini, w, &o, &r, NULL), DC_OK);
    bool ex;
    const struct dc_candidate *t = find(r, "tpu-b", &ex);
    assert_true(t->availability.known);
    assert_int_equal(t->availability.free, 2);
    bool bonus = false;
    for (size_t i = 0; i < t->n_reasons; i++)
        bonus = bonus || (strcmp(t->reasons[i].rule_id, "probe.available") == 0 &&
                          t->reasons[i].impact == 10);
    assert_true(bonus);
    assert_string_equal(r->request_id, "req-1");
    const struct dc_candidate *g = find(r, "gpu-a", &ex);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invalid_workloads),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_rules_and_exclusions),
        cmocka_unit_test(test_warnings_nothing_fits),
        cmocka_unit_test(test_low_confidence_price),
        cmocka_unit_test(test_reason_texts),
        cmocka_unit_test(test_availability),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_reentrant),
        cmocka_unit_test(test_result_outlives_ruleset_handle),
    };
    return cmocka_run_group_tests_name("engine", tests, setup, teardown);
}
