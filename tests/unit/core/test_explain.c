/* tests/unit/core/test_explain.c -- core/src/explain/counterfactual.c and cf_*.c on the
 * hand-checkable rule set of tests/support/mini_rules.h (gpu-a priced, tpu-b
 * not; fp64 excludes TPUs): each kind of threshold, categorical changes,
 * robustness, the evaluation and time budgets, the workload editor, the
 * `explain` field, the price and MFU factors of dc_recommend_opts, and the
 * texts. test_explain_table.c checks the same code on the decision table. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "candidates.h"
#include "cf_internal.h"
#include "dc/engine.h"
#include "dc/explain.h"
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

/* One explained workload; the JSON outlives the result that views into it. */
struct run {
    cJSON *w;
    struct dc_result *res;
    struct dc_explanation *e;
};

static void explain_with(const char *json, const struct dc_explain_opts *o, struct run *r)
{
    r->w = cJSON_Parse(json);
    assert_non_null(r->w);
    struct dc_error err;
    dc_error_clear(&err);
    if (dc_recommend(mini, r->w, NULL, &r->res, &err) != DC_OK)
        fail_msg("dc_recommend: %s %s", err.where, err.msg);
    if (dc_explain(mini, r->w, NULL, r->res, o, &r->e, &err) != DC_OK)
        fail_msg("dc_explain: %s", err.msg);
}

static void explain_all(const char *json, struct run *r)
{
    struct dc_explain_opts o = {DC_EXPLAIN_CHANGES | DC_EXPLAIN_ROBUSTNESS, 0, 0};
    explain_with(json, &o, r);
}

static void done(struct run *r)
{
    dc_explanation_free(r->e);
    dc_result_free(r->res);
    cJSON_Delete(r->w);
}

static const struct dc_target *target(const struct run *r, const char *id)
{
    for (size_t i = 0; i < r->e->n_targets; i++) {
        if (strcmp(r->e->targets[i].acc->id, id) == 0)
            return &r->e->targets[i];
    }
    fail_msg("no target %s", id);
    return NULL;
}

static const struct dc_change *change(const struct dc_target *t, const char *field)
{
    for (size_t i = 0; i < t->n_changes; i++) {
        if (strcmp(t->changes[i].field, field) == 0)
            return &t->changes[i];
    }
    fail_msg("%s has no change of %s", t->acc->id, field);
    return NULL;
}

static const struct dc_candidate *candidate(const struct dc_result *res, const char *id)
{
    const struct dc_candidate *c = test_candidate(res, id);
    if (c == NULL)
        fail_msg("no candidate %s", id);
    return c;
}

static void test_null_arguments(void **state)
{
    (void)state;
    struct dc_explanation *e = (struct dc_explanation *)&e;
    struct dc_explain_opts o = {DC_EXPLAIN_CHANGES, 0, 0};
    struct dc_error err;
    assert_int_equal(dc_explain(mini, NULL, NULL, NULL, &o, &e, &err), DC_EINVAL);
    assert_null(e);
    assert_int_equal(dc_explain(mini, NULL, NULL, NULL, &o, NULL, &err), DC_EINVAL);
    dc_explanation_free(NULL);
}

static void test_nothing_asked(void **state)
{
    (void)state;
    struct run r;
    struct dc_explain_opts o = {0, 0, 0};
    explain_with("{\"task\":\"training\",\"model\":{\"parameters\":1e9}}", &o, &r);
    assert_int_equal(r.e->kinds, 0);
    assert_int_equal(r.e->n_targets, 0);
    assert_int_equal(r.e->changes_usage.evaluations + r.e->robustness.usage.evaluations, 0);
    done(&r);
}

static dc_ruleset *priced_tpu(const char *usd)
{
    dc_ruleset *rs = NULL;
    assert_int_equal(mini_load_priced_tpu(rules_ok, usd, &rs), 0);
    return rs;
}

static void explain_on(dc_ruleset *rs, const char *json, struct run *r)
{
    dc_ruleset *keep = mini;
    mini = rs;
    explain_all(json, r);
    mini = keep;
}

static bool has_target(const struct run *r, const char *id)
{
    for (size_t i = 0; i < r->e->n_targets; i++)
        if (strcmp(r->e->targets[i].acc->id, id) == 0)
            return true;
    return false;
}

/* Nothing fits the budget (tpu-b has no price, and an unknown cost fails every
 * budget): gpu-a comes back at its own cost, found in two runs. */
static void test_budget_brings_back_an_excluded_part(void **state)
{
    (void)state;
    struct run r;
    explain_all("{\"task\":\"training\",\"model\":{\"parameters\":1e9},"
                "\"constraints\":{\"budget_usd\":100}}",
                &r);
    assert_int_equal(r.res->n_recommendations, 0);
    double cost = candidate(r.res, "gpu-a")->sizing.cost_usd;
    assert_true(cost > 100);
    const struct dc_target *t = target(&r, "gpu-a");
    assert_int_equal(t->role, DC_ROLE_EXCLUDED);
    assert_string_equal(t->excluded_by, "sizing.budget");
    const struct dc_change *c = change(t, "/constraints/budget_usd");
    assert_int_equal(c->threshold, DC_THRESHOLD_ABOVE);
    assert_ptr_equal(c->top, t->acc);
    assert_true(c->to->valuedouble >= cost);
    assert_true(c->to->valuedouble <= cost * (1 + DC_EXPLAIN_THRESHOLD_TOLERANCE));
    assert_true(c->not_at < cost);
    assert_true(c->to->valuedouble - c->not_at <= DC_EXPLAIN_THRESHOLD_TOLERANCE * c->not_at);
    assert_int_equal(c->from->valuedouble, 100);
    assert_null(c->rule);
    assert_false(c->price_missing);
    /* tpu-b has no price: even with no budget gpu-a ranks above it, so no
     * change makes it the pick and it is not shown. */
    assert_false(has_target(&r, "tpu-b"));
    /* With nothing recommended there is nothing to be robust. */
    assert_null(r.e->robustness.top);
    assert_int_equal(r.e->robustness.n_checks, 0);
    done(&r);
}

/* Objective time, both priced: tpu-b ($9 a chip-hour) is the faster and the
 * dearer; a budget below its cost makes gpu-a the pick, and on spot (no TPU
 * spot price) tpu-b drops for want of a price, which the change says. */
static void test_budget_drops_a_dearer_pick(void **state)
{
    (void)state;
    dc_ruleset *rs = priced_tpu("9");
    struct run r;
    explain_on(rs,
               "{\"task\":\"training\",\"framework\":\"jax\",\"model\":{\"parameters\":3e9},"
               "\"objective\":\"time\"}",
               &r);
    assert_string_equal(r.res->recommendations[0].acc->id, "tpu-b");
    double top_cost = candidate(r.res, "tpu-b")->sizing.cost_usd;
    assert_true(top_cost > candidate(r.res, "gpu-a")->sizing.cost_usd);
    const struct dc_target *t = target(&r, "gpu-a");
    assert_int_equal(t->role, DC_ROLE_RUNNER_UP);
    assert_int_equal(t->rank, 2);
    const struct dc_change *c = change(t, "/constraints/budget_usd");
    assert_int_equal(c->threshold, DC_THRESHOLD_BELOW);
    assert_true(c->to->valuedouble < top_cost && c->not_at > c->to->valuedouble);
    assert_true(cJSON_IsNull(c->from));
    assert_false(c->price_missing);
    const struct dc_change *p = change(target(&r, "tpu-b"), "/constraints/pricing");
    assert_string_equal(p->to->valuestring, "spot");
    assert_string_equal(p->top->id, "gpu-a");
    assert_true(p->price_missing);
    char buf[512];
    assert_non_null(strstr(dc_change_text(target(&r, "tpu-b"), p, buf, sizeof(buf)),
                           "Test TPU B has no price there, so it ranks after every priced part."));
    /* Changes come smallest first, and never a model property or fp64. */
    for (size_t i = 0; i < r.e->n_targets; i++) {
        const struct dc_target *x = &r.e->targets[i];
        for (size_t k = 0; k < x->n_changes; k++) {
            if (k > 0)
                assert_true(cf__field_rank(x->changes[k - 1].field) <
                            cf__field_rank(x->changes[k].field));
            assert_null(strstr(x->changes[k].field, "/model/"));
            assert_true(strcmp(x->changes[k].field, "/precision") != 0 ||
                        strcmp(x->changes[k].to->valuestring, "fp64") != 0);
        }
    }
    done(&r);
    dc_ruleset_release(rs);
}

/* 70B parameters of full training need 16 gpu-a and 64 tpu-b chips by memory;
 * a limit of 8 excludes both, and the limit each needs is exact (tpu-b, at $3
 * a chip-hour, is the cheaper once it fits). */
static void test_max_accelerators_is_exact(void **state)
{
    (void)state;
    dc_ruleset *rs = priced_tpu("3");
    struct run r;
    explain_on(rs,
               "{\"task\":\"training\",\"framework\":\"jax\",\"model\":{\"parameters\":7e10},"
               "\"constraints\":{\"max_accelerators\":8}}",
               &r);
    assert_int_equal(r.res->n_recommendations, 0);
    for (size_t i = 0; i < 2; i++) {
        const char *id = i == 0 ? "gpu-a" : "tpu-b";
        const struct dc_change *c = change(target(&r, id), "/constraints/max_accelerators");
        assert_int_equal(c->threshold, DC_THRESHOLD_ABOVE);
        assert_int_equal(c->to->valuedouble, candidate(r.res, id)->sizing.chips_for_memory);
        assert_int_equal(c->not_at, c->to->valuedouble - 1);
    }
    done(&r);
    dc_ruleset_release(rs);
}

/* Pre-training has no LoRA to propose; fine-tuning does: LoRA freezes the
 * base, and gpu-a fits again within 8 chips. */
static void test_method_only_for_fine_tuning(void **state)
{
    (void)state;
    struct run r;
    explain_all("{\"task\":\"fine-tuning\",\"model\":{\"parameters\":7e10},"
                "\"constraints\":{\"max_accelerators\":8}}",
                &r);
    const struct dc_change *m = change(target(&r, "gpu-a"), "/training/method");
    assert_string_equal(m->to->valuestring, "lora");
    done(&r);
    explain_all("{\"task\":\"training\",\"model\":{\"parameters\":7e10},"
                "\"constraints\":{\"max_accelerators\":8}}",
                &r);
    for (size_t i = 0; i < r.e->n_targets; i++)
        assert_false(cf__has(&r.e->targets[i], "/training/method", false));
    done(&r);
}

/* A boundary at a rule's own constant is reported as that rule: a gate on
 * deadlines of a week or less holds tpu-b (the cheaper at $3 a chip-hour)
 * below gpu-a, and the deadline that lifts it is the rule's 168 hours. */
static void test_rule_constant_is_the_rule(void **state)
{
    (void)state;
    static const char gate[] = "rules:\n  - id: week-gate\n    description: W.\n"
                               "    source: https://example.com/w\n"
                               "    when: {\"<=\": [{\"var\": \"training.deadline_hours\"}, 168]}\n"
                               "    effect: {rank_below: {families: [tpu], below: gpu}}\n";
    dc_ruleset *rs = NULL;
    assert_int_equal(mini_load_priced_tpu(gate, "3", &rs), 0);
    struct run r;
    explain_on(rs,
               "{\"task\":\"training\",\"framework\":\"jax\",\"model\":{\"parameters\":1e9},"
               "\"training\":{\"deadline_hours\":100},\"objective\":\"cost\"}",
               &r);
    assert_string_equal(r.res->recommendations[0].acc->id, "gpu-a");
    const struct dc_target *t = target(&r, "tpu-b");
    const struct dc_change *c = change(t, "/training/deadline_hours");
    assert_int_equal(c->threshold, DC_THRESHOLD_ABOVE);
    assert_string_equal(c->rule, "week-gate");
    assert_true(c->rule_at == 168);
    assert_true(c->to->valuedouble > 168 && c->not_at <= 168);
    char buf[512];
    assert_non_null(strstr(dc_change_text(t, c, buf, sizeof(buf)),
                           "The boundary is rule week-gate's limit of 7 days, not "
                           "a difference between the parts."));
    done(&r);
    dc_ruleset_release(rs);
}

static void test_robustness(void **state)
{
    (void)state;
    dc_ruleset *rs = priced_tpu("9");
    struct run r;
    explain_on(rs,
               "{\"task\":\"training\",\"framework\":\"jax\",\"model\":{\"parameters\":3e9},"
               "\"objective\":\"time\"}",
               &r);
    const struct dc_robustness *rb = &r.e->robustness;
    assert_ptr_equal(rb->top, r.res->recommendations[0].acc);
    assert_string_equal(rb->top->id, "tpu-b");
    assert_ptr_equal(rb->runner_up, r.res->recommendations[1].acc);
    assert_int_equal(rb->top_score - rb->runner_up_score,
                     r.res->recommendations[0].score - r.res->recommendations[1].score);
    assert_true(rb->top_priced);
    assert_int_equal(rb->n_checks, 2);
    assert_int_equal(rb->checks[0].kind, DC_PERTURB_PRICE);
    assert_int_equal(rb->checks[1].kind, DC_PERTURB_MFU);
    /* Under objective time prices break ties only; the MFU decides: tpu-b
     * 30% slower and gpu-a 30% faster make gpu-a the faster. */
    assert_true(rb->checks[0].robust);
    assert_false(rb->checks[1].robust);
    const struct dc_flip *f = &rb->checks[1].flip;
    assert_int_equal(f->n_scaled, 2);
    assert_string_equal(f->scaled[0].acc->id, "tpu-b");
    assert_true(fabs(f->scaled[0].factor - (1 - DC_EXPLAIN_PERTURBATION)) < 1e-12);
    assert_string_equal(f->top->id, "gpu-a");
    assert_true(rb->usage.evaluations >= 3 && rb->usage.stop == DC_EXPLAIN_COMPLETE);
    char buf[512];
    assert_string_equal(dc_flip_text(rb, &rb->checks[1], buf, sizeof(buf)),
                        "With the MFU of Test TPU B 30% lower and the MFU of Test GPU A 30% "
                        "higher, Test GPU A becomes the top pick.");
    done(&r);
    dc_ruleset_release(rs);
    /* Nothing is priced on GCP for gpu-a, and tpu-b has no price at all: the
     * top pick has no price to move, and the check says so. */
    explain_all("{\"task\":\"training\",\"model\":{\"parameters\":1e9},"
                "\"constraints\":{\"providers\":[\"gcp\"]}}",
                &r);
    rb = &r.e->robustness;
    assert_false(rb->top_priced);
    assert_true(rb->checks[0].robust);
    assert_non_null(
        strstr(dc_flip_text(rb, &rb->checks[0], buf, sizeof(buf)), "has no known price to move"));
    done(&r);
    /* Under objective cost gpu-a, priced, is the pick. */
    explain_all("{\"task\":\"training\",\"model\":{\"parameters\":1e9},\"objective\":\"cost\"}",
                &r);
    rb = &r.e->robustness;
    assert_string_equal(rb->top->id, "gpu-a");
    assert_true(rb->top_priced);
    assert_int_equal(rb->n_checks, 2);
    dc_flip_text(rb, &rb->checks[0], buf, sizeof(buf));
    assert_non_null(strstr(buf, rb->checks[0].robust
                                    ? "Test GPU A stays the top pick with its price 30% higher"
                                    : "With the price of Test GPU A 30% higher"));
    done(&r);
}

static void test_evaluation_budget(void **state)
{
    (void)state;
    struct run r;
    struct dc_explain_opts o = {DC_EXPLAIN_CHANGES | DC_EXPLAIN_ROBUSTNESS, 5, 0};
    explain_with("{\"task\":\"training\",\"model\":{\"parameters\":1e9}}", &o, &r);
    assert_int_equal(r.e->robustness.usage.evaluations + r.e->changes_usage.evaluations, 5);
    assert_int_equal(r.e->changes_usage.stop, DC_EXPLAIN_STOP_EVALUATIONS);
    assert_int_equal(r.e->kinds, DC_EXPLAIN_CHANGES | DC_EXPLAIN_ROBUSTNESS);
    done(&r);
    /* Above the named limit, the limit holds. */
    o.max_evaluations = 1000;
    explain_with("{\"task\":\"training\",\"model\":{\"parameters\":1e9},"
                 "\"training\":{\"deadline_hours\":10},"
                 "\"constraints\":{\"budget_usd\":1e6,\"max_accelerators\":64}}",
                 &o, &r);
    assert_true(r.e->robustness.usage.evaluations + r.e->changes_usage.evaluations <=
                DC_EXPLAIN_MAX_EVALUATIONS);
    done(&r);
}

static void test_time_budget(void **state)
{
    (void)state;
    struct run r;
    struct dc_explain_opts o = {DC_EXPLAIN_CHANGES | DC_EXPLAIN_ROBUSTNESS, 0, 1};
    explain_with("{\"task\":\"training\",\"model\":{\"parameters\":1e9}}", &o, &r);
    /* 1 ns is spent before the first run: both sections say so. */
    assert_int_equal(r.e->robustness.usage.stop, DC_EXPLAIN_STOP_TIME);
    assert_int_equal(r.e->changes_usage.stop, DC_EXPLAIN_STOP_TIME);
    assert_int_equal(r.e->robustness.usage.evaluations + r.e->changes_usage.evaluations, 0);
    assert_int_equal(r.e->n_targets, 2); /* the top pick and the runner-up, unexplained */
    assert_int_equal(r.e->targets[0].n_changes + r.e->targets[1].n_changes, 0);
    done(&r);
}

static void test_workload_with(void **state)
{
    (void)state;
    cJSON *w = cJSON_Parse("{\"task\":\"training\",\"model\":{\"parameters\":1e9},"
                           "\"constraints\":{\"budget_usd\":5}}");
    cJSON *num = cJSON_CreateNumber(7);
    cJSON *null = cJSON_CreateNull();
    cJSON *str = cJSON_CreateString("jax");
    char *text = NULL;
    cJSON *x = dc_workload_with(w, "/constraints/budget_usd", num);
    assert_string_equal(text = cJSON_PrintUnformatted(x),
                        "{\"task\":\"training\",\"model\":{\"parameters\":1000000000},"
                        "\"constraints\":{\"budget_usd\":7}}");
    free(text);
    cJSON_Delete(x);
    x = dc_workload_with(w, "/constraints/budget_usd", null);
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(x, "constraints"), "budget_usd"));
    cJSON_Delete(x);
    x = dc_workload_with(w, "/team/xla_experience", str); /* the section is made */
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(x, "team"), "xla_experience")->valuestring, "jax");
    cJSON_Delete(x);
    x = dc_workload_with(w, "/training/deadline_hours", null); /* nothing to remove */
    assert_null(cJSON_GetObjectItem(x, "training"));
    cJSON_Delete(x);
    x = dc_workload_with(w, "/framework", str);
    assert_string_equal(cJSON_GetObjectItem(x, "framework")->valuestring, "jax");
    cJSON_Delete(x);
    assert_null(dc_workload_with(w, "/task/x", str)); /* not an object on the way */
    assert_null(dc_workload_with(w, "/a/b/c", str));  /* deeper than two levels */
    assert_null(dc_workload_with(w, "framework", str));
    assert_null(dc_workload_with(w, "/", str));
    assert_null(dc_workload_with(w, "/a/", str));
    assert_null(dc_workload_with(w, "/framework", NULL));
    assert_null(dc_workload_with(NULL, "/framework", str));
    cJSON_Delete(num);
    cJSON_Delete(null);
    cJSON_Delete(str);
    cJSON_Delete(w);
}

static void expect_explain_error(const char *expl, const char *pointer)
{
    char json[256];
    snprintf(json, sizeof(json), "{\"task\":\"training\",\"model\":{\"parameters\":1e9},%s}", expl);
    cJSON *w = cJSON_Parse(json);
    struct dc_workload out;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(dc_workload_parse(mini, w, &out, &err), DC_EINVAL);
    assert_string_equal(err.where, pointer);
    cJSON_Delete(w);
}

static void test_explain_field(void **state)
{
    (void)state;
    cJSON *w = cJSON_Parse("{\"task\":\"training\",\"model\":{\"parameters\":1e9},"
                           "\"explain\":[\"robustness\",\"changes\"]}");
    struct dc_workload out;
    assert_int_equal(dc_workload_parse(mini, w, &out, NULL), DC_OK);
    assert_int_equal(out.explain, DC_EXPLAIN_CHANGES | DC_EXPLAIN_ROBUSTNESS);
    cJSON_Delete(w);
    w = cJSON_Parse("{\"task\":\"training\",\"model\":{\"parameters\":1e9},\"explain\":[]}");
    assert_int_equal(dc_workload_parse(mini, w, &out, NULL), DC_OK);
    assert_int_equal(out.explain, 0);
    cJSON_Delete(w);
    expect_explain_error("\"explain\":\"changes\"", "/explain");
    expect_explain_error("\"explain\":[\"changes\",\"changes\"]", "/explain/1");
    expect_explain_error("\"explain\":[\"why\"]", "/explain/0");
    expect_explain_error("\"explain\":[1]", "/explain/0");
    expect_explain_error("\"explain\":[\"changes\",\"robustness\",\"changes\"]", "/explain/2");
    /* 10,000 entries stop at the first one too many. */
    cJSON *big = cJSON_Parse("{\"task\":\"training\",\"model\":{\"parameters\":1e9}}");
    cJSON *list = cJSON_AddArrayToObject(big, "explain");
    for (int i = 0; i < 10000; i++)
        cJSON_AddItemToArray(list, cJSON_CreateString(i % 2 ? "changes" : "robustness"));
    struct dc_error err;
    assert_int_equal(dc_workload_parse(mini, big, &out, &err), DC_EINVAL);
    assert_string_equal(err.where, "/explain/2");
    cJSON_Delete(big);
}

/* The factors of dc_recommend_opts: a price factor scales the rate a part is
 * priced at; an MFU factor the MFU it is sized with. */
static void test_perturbation_factors(void **state)
{
    (void)state;
    cJSON *w = cJSON_Parse("{\"task\":\"training\",\"model\":{\"parameters\":1e9}}");
    const double price[2] = {2.0, 1.0}, mfu[2] = {0.5, 1.0};
    struct dc_recommend_opts plain = {0}, priced = {.price_scale = price},
                             slow = {.mfu_scale = mfu};
    struct dc_result *a = NULL, *b = NULL, *c = NULL;
    assert_int_equal(dc_recommend(mini, w, &plain, &a, NULL), DC_OK);
    assert_int_equal(dc_recommend(mini, w, &priced, &b, NULL), DC_OK);
    assert_int_equal(dc_recommend(mini, w, &slow, &c, NULL), DC_OK);
    const struct dc_sizing *za = &candidate(a, "gpu-a")->sizing;
    const struct dc_sizing *zb = &candidate(b, "gpu-a")->sizing;
    const struct dc_sizing *zc = &candidate(c, "gpu-a")->sizing;
    assert_true(fabs(zb->usd_per_chip_hour - 2 * za->usd_per_chip_hour) < 1e-9);
    assert_true(fabs(zb->cost_usd - 2 * za->cost_usd) < 1e-6 * za->cost_usd);
    assert_true(fabs(zc->mfu - 0.5 * za->mfu) < 1e-12);
    assert_true(zc->hours * zc->chips > za->hours * za->chips); /* more chip-hours */
    /* The other part is untouched. */
    assert_true(candidate(b, "tpu-b")->sizing.hours == candidate(a, "tpu-b")->sizing.hours);
    dc_result_free(a);
    dc_result_free(b);
    dc_result_free(c);
    cJSON_Delete(w);
}

static void test_roundest(void **state)
{
    (void)state;
    assert_true(cf__roundest(40870, 41157, false) == 41000);
    assert_true(cf__roundest(41000, 41000, false) == 41000);
    assert_true(cf__roundest(0.25, 0.31, false) == 0.3);
    assert_true(cf__roundest(1166.99, 1172.18, false) == 1170);
    assert_true(cf__roundest(95, 104, false) == 100);
    assert_true(cf__roundest(3.2, 3.8, true) == 3.2); /* no integer inside */
    assert_true(cf__roundest(13, 17, true) == 13);    /* all two digits: the smallest */
    assert_true(cf__roundest(13, 27, true) == 20);
    assert_true(cf__roundest(-1, 5, false) == -1); /* out of domain: lo back */
}

static void test_texts(void **state)
{
    (void)state;
    const struct dc_accelerator *gpu = dc_ruleset_find_accelerator(mini, "gpu-a");
    const struct dc_accelerator *tpu = dc_ruleset_find_accelerator(mini, "tpu-b");
    struct dc_target t = {.acc = gpu, .role = DC_ROLE_RUNNER_UP};
    struct dc_change c = {.field = "/constraints/budget_usd",
                          .from = cJSON_CreateNumber(30000),
                          .to = cJSON_CreateNumber(41000),
                          .top = gpu,
                          .threshold = DC_THRESHOLD_ABOVE,
                          .not_at = 40600};
    char buf[512];
    assert_string_equal(dc_change_text(&t, &c, buf, sizeof(buf)),
                        "Test GPU A becomes the top pick at a budget of $41k (not at $40.6k) "
                        "instead of $30k.");
    cJSON_Delete(c.to);
    c.to = cJSON_CreateNull();
    c.threshold = DC_THRESHOLD_NONE;
    assert_string_equal(dc_change_text(&t, &c, buf, sizeof(buf)),
                        "Test GPU A becomes the top pick with no budget instead of $30k.");
    struct dc_target top = {.acc = tpu, .role = DC_ROLE_TOP};
    struct dc_change d = {.field = "/training/deadline_hours",
                          .from = cJSON_CreateNull(),
                          .to = cJSON_CreateNumber(216),
                          .top = gpu,
                          .threshold = DC_THRESHOLD_BELOW,
                          .not_at = 218};
    assert_string_equal(dc_change_text(&top, &d, buf, sizeof(buf)),
                        "Test GPU A replaces Test TPU B as the top pick at a deadline of 9 days "
                        "(not at 9.08 days) rather than with no deadline.");
    struct dc_change e = {.field = "/constraints/providers",
                          .from = cJSON_Parse("[\"aws\"]"),
                          .to = cJSON_Parse("[\"aws\",\"gcp\"]"),
                          .top = tpu};
    struct dc_target ex = {.acc = tpu, .role = DC_ROLE_EXCLUDED};
    assert_string_equal(dc_change_text(&ex, &e, buf, sizeof(buf)),
                        "Test TPU B becomes the top pick with providers aws, gcp instead of aws.");
    /* A short buffer is cut, never overrun. */
    char small[16];
    assert_int_equal(strlen(dc_change_text(&ex, &e, small, sizeof(small))), sizeof(small) - 1);
    cJSON_Delete(c.from);
    cJSON_Delete(c.to);
    cJSON_Delete(d.from);
    cJSON_Delete(d.to);
    cJSON_Delete(e.from);
    cJSON_Delete(e.to);
    assert_string_equal(dc_target_role_name(DC_ROLE_FAMILY_BEST), "family_best");
    assert_string_equal(dc_explain_stop_name(DC_EXPLAIN_STOP_TIME), "time");
    assert_string_equal(dc_perturbation_name(DC_PERTURB_MFU), "mfu");
    assert_string_equal(dc_threshold_name(DC_THRESHOLD_BELOW), "below");
    assert_null(dc_threshold_name(DC_THRESHOLD_NONE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_nothing_asked),
        cmocka_unit_test(test_budget_brings_back_an_excluded_part),
        cmocka_unit_test(test_budget_drops_a_dearer_pick),
        cmocka_unit_test(test_max_accelerators_is_exact),
        cmocka_unit_test(test_method_only_for_fine_tuning),
        cmocka_unit_test(test_rule_constant_is_the_rule),
        cmocka_unit_test(test_robustness),
        cmocka_unit_test(test_evaluation_budget),
        cmocka_unit_test(test_time_budget),
        cmocka_unit_test(test_workload_with),
        cmocka_unit_test(test_explain_field),
        cmocka_unit_test(test_perturbation_factors),
        cmocka_unit_test(test_roundest),
        cmocka_unit_test(test_texts),
    };
    return cmocka_run_group_tests_name("explain", tests, setup, teardown);
}
