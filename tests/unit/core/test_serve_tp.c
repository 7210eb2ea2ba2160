/* tests/unit/core/test_serve_tp.c -- core/src/sizing/serve_tp.c: a serving replica's
 * synchronisation from the bytes, the degree and the link (two all-reduces a
 * layer at the family's fixed latency plus the ring's traffic over the
 * catalog's link), the hops between pipeline stages, a speculative draft's own
 * steps, and none at all for a rule set that states no latency; the
 * all-to-alls of an expert-parallel mixture of experts and of sharded
 * embedding tables (core/src/sizing/embed.c), inside a machine and across machines. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "default_rules.h"
#include "mini_rules.h"
#include "ruleset_internal.h"
#include "sizing.h"

static dc_ruleset *rs;

static int setup(void **state)
{
    return test_default_rules_setup(&rs, state);
}

static int teardown(void **state)
{
    return test_default_rules_teardown(state);
}

#define NEAR(a, b)                                                                                 \
    assert_true(fabs((double)(a) - (double)(b)) <= 1e-9 * fmax(1.0, fabs((double)(b))))

/* A part sized for `workload` on catalog entry `id` (w and d outlive it). */
struct sized {
    struct dc_workload w;
    struct dc__derived d;
    struct dc_sizing z;
    struct dc__part p;
};

static void size_on(const dc_ruleset *set, const char *workload, const char *id, struct sized *s)
{
    cJSON *j = cJSON_Parse(workload);
    assert_non_null(j);
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(dc__size_workload_at(set, j, id, 8, &s->w, &s->d, &s->z, &err), DC_OK);
    cJSON_Delete(j);
    dc__part_init(&s->p, set, &s->w, &s->d, dc_ruleset_find_accelerator(set, id), DC__UNPERTURBED);
}

#define LLAMA70_FP8                                                                                \
    "{\"task\":\"inference\",\"precision\":\"fp8\",\"model\":{\"name\":\"llama-3.1-70b\"},"        \
    "\"inference\":{\"batch_size\":1,\"input_tokens\":1000,\"output_tokens\":500}}"

/* Two all-reduces a layer at the GPU's fixed latency, plus 2 (g - 1) / g of the
 * activations over NVLink one way (the catalog's 900 GB/s both ways). */
static void test_allreduce_by_degree_and_bytes(void **state)
{
    (void)state;
    struct sized s;
    size_on(rs, LLAMA70_FP8, "h200", &s);
    double alpha = rs->sizing.tp_allreduce_us[DC_FAMILY_GPU] * 1e-6;
    double act = rs->sizing.tp_activation_bytes.value;
    double link = dc_ruleset_find_accelerator(rs, "h200")->interconnect_gbps * 1e9 / 2;
    assert_true(alpha > 0 && act == 2 && link > 0);
    double bytes1 = 8192 * act; /* one token of Llama 3.1 70B's hidden 8,192 */
    NEAR(dc__tp_sync_s(&s.p, 1, 1, 1, 80, 8192), 0);
    NEAR(dc__tp_sync_s(&s.p, 8, 1, 1, 80, 8192), 160 * (alpha + 2 * 7.0 / 8 * bytes1 / link));
    NEAR(dc__tp_sync_s(&s.p, 2, 1, 1, 80, 8192), 160 * (alpha + 2 * 1.0 / 2 * bytes1 / link));
    /* The bytes grow with the tokens of the pass, the latency does not. */
    NEAR(dc__tp_sync_s(&s.p, 8, 1, 400, 80, 8192) - dc__tp_sync_s(&s.p, 8, 1, 1, 80, 8192),
         160 * 2 * 7.0 / 8 * 399 * bytes1 / link);
    /* At batch 1 an 80-layer step meets the other GPUs for about 3 ms, whatever
     * the degree: 8 H200 still step under 8 ms (decision-table case
     * 70b-8ms-per-token-on-8-h200). */
    struct dc__replica r;
    dc__replica_at(&s.p, 8, 1, &r);
    assert_true(r.step_s > 160 * alpha && r.step_s < 8e-3);
}

/* Pipeline stages pass the step's activations to the next machine: a hop's
 * latency plus the bytes at the network's rate, once a boundary. */
static void test_pipeline_hops(void **state)
{
    (void)state;
    struct sized s;
    size_on(rs, LLAMA70_FP8, "h100", &s);
    double hop = rs->sizing.network_hop_us.value * 1e-6;
    double net = rs->sizing.network_gbps.value * 1e9;
    double tp8 = dc__tp_sync_s(&s.p, 8, 1, 64, 80, 8192);
    NEAR(dc__tp_sync_s(&s.p, 8, 2, 64, 80, 8192) - tp8, hop + 64 * 8192 * 2.0 / net);
    NEAR(dc__tp_sync_s(&s.p, 8, 4, 64, 80, 8192) - tp8, 3 * (hop + 64 * 8192 * 2.0 / net));
}

/* A card with no NVLink lists no link bandwidth: its all-reduces count their
 * latency alone (a replica of such cards is pipeline stages anyway). */
static void test_unknown_link_counts_latency(void **state)
{
    (void)state;
    struct sized s;
    size_on(rs, LLAMA70_FP8, "l40s", &s);
    assert_true(isnan(s.p.link_bps));
    NEAR(dc__tp_sync_s(&s.p, 4, 1, 400, 80, 8192),
         160 * rs->sizing.tp_allreduce_us[DC_FAMILY_GPU] * 1e-6);
}

/* A speculative step synchronises the model's k + 1 positions a request and
 * the draft's k steps of one token each, on the draft's own layers. */
static void test_draft_steps_synchronise(void **state)
{
    (void)state;
    struct sized s;
    size_on(rs,
            "{\"task\":\"inference\",\"precision\":\"fp8\",\"model\":{\"name\":\"llama-3.1-70b\"},"
            "\"inference\":{\"batch_size\":1,\"input_tokens\":1000,\"output_tokens\":500,"
            "\"speculative\":{\"draft_model\":\"llama-3.2-1b\",\"draft_tokens\":4,"
            "\"acceptance_rate\":0.8}}}",
            "h200", &s);
    assert_true(s.d.draft_steps == 4 && s.d.draft_layers == 16 && s.d.draft_hidden == 2048);
    double model = dc__tp_sync_s(&s.p, 8, 1, 5, 80, 8192);
    double draft = dc__tp_sync_s(&s.p, 8, 1, 1, 16, 2048);
    NEAR(dc__decode_sync_s(&s.p, 8, 1, 1), model + 4 * draft);
}

/* ROCm on CDNA reads the weights at its own share of the bandwidth CUDA's
 * decode reaches (catalog mfu_factor.hbm, fitted on AMD's and OCI's batch-1
 * rows): a batch-1 step is its weights over that bandwidth plus the same
 * synchronisation a GPU's all-reduces take anywhere; NVIDIA parts state none. */
static void test_rocm_decode_bandwidth(void **state)
{
    (void)state;
    const struct dc_accelerator *mi = dc_ruleset_find_accelerator(rs, "mi300x");
    const struct dc_accelerator *h = dc_ruleset_find_accelerator(rs, "h100");
    assert_true(mi->hbm_factor > 0.3 && mi->hbm_factor < 1.0);
    assert_true(h->hbm_factor == 1.0);
    struct sized s;
    size_on(rs, LLAMA70_FP8, "mi300x", &s);
    /* With a batch-1 figure the factor is the batch-1 end's alone. */
    double e_1 = rs->sizing.hbm_efficiency_batch1.value;
    double at_1 =
        isfinite(e_1) ? e_1 * mi->hbm_factor : rs->sizing.hbm_efficiency.value * mi->hbm_factor;
    NEAR(s.p.bandwidth * dc__decode_hbm_scale(&s.p, 1), mi->memory_bandwidth_gbps * 1e9 * at_1);
    struct dc__replica r;
    dc__replica_at(&s.p, 8, 1, &r);
    assert_false(r.compute_bound);
    double weights = dc__step_weight_bytes(&s.d, 1);
    double bw = 8 * s.p.bandwidth * dc__decode_hbm_scale(&s.p, 1);
    NEAR(r.step_s, weights / bw + s.d.kv_step_bytes / bw + dc__decode_sync_s(&s.p, 8, 1, 1));
}

/* A decode step's memory efficiency follows its token rows (sizing.yaml's
 * hbm_efficiency_batch1): the batch-1 figure at one row, e_large - (e_large -
 * e_1) / B at B rows, the large-batch hbm_efficiency in the limit; a
 * speculative step counts each request's verified tokens as rows; a rule set
 * without the batch-1 figure reads at hbm_efficiency whatever the batch. */
static void test_decode_hbm_follows_batch(void **state)
{
    (void)state;
    struct dc_param saved = rs->sizing.hbm_efficiency_batch1;
    double e_l = rs->sizing.hbm_efficiency.value;
    const struct dc_accelerator *h = dc_ruleset_find_accelerator(rs, "h100");
    struct sized s;
    rs->sizing.hbm_efficiency_batch1 = (struct dc_param){NAN, NULL};
    size_on(rs, LLAMA70_FP8, "h100", &s);
    assert_true(dc__decode_hbm_scale(&s.p, 1) == 1.0 && dc__decode_hbm_scale(&s.p, 400) == 1.0);
    NEAR(s.p.bandwidth, h->memory_bandwidth_gbps * 1e9 * e_l);

    rs->sizing.hbm_efficiency_batch1 = (struct dc_param){0.5, "https://example.com/gemv"};
    size_on(rs, LLAMA70_FP8, "h100", &s);
    NEAR(s.p.bandwidth, h->memory_bandwidth_gbps * 1e9 * e_l);
    NEAR(dc__decode_hbm_scale(&s.p, 1), 0.5 / e_l);
    NEAR(dc__decode_hbm_scale(&s.p, 4), (e_l - (e_l - 0.5) / 4) / e_l);
    NEAR(dc__decode_hbm_scale(&s.p, 0), 0.5 / e_l); /* no fewer than one row */
    assert_true(dc__decode_hbm_scale(&s.p, 2) < dc__decode_hbm_scale(&s.p, 16));
    assert_true(fabs(dc__decode_hbm_scale(&s.p, 1e6) - 1.0) < 1e-5);
    /* A batch-1 step reads its weights and KV cache at 0.5 of peak. */
    struct dc__replica r;
    dc__replica_at(&s.p, 8, 1, &r);
    assert_false(r.compute_bound);
    double bytes = dc__step_weight_bytes(&s.d, 1) + s.d.kv_step_bytes;
    NEAR(r.step_s,
         bytes / (8 * h->memory_bandwidth_gbps * 1e9 * 0.5) + dc__decode_sync_s(&s.p, 8, 1, 1));
    /* Speculative decoding verifies draft_tokens + 1 rows a request a step. */
    size_on(rs,
            "{\"task\":\"inference\",\"precision\":\"fp8\",\"model\":{\"name\":\"llama-3.1-70b\"},"
            "\"inference\":{\"batch_size\":1,\"input_tokens\":1000,\"output_tokens\":500,"
            "\"speculative\":{\"draft_model\":\"llama-3.2-1b\",\"draft_tokens\":4,"
            "\"acceptance_rate\":0.8}}}",
            "h100", &s);
    assert_true(s.d.tokens_per_request_step == 5);
    dc__replica_at(&s.p, 8, 1, &r);
    assert_false(r.compute_bound);
    bytes = dc__step_weight_bytes(&s.d, 1) + s.d.kv_step_bytes;
    NEAR(r.step_s, bytes / (8 * s.p.bandwidth * dc__decode_hbm_scale(&s.p, 5)) +
                       dc__decode_sync_s(&s.p, 8, 1, 1));
    rs->sizing.hbm_efficiency_batch1 = saved;
}

/* The time to first token under speculative decoding carries the draft's
 * prefill: its FLOPs over the prompt and its layers' all-reduces. */
static void test_draft_prefill_in_time_to_first_token(void **state)
{
    (void)state;
    struct sized plain, spec;
    size_on(rs, LLAMA70_FP8, "h200", &plain);
    size_on(rs,
            "{\"task\":\"inference\",\"precision\":\"fp8\",\"model\":{\"name\":\"llama-3.1-70b\"},"
            "\"inference\":{\"batch_size\":1,\"input_tokens\":1000,\"output_tokens\":500,"
            "\"speculative\":{\"draft_model\":\"llama-3.2-1b\",\"draft_tokens\":4,"
            "\"acceptance_rate\":0.8}}}",
            "h200", &spec);
    NEAR(spec.d.flops_per_request - plain.d.flops_per_request,
         2.0 * spec.w.draft_parameters * 1000);
    struct dc__replica a, b;
    dc__replica_at(&plain.p, 8, 1, &a);
    dc__replica_at(&spec.p, 8, 1, &b);
    /* A 1,000-token prompt of a 70B model is compute-bound on 8 H200. */
    assert_true(plain.d.flops_per_request / (8 * plain.p.flops) >
                plain.d.active_weights_gb * DC__GB / (8 * plain.p.bandwidth));
    NEAR(b.prefill_s - a.prefill_s, 2.0 * spec.w.draft_parameters * 1000 / (8 * spec.p.flops) +
                                        dc__tp_sync_s(&spec.p, 8, 1, 1000, 16, 2048));
}

/* A diffusion U-Net at 8 bits runs at diffusion_8bit_gain times its 16-bit
 * rate at most; a transformer at 8 bits takes the part's listed FP8 peak. */
static void test_diffusion_8bit_rate(void **state)
{
    (void)state;
    const struct dc_accelerator *h = dc_ruleset_find_accelerator(rs, "h100");
    double gain = rs->sizing.diffusion_8bit_gain.value;
    assert_true(gain > 1 && gain < 2);
    double rate = rs->sizing.mfu_inference[DC_FAMILY_GPU] * h->mfu_factor * 1e12;
    struct sized s;
    size_on(rs,
            "{\"task\":\"inference\",\"precision\":\"fp8\",\"model\":{\"name\":\"sdxl\","
            "\"denoising_steps\":20,\"guidance_passes\":2},\"inference\":{\"batch_size\":1}}",
            "h100", &s);
    NEAR(s.p.flops, fmin(h->peak_tflops[DC_PREC_FP8], h->peak_tflops[DC_PREC_BF16] * gain) * rate);
    size_on(rs, LLAMA70_FP8, "h100", &s);
    NEAR(s.p.flops, h->peak_tflops[DC_PREC_FP8] * rate);
}

/* Speech from compressed audio: a replica serves no more clips a second than
 * the host's vCPUs decode (the most per accelerator any offer rents, at
 * audio_decode_s_per_vcpu); audio that arrives decoded is not bound, and the
 * encoder's matmuls run at h / (h + matmul_width) of the serving rate. */
static void test_speech_host_decode_bound(void **state)
{
    (void)state;
    const struct dc_accelerator *h = dc_ruleset_find_accelerator(rs, "h100");
    double vcpus = 0;
    for (size_t i = 0; i < h->n_offers; i++)
        if (h->offers[i].accelerators > 0 && isfinite(h->offers[i].vcpus))
            vcpus = fmax(vcpus, h->offers[i].vcpus / h->offers[i].accelerators);
    assert_true(vcpus >= 8 && vcpus <= 64);
    double per_chip = vcpus * rs->sizing.audio_decode_s_per_vcpu.value / 30.0;
    struct sized s;
    size_on(rs,
            "{\"task\":\"inference\",\"model\":{\"name\":\"whisper-large-v3-turbo\"},"
            "\"inference\":{\"input_tokens\":1500,\"output_tokens\":76}}",
            "h100", &s);
    NEAR(s.d.audio_seconds, 30);
    NEAR(s.p.host_audio_s, vcpus * rs->sizing.audio_decode_s_per_vcpu.value);
    double c = rs->sizing.matmul_width.value;
    NEAR(s.p.flops, h->peak_tflops[DC_PREC_BF16] * 1e12 * rs->sizing.mfu_inference[DC_FAMILY_GPU] *
                        h->mfu_factor * 1280 / (1280 + c));
    struct dc__replica r;
    dc__replica_at(&s.p, 1, 400, &r);
    NEAR(r.rps, per_chip); /* the turbo decoder is fast: the host binds */
    size_on(rs,
            "{\"task\":\"inference\",\"model\":{\"name\":\"whisper-large-v3-turbo\"},"
            "\"inference\":{\"input_tokens\":1500,\"output_tokens\":76,\"audio_decoded\":true}}",
            "h100", &s);
    assert_true(isinf(s.p.host_audio_s));
    dc__replica_at(&s.p, 1, 400, &r);
    assert_true(r.rps > per_chip);
}

/* A rule set that states no all-reduce latency counts no synchronisation. */
static void test_no_parameters_no_sync(void **state)
{
    (void)state;
    dc_ruleset *mini = NULL;
    assert_int_equal(mini_load(&mini), 0);
    assert_true(isnan(mini->sizing.tp_allreduce_us[DC_FAMILY_GPU]));
    struct sized s;
    size_on(mini,
            "{\"task\":\"inference\",\"model\":{\"parameters\":7e9,\"layers\":32,"
            "\"hidden_size\":4096},\"inference\":{\"batch_size\":1}}",
            "gpu-a", &s);
    NEAR(dc__tp_sync_s(&s.p, 8, 1, 1, 32, 4096), 0);
    dc_ruleset_release(mini);
}

#define DLRM_TRAIN                                                                                 \
    "{\"task\":\"training\",\"precision\":\"fp16\",\"model\":{\"name\":\"dlrm-dcnv2\"},"           \
    "\"training\":{\"samples\":3145969742,\"global_batch_size\":55296}}"
#define DLRM_SERVE                                                                                 \
    "{\"task\":\"inference\",\"precision\":\"int8\",\"model\":{\"name\":\"dlrm-dcnv2\"},"          \
    "\"inference\":{\"batch_size\":256}}"

/* An all-to-all: nothing on one chip; inside a machine the fixed latency and
 * (n - 1) / n of the bytes over the link one way; across machines the share
 * for other machines leaves over each chip's own network link, after a hop. */
static void test_alltoall_inside_and_across(void **state)
{
    (void)state;
    struct sized s;
    size_on(rs, DLRM_TRAIN, "h100", &s);
    double alpha = rs->sizing.tp_allreduce_us[DC_FAMILY_GPU] * 1e-6;
    double hop = rs->sizing.network_hop_us.value * 1e-6, net = rs->sizing.network_gbps.value * 1e9;
    double link = dc_ruleset_find_accelerator(rs, "h100")->interconnect_gbps * 1e9 / 2;
    unsigned domain = dc_ruleset_find_accelerator(rs, "h100")->domain;
    assert_int_equal(domain, 8);
    double b = 64e6;
    NEAR(dc__alltoall_s(&s.p, 1, b), 0);
    NEAR(dc__alltoall_s(&s.p, 8, 0), 0);
    NEAR(dc__alltoall_s(&s.p, 8, b), alpha + 7.0 / 8 * b / link);
    NEAR(dc__alltoall_s(&s.p, 64, b), alpha + 7.0 / 64 * b / link + hop + 56.0 / 64 * b / net);
    assert_true(dc__alltoall_s(&s.p, 64, b) > 5 * dc__alltoall_s(&s.p, 8, b));
}

/* Expert parallel: two all-to-alls a layer, each chip sending its share of
 * the tokens to the k experts each picks (Mixtral: top-2 of 8, hidden 4,096,
 * 32 layers). */
static void test_expert_parallel_exchange(void **state)
{
    (void)state;
    struct sized s;
    size_on(rs,
            "{\"task\":\"inference\",\"precision\":\"fp8\",\"model\":{\"name\":\"mixtral-8x7b\"},"
            "\"inference\":{\"batch_size\":64,\"input_tokens\":1000,\"output_tokens\":100}}",
            "h100", &s);
    double act = rs->sizing.tp_activation_bytes.value;
    double bytes = 256.0 / 4 * 2 * 4096 * act;
    NEAR(dc__ep_sync_s(&s.p, 4, 256), 2 * 32 * dc__alltoall_s(&s.p, 4, bytes));
    NEAR(dc__ep_sync_s(&s.p, 1, 256), 0);
    NEAR(dc__ep_sync_s(&s.p, 4, 0), 0);
}

#define DEEPSEEK_R1_FP8                                                                            \
    "{\"task\":\"inference\",\"precision\":\"fp8\",\"model\":{\"name\":\"deepseek-r1\"},"          \
    "\"inference\":{\"input_tokens\":1000,\"output_tokens\":1000,"                                 \
    "\"kv_cache_precision\":\"fp8\"}}"

/* A decode step's attention: MLA scores and sums the 576-wide latent in every
 * head with its projections absorbed (4 x heads x latent FLOPs a cached
 * position and layer, DeepSeek-R1: 128 heads, 61 layers), grouped-query
 * attention 4 x heads x head_dim; at the prompt plus half the output. */
static void test_decode_attention_flops(void **state)
{
    (void)state;
    struct sized s;
    size_on(rs, DEEPSEEK_R1_FP8, "h200", &s);
    NEAR(s.d.decode_attn_flops, 4.0 * 128 * 576 * 61 * 1500);
    NEAR(s.d.decode_flops, 2.0 * s.d.dense_parameters + s.d.decode_attn_flops);
    size_on(rs, LLAMA70_FP8, "h100", &s);
    NEAR(s.d.decode_attn_flops, 4.0 * s.d.heads * s.d.head_dim * s.d.layers * 1250);
}

/* Attention over the cache runs at the part's 16-bit rate whatever the
 * weights' format; the weights' matmuls at the precision's. */
static void test_attention_rate_16_bit(void **state)
{
    (void)state;
    const struct dc_accelerator *b = dc_ruleset_find_accelerator(rs, "b200");
    double rate = rs->sizing.mfu_inference[DC_FAMILY_GPU] * b->mfu_factor * 1e12;
    struct sized s;
    size_on(rs,
            "{\"task\":\"inference\",\"precision\":\"fp4\",\"model\":{\"name\":\"llama-3.3-70b\"},"
            "\"inference\":{\"input_tokens\":1000,\"output_tokens\":1000}}",
            "b200", &s);
    NEAR(s.p.attn_flops, b->peak_tflops[DC_PREC_BF16] * rate);
    NEAR(s.p.flops, b->peak_tflops[DC_PREC_FP4] * rate);
    assert_true(s.p.attn_flops < s.p.flops);
}

/* MXFP4 weights on a part with no FP4 math are widened in the kernel and
 * multiplied at the 16-bit rate (TensorRT-LLM's gpt-oss on Hopper: bf16
 * activations), whatever the precision asks; on a part with FP4 math the
 * precision's rate holds, and without the quantization so does FP8 on H100. */
static void test_mxfp4_without_fp4_math(void **state)
{
    (void)state;
    const struct dc_accelerator *h = dc_ruleset_find_accelerator(rs, "h100");
    const struct dc_accelerator *b = dc_ruleset_find_accelerator(rs, "b200");
    assert_false(h->peak_tflops[DC_PREC_FP4] > 0);
    assert_true(b->peak_tflops[DC_PREC_FP4] > 0);
    const char *mx = "{\"task\":\"inference\",\"precision\":\"fp8\",\"quantization\":\"mxfp4\","
                     "\"model\":{\"name\":\"gpt-oss-20b\"},"
                     "\"inference\":{\"input_tokens\":1000,\"output_tokens\":1000}}";
    const char *fp8 = "{\"task\":\"inference\",\"precision\":\"fp8\","
                      "\"model\":{\"name\":\"gpt-oss-20b\"},"
                      "\"inference\":{\"input_tokens\":1000,\"output_tokens\":1000}}";
    struct sized s, t;
    size_on(rs, mx, "h100", &s);
    size_on(rs, fp8, "h100", &t);
    NEAR(s.p.flops / t.p.flops, h->peak_tflops[DC_PREC_BF16] / h->peak_tflops[DC_PREC_FP8]);
    NEAR(s.p.attn_flops, t.p.attn_flops); /* attention was 16-bit already */
    size_on(rs, mx, "b200", &s);
    size_on(rs, fp8, "b200", &t);
    NEAR(s.p.flops, t.p.flops);
}

/* A decode step's kernels run one after another, each at its own roofline:
 * the weights' matmuls bound by the weights read or their FLOPs, attention by
 * the KV cache read or its FLOPs; so a step whose matmuls are compute-bound
 * still waits for attention's cache reads. */
static void test_decode_kernels_roofline(void **state)
{
    (void)state;
    struct sized s;
    size_on(rs,
            "{\"task\":\"inference\",\"precision\":\"fp8\",\"model\":{\"name\":\"llama-3.1-8b\"},"
            "\"inference\":{\"input_tokens\":4000,\"output_tokens\":1000,"
            "\"kv_cache_precision\":\"fp8\"}}",
            "h100", &s);
    const struct dc__derived *d = &s.d;
    double bw = s.p.bandwidth, attn = d->decode_attn_flops;
    for (unsigned batch = 1; batch <= 256; batch *= 4) {
        struct dc__replica r;
        dc__replica_at(&s.p, 1, batch, &r);
        double e = bw * dc__decode_hbm_scale(&s.p, batch);
        double w = dc__step_weight_bytes(d, batch) / e, kv = batch * d->kv_step_bytes / e;
        double mm = batch * (d->decode_flops - attn) / s.p.flops,
               at = batch * attn / s.p.attn_flops;
        NEAR(r.step_s, fmax(w, mm) + fmax(kv, at));
        assert_true(r.step_s >= fmax(w + kv, mm + at) - 1e-15);
        assert_true(r.compute_bound == (mm + at > w + kv));
    }
    /* Somewhere between a batch of 16 and 1,024 requests of 4,500 cached
     * positions the matmuls are compute-bound while attention still waits on
     * the cache: there the two add up. */
    bool mixed = false;
    for (unsigned batch = 16; batch <= 1024 && !mixed; batch += 16) {
        double e = bw * dc__decode_hbm_scale(&s.p, batch);
        double mm = batch * (d->decode_flops - attn) / s.p.flops;
        double kv = batch * d->kv_step_bytes / e;
        if (mm <= dc__step_weight_bytes(d, batch) / e || kv <= batch * attn / s.p.attn_flops)
            continue;
        struct dc__replica r;
        dc__replica_at(&s.p, 1, batch, &r);
        NEAR(r.step_s, mm + kv);
        mixed = true;
    }
    assert_true(mixed);
}

/* Laid out expert parallel, every chip is an attention rank batching up to
 * attention_dp_batch requests, within the memory each chip's copy of the
 * shared part leaves; the tensor-parallel layout keeps max_batch, and a
 * dense model has no other. */
static void test_attention_dp_batch(void **state)
{
    (void)state;
    struct sized s;
    size_on(rs, DEEPSEEK_R1_FP8, "h200", &s);
    double rank = rs->sizing.attention_dp_batch.value, most = rs->sizing.max_batch.value;
    assert_true(rank > 1 && rank * 8 > most);
    double usable = 8 * 141 * rs->sizing.memory_usable_fraction.value;
    double held =
        (s.d.weights_gb + 7 * s.d.shared_weight_bytes / 1e9) * rs->sizing.infer_overhead.value;
    double room = floor((usable - held) / s.d.kv_cache_gb);
    assert_true(room > most); /* MLA's cache leaves room past one scheduler's batch */
    unsigned cap = (unsigned)fmin(room, rank * 8);
    assert_int_equal(dc__serve_batch_cap(&s.p, 8), cap);
    struct dc__replica r;
    dc__replica_at(&s.p, 8, cap, &r);
    assert_true(r.expert_parallel);
    assert_int_equal(r.batch, cap);
    /* One request past the cap: no expert-parallel layout. */
    dc__replica_at(&s.p, 8, cap + 1, &r);
    assert_false(r.expert_parallel);
    /* At a batch one scheduler holds, the tensor-parallel layout can serve it. */
    dc__replica_at(&s.p, 8, 16, &r);
    assert_int_equal(r.batch, 16);
    /* A dense model: max_batch, whatever the chips. */
    size_on(rs, LLAMA70_FP8, "h200", &s);
    assert_true(dc__serve_batch_cap(&s.p, 8) <= (unsigned)most);
    dc__replica_at(&s.p, 8, 64, &r);
    assert_false(r.expert_parallel);
}

/* A mixture of experts serves its matmuls at w / (w + the serving expert
 * width) of the serving rate (DeepSeek-R1: 2,048-wide experts), lower than
 * training's factor; a dense model at the serving rate. */
static void test_serving_expert_width(void **state)
{
    (void)state;
    const struct dc_accelerator *h = dc_ruleset_find_accelerator(rs, "h200");
    double rate = rs->sizing.mfu_inference[DC_FAMILY_GPU] * h->mfu_factor * 1e12;
    double c = rs->sizing.serve_moe_expert_width.value, t = rs->sizing.moe_expert_width.value;
    assert_true(c > t);
    struct sized s;
    size_on(rs, DEEPSEEK_R1_FP8, "h200", &s);
    double w = s.d.expert_width; /* inferred from the parameters: about 2,048 */
    assert_true(w > 1900 && w < 2200);
    NEAR(s.p.flops, h->peak_tflops[DC_PREC_FP8] * rate * w / (w + c));
    size_on(rs, LLAMA70_FP8, "h200", &s);
    NEAR(s.p.flops, h->peak_tflops[DC_PREC_FP8] * rate);
}

/* A recommender's serving batch: each chip gathers the rows of its tables at
 * gather_efficiency of peak bandwidth, then the pooled rows are exchanged
 * (26 tables of 128 values for DLRM-DCNv2). */
static void test_embedding_batch(void **state)
{
    (void)state;
    struct sized s;
    size_on(rs, DLRM_SERVE, "h100", &s);
    double g = rs->sizing.gather_efficiency.value;
    double peak = dc_ruleset_find_accelerator(rs, "h100")->memory_bandwidth_gbps * 1e9;
    double row = 214 * 128 * 1.0; /* int8 rows */
    assert_true(g > 0 && g <= 1);
    NEAR(s.d.lookup_bytes, row);
    NEAR(s.d.pooled_values, 26 * 128);
    NEAR(dc__embed_batch_s(&s.p, 1, 256), 256 * row / (peak * g));
    double act = rs->sizing.tp_activation_bytes.value;
    NEAR(dc__embed_batch_s(&s.p, 8, 256),
         256 * row / (8 * peak * g) + dc__alltoall_s(&s.p, 8, 256.0 / 8 * 26 * 128 * act));
}

/* Training a recommender: the dense part alone is all-reduced (every chip a
 * replica of it; the tables are sharded), and gathering and exchanging rows
 * leave the dense compute a share of each step that falls once the exchange
 * crosses machines. */
static void test_embedding_training(void **state)
{
    (void)state;
    struct sized s8, s64;
    size_on(rs, DLRM_TRAIN, "h100", &s8);
    size_on(rs, DLRM_TRAIN, "h100", &s64);
    NEAR(s8.p.replica_chips, 1);
    NEAR(s8.p.sync_bytes, (26151671809.0 - 26135627264.0) * rs->sizing.gradient_bytes.value);
    double f8 = dc__embed_train_factor(&s8.p, 8, 0.5),
           f64 = dc__embed_train_factor(&s64.p, 64, 0.5);
    assert_true(f8 > 0.2 && f8 < 1 && f64 > 0 && f64 < f8);
    /* Without lookups nothing is gathered or exchanged. */
    struct sized n;
    size_on(
        rs,
        "{\"task\":\"training\",\"model\":{\"architecture\":\"recommender\",\"parameters\":2.6e10,"
        "\"embedding_parameters\":2.59e10,\"flops_per_sample\":3.2e7},"
        "\"training\":{\"samples\":1e9}}",
        "h100", &n);
    NEAR(dc__embed_train_factor(&n.p, 64, 0.5), 1);
    NEAR(n.p.gather_bps, 0);
}

/* Across machines each message of the tables' all-to-all to a chip on
 * another machine adds alltoall_peer_us, whatever its bytes: a serving
 * batch on two HGX machines (16 chips) pays 8 such peers once; a training
 * step on 16 machines (128 chips) pays 120 twice (rows out, gradients
 * back), and inside one machine nothing changes. */
static void test_embedding_peers_across_machines(void **state)
{
    (void)state;
    struct sized s;
    size_on(rs, DLRM_SERVE, "h100", &s);
    double peer = rs->sizing.alltoall_peer_us.value * 1e-6;
    assert_true(peer > 0);
    NEAR(s.p.peer_s, peer);
    double g = rs->sizing.gather_efficiency.value;
    double peak = dc_ruleset_find_accelerator(rs, "h100")->memory_bandwidth_gbps * 1e9;
    double row = 214 * 128 * 1.0, act = rs->sizing.tp_activation_bytes.value;
    NEAR(dc__embed_batch_s(&s.p, 16, 256),
         256 * row / (16 * peak * g) + dc__alltoall_s(&s.p, 16, 256.0 / 16 * 26 * 128 * act) +
             8 * peer);

    struct sized t;
    size_on(rs, DLRM_TRAIN, "h100", &t);
    double f8 = dc__embed_train_factor(&t.p, 8, 0.5), with = dc__embed_train_factor(&t.p, 128, 0.5);
    t.p.peer_s = 0;
    NEAR(dc__embed_train_factor(&t.p, 8, 0.5), f8);
    double without = dc__embed_train_factor(&t.p, 128, 0.5);
    assert_true(with < without);
    /* The factor is compute / (compute + gather + exchange): the peers add
     * steps x 2 x 120 x alltoall_peer_us (over goodput) to its denominator. */
    double compute = t.d.training_flops / (128.0 * t.p.peak * 0.5 * t.p.factor);
    double steps = t.d.samples / 55296.0;
    double extra = steps * 2.0 * 120.0 * peer / rs->sizing.goodput.value;
    NEAR(1.0 / with - 1.0 / without, extra / compute);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allreduce_by_degree_and_bytes),
        cmocka_unit_test(test_pipeline_hops),
        cmocka_unit_test(test_unknown_link_counts_latency),
        cmocka_unit_test(test_draft_steps_synchronise),
        cmocka_unit_test(test_no_parameters_no_sync),
        cmocka_unit_test(test_alltoall_inside_and_across),
        cmocka_unit_test(test_expert_parallel_exchange),
        cmocka_unit_test(test_decode_attention_flops),
        cmocka_unit_test(test_attention_rate_16_bit),
        cmocka_unit_test(test_mxfp4_without_fp4_math),
        cmocka_unit_test(test_decode_kernels_roofline),
        cmocka_unit_test(test_attention_dp_batch),
        cmocka_unit_test(test_serving_expert_width),
        cmocka_unit_test(test_embedding_batch),
        cmocka_unit_test(test_embedding_training),
        cmocka_unit_test(test_embedding_peers_across_machines),
        cmocka_unit_test(test_rocm_decode_bandwidth),
        cmocka_unit_test(test_decode_hbm_follows_batch),
        cmocka_unit_test(test_draft_prefill_in_time_to_first_token),
        cmocka_unit_test(test_diffusion_8bit_rate),
        cmocka_unit_test(test_speech_host_decode_bound),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
