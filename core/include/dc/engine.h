/* core/include/dc/engine.h -- one workload in, a ranked and explained result out.
 *
 * The workload arrives as JSON that already passed the contract's schema
 * (api/); the engine still checks every field it reads and fails with
 * DC_EINVAL and a JSON Pointer rather than trusting its caller. Scoring is
 * documented in docs/scoring.md. */
#ifndef DC_ENGINE_H
#define DC_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "dc/common.h"
#include "dc/ruleset.h"

/* Named limits on workload fields (the contract states the same bounds). */
#define DC_WORKLOAD_NAME_MAX       128
#define DC_WORKLOAD_MAX_PARAMETERS 1e15
#define DC_WORKLOAD_MAX_TOKENS     1e16
/* JSONLogic steps one recommendation may spend on all its rules together (each
 * rule also has its own limit, DC_LOGIC_MAX_STEPS_DEFAULT). Past it the rules
 * left are skipped with a rules_budget_exhausted warning, so a rule set cannot
 * make a request slow: the shipped rules spend a few hundred in all. `check`
 * warns about a rule that can spend a quarter of it alone. */
#define DC_RECOMMEND_MAX_RULE_STEPS 250000
#define DC_RULE_STEPS_WARN          (DC_RECOMMEND_MAX_RULE_STEPS / 4)
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
    double encoder_layers;     /* encoder-decoder: the encoder's layers */
    double tokens_per_sample;  /* positions one sample is (encoder frames, patches) */
    double denoising_steps;    /* diffusion: steps per image or clip */
    double guidance_passes;    /* diffusion: network passes per step (CFG: 2) */
    double embedding_dim;      /* recommender: width of a table row */
    double lookups_per_sample; /* recommender: rows one sample reads */
    double embedding_tables;   /* recommender: tables a sample's rows pool into */
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

/* Free devices on one node told apart by dc_availability.nodes_by_free; a node
 * with more counts as this many (no catalog machine holds more than 8). */
#define DC_AVAILABILITY_NODE_MAX 16

/* Live availability of one catalog accelerator: on this host (the probe), or
 * across a fleet of nodes (Prometheus; docs/operations.md, "Fleet"). */
struct dc_availability {
    const char *accelerator_id; /* catalog id */
    unsigned attached;          /* devices of this model attached here, or seen in the fleet */
    unsigned free;              /* of which idle now (no process, low utilisation) */
    double memory_free_gb;      /* summed over free devices; NAN when unknown */
    /* Node by node: nodes_by_free[k] nodes hold exactly k free devices of this
     * model (0 included: nodes where none is free). All zero: one node holding
     * `attached` and `free` (a host probe). */
    unsigned nodes_by_free[DC_AVAILABILITY_NODE_MAX + 1];
    /* Devices on nodes where every device of this model is free: what slices
     * larger than one node's free devices can take (whole hosts). */
    unsigned whole_node_free;
};

struct dc_recommend_opts {
    const struct dc_availability *availability; /* may be NULL */
    size_t n_availability;
    bool probe_enabled;       /* availability is known (a snapshot exists); adds `availability` */
    const char *probe_source; /* reason source for the availability bonus: "probe", "prometheus" */
    bool availability_fleet;  /* the availability counts a fleet of nodes, not this host */
    double availability_age_seconds; /* of the snapshot behind it; NAN (or 0) when unknown */
    bool availability_stale;         /* older than its staleness limit: warned about */
    /* The source has not seen a device yet (Prometheus answered before its first
     * scrape): nothing is known free, and answers say so (warned about). */
    bool availability_warming;
    bool prefer_available;  /* server-wide default for workload.prefer_available */
    const char *request_id; /* copied into the result; may be NULL */
    /* Robustness probes (dc/explain.h): factors on each catalog accelerator's
     * price per chip-hour and on its MFU, in catalog order
     * (dc_ruleset_accelerator_count entries, each > 0). NULL: 1 for every one. */
    const double *price_scale;
    const double *mfu_scale;
};

/* One reason behind a score or an exclusion. Strings are views into the rule
 * set or the result's own storage. */
struct dc_reason {
    const char *rule_id; /* a rule id, or "sizing.memory", "catalog.providers", ... */
    int impact;          /* signed score impact; 0 for information */
    const char *message;
    const char *source; /* public URL (or "probe") */
    const char *fact;   /* the research fact a rule rests on (F1.3); may be NULL */
    /* A rule whose bonus on this accelerator cites the same fact as this one's:
     * the fact counts once, so this reason's impact is 0. NULL otherwise. */
    const char *counted_with;
};

/* A purchasable shape: `units` machines of `per_unit` chips (GPUs, CPUs) or
 * `units` TPU slices of type `slice` (several slices: Multislice). */
struct dc_shape {
    unsigned units;
    unsigned per_unit;
    const char *slice; /* TPU accelerator type, NULL for machines; view into the rule set */
};

/* What set a candidate's chip count (docs/scoring.md, section 5). */
enum dc_chips_basis {
    DC_BASIS_MEMORY,   /* the fewest chips that hold the job: no other count does better */
    DC_BASIS_DEADLINE, /* objective cost: the fewest that finish by training.deadline_hours */
    DC_BASIS_TARGET,   /* objective cost: the fewest that finish within the default target */
    DC_BASIS_FASTEST,  /* objective time: the fastest (no run counts as under min_run_hours) */
    DC_BASIS_RATE,     /* inference: replicas for requests_per_second */
    DC_BASIS_LIMIT,    /* capped: max_accelerators, the cluster, the batch or efficiency */
    DC_BASIS_PINNED,   /* fixed by the caller (dc_size_at) */
    DC_BASIS_CHEAPEST, /* objective cost: the cheapest count that meets the target */
    DC_BASIS_BALANCED  /* objective balanced: the least cost x time */
};

/* What a candidate's cost rests on (docs/scoring.md, section 6). */
enum dc_cost_basis {
    DC_COST_UNKNOWN, /* no public price on the asked basis: the cost is not estimated */
    DC_COST_CLOUD,   /* the cheapest public offer of an allowed provider */
    DC_COST_ON_PREM  /* energy at sizing.yaml's $/kWh and PUE, plus amortised hardware */
};

/* A figure's p10 and p90: four times in five the real figure lies between
 * them, as the calibration's out-of-sample rows check (docs/calibration.md,
 * "Stated uncertainty"). NAN when the figure is unknown or its regime states
 * no band. */
struct dc_band {
    double p10, p90;
};

/* The bands of a configuration's figures, from the calibration of their
 * regime (sizing.yaml `uncertainty`, derived from the calibration's fit rows). */
struct dc_uncertainty {
    enum dc_regime regime;         /* of hours, cost, throughput and tokens */
    enum dc_regime latency_regime; /* of decode and request times */
    unsigned rows, latency_rows;   /* fit rows behind each band; 0: none stated */
    struct dc_band hours;          /* training, an inference job */
    struct dc_band cost_usd;       /* the run, or a month of serving */
    struct dc_band throughput_rps; /* serving */
    struct dc_band tokens_per_second;
    struct dc_band decode_ms;
    struct dc_band request_ms;
};

struct dc_sizing {
    enum dc_chips_basis basis;
    double memory_need_gb; /* training: state + one chip's activations; inference: one replica */
    double memory_per_chip_gb; /* usable */
    unsigned chips_for_memory; /* smallest purchasable count that holds it (per replica) */
    unsigned chips;            /* recommended count, all replicas */
    unsigned replicas;         /* inference: serving replicas; training: 1 */
    unsigned chips_per_replica;
    struct dc_shape shape;   /* of `chips` (training) or of one replica (inference) */
    bool fits;               /* one copy fits within max_accelerators and the cluster */
    double peak_tflops;      /* per chip at the workload precision; NAN if unknown */
    double mfu;              /* model FLOPs / (chips x peak_tflops x time) modelled */
    double scale_efficiency; /* training: MFU here / MFU within one fast domain */
    double hours;            /* training run time, an inference job's; NAN unknown or serving */
    double cost_usd; /* training, an inference job: whole run; serving: per month; NAN unknown */
    double cost_per_hour_usd; /* all chips; NAN when no price */
    enum dc_cost_basis cost_basis;
    const struct dc_offer *offer; /* DC_COST_CLOUD: the offer priced; view into the rule set */
    unsigned instances;         /* DC_COST_CLOUD: how many of the offer's instances (TPU: slices) */
    double usd_per_chip_hour;   /* the rate behind cost_usd; NAN when unknown */
    double energy_usd;          /* on premises: energy of the run (training) or a month */
    unsigned batch_per_replica; /* inference: concurrent requests one replica holds */
    double prefill_ms;          /* inference: one request's prompt; NAN when unknown */
    double decode_ms;           /* inference: one decode step (one batch for non-generative) */
    double request_ms;          /* inference: prefill + output tokens x decode step */
    double throughput_rps;      /* inference: requests/s all replicas serve; NAN unknown */
    double tokens_per_second;   /* inference: generated tokens/s, all replicas; NAN */
    bool compute_bound;         /* inference: the decode step is limited by FLOPs, not HBM */
    bool meets_deadline;        /* true when no deadline */
    bool meets_latency;         /* true when no latency target */
    bool meets_rate;            /* inference: throughput_rps >= requests_per_second */
    bool within_budget;         /* true when no budget or cost unknown */
    /* The model field whose absence leaves time and cost off by more than 3x
     * ("model.flops_per_sample"): they are then not estimated (NAN); NULL. */
    const char *estimate_withheld;
    struct dc_uncertainty uncertainty;
    /* training: machines (instances, TPU slices) the shape buys; 0 otherwise */
    unsigned machines;
    /* training: the run's fixed costs beside its compute hours
     * (core/src/sizing/overheads.c); every field NAN where not applicable or not
     * estimated. checkpoint_hours and eval_hours are NAN: the goodput factor
     * already counts them in `hours`. */
    struct dc_overheads {
        double startup_hours;    /* provisioning, image, weights, framework start */
        double checkpoint_hours; /* NAN: in goodput */
        double eval_hours;       /* NAN: in goodput */
        double billing_hours;    /* rounding up to the billing granularity and minimum */
        double hours;            /* their sum (known terms) */
        double cost_usd;         /* hours x the configuration's hourly cost */
    } overheads;
    /* training in the cloud: whether its machines can be had at once on the
     * asked basis (prices.yaml `capacity:`, core/src/sizing/buying.c); known false
     * where the file states no limit for the offer's provider and basis. */
    struct dc_capacity_need {
        bool known;
        enum dc_provider provider;
        enum dc_basis basis;    /* the basis that sells it: the asked one, or reserved */
        unsigned max_instances; /* the asked basis's limit */
        bool binds;             /* the asked basis cannot sell this many at once */
        double lead_time_days;  /* the reservation's, where public; NAN */
        const char *source;     /* the limit's page */
    } capacity;
};

struct dc_candidate_availability {
    bool known; /* a probe or fleet snapshot exists */
    unsigned attached;
    unsigned free;
    double memory_free_gb;
    unsigned nodes;      /* nodes with a device of this model (a host: 1 when attached) */
    unsigned free_nodes; /* of which nodes with at least one free device */
    /* The configuration's chips are free now: each machine of its shape on one
     * node's free devices, a slice larger than a node on whole free nodes. */
    bool configuration_free;
    bool fleet;         /* counted across a fleet (opts.availability_fleet) */
    double age_seconds; /* of the snapshot; NAN when unknown */
    bool stale;         /* opts.availability_stale */
    bool warming;       /* opts.availability_warming */
};

/* How the selection placed a candidate (docs/scoring.md, sections 7 and 8). */
struct dc_selection {
    bool meets_targets; /* the deadline (or default target), latency and rate */
    bool priced;        /* its cost is known */
    unsigned gates;     /* ranking gates holding it below others: 0 when none */
    /* Objective balanced: it has a configuration whose extra cost over the
     * cheapest that meets every target the time it saves is worth
     * (docs/scoring.md section 7; then it ranks by time). */
    bool in_band;
    /* What the objective compares: the cost, the time (hours, or one
     * request's ms), or cost x time; NAN when unknown. */
    double objective_value;
    int soft_points;   /* rule impacts (and availability), facts counted once */
    double adjustment; /* the factor soft_points put on objective_value */
    /* An unpriced part: the price per chip-hour at or under which it would
     * match the top pick on the objective; NAN when none would (or priced). */
    double breakeven_usd_per_chip_hour;
};

struct dc_candidate {
    const struct dc_accelerator *acc; /* view into the rule set */
    int score;                        /* 0..100, from the objective (section 8) */
    /* The share of the workload's hard targets (deadline, latency, rate,
     * budget) this configuration meets, 0..1: the least of target / estimate
     * over them (1 when it meets every one, or none is set); NAN when an
     * estimate it needs is unknown (core/src/select/shortfall.c). */
    double target_met;
    int rule_score;      /* 0..100: base + soft points, for information */
    int objective_score; /* 0..100: the objective against the top pick's */
    struct dc_selection selection;
    struct dc_sizing sizing;
    struct dc_candidate_availability availability;
    struct dc_reason *reasons; /* sorted by |impact| descending, then rule id */
    size_t n_reasons;
    const struct dc_reason *excluded_by; /* NULL unless excluded */
    /* The first ranking gate that holds this candidate below others (a rule's
     * rank_below, or an unknown cost while priced parts are left), or NULL. */
    const struct dc_reason *capped_by;
    size_t index_; /* catalog index (private) */
};

struct dc_family_rank {
    enum dc_family family;
    int score;        /* 0..100: the score of its best candidate; 0 when excluded */
    int rule_score;   /* 0..100: base + the impacts of rules on the whole family */
    bool excluded;    /* no candidate of this family remains */
    const char *best; /* id of its best candidate, NULL when excluded */
};

struct dc_warning {
    const char *code; /* docs/scoring.md, section 9: nothing_fits_memory, ... */
    const char *message;
};

struct dc_assumption {
    const char *name; /* "training_bytes_per_parameter" */
    double value;
    const char *unit;   /* "bytes", "ratio", "tokens" ... */
    const char *source; /* public URL */
};

/* One configuration on the cost-time frontier: no other feasible, priced
 * configuration of any part is both cheaper and faster (serving: lower
 * latency). `time` is run hours (training) or one request's ms (serving). */
struct dc_frontier_point {
    const struct dc_accelerator *acc;
    struct dc_shape shape;
    unsigned chips;
    unsigned replicas;
    unsigned chips_per_replica;
    unsigned batch_per_replica; /* serving */
    double cost_usd;            /* training: the run; serving: a month */
    double cost_per_hour_usd;
    double time;
    bool pick; /* the top recommendation's configuration */
};

/* Whether a result has a pick (docs/scoring.md, section 10). */
enum dc_answer_status {
    DC_ANSWER_OK,      /* the top recommendation meets every hard target */
    DC_ANSWER_NO_FIT,  /* none does: ranked by target_met, with what would meet them */
    DC_ANSWER_WITHHELD /* time and cost are not estimated: no pick, only the field to give */
};

/* Fields would_meet names at most (a model field, and model.name). */
#define DC_WOULD_MEET_MAX_FIELDS 2

/* What would meet the targets when nothing does, from the same sizing: the
 * cheapest configuration meeting every hard target once the chip limit
 * (max_accelerators, the serving fleet limit) and the budget are lifted
 * (`acc`, `chips`, `budget_usd` its cost), and the shortest run any
 * candidate reaches within the limits as asked (`hours`: the deadline that
 * would be met). NAN / NULL where there is none. Under DC_ANSWER_WITHHELD,
 * the workload fields that would give an estimate instead. */
struct dc_would_meet {
    const struct dc_accelerator *acc; /* view into the rule set */
    double chips;
    double hours;      /* a missed deadline only (training, an offline job) */
    double budget_usd; /* the run, the job or a month of serving */
    const char *fields[DC_WOULD_MEET_MAX_FIELDS]; /* "model.flops_per_sample", "model.name" */
    size_t n_fields;
};

/* "ok", "no_configuration_meets_targets", "estimate_withheld". */
DC_API const char *dc_answer_status_name(enum dc_answer_status s);

/* Points kept on a result's frontier, evenly spread in cost between the
 * cheapest and the fastest (both always kept, and the pick). */
#define DC_FRONTIER_MAX_POINTS 24

struct dc_result {
    const dc_ruleset *ruleset; /* reference held by the result */
    char rules_version[65];
    char request_id[65];
    struct dc_workload workload;
    struct dc_family_rank families[DC_FAMILY_COUNT]; /* ranked */
    struct dc_candidate *recommendations;            /* ranked, best first */
    size_t n_recommendations;
    struct dc_candidate *excluded; /* in catalog order */
    size_t n_excluded;
    struct dc_warning *warnings;
    size_t n_warnings;
    struct dc_assumption *assumptions;
    size_t n_assumptions;
    struct dc_frontier_point *frontier; /* ascending cost, descending time */
    size_t n_frontier;
    enum dc_answer_status status;
    struct dc_would_meet would_meet; /* all NAN / NULL under DC_ANSWER_OK */
    struct dc__arena *arena_;        /* private */
};

/* Recommend for `workload` (borrowed; must outlive the result, whose workload
 * strings are views into it). `opts` may be NULL. On DC_OK *out is owned by the
 * caller (dc_result_free) and holds a reference to `rs`. Errors: DC_EINVAL
 * (bad workload field; err->where is its pointer), DC_ENOMEM. Reentrant:
 * any number of threads may recommend against one rule set. */
DC_API DC_NODISCARD enum dc_status dc_recommend(const dc_ruleset *rs, const cJSON *workload,
                                                const struct dc_recommend_opts *opts,
                                                struct dc_result **out, struct dc_error *err);

DC_API void dc_result_free(struct dc_result *res); /* NULL-safe */

/* Size `workload` on catalog accelerator `id` at exactly `chips` chips (a
 * published run's count) without rules or scoring: what docs/calibration.md
 * compares with measured runs. Errors: DC_EINVAL (bad workload; err->where),
 * DC_ENOTFOUND (no such accelerator). */
DC_API DC_NODISCARD enum dc_status dc_size_at(const dc_ruleset *rs, const cJSON *workload,
                                              const char *id, unsigned chips, struct dc_sizing *out,
                                              struct dc_error *err);

/* The smallest purchasable shape of `a` with at least `need` chips and at most
 * `cap`; false when there is none. */
DC_API bool dc_shape_at_least(const struct dc_accelerator *a, unsigned need, unsigned cap,
                              struct dc_shape *out);

/* A shape as people buy it: "4 x 8 H100" (4 machines of 8), "v5p-128" (one
 * slice), "2 x v6e-256" (Multislice). Writes at most `len` bytes; returns buf. */
DC_API const char *dc_shape_format(const struct dc_accelerator *a, const struct dc_shape *s,
                                   char *buf, size_t len);

/* The most JSONLogic steps each rule of `rs` spends on a workload whose arrays
 * are as long as the contract allows (one probe per task), in steps[0..n_rules):
 * what `check` compares with DC_RECOMMEND_MAX_RULE_STEPS. A rule that hits its
 * own step limit reports that limit. Errors: DC_EINVAL, DC_ENOMEM. */
DC_API DC_NODISCARD enum dc_status dc_ruleset_rule_steps(const dc_ruleset *rs, uint64_t *steps,
                                                         struct dc_error *err);

/* "memory", "deadline", "target", "fastest", "rate", "limit", "pinned",
 * "cheapest", "balanced". */
DC_API const char *dc_chips_basis_name(enum dc_chips_basis b);

/* The text of reason `r` of candidate `c` (or of an exclusion). Reasons that
 * carry numbers (sizing, cost, time) are rendered here on demand, so building a
 * result never pays for formatting it. Writes at most `len` bytes to `buf` and
 * returns the text (buf, or a view into the rule set); a buffer of
 * DC_REASON_TEXT_MAX bytes holds every text whole, a cost reason quoting a
 * prices.yaml `unpriced` reason of DC_RULESET_MAX_UNPRICED_REASON included. */
#define DC_REASON_TEXT_MAX 1280
DC_API const char *dc_reason_text(const struct dc_result *res, const struct dc_candidate *c,
                                  const struct dc_reason *r, char *buf, size_t len);

/* The targets a workload sets, and whether a candidate meets each: what a
 * buyer compares before the price (core/src/select/targets.c). */
enum dc_target_kind {
    DC_TARGET_DEADLINE, /* training.deadline_hours, or an offline job's deadline */
    DC_TARGET_RUN_TIME, /* training without a deadline: the rule set's default run length */
    DC_TARGET_LATENCY,  /* inference.latency_ms_p99: one decode step (or batch) */
    DC_TARGET_RATE,     /* inference.requests_per_second, served */
    DC_TARGET_BUDGET    /* constraints.budget_usd */
};
#define DC_MAX_TARGETS 4

/* Met, missed, or unknown (no estimate or no price to compare). */
enum dc_target_state { DC_TARGET_MISSED, DC_TARGET_MET, DC_TARGET_UNKNOWN };

struct dc_target_status {
    enum dc_target_kind kind;
    enum dc_target_state state;
};

/* The contract's name of a target ("deadline", "run_time", "latency", "rate",
 * "budget") and of a state ("met", "missed", "unknown"). */
DC_API const char *dc_target_name(enum dc_target_kind k);
DC_API const char *dc_target_state_name(enum dc_target_state s);

/* The targets the workload sets, in the order above, with candidate c's state
 * on each; returns how many (at most DC_MAX_TARGETS) were written to out. */
DC_API size_t dc_candidate_targets(const struct dc_result *res, const struct dc_candidate *c,
                                   struct dc_target_status out[DC_MAX_TARGETS]);

/* One target of c in words, its numbers those of the result ("Serves about
 * 0.35 of the 20 requests/s asked: ..."). Writes at most len bytes to buf and
 * returns buf. */
DC_API const char *dc_target_text(const struct dc_result *res, const struct dc_candidate *c,
                                  const struct dc_target_status *t, char *buf, size_t len);

/* When the top pick is not the candidate the objective alone would choose,
 * one sentence saying which that is and why it is not the pick (a target it
 * misses, a gate, the balanced band, the rules' points); NULL otherwise.
 * Writes at most len bytes to buf. */
DC_API const char *dc_pick_note(const struct dc_result *res, char *buf, size_t len);

/* Under DC_ANSWER_OK, one plain sentence of why the pick is the pick: the
 * objective's reason (cheapest, fastest, best value) and the deciding
 * constraint (the time or rate target, the budget, a cheaper part's missed
 * target or gate, the fleet), with no rule ids (core/src/reasons/why.c); NULL
 * otherwise (the status message says why there is no pick). Writes at most
 * len bytes to buf; DC_WHY_TEXT_MAX holds every text. */
#define DC_WHY_TEXT_MAX 1024
DC_API const char *dc_why(const struct dc_result *res, char *buf, size_t len);

/* Unless the result's status is DC_ANSWER_OK, one paragraph saying so first:
 * which target nothing meets and within what limit, the nearest candidate
 * and the share it meets, and what would meet it (would_meet); or why there
 * is no estimate and the field that would give one. NULL under DC_ANSWER_OK.
 * Writes at most len bytes to buf (DC_ANSWER_TEXT_MAX holds every text). */
#define DC_ANSWER_TEXT_MAX 1024
DC_API const char *dc_answer_text(const struct dc_result *res, char *buf, size_t len);

/* When the top pick's cost rests on a price marked low confidence or older
 * than price_stale_after_days, and a part priced with confidence would cost
 * at most DC_EXPLAIN_PERTURBATION (30%) more with nothing else keeping it
 * below the pick, one sentence naming that part (docs/scoring.md, section 9);
 * NULL otherwise, and always under objective time. Writes at most len bytes
 * to buf. */
DC_API const char *dc_price_note(const struct dc_result *res, char *buf, size_t len);

/* When the answer rests on a default that can move it by more than 2x (a
 * mixture of experts sized as dense, every head a KV head, a run's or a
 * request's tokens assumed), one sentence naming the fields to give, shown
 * beside the pick; NULL otherwise. Writes at most len bytes to buf. */
DC_API const char *dc_defaults_note(const struct dc_result *res, char *buf, size_t len);

#endif /* DC_ENGINE_H */
