/* tests/unit/core/test_price_note.c -- price confidence in the decision
 * (core/src/reasons/price_note.c, issue 29): the one line that says the pick rests on
 * an uncertain price while a part priced with confidence is within the
 * robustness margin.
 *
 * On the mini rules' two parts: gpu-a rented by AWS on offers marked low
 * confidence (or dated long ago), tpu-b by GCP with high confidence at a chip
 * price swept from cheap to dear, so the TPU's cost crosses 1.3 x the GPU's.
 * The property: the line is there exactly when the pick is gpu-a on its
 * uncertain price and tpu-b, meeting every target the pick meets and held by
 * no more gates, costs more but at most 30% more; never under objective time; and the
 * sweep reaches both sides, so the test cannot pass with a line that is
 * always or never there. */
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
#include "mini_rules.h"

/* gpu-a on AWS in machines of 1 to 8 at $4.90 a chip-hour, marked `conf`
 * and dated `as_of`; tpu-b on GCP at `tpu` a chip-hour, high confidence. */
static dc_ruleset *load_prices(const char *conf, const char *as_of, double tpu)
{
    char prices[4096];
    size_t k = (size_t)snprintf(prices, sizeof(prices), "prices:\n");
    static const unsigned sizes[] = {1, 2, 4, 8};
    for (size_t i = 0; i < 4; i++)
        k += (size_t)snprintf(prices + k, sizeof(prices) - k,
                              "  - accelerator: gpu-a\n    provider: aws\n    region: us-east-1\n"
                              "    instance_type: m%u\n    accelerators: %u\n"
                              "    source: https://example.com/p\n    confidence: %s\n"
                              "    on_demand: {usd_per_hour: %g, as_of: \"%s\"}\n",
                              sizes[i], sizes[i], conf, 4.9 * sizes[i], as_of);
    snprintf(prices + k, sizeof(prices) - k,
             "  - accelerator: tpu-b\n    provider: gcp\n    region: us-central1\n"
             "    instance_type: per chip\n    source: https://example.com/t\n"
             "    confidence: high\n    on_demand: {usd_per_chip_hour: %g, as_of: \"2026-06\"}\n"
             "hardware: []\n",
             tpu);
    dc_ruleset *rs = NULL;
    if (load4(catalog_ok, sizing_ok, rules_ok, prices, &rs, NULL) != DC_OK)
        fail_msg("prices do not load");
    return rs;
}

static const struct dc_candidate *find(const struct dc_result *r, const char *id)
{
    bool excluded = false;
    const struct dc_candidate *c = core_find(r, id, &excluded);
    return excluded ? NULL : c;
}

/* The condition, from the result's own numbers. */
static bool expected(const struct dc_result *r, bool pick_doubtful)
{
    const struct dc_candidate *top = &r->recommendations[0];
    const struct dc_candidate *tpu = find(r, "tpu-b");
    if (!pick_doubtful || strcmp(top->acc->id, "gpu-a") != 0 || tpu == NULL ||
        r->workload.objective == DC_OBJECTIVE_TIME)
        return false;
    if (top->selection.meets_targets && !tpu->selection.meets_targets)
        return false;
    if (tpu->selection.gates > top->selection.gates)
        return false;
    return tpu->sizing.cost_usd > top->sizing.cost_usd &&
           tpu->sizing.cost_usd <= top->sizing.cost_usd * (1 + DC_EXPLAIN_PERTURBATION);
}

static void sweep(const char *conf, const char *as_of, bool doubtful, const char *objective,
                  unsigned *with, unsigned *without)
{
    char json[300];
    snprintf(json, sizeof(json),
             "{\"task\":\"training\",\"framework\":\"jax\",\"model\":{\"parameters\":1e9},"
             "\"training\":{\"tokens\":2e10},\"objective\":\"%s\"}",
             objective);
    for (double usd = 1.0; usd <= 12.0; usd *= 1.15) {
        dc_ruleset *rs = load_prices(conf, as_of, usd);
        struct run r = core_run(rs, json);
        assert_true(r.res->n_recommendations > 0);
        char note[600];
        const char *got = dc_price_note(r.res, note, sizeof(note));
        bool want = expected(r.res, doubtful);
        if (want != (got != NULL))
            fail_msg("tpu-b at $%g/chip-h, %s %s, objective %s: note %s, want %s", usd, conf, as_of,
                     objective, got ? got : "(none)", want ? "one" : "none");
        if (got != NULL) {
            (*with)++;
            assert_non_null(strstr(got, "Test TPU B, priced with confidence"));
            assert_non_null(strstr(got, "check the pick's price before buying."));
            assert_non_null(strstr(
                got, doubtful && strcmp(conf, "low") == 0 ? "marked low confidence" : "old"));
        } else {
            (*without)++;
        }
        core_done(&r);
        dc_ruleset_release(rs);
    }
}

static void low_confidence_pick(void **state)
{
    (void)state;
    unsigned with = 0, without = 0;
    sweep("low", "2026-06", true, "cost", &with, &without);
    sweep("low", "2026-06", true, "balanced", &with, &without);
    assert_true(with > 0);
    assert_true(without > 0);
}

/* A stale price (the mini sizing's limit is 540 days) is doubtful too. */
static void stale_pick(void **state)
{
    (void)state;
    unsigned with = 0, without = 0;
    sweep("high", "2020-01", true, "cost", &with, &without);
    assert_true(with > 0);
    assert_true(without > 0);
}

/* A pick priced with confidence, or one chosen on time, never has the line. */
static void settled_pick(void **state)
{
    (void)state;
    unsigned with = 0, without = 0;
    sweep("high", "2026-06", false, "cost", &with, &without);
    sweep("low", "2026-06", false, "time", &with, &without);
    assert_int_equal(with, 0);
    assert_true(without > 0);
}

static void edges(void **state)
{
    (void)state;
    dc_ruleset *rs = load_prices("low", "2026-06", 2);
    struct run r = core_run(rs, "{\"task\":\"training\",\"model\":{\"parameters\":1e9}}");
    char note[8];
    assert_null(dc_price_note(r.res, NULL, 0));
    assert_null(dc_price_note(NULL, note, sizeof(note)));
    /* A short buffer is cut, never overrun. */
    const char *got = dc_price_note(r.res, note, sizeof(note));
    if (got != NULL)
        assert_true(strlen(got) < sizeof(note));
    core_done(&r);
    dc_ruleset_release(rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(low_confidence_pick),
        cmocka_unit_test(stale_pick),
        cmocka_unit_test(settled_pick),
        cmocka_unit_test(edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
