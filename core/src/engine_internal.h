/* core/src/engine_internal.h -- what the phases of a recommendation share:
 * engine.c (rules, candidates, scoring) and the files of its phases (select.c,
 * frontier.c, shortfall.c, targets.c, sized_rules.c, fit_options.c, rule_step_budget.c,
 * cost.c, report.c, defaults.c, price_note.c, reasons.c for reason text), and
 * the explanations that re-run it (counterfactual.c, cf_changes.c,
 * cf_text.c, cf_threshold.c). It brings in result_build.h (warnings, assumptions,
 * reason ids), sizing.h and workload_internal.h. Not part of the public API. */
#ifndef DC_ENGINE_INTERNAL_H
#define DC_ENGINE_INTERNAL_H

#include <time.h>
#include "arena.h"
#include "dc/result.h"
#include "dc/numfmt.h"
#include "result_build.h"
#include "sizing.h"
#include "workload_internal.h"

/* What caps a serving fleet, naming where it is set: max_accelerators, else
 * the rule author's serving_max_chips ("max_accelerators (64 chips)", "the
 * serving fleet limit of 4,096 chips (serving_max_chips in
 * rules/sizing.yaml)"); written into buf (reasons.c). */
const char *dc__fleet_limit_words(const struct dc_sizing_params *s, const struct dc_workload *w,
                                  char *buf, size_t len);
/* A price basis in words: "on-demand", "spot", "1-year committed" (cost.c). */
const char *dc__pricing_words(enum dc_pricing p);
/* What a candidate's cost is per: a month of serving, an offline job, a run. */
enum dc_period dc__cost_period(const struct dc_workload *w);
/* The time target in words: "the deadline of 30 days", "the default 1 day
 * (no deadline given)", or an offline job's "the job's deadline of 10 h". */
void dc__target_words(const struct dc_result *res, char *buf, size_t len);
/* The candidate the objective alone would pick (the lowest objective value,
 * before soft points), or NULL (targets.c; the pick note and the why). */
const struct dc_candidate *dc__objective_best(const struct dc_result *res);

/* Append the result's warnings (docs/scoring.md, section 9). `all` holds every
 * candidate, excluded or not, in catalog order. */
enum dc_status dc__report_warnings(const dc_ruleset *rs, struct dc_result *res,
                                   const struct dc__derived *d, const struct dc_candidate *all,
                                   size_t n_all);

/* Append the sizing parameters the result rests on, with their sources. */
void dc__report_assumptions(const dc_ruleset *rs, struct dc_result *res,
                            const struct dc__derived *d);

/* Objective balanced (docs/scoring.md, section 7): each gate tier's anchor is
 * the cheapest configuration that meets every target; balanced walks the
 * tier's cost-time frontier from it, taking the next faster point while its
 * extra cost is at most the time it saves at a price of 2 x balanced_premium
 * x the anchor's cost per unit of its time (halving the time is worth
 * balanced_premium more money) and the whole at most balanced_premium more;
 * a point of equal cost only on no more machines. A configuration is worth
 * it when it costs no more than where the walk stopped (`cap`) and its extra
 * cost over the anchor passes the same price. */
bool dc__balance_worth(const struct dc_sizing_params *s, const struct dc_workload *w,
                       const struct dc_sizing *anchor, const struct dc_sizing *z, double cap);

/* Objective balanced: each candidate that meets every target and whose
 * configuration is worth it takes the fastest of its part's configurations
 * that are, and is marked in_band (select.c). */
void dc__balance(const dc_ruleset *rs, const struct dc_workload *w, const struct dc__point *pts,
                 size_t n_pts, struct dc_candidate *v, size_t n);

/* Whether a candidate may be the pick when it meets every target: not a
 * part a gate holds (the team's stack, a part not suited) while its price is
 * unknown and priced parts are left; a target it alone meets is no reason to
 * buy an unpriced part off the team's stack (docs/scoring.md, section 8).
 * Selection (select.c) and the no-fit answer (shortfall.c) both ask this. */
bool dc__may_be_picked(const struct dc_selection *s, bool any_priced);

/* Order the candidates left, best first, and give each its objective value,
 * adjustment, scores and breakeven (select.c). `pts` (n_pts) are every
 * part's feasible priced configurations: none may dominate a candidate ranked
 * above its part. `tmp` holds n candidates. */
void dc__rank(const dc_ruleset *rs, const struct dc_workload *w, const struct dc__point *pts,
              size_t n_pts, struct dc_candidate *v, size_t n, struct dc_candidate *tmp);

/* Candidate `idx` sized with no chip limit and no budget (the serving fleet
 * uncapped) by the engine's own configurations and filters: false when no
 * configuration holds the job even then. */
typedef bool (*dc__size_unlimited_fn)(void *ctx, size_t idx, struct dc_sizing *out);

/* After the ranking: each recommendation's target_met and the result's
 * status; when nothing meets a hard target, the recommendations re-ranked by
 * the share they meet (scores that share in percent) and what would meet
 * them; when the estimate is withheld, no pick (every score 0) and the fields
 * that would give one (shortfall.c). `all` holds every candidate, excluded or
 * not, in catalog order. */
void dc__shortfall(const dc_ruleset *rs, struct dc_result *res, const struct dc_candidate *all,
                   size_t n_all, dc__size_unlimited_fn size_unlimited, void *ctx);

/* The result's cost-time frontier from the feasible priced configurations of
 * every part (`pts`, n of them), the top pick's marked (frontier.c). */
enum dc_status dc__frontier(const dc_ruleset *rs, struct dc_result *res,
                            const struct dc__point *pts, size_t n);

/* ---- rules on the sized configuration (sized_rules.c) ---------------------------- */

struct dc__rule;

/* Sized rules one candidate's reasons hold at most (past it, the rest are
 * left out of its reasons, not of its constraints). */
#define DC__MAX_SIZED_HITS 16

/* Evaluating `sized.*` rules for one request: its facts (with the `sized`
 * object dc__sized_facts_add put in), its rule-step budget, and the first
 * rule whose condition could not be evaluated (it counts as not holding). */
struct dc__sized_eval {
    const dc_ruleset *rs;
    cJSON *facts;
    uint64_t *steps_left;
    const struct dc__rule *failed;
    enum dc_status rc;
};

/* Add the `sized` object to a request's facts when a rule reads it. */
enum dc_status dc__sized_facts_add(const dc_ruleset *rs, cJSON *facts);
/* Whether a sized rule's effect reaches catalog entry `idx`. */
bool dc__sized_rules_touch(const dc_ruleset *rs, size_t idx);
/* The first sized rule excluding candidate `idx` that holds on `z`; NULL. */
const struct dc__rule *dc__sized_exclusion(struct dc__sized_eval *e, size_t idx,
                                           const struct dc_sizing *z);
/* The sized rules with score impacts on candidate `idx` that hold on `z`, at
 * most `max` of them into out[]; how many. */
size_t dc__sized_hits(struct dc__sized_eval *e, size_t idx, const struct dc_sizing *z,
                      const struct dc__rule **out, size_t max);

/* Age in days of a price dated "YYYY-MM" or "YYYY-MM-DD" (a month-only date
 * counts from the first of that month) at `now`; NAN when unparseable. */
double dc__price_age_days(const char *as_of, time_t now);

/* For a job that fits nowhere within its chip limit: the changes that make it
 * fit, each verified by sizing the changed workload again (LoRA or QLoRA for
 * a full fine-tune on `smallest`'s part, a part the allow-list left out), as
 * "; "-separated clauses in buf; NULL when none (core/src/sizing/fit_options.c). */
const char *dc__fit_options(const dc_ruleset *rs, const struct dc_result *res,
                            const struct dc_candidate *smallest, const struct dc_candidate *all,
                            size_t n_all, char *buf, size_t len);

/* The defaults that moved a number, each an assumption and a warning naming
 * the field to give (core/src/reasons/defaults.c). */
enum dc_status dc__report_defaults(const dc_ruleset *rs, struct dc_result *res,
                                   const struct dc__derived *d);

#endif
