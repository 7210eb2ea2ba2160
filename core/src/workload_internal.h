/* core/src/workload_internal.h -- what the engine computes about a workload
 * before any accelerator is considered (sizing.c fills it; rule conditions read
 * part of it under `derived`). Not part of the public API. */
#ifndef DC_WORKLOAD_INTERNAL_H
#define DC_WORKLOAD_INTERNAL_H

#include "dc/engine.h"

/* Workload-level quantities. Memory in GB (1e9 bytes), compute in FLOPs. */
struct dc__derived {
    double precision_bits;
    /* The transformer shape the memory model uses: given, or estimated from the
     * dense parameters (shape_estimated). head_dim is hidden / attention heads. */
    double layers;
    double hidden;
    double head_dim;
    double kv_heads;
    bool shape_estimated;
    bool kv_heads_assumed;   /* model.kv_heads absent: every head is a KV head */
    double dense_parameters; /* active minus embedding parameters: what a token computes with */
    /* training */
    double training_flops; /* model FLOPs of the whole run; 0 for inference */
    bool flops_rough;      /* 6ND on an architecture that needs flops_per_sample */
    double state_gb;       /* weights, gradients and optimizer state of the whole job */
    double activations_gb; /* one micro-batch's activations, before tensor-parallel split */
    double h100_days;      /* NAN when the catalog has no h100 */
    /* inference */
    double weights_gb;        /* all parameters at the workload precision */
    double active_weights_gb; /* what one token reads: active parameters at the precision */
    bool generative;          /* decodes output tokens one step at a time (KV cache) */
    double kv_bytes_per_token;
    double kv_cache_gb;       /* one request's cache at full context */
    double flops_per_request; /* prefill (generative) or the whole forward pass */
    double memory_gb;         /* training: state + activations; inference: one request */
};

/* Build the condition document (defaults applied + `derived`). Strings are
 * references into `w` and static tables, so `w` must outlive *out. */
enum dc_status dc__facts_build(const dc_ruleset *rs, const struct dc_workload *w,
                               const struct dc__derived *d, cJSON **out);

/* The values an enumerated workload field takes (NULL-terminated, in the
 * contract's order), by the field's JSON Pointer ("/framework"); NULL for a
 * field that is not one of those. */
const char *const *dc__workload_values(const char *pointer);

const char *dc__task_name(enum dc_task t);
const char *dc__deployment_name(enum dc_deployment d);
const char *dc__objective_name(enum dc_objective o);
const char *dc__method_name(enum dc_method m);

#endif
