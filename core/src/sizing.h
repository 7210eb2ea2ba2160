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

/* The offer that prices shape `s` of `a` on `basis` from one of `providers`
 * (bit set; 0 = any): the cheapest per chip-hour among those renting instances
 * of exactly s->per_unit accelerators or of a size dividing it, or, for a TPU
 * slice, the per-chip offers; fewer instances on a tie, then file order.
 * *instances (may be NULL) is how many of its instances the shape takes.
 * NULL (and 0 instances) when none rents that size, or on a NULL argument or
 * a basis out of range. */
const struct dc_offer *dc__offer_for_shape(const struct dc_accelerator *a, const struct dc_shape *s,
                                           enum dc_pricing basis, unsigned providers,
                                           unsigned *instances);

/* The distinct machine sizes (accelerators per instance, ascending) that an
 * offer of one of `providers` (0 = any) rents on `basis`, at most `max` of them
 * (the smallest); the count written. 0 for parts bought as named slices
 * (TPUs, CPU machine types: the engine uses the catalog's), for a NULL
 * argument or a basis out of range. */
unsigned dc__rentable_node_sizes(const struct dc_accelerator *a, enum dc_pricing basis,
                                 unsigned providers, unsigned *sizes, unsigned max);

/* Which providers (bit set into *providers_out, which may be NULL) rent shape
 * `s` of `a` on `basis`; false when none does, or on a NULL argument or a
 * basis out of range. */
bool dc__providers_renting(const struct dc_accelerator *a, const struct dc_shape *s,
                           enum dc_pricing basis, unsigned *providers_out);

/* Why a cloud candidate with offers on the workload's basis has no price:
 * "No public offer rents machines of 4 H100 on demand (instances of 1 and 8
 * H100 are offered)". False (buf untouched) when no allowed offer is priced on
 * that basis at all, which the caller words itself. */
bool dc__unrented_size_text(const struct dc_workload *w, const struct dc_accelerator *a,
                            const struct dc_shape *s, char *buf, size_t len);

#endif
