/* core/src/select/select.h -- choosing among the sized candidates: the ranking
 * and the balanced band (select.c), the answer when nothing fits
 * (shortfall.c), the frontier (frontier.c) and the rules that read the sized
 * configuration (sized_rules.c). Included by engine.c, which calls them phase
 * by phase, and by the room's own files. Not part of the public API. */
#ifndef DC_SELECT_H
#define DC_SELECT_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "dc/result.h"
#include "sizing.h"

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

/* Completes a point's sizing (dc__sizing_finish) with the part of catalog
 * entry `acc` as it was configured. */
typedef void (*dc__finish_fn)(void *ctx, size_t acc, struct dc_sizing *z);

/* Objective balanced: each candidate that meets every target and whose
 * configuration is worth it takes the fastest of its part's configurations
 * that are, finished by `finish`, and is marked in_band (select.c). */
void dc__balance(const dc_ruleset *rs, const struct dc_workload *w, const struct dc__point *pts,
                 size_t n_pts, struct dc_candidate *v, size_t n, dc__finish_fn finish, void *ctx);

/* Whether a candidate may be the pick when it meets every target: not a
 * part a gate holds (the team's stack, a part not suited) while its price is
 * unknown and priced parts are left; a target it alone meets is no reason to
 * buy an unpriced part off the team's stack (docs/scoring.md, section 8).
 * Selection (select.c) and the no-fit answer (shortfall.c) both ask this. */
bool dc__may_be_picked(const struct dc_selection *s, bool any_priced);

/* Order the candidates left, best first, and give each its objective value,
 * adjustment, scores and breakeven (select.c). `pts` (n_pts) are every
 * part's feasible priced configurations: none may dominate a candidate ranked
 * above its part. */
void dc__rank(const dc_ruleset *rs, const struct dc_workload *w, const struct dc__point *pts,
              size_t n_pts, struct dc_candidate *v, size_t n);

/* Candidate `idx` sized with no chip limit and no budget (the serving fleet
 * uncapped) by the engine's own configurations and filters: false when no
 * configuration holds the job even then, or (left unsized) when no training
 * run of it can cost less than `below` (dc__train_cost_floor; INFINITY: any). */
typedef bool (*dc__size_unlimited_fn)(void *ctx, size_t idx, double below, struct dc_sizing *out);
/* The least candidate `idx` can cost sized so (a training part's
 * dc__train_cost_floor); NAN when not known or not needed. */
typedef double (*dc__cost_floor_fn)(void *ctx, size_t idx);

/* After the ranking: each recommendation's target_met and the result's
 * status; when nothing meets a hard target, the recommendations re-ranked by
 * the share they meet (scores that share in percent) and what would meet
 * them; when the estimate is withheld, no pick (every score 0) and the fields
 * that would give one (shortfall.c). `all` holds every candidate, excluded or
 * not, in catalog order. */
void dc__shortfall(const dc_ruleset *rs, struct dc_result *res, const struct dc_candidate *all,
                   size_t n_all, dc__size_unlimited_fn size_unlimited, dc__cost_floor_fn cost_floor,
                   void *ctx);

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
    struct dc_logic_var_cache *vc; /* of facts, or NULL */
    uint64_t *steps_left;
    const struct dc__rule *failed;
    enum dc_status rc;
};

/* Add the `sized` object to a request's facts when a rule reads it, its
 * nodes in `ar` as the facts' (NULL: cJSON's; dc__facts_build). */
enum dc_status dc__sized_facts_add(const dc_ruleset *rs, struct dc__arena *ar, cJSON *facts);
/* Whether a sized rule's effect reaches catalog entry `idx`. */
bool dc__sized_rules_touch(const dc_ruleset *rs, size_t idx);
/* The first sized rule excluding candidate `idx` that holds on `z`; NULL. */
const struct dc__rule *dc__sized_exclusion(struct dc__sized_eval *e, size_t idx,
                                           const struct dc_sizing *z);
/* The sized rules with score impacts on candidate `idx` that hold on `z`, at
 * most `max` of them into out[]; how many. */
size_t dc__sized_hits(struct dc__sized_eval *e, size_t idx, const struct dc_sizing *z,
                      const struct dc__rule **out, size_t max);

#endif
