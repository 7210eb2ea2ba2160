/* core/include/dc/engine.h -- one workload in, a ranked and explained result out:
 * the engine's entry points (dc_recommend, dc_size_at, the rule-step budget)
 * and their options. The workload is dc/workload.h, the result
 * dc/result.h and what is free to run on dc/availability.h, all included
 * here, so a caller of the engine includes this header alone. Scoring is documented in
 * docs/scoring.md. */
#ifndef DC_ENGINE_H
#define DC_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "dc/availability.h"
#include "dc/common.h"
#include "dc/result.h"
#include "dc/ruleset.h"
#include "dc/workload.h"

/* JSONLogic steps one recommendation may spend on all its rules together (each
 * rule also has its own limit, DC_LOGIC_MAX_STEPS_DEFAULT). Past it the rules
 * left are skipped with a rules_budget_exhausted warning, so a rule set cannot
 * make a request slow: the shipped rules spend a few hundred in all. `check`
 * warns about a rule that can spend a quarter of it alone. */
#define DC_RECOMMEND_MAX_RULE_STEPS 250000
#define DC_RULE_STEPS_WARN          (DC_RECOMMEND_MAX_RULE_STEPS / 4)

struct dc_recommend_opts {
    const struct dc_availability *availability; /* may be NULL */
    size_t n_availability;
    bool probe_enabled;       /* availability is known (a snapshot exists); adds `availability` */
    const char *probe_source; /* reason source for the availability bonus: "probe", "prometheus" */
    bool availability_fleet;  /* the availability counts a fleet of nodes, not this host */
    double availability_age_seconds; /* of the snapshot behind it; NAN (or 0) when unknown */
    bool availability_stale;         /* older than its staleness limit: warned about */
    /* The source has not seen a device yet (Prometheus answered before its first
     * scrape): nothing is known free, and answers say so (warned about). */
    bool availability_warming;
    bool prefer_available;  /* server-wide default for workload.prefer_available */
    const char *request_id; /* copied into the result; may be NULL */
    /* Robustness probes (dc/explain.h): factors on each catalog accelerator's
     * price per chip-hour and on its MFU, in catalog order
     * (dc_ruleset_accelerator_count entries, each > 0). NULL: 1 for every one. */
    const double *price_scale;
    const double *mfu_scale;
};

/* Recommend for `workload` (borrowed; must outlive the result, whose workload
 * strings are views into it). `opts` may be NULL. On DC_OK *out is owned by the
 * caller (dc_result_free) and holds a reference to `rs`. Errors: DC_EINVAL
 * (bad workload field; err->where is its pointer), DC_ENOMEM. Reentrant:
 * any number of threads may recommend against one rule set. */
DC_API DC_NODISCARD enum dc_status dc_recommend(const dc_ruleset *rs, const cJSON *workload,
                                                const struct dc_recommend_opts *opts,
                                                struct dc_result **out, struct dc_error *err);

DC_API void dc_result_free(struct dc_result *res); /* NULL-safe */

/* Size `workload` on catalog accelerator `id` at exactly `chips` chips (a
 * published run's count) without rules or scoring: what docs/calibration.md
 * compares with measured runs. Errors: DC_EINVAL (bad workload; err->where),
 * DC_ENOTFOUND (no such accelerator). */
DC_API DC_NODISCARD enum dc_status dc_size_at(const dc_ruleset *rs, const cJSON *workload,
                                              const char *id, unsigned chips, struct dc_sizing *out,
                                              struct dc_error *err);

/* The most JSONLogic steps each rule of `rs` spends on a workload whose arrays
 * are as long as the contract allows (one probe per task), in steps[0..n_rules):
 * what `check` compares with DC_RECOMMEND_MAX_RULE_STEPS. A rule that hits its
 * own step limit reports that limit. Errors: DC_EINVAL, DC_ENOMEM. */
DC_API DC_NODISCARD enum dc_status dc_ruleset_rule_steps(const dc_ruleset *rs, uint64_t *steps,
                                                         struct dc_error *err);

#endif /* DC_ENGINE_H */
