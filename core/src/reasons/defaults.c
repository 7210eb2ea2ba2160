/* core/src/reasons/defaults.c -- no silent default: every default that moves a
 * number of the result is listed in `assumptions` and warned about, naming
 * the field to give (docs/scoring.md, sections 1 and 9). Owned by the
 * model-registry work (issue 16); report.c calls it with the other warnings. */
#include <math.h>
#include <string.h>

#include "arena.h"
#include "dc/models.h"
#include "dc/numfmt.h"
#include "reasons.h"
#include "ruleset_internal.h"
#include "result_build.h"

#define CONVENTION "convention"

static bool decoder_like(const struct dc__derived *d)
{
    return d->kind == DC__KIND_DECODER || d->kind == DC__KIND_ENCODER_DECODER;
}

/* The architecture guessed: experts, KV heads, depth and width. */
static enum dc_status shape_defaults(struct dc_result *res, const struct dc__derived *d)
{
    const struct dc_workload *w = &res->workload;
    struct dc__arena *ar = res->arena_;
    enum dc_status rc = DC_OK;
    char n1[48], n2[48];
    if (strcmp(w->architecture, "moe") == 0 && w->active_defaulted) {
        dc__add_assumption(res, "active_parameters", w->active_parameters, "parameters",
                           CONVENTION);
        rc = dc__add_warning(
            res, "assumed_active_parameters",
            dc__fmt(ar,
                    "model.active_parameters was not given, so this mixture of experts is sized "
                    "as if every token used all %s parameters; give model.active_parameters "
                    "(Mixtral 8x7B: 12.9B of 46.7B) or a model.name.",
                    dc_fmt_quantity(w->parameters, n1, sizeof(n1))));
    }
    if (rc == DC_OK && strcmp(w->architecture, "moe") == 0 && !w->active_defaulted &&
        w->active_parameters < w->parameters && !isfinite(w->experts))
        rc = dc__add_warning(
            res, "assumed_expert_width",
            "model.experts was not given, so this mixture of experts computes at a dense "
            "model's matmul rate; narrow experts run well below it (DeepSeek-V3's 2,048-wide "
            "experts at about 0.6 of it): give model.experts and model.experts_per_token or a "
            "model.name.");
    bool attends = decoder_like(d) || d->kind == DC__KIND_ENCODER;
    if (rc == DC_OK && attends && d->shape_estimated) {
        dc__add_assumption(res, "layers", d->layers, "layers", CONVENTION);
        dc__add_assumption(res, "hidden_size", d->hidden, "elements", CONVENTION);
        rc = dc__add_warning(
            res, "assumed_shape",
            dc__fmt(ar,
                    "model.layers and model.hidden_size were not both given; %s layers of "
                    "%s were estimated from the parameters, which moves the KV cache and "
                    "activations: give them or a model.name.",
                    dc_fmt_count(d->layers, n1, sizeof(n1)),
                    dc_fmt_count(d->hidden, n2, sizeof(n2))));
    }
    if (rc == DC_OK && decoder_like(d) && d->kv_heads_assumed) {
        dc__add_assumption(res, "kv_heads", d->kv_heads, "heads", CONVENTION);
        rc = dc__add_warning(
            res, "assumed_kv_heads",
            dc__fmt(ar,
                    "model.kv_heads was not given, so each of the %s attention heads is taken "
                    "as a KV head (multi-head attention); a grouped-query model caches that "
                    "many times less (Llama 3: 8 KV heads): give model.kv_heads or a model.name.",
                    dc_fmt_count(d->kv_heads, n1, sizeof(n1))));
    }
    return rc;
}

/* Compute guessed or missing for models that are not transformers. */
static enum dc_status compute_defaults(struct dc_result *res, const struct dc__derived *d)
{
    const struct dc_workload *w = &res->workload;
    struct dc__arena *ar = res->arena_;
    enum dc_status rc = DC_OK;
    if (d->withheld != NULL)
        rc = dc__add_warning(
            res, "estimate_withheld",
            dc__fmt(ar,
                    "Time and cost are not shown: without %s the compute of a %s model is not "
                    "known to within 3x (2 x parameters a sample runs 100x low for a CNN). Give "
                    "%s, or a model.name of the registry (GET /v1/models).",
                    d->withheld, w->architecture, d->withheld));
    else if (d->flops_rough)
        dc__add_assumption(res, "flops_per_sample", 2.0 * d->dense_parameters, "flop",
                           "https://arxiv.org/abs/2001.08361");
    if (rc == DC_OK && d->guidance_assumed && d->withheld == NULL && w->task == DC_TASK_INFERENCE) {
        dc__add_assumption(res, "guidance_passes", 1, "passes", CONVENTION);
        rc = dc__add_warning(res, "assumed_guidance_passes",
                             "model.guidance_passes was not given: one network pass per "
                             "denoising step is assumed; classifier-free guidance runs two.");
    }
    if (rc == DC_OK && d->ffn_assumed) {
        dc__add_assumption(res, "intermediate_size", 4.0 * d->hidden, "elements",
                           "https://arxiv.org/abs/1706.03762");
        rc = dc__add_warning(res, "assumed_intermediate_size",
                             "model.intermediate_size was not given: the FFN is taken as 4 x "
                             "hidden_size, which splits the parameters between encoder and "
                             "decoder; give it or a model.name.");
    }
    if (rc == DC_OK && d->lookups_assumed && d->withheld == NULL) {
        dc__add_assumption(res, "lookups_per_sample", 0, "rows", CONVENTION);
        rc = dc__add_warning(res, "assumed_lookups",
                             "model.lookups_per_sample and embedding_dim were not given: the "
                             "table rows a request reads are not counted; give them.");
    }
    return rc;
}

/* Tokens a request or a run was assumed to have. */
static enum dc_status token_defaults(const struct dc_sizing_params *s, struct dc_result *res,
                                     const struct dc__derived *d)
{
    const struct dc_workload *w = &res->workload;
    struct dc__arena *ar = res->arena_;
    char n1[48], n2[48];
    if (w->task == DC_TASK_INFERENCE && w->output_tokens_defaulted) {
        dc__add_assumption(res, "output_tokens", w->output_tokens, "tokens",
                           s->output_tokens.source);
        return dc__add_warning(
            res, "assumed_request_tokens",
            dc__fmt(ar,
                    "inference.output_tokens was not given: %s of the %s context tokens are "
                    "taken as generated, which sets the decode steps; give output_tokens (0 "
                    "for a model that only reads its input, such as an embedding model).",
                    dc_fmt_count(w->output_tokens, n1, sizeof(n1)),
                    dc_fmt_count(w->context_tokens, n2, sizeof(n2))));
    }
    if (w->task == DC_TASK_INFERENCE) {
        if (!w->request_tokens_defaulted)
            return DC_OK;
        dc__add_assumption(res, "input_tokens", w->input_tokens, "tokens",
                           s->context_tokens.source);
        if (decoder_like(d))
            dc__add_assumption(res, "output_tokens", w->output_tokens, "tokens",
                               s->output_tokens.source);
        return dc__add_warning(
            res, "assumed_request_tokens",
            decoder_like(d)
                ? dc__fmt(ar,
                          "inference.input_tokens and output_tokens were not given: %s in and "
                          "%s generated are assumed (sizing.yaml); give them, they set the KV "
                          "cache and the decode steps.",
                          dc_fmt_count(w->input_tokens, n1, sizeof(n1)),
                          dc_fmt_count(w->output_tokens, n2, sizeof(n2)))
                : dc__fmt(ar,
                          "inference.input_tokens was not given: %s tokens a request are "
                          "assumed (sizing.yaml); give it.",
                          dc_fmt_count(w->input_tokens, n1, sizeof(n1))));
    }
    enum dc_status rc = DC_OK;
    if (w->tokens_defaulted && !isfinite(w->samples))
        dc__add_assumption(res, "training_tokens", w->tokens, "tokens",
                           w->task == DC_TASK_TRAINING ? "https://arxiv.org/abs/2203.15556"
                                                       : CONVENTION);
    if (w->tokens_defaulted && !isfinite(w->samples))
        rc = dc__add_warning(
            res, "assumed_training_tokens",
            dc__fmt(ar,
                    w->task == DC_TASK_TRAINING
                        ? "training.tokens was not given: %s tokens (20 per parameter, "
                          "Chinchilla) are assumed; give training.tokens or training.samples."
                        : "training.tokens was not given: %s tokens (a typical supervised "
                          "fine-tuning set) are assumed; give training.tokens or "
                          "training.samples.",
                    dc_fmt_quantity(w->tokens, n1, sizeof(n1))));
    if (rc == DC_OK && w->method == DC_METHOD_RL && w->rl_rollout_share_defaulted) {
        dc__add_assumption(res, "rl_rollout_share", w->rl_rollout_share, "ratio",
                           s->rl_rollout_share.source);
        rc = dc__add_warning(
            res, "assumed_rollout_share",
            dc__fmt(ar,
                    "training.rl.rollout_share was not given: rollouts are taken as %s of "
                    "each RL step (sizing.yaml); give your own measured share.",
                    dc_fmt_percent(w->rl_rollout_share, n1, sizeof(n1))));
    }
    return rc;
}

/* A model given by its size whose shape was guessed, while the registry has
 * an entry of the same architecture and about that size (within 10%): name
 * the closest, whose published shape would replace the guesses. */
static enum dc_status registry_hint(const dc_ruleset *rs, struct dc_result *res,
                                    const struct dc__derived *d)
{
    const struct dc_workload *w = &res->workload;
    /* The guesses the other warnings name (shape_defaults). */
    bool attends = decoder_like(d) || d->kind == DC__KIND_ENCODER;
    bool guessed = (attends && d->shape_estimated) || (decoder_like(d) && d->kv_heads_assumed) ||
                   (strcmp(w->architecture, "moe") == 0 && w->active_defaulted);
    if (w->model_name != NULL || !guessed || !(w->parameters > 0))
        return DC_OK;
    const struct dc_model_info *best = NULL;
    double best_gap = 0.10;
    for (size_t i = 0; i < dc_ruleset_model_count(rs); i++) {
        const struct dc_model_info *m = dc_ruleset_model(rs, i);
        /* Read at load: a registry entry's model object has dozens of members. */
        double params = rs->model_parameters[i];
        if (!(params > 0) || m->architecture == NULL ||
            strcmp(m->architecture, w->architecture) != 0)
            continue;
        double gap = fabs(w->parameters - params) / params;
        if (gap <= best_gap)
            best = m, best_gap = gap;
    }
    if (best == NULL)
        return DC_OK;
    char n1[48];
    return dc__add_warning(
        res, "registry_match",
        dc__fmt(res->arena_,
                "A %s of %s parameters matches %s (%s) in the model registry; if that is the "
                "model, give model.name \"%s\" (or its Hugging Face id) and its published "
                "shape replaces the guessed one.",
                w->architecture, dc_fmt_quantity(w->parameters, n1, sizeof(n1)), best->name,
                best->title != NULL ? best->title : best->name, best->name));
}

enum dc_status dc__report_defaults(const dc_ruleset *rs, struct dc_result *res,
                                   const struct dc__derived *d)
{
    const struct dc_sizing_params *s = &rs->sizing;
    enum dc_status rc = shape_defaults(res, d);
    if (rc == DC_OK)
        rc = compute_defaults(res, d);
    if (rc == DC_OK)
        rc = token_defaults(s, res, d);
    if (rc == DC_OK)
        rc = registry_hint(rs, res, d);
    if (rc == DC_OK && res->workload.draft_tokens > 0)
        dc__add_assumption(res, "tokens_per_decode_step", d->tokens_per_step, "tokens",
                           "https://arxiv.org/abs/2211.17192");
    return rc;
}
