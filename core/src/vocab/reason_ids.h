/* core/src/vocab/reason_ids.h -- the ids of the reasons that no rule file
 * holds: exclusions and ranking reasons that come from the workload's
 * constraints, the catalog, sizing and the probe. The engine gives them to
 * candidates (engine.c); sizing (fit_options.c), selection (shortfall.c,
 * targets.c), the reason texts (reasons.c, report.c) and the explanations
 * (explain/) read them back. Not part of the public API. */
#ifndef DC_REASON_IDS_H
#define DC_REASON_IDS_H

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

#endif
