/* core/src/explain/cf_internal.h -- what the parts of an explanation (dc/explain.h)
 * share: the evaluation budget and the re-runs of the core (cf_eval.c), the
 * fields a user controls (cf_fields.c), the search for changes
 * (cf_changes.c, cf_threshold.c) and robustness (cf_robust.c). Not part of the
 * public API. */
#ifndef DC_CF_INTERNAL_H
#define DC_CF_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "dc/clock.h"
#include "dc/explain.h"

/* A bracket [lose, win] is close enough when the two are within this ratio:
 * just under DC_EXPLAIN_THRESHOLD_TOLERANCE, so rounding never breaks it. */
#define CF_BRACKET_RATIO (1.0 + 0.99 * DC_EXPLAIN_THRESHOLD_TOLERANCE)

/* The top pick of one run of the core. */
struct cf_outcome {
    const struct dc_accelerator *top; /* NULL: nothing recommended */
    int score;
    /* The base result's top pick, priced there, has no known cost in this run. */
    bool base_top_unpriced;
    /* The new top misses a target (deadline, latency, rate) while the base's
     * top met them all: no change to offer (issue 29). */
    bool misses_targets;
};

/* One explanation in progress. */
struct cf_ctx {
    const dc_ruleset *rs;
    const cJSON *workload; /* the request (borrowed) */
    const struct dc_result *base;
    struct dc_recommend_opts ropts; /* the base's options, without the request id */
    cJSON *current;                 /* the workload with its defaults, as conditions read it */
    size_t n_accs;
    unsigned max_evals;
    unsigned evals; /* both kinds together */
    uint64_t started_ns;
    uint64_t budget_ns; /* 0: none */
    enum dc_explain_stop stop;
};

/* Run the core on `w` (borrowed) with the base's options and the given
 * factors (NULL: none). DC_OK with *out; DC_ELIMIT once a budget is spent
 * (c->stop says which; nothing ran); DC_EINVAL when the core refused the
 * workload (counted); DC_ENOMEM. */
enum dc_status cf__run(struct cf_ctx *c, const cJSON *w, const double *price_scale,
                       const double *mfu_scale, struct cf_outcome *out);

/* cf__run on the request with `field` set to `to` (JSON null: removed). */
enum dc_status cf__run_edit(struct cf_ctx *c, const char *field, const cJSON *to,
                            struct cf_outcome *out);

/* The value of `field` in c->current (the workload with defaults); NULL when
 * the document has no such member. */
const cJSON *cf__current(const struct cf_ctx *c, const char *field);

/* ---- the fields a user controls (cf_fields.c) -------------------------------------- */

enum cf_kind {
    CF_NUMBER, /* a limit: a threshold by bisection, or removed */
    CF_ENUM,   /* each other value of the contract's enum */
    CF_BOOL,   /* the other value */
    CF_LIST    /* providers, accelerators: emptied or removed, or one entry added */
};

/* Which workloads a field is a change for. */
enum cf_scope {
    CF_ANY,        /* every task */
    CF_TRAINING,   /* training and fine-tuning (the deadline) */
    CF_FINE_TUNING /* fine-tuning only: pre-training has no LoRA */
};

struct cf_field {
    const char *pointer;
    enum cf_kind kind;
    enum cf_scope scope;
    bool integer;
    double min; /* CF_NUMBER: the contract's bounds (min exclusive when not integer) */
    double max;
};

/* The fields, the smallest change first (docs/explanations.md). */
const struct cf_field *cf__fields(size_t *n);
/* A field by its pointer; NULL when it is not one. */
const struct cf_field *cf__field(const char *pointer);
/* Place of a field in the order of cf__fields (smaller: a smaller change). */
size_t cf__field_rank(const char *pointer);
/* Whether `f` is a change for this workload's task. */
bool cf__field_applies(const struct cf_ctx *c, const struct cf_field *f);
/* Whether `value` of enumerated field `f` is one the task can use (the
 * precisions: none a training run or a served model cannot run in). */
bool cf__value_applies(const struct cf_ctx *c, const struct cf_field *f, const char *value);

/* Rules compare each limit with a few constants ({"<=": [{"var":
 * "training.deadline_hours"}, 168]}): where the answer can flip besides the
 * parts' own costs, chips and hours. The distinct ones within the field's
 * bounds, ascending, at most `max`; returns how many. */
#define CF_MAX_RULE_CONSTANTS 8
struct cf_constant {
    double value;
    const char *rule; /* the (first) rule that compares with it */
};
size_t cf__rule_constants(const dc_ruleset *rs, const struct cf_field *f, struct cf_constant *out,
                          size_t max);

/* The number in [lo, hi] (0 < lo <= hi) with the fewest significant digits,
 * the smallest of those; an integer when `integer`. */
double cf__roundest(double lo, double hi, bool integer);

/* ---- changes (cf_changes.c, cf_threshold.c) ---------------------------------------- */

/* Whether an outcome is what target `t` asks for: another pick (not none)
 * for the top pick, `t` itself for the others. */
bool cf__wins(const struct dc_target *t, const struct cf_outcome *o);

/* Keep change `ch` for `t` (takes ownership of its values, even when it is not
 * kept): one per field, a threshold before a plain value of the same field,
 * at most DC_EXPLAIN_MAX_CHANGES, the smallest first. */
void cf__keep(struct dc_target *t, struct dc_change *ch);
/* Whether `t` already has a change of `field` (a threshold, when `threshold`). */
bool cf__has(const struct dc_target *t, const char *field, bool threshold);

/* A change of `field` to `to` (owned, taken even on failure) with outcome o;
 * false when out of memory. */
bool cf__change(const struct cf_ctx *c, const char *field, cJSON *to, const struct cf_outcome *o,
                struct dc_change *out);

/* The candidate of the base result for `acc` (recommended or excluded). */
const struct dc_candidate *cf__candidate(const struct cf_ctx *c, const struct dc_accelerator *acc);

/* Edits made for one excluded target: itself added to the allow-list, or a
 * provider that rents it added to the providers. */
enum dc_status cf__targeted_changes(struct cf_ctx *c, struct dc_explanation *e);
/* Every other value of every categorical field, one field at a time, and each
 * limit the workload sets removed: one run each, read for every target. */
enum dc_status cf__sweep(struct cf_ctx *c, struct dc_explanation *e);

/* Thresholds guided by the base result's sizing (a target's cost, chips,
 * hours), for every target but the top pick. */
enum dc_status cf__hinted_thresholds(struct cf_ctx *c, struct dc_explanation *e);
/* The constants rules compare each limit with, crossed one at a time from the
 * workload's side; the target the crossing makes the pick (or the top pick it
 * dethrones) gets its boundary by bisection. */
enum dc_status cf__rule_thresholds(struct cf_ctx *c, struct dc_explanation *e);
/* Limits the workload sets, doubled and halved; a target that wins there
 * gets its boundary by bisection. */
enum dc_status cf__ladder_thresholds(struct cf_ctx *c, struct dc_explanation *e);

/* ---- robustness (cf_robust.c) ------------------------------------------------------ */

enum dc_status cf__robustness(struct cf_ctx *c, struct dc_robustness *out);

#endif
