/* core/src/reasons/reasons.h -- the words of a result that other rooms use: a
 * fleet limit, a cost period and a time target in words (reasons.c), the
 * candidate the objective alone would pick (why.c), the report of
 * warnings, assumptions and defaults the engine appends (report.c,
 * defaults.c) and the age of a dated price (report.c, read by
 * price_note.c). Included by engine.c, select/ (targets.c, shortfall.c: the words of
 * a target and a cost period) and the room's own files; this room calls
 * nothing of select/ or engine.c. Not part of the public API. */
#ifndef DC_REASONS_H
#define DC_REASONS_H

#include <time.h>

#include "dc/numfmt.h"
#include "dc/result.h"
#include "sizing.h"

/* What caps a serving fleet, naming where it is set: max_accelerators, else
 * the rule author's serving_max_chips ("max_accelerators (64 chips)", "the
 * serving fleet limit of 4,096 chips (serving_max_chips in
 * rules/sizing.yaml)"); written into buf (reasons.c). */
const char *dc__fleet_limit_words(const struct dc_sizing_params *s, const struct dc_workload *w,
                                  char *buf, size_t len);
/* How z's step misses the latency target: "about 19.5 ms at batch 15, over
 * the 18 ms p99 target, which no size meets even at batch 1", with
 * `fastest` " (the fastest step reached is about 19 ms)" where a near miss
 * took a slower one (a number the JSON body does not carry, so a reason
 * leaves it to the warning and the status message), or "about 25 ms even at
 * batch 1, over ..."; written into buf (reasons.c). */
const char *dc__latency_missed_words(const struct dc_result *res, const struct dc_sizing *z,
                                     bool fastest, char *buf, size_t len);
/* What a candidate's cost is per: a month of serving, an offline job, a run. */
enum dc_period dc__cost_period(const struct dc_workload *w);
/* The time target in words: "the deadline of 30 days", "the default 1 day
 * (no deadline given)", or an offline job's "the job's deadline of 10 h". */
void dc__target_words(const struct dc_result *res, char *buf, size_t len);
/* The candidate the objective alone would pick (the lowest objective value,
 * before soft points), or NULL (why.c; the why and the pick note, select/targets.c). */
const struct dc_candidate *dc__objective_best(const struct dc_result *res);

/* Append the result's warnings (docs/scoring.md, section 9). `all` holds every
 * candidate, excluded or not, in catalog order. */
enum dc_status dc__report_warnings(const dc_ruleset *rs, struct dc_result *res,
                                   const struct dc__derived *d, const struct dc_candidate *all,
                                   size_t n_all);

/* Append the sizing parameters the result rests on, with their sources. */
void dc__report_assumptions(const dc_ruleset *rs, struct dc_result *res,
                            const struct dc__derived *d);

/* Age in days of a price dated "YYYY-MM" or "YYYY-MM-DD" (a month-only date
 * counts from the first of that month) at `now`; NAN when unparseable. */
double dc__price_age_days(const char *as_of, time_t now);

/* The defaults that moved a number, each an assumption and a warning naming
 * the field to give (core/src/reasons/defaults.c). */
enum dc_status dc__report_defaults(const dc_ruleset *rs, struct dc_result *res,
                                   const struct dc__derived *d);

#endif
