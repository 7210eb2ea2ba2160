/* tests/support/mini_rules.h -- a small, hand-checkable rule set shared by the
 * core unit tests: two accelerators, the standard sizing parameters, two rules
 * and one price.
 * Sizing numbers in the tests are computed by hand from these values. */
#ifndef AA_TEST_MINI_RULES_H
#define AA_TEST_MINI_RULES_H

#include <stdio.h>
#include <string.h>

#include "dc/ruleset.h"

static const char catalog_ok[] =
    "accelerators:\n"                                        /* 1 */
    "  - id: gpu-a\n"                                        /* 2 */
    "    name: Test GPU A\n"                                 /* 3 */
    "    vendor: nvidia\n"                                   /* 4 */
    "    family: gpu\n"                                      /* 5 */
    "    source: https://example.com/gpu-a\n"                /* 6 */
    "    pci: {vendor: 0x10de, devices: [0x2330, 0x2331]}\n" /* 7 */
    "    memory_gb: 80\n"                                    /* 8 */
    "    memory_bandwidth_gbps: 3350\n"                      /* 9 */
    "    peak_tflops: {bf16: 989, fp8: 1979, fp64: 67}\n"    /* 10 */
    "    precisions: [fp64, fp32, bf16, fp16, fp8, int8]\n"  /* 11 */
    "    interconnect: {name: NVLink, bandwidth_gbps: 900, domain: 8}\n"
    "    shapes: {node_sizes: [1, 2, 4, 8], source: https://example.com/shapes}\n"
    "    scale_out: {network: InfiniBand, max_chips: 256, source: https://example.com/scale}\n"
    "    providers: [aws, gcp]\n"
    "    on_prem: true\n"
    "  - id: tpu-b\n"
    "    name: Test TPU B\n"
    "    vendor: google\n"
    "    family: tpu\n"
    "    source: https://example.com/tpu-b\n"
    "    memory_gb: 32\n"
    "    peak_tflops: {bf16: 918}\n"
    "    precisions: [bf16, int8]\n"
    "    shapes: {slices: {tpu-b-4: 4, tpu-b-16: 16, tpu-b-64: 64}, source: "
    "https://example.com/s}\n"
    "    scale_out: {network: DCN, max_chips: 256, source: https://example.com/dcn}\n"
    "    providers: [gcp]\n"
    "    on_prem: false\n";

static const char sizing_ok[] =
    "sizing:\n"
    "  memory_usable_fraction: {value: 0.9, source: https://example.com/usable}\n"
    "  training:\n"
    "    state_bytes_per_parameter: {value: 16, source: https://arxiv.org/abs/1910.02054}\n"
    "    lora_adapter_fraction: {value: 0.01, source: https://arxiv.org/abs/2305.14314}\n"
    "    lora_flops_factor: {value: 4, source: https://arxiv.org/abs/2106.09685}\n"
    "    qlora_bytes_per_parameter: {value: 0.5, source: https://arxiv.org/abs/2305.14314}\n"
    "    checkpoint_bytes: {value: 2, source: https://arxiv.org/abs/2205.05198}\n"
    "    layer_bytes: {value: 34, source: https://arxiv.org/abs/2205.05198}\n"
    "    micro_batch: {value: 1, source: convention}\n"
    "    sequence_length: {value: 4096, source: convention}\n"
    "    tokens_per_parameter: {value: 20, source: https://arxiv.org/abs/2203.15556}\n"
    "    fine_tuning_tokens: {value: 100000000, source: convention}\n"
    "    target_hours_training: {value: 720, source: convention}\n"
    "    target_hours_fine_tuning: {value: 24, source: convention}\n"
    "    goodput: {value: 0.8, source: https://arxiv.org/abs/2407.21783}\n"
    "    architecture_mfu: {cnn: {value: 0.5, source: https://example.com/cnn}}\n"
    "    efficiency_floor: {value: 0.7, source: convention}\n"
    "    chips_per_sequence: {value: 8, source: convention}\n"
    "    min_run_hours: {value: 1, source: convention}\n"
    "  inference:\n"
    "    bytes_per_parameter: {fp64: 8, fp32: 4, bf16: 2, fp16: 2, fp8: 1, int8: 1, fp4: 0.5, "
    "int4: 0.5, source: https://blog.eleuther.ai/transformer-math/}\n"
    "    overhead_factor: {value: 1.2, source: https://blog.eleuther.ai/transformer-math/}\n"
    "    context_tokens: {value: 2048, source: convention}\n"
    "    output_tokens: {value: 256, source: convention}\n"
    "    max_batch: {value: 256, source: https://example.com/vllm}\n"
    "    hbm_efficiency: {value: 0.5, source: https://example.com/mbu}\n"
    "    kv_source: https://arxiv.org/abs/2309.06180\n"
    "    hours_per_month: 730\n"
    "    serving_max_chips: {value: 4096, source: convention}\n"
    "  mfu:\n"
    "    gpu: {training: 0.5, cross_domain: 0.9, decay_per_doubling: 0.05, inference: 0.5, "
    "source: https://example.com/gpu}\n"
    "    tpu: {training: 0.5, cross_domain: 0.9, decay_per_doubling: 0.05, inference: 0.5, "
    "source: https://example.com/tpu}\n"
    "    cpu: {training: 0.2, cross_domain: 1, decay_per_doubling: 0, inference: 0.1, "
    "source: https://example.com/cpu}\n"
    "    asic: {training: 0.35, cross_domain: 0.9, decay_per_doubling: 0.02, inference: 0.5, "
    "source: https://example.com/asic}\n"
    "  precision_gain:\n"
    "    fp8: {gpu: 1.25, tpu: 1, cpu: 1, asic: 1, source: https://example.com/fp8}\n"
    "  on_prem:\n"
    "    usd_per_kwh: {value: 0.1, source: https://example.com/kwh}\n"
    "    pue: {value: 1.5, source: https://example.com/pue}\n"
    "    amortization_years: {value: 4, source: convention}\n"
    "scoring:\n"
    "  base: 50\n"
    "  soft_band: 0.1\n"
    "  soft_full_points: 40\n"
    "  balanced_premium: 0.1\n"
    "  negligible_cost_usd: 1\n"
    "  points_per_doubling: 25\n"
    "  availability_points: 20\n"
    "  low_confidence_points: 10\n"
    "  price_stale_after_days: 540\n";

static const char rules_ok[] = "rules:\n"
                               "  - id: no-fp64-tpu\n"
                               "    description: TPUs have no FP64.\n"
                               "    source: https://docs.cloud.google.com/tpu/docs/intro-to-tpu\n"
                               "    fact: F1.4\n"
                               "    when: {\"==\": [{\"var\": \"precision\"}, \"fp64\"]}\n"
                               "    effect:\n"
                               "      exclude: {families: [tpu]}\n"
                               "  - id: jax-likes-tpu\n"
                               "    description: JAX compiles through XLA.\n"
                               "    source: https://cloud.google.com/tpu/docs/runtimes\n"
                               "    when: {\"==\": [{\"var\": \"framework\"}, \"jax\"]}\n"
                               "    effect: {families: {tpu: 15}, accelerators: {gpu-a: -5}}\n"
                               "    message: JAX runs natively on TPUs.\n";

/* gpu-a: AWS rents machines of 1, 2, 4 and 8 at $4.90 a chip-hour on demand
 * and $2.00 spot, so every catalog size can be bought; tpu-b: no offer. */
static const char prices_ok[] = "prices:\n"
                                "  - accelerator: gpu-a\n"
                                "    provider: aws\n"
                                "    region: us-east-1\n"
                                "    instance_type: test machine 1\n"
                                "    accelerators: 1\n"
                                "    source: https://example.com/p\n"
                                "    confidence: high\n"
                                "    on_demand: {usd_per_hour: 4.9, as_of: \"2024-12\"}\n"
                                "    spot: {usd_per_hour: 2, as_of: \"2024-12-01\"}\n"
                                "  - accelerator: gpu-a\n"
                                "    provider: aws\n"
                                "    region: us-east-1\n"
                                "    instance_type: test machine 2\n"
                                "    accelerators: 2\n"
                                "    source: https://example.com/p\n"
                                "    confidence: high\n"
                                "    on_demand: {usd_per_hour: 9.8, as_of: \"2024-12\"}\n"
                                "    spot: {usd_per_hour: 4, as_of: \"2024-12-01\"}\n"
                                "  - accelerator: gpu-a\n"
                                "    provider: aws\n"
                                "    region: us-east-1\n"
                                "    instance_type: test machine 4\n"
                                "    accelerators: 4\n"
                                "    source: https://example.com/p\n"
                                "    confidence: high\n"
                                "    on_demand: {usd_per_hour: 19.6, as_of: \"2024-12\"}\n"
                                "    spot: {usd_per_hour: 8, as_of: \"2024-12-01\"}\n"
                                "  - accelerator: gpu-a\n"
                                "    provider: aws\n"
                                "    region: us-east-1\n"
                                "    instance_type: test machine 8\n"
                                "    accelerators: 8\n"
                                "    source: https://example.com/p\n"
                                "    confidence: high\n"
                                "    on_demand: {usd_per_hour: 39.2, as_of: \"2024-12\"}\n"
                                "    spot: {usd_per_hour: 16, as_of: \"2024-12-01\"}\n"
                                "hardware: []\n";

static inline enum dc_status load4(const char *catalog, const char *sizing, const char *rules,
                                   const char *prices, dc_ruleset **rs, struct dc_diags *d)
{
    struct dc_source_file files[4] = {
        {"rules.yaml", rules, strlen(rules)},
        {"catalog.yaml", catalog, strlen(catalog)},
        {"sizing.yaml", sizing, strlen(sizing)},
        {"prices.yaml", prices, strlen(prices)},
    };
    return dc_ruleset_load_files(files, 4, rs, d);
}

static inline enum dc_status load3(const char *catalog, const char *sizing, const char *rules,
                                   dc_ruleset **rs, struct dc_diags *d)
{
    return load4(catalog, sizing, rules, prices_ok, rs, d);
}

/* The whole mini rule set into *rs (owned: dc_ruleset_release); a cmocka
 * group setup's return value: 0, or -1 when it does not load. */
static inline int mini_load(dc_ruleset **rs)
{
    return load3(catalog_ok, sizing_ok, rules_ok, rs, NULL) == DC_OK ? 0 : -1;
}

/* The mini set with `rules`, and tpu-b priced too at `usd` a chip-hour on
 * GCP (an unpriced part never ranks first, so tests of two priced parts need
 * it): 0, or -1 when it does not load. */
static inline int mini_load_priced_tpu(const char *rules, const char *usd, dc_ruleset **rs)
{
    char offer[400], prices[sizeof(prices_ok) + 400];
    snprintf(offer, sizeof(offer),
             "  - accelerator: tpu-b\n    provider: gcp\n    region: us-central1\n"
             "    instance_type: per chip\n    source: https://example.com/t\n"
             "    confidence: high\n    on_demand: {usd_per_chip_hour: %s, as_of: \"2025-06\"}\n",
             usd);
    const char *hw = strstr(prices_ok, "hardware:");
    snprintf(prices, sizeof(prices), "%.*s%s%s", (int)(hw - prices_ok), prices_ok, offer, hw);
    return load4(catalog_ok, sizing_ok, rules, prices, rs, NULL) == DC_OK ? 0 : -1;
}

#endif
