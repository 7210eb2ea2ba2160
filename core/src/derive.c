/* core/src/derive.c -- what a workload needs before any accelerator is
 * considered: the model's shape, its FLOPs, its training state and
 * activations, its KV cache and weights (struct dc__derived).
 *
 * The formulas are documented for users in docs/scoring.md (section 2); the
 * per-accelerator sizing that reads them is core/src/sizing.c. */
#include <math.h>
#include <string.h>

#include "ruleset_internal.h"
#include "sizing.h"

static bool in_list(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i] != NULL; i++) {
        if (strcmp(s, list[i]) == 0)
            return true;
    }
    return false;
}

/* Architectures that generate output one token at a time from a KV cache. */
static bool has_kv_cache(const char *arch)
{
    static const char *const kv[] = {"transformer", "moe", NULL};
    return in_list(arch, kv);
}

/* Architectures where 6·N·D does not describe the compute (F4.7 is for
 * transformers): convolutions reuse weights across positions, recommenders
 * look up embedding rows, diffusion runs the network once per step. */
static bool needs_flops_per_sample(const char *arch)
{
    static const char *const rough[] = {"cnn", "gnn", "diffusion", "recommender", NULL};
    return in_list(arch, rough);
}

/* ---- workload-level quantities ---------------------------------------------- */

/* The transformer shape: given, or estimated from the dense parameters with the
 * usual depth/width ratio (hidden ~ 128 x layers, N ~ 12 x layers x hidden^2,
 * which gives OPT-13B's 800 KB of KV cache per token within 5%). Heads default
 * to a head dimension of 128, the common choice of GPT-3, Llama and Mistral. */
static void derive_shape(const struct dc_workload *w, struct dc__derived *d)
{
    double n = d->dense_parameters;
    double layers = w->layers, hidden = w->hidden_size;
    d->shape_estimated = !(isfinite(layers) && isfinite(hidden));
    if (!isfinite(layers) && !isfinite(hidden)) {
        hidden = cbrt(n * 128.0 / 12.0);
        layers = hidden / 128.0;
    } else if (!isfinite(layers)) {
        layers = n / (12.0 * hidden * hidden);
    } else if (!isfinite(hidden)) {
        hidden = sqrt(n / (12.0 * layers));
    }
    d->layers = fmax(layers, 1.0);
    d->hidden = fmax(hidden, 1.0);
    double heads = isfinite(w->attention_heads) ? w->attention_heads : fmax(d->hidden / 128.0, 1.0);
    d->head_dim = d->hidden / heads;
    d->kv_heads_assumed = !isfinite(w->kv_heads);
    d->kv_heads = d->kv_heads_assumed ? heads : w->kv_heads;
}

/* Weights, gradients and optimizer state of the whole job, by method (F4.1,
 * F4.6): full keeps mixed-precision Adam for every parameter; LoRA freezes the
 * base at the workload precision and trains small adapters; QLoRA stores the
 * frozen base in 4-bit NF4. */
static double training_state_gb(const struct dc_sizing_params *s, const struct dc_workload *w)
{
    double n = w->parameters;
    double adapters = n * s->lora_adapter_fraction.value * s->state_bytes_per_parameter.value;
    switch (w->method) {
    case DC_METHOD_LORA:
        return (n * s->infer_bytes_per_param[w->precision] + adapters) / DC__GB;
    case DC_METHOD_QLORA:
        return (n * s->qlora_bytes_per_parameter.value + adapters) / DC__GB;
    case DC_METHOD_FULL:
        break;
    }
    return n * s->state_bytes_per_parameter.value / DC__GB;
}

/* Model FLOPs of the run: 6·N·D over the dense active parameters (F4.7), or
 * 3 x forward FLOPs x samples; LoRA and QLoRA skip the weight gradients of the
 * frozen base (lora_flops_factor of 6 per parameter and token). */
static void derive_training(const struct dc_sizing_params *s, const struct dc_workload *w,
                            struct dc__derived *d)
{
    double method_share = w->method == DC_METHOD_FULL ? 1.0 : s->lora_flops_factor.value / 6.0;
    if (isfinite(w->flops_per_sample)) {
        double samples = isfinite(w->samples) ? w->samples : w->tokens / w->sequence_length;
        d->training_flops = 3.0 * w->flops_per_sample * samples * method_share;
    } else {
        d->training_flops = 6.0 * d->dense_parameters * w->tokens * method_share;
        d->flops_rough = needs_flops_per_sample(w->architecture);
    }
    d->state_gb = training_state_gb(s, w);
    /* Activations with full recomputation (F4.3): each layer keeps its 16-bit
     * input (checkpoint_bytes x s·b·h) and one layer at a time is recomputed
     * (layer_bytes x s·b·h; FlashAttention never stores the a·s² scores). */
    double sbh = w->sequence_length * s->micro_batch.value * d->hidden;
    d->activations_gb =
        sbh * (s->checkpoint_bytes.value * d->layers + s->layer_bytes.value) / DC__GB;
    d->memory_gb = d->state_gb + d->activations_gb;
}

static void derive_inference(const struct dc_sizing_params *s, const struct dc_workload *w,
                             struct dc__derived *d)
{
    d->generative = has_kv_cache(w->architecture) && w->output_tokens > 0;
    /* KV cache (F4.5): 2 x layers x KV heads x head dim x bytes per element. */
    if (has_kv_cache(w->architecture))
        d->kv_bytes_per_token =
            2.0 * d->layers * d->kv_heads * d->head_dim * s->infer_bytes_per_param[w->kv_precision];
    d->kv_cache_gb = d->kv_bytes_per_token * w->context_tokens / DC__GB;
    if (isfinite(w->flops_per_sample)) {
        d->flops_per_request = w->flops_per_sample;
    } else if (has_kv_cache(w->architecture)) {
        d->flops_per_request = 2.0 * d->dense_parameters * w->input_tokens; /* F4.7 forward */
    } else {
        d->flops_per_request = 2.0 * d->dense_parameters;
        d->flops_rough = needs_flops_per_sample(w->architecture);
    }
    double batch = isfinite(w->batch_size) ? w->batch_size : 1.0;
    d->memory_gb = d->weights_gb * s->infer_overhead.value + d->kv_cache_gb * batch;
}

void dc__derive(const dc_ruleset *rs, const struct dc_workload *w, struct dc__derived *d)
{
    static const double bits[DC_PREC_COUNT] = {64, 32, 16, 16, 8, 4, 8, 4};
    const struct dc_sizing_params *s = &rs->sizing;
    memset(d, 0, sizeof(*d));
    d->precision_bits = bits[w->precision];
    d->dense_parameters = fmax(w->active_parameters - w->embedding_parameters, 1.0);
    derive_shape(w, d);
    double bpp = s->infer_bytes_per_param[w->precision];
    d->weights_gb = w->parameters * bpp / DC__GB;
    d->active_weights_gb = w->active_parameters * bpp / DC__GB;
    d->h100_days = 0;
    if (w->task == DC_TASK_INFERENCE) {
        derive_inference(s, w, d);
        return;
    }
    derive_training(s, w, d);
    d->h100_days = NAN;
    const struct dc_accelerator *h100 = dc_ruleset_find_accelerator(rs, "h100");
    double rate = h100 != NULL ? dc__compute_peak(rs, h100, DC_PREC_BF16) : NAN;
    if (isfinite(rate))
        d->h100_days = d->training_flops / (rate * s->mfu_training[DC_FAMILY_GPU]) / 86400.0;
}
