/* tests/unit/core/test_kinds.c -- the physics of each kind of model and
 * workload (core/src/sizing/derive.c), its fields' checks (core/src/workload/workload.c) and
 * the defaults said out loud (core/src/reasons/defaults.c). Numbers are worked by hand
 * from tests/support/mini_rules.h: gpu-a 80 GB (72 usable), 3,350 GB/s at 50%
 * (1,675 GB/s), bf16 989 TFLOPS at 50% for serving (494.5), $4.90/chip-hour. */
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

#define NEAR(a, b)                                                                                 \
    assert_true(fabs((double)(a) - (double)(b)) <= 1e-6 * fmax(1.0, fabs((double)(b))))

static const struct dc_sizing *gpu(const struct run *r)
{
    const struct dc_candidate *c = test_candidate(r->res, "gpu-a");
    if (c == NULL)
        fail_msg("gpu-a not recommended");
    return &c->sizing;
}

static bool has_warning(const struct run *r, const char *code)
{
    for (size_t i = 0; i < r->res->n_warnings; i++) {
        if (strcmp(r->res->warnings[i].code, code) == 0)
            return true;
    }
    return false;
}

/* The assumption `name`'s value; NAN when the result lists none. */
static double assumption(const struct run *r, const char *name)
{
    for (size_t i = 0; i < r->res->n_assumptions; i++) {
        if (strcmp(r->res->assumptions[i].name, name) == 0)
            return r->res->assumptions[i].value;
    }
    return NAN;
}

static const char *reason(const struct run *r, const char *acc, const char *id, char *buf,
                          size_t len)
{
    const struct dc_candidate *c = test_candidate(r->res, acc);
    for (size_t i = 0; c != NULL && i < c->n_reasons; i++) {
        if (strcmp(c->reasons[i].rule_id, id) == 0)
            return dc_reason_text(r->res, c, &c->reasons[i], buf, len);
    }
    fail_msg("no reason %s on %s", id, acc);
    return "";
}

/* ---- kinds ---------------------------------------------------------------------------- */

/* A mixture of 8 experts, 2 a token: 92 GB of bf16 weights of which 88 GB are
 * routed experts (11 GB each: (92 - 26) / 6) and 4 GB shared. Two requests
 * touch 1 - 0.75^2 = 43.75% of the experts: 4 + 38.5 GB, plus two caches of
 * 32 x 8 x 128 x 2 x 2 B = 131,072 B a token over 1,100 tokens, read by the
 * replica's chips at 1,675 GB/s each (one 4-chip replica: the cost of two
 * 2-chip ones, and sooner). */
static void test_moe_experts_touched(void **state)
{
    (void)state;
    struct run r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"architecture\":\"moe\","
                                  "\"parameters\":4.6e10,\"active_parameters\":1.3e10,"
                                  "\"experts\":8,\"experts_per_token\":2,\"layers\":32,"
                                  "\"hidden_size\":4096,\"attention_heads\":32,\"kv_heads\":8},"
                                  "\"inference\":{\"batch_size\":2,\"input_tokens\":1000,"
                                  "\"output_tokens\":200}}");
    const struct dc_sizing *z = gpu(&r);
    assert_int_equal(z->chips_per_replica, 4);
    NEAR(z->decode_ms,
         (4e9 + 88e9 * 0.4375 + 2 * 131072.0 * 1100) / (z->chips_per_replica * 1.675e12) * 1000);
    assert_false(has_warning(&r, "assumed_active_parameters"));
    core_done(&r);
}

/* An encoder decodes nothing: one pass of 2 x N x 512 plus 4 x 16 x 64 x 24
 * x 512^2 attention FLOPs a request, timed per batch. */
static void test_encoder(void **state)
{
    (void)state;
    struct run r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"architecture\":\"encoder\","
                                  "\"parameters\":3.35e8,\"layers\":24,\"hidden_size\":1024,"
                                  "\"attention_heads\":16},\"inference\":{\"input_tokens\":512,"
                                  "\"batch_size\":100}}");
    const struct dc_sizing *z = gpu(&r);
    double flops = 2 * 3.35e8 * 512 + 4.0 * 16 * 64 * 24 * 512 * 512;
    NEAR(assumption(&r, "flops_per_request"), flops);
    assert_true(isnan(z->prefill_ms));
    assert_true(isnan(z->tokens_per_second));
    NEAR(z->decode_ms, 100 * flops / 494.5e12 * 1000);
    assert_false(has_warning(&r, "assumed_kv_heads"));
    assert_false(has_warning(&r, "assumed_request_tokens"));
    core_done(&r);
}

/* Sliding windows: 12 layers, one in 4 global, window 1,000; at 10,000
 * tokens the cache holds 3 x 10,000 + 9 x 1,000 layer-positions of 2 x 8 x
 * 128 x 2 B. */
static void test_sliding_window_cache(void **state)
{
    (void)state;
    struct run r =
        core_run(mini, "{\"task\":\"inference\",\"model\":{\"parameters\":1e9,"
                       "\"layers\":12,\"hidden_size\":2048,\"attention_heads\":16,"
                       "\"kv_heads\":8,\"sliding_window\":1000,"
                       "\"full_attention_every\":4},\"inference\":{\"input_tokens\":9000,"
                       "\"output_tokens\":1000}}");
    NEAR(assumption(&r, "kv_cache_bytes_per_token"), (3 * 10000.0 + 9 * 1000) * 4096 / 10000);
    core_done(&r);
    /* MLA caches one latent vector of 576 a token and layer. */
    r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"parameters\":1e9,\"layers\":12,"
                       "\"hidden_size\":2048,\"attention_heads\":16,\"kv_latent_dim\":576},"
                       "\"inference\":{\"input_tokens\":900,\"output_tokens\":100}}");
    NEAR(assumption(&r, "kv_cache_bytes_per_token"), 12 * 576 * 2.0);
    assert_false(has_warning(&r, "assumed_kv_heads"));
    core_done(&r);
}

/* Speech: the encoder reads the frames once, and the decoder's cross-attention
 * K and V projections (2 x h^2 a layer) run once over them too; the decoder
 * caches K and V of its own tokens and of every frame (cross-attention). */
static void test_encoder_decoder(void **state)
{
    (void)state;
    struct run r = core_run(
        mini,
        "{\"task\":\"inference\",\"model\":{\"architecture\":\"encoder-decoder\","
        "\"parameters\":1.55e9,\"layers\":32,\"encoder_layers\":32,\"hidden_size\":1280,"
        "\"attention_heads\":20,\"kv_heads\":20,\"intermediate_size\":5120,"
        "\"tokens_per_sample\":1500},\"inference\":{\"output_tokens\":100,\"batch_size\":1}}");
    const struct dc_sizing *z = gpu(&r);
    double enc = 32 * (4.0 * 1280 * 1280 + 2.0 * 1280 * 5120);
    double cross_kv = 32 * 2.0 * 1280 * 1280;
    double flops = 2 * (enc + cross_kv) * 1500 + 4.0 * 20 * 64 * 32 * 1500 * 1500;
    NEAR(assumption(&r, "flops_per_request"), flops);
    NEAR(z->prefill_ms, flops / 494.5e12 * 1000);
    NEAR(assumption(&r, "kv_cache_bytes_per_token"), 2.0 * 20 * 64 * 2 * 32);
    assert_false(has_warning(&r, "assumed_intermediate_size"));
    core_done(&r);
    /* A minute of audio is two 30 s windows: attention within each, and the
     * cache one window's frames and its half of the transcript. */
    r = core_run(mini,
                 "{\"task\":\"inference\",\"model\":{\"architecture\":\"encoder-decoder\","
                 "\"parameters\":1.55e9,\"layers\":32,\"encoder_layers\":32,\"hidden_size\":1280,"
                 "\"attention_heads\":20,\"kv_heads\":20,\"intermediate_size\":5120,"
                 "\"tokens_per_sample\":1500},\"inference\":{\"input_tokens\":3000,"
                 "\"output_tokens\":200,\"batch_size\":1}}");
    NEAR(assumption(&r, "flops_per_request"),
         2 * (enc + cross_kv) * 3000 + 4.0 * 20 * 64 * 32 * 2 * 1500 * 1500);
    /* Per token of the request's 3,200 (frames and transcript), the cache
     * holds one window's 1,500 frames and 100 tokens. */
    NEAR(assumption(&r, "kv_cache_bytes_per_token"), 2.0 * 20 * 64 * 2 * 32 * (1500 + 100) / 3200);
    core_done(&r);
}

/* Diffusion: steps x passes x one pass; a missing pass count is warned. */
static void test_diffusion(void **state)
{
    (void)state;
    struct run r =
        core_run(mini, "{\"task\":\"inference\",\"model\":{\"architecture\":\"diffusion\","
                       "\"parameters\":3.5e9,\"flops_per_sample\":6e12,"
                       "\"denoising_steps\":30},\"inference\":{\"batch_size\":1}}");
    NEAR(assumption(&r, "flops_per_request"), 30 * 6e12);
    assert_true(has_warning(&r, "assumed_guidance_passes"));
    NEAR(assumption(&r, "guidance_passes"), 1);
    core_done(&r);
    /* Guidance doubles the batch a step, not the weights it reads: a pass
     * too small to bind on compute leaves the step at 30 reads of the weights. */
    r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"architecture\":\"diffusion\","
                       "\"parameters\":3.5e9,\"flops_per_sample\":1e6,"
                       "\"denoising_steps\":30,\"guidance_passes\":2},"
                       "\"inference\":{\"batch_size\":1}}");
    NEAR(assumption(&r, "flops_per_request"), 60 * 1e6);
    NEAR(gpu(&r)->decode_ms, 30 * 3.5e9 * 2 / 1675e9 * 1000);
    core_done(&r);
    /* The VAE decodes the latents once an image, after the last step. */
    r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"architecture\":\"diffusion\","
                       "\"parameters\":3.5e9,\"flops_per_sample\":6e12,\"denoising_steps\":20,"
                       "\"guidance_passes\":2,\"vae_flops_per_sample\":1.047e13},"
                       "\"inference\":{\"batch_size\":1}}");
    NEAR(assumption(&r, "flops_per_request"), 40 * 6e12 + 1.047e13);
    core_done(&r);
}

/* A recommender reads its dense weights once a batch; the rows it looks up
 * are timed only by a rule set that states gather_efficiency (the mini set
 * does not; core/src/sizing/embed.c and test_serve_tp.c time them). */
static void test_recommender_lookups(void **state)
{
    (void)state;
    struct run r =
        core_run(mini, "{\"task\":\"inference\",\"model\":{\"architecture\":\"recommender\","
                       "\"parameters\":2.6e10,\"embedding_parameters\":2.59e10,"
                       "\"flops_per_sample\":3.2e7,\"embedding_dim\":128,"
                       "\"lookups_per_sample\":214},\"inference\":{\"batch_size\":256}}");
    const struct dc_sizing *z = gpu(&r);
    double mem = 1e8 * 2 / 1675e9;
    double cmp = 256 * 3.2e7 / 494.5e12;
    NEAR(z->decode_ms, fmax(mem, cmp) * 1000);
    assert_false(has_warning(&r, "assumed_lookups"));
    core_done(&r);
}

/* ---- workload kinds -------------------------------------------------------------------- */

/* k = 4 drafted tokens accepted with 0.8: (1 - 0.8^5) / 0.2 tokens a step. */
static void test_speculative(void **state)
{
    (void)state;
    struct run r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"parameters\":7e9,"
                                  "\"layers\":32,\"hidden_size\":4096,\"attention_heads\":32,"
                                  "\"kv_heads\":8},\"inference\":{\"batch_size\":1,"
                                  "\"input_tokens\":1000,\"output_tokens\":500,\"speculative\":{"
                                  "\"draft_parameters\":1e9,\"draft_tokens\":4,"
                                  "\"acceptance_rate\":0.8}}}");
    double per_step = (1 - pow(0.8, 5)) / 0.2;
    NEAR(assumption(&r, "tokens_per_decode_step"), per_step);
    const struct dc_sizing *z = gpu(&r);
    /* decode_ms is the time per output token: a step over the tokens it yields. */
    double step_ms = z->decode_ms * per_step;
    NEAR(z->request_ms, z->prefill_ms + 500 / per_step * step_ms);
    /* The step reads the model once and the draft four times. */
    assert_true(step_ms * 1e-3 * 1675e9 > 14e9 + 4 * 2e9);
    core_done(&r);
}

/* The latency target is per output token (the contract's latency_ms_p99): a
 * speculative step that yields 3.4 tokens meets a target below the step's
 * own time once divided by them, and misses one below the time per token. */
static void test_speculative_latency_per_token(void **state)
{
    (void)state;
#define SPEC_AT(target)                                                                            \
    "{\"task\":\"inference\",\"model\":{\"parameters\":7e9,\"layers\":32,"                         \
    "\"hidden_size\":4096,\"attention_heads\":32,\"kv_heads\":8},\"inference\":{"                  \
    "\"batch_size\":1,\"input_tokens\":1000,\"output_tokens\":500,\"latency_ms_p99\":" target      \
    ",\"speculative\":{\"draft_parameters\":1e9,\"draft_tokens\":4,\"acceptance_rate\":0.8}},"     \
    "\"constraints\":{\"max_accelerators\":1}}"
    struct run r = core_run(mini, SPEC_AT("1000"));
    double per_token = gpu(&r)->decode_ms, per_step = (1 - pow(0.8, 5)) / 0.2;
    core_done(&r);
    char target[32];
    /* Between the time per token and the step's time: met. */
    snprintf(target, sizeof(target), "%.4f", per_token * (1 + per_step) / 2);
    char body[1024];
    snprintf(body, sizeof(body), SPEC_AT("%s"), target);
    r = core_run(mini, body);
    assert_true(gpu(&r)->meets_latency);
    core_done(&r);
    /* Below the time per token: missed. */
    snprintf(target, sizeof(target), "%.4f", per_token * 0.9);
    snprintf(body, sizeof(body), SPEC_AT("%s"), target);
    r = core_run(mini, body);
    assert_false(gpu(&r)->meets_latency);
    core_done(&r);
#undef SPEC_AT
}

/* Prefix caching: a 75% hit computes a quarter of a compute-bound prefill. */
static void test_prefix_cache(void **state)
{
    (void)state;
#define PREFIX_CACHE(rate)                                                                         \
    "{\"task\":\"inference\",\"model\":{\"parameters\":7e9,\"layers\":32,"                         \
    "\"hidden_size\":4096,\"attention_heads\":32,\"kv_heads\":8},"                                 \
    "\"inference\":{\"batch_size\":1,\"input_tokens\":8000,"                                       \
    "\"output_tokens\":100,\"prefix_cache_hit_rate\":" rate "},"                                   \
    "\"constraints\":{\"max_accelerators\":1}}"
    struct run a = core_run(mini, PREFIX_CACHE("0"));
    struct run b = core_run(mini, PREFIX_CACHE("0.75"));
#undef PREFIX_CACHE
    /* One chip each (max_accelerators), so that only the cache differs. */
    assert_int_equal(gpu(&a)->chips_per_replica, 1);
    assert_int_equal(gpu(&b)->chips_per_replica, 1);
    NEAR(gpu(&b)->prefill_ms, gpu(&a)->prefill_ms * 0.25);
    core_done(&a);
    core_done(&b);
}

/* An offline job: sized for its deadline, priced for the hours it runs. */
static void test_job(void **state)
{
    (void)state;
    struct run r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"parameters\":7e9,"
                                  "\"layers\":32,\"hidden_size\":4096,\"attention_heads\":32,"
                                  "\"kv_heads\":8},\"inference\":{\"input_tokens\":500,"
                                  "\"output_tokens\":200,\"job\":{\"tokens\":7e8,"
                                  "\"deadline_hours\":10}}}");
    NEAR(r.res->workload.job_requests, 1e6);
    NEAR(r.res->workload.requests_per_second, 1e6 / 36000);
    const struct dc_sizing *z = gpu(&r);
    NEAR(z->hours, 1e6 / z->throughput_rps / 3600);
    assert_true(z->meets_deadline);
    NEAR(z->cost_usd, z->chips * z->hours * 4.9);
    char buf[512];
    assert_non_null(strstr(reason(&r, "gpu-a", "sizing.cost", buf, sizeof(buf)), "/job ("));
    core_done(&r);
    /* A job that cannot finish in time says so, with its own deadline. */
    r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"parameters\":7e9,\"layers\":32,"
                       "\"hidden_size\":4096,\"attention_heads\":32,\"kv_heads\":8},"
                       "\"inference\":{\"input_tokens\":500,\"output_tokens\":200,\"job\":{"
                       "\"requests\":1e9,\"deadline_hours\":1}},"
                       "\"constraints\":{\"max_accelerators\":1}}");
    assert_false(gpu(&r)->meets_deadline);
    bool said = false;
    for (size_t i = 0; i < r.res->n_warnings; i++)
        said |= strcmp(r.res->warnings[i].code, "deadline_not_met") == 0 &&
                strstr(r.res->warnings[i].message, "over the deadline of 1 h") != NULL;
    assert_true(said);
    core_done(&r);
}

/* RL: (6 + 2) x N a token for the update and reference pass, over the share of
 * a step left by rollouts; DPO: 8N and a frozen reference. Each runs the
 * attention of its 4,096-token sequences as many times as it runs the
 * policy's forward pass: 4 x hidden x layers x (n + 1) / 2 FLOPs a token. */
#define ATTN_1B (4.0 * 2048 * 16 * 4097 / 2)
static void test_rl_and_dpo(void **state)
{
    (void)state;
    struct run r = core_run(mini, "{\"task\":\"fine-tuning\",\"model\":{\"parameters\":1e9,"
                                  "\"layers\":16,\"hidden_size\":2048},\"training\":{\"method\":"
                                  "\"rl\",\"tokens\":1e9,\"rl\":{\"rollout_share\":0.6}}}");
    NEAR(assumption(&r, "training_flops"), (8 * 1e9 + 4 * ATTN_1B) * 1e9 / 0.4);
    NEAR(assumption(&r, "training_state_gb"), (16 + 2) * 1e9 / 1e9);
    assert_false(has_warning(&r, "assumed_rollout_share"));
    core_done(&r);
    r = core_run(mini, "{\"task\":\"fine-tuning\",\"model\":{\"parameters\":1e9,\"layers\":16,"
                       "\"hidden_size\":2048},\"training\":{\"method\":\"rl\",\"tokens\":1e9,"
                       "\"rl\":{\"algorithm\":\"ppo\",\"reference_model\":false,"
                       "\"reward_model_parameters\":5e8,\"rollout_share\":0.5}}}");
    NEAR(assumption(&r, "training_flops"), (6 * 1e9 + 2 * 5e8 + 6 * 5e8 + 5 * ATTN_1B) * 1e9 / 0.5);
    NEAR(assumption(&r, "training_state_gb"), (16 * 1e9 + 2 * 5e8 + 16 * 5e8) / 1e9);
    core_done(&r);
    r = core_run(mini, "{\"task\":\"fine-tuning\",\"model\":{\"parameters\":1e9,\"layers\":16,"
                       "\"hidden_size\":2048},\"training\":{\"method\":\"dpo\",\"tokens\":1e9}}");
    NEAR(assumption(&r, "training_flops"), (8 * 1e9 + 4 * ATTN_1B) * 1e9);
    NEAR(assumption(&r, "training_state_gb"), 18);
    char buf[512];
    assert_non_null(
        strstr(reason(&r, "gpu-a", "sizing.memory", buf, sizeof(buf)), "frozen reference"));
    core_done(&r);
}

/* 4-bit weights with bf16 math: 0.5 B a weight, and the bf16 part passes. */
static void test_quantization(void **state)
{
    (void)state;
    struct run r = core_run(mini, "{\"task\":\"inference\",\"quantization\":\"awq\",\"model\":{"
                                  "\"parameters\":7e10,\"layers\":80,\"hidden_size\":8192,"
                                  "\"attention_heads\":64,\"kv_heads\":8},\"inference\":{"
                                  "\"batch_size\":1,\"input_tokens\":1000,\"output_tokens\":200}}");
    const struct dc_sizing *z = gpu(&r);
    assert_int_equal(z->chips_per_replica, 1);
    NEAR(z->memory_need_gb, 7e10 * 0.5 * 1.2 / 1e9 + 80 * 8 * 128 * 2 * 2 * 1200.0 / 1e9);
    char buf[512];
    assert_non_null(strstr(reason(&r, "gpu-a", "sizing.memory", buf, sizeof(buf)), "awq"));
    core_done(&r);
}

/* Time and cost withheld: the chips that hold the job stay, the rest is
 * unknown and says which field would give it; a budget cannot pass. */
static void test_withheld(void **state)
{
    (void)state;
    struct run r = core_run(mini, "{\"task\":\"training\",\"model\":{\"architecture\":\"cnn\","
                                  "\"parameters\":2.56e7},\"training\":{\"samples\":1e8}}");
    const struct dc_sizing *z = gpu(&r);
    assert_string_equal(z->estimate_withheld, "model.flops_per_sample");
    assert_true(isnan(z->hours) && isnan(z->cost_usd) && isnan(z->cost_per_hour_usd));
    assert_int_equal(z->chips, 1);
    assert_true(has_warning(&r, "estimate_withheld"));
    char buf[512];
    assert_non_null(strstr(reason(&r, "gpu-a", "sizing.cost", buf, sizeof(buf)),
                           "without model.flops_per_sample"));
    core_done(&r);
    r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"architecture\":\"diffusion\","
                       "\"parameters\":2e9,\"flops_per_sample\":1e12}}");
    assert_string_equal(gpu(&r)->estimate_withheld, "model.denoising_steps");
    assert_true(isnan(gpu(&r)->throughput_rps));
    assert_non_null(strstr(reason(&r, "gpu-a", "sizing.serving", buf, sizeof(buf)),
                           "without model.denoising_steps"));
    core_done(&r);
    r = core_run(mini, "{\"task\":\"inference\",\"model\":{\"architecture\":\"recommender\","
                       "\"parameters\":2e9,\"flops_per_sample\":1e7},"
                       "\"constraints\":{\"budget_usd\":1000}}");
    assert_int_equal(r.res->n_recommendations, 0);
    const struct dc_candidate *x = &r.res->excluded[0];
    assert_string_equal(x->excluded_by->rule_id, "sizing.budget");
    assert_non_null(strstr(dc_reason_text(r.res, x, x->excluded_by, buf, sizeof(buf)),
                           "without model.embedding_parameters"));
    core_done(&r);
}

/* ---- every default that moves a number: an assumption and a warning ------------------ */

static void test_defaults_warned(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        const char *warning;
        const char *assumption; /* NULL: the warning alone */
    } cases[] = {
        {"{\"task\":\"inference\",\"model\":{\"architecture\":\"moe\",\"parameters\":4e10,"
         "\"layers\":32,\"hidden_size\":4096,\"kv_heads\":8}}",
         "assumed_active_parameters", "active_parameters"},
        {"{\"task\":\"inference\",\"model\":{\"parameters\":7e9,\"layers\":32,"
         "\"hidden_size\":4096}}",
         "assumed_kv_heads", "kv_heads"},
        {"{\"task\":\"inference\",\"model\":{\"parameters\":7e9,\"kv_heads\":8}}", "assumed_shape",
         "layers"},
        {"{\"task\":\"inference\",\"model\":{\"parameters\":7e9,\"layers\":32,"
         "\"hidden_size\":4096,\"kv_heads\":8}}",
         "assumed_request_tokens", "output_tokens"},
        {"{\"task\":\"inference\",\"model\":{\"architecture\":\"encoder\",\"parameters\":1e8,"
         "\"layers\":12,\"hidden_size\":768}}",
         "assumed_request_tokens", "input_tokens"},
        {"{\"task\":\"training\",\"model\":{\"parameters\":1e9,\"layers\":16,"
         "\"hidden_size\":2048}}",
         "assumed_training_tokens", NULL},
        {"{\"task\":\"fine-tuning\",\"model\":{\"parameters\":1e9,\"layers\":16,"
         "\"hidden_size\":2048,\"kv_heads\":16},\"training\":{\"tokens\":1e8,\"method\":\"rl\","
         "\"rl\":{"
         "\"rollout_share\":0.5}}}",
         NULL, NULL},
        {"{\"task\":\"inference\",\"model\":{\"architecture\":\"diffusion\",\"parameters\":1e9,"
         "\"flops_per_sample\":1e12,\"denoising_steps\":20}}",
         "assumed_guidance_passes", "guidance_passes"},
        {"{\"task\":\"inference\",\"model\":{\"architecture\":\"encoder-decoder\","
         "\"parameters\":1e9,\"layers\":12,\"hidden_size\":1024,\"kv_heads\":16}}",
         "assumed_intermediate_size", "intermediate_size"},
        {"{\"task\":\"inference\",\"model\":{\"architecture\":\"recommender\",\"parameters\":1e10,"
         "\"embedding_parameters\":9e9,\"flops_per_sample\":1e7}}",
         "assumed_lookups", "lookups_per_sample"},
        {"{\"task\":\"training\",\"model\":{\"architecture\":\"gnn\",\"parameters\":3e7},"
         "\"training\":{\"samples\":1e6}}",
         "compute_estimate_rough", "flops_per_sample"},
        {"{\"task\":\"training\",\"model\":{\"architecture\":\"cnn\",\"parameters\":3e7},"
         "\"training\":{\"samples\":1e6}}",
         "estimate_withheld", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct run r = core_run(mini, cases[i].json);
        if (cases[i].warning != NULL && !has_warning(&r, cases[i].warning))
            fail_msg("%s: no %s warning", cases[i].json, cases[i].warning);
        if (cases[i].assumption != NULL && isnan(assumption(&r, cases[i].assumption)))
            fail_msg("%s: no %s assumption", cases[i].json, cases[i].assumption);
        /* A workload that gives everything gets none of them. */
        if (cases[i].warning == NULL)
            for (size_t k = 0; k < r.res->n_warnings; k++)
                assert_null(strstr(r.res->warnings[k].code, "assumed_"));
        core_done(&r);
    }
}

/* ---- the fields' checks -------------------------------------------------------------- */

/* Workloads the core refuses: the JSON Pointer of the field and what the
 * message says. */
static const struct {
    const char *json;
    const char *where;
    const char *says;
} field_errors[] = {
    {"{\"task\":\"training\",\"precision\":\"int4\",\"model\":{\"parameters\":1e9}}", "/precision",
     "not a precision to train in"},
    {"{\"task\":\"fine-tuning\",\"quantization\":\"awq\",\"model\":{\"parameters\":1e9}}",
     "/quantization", "training.method qlora"},
    {"{\"task\":\"inference\",\"quantization\":\"gptq\",\"precision\":\"int4\","
     "\"model\":{\"parameters\":1e9}}",
     "/precision", "with quantization gptq"},
    {"{\"task\":\"inference\",\"quantization\":\"fp2\",\"model\":{\"parameters\":1e9}}",
     "/quantization", "unknown value"},
    {"{\"task\":\"fine-tuning\",\"model\":{\"parameters\":1e9},\"training\":{\"rl\":{}}}",
     "/training/rl", "set training.method to rl"},
    {"{\"task\":\"fine-tuning\",\"model\":{\"parameters\":1e9},\"training\":{\"method\":"
     "\"rl\"}}",
     "/training/rl/rollout_share", "gives no rl_rollout_share"},
    {"{\"task\":\"fine-tuning\",\"model\":{\"parameters\":1e9},\"training\":{\"method\":"
     "\"rl\",\"rl\":{\"rollout_share\":1}}}",
     "/training/rl/rollout_share", "out of range"},
    {"{\"task\":\"fine-tuning\",\"model\":{\"parameters\":1e9},\"training\":{\"method\":"
     "\"rl\",\"rl\":{\"algorithm\":\"dqn\"}}}",
     "/training/rl/algorithm", "unknown value"},
    {"{\"task\":\"fine-tuning\",\"model\":{\"parameters\":1e9},\"training\":{\"method\":"
     "\"rl\",\"rl\":{\"critic\":1}}}",
     "/training/rl/critic", "unknown field"},
    {"{\"task\":\"fine-tuning\",\"model\":{\"parameters\":1e9},\"training\":{\"rl\":3}}",
     "/training/rl", "must be an object"},
    {"{\"task\":\"inference\",\"model\":{\"architecture\":\"cnn\",\"parameters\":1e9},"
     "\"inference\":{\"speculative\":{\"draft_parameters\":1e8,\"draft_tokens\":4,"
     "\"acceptance_rate\":0.7}}}",
     "/inference/speculative", "drafts tokens for a decoder"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9},\"inference\":{\"speculative\":"
     "{\"draft_tokens\":4,\"acceptance_rate\":0.7}}}",
     "/inference/speculative/draft_model", "needs its draft"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9},\"inference\":{\"speculative\":"
     "{\"draft_model\":\"x\",\"draft_parameters\":1e8,\"draft_tokens\":4,"
     "\"acceptance_rate\":0.7}}}",
     "/inference/speculative/draft_parameters", "not both"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9},\"inference\":{\"speculative\":"
     "{\"draft_model\":\"x\",\"draft_tokens\":4,\"acceptance_rate\":0.7}}}",
     "/inference/speculative/draft_model", "no model registry"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9},\"inference\":{\"speculative\":"
     "{\"draft_parameters\":2e9,\"draft_tokens\":4,\"acceptance_rate\":0.7}}}",
     "/inference/speculative/draft_parameters", "must be smaller"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9},\"inference\":{\"speculative\":"
     "{\"draft_parameters\":1e8,\"acceptance_rate\":0.7}}}",
     "/inference/speculative/draft_tokens", "needs draft_tokens"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9},\"inference\":{\"speculative\":"
     "{\"draft_parameters\":1e8,\"draft_tokens\":17,\"acceptance_rate\":0.7}}}",
     "/inference/speculative/draft_tokens", "out of range"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9},\"inference\":{\"job\":{"
     "\"requests\":10,\"tokens\":100,\"deadline_hours\":1}}}",
     "/inference/job", "one of them"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9},\"inference\":{\"job\":{"
     "\"deadline_hours\":1}}}",
     "/inference/job", "one of them"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9},\"inference\":{\"job\":{"
     "\"requests\":10}}}",
     "/inference/job/deadline_hours", "required"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9},\"inference\":{"
     "\"requests_per_second\":3,\"job\":{\"requests\":10,\"deadline_hours\":1}}}",
     "/inference/requests_per_second", "leave requests_per_second out"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9},\"inference\":{\"job\":{"
     "\"requests\":1e15,\"deadline_hours\":0.01}}}",
     "/inference/job", "over the limit"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9},\"inference\":{\"job\":{"
     "\"requests\":1.5,\"deadline_hours\":1}}}",
     "/inference/job/requests", "integer"},
    {"{\"task\":\"inference\",\"model\":{\"architecture\":\"encoder\",\"parameters\":1e9},"
     "\"inference\":{\"prefix_cache_hit_rate\":0.5}}",
     "/inference/prefix_cache_hit_rate", "prefix caching"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9,\"context_length\":1024},"
     "\"inference\":{\"input_tokens\":1000,\"output_tokens\":100}}",
     "/inference/input_tokens", "exceed the 1024"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9,\"context_length\":1024},"
     "\"inference\":{\"context_tokens\":2000}}",
     "/inference/context_tokens", "exceed the 1024"},
    {"{\"task\":\"inference\",\"model\":{\"architecture\":\"encoder-decoder\","
     "\"parameters\":1e9,\"context_length\":448},\"inference\":{\"output_tokens\":500}}",
     "/inference/output_tokens", "decoder holds"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9,\"experts\":8,"
     "\"experts_per_token\":2}}",
     "/model/experts", "applies to moe"},
    {"{\"task\":\"inference\",\"model\":{\"architecture\":\"moe\",\"parameters\":1e9,"
     "\"experts\":8}}",
     "/model/experts_per_token", "go together"},
    {"{\"task\":\"inference\",\"model\":{\"architecture\":\"moe\",\"parameters\":1e9,"
     "\"experts\":2,\"experts_per_token\":4}}",
     "/model/experts_per_token", "exceeds experts"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9,\"encoder_layers\":4}}",
     "/model/encoder_layers", "applies to encoder-decoder"},
    {"{\"task\":\"inference\",\"model\":{\"architecture\":\"cnn\",\"parameters\":1e9,"
     "\"denoising_steps\":4}}",
     "/model/denoising_steps", "applies to diffusion"},
    {"{\"task\":\"inference\",\"model\":{\"architecture\":\"diffusion\",\"parameters\":1e9,"
     "\"guidance_passes\":5}}",
     "/model/guidance_passes", "out of range"},
    {"{\"task\":\"inference\",\"model\":{\"architecture\":\"cnn\",\"parameters\":1e9,"
     "\"vae_flops_per_sample\":1e12}}",
     "/model/vae_flops_per_sample", "applies to diffusion"},
    {"{\"task\":\"inference\",\"model\":{\"architecture\":\"diffusion\",\"parameters\":1e9,"
     "\"vae_flops_per_sample\":0}}",
     "/model/vae_flops_per_sample", "out of range"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9,\"tokens_per_sample\":4}}",
     "/model/tokens_per_sample", "applies to encoder-decoder and vit"},
    {"{\"task\":\"inference\",\"model\":{\"architecture\":\"recommender\",\"parameters\":1e9,"
     "\"embedding_dim\":64}}",
     "/model/lookups_per_sample", "go together"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9,\"lookups_per_sample\":3}}",
     "/model/lookups_per_sample", "applies to recommender"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9,\"attention\":\"sliding_window\"}}",
     "/model/sliding_window", "needs sliding_window"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9,\"attention\":\"mla\"}}",
     "/model/kv_latent_dim", "needs kv_latent_dim"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9,\"attention\":\"full\","
     "\"sliding_window\":512}}",
     "/model/sliding_window", "not full"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9,\"attention\":\"full\","
     "\"full_attention_every\":2}}",
     "/model/full_attention_every", "not full"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9,\"sliding_window\":512,"
     "\"kv_latent_dim\":512}}",
     "/model/kv_latent_dim", "applies to attention mla"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9,\"attention\":\"local\"}}",
     "/model/attention", "unknown value"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9,\"full_attention_every\":1,"
     "\"sliding_window\":9}}",
     "/model/full_attention_every", "out of range"},
    {"{\"task\":\"inference\",\"model\":{\"parameters\":1e9,\"head_dim\":0.5}}", "/model/head_dim",
     "out of range"},
};

static void test_field_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(field_errors) / sizeof(field_errors[0]); i++) {
        cJSON *w = cJSON_Parse(field_errors[i].json);
        assert_non_null(w);
        struct dc_result *r = NULL;
        struct dc_error err;
        dc_error_clear(&err);
        assert_int_equal(dc_recommend(mini, w, NULL, &r, &err), DC_EINVAL);
        assert_null(r);
        if (strcmp(err.where, field_errors[i].where) != 0 ||
            strstr(err.msg, field_errors[i].says) == NULL)
            fail_msg("%s: got %s: %s", field_errors[i].json, err.where, err.msg);
        cJSON_Delete(w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moe_experts_touched),
        cmocka_unit_test(test_encoder),
        cmocka_unit_test(test_sliding_window_cache),
        cmocka_unit_test(test_encoder_decoder),
        cmocka_unit_test(test_diffusion),
        cmocka_unit_test(test_recommender_lookups),
        cmocka_unit_test(test_speculative),
        cmocka_unit_test(test_speculative_latency_per_token),
        cmocka_unit_test(test_prefix_cache),
        cmocka_unit_test(test_job),
        cmocka_unit_test(test_rl_and_dpo),
        cmocka_unit_test(test_quantization),
        cmocka_unit_test(test_withheld),
        cmocka_unit_test(test_defaults_warned),
        cmocka_unit_test(test_field_errors),
    };
    return cmocka_run_group_tests_name("kinds", tests, setup, teardown);
}
