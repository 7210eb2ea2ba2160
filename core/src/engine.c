/* core/src/engine.c -- one recommendation, phase by phase: rules, candidates
 * (sizing, exclusions, reasons), scoring, ranking.
 *
 * The method is documented for users in docs/scoring.md; keep the two in step.
 * Everything a result points to lives in the rule set (which the result holds
 * a reference to) or in the result's arena, so freeing a result is one call. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "ruleset_internal.h"
#include "sizing.h"

/* Each doubling of cost (or time) relative to the best candidate costs this many
 * objective points: 2x -> 75, 4x -> 50, 16x -> 0 (docs/scoring.md). */
#define OBJECTIVE_POINTS_PER_DOUBLING 25.0
/* Objective multiplier for a candidate that misses the deadline, latency or rate. */
#define MISSED_TARGET_FACTOR 0.5
/* Share of its lead over an unknown price that a low-confidence price keeps. */
#define LOW_CONFIDENCE_SHARE 0.5
/* Informational reasons a candidate can carry besides its rules. */
#define MAX_SIZING_REASONS 7

/* One recommendation in progress. */
struct rec {
    const dc_ruleset *rs;
    const struct dc_recommend_opts *opts;
    struct dc_result *res;
    struct dc__arena *ar;
    struct dc__derived d;
    cJSON *facts;
    const struct dc__rule **hits; /* rules whose condition held */
    size_t n_hits;
    int fam_score[DC_FAMILY_COUNT];
    unsigned fam_excl;
    const struct dc__rule *fam_excl_by[DC_FAMILY_COUNT];
    struct dc_candidate *all; /* every catalog entry, in catalog order */
    bool unpriced_last;       /* objective cost with a priced candidate: gate unknown costs */
    uint64_t steps_left;      /* of the request's rule-evaluation budget */
};

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static int iround(double v)
{
    return (int)lround(v);
}

char *dc__fmt(struct dc__arena *ar, const char *f, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof(buf), f, ap);
    va_end(ap);
    return dc__arena_strdup(ar, buf);
}

enum dc_status dc__add_warning(struct dc_result *res, const char *code, const char *msg)
{
    if (res->n_warnings == DC__MAX_WARNINGS)
        return DC_OK;
    if (msg == NULL)
        return DC_ENOMEM;
    res->warnings[res->n_warnings].code = code;
    res->warnings[res->n_warnings].message = msg;
    res->n_warnings++;
    return DC_OK;
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
        bool hit = false;
        uint64_t spent = 0;
        struct dc_error cerr;
        enum dc_status crc =
            dc_logic_eval_truthy_within(rule->cond, r->facts, r->steps_left, &spent, &hit, &cerr);
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
        int impact = 0;
        bool touches = (rule->family_mask & fam) != 0 || (rule->rank_below_families & fam) != 0;
        if (rule->family_mask & fam)
            impact += rule->family_impact[a->family];
        for (size_t k = 0; k < rule->n_acc_impacts; k++) {
            if (rule->acc_impacts[k].acc == idx) {
                impact += rule->acc_impacts[k].impact;
                touches = true;
            }
        }
        for (size_t k = 0; *excl_rule == NULL && k < rule->n_exclude_accs; k++) {
            if (rule->exclude_accs[k] == idx)
                *excl_rule = rule;
        }
        if (touches)
            c->reasons[c->n_reasons++] =
                (struct dc_reason){rule->info.id,     impact,          rule->info.message,
                                   rule->info.source, rule->info.fact, NULL};
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

/* The first hard filter the candidate fails (docs/scoring.md, section 4), or
 * NULL; false on OOM. */
static bool exclusion(const struct rec *r, size_t idx, const struct dc_candidate *c,
                      const struct dc__rule *excl_rule, const struct dc_reason **out)
{
    const struct dc_workload *w = &r->res->workload;
    const struct dc_sizing_params *s = &r->rs->sizing;
    const struct dc_accelerator *a = c->acc;
    const char *why = NULL;
    *out = NULL;
    if (!allowed(w, idx))
        *out = new_reason(r->ar, DC__R_ALLOWED, NULL, a->source);
    else if (excl_rule != NULL)
        *out =
            new_reason(r->ar, excl_rule->info.id, excl_rule->info.message, excl_rule->info.source);
    else if (!deployment_ok(w, a, &why))
        *out = new_reason(r->ar, why, NULL, a->source);
    else if ((a->precisions & (1u << w->precision)) == 0)
        *out = new_reason(r->ar, DC__R_PRECISION, NULL, a->source);
    else if (!c->sizing.fits)
        *out = new_reason(r->ar, DC__R_MEMORY, NULL,
                          w->task == DC_TASK_INFERENCE ? s->kv_source
                                                       : s->state_bytes_per_parameter.source);
    else if (!c->sizing.within_budget)
        *out = new_reason(r->ar, DC__R_BUDGET, NULL, cost_source(r->rs, c));
    else
        return true;
    return *out != NULL;
}

/* How the candidate was sized and what it costs: information, impact 0. */
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
    c->reasons[c->n_reasons++] = mk_reason(DC__R_COST, 0, NULL, cost_source(r->rs, c));
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

static enum dc_status build_candidates(struct rec *r)
{
    const dc_ruleset *rs = r->rs;
    const struct dc_workload *w = &r->res->workload;
    r->all = calloc(rs->n_accs + 1, sizeof(*r->all));
    if (r->all == NULL)
        return DC_ENOMEM;
    for (size_t i = 0; i < rs->n_accs; i++) {
        struct dc_candidate *c = &r->all[i];
        c->acc = &rs->accs[i];
        dc__size(rs, w, &r->d, c->acc, 0, perturbation(r->opts, i), &c->sizing);
        c->reasons = dc__arena_alloc(r->ar, (r->n_hits + MAX_SIZING_REASONS) * sizeof(*c->reasons));
        if (c->reasons == NULL)
            return DC_ENOMEM;
        const struct dc__rule *excl_rule = NULL;
        c->rule_score = rule_reasons(r, i, c, &excl_rule);
        const struct dc_reason *ex = NULL;
        if (!exclusion(r, i, c, excl_rule, &ex))
            return DC_ENOMEM;
        c->excluded_by = ex;
        if (ex == NULL)
            sizing_reasons(r, c);
    }
    return DC_OK;
}

/* ---- phase 3: scoring -------------------------------------------------------------- */

/* Objective points for `v` against the best value `best` (lower is better). */
static double relative_points(double v, double best)
{
    if (!isfinite(v) || !isfinite(best) || best <= 0 || v <= 0)
        return NAN;
    return clamp(100.0 - OBJECTIVE_POINTS_PER_DOUBLING * log2(v / best), 0, 100);
}

/* Training runs shorter than sizing.yaml's min_run_hours count as equally
 * quick: minutes apart are no reason to prefer a part. */
static double time_metric(const struct rec *r, const struct dc_sizing *z)
{
    if (r->res->workload.task == DC_TASK_INFERENCE)
        return z->request_ms;
    return isfinite(z->hours) ? fmax(z->hours, r->rs->sizing.min_run_hours.value) : NAN;
}

/* What the objective compares against, over the candidates left. */
struct refs {
    bool any_cost;       /* some candidate has a known cost */
    double best_cost;    /* lowest known cost */
    double unknown_cost; /* points of an unknown cost: those of the highest known */
    double best_time;
};

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
    for (size_t k = 0; k < o->n_availability; k++) {
        const struct dc_availability *av = &o->availability[k];
        if (av->accelerator_id == NULL || strcmp(av->accelerator_id, c->acc->id) != 0)
            continue;
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
    if (o->availability_stale && c == r->all) {
        const char *msg = dc__fmt(r->ar,
                                  "The availability behind this answer is %.0f s old: its source "
                                  "has not refreshed it in time.",
                                  o->availability_age_seconds);
        if (msg != NULL)
            (void)dc__add_warning(r->res, "availability_stale", msg);
    }
}

/* Halve the objective of a candidate that misses a target, with the reason. */
static double missed_targets(const struct rec *r, struct dc_candidate *c, double obj)
{
    const struct dc_sizing *z = &c->sizing;
    const char *id = !z->meets_deadline  ? DC__R_DEADLINE
                     : !z->meets_latency ? DC__R_LATENCY
                     : !z->meets_rate    ? DC__R_RATE
                                         : NULL;
    if (id == NULL)
        return obj;
    int before = iround(obj);
    obj *= MISSED_TARGET_FACTOR;
    c->reasons[c->n_reasons++] =
        mk_reason(id, iround(obj) - before, NULL, r->rs->sizing.mfu_source[c->acc->family]);
    return obj;
}

static void score_candidate(const struct rec *r, struct dc_candidate *c, const struct refs *ref)
{
    const struct dc_workload *w = &r->res->workload;
    const struct dc_sizing_params *s = &r->rs->sizing;
    double cost_pts = relative_points(c->sizing.cost_usd, ref->best_cost);
    /* A price its own source marks as uncertain earns only half of its lead
     * over an unknown price (docs/scoring.md, section 7). */
    if (isfinite(cost_pts) && c->sizing.offer != NULL && c->sizing.offer->low_confidence)
        cost_pts = ref->unknown_cost + (cost_pts - ref->unknown_cost) * LOW_CONFIDENCE_SHARE;
    /* An unknown cost is never better than the dearest known one. */
    if (!isfinite(cost_pts))
        cost_pts = ref->unknown_cost;
    double time_pts = relative_points(time_metric(r, &c->sizing), ref->best_time);
    if (!isfinite(time_pts))
        time_pts = s->unknown_objective;
    double obj = NAN;
    switch (w->objective) {
    case DC_OBJECTIVE_COST:
        /* With no known cost at all (on premises without list prices), time
         * and fit decide, as the cost reasons say. */
        obj = ref->any_cost ? cost_pts : time_pts;
        break;
    case DC_OBJECTIVE_TIME:
        obj = time_pts;
        break;
    case DC_OBJECTIVE_BALANCED:
        obj = cost_pts * 0.5 + time_pts * 0.5;
        break;
    }
    if (!isfinite(obj))
        obj = s->unknown_objective;
    obj = missed_targets(r, c, obj);
    c->objective_score = iround(clamp(obj, 0, 100));
    double total = s->rule_weight * c->rule_score + s->objective_weight * c->objective_score;
    if (w->prefer_available && c->availability.known && c->availability.configuration_free) {
        total += s->availability_bonus;
        c->reasons[c->n_reasons++] =
            mk_reason(DC__R_AVAILABLE, iround(s->availability_bonus), NULL,
                      r->opts->probe_source != NULL ? r->opts->probe_source : "probe");
    }
    c->score = iround(clamp(total, 0, 100));
}

static int reason_cmp(const void *a, const void *b)
{
    const struct dc_reason *x = a;
    const struct dc_reason *y = b;
    int ax = abs(x->impact), ay = abs(y->impact);
    if (ax != ay)
        return ay - ax;
    /* Informational sizing reasons after rule reasons of equal weight. */
    bool sx = strncmp(x->rule_id, "sizing.", 7) == 0;
    bool sy = strncmp(y->rule_id, "sizing.", 7) == 0;
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

static int cand_cmp(const void *a, const void *b)
{
    const struct dc_candidate *x = a;
    const struct dc_candidate *y = b;
    if (x->score != y->score)
        return y->score - x->score;
    /* At equal scores (both at 0) a gated candidate still comes after. */
    if ((x->capped_by != NULL) != (y->capped_by != NULL))
        return x->capped_by != NULL ? 1 : -1;
    if (x->rule_score != y->rule_score)
        return y->rule_score - x->rule_score;
    if (x->objective_score != y->objective_score)
        return y->objective_score - x->objective_score;
    return strcmp(x->acc->id, y->acc->id);
}

/* ---- phase 4: ranking gates (docs/scoring.md, section 8) ------------------------ */

/* Under objective cost, a part without a known cost ranks after every priced
 * part that fits; 0 for every candidate when the objective is not cost or
 * nothing is priced. */
static int cost_tier(const struct rec *r, const struct dc_candidate *c)
{
    return r->unpriced_last && !isfinite(c->sizing.cost_usd);
}

/* Lower c's score to at most `limit` (never below 0), adding the cut to the
 * impact of its reason `id` and naming that reason as the gate. */
static bool cap_score(const struct rec *r, struct dc_candidate *c, int limit, const char *id)
{
    int to = limit < 0 ? 0 : limit;
    /* Already below; at 0 against a reference of 0 it still needs marking as
     * gated, once, so that cand_cmp orders the tie. */
    if (c->score <= limit || (c->score == 0 && c->capped_by != NULL))
        return false;
    for (size_t i = 0; i < c->n_reasons; i++) {
        struct dc_reason *x = &c->reasons[i];
        if (strcmp(x->rule_id, id) != 0)
            continue;
        x->impact += to - c->score;
        c->score = to;
        c->capped_by = new_reason(r->ar, x->rule_id, x->message, x->source);
        return true;
    }
    return false;
}

/* rank_below rules: each gated candidate scores below the best candidate of
 * the reference family in its own or a better cost tier. Returns whether a
 * score changed. */
static bool rank_below_pass(const struct rec *r)
{
    bool changed = false;
    size_t n = r->rs->n_accs;
    for (size_t h = 0; h < r->n_hits; h++) {
        const struct dc__rule *rule = r->hits[h];
        if (rule->rank_below_families == 0)
            continue;
        for (size_t i = 0; i < n; i++) {
            struct dc_candidate *c = &r->all[i];
            if (c->excluded_by != NULL || !(rule->rank_below_families & (1u << c->acc->family)))
                continue;
            int ref = -1;
            for (size_t j = 0; j < n; j++) {
                const struct dc_candidate *g = &r->all[j];
                if (g->excluded_by == NULL && g->acc->family == rule->below &&
                    cost_tier(r, g) <= cost_tier(r, c) && g->score > ref)
                    ref = g->score;
            }
            if (ref >= 0 && c->score >= ref)
                changed |= cap_score(r, c, ref - 1, rule->info.id);
        }
    }
    return changed;
}

/* Unpriced parts under objective cost: below the lowest priced one. */
static bool unpriced_pass(const struct rec *r)
{
    bool changed = false;
    int lowest = 101;
    for (size_t i = 0; i < r->rs->n_accs; i++) {
        const struct dc_candidate *c = &r->all[i];
        if (c->excluded_by == NULL && cost_tier(r, c) == 0 && c->score < lowest)
            lowest = c->score;
    }
    for (size_t i = 0; i < r->rs->n_accs; i++) {
        struct dc_candidate *c = &r->all[i];
        if (c->excluded_by == NULL && cost_tier(r, c) == 1 && c->score >= lowest)
            changed |= cap_score(r, c, lowest - 1, DC__R_COST);
    }
    return changed;
}

/* Scores only fall, so alternating the two gates settles; the bound is a
 * guard, never reached with a catalog of DC_RULESET_MAX_ACCELERATORS. */
static void apply_gates(struct rec *r)
{
    for (int pass = 0; pass < 4 * DC_RULESET_MAX_ACCELERATORS; pass++) {
        bool changed = rank_below_pass(r);
        changed |= unpriced_pass(r);
        if (!changed)
            break;
    }
}

/* Stable: priced before unpriced under objective cost, score order within. */
static void order_by_cost_tier(const struct rec *r, struct dc_candidate *v, size_t n,
                               struct dc_candidate *tmp)
{
    size_t k = 0;
    for (int tier = 0; tier <= 1; tier++)
        for (size_t i = 0; i < n; i++)
            if (cost_tier(r, &v[i]) == tier)
                tmp[k++] = v[i];
    memcpy(v, tmp, n * sizeof(*v));
}

/* Objective among the survivors (cost, time or both, relative to the best),
 * final scores, gates, and the split into recommendations and exclusions. */
static bool meets_targets(const struct dc_sizing *z)
{
    return z->meets_deadline && z->meets_latency && z->meets_rate;
}

/* The best cost and time to compare against: among the candidates that meet
 * every target when one does (a part that serves a tenth of the rate is not
 * cheap, it is short), else among all. An unknown cost scores as the dearest
 * known one. Returns how many candidates are left, *n_priced how many of them
 * have a known cost. */
static size_t objective_refs(const struct rec *r, struct refs *ref, size_t *n_priced)
{
    size_t n_left = 0, n_meet = 0;
    double worst_cost = 0;
    /* The best of all the candidates left, and of those that meet every target. */
    double cost_all = INFINITY, cost_meet = INFINITY, time_all = INFINITY, time_meet = INFINITY;
    *n_priced = 0;
    for (size_t i = 0; i < r->rs->n_accs; i++) {
        const struct dc_candidate *c = &r->all[i];
        if (c->excluded_by != NULL)
            continue;
        n_left++;
        bool meets = meets_targets(&c->sizing);
        n_meet += meets;
        double cost = c->sizing.cost_usd, t = time_metric(r, &c->sizing);
        if (isfinite(cost) && cost > 0) {
            (*n_priced)++;
            worst_cost = fmax(worst_cost, cost);
            cost_all = fmin(cost_all, cost);
            cost_meet = meets ? fmin(cost_meet, cost) : cost_meet;
        }
        if (isfinite(t) && t > 0) {
            time_all = fmin(time_all, t);
            time_meet = meets ? fmin(time_meet, t) : time_meet;
        }
    }
    /* When none that meets is priced, the cheapest of all sets the scale. */
    *ref = (struct refs){*n_priced > 0, isfinite(cost_meet) ? cost_meet : cost_all, NAN,
                         n_meet > 0 ? time_meet : time_all};
    ref->unknown_cost = *n_priced > 0 ? relative_points(worst_cost, ref->best_cost)
                                      : r->rs->sizing.unknown_objective;
    return n_left;
}

static enum dc_status score_and_rank(struct rec *r)
{
    struct dc_result *res = r->res;
    const struct dc_workload *w = &res->workload;
    size_t n = r->rs->n_accs, n_priced = 0;
    struct refs ref;
    size_t n_rec = objective_refs(r, &ref, &n_priced);
    r->unpriced_last = w->objective == DC_OBJECTIVE_COST && n_priced > 0;
    res->recommendations = dc__arena_alloc(r->ar, (n_rec + 1) * sizeof(*res->recommendations));
    res->excluded = dc__arena_alloc(r->ar, (n - n_rec + 1) * sizeof(*res->excluded));
    struct dc_candidate *tmp = dc__arena_alloc(r->ar, (n_rec + 1) * sizeof(*tmp));
    if (res->recommendations == NULL || res->excluded == NULL || tmp == NULL)
        return DC_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        attach_availability(r, &r->all[i]);
        if (r->all[i].excluded_by == NULL)
            score_candidate(r, &r->all[i], &ref);
    }
    apply_gates(r);
    for (size_t i = 0; i < n; i++) {
        struct dc_candidate *c = &r->all[i];
        sort_reasons(c->reasons, c->n_reasons);
        if (c->excluded_by != NULL)
            res->excluded[res->n_excluded++] = *c;
        else
            res->recommendations[res->n_recommendations++] = *c;
    }
    qsort(res->recommendations, res->n_recommendations, sizeof(*res->recommendations), cand_cmp);
    if (r->unpriced_last)
        order_by_cost_tier(r, res->recommendations, res->n_recommendations, tmp);
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
    /* Insertion sort of three: by the rank of the best candidate, then (none
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
    snprintf(res->rules_version, sizeof(res->rules_version), "%s", r->rs->version);
    if (r->opts->request_id != NULL)
        snprintf(res->request_id, sizeof(res->request_id), "%s", r->opts->request_id);
    dc__derive(r->rs, &res->workload, &r->d);
    res->warnings = dc__arena_alloc(r->ar, DC__MAX_WARNINGS * sizeof(*res->warnings));
    res->assumptions = dc__arena_alloc(r->ar, DC__MAX_ASSUMPTIONS * sizeof(*res->assumptions));
    if (res->warnings == NULL || res->assumptions == NULL)
        return DC_ENOMEM;
    return dc__facts_build(r->rs, &res->workload, &r->d, &r->facts);
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
    enum dc_status rc = begin(&r, workload, err);
    if (rc == DC_OK)
        rc = evaluate_rules(&r);
    if (rc == DC_OK)
        rc = build_candidates(&r);
    if (rc == DC_OK)
        rc = score_and_rank(&r);
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
    cJSON_Delete(r.facts);
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
    const struct dc_accelerator *a = dc_ruleset_find_accelerator(rs, id);
    if (a == NULL)
        return dc_error_set(err, DC_ENOTFOUND, NULL, "no accelerator \"%s\" in the catalog", id);
    struct dc_workload w;
    enum dc_status rc = dc_workload_parse(rs, workload, &w, err);
    if (rc != DC_OK)
        return rc;
    struct dc__derived d;
    dc__derive(rs, &w, &d);
    dc__size(rs, &w, &d, a, chips, DC__UNPERTURBED, out);
    return DC_OK;
}
