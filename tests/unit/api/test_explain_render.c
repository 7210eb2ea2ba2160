/* tests/unit/api/test_explain_render.c -- api/src/explain_render.c: the
 * `changes` and `robustness` sections of a Recommendation body, checked
 * against the contract's Recommendation schema, and the CLI table's "What
 * would change the answer", on the rule set of tests/support/mini_rules.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/convert.h"
#include "api/openapi.h"
#include "api/schema.h"
#include "dc/embedded.h"
#include "mini_rules.h"
#include "dc/explain.h"

static dc_ruleset *rs, *rs9; /* rs9: tpu-b priced at $9 a chip-hour */
static api_contract *contract;
static api_schema *recommendation;

static int setup(void **state)
{
    (void)state;
    if (mini_load(&rs) != 0 || mini_load_priced_tpu(rules_ok, "9", &rs9) != 0 ||
        api_contract_load_embedded(aa_embedded_files, &contract, NULL) != DC_OK)
        return -1;
    return api_schema_compile(api_contract_root(contract), "#/components/schemas/Recommendation",
                              &recommendation, NULL) == DC_OK
               ? 0
               : -1;
}

static int teardown(void **state)
{
    (void)state;
    api_schema_free(recommendation);
    api_contract_free(contract);
    dc_ruleset_release(rs);
    dc_ruleset_release(rs9);
    return 0;
}

/* One workload recommended, explained (`kinds`) and rendered. */
struct rendered {
    cJSON *w;
    struct dc_result *res;
    struct dc_explanation *e;
    cJSON *body;
};

static void render_on(dc_ruleset *set, const char *json, unsigned kinds, struct rendered *out)
{
    out->w = cJSON_Parse(json);
    struct dc_recommend_opts o = {.request_id = "abc"};
    assert_int_equal(dc_recommend(set, out->w, &o, &out->res, NULL), DC_OK);
    struct dc_explain_opts eo = {kinds, 0, 0};
    assert_int_equal(dc_explain(set, out->w, &o, out->res, &eo, &out->e, NULL), DC_OK);
    size_t len = 0;
    char *text = api_result_render_explained(out->res, out->e, &len);
    assert_non_null(text);
    out->body = cJSON_ParseWithLength(text, len);
    free(text);
    assert_non_null(out->body);
    struct api_schema_result vr = {0};
    assert_int_equal(api_schema_validate(recommendation, out->body, 0, &vr, NULL), DC_OK);
    if (!vr.valid)
        fail_msg("not a Recommendation: %s: %s", vr.items[0].pointer, vr.items[0].message);
    api_schema_result_cleanup(&vr);
}

static void render(const char *json, unsigned kinds, struct rendered *out)
{
    render_on(rs, json, kinds, out);
}

/* Objective time, both parts priced: tpu-b is the faster and the dearer. */
#define TIME_JOB                                                                                   \
    "{\"task\":\"training\",\"framework\":\"jax\",\"model\":{\"parameters\":3e9},"                 \
    "\"objective\":\"time\",\"team\":{\"cuda_experience\":\"some\"}}"

static void done(struct rendered *r)
{
    cJSON_Delete(r->body);
    dc_explanation_free(r->e);
    dc_result_free(r->res);
    cJSON_Delete(r->w);
}

static const cJSON *get(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (v == NULL)
        fail_msg("no member %s", key);
    return v;
}

static void test_sections(void **state)
{
    (void)state;
    struct rendered r;
    render_on(rs9, TIME_JOB, DC_EXPLAIN_CHANGES | DC_EXPLAIN_ROBUSTNESS, &r);
    const cJSON *changes = get(r.body, "changes");
    assert_true(cJSON_IsNull(get(changes, "stopped")));
    assert_int_equal(get(changes, "evaluations")->valueint, (int)r.e->changes_usage.evaluations);
    const cJSON *top = cJSON_GetArrayItem(get(changes, "targets"), 0);
    assert_string_equal(get(top, "role")->valuestring, "top");
    assert_int_equal(get(top, "rank")->valueint, 1);
    assert_true(cJSON_IsNull(get(top, "excluded_by")));
    /* gpu-a, second: a budget threshold with the value on its other side. */
    const cJSON *second = cJSON_GetArrayItem(get(changes, "targets"), 1);
    assert_string_equal(get(second, "accelerator")->valuestring, "gpu-a");
    const cJSON *budget = cJSON_GetArrayItem(get(second, "changes"), 0);
    assert_string_equal(get(budget, "field")->valuestring, "/constraints/budget_usd");
    assert_true(cJSON_IsNull(get(budget, "from")));
    assert_string_equal(get(budget, "threshold")->valuestring, "below");
    assert_true(get(budget, "not_at")->valuedouble > get(budget, "to")->valuedouble);
    assert_true(cJSON_IsNull(get(budget, "rule")));
    assert_true(cJSON_IsFalse(get(budget, "price_missing")));
    assert_string_equal(get(budget, "top")->valuestring, "gpu-a");
    assert_non_null(strstr(get(budget, "summary")->valuestring, " (not at $"));
    /* A categorical change has no threshold. (No lower max_accelerators
     * before it: a limit that only cuts the parts above off is an artefact
     * of the cap, never proposed, issue 29.) */
    const cJSON *last = cJSON_GetArrayItem(get(second, "changes"), 1);
    assert_true(cJSON_IsNull(get(last, "threshold")));
    assert_true(cJSON_IsNull(get(last, "not_at")));
    /* Spot: tpu-b has no spot price, and the change says that is why. */
    assert_string_equal(get(last, "field")->valuestring, "/constraints/pricing");
    assert_true(cJSON_IsTrue(get(last, "price_missing")));
    const cJSON *rob = get(r.body, "robustness");
    assert_string_equal(get(rob, "top")->valuestring, "tpu-b");
    assert_int_equal(get(rob, "margin")->valueint,
                     get(rob, "top_score")->valueint - get(rob, "runner_up_score")->valueint);
    assert_string_equal(get(rob, "verdict")->valuestring, "fragile");
    assert_true(cJSON_IsTrue(get(rob, "top_priced")));
    const cJSON *price = cJSON_GetArrayItem(get(rob, "checks"), 0);
    assert_string_equal(get(price, "kind")->valuestring, "price");
    assert_true(get(price, "perturbation")->valuedouble == DC_EXPLAIN_PERTURBATION);
    assert_true(cJSON_IsNull(get(price, "flipped_by")));
    done(&r);
}

static void test_fragile_and_absent(void **state)
{
    (void)state;
    struct rendered r;
    /* tpu-b 30% slower and gpu-a 30% faster make gpu-a the faster. */
    render_on(rs9, TIME_JOB, DC_EXPLAIN_ROBUSTNESS, &r);
    assert_null(cJSON_GetObjectItemCaseSensitive(r.body, "changes"));
    const cJSON *rob = get(r.body, "robustness");
    assert_string_equal(get(rob, "verdict")->valuestring, "fragile");
    const cJSON *flip = get(cJSON_GetArrayItem(get(rob, "checks"), 1), "flipped_by");
    assert_string_equal(get(flip, "top")->valuestring, "gpu-a");
    const cJSON *scaled = cJSON_GetArrayItem(get(flip, "scaled"), 0);
    assert_string_equal(get(scaled, "accelerator")->valuestring, "tpu-b");
    assert_true(get(scaled, "factor")->valuedouble == 1 - DC_EXPLAIN_PERTURBATION);
    scaled = cJSON_GetArrayItem(get(flip, "scaled"), 1);
    assert_string_equal(get(scaled, "accelerator")->valuestring, "gpu-a");
    assert_true(get(scaled, "factor")->valuedouble == 1 + DC_EXPLAIN_PERTURBATION);
    assert_true(get(flip, "others")->valuedouble == 1);
    done(&r);
    /* Nothing recommended: the robustness has nothing to hold. */
    render("{\"task\":\"training\",\"model\":{\"parameters\":1e9},"
           "\"constraints\":{\"budget_usd\":1}}",
           DC_EXPLAIN_ROBUSTNESS, &r);
    rob = get(r.body, "robustness");
    assert_true(cJSON_IsNull(get(rob, "top")));
    assert_true(cJSON_IsNull(get(rob, "margin")));
    assert_true(cJSON_IsNull(get(rob, "verdict")));
    assert_int_equal(cJSON_GetArraySize(get(rob, "checks")), 0);
    done(&r);
}

static void test_no_explanation(void **state)
{
    (void)state;
    cJSON *w = cJSON_Parse("{\"task\":\"training\",\"model\":{\"parameters\":1e9}}");
    struct dc_recommend_opts o = {.request_id = "abc"};
    struct dc_result *res = NULL;
    assert_int_equal(dc_recommend(rs, w, &o, &res, NULL), DC_OK);
    size_t a_len = 0, b_len = 0;
    char *a = api_result_render(res, &a_len);
    char *b = api_result_render_explained(res, NULL, &b_len);
    assert_int_equal(a_len, b_len);
    assert_memory_equal(a, b, a_len);
    assert_null(strstr(a, "\"changes\""));
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    api_explanation_print_table(NULL, fp);
    fclose(fp);
    assert_int_equal(len, 0);
    free(buf);
    free(a);
    free(b);
    dc_result_free(res);
    cJSON_Delete(w);
}

static void test_table(void **state)
{
    (void)state;
    struct rendered r;
    render_on(rs9, TIME_JOB, DC_EXPLAIN_CHANGES | DC_EXPLAIN_ROBUSTNESS, &r);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    api_explanation_print_table(r.e, fp);
    fclose(fp);
    assert_non_null(strstr(buf, "\nWhat would change the answer:\n"));
    assert_non_null(strstr(buf, "\n  tpu-b is fragile, "));
    assert_non_null(strstr(buf, " points ahead of gpu-a.\n"));
    assert_non_null(strstr(buf, "\n    price  Test TPU B stays the top pick"));
    assert_non_null(strstr(buf, "\n  tpu-b (top):\n    - Test GPU A replaces Test TPU B"));
    assert_non_null(strstr(buf, "\n  gpu-a (runner_up):\n    - Test GPU A becomes the top pick at "
                                "a budget of $"));
    assert_null(strstr(buf, "cut short"));
    free(buf);
    done(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sections),
        cmocka_unit_test(test_fragile_and_absent),
        cmocka_unit_test(test_no_explanation),
        cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests_name("explain_render", tests, setup, teardown);
}
