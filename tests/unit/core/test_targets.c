/* tests/unit/core/test_targets.c -- core/src/select/targets.c: the targets a workload
 * sets, whether each candidate meets them, and the words that say so, against
 * tests/support/mini_rules.h (gpu-a priced at $4.90/chip-hour, tpu-b with no
 * price, a default training run of 720 h). */
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

struct checked {
    size_t n;
    struct dc_target_status t[DC_MAX_TARGETS];
    char text[DC_MAX_TARGETS][512];
};

static struct checked check(const struct run *r, const char *id)
{
    const struct dc_candidate *c = test_candidate(r->res, id);
    assert_non_null(c);
    struct checked k;
    k.n = dc_candidate_targets(r->res, c, k.t);
    for (size_t i = 0; i < k.n; i++)
        dc_target_text(r->res, c, &k.t[i], k.text[i], sizeof(k.text[i]));
    return k;
}

/* Training without a deadline is held to the default run length; with one, to
 * the deadline. */
static void training(void **state)
{
    (void)state;
    struct run r = core_run(mini, "{\"task\":\"training\",\"model\":{\"parameters\":7e9},"
                                  "\"training\":{\"tokens\":1e8}}");
    struct checked k = check(&r, "gpu-a");
    assert_int_equal(k.n, 1);
    assert_int_equal(k.t[0].kind, DC_TARGET_RUN_TIME);
    assert_int_equal(k.t[0].state, DC_TARGET_MET);
    assert_string_equal(dc_target_name(k.t[0].kind), "run_time");
    assert_string_equal(dc_target_state_name(k.t[0].state), "met");
    assert_non_null(strstr(k.text[0], "within the default 30 days (no deadline given)."));
    core_done(&r);

    /* A deadline no count meets: missed, in the words of the ranking's reason. */
    r = core_run(mini, "{\"task\":\"training\",\"model\":{\"parameters\":7e9},"
                       "\"training\":{\"tokens\":1e12,\"deadline_hours\":1},"
                       "\"constraints\":{\"max_accelerators\":8}}");
    k = check(&r, "gpu-a");
    assert_int_equal(k.n, 1);
    assert_int_equal(k.t[0].kind, DC_TARGET_DEADLINE);
    assert_int_equal(k.t[0].state, DC_TARGET_MISSED);
    assert_non_null(strstr(k.text[0], "Misses the deadline of 1 h even at 8 chips"));
    core_done(&r);
}

/* A serving workload with every target: a latency met, a rate, a budget. */
static const char serving_workload[] =
    "{\"task\":\"inference\",\"model\":{\"parameters\":7e9},"
    "\"inference\":{\"requests_per_second\":1e5,\"latency_ms_p99\":1000},"
    "\"constraints\":{\"max_accelerators\":4,\"budget_usd\":1e9}}";

/* Serving: latency when given, the rate always, the budget when given; an
 * unpriced part's budget is unknown. */
static void serving(void **state)
{
    (void)state;
    struct run r = core_run(mini, serving_workload);
    struct checked k = check(&r, "gpu-a");
    assert_int_equal(k.n, 3);
    assert_int_equal(k.t[0].kind, DC_TARGET_LATENCY);
    assert_int_equal(k.t[0].state, DC_TARGET_MET);
    assert_non_null(strstr(k.text[0], "within the 1 s p99 target."));
    assert_int_equal(k.t[1].kind, DC_TARGET_RATE);
    assert_int_equal(k.t[1].state, DC_TARGET_MISSED);
    assert_non_null(strstr(k.text[1], "of the 100,000 requests/s asked"));
    assert_int_equal(k.t[2].kind, DC_TARGET_BUDGET);
    assert_int_equal(k.t[2].state, DC_TARGET_MET);
    assert_non_null(strstr(k.text[2], "within the budget of $1B/month."));
    k = check(&r, "tpu-b");
    assert_int_equal(k.t[2].state, DC_TARGET_UNKNOWN);
    assert_string_equal(dc_target_state_name(k.t[2].state), "unknown");
    assert_non_null(strstr(k.text[2], "price to check the budget of $1B/month against"));
    core_done(&r);

    /* Without a latency or a budget, only the rate. */
    r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}}");
    k = check(&r, "gpu-a");
    assert_int_equal(k.n, 1);
    assert_int_equal(k.t[0].kind, DC_TARGET_RATE);
    assert_int_equal(k.t[0].state, DC_TARGET_MET);
    assert_non_null(strstr(k.text[0], "at least the 1 asked."));
    core_done(&r);
}

/* An offline job has its own deadline and no rate to serve. */
static void job(void **state)
{
    (void)state;
    struct run r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"parameters\":7e9,"
                                  "\"layers\":32,\"hidden_size\":4096},"
                                  "\"inference\":{\"job\":{\"requests\":1e6,"
                                  "\"deadline_hours\":10}}}");
    struct checked k = check(&r, "gpu-a");
    assert_int_equal(k.n, 1);
    assert_int_equal(k.t[0].kind, DC_TARGET_DEADLINE);
    assert_int_equal(k.t[0].state, DC_TARGET_MET);
    assert_non_null(strstr(k.text[0], "within the job's deadline of 10 h."));
    core_done(&r);
}

/* Without the FLOPs a CNN's time is not estimated: its time target is unknown,
 * and says what is missing. */
static void withheld(void **state)
{
    (void)state;
    struct run r = core_run(mini, "{\"task\":\"training\",\"model\":{\"parameters\":2.5e7,"
                                  "\"architecture\":\"cnn\"},\"training\":{\"samples\":1e6}}");
    struct checked k = check(&r, "gpu-a");
    assert_int_equal(k.n, 1);
    assert_int_equal(k.t[0].state, DC_TARGET_UNKNOWN);
    assert_non_null(strstr(k.text[0], "Not known: no estimate without model.flops_per_sample."));
    core_done(&r);
}

/* Names of values out of range, and a zero-length buffer left alone. */
static void edges(void **state)
{
    (void)state;
    assert_string_equal(dc_target_name((enum dc_target_kind)99), "unknown");
    assert_string_equal(dc_target_state_name((enum dc_target_state)99), "unknown");
    struct run r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}}");
    struct dc_target_status t = {DC_TARGET_RATE, DC_TARGET_MET};
    char one[1] = {'x'};
    assert_ptr_equal(dc_target_text(r.res, &r.res->recommendations[0], &t, one, 0), one);
    assert_int_equal(one[0], 'x');
    core_done(&r);
}

/* A missed target's message is its reason's text, under the rule id
 * dc_target_reason_id names (a writer copies one for the other); a met
 * target, or one without an estimate, has its own words and no id. */
static void reason_ids(void **state)
{
    (void)state;
    struct run r = core_run(mini, serving_workload);
    struct checked k = check(&r, "gpu-a");
    assert_null(dc_target_reason_id(&k.t[0])); /* latency met */
    assert_string_equal(dc_target_reason_id(&k.t[1]), "sizing.rate");
    const struct dc_candidate *c = test_candidate(r.res, "gpu-a");
    struct dc_reason rate = {.rule_id = "sizing.rate"};
    char text[DC_REASON_TEXT_MAX];
    assert_string_equal(dc_reason_text(r.res, c, &rate, text, sizeof(text)), k.text[1]);
    k = check(&r, "tpu-b"); /* no price: the budget's state is unknown, in the reason's words */
    assert_string_equal(dc_target_reason_id(&k.t[2]), "sizing.budget");
    c = test_candidate(r.res, "tpu-b");
    struct dc_reason budget = {.rule_id = "sizing.budget"};
    assert_string_equal(dc_reason_text(r.res, c, &budget, text, sizeof(text)), k.text[2]);
    core_done(&r);

    struct dc_target_status unknown = {DC_TARGET_DEADLINE, DC_TARGET_UNKNOWN};
    assert_null(dc_target_reason_id(&unknown));
    struct dc_target_status missed = {DC_TARGET_RUN_TIME, DC_TARGET_MISSED};
    assert_string_equal(dc_target_reason_id(&missed), "sizing.deadline");
    struct dc_target_status bad = {(enum dc_target_kind)99, DC_TARGET_MISSED};
    assert_null(dc_target_reason_id(&bad));
}

/* The pick note: none when the pick is the objective's best; otherwise the
 * best's name and the first reason that explains the order (a missed target, a
 * gate, the balanced band, the rules' points). The selection fields are set by
 * hand on a real result, so each branch is reached with the mini rules' two
 * parts. */
static void pick_note(void **state)
{
    (void)state;
    struct run r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}}");
    assert_true(r.res->n_recommendations >= 2);
    char note[400];
    assert_null(dc_pick_note(r.res, note, sizeof(note)));
    struct dc_candidate *top = &r.res->recommendations[0], *other = &r.res->recommendations[1];
    top->selection.objective_value = 10;
    top->selection.meets_targets = true;
    other->selection.objective_value = 5;
    other->selection.meets_targets = false;
    assert_ptr_equal(dc_pick_note(r.res, note, sizeof(note)), note);
    char want[200];
    snprintf(want, sizeof(want),
             "The pick is not %s, the best on cost and time alone: it misses a "
             "target the pick meets.",
             other->acc->name);
    assert_string_equal(note, want);
    other->selection.meets_targets = true;
    assert_true(other->n_reasons > 0);
    other->selection.gates = top->selection.gates + 1;
    other->capped_by = &other->reasons[0];
    snprintf(want, sizeof(want), "the gate %s holds it after.", other->reasons[0].rule_id);
    assert_non_null(strstr(dc_pick_note(r.res, note, sizeof(note)), want));
    other->selection.gates = top->selection.gates;
    other->selection.in_band = false;
    top->selection.in_band = true;
    assert_non_null(strstr(dc_pick_note(r.res, note, sizeof(note)), "outside the balanced band."));
    other->selection.in_band = true;
    assert_non_null(strstr(dc_pick_note(r.res, note, sizeof(note)),
                           "the rules' points moved them within the 10% band."));
    /* An unknown objective value is never the best; nor is an equal one. */
    other->selection.objective_value = NAN;
    assert_null(dc_pick_note(r.res, note, sizeof(note)));
    other->selection.objective_value = 10;
    assert_null(dc_pick_note(r.res, note, sizeof(note)));
    assert_null(dc_pick_note(r.res, NULL, 0));
    core_done(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(training),   cmocka_unit_test(serving), cmocka_unit_test(job),
        cmocka_unit_test(withheld),   cmocka_unit_test(edges),   cmocka_unit_test(pick_note),
        cmocka_unit_test(reason_ids),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
