/* core/src/sizing/derive.c -- what a workload needs before any accelerator is
 * considered, by kind of model: its shape, FLOPs (attention included),
 * training state and activations, KV cache (grouped-query, latent, windowed),
 * the weights a step reads (experts, drafts) and whether the estimate is
 * good to within 3x at all (struct dc__derived). Owned by the model-registry
 * work (issue 16).
 *
 * The formulas are documented for users in docs/scoring.md (section 2, each
 * with its source); the per-accelerator sizing that reads them is
 * core/src/sizing/sizing.c. */
#include <math.h>
#include <string.h>

#include "ruleset_internal.h"
#include "sizing.h"

static enum dc__kind kind_of(const char *arch)
{
    static const struct {
        const char *arch;
        enum dc__kind kind;
    } kinds[] = {{"transformer", DC__KIND_DECODER}, {"moe", DC__KIND_DECODER},
                 {"encoder", DC__KIND_ENCODER},     {"encoder-decoder", DC__KIND_ENCODER_DECODER},
                 {"diffusion", DC__KIND_DIFFUSION}, {"cnn", DC__KIND_VISION},
                 {"vit", DC__KIND_VISION},          {"recommender", DC__KIND_RECOMMENDER}};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (strcmp(arch, kinds[i].arch) == 0)
            return kinds[i].kind;
    }
    return DC__KIND_OTHER;
}

/* ---- shape ------------------------------------------------------------------------ */

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
    d->heads = isfinite(w->attention_heads) ? w->attention_heads : fmax(d->hidden / 128.0, 1.0);
    d->head_dim = isfinite(w->head_dim) ? w->head_dim : d->hidden / d->heads;
    d->kv_heads_assumed = !isfinite(w->kv_heads) && strcmp(w->attention, "mla") != 0;
    d->kv_heads = isfinite(w->kv_heads) ? w->kv_heads : d->heads;
}

/* ---- attention ------------------------------------------------------------------- */

/* Layers that attend to the whole context and layers that attend to a window
 * (Mistral 7B: all windowed; Gemma 3: 5 of 6; gpt-oss: every other one). */
struct attn {
    double full_layers;
    double window_layers;
    double window;
};

static struct attn attention_layers(const struct dc_workload *w, double layers)
{
    struct attn a = {layers, 0, INFINITY};
    if (strcmp(w->attention, "sliding_window") != 0)
        return a;
    double full = isfinite(w->full_attention_every) ? floor(layers / w->full_attention_every) : 0;
    return (struct attn){full, layers - full, w->sliding_window};
}

/* Layer-positions cached at `ctx` tokens: a windowed layer keeps only its window. */
static double cached_positions(const struct attn *a, double ctx)
{
    return a->full_layers * ctx + a->window_layers * fmin(ctx, a->window);
}

/* Query-key pairs of a causal prompt of n tokens, summed over the layers:
 * token i attends to min(i, window) keys. */
static double prompt_pairs(const struct attn *a, double n)
{
    double w = a->window;
    double windowed = w < n ? w * (w + 1) / 2 + (n - w) * w : n * (n + 1) / 2;
    return a->full_layers * n * (n + 1) / 2 + a->window_layers * windowed;
}

/* FLOPs per query-key pair and layer: QK^T and attention x V, 2 FLOPs a
 * multiply-add over heads x head dim each (Kaplan et al. 2020, Table 1,
 * https://arxiv.org/abs/2001.08361, counts 2 x layers x context x d_attn a token
 * for the forward pass). */
static double pair_flops(const struct dc__derived *d)
{
    return 4.0 * d->heads * d->head_dim;
}

/* FLOPs per cached position and layer of one decode step's attention. MLA
 * decodes with its up-projections absorbed into the query and the output
 * (DeepSeek-V2, https://arxiv.org/abs/2405.04434, section 2.1.2): every
 * head scores the whole kv_latent_dim latent (576 in DeepSeek-V3) and sums
 * the latent as its values, 2 x 2 FLOPs a head and latent dimension; the
 * values skip the 64 rotary dimensions, about 6% this counts over. It is
 * why MLA decode is compute-bound where grouped-query decode reads memory
 * (FlashMLA, https://github.com/deepseek-ai/FlashMLA). Otherwise
 * pair_flops. */
static double decode_pair_flops(const struct dc_workload *w, const struct dc__derived *d)
{
    if (strcmp(w->attention, "mla") == 0 && isfinite(w->kv_latent_dim))
        return 4.0 * d->heads * w->kv_latent_dim;
    return pair_flops(d);
}

/* Forward FLOPs of a bidirectional encoder (a ViT's included) over n tokens:
 * 2 x dense parameters a token, plus attention over all n x n pairs in every
 * layer. */
static double encoder_flops(const struct dc__derived *d, double n)
{
    return 2.0 * d->dense_parameters * n + pair_flops(d) * d->layers * n * n;
}

/* Bytes one token's cache takes in one layer: K and V of every KV head
 * (F4.5), or MLA's one latent vector (DeepSeek-V2, https://arxiv.org/abs/2405.04434). */
static double kv_bytes_per_position(const struct dc_workload *w, const struct dc__derived *d,
                                    double bytes)
{
    if (strcmp(w->attention, "mla") == 0)
        return w->kv_latent_dim * bytes;
    return 2.0 * d->kv_heads * d->head_dim * bytes;
}

/* Architectures whose compute 2 x parameters a token or sample does not
 * describe (convolutions reuse weights across positions, diffusion runs the
 * network once a step, recommenders look rows up, graph networks gather):
 * without flops_per_sample their compute is a guess (F4.7 is for
 * transformers; an RNN or MLP does use each weight once a token or sample).
 * Where the guess could be off by more than 3x the estimate is withheld
 * instead (withheld_field), so the callers flag it rough only otherwise. */
static bool compute_guessed(const struct dc_workload *w, const struct dc__derived *d)
{
    return d->kind == DC__KIND_VISION || d->kind == DC__KIND_DIFFUSION ||
           d->kind == DC__KIND_RECOMMENDER || strcmp(w->architecture, "gnn") == 0 ||
           strcmp(w->architecture, "other") == 0;
}

/* ---- training --------------------------------------------------------------------- */

/* Weights, gradients and optimizer state of the whole job, by method (F4.1,
 * F4.6): full keeps mixed-precision Adam for every parameter; LoRA freezes the
 * base at the workload precision and trains small adapters; QLoRA stores the
 * frozen base in 4-bit NF4; DPO adds a frozen reference copy; RL adds the
 * reference and reward models, and for PPO a critic trained like the policy. */
static double training_state_gb(const struct dc_sizing_params *s, const struct dc_workload *w)
{
    double n = w->parameters;
    double full = s->state_bytes_per_parameter.value,
           frozen = s->infer_bytes_per_param[w->precision];
    double adapters = n * s->lora_adapter_fraction.value * full;
    switch (w->method) {
    case DC_METHOD_LORA:
        return (n * frozen + adapters) / DC__GB;
    case DC_METHOD_QLORA:
        return (n * s->qlora_bytes_per_parameter.value + adapters) / DC__GB;
    case DC_METHOD_DPO:
        return n * (full + frozen) / DC__GB;
    case DC_METHOD_RL: {
        double reward = w->rl_reward_parameters, critic = reward > 0 ? reward : n;
        return (n * full + (w->rl_reference ? n * frozen : 0) + reward * frozen +
                (w->rl_algorithm == DC_RL_PPO ? critic * full : 0)) /
               DC__GB;
    }
    case DC_METHOD_FULL:
        break;
    }
    return n * full / DC__GB;
}

/* FLOPs per token of one method's step, as multiples of the policy's forward
 * (2N): full 6N (F4.7); LoRA/QLoRA lora_flops_factor x N; DPO adds the
 * reference's forward (Rafailov et al. 2023, https://arxiv.org/abs/2305.18290);
 * RL adds the reference and reward forwards and, for PPO, the critic's
 * forward and backward (Ouyang et al. 2022, https://arxiv.org/abs/2203.02155). */
static double method_flops_per_token(const struct dc_sizing_params *s, const struct dc_workload *w,
                                     double n)
{
    switch (w->method) {
    case DC_METHOD_LORA:
    case DC_METHOD_QLORA:
        return s->lora_flops_factor.value * n;
    case DC_METHOD_DPO:
        return 8.0 * n;
    case DC_METHOD_RL: {
        double reward = w->rl_reward_parameters, critic = reward > 0 ? reward : n;
        return 6.0 * n + (w->rl_reference ? 2.0 * n : 0) + 2.0 * reward +
               (w->rl_algorithm == DC_RL_PPO ? 6.0 * critic : 0);
    }
    case DC_METHOD_FULL:
        break;
    }
    return 6.0 * n;
}

/* Forward FLOPs of attention over one sequence of n tokens, summed over the
 * layers: causal for a decoder (windowed where the model is), every pair for
 * an encoder. 6N per token counts none of it, and at long sequences it is a
 * large share of a step (Narayanan et al. 2021, eq. 3: the s/6h term,
 * https://arxiv.org/abs/2104.04473). */
static double attention_flops(const struct dc_workload *w, const struct dc__derived *d, double n)
{
    if (d->kind == DC__KIND_ENCODER)
        return pair_flops(d) * d->layers * n * n;
    if (d->kind != DC__KIND_DECODER)
        return 0;
    struct attn a = attention_layers(w, d->layers);
    return pair_flops(d) * prompt_pairs(&a, n);
}

/* The width of one routed expert's feed-forward layer, from the parameters a
 * token leaves unread: (parameters - active) / (experts - experts_per_token)
 * per expert, over its layers and the three matrices of a gated MLP (DeepSeek-V3:
 * 2,048; Qwen3-30B-A3B: 768; Mixtral: 14,336). NAN for a dense model or when
 * the experts are not given. */
static double expert_width(const struct dc_workload *w, const struct dc__derived *d)
{
    if (strcmp(w->architecture, "moe") != 0 || !(w->active_parameters < w->parameters) ||
        !isfinite(w->experts) || !(w->experts > w->experts_per_token))
        return NAN;
    double per_expert =
        (w->parameters - w->active_parameters) / (w->experts - w->experts_per_token);
    return per_expert / (d->layers * 3.0 * d->hidden);
}

/* Forward FLOPs of one sample where a model gives none: 2 x parameters for a
 * transformer encoder or ViT over its tokens plus attention, else unknown. */
static double vit_flops(const struct dc_workload *w, const struct dc__derived *d)
{
    if (strcmp(w->architecture, "vit") != 0 || !isfinite(w->tokens_per_sample) ||
        d->shape_estimated)
        return NAN;
    return encoder_flops(d, w->tokens_per_sample);
}

/* Recommender tables: fp32 rows with one row-wise Adagrad value each, 4 bytes
 * a parameter and 4 a row (TorchRec's fused EXACT_ROWWISE_ADAGRAD,
 * https://docs.pytorch.org/torchrec/); the dense part trains with Adam. */
static void recommender_training(const struct dc_sizing_params *s, const struct dc_workload *w,
                                 double samples, struct dc__derived *d)
{
    double tables = w->embedding_parameters, dense = w->parameters - tables;
    double dim = isfinite(w->embedding_dim) ? w->embedding_dim : INFINITY;
    d->state_gb =
        (dense * s->state_bytes_per_parameter.value + tables * (4.0 + 4.0 / dim)) / DC__GB;
    /* Each looked-up row is read forward, then read and written with its
     * optimizer state backward: three passes of dim x 4 bytes. */
    if (isfinite(w->lookups_per_sample) && isfinite(w->embedding_dim))
        d->training_bytes = 3.0 * samples * w->lookups_per_sample * w->embedding_dim * 4.0;
}

/* Values a sample's rows pool into: one row a table (DLRM sums each table's
 * rows), or, without embedding_tables, every looked-up row on its own. */
static double pooled_values(const struct dc_workload *w)
{
    if (!isfinite(w->lookups_per_sample) || !isfinite(w->embedding_dim))
        return 0;
    double rows = isfinite(w->embedding_tables) ? w->embedding_tables : w->lookups_per_sample;
    return rows * w->embedding_dim;
}

/* Model FLOPs of the run (6·N·D over the dense active parameters, F4.7, or
 * 3 x forward FLOPs x samples) by method; an RL step also generates rollouts,
 * rl_rollout_share of its time (RollPacker, https://arxiv.org/abs/2509.21009). */
static void derive_training(const struct dc_sizing_params *s, const struct dc_workload *w,
                            struct dc__derived *d)
{
    double samples = isfinite(w->samples) ? w->samples : w->tokens / w->sequence_length;
    d->samples = samples;
    double fps = isfinite(w->flops_per_sample) ? w->flops_per_sample : vit_flops(w, d);
    /* The method's multiple of the policy's forward pass (3 for full training;
     * RL and DPO count their other models' passes in proportion). */
    double n = d->dense_parameters;
    double passes = method_flops_per_token(s, w, n) / (2.0 * n);
    if (isfinite(fps)) {
        d->training_flops = passes * fps * samples;
    } else {
        d->training_flops = method_flops_per_token(s, w, d->dense_parameters) * w->tokens +
                            passes * attention_flops(w, d, w->sequence_length) * samples;
        d->flops_rough = compute_guessed(w, d) && d->withheld == NULL;
    }
    if (w->method == DC_METHOD_RL)
        d->training_flops /= 1.0 - w->rl_rollout_share;
    d->state_gb = training_state_gb(s, w);
    if (d->kind == DC__KIND_RECOMMENDER && w->embedding_parameters > 0) {
        recommender_training(s, w, samples, d);
        d->pooled_values = pooled_values(w);
    }
    /* Activations with full recomputation (F4.3): each layer keeps its 16-bit
     * input (checkpoint_bytes x s·b·h) and one layer at a time is recomputed
     * (layer_bytes x s·b·h; FlashAttention never stores the a·s² scores). */
    double sbh = w->sequence_length * s->micro_batch.value * d->hidden;
    d->activations_gb =
        sbh * (s->checkpoint_bytes.value * d->layers + s->layer_bytes.value) / DC__GB;
    d->memory_gb = d->state_gb + d->activations_gb;
}

/* ---- inference -------------------------------------------------------------------- */

double dc__served_weight_bytes(const struct dc_sizing_params *s, const struct dc_workload *w)
{
    switch (w->quantization) {
    case DC_QUANT_AWQ:
    case DC_QUANT_GPTQ:
    case DC_QUANT_NF4:
    case DC_QUANT_MXFP4:
        return s->infer_bytes_per_param[DC_PREC_INT4];
    case DC_QUANT_INT8:
        return s->infer_bytes_per_param[DC_PREC_INT8];
    case DC_QUANT_NONE:
        break;
    }
    return s->infer_bytes_per_param[w->precision];
}

/* The weights a decode step reads: a dense model all of them; a mixture of
 * experts its shared part and the routed experts its batch touches (with
 * uniform routing, 1 - (1 - k/E)^tokens of them, Mixtral's top-2 of 8,
 * https://arxiv.org/abs/2401.04088). */
static void decode_weights(const struct dc_workload *w, double bpp, struct dc__derived *d)
{
    double all = w->parameters * bpp, active = w->active_parameters * bpp;
    d->expert_share = NAN;
    d->expert_active_bytes = active;
    if (strcmp(w->architecture, "moe") != 0 || w->active_parameters >= w->parameters) {
        d->shared_weight_bytes = all;
        return;
    }
    if (!isfinite(w->experts) || w->experts <= w->experts_per_token) {
        /* The share is unknown: each token reads its own active part. */
        d->expert_weight_bytes = all;
        return;
    }
    /* One expert slot = the parameters the inactive experts hold, per expert. */
    double per_expert = (all - active) / (w->experts - w->experts_per_token);
    d->expert_weight_bytes = per_expert * w->experts;
    d->shared_weight_bytes = all - d->expert_weight_bytes;
    d->expert_share = w->experts_per_token / w->experts;
}

double dc__weights_gb(const struct dc_sizing_params *s, const struct dc_workload *w)
{
    double bpp = w->task == DC_TASK_INFERENCE ? dc__served_weight_bytes(s, w)
                                              : s->infer_bytes_per_param[w->precision];
    double draft = w->draft_tokens > 0 ? w->draft_parameters : 0;
    return (w->parameters + draft) * bpp / DC__GB;
}

double dc__step_weight_bytes(const struct dc__derived *d, double batch)
{
    double tokens = batch * d->tokens_per_request_step;
    double experts = 0;
    if (d->expert_weight_bytes > 0)
        experts = isfinite(d->expert_share)
                      ? d->expert_weight_bytes * (1.0 - pow(1.0 - d->expert_share, tokens))
                      : fmin(d->expert_weight_bytes, d->expert_active_bytes * tokens);
    return d->shared_weight_bytes + experts;
}

/* Speculative decoding (Leviathan et al. 2023, https://arxiv.org/abs/2211.17192):
 * with k drafted tokens each accepted with probability a, a target step yields
 * (1 - a^(k+1)) / (1 - a) tokens; it verifies k + 1 positions and the draft
 * runs k steps of its own. */
static void speculative(const struct dc_sizing_params *s, const struct dc_workload *w, double bpp,
                        struct dc__derived *d)
{
    double k = w->draft_tokens, a = w->acceptance_rate;
    /* The draft reads the prompt too before the first token (its own cache),
     * so the time to first token carries its prefill beside the model's. */
    d->flops_per_request +=
        2.0 * w->draft_parameters * w->input_tokens * (1.0 - w->prefix_cache_hit_rate);
    d->tokens_per_step = (1.0 - pow(a, k + 1)) / (1.0 - a);
    d->tokens_per_request_step = k + 1;
    d->decode_flops = (k + 1) * d->decode_flops + k * 2.0 * w->draft_parameters;
    d->decode_attn_flops *= k + 1;
    double draft_bytes = w->draft_parameters * bpp;
    d->shared_weight_bytes += k * draft_bytes;
    /* The draft's own cache: from its registry shape, else the shape rule. */
    double layers = w->draft_layers, per = 2.0 * w->draft_kv_heads * w->draft_head_dim;
    double hidden = w->draft_hidden;
    if (!isfinite(layers) || !isfinite(per) || !isfinite(hidden)) {
        hidden = cbrt(w->draft_parameters * 128.0 / 12.0);
        layers = fmax(hidden / 128.0, 1.0);
        per = 2.0 * hidden;
    }
    d->draft_layers = layers;
    d->draft_hidden = hidden;
    d->draft_steps = k;
    double draft_kv = layers * per * s->infer_bytes_per_param[w->kv_precision];
    d->kv_step_bytes += k * draft_kv * (w->input_tokens + w->output_tokens / 2.0);
    d->kv_cache_gb += draft_kv * w->context_tokens / DC__GB;
}

/* A decoder: prefill over the prompt (less the cached prefix), then decode
 * steps each reading the weights and the cache so far. */
static void decoder_serving(const struct dc_sizing_params *s, const struct dc_workload *w,
                            double bpp, struct dc__derived *d)
{
    struct attn a = attention_layers(w, d->layers);
    double per_pos = kv_bytes_per_position(w, d, s->infer_bytes_per_param[w->kv_precision]);
    double in = w->input_tokens, avg = in + w->output_tokens / 2.0;
    d->generative = w->output_tokens > 0;
    d->kv_cache_gb = per_pos * cached_positions(&a, w->context_tokens) / DC__GB;
    d->kv_step_bytes = per_pos * cached_positions(&a, avg);
    d->flops_per_request = (2.0 * d->dense_parameters * in + pair_flops(d) * prompt_pairs(&a, in)) *
                           (1.0 - w->prefix_cache_hit_rate);
    d->decode_attn_flops = decode_pair_flops(w, d) * cached_positions(&a, avg);
    d->decode_flops = 2.0 * d->dense_parameters + d->decode_attn_flops;
    decode_weights(w, bpp, d);
    if (w->draft_tokens > 0)
        speculative(s, w, bpp, d);
}

/* Encoder-decoder speech (Whisper, https://arxiv.org/abs/2212.04356): the
 * encoder reads the input frames once, bidirectionally (a 30 s clip is 1,500
 * frames); each decoder step computes with the decoder's parameters and
 * attends to its own tokens and to every encoder frame (cross-attention). The
 * cross-attention's K and V projections (two h x h matrices a decoder layer)
 * run once a clip over the encoder's frames and are cached per frame, so they
 * count with the encoder, not in each step's FLOPs or weight reads. Audio
 * longer than the encoder's window (tokens_per_sample: 1,500 frames, 30 s)
 * is transcribed window by window: attention stays within a window, and the
 * decoder attends to one window's frames and its share of the output. */
static void encoder_decoder_serving(const struct dc_sizing_params *s, const struct dc_workload *w,
                                    double bpp, struct dc__derived *d)
{
    double h = d->hidden, ffn = w->intermediate_size;
    d->ffn_assumed = !isfinite(ffn);
    if (d->ffn_assumed)
        ffn = 4.0 * h; /* Vaswani et al. 2017's width, https://arxiv.org/abs/1706.03762 */
    double enc_layers = isfinite(w->encoder_layers) ? w->encoder_layers : d->layers;
    double enc = fmin(enc_layers * (4.0 * h * h + 2.0 * h * ffn), 0.9 * w->parameters);
    double dec = w->parameters - enc, frames = w->input_tokens, out = w->output_tokens;
    double cross_kv = fmin(d->layers * 2.0 * h * h, 0.5 * dec);
    double per_pos = kv_bytes_per_position(w, d, s->infer_bytes_per_param[w->kv_precision]);
    double window = isfinite(w->tokens_per_sample) ? fmin(w->tokens_per_sample, frames) : frames;
    double windows = window > 0 ? ceil(frames / window) : 1.0;
    double win_out = out / windows; /* each window's share of the transcript */
    d->generative = out > 0;
    d->flops_per_request =
        2.0 * (enc + cross_kv) * frames + pair_flops(d) * enc_layers * windows * window * window;
    d->decode_flops = 2.0 * (dec - cross_kv) + pair_flops(d) * d->layers * (window + win_out / 2.0);
    d->kv_cache_gb = per_pos * d->layers * (window + win_out) / DC__GB;
    d->kv_step_bytes = per_pos * d->layers * (window + win_out / 2.0);
    d->shared_weight_bytes = (dec - cross_kv) * bpp;
    /* Whisper's encoder sees 50 frames a second of audio: 100 log-mel frames
     * (10 ms hop) halved by its stride-2 convolution, 1,500 a 30 s window
     * (Radford et al. 2022, section 2.2). */
    d->audio_seconds = frames / 50.0;
}

/* Whether a model without flops_per_sample can be timed at all: a CNN, a
 * diffusion model or a recommender cannot within 3x (issue: 100x low), so
 * its time and cost are withheld and the answer asks for the field. */
static void forward_flops(const struct dc_workload *w, struct dc__derived *d)
{
    double fps = isfinite(w->flops_per_sample) ? w->flops_per_sample : vit_flops(w, d);
    if (isfinite(fps)) {
        d->flops_per_request = fps;
        return;
    }
    /* An encoder over its input, bidirectional; anything else 2N a sample. */
    d->flops_per_request =
        d->kind == DC__KIND_ENCODER ? encoder_flops(d, w->input_tokens) : 2.0 * d->dense_parameters;
    d->flops_rough = compute_guessed(w, d) && d->withheld == NULL;
}

static void derive_inference(const struct dc_sizing_params *s, const struct dc_workload *w,
                             struct dc__derived *d)
{
    double bpp = dc__served_weight_bytes(s, w);
    d->tokens_per_step = 1;
    d->tokens_per_request_step = 1;
    if (d->kind == DC__KIND_DECODER) {
        decoder_serving(s, w, bpp, d);
    } else if (d->kind == DC__KIND_ENCODER_DECODER) {
        encoder_decoder_serving(s, w, bpp, d);
    } else {
        forward_flops(w, d);
        d->shared_weight_bytes = w->parameters * bpp;
    }
    if (d->kind == DC__KIND_DIFFUSION) {
        /* Steps x passes: classifier-free guidance runs the network on the
         * conditional and unconditional latents, as one batch of two (MLPerf's
         * SDXL concatenates them, text_to_image/backend_pytorch.py in
         * github.com/mlcommons/inference), so a step computes twice and reads
         * its weights once. */
        double passes = isfinite(w->guidance_passes) ? w->guidance_passes : 1.0;
        d->guidance_assumed = !isfinite(w->guidance_passes);
        double steps = isfinite(w->denoising_steps) ? w->denoising_steps : 1.0;
        d->flops_per_request *= steps * passes;
        d->shared_weight_bytes *= steps;
        /* The latents are decoded into pixels once, after the last step (the
         * VAE decoder: SDXL's 10.47 TFLOPs at 1024 x 1024, rules/models.yaml),
         * at the network's rate; its weights (under 0.1B parameters) are not
         * counted. */
        if (isfinite(w->vae_flops_per_sample))
            d->flops_per_request += w->vae_flops_per_sample;
    }
    if (d->kind == DC__KIND_RECOMMENDER && w->embedding_parameters > 0) {
        /* A batch reads the dense part and only the table rows it looks up. */
        d->shared_weight_bytes = (w->parameters - w->embedding_parameters) * bpp;
        d->lookups_assumed = !isfinite(w->lookups_per_sample);
        if (!d->lookups_assumed)
            d->lookup_bytes = w->lookups_per_sample * w->embedding_dim * bpp;
        d->pooled_values = pooled_values(w);
    }
    d->decode_steps = d->generative ? w->output_tokens / d->tokens_per_step : 0;
    if (d->generative && w->context_tokens > 0)
        d->kv_bytes_per_token = d->kv_cache_gb * DC__GB / w->context_tokens;
    double batch = isfinite(w->batch_size) ? w->batch_size : 1.0;
    d->memory_gb = d->weights_gb * s->infer_overhead.value + d->kv_cache_gb * batch;
}

/* The field without which time and cost would be off by more than 3x, or NULL. */
static const char *withheld_field(const struct dc_workload *w, const struct dc__derived *d)
{
    bool fps = isfinite(w->flops_per_sample) || isfinite(vit_flops(w, d));
    switch (d->kind) {
    case DC__KIND_VISION:
        return fps ? NULL : "model.flops_per_sample";
    case DC__KIND_DIFFUSION:
        if (!fps)
            return "model.flops_per_sample";
        return w->task == DC_TASK_INFERENCE && !isfinite(w->denoising_steps)
                   ? "model.denoising_steps"
                   : NULL;
    case DC__KIND_RECOMMENDER:
        if (w->embedding_parameters <= 0)
            return "model.embedding_parameters";
        return fps ? NULL : "model.flops_per_sample";
    default:
        return NULL;
    }
}

void dc__derive(const dc_ruleset *rs, const struct dc_workload *w, struct dc__derived *d)
{
    static const double bits[DC_PREC_COUNT] = {64, 32, 16, 16, 8, 4, 8, 4};
    const struct dc_sizing_params *s = &rs->sizing;
    memset(d, 0, sizeof(*d));
    d->kind = kind_of(w->architecture);
    d->precision_bits = bits[w->precision];
    d->dense_parameters = fmax(w->active_parameters - w->embedding_parameters, 1.0);
    derive_shape(w, d);
    double bpp = w->task == DC_TASK_INFERENCE ? dc__served_weight_bytes(s, w)
                                              : s->infer_bytes_per_param[w->precision];
    d->weights_gb = dc__weights_gb(s, w);
    d->active_weights_gb = w->active_parameters * bpp / DC__GB;
    d->withheld = withheld_field(w, d);
    d->h100_days = 0;
    d->expert_width = expert_width(w, d);
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
