/* core/src/reasons/result_build.h -- building a result's lists: its warnings and
 * assumptions (core/src/reasons/result_build.c), and the pseudo-rule ids its reasons carry.
 * Beneath the phases that fill them: the engine (engine.c), the report of
 * warnings and assumptions (report.c) and the defaults (defaults.c); included
 * through engine_internal.h. Not part of the public API. */
#ifndef DC_RESULT_BUILD_H
#define DC_RESULT_BUILD_H

#include "dc/result.h"

/* Pseudo-rule ids for reasons that come from the workload's constraints, the
 * catalog and sizing rather than from a rule file. Their messages are rendered
 * on demand (dc_reason_text). */
#define DC__R_ALLOWED   "constraints.accelerators"
#define DC__R_PROVIDERS "catalog.providers"
#define DC__R_ON_PREM   "catalog.on-prem"
#define DC__R_PRECISION "catalog.precision"
#define DC__R_MEMORY    "sizing.memory"
#define DC__R_BUDGET    "sizing.budget"
#define DC__R_TIME      "sizing.time"
#define DC__R_SERVING   "sizing.serving"
#define DC__R_COST      "sizing.cost"
#define DC__R_DEADLINE  "sizing.deadline"
#define DC__R_LATENCY   "sizing.latency"
#define DC__R_RATE      "sizing.rate"
#define DC__R_AVAILABLE "probe.available"
#define DC__R_PORTABLE  "constraints.portable"
#define DC__R_FLEET     "constraints.fleet_only"

/* How many warnings and assumptions a result holds at most (the engine
 * allocates them; past them, more are dropped). */
#define DC__MAX_WARNINGS    16
#define DC__MAX_ASSUMPTIONS 40

/* A warning with `code` and `msg` (NULL msg: out of memory). */
enum dc_status dc__add_warning(struct dc_result *res, const char *code, const char *msg);

/* An assumption (skipped when the list is full or the value unknown). */
void dc__add_assumption(struct dc_result *res, const char *name, double value, const char *unit,
                        const char *source);

#endif
