/* core/src/engine.c -- one recommendation, phase by phase: rules, candidates
 * (configurations, exclusions, reasons), gates, the ranking (select.c) and the
 * frontier (frontier.c).
 *
 * The method is documented for users in docs/scoring.md; keep the two in step.
 * Everything a result points to lives in the rule set (which the result holds
 * a reference to) or in the result's arena, so freeing a result is one call. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dc/engine.h"
#include "arena.h"
#include "dc/numfmt.h"
#include "reasons.h"
#include "select.h"
#include "ruleset_internal.h"
#include "sizing.h"
#include "reason_ids.h"
#include "result_build.h"
#include "textf.h"

/* Reasons a candidate can carry besides its rules: memory, time or serving,
 * cost, a missed target, availability. */
#define MAX_SIZING_REASONS 7

/* One recommendation in progress. */
struct rec {
    const dc_ruleset *rs;
    const struct dc_recommend_opts *opts;
    struct dc_result *res;
    struct dc__arena *ar;
    struct dc__derived d;
    cJSON *facts;              /* its nodes in facts_ar */
    struct dc__arena facts_ar; /* its first block on dc_recommend's stack */
    /* The facts' members the conditions read, each found once a request:
     * the facts only have numbers set in place once built (sized_rules.c). */
    struct dc_logic_var_cache vc;
    const struct dc__rule **hits; /* rules whose condition held */
    size_t n_hits;
    int fam_score[DC_FAMILY_COUNT];
    unsigned fam_excl;
    const struct dc__rule *fam_excl_by[DC_FAMILY_COUNT];
    struct dc_candidate *all; /* every catalog entry, in catalog order */
    struct dc__points pts;    /* feasible priced configurations, for the frontier */
    uint64_t steps_left;      /* of the request's rule-evaluation budget */
    /* Training within no chip limit and not fleet_only: each sized part's
     * pick with the budget lifted, kept by its first sizing (lifted_ok), which
     * size_unlimited then need not size again; NULL otherwise. */
    struct dc_sizing *lifted;
    bool *lifted_ok;
    /* The parts as size_unlimited sizes them, each set up once when an answer
     * where nothing fits first asks of it (unlimited_ready), and the workload
     * they read; NULL until then (or, out of memory, set up where asked). */
    struct dc_workload unlimited_w;
    bool unlimited_w_set;
    struct dc__part *unlimited;
    bool *unlimited_ready;
    bool sized_warned; /* a sized rule's failure has been warned about */
};

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static int iround(double v)
{
    return (int)lround(v);
}

/* ---- phase 1: rules ------------------------------------------------------------ */

/* A condition that could not be evaluated: a warning, and the rule is skipped
 * (false). Past the request's step budget the rest are skipped too; the
 * warning names where it ran out. Returns false when the loop must stop. */
static bool skipped_rule(struct rec *r, size_t i, enum dc_status crc, const struct dc_error *cerr,
                         enum dc_status *rc)
{
    const struct dc__rule *rule = &r->rs->rules[i];
    if (crc == DC_ENOMEM) {
        *rc = DC_ENOMEM;
        return false;
    }
    if (crc == DC_ELIMIT && r->steps_left == 0) {
        *rc = dc__add_warning(r->res, "rules_budget_exhausted",
                              dc__fmt(r->ar,
                                      "The rules spent the %llu evaluation steps a request may "
                                      "use; rule %s and the %zu after it were skipped.",
                                      (unsigned long long)DC_RECOMMEND_MAX_RULE_STEPS,
                                      rule->info.id, r->rs->n_rules - i - 1));
        return false;
    }
    *rc = dc__add_warning(r->res, "condition_error",
                          dc__fmt(r->ar, "Rule %s could not be evaluated (%s) and was skipped.",
                                  rule->info.id, cerr->msg));
    return *rc == DC_OK;
}

/* Which conditions hold for this workload; family scores and exclusions. A
 * condition that cannot be evaluated counts as false with a warning: one
 * broken rule must not take the whole service down, and all of them together
 * spend at most DC_RECOMMEND_MAX_RULE_STEPS. */
static enum dc_status evaluate_rules(struct rec *r)
{
    const dc_ruleset *rs = r->rs;
    r->hits = calloc(rs->n_rules + 1, sizeof(*r->hits));
    if (r->hits == NULL)
        return DC_ENOMEM;
    r->steps_left = DC_RECOMMEND_MAX_RULE_STEPS;
    for (size_t i = 0; i < rs->n_rules; i++) {
        const struct dc__rule *rule = &rs->rules[i];
        if (rule->sized)
            continue; /* per candidate, once it is sized (sized_rules.c) */
        bool hit = false;
        uint64_t spent = 0;
        struct dc_error cerr;
        enum dc_status crc = dc_logic_eval_truthy_cached(rule->cond, r->facts, &r->vc,
                                                         r->steps_left, &spent, &hit, &cerr);
        r->steps_left -= spent < r->steps_left ? spent : r->steps_left;
        if (crc != DC_OK) {
            enum dc_status rc = DC_OK;
            if (!skipped_rule(r, i, crc, &cerr, &rc))
                return rc;
            continue;
        }
        if (!hit)
            continue;
        r->hits[r->n_hits++] = rule;
        for (size_t f = 0; f < DC_FAMILY_COUNT; f++) {
            r->fam_score[f] += rule->family_impact[f];
            if ((rule->exclude_families & (1u << f)) && r->fam_excl_by[f] == NULL) {
                r->fam_excl |= 1u << f;
                r->fam_excl_by[f] = rule;
            }
        }
    }
    for (size_t f = 0; f < DC_FAMILY_COUNT; f++)
        r->fam_score[f] = iround(clamp(rs->sizing.score_base + r->fam_score[f], 0, 100));
    return DC_OK;
}

/* ---- phase 2: candidates ----------------------------------------------------- */

static bool deployment_ok(const struct dc_workload *w, const struct dc_accelerator *a,
                          const char **why)
{
    bool cloud = a->providers != 0 && (w->providers == 0 || (a->providers & w->providers) != 0);
    switch (w->deployment) {
    case DC_DEPLOY_ON_PREM:
        *why = DC__R_ON_PREM;
        return a->on_prem;
    case DC_DEPLOY_HYBRID:
        *why = DC__R_PROVIDERS;
        return a->on_prem || cloud;
    case DC_DEPLOY_CLOUD:
        break;
    }
    *why = DC__R_PROVIDERS;
    return cloud;
}

static bool allowed(const struct dc_workload *w, size_t idx)
{
    if (w->n_allowed == 0)
        return true;
    for (size_t k = 0; k < w->n_allowed; k++) {
        if (w->allowed[k] == idx)
            return true;
    }
    return false;
}

/* A reason without fact or counted_with (sizing, catalog, probe). */
static struct dc_reason mk_reason(const char *id, int impact, const char *msg, const char *source)
{
    return (struct dc_reason){.rule_id = id, .impact = impact, .message = msg, .source = source};
}

/* An array of `n` elements of `size` bytes in the arena, zeroed. Every element
 * of these arrays (a candidate's reasons, the ranked copies) is written before
 * it is read, but leaving them unzeroed made the server touch its arenas'
 * pages a few at a time over hundreds of thousands of requests, and the soak's
 * resident memory rose 1-2 MiB past its warm-up mark (bench/README.md, "Issue
 * 33 after every branch of 2026-11-29's fourth session"). NULL on out of
 * memory or overflow. */
static void *arena_array(struct dc__arena *ar, size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    return dc__arena_alloc(ar, n * size);
}

/* arena_array for an array whose first `filled` elements the caller writes
 * whole at once (copies of candidates or reasons): only the rest is zeroed,
 * so every byte is still written in the request that takes it (the soak's
 * reason above) and none twice. */
static void *arena_array_filled(struct dc__arena *ar, size_t n, size_t filled, size_t size)
{
    void *p = NULL;
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    if (dc__arena_take(ar, n * size, &p) != DC_OK)
        return NULL;
    memset((unsigned char *)p + filled * size, 0, (n - filled) * size);
    return p;
}

static struct dc_reason *new_reason(struct dc__arena *ar, const char *id, const char *msg,
                                    const char *source)
{
    struct dc_reason *r = dc__arena_alloc(ar, sizeof(*r));
    if (r != NULL)
        *r = mk_reason(id, 0, msg, source);
    return r;
}

/* Positive impacts on one accelerator from rules that cite the same fact count
 * once: the largest stays (the first on a tie), the others drop to 0 and name
 * it (docs/scoring.md, section 3). Reasons [first, n) are this candidate's. */
static void count_facts_once(struct dc_candidate *c, size_t first)
{
    for (size_t i = first; i < c->n_reasons; i++) {
        struct dc_reason *x = &c->reasons[i];
        if (x->impact <= 0 || x->fact == NULL)
            continue;
        for (size_t j = first; j < c->n_reasons; j++) {
            const struct dc_reason *y = &c->reasons[j];
            if (j == i || y->fact != x->fact) /* interned by the loader */
                continue;
            if (y->impact > x->impact || (y->impact == x->impact && j < i)) {
                x->counted_with = y->rule_id;
                break;
            }
        }
    }
    for (size_t i = first; i < c->n_reasons; i++)
        if (c->reasons[i].counted_with != NULL)
            c->reasons[i].impact = 0;
}

/* Every hit rule that touches candidate `idx`'s family or model, with the
 * rule's combined impact on it; returns the rule score. Sets *excl_rule to the
 * first rule that excludes it (family exclusions first). */
static int rule_reasons(const struct rec *r, size_t idx, struct dc_candidate *c,
                        const struct dc__rule **excl_rule)
{
    const struct dc_accelerator *a = c->acc;
    unsigned fam = 1u << a->family;
    size_t first = c->n_reasons;
    *excl_rule = r->fam_excl_by[a->family];
    for (size_t h = 0; h < r->n_hits; h++) {
        const struct dc__rule *rule = r->hits[h];
        /* What dc__rule_impact reaches (the family's impact, the part's
         * own), or a rank_below that holds it. */
        bool touches = ((rule->family_mask | rule->rank_below_families) & fam) != 0 ||
                       dc__acc_bit(rule->touch_accs, idx);
        if (*excl_rule == NULL && dc__acc_bit(rule->exclude_acc_bits, idx))
            *excl_rule = rule;
        if (!touches)
            continue;
        bool reaches = false;
        int impact = dc__rule_impact(rule, idx, a->family, &reaches);
        c->reasons[c->n_reasons++] = (struct dc_reason){
            rule->info.id, impact, rule->info.message, rule->info.source, rule->info.fact, NULL};
    }
    count_facts_once(c, first);
    double score = r->rs->sizing.score_base;
    for (size_t i = first; i < c->n_reasons; i++)
        score += c->reasons[i].impact;
    return iround(clamp(score, 0, 100));
}

/* Where a candidate's cost comes from: the offer's pricing page, the energy
 * price, or (no price) the part's own page. */
static const char *cost_source(const dc_ruleset *rs, const struct dc_candidate *c)
{
    switch (c->sizing.cost_basis) {
    case DC_COST_CLOUD:
        return c->sizing.offer->source;
    case DC_COST_ON_PREM:
        return rs->sizing.usd_per_kwh.source;
    case DC_COST_UNKNOWN:
        break;
    }
    return c->acc->source;
}

/* The known availability of catalog accelerator `idx` (the fleet, or this
 * host's probe), or NULL when the source saw none of it. */
static const struct dc_availability *availability_of(const struct rec *r, size_t idx)
{
    const struct dc_recommend_opts *o = r->opts;
    for (size_t k = 0; k < o->n_availability; k++) {
        const struct dc_availability *av = &o->availability[k];
        if (av->accelerator_id != NULL && strcmp(av->accelerator_id, r->rs->accs[idx].id) == 0)
            return av;
    }
    return NULL;
}

/* constraints.fleet_only: the part has a free device at all (nothing is
 * free where no availability is known, or the source is still warming up). */
static bool fleet_has_free(const struct rec *r, size_t idx)
{
    const struct dc_availability *av = availability_of(r, idx);
    return r->opts->probe_enabled && av != NULL && av->free > 0;
}

/* The first hard filter the candidate fails before it is sized (docs/
 * scoring.md, section 4: the allow-list, a rule, where it is sold, its
 * precisions), or NULL; *oom on out of memory. */
static const struct dc_reason *filtered(const struct rec *r, size_t idx,
                                        const struct dc_candidate *c,
                                        const struct dc__rule *excl_rule, bool *oom)
{
    const struct dc_workload *w = &r->res->workload;
    const struct dc_accelerator *a = c->acc;
    const char *why = NULL;
    const struct dc_reason *out = NULL;
    if (!allowed(w, idx))
        out = new_reason(r->ar, DC__R_ALLOWED, NULL, a->source);
    else if (excl_rule != NULL)
        out =
            new_reason(r->ar, excl_rule->info.id, excl_rule->info.message, excl_rule->info.source);
    else if (!deployment_ok(w, a, &why))
        out = new_reason(r->ar, why, NULL, a->source);
    else if ((a->precisions & (1u << w->precision)) == 0)
        out = new_reason(r->ar, DC__R_PRECISION, NULL, a->source);
    else if (w->fleet_only && !fleet_has_free(r, idx))
        out = new_reason(r->ar, DC__R_FLEET, NULL,
                         r->opts->probe_source != NULL ? r->opts->probe_source : "probe");
    else
        return NULL;
    *oom = out == NULL;
    return out;
}

/* The first hard filter the sized candidate fails: memory, budget,
 * portability, a rule on the sized configuration (`sized_excl`, may be NULL);
 * NULL when it passes (*oom on out of memory). */
static const struct dc_reason *unfit(const struct rec *r, const struct dc_candidate *c,
                                     bool portable, bool in_fleet,
                                     const struct dc__rule *sized_excl, bool *oom)
{
    const struct dc_workload *w = &r->res->workload;
    const struct dc_sizing_params *s = &r->rs->sizing;
    const struct dc_reason *out = NULL;
    if (!c->sizing.fits)
        out = new_reason(r->ar, DC__R_MEMORY, NULL,
                         w->task == DC_TASK_INFERENCE ? s->kv_source
                                                      : s->state_bytes_per_parameter.source);
    else if (!c->sizing.within_budget)
        out = new_reason(r->ar, DC__R_BUDGET, NULL, cost_source(r->rs, c));
    else if (!portable)
        out = new_reason(r->ar, DC__R_PORTABLE, NULL, cost_source(r->rs, c));
    else if (!in_fleet)
        out = new_reason(r->ar, DC__R_FLEET, NULL,
                         r->opts->probe_source != NULL ? r->opts->probe_source : "probe");
    else if (sized_excl != NULL)
        out = new_reason(r->ar, sized_excl->info.id, sized_excl->info.message,
                         sized_excl->info.source);
    else
        return NULL;
    *oom = out == NULL;
    return out;
}

/* How the candidate was sized and what it costs: information, impact 0 but
 * for a low-confidence price (soft points against it, section 7). */
static void sizing_reasons(const struct rec *r, struct dc_candidate *c)
{
    const struct dc_workload *w = &r->res->workload;
    const struct dc_sizing_params *s = &r->rs->sizing;
    const struct dc_accelerator *a = c->acc;
    const char *mfu_src = s->mfu_source[a->family];
    bool inf = w->task == DC_TASK_INFERENCE;
    c->reasons[c->n_reasons++] =
        mk_reason(DC__R_MEMORY, 0, NULL, inf ? s->kv_source : s->state_bytes_per_parameter.source);
    if (inf)
        c->reasons[c->n_reasons++] = mk_reason(DC__R_SERVING, 0, NULL, mfu_src);
    else if (isfinite(c->sizing.hours))
        c->reasons[c->n_reasons++] = mk_reason(DC__R_TIME, 0, NULL, mfu_src);
    bool doubtful = c->sizing.offer != NULL && c->sizing.offer->low_confidence;
    c->reasons[c->n_reasons++] = mk_reason(
        DC__R_COST, doubtful ? -iround(s->low_confidence_points) : 0, NULL, cost_source(r->rs, c));
    const struct dc_sizing *z = &c->sizing;
    const char *missed = !z->meets_latency             ? DC__R_LATENCY
                         : !z->meets_rate              ? DC__R_RATE
                         : !c->selection.meets_targets ? DC__R_DEADLINE
                                                       : NULL;
    if (missed != NULL)
        c->reasons[c->n_reasons++] = mk_reason(missed, 0, NULL, mfu_src);
}

/* The robustness probe's factors on candidate `idx` (dc/explain.h). */
static struct dc__perturb perturbation(const struct dc_recommend_opts *o, size_t idx)
{
    struct dc__perturb k = DC__UNPERTURBED;
    if (o->price_scale != NULL)
        k.price = o->price_scale[idx];
    if (o->mfu_scale != NULL)
        k.mfu = o->mfu_scale[idx];
    return k;
}

/* A configuration can be bought alike from every provider the workload
 * requires (constraints.portable): each of them rents its machine size (or
 * slice) on the asked basis. */
static bool portable_ok(const struct dc__part *p, const struct dc_sizing *z)
{
    const struct dc_workload *w = p->w;
    unsigned renting = 0;
    if (!w->portable)
        return true;
    return dc__providers_renting(p->a, &z->shape, w->pricing, &renting) &&
           (renting & w->providers) == w->providers;
}

/* What a configuration of candidate `idx` must also pass: portability, and
 * the rules on the sized configuration that exclude it. */
struct config_check {
    struct dc__sized_eval *sized; /* NULL: no sized rule reaches the candidate */
    size_t idx;
    /* constraints.fleet_only: the part's availability (NULL: not asked) */
    const struct dc_availability *fleet;
};

static bool configuration_free(const struct dc_availability *av, const struct dc_sizing *z);

/* constraints.fleet_only: the configuration starts on what the fleet has free. */
static bool fleet_ok(const struct config_check *k, const struct dc_sizing *z)
{
    return k->fleet == NULL || configuration_free(k->fleet, z);
}

static bool config_ok(void *ctx, const struct dc__part *p, const struct dc_sizing *z)
{
    struct config_check *k = ctx;
    return portable_ok(p, z) && fleet_ok(k, z) &&
           (k->sized == NULL || dc__sized_exclusion(k->sized, k->idx, z) == NULL);
}

/* The sized rules with score impacts that hold on the pick, as reasons. */
static void sized_reasons(struct dc__sized_eval *e, struct dc_candidate *c)
{
    const struct dc__rule *hit[DC__MAX_SIZED_HITS];
    size_t n = dc__sized_hits(e, c->index_, &c->sizing, hit, DC__MAX_SIZED_HITS);
    size_t first = c->n_reasons;
    for (size_t h = 0; h < n; h++) {
        const struct dc__rule *rule = hit[h];
        bool reaches;
        int impact = dc__rule_impact(rule, c->index_, c->acc->family, &reaches);
        c->reasons[c->n_reasons++] = (struct dc_reason){
            rule->info.id, impact, rule->info.message, rule->info.source, rule->info.fact, NULL};
    }
    if (n > 0)
        count_facts_once(c, first);
}

/* A sized rule that could not be evaluated: one warning for the request. */
static enum dc_status sized_failure(struct rec *r, const struct dc__sized_eval *e)
{
    if (e->failed == NULL || r->sized_warned)
        return e->rc == DC_ENOMEM ? DC_ENOMEM : DC_OK;
    r->sized_warned = true;
    if (e->rc == DC_ENOMEM)
        return DC_ENOMEM;
    return dc__add_warning(r->res, "condition_error",
                           dc__fmt(r->ar,
                                   "Rule %s could not be evaluated on a sized configuration and "
                                   "counted as not holding.",
                                   e->failed->info.id));
}

/* Size the part's configurations and keep the objective's pick; its
 * reasons (in c->reasons, room for every one), and the first hard filter
 * it fails. */
static enum dc_status size_candidate(struct rec *r, size_t i, struct dc_candidate *c)
{
    const dc_ruleset *rs = r->rs;
    const struct dc_workload *w = &r->res->workload;
    const struct dc__rule *excl_rule = NULL;
    (void)rule_reasons(r, i, c, &excl_rule);
    bool oom = false;
    /* A part the workload rules out is not sized: its configurations would
     * only cost time, and none may reach the frontier. */
    c->excluded_by = filtered(r, i, c, excl_rule, &oom);
    if (oom)
        return DC_ENOMEM;
    if (c->excluded_by != NULL) {
        memset(&c->sizing, 0, sizeof(c->sizing));
        return DC_OK;
    }
    struct dc__part p;
    dc__part_init(&p, rs, w, &r->d, c->acc, perturbation(r->opts, i));
    struct dc__sized_eval e = {rs, r->facts, &r->vc, &r->steps_left, NULL, DC_OK};
    /* fleet_has_free passed, so a fleet_only part has an availability entry. */
    struct config_check check = {dc__sized_rules_touch(rs, i) ? &e : NULL, i,
                                 w->fleet_only ? availability_of(r, i) : NULL};
    struct dc__config_filter filter = {config_ok, &check, r->lifted ? &r->lifted[i] : NULL};
    enum dc_status rc = DC_OK;
    c->sizing.fits = dc__configure(&p, i, &filter, &r->pts, &c->sizing, &rc);
    if (rc != DC_OK)
        return rc;
    if (r->lifted != NULL)
        r->lifted_ok[i] = true;
    c->selection.meets_targets = c->sizing.fits && dc__meets_targets(&p, &c->sizing);
    c->selection.priced = isfinite(c->sizing.cost_usd);
    const struct dc__rule *sized_excl =
        check.sized != NULL && c->sizing.fits ? dc__sized_exclusion(&e, i, &c->sizing) : NULL;
    c->excluded_by =
        unfit(r, c, portable_ok(&p, &c->sizing), fleet_ok(&check, &c->sizing), sized_excl, &oom);
    if (oom)
        return DC_ENOMEM;
    if (c->excluded_by == NULL && check.sized != NULL)
        sized_reasons(&e, c);
    if (c->excluded_by == NULL)
        sizing_reasons(r, c);
    return sized_failure(r, &e);
}

/* Reasons a candidate may gather, whose room build_candidate takes on its
 * stack (bench_core's workloads hit some 20 rules, room for 43): a handful
 * stay, so the arena keeps those alone, not room for all of them zeroed. */
#define REASON_SCRATCH 96

/* The candidate of catalog entry `i` (size_candidate), its reasons kept in
 * the arena with room for soft_points' one more. */
static enum dc_status build_candidate(struct rec *r, size_t i)
{
    struct dc_candidate *c = &r->all[i];
    /* Zeroed but for the sizing, which dc__configure writes whole, or
     * size_candidate zeroes where the filters leave the part unsized. */
    size_t at = offsetof(struct dc_candidate, sizing), past = at + sizeof(c->sizing);
    memset(c, 0, at);
    memset((unsigned char *)c + past, 0, sizeof(*c) - past);
    c->acc = &r->rs->accs[i];
    c->index_ = i;
    size_t room = r->n_hits + DC__MAX_SIZED_HITS + MAX_SIZING_REASONS;
    struct dc_reason scratch[REASON_SCRATCH];
    bool on_stack = room <= REASON_SCRATCH;
    c->reasons = on_stack ? scratch : arena_array(r->ar, room, sizeof(*c->reasons));
    if (c->reasons == NULL)
        return DC_ENOMEM;
    enum dc_status rc = size_candidate(r, i, c);
    if (!on_stack)
        return rc;
    c->reasons = NULL;
    if (rc != DC_OK)
        return rc;
    c->reasons = arena_array_filled(r->ar, c->n_reasons + 1, c->n_reasons, sizeof(*c->reasons));
    if (c->reasons == NULL)
        return DC_ENOMEM;
    memcpy(c->reasons, scratch, c->n_reasons * sizeof(*c->reasons));
    return DC_OK;
}

/* Part `i` as size_unlimited sizes it: max_accelerators and the budget
 * lifted, the serving fleet uncapped; set up once each (in `spare`, every
 * time, when the parts could not be kept). */
static const struct dc__part *unlimited_part(struct rec *r, size_t i, struct dc__part *spare)
{
    if (!r->unlimited_w_set) {
        r->unlimited_w_set = true;
        r->unlimited_w = r->res->workload;
        r->unlimited_w.max_accelerators = NAN;
        r->unlimited_w.budget_usd = NAN;
        r->unlimited = malloc((r->rs->n_accs + 1) * sizeof(*r->unlimited));
        r->unlimited_ready = calloc(r->rs->n_accs + 1, sizeof(*r->unlimited_ready));
        if (r->unlimited == NULL || r->unlimited_ready == NULL) {
            free(r->unlimited);
            free(r->unlimited_ready);
            r->unlimited = NULL;
            r->unlimited_ready = NULL;
        }
    }
    bool kept = r->unlimited != NULL;
    if (kept && r->unlimited_ready[i])
        return &r->unlimited[i];
    struct dc__part *p = kept ? &r->unlimited[i] : spare;
    dc__part_init(p, r->rs, &r->unlimited_w, &r->d, &r->rs->accs[i], perturbation(r->opts, i));
    p->fleet_cap = UINT_MAX;
    if (kept)
        r->unlimited_ready[i] = true;
    return p;
}

/* dc__finish_fn: a frontier point of candidate `i` that a balanced pick
 * takes, finished with the part build_candidate configured it with. */
static void finish_point(void *ctx, size_t i, struct dc_sizing *z)
{
    struct rec *r = ctx;
    struct dc__part p;
    dc__part_init(&p, r->rs, &r->res->workload, &r->d, &r->rs->accs[i], perturbation(r->opts, i));
    dc__sizing_finish(&p, z);
}

/* Whether candidate `i`'s pick with the budget lifted was kept by its first
 * sizing (training within no chip limit). */
static bool lifted_kept(const struct rec *r, size_t i)
{
    return r->lifted != NULL && r->lifted_ok[i];
}

/* dc__cost_floor_fn: the least part `i` can cost sized by size_unlimited, for
 * training; NAN for serving, and where the first sizing kept the answer. */
static double unlimited_floor(void *ctx, size_t i)
{
    struct rec *r = ctx;
    if (r->res->workload.task == DC_TASK_INFERENCE || lifted_kept(r, i))
        return NAN;
    struct dc__part spare;
    return dc__train_cost_floor(unlimited_part(r, i, &spare));
}

/* dc__size_unlimited_fn: candidate `i` configured as build_candidate does,
 * with max_accelerators and the budget lifted and the serving fleet uncapped:
 * what would meet the targets when nothing does (shortfall.c). */
static bool size_unlimited(void *ctx, size_t i, double below, struct dc_sizing *out)
{
    struct rec *r = ctx;
    if (lifted_kept(r, i)) { /* only the budget to lift */
        if (r->all[i].sizing.fits)
            *out = r->lifted[i];
        return r->all[i].sizing.fits;
    }
    struct dc__part spare;
    const struct dc__part *p = unlimited_part(r, i, &spare);
    if (p->w->task != DC_TASK_INFERENCE && dc__train_cost_floor(p) > below)
        return false;
    struct dc__sized_eval e = {r->rs, r->facts, &r->vc, &r->steps_left, NULL, DC_OK};
    struct config_check check = {dc__sized_rules_touch(r->rs, i) ? &e : NULL, i, NULL};
    struct dc__config_filter filter = {config_ok, &check, NULL};
    enum dc_status rc = DC_OK;
    return dc__configure(p, i, &filter, NULL, out, &rc) && rc == DC_OK;
}

static enum dc_status build_candidates(struct rec *r)
{
    /* Each candidate is set whole by build_candidate; the spare one zeroed. */
    r->all = malloc((r->rs->n_accs + 1) * sizeof(*r->all));
    if (r->all == NULL)
        return DC_ENOMEM;
    memset(&r->all[r->rs->n_accs], 0, sizeof(*r->all));
    const struct dc_workload *w = &r->res->workload;
    if (w->task != DC_TASK_INFERENCE && !isfinite(w->max_accelerators) && !w->fleet_only) {
        r->lifted = malloc((r->rs->n_accs + 1) * sizeof(*r->lifted));
        r->lifted_ok = calloc(r->rs->n_accs + 1, sizeof(*r->lifted_ok));
        if (r->lifted == NULL || r->lifted_ok == NULL)
            return DC_ENOMEM;
    }
    for (size_t i = 0; i < r->rs->n_accs; i++) {
        enum dc_status rc = build_candidate(r, i);
        if (rc != DC_OK)
            return rc;
    }
    return DC_OK;
}

/* ---- phase 3: gates and soft points (docs/scoring.md, sections 7 and 8) ---------- */

/* Whether the candidate's configuration could start on what is free now: each
 * machine (or slice) of its shape on the free devices of one node, so a shape of
 * whole machines needs whole free nodes; a slice larger than any node's free
 * devices takes whole free hosts (docs/scoring.md, section 8). */
static bool configuration_free(const struct dc_availability *av, const struct dc_sizing *z)
{
    unsigned slots[DC_AVAILABILITY_NODE_MAX + 1];
    unsigned whole = av->whole_node_free;
    unsigned long long nodes = 0;
    memcpy(slots, av->nodes_by_free, sizeof(slots));
    for (size_t k = 0; k <= DC_AVAILABILITY_NODE_MAX; k++)
        nodes += slots[k];
    if (nodes == 0) { /* a host probe: one node holding them all */
        slots[av->free < DC_AVAILABILITY_NODE_MAX ? av->free : DC_AVAILABILITY_NODE_MAX] = 1;
        whole = av->free == av->attached ? av->free : 0;
    }
    unsigned per = z->shape.per_unit, units = z->shape.units;
    if (av->free == 0 || per == 0 || units == 0 || (unsigned long long)per * units > av->free)
        return false;
    unsigned long long places = 0;
    for (unsigned k = per; k <= DC_AVAILABILITY_NODE_MAX; k++)
        places += (unsigned long long)slots[k] * (k / per);
    if (places >= units)
        return true;
    return z->shape.slice != NULL && whole >= (unsigned long long)per * units;
}

static void attach_availability(const struct rec *r, struct dc_candidate *c)
{
    const struct dc_recommend_opts *o = r->opts;
    if (!o->probe_enabled)
        return;
    struct dc_candidate_availability *ca = &c->availability;
    ca->known = true;
    ca->memory_free_gb = 0; /* nothing attached: none free */
    ca->fleet = o->availability_fleet;
    ca->age_seconds = o->availability_age_seconds;
    ca->stale = o->availability_stale;
    ca->warming = o->availability_warming;
    const struct dc_availability *av = availability_of(r, c->index_);
    if (av != NULL) {
        ca->attached = av->attached;
        ca->free = av->free;
        ca->memory_free_gb = av->memory_free_gb;
        ca->nodes = ca->free_nodes = 0;
        for (size_t n = 0; n <= DC_AVAILABILITY_NODE_MAX; n++) {
            ca->nodes += av->nodes_by_free[n];
            ca->free_nodes += n > 0 ? av->nodes_by_free[n] : 0;
        }
        if (ca->nodes == 0 && av->attached > 0) { /* a host probe */
            ca->nodes = 1;
            ca->free_nodes = av->free > 0;
        }
        ca->configuration_free = configuration_free(av, &c->sizing);
    }
    /* Once per result, with the first candidate: answers go on from the last
     * snapshot, and say how old it is. */
    if (o->availability_warming && c == r->all) {
        const char *msg = dc__fmt(r->ar,
                                  "The %s has not seen a device yet (%s): nothing is known "
                                  "free, so availability does not move this answer.",
                                  o->availability_fleet ? "fleet" : "probe",
                                  o->availability_fleet ? "Prometheus has not scraped a node "
                                                          "agent or dcgm-exporter yet"
                                                        : "no snapshot yet");
        if (msg != NULL)
            (void)dc__add_warning(r->res, "availability_warming", msg);
    }
    if (o->availability_stale && c == r->all) {
        char age[48];
        const char *msg = dc__fmt(r->ar,
                                  "The availability behind this answer is %s old: its source "
                                  "has not refreshed it in time.",
                                  dc_fmt_duration(o->availability_age_seconds, age, sizeof(age)));
        if (msg != NULL)
            (void)dc__add_warning(r->res, "availability_stale", msg);
    }
}

/* The soft points of a candidate left: its rules' impacts (each fact once),
 * availability when the workload prefers it, a low-confidence price. */
static void soft_points(const struct rec *r, struct dc_candidate *c)
{
    const struct dc_workload *w = &r->res->workload;
    const struct dc_sizing_params *s = &r->rs->sizing;
    if (w->prefer_available && c->availability.known && c->availability.configuration_free)
        c->reasons[c->n_reasons++] =
            mk_reason(DC__R_AVAILABLE, iround(s->availability_points), NULL,
                      r->opts->probe_source != NULL ? r->opts->probe_source : "probe");
    int sum = 0;
    for (size_t i = 0; i < c->n_reasons; i++)
        sum += c->reasons[i].impact;
    c->selection.soft_points = sum;
}

/* Whether rank_below rule `rule` holds candidate `c`. */
static bool gated_by(const struct dc__rule *rule, const struct dc_candidate *c)
{
    if (rule->rank_below_families & (1u << c->acc->family))
        return true;
    for (size_t k = 0; k < rule->n_rank_below_accs; k++)
        if (rule->rank_below_accs[k] == c->index_)
            return true;
    return false;
}

/* Whether a "not suited" gate (rank_below with below: any) other than `rule`
 * holds candidate `c`. */
static bool unsuited(const struct rec *r, const struct dc__rule *rule, const struct dc_candidate *c)
{
    for (size_t h = 0; h < r->n_hits; h++)
        if (r->hits[h] != rule && r->hits[h]->below_any && gated_by(r->hits[h], c))
            return true;
    return false;
}

/* A gate holds its candidates below others only while a candidate it must
 * follow is left: any it does not hold (below: any), or one of family
 * `below` that no "not suited" gate holds, so that the team gates keep a
 * team on its own stack only where that stack suits the workload (a JAX
 * program that branches often is not held on TPUs; docs/scoring.md, 8). */
static bool gate_active(const struct rec *r, const struct dc__rule *rule)
{
    for (size_t j = 0; j < r->rs->n_accs; j++) {
        const struct dc_candidate *g = &r->all[j];
        if (g->excluded_by != NULL || gated_by(rule, g))
            continue;
        if (rule->below_any || (g->acc->family == rule->below && !unsuited(r, rule, g)))
            return true;
    }
    return false;
}

/* The reason a gate names: the rule's own reason on the candidate. */
static const struct dc_reason *reason_of(const struct rec *r, const struct dc_candidate *c,
                                         const char *id, const char *msg, const char *source)
{
    for (size_t i = 0; i < c->n_reasons; i++)
        if (strcmp(c->reasons[i].rule_id, id) == 0)
            return new_reason(r->ar, id, c->reasons[i].message, c->reasons[i].source);
    return new_reason(r->ar, id, msg, source);
}

/* Count each candidate's active gates; capped_by names the first (a rule, or
 * an unknown cost while priced candidates are left). False on OOM. */
static bool apply_gates(struct rec *r)
{
    bool any_priced = false;
    for (size_t i = 0; i < r->rs->n_accs; i++)
        any_priced |= r->all[i].excluded_by == NULL && r->all[i].selection.priced;
    for (size_t h = 0; h < r->n_hits; h++) {
        const struct dc__rule *rule = r->hits[h];
        if ((rule->rank_below_families == 0 && rule->n_rank_below_accs == 0) ||
            !gate_active(r, rule))
            continue;
        for (size_t i = 0; i < r->rs->n_accs; i++) {
            struct dc_candidate *c = &r->all[i];
            if (c->excluded_by != NULL || !gated_by(rule, c))
                continue;
            c->selection.gates++;
            if (c->capped_by == NULL)
                c->capped_by =
                    reason_of(r, c, rule->info.id, rule->info.message, rule->info.source);
            if (c->capped_by == NULL)
                return false;
        }
    }
    for (size_t i = 0; any_priced && i < r->rs->n_accs; i++) {
        struct dc_candidate *c = &r->all[i];
        if (c->excluded_by != NULL || c->selection.priced || c->capped_by != NULL)
            continue;
        c->capped_by = reason_of(r, c, DC__R_COST, NULL, c->acc->source);
        if (c->capped_by == NULL)
            return false;
    }
    return true;
}

/* A sizing reason's id: "sizing." and more, byte by byte without a call
 * (the sort compares each pair of a candidate's; a shorter id stops at the
 * byte its NUL differs from). */
static bool sizing_id(const char *id)
{
    static const char prefix[] = "sizing.";
    for (size_t i = 0; i + 1 < sizeof(prefix); i++)
        if (id[i] != prefix[i])
            return false;
    return true;
}

static int reason_cmp(const void *a, const void *b)
{
    const struct dc_reason *x = a;
    const struct dc_reason *y = b;
    int ax = abs(x->impact), ay = abs(y->impact);
    if (ax != ay)
        return ay - ax;
    /* Informational sizing reasons after rule reasons of equal weight. */
    bool sx = sizing_id(x->rule_id);
    bool sy = sizing_id(y->rule_id);
    if (sx != sy)
        return sx ? 1 : -1;
    return strcmp(x->rule_id, y->rule_id);
}

/* A candidate's few reasons (a dozen or so) in reason_cmp order: an insertion
 * sort, stable, and cheaper than qsort's merge at this size. */
static void sort_reasons(struct dc_reason *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct dc_reason key = v[i];
        size_t j = i;
        for (; j > 0 && reason_cmp(&v[j - 1], &key) > 0; j--)
            v[j] = v[j - 1];
        v[j] = key;
    }
}

/* ---- phase 4: the ranking ---------------------------------------------------------- */

static enum dc_status rank(struct rec *r)
{
    struct dc_result *res = r->res;
    size_t n = r->rs->n_accs, n_rec = 0;
    for (size_t i = 0; i < n; i++) {
        attach_availability(r, &r->all[i]);
        if (r->all[i].excluded_by == NULL) {
            soft_points(r, &r->all[i]);
            n_rec++;
        }
    }
    if (!apply_gates(r))
        return DC_ENOMEM;
    /* Each is filled below but for its one spare element. */
    res->recommendations =
        arena_array_filled(r->ar, n_rec + 1, n_rec, sizeof(*res->recommendations));
    res->excluded = arena_array_filled(r->ar, n - n_rec + 1, n - n_rec, sizeof(*res->excluded));
    if (res->recommendations == NULL || res->excluded == NULL)
        return DC_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        struct dc_candidate *c = &r->all[i];
        sort_reasons(c->reasons, c->n_reasons);
        if (c->excluded_by != NULL)
            res->excluded[res->n_excluded++] = *c;
        else
            res->recommendations[res->n_recommendations++] = *c;
    }
    dc__balance(r->rs, &res->workload, r->pts.v, r->pts.n, res->recommendations,
                res->n_recommendations, finish_point, r);
    dc__rank(r->rs, &res->workload, r->pts.v, r->pts.n, res->recommendations,
             res->n_recommendations);
    dc__shortfall(r->rs, res, r->all, n, size_unlimited, unlimited_floor, r);
    return DC_OK;
}

/* ---- phase 5: families ------------------------------------------------------------ */

/* Each family by its best candidate, so the summary agrees with the ranking;
 * families with none left come last, by the score of their family rules. */
static void rank_families(struct dc_result *res, const int *fam_score, unsigned fam_excl)
{
    size_t pos[DC_FAMILY_COUNT];
    for (size_t f = 0; f < DC_FAMILY_COUNT; f++) {
        struct dc_family_rank *r = &res->families[f];
        *r = (struct dc_family_rank){(enum dc_family)f, 0, fam_score[f], true, NULL};
        pos[f] = SIZE_MAX;
        for (size_t i = 0; i < res->n_recommendations && r->best == NULL; i++) {
            const struct dc_candidate *c = &res->recommendations[i];
            if (c->acc->family == (enum dc_family)f) {
                r->best = c->acc->id;
                r->score = c->score;
                pos[f] = i;
            }
        }
        r->excluded = r->best == NULL || (fam_excl & (1u << f)) != 0;
    }
    /* Insertion sort of the families: by the rank of the best candidate, then (none
     * left) by family rule score, then by enum order. */
    for (size_t i = 1; i < DC_FAMILY_COUNT; i++) {
        struct dc_family_rank key = res->families[i];
        size_t key_pos = pos[i];
        size_t j = i;
        while (j > 0) {
            const struct dc_family_rank *p = &res->families[j - 1];
            bool before =
                key_pos != pos[j - 1] ? key_pos < pos[j - 1] : key.rule_score > p->rule_score;
            if (!before)
                break;
            res->families[j] = res->families[j - 1];
            pos[j] = pos[j - 1];
            j--;
        }
        res->families[j] = key;
        pos[j] = key_pos;
    }
}

/* ---- the whole ---------------------------------------------------------------------- */

/* Arena, result, parsed workload, derived quantities and the facts document. */
static enum dc_status begin(struct rec *r, const cJSON *workload, struct dc_error *err)
{
    r->ar = dc__arena_new(16384);
    if (r->ar == NULL)
        return DC_ENOMEM;
    r->res = dc__arena_alloc(r->ar, sizeof(*r->res));
    if (r->res == NULL)
        return DC_ENOMEM;
    struct dc_result *res = r->res;
    res->arena_ = r->ar;
    enum dc_status rc = dc_workload_parse(r->rs, workload, &res->workload, err);
    if (rc != DC_OK)
        return rc;
    if (r->opts->prefer_available)
        res->workload.prefer_available = true;
    dc__textf(res->rules_version, sizeof(res->rules_version), "%s", r->rs->version);
    if (r->opts->request_id != NULL)
        dc__textf(res->request_id, sizeof(res->request_id), "%s", r->opts->request_id);
    dc__derive(r->rs, &res->workload, &r->d);
    res->warnings = dc__arena_alloc(r->ar, DC__MAX_WARNINGS * sizeof(*res->warnings));
    res->assumptions = dc__arena_alloc(r->ar, DC__MAX_ASSUMPTIONS * sizeof(*res->assumptions));
    if (res->warnings == NULL || res->assumptions == NULL)
        return DC_ENOMEM;
    rc = dc__facts_build(r->rs, &res->workload, &r->d, &r->facts_ar, &r->facts);
    if (rc == DC_OK)
        rc = dc__sized_facts_add(r->rs, &r->facts_ar, r->facts);
    r->vc.data = r->facts; /* whole now: its members do not move from here on */
    return rc;
}

enum dc_status dc_recommend(const dc_ruleset *rs, const cJSON *workload,
                            const struct dc_recommend_opts *opts, struct dc_result **out,
                            struct dc_error *err)
{
    static const struct dc_recommend_opts no_opts = {0};
    if (out == NULL || rs == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_recommend: NULL argument");
    *out = NULL;
    struct rec r = {.rs = rs, .opts = opts != NULL ? opts : &no_opts};
    /* The facts document's nodes: 12 KB, room for 192 (bench_core's
     * workloads take 92; each allowed accelerator and provider adds one),
     * so that building it takes no malloc and freeing it no free. */
    double facts_buf[1536];
    dc__arena_init(&r.facts_ar, facts_buf, sizeof(facts_buf), SIZE_MAX, NULL);
    /* The var cache's entries, as many as the rule set numbered; on the
     * stack, and only the states cleared. */
    unsigned char vc_state[DC__VAR_SLOTS_MAX];
    const cJSON *vc_member[DC__VAR_SLOTS_MAX];
    memset(vc_state, 0, rs->n_var_slots);
    r.vc = (struct dc_logic_var_cache){NULL, rs->n_var_slots, vc_state, vc_member};
    enum dc_status rc = begin(&r, workload, err);
    if (rc == DC_OK)
        rc = evaluate_rules(&r);
    if (rc == DC_OK)
        rc = build_candidates(&r);
    if (rc == DC_OK)
        rc = rank(&r);
    if (rc == DC_OK)
        rc = dc__frontier(rs, r.res, r.pts.v, r.pts.n);
    if (rc == DC_OK) {
        rank_families(r.res, r.fam_score, r.fam_excl);
        dc__report_assumptions(rs, r.res, &r.d);
        rc = dc__report_warnings(rs, r.res, &r.d, r.all, rs->n_accs);
    }
    if (rc == DC_OK) {
        r.res->ruleset = dc_ruleset_retain((dc_ruleset *)(uintptr_t)rs);
        *out = r.res;
        r.ar = NULL;
    } else if (rc == DC_ENOMEM) {
        dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    }
    free(r.hits);
    free(r.all);
    free(r.lifted);
    free(r.lifted_ok);
    free(r.unlimited);
    free(r.unlimited_ready);
    free(r.pts.v);
    dc__arena_release(&r.facts_ar);
    dc__arena_free(r.ar);
    return rc;
}

void dc_result_free(struct dc_result *res)
{
    if (res == NULL)
        return;
    dc_ruleset *rs = (dc_ruleset *)(uintptr_t)res->ruleset;
    dc__arena_free(res->arena_);
    dc_ruleset_release(rs);
}

enum dc_status dc_size_at(const dc_ruleset *rs, const cJSON *workload, const char *id,
                          unsigned chips, struct dc_sizing *out, struct dc_error *err)
{
    if (rs == NULL || workload == NULL || id == NULL || out == NULL || chips == 0)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_size_at: NULL argument or no chips");
    struct dc_workload w;
    struct dc__derived d;
    return dc__size_workload_at(rs, workload, id, chips, &w, &d, out, err);
}
