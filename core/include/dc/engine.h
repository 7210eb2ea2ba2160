/* core/include/dc/engine.h -- one workload in, a ranked and explained result out.
 *
 * The workload arrives as JSON that already passed the contract's schema
 * (api/); the engine still checks every field it reads and fails with
 * DC_EINVAL and a JSON Pointer rather than trusting its caller. Scoring is
 * documented in docs/scoring.md. */
#ifndef DC_ENGINE_H
#define DC_ENGINE_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "dc/common.h"
#include "dc/ruleset.h"

/* Named limits on workload fields (the contract states the same bounds). */
#define DC_WORKLOAD_NAME_MAX 128
#define DC_WORKLOAD_MAX_PARAMETERS 1e15

enum dc_task { DC_TASK_TRAINING, DC_TASK_FINE_TUNING, DC_TASK_INFERENCE };
enum dc_objective { DC_OBJECTIVE_COST, DC_OBJECTIVE_TIME, DC_OBJECTIVE_BALANCED };
enum dc_deployment { DC_DEPLOY_CLOUD, DC_DEPLOY_ON_PREM, DC_DEPLOY_HYBRID };

/* The workload with every default applied (openapi.yaml documents them). */
struct dc_workload {
    const char *name; /* optional caller label, view into the JSON; may be NULL */
    enum dc_task task;
    const char *framework;    /* pytorch | jax | tensorflow | pytorch-xla | onnx | other */
    const char *stage;        /* prototype | development | production */
    const char *architecture; /* transformer | cnn | ... */
    double parameters;
    bool custom_ops;
    bool dynamic_shapes;
    bool sparse_embeddings;
    const char *compute_pattern; /* matmul | elementwise | branching */
    double layers;               /* NAN when absent */
    double hidden_size;          /* NAN when absent */
    enum dc_precision precision;
    double tokens;            /* defaulted per task (sizing.yaml) */
    bool tokens_defaulted;
    double global_batch_size;
    double deadline_hours;    /* NAN when absent */
    double requests_per_second;
    double latency_ms_p99;    /* NAN when absent */
    double context_tokens;
    double batch_size;
    enum dc_deployment deployment;
    unsigned providers;       /* bit set of enum dc_provider; 0 = any */
    double budget_usd;        /* NAN when absent */
    double max_accelerators;  /* NAN when absent */
    const char *cuda_experience; /* none | some | expert */
    const char *xla_experience;
    enum dc_objective objective;
    bool prefer_available;
};

/* Parse a workload (borrowed; string fields of *out are views into it, so it
 * must outlive *out) applying defaults from the rule set's sizing parameters.
 * Errors: DC_EINVAL with err->where the JSON Pointer of the bad field. */
DC_API DC_NODISCARD enum dc_status dc_workload_parse(const dc_ruleset *rs, const cJSON *json,
                                                    struct dc_workload *out,
                                                    struct dc_error *err);

/* Live availability of one catalog accelerator on this host (from the probe). */
struct dc_availability {
    const char *accelerator_id; /* catalog id */
    unsigned attached;          /* devices of this model attached here */
    unsigned free;              /* of which idle now (no process, low utilisation) */
    double memory_free_gb;      /* summed over free devices; NAN when unknown */
};

struct dc_recommend_opts {
    const struct dc_availability *availability; /* may be NULL */
    size_t n_availability;
    bool probe_enabled;         /* a probe snapshot exists; adds `availability` */
    const char *probe_source;   /* reason source for the availability bonus */
    bool prefer_available;      /* server-wide default for workload.prefer_available */
    const char *request_id;     /* copied into the result; may be NULL */
};

/* One reason behind a score or an exclusion. Strings are views into the rule
 * set or the result's own storage. */
struct dc_reason {
    const char *rule_id; /* a rule id, or "sizing.memory", "catalog.providers", ... */
    int impact;          /* signed score impact; 0 for information */
    const char *message;
    const char *source;  /* public URL (or "probe") */
};

struct dc_sizing {
    double memory_need_gb;     /* whole job */
    double memory_per_chip_gb; /* usable */
    unsigned chips_for_memory;
    unsigned chips;            /* recommended count */
    unsigned replicas;         /* inference: serving replicas; training: 1 */
    bool fits;                 /* chips within max_accelerators and max_chips */
    double peak_tflops;        /* per chip at the workload precision; NAN if unknown */
    double mfu;
    double hours;              /* training run time; NAN when unknown or inference */
    double cost_usd;           /* training: whole run; inference: per month; NAN unknown */
    double cost_per_hour_usd;  /* all chips; NAN when no price */
    double decode_ms;          /* inference: one decode step (bandwidth bound); NAN */
    double throughput_rps;     /* inference: requests/s the chips serve; NAN */
    bool meets_deadline;       /* true when no deadline */
    bool meets_latency;        /* true when no latency target */
    bool within_budget;        /* true when no budget or cost unknown */
};

struct dc_candidate_availability {
    bool known; /* a probe snapshot exists */
    unsigned attached;
    unsigned free;
    double memory_free_gb;
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
};

struct dc_family_rank {
    enum dc_family family;
    int score;      /* 0..100: base + family impacts */
    bool excluded;  /* no candidate of this family remains */
    const char *best; /* id of its best candidate, NULL when excluded */
};

struct dc_warning {
    const char *code; /* nothing_fits_memory, nothing_within_budget, no_candidates,
                         deadline_not_met, price_unknown, condition_error */
    const char *message;
};

struct dc_assumption {
    const char *name;   /* "training_bytes_per_parameter" */
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
    struct dc_candidate *recommendations; /* ranked, best first */
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

/* The text of reason `r` of candidate `c` (or of an exclusion). Reasons that
 * carry numbers (sizing, cost, time) are rendered here on demand, so building a
 * result never pays for formatting it. Writes at most `len` bytes to `buf` and
 * returns the text (buf, or a view into the rule set). */
DC_API const char *dc_reason_text(const struct dc_result *res, const struct dc_candidate *c,
                                  const struct dc_reason *r, char *buf, size_t len);

#endif /* DC_ENGINE_H */
