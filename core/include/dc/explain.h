/* core/include/dc/explain.h -- what would change the answer: counterfactual
 * changes to the fields a user controls, and the robustness of the top pick.
 *
 * Both are computed by re-running the decision core (dc_recommend) on edited
 * copies of the workload, at most DC_EXPLAIN_MAX_EVALUATIONS times, and every
 * change returned was one of those runs: applied to the workload it gives the
 * top pick it names. The method, with worked examples, is docs/explanations.md.
 *
 * The search visits its edits in a fixed order and is bounded by a count of
 * evaluations, so the same workload and rule set always give the same
 * explanation, whatever the machine's load. A wall-clock guard (when the
 * caller sets one) sits far above what the evaluations can cost; if it ever
 * cuts an explanation short, the explanation says so. */
#ifndef DC_EXPLAIN_H
#define DC_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "dc/common.h"
#include "dc/engine.h"
#include "dc/ruleset.h"

/* Runs of the core one explanation may make, both kinds together. */
#define DC_EXPLAIN_MAX_EVALUATIONS 64
/* The server's wall-clock guard on one explanation: 250 ms, some twenty
 * times what the evaluations cost at worst (bench/README.md), so that it
 * never decides an answer and only stops a pathological machine. */
#define DC_EXPLAIN_TIME_GUARD_NS 250000000u
/* Accelerators explained: the top pick, the runner-up, each other family's
 * best, parts attached to this host, and excluded parts. */
#define DC_EXPLAIN_MAX_TARGETS 8
/* Changes kept per accelerator, the smallest first. */
#define DC_EXPLAIN_MAX_CHANGES 3
/* Robustness: prices and MFU moved by DC_EXPLAIN_PERTURBATION either way
 * (dc/result.h, which the price note shares it with). */
/* A numeric threshold is within this share of the true boundary. */
#define DC_EXPLAIN_THRESHOLD_TOLERANCE 0.01

struct dc_explain_opts {
    unsigned kinds;           /* enum dc_explain_kind bits; 0: none is computed */
    unsigned max_evaluations; /* 0 or more than DC_EXPLAIN_MAX_EVALUATIONS: that limit */
    uint64_t time_budget_ns;  /* 0: no wall-clock cap (the evaluations bound the work) */
};

/* Why an accelerator is explained. */
enum dc_target_role {
    DC_ROLE_TOP,         /* the top pick: what would dethrone it */
    DC_ROLE_RUNNER_UP,   /* second in the ranking */
    DC_ROLE_FAMILY_BEST, /* the best candidate of another family */
    DC_ROLE_ATTACHED,    /* attached to this host (the probe) */
    DC_ROLE_EXCLUDED     /* removed by a hard filter */
};

/* A numeric change found by bisection: a boundary between `to`, where the
 * target is the top pick, and `not_at`, where it is not, within
 * DC_EXPLAIN_THRESHOLD_TOLERANCE of `to` (the next integer for an integer
 * field). It says where the answer flips near `to`, not that it holds for
 * every value past it. */
enum dc_threshold {
    DC_THRESHOLD_NONE,  /* a categorical change: exactly this value */
    DC_THRESHOLD_ABOVE, /* the target is the pick just above the boundary (not_at below `to`) */
    DC_THRESHOLD_BELOW  /* the target is the pick just below the boundary (not_at above `to`) */
};

/* One change to one field of the workload, verified: the workload with `field`
 * set to `to` gives `top` as the top pick. */
struct dc_change {
    const char *field; /* JSON Pointer into the workload ("/constraints/budget_usd") */
    cJSON *from;       /* the value now, defaults applied; JSON null when unset. Owned */
    cJSON *to;         /* the new value; JSON null: the field removed. Owned */
    const struct dc_accelerator *top; /* the top pick with the change; NULL: nothing left */
    int top_score;
    enum dc_threshold threshold;
    double not_at; /* threshold: the nearest value tried where `top` is not the pick */
    /* A threshold at a constant a rule compares the field with: the rule (a
     * view into the rule set), whose effect starts or stops there; NULL when
     * the boundary is the parts' own (a cost, a chip count, a run time). */
    const char *rule;
    double rule_at; /* that constant */
    /* The change flips the pick because the pick loses its price (no offer
     * on the new basis or providers), not because another part is better. */
    bool price_missing;
};

struct dc_target {
    const struct dc_accelerator *acc; /* view into the rule set */
    enum dc_target_role role;
    unsigned rank;           /* 1-based place in the ranking; 0 when excluded */
    int score;               /* 0 when excluded */
    const char *excluded_by; /* the rule id that excluded it, or NULL */
    /* For the top pick: changes that make another accelerator the pick. For the
     * others: changes that make this one the pick. The smallest first (the
     * order of docs/explanations.md); at most one per field. */
    struct dc_change changes[DC_EXPLAIN_MAX_CHANGES];
    size_t n_changes;
};

/* Why a search stopped. */
enum dc_explain_stop {
    DC_EXPLAIN_COMPLETE,         /* every planned evaluation ran */
    DC_EXPLAIN_STOP_EVALUATIONS, /* the evaluation budget was spent */
    DC_EXPLAIN_STOP_TIME         /* the wall-clock budget was spent */
};

/* What one section of an explanation cost. */
struct dc_explain_usage {
    unsigned evaluations;
    enum dc_explain_stop stop;
};

enum dc_perturbation { DC_PERTURB_PRICE, DC_PERTURB_MFU, DC_PERTURB_COUNT };

/* One accelerator's factor in a perturbation. */
struct dc_scaled {
    const struct dc_accelerator *acc;
    double factor;
};

/* A perturbation of prices (or MFU) that changes the top pick: the named
 * accelerators take their factor, every other one `others` (1: unchanged). */
struct dc_flip {
    struct dc_scaled scaled[2];
    size_t n_scaled;
    double others;
    const struct dc_accelerator *top; /* the pick under it; NULL: nothing left */
    int top_score;
};

struct dc_robust_check {
    enum dc_perturbation kind;
    bool robust;         /* the pick keeps the top with its own move against every other part's */
    struct dc_flip flip; /* when not robust: the smallest perturbation tried that flips it */
};

struct dc_robustness {
    const struct dc_accelerator *top;       /* NULL when nothing is recommended */
    const struct dc_accelerator *runner_up; /* NULL when nothing else is */
    int top_score;
    int runner_up_score;
    bool top_priced; /* the top pick has a known cost: a price to move */
    struct dc_robust_check checks[DC_PERTURB_COUNT];
    size_t n_checks; /* checks finished (0 without a top pick or when cut short) */
    struct dc_explain_usage usage;
};

struct dc_explanation {
    unsigned kinds; /* what was computed: enum dc_explain_kind bits */
    struct dc_target targets[DC_EXPLAIN_MAX_TARGETS];
    size_t n_targets;
    struct dc_explain_usage changes_usage;
    struct dc_robustness robustness;
    uint64_t elapsed_ns; /* wall clock of the whole explanation (for metrics; never rendered) */
};

/* Explain `base`, the result of dc_recommend(rs, workload, ropts). `workload`
 * (borrowed) must be the JSON `base` was made from and `ropts` (may be NULL)
 * the same options, so that every re-run differs from it only by the edit.
 * On DC_OK *out is owned by the caller (dc_explanation_free). Errors:
 * DC_EINVAL (a NULL argument), DC_ENOMEM. Reentrant. */
DC_API DC_NODISCARD enum dc_status dc_explain(const dc_ruleset *rs, const cJSON *workload,
                                              const struct dc_recommend_opts *ropts,
                                              const struct dc_result *base,
                                              const struct dc_explain_opts *opts,
                                              struct dc_explanation **out, struct dc_error *err);

DC_API void dc_explanation_free(struct dc_explanation *e); /* NULL-safe */

/* "top", "runner_up", "family_best", "attached", "excluded". */
DC_API const char *dc_target_role_name(enum dc_target_role r);
/* "complete", "evaluations", "time". */
DC_API const char *dc_explain_stop_name(enum dc_explain_stop s);
/* "price", "mfu". */
DC_API const char *dc_perturbation_name(enum dc_perturbation p);
/* "above", "below"; NULL for DC_THRESHOLD_NONE. */
DC_API const char *dc_threshold_name(enum dc_threshold t);

/* One line for people: "NVIDIA H200 SXM 141GB becomes the top pick at a budget
 * of $41,000 (not at $40,600); now $30,000." Writes at most `len` bytes to
 * buf (cut, never overrun); returns buf. */
DC_API const char *dc_change_text(const struct dc_target *t, const struct dc_change *c, char *buf,
                                  size_t len);
/* "With the price of NVIDIA H100 SXM 80GB 30% higher, NVIDIA H200 SXM 141GB
 * becomes the top pick." or, robust, "... stays the top pick with ...". */
DC_API const char *dc_flip_text(const struct dc_robustness *r, const struct dc_robust_check *k,
                                char *buf, size_t len);

/* A copy of `workload` (borrowed) with `field` (a JSON Pointer of at most two
 * levels, as dc_change gives) set to `to`, or removed when `to` is JSON null;
 * the sections on the way are created. Returns owned (cJSON_Delete) or NULL
 * when out of memory or the pointer does not name a member. */
DC_API cJSON *dc_workload_with(const cJSON *workload, const char *field, const cJSON *to);

#endif /* DC_EXPLAIN_H */
