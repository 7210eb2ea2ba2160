/* core/src/select/select.c -- the order of the candidates left, best first, and the
 * score each one shows (docs/scoring.md, sections 7 and 8).
 *
 * A candidate comes before another when it meets every target and the other
 * does not; then when it is priced and the other is not (priced parts exist);
 * then when fewer ranking gates hold it; then, when the workload prefers what
 * is available, when its configuration is free now; then by the objective's value (cost,
 * time, or cost x time) moved by its soft points within a bounded band; ties
 * go to the other side of the objective, then to fewer chips. Last, no
 * candidate stays before one of its group that is both cheaper and no slower
 * (or no dearer and faster): soft points choose between near-equals, never
 * past a dominating configuration. The engine has set each candidate's
 * meets_targets, priced, gates and soft_points before. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "select.h"
#include "ruleset_internal.h"
#include "sizing.h"

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Gate tiers the balanced band tells apart (more gates share the last). */
#define BALANCE_TIERS 8

static unsigned tier_of(const struct dc_candidate *c)
{
    return c->selection.gates < BALANCE_TIERS ? c->selection.gates : BALANCE_TIERS - 1;
}

/* The tier's anchor: the cheapest configuration that meets every target
 * and is priced; of equal cost, fewer machines, then fewer chips. */
static const struct dc_sizing *anchor_of(const dc_ruleset *rs, const struct dc_workload *w,
                                         const struct dc_candidate *v, size_t n, unsigned tier)
{
    const struct dc_sizing *a = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct dc_sizing *z = &v[i].sizing;
        if (tier_of(&v[i]) != tier || !v[i].selection.meets_targets || !v[i].selection.priced ||
            !isfinite(dc__config_spend(&rs->sizing, w, z)))
            continue;
        int c = a == NULL ? -1
                          : dc__cmp_value(dc__config_spend(&rs->sizing, w, z),
                                          dc__config_spend(&rs->sizing, w, a));
        if (c == 0)
            c = dc__cmp_machines(z, a);
        if (c < 0)
            a = z;
    }
    return a;
}

/* The price of a unit of time saved (an hour, or a request's ms), relative to
 * the anchor's own rate: halving its time is worth balanced_premium more. */
static double time_price(const struct dc_sizing_params *s, double c0, double t0)
{
    return t0 > 0 ? 2.0 * s->balanced_premium * c0 / t0 : 0;
}

/* Whether z is worth its cost over `from` at the price of time: a tie of
 * cost (the negligible floor's included) on no more machines (another part's
 * chips are not the same unit), else the extra
 * cost no more than the time saved at `price`. */
static bool step_worth(const struct dc_sizing_params *s, const struct dc_workload *w,
                       const struct dc_sizing *from, const struct dc_sizing *z, double price)
{
    double c0 = dc__config_spend(s, w, from), t0 = dc__config_time(s, w, from);
    double c = dc__config_spend(s, w, z), t = dc__config_time(s, w, z);
    if (!isfinite(c0) || !isfinite(c) || !isfinite(t0) || !isfinite(t))
        return false;
    int k = dc__cmp_value(c, c0);
    if (k <= 0)
        return k < 0 || z->machines <= from->machines;
    return c - c0 <= price * (t0 - t) * (1 + DC__TIE);
}

bool dc__balance_worth(const struct dc_sizing_params *s, const struct dc_workload *w,
                       const struct dc_sizing *anchor, const struct dc_sizing *z, double cap)
{
    double c0 = dc__config_spend(s, w, anchor), t0 = dc__config_time(s, w, anchor);
    return dc__config_spend(s, w, z) <= cap * (1 + DC__TIE) &&
           step_worth(s, w, anchor, z, time_price(s, c0, t0));
}

/* Points whose spend, time and tier dc__balance and dc__rank work out once
 * (past it, each is worked out where it is read: the same figures, only
 * slower); the frontier keeps a few points a part. */
#define POINT_MEMO 512

/* The configurations' figures the selection compares over and over, worked
 * out once a request: each is what dc__config_spend and dc__config_time give
 * for the same configuration, so every comparison sees the same values. */
struct point_memo {
    const dc_ruleset *rs;
    const struct dc_workload *w;
    const struct dc__point *v;
    size_t n, memo;
    double spend[POINT_MEMO], time[POINT_MEMO];
    signed char tier[POINT_MEMO]; /* the point's candidate's gate tier; -1: none counts */
    /* Each part's points lie in [first, end) (end 0: none): the dominance
     * pass reads one part's points, for every pair of candidates. */
    size_t first[DC_RULESET_MAX_ACCELERATORS], end[DC_RULESET_MAX_ACCELERATORS];
};

static double pt_spend(const struct point_memo *m, size_t k)
{
    return k < m->memo ? m->spend[k] : dc__config_spend(&m->rs->sizing, m->w, &m->v[k].z);
}

static double pt_time(const struct point_memo *m, size_t k)
{
    return k < m->memo ? m->time[k] : dc__config_time(&m->rs->sizing, m->w, &m->v[k].z);
}

/* The gate tier of point k's candidate when that candidate meets every target
 * and is priced; -1 otherwise (or when no candidate is of its part). */
static int tier_of_point(const struct dc__point *pt, const struct dc_candidate *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].index_ == pt->acc)
            return v[i].selection.meets_targets && v[i].selection.priced ? (int)tier_of(&v[i]) : -1;
    return -1;
}

static void memo_points(struct point_memo *m, const dc_ruleset *rs, const struct dc_workload *w,
                        const struct dc__point *pts, size_t n_pts, const struct dc_candidate *v,
                        size_t n)
{
    m->rs = rs;
    m->w = w;
    m->v = pts;
    m->n = n_pts;
    m->memo = n_pts < POINT_MEMO ? n_pts : POINT_MEMO;
    /* Each part's tier once (tier_of_point: its first candidate's). */
    signed char by_acc[DC_RULESET_MAX_ACCELERATORS];
    memset(by_acc, -1, sizeof(by_acc));
    for (size_t i = n; v != NULL && i-- > 0;)
        if (v[i].index_ < DC_RULESET_MAX_ACCELERATORS)
            by_acc[v[i].index_] = v[i].selection.meets_targets && v[i].selection.priced
                                      ? (signed char)tier_of(&v[i])
                                      : -1;
    memset(m->end, 0, sizeof(m->end));
    for (size_t k = 0; k < n_pts; k++) {
        size_t acc = pts[k].acc;
        if (acc < DC_RULESET_MAX_ACCELERATORS) {
            if (m->end[acc] == 0)
                m->first[acc] = k;
            m->end[acc] = k + 1;
        }
    }
    for (size_t k = 0; k < m->memo; k++) {
        m->spend[k] = dc__config_spend(&rs->sizing, w, &pts[k].z);
        m->time[k] = dc__config_time(&rs->sizing, w, &pts[k].z);
        size_t acc = pts[k].acc;
        m->tier[k] = v == NULL ? -1
                     : acc < DC_RULESET_MAX_ACCELERATORS
                         ? by_acc[acc]
                         : (signed char)tier_of_point(&pts[k], v, n);
    }
}

/* Narrow [*lo, *hi) to where part acc's points lie. */
static void part_points(const struct point_memo *m, size_t acc, size_t *lo, size_t *hi)
{
    if (acc < DC_RULESET_MAX_ACCELERATORS) {
        *hi = m->end[acc];
        *lo = *hi > 0 ? m->first[acc] : 0;
    }
}

/* Whether point k is of a candidate of gate tier g that meets every target
 * and is priced. */
static bool in_tier(const struct point_memo *m, size_t k, const struct dc_candidate *v, size_t n,
                    unsigned g)
{
    int t = k < m->memo ? m->tier[k] : tier_of_point(&m->v[k], v, n);
    return t >= 0 && (unsigned)t == g;
}

/* Walk the tier's cost-time frontier from its anchor: the next point is the
 * cheapest faster one (of equal cost, fewer machines, then the faster); it is
 * taken while its extra cost over the current one is worth the time it saves
 * at the anchor's price of time, and while the whole costs at most
 * balanced_premium more than the anchor. Returns the spend of the point
 * reached: the tier's cap. */
static double walk(const struct point_memo *m, const struct dc_candidate *v, size_t n, unsigned g,
                   const struct dc_sizing *anchor)
{
    const struct dc_sizing_params *s = &m->rs->sizing;
    const struct dc_workload *w = m->w;
    double c0 = dc__config_spend(s, w, anchor), t0 = dc__config_time(s, w, anchor);
    double price = time_price(s, c0, t0), ceiling = c0 * (1.0 + s->balanced_premium);
    const struct dc_sizing *cur = anchor;
    double cur_spend = c0, cur_time = t0;
    /* The tier's priced points, in order, listed once for every step. */
    size_t list[POINT_MEMO], n_list = 0;
    bool listed = m->n <= POINT_MEMO;
    for (size_t k = 0; listed && k < m->n; k++)
        if (in_tier(m, k, v, n, g) && isfinite(pt_spend(m, k)))
            list[n_list++] = k;
    for (size_t steps = 0; steps < m->n; steps++) {
        const struct dc_sizing *next = NULL;
        double next_spend = NAN, next_time = NAN;
        size_t kept = 0;
        for (size_t j = 0; j < (listed ? n_list : m->n); j++) {
            size_t k = listed ? list[j] : j;
            const struct dc_sizing *z = &m->v[k].z;
            double sz = pt_spend(m, k), tz = pt_time(m, k);
            /* A listed point is of the tier and priced. One no faster than
             * the current point is no faster than any later one (each step
             * is faster beyond a tie, so such a point is slower outright):
             * the list drops it, keeping its order. */
            if ((!listed && (!in_tier(m, k, v, n, g) || !isfinite(sz))) ||
                dc__cmp_value(tz, cur_time) >= 0)
                continue;
            if (listed)
                list[kept++] = k;
            if (dc__cmp_value(sz, cur_spend) < 0)
                continue;
            int c = next == NULL ? -1 : dc__cmp_value(sz, next_spend);
            if (c == 0)
                c = dc__cmp_machines(z, next);
            if (c == 0)
                c = dc__cmp_value(tz, next_time);
            if (c < 0) {
                next = z;
                next_spend = sz;
                next_time = tz;
            }
        }
        n_list = kept;
        if (next == NULL || next_spend > ceiling * (1 + DC__TIE) ||
            !step_worth(s, w, cur, next, price))
            break;
        cur = next;
        cur_spend = next_spend;
        cur_time = next_time;
    }
    return cur_spend;
}

/* dc__balance_worth with the anchor's spend and price of time worked out
 * (c0, price) and z's spend and time (cz, tz) given: the same test. */
static bool worth_memo(const struct dc_sizing *anchor, double c0, double t0, double price,
                       const struct dc_sizing *z, double cz, double tz, double cap)
{
    if (!(cz <= cap * (1 + DC__TIE)))
        return false;
    if (!isfinite(c0) || !isfinite(cz) || !isfinite(t0) || !isfinite(tz))
        return false;
    int k = dc__cmp_value(cz, c0);
    if (k <= 0)
        return k < 0 || z->machines <= anchor->machines;
    return cz - c0 <= price * (t0 - tz) * (1 + DC__TIE);
}

void dc__balance(const dc_ruleset *rs, const struct dc_workload *w, const struct dc__point *pts,
                 size_t n_pts, struct dc_candidate *v, size_t n, dc__finish_fn finish, void *ctx)
{
    if (w->objective != DC_OBJECTIVE_BALANCED)
        return;
    const struct dc_sizing_params *s = &rs->sizing;
    /* Each gate tier has its own anchor: the cheapest configuration that
     * meets every target among the candidates as many gates hold (each pick
     * is its part's cheapest so far), and its own cap, where the walk along
     * its frontier stops. Copies: candidates change below. */
    struct point_memo m;
    memo_points(&m, rs, w, pts, n_pts, v, n);
    struct dc_sizing anchor[BALANCE_TIERS];
    double cap[BALANCE_TIERS], a_spend[BALANCE_TIERS], a_time[BALANCE_TIERS],
        a_price[BALANCE_TIERS];
    for (unsigned g = 0; g < BALANCE_TIERS; g++) {
        const struct dc_sizing *a = anchor_of(rs, w, v, n, g);
        cap[g] = NAN;
        if (a != NULL) {
            anchor[g] = *a;
            a_spend[g] = dc__config_spend(s, w, &anchor[g]);
            a_time[g] = dc__config_time(s, w, &anchor[g]);
            a_price[g] = time_price(s, a_spend[g], a_time[g]);
            cap[g] = walk(&m, v, n, g, &anchor[g]);
        }
    }
    for (size_t i = 0; i < n; i++) {
        struct dc_candidate *c = &v[i];
        unsigned g = tier_of(c);
        if (!isfinite(cap[g]) || !c->selection.meets_targets || !c->selection.priced ||
            !dc__balance_worth(s, w, &anchor[g], &c->sizing, cap[g]))
            continue;
        c->selection.in_band = true;
        /* The fastest of the part's configurations within the cap whose extra
         * cost over the anchor the time it saves is worth; of equal time the
         * cheaper, then fewer machines, then fewer chips. */
        const struct dc_sizing *best = &c->sizing;
        double best_time = dc__config_time(s, w, best), best_spend = dc__config_spend(s, w, best);
        size_t lo = 0, hi = n_pts;
        part_points(&m, c->index_, &lo, &hi);
        for (size_t k = lo; k < hi; k++) {
            const struct dc_sizing *z = &pts[k].z;
            if (pts[k].acc != c->index_)
                continue;
            double sz = pt_spend(&m, k), tz = pt_time(&m, k);
            if (!worth_memo(&anchor[g], a_spend[g], a_time[g], a_price[g], z, sz, tz, cap[g]))
                continue;
            int t = dc__cmp_value(tz, best_time);
            if (t == 0)
                t = dc__cmp_value(sz, best_spend);
            if (t == 0)
                t = dc__cmp_machines(z, best);
            if (t < 0) {
                best = z;
                best_time = tz;
                best_spend = sz;
            }
        }
        if (best != &c->sizing) {
            c->sizing = *best;
            finish(ctx, c->index_, &c->sizing); /* as its part's pick was */
            c->sizing.basis = DC_BASIS_BALANCED;
        }
    }
}

/* What a candidate is sorted by: its cost (spend: under negligible_cost_usd
 * it counts as that) or its time. */
enum key_kind { KEY_COST, KEY_TIME };

static double value_of(const dc_ruleset *rs, const struct dc_workload *w,
                       const struct dc_candidate *c, enum key_kind k)
{
    const struct dc_sizing *z = &c->sizing;
    if (k == KEY_TIME)
        return dc__config_time(&rs->sizing, w, z);
    return isfinite(z->cost_usd) ? dc__config_spend(&rs->sizing, w, z) : NAN;
}

/* The objective's kind for a candidate: cost under objective cost, time
 * under time; under balanced time within the premium band, cost outside it.
 * An unknown cost sorts by time: unpriced parts rank after priced ones, by
 * speed. */
static enum key_kind kind_of(const struct dc_workload *w, const struct dc_candidate *c)
{
    bool cost = w->objective == DC_OBJECTIVE_COST ||
                (w->objective == DC_OBJECTIVE_BALANCED && !c->selection.in_band);
    return cost && c->selection.priced ? KEY_COST : KEY_TIME;
}

/* The factor soft points put on a value: (1 + band) ^ (-x / 2), x the points
 * against a full-strength fact, within [-1, 1]. */
static double adjustment(const struct dc_sizing_params *s, int points)
{
    double x = clamp(points / s->soft_full_points, -1.0, 1.0);
    return pow(1.0 + s->soft_band, -x / 2.0);
}

struct ranked {
    struct dc_candidate *c;
    enum key_kind kind;
    double key;          /* the sorting value times the adjustment */
    unsigned grp;        /* group(), which the ranking does not change */
    double spend, time_; /* dc__config_spend and dc__config_time of its sizing */
};

bool dc__may_be_picked(const struct dc_selection *s, bool any_priced)
{
    return s->priced || !any_priced || s->gates == 0;
}

/* Whether meeting the targets lifts a candidate above those that miss them:
 * only for one that may be the pick (dc__may_be_picked). */
static bool lifted_by_targets(const struct dc_selection *s, bool any_priced)
{
    return s->meets_targets && dc__may_be_picked(s, any_priced);
}

/* prefer_available: the candidate's configuration is not free now where the
 * availability is known (docs/scoring.md, section 8, "Availability"). */
static bool not_free(const struct dc_workload *w, const struct dc_candidate *c)
{
    return w->prefer_available && c->availability.known && !c->availability.configuration_free;
}

/* 0 best: meets every target, priced (when priced parts exist), fewest gates,
 * (prefer_available) free now, (balanced) within the premium band. The
 * playbook's order: fit, then stage, then availability. */
static unsigned group(const struct dc_workload *w, const struct dc_candidate *c, bool any_priced)
{
    const struct dc_selection *s = &c->selection;
    unsigned g = s->gates < 255 ? s->gates : 255;
    bool outside =
        w->objective == DC_OBJECTIVE_BALANCED && s->meets_targets && s->priced && !s->in_band;
    return (lifted_by_targets(s, any_priced) ? 0u : 1u << 11) |
           (s->priced || !any_priced ? 0u : 1u << 10) | g << 2 | (unsigned)not_free(w, c) << 1 |
           outside;
}

static int cmp_ranked(const struct dc_workload *w, const struct ranked *x, const struct ranked *y)
{
    unsigned gx = x->grp, gy = y->grp;
    if (gx != gy)
        return gx < gy ? -1 : 1;
    int c = dc__cmp_value(x->key, y->key);
    if (c != 0)
        return c;
    /* Nothing to weigh (the estimate is withheld, or nothing is known): the
     * rules decide. */
    if (!isfinite(x->key) && !isfinite(y->key) &&
        x->c->selection.soft_points != y->c->selection.soft_points)
        return x->c->selection.soft_points > y->c->selection.soft_points ? -1 : 1;
    /* A tie: the other side of the objective decides. */
    const struct dc_sizing *a = &x->c->sizing, *b = &y->c->sizing;
    if (w->objective == DC_OBJECTIVE_TIME)
        c = dc__cmp_value(a->cost_usd, b->cost_usd);
    else
        c = dc__cmp_value(x->time_, y->time_);
    if (c != 0)
        return c;
    if (a->chips != b->chips)
        return a->chips < b->chips ? -1 : 1;
    if (x->c->selection.soft_points != y->c->selection.soft_points)
        return x->c->selection.soft_points > y->c->selection.soft_points ? -1 : 1;
    /* Two configurations equal in every respect: the catalog's order. */
    return x->c->index_ < y->c->index_ ? -1 : x->c->index_ > y->c->index_ ? 1 : 0;
}

/* Configuration x (spend xs, time xt) is priced and no dearer and no slower
 * than y, and better on one. */
static bool beats(const struct dc_sizing *x, double xs, double xt, const struct ranked *y)
{
    int c = dc__cmp_value(xs, y->spend);
    int t = dc__cmp_value(xt, y->time_);
    return isfinite(x->cost_usd) && isfinite(y->c->sizing.cost_usd) && c <= 0 && t <= 0 &&
           (c < 0 || t < 0);
}

/* Part x has a configuration (its pick, or any feasible priced one) that
 * beats y's pick: then y may not rank above x. */
static bool dominates(const struct point_memo *pts, const struct ranked *x, const struct ranked *y)
{
    if (!y->c->selection.priced)
        return false;
    if (x->c->selection.priced && beats(&x->c->sizing, x->spend, x->time_, y))
        return true;
    /* The feasible configurations stand for a part that meets every target. */
    if (!x->c->selection.meets_targets)
        return false;
    size_t acc = x->c->index_, lo = 0, hi = pts->n;
    part_points(pts, acc, &lo, &hi);
    for (size_t i = lo; i < hi; i++)
        if (pts->v[i].acc == acc && beats(&pts->v[i].z, pt_spend(pts, i), pt_time(pts, i), y))
            return true;
    return false;
}

/* Insertion sort by cmp_ranked (a catalog has at most
 * DC_RULESET_MAX_ACCELERATORS candidates), then, in order, each place takes
 * the first candidate left that no other left in its group dominates. */
static void order(const struct dc_workload *w, const struct point_memo *pts, struct ranked *v,
                  size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct ranked k = v[i];
        size_t j = i;
        for (; j > 0 && cmp_ranked(w, &v[j - 1], &k) > 0; j--)
            v[j] = v[j - 1];
        v[j] = k;
    }
    for (size_t i = 0; i < n; i++) {
        size_t take = i;
        for (size_t j = i; j < n; j++) {
            bool dominated = false;
            for (size_t k = i; k < n && !dominated; k++)
                dominated = k != j && v[k].grp == v[j].grp && dominates(pts, &v[k], &v[j]);
            if (!dominated) {
                take = j;
                break;
            }
        }
        struct ranked t = v[take];
        memmove(&v[i + 1], &v[i], (take - i) * sizeof(*v));
        v[i] = t;
    }
}

/* Points for `v` against the top pick's `top`: 100 at the top, less
 * points_per_doubling per doubling. */
static int points(const struct dc_sizing_params *s, double v, double top)
{
    if (!isfinite(v) || !isfinite(top) || !(top > 0) || !(v > 0))
        return -1;
    return (int)lround(clamp(100.0 - s->points_per_doubling * log2(v / top), 0, 100));
}

/* Scores fall along the ranking, by at least one at each group boundary.
 * Each is the points of the candidate's value against the top pick's value
 * of the same kind (cost against cost, time against time). */
static void scores(const dc_ruleset *rs, const struct dc_workload *w, bool any_priced,
                   const struct ranked *v, size_t n)
{
    const struct dc_sizing_params *s = &rs->sizing;
    const struct dc_candidate *top = n > 0 ? v[0].c : NULL;
    for (size_t i = 0; i < n; i++) {
        struct dc_candidate *c = v[i].c;
        double mine = value_of(rs, w, c, v[i].kind), theirs = value_of(rs, w, top, v[i].kind);
        int p = i == 0
                    ? 100
                    : points(s, mine * c->selection.adjustment, theirs * top->selection.adjustment);
        int o = points(s, mine, theirs);
        if (i > 0) {
            int prev = v[i - 1].c->score;
            bool boundary = group(w, c, any_priced) != group(w, v[i - 1].c, any_priced);
            int most = boundary ? prev - 1 : prev;
            p = p < 0 || p > most ? most : p;
        }
        c->score = p < 0 ? 0 : p;
        c->objective_score = o < 0 ? c->score : o;
        c->rule_score = (int)lround(clamp(s->score_base + c->selection.soft_points, 0, 100));
    }
}

/* An unpriced part: the price per chip-hour at which it would match the top
 * pick on the objective (cost, or cost x time); NAN under time, where price
 * breaks ties only. */
static void breakevens(const dc_ruleset *rs, const struct dc_workload *w, const struct ranked *v,
                       size_t n)
{
    const struct dc_candidate *top = n > 0 ? v[0].c : NULL;
    if (top == NULL || !top->selection.priced || w->objective == DC_OBJECTIVE_TIME)
        return;
    double top_time = dc__config_time(&rs->sizing, w, &top->sizing);
    for (size_t i = 1; i < n; i++) {
        struct dc_candidate *c = v[i].c;
        const struct dc_sizing *z = &c->sizing;
        bool monthly = w->task == DC_TASK_INFERENCE && !(w->job_requests > 0);
        double hours = monthly ? rs->sizing.hours_per_month : z->hours;
        double chip_hours = z->chips * hours;
        double t = dc__config_time(&rs->sizing, w, z);
        if (c->selection.priced || !(chip_hours > 0) || !isfinite(t))
            continue;
        double target = top->sizing.cost_usd;
        if (w->objective == DC_OBJECTIVE_BALANCED)
            target = top->sizing.cost_usd * top_time / t;
        c->selection.breakeven_usd_per_chip_hour = target / chip_hours;
    }
}

/* v[i] = the candidate r[i] points to, for every i < n: the order moved
 * into v in place, a cycle of the permutation at a time, each candidate
 * copied once (and one of each cycle twice) rather than out and back. */
static void permute(struct dc_candidate *v, const struct ranked *r, size_t n)
{
    size_t src[DC_RULESET_MAX_ACCELERATORS];
    bool placed[DC_RULESET_MAX_ACCELERATORS] = {false};
    for (size_t i = 0; i < n; i++)
        src[i] = (size_t)(r[i].c - v);
    for (size_t i = 0; i < n; i++) {
        if (placed[i] || src[i] == i)
            continue;
        struct dc_candidate first = v[i];
        size_t j = i;
        for (; src[j] != i; j = src[j]) {
            v[j] = v[src[j]];
            placed[j] = true;
        }
        v[j] = first;
        placed[j] = true;
    }
}

void dc__rank(const dc_ruleset *rs, const struct dc_workload *w, const struct dc__point *pts,
              size_t n_pts, struct dc_candidate *v, size_t n)
{
    struct point_memo all;
    memo_points(&all, rs, w, pts, n_pts, NULL, 0);
    struct ranked r[DC_RULESET_MAX_ACCELERATORS];
    bool any_priced = false;
    n = n < DC_RULESET_MAX_ACCELERATORS ? n : DC_RULESET_MAX_ACCELERATORS;
    for (size_t i = 0; i < n; i++) {
        struct dc_candidate *c = &v[i];
        enum key_kind kind = kind_of(w, c);
        double value = value_of(rs, w, c, kind);
        /* An unpriced part sorts by time where the objective wants a cost:
         * then it has no objective value. */
        bool by_time = w->objective == DC_OBJECTIVE_TIME ||
                       (w->objective == DC_OBJECTIVE_BALANCED && c->selection.in_band);
        c->selection.objective_value = kind == KEY_COST || by_time ? value : NAN;
        c->selection.adjustment = adjustment(&rs->sizing, c->selection.soft_points);
        c->selection.breakeven_usd_per_chip_hour = NAN;
        r[i] = (struct ranked){c,
                               kind,
                               value * c->selection.adjustment,
                               0,
                               dc__config_spend(&rs->sizing, w, &c->sizing),
                               dc__config_time(&rs->sizing, w, &c->sizing)};
        any_priced |= c->selection.priced;
    }
    for (size_t i = 0; i < n; i++)
        r[i].grp = group(w, r[i].c, any_priced);
    order(w, &all, r, n);
    scores(rs, w, any_priced, r, n);
    breakevens(rs, w, r, n);
    permute(v, r, n);
}
