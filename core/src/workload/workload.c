/* core/src/workload/workload.c -- a workload JSON object to struct dc_workload, with
 * every default applied, and back to the JSON document rule conditions read.
 *
 * The HTTP layer validates bodies against openapi.yaml first; this code still
 * checks every field it reads (type, enum, range) because the core is also
 * called from the CLI and from tests, and must never trust its caller. The
 * `model` object is read by model_object.c, which the model registry shares. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dc/workload.h"
#include "arena.h"
#include "dc/models.h"
#include "dc/utf8.h"
#include "dc/numfmt.h"
#include "field_read.h"
#include "model_object.h"
#include "names.h"
#include "workload_internal.h"

#define NUM 48 /* a number formatted by dc/numfmt.h */

static const char *const tasks[] = {"training", "fine-tuning", "inference", NULL};
static const char *const frameworks[] = {"pytorch", "jax",   "tensorflow", "pytorch-xla",
                                         "onnx",    "other", NULL};
static const char *const stages[] = {"prototype", "development", "production", NULL};
static const char *const rl_algorithms[] = {"grpo", "ppo", NULL};
static const char *const precisions[] = {"fp64", "fp32", "bf16", "fp16", "fp8",
                                         "fp4",  "int8", "int4", NULL};
/* The workload's precision words: the enum's, and tf32, which is fp32 whose
 * matmuls may run as TF32 (PyTorch leaves it off: plain fp32 is IEEE FP32). */
static const char *const precision_words[] = {"fp64", "fp32", "bf16", "fp16", "fp8",
                                              "fp4",  "int8", "int4", "tf32", NULL};
static const char *const deployments[] = {"cloud", "on-prem", "hybrid", NULL};
static const char *const experiences[] = {"none", "some", "expert", NULL};
static const char *const objectives[] = {"cost", "time", "balanced", NULL};
static const char *const methods[] = {"full", "lora", "qlora", "dpo", "rl", NULL};
/* What a change of method may propose (docs/explanations.md): another way to
 * update the same weights; preference tuning and RL are other jobs. */
static const char *const method_changes[] = {"full", "lora", "qlora", NULL};
/* In enum dc_pricing order. */
static const char *const pricings[] = {"on_demand", "spot", "committed_1y", "committed_3y", NULL};

static const char *const top_keys[] = {
    "name",      "task",         "framework",        "stage",     "model",
    "precision", "quantization", "training",         "inference", "constraints",
    "team",      "objective",    "prefer_available", "explain",   NULL};
/* In enum dc_explain_kind bit order. */
static const char *const explain_kinds[] = {"changes", "robustness", NULL};
static const char *const training_keys[] = {"tokens",
                                            "samples",
                                            "sequence_length",
                                            "method",
                                            "global_batch_size",
                                            "deadline_hours",
                                            "input_bound",
                                            "rl",
                                            NULL};
static const char *const rl_keys[] = {"algorithm", "reference_model", "reward_model_parameters",
                                      "rollout_share", NULL};
static const char *const inference_keys[] = {"requests_per_second",
                                             "latency_ms_p99",
                                             "context_tokens",
                                             "input_tokens",
                                             "output_tokens",
                                             "batch_size",
                                             "kv_cache_precision",
                                             "speculative",
                                             "prefix_cache_hit_rate",
                                             "audio_decoded",
                                             "job",
                                             NULL};
static const char *const speculative_keys[] = {"draft_model", "draft_parameters", "draft_tokens",
                                               "acceptance_rate", NULL};
static const char *const job_keys[] = {"requests", "tokens", "deadline_hours", NULL};
static const char *const constraint_keys[] = {"deployment",       "providers",    "budget_usd",
                                              "max_accelerators", "accelerators", "pricing",
                                              "portable",         "fleet_only",   NULL};
static const char *const team_keys[] = {"cuda_experience", "xla_experience", NULL};

/* The section object, or NULL when absent; an error when it is not an object. */
static enum dc_status section(const cJSON *json, const char *name, const char *const *keys,
                              const cJSON **out, struct dc_error *err)
{
    *out = dc__member(json, name);
    if (*out == NULL)
        return DC_OK;
    if (!cJSON_IsObject(*out))
        return bad(err, NULL, name, "%s must be an object", name);
    return check_keys(*out, name, keys, err);
}

/* The object `name` inside `parent` (at JSON Pointer prefix `path`, no leading
 * slash), or NULL when absent; an error when it is not an object. */
static enum dc_status subsection(const cJSON *parent, const char *path, const char *name,
                                 const char *const *keys, const cJSON **out, struct dc_error *err)
{
    char sec[64];
    *out = dc__member(parent, name);
    if (*out == NULL)
        return DC_OK;
    if (!cJSON_IsObject(*out))
        return bad(err, path, name, "%s must be an object", name);
    snprintf(sec, sizeof(sec), "%s/%s", path, name);
    return check_keys(*out, sec, keys, err);
}

static size_t enum_index(const char *const *list, const char *v)
{
    for (size_t i = 0; list[i] != NULL; i++) {
        if (list[i] == v)
            return i;
    }
    return 0;
}

/* The registry entry `name` names, or a 400 that lists the close names. */
static enum dc_status find_named(const dc_ruleset *rs, const cJSON *name, const char *where,
                                 const struct dc_model_info **out, struct dc_error *err)
{
    if (!cJSON_IsString(name) || name->valuestring[0] == '\0' ||
        strlen(name->valuestring) > DC_MODELS_NAME_MAX)
        return dc_error_set(err, DC_EINVAL, where, "a model name is a string of 1 to %d bytes",
                            DC_MODELS_NAME_MAX);
    *out = dc_ruleset_find_model(rs, name->valuestring);
    if (*out != NULL)
        return DC_OK;
    if (dc_ruleset_model_count(rs) == 0)
        return dc_error_set(err, DC_EINVAL, where,
                            "unknown model \"%.64s\": this rule set has no model registry "
                            "(models.yaml); give the model's fields instead",
                            name->valuestring);
    const char *close[DC_MODELS_MAX_SUGGEST];
    size_t n = dc_model_suggest(rs, name->valuestring, close, DC_MODELS_MAX_SUGGEST);
    char list[DC_MODELS_MAX_SUGGEST * (DC_ID_MAX + 2) + 1] = "";
    for (size_t i = 0, k = 0; i < n; i++)
        k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s", i > 0 ? ", " : "", close[i]);
    if (n > 0)
        return dc_error_set(err, DC_EINVAL, where,
                            "unknown model \"%.64s\"; close names: %s (GET /v1/models lists "
                            "all %zu)",
                            name->valuestring, list, dc_ruleset_model_count(rs));
    return dc_error_set(err, DC_EINVAL, where,
                        "unknown model \"%.64s\" (GET /v1/models lists the %zu models of the "
                        "registry)",
                        name->valuestring, dc_ruleset_model_count(rs));
}

/* model.name: the registry's fields, then every field the request gives over
 * them, as one object for dc__model_parse (*out, owned; NULL when no name). */
static enum dc_status resolve_named(const dc_ruleset *rs, const cJSON *m, struct dc_workload *w,
                                    cJSON **out, struct dc_error *err)
{
    *out = NULL;
    const cJSON *name = dc__member(m, "name");
    if (name == NULL)
        return DC_OK;
    const struct dc_model_info *entry = NULL;
    TRY(find_named(rs, name, "/model/name", &entry, err));
    w->model_name = entry->name;
    cJSON *merged = cJSON_Duplicate(entry->model, true);
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, m)
    {
        if (merged == NULL || strcmp(it->string, "name") == 0)
            continue;
        cJSON *copy = cJSON_Duplicate(it, true);
        if (copy == NULL || (present(merged, it->string)
                                 ? !cJSON_ReplaceItemInObjectCaseSensitive(merged, it->string, copy)
                                 : !cJSON_AddItemToObject(merged, it->string, copy))) {
            cJSON_Delete(copy);
            cJSON_Delete(merged);
            merged = NULL;
        }
    }
    if (merged == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    *out = merged;
    return DC_OK;
}

/* training.rl: the parts of an RL post-training step beside the policy update
 * (docs/scoring.md, section 2). */
static enum dc_status parse_rl(const struct dc_sizing_params *sz, const cJSON *t,
                               struct dc_workload *w, struct dc_error *err)
{
    const cJSON *rl = NULL;
    const char *s = NULL;
    TRY(subsection(t, "training", "rl", rl_keys, &rl, err));
    if (rl != NULL && w->method != DC_METHOD_RL)
        return bad(err, "training", "rl",
                   "training.rl describes RL post-training: set training.method to rl");
    if (w->method != DC_METHOD_RL)
        return DC_OK;
    TRY(get_enum(rl, "training/rl", "algorithm", rl_algorithms, "grpo", &s, err));
    w->rl_algorithm = (enum dc_rl_algorithm)enum_index(rl_algorithms, s);
    w->rl_reference = true;
    if (present(rl, "reference_model"))
        TRY(get_bool(rl, "training/rl", "reference_model", &w->rl_reference, err));
    TRY(get_num(rl, "training/rl", "reward_model_parameters", 0, false, DC_WORKLOAD_MAX_PARAMETERS,
                false, 0, &w->rl_reward_parameters, err));
    w->rl_rollout_share_defaulted = !present(rl, "rollout_share");
    TRY(get_num(rl, "training/rl", "rollout_share", 0, false, 0.99, false,
                sz->rl_rollout_share.value, &w->rl_rollout_share, err));
    if (!isfinite(w->rl_rollout_share))
        return bad(err, "training/rl", "rollout_share",
                   "this rule set's sizing.yaml gives no rl_rollout_share: give "
                   "training.rl.rollout_share, the share of an RL step spent generating rollouts");
    return DC_OK;
}

static enum dc_status parse_training(const struct dc_sizing_params *sz, const cJSON *t,
                                     struct dc_workload *w, struct dc_error *err)
{
    const char *s = NULL;
    TRY(get_enum(t, "training", "method", methods, "full", &s, err));
    w->method = (enum dc_method)enum_index(methods, s);
    TRY(parse_rl(sz, t, w, err));
    /* An MLP or a recommender reads one example a sample, not a sequence of
     * tokens: 4,096 "tokens" a sample would size it 4,096 times too large. (A
     * GNN's sample is a graph of many nodes, each using every weight: it keeps
     * the default and its compute stays marked rough.) */
    bool per_example = arch_is(w, "mlp") || arch_is(w, "recommender");
    TRY(get_num(t, "training", "sequence_length", 1, false, 1e7, true,
                per_example ? 1.0 : sz->sequence_length.value, &w->sequence_length, err));
    TRY(get_num(t, "training", "samples", 1, false, DC_WORKLOAD_MAX_TOKENS, false, NAN, &w->samples,
                err));
    double dflt_tokens = 0;
    if (isfinite(w->samples))
        dflt_tokens = w->samples * w->sequence_length;
    else if (w->task == DC_TASK_TRAINING)
        dflt_tokens = sz->tokens_per_parameter.value * w->parameters;
    else if (w->task == DC_TASK_FINE_TUNING)
        dflt_tokens = sz->fine_tuning_tokens.value;
    /* The default stays within the field's own bound: 20 x 1e15 parameters would
     * otherwise echo tokens the contract forbids in the result's workload. */
    if (dflt_tokens > DC_WORKLOAD_MAX_TOKENS)
        dflt_tokens = DC_WORKLOAD_MAX_TOKENS;
    TRY(get_num(t, "training", "tokens", 1, false, DC_WORKLOAD_MAX_TOKENS, false, dflt_tokens,
                &w->tokens, err));
    w->tokens_defaulted = !present(t, "tokens");
    TRY(get_num(t, "training", "global_batch_size", 1, false, 1e7, true, 256, &w->global_batch_size,
                err));
    w->global_batch_defaulted = !present(t, "global_batch_size");
    TRY(get_num(t, "training", "deadline_hours", 0, true, 1e6, false, NAN, &w->deadline_hours,
                err));
    TRY(get_bool(t, "training", "input_bound", &w->input_bound, err));
    return DC_OK;
}

/* Models that generate their output one token at a time from a KV cache. */
static bool generates(const struct dc_workload *w)
{
    return arch_is(w, "transformer") || arch_is(w, "moe") || arch_is(w, "encoder-decoder");
}

/* The request within what the model attends to: a decoder's (or encoder's)
 * whole context, an encoder-decoder's generated tokens. */
static enum dc_status check_model_context(const struct dc_workload *w, bool given_ctx,
                                          struct dc_error *err)
{
    double cap = w->context_length;
    if (!isfinite(cap) || arch_is(w, "cnn") || arch_is(w, "vit") || arch_is(w, "diffusion"))
        return DC_OK;
    if (arch_is(w, "encoder-decoder")) {
        if (w->output_tokens > cap)
            return bad(err, "inference", "output_tokens",
                       "output_tokens (%g) exceeds the %g tokens the model's decoder holds "
                       "(model.context_length)",
                       w->output_tokens, cap);
        return DC_OK;
    }
    if (w->context_tokens > cap)
        return bad(err, "inference", given_ctx ? "context_tokens" : "input_tokens",
                   "input + output tokens (%g) exceed the %g the model attends to "
                   "(model.context_length)",
                   w->context_tokens, cap);
    return DC_OK;
}

/* Tokens per request: the KV cache holds input + output tokens (context). A
 * model without a KV cache generates nothing token by token; an
 * encoder-decoder's input is what its encoder reads (Whisper: 1,500 frames). */
static enum dc_status parse_request_tokens(const struct dc_sizing_params *sz, const cJSON *inf,
                                           struct dc_workload *w, struct dc_error *err)
{
    const double max_ctx = 1e7;
    bool encdec = arch_is(w, "encoder-decoder");
    double out_dflt = generates(w) ? sz->output_tokens.value : 0;
    double ctx_dflt = sz->context_tokens.value;
    if (encdec && isfinite(w->context_length))
        out_dflt = fmin(out_dflt, w->context_length);
    else if (isfinite(w->context_length))
        ctx_dflt = fmin(ctx_dflt, w->context_length);
    TRY(get_num(inf, "inference", "context_tokens", 1, false, max_ctx, true, NAN,
                &w->context_tokens, err));
    TRY(get_num(inf, "inference", "input_tokens", 1, false, max_ctx, true, NAN, &w->input_tokens,
                err));
    TRY(get_num(inf, "inference", "output_tokens", 0, false, max_ctx, true, NAN, &w->output_tokens,
                err));
    bool in = isfinite(w->input_tokens), out = isfinite(w->output_tokens);
    bool ctx_given = isfinite(w->context_tokens);
    w->request_tokens_defaulted =
        !in && !out && !ctx_given && (generates(w) || arch_is(w, "encoder"));
    if (ctx_given) {
        double ctx = w->context_tokens;
        if (in && w->input_tokens > ctx)
            return bad(err, "inference", "input_tokens",
                       "input_tokens (%g) exceeds context_tokens (%g)", w->input_tokens, ctx);
        if (out && w->output_tokens >= ctx)
            return bad(err, "inference", "output_tokens",
                       "output_tokens (%g) leaves no room for input in context_tokens (%g)",
                       w->output_tokens, ctx);
        if (in && out && w->input_tokens + w->output_tokens > ctx)
            return bad(err, "inference", "context_tokens",
                       "context_tokens (%g) is less than input_tokens + output_tokens (%g)", ctx,
                       w->input_tokens + w->output_tokens);
        /* A generating model's output tokens taken from the context: a
         * default that moves the decode steps, warned (defaults.c). */
        w->output_tokens_defaulted = !out && out_dflt > 0;
        if (!out)
            w->output_tokens =
                in ? fmin(out_dflt, ctx - w->input_tokens) : fmin(out_dflt, floor(ctx / 2));
        if (!in)
            w->input_tokens = ctx - w->output_tokens;
        return check_model_context(w, true, err);
    }
    if (!out)
        w->output_tokens = out_dflt;
    if (!in)
        w->input_tokens = encdec && isfinite(w->tokens_per_sample)
                              ? w->tokens_per_sample
                              : fmax(1, ctx_dflt - w->output_tokens);
    if (w->input_tokens + w->output_tokens > max_ctx)
        return bad(err, "inference", "input_tokens",
                   "input_tokens + output_tokens (%g) exceed the context limit of %g",
                   w->input_tokens + w->output_tokens, max_ctx);
    w->context_tokens = w->input_tokens + w->output_tokens;
    return check_model_context(w, false, err);
}

/* A number of a registry entry's model, NAN when it has none. */
static double entry_num(const struct dc_model_info *e, const char *key)
{
    const cJSON *v = dc__member(e->model, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The draft model: a registry entry (its shape sizes its cache) or a count. */
static enum dc_status parse_draft(const dc_ruleset *rs, const cJSON *sp, struct dc_workload *w,
                                  struct dc_error *err)
{
    const cJSON *name = dc__member(sp, "draft_model");
    if (name != NULL && present(sp, "draft_parameters"))
        return bad(err, "inference/speculative", "draft_parameters",
                   "give draft_model or draft_parameters, not both");
    if (name == NULL) {
        if (!present(sp, "draft_parameters"))
            return bad(err, "inference/speculative", "draft_model",
                       "speculative decoding needs its draft: draft_model (a registry name) or "
                       "draft_parameters");
        return get_num(sp, "inference/speculative", "draft_parameters", 1, false,
                       DC_WORKLOAD_MAX_PARAMETERS, false, NAN, &w->draft_parameters, err);
    }
    const struct dc_model_info *e = NULL;
    TRY(find_named(rs, name, "/inference/speculative/draft_model", &e, err));
    w->draft_name = e->name;
    w->draft_parameters = entry_num(e, "parameters");
    w->draft_layers = entry_num(e, "layers");
    w->draft_hidden = entry_num(e, "hidden_size");
    double heads = entry_num(e, "attention_heads");
    w->draft_kv_heads = isfinite(entry_num(e, "kv_heads")) ? entry_num(e, "kv_heads") : heads;
    w->draft_head_dim =
        isfinite(entry_num(e, "head_dim")) ? entry_num(e, "head_dim") : w->draft_hidden / heads;
    return DC_OK;
}

/* inference.speculative (Leviathan et al. 2023, https://arxiv.org/abs/2211.17192). */
static enum dc_status parse_speculative(const dc_ruleset *rs, const cJSON *inf,
                                        struct dc_workload *w, struct dc_error *err)
{
    const cJSON *sp = NULL;
    w->draft_layers = w->draft_hidden = w->draft_kv_heads = w->draft_head_dim = NAN;
    TRY(subsection(inf, "inference", "speculative", speculative_keys, &sp, err));
    if (sp == NULL)
        return DC_OK;
    if (!arch_is(w, "transformer") && !arch_is(w, "moe"))
        return bad(err, "inference", "speculative",
                   "speculative decoding drafts tokens for a decoder (transformer or moe), not "
                   "for architecture %s",
                   w->architecture);
    TRY(parse_draft(rs, sp, w, err));
    char q1[NUM], q2[NUM];
    if (w->draft_parameters >= w->parameters)
        return bad(err, "inference/speculative",
                   w->draft_name != NULL ? "draft_model" : "draft_parameters",
                   "the draft (%s parameters) must be smaller than the model it drafts for (%s)",
                   dc_fmt_quantity(w->draft_parameters, q1, sizeof(q1)),
                   dc_fmt_quantity(w->parameters, q2, sizeof(q2)));
    if (!present(sp, "draft_tokens") || !present(sp, "acceptance_rate"))
        return bad(err, "inference/speculative",
                   present(sp, "draft_tokens") ? "acceptance_rate" : "draft_tokens",
                   "speculative decoding needs draft_tokens (tokens drafted per step) and "
                   "acceptance_rate (the chance the target accepts a drafted token, measured on "
                   "your traffic)");
    TRY(get_num(sp, "inference/speculative", "draft_tokens", 1, false, 16, true, NAN,
                &w->draft_tokens, err));
    return get_num(sp, "inference/speculative", "acceptance_rate", 0, false, 0.99, false, NAN,
                   &w->acceptance_rate, err);
}

/* inference.job: an offline batch, sized for its deadline and priced per job. */
static enum dc_status parse_job(const cJSON *inf, struct dc_workload *w, struct dc_error *err)
{
    const cJSON *job = NULL;
    double requests = NAN;
    w->job_tokens = NAN;
    TRY(subsection(inf, "inference", "job", job_keys, &job, err));
    if (job == NULL)
        return DC_OK;
    TRY(get_num(job, "inference/job", "requests", 1, false, 1e15, true, NAN, &requests, err));
    TRY(get_num(job, "inference/job", "tokens", 1, false, DC_WORKLOAD_MAX_TOKENS, true, NAN,
                &w->job_tokens, err));
    if (isfinite(requests) == isfinite(w->job_tokens))
        return bad(err, "inference", "job",
                   "a job gives its size as requests or as tokens (input + output), one of them");
    if (!present(job, "deadline_hours"))
        return bad(
            err, "inference/job", "deadline_hours",
            "required field \"deadline_hours\" is missing: the hours the job must finish in");
    TRY(get_num(job, "inference/job", "deadline_hours", 0, true, 1e6, false, NAN,
                &w->job_deadline_hours, err));
    if (present(inf, "requests_per_second"))
        return bad(err, "inference", "requests_per_second",
                   "an offline job is sized by inference.job (its total and deadline); leave "
                   "requests_per_second out");
    w->job_requests = isfinite(requests) ? requests : ceil(w->job_tokens / w->context_tokens);
    w->requests_per_second = w->job_requests / (w->job_deadline_hours * 3600.0);
    if (w->requests_per_second > 1e7)
        return bad(err, "inference", "job",
                   "the job needs %.3g requests/s, over the limit of 10,000,000",
                   w->requests_per_second);
    return DC_OK;
}

static enum dc_status parse_inference(const dc_ruleset *rs, const cJSON *inf, struct dc_workload *w,
                                      struct dc_error *err)
{
    const struct dc_sizing_params *sz = dc_ruleset_sizing(rs);
    const char *s = NULL;
    TRY(get_num(inf, "inference", "requests_per_second", 0, true, 1e7, false, 1,
                &w->requests_per_second, err));
    TRY(get_num(inf, "inference", "latency_ms_p99", 0, true, 3.6e6, false, NAN, &w->latency_ms_p99,
                err));
    TRY(parse_request_tokens(sz, inf, w, err));
    TRY(parse_job(inf, w, err));
    TRY(parse_speculative(rs, inf, w, err));
    TRY(get_num(inf, "inference", "prefix_cache_hit_rate", 0, false, 0.99, false, 0,
                &w->prefix_cache_hit_rate, err));
    if (w->prefix_cache_hit_rate > 0 && !arch_is(w, "transformer") && !arch_is(w, "moe"))
        return bad(err, "inference", "prefix_cache_hit_rate",
                   "prefix caching reuses a decoder's prompt cache (transformer or moe), not "
                   "architecture %s's",
                   w->architecture);
    TRY(get_bool(inf, "inference", "audio_decoded", &w->audio_decoded, err));
    TRY(get_num(inf, "inference", "batch_size", 1, false, 1e5, true, NAN, &w->batch_size, err));
    /* Quantised weights keep a 16-bit cache unless told otherwise (vLLM's
     * "auto" cache type follows the model's activation type). */
    enum dc_precision p = w->precision;
    const char *dflt =
        p == DC_PREC_FP64 || p == DC_PREC_FP32 || p == DC_PREC_FP16 ? dc_precision_name(p) : "bf16";
    TRY(get_enum(inf, "inference", "kv_cache_precision", precisions, dflt, &s, err));
    w->kv_precision = (enum dc_precision)enum_index(precisions, s);
    return DC_OK;
}

static enum dc_status parse_allowed(const dc_ruleset *rs, const cJSON *c, struct dc_workload *w,
                                    struct dc_error *err)
{
    const cJSON *list = dc__member(c, "accelerators");
    if (list == NULL)
        return DC_OK;
    if (!cJSON_IsArray(list))
        return bad(err, "constraints", "accelerators", "%s must be an array", "accelerators");
    if (cJSON_GetArraySize(list) == 0)
        return bad(err, "constraints", "accelerators",
                   "accelerators must name at least one catalog id (omit it to allow any)");
    size_t i = 0;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, list)
    {
        char where[64];
        snprintf(where, sizeof(where), "/constraints/accelerators/%zu", i++);
        if (!cJSON_IsString(it))
            return dc_error_set(err, DC_EINVAL, where, "accelerator ids are strings");
        const struct dc_accelerator *a = dc_ruleset_find_accelerator(rs, it->valuestring);
        if (a == NULL)
            return dc_error_set(err, DC_EINVAL, where,
                                "unknown accelerator \"%.40s\" (GET /v1/accelerators lists the "
                                "catalog)",
                                it->valuestring);
        size_t idx = (size_t)(a - dc_ruleset_accelerator(rs, 0));
        for (size_t k = 0; k < w->n_allowed; k++) {
            if (w->allowed[k] == idx)
                return dc_error_set(err, DC_EINVAL, where, "accelerator \"%s\" is listed twice",
                                    a->id);
        }
        if (w->n_allowed == DC_WORKLOAD_MAX_ALLOWED)
            return dc_error_set(err, DC_EINVAL, where, "at most %d accelerators",
                                DC_WORKLOAD_MAX_ALLOWED);
        w->allowed[w->n_allowed++] = (unsigned short)idx;
    }
    return DC_OK;
}

static enum dc_status parse_constraints(const dc_ruleset *rs, const cJSON *c, struct dc_workload *w,
                                        struct dc_error *err)
{
    const char *s = NULL;
    TRY(get_enum(c, "constraints", "deployment", deployments, "cloud", &s, err));
    w->deployment = (enum dc_deployment)enum_index(deployments, s);
    const cJSON *prov = dc__member(c, "providers");
    if (prov != NULL) {
        if (!cJSON_IsArray(prov))
            return bad(err, "constraints", "providers", "%s must be an array", "providers");
        const cJSON *it = NULL;
        cJSON_ArrayForEach(it, prov)
        {
            enum dc_provider p;
            if (!cJSON_IsString(it) || !dc_provider_parse(it->valuestring, &p))
                return bad(err, "constraints", "providers", "%s lists an unknown provider",
                           "providers");
            if (w->providers & (1u << p))
                return bad(err, "constraints", "providers", "%s lists a provider twice",
                           "providers");
            w->providers |= 1u << p;
        }
    }
    TRY(get_num(c, "constraints", "budget_usd", 0, true, 1e12, false, NAN, &w->budget_usd, err));
    TRY(get_num(c, "constraints", "max_accelerators", 1, false, 1e5, true, NAN,
                &w->max_accelerators, err));
    TRY(get_enum(c, "constraints", "pricing", pricings, "on_demand", &s, err));
    w->pricing = (enum dc_pricing)enum_index(pricings, s);
    TRY(get_bool(c, "constraints", "portable", &w->portable, err));
    if (w->portable && w->providers == 0)
        return bad(err, "constraints", "portable",
                   "%s needs constraints.providers: the providers the answer must run on",
                   "portable");
    TRY(get_bool(c, "constraints", "fleet_only", &w->fleet_only, err));
    return parse_allowed(rs, c, w, err);
}

/* `explain`: what to compute beside the result; each kind once. Read here so
 * that every caller checks it alike, but the decision never looks at it. */
static enum dc_status parse_explain(const cJSON *json, struct dc_workload *w, struct dc_error *err)
{
    const cJSON *list = dc__member(json, "explain");
    if (list == NULL)
        return DC_OK;
    if (!cJSON_IsArray(list))
        return bad(err, NULL, "explain", "%s must be an array", "explain");
    size_t i = 0;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, list)
    {
        char where[48];
        snprintf(where, sizeof(where), "/explain/%zu", i++);
        if (i > DC_WORKLOAD_MAX_EXPLAIN)
            return dc_error_set(err, DC_EINVAL, where, "explain lists at most %d kinds",
                                DC_WORKLOAD_MAX_EXPLAIN);
        const char *kind = cJSON_IsString(it) ? table_entry(explain_kinds, it->valuestring) : NULL;
        if (kind == NULL)
            return dc_error_set(err, DC_EINVAL, where,
                                "explain lists \"changes\" and \"robustness\" only");
        unsigned bit = 1u << enum_index(explain_kinds, kind);
        if (w->explain & bit)
            return dc_error_set(err, DC_EINVAL, where, "\"%s\" is listed twice", kind);
        w->explain |= bit;
    }
    return DC_OK;
}

/* Precision is what the math runs at; quantization how served weights are
 * stored. Neither trains in 4 bits (QLoRA keeps only its frozen base there). */
static enum dc_status check_precision(const struct dc_workload *w, struct dc_error *err)
{
    bool serving = w->task == DC_TASK_INFERENCE;
    if (!serving && w->precision == DC_PREC_INT4)
        return bad(err, NULL, "precision",
                   "int4 is a format for served weights, not a precision to train in: training "
                   "runs in bf16, fp16 or fp8 (training.method qlora keeps a frozen base in "
                   "4-bit NF4)");
    if (!serving && w->quantization != DC_QUANT_NONE)
        return bad(err, NULL, "quantization",
                   "quantization describes how served weights are stored; to fine-tune on a "
                   "4-bit base use training.method qlora");
    if (w->quantization != DC_QUANT_NONE &&
        (w->precision == DC_PREC_INT4 || w->precision == DC_PREC_FP4))
        return bad(err, NULL, "precision",
                   "with quantization %s the weights are stored apart from the math, which runs "
                   "at precision: give bf16, fp16 or fp8 there (AWQ and GPTQ kernels run 4-bit "
                   "weights with 16-bit math on Ampere, Ada and Hopper)",
                   dc__quantization_names[w->quantization]);
    return DC_OK;
}

enum dc_status dc_workload_parse(const dc_ruleset *rs, const cJSON *json, struct dc_workload *out,
                                 struct dc_error *err)
{
    if (rs == NULL || out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_workload_parse: NULL argument");
    memset(out, 0, sizeof(*out));
    if (!cJSON_IsObject(json))
        return dc_error_set(err, DC_EINVAL, "", "the workload must be a JSON object");
    const struct dc_sizing_params *sz = dc_ruleset_sizing(rs);
    struct dc_workload *w = out;
    const char *s = NULL;
    TRY(check_keys(json, NULL, top_keys, err));

    const cJSON *name = dc__member(json, "name");
    if (name != NULL) {
        if (!cJSON_IsString(name) || name->valuestring[0] == '\0' ||
            dc_utf8_count(name->valuestring) > DC_WORKLOAD_NAME_MAX)
            return bad(err, NULL, "name", "%s must be a string of 1 to 128 characters", "name");
        w->name = name->valuestring;
    }
    TRY(get_enum(json, NULL, "task", tasks, NULL, &s, err));
    w->task = (enum dc_task)enum_index(tasks, s);
    TRY(get_enum(json, NULL, "framework", frameworks, "pytorch", &w->framework, err));
    TRY(get_enum(json, NULL, "stage", stages, "development", &w->stage, err));
    TRY(get_enum(json, NULL, "precision", precision_words, "bf16", &s, err));
    w->tf32 = strcmp(s, "tf32") == 0;
    w->precision = w->tf32 ? DC_PREC_FP32 : (enum dc_precision)enum_index(precisions, s);
    TRY(get_enum(json, NULL, "quantization", dc__quantization_names, "none", &s, err));
    w->quantization = (enum dc_quantization)enum_index(dc__quantization_names, s);
    TRY(check_precision(w, err));
    TRY(get_enum(json, NULL, "objective", objectives, "balanced", &s, err));
    w->objective = (enum dc_objective)enum_index(objectives, s);
    TRY(get_bool(json, NULL, "prefer_available", &w->prefer_available, err));
    TRY(parse_explain(json, w, err));

    const cJSON *m = NULL;
    TRY(section(json, "model", dc__model_keys, &m, err));
    if (m == NULL)
        return bad(err, NULL, "model", "required field \"%s\" is missing", "model");
    cJSON *named = NULL;
    TRY(resolve_named(rs, m, w, &named, err));
    enum dc_status rc = dc__model_parse(named != NULL ? named : m, w, err);
    cJSON_Delete(named);
    TRY(rc);
    const cJSON *sec = NULL;
    TRY(section(json, "training", training_keys, &sec, err));
    TRY(parse_training(sz, sec, w, err));
    TRY(section(json, "inference", inference_keys, &sec, err));
    TRY(parse_inference(rs, sec, w, err));
    TRY(section(json, "constraints", constraint_keys, &sec, err));
    TRY(parse_constraints(rs, sec, w, err));
    TRY(section(json, "team", team_keys, &sec, err));
    /* The playbook both ways: a JAX or PyTorch/XLA team that does not say it
     * knows CUDA is taken not to (its stack is XLA; the mirror of the GPU
     * default below), every other team to know some. An assumption, warned. */
    bool xla_stack = strcmp(w->framework, "jax") == 0 || strcmp(w->framework, "pytorch-xla") == 0;
    w->cuda_experience_assumed = sec == NULL || dc__member(sec, "cuda_experience") == NULL;
    TRY(get_enum(sec, "team", "cuda_experience", experiences, xla_stack ? "none" : "some",
                 &w->cuda_experience, err));
    /* The playbook's GPU default: a PyTorch team, or a TensorFlow team on CUDA,
     * that does not say it knows XLA is taken not to (an assumption). */
    bool cuda_stack =
        strcmp(w->framework, "pytorch") == 0 ||
        (strcmp(w->framework, "tensorflow") == 0 && strcmp(w->cuda_experience, "none") != 0);
    w->xla_experience_assumed = sec == NULL || dc__member(sec, "xla_experience") == NULL;
    TRY(get_enum(sec, "team", "xla_experience", experiences, cuda_stack ? "none" : "some",
                 &w->xla_experience, err));
    return DC_OK;
}

/* ---- the document conditions read -------------------------------------------- */

const char *dc_workload_precision(const struct dc_workload *w)
{
    return w->tf32 ? "tf32" : dc_precision_name(w->precision);
}

/* A list of names by the JSON Pointer it belongs to. */
struct by_pointer {
    const char *pointer;
    const char *const *list;
};

static const char *const *find_list(const struct by_pointer *t, size_t n, const char *pointer)
{
    for (size_t i = 0; pointer != NULL && i < n; i++) {
        if (strcmp(t[i].pointer, pointer) == 0)
            return t[i].list;
    }
    return NULL;
}

const char *const *dc__workload_values(const char *pointer)
{
    static const struct by_pointer enums[] = {
        {"/framework", frameworks},
        {"/stage", stages},
        {"/precision", precision_words},
        {"/objective", objectives},
        {"/training/method", method_changes},
        {"/quantization", dc__quantization_names},
        {"/constraints/deployment", deployments},
        {"/constraints/pricing", pricings},
        {"/team/cuda_experience", experiences},
        {"/team/xla_experience", experiences},
    };
    return find_list(enums, sizeof(enums) / sizeof(enums[0]), pointer);
}

const char *const *dc__workload_keys(const char *pointer)
{
    static const struct by_pointer objects[] = {
        {"", top_keys},
        {"/model", dc__model_keys},
        {"/training", training_keys},
        {"/training/rl", rl_keys},
        {"/inference", inference_keys},
        {"/inference/speculative", speculative_keys},
        {"/inference/job", job_keys},
        {"/constraints", constraint_keys},
        {"/team", team_keys},
    };
    return find_list(objects, sizeof(objects) / sizeof(objects[0]), pointer);
}

/* The tables are in enum order (dc/workload.h) and end with NULL. */
const char *dc_task_name(enum dc_task t)
{
    return (unsigned)t <= DC_TASK_INFERENCE ? tasks[t] : "unknown";
}

const char *dc_deployment_name(enum dc_deployment d)
{
    return (unsigned)d <= DC_DEPLOY_HYBRID ? deployments[d] : "unknown";
}

const char *dc_objective_name(enum dc_objective o)
{
    return (unsigned)o <= DC_OBJECTIVE_BALANCED ? objectives[o] : "unknown";
}

/* A node as cJSON_Create* makes it, in `ar`: zeroed, its type set, a
 * number's valueint saturated as cJSON_CreateNumber sets it. */
static cJSON *arena_item(struct dc__arena *ar, int type, double number, const char *string)
{
    void *at = NULL;
    if (dc__arena_take(ar, sizeof(cJSON), &at) != DC_OK)
        return NULL;
    cJSON *n = at;
    *n = (cJSON){0}; /* in place: no call to zero 64 bytes */
    n->type = type;
    if (type == cJSON_Number) {
        dc__facts_number(n, number);
    } else if (type == cJSON_String) {
        n->type |= cJSON_IsReference;
        n->valuestring = (char *)(uintptr_t)string;
    }
    return n;
}

cJSON *dc__facts_item(struct dc__arena *ar, int type, double number, const char *string)
{
    if (ar != NULL)
        return arena_item(ar, type, number, string);
    switch (type) {
    case cJSON_Number:
        return cJSON_CreateNumber(number);
    case cJSON_String:
        return cJSON_CreateStringReference(string);
    case cJSON_Object:
        return cJSON_CreateObject();
    case cJSON_Array:
        return cJSON_CreateArray();
    case cJSON_True:
    case cJSON_False:
        return cJSON_CreateBool(type == cJSON_True);
    default:
        return cJSON_CreateNull();
    }
}

/* cJSON_Add* return NULL on OOM; one flag collects them so the builder reads
 * as the shape it builds. Nodes come from `ar`, or from cJSON when NULL. */
struct builder {
    bool oom;
    struct dc__arena *ar;
};

static cJSON *num(struct builder *b, double d)
{
    return dc__facts_item(b->ar, cJSON_Number, d, NULL);
}

static cJSON *num_or_null(struct builder *b, double d)
{
    return dc__facts_item(b->ar, isfinite(d) ? cJSON_Number : cJSON_NULL, d, NULL);
}

static cJSON *boolean(struct builder *b, bool v)
{
    return dc__facts_item(b->ar, v ? cJSON_True : cJSON_False, 0, NULL);
}

static cJSON *null_item(struct builder *b)
{
    return dc__facts_item(b->ar, cJSON_NULL, 0, NULL);
}

static cJSON *array(struct builder *b)
{
    return dc__facts_item(b->ar, cJSON_Array, 0, NULL);
}

/* cJSON_AddItemToObjectCS(parent, key, v) for nodes of an arena, without
 * the library's call: the key kept as a constant, v appended as cJSON 1.7
 * appends (the first child's prev is the last; sized_rules.c reads it so). */
static bool add_member(struct builder *b, cJSON *parent, const char *key, cJSON *v)
{
    if (b->ar == NULL || parent == v)
        return cJSON_AddItemToObjectCS(parent, key, v);
    v->string = (char *)(uintptr_t)key;
    v->type |= cJSON_StringIsConst;
    cJSON *first = parent->child;
    if (first == NULL) {
        parent->child = v;
        v->prev = v;
        v->next = NULL;
    } else {
        cJSON *last = first->prev;
        last->next = v;
        v->prev = last;
        first->prev = v;
    }
    return true;
}

static cJSON *obj(struct builder *b, cJSON *parent, const char *key)
{
    cJSON *o = dc__facts_item(b->ar, cJSON_Object, 0, NULL);
    if (o == NULL || !add_member(b, parent, key, o)) {
        if (b->ar == NULL)
            cJSON_Delete(o);
        b->oom = true;
        return parent; /* keep building into something valid; the result is discarded */
    }
    return o;
}

static void put(struct builder *b, cJSON *parent, const char *key, cJSON *v)
{
    if (v == NULL || !add_member(b, parent, key, v)) {
        if (b->ar == NULL)
            cJSON_Delete(v);
        b->oom = true;
    }
}

static cJSON *str(struct builder *b, const char *s)
{
    return dc__facts_item(b->ar, cJSON_String, 0, s);
}

static void put_allowed(struct builder *b, const dc_ruleset *rs, const struct dc_workload *w,
                        cJSON *parent)
{
    cJSON *ids = array(b);
    for (size_t i = 0; ids != NULL && i < w->n_allowed; i++) {
        cJSON *s = str(b, dc_ruleset_accelerator(rs, w->allowed[i])->id);
        if (s == NULL)
            b->oom = true;
        else
            cJSON_AddItemToArray(ids, s);
    }
    put(b, parent, "accelerators", ids);
}

static void put_model(struct builder *b, const struct dc_workload *w, cJSON *root)
{
    cJSON *m = obj(b, root, "model");
    put(b, m, "architecture", str(b, w->architecture));
    put(b, m, "parameters", num(b, w->parameters));
    put(b, m, "active_parameters", num(b, w->active_parameters));
    put(b, m, "embedding_parameters", num(b, w->embedding_parameters));
    put(b, m, "flops_per_sample", num_or_null(b, w->flops_per_sample));
    put(b, m, "custom_ops", boolean(b, w->custom_ops));
    put(b, m, "dynamic_shapes", boolean(b, w->dynamic_shapes));
    put(b, m, "sparse_embeddings", boolean(b, w->sparse_embeddings));
    put(b, m, "compute_pattern", str(b, w->compute_pattern));
    put(b, m, "layers", num_or_null(b, w->layers));
    put(b, m, "hidden_size", num_or_null(b, w->hidden_size));
    put(b, m, "attention_heads", num_or_null(b, w->attention_heads));
    put(b, m, "kv_heads", num_or_null(b, w->kv_heads));
    put(b, m, "name", w->model_name != NULL ? str(b, w->model_name) : null_item(b));
    put(b, m, "head_dim", num_or_null(b, w->head_dim));
    put(b, m, "intermediate_size", num_or_null(b, w->intermediate_size));
    put(b, m, "context_length", num_or_null(b, w->context_length));
    put(b, m, "attention", str(b, w->attention));
    put(b, m, "sliding_window", num_or_null(b, w->sliding_window));
    put(b, m, "full_attention_every", num_or_null(b, w->full_attention_every));
    put(b, m, "kv_latent_dim", num_or_null(b, w->kv_latent_dim));
    put(b, m, "experts", num_or_null(b, w->experts));
    put(b, m, "experts_per_token", num_or_null(b, w->experts_per_token));
    put(b, m, "encoder_layers", num_or_null(b, w->encoder_layers));
    put(b, m, "tokens_per_sample", num_or_null(b, w->tokens_per_sample));
    put(b, m, "denoising_steps", num_or_null(b, w->denoising_steps));
    put(b, m, "guidance_passes", num_or_null(b, w->guidance_passes));
    put(b, m, "vae_flops_per_sample", num_or_null(b, w->vae_flops_per_sample));
    put(b, m, "embedding_dim", num_or_null(b, w->embedding_dim));
    put(b, m, "lookups_per_sample", num_or_null(b, w->lookups_per_sample));
    put(b, m, "embedding_tables", num_or_null(b, w->embedding_tables));
}

static void put_derived(struct builder *b, const struct dc__derived *d, cJSON *root)
{
    cJSON *dv = obj(b, root, "derived");
    put(b, dv, "training_flops", num(b, d->training_flops));
    put(b, dv, "h100_days", num_or_null(b, d->h100_days));
    put(b, dv, "memory_gb", num(b, d->memory_gb));
    put(b, dv, "state_gb", num(b, d->state_gb));
    put(b, dv, "activations_gb", num(b, d->activations_gb));
    put(b, dv, "weights_gb", num(b, d->weights_gb));
    put(b, dv, "active_weights_gb", num(b, d->active_weights_gb));
    put(b, dv, "kv_cache_gb", num(b, d->kv_cache_gb));
    put(b, dv, "dense_parameters", num(b, d->dense_parameters));
    put(b, dv, "generative", boolean(b, d->generative));
    put(b, dv, "precision_bits", num(b, d->precision_bits));
    static const char *const kinds[] = {
        "decoder", "encoder", "encoder-decoder", "diffusion", "vision", "recommender", "other"};
    put(b, dv, "kind", str(b, kinds[d->kind]));
    put(b, dv, "estimate_withheld", boolean(b, d->withheld != NULL));
}

enum dc_status dc__facts_build(const dc_ruleset *rs, const struct dc_workload *w,
                               const struct dc__derived *d, struct dc__arena *ar, cJSON **out)
{
    struct builder bb = {false, ar}, *b = &bb;
    *out = NULL;
    cJSON *root = dc__facts_item(ar, cJSON_Object, 0, NULL);
    if (root == NULL)
        return DC_ENOMEM;
    put(b, root, "task", str(b, tasks[w->task]));
    put(b, root, "framework", str(b, w->framework));
    put(b, root, "stage", str(b, w->stage));
    put(b, root, "precision", str(b, dc_workload_precision(w)));
    put(b, root, "quantization", str(b, dc__quantization_names[w->quantization]));
    put(b, root, "objective", str(b, objectives[w->objective]));
    put(b, root, "prefer_available", boolean(b, w->prefer_available));
    put_model(b, w, root);
    cJSON *t = obj(b, root, "training");
    put(b, t, "tokens", num(b, w->tokens));
    put(b, t, "samples", num_or_null(b, w->samples));
    put(b, t, "sequence_length", num(b, w->sequence_length));
    put(b, t, "method", str(b, methods[w->method]));
    put(b, t, "global_batch_size", num(b, w->global_batch_size));
    put(b, t, "deadline_hours", num_or_null(b, w->deadline_hours));
    put(b, t, "input_bound", boolean(b, w->input_bound));
    cJSON *i = obj(b, root, "inference");
    put(b, i, "requests_per_second", num(b, w->requests_per_second));
    put(b, i, "latency_ms_p99", num_or_null(b, w->latency_ms_p99));
    put(b, i, "context_tokens", num(b, w->context_tokens));
    put(b, i, "input_tokens", num(b, w->input_tokens));
    put(b, i, "output_tokens", num(b, w->output_tokens));
    put(b, i, "kv_cache_precision", str(b, dc_precision_name(w->kv_precision)));
    put(b, i, "batch_size", num_or_null(b, w->batch_size));
    put(b, i, "prefix_cache_hit_rate", num(b, w->prefix_cache_hit_rate));
    put(b, i, "audio_decoded", boolean(b, w->audio_decoded));
    put(b, i, "speculative", boolean(b, w->draft_tokens > 0));
    put(b, i, "job", boolean(b, w->job_requests > 0));
    cJSON *c = obj(b, root, "constraints");
    put(b, c, "deployment", str(b, deployments[w->deployment]));
    cJSON *prov = array(b);
    for (unsigned p = 0; prov != NULL && p < DC_PROVIDER_COUNT; p++) {
        if (w->providers & (1u << p)) {
            cJSON *s = str(b, dc_provider_name((enum dc_provider)p));
            if (s == NULL)
                b->oom = true;
            else
                cJSON_AddItemToArray(prov, s);
        }
    }
    put(b, c, "providers", prov);
    put(b, c, "budget_usd", num_or_null(b, w->budget_usd));
    put(b, c, "max_accelerators", num_or_null(b, w->max_accelerators));
    put_allowed(b, rs, w, c);
    put(b, c, "pricing", str(b, pricings[w->pricing]));
    put(b, c, "portable", boolean(b, w->portable));
    put(b, c, "fleet_only", boolean(b, w->fleet_only));
    cJSON *team = obj(b, root, "team");
    put(b, team, "cuda_experience", str(b, w->cuda_experience));
    put(b, team, "xla_experience", str(b, w->xla_experience));
    put_derived(b, d, root);
    if (b->oom) {
        if (ar == NULL)
            cJSON_Delete(root);
        return DC_ENOMEM;
    }
    *out = root;
    return DC_OK;
}
