/* core/src/workload/workload_internal.h -- what the engine computes about a workload
 * before any accelerator is considered (derive.c fills it; rule conditions read
 * part of it under `derived`) and the workload parser's tables and helpers.
 * Included through sizing.h, and by workload.c. Not part of the public
 * API. */
#ifndef DC_WORKLOAD_INTERNAL_H
#define DC_WORKLOAD_INTERNAL_H

#include <limits.h>

#include "dc/workload.h"

/* What kind of model it is, for its physics (docs/scoring.md, section 2). */
enum dc__kind {
    DC__KIND_DECODER,         /* transformer, moe: prefill, then one token per step */
    DC__KIND_ENCODER,         /* encoder: one forward pass over the input, no decode */
    DC__KIND_ENCODER_DECODER, /* speech: encoder frames once, then decoder steps */
    DC__KIND_DIFFUSION,       /* steps x passes x FLOPs per pass */
    DC__KIND_VISION,          /* cnn, vit: FLOPs per sample */
    DC__KIND_RECOMMENDER,     /* sparse tables (memory, lookups) + dense FLOPs */
    DC__KIND_OTHER            /* rnn, mlp, gnn, other */
};

/* Workload-level quantities, before any accelerator is considered
 * (core/src/sizing/derive.c fills them; core/src/sizing/sizing.c reads them per
 * accelerator). Memory in GB (1e9 bytes), compute in FLOPs, traffic in bytes. */
struct dc__derived {
    enum dc__kind kind;
    double precision_bits;
    /* The transformer shape the memory model uses: given, or estimated from the
     * dense parameters (shape_estimated). */
    double layers;
    double hidden;
    double heads;
    double head_dim;
    double kv_heads;
    bool shape_estimated;
    bool kv_heads_assumed;   /* model.kv_heads absent: every head is a KV head */
    double dense_parameters; /* active minus embedding parameters: what a token computes with */
    /* Defaults that move a number (each an assumption and a warning, report
     * side: core/src/reasons/defaults.c). */
    bool flops_rough;      /* compute guessed as 2 x parameters per sample */
    bool guidance_assumed; /* diffusion: one network pass per step */
    bool ffn_assumed;      /* encoder-decoder: FFN width taken as 4 x hidden */
    bool lookups_assumed;  /* recommender: no lookups counted */
    /* The model field whose absence leaves time and cost off by more than 3x:
     * sizing then withholds them ("model.flops_per_sample"); NULL. */
    const char *withheld;
    /* training */
    double training_flops; /* model FLOPs of the whole run; 0 for inference */
    double training_bytes; /* recommender: embedding rows read and updated; 0 */
    double samples;        /* training: samples (sequences) the run processes */
    double state_gb;       /* weights, gradients and optimizer state of the whole job */
    double activations_gb; /* one micro-batch's activations, before tensor-parallel split */
    double h100_days;      /* NAN when the catalog has no h100 */
    /* A mixture of experts: one routed expert's feed-forward width (its
     * grouped matmuls run below dense ones); NAN for a dense model. */
    double expert_width;
    /* inference */
    double weights_gb;         /* every weight held: all parameters (and a draft) as stored */
    double active_weights_gb;  /* what one token reads: active parameters as stored */
    bool generative;           /* decodes output tokens one step at a time (KV cache) */
    double kv_bytes_per_token; /* one request's cache at full context / its tokens */
    double kv_cache_gb;        /* one request's cache at full context */
    double kv_step_bytes;      /* the cache a decode step reads for one request, on average */
    double flops_per_request;  /* prefill (generative, incl. attention, less the cached
                                  prefix) or the whole request otherwise */
    double decode_flops;       /* one request's FLOPs in one decode step */
    double decode_attn_flops;  /* the part of them attending to the cache (16-bit) */
    double tokens_per_step;    /* tokens a decode step yields (speculative: > 1) */
    double decode_steps;       /* decode steps per request */
    /* Weights a step reads (dc__step_weight_bytes): the part read at any batch,
     * and the routed experts of which a batch touches a share. */
    double shared_weight_bytes;
    double expert_weight_bytes;     /* 0 for a dense model */
    double expert_share;            /* experts_per_token / experts; NAN: unknown */
    double expert_active_bytes;     /* experts one token reads (unknown share) */
    double tokens_per_request_step; /* tokens one request puts through a step */
    double lookup_bytes;            /* recommender: table rows one request reads */
    double audio_seconds;           /* speech: seconds of audio a request is; 0 else */
    /* Recommender: values one sample's pooled rows hold (tables x
     * embedding_dim; each looked-up row without embedding_tables), what
     * sharded tables exchange; 0 when the lookups are not given. */
    double pooled_values;
    /* Speculative decoding: the draft's shape (its registry entry's, else the
     * shape rule's) and its own steps per target step; 0 steps without one. */
    double draft_layers;
    double draft_hidden;
    double draft_steps;
    double memory_gb; /* training: state + activations; inference: one request */
};

/* Every weight a served (or trained) model holds, a draft's included, as
 * stored: quantized, else at the workload precision. */
double dc__weights_gb(const struct dc_sizing_params *s, const struct dc_workload *w);

/* Bytes one served weight takes: its quantized format's, else the precision's. */
double dc__served_weight_bytes(const struct dc_sizing_params *s, const struct dc_workload *w);

/* Bytes of weights one step reads at `batch` concurrent requests: a decode
 * step of a generative model, a whole batch otherwise (a recommender's
 * table rows are gathered apart, core/src/sizing/embed.c). */
double dc__step_weight_bytes(const struct dc__derived *d, double batch);

struct dc__arena;

/* Build the condition document (defaults applied + `derived`). Strings are
 * references into `w` and static tables, so `w` must outlive *out. With `ar`
 * NULL the document is cJSON's (cJSON_Delete it; a caller may edit it with
 * cJSON's functions); otherwise its nodes live in `ar` and go with it (no
 * cJSON_Delete, and no cJSON function that frees or replaces a node): a
 * recommendation's document costs no malloc then. */
enum dc_status dc__facts_build(const dc_ruleset *rs, const struct dc_workload *w,
                               const struct dc__derived *d, struct dc__arena *ar, cJSON **out);
/* One node of a facts document, as dc__facts_build makes them (`ar` as
 * there): cJSON_Number (`number`), cJSON_String (a reference to `string`),
 * cJSON_Object, cJSON_Array, cJSON_True, cJSON_False or cJSON_NULL; NULL on
 * out of memory. */
cJSON *dc__facts_item(struct dc__arena *ar, int type, double number, const char *string);

/* A number node's value as cJSON_SetNumberValue sets it (valueint saturated),
 * without the library's call: each sized configuration sets five. */
static inline void dc__facts_number(cJSON *n, double number)
{
    n->valueint = number >= INT_MAX ? INT_MAX : number <= (double)INT_MIN ? INT_MIN : (int)number;
    n->valuedouble = number;
}

/* The values an enumerated workload field takes (NULL-terminated; the
 * contract's values, though not always in its order: precision lists tf32
 * last; for /training/method only the methods a change may propose,
 * docs/explanations.md), by the field's JSON Pointer ("/framework"); NULL for
 * a field that is not one of those. */
const char *const *dc__workload_values(const char *pointer);

/* The fields an object of a workload may have, NULL-terminated, by the
 * object's JSON Pointer ("" for the workload itself, "/model", "/training",
 * "/training/rl", "/inference", "/inference/speculative", "/inference/job",
 * "/constraints", "/team"); NULL for any other. The very tables the parser
 * checks keys against (tests/unit/api/test_workload_contract.c holds them to
 * the contract). */
const char *const *dc__workload_keys(const char *pointer);

#endif
