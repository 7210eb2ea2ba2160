/* api/src/convert.c -- core objects as the contract's JSON bodies
 * (openapi.yaml: Recommendation, Accelerator, AcceleratorList, RuleList) and
 * (the CLI table is result_table.c).
 *
 * Each body is written once, straight to text, with the streaming writer
 * (api/jsonw.h): the server sends that text as it is. The cJSON forms parse
 * it back, for the callers that want a tree. */
#include "api/convert.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/jsonw.h"
#include "dc/numfmt.h"
#include "explain_render.h"
#include "dc/explain.h"

/* Expected body sizes, so the buffer rarely grows. */
#define RESULT_HINT  24576
#define CATALOG_HINT 16384
#define RULES_HINT   65536
/* Room for a target's message (dc_target_text). */
#define TARGET_TEXT_MAX 512

/* The length of the last result body of each view written, by any thread:
 * the next one starts with room for it and a sixteenth more, so the buffer is allocated
 * once instead of growing (and copying) from RESULT_HINT each time. */
static _Atomic size_t last_result_len[2]; /* [summary] */

static size_t result_hint(bool summary)
{
    size_t last = atomic_load_explicit(&last_result_len[summary], memory_order_relaxed);
    size_t hint = last + last / 16;
    return hint > RESULT_HINT && hint < API_JW_MAX_BYTES ? hint : RESULT_HINT;
}

/* A candidate's missed targets whose message is a reason's text
 * (dc_target_reason_id): where the body holds each, so that the reason of
 * the same rule, written after the targets, copies it instead of building
 * the same text again. */
struct target_texts {
    size_t n;
    struct target_texts_kept {
        const char *rule_id;
        size_t off, len; /* the message's quoted text in the body */
    } k[DC_MAX_TARGETS];
};

/* The kept text of a computed reason's rule, or NULL. */
static const struct target_texts *target_text_of(const struct target_texts *tt,
                                                 const struct dc_reason *r, size_t *at)
{
    for (size_t i = 0; tt != NULL && r->message == NULL && i < tt->n; i++) {
        if (strcmp(tt->k[i].rule_id, r->rule_id) == 0) {
            *at = i;
            return tt;
        }
    }
    return NULL;
}

/* A reason's or a target's message, its text formatted straight into the
 * body (api_jw_text_begin): built once, never copied from a buffer, or
 * copied from the body where a missed target already wrote it (tt). */
static void write_reason_message(struct api_jw *w, const struct dc_result *res,
                                 const struct dc_candidate *c, const struct dc_reason *r,
                                 const struct target_texts *tt)
{
    API_JW_KEY(w, "message");
    size_t i = 0;
    if (target_text_of(tt, r, &i) != NULL) {
        api_jw_repeat(w, tt->k[i].off, tt->k[i].len);
        return;
    }
    char *at = api_jw_text_begin(w, DC_REASON_TEXT_MAX);
    if (at == NULL)
        return;
    const char *text = dc_reason_text(res, c, r, at, DC_REASON_TEXT_MAX);
    api_jw_text_end(w, text, strlen(text));
}

/* Display fields (costs, hours) keep the 4 significant digits every text is
 * formatted from (dc/numfmt.h), so bodies show no 17-digit noise and the text
 * beside a number always agrees with it: rounded and printed in one step
 * (api_jw_number_sig). */
#define key_round4(w, k, d) API_JW_MEMBER_SIG(w, k, d, DC_JSON_SIGNIFICANT)

/* A member whose key is a string literal (API_JW_KEY: its text is made at
 * compile time) and its value. */
#define key_string(w, k, s)         API_JW_MEMBER_STRING(w, k, s)
#define key_number(w, k, d)         API_JW_MEMBER_NUMBER(w, k, d)
#define key_bool(w, k, b)           API_JW_MEMBER_BOOL(w, k, b)
#define key_string_or_null(w, k, s) API_JW_MEMBER_STRING_OR_NULL(w, k, s)

/* The price behind a cloud cost: which offer, how many of its instances, and
 * what they cost on the workload's basis. A per-chip TPU offer rents the
 * shape's slices, so those are its instances. */
static void write_offer_price(struct api_jw *w, const struct dc_offer *o, enum dc_pricing p,
                              const struct dc_sizing *z)
{
    bool per_chip = o->accelerators == 0;
    unsigned per_instance = per_chip ? z->shape.per_unit : o->accelerators;
    const char *type = per_chip && z->shape.slice != NULL ? z->shape.slice : o->instance_type;
    api_jw_object(w);
    key_string(w, "kind", "cloud");
    key_string(w, "pricing", dc_pricing_name(p));
    key_string(w, "provider", dc_provider_name(o->provider));
    key_string(w, "region", o->region);
    key_string(w, "instance_type", type);
    key_number(w, "instances", z->instances);
    key_number(w, "accelerators_per_instance", per_instance);
    key_number(w, "usd_per_instance_hour", o->price[p].usd_per_chip_hour * per_instance);
    key_number(w, "usd_per_chip_hour", o->price[p].usd_per_chip_hour);
    key_string(w, "as_of", o->price[p].as_of);
    key_string(w, "source", o->source);
    key_string_or_null(w, "via", o->via);
    key_string(w, "confidence", o->low_confidence ? "low" : "high");
    api_jw_object_end(w);
}

/* On premises: the hardware list price amortised, plus energy. */
static void write_on_prem_price(struct api_jw *w, const struct dc_accelerator *a, double rate)
{
    static const char *const none[] = {"provider",
                                       "region",
                                       "instance_type",
                                       "instances",
                                       "accelerators_per_instance",
                                       "usd_per_instance_hour"};
    api_jw_object(w);
    key_string(w, "kind", "on_prem");
    API_JW_KEY(w, "pricing");
    api_jw_null(w);
    for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
        api_jw_key(w, none[i]);
        api_jw_null(w);
    }
    key_number(w, "usd_per_chip_hour", rate);
    key_string(w, "as_of", a->list_price_as_of);
    key_string(w, "source", a->list_price_source);
    key_string_or_null(w, "via", NULL);
    key_string(w, "confidence", "high");
    api_jw_object_end(w);
}

static void write_candidate_price(struct api_jw *w, const struct dc_result *res,
                                  const struct dc_candidate *c)
{
    const struct dc_sizing *z = &c->sizing;
    API_JW_KEY(w, "price");
    switch (z->cost_basis) {
    case DC_COST_CLOUD:
        write_offer_price(w, z->offer, res->workload.pricing, z);
        return;
    case DC_COST_ON_PREM:
        write_on_prem_price(w, c->acc, z->usd_per_chip_hour);
        return;
    case DC_COST_UNKNOWN:
        break;
    }
    api_jw_null(w);
}

/* One offer as the catalog lists it: what is rented and each basis's price. */
static void write_offer(struct api_jw *w, const struct dc_offer *o)
{
    api_jw_object(w);
    key_string(w, "provider", dc_provider_name(o->provider));
    key_string(w, "region", o->region);
    key_string(w, "instance_type", o->instance_type);
    API_JW_KEY(w, "accelerators_per_instance");
    if (o->accelerators > 0)
        api_jw_number(w, o->accelerators);
    else
        api_jw_null(w);
    key_number(w, "vcpus", o->vcpus);
    key_number(w, "memory_gb", o->memory_gb);
    key_string(w, "source", o->source);
    key_string_or_null(w, "via", o->via);
    key_string(w, "confidence", o->low_confidence ? "low" : "high");
    API_JW_KEY(w, "prices");
    api_jw_object(w);
    for (size_t p = 0; p < DC_PRICING_COUNT; p++) {
        const struct dc_price *pr = &o->price[p];
        api_jw_key(w, dc_pricing_name((enum dc_pricing)p));
        if (!isfinite(pr->usd_per_chip_hour)) {
            api_jw_null(w);
            continue;
        }
        api_jw_object(w);
        key_number(w, "usd_per_hour", pr->usd_per_hour);
        key_number(w, "usd_per_chip_hour", pr->usd_per_chip_hour);
        key_string(w, "as_of", pr->as_of);
        api_jw_object_end(w);
    }
    api_jw_object_end(w);
    api_jw_object_end(w);
}

/* Why a provider that the catalog lists for `a` rents it at no public price,
 * one {provider, reason} per provider prices.yaml states it for. */
static void write_unpriced_providers(struct api_jw *w, const struct dc_accelerator *a)
{
    API_JW_KEY(w, "unpriced_providers");
    api_jw_array(w);
    for (unsigned p = 0; p < DC_PROVIDER_COUNT; p++) {
        if (a->unpriced_provider_reason[p] == NULL)
            continue;
        api_jw_object(w);
        key_string(w, "provider", dc_provider_name((enum dc_provider)p));
        key_string(w, "reason", a->unpriced_provider_reason[p]);
        api_jw_object_end(w);
    }
    api_jw_array_end(w);
}

/* Catalog view: every public offer with each basis it is priced on, the
 * cheapest on-demand one per chip-hour as `price`, why a part has none (or
 * none from a provider), and the hardware list price. */
static void write_offers(struct api_jw *w, const struct dc_accelerator *a)
{
    const struct dc_offer *cheapest = dc_cheapest_offer(a, DC_PRICING_ON_DEMAND, 0);
    API_JW_KEY(w, "price");
    if (cheapest != NULL) {
        struct dc_sizing one = {0};
        one.shape =
            (struct dc_shape){1, cheapest->accelerators > 0 ? cheapest->accelerators : 1, NULL};
        one.instances = 1;
        write_offer_price(w, cheapest, DC_PRICING_ON_DEMAND, &one);
    } else {
        api_jw_null(w);
    }
    key_string_or_null(w, "unpriced_reason", a->unpriced_reason);
    write_unpriced_providers(w, a);
    API_JW_KEY(w, "offers");
    api_jw_array(w);
    for (size_t i = 0; i < a->n_offers; i++)
        write_offer(w, &a->offers[i]);
    api_jw_array_end(w);
    API_JW_KEY(w, "list_price");
    if (isfinite(a->list_price_usd)) {
        api_jw_object(w);
        key_number(w, "usd_per_chip", a->list_price_usd);
        key_string(w, "as_of", a->list_price_as_of);
        key_string(w, "source", a->list_price_source);
        api_jw_object_end(w);
    } else {
        api_jw_null(w);
    }
}

/* An optional number: written only when the request gave it. */
#define key_optional(w, k, d)                                                                      \
    do {                                                                                           \
        double v_ = (d);                                                                           \
        if (isfinite(v_)) {                                                                        \
            key_number(w, k, v_);                                                                  \
        }                                                                                          \
    } while (0)

/* The architecture beyond the counts: each field when given or read from the
 * registry (model.name). */
static void write_model_shape(struct api_jw *w, const struct dc_workload *wl)
{
    key_optional(w, "head_dim", wl->head_dim);
    key_optional(w, "intermediate_size", wl->intermediate_size);
    key_optional(w, "context_length", wl->context_length);
    key_string(w, "attention", wl->attention);
    key_optional(w, "sliding_window", wl->sliding_window);
    key_optional(w, "full_attention_every", wl->full_attention_every);
    key_optional(w, "kv_latent_dim", wl->kv_latent_dim);
    key_optional(w, "experts", wl->experts);
    key_optional(w, "experts_per_token", wl->experts_per_token);
    key_optional(w, "encoder_layers", wl->encoder_layers);
    key_optional(w, "tokens_per_sample", wl->tokens_per_sample);
    key_optional(w, "denoising_steps", wl->denoising_steps);
    key_optional(w, "guidance_passes", wl->guidance_passes);
    key_optional(w, "vae_flops_per_sample", wl->vae_flops_per_sample);
    key_optional(w, "embedding_dim", wl->embedding_dim);
    key_optional(w, "lookups_per_sample", wl->lookups_per_sample);
}

static void write_model(struct api_jw *w, const struct dc_workload *wl)
{
    API_JW_KEY(w, "model");
    api_jw_object(w);
    if (wl->model_name != NULL)
        key_string(w, "name", wl->model_name);
    key_string(w, "architecture", wl->architecture);
    key_number(w, "parameters", wl->parameters);
    key_number(w, "active_parameters", wl->active_parameters);
    key_number(w, "embedding_parameters", wl->embedding_parameters);
    key_optional(w, "flops_per_sample", wl->flops_per_sample);
    key_bool(w, "custom_ops", wl->custom_ops);
    key_bool(w, "dynamic_shapes", wl->dynamic_shapes);
    key_bool(w, "sparse_embeddings", wl->sparse_embeddings);
    key_string(w, "compute_pattern", wl->compute_pattern);
    key_optional(w, "layers", wl->layers);
    key_optional(w, "hidden_size", wl->hidden_size);
    key_optional(w, "attention_heads", wl->attention_heads);
    key_optional(w, "kv_heads", wl->kv_heads);
    write_model_shape(w, wl);
    api_jw_object_end(w);
}

static void write_rl(struct api_jw *w, const struct dc_workload *wl)
{
    API_JW_KEY(w, "rl");
    api_jw_object(w);
    key_string(w, "algorithm", wl->rl_algorithm == DC_RL_PPO ? "ppo" : "grpo");
    key_bool(w, "reference_model", wl->rl_reference);
    key_number(w, "reward_model_parameters", wl->rl_reward_parameters);
    key_number(w, "rollout_share", wl->rl_rollout_share);
    api_jw_object_end(w);
}

/* Speculative decoding and an offline job, when the request asked for them. */
static void write_serving_modes(struct api_jw *w, const struct dc_workload *wl)
{
    key_number(w, "prefix_cache_hit_rate", wl->prefix_cache_hit_rate);
    key_bool(w, "audio_decoded", wl->audio_decoded);
    if (wl->draft_tokens > 0) {
        API_JW_KEY(w, "speculative");
        api_jw_object(w);
        if (wl->draft_name != NULL)
            key_string(w, "draft_model", wl->draft_name);
        else
            key_number(w, "draft_parameters", wl->draft_parameters);
        key_number(w, "draft_tokens", wl->draft_tokens);
        key_number(w, "acceptance_rate", wl->acceptance_rate);
        api_jw_object_end(w);
    }
    if (wl->job_requests > 0) {
        API_JW_KEY(w, "job");
        api_jw_object(w);
        if (isfinite(wl->job_tokens))
            key_number(w, "tokens", wl->job_tokens);
        else
            key_number(w, "requests", wl->job_requests);
        key_number(w, "deadline_hours", wl->job_deadline_hours);
        api_jw_object_end(w);
    }
}

static void write_task_section(struct api_jw *w, const struct dc_workload *wl)
{
    static const char *const methods[] = {"full", "lora", "qlora", "dpo", "rl"};
    if (wl->task != DC_TASK_INFERENCE) {
        API_JW_KEY(w, "training");
        api_jw_object(w);
        key_number(w, "tokens", wl->tokens);
        key_optional(w, "samples", wl->samples);
        key_number(w, "sequence_length", wl->sequence_length);
        key_string(w, "method", methods[wl->method]);
        key_number(w, "global_batch_size", wl->global_batch_size);
        key_optional(w, "deadline_hours", wl->deadline_hours);
        key_bool(w, "input_bound", wl->input_bound);
        if (wl->method == DC_METHOD_RL)
            write_rl(w, wl);
        api_jw_object_end(w);
        return;
    }
    API_JW_KEY(w, "inference");
    api_jw_object(w);
    key_number(w, "requests_per_second", wl->requests_per_second);
    key_optional(w, "latency_ms_p99", wl->latency_ms_p99);
    key_number(w, "context_tokens", wl->context_tokens);
    key_number(w, "input_tokens", wl->input_tokens);
    key_number(w, "output_tokens", wl->output_tokens);
    key_optional(w, "batch_size", wl->batch_size);
    key_string(w, "kv_cache_precision", dc_precision_name(wl->kv_precision));
    write_serving_modes(w, wl);
    api_jw_object_end(w);
}

static void write_workload(struct api_jw *w, const dc_ruleset *rs, const struct dc_workload *wl)
{
    API_JW_KEY(w, "workload");
    api_jw_object(w);
    if (wl->name != NULL)
        key_string(w, "name", wl->name);
    key_string(w, "task", dc_task_name(wl->task));
    key_string(w, "framework", wl->framework);
    key_string(w, "stage", wl->stage);
    write_model(w, wl);
    key_string(w, "precision", dc_workload_precision(wl));
    static const char *const quantizations[] = {"none", "awq", "gptq", "nf4", "mxfp4", "int8"};
    key_string(w, "quantization", quantizations[wl->quantization]);
    write_task_section(w, wl);
    API_JW_KEY(w, "constraints");
    api_jw_object(w);
    key_string(w, "deployment", dc_deployment_name(wl->deployment));
    API_JW_KEY(w, "providers");
    api_jw_array(w);
    for (unsigned i = 0; i < DC_PROVIDER_COUNT; i++) {
        if (wl->providers & (1u << i))
            api_jw_string(w, dc_provider_name((enum dc_provider)i));
    }
    api_jw_array_end(w);
    key_optional(w, "budget_usd", wl->budget_usd);
    key_optional(w, "max_accelerators", wl->max_accelerators);
    key_string(w, "pricing", dc_pricing_name(wl->pricing));
    key_bool(w, "portable", wl->portable);
    key_bool(w, "fleet_only", wl->fleet_only);
    if (wl->n_allowed > 0) {
        API_JW_KEY(w, "accelerators");
        api_jw_array(w);
        for (size_t i = 0; i < wl->n_allowed; i++)
            api_jw_string(w, dc_ruleset_accelerator(rs, wl->allowed[i])->id);
        api_jw_array_end(w);
    }
    api_jw_object_end(w);
    API_JW_KEY(w, "team");
    api_jw_object(w);
    key_string(w, "cuda_experience", wl->cuda_experience);
    key_string(w, "xla_experience", wl->xla_experience);
    api_jw_object_end(w);
    key_string(w, "objective", dc_objective_name(wl->objective));
    key_bool(w, "prefer_available", wl->prefer_available);
    api_jw_object_end(w);
}

/* A figure's band: {"p10": x, "p90": y}, or null when it has none (the
 * member's key written by the caller, a literal: write_band). */
static void write_band_value(struct api_jw *w, const struct dc_band *b)
{
    if (!isfinite(b->p10) || !isfinite(b->p90)) {
        api_jw_null(w);
        return;
    }
    api_jw_object(w);
    key_round4(w, "p10", b->p10);
    key_round4(w, "p90", b->p90);
    api_jw_object_end(w);
}

#define write_band(w, k, b) (API_JW_KEY(w, k), write_band_value((w), (b)))

/* The p10-p90 band of each figure, and the calibration regime behind it
 * (docs/calibration.md, "Stated uncertainty"). */
static void write_buying(struct api_jw *w, const struct dc_sizing *z);

static void write_uncertainty(struct api_jw *w, const struct dc_uncertainty *u)
{
    API_JW_KEY(w, "uncertainty");
    api_jw_object(w);
    key_string(w, "regime", dc_regime_name(u->regime));
    key_number(w, "rows", u->rows);
    key_string(w, "latency_regime", dc_regime_name(u->latency_regime));
    key_number(w, "latency_rows", u->latency_rows);
    write_band(w, "hours", &u->hours);
    write_band(w, "cost_usd", &u->cost_usd);
    write_band(w, "throughput_rps", &u->throughput_rps);
    write_band(w, "tokens_per_second", &u->tokens_per_second);
    write_band(w, "decode_ms", &u->decode_ms);
    write_band(w, "request_ms", &u->request_ms);
    api_jw_object_end(w);
}

/* The period every cost_usd of a result covers (the candidates' sizing and the
 * frontier), as the core prices it (core/src/reasons/reasons.c, dc__cost_period): a training
 * run, a batch inference job (job_requests), or a month of serving. */
static const char *cost_unit_name(const struct dc_result *res)
{
    if (res->workload.task != DC_TASK_INFERENCE)
        return "usd_per_run";
    return res->workload.job_requests > 0 ? "usd_per_job" : "usd_per_month";
}

static void write_sizing(struct api_jw *w, const struct dc_result *res,
                         const struct dc_candidate *c)
{
    const struct dc_sizing *z = &c->sizing;
    char shape[96];
    API_JW_KEY(w, "sizing");
    api_jw_object(w);
    key_string(w, "basis", dc_chips_basis_name(z->basis));
    key_string(w, "shape", dc_shape_format(c->acc, &z->shape, shape, sizeof(shape)));
    key_round4(w, "memory_need_gb", z->memory_need_gb);
    key_round4(w, "memory_per_chip_gb", z->memory_per_chip_gb);
    key_number(w, "chips_for_memory", z->chips_for_memory);
    key_number(w, "chips", z->chips);
    key_number(w, "replicas", z->replicas);
    key_number(w, "chips_per_replica", z->chips_per_replica);
    key_bool(w, "fits", z->fits);
    key_number(w, "peak_tflops", z->peak_tflops);
    key_round4(w, "mfu", z->mfu);
    key_round4(w, "scale_efficiency", z->scale_efficiency);
    key_round4(w, "hours", z->hours);
    key_round4(w, "cost_usd", z->cost_usd);
    key_string(w, "cost_unit", cost_unit_name(res));
    key_round4(w, "cost_per_hour_usd", z->cost_per_hour_usd);
    static const char *const cost_basis[] = {"unknown", "cloud", "on_prem"};
    key_string(w, "cost_basis", cost_basis[z->cost_basis]);
    key_round4(w, "energy_usd", z->energy_usd);
    key_number(w, "batch_per_replica", z->batch_per_replica);
    key_round4(w, "prefill_ms", z->prefill_ms);
    key_round4(w, "decode_ms", z->decode_ms);
    key_round4(w, "request_ms", z->request_ms);
    key_round4(w, "throughput_rps", z->throughput_rps);
    key_round4(w, "tokens_per_second", z->tokens_per_second);
    key_string_or_null(w, "bound",
                       !isfinite(z->decode_ms) ? NULL
                       : z->compute_bound      ? "compute"
                                               : "memory-bandwidth");
    key_bool(w, "meets_deadline", z->meets_deadline);
    key_bool(w, "meets_latency", z->meets_latency);
    key_bool(w, "meets_rate", z->meets_rate);
    key_bool(w, "within_budget", z->within_budget);
    key_string_or_null(w, "estimate_withheld", z->estimate_withheld);
    write_uncertainty(w, &z->uncertainty);
    write_buying(w, z);
    api_jw_object_end(w);
}

/* A training run's machines, whether they can be had at once
 * (core/src/sizing/buying.c) and its fixed costs (core/src/sizing/overheads.c): null where
 * they do not apply (serving), no limit is stated, or nothing was estimated. */
static void write_buying(struct api_jw *w, const struct dc_sizing *z)
{
    API_JW_KEY(w, "machines");
    if (z->machines > 0)
        api_jw_number(w, z->machines);
    else
        api_jw_null(w);
    const struct dc_overheads *o = &z->overheads;
    const struct dc_capacity_need *cap = &z->capacity;
    API_JW_KEY(w, "capacity");
    if (cap->known) {
        api_jw_object(w);
        key_string(w, "provider", dc_provider_name(cap->provider));
        key_string(w, "basis", dc_basis_name(cap->basis));
        key_number(w, "max_instances", cap->max_instances);
        key_bool(w, "binds", cap->binds);
        key_number(w, "lead_time_days", cap->lead_time_days);
        key_string(w, "source", cap->source);
        api_jw_object_end(w);
    } else {
        api_jw_null(w);
    }
    API_JW_KEY(w, "overheads");
    if (!isfinite(o->hours)) {
        api_jw_null(w);
        return;
    }
    api_jw_object(w);
    key_round4(w, "startup_hours", o->startup_hours);
    key_round4(w, "checkpoint_hours", o->checkpoint_hours);
    key_round4(w, "eval_hours", o->eval_hours);
    key_round4(w, "billing_hours", o->billing_hours);
    key_round4(w, "hours", o->hours);
    key_round4(w, "cost_usd", o->cost_usd);
    api_jw_object_end(w);
}

/* How the selection placed the candidate (docs/scoring.md, sections 7-8). */
static void write_selection(struct api_jw *w, const struct dc_candidate *c)
{
    const struct dc_selection *s = &c->selection;
    API_JW_KEY(w, "selection");
    api_jw_object(w);
    key_bool(w, "meets_targets", s->meets_targets);
    key_bool(w, "priced", s->priced);
    key_number(w, "gates", s->gates);
    key_bool(w, "in_band", s->in_band);
    key_round4(w, "objective_value", s->objective_value);
    key_number(w, "soft_points", s->soft_points);
    key_round4(w, "adjustment", s->adjustment);
    key_round4(w, "breakeven_usd_per_chip_hour", s->breakeven_usd_per_chip_hour);
    api_jw_object_end(w);
}

/* Each target of the workload, met or missed, and why (TargetCheck); the
 * texts that are a reason's kept in tt (when not NULL) for write_reason_message. */
static void write_targets(struct api_jw *w, const struct dc_result *res,
                          const struct dc_candidate *c, struct target_texts *tt)
{
    struct dc_target_status t[DC_MAX_TARGETS];
    size_t n = dc_candidate_targets(res, c, t);
    API_JW_KEY(w, "targets");
    api_jw_array(w);
    for (size_t i = 0; i < n; i++) {
        api_jw_object(w);
        key_string(w, "target", dc_target_name(t[i].kind));
        key_string(w, "state", dc_target_state_name(t[i].state));
        API_JW_KEY(w, "message");
        size_t off = w->len;
        char *at = api_jw_text_begin(w, TARGET_TEXT_MAX);
        if (at != NULL) {
            const char *text = dc_target_text(res, c, &t[i], at, TARGET_TEXT_MAX);
            size_t len = strlen(text);
            api_jw_text_end(w, text, len);
            /* Kept only whole: a text cut at TARGET_TEXT_MAX would not be
             * the reason's, whose buffer is larger. */
            const char *id = dc_target_reason_id(&t[i]);
            if (tt != NULL && id != NULL && len + 1 < TARGET_TEXT_MAX && !w->failed)
                tt->k[tt->n++] = (struct target_texts_kept){id, off, w->len - off};
        }
        api_jw_object_end(w);
    }
    api_jw_array_end(w);
}

/* The contract's Availability (null without a probe or fleet snapshot). */
static void write_availability(struct api_jw *w, const struct dc_candidate_availability *v)
{
    if (!v->known) {
        api_jw_null(w);
        return;
    }
    api_jw_object(w);
    key_number(w, "attached", v->attached);
    key_number(w, "free", v->free);
    key_round4(w, "memory_free_gb", v->memory_free_gb);
    key_number(w, "nodes", v->nodes);
    key_number(w, "free_nodes", v->free_nodes);
    key_bool(w, "configuration_free", v->configuration_free);
    key_string(w, "source", v->fleet ? "prometheus" : "probe");
    key_round4(w, "age_seconds", v->age_seconds);
    key_bool(w, "stale", v->stale);
    key_bool(w, "warming", v->warming);
    api_jw_object_end(w);
}

/* A rule's reason repeats from candidate to candidate with the same text,
 * source and fact (a body holds some 50 of them, a dozen distinct): those
 * members are written once and copied from the body after that. A computed
 * reason (message NULL: sizing.*, catalog.*) is written each time. */
#define KEPT_REASONS 32

struct kept_reason {
    const char *message, *source, *fact;
    size_t off, len; /* the members' bytes in the body */
};

struct kept_reasons {
    size_t n;
    struct kept_reason k[KEPT_REASONS];
};

static const struct kept_reason *kept_reason(const struct kept_reasons *kr,
                                             const struct dc_reason *r)
{
    for (size_t i = 0; i < kr->n; i++) {
        const struct kept_reason *k = &kr->k[i];
        if (k->message == r->message && k->source == r->source && k->fact == r->fact)
            return k;
    }
    return NULL;
}

/* A reason's message, source and fact, after its impact. */
static void write_reason_tail(struct api_jw *w, const struct dc_result *res,
                              const struct dc_candidate *c, const struct dc_reason *r,
                              struct kept_reasons *kr, const struct target_texts *tt)
{
    const struct kept_reason *kept = r->message != NULL ? kept_reason(kr, r) : NULL;
    if (kept != NULL) {
        api_jw_repeat(w, kept->off, kept->len);
        return;
    }
    size_t off = w->len;
    write_reason_message(w, res, c, r, tt);
    key_string(w, "source", r->source != NULL ? r->source : "");
    key_string_or_null(w, "fact", r->fact);
    if (r->message != NULL && kr->n < KEPT_REASONS && !w->failed)
        kr->k[kr->n++] = (struct kept_reason){r->message, r->source, r->fact, off, w->len - off};
}

static void write_candidate(struct api_jw *w, const struct dc_result *res,
                            const struct dc_candidate *c, struct kept_reasons *kr)
{
    const struct dc_accelerator *a = c->acc;
    api_jw_object(w);
    key_string(w, "accelerator", a->id);
    key_string(w, "name", a->name);
    key_string(w, "family", dc_family_name(a->family));
    key_string(w, "vendor", a->vendor);
    key_number(w, "score", c->score);
    key_number(w, "rule_score", c->rule_score);
    key_number(w, "objective_score", c->objective_score);
    key_round4(w, "target_met", c->target_met);
    write_selection(w, c);
    struct target_texts tt;
    tt.n = 0;
    write_targets(w, res, c, &tt);
    write_sizing(w, res, c);
    write_candidate_price(w, res, c);
    key_string_or_null(w, "capped_by", c->capped_by != NULL ? c->capped_by->rule_id : NULL);
    API_JW_KEY(w, "availability");
    write_availability(w, &c->availability);
    API_JW_KEY(w, "reasons");
    api_jw_array(w);
    for (size_t i = 0; i < c->n_reasons; i++) {
        const struct dc_reason *r = &c->reasons[i];
        api_jw_object(w);
        key_string(w, "rule_id", r->rule_id);
        key_number(w, "impact", r->impact);
        write_reason_tail(w, res, c, r, kr, &tt);
        key_string_or_null(w, "counted_with", r->counted_with);
        api_jw_object_end(w);
    }
    api_jw_array_end(w);
    api_jw_object_end(w);
}

/* The cost-time frontier, ascending cost; `time` is hours or ms. */
static void write_frontier(struct api_jw *w, const struct dc_result *res)
{
    char shape[96];
    bool job = res->workload.job_requests > 0;
    bool serving = res->workload.task == DC_TASK_INFERENCE && !job;
    API_JW_KEY(w, "frontier");
    api_jw_object(w);
    key_string(w, "time_unit", serving ? "ms" : "hours");
    key_string(w, "cost_unit", cost_unit_name(res));
    API_JW_KEY(w, "points");
    api_jw_array(w);
    for (size_t i = 0; i < res->n_frontier; i++) {
        const struct dc_frontier_point *f = &res->frontier[i];
        api_jw_object(w);
        key_string(w, "accelerator", f->acc->id);
        key_string(w, "shape", dc_shape_format(f->acc, &f->shape, shape, sizeof(shape)));
        key_number(w, "chips", f->chips);
        key_number(w, "replicas", f->replicas);
        key_number(w, "chips_per_replica", f->chips_per_replica);
        key_number(w, "batch_per_replica", f->batch_per_replica);
        key_round4(w, "cost_usd", f->cost_usd);
        key_round4(w, "cost_per_hour_usd", f->cost_per_hour_usd);
        key_round4(w, "time", f->time);
        key_bool(w, "pick", f->pick);
        api_jw_object_end(w);
    }
    api_jw_array_end(w);
    api_jw_object_end(w);
}

/* Whether the result has a pick, in words first (docs/scoring.md, section
 * 10), and what would meet the targets when nothing does. */
static void write_status(struct api_jw *w, const struct dc_result *res)
{
    char text[DC_ANSWER_TEXT_MAX];
    const struct dc_would_meet *m = &res->would_meet;
    key_string(w, "status", dc_answer_status_name(res->status));
    key_string_or_null(w, "status_message", dc_answer_text(res, text, sizeof(text)));
    API_JW_KEY(w, "would_meet");
    if (res->status == DC_ANSWER_OK) {
        api_jw_null(w);
        return;
    }
    api_jw_object(w);
    key_string_or_null(w, "accelerator", m->acc != NULL ? m->acc->id : NULL);
    key_number(w, "chips", m->chips);
    key_round4(w, "hours", m->hours);
    key_round4(w, "budget_usd", m->budget_usd);
    API_JW_KEY(w, "fields");
    api_jw_array(w);
    for (size_t i = 0; i < m->n_fields; i++)
        api_jw_string(w, m->fields[i]);
    api_jw_array_end(w);
    api_jw_object_end(w);
}

static void write_families(struct api_jw *w, const struct dc_result *res)
{
    API_JW_KEY(w, "families");
    api_jw_array(w);
    for (size_t i = 0; i < DC_FAMILY_COUNT; i++) {
        const struct dc_family_rank *f = &res->families[i];
        api_jw_object(w);
        key_string(w, "family", dc_family_name(f->family));
        key_number(w, "score", f->score);
        key_number(w, "rule_score", f->rule_score);
        key_bool(w, "excluded", f->excluded);
        key_string_or_null(w, "best", f->best);
        api_jw_object_end(w);
    }
    api_jw_array_end(w);
}

/* why, pick_note, price_note and defaults_note: each sentence or null. */
static void write_notes(struct api_jw *w, const struct dc_result *res)
{
    char why[DC_WHY_TEXT_MAX];
    key_string_or_null(w, "why", dc_why(res, why, sizeof(why)));
    char note[600];
    key_string_or_null(w, "pick_note", dc_pick_note(res, note, 400));
    key_string_or_null(w, "price_note", dc_price_note(res, note, sizeof(note)));
    key_string_or_null(w, "defaults_note", dc_defaults_note(res, note, sizeof(note)));
}

static void write_excluded(struct api_jw *w, const struct dc_result *res)
{
    API_JW_KEY(w, "excluded");
    api_jw_array(w);
    for (size_t i = 0; i < res->n_excluded; i++) {
        const struct dc_candidate *c = &res->excluded[i];
        api_jw_object(w);
        key_string(w, "accelerator", c->acc->id);
        key_string(w, "name", c->acc->name);
        key_string(w, "family", dc_family_name(c->acc->family));
        key_string(w, "rule_id", c->excluded_by->rule_id);
        write_reason_message(w, res, c, c->excluded_by, NULL);
        key_string(w, "source", c->excluded_by->source != NULL ? c->excluded_by->source : "");
        api_jw_object_end(w);
    }
    api_jw_array_end(w);
}

static void write_warnings(struct api_jw *w, const struct dc_result *res)
{
    API_JW_KEY(w, "warnings");
    api_jw_array(w);
    for (size_t i = 0; i < res->n_warnings; i++) {
        api_jw_object(w);
        key_string(w, "code", res->warnings[i].code);
        key_string(w, "message", res->warnings[i].message);
        api_jw_object_end(w);
    }
    api_jw_array_end(w);
}

static void write_assumptions(struct api_jw *w, const struct dc_result *res)
{
    API_JW_KEY(w, "assumptions");
    api_jw_array(w);
    for (size_t i = 0; i < res->n_assumptions; i++) {
        const struct dc_assumption *a = &res->assumptions[i];
        api_jw_object(w);
        key_string(w, "name", a->name);
        key_number(w, "value", a->value);
        key_string(w, "unit", a->unit);
        key_string(w, "source", a->source != NULL ? a->source : "");
        api_jw_object_end(w);
    }
    api_jw_array_end(w);
}

/* A candidate as the summary view lists it (openapi.yaml: CandidateSummary):
 * the columns of the CLI's and the page's table and the targets, without
 * the selection, the full sizing, the price or the reasons. */
static void write_candidate_summary(struct api_jw *w, const struct dc_result *res,
                                    const struct dc_candidate *c)
{
    const struct dc_sizing *z = &c->sizing;
    char shape[96];
    api_jw_object(w);
    key_string(w, "accelerator", c->acc->id);
    key_string(w, "name", c->acc->name);
    key_string(w, "family", dc_family_name(c->acc->family));
    key_string(w, "vendor", c->acc->vendor);
    key_number(w, "score", c->score);
    key_round4(w, "target_met", c->target_met);
    write_targets(w, res, c, NULL);
    API_JW_KEY(w, "sizing");
    api_jw_object(w);
    key_string(w, "shape", dc_shape_format(c->acc, &z->shape, shape, sizeof(shape)));
    key_number(w, "chips", z->chips);
    key_number(w, "replicas", z->replicas);
    key_bool(w, "fits", z->fits);
    key_round4(w, "hours", z->hours);
    key_round4(w, "cost_usd", z->cost_usd);
    key_string(w, "cost_unit", cost_unit_name(res));
    key_round4(w, "cost_per_hour_usd", z->cost_per_hour_usd);
    key_round4(w, "request_ms", z->request_ms);
    key_round4(w, "throughput_rps", z->throughput_rps);
    api_jw_object_end(w);
    key_string_or_null(w, "capped_by", c->capped_by != NULL ? c->capped_by->rule_id : NULL);
    API_JW_KEY(w, "availability");
    write_availability(w, &c->availability);
    api_jw_object_end(w);
}

static size_t shown_candidates(const struct dc_result *res, const struct api_view *v)
{
    size_t n = res->n_recommendations;
    return v->candidates > 0 && v->candidates < n ? v->candidates : n;
}

/* The Recommendation body (openapi.yaml), today's bytes when `v` asks for
 * everything. */
static void write_full(struct api_jw *w, const struct dc_result *res,
                       const struct dc_explanation *e, const struct api_view *v)
{
    key_string(w, "request_id", res->request_id);
    key_string(w, "rules_version", res->rules_version);
    write_status(w, res);
    write_workload(w, res->ruleset, &res->workload);
    write_families(w, res);
    API_JW_KEY(w, "recommendations");
    api_jw_array(w);
    struct kept_reasons kr;
    kr.n = 0;
    for (size_t i = 0, n = shown_candidates(res, v); i < n; i++)
        write_candidate(w, res, &res->recommendations[i], &kr);
    api_jw_array_end(w);
    write_notes(w, res);
    if (v->frontier != API_FRONTIER_OFF)
        write_frontier(w, res);
    write_excluded(w, res);
    write_warnings(w, res);
    write_assumptions(w, res);
    api__write_explanation(w, e);
}

/* The RecommendationSummary body (openapi.yaml): the answer and the table,
 * the frontier only when asked for. */
static void write_summary(struct api_jw *w, const struct dc_result *res,
                          const struct dc_explanation *e, const struct api_view *v)
{
    key_string(w, "request_id", res->request_id);
    key_string(w, "rules_version", res->rules_version);
    key_string(w, "view", "summary");
    write_status(w, res);
    write_families(w, res);
    API_JW_KEY(w, "recommendations");
    api_jw_array(w);
    for (size_t i = 0, n = shown_candidates(res, v); i < n; i++)
        write_candidate_summary(w, res, &res->recommendations[i]);
    api_jw_array_end(w);
    write_notes(w, res);
    if (v->frontier == API_FRONTIER_ON)
        write_frontier(w, res);
    write_warnings(w, res);
    api__write_explanation(w, e);
}

char *api_result_render(const struct dc_result *res, size_t *len)
{
    return api_result_render_view(res, NULL, NULL, len);
}

char *api_result_render_explained(const struct dc_result *res, const struct dc_explanation *e,
                                  size_t *len)
{
    return api_result_render_view(res, e, NULL, len);
}

char *api_result_render_view(const struct dc_result *res, const struct dc_explanation *e,
                             const struct api_view *v, size_t *len)
{
    static const struct api_view full = {false, 0, API_FRONTIER_DEFAULT};
    if (res == NULL)
        return NULL;
    if (v == NULL)
        v = &full;
    struct api_jw w;
    api_jw_init(&w, result_hint(v->summary));
    api_jw_object(&w);
    if (v->summary)
        write_summary(&w, res, e, v);
    else
        write_full(&w, res, e, v);
    api_jw_object_end(&w);
    atomic_store_explicit(&last_result_len[v->summary], w.len, memory_order_relaxed);
    return api_jw_finish(&w, len);
}

/* shapes, scale_out, max_chips and mfu_factor of a catalog entry. */
static void write_scale(struct api_jw *w, const struct dc_accelerator *a)
{
    API_JW_KEY(w, "shapes");
    api_jw_object(w);
    API_JW_KEY(w, "node_sizes");
    api_jw_array(w);
    for (size_t i = 0; i < a->n_node_sizes; i++)
        api_jw_number(w, a->node_sizes[i]);
    api_jw_array_end(w);
    API_JW_KEY(w, "slices");
    api_jw_array(w);
    for (size_t i = 0; i < a->n_slices; i++) {
        api_jw_object(w);
        key_string(w, "name", a->slices[i].name);
        key_number(w, "chips", a->slices[i].chips);
        api_jw_object_end(w);
    }
    api_jw_array_end(w);
    key_string(w, "source", a->shapes_source);
    api_jw_object_end(w);
    API_JW_KEY(w, "scale_out");
    api_jw_object(w);
    key_string(w, "network", a->scale_out_network);
    key_number(w, "max_chips", a->max_chips);
    key_string(w, "source", a->scale_out_source);
    api_jw_object_end(w);
    key_number(w, "max_chips", a->max_chips);
    API_JW_KEY(w, "mfu_factor");
    api_jw_object(w);
    key_number(w, "value", a->mfu_factor);
    API_JW_KEY(w, "source");
    api_jw_string_or_null(w, a->mfu_factor_source);
    api_jw_object_end(w);
}

static void write_accelerator(struct api_jw *w, const struct dc_accelerator *a)
{
    api_jw_object(w);
    key_string(w, "id", a->id);
    key_string(w, "name", a->name);
    key_string(w, "short_name", a->short_name != NULL ? a->short_name : a->id);
    key_string(w, "vendor", a->vendor);
    key_string(w, "family", dc_family_name(a->family));
    API_JW_KEY(w, "fact");
    api_jw_string_or_null(w, a->fact);
    key_string(w, "source", a->source);
    API_JW_KEY(w, "pci");
    if (a->n_pci_devices > 0) {
        api_jw_object(w);
        key_number(w, "vendor", a->pci_vendor);
        API_JW_KEY(w, "devices");
        api_jw_array(w);
        for (size_t i = 0; i < a->n_pci_devices; i++)
            api_jw_number(w, a->pci_devices[i]);
        api_jw_array_end(w);
        api_jw_object_end(w);
    } else {
        api_jw_null(w);
    }
    key_number(w, "memory_gb", a->memory_gb);
    key_number(w, "memory_bandwidth_gbps", a->memory_bandwidth_gbps);
    API_JW_KEY(w, "peak_tflops");
    api_jw_object(w);
    for (size_t p = 0; p < DC_PREC_COUNT; p++) {
        api_jw_key(w, dc_precision_name((enum dc_precision)p));
        api_jw_number(w, a->peak_tflops[p]);
    }
    key_number(w, "tf32", a->peak_tf32_tflops);
    api_jw_object_end(w);
    API_JW_KEY(w, "precisions");
    api_jw_array(w);
    for (size_t p = 0; p < DC_PREC_COUNT; p++) {
        if (a->precisions & (1u << p))
            api_jw_string(w, dc_precision_name((enum dc_precision)p));
    }
    api_jw_array_end(w);
    API_JW_KEY(w, "interconnect");
    if (a->interconnect != NULL) {
        api_jw_object(w);
        key_string(w, "name", a->interconnect);
        key_number(w, "bandwidth_gbps", a->interconnect_gbps);
        key_number(w, "domain", a->domain);
        api_jw_object_end(w);
    } else {
        api_jw_null(w);
    }
    write_scale(w, a);
    key_number(w, "power_watts", a->power_watts);
    API_JW_KEY(w, "providers");
    api_jw_array(w);
    for (size_t p = 0; p < DC_PROVIDER_COUNT; p++) {
        if (a->providers & (1u << p))
            api_jw_string(w, dc_provider_name((enum dc_provider)p));
    }
    api_jw_array_end(w);
    key_bool(w, "on_prem", a->on_prem);
    write_offers(w, a);
    api_jw_object_end(w);
}

static bool matches(const struct dc_accelerator *a, const struct api_catalog_filter *f)
{
    if (f == NULL)
        return true;
    if (f->family != NULL && strcmp(f->family, dc_family_name(a->family)) != 0)
        return false;
    if (f->vendor != NULL && strcmp(f->vendor, a->vendor) != 0)
        return false;
    if (f->provider != NULL) {
        if (strcmp(f->provider, "on-prem") == 0)
            return a->on_prem;
        enum dc_provider p;
        if (!dc_provider_parse(f->provider, &p) || (a->providers & (1u << p)) == 0)
            return false;
    }
    return true;
}

char *api_catalog_render(const dc_ruleset *rs, const struct api_catalog_filter *filter, size_t *len)
{
    if (rs == NULL)
        return NULL;
    struct api_jw w;
    api_jw_init(&w, CATALOG_HINT);
    api_jw_object(&w);
    key_string(&w, "rules_version", dc_ruleset_version(rs));
    API_JW_KEY(&w, "accelerators");
    api_jw_array(&w);
    for (size_t i = 0; i < dc_ruleset_accelerator_count(rs); i++) {
        const struct dc_accelerator *a = dc_ruleset_accelerator(rs, i);
        if (matches(a, filter))
            write_accelerator(&w, a);
    }
    api_jw_array_end(&w);
    api_jw_object_end(&w);
    return api_jw_finish(&w, len);
}

char *api_rules_render(const dc_ruleset *rs, size_t *len)
{
    if (rs == NULL)
        return NULL;
    size_t n = dc_ruleset_rule_count(rs);
    struct api_jw w;
    api_jw_init(&w, RULES_HINT);
    api_jw_object(&w);
    key_string(&w, "rules_version", dc_ruleset_version(rs));
    key_string(&w, "origin", dc_ruleset_origin(rs));
    key_number(&w, "count", (double)n);
    API_JW_KEY(&w, "rules");
    api_jw_array(&w);
    for (size_t i = 0; i < n; i++) {
        const struct dc_rule_info *r = dc_ruleset_rule(rs, i);
        api_jw_object(&w);
        key_string(&w, "id", r->id);
        key_string(&w, "description", r->description);
        key_string(&w, "message", r->message);
        key_string(&w, "source", r->source);
        API_JW_KEY(&w, "fact");
        api_jw_string_or_null(&w, r->fact);
        key_string(&w, "file", r->file);
        key_number(&w, "line", r->line);
        key_bool(&w, "excludes", r->excludes);
        API_JW_KEY(&w, "when");
        api_jw_value(&w, r->when);
        api_jw_object_end(&w);
    }
    api_jw_array_end(&w);
    api_jw_object_end(&w);
    return api_jw_finish(&w, len);
}

/* A rendered body as a cJSON tree (takes `text`). */
static enum dc_status parse_rendered(char *text, size_t len, cJSON **out)
{
    if (text == NULL)
        return DC_ENOMEM;
    *out = cJSON_ParseWithLength(text, len);
    free(text);
    return *out != NULL ? DC_OK : DC_ENOMEM;
}

enum dc_status api_result_to_json(const struct dc_result *res, cJSON **out)
{
    if (out == NULL)
        return DC_EINVAL;
    *out = NULL;
    if (res == NULL)
        return DC_EINVAL;
    size_t len = 0;
    char *text = api_result_render(res, &len);
    return parse_rendered(text, len, out);
}

enum dc_status api_accelerator_to_json(const struct dc_accelerator *a, cJSON **out)
{
    if (out == NULL)
        return DC_EINVAL;
    *out = NULL;
    if (a == NULL)
        return DC_EINVAL;
    struct api_jw w;
    api_jw_init(&w, 2048);
    write_accelerator(&w, a);
    size_t len = 0;
    char *text = api_jw_finish(&w, &len);
    return parse_rendered(text, len, out);
}

enum dc_status api_catalog_to_json(const dc_ruleset *rs, const struct api_catalog_filter *filter,
                                   cJSON **out)
{
    if (out == NULL)
        return DC_EINVAL;
    *out = NULL;
    if (rs == NULL)
        return DC_EINVAL;
    size_t len = 0;
    char *text = api_catalog_render(rs, filter, &len);
    return parse_rendered(text, len, out);
}

enum dc_status api_rules_to_json(const dc_ruleset *rs, cJSON **out)
{
    if (out == NULL)
        return DC_EINVAL;
    *out = NULL;
    if (rs == NULL)
        return DC_EINVAL;
    size_t len = 0;
    char *text = api_rules_render(rs, &len);
    return parse_rendered(text, len, out);
}
