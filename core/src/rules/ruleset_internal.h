/* core/src/rules/ruleset_internal.h -- the compiled rule set, shared by the loader
 * (ruleset.c) and the engine (engine.c). Not part of the public API. */
#ifndef DC_RULESET_INTERNAL_H
#define DC_RULESET_INTERNAL_H

#include <stdatomic.h>

#include "dc/logic.h"
#include "dc/models.h"
#include "dc/ruleset.h"

struct dc__acc_impact {
    size_t acc; /* index into the catalog */
    int impact;
};

/* Words of a bit per catalog accelerator (DC_RULESET_MAX_ACCELERATORS). */
#define DC__ACC_WORDS ((DC_RULESET_MAX_ACCELERATORS + 63) / 64)

/* Entries of a request's var cache (dc_logic_var_cache): a rule set's
 * conditions read some 25 distinct paths of the facts. */
#define DC__VAR_SLOTS_MAX 256

struct dc__rule {
    struct dc_rule_info info;
    dc_logic *cond;
    int family_impact[DC_FAMILY_COUNT];
    unsigned family_mask;      /* families with an impact */
    unsigned exclude_families; /* bit per enum dc_family */
    struct dc__acc_impact *acc_impacts;
    size_t n_acc_impacts;
    size_t *exclude_accs;
    size_t n_exclude_accs;
    /* rank_below: candidates of these families, and these accelerators, rank
     * below every candidate of family `below` (or, below_any, every candidate
     * the rule does not hold) that is left (docs/scoring.md, section 8). */
    unsigned rank_below_families;
    size_t *rank_below_accs; /* catalog indices */
    size_t n_rank_below_accs;
    enum dc_family below;
    bool below_any;
    /* The condition reads a `sized.*` fact (the configuration a candidate is
     * sized in): evaluated per candidate after sizing, an exclusion as a
     * constraint on its configurations (docs/rules-format.md). */
    bool sized;
    /* Catalog indices as bits (DC__ACC_BIT), set once the rules are read:
     * the accelerators acc_impacts or rank_below_accs name (touch_accs) and
     * those exclude_accs names, so that a request asks each hit rule of
     * each candidate with a bit, not a walk of its lists. */
    uint64_t touch_accs[DC__ACC_WORDS];
    uint64_t exclude_acc_bits[DC__ACC_WORDS];
};

/* Whether catalog index `idx` is set in `bits` (touch_accs, exclude_acc_bits). */
static inline bool dc__acc_bit(const uint64_t *bits, size_t idx)
{
    return idx < DC__ACC_WORDS * 64 && (bits[idx / 64] >> (idx % 64) & 1u) != 0;
}

struct dc_ruleset {
    atomic_uint refs;
    char version[65];
    char *origin;
    cJSON **trees; /* parsed files; every string view points into them */
    size_t n_trees;
    char **file_names;
    struct dc_accelerator *accs;
    uint16_t *pci_pool;      /* device ids of every accelerator */
    struct dc_offer *offers; /* prices.yaml, grouped by accelerator in catalog order */
    size_t n_offers;
    struct dc_capacity *capacity; /* prices.yaml `capacity:`, in file order */
    size_t n_capacity;
    size_t n_accs;
    struct dc__rule *rules;
    size_t n_rules;
    /* The indices of the rules that read sized.* facts (dc__rule.sized), in
     * rule order: a couple among dozens, which every sized configuration
     * asks after. */
    size_t *sized_rules;
    size_t n_sized_rules;
    /* The distinct paths the conditions' var nodes read of the facts, each
     * numbered for a request's dc_logic_var_cache (at most
     * DC__VAR_SLOTS_MAX; a path past them is looked up where read). */
    size_t n_var_slots;
    struct dc_sizing_params sizing;
    /* models.yaml (core/src/rules/models.c); none when the set has no such file. */
    struct dc_model_info *models;
    size_t n_models;
    /* Each entry's model.parameters, read once at load (NAN: none, or not
     * above 0): every recommendation of a model given by its size compares
     * it with the registry's (reasons/defaults.c). */
    double *model_parameters;
    cJSON *model_trees; /* owns every entry's model, details, sources and notes */
};

/* The score impact of `rule` on catalog entry `idx` of family `fam`: its
 * family's impact and its own; *reaches tells whether either names it (an
 * impact of 0 still reaches it). core/src/rules/ruleset.c. */
int dc__rule_impact(const struct dc__rule *rule, size_t idx, enum dc_family fam, bool *reaches);

#endif
