/* core/src/sizing.h -- the physics model behind every number a result prints:
 * memory by method and precision, compute, chips in shapes that can be bought,
 * MFU by family and scale, training time, serving capacity and latency.
 * Method for users: docs/scoring.md, section 5; calibration against published
 * runs: docs/calibration.md. Not part of the public API. */
#ifndef DC_SIZING_H
#define DC_SIZING_H

#include "dc/engine.h"
#include "workload_internal.h"

#define DC__GB               1e9
#define DC__SECONDS_PER_HOUR 3600.0

/* Workload-level quantities (no accelerator yet): core/src/derive.c. */
void dc__derive(const dc_ruleset *rs, const struct dc_workload *w, struct dc__derived *d);

/* A robustness probe on one accelerator (struct dc_recommend_opts): factors
 * on its price per chip-hour and on its MFU. */
struct dc__perturb {
    double price;
    double mfu;
};
#define DC__UNPERTURBED ((struct dc__perturb){1.0, 1.0})

/* Size `w` on accelerator `a`. `pinned` > 0 fixes the total chip count (a
 * published run's, for calibration) instead of choosing it; it must be a count
 * the workload fits in. `k` scales the part's MFU and price (robustness
 * probes; DC__UNPERTURBED otherwise). Never fails: unknown numbers stay NAN. */
void dc__size(const dc_ruleset *rs, const struct dc_workload *w, const struct dc__derived *d,
              const struct dc_accelerator *a, unsigned pinned, struct dc__perturb k,
              struct dc_sizing *z);

static inline unsigned dc__shape_chips(const struct dc_shape *s)
{
    return s->units * s->per_unit;
}

/* Most chips a job may use on `a`: the cluster, or max_accelerators if lower. */
unsigned dc__chip_cap(const struct dc_workload *w, const struct dc_accelerator *a);

/* Dense FLOP/s per chip for the workload's precision before MFU: the bf16
 * rate times the measured low-precision gain (never above the catalog's
 * ratio of peaks). NAN when no rate is listed. */
double dc__compute_peak(const dc_ruleset *rs, const struct dc_accelerator *a, enum dc_precision p);

/* Training MFU relative to the bf16 peak on `chips` chips of `a`. */
double dc__training_mfu(const dc_ruleset *rs, const struct dc_accelerator *a, unsigned chips);

/* Price the sized candidate: cost_basis, offer, usd_per_chip_hour (times
 * `price_scale`, a robustness probe's factor, 1 otherwise), cost_usd,
 * cost_per_hour_usd, energy_usd and within_budget (core/src/cost.c). */
void dc__cost(const dc_ruleset *rs, const struct dc_workload *w, const struct dc_accelerator *a,
              double price_scale, struct dc_sizing *z);

#endif
