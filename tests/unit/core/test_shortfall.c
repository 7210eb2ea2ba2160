/* tests/unit/core/test_shortfall.c -- core/src/select/shortfall.c: the result's
 * status, each candidate's target_met, the ranking when nothing meets the
 * targets, what would meet them, and the answer in words, against
 * tests/support/mini_rules.h (gpu-a priced at $4.90/chip-hour on machines of
 * 1-8, at most 256 in a cluster; tpu-b with no price; no model registry). */
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
#include "core_run.h"
#include "dc/result.h"
#include "mini_rules.h"

static dc_ruleset *mini;

/* x and y agree to a share of `tol` of y. */
#define assert_near(x, y, tol) assert_true(fabs((x) - (y)) <= (tol)*fabs(y))

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

/* 7B trained on 1e9 tokens (4.2e19 FLOP): hours on 8 gpu-a, well under
 * an hour on 64. */
#define TRAIN_7B                                                                                   \
    "{\"task\":\"training\",\"model\":{\"parameters\":7e9},\"training\":{\"tokens\":1e9"

static void status_names(void **state)
{
    (void)state;
    assert_string_equal(dc_answer_status_name(DC_ANSWER_OK), "ok");
    assert_string_equal(dc_answer_status_name(DC_ANSWER_NO_FIT), "no_configuration_meets_targets");
    assert_string_equal(dc_answer_status_name(DC_ANSWER_WITHHELD), "estimate_withheld");
    assert_string_equal(dc_answer_status_name((enum dc_answer_status)7), "unknown");
}

/* A feasible workload: ok, every recommendation meets its targets in full,
 * nothing to say first and nothing to meet. */
static void ok_has_a_pick(void **state)
{
    (void)state;
    struct run r = core_run(mini, TRAIN_7B ",\"deadline_hours\":100}}");
    char buf[DC_ANSWER_TEXT_MAX];
    assert_int_equal(r.res->status, DC_ANSWER_OK);
    assert_null(dc_answer_text(r.res, buf, sizeof(buf)));
    assert_int_equal(r.res->recommendations[0].score, 100);
    assert_true(r.res->recommendations[0].target_met == 1.0);
    assert_null(r.res->would_meet.acc);
    assert_true(isnan(r.res->would_meet.chips) && isnan(r.res->would_meet.hours) &&
                isnan(r.res->would_meet.budget_usd));
    assert_int_equal(r.res->would_meet.n_fields, 0);
    core_done(&r);
}

/* A deadline no configuration within max_accelerators meets: ranked by the
 * share met, scored by it, and what would meet it sized by the same model. */
static void deadline_missed_within_the_limit(void **state)
{
    (void)state;
    struct run r = core_run(mini, TRAIN_7B ",\"deadline_hours\":1},"
                                           "\"constraints\":{\"max_accelerators\":8}}");
    const struct dc_result *res = r.res;
    assert_int_equal(res->status, DC_ANSWER_NO_FIT);
    assert_true(res->n_recommendations > 0);
    double shortest = INFINITY;
    for (size_t i = 0; i < res->n_recommendations; i++) {
        const struct dc_candidate *c = &res->recommendations[i];
        /* The share: deadline / hours, and the score its whole percent. */
        assert_true(isfinite(c->sizing.hours) && c->sizing.hours > 1.0);
        assert_near(c->target_met, 1.0 / c->sizing.hours, 1e-12);
        assert_int_equal(c->score, (int)floor(c->target_met * 100.0 + 1e-9));
        if (i > 0)
            assert_true(c->score <= res->recommendations[i - 1].score);
        shortest = fmin(shortest, c->sizing.hours);
    }
    char note[400];
    assert_null(dc_pick_note(res, note, sizeof(note)));
    /* More chips meet the hour: gpu-a (tpu-b has no price and a gate-free
     * priced part comes first), more than 8 and within its 256. */
    /* A copy: the result is freed before the second run. */
    const struct dc_would_meet m = res->would_meet;
    assert_non_null(m.acc);
    assert_string_equal(m.acc->id, "gpu-a");
    assert_true(m.chips > 8 && m.chips <= 256);
    assert_true(m.budget_usd > 0);
    assert_near(m.hours, shortest, 1e-12);
    char buf[DC_ANSWER_TEXT_MAX];
    const char *text = dc_answer_text(res, buf, sizeof(buf));
    assert_non_null(text);
    assert_non_null(strstr(text, "No configuration meets the deadline of 1 h within "
                                 "constraints.max_accelerators (8 chips): the nearest, "));
    assert_non_null(strstr(text, "chips of Test GPU A would meet every target, for about $"));
    assert_non_null(strstr(text, "a deadline that long would be met."));
    core_done(&r);

    /* The same workload at would_meet's chips and budget meets the target. */
    char json[400];
    snprintf(json, sizeof(json),
             TRAIN_7B ",\"deadline_hours\":1},\"constraints\":{\"max_accelerators\":%u,"
                      "\"budget_usd\":%.17g,\"accelerators\":[\"gpu-a\"]}}",
             (unsigned)m.chips, m.budget_usd * 1.001);
    struct run again = core_run(mini, json);
    assert_int_equal(again.res->status, DC_ANSWER_OK);
    assert_true(again.res->recommendations[0].target_met == 1.0);
    core_done(&again);
}

/* Serving capped by max_accelerators: the share is the rate served. */
static void rate_missed_within_the_limit(void **state)
{
    (void)state;
    struct run r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"parameters\":7e10},"
                                  "\"inference\":{\"requests_per_second\":1000},"
                                  "\"constraints\":{\"max_accelerators\":16}}");
    const struct dc_result *res = r.res;
    assert_int_equal(res->status, DC_ANSWER_NO_FIT);
    for (size_t i = 0; i < res->n_recommendations; i++) {
        const struct dc_sizing *z = &res->recommendations[i].sizing;
        /* tpu-b lists no memory bandwidth: no rate, no share. */
        if (isfinite(z->throughput_rps))
            assert_near(res->recommendations[i].target_met, z->throughput_rps / 1000.0, 1e-12);
        else
            assert_true(isnan(res->recommendations[i].target_met));
        assert_true(res->recommendations[i].score < 100);
    }
    assert_non_null(res->would_meet.acc);
    assert_true(res->would_meet.chips > 16);
    assert_true(isnan(res->would_meet.hours));
    char buf[DC_ANSWER_TEXT_MAX];
    assert_non_null(strstr(dc_answer_text(res, buf, sizeof(buf)),
                           "No configuration serves the 1,000 requests/s asked within "
                           "constraints.max_accelerators (16 chips): the nearest, "));
    core_done(&r);

    /* Without max_accelerators the fleet limit binds, and the answer names
     * where it is set. */
    r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"parameters\":7e10},"
                       "\"inference\":{\"requests_per_second\":1e6}}");
    assert_int_equal(r.res->status, DC_ANSWER_NO_FIT);
    assert_non_null(strstr(dc_answer_text(r.res, buf, sizeof(buf)),
                           "within the serving fleet limit of 4,096 chips (serving_max_chips in "
                           "rules/sizing.yaml"));
    assert_true(r.res->would_meet.chips > 4096);
    core_done(&r);
}

/* A budget below every run: nothing left to rank; would_meet's budget
 * covers the cheapest configuration, and it does. */
static void budget_below_every_run(void **state)
{
    (void)state;
    struct run r = core_run(mini, TRAIN_7B "},\"constraints\":{\"budget_usd\":1}}");
    assert_int_equal(r.res->status, DC_ANSWER_NO_FIT);
    assert_int_equal(r.res->n_recommendations, 0);
    const struct dc_would_meet m = r.res->would_meet;
    assert_non_null(m.acc);
    assert_true(m.budget_usd > 1);
    assert_true(isnan(m.hours));
    char buf[DC_ANSWER_TEXT_MAX];
    assert_non_null(strstr(dc_answer_text(r.res, buf, sizeof(buf)),
                           "No configuration fits the budget of $1.00/run."));
    core_done(&r);
    char json[300];
    snprintf(json, sizeof(json), TRAIN_7B "},\"constraints\":{\"budget_usd\":%.17g}}",
             m.budget_usd * 1.001);
    r = core_run(mini, json);
    assert_int_equal(r.res->status, DC_ANSWER_OK);
    core_done(&r);
}

/* Nothing holds the job within max_accelerators: would_meet's chips do. */
static void nothing_fits_the_limit(void **state)
{
    (void)state;
    struct run r = core_run(mini, "{\"task\":\"training\",\"model\":{\"parameters\":7e10},"
                                  "\"training\":{\"tokens\":1e9},"
                                  "\"constraints\":{\"max_accelerators\":2}}");
    assert_int_equal(r.res->status, DC_ANSWER_NO_FIT);
    assert_int_equal(r.res->n_recommendations, 0);
    assert_true(r.res->would_meet.chips > 2);
    char buf[DC_ANSWER_TEXT_MAX];
    assert_non_null(strstr(dc_answer_text(r.res, buf, sizeof(buf)),
                           "No configuration holds the job within constraints.max_accelerators "
                           "(2 chips)."));
    core_done(&r);
}

/* A CNN without its FLOPs: no pick at all, and the field that would give one
 * (the mini rule set has no registry to name instead). */
static void withheld_has_no_pick(void **state)
{
    (void)state;
    struct run r = core_run(mini, "{\"task\":\"training\",\"model\":{\"architecture\":\"cnn\","
                                  "\"parameters\":2.5e7},\"training\":{\"samples\":1e7,"
                                  "\"deadline_hours\":10}}");
    const struct dc_result *res = r.res;
    assert_int_equal(res->status, DC_ANSWER_WITHHELD);
    assert_true(res->n_recommendations > 0);
    for (size_t i = 0; i < res->n_recommendations; i++) {
        assert_int_equal(res->recommendations[i].score, 0);
        assert_true(isnan(res->recommendations[i].target_met));
    }
    assert_int_equal(res->would_meet.n_fields, 1);
    assert_string_equal(res->would_meet.fields[0], "model.flops_per_sample");
    char buf[DC_ANSWER_TEXT_MAX];
    const char *text = dc_answer_text(res, buf, sizeof(buf));
    assert_non_null(strstr(text, "No pick: the run time and cost of this cnn model are not "
                                 "estimated without model.flops_per_sample"));
    assert_null(strstr(text, "model.name"));
    core_done(&r);

    /* With the field, an estimate and a pick. */
    r = core_run(mini, "{\"task\":\"training\",\"model\":{\"architecture\":\"cnn\","
                       "\"parameters\":2.5e7,\"flops_per_sample\":8.2e9},"
                       "\"training\":{\"samples\":1e7}}");
    assert_int_equal(r.res->status, DC_ANSWER_OK);
    assert_int_equal(r.res->recommendations[0].score, 100);
    core_done(&r);
}

/* Every candidate put out by a rule: no fit, and nothing a lifted limit
 * would bring back. */
static void rules_exclude_everything(void **state)
{
    (void)state;
    struct run r = core_run(mini, "{\"task\":\"training\",\"precision\":\"fp64\","
                                  "\"model\":{\"parameters\":1e9},"
                                  "\"constraints\":{\"accelerators\":[\"tpu-b\"]}}");
    assert_int_equal(r.res->n_recommendations, 0);
    assert_int_equal(r.res->status, DC_ANSWER_NO_FIT);
    assert_null(r.res->would_meet.acc);
    char buf[DC_ANSWER_TEXT_MAX];
    assert_string_equal(dc_answer_text(r.res, buf, sizeof(buf)),
                        "Every candidate was excluded by a rule (see excluded).");
    core_done(&r);
}

/* A short buffer truncates the text, never past it. */
static void short_buffer(void **state)
{
    (void)state;
    struct run r = core_run(mini, TRAIN_7B "},\"constraints\":{\"budget_usd\":1}}");
    char buf[16];
    memset(buf, 'x', sizeof(buf));
    assert_non_null(dc_answer_text(r.res, buf, sizeof(buf)));
    assert_int_equal(strlen(buf), sizeof(buf) - 1);
    assert_null(dc_answer_text(r.res, NULL, 10));
    assert_null(dc_answer_text(NULL, buf, sizeof(buf)));
    core_done(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(status_names),
        cmocka_unit_test(ok_has_a_pick),
        cmocka_unit_test(deadline_missed_within_the_limit),
        cmocka_unit_test(rate_missed_within_the_limit),
        cmocka_unit_test(budget_below_every_run),
        cmocka_unit_test(nothing_fits_the_limit),
        cmocka_unit_test(withheld_has_no_pick),
        cmocka_unit_test(rules_exclude_everything),
        cmocka_unit_test(short_buffer),
    };
    return cmocka_run_group_tests_name("shortfall", tests, setup, teardown);
}
