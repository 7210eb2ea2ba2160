/* tests/unit/core/test_sizing.c -- core/src/sizing/sizing.c: memory by method, compute,
 * chips in purchasable shapes, MFU by scale, deadlines and objectives, serving
 * replicas, batches and latency, the new workload fields and their checks.
 * Every expected number is worked by hand from tests/support/mini_rules.h:
 *   gpu-a: 80 GB (72 usable), 3,350 GB/s, bf16 989 / fp8 1,979 TFLOPS, machines of
 *          1, 2, 4, 8, NVLink domain 8, cluster 256, $4.90/chip-hour;
 *   tpu-b: 32 GB (28.8 usable), bf16 918, slices of 4, 16, 64 (the domain), cluster 256;
 *   MFU 0.5 in a domain, x0.9 across domains, -5% per doubling past one; goodput 0.8;
 *   serving at 50% of HBM bandwidth and 50% of peak. */
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

/* The result and the workload it views (freed together by done()). */
static struct run run(const char *json)
{
    return core_run(mini, json);
}

static void done(struct run *r)
{
    core_done(r);
}

static const struct dc_candidate *cand(const struct run *r, const char *id)
{
    const struct dc_candidate *c = test_candidate(r->res, id);
    if (c == NULL)
        fail_msg("candidate %s not in result", id);
    return c;
}

static bool has_warning(const struct run *r, const char *code)
{
    for (size_t i = 0; i < r->res->n_warnings; i++) {
        if (strcmp(r->res->warnings[i].code, code) == 0)
            return true;
    }
    return false;
}

static const char *warning_message(const struct run *r, const char *code)
{
    for (size_t i = 0; i < r->res->n_warnings; i++) {
        if (strcmp(r->res->warnings[i].code, code) == 0)
            return r->res->warnings[i].message;
    }
    fail_msg("no warning %s", code);
    return NULL;
}

static const char *shape_of(const struct dc_candidate *c, char *buf, size_t len)
{
    return dc_shape_format(c->acc, &c->sizing.shape, buf, len);
}

static const char *reason_text(const struct run *r, const struct dc_candidate *c, const char *id,
                               char *buf, size_t len)
{
    for (size_t i = 0; i < c->n_reasons; i++) {
        if (strcmp(c->reasons[i].rule_id, id) == 0)
            return dc_reason_text(r->res, c, &c->reasons[i], buf, len);
    }
    fail_msg("%s has no reason %s", c->acc->id, id);
    return NULL;
}

#define NEAR(a, b)                                                                                 \
    assert_true(fabs((double)(a) - (double)(b)) <= 1e-6 * fmax(1.0, fabs((double)(b))))

/* Forward attention FLOPs one token of a causal sequence of n adds, over the
 * layers (core/src/sizing/derive.c): 4 x hidden a query-key pair and layer, (n + 1) / 2
 * pairs a token on average. Training runs it forward and back (x 3), LoRA x 2. */
#define ATTN(layers, hidden, n) (4.0 * (hidden) * (layers) * ((n) + 1) / 2)
/* The 7B job's FLOPs: 6ND and the attention of its 4,096-token sequences. */
#define FLOPS_7B(tokens) ((6 * 7e9 + 3 * ATTN(32, 4096, 4096)) * (tokens))

/* A 7B model, layers 32, hidden 4096, 1e8 tokens, full training:
 *   state 7e9 x 16 B = 112 GB; activations 4096 x 1 x 4096 x (2 x 32 + 34) B = 1.644 GB;
 *   gpu-a: 112/c + 1.644/c <= 72 at c = 2; FLOPs 6 x 7e9 x 1e8 = 4.2e18 and the
 *   attention's 3 x 4 x 4096 x 32 x 2048.5 x 1e8 = 3.22e17, 4.52e18 in all, at
 *   989e12 x 0.5 x 0.8 = 3.956e14 per chip: 1.587 h on 2 chips. Within the 8-chip
 *   domain every count costs the same $15.56 (1.587 h x 2 x $4.90), so the faster
 *   one is kept: 4 chips (0.794 h; 8 chips also count as the 1 h minimum run).
 *   tpu-b: 112/c + 1.644/c <= 28.8 at c = 4: the tpu-b-4 slice. */
static void test_training_full(void **state)
{
    (void)state;
    struct run r = run("{\"task\":\"training\",\"model\":{\"parameters\":7e9,\"layers\":32,"
                       "\"hidden_size\":4096},\"training\":{\"tokens\":1e8}}");
    const struct dc_candidate *g = cand(&r, "gpu-a");
    double act = 4096.0 * 4096 * (2 * 32 + 34) / 1e9;
    NEAR(g->sizing.memory_need_gb, 112 + act);
    NEAR(g->sizing.memory_per_chip_gb, 72);
    assert_int_equal(g->sizing.chips_for_memory, 2);
    assert_int_equal(g->sizing.chips, 4);
    assert_int_equal(g->sizing.basis, DC_BASIS_CHEAPEST);
    char buf[512];
    assert_string_equal(shape_of(g, buf, sizeof(buf)), "1 x 4 gpu-a");
    double hours = FLOPS_7B(1e8) / (4 * 989e12 * 0.5 * 0.8) / 3600;
    NEAR(g->sizing.hours, hours);
    NEAR(g->sizing.mfu, 0.5); /* steady state, before goodput */
    NEAR(g->sizing.scale_efficiency, 1.0);
    NEAR(g->sizing.cost_usd, hours * 4 * 4.9);
    assert_true(g->sizing.meets_deadline);
    const struct dc_candidate *t = cand(&r, "tpu-b");
    assert_int_equal(t->sizing.chips, 4);
    assert_string_equal(shape_of(t, buf, sizeof(buf)), "tpu-b-4");
    assert_true(isnan(t->sizing.cost_usd));
    assert_non_null(strstr(reason_text(&r, g, "sizing.memory", buf, sizeof(buf)),
                           "the smallest shape that holds it is 1 x 2 gpu-a"));
    assert_non_null(strstr(reason_text(&r, g, "sizing.time", buf, sizeof(buf)),
                           "About 47.6 min on 1 x 4 gpu-a, the cheapest count"));
    assert_non_null(strstr(reason_text(&r, g, "sizing.cost", buf, sizeof(buf)), "$15.56"));
    /* Every assumption names a public source or says it is a convention. */
    for (size_t i = 0; i < r.res->n_assumptions; i++) {
        const char *s = r.res->assumptions[i].source;
        assert_true(strncmp(s, "https://", 8) == 0 || strcmp(s, "convention") == 0);
    }
    done(&r);
}

/* LoRA: the base frozen at bf16 (2 B/parameter) plus 1% adapters at 16 B:
 * 7e9 x 2 + 7e7 x 16 = 15.12 GB; QLoRA: 7e9 x 0.5 + 7e7 x 16 = 4.62 GB; both
 * compute 4 of full training's 6 FLOPs per parameter and token. 1e9 tokens take
 * 19.7 h on one chip, so the whole 8-chip domain (same cost) is kept: 2.5 h. */
static void test_training_methods(void **state)
{
    (void)state;
#define METHOD_JOB(m)                                                                              \
    "{\"task\":\"fine-tuning\",\"model\":{\"parameters\":7e9,\"layers\":32,"                       \
    "\"hidden_size\":4096},\"training\":{\"tokens\":1e9,\"method\":\"" m "\"}}"
    double act = 4096.0 * 4096 * (2 * 32 + 34) / 1e9;
    struct run r = run(METHOD_JOB("lora"));
    const struct dc_candidate *g = cand(&r, "gpu-a");
    NEAR(g->sizing.memory_need_gb, 15.12 + act);
    assert_int_equal(g->sizing.chips_for_memory, 1);
    assert_int_equal(g->sizing.chips, 8);
    NEAR(g->sizing.hours,
         (4 * 7e9 + 2 * ATTN(32, 4096, 4096)) * 1e9 / (8 * 989e12 * 0.5 * 0.8) / 3600);
    done(&r);
    r = run(METHOD_JOB("qlora"));
    g = cand(&r, "gpu-a");
    NEAR(g->sizing.memory_need_gb, 4.62 + act);
    const struct dc_candidate *t = cand(&r, "tpu-b");
    /* One chip would do and the smallest slice is 4, but every slice of the
     * 64-chip domain costs the same chip-hours (5.3 h on 4), so the fastest is
     * kept: 64 chips, a run that counts as the 1 h minimum. */
    assert_int_equal(t->sizing.chips, 64);
    char buf[512];
    assert_non_null(
        strstr(reason_text(&r, g, "sizing.memory", buf, sizeof(buf)), "a 4-bit NF4 base"));
    done(&r);
    r = run(METHOD_JOB("full"));
    g = cand(&r, "gpu-a");
    assert_int_equal(g->sizing.chips_for_memory, 2);
    assert_int_equal(g->sizing.chips, 8);
    NEAR(g->sizing.hours, FLOPS_7B(1e9) / (8 * 989e12 * 0.5 * 0.8) / 3600);
    done(&r);
}

/* Compute by architecture: MoE computes with its active parameters; embedding
 * tables hold memory but no dense compute; flops_per_sample replaces 6ND; a CNN
 * without it is flagged, with it runs at the CNN MFU factor (0.5 in the mini set). */
static void test_training_compute(void **state)
{
    (void)state;
    struct run r = run("{\"task\":\"training\",\"model\":{\"architecture\":\"moe\","
                       "\"parameters\":8e9,\"active_parameters\":2e9,\"layers\":24,"
                       "\"hidden_size\":2048},\"training\":{\"tokens\":1e9}}");
    const struct dc_candidate *g = cand(&r, "gpu-a");
    NEAR(g->sizing.memory_need_gb, 8e9 * 16 / 1e9 + 4096.0 * 2048 * (2 * 24 + 34) / 1e9);
    NEAR(g->sizing.hours, (6 * 2e9 + 3 * ATTN(24, 2048, 4096)) * 1e9 /
                              (g->sizing.chips * 989e12 * 0.5 * 0.8) / 3600);
    done(&r);
    /* Tables of 9.9e9 fp32 rows train with a row-wise optimizer (4 B a
     * parameter), the dense 1e8 with Adam (16 B), and a sample is one example
     * (activations of one position, not 4,096); without flops_per_sample the
     * run's time and cost are withheld, the chips that hold it stay. */
    r = run("{\"task\":\"training\",\"model\":{\"architecture\":\"recommender\","
            "\"parameters\":1e10,\"embedding_parameters\":9.9e9,\"layers\":4,\"hidden_size\":1024},"
            "\"training\":{\"tokens\":1e10}}");
    g = cand(&r, "gpu-a");
    NEAR(g->sizing.memory_need_gb, (9.9e9 * 4 + 1e8 * 16) / 1e9 + 1.0 * 1024 * (2 * 4 + 34) / 1e9);
    assert_true(isnan(g->sizing.hours));
    assert_true(isnan(g->sizing.cost_usd));
    assert_string_equal(g->sizing.estimate_withheld, "model.flops_per_sample");
    assert_false(has_warning(&r, "compute_estimate_rough")); /* not rough: withheld */
    assert_true(has_warning(&r, "estimate_withheld"));
    done(&r);
    /* An MLP's sample is one example: samples are its tokens, unless the
     * workload says how many positions a sample has. */
    r = run("{\"task\":\"training\",\"model\":{\"architecture\":\"mlp\","
            "\"parameters\":5e7},\"training\":{\"samples\":1e7}}");
    assert_true(r.res->workload.sequence_length == 1);
    assert_true(r.res->workload.tokens == 1e7);
    done(&r);
    r = run("{\"task\":\"training\",\"model\":{\"architecture\":\"mlp\","
            "\"parameters\":5e7},\"training\":{\"samples\":1e7,\"sequence_length\":16}}");
    assert_true(r.res->workload.tokens == 1.6e8);
    done(&r);
    r = run("{\"task\":\"training\",\"model\":{\"architecture\":\"cnn\",\"parameters\":2.56e7,"
            "\"flops_per_sample\":8.2e9},\"training\":{\"samples\":4.6e7}}");
    g = cand(&r, "gpu-a");
    NEAR(g->sizing.hours, 3 * 8.2e9 * 4.6e7 / (g->sizing.chips * 989e12 * 0.5 * 0.5 * 0.8) / 3600);
    NEAR(g->sizing.mfu, 0.25);
    assert_false(has_warning(&r, "compute_estimate_rough"));
    done(&r);
    /* A CNN without its FLOPs would run ~100x low: withheld, not rough; a
     * GNN's 2N guess stays, flagged rough. */
    r = run("{\"task\":\"training\",\"model\":{\"architecture\":\"cnn\",\"parameters\":2.56e7}}");
    assert_true(has_warning(&r, "estimate_withheld"));
    assert_false(has_warning(&r, "compute_estimate_rough"));
    done(&r);
    r = run("{\"task\":\"training\",\"model\":{\"architecture\":\"gnn\",\"parameters\":2.56e7}}");
    assert_true(has_warning(&r, "compute_estimate_rough"));
    done(&r);
}

/* The same 7B job (4.2e18 FLOPs at 3.956e14 FLOP/s per chip in a domain):
 *  - deadline 0.5 h needs chips x efficiency >= 5.898: 8 chips (machines come in
 *    1, 2, 4, 8), 0.369 h;
 *  - deadline 0.1 h needs >= 29.49: 32 chips give 32 x 0.9 x (1 - 0.05 x 2) = 25.92,
 *    40 give 40 x 0.9 x (1 - 0.05 x log2 5) = 31.82: 5 machines of 8;
 *  - deadline 0.1 h within max_accelerators 4: 4 chips, missed, warned;
 *  - objective time: as fast as the efficiency floor allows, but no run under 1 h:
 *    >= 2.949 needs 4 chips (0.737 h). */
static void test_deadline_and_objective(void **state)
{
    (void)state;
    static const char *const job = "\"model\":{\"parameters\":7e9,\"layers\":32,"
                                   "\"hidden_size\":4096},\"training\":{\"tokens\":1e8";
    char json[320];
    snprintf(json, sizeof(json), "{\"task\":\"training\",%s,\"deadline_hours\":0.5}}", job);
    struct run r = run(json);
    const struct dc_candidate *g = cand(&r, "gpu-a");
    assert_int_equal(g->sizing.chips, 8);
    assert_int_equal(g->sizing.basis, DC_BASIS_DEADLINE);
    NEAR(g->sizing.hours, FLOPS_7B(1e8) / (8 * 3.956e14) / 3600);
    assert_true(g->sizing.meets_deadline);
    done(&r);
    snprintf(json, sizeof(json), "{\"task\":\"training\",%s,\"deadline_hours\":0.1}}", job);
    r = run(json);
    g = cand(&r, "gpu-a");
    assert_int_equal(g->sizing.chips, 40);
    char buf[512];
    assert_string_equal(shape_of(g, buf, sizeof(buf)), "5 x 8 gpu-a");
    NEAR(g->sizing.scale_efficiency, 0.9 * (1 - 0.05 * log2(5)));
    assert_true(g->sizing.hours <= 0.1);
    done(&r);
    snprintf(json, sizeof(json),
             "{\"task\":\"training\",%s,\"deadline_hours\":0.1},"
             "\"constraints\":{\"max_accelerators\":4,\"providers\":[\"aws\"]}}",
             job);
    r = run(json);
    g = cand(&r, "gpu-a");
    assert_int_equal(g->sizing.chips, 4);
    assert_int_equal(g->sizing.basis, DC_BASIS_LIMIT);
    assert_false(g->sizing.meets_deadline);
    assert_true(has_warning(&r, "deadline_not_met"));
    done(&r);
    snprintf(json, sizeof(json), "{\"task\":\"training\",%s},\"objective\":\"time\"}", job);
    r = run(json);
    g = cand(&r, "gpu-a");
    assert_int_equal(g->sizing.chips, 4);
    assert_int_equal(g->sizing.basis, DC_BASIS_FASTEST);
    done(&r);
}

/* Without a deadline a long run is sized for the 720 h target, within the
 * efficiency floor: 70B on 1.4e12 tokens (20 per parameter) needs chips x
 * efficiency >= 5.88e23 / (720 x 3600 x 3.956e14) = 573, beyond the cluster's 256;
 * the floor (0.7 against 0.9 across domains, -5% a doubling) allows
 * 8 x 2^((1 - 0.7/0.9) / 0.05) = 174 chips: 21 machines of 8, the limit. With
 * objective time and no deadline: the same 168, the fastest efficient shape. */
static void test_target_duration(void **state)
{
    (void)state;
    struct run r = run("{\"task\":\"training\",\"model\":{\"parameters\":7e10}}");
    const struct dc_candidate *g = cand(&r, "gpu-a");
    assert_int_equal(g->sizing.chips, 168);
    assert_int_equal(g->sizing.basis, DC_BASIS_LIMIT);
    assert_true(g->sizing.scale_efficiency >= 0.7);
    assert_true(g->sizing.hours > 720);
    done(&r);
    /* A job the target fits: 1e9 parameters on 5e11 tokens needs
     * 3e21 / (720 x 3600 x 3.956e14) = 2.93 chips of one domain: 4; the rest of
     * the domain costs the same and finishes sooner, so 8 (the cheapest). */
    r = run("{\"task\":\"training\",\"model\":{\"parameters\":1e9},"
            "\"training\":{\"tokens\":5e11}}");
    g = cand(&r, "gpu-a");
    assert_int_equal(g->sizing.chips, 8);
    assert_int_equal(g->sizing.basis, DC_BASIS_CHEAPEST);
    assert_true(g->sizing.hours <= 720);
    done(&r);
    /* A global batch of 2 sequences keeps at most 2 domains (16 chips) busy. */
    r = run("{\"task\":\"training\",\"model\":{\"parameters\":7e10},"
            "\"training\":{\"global_batch_size\":2,\"deadline_hours\":1}}");
    g = cand(&r, "gpu-a");
    assert_int_equal(g->sizing.chips, 16);
    assert_false(g->sizing.meets_deadline);
    done(&r);
}

/* 13B fp16, 40 layers, hidden 5120, 40 heads (MHA): KV 2 x 40 x 40 x 128 x 2 =
 * 819,200 B a token (vLLM's 800 KB for OPT-13B); 2,048 tokens of context (1,792 in,
 * 256 out) make 1.678 GB a request. One gpu-a holds 26 x 1.2 = 31.2 GB of weights
 * and floor(40.8 / 1.678) = 24 requests. The batches tried are 24, 6 and 1; at 6 a
 * step reads 26e9 + 6 x 819,200 x (1,792 + 128) B at 1,675 GB/s = 21.16 ms, prefill
 * 2 x 13e9 x 1,792 at 494.5 TFLOP/s = 94.2 ms, and the replica completes
 * 6 / (6 x 0.0942 + 256 x 0.02116) = 1.006 req/s: the 1 req/s asked on one chip,
 * as batch 24 does, at the same cost and a shorter wait, so 6 is kept. */
static void test_inference_generative(void **state)
{
    (void)state;
    struct run r = run("{\"task\":\"inference\",\"precision\":\"fp16\",\"model\":{"
                       "\"parameters\":13e9,\"layers\":40,\"hidden_size\":5120,"
                       "\"attention_heads\":40}}");
    const struct dc_candidate *g = cand(&r, "gpu-a");
    double kv_req = 819200.0 * 2048 / 1e9;
    assert_int_equal(g->sizing.batch_per_replica, 6);
    NEAR(g->sizing.memory_need_gb, 31.2 + 6 * kv_req);
    assert_int_equal(g->sizing.chips_per_replica, 1);
    assert_int_equal(g->sizing.replicas, 1);
    double step = (26e9 + 6 * 819200.0 * 1920) / 1675e9;
    /* Prefill: 2 FLOPs a parameter and token, plus 4 x heads x head dim for
     * each of the 1,792 x 1,793 / 2 causal query-key pairs in each layer. */
    double prefill = (2 * 13e9 * 1792 + 4.0 * 40 * 128 * 40 * 1792 * 1793 / 2) / (989e12 * 0.5);
    NEAR(g->sizing.decode_ms, step * 1000);
    NEAR(g->sizing.prefill_ms, prefill * 1000);
    NEAR(g->sizing.request_ms, (prefill + 256 * step) * 1000);
    NEAR(g->sizing.throughput_rps, 6 / (6 * prefill + 256 * step));
    NEAR(g->sizing.tokens_per_second, g->sizing.throughput_rps * 256);
    assert_false(g->sizing.compute_bound);
    assert_true(g->sizing.meets_rate);
    NEAR(g->sizing.cost_usd, 730 * 4.9);
    /* fp16 is not in tpu-b's precisions. */
    assert_string_equal(cand(&r, "tpu-b")->excluded_by->rule_id, "catalog.precision");
    char buf[512];
    assert_non_null(strstr(reason_text(&r, g, "sizing.memory", buf, sizeof(buf)),
                           "every attention head a KV head: set model.kv_heads"));
    assert_non_null(strstr(reason_text(&r, g, "sizing.serving", buf, sizeof(buf)),
                           "1 replica of 1 chip on 1 x 1 gpu-a"));
    done(&r);
}

/* Grouped-query attention shrinks the cache by heads / KV heads (here 5x), so
 * five times the requests fit; a latency target caps the batch; 9 req/s need
 * replicas, bought as whole machines that the replicas then fill. */
static void test_inference_batch_latency_rate(void **state)
{
    (void)state;
    static const char *const model = "\"model\":{\"parameters\":13e9,\"layers\":40,"
                                     "\"hidden_size\":5120,\"attention_heads\":40,\"kv_heads\":8}";
    char json[400];
    /* floor(40.8 / (163,840 x 2,048 / 1e9)) = 121 requests fit one chip, 122 do not. */
    snprintf(json, sizeof(json), "{\"task\":\"inference\",%s,\"inference\":{\"batch_size\":121}}",
             model);
    struct run r = run(json);
    const struct dc_candidate *g = cand(&r, "gpu-a");
    assert_int_equal(g->sizing.batch_per_replica, 121);
    assert_int_equal(g->sizing.chips_per_replica, 1);
    done(&r);
    snprintf(json, sizeof(json),
             "{\"task\":\"inference\",%s,\"inference\":{\"batch_size\":122},"
             "\"constraints\":{\"max_accelerators\":1}}",
             model);
    r = run(json);
    g = cand(&r, "gpu-a");
    assert_non_null(g->excluded_by);
    assert_string_equal(g->excluded_by->rule_id, "sizing.memory");
    done(&r);
    /* Steps at batch b on t chips: (26e9 + b x 163,840 x 1,920) / (t x 1,675e9) s;
     * 20 ms allows b <= 23 on one chip (3.16 req/s: 3 replicas for 9 req/s) and
     * b <= (0.02 x 3,350e9 - 26e9) / 314,572,800 = 130 on two, whose replica
     * completes 130 / (130 x 0.0471 + 256 x 0.01997) = 11.6 req/s: one replica of
     * 2 chips is the cheapest layout. */
    snprintf(json, sizeof(json),
             "{\"task\":\"inference\",%s,\"inference\":{\"latency_ms_p99\":20,"
             "\"requests_per_second\":9}}",
             model);
    r = run(json);
    g = cand(&r, "gpu-a");
    assert_int_equal(g->sizing.batch_per_replica, 130);
    assert_int_equal(g->sizing.chips_per_replica, 2);
    assert_int_equal(g->sizing.replicas, 1);
    assert_true(g->sizing.decode_ms <= 20);
    assert_true(g->sizing.meets_latency);
    done(&r);
    /* 1 ms is below one read of the weights: missed, warned, batch 1. */
    snprintf(json, sizeof(json), "{\"task\":\"inference\",%s,\"inference\":{\"latency_ms_p99\":1}}",
             model);
    r = run(json);
    g = cand(&r, "gpu-a");
    assert_false(g->sizing.meets_latency);
    assert_true(has_warning(&r, "latency_not_met") || r.res->recommendations[0].acc != g->acc);
    done(&r);
    /* A rate: replicas = ceil(rate / per-replica rate), in whole machines. */
    snprintf(json, sizeof(json),
             "{\"task\":\"inference\",%s,\"inference\":{\"requests_per_second\":40}}", model);
    r = run(json);
    g = cand(&r, "gpu-a");
    assert_true(g->sizing.throughput_rps >= 40);
    assert_true(g->sizing.meets_rate);
    assert_int_equal(g->sizing.chips, g->sizing.shape.units * g->sizing.shape.per_unit);
    assert_int_equal(g->sizing.replicas, g->sizing.chips / g->sizing.chips_per_replica);
    /* One replica of all 8 chips (tensor parallel) serves 40 req/s most cheaply. */
    assert_int_equal(g->sizing.chips_per_replica, 8);
    assert_int_equal(g->sizing.basis, DC_BASIS_CHEAPEST);
    done(&r);
    /* More than the accelerator limit serves: replicas capped, rate_not_met. */
    snprintf(json, sizeof(json),
             "{\"task\":\"inference\",%s,\"inference\":{\"requests_per_second\":10000},"
             "\"constraints\":{\"max_accelerators\":8,\"providers\":[\"aws\"]}}",
             model);
    r = run(json);
    g = cand(&r, "gpu-a");
    assert_int_equal(g->sizing.chips, 8);
    assert_false(g->sizing.meets_rate);
    assert_int_equal(g->sizing.basis, DC_BASIS_LIMIT);
    assert_true(has_warning(&r, "rate_not_met"));
    char buf[512];
    assert_non_null(strstr(reason_text(&r, g, "sizing.rate", buf, sizeof(buf)),
                           "of the 10,000 requests/s asked"));
    assert_non_null(strstr(warning_message(&r, "rate_not_met"), "max_accelerators (8 chips)"));
    done(&r);
    /* Without max_accelerators the rule author's fleet limit binds, and the
     * warning and the reason name the setting and its value (issue 27). */
    snprintf(json, sizeof(json),
             "{\"task\":\"inference\",%s,\"inference\":{\"requests_per_second\":1e6},"
             "\"constraints\":{\"providers\":[\"aws\"]}}",
             model);
    r = run(json);
    g = cand(&r, "gpu-a");
    assert_false(g->sizing.meets_rate);
    assert_true(g->sizing.chips <= 4096);
    assert_non_null(strstr(warning_message(&r, "rate_not_met"),
                           "the serving fleet limit of 4,096 chips (serving_max_chips in "
                           "rules/sizing.yaml)"));
    assert_non_null(
        strstr(reason_text(&r, g, "sizing.rate", buf, sizeof(buf)), "serving_max_chips"));
    done(&r);
}

/* A mixture of experts reads only the experts its batch touches: at batch 1 one
 * token's active parameters. Models that generate nothing are timed per batch by
 * FLOPs (flops_per_sample for a diffusion model: every denoising step). */
static void test_inference_moe_and_non_generative(void **state)
{
    (void)state;
    struct run r = run("{\"task\":\"inference\",\"model\":{\"architecture\":\"moe\","
                       "\"parameters\":4.6e10,\"active_parameters\":1.3e10,\"layers\":32,"
                       "\"hidden_size\":4096,\"attention_heads\":32,\"kv_heads\":8},"
                       "\"inference\":{\"batch_size\":1}}");
    const struct dc_candidate *g = cand(&r, "gpu-a");
    assert_int_equal(g->sizing.batch_per_replica, 1);
    double kv = 2.0 * 32 * 8 * 128 * 2 * (1792 + 128);
    NEAR(g->sizing.decode_ms, (2 * 1.3e10 + kv) / (g->sizing.chips_per_replica * 1675e9) * 1000);
    done(&r);
    /* A diffusion request is steps x guidance passes x one pass's FLOPs:
     * 20 x 2 x 1.5e13 = 6e14 an image. */
    r = run("{\"task\":\"inference\",\"model\":{\"architecture\":\"diffusion\","
            "\"parameters\":2.6e9,\"flops_per_sample\":1.5e13,\"denoising_steps\":20,"
            "\"guidance_passes\":2},"
            "\"inference\":{\"requests_per_second\":2,\"batch_size\":4}}");
    g = cand(&r, "gpu-a");
    assert_true(isnan(g->sizing.prefill_ms));
    assert_true(isnan(g->sizing.tokens_per_second));
    assert_true(g->sizing.compute_bound);
    double batch_s = 4 * 6e14 / (g->sizing.chips_per_replica * 989e12 * 0.5);
    NEAR(g->sizing.decode_ms, batch_s * 1000);
    NEAR(g->sizing.throughput_rps, g->sizing.replicas * 4 / batch_s);
    assert_true(g->sizing.meets_rate);
    assert_false(has_warning(&r, "compute_estimate_rough"));
    done(&r);
    r = run("{\"task\":\"inference\",\"model\":{\"architecture\":\"diffusion\","
            "\"parameters\":2.6e9}}");
    assert_true(has_warning(&r, "estimate_withheld"));
    assert_false(has_warning(&r, "compute_estimate_rough"));
    done(&r);
}

/* Tokens per request: defaults, derivations and their checks. */
static void test_request_tokens(void **state)
{
    (void)state;
    struct {
        const char *inference;
        double ctx, in, out;
    } cases[] = {
        {"{}", 2048, 1792, 256},
        {"{\"context_tokens\":4096}", 4096, 3840, 256},
        {"{\"context_tokens\":300}", 300, 150, 150},
        {"{\"input_tokens\":1000,\"output_tokens\":1000}", 2000, 1000, 1000},
        {"{\"input_tokens\":500}", 756, 500, 256},
        {"{\"output_tokens\":0}", 2048, 2048, 0},
        {"{\"context_tokens\":1000,\"input_tokens\":900}", 1000, 900, 100},
        {"{\"context_tokens\":1000,\"output_tokens\":100}", 1000, 900, 100},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char json[256];
        snprintf(json, sizeof(json),
                 "{\"task\":\"inference\",\"model\":{\"parameters\":1e9},"
                 "\"inference\":%s}",
                 cases[i].inference);
        cJSON *j = cJSON_Parse(json);
        struct dc_workload w;
        struct dc_error err;
        if (dc_workload_parse(mini, j, &w, &err) != DC_OK)
            fail_msg("%s: %s", cases[i].inference, err.msg);
        if (w.context_tokens != cases[i].ctx || w.input_tokens != cases[i].in ||
            w.output_tokens != cases[i].out)
            fail_msg("%s: got %g = %g + %g", cases[i].inference, w.context_tokens, w.input_tokens,
                     w.output_tokens);
        cJSON_Delete(j);
    }
    /* Models without a KV cache generate nothing by default. */
    cJSON *j = cJSON_Parse("{\"task\":\"inference\",\"model\":{\"architecture\":\"cnn\","
                           "\"parameters\":1e9}}");
    struct dc_workload w;
    assert_int_equal(dc_workload_parse(mini, j, &w, NULL), DC_OK);
    assert_true(w.output_tokens == 0);
    assert_int_equal(w.kv_precision, DC_PREC_BF16);
    cJSON_Delete(j);
    /* The cache keeps fp64, fp32 and fp16 weights' precision; quantised weights a
     * 16-bit cache. (A default once came from another string table and read as
     * fp64 in unoptimised builds.) */
    static const struct {
        const char *precision;
        enum dc_precision kv;
    } kv[] = {{"fp16", DC_PREC_FP16}, {"fp32", DC_PREC_FP32}, {"fp64", DC_PREC_FP64},
              {"int8", DC_PREC_BF16}, {"fp8", DC_PREC_BF16},  {"int4", DC_PREC_BF16}};
    for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++) {
        char json[160];
        snprintf(json, sizeof(json),
                 "{\"task\":\"inference\",\"precision\":\"%s\",\"model\":{\"parameters\":1e9}}",
                 kv[i].precision);
        j = cJSON_Parse(json);
        assert_int_equal(dc_workload_parse(mini, j, &w, NULL), DC_OK);
        assert_int_equal(w.kv_precision, kv[i].kv);
        cJSON_Delete(j);
    }
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
    if (strcmp(err.where, pointer) != 0 || strstr(err.msg, msg_part) == NULL)
        fail_msg("%s: got %s: %s", json, err.where, err.msg);
    cJSON_Delete(w);
}

/* Every check on the fields this model added, with its pointer. */
static void test_new_field_errors(void **state)
{
    (void)state;
#define M(x) "{\"task\":\"training\",\"model\":{\"parameters\":1e9," x "}}"
#define I(x) "{\"task\":\"inference\",\"model\":{\"parameters\":1e9},\"inference\":{" x "}}"
#define T(x) "{\"task\":\"training\",\"model\":{\"parameters\":1e9},\"training\":{" x "}}"
#define C(x) "{\"task\":\"training\",\"model\":{\"parameters\":1e9},\"constraints\":{" x "}}"
    expect_invalid(M("\"active_parameters\":2e9"), "/model/active_parameters", "exceeds");
    expect_invalid(M("\"active_parameters\":0"), "/model/active_parameters", "out of range");
    expect_invalid(M("\"embedding_parameters\":1e9"), "/model/embedding_parameters",
                   "must be less than active_parameters");
    expect_invalid(M("\"embedding_parameters\":-1"), "/model/embedding_parameters", "out of range");
    expect_invalid(M("\"flops_per_sample\":0"), "/model/flops_per_sample", "out of range");
    expect_invalid(M("\"attention_heads\":1.5"), "/model/attention_heads", "integer");
    expect_invalid(M("\"attention_heads\":8,\"kv_heads\":16"), "/model/kv_heads",
                   "exceeds attention_heads");
    expect_invalid(M("\"attention_heads\":12,\"kv_heads\":8"), "/model/kv_heads",
                   "kv_heads (8) does not divide attention_heads (12)");
    expect_invalid(T("\"method\":\"dora\""), "/training/method", "unknown value");
    expect_invalid(T("\"sequence_length\":0"), "/training/sequence_length", "out of range");
    expect_invalid(T("\"samples\":0.5"), "/training/samples", "out of range");
    expect_invalid(I("\"input_tokens\":0"), "/inference/input_tokens", "out of range");
    expect_invalid(I("\"output_tokens\":-1"), "/inference/output_tokens", "out of range");
    expect_invalid(I("\"context_tokens\":100,\"input_tokens\":101"), "/inference/input_tokens",
                   "exceeds context_tokens");
    expect_invalid(I("\"context_tokens\":100,\"output_tokens\":100"), "/inference/output_tokens",
                   "leaves no room");
    expect_invalid(I("\"context_tokens\":100,\"input_tokens\":60,\"output_tokens\":60"),
                   "/inference/context_tokens", "less than input_tokens + output_tokens");
    expect_invalid(I("\"input_tokens\":10000000,\"output_tokens\":10"), "/inference/input_tokens",
                   "exceed the context limit");
    expect_invalid(I("\"kv_cache_precision\":\"fp7\""), "/inference/kv_cache_precision",
                   "unknown value");
    expect_invalid(C("\"accelerators\":[]"), "/constraints/accelerators", "at least one");
    expect_invalid(C("\"accelerators\":\"gpu-a\""), "/constraints/accelerators", "array");
    expect_invalid(C("\"accelerators\":[\"gpu-a\",\"nope\"]"), "/constraints/accelerators/1",
                   "unknown accelerator \"nope\"");
    expect_invalid(C("\"accelerators\":[\"gpu-a\",\"gpu-a\"]"), "/constraints/accelerators/1",
                   "listed twice");
    expect_invalid(C("\"accelerators\":[7]"), "/constraints/accelerators/0", "strings");
#undef M
#undef I
#undef T
#undef C
}

/* constraints.accelerators: the rest are excluded, naming the constraint. */
static void test_allow_list(void **state)
{
    (void)state;
    struct run r = run("{\"task\":\"training\",\"model\":{\"parameters\":1e9},"
                       "\"constraints\":{\"accelerators\":[\"tpu-b\"]}}");
    const struct dc_candidate *g = cand(&r, "gpu-a");
    assert_non_null(g->excluded_by);
    assert_string_equal(g->excluded_by->rule_id, "constraints.accelerators");
    char buf[256];
    assert_string_equal(dc_reason_text(r.res, g, g->excluded_by, buf, sizeof(buf)),
                        "gpu-a is not in constraints.accelerators.");
    assert_int_equal(r.res->n_recommendations, 1);
    assert_string_equal(r.res->recommendations[0].acc->id, "tpu-b");
    done(&r);
}

/* Shapes: machines of 1, 2, 4, 8 then whole machines; slices, then several of
 * the largest; nothing past a cap. */
static void test_shapes(void **state)
{
    (void)state;
    const struct dc_accelerator *g = dc_ruleset_find_accelerator(mini, "gpu-a");
    const struct dc_accelerator *t = dc_ruleset_find_accelerator(mini, "tpu-b");
    struct {
        const struct dc_accelerator *a;
        unsigned need, cap;
        const char *want; /* NULL: none */
    } cases[] = {
        {g, 0, 256, "1 x 1 gpu-a"}, {g, 3, 256, "1 x 4 gpu-a"},   {g, 8, 256, "1 x 8 gpu-a"},
        {g, 9, 256, "2 x 8 gpu-a"}, {g, 17, 256, "3 x 8 gpu-a"},  {g, 9, 12, NULL},
        {g, 257, 256, NULL},        {t, 1, 256, "tpu-b-4"},       {t, 5, 256, "tpu-b-16"},
        {t, 64, 256, "tpu-b-64"},   {t, 65, 256, "2 x tpu-b-64"}, {t, 200, 256, "4 x tpu-b-64"},
        {t, 65, 100, NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct dc_shape s;
        char buf[64];
        bool ok = dc_shape_at_least(cases[i].a, cases[i].need, cases[i].cap, &s);
        if (cases[i].want == NULL) {
            assert_false(ok);
            continue;
        }
        assert_true(ok);
        assert_string_equal(dc_shape_format(cases[i].a, &s, buf, sizeof(buf)), cases[i].want);
    }
    /* A machine's text joined in place when it fits, cut as snprintf cuts
     * it when it does not, at every buffer length around its own. */
    struct dc_shape two = {2, 8, NULL};
    for (size_t len = 1; len <= 16; len++) {
        char got[16], want[16];
        memset(got, 'x', sizeof(got));
        snprintf(want, len, "%u x %u %s", two.units, two.per_unit, g->id);
        assert_ptr_equal(dc_shape_format(g, &two, got, len), got);
        assert_string_equal(got, want);
    }
}

/* dc_size_at: a published run's count, whatever the policy would choose. */
static void test_size_at(void **state)
{
    (void)state;
    cJSON *w = cJSON_Parse("{\"task\":\"training\",\"model\":{\"parameters\":7e9,"
                           "\"layers\":32,\"hidden_size\":4096},\"training\":{\"tokens\":1e9}}");
    struct dc_sizing z;
    struct dc_error err;
    assert_int_equal(dc_size_at(mini, w, "gpu-a", 24, &z, &err), DC_OK);
    assert_int_equal(z.chips, 24);
    assert_int_equal(z.basis, DC_BASIS_PINNED);
    double eff = 0.9 * (1 - 0.05 * log2(3.0));
    NEAR(z.hours, FLOPS_7B(1e9) / (24 * 989e12 * 0.5 * eff * 0.8) / 3600);
    assert_int_equal(dc_size_at(mini, w, "nope", 8, &z, &err), DC_ENOTFOUND);
    assert_int_equal(dc_size_at(mini, w, "gpu-a", 0, &z, &err), DC_EINVAL);
    assert_int_equal(dc_size_at(NULL, w, "gpu-a", 8, &z, &err), DC_EINVAL);
    cJSON_Delete(w);
    w = cJSON_Parse("{\"task\":\"training\",\"model\":{\"parameters\":0}}");
    assert_int_equal(dc_size_at(mini, w, "gpu-a", 8, &z, &err), DC_EINVAL);
    assert_string_equal(err.where, "/model/parameters");
    cJSON_Delete(w);
}

/* dc_size_at serving: a published run is laid out as its benchmark would be:
 * at load, the replica size that serves the most requests per second on the
 * chips; one request at a time, the one whose step is fastest. The 13B fp16
 * model of test_inference_generative: 31.2 GB and 1.678 GB of KV cache a
 * request on one 72 GB chip holds 24 requests at once, so 8 one-chip replicas
 * read their weights for 24 requests a step, where one 8-chip replica reads
 * them once for the 256 the scheduler allows (mini max_batch), at 8 chips'
 * bandwidth: the one replica serves more. A 1e15-parameter encoder (no KV
 * cache) needs 2.4e6 GB / 72 GB = 33,334 chips, whole machines of 8: 33,336,
 * reached in one step rather than machine by machine; on 8 pinned chips it
 * does not fit. */
static void test_size_at_serving(void **state)
{
    (void)state;
    cJSON *w = cJSON_Parse("{\"task\":\"inference\",\"precision\":\"fp16\",\"model\":{"
                           "\"parameters\":13e9,\"layers\":40,\"hidden_size\":5120,"
                           "\"attention_heads\":40}}");
    struct dc_sizing z;
    struct dc_error err;
    assert_int_equal(dc_size_at(mini, w, "gpu-a", 8, &z, &err), DC_OK);
    assert_true(z.fits);
    assert_int_equal(z.basis, DC_BASIS_PINNED);
    assert_int_equal(z.chips_for_memory, 1);
    assert_int_equal(z.chips_per_replica, 8);
    assert_int_equal(z.batch_per_replica, 256);
    assert_int_equal(z.replicas, 1);
    assert_int_equal(z.chips, 8);
    double at_load = z.throughput_rps;
    /* One pinned chip holds one replica at batch 24: eight of them serve less. */
    struct dc_sizing one;
    assert_int_equal(dc_size_at(mini, w, "gpu-a", 1, &one, &err), DC_OK);
    assert_int_equal(one.batch_per_replica, 24);
    assert_true(8 * one.throughput_rps < at_load);
    cJSON_Delete(w);
    /* One request at a time (batch 1): the fastest step, all 8 chips in one
     * tensor-parallel replica. */
    w = cJSON_Parse("{\"task\":\"inference\",\"precision\":\"fp16\",\"model\":{"
                    "\"parameters\":13e9,\"layers\":40,\"hidden_size\":5120,"
                    "\"attention_heads\":40},\"inference\":{\"batch_size\":1}}");
    assert_int_equal(dc_size_at(mini, w, "gpu-a", 8, &z, &err), DC_OK);
    assert_int_equal(z.chips_per_replica, 8);
    assert_int_equal(z.batch_per_replica, 1);
    assert_true(z.decode_ms < one.decode_ms);
    cJSON_Delete(w);
    w = cJSON_Parse("{\"task\":\"inference\",\"model\":{\"parameters\":1e15,"
                    "\"architecture\":\"encoder\"}}");
    assert_int_equal(dc_size_at(mini, w, "gpu-a", 8, &z, &err), DC_OK);
    assert_false(z.fits);
    assert_int_equal(z.chips_for_memory, 0);
    assert_int_equal(dc_size_at(mini, w, "gpu-a", 4000000000u, &z, &err), DC_OK);
    assert_true(z.fits);
    assert_int_equal(z.chips_for_memory, 33336);
    assert_int_equal(z.chips_per_replica, 33336);
    assert_int_equal(z.replicas, 4000000000u / 33336);
    cJSON_Delete(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_training_full),
        cmocka_unit_test(test_training_methods),
        cmocka_unit_test(test_training_compute),
        cmocka_unit_test(test_deadline_and_objective),
        cmocka_unit_test(test_target_duration),
        cmocka_unit_test(test_inference_generative),
        cmocka_unit_test(test_inference_batch_latency_rate),
        cmocka_unit_test(test_inference_moe_and_non_generative),
        cmocka_unit_test(test_request_tokens),
        cmocka_unit_test(test_new_field_errors),
        cmocka_unit_test(test_allow_list),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_size_at),
        cmocka_unit_test(test_size_at_serving),
    };
    return cmocka_run_group_tests_name("sizing", tests, setup, teardown);
}
