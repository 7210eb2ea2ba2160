/* core/src/explain/cf_threshold.c -- numeric thresholds (budget_usd, deadline_hours,
 * max_accelerators) found by bisection.
 *
 * A search starts from a value where the target is the top pick and the
 * nearest known value where it is not (the workload's own, or an unset limit,
 * which is no limit at all), and halves the ratio between them until they are
 * within DC_EXPLAIN_THRESHOLD_TOLERANCE (next integers for max_accelerators).
 * Where the boundary can be predicted from the base result (a part's cost, its
 * chips, its hours) the search starts there and tries the value just past it
 * first: two runs settle it when the prediction holds. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "cf_internal.h"
#include "reason_ids.h"
#include "sizing.h"

/* How far past a predicted boundary a first probe may land: half the
 * tolerance, so that the probe's neighbour on the other side (one bracket
 * ratio away) lies beyond the boundary. */
#define PROBE_SLACK (1.0 + 0.5 * DC_EXPLAIN_THRESHOLD_TOLERANCE)
/* Step outwards from a win towards an unset limit (no limit at all). */
#define OUTWARD_FACTOR 4.0

/* One search: `win` was run and makes the target win; `lose` is a value where
 * it does not (INFINITY: the limit unset; NAN: none known yet); `up` when the
 * losing side lies above (the target is the pick below the boundary, DC_THRESHOLD_BELOW). */
struct bracket {
    struct dc_target *t;
    const struct cf_field *f;
    double win;
    struct cf_outcome win_o;
    double lose;
    bool up;
    const struct cf_constant *rule; /* the rule constant searched across; NULL none */
};

static enum dc_status probe(struct cf_ctx *c, const struct cf_field *f, double v,
                            struct cf_outcome *o)
{
    cJSON *n = cJSON_CreateNumber(v);
    if (n == NULL)
        return DC_ENOMEM;
    enum dc_status rc = cf__run_edit(c, f->pointer, n, o);
    cJSON_Delete(n);
    return rc;
}

static bool converged(const struct bracket *b)
{
    if (!isfinite(b->lose))
        return false;
    if (b->f->integer)
        return fabs(b->win - b->lose) <= 1;
    return fmax(b->win, b->lose) / fmin(b->win, b->lose) <= CF_BRACKET_RATIO;
}

/* Whether `v` lies strictly between win and lose (past win on the losing
 * side when lose is unknown or no limit) and within the field's bounds. */
static bool inside(const struct bracket *b, double v)
{
    const struct cf_field *f = b->f;
    if (isnan(v) || v > f->max || v < f->min || (!f->integer && v <= f->min))
        return false;
    if (b->up)
        return v > b->win && !(v >= b->lose);
    return v < b->win && !(v <= b->lose);
}

/* The value just past win on the losing side, where a predicted boundary
 * should have the target lose: the next integer, or the roundest value within
 * one bracket ratio. */
static double neighbour(const struct bracket *b)
{
    if (b->f->integer)
        return b->win + (b->up ? 1 : -1);
    return b->up ? cf__roundest(b->win * (1 + 1e-9), b->win * CF_BRACKET_RATIO, false)
                 : cf__roundest(b->win / CF_BRACKET_RATIO, b->win * (1 - 1e-9), false);
}

/* The next value to run: halfway (geometrically) between win and lose, or
 * outwards from win when lose is no limit; NAN when there is none. */
static double next_value(const struct bracket *b)
{
    const struct cf_field *f = b->f;
    double v = NAN;
    if (isinf(b->lose))
        v = fmin(b->win * OUTWARD_FACTOR, f->max);
    else if (f->integer && !isnan(b->lose))
        v = round(sqrt(b->win * b->lose));
    else if (!isnan(b->lose))
        v = sqrt(b->win * b->lose);
    return inside(b, v) ? v : NAN;
}

/* The roundest value on the winning side within the tolerance of `lose`,
 * run to check it; the bracket's own win when that fails. */
static enum dc_status settle(struct cf_ctx *c, struct bracket *b)
{
    if (b->f->integer)
        return DC_OK;
    double v = b->up ? cf__roundest(b->lose / CF_BRACKET_RATIO, b->win, false)
                     : cf__roundest(b->win, b->lose * CF_BRACKET_RATIO, false);
    if (v == b->win)
        return DC_OK;
    struct cf_outcome o;
    enum dc_status rc = probe(c, b->f, v, &o);
    if (rc == DC_OK && cf__wins(b->t, &o)) {
        b->win = v;
        b->win_o = o;
    }
    return rc == DC_OK || rc == DC_EINVAL ? DC_OK : rc;
}

/* Narrow the bracket to the tolerance and keep the threshold for b->t,
 * trying `first` first when it lies inside (NAN: none). A search that runs out
 * of values, or of budget, keeps nothing. */
static enum dc_status bisect(struct cf_ctx *c, struct bracket *b, double first)
{
    while (!converged(b)) {
        double v = inside(b, first) ? first : next_value(b);
        first = NAN;
        if (isnan(v))
            return DC_OK;
        struct cf_outcome o;
        enum dc_status rc = probe(c, b->f, v, &o);
        if (rc == DC_EINVAL)
            return DC_OK;
        if (rc != DC_OK)
            return rc;
        if (cf__wins(b->t, &o)) {
            b->win = v;
            b->win_o = o;
        } else {
            b->lose = v;
        }
    }
    enum dc_status rc = settle(c, b);
    if (rc != DC_OK && rc != DC_ELIMIT)
        return rc;
    struct dc_change ch;
    if (!cf__change(c, b->f->pointer, cJSON_CreateNumber(b->win), &b->win_o, &ch))
        return DC_ENOMEM;
    ch.threshold = b->up ? DC_THRESHOLD_BELOW : DC_THRESHOLD_ABOVE;
    ch.not_at = b->lose;
    /* A boundary at the rule's own constant is that rule starting or
     * stopping, and is said so: not a property of the parts. */
    if (b->rule != NULL && fmin(b->win, b->lose) <= b->rule->value * CF_BRACKET_RATIO &&
        fmax(b->win, b->lose) >= b->rule->value / CF_BRACKET_RATIO) {
        ch.rule = b->rule->rule;
        ch.rule_at = b->rule->value;
    }
    cf__keep(b->t, &ch);
    return rc;
}

/* Run the predicted boundary `win`; when the target wins there, bisect. */
static enum dc_status from_hint(struct cf_ctx *c, struct bracket *b)
{
    if (isnan(b->win) || cf__has(b->t, b->f->pointer, true))
        return DC_OK;
    if (!b->up && isinf(b->lose))
        b->lose = NAN; /* no limit lies above, not below */
    enum dc_status rc = probe(c, b->f, b->win, &b->win_o);
    if (rc == DC_EINVAL || (rc == DC_OK && !cf__wins(b->t, &b->win_o)))
        return DC_OK;
    return rc == DC_OK ? bisect(c, b, neighbour(b)) : rc;
}

/* The workload's value of a limit; INFINITY when unset (no limit). */
static double limit_now(const struct cf_ctx *c, const struct cf_field *f)
{
    const cJSON *v = cf__current(c, f->pointer);
    return cJSON_IsNumber(v) ? v->valuedouble : INFINITY;
}

/* A budget just above the target's cost brings back a part excluded by the
 * budget; one just under the cheapest cost among the parts ranked above it
 * drops them all (or, when none of those has a price, any budget from its
 * cost on does, an unknown cost failing every budget). */
static void budget_hint(const struct cf_ctx *c, const struct dc_candidate *cand, size_t rank,
                        struct bracket *b)
{
    double cost = cand->sizing.cost_usd;
    b->win = NAN;
    if (!isfinite(cost) || cost <= 0)
        return;
    if (cand->excluded_by != NULL) {
        if (strcmp(cand->excluded_by->rule_id, DC__R_BUDGET) == 0)
            b->win = cf__roundest(cost, cost * PROBE_SLACK, false);
        return;
    }
    if (rank < 2)
        return;
    double cheapest_above = INFINITY;
    for (size_t i = 0; i + 1 < rank; i++) {
        double x = c->base->recommendations[i].sizing.cost_usd;
        if (isfinite(x) && x <= cost)
            return; /* a budget that keeps the target keeps this one too */
        if (isfinite(x))
            cheapest_above = fmin(cheapest_above, x);
    }
    if (isinf(cheapest_above)) {
        b->win = cf__roundest(cost, cost * PROBE_SLACK, false);
        b->lose = NAN;
        b->up = false;
        return;
    }
    b->win =
        cf__roundest(fmax(cost, cheapest_above / PROBE_SLACK), cheapest_above * (1 - 1e-9), false);
    b->up = true;
}

/* max_accelerators: enough chips for a part the limit excludes. Never a
 * lower limit that only cuts the parts above the target off (issue 29: a
 * count that is an artefact of the cap is nothing a team would set). */
static void chips_hint(const struct cf_ctx *c, const struct dc_candidate *cand, size_t rank,
                       struct bracket *b)
{
    unsigned need = cand->sizing.chips_for_memory;
    b->win = NAN;
    if (cand->excluded_by != NULL) {
        if (strcmp(cand->excluded_by->rule_id, DC__R_MEMORY) == 0 && need > 0 &&
            isfinite(c->base->workload.max_accelerators))
            b->win = need;
        return;
    }
    (void)rank;
}

/* deadline_hours: as long as a part that misses the deadline needs. */
static void deadline_hint(const struct dc_candidate *cand, struct bracket *b)
{
    double h = cand->sizing.hours;
    b->win = NAN;
    if (cand->excluded_by == NULL && !cand->sizing.meets_deadline && isfinite(h) && h > 0)
        b->win = cf__roundest(h, h * PROBE_SLACK, false);
}

static size_t rank_of(const struct cf_ctx *c, const struct dc_candidate *cand)
{
    for (size_t i = 0; i < c->base->n_recommendations; i++) {
        if (&c->base->recommendations[i] == cand)
            return i + 1;
    }
    return 0;
}

enum dc_status cf__hinted_thresholds(struct cf_ctx *c, struct dc_explanation *e)
{
    static const char *const order[] = {"/constraints/budget_usd", "/training/deadline_hours",
                                        "/constraints/max_accelerators"};
    enum dc_status rc = DC_OK;
    for (size_t i = 0; rc == DC_OK && i < e->n_targets; i++) {
        struct dc_target *t = &e->targets[i];
        const struct dc_candidate *cand = cf__candidate(c, t->acc);
        size_t rank = rank_of(c, cand);
        for (size_t k = 0; rc == DC_OK && cand != NULL && t->role != DC_ROLE_TOP && k < 3; k++) {
            const struct cf_field *f = cf__field(order[k]);
            if (!cf__field_applies(c, f))
                continue;
            /* Unless a hint says otherwise the target wins above the boundary
             * and the workload's own value is the known loss. */
            struct bracket b = {.t = t, .f = f, .lose = limit_now(c, f), .up = false, .rule = NULL};
            if (k == 0)
                budget_hint(c, cand, rank, &b);
            else if (k == 1)
                deadline_hint(cand, &b);
            else
                chips_hint(c, cand, rank, &b);
            rc = from_hint(c, &b);
        }
    }
    return rc;
}

/* Who a run of a limit is searched for: the target it makes the pick, else
 * the top pick it dethrones (where the pick changes, whatever to); NULL when
 * that one already has a threshold of `f`. */
static struct dc_target *limit_target(struct dc_explanation *e, const struct cf_outcome *o,
                                      const struct cf_field *f)
{
    for (size_t j = 0; j < e->n_targets; j++) {
        struct dc_target *t = &e->targets[j];
        if (t->role != DC_ROLE_TOP && cf__wins(t, o))
            return cf__has(t, f->pointer, true) ? NULL : t;
    }
    for (size_t j = 0; j < e->n_targets; j++) {
        struct dc_target *t = &e->targets[j];
        if (t->role == DC_ROLE_TOP && cf__wins(t, o) && !cf__has(t, f->pointer, true))
            return t;
    }
    return NULL;
}

/* Run limit `f` at `v`; the target that makes the pick gets its boundary
 * between `v` and the workload's own value `now`, trying `first` first
 * (NAN: none) where the boundary is expected; `rule` is the rule constant
 * crossed (NULL: none). */
static enum dc_status try_limit(struct cf_ctx *c, struct dc_explanation *e,
                                const struct cf_field *f, double v, double now, double first,
                                const struct cf_constant *rule)
{
    struct cf_outcome o;
    enum dc_status rc = probe(c, f, v, &o);
    if (rc != DC_OK)
        return rc == DC_EINVAL ? DC_OK : rc;
    struct dc_target *t = limit_target(e, &o, f);
    if (t == NULL)
        return DC_OK;
    struct bracket b = {t, f, v, o, now, v < now, rule};
    return bisect(c, &b, first);
}

/* Just below (or above) a rule's constant `k`: the roundest value within half
 * a bracket ratio of it, the next integer for an integer field; NAN outside
 * the field's bounds. */
static double across(const struct cf_field *f, double k, bool below)
{
    double half = sqrt(CF_BRACKET_RATIO), v;
    if (f->integer)
        v = below ? ceil(k) - 1 : floor(k) + 1;
    else if (below)
        v = cf__roundest(k / half, k * (1 - 1e-9), false);
    else
        v = cf__roundest(k * (1 + 1e-9), k * half, false);
    return v > f->max || v < f->min || (!f->integer && v <= f->min) ? NAN : v;
}

enum dc_status cf__rule_thresholds(struct cf_ctx *c, struct dc_explanation *e)
{
    size_t n = 0;
    const struct cf_field *fields = cf__fields(&n);
    enum dc_status rc = DC_OK;
    for (size_t i = 0; rc == DC_OK && i < n; i++) {
        const struct cf_field *f = &fields[i];
        struct cf_constant k[CF_MAX_RULE_CONSTANTS];
        size_t nk = 0;
        if (f->kind == CF_NUMBER && cf__field_applies(c, f))
            nk = cf__rule_constants(c->rs, f, k, CF_MAX_RULE_CONSTANTS);
        double now = limit_now(c, f);
        /* From the workload's side of each constant to the other; the first
         * value tried back is just on this side of it. */
        for (size_t j = 0; rc == DC_OK && j < nk; j++) {
            double v = across(f, k[j].value, now > k[j].value);
            if (!isnan(v))
                rc = try_limit(c, e, f, v, now, across(f, k[j].value, !(now > k[j].value)), &k[j]);
        }
    }
    return rc;
}

/* Limits the workload sets, doubled and halved: a target that wins at one
 * gets its boundary between it and the workload's value. */
enum dc_status cf__ladder_thresholds(struct cf_ctx *c, struct dc_explanation *e)
{
    static const double factors[] = {2.0, 0.5};
    size_t n = 0;
    const struct cf_field *fields = cf__fields(&n);
    enum dc_status rc = DC_OK;
    for (size_t i = 0; rc == DC_OK && i < n; i++) {
        const struct cf_field *f = &fields[i];
        double now = limit_now(c, f);
        if (f->kind != CF_NUMBER || !cf__field_applies(c, f) || isinf(now))
            continue;
        for (size_t k = 0; rc == DC_OK && k < 2; k++) {
            double v = fmin(now * factors[k], f->max);
            v = f->integer ? fmax(f->min, floor(v)) : v;
            if (v != now)
                rc = try_limit(c, e, f, v, now, NAN, NULL);
        }
    }
    return rc;
}
