/* core/src/rules/params.c -- sizing.yaml: the sizing and scoring parameters, each
 * number with its source (format: docs/rules-format.md; method:
 * docs/scoring.md, section 5). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "load.h"
#include "ruleset_internal.h"

/* architecture_mfu: {cnn: {value, source}, ...}: architecture names as the
 * contract lists them. */
static void load_arch_mfu(const struct dc__where *t, struct dc_sizing_params *s)
{
    static const char *const archs[] = {
        "transformer", "cnn",       "rnn", "mlp",     "recommender",
        "gnn",         "diffusion", "moe", "encoder", "encoder-decoder",
        "vit",         "other",     NULL};
    const cJSON *am = dc__get_obj(t, "architecture_mfu", false);
    if (am == NULL)
        return;
    struct dc__where a = dc__sub(t, am);
    dc__check_keys(&a, "sizing.training.architecture_mfu", archs);
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, am)
    {
        if (s->n_arch_mfu == sizeof(s->arch_mfu) / sizeof(s->arch_mfu[0]))
            break;
        struct dc_param p = dc__get_param(&a, it->string, 0.01, 1);
        s->arch_mfu[s->n_arch_mfu++] = (struct dc_arch_factor){it->string, p};
    }
}

/* key: {value, source} like dc__get_param, but optional: {NAN, NULL} when
 * the file leaves it out (the model then does without what it sets). */
static struct dc_param optional_param(const struct dc__where *t, const char *key, double lo,
                                      double hi)
{
    if (cJSON_GetObjectItemCaseSensitive(t->obj, key) == NULL)
        return (struct dc_param){NAN, NULL};
    return dc__get_param(t, key, lo, hi);
}

static void load_training_params(const struct dc__where *z, struct dc_sizing_params *s)
{
    static const char *const keys[] = {"state_bytes_per_parameter",
                                       "lora_adapter_fraction",
                                       "lora_flops_factor",
                                       "qlora_bytes_per_parameter",
                                       "checkpoint_bytes",
                                       "layer_bytes",
                                       "micro_batch",
                                       "sequence_length",
                                       "tokens_per_parameter",
                                       "fine_tuning_tokens",
                                       "target_hours_training",
                                       "target_hours_fine_tuning",
                                       "goodput",
                                       "efficiency_floor",
                                       "chips_per_sequence",
                                       "min_run_hours",
                                       "architecture_mfu",
                                       "rl_rollout_share",
                                       "moe_expert_width",
                                       "sequence_split",
                                       "matmul_width",
                                       "gradient_bytes",
                                       "sync_overlap",
                                       "network_gbit_per_chip",
                                       "alltoall_peer_us",
                                       "startup_hours",
                                       "load_gb_per_s",
                                       "billing_granularity_hours",
                                       "billing_minimum_hours",
                                       NULL};
    const cJSON *tr = dc__get_obj(z, "training", true);
    if (tr == NULL)
        return;
    struct dc__where t = dc__sub(z, tr);
    dc__check_keys(&t, "sizing.training", keys);
    s->state_bytes_per_parameter = dc__get_param(&t, "state_bytes_per_parameter", 1, 64);
    s->lora_adapter_fraction = dc__get_param(&t, "lora_adapter_fraction", 0, 1);
    s->lora_flops_factor = dc__get_param(&t, "lora_flops_factor", 2, 6);
    s->qlora_bytes_per_parameter = dc__get_param(&t, "qlora_bytes_per_parameter", 0.125, 4);
    s->checkpoint_bytes = dc__get_param(&t, "checkpoint_bytes", 0, 64);
    s->layer_bytes = dc__get_param(&t, "layer_bytes", 0, 1000);
    s->micro_batch = dc__get_param(&t, "micro_batch", 1, 1e4);
    s->sequence_length = dc__get_param(&t, "sequence_length", 1, 1e7);
    s->tokens_per_parameter = dc__get_param(&t, "tokens_per_parameter", 0.001, 1e6);
    s->fine_tuning_tokens = dc__get_param(&t, "fine_tuning_tokens", 1, 1e16);
    s->target_hours_training = dc__get_param(&t, "target_hours_training", 0.01, 1e6);
    s->target_hours_fine_tuning = dc__get_param(&t, "target_hours_fine_tuning", 0.01, 1e6);
    s->goodput = dc__get_param(&t, "goodput", 0.05, 1);
    s->efficiency_floor = dc__get_param(&t, "efficiency_floor", 0.01, 1);
    s->chips_per_sequence = dc__get_param(&t, "chips_per_sequence", 1, 1e4);
    s->min_run_hours = dc__get_param(&t, "min_run_hours", 0, 1e6);
    /* Optional: a set without it asks RL workloads for training.rl.rollout_share. */
    s->rl_rollout_share = optional_param(&t, "rl_rollout_share", 0, 0.99);
    /* Optional: a set without it trains experts at a dense model's MFU. */
    s->moe_expert_width = optional_param(&t, "moe_expert_width", 1, 1e6);
    /* Optional: a set without it counts no cost of splitting sequences. */
    s->sequence_split = optional_param(&t, "sequence_split", 0, 1e6);
    /* Optional: a set without it trains every width at the family's MFU. */
    s->matmul_width = optional_param(&t, "matmul_width", 0, 1e6);
    /* Optional, together: a set without them counts no gradient all-reduce. */
    s->gradient_bytes = optional_param(&t, "gradient_bytes", 0.5, 8);
    s->sync_overlap = optional_param(&t, "sync_overlap", 0, 1);
    s->network_gbit_per_chip = optional_param(&t, "network_gbit_per_chip", 0.1, 1e5);
    /* Optional: a set without it counts one latency an all-to-all whatever its
     * peers (core/src/sizing/embed.c). */
    s->alltoall_peer_us = optional_param(&t, "alltoall_peer_us", 0, 1e4);
    /* Optional: a set without them counts no fixed costs of a run. */
    s->startup_hours = optional_param(&t, "startup_hours", 0, 100);
    s->load_gb_per_s = optional_param(&t, "load_gb_per_s", 0.001, 1e4);
    s->billing_granularity_hours = optional_param(&t, "billing_granularity_hours", 0, 744);
    s->billing_minimum_hours = optional_param(&t, "billing_minimum_hours", 0, 744);
    load_arch_mfu(&t, s);
}

/* tp_allreduce_us: {gpu, tpu, cpu, asic, source} and the optional link
 * parameters beside it: a set without them counts no tensor-parallel
 * synchronisation and no network hop (docs/rules-format.md). */
static void load_tp_params(const struct dc__where *t, struct dc_sizing_params *s)
{
    for (size_t f = 0; f < DC_FAMILY_COUNT; f++)
        s->tp_allreduce_us[f] = NAN;
    s->tp_allreduce_source = NULL;
    s->tp_activation_bytes = optional_param(t, "tp_activation_bytes", 0.5, 8);
    s->network_hop_us = optional_param(t, "network_hop_us", 0, 1e5);
    s->network_gbps = optional_param(t, "network_gbps", 0.1, 1e5);
    const cJSON *ar = dc__get_obj(t, "tp_allreduce_us", false);
    if (ar == NULL)
        return;
    static const char *const keys[] = {"gpu", "tpu", "cpu", "asic", "source", NULL};
    struct dc__where q = dc__sub(t, ar);
    dc__check_keys(&q, "sizing.inference.tp_allreduce_us", keys);
    for (size_t f = 0; f < DC_FAMILY_COUNT; f++)
        s->tp_allreduce_us[f] = dc__get_num(&q, dc_family_name((enum dc_family)f), true, 0, 1e5);
    s->tp_allreduce_source = dc__get_url(&q, "source", true);
}

static void load_inference_params(const struct dc__where *z, struct dc_sizing_params *s)
{
    static const char *const keys[] = {
        "bytes_per_parameter",     "overhead_factor",     "context_tokens",
        "output_tokens",           "max_batch",           "hbm_efficiency",
        "hbm_efficiency_batch1",   "kv_source",           "hours_per_month",
        "serving_max_chips",       "near_miss_tolerance", "tp_allreduce_us",
        "tp_activation_bytes",     "network_hop_us",      "network_gbps",
        "gather_efficiency",       "diffusion_8bit_gain", "attention_dp_batch",
        "audio_decode_s_per_vcpu", "moe_expert_width",    NULL};
    const cJSON *inf = dc__get_obj(z, "inference", true);
    if (inf == NULL)
        return;
    struct dc__where t = dc__sub(z, inf);
    dc__check_keys(&t, "sizing.inference", keys);
    const cJSON *bpp = dc__get_obj(&t, "bytes_per_parameter", true);
    if (bpp != NULL) {
        static const char *const bk[] = {"fp64", "fp32", "bf16", "fp16",   "fp8",
                                         "fp4",  "int8", "int4", "source", NULL};
        struct dc__where b = dc__sub(&t, bpp);
        dc__check_keys(&b, "bytes_per_parameter", bk);
        for (size_t p = 0; p < DC_PREC_COUNT; p++)
            s->infer_bytes_per_param[p] =
                dc__get_num(&b, dc_precision_name((enum dc_precision)p), true, 0.125, 16);
        s->infer_bytes_source = dc__get_url(&b, "source", true);
    }
    s->infer_overhead = dc__get_param(&t, "overhead_factor", 1, 10);
    s->context_tokens = dc__get_param(&t, "context_tokens", 1, 1e7);
    s->output_tokens = dc__get_param(&t, "output_tokens", 0, 1e7);
    s->max_batch = dc__get_param(&t, "max_batch", 1, 1e5);
    s->attention_dp_batch = optional_param(&t, "attention_dp_batch", 1, 1e5);
    s->serve_moe_expert_width = optional_param(&t, "moe_expert_width", 1, 1e6);
    s->hbm_efficiency = dc__get_param(&t, "hbm_efficiency", 0.05, 1);
    s->hbm_efficiency_batch1 = optional_param(&t, "hbm_efficiency_batch1", 0.05, 1);
    s->gather_efficiency = optional_param(&t, "gather_efficiency", 0.01, 4);
    s->kv_source = dc__get_url(&t, "kv_source", true);
    s->hours_per_month = dc__get_num(&t, "hours_per_month", true, 1, 744);
    s->serving_max_chips = dc__get_param(&t, "serving_max_chips", 1, 1e6);
    /* 0: the fastest step outright; at most half of the target: past that
     * nearly every step of a far miss would count as near. */
    s->near_miss_tolerance = optional_param(&t, "near_miss_tolerance", 0, 0.5);
    s->diffusion_8bit_gain = optional_param(&t, "diffusion_8bit_gain", 1, 4);
    s->audio_decode_s_per_vcpu = optional_param(&t, "audio_decode_s_per_vcpu", 1, 1e6);
    load_tp_params(&t, s);
}

/* mfu: {gpu: {training, cross_domain, decay_per_doubling, inference, source}, ...} */
static void load_mfu(const struct dc__where *z, struct dc_sizing_params *s)
{
    static const char *const keys[] = {"training",  "cross_domain", "decay_per_doubling",
                                       "inference", "source",       NULL};
    const cJSON *mfu = dc__get_obj(z, "mfu", true);
    if (mfu == NULL)
        return;
    struct dc__where m = dc__sub(z, mfu);
    static const char *const fams[] = {"gpu", "tpu", "cpu", "asic", NULL};
    dc__check_keys(&m, "sizing.mfu", fams);
    for (size_t f = 0; f < DC_FAMILY_COUNT; f++) {
        const cJSON *fo = dc__get_obj(&m, dc_family_name((enum dc_family)f), true);
        if (fo == NULL)
            continue;
        struct dc__where q = dc__sub(&m, fo);
        dc__check_keys(&q, "an mfu family", keys);
        s->mfu_training[f] = dc__get_num(&q, "training", true, 0.01, 1);
        s->mfu_cross_domain[f] = dc__get_num(&q, "cross_domain", true, 0.05, 1);
        s->mfu_decay[f] = dc__get_num(&q, "decay_per_doubling", true, 0, 0.5);
        s->mfu_inference[f] = dc__get_num(&q, "inference", true, 0.01, 1);
        s->mfu_source[f] = dc__get_url(&q, "source", true);
    }
}

/* precision_gain: {fp8: {gpu, tpu, cpu, asic, source}, ...}; an unlisted precision
 * gains nothing over bf16. */
static void load_precision_gain(const struct dc__where *z, struct dc_sizing_params *s)
{
    for (size_t p = 0; p < DC_PREC_COUNT; p++) {
        for (size_t f = 0; f < DC_FAMILY_COUNT; f++)
            s->precision_gain[p][f] = 1.0;
    }
    const cJSON *pg = dc__get_obj(z, "precision_gain", true);
    if (pg == NULL)
        return;
    struct dc__where g = dc__sub(z, pg);
    static const char *const precs[] = {"fp8", "fp4", "int8", "int4", NULL};
    static const char *const keys[] = {"gpu", "tpu", "cpu", "asic", "source", NULL};
    dc__check_keys(&g, "sizing.precision_gain", precs);
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, pg)
    {
        enum dc_precision p;
        if (!dc_precision_parse(it->string, &p) || !cJSON_IsObject(it))
            continue;
        struct dc__where q = dc__sub(&g, it);
        dc__check_keys(&q, "a precision gain", keys);
        for (size_t f = 0; f < DC_FAMILY_COUNT; f++)
            s->precision_gain[p][f] =
                dc__get_num(&q, dc_family_name((enum dc_family)f), true, 1, 16);
        s->precision_gain_source[p] = dc__get_url(&q, "source", true);
    }
}

static void load_scoring(const struct dc__where *w, const cJSON *sc, struct dc_sizing_params *s)
{
    static const char *const keys[] = {"base",
                                       "soft_band",
                                       "soft_full_points",
                                       "balanced_premium",
                                       "negligible_cost_usd",
                                       "points_per_doubling",
                                       "availability_points",
                                       "low_confidence_points",
                                       "price_stale_after_days",
                                       NULL};
    struct dc__where c = dc__sub(w, sc);
    dc__check_keys(&c, "scoring", keys);
    s->score_base = dc__get_num(&c, "base", true, 0, 100);
    s->soft_band = dc__get_num(&c, "soft_band", true, 0, 1);
    s->soft_full_points = dc__get_num(&c, "soft_full_points", true, 1, 1000);
    s->balanced_premium = dc__get_num(&c, "balanced_premium", true, 0, 10);
    s->negligible_cost_usd = dc__get_num(&c, "negligible_cost_usd", true, 0, 1e6);
    s->points_per_doubling = dc__get_num(&c, "points_per_doubling", true, 1, 100);
    s->availability_points = dc__get_num(&c, "availability_points", true, 0, 1000);
    s->low_confidence_points = dc__get_num(&c, "low_confidence_points", true, 0, 1000);
    s->price_stale_after_days = dc__get_num(&c, "price_stale_after_days", true, 1, 36500);
}

/* uncertainty: {<regime>: {p10, p90, rows}, ...}: what `accel-advisor
 * calibrate --bands` prints from the calibration's fit rows (docs/
 * calibration.md); a regime left out states no band of its own. */
static void load_uncertainty(const struct dc__where *z, struct dc_sizing_params *s)
{
    static const char *const keys[] = {"p10", "p90", "rows", NULL};
    const cJSON *un = dc__get_obj(z, "uncertainty", false);
    if (un == NULL)
        return;
    struct dc__where u = dc__sub(z, un);
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, un)
    {
        enum dc_regime r;
        if (!dc_regime_parse(it->string, &r)) {
            dc__diag(u.L, u.file, dc__line_of(&u, it), NULL,
                     "sizing.uncertainty: unknown regime \"%.40s\" (docs/calibration.md lists "
                     "them)",
                     it->string);
            continue;
        }
        const cJSON *o = dc__get_obj(&u, it->string, true);
        if (o == NULL)
            continue;
        struct dc__where q = dc__sub(&u, o);
        dc__check_keys(&q, "an uncertainty band", keys);
        double p10 = dc__get_num(&q, "p10", true, 0.01, 100);
        double p90 = dc__get_num(&q, "p90", true, 0.01, 100);
        double rows = dc__get_num(&q, "rows", true, 2, 1e6);
        if (!isfinite(p10) || !isfinite(p90) || !isfinite(rows))
            continue;
        if (p10 > p90) {
            dc__diag(u.L, u.file, dc__line_of(&u, o), NULL,
                     "sizing.uncertainty.%s: p10 %g is above p90 %g", it->string, p10, p90);
            continue;
        }
        s->uncertainty[r] = (struct dc_band_params){p10, p90, (unsigned)rows};
    }
}

struct dc_band_params dc_sizing_band(const struct dc_sizing_params *s, enum dc_regime *r)
{
    if (s->uncertainty[*r].rows == 0)
        *r = dc_regime_pool(*r);
    return s->uncertainty[*r];
}

/* on_prem: {usd_per_kwh, pue, amortization_years}, each {value, source}. */
static void load_on_prem(const struct dc__where *z, struct dc_sizing_params *s)
{
    static const char *const keys[] = {"usd_per_kwh", "pue", "amortization_years", NULL};
    const cJSON *op = dc__get_obj(z, "on_prem", true);
    if (op == NULL)
        return;
    struct dc__where o = dc__sub(z, op);
    dc__check_keys(&o, "sizing.on_prem", keys);
    s->usd_per_kwh = dc__get_param(&o, "usd_per_kwh", 0.001, 10);
    s->pue = dc__get_param(&o, "pue", 1, 5);
    s->amortization_years = dc__get_param(&o, "amortization_years", 0.5, 30);
}

void dc__load_sizing(struct dc__loader *L, dc_ruleset *rs, const char *file, const dc_yaml_doc *doc,
                     const cJSON *root)
{
    struct dc_sizing_params *s = &rs->sizing;
    struct dc__where w = {L, file, doc, NULL, root};
    static const char *const top[] = {"sizing", "scoring", NULL};
    if (!cJSON_IsObject(root)) {
        dc__diag(L, file, 1, NULL, "sizing.yaml must be a mapping with \"sizing\" and \"scoring\"");
        return;
    }
    dc__check_keys(&w, "sizing.yaml", top);
    const cJSON *sz = dc__get_obj(&w, "sizing", true);
    const cJSON *sc = dc__get_obj(&w, "scoring", true);
    if (sz != NULL) {
        static const char *const keys[] = {
            "memory_usable_fraction", "training", "inference",   "mfu",
            "precision_gain",         "on_prem",  "uncertainty", NULL};
        struct dc__where z = dc__sub(&w, sz);
        dc__check_keys(&z, "sizing", keys);
        s->memory_usable_fraction = dc__get_param(&z, "memory_usable_fraction", 0.1, 1.0);
        load_training_params(&z, s);
        load_inference_params(&z, s);
        load_mfu(&z, s);
        load_precision_gain(&z, s);
        load_on_prem(&z, s);
        load_uncertainty(&z, s);
    }
    if (sc != NULL)
        load_scoring(&w, sc, s);
}
