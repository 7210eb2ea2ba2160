/* tests/unit/core/test_words.c -- words as users mean them (issue 29), on the
 * shipped rules: `tf32` is its own precision word and plain `fp32` IEEE FP32;
 * int4 serving on a part without int4 math points to weight-only
 * quantization, and that suggestion, followed, is served there; a job that
 * fits nowhere offers LoRA and QLoRA, each of which, followed, fits; no
 * silent default: over every workload of the decision table, each default
 * the parsed workload records is warned about, naming its field, and listed
 * among the assumptions where it is a number. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core_run.h"
#include "dc/explain.h"
#include "default_rules.h"
#include "read_file.h"

static dc_ruleset *rs;

static int setup(void **state)
{
    return test_default_rules_setup(&rs, state);
}

static int teardown(void **state)
{
    return test_default_rules_teardown(state);
}

static const char *reason_of(const struct dc_result *r, const char *id, char *buf, size_t len)
{
    bool excluded = false;
    const struct dc_candidate *c = core_find(r, id, &excluded);
    if (!excluded || c->excluded_by == NULL)
        return NULL;
    return dc_reason_text(r, c, c->excluded_by, buf, len);
}

static void precision_words(void **state)
{
    (void)state;
    struct run r =
        core_run(rs, "{\"task\":\"training\",\"precision\":\"tf32\",\"model\":"
                     "{\"parameters\":1e9},\"constraints\":{\"accelerators\":[\"h100\"]}}");
    assert_string_equal(dc_workload_precision(&r.res->workload), "tf32");
    assert_int_equal(r.res->workload.precision, DC_PREC_FP32);
    assert_true(r.res->recommendations[0].sizing.peak_tflops > 400);
    core_done(&r);
    r = core_run(rs, "{\"task\":\"training\",\"precision\":\"fp32\",\"model\":"
                     "{\"parameters\":1e9},\"constraints\":{\"accelerators\":[\"h100\"]}}");
    assert_string_equal(dc_workload_precision(&r.res->workload), "fp32");
    assert_true(r.res->recommendations[0].sizing.peak_tflops < 100);
    core_done(&r);
}

static void int4_points_to_weight_only(void **state)
{
    (void)state;
    char buf[600];
    struct run r =
        core_run(rs, "{\"task\":\"inference\",\"precision\":\"int4\",\"model\":"
                     "{\"name\":\"llama-3.1-8b\"},\"inference\":{\"requests_per_second\":"
                     "2,\"input_tokens\":512,\"output_tokens\":128}}");
    const char *h100 = reason_of(r.res, "h100", buf, sizeof(buf));
    assert_non_null(h100);
    assert_non_null(strstr(h100, "give quantization awq or gptq with precision bf16"));
    const char *mi = reason_of(r.res, "mi300x", buf, sizeof(buf));
    assert_non_null(mi);
    assert_null(strstr(mi, "awq")); /* AWQ's kernels do not run there */
    core_done(&r);
    /* The suggestion, followed: H100 serves it. */
    r = core_run(rs, "{\"task\":\"inference\",\"precision\":\"bf16\",\"quantization\":\"awq\","
                     "\"model\":{\"name\":\"llama-3.1-8b\"},\"inference\":{\"requests_per_second\":"
                     "2,\"input_tokens\":512,\"output_tokens\":128}}");
    bool excluded = true;
    (void)core_find(r.res, "h100", &excluded);
    assert_false(excluded);
    core_done(&r);
}

static void no_fit_offers_verified_changes(void **state)
{
    (void)state;
    struct run r = core_run(rs, "{\"task\":\"fine-tuning\",\"model\":{\"parameters\":13e9},"
                                "\"constraints\":{\"max_accelerators\":1}}");
    const char *msg = NULL;
    for (size_t i = 0; i < r.res->n_warnings; i++)
        if (strcmp(r.res->warnings[i].code, "nothing_fits_memory") == 0)
            msg = r.res->warnings[i].message;
    assert_non_null(msg);
    assert_null(strstr(msg, "lower precision"));
    assert_non_null(strstr(msg, "training.method lora holds it"));
    assert_non_null(strstr(msg, "training.method qlora holds it"));
    core_done(&r);
    /* Each, followed, fits within the same limit. */
    static const char *const methods[] = {"lora", "qlora"};
    for (size_t i = 0; i < 2; i++) {
        char json[300];
        snprintf(json, sizeof(json),
                 "{\"task\":\"fine-tuning\",\"model\":{\"parameters\":13e9},\"training\":"
                 "{\"method\":\"%s\"},\"constraints\":{\"max_accelerators\":1}}",
                 methods[i]);
        r = core_run(rs, json);
        assert_true(r.res->n_recommendations > 0);
        assert_true(r.res->recommendations[0].sizing.fits);
        assert_false(core_has_warning(r.res, "nothing_fits_memory"));
        core_done(&r);
    }
}

static bool has_assumption(const struct dc_result *r, const char *name)
{
    for (size_t i = 0; i < r->n_assumptions; i++)
        if (strcmp(r->assumptions[i].name, name) == 0)
            return true;
    return false;
}

/* Each default of one result: its warning, and its assumption. */
static void check_defaults(const char *name, const struct dc_result *r)
{
    const struct dc_workload *w = &r->workload;
    struct {
        bool on;
        const char *warning, *assumption;
    } d[] = {
        {w->task == DC_TASK_INFERENCE && w->request_tokens_defaulted, "assumed_request_tokens",
         "input_tokens"},
        {w->task == DC_TASK_INFERENCE && w->output_tokens_defaulted, "assumed_request_tokens",
         "output_tokens"},
        {w->task != DC_TASK_INFERENCE && w->tokens_defaulted && !(w->samples > 0),
         "assumed_training_tokens", "training_tokens"},
        {strcmp(w->architecture, "moe") == 0 && w->active_defaulted, "assumed_active_parameters",
         "active_parameters"},
        {w->method == DC_METHOD_RL && w->rl_rollout_share_defaulted, "assumed_rollout_share",
         "rl_rollout_share"},
    };
    for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
        if (!d[i].on || r->n_recommendations == 0)
            continue;
        if (!core_has_warning(r, d[i].warning))
            fail_msg("%s: a default without its warning %s", name, d[i].warning);
        if (!has_assumption(r, d[i].assumption))
            fail_msg("%s: a default not listed among the assumptions: %s", name, d[i].assumption);
    }
}

static void no_silent_default(void **state)
{
    (void)state;
    char *text = test_read_file(AA_FIXTURES_DIR "/cases.json", 1u << 20);
    assert_non_null(text);
    cJSON *cases = cJSON_Parse(text);
    free(text);
    assert_non_null(cases);
    size_t checked = 0;
    const cJSON *c = NULL;
    cJSON_ArrayForEach(c, cases)
    {
        const cJSON *wl = cJSON_GetObjectItem(c, "workload");
        struct dc_result *r = NULL;
        struct dc_error err;
        dc_error_clear(&err);
        if (dc_recommend(rs, wl, NULL, &r, &err) != DC_OK)
            continue; /* a case that expects a refusal */
        check_defaults(cJSON_GetObjectItem(c, "name")->valuestring, r);
        checked++;
        dc_result_free(r);
    }
    cJSON_Delete(cases);
    assert_true(checked > 200);
}

/* Every change an explanation offers, re-run: it gives the pick it names,
 * that pick meets the targets the base pick met, and the change is one the
 * team can make (no precision the model needs new weights for, no
 * `portable`, no lower chip limit). */
static void check_explanation(const char *json)
{
    static const char *const no_precision[] = {"fp32", "fp64", "fp4", "int4", "int8", NULL};
    cJSON *w = cJSON_Parse(json);
    struct dc_result *base = NULL;
    assert_int_equal(dc_recommend(rs, w, NULL, &base, NULL), DC_OK);
    struct dc_explain_opts eo = {DC_EXPLAIN_CHANGES, 0, 0};
    struct dc_explanation *e = NULL;
    assert_int_equal(dc_explain(rs, w, NULL, base, &eo, &e, NULL), DC_OK);
    bool base_meets =
        base->n_recommendations > 0 && base->recommendations[0].selection.meets_targets;
    size_t seen = 0;
    for (size_t t = 0; t < e->n_targets; t++)
        for (size_t k = 0; k < e->targets[t].n_changes; k++) {
            const struct dc_change *ch = &e->targets[t].changes[k];
            assert_string_not_equal(ch->field, "/constraints/portable");
            if (strcmp(ch->field, "/precision") == 0 && cJSON_IsString(ch->to))
                for (size_t i = 0; no_precision[i] != NULL; i++)
                    if (strcmp(ch->to->valuestring, no_precision[i]) == 0 &&
                        base->workload.task == DC_TASK_INFERENCE)
                        fail_msg("%s: precision %s offered", json, no_precision[i]);
            if (strcmp(ch->field, "/constraints/max_accelerators") == 0 && cJSON_IsNumber(ch->to) &&
                isfinite(base->workload.max_accelerators))
                assert_true(ch->to->valuedouble >= base->workload.max_accelerators);
            cJSON *changed = dc_workload_with(w, ch->field, ch->to);
            assert_non_null(changed);
            struct dc_result *r = NULL;
            assert_int_equal(dc_recommend(rs, changed, NULL, &r, NULL), DC_OK);
            assert_true(r->n_recommendations > 0);
            if (r->recommendations[0].acc != ch->top)
                fail_msg("%s: %s does not give %s", json, ch->field, ch->top->id);
            if (base_meets && !r->recommendations[0].selection.meets_targets)
                fail_msg("%s: %s gives a pick that misses a target", json, ch->field);
            dc_result_free(r);
            cJSON_Delete(changed);
            seen++;
        }
    assert_true(seen > 0);
    dc_explanation_free(e);
    dc_result_free(base);
    cJSON_Delete(w);
}

/* A default that can move the answer more than 2x is named beside the pick;
 * an answer that rests on none has no such line. */
static void wide_defaults_beside_the_pick(void **state)
{
    (void)state;
    char note[600];
    struct run r = core_run(rs, "{\"task\":\"inference\",\"model\":{\"architecture\":"
                                "\"transformer\",\"parameters\":8e9},\"inference\":"
                                "{\"requests_per_second\":5}}");
    const char *got = dc_defaults_note(r.res, note, sizeof(note));
    assert_non_null(got);
    assert_non_null(strstr(got, "model.kv_heads"));
    assert_non_null(strstr(got, "inference.input_tokens"));
    assert_true(core_has_warning(r.res, "assumed_kv_heads"));
    core_done(&r);
    r = core_run(rs, "{\"task\":\"inference\",\"model\":{\"name\":\"llama-3.1-8b\"},"
                     "\"inference\":{\"requests_per_second\":5,\"input_tokens\":900,"
                     "\"output_tokens\":100}}");
    assert_null(dc_defaults_note(r.res, note, sizeof(note)));
    core_done(&r);
}

static void explanations_a_team_can_act_on(void **state)
{
    (void)state;
    check_explanation("{\"task\":\"inference\",\"model\":{\"name\":\"llama-3.1-8b\"},"
                      "\"inference\":{\"requests_per_second\":20,\"latency_ms_p99\":40,"
                      "\"input_tokens\":1000,\"output_tokens\":200},\"constraints\":"
                      "{\"max_accelerators\":8}}");
    check_explanation("{\"task\":\"fine-tuning\",\"model\":{\"name\":\"llama-3.1-8b\"},"
                      "\"training\":{\"tokens\":2e9},\"constraints\":{\"providers\":"
                      "[\"aws\",\"gcp\"],\"max_accelerators\":4}}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(precision_words),
        cmocka_unit_test(int4_points_to_weight_only),
        cmocka_unit_test(no_fit_offers_verified_changes),
        cmocka_unit_test(no_silent_default),
        cmocka_unit_test(wide_defaults_beside_the_pick),
        cmocka_unit_test(explanations_a_team_can_act_on),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
