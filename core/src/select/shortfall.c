/* core/src/select/shortfall.c -- the answer when nothing fits (docs/scoring.md,
 * section 10). After the ranking, each candidate gets the share of the
 * workload's hard targets it meets (target_met) and the result a status. When
 * no configuration meets a hard target (a deadline, a latency, a request rate,
 * a budget, or the chip limit that holds the job), the result says so first:
 * the candidates are ranked by the share they meet, nearest first, instead of
 * cheapest miss first, and would_meet states what would meet it, from the
 * same sizing. When the time and cost are withheld (a model whose FLOPs a
 * guess would get wrong by more than 3x), there is no pick: no candidate
 * scores, and the answer names the field that would give an estimate. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dc/models.h"
#include "dc/numfmt.h"
#include "reasons.h"
#include "select.h"
#include "reason_ids.h"

#define NUM 48

const char *dc_answer_status_name(enum dc_answer_status s)
{
    static const char *const names[] = {"ok", "no_configuration_meets_targets",
                                        "estimate_withheld"};
    return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

/* How much of a target an estimate meets: want / have for a ceiling (time,
 * latency, cost), have / want for a floor (a rate), at most 1; NAN unknown. */
static double share(double target, double estimate, bool floor)
{
    if (!isfinite(target) || !isfinite(estimate) || target < 0 || estimate < 0)
        return NAN;
    double num = floor ? estimate : target, den = floor ? target : estimate;
    return den <= 0 ? 1.0 : fmin(1.0, num / den);
}

/* The least of the shares so far and this target's: 1 when its flag says it
 * is met (the sizing's own tie), NAN when its estimate is unknown. */
static double least(double so_far, bool met, double part)
{
    if (isnan(so_far) || isnan(part))
        return NAN;
    return met ? so_far : fmin(so_far, part);
}

/* The deadline an estimate is held to: training's, or an offline job's. */
static double deadline_of(const struct dc_workload *w)
{
    if (w->task != DC_TASK_INFERENCE)
        return w->deadline_hours;
    return w->job_requests > 0 ? w->job_deadline_hours : NAN;
}

static double target_met(const struct dc_workload *w, const struct dc_sizing *z)
{
    bool serving = w->task == DC_TASK_INFERENCE && !(w->job_requests > 0);
    double met = 1.0, deadline = deadline_of(w);
    if (isfinite(deadline))
        met = least(met, z->meets_deadline, share(deadline, z->hours, false));
    if (w->task == DC_TASK_INFERENCE && isfinite(w->latency_ms_p99))
        met = least(met, z->meets_latency, share(w->latency_ms_p99, z->decode_ms, false));
    if (serving)
        met = least(met, z->meets_rate, share(w->requests_per_second, z->throughput_rps, true));
    if (isfinite(w->budget_usd) && isfinite(z->cost_usd))
        met = least(met, z->within_budget, share(w->budget_usd, z->cost_usd, false));
    return met;
}

/* The share met in whole percent, what a no-fit ranking sorts and scores
 * by; -1 when unknown. */
static int percent_met(double met)
{
    return isnan(met) ? -1 : (int)floor(met * 100.0 + 1e-9);
}

/* The rank a no-fit answer sorts by: parts that may be the pick
 * (dc__may_be_picked) first, then the share
 * met in whole percent. */
static int share_rank(const struct dc_candidate *c, bool any_priced)
{
    return (dc__may_be_picked(&c->selection, any_priced) ? 1000 : 0) + percent_met(c->target_met);
}

/* Stable insertion sort, nearest first: parts that may be the pick before those that
 * cannot be the pick, each by share met; candidates meeting the same share
 * keep the objective's order. Each scores its percent (no candidate of a
 * no-fit answer scores 100), one that cannot be the pick at most the score
 * above it. */
static void rank_by_share(struct dc_candidate *v, size_t n, bool any_priced)
{
    for (size_t i = 1; i < n; i++) {
        struct dc_candidate key = v[i];
        size_t j = i;
        for (; j > 0 && share_rank(&v[j - 1], any_priced) < share_rank(&key, any_priced); j--)
            v[j] = v[j - 1];
        v[j] = key;
    }
    for (size_t i = 0; i < n; i++) {
        int p = percent_met(v[i].target_met);
        v[i].score = p < 0 ? 0 : p > 99 ? 99 : p;
        /* Scores never rise down the list: a part that cannot be the pick
         * scores no more than the last one above it that can. */
        if (i > 0 && v[i].score > v[i - 1].score)
            v[i].score = v[i - 1].score;
    }
}

/* Whether `x` is a better thing to name than `y` as what would meet the
 * targets: fewer gates hold its part, then priced, then cheaper, then fewer
 * chips. */
static bool better_relaxed(const struct dc_candidate *cx, const struct dc_sizing *x,
                           const struct dc_candidate *cy, const struct dc_sizing *y)
{
    if (cx->selection.gates != cy->selection.gates)
        return cx->selection.gates < cy->selection.gates;
    bool px = isfinite(x->cost_usd), py = isfinite(y->cost_usd);
    if (px != py)
        return px;
    if (px && x->cost_usd != y->cost_usd)
        return x->cost_usd < y->cost_usd;
    return x->chips < y->chips;
}

/* A candidate that a limit of the workload, not a rule, put out: one that
 * more chips or more budget could bring back. */
static bool limit_excluded(const struct dc_candidate *c)
{
    const char *by = c->excluded_by != NULL ? c->excluded_by->rule_id : NULL;
    return by == NULL || strcmp(by, DC__R_MEMORY) == 0 || strcmp(by, DC__R_BUDGET) == 0;
}

/* The order would_meet sizes the candidates in: the least each can cost
 * first (NAN, not known, before any), then catalog order, so that the best
 * is found early and dearer parts are left unsized. Returns how many are in
 * `order` (n_all, or 0 past the catalog's limit: catalog order). */
static size_t sizing_order(const struct dc_candidate *all, size_t n_all,
                           dc__cost_floor_fn cost_floor, void *ctx, size_t *order, double *floor)
{
    if (n_all > DC_RULESET_MAX_ACCELERATORS)
        return 0;
    for (size_t i = 0; i < n_all; i++) {
        double f = limit_excluded(&all[i]) ? cost_floor(ctx, all[i].index_) : NAN;
        floor[i] = isnan(f) ? -INFINITY : f;
        size_t j = i; /* insertion, stable: equal floors keep catalog order */
        for (; j > 0 && floor[order[j - 1]] > floor[i]; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    return n_all;
}

/* would_meet when nothing meets the targets: the cheapest configuration
 * meeting every hard target with the chip limit and the budget lifted, and
 * the shortest run within the limits as asked. Of candidates better_relaxed
 * ranks alike, the first in catalog order, whatever order they are sized in. */
static void would_meet(struct dc_result *res, const struct dc_candidate *all, size_t n_all,
                       dc__size_unlimited_fn size_unlimited, dc__cost_floor_fn cost_floor,
                       void *ctx)
{
    struct dc_would_meet *m = &res->would_meet;
    struct dc_workload lifted = res->workload;
    lifted.budget_usd = NAN;
    lifted.max_accelerators = NAN;
    size_t order[DC_RULESET_MAX_ACCELERATORS];
    double floor[DC_RULESET_MAX_ACCELERATORS];
    size_t n_order = sizing_order(all, n_all, cost_floor, ctx, order, floor);
    const struct dc_candidate *best_c = NULL;
    size_t best_i = 0;
    struct dc_sizing best = {0}, z;
    for (size_t k = 0; k < n_all; k++) {
        size_t i = n_order > 0 ? order[k] : k;
        const struct dc_candidate *c = &all[i];
        /* better_relaxed reads the gates first, then a price, then the cost:
         * a part held by more gates than the best so far cannot beat it,
         * nor, at as many, one that cannot cost less than a priced best. */
        if (best_c != NULL && c->selection.gates > best_c->selection.gates)
            continue;
        double below = best_c != NULL && c->selection.gates == best_c->selection.gates &&
                               isfinite(best.cost_usd)
                           ? best.cost_usd
                           : INFINITY;
        if (!limit_excluded(c) || !size_unlimited(ctx, c->index_, below, &z) || !z.fits ||
            !(target_met(&lifted, &z) >= 1.0))
            continue;
        if (best_c == NULL || better_relaxed(c, &z, best_c, &best) ||
            (i < best_i && !better_relaxed(best_c, &best, c, &z))) {
            best_c = c;
            best_i = i;
            best = z;
        }
    }
    if (best_c != NULL) {
        m->acc = best_c->acc;
        m->chips = best.chips;
        m->budget_usd = best.cost_usd;
    }
    if (!isfinite(deadline_of(&res->workload)))
        return;
    for (size_t i = 0; i < res->n_recommendations; i++) {
        double h = res->recommendations[i].sizing.hours;
        if (isfinite(h) && !(h >= m->hours))
            m->hours = h;
    }
}

/* The fields that would give an estimate: the one the sizing names, and a
 * registry model.name when an entry of the same architecture gives it. */
static void withheld_fields(const dc_ruleset *rs, struct dc_result *res, const char *field)
{
    struct dc_would_meet *m = &res->would_meet;
    m->fields[m->n_fields++] = field;
    const char *key = strncmp(field, "model.", 6) == 0 ? field + 6 : field;
    if (res->workload.model_name != NULL)
        return;
    for (size_t i = 0; i < dc_ruleset_model_count(rs); i++) {
        const struct dc_model_info *e = dc_ruleset_model(rs, i);
        if (strcmp(e->architecture, res->workload.architecture) == 0 &&
            cJSON_GetObjectItemCaseSensitive(e->model, key) != NULL) {
            m->fields[m->n_fields++] = "model.name";
            return;
        }
    }
}

void dc__shortfall(const dc_ruleset *rs, struct dc_result *res, const struct dc_candidate *all,
                   size_t n_all, dc__size_unlimited_fn size_unlimited, dc__cost_floor_fn cost_floor,
                   void *ctx)
{
    res->status = DC_ANSWER_OK;
    res->would_meet = (struct dc_would_meet){NULL, NAN, NAN, NAN, {NULL}, 0};
    bool any_priced = false, any_met = false;
    const char *withheld = NULL;
    for (size_t i = 0; i < res->n_recommendations; i++)
        any_priced |= res->recommendations[i].selection.priced;
    for (size_t i = 0; i < res->n_recommendations; i++) {
        struct dc_candidate *c = &res->recommendations[i];
        c->target_met = target_met(&res->workload, &c->sizing);
        any_met |= c->target_met >= 1.0 && dc__may_be_picked(&c->selection, any_priced);
        withheld = withheld != NULL ? withheld : c->sizing.estimate_withheld;
    }
    for (size_t i = 0; i < n_all && withheld == NULL; i++)
        withheld = limit_excluded(&all[i]) ? all[i].sizing.estimate_withheld : NULL;
    if (withheld != NULL) {
        res->status = DC_ANSWER_WITHHELD;
        for (size_t i = 0; i < res->n_recommendations; i++) {
            struct dc_candidate *c = &res->recommendations[i];
            c->score = c->objective_score = 0;
            c->target_met = NAN;
        }
        withheld_fields(rs, res, withheld);
        return;
    }
    if (any_met)
        return;
    res->status = DC_ANSWER_NO_FIT;
    rank_by_share(res->recommendations, res->n_recommendations, any_priced);
    would_meet(res, all, n_all, size_unlimited, cost_floor, ctx);
}

/* ---- the answer in words ------------------------------------------------------------ */

/* The limit a missed target was sized within. The serving fleet limit is a
 * rule author's policy, so the answer names where it is set. */
static const char *limit_words(const struct dc_result *res, bool serving, char *buf, size_t len)
{
    const struct dc_workload *w = &res->workload;
    char n[NUM];
    if (isfinite(w->max_accelerators))
        snprintf(buf, len, "within constraints.max_accelerators (%s chips)",
                 dc_fmt_count(w->max_accelerators, n, sizeof(n)));
    else if (serving)
        snprintf(
            buf, len,
            "within the serving fleet limit of %s chips (serving_max_chips in "
            "rules/sizing.yaml, a policy the rule author sets)",
            dc_fmt_count(dc_ruleset_sizing(res->ruleset)->serving_max_chips.value, n, sizeof(n)));
    else
        snprintf(buf, len, "even at the largest size each part is sized to");
    return buf;
}

/* The target candidate c misses most: its kind and the share it meets. */
static enum dc_target_kind worst_target(const struct dc_result *res, const struct dc_candidate *c,
                                        double *met)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &c->sizing;
    enum dc_target_kind k = DC_TARGET_DEADLINE;
    double v[] = {isfinite(deadline_of(w)) && !z->meets_deadline
                      ? share(deadline_of(w), z->hours, false)
                      : 1.0,
                  1.0,
                  w->task == DC_TASK_INFERENCE && !z->meets_latency
                      ? share(w->latency_ms_p99, z->decode_ms, false)
                      : 1.0,
                  w->task == DC_TASK_INFERENCE && !(w->job_requests > 0) && !z->meets_rate
                      ? share(w->requests_per_second, z->throughput_rps, true)
                      : 1.0};
    *met = 2.0;
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        if (v[i] < *met) {
            *met = v[i];
            k = (enum dc_target_kind)i;
        }
    return k;
}

/* Why the nearest miss of a latency target is not the fastest step reached:
 * ", the cheapest within 5% of the target of the fastest step it reaches
 * (about 19 ms, 94.7%)": its share of the target at most near_miss_tolerance
 * below the fastest's (dc__near_miss_limit_ms, core/src/sizing/sizing.h); ""
 * where it is the fastest. */
static const char *near_words(const struct dc_result *res, const struct dc_sizing *z, char *buf,
                              size_t len)
{
    if (!(z->fastest_decode_ms < z->decode_ms))
        return "";
    char t[NUM], f[NUM], s[NUM];
    snprintf(
        buf, len, ", the %s within %s of the target of the fastest step it reaches (about %s, %s)",
        res->workload.objective == DC_OBJECTIVE_TIME ? "quickest requests" : "cheapest",
        dc_fmt_percent(dc_ruleset_sizing(res->ruleset)->near_miss_tolerance.value, t, sizeof(t)),
        dc_fmt_ms(z->fastest_decode_ms, f, sizeof(f)),
        dc_fmt_percent(fmin(1.0, res->workload.latency_ms_p99 / z->fastest_decode_ms), s,
                       sizeof(s)));
    return buf;
}

/* What nothing meets, and how near the nearest comes. */
static void missed_text(const struct dc_result *res, char *buf, size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_candidate *c = &res->recommendations[0];
    const struct dc_sizing *z = &c->sizing;
    char lim[200], a[NUM], b[NUM], n[NUM], target[96];
    double met;
    enum dc_target_kind k = worst_target(res, c, &met);
    dc_fmt_count(z->chips, n, sizeof(n));
    dc_fmt_percent(isfinite(met) ? met : 0, b, sizeof(b));
    switch (k) {
    case DC_TARGET_RATE:
        snprintf(buf, len,
                 "No configuration serves the %s requests/s asked %s: the nearest, %s on %s "
                 "chips, serves about %s (%s of the rate).",
                 dc_fmt_number(w->requests_per_second, target, sizeof(target)),
                 limit_words(res, true, lim, sizeof(lim)), c->acc->name, n,
                 dc_fmt_number(z->throughput_rps, a, sizeof(a)), b);
        break;
    case DC_TARGET_LATENCY:
        snprintf(buf, len,
                 "No configuration meets the %s p99 latency target: the nearest, %s on %s chips, "
                 "takes about %s a %s (%s of the target)%s.",
                 dc_fmt_ms(w->latency_ms_p99, target, sizeof(target)), c->acc->name, n,
                 dc_fmt_ms(z->decode_ms, a, sizeof(a)),
                 isfinite(z->prefill_ms) ? "decode step" : "batch", b,
                 near_words(res, z, lim, sizeof(lim)));
        break;
    default:
        dc__target_words(res, target, sizeof(target));
        snprintf(buf, len,
                 "No configuration meets %s %s: the nearest, %s on %s chips, takes about %s (%s "
                 "of the target).",
                 target, limit_words(res, w->task == DC_TASK_INFERENCE, lim, sizeof(lim)),
                 c->acc->name, n, dc_fmt_hours(z->hours, a, sizeof(a)), b);
        break;
    }
}

/* Nothing left to rank: the limit that put every candidate out; false when
 * rules did, and no limit lifted would bring one back. */
static bool excluded_text(const struct dc_result *res, char *buf, size_t len)
{
    bool budget = false, memory = false, fleet = false;
    char lim[200], m[NUM];
    for (size_t i = 0; i < res->n_excluded; i++) {
        budget |= strcmp(res->excluded[i].excluded_by->rule_id, DC__R_BUDGET) == 0;
        memory |= strcmp(res->excluded[i].excluded_by->rule_id, DC__R_MEMORY) == 0;
        fleet |= strcmp(res->excluded[i].excluded_by->rule_id, DC__R_FLEET) == 0;
    }
    const struct dc_candidate_availability *v =
        res->n_excluded > 0 ? &res->excluded[0].availability : NULL;
    if (fleet && v != NULL && v->warming)
        snprintf(buf, len,
                 "Nothing is free yet to run on (constraints.fleet_only): the fleet has not seen "
                 "a device yet (Prometheus has not scraped its nodes).");
    else if (fleet && v != NULL && !v->known)
        snprintf(buf, len,
                 "Nothing is known free to run on (constraints.fleet_only): no fleet or probe "
                 "snapshot is configured or taken yet.");
    else if (fleet)
        snprintf(buf, len,
                 "Nothing the %s has free now holds the job (constraints.fleet_only; see "
                 "excluded).",
                 v != NULL && v->fleet ? "fleet" : "host");
    else if (budget)
        snprintf(
            buf, len, "No configuration fits the budget of %s.",
            dc_fmt_money(res->workload.budget_usd, dc__cost_period(&res->workload), m, sizeof(m)));
    else if (memory)
        snprintf(buf, len, "No configuration holds the job %s.",
                 limit_words(res, res->workload.task == DC_TASK_INFERENCE, lim, sizeof(lim)));
    else
        snprintf(buf, len, "Every candidate was excluded by a rule (see excluded).");
    return budget || memory || fleet;
}

/* What would meet the targets (would_meet), appended to buf. */
static void remedy_text(const struct dc_result *res, char *buf, size_t len)
{
    const struct dc_would_meet *m = &res->would_meet;
    size_t used = strlen(buf);
    char n[NUM], c[NUM];
    if (m->acc != NULL && isfinite(m->budget_usd))
        snprintf(buf + used, len - used, " %s chips of %s would meet every target, for about %s.",
                 dc_fmt_count(m->chips, n, sizeof(n)), m->acc->name,
                 dc_fmt_money(m->budget_usd, dc__cost_period(&res->workload), c, sizeof(c)));
    else if (m->acc != NULL)
        snprintf(buf + used, len - used,
                 " %s chips of %s would meet every target (no public price to cost them).",
                 dc_fmt_count(m->chips, n, sizeof(n)), m->acc->name);
    else
        snprintf(buf + used, len - used, " No part meets every target at any size it is sold in%s.",
                 res->workload.task == DC_TASK_INFERENCE ? "" : " and its global batch keeps busy");
    used = strlen(buf);
    if (isfinite(m->hours))
        snprintf(buf + used, len - used,
                 " Within the limits as asked, the shortest run takes about %s: a deadline that "
                 "long would be met.",
                 dc_fmt_hours(m->hours, n, sizeof(n)));
}

/* No estimate: the field that would give one. */
static void withheld_text(const struct dc_result *res, char *buf, size_t len)
{
    const struct dc_would_meet *m = &res->would_meet;
    const char *field = m->n_fields > 0 ? m->fields[0] : "the model's FLOPs";
    snprintf(buf, len,
             "No pick: the run time and cost of this %s model are not estimated without %s (a "
             "guess from its parameters could be off by more than 3x), so no candidate is ranked "
             "on them. Give %s%s.",
             res->workload.architecture, field, field,
             m->n_fields > 1 ? ", or a model.name of the registry that gives it (GET /v1/models)"
                             : "");
}

const char *dc_answer_text(const struct dc_result *res, char *buf, size_t len)
{
    if (res == NULL || buf == NULL || len == 0 || res->status == DC_ANSWER_OK)
        return NULL;
    if (res->status == DC_ANSWER_WITHHELD) {
        withheld_text(res, buf, len);
        return buf;
    }
    bool limited = true;
    if (res->n_recommendations > 0)
        missed_text(res, buf, len);
    else
        limited = excluded_text(res, buf, len);
    if (limited)
        remedy_text(res, buf, len);
    return buf;
}
