/* core/include/dc/result.h -- the result: what one recommendation answers
 * (struct dc_result: candidates ranked and excluded, each sized, priced and
 * with its reasons; warnings, assumptions, the frontier, the status) and the
 * words read off it on demand (reason texts, targets, the notes and the `why`).
 * Scoring is documented in docs/scoring.md. Part of the engine's API
 * (dc/engine.h). */
#ifndef DC_RESULT_H
#define DC_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dc/common.h"
#include "dc/ruleset.h"
#include "dc/workload.h"

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

/* The smallest purchasable shape of `a` with at least `need` chips and at most
 * `cap`; false when there is none. */
DC_API bool dc_shape_at_least(const struct dc_accelerator *a, unsigned need, unsigned cap,
                              struct dc_shape *out);

/* A shape as people buy it: "4 x 8 H100" (4 machines of 8), "v5p-128" (one
 * slice), "2 x v6e-256" (Multislice). Writes at most `len` bytes; returns buf. */
DC_API const char *dc_shape_format(const struct dc_accelerator *a, const struct dc_shape *s,
                                   char *buf, size_t len);

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
    /* inference missing its latency target while serving the rate: the
     * fastest step the part's search reached; decode_ms's share of the
     * target is within the rules' near_miss_tolerance of its (NAN otherwise) */
    double fastest_decode_ms;
    double request_ms;        /* inference: prefill + output tokens x decode step */
    double throughput_rps;    /* inference: requests/s all replicas serve; NAN unknown */
    double tokens_per_second; /* inference: generated tokens/s, all replicas; NAN */
    bool compute_bound;       /* inference: the decode step is limited by FLOPs, not HBM */
    bool meets_deadline;      /* true when no deadline */
    bool meets_latency;       /* true when no latency target */
    bool meets_rate;          /* inference: throughput_rps >= requests_per_second */
    bool within_budget;       /* true when no budget or cost unknown */
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

/* The id of the rule whose reason text (dc_reason_text of a computed
 * reason with that id) is target t's message: a missed target, or a budget
 * with no cost to check, reads as the reason that ranks the candidate down.
 * NULL when the message is the target's own (met, or no estimate). A writer
 * that shows both can build that text once. */
DC_API const char *dc_target_reason_id(const struct dc_target_status *t);

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

/* How far a price (or an MFU) may be off: the robustness check of an
 * explanation moves each by this share either way (dc/explain.h), and the
 * price note below holds an uncertain price to the same share. Here, beneath
 * both, so that the result's own note needs nothing of the explanations. */
#define DC_EXPLAIN_PERTURBATION 0.3

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

#endif /* DC_RESULT_H */
