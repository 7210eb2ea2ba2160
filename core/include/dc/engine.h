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
/* training.method: what a training step updates (docs/scoring.md, section 5). */
enum dc_method { DC_METHOD_FULL, DC_METHOD_LORA, DC_METHOD_QLORA };

/* The workload with every default applied (openapi.yaml documents them). */
struct dc_workload {
    const char *name; /* optional caller label, view into the JSON; may be NULL */
    enum dc_task task;
    const char *framework;    /* pytorch | jax | tensorflow | pytorch-xla | onnx | other */
    const char *stage;        /* prototype | development | production */
    const char *architecture; /* transformer | cnn | ... */
    double parameters;
    double active_parameters;    /* used per token or sample; defaults to parameters */
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
    enum dc_precision precision;
    enum dc_method method;
    double tokens; /* defaulted per task (sizing.yaml) */
    bool tokens_defaulted;
    double samples;         /* training samples; NAN when absent */
    double sequence_length; /* training sequence length, defaulted */
    double global_batch_size;
    bool input_bound;      /* training.input_bound: the host's input pipeline limits steps */
    double deadline_hours; /* NAN when absent */
    double requests_per_second;
    double latency_ms_p99; /* NAN when absent */
    double context_tokens; /* KV-cache length per request: input + output tokens */
    double input_tokens;
    double output_tokens; /* 0 for models that do not generate tokens */
    enum dc_precision kv_precision;
    double batch_size; /* concurrent requests per replica; NAN: chosen per candidate */
    enum dc_deployment deployment;
    unsigned providers;      /* bit set of enum dc_provider; 0 = any */
    double budget_usd;       /* NAN when absent */
    enum dc_pricing pricing; /* the price basis costs use */
    double max_accelerators; /* NAN when absent */
    /* constraints.accelerators as catalog indices, in request order; none = any. */
    unsigned short allowed[DC_WORKLOAD_MAX_ALLOWED];
    size_t n_allowed;
    const char *cuda_experience; /* none | some | expert */
    const char *xla_experience;
    enum dc_objective objective;
    bool prefer_available;
    unsigned explain; /* enum dc_explain_kind bits; never read by the decision itself */
};

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
    bool prefer_available;           /* server-wide default for workload.prefer_available */
    const char *request_id;          /* copied into the result; may be NULL */
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
    DC_BASIS_MEMORY,   /* the fewest chips that hold the job already meet every target */
    DC_BASIS_DEADLINE, /* the fewest that finish by training.deadline_hours */
    DC_BASIS_TARGET,   /* the fewest that finish within the default target duration */
    DC_BASIS_FASTEST,  /* objective time: the most above the efficiency floor */
    DC_BASIS_RATE,     /* inference: replicas for requests_per_second */
    DC_BASIS_LIMIT,    /* capped: max_accelerators, the cluster, the batch or efficiency */
    DC_BASIS_PINNED    /* fixed by the caller (dc_size_at) */
};

/* What a candidate's cost rests on (docs/scoring.md, section 6). */
enum dc_cost_basis {
    DC_COST_UNKNOWN, /* no public price on the asked basis: the cost is not estimated */
    DC_COST_CLOUD,   /* the cheapest public offer of an allowed provider */
    DC_COST_ON_PREM  /* energy at sizing.yaml's $/kWh and PUE, plus amortised hardware */
};

struct dc_sizing {
    enum dc_chips_basis basis;
    double memory_need_gb; /* training: state + one chip's activations; inference: one replica */
    double memory_per_chip_gb; /* usable */
    unsigned chips_for_memory; /* smallest purchasable count that holds it (per replica) */
    unsigned chips;            /* recommended count, all replicas */
    unsigned replicas;         /* inference: serving replicas; training: 1 */
    unsigned chips_per_replica;
    struct dc_shape shape;    /* of `chips` (training) or of one replica (inference) */
    bool fits;                /* one copy fits within max_accelerators and the cluster */
    double peak_tflops;       /* per chip at the workload precision; NAN if unknown */
    double mfu;               /* model FLOPs / (chips x peak_tflops x time) modelled */
    double scale_efficiency;  /* training: MFU here / MFU within one fast domain */
    double hours;             /* training run time; NAN when unknown or inference */
    double cost_usd;          /* training: whole run; inference: per month; NAN unknown */
    double cost_per_hour_usd; /* all chips; NAN when no price */
    enum dc_cost_basis cost_basis;
    const struct dc_offer *offer; /* DC_COST_CLOUD: the offer priced; view into the rule set */
    double usd_per_chip_hour;     /* the rate behind cost_usd; NAN when unknown */
    double energy_usd;            /* on premises: energy of the run (training) or a month */
    unsigned batch_per_replica;   /* inference: concurrent requests one replica holds */
    double prefill_ms;            /* inference: one request's prompt; NAN when unknown */
    double decode_ms;             /* inference: one decode step (one batch for non-generative) */
    double request_ms;            /* inference: prefill + output tokens x decode step */
    double throughput_rps;        /* inference: requests/s all replicas serve; NAN unknown */
    double tokens_per_second;     /* inference: generated tokens/s, all replicas; NAN */
    bool compute_bound;           /* inference: the decode step is limited by FLOPs, not HBM */
    bool meets_deadline;          /* true when no deadline */
    bool meets_latency;           /* true when no latency target */
    bool meets_rate;              /* inference: throughput_rps >= requests_per_second */
    bool within_budget;           /* true when no budget or cost unknown */
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
};

struct dc_candidate {
    const struct dc_accelerator *acc; /* view into the rule set */
    int score;                        /* 0..100 */
    int rule_score;                   /* 0..100 */
    int objective_score;              /* 0..100 */
    struct dc_sizing sizing;
    struct dc_candidate_availability availability;
    struct dc_reason *reasons; /* sorted by |impact| descending, then rule id */
    size_t n_reasons;
    const struct dc_reason *excluded_by; /* NULL unless excluded */
    /* The ranking gate that holds this candidate below others (a rule's
     * rank_below, or an unknown cost under objective cost), or NULL. */
    const struct dc_reason *capped_by;
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
    struct dc__arena *arena_; /* private */
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

/* "memory", "deadline", "target", "fastest", "rate", "limit", "pinned". */
DC_API const char *dc_chips_basis_name(enum dc_chips_basis b);

/* The text of reason `r` of candidate `c` (or of an exclusion). Reasons that
 * carry numbers (sizing, cost, time) are rendered here on demand, so building a
 * result never pays for formatting it. Writes at most `len` bytes to `buf` and
 * returns the text (buf, or a view into the rule set). */
DC_API const char *dc_reason_text(const struct dc_result *res, const struct dc_candidate *c,
                                  const struct dc_reason *r, char *buf, size_t len);

#endif /* DC_ENGINE_H */
