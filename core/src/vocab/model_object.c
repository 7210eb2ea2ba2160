/* core/src/vocab/model_object.c -- a Workload `model` object to the model fields
 * of struct dc_workload, every field checked (type, enum, range, and the
 * fields that go together or only with one architecture). The workload
 * parser (workload.c) reads a request's model with it, after merging in the
 * registry entry that model.name names; the model registry (models.c) checks
 * each of its entries with it, so a named model can never hold what a request
 * could not. Beneath both: it knows neither the registry nor the rest of a
 * workload. */
#include "model_object.h"

#include <math.h>
#include <string.h>

#include "dc/numfmt.h"
#include "field_read.h"

#define NUM 48 /* a number formatted by dc/numfmt.h */

static const char *const architectures[] = {
    "transformer",     "cnn", "rnn",   "mlp", "recommender", "gnn", "diffusion", "moe", "encoder",
    "encoder-decoder", "vit", "other", NULL};
static const char *const attentions[] = {"full", "sliding_window", "mla", NULL};
static const char *const patterns[] = {"matmul", "elementwise", "branching", NULL};

const char *const dc__model_keys[] = {"name",
                                      "architecture",
                                      "custom_ops",
                                      "dynamic_shapes",
                                      "parameters",
                                      "active_parameters",
                                      "embedding_parameters",
                                      "flops_per_sample",
                                      "sparse_embeddings",
                                      "compute_pattern",
                                      "layers",
                                      "hidden_size",
                                      "attention_heads",
                                      "kv_heads",
                                      "head_dim",
                                      "intermediate_size",
                                      "context_length",
                                      "attention",
                                      "sliding_window",
                                      "full_attention_every",
                                      "kv_latent_dim",
                                      "experts",
                                      "experts_per_token",
                                      "encoder_layers",
                                      "tokens_per_sample",
                                      "denoising_steps",
                                      "guidance_passes",
                                      "vae_flops_per_sample",
                                      "embedding_dim",
                                      "lookups_per_sample",
                                      "embedding_tables",
                                      NULL};

/* An integer field of the architecture in [1, hi]; NAN when absent. */
static enum dc_status get_dim(const cJSON *m, const char *key, double hi, double *out,
                              struct dc_error *err)
{
    return get_num(m, "model", key, 1, false, hi, true, NAN, out, err);
}

static enum dc_status parse_model_counts(const cJSON *m, struct dc_workload *w,
                                         struct dc_error *err)
{
    if (!present(m, "parameters"))
        return bad(err, "model", "parameters",
                   "required field \"parameters\" is missing (or name a model of the registry "
                   "with model.name: GET /v1/models lists them)");
    TRY(get_num(m, "model", "parameters", 1, false, DC_WORKLOAD_MAX_PARAMETERS, false, NAN,
                &w->parameters, err));
    w->active_defaulted = !present(m, "active_parameters");
    TRY(get_num(m, "model", "active_parameters", 1, false, DC_WORKLOAD_MAX_PARAMETERS, false,
                w->parameters, &w->active_parameters, err));
    char q1[NUM], q2[NUM]; /* counts as people read them: "20B", not "2e+10" */
    if (w->active_parameters > w->parameters)
        return bad(err, "model", "active_parameters",
                   "active_parameters (%s) exceeds parameters (%s): it counts the parameters "
                   "one token or sample uses, a subset of all of them",
                   dc_fmt_quantity(w->active_parameters, q1, sizeof(q1)),
                   dc_fmt_quantity(w->parameters, q2, sizeof(q2)));
    TRY(get_num(m, "model", "embedding_parameters", 0, false, DC_WORKLOAD_MAX_PARAMETERS, false, 0,
                &w->embedding_parameters, err));
    if (w->embedding_parameters >= w->active_parameters)
        return bad(err, "model", "embedding_parameters",
                   "embedding_parameters (%s) must be less than active_parameters (%s), which "
                   "count them",
                   dc_fmt_quantity(w->embedding_parameters, q1, sizeof(q1)),
                   dc_fmt_quantity(w->active_parameters, q2, sizeof(q2)));
    TRY(get_num(m, "model", "flops_per_sample", 0, true, 1e18, false, NAN, &w->flops_per_sample,
                err));
    TRY(get_bool(m, "model", "custom_ops", &w->custom_ops, err));
    TRY(get_bool(m, "model", "dynamic_shapes", &w->dynamic_shapes, err));
    TRY(get_bool(m, "model", "sparse_embeddings", &w->sparse_embeddings, err));
    return get_enum(m, "model", "compute_pattern", patterns, "matmul", &w->compute_pattern, err);
}

/* A field that only one kind of model has: an error on any other. */
static enum dc_status only_for(const cJSON *m, const struct dc_workload *w, const char *key,
                               bool applies, const char *which, struct dc_error *err)
{
    if (applies || !present(m, key))
        return DC_OK;
    return bad(err, "model", key, "%s applies to %s, not to architecture %s", key, which,
               w->architecture);
}

/* Attention: full, a sliding window (every layer, or all but one in
 * full_attention_every), or MLA's latent cache. */
static enum dc_status parse_attention(const cJSON *m, struct dc_workload *w, struct dc_error *err)
{
    TRY(get_dim(m, "sliding_window", 1e7, &w->sliding_window, err));
    TRY(get_num(m, "model", "full_attention_every", 2, false, 1e4, true, NAN,
                &w->full_attention_every, err));
    TRY(get_dim(m, "kv_latent_dim", 1e6, &w->kv_latent_dim, err));
    const char *dflt = isfinite(w->sliding_window)  ? "sliding_window"
                       : isfinite(w->kv_latent_dim) ? "mla"
                                                    : "full";
    TRY(get_enum(m, "model", "attention", attentions, dflt, &w->attention, err));
    bool sliding = strcmp(w->attention, "sliding_window") == 0;
    bool mla = strcmp(w->attention, "mla") == 0;
    if (sliding && !isfinite(w->sliding_window))
        return bad(err, "model", "sliding_window",
                   "attention sliding_window needs sliding_window (tokens each windowed layer "
                   "attends to)");
    if (mla && !isfinite(w->kv_latent_dim))
        return bad(err, "model", "kv_latent_dim",
                   "attention mla needs kv_latent_dim (elements cached per token and layer: "
                   "kv_lora_rank + qk_rope_head_dim, 576 for DeepSeek-V3)");
    if (!sliding && (isfinite(w->sliding_window) || isfinite(w->full_attention_every)))
        return bad(err, "model",
                   isfinite(w->sliding_window) ? "sliding_window" : "full_attention_every",
                   "a window applies to attention sliding_window, not %s", w->attention);
    if (!mla && isfinite(w->kv_latent_dim))
        return bad(err, "model", "kv_latent_dim", "kv_latent_dim applies to attention mla, not %s",
                   w->attention);
    return DC_OK;
}

static enum dc_status parse_model_shape(const cJSON *m, struct dc_workload *w, struct dc_error *err)
{
    TRY(get_dim(m, "layers", 10000, &w->layers, err));
    TRY(get_dim(m, "hidden_size", 1e6, &w->hidden_size, err));
    TRY(get_dim(m, "attention_heads", 1e5, &w->attention_heads, err));
    TRY(get_dim(m, "kv_heads", 1e5, &w->kv_heads, err));
    if (isfinite(w->kv_heads) && isfinite(w->attention_heads) && w->kv_heads > w->attention_heads)
        return bad(err, "model", "kv_heads",
                   "kv_heads (%g) exceeds attention_heads (%g): grouped-query attention shares "
                   "each KV head among several query heads",
                   w->kv_heads, w->attention_heads);
    if (isfinite(w->kv_heads) && isfinite(w->attention_heads) &&
        fmod(w->attention_heads, w->kv_heads) != 0)
        return bad(err, "model", "kv_heads",
                   "kv_heads (%g) does not divide attention_heads (%g): grouped-query attention "
                   "gives each KV head the same number of query heads",
                   w->kv_heads, w->attention_heads);
    TRY(get_dim(m, "head_dim", 1e5, &w->head_dim, err));
    TRY(get_dim(m, "intermediate_size", 1e7, &w->intermediate_size, err));
    TRY(get_dim(m, "context_length", 1e8, &w->context_length, err));
    TRY(parse_attention(m, w, err));
    TRY(get_dim(m, "experts", 1e5, &w->experts, err));
    TRY(get_dim(m, "experts_per_token", 1e5, &w->experts_per_token, err));
    bool moe = arch_is(w, "moe");
    TRY(only_for(m, w, "experts", moe, "moe", err));
    TRY(only_for(m, w, "experts_per_token", moe, "moe", err));
    if (isfinite(w->experts) != isfinite(w->experts_per_token))
        return bad(err, "model", isfinite(w->experts) ? "experts_per_token" : "experts",
                   "experts and experts_per_token go together");
    if (isfinite(w->experts) && w->experts_per_token > w->experts)
        return bad(err, "model", "experts_per_token", "experts_per_token (%g) exceeds experts (%g)",
                   w->experts_per_token, w->experts);
    return DC_OK;
}

/* Encoder-decoder, vision, diffusion and recommender fields. */
static enum dc_status parse_model_kind(const cJSON *m, struct dc_workload *w, struct dc_error *err)
{
    TRY(get_dim(m, "encoder_layers", 10000, &w->encoder_layers, err));
    TRY(only_for(m, w, "encoder_layers", arch_is(w, "encoder-decoder"), "encoder-decoder", err));
    TRY(get_dim(m, "tokens_per_sample", 1e7, &w->tokens_per_sample, err));
    TRY(only_for(m, w, "tokens_per_sample", arch_is(w, "encoder-decoder") || arch_is(w, "vit"),
                 "encoder-decoder and vit", err));
    TRY(get_dim(m, "denoising_steps", 1e4, &w->denoising_steps, err));
    TRY(get_num(m, "model", "guidance_passes", 1, false, 4, true, NAN, &w->guidance_passes, err));
    TRY(only_for(m, w, "denoising_steps", arch_is(w, "diffusion"), "diffusion", err));
    TRY(only_for(m, w, "guidance_passes", arch_is(w, "diffusion"), "diffusion", err));
    TRY(get_num(m, "model", "vae_flops_per_sample", 0, true, 1e18, false, NAN,
                &w->vae_flops_per_sample, err));
    TRY(only_for(m, w, "vae_flops_per_sample", arch_is(w, "diffusion"), "diffusion", err));
    TRY(get_dim(m, "embedding_dim", 1e6, &w->embedding_dim, err));
    TRY(get_num(m, "model", "lookups_per_sample", 0, true, 1e7, false, NAN, &w->lookups_per_sample,
                err));
    TRY(only_for(m, w, "embedding_dim", arch_is(w, "recommender"), "recommender", err));
    TRY(only_for(m, w, "lookups_per_sample", arch_is(w, "recommender"), "recommender", err));
    TRY(get_dim(m, "embedding_tables", 1e6, &w->embedding_tables, err));
    TRY(only_for(m, w, "embedding_tables", arch_is(w, "recommender"), "recommender", err));
    if (isfinite(w->embedding_tables) && !(w->embedding_tables <= w->lookups_per_sample))
        return bad(err, "model", "embedding_tables",
                   "embedding_tables needs lookups_per_sample and embedding_dim, and no more "
                   "tables than lookups (each table a sample reads pools one row or more)");
    if (isfinite(w->embedding_dim) != isfinite(w->lookups_per_sample))
        return bad(err, "model",
                   isfinite(w->embedding_dim) ? "lookups_per_sample" : "embedding_dim",
                   "embedding_dim and lookups_per_sample go together (a sample reads "
                   "lookups_per_sample rows of embedding_dim values)");
    return DC_OK;
}

enum dc_status dc__model_parse(const cJSON *m, struct dc_workload *w, struct dc_error *err)
{
    TRY(get_enum(m, "model", "architecture", architectures, "transformer", &w->architecture, err));
    TRY(parse_model_counts(m, w, err));
    TRY(parse_model_shape(m, w, err));
    return parse_model_kind(m, w, err);
}

enum dc_status dc__model_check(const dc_ruleset *rs, const cJSON *model, struct dc_error *err)
{
    (void)rs;
    struct dc_workload w;
    memset(&w, 0, sizeof(w));
    if (!cJSON_IsObject(model))
        return dc_error_set(err, DC_EINVAL, "/model", "model must be an object");
    TRY(check_keys(model, "model", dc__model_keys, err));
    if (present(model, "name"))
        return bad(err, "model", "name", "a registry entry cannot name another");
    return dc__model_parse(model, &w, err);
}
