/* tests/unit/core/test_layout.c -- serving layouts as properties over sweeps of
 * the shipped rule set (issue 17): a fleet of small cards either serves the
 * rate or says it cannot, whatever one machine holds; a batch above the
 * scheduler's default is held when memory holds it; no replica misses a
 * latency target that the tensor parallelism of a larger replica on the same
 * machines would meet; prefill grows faster than the context at long context
 * (slower where attention is windowed); and a rule that reads the sized
 * replica sees the replica sizing built. */
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
#include "dc/embedded.h"
#include "dc/engine.h"

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
    print_message("layout: %zu checks\n", checked);
    return 0;
}

static bool has_reason(const struct dc_candidate *c, const char *id)
{
    for (size_t i = 0; i < c->n_reasons; i++)
        if (strcmp(c->reasons[i].rule_id, id) == 0)
            return true;
    return false;
}

/* An L4 fleet is as many independent machines as the rate needs, up to
 * max_accelerators or the serving fleet limit, never the 8 chips one machine
 * holds; short of the rate it says so (a missed target, a warning). */
static void test_small_card_fleet(void **state)
{
    (void)state;
    static const char *const models[] = {"llama-3.1-8b", "qwen2.5-7b", "llama-3.2-3b"};
    static const double rates[] = {10, 300, 3000, 30000};
    static const char *const limits[] = {"", ",\"max_accelerators\":64"};
    char json[512];
    for (size_t m = 0; m < 3; m++)
        for (size_t k = 0; k < 4; k++)
            for (size_t l = 0; l < 2; l++) {
                snprintf(json, sizeof(json),
                         "{\"task\":\"inference\",\"precision\":\"fp8\",\"model\":{\"name\":"
                         "\"%s\"},\"inference\":{\"requests_per_second\":%g},\"constraints\":{"
                         "\"accelerators\":[\"l4\"]%s}}",
                         models[m], rates[k], limits[l]);
                struct run r = core_run(rules, json);
                bool excl = false;
                const struct dc_candidate *c = core_find(r.res, "l4", &excl);
                assert_false(excl);
                const struct dc_sizing *z = &c->sizing;
                unsigned most = l == 1 ? 64 : 4096;
                checked++;
                if (z->chips > most || z->replicas * z->chips_per_replica > z->chips)
                    fail_msg("%s: %u chips, %u replicas of %u", json, z->chips, z->replicas,
                             z->chips_per_replica);
                if (z->meets_rate)
                    assert_true(z->throughput_rps >= rates[k] * (1 - 1e-9));
                else if (!has_reason(c, "sizing.rate") || !core_has_warning(r.res, "rate_not_met"))
                    fail_msg("%s: the rate is missed (%g of %g) without saying so", json,
                             z->throughput_rps, rates[k]);
                /* More than one machine's 8 cards whenever the rate needs them. */
                if (rates[k] >= 3000 && l == 0)
                    assert_true(z->chips > 8);
                core_done(&r);
            }
}

/* A batch the workload asks for above the scheduler's default (max_batch) is
 * held whenever memory holds it: never a memory exclusion for a batch that
 * fits. */
static void test_large_batch_not_excluded(void **state)
{
    (void)state;
    static const double batches[] = {257, 300, 512, 1024};
    static const char *const accs[] = {"h100", "h200", "mi300x"};
    char json[512];
    for (size_t b = 0; b < 4; b++)
        for (size_t a = 0; a < 3; a++) {
            snprintf(json, sizeof(json),
                     "{\"task\":\"inference\",\"precision\":\"fp8\",\"model\":{\"name\":"
                     "\"llama-3.2-1b\"},\"inference\":{\"requests_per_second\":50,"
                     "\"batch_size\":%g,\"input_tokens\":500,\"output_tokens\":100,"
                     "\"kv_cache_precision\":\"fp8\"},\"constraints\":{\"accelerators\":[\"%s\"]}}",
                     batches[b], accs[a]);
            struct run r = core_run(rules, json);
            bool excl = false;
            const struct dc_candidate *c = core_find(r.res, accs[a], &excl);
            checked++;
            if (excl)
                fail_msg("%s: excluded by %s", json, c->excluded_by->rule_id);
            assert_int_equal(c->sizing.batch_per_replica, (unsigned)batches[b]);
            core_done(&r);
        }
}

/* The workload served one request at a time on exactly `chips` chips: the
 * fastest step a replica of them gives (dc_size_at lays out batch-1 runs so). */
static double fastest_step_ms(const char *model, const char *prec, const char *acc, unsigned chips)
{
    char json[512];
    snprintf(json, sizeof(json),
             "{\"task\":\"inference\",\"precision\":\"%s\",\"model\":{\"name\":\"%s\"},"
             "\"inference\":{\"batch_size\":1,\"requests_per_second\":0.1}}",
             prec, model);
    cJSON *w = cJSON_Parse(json);
    struct dc_sizing z;
    assert_int_equal(dc_size_at(rules, w, acc, chips, &z, NULL), DC_OK);
    cJSON_Delete(w);
    return z.fits ? z.decode_ms : INFINITY;
}

/* No replica misses a latency target that a larger tensor-parallel replica on
 * the same machines (the whole 8-GPU machine) would meet. */
static void test_tensor_parallel_meets_latency(void **state)
{
    (void)state;
    static const char *const models[] = {"llama-3.1-8b", "llama-3.3-70b", "qwen2.5-32b",
                                         "mixtral-8x7b"};
    static const char *const accs[] = {"h100", "h200", "b200"};
    static const double targets[] = {3, 5, 8, 15, 30};
    char json[512];
    for (size_t m = 0; m < 4; m++)
        for (size_t a = 0; a < 3; a++) {
            double whole = fastest_step_ms(models[m], "fp8", accs[a], 8);
            for (size_t t = 0; t < 5; t++) {
                snprintf(json, sizeof(json),
                         "{\"task\":\"inference\",\"precision\":\"fp8\",\"model\":{\"name\":"
                         "\"%s\"},\"inference\":{\"requests_per_second\":2,\"latency_ms_p99\":%g},"
                         "\"constraints\":{\"accelerators\":[\"%s\"]}}",
                         models[m], targets[t], accs[a]);
                struct run r = core_run(rules, json);
                bool excl = false;
                const struct dc_candidate *c = core_find(r.res, accs[a], &excl);
                checked++;
                if (!excl && !c->sizing.meets_latency && whole <= targets[t])
                    fail_msg("%s: missed %g ms at %u chips a replica (%.3g ms), where one "
                             "8-GPU replica steps in %.3g ms",
                             json, targets[t], c->sizing.chips_per_replica, c->sizing.decode_ms,
                             whole);
                if (!excl && c->sizing.meets_latency)
                    assert_true(c->sizing.decode_ms <= targets[t] * (1 + 1e-9));
                core_done(&r);
            }
        }
}

/* One request's prefill on one H200 at `context` tokens in, 16 out (one chip,
 * so that the layout is the same at every context). */
static double prefill_ms(const char *model, double context)
{
    char json[512];
    snprintf(json, sizeof(json),
             "{\"task\":\"inference\",\"precision\":\"fp8\",\"model\":{\"name\":\"%s\","
             "\"context_length\":2000000},\"inference\":{\"batch_size\":1,\"input_tokens\":%g,"
             "\"output_tokens\":16,\"kv_cache_precision\":\"fp8\"}}",
             model, context);
    cJSON *w = cJSON_Parse(json);
    struct dc_sizing z;
    struct dc_error err;
    dc_error_clear(&err);
    if (dc_size_at(rules, w, "h200", 1, &z, &err) != DC_OK)
        fail_msg("%s: %s", json, err.msg);
    cJSON_Delete(w);
    return z.prefill_ms;
}

/* Attention's quadratic term: past 32K tokens, doubling the context more than
 * doubles a full-attention model's prefill; a sliding window keeps it close
 * to linear. */
static void test_prefill_superlinear(void **state)
{
    (void)state;
    static const char *const full[] = {"llama-3.1-8b", "qwen2.5-7b"};
    for (size_t m = 0; m < 2; m++)
        for (double ctx = 32768; ctx <= 524288; ctx *= 2) {
            double a = prefill_ms(full[m], ctx), b = prefill_ms(full[m], 2 * ctx);
            checked++;
            if (!(b > 2.1 * a))
                fail_msg("%s: prefill %.4g ms at %g tokens, %.4g at %g: not super-linear", full[m],
                         a, ctx, b, 2 * ctx);
        }
    /* Mistral 7B attends within a 4,096-token window in every layer. */
    for (double ctx = 32768; ctx <= 262144; ctx *= 2) {
        double a = prefill_ms("mistral-7b", ctx), b = prefill_ms("mistral-7b", 2 * ctx);
        checked++;
        assert_true(b > 1.9 * a && b < 2.1 * a);
    }
}

/* v5e serves from one host of 8 chips: the rule reads the replica sizing built
 * (sized.chips_per_replica), so it holds exactly for replicas past one host. */
static void test_rules_see_sized_replica(void **state)
{
    (void)state;
    static const char *const models[] = {"llama-3.1-8b", "qwen2.5-32b", "llama-3.1-70b"};
    static const double rates[] = {1, 20};
    char json[512];
    size_t held = 0, not_held = 0;
    for (size_t m = 0; m < 3; m++)
        for (size_t k = 0; k < 2; k++) {
            snprintf(json, sizeof(json),
                     "{\"task\":\"inference\",\"model\":{\"name\":\"%s\"},\"inference\":{"
                     "\"requests_per_second\":%g},\"constraints\":{\"accelerators\":"
                     "[\"tpu-v5e\"]}}",
                     models[m], rates[k]);
            struct run r = core_run(rules, json);
            bool excl = false;
            const struct dc_candidate *c = core_find(r.res, "tpu-v5e", &excl);
            if (!excl) {
                bool multi = c->sizing.chips_per_replica > 8;
                checked++;
                if (multi != has_reason(c, "v5e-single-host-inference"))
                    fail_msg("%s: %u chips a replica, the single-host rule %s", json,
                             c->sizing.chips_per_replica, multi ? "missed" : "held anyway");
                multi ? held++ : not_held++;
            }
            core_done(&r);
        }
    assert_true(held > 0 && not_held > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_card_fleet),
        cmocka_unit_test(test_large_batch_not_excluded),
        cmocka_unit_test(test_tensor_parallel_meets_latency),
        cmocka_unit_test(test_prefill_superlinear),
        cmocka_unit_test(test_rules_see_sized_replica),
    };
    return cmocka_run_group_tests_name("layout", tests, setup, teardown);
}
