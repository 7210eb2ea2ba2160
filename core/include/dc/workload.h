/* core/include/dc/workload.h -- the workload: one job as the decision core reads it
 * (struct dc_workload), the named limits on its fields and its parser.
 *
 * The workload arrives as JSON that already passed the contract's schema
 * (api/); the parser still checks every field it reads and fails with
 * DC_EINVAL and a JSON Pointer rather than trusting its caller
 * (core/src/workload/workload.c). Part of the engine's API (dc/engine.h). */
#ifndef DC_WORKLOAD_H
#define DC_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "dc/common.h"
#include "dc/ruleset.h"

/* Named limits on workload fields (the contract states the same bounds). */
#define DC_WORKLOAD_NAME_MAX       128
#define DC_WORKLOAD_MAX_PARAMETERS 1e15
#define DC_WORKLOAD_MAX_TOKENS     1e16
/* constraints.accelerators: at most one entry per catalog accelerator. */
#define DC_WORKLOAD_MAX_ALLOWED DC_RULESET_MAX_ACCELERATORS
/* explain: each kind at most once. */
#define DC_WORKLOAD_MAX_EXPLAIN 2

/* What a request's `explain` asks for beside the result (dc/explain.h); bits. */
enum dc_explain_kind {
    DC_EXPLAIN_CHANGES = 1u << 0,   /* "changes": what would change the top pick */
    DC_EXPLAIN_ROBUSTNESS = 1u << 1 /* "robustness": margin, price and MFU +/-30% */
};

enum dc_task { DC_TASK_TRAINING, DC_TASK_FINE_TUNING, DC_TASK_INFERENCE };
enum dc_objective { DC_OBJECTIVE_COST, DC_OBJECTIVE_TIME, DC_OBJECTIVE_BALANCED };
enum dc_deployment { DC_DEPLOY_CLOUD, DC_DEPLOY_ON_PREM, DC_DEPLOY_HYBRID };
/* The contract's words for them ("fine-tuning", "on-prem", "balanced"), from the
 * one table each that parsing also reads; "unknown" out of range. */
DC_API const char *dc_task_name(enum dc_task t);
DC_API const char *dc_deployment_name(enum dc_deployment d);
DC_API const char *dc_objective_name(enum dc_objective o);
/* training.method: what a training step updates (docs/scoring.md, section 5):
 * every weight, LoRA adapters (on a 4-bit base for QLoRA), preference tuning
 * against a frozen reference (DPO), or RL post-training (rollouts, reference
 * and reward passes, policy update). */
enum dc_method { DC_METHOD_FULL, DC_METHOD_LORA, DC_METHOD_QLORA, DC_METHOD_DPO, DC_METHOD_RL };
/* `quantization`: how the served weights are stored, apart from the precision
 * the math runs at (AWQ/GPTQ/NF4/MXFP4 keep 4-bit weights, int8 8-bit ones). */
enum dc_quantization {
    DC_QUANT_NONE,
    DC_QUANT_AWQ,
    DC_QUANT_GPTQ,
    DC_QUANT_NF4,
    DC_QUANT_MXFP4,
    DC_QUANT_INT8
};
/* training.rl.algorithm */
enum dc_rl_algorithm { DC_RL_GRPO, DC_RL_PPO };

/* The workload with every default applied (openapi.yaml documents them). */
struct dc_workload {
    const char *name; /* optional caller label, view into the JSON; may be NULL */
    enum dc_task task;
    const char *framework;    /* pytorch | jax | tensorflow | pytorch-xla | onnx | other */
    const char *stage;        /* prototype | development | production */
    const char *architecture; /* transformer | moe | encoder | ... | cnn | ... */
    /* model.name: the registry entry (rules/models.yaml) the model fields not
     * given were read from, its canonical name; NULL when none. */
    const char *model_name;
    double parameters;
    double active_parameters;    /* used per token or sample; defaults to parameters */
    bool active_defaulted;       /* active_parameters neither given nor from the registry */
    double embedding_parameters; /* sparse tables: memory, not dense compute; 0 default */
    double flops_per_sample;     /* forward FLOPs of one sample; NAN when absent */
    bool custom_ops;
    bool dynamic_shapes;
    bool sparse_embeddings;
    const char *compute_pattern; /* matmul | elementwise | branching */
    double layers;               /* NAN when absent */
    double hidden_size;          /* NAN when absent */
    double attention_heads;      /* NAN when absent */
    double kv_heads;             /* NAN when absent (then every head is a KV head) */
    /* The rest of the architecture (NAN or NULL when absent; openapi.yaml,
     * Model, says what each sizes). */
    double head_dim;
    double intermediate_size;
    double context_length;       /* most positions the model attends to */
    const char *attention;       /* full | sliding_window | mla */
    double sliding_window;       /* tokens a windowed layer attends to */
    double full_attention_every; /* one layer in this many attends to everything */
    double kv_latent_dim;        /* MLA: cached elements per token and layer */
    double experts;              /* routed experts per MoE layer */
    double experts_per_token;
    double encoder_layers;       /* encoder-decoder: the encoder's layers */
    double tokens_per_sample;    /* positions one sample is (encoder frames, patches) */
    double denoising_steps;      /* diffusion: steps per image or clip */
    double guidance_passes;      /* diffusion: network passes per step (CFG: 2) */
    double vae_flops_per_sample; /* diffusion: decoding one sample's latents, once */
    double embedding_dim;        /* recommender: width of a table row */
    double lookups_per_sample;   /* recommender: rows one sample reads */
    double embedding_tables;     /* recommender: tables a sample's rows pool into */
    enum dc_precision precision;
    enum dc_quantization quantization;
    enum dc_method method;
    double tokens; /* defaulted per task (sizing.yaml) */
    bool tokens_defaulted;
    bool global_batch_defaulted; /* global_batch_size not given (256 stands in) */
    double samples;              /* training samples; NAN when absent */
    double sequence_length;      /* training sequence length, defaulted */
    double global_batch_size;
    bool input_bound;      /* training.input_bound: the host's input pipeline limits steps */
    double deadline_hours; /* NAN when absent */
    /* training.rl (method rl) */
    enum dc_rl_algorithm rl_algorithm;
    bool rl_reference;               /* a frozen reference model for the KL term */
    double rl_reward_parameters;     /* reward model; 0 for verifiable rewards */
    double rl_rollout_share;         /* of an RL step spent generating rollouts */
    bool rl_rollout_share_defaulted; /* from sizing.yaml */
    double requests_per_second;
    double latency_ms_p99; /* NAN when absent */
    double context_tokens; /* KV-cache length per request: input + output tokens */
    double input_tokens;
    double output_tokens;          /* 0 for models that do not generate tokens */
    bool request_tokens_defaulted; /* input and output tokens from sizing.yaml */
    bool output_tokens_defaulted;  /* context_tokens given, output_tokens split from it */
    enum dc_precision kv_precision;
    double batch_size; /* concurrent requests per replica; NAN: chosen per candidate */
    /* inference.speculative: a draft model proposes draft_tokens tokens that
     * the target verifies in one step (0 draft tokens: none). */
    const char *draft_name; /* registry name of the draft, or NULL */
    double draft_parameters;
    double draft_layers; /* draft shape from the registry; NAN when unknown */
    double draft_hidden;
    double draft_kv_heads;
    double draft_head_dim;
    double draft_tokens;
    double acceptance_rate;
    double prefix_cache_hit_rate; /* share of prompt tokens found cached; 0 default */
    bool audio_decoded;           /* speech: audio arrives as 16 kHz samples */
    /* inference.job: an offline batch of job_requests requests to finish
     * within job_deadline_hours, priced per job (0 requests: not a job). */
    double job_requests;
    double job_tokens; /* NAN unless the job was given in tokens */
    double job_deadline_hours;
    enum dc_deployment deployment;
    unsigned providers; /* bit set of enum dc_provider; 0 = any */
    bool portable;      /* the answer must be bought alike from every listed provider */
    /* constraints.fleet_only: only configurations the known availability (the
     * fleet, or this host's probe) holds free now (docs/scoring.md, section 4). */
    bool fleet_only;
    double budget_usd;       /* NAN when absent */
    enum dc_pricing pricing; /* the price basis costs use */
    double max_accelerators; /* NAN when absent */
    /* constraints.accelerators as catalog indices, in request order; none = any. */
    unsigned short allowed[DC_WORKLOAD_MAX_ALLOWED];
    size_t n_allowed;
    const char *cuda_experience; /* none | some | expert */
    const char *xla_experience;
    bool xla_experience_assumed;  /* not stated: the default for the framework applies */
    bool tf32;                    /* precision "tf32": fp32 numbers, matmuls at the TF32 rate */
    bool cuda_experience_assumed; /* not stated: none for JAX and PyTorch/XLA, else some */
    enum dc_objective objective;
    bool prefer_available;
    unsigned explain; /* enum dc_explain_kind bits; never read by the decision itself */
};

/* The workload's precision as the user wrote it: "tf32" for fp32 whose
 * matmuls run as TF32, else the precision's name. */
DC_API const char *dc_workload_precision(const struct dc_workload *w);

/* Parse a workload (borrowed; string fields of *out are views into it, so it
 * must outlive *out) applying defaults from the rule set's sizing parameters.
 * Errors: DC_EINVAL with err->where the JSON Pointer of the bad field. */
DC_API DC_NODISCARD enum dc_status dc_workload_parse(const dc_ruleset *rs, const cJSON *json,
                                                     struct dc_workload *out, struct dc_error *err);

#endif /* DC_WORKLOAD_H */
