/* core/src/sizing/configs.c -- the configurations a part can be bought in for one
 * workload, each sized and priced, and the one the workload's objective keeps
 * (docs/scoring.md, section 5).
 *
 * Training tries chip counts from the fewest that hold the job up to what
 * the cluster, max_accelerators, the global batch and the scaling-efficiency
 * floor allow: every machine size and slice in that range, a doubling ladder,
 * and the exact counts that first meet the deadline (or default target) and
 * min_run_hours. Serving tries replica sizes from the fewest chips that hold
 * the weights, and for each the largest batch the latency target allows and a
 * few smaller ones, with the replicas the request rate needs; where no size
 * meets the latency target, the cheapest whose step comes as near the target
 * as the fastest within the rules' near_miss_tolerance (near_pick). Every
 * search is bounded by a named limit, whatever the workload asks. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "ruleset_internal.h"
#include "sizing.h"

/* Counts one training part may try: its machine sizes or slices in range
 * (at most DC_ACC_MAX_SLICES), a doubling ladder over 32-bit counts, and the
 * five exact counts (memory, target, limit, minimum run, fast domain). */
#define TRAIN_MAX_CONFIGS (DC_ACC_MAX_SLICES + 33 + 5)
/* Serving: replica sizes tried past the first that holds one request, and
 * batches per size (the latency-bound one, a quarter, a sixteenth, one, and
 * where nothing meets the latency target two more, near_refine's). */
#define SERVE_SIZES_PAST_FIT 4
#define SERVE_BATCHES        4
#define SERVE_MAX_CONFIGS    (SERVE_SIZES_PAST_FIT * (SERVE_BATCHES + 2))
#define TIE                  DC__TIE

double dc__config_spend(const struct dc_sizing_params *s, const struct dc_workload *w,
                        const struct dc_sizing *z)
{
    if (isfinite(z->cost_usd))
        return dc__fmax(z->cost_usd, s->negligible_cost_usd);
    /* Chips a team owns cost the same idle or busy: on premises without a
     * list price, and with the count it owns (max_accelerators), time
     * decides. */
    if (w->deployment == DC_DEPLOY_ON_PREM && isfinite(w->max_accelerators))
        return NAN;
    return w->task == DC_TASK_INFERENCE ? (double)z->chips : z->chips * z->hours;
}

double dc__config_time(const struct dc_sizing_params *s, const struct dc_workload *w,
                       const struct dc_sizing *z)
{
    /* An offline job (inference.job) is timed by the hours it runs. */
    if (w->task == DC_TASK_INFERENCE && !(w->job_requests > 0))
        return z->request_ms;
    /* Runs shorter than min_run_hours count as that long: minutes apart are no
     * reason to buy more chips. A run's start-up is part of its time. */
    double start = isfinite(z->overheads.startup_hours) ? z->overheads.startup_hours : 0;
    return isfinite(z->hours) ? dc__fmax(z->hours + start, s->min_run_hours.value) : NAN;
}

int dc__cmp_machines(const struct dc_sizing *x, const struct dc_sizing *y)
{
    if (x->machines != y->machines)
        return x->machines < y->machines ? -1 : 1;
    return x->chips < y->chips ? -1 : x->chips > y->chips ? 1 : 0;
}

/* The training time target: the deadline, or the default run length. */
static double target_hours(const struct dc__part *p)
{
    const struct dc_workload *w = p->w;
    if (isfinite(w->deadline_hours))
        return w->deadline_hours;
    return w->task == DC_TASK_FINE_TUNING ? p->s->target_hours_fine_tuning.value
                                          : p->s->target_hours_training.value;
}

/* dc__meets_targets with the part's start-up hours given (`startup`,
 * dc__startup_hours(p)), for a search that asks of many configurations. */
static bool meets_targets_at(const struct dc__part *p, const struct dc_sizing *z, double startup)
{
    if (p->w->task == DC_TASK_INFERENCE)
        return z->meets_latency && z->meets_rate;
    return isfinite(z->hours) && z->hours + startup <= target_hours(p) * (1 + TIE);
}

bool dc__meets_targets(const struct dc__part *p, const struct dc_sizing *z)
{
    return meets_targets_at(p, z, p->w->task == DC_TASK_INFERENCE ? 0 : dc__startup_hours(p));
}

/* What the comparisons read of one sized configuration, worked out once:
 * whether the filter keeps it (portable), whether it meets every target, its
 * spend and its time (dc__config_spend, dc__config_time), and whether its
 * step is as near a latency miss as the fastest (near_pick; false until
 * then). */
struct figures {
    bool port, met, near;
    double spend, time;
};

/* Of two configurations that both miss a target, the one nearer to it:
 * training's shorter run; serving's that meets the latency target (short of
 * the rate), then that serves the rate, then the more requests/s short of
 * it, then the shorter step, where two steps near_pick found as near are
 * alike and the objective decides. */
static int cmp_near(const struct dc__part *p, const struct dc_sizing *x, const struct figures *fx,
                    const struct dc_sizing *y, const struct figures *fy)
{
    if (p->w->task != DC_TASK_INFERENCE)
        return dc__cmp_value(x->hours, y->hours);
    if (x->meets_latency != y->meets_latency)
        return x->meets_latency ? -1 : 1;
    if (x->meets_rate != y->meets_rate)
        return x->meets_rate ? -1 : 1;
    int c = x->meets_rate ? 0 : dc__cmp_value(-x->throughput_rps, -y->throughput_rps);
    if (c != 0 || (fx->near && fy->near))
        return c;
    return dc__cmp_value(x->decode_ms, y->decode_ms);
}

static void figures_of(const struct dc__part *p, const struct dc_sizing *z, bool port,
                       double startup, struct figures *f)
{
    f->port = port;
    f->met = meets_targets_at(p, z, startup);
    f->near = false;
    f->spend = dc__config_spend(p->s, p->w, z);
    f->time = dc__config_time(p->s, p->w, z);
}

/* Whether the configuration may reach the frontier: kept by the filter,
 * within budget, meeting every target and priced. */
static bool frontier_ok(const struct dc_sizing *z, const struct figures *f)
{
    return f->port && z->within_budget && f->met && isfinite(z->cost_usd);
}

/* The objective's order of two configurations of one part (docs/scoring.md,
 * section 5): within budget (bx, by) and portable first, then meeting every
 * target, then priced, then the objective, then fewer chips. */
static int cmp_config_within(const struct dc__part *p, const struct dc_sizing *x,
                             const struct figures *fx, bool bx, const struct dc_sizing *y,
                             const struct figures *fy, bool by)
{
    bool okx = bx && fx->port, oky = by && fy->port;
    if (okx != oky)
        return okx ? -1 : 1;
    bool mx = fx->met, my = fy->met;
    if (mx != my)
        return mx ? -1 : 1;
    if (!mx) {
        int c = cmp_near(p, x, fx, y, fy);
        if (c != 0)
            return c;
    }
    bool cx = isfinite(x->cost_usd), cy = isfinite(y->cost_usd);
    if (cx != cy)
        return cx ? -1 : 1;
    double sx = fx->spend, sy = fy->spend;
    double tx = fx->time, ty = fy->time;
    int c = 0;
    switch (p->w->objective) {
    case DC_OBJECTIVE_TIME:
        c = dc__cmp_value(tx, ty);
        c = c != 0 ? c : dc__cmp_value(sx, sy);
        break;
    case DC_OBJECTIVE_COST:
    case DC_OBJECTIVE_BALANCED:
        /* Balanced starts from the cheapest; the engine then takes the fastest
         * configuration whose extra cost the time it saves is worth
         * (dc__balance). A tie of cost, the negligible floor's included, is no
         * reason to buy more: it goes to fewer machines (issue 27), then to
         * the faster. Chips a team owns (no known spend) are timed. */
        c = dc__cmp_value(sx, sy);
        if (c == 0 && isfinite(sx) && isfinite(sy))
            c = x->machines < y->machines ? -1 : x->machines > y->machines ? 1 : 0;
        c = c != 0 ? c : dc__cmp_value(tx, ty);
        break;
    }
    if (c != 0)
        return c;
    return x->chips < y->chips ? -1 : x->chips > y->chips ? 1 : 0;
}

/* The objective's order, each within budget as sized. */
static int cmp_config(const struct dc__part *p, const struct dc_sizing *x, const struct figures *fx,
                      const struct dc_sizing *y, const struct figures *fy)
{
    return cmp_config_within(p, x, fx, x->within_budget, y, fy, y->within_budget);
}

/* ---- the frontier --------------------------------------------------------------- */

/* Whether (spend, time, chips) x sorts after y: by cost, time, then chips. */
static bool after(double xs, double xt, unsigned xc, double ys, double yt, unsigned yc)
{
    int c = dc__cmp_value(xs, ys);
    if (c == 0)
        c = dc__cmp_value(xt, yt);
    return c > 0 || (c == 0 && xc > yc);
}

/* Append the configurations of `v` (feasible and priced: ok[i]) that no
 * other of them beats on both cost and time: sorted by cost, each that is
 * faster than every cheaper one. */
static enum dc_status keep_frontier(size_t idx, const struct dc_sizing *v, const struct figures *f,
                                    size_t n, struct dc__points *pts)
{
    struct {
        double spend, time;
        unsigned chips;
        size_t i;
    } k[TRAIN_MAX_CONFIGS > SERVE_MAX_CONFIGS ? TRAIN_MAX_CONFIGS : SERVE_MAX_CONFIGS], t;
    size_t m = 0;
    for (size_t i = 0; pts != NULL && i < n; i++) {
        if (!frontier_ok(&v[i], &f[i]))
            continue;
        t.spend = f[i].spend;
        t.time = f[i].time;
        t.chips = v[i].chips;
        t.i = i;
        size_t j = m++; /* insertion by cost, then time, then fewer chips */
        for (; j > 0 &&
               after(k[j - 1].spend, k[j - 1].time, k[j - 1].chips, t.spend, t.time, t.chips);
             j--)
            k[j] = k[j - 1];
        k[j] = t;
    }
    double best = INFINITY;
    for (size_t j = 0; j < m; j++) {
        if (!(dc__cmp_value(k[j].time, best) < 0))
            continue;
        best = k[j].time;
        if (pts->n == pts->cap) {
            size_t cap = pts->cap == 0 ? 128 : pts->cap * 2;
            struct dc__point *grown = realloc(pts->v, cap * sizeof(*grown));
            if (grown == NULL)
                return DC_ENOMEM;
            pts->v = grown;
            pts->cap = cap;
        }
        /* Set field by field: one copy of the sizing, not one into a
         * temporary and another out of it. Not finished: dc__point. */
        pts->v[pts->n].acc = idx;
        pts->v[pts->n].z = v[k[j].i];
        pts->n++;
    }
    return DC_OK;
}

/* ---- training --------------------------------------------------------------------- */

/* The most chips worth buying: a global batch of B sequences keeps at most
 * B x chips_per_sequence chips busy, and past the efficiency floor extra
 * chips mostly wait on the network (docs/scoring.md, section 5). */
static unsigned efficiency_limit(const struct dc__part *p, unsigned cap)
{
    const struct dc_sizing_params *s = p->s;
    const struct dc_accelerator *a = p->a;
    double domain = a->domain > 0 ? a->domain : 1;
    double cross = s->mfu_cross_domain[a->family];
    double decay = s->mfu_decay[a->family];
    double floor = s->efficiency_floor.value;
    double by_efficiency = domain;
    if (cross >= floor)
        by_efficiency = decay > 0 ? domain * exp2((1.0 - floor / cross) / decay) : INFINITY;
    return (unsigned)fmax(1.0, fmin((double)cap, by_efficiency));
}

/* The training MFU (dc__train_mfu) of the counts one part's search asks
 * of, each worked out once: the bisections below land on the same counts
 * again (nearby counts round up to one machine size, and the two searches
 * of training_counts start alike), and the counts sized then are among
 * them. Open addressing on the count (never 0); when full, worked out where
 * asked. */
#define MFU_MEMO 256

struct mfu_memo {
    size_t n;
    unsigned chips[MFU_MEMO]; /* 0: free */
    double mfu[MFU_MEMO];
};

static double memo_mfu(const struct dc__part *p, struct mfu_memo *m, unsigned chips)
{
    size_t k = (chips * 2654435761u) >> 24 & (MFU_MEMO - 1);
    for (; m->chips[k] != 0; k = (k + 1) & (MFU_MEMO - 1))
        if (m->chips[k] == chips)
            return m->mfu[k];
    double mfu = dc__train_mfu(p, chips);
    if (m->n < MFU_MEMO / 2) { /* half full at most: probes stay short */
        m->chips[k] = chips;
        m->mfu[k] = mfu;
        m->n++;
    }
    return mfu;
}

/* The most chips in [lo, hi] whose modelled scale efficiency, sequence
 * splitting and the gradient all-reduce included (core/src/sizing/sync.c), stays at
 * or above the floor: efficiency never rises with chips at a fixed batch, so
 * the count is bisected. efficiency_limit's closed form bounds it from above. */
static unsigned modelled_limit(const struct dc__part *p, struct mfu_memo *m, unsigned lo,
                               unsigned hi)
{
    double floor = p->s->efficiency_floor.value, family = p->s->mfu_training[p->a->family];
    if (!isfinite(p->peak) || hi <= lo || memo_mfu(p, m, hi) / family >= floor)
        return hi;
    unsigned a = lo, b = hi;
    while (a < b) {
        unsigned mid = a + (b - a + 1) / 2;
        if (memo_mfu(p, m, mid) / family >= floor)
            a = mid;
        else
            b = mid - 1;
    }
    return a;
}

static unsigned batch_limit(const struct dc__part *p)
{
    double per = p->s->chips_per_sequence.value;
    return (unsigned)fmax(1.0, fmin((double)p->cap, p->w->global_batch_size * per));
}

/* Run hours on `chips` chips (the training MFU kept in m). */
static double memo_hours(const struct dc__part *p, struct mfu_memo *m, unsigned chips)
{
    return dc__train_hours_at(p, chips, memo_mfu(p, m, chips));
}

/* The fewest chips in [lo, hi] whose purchasable shape finishes within
 * `hours`; 0 when even `hi` does not. Hours fall as shapes grow (the MFU
 * model loses less than a shape step adds), so the count is bisected. */
static unsigned fewest_within(const struct dc__part *p, struct mfu_memo *m, unsigned lo,
                              unsigned hi, double hours)
{
    struct dc_shape s;
    dc__shape_at_most(p->a, hi, &s);
    if (dc__shape_chips(&s) < lo || !(memo_hours(p, m, dc__shape_chips(&s)) <= hours))
        return 0;
    unsigned a = lo, b = dc__shape_chips(&s);
    while (a < b) {
        unsigned mid = a + (b - a) / 2;
        if (dc_shape_at_least(p->a, mid, UINT_MAX, &s) &&
            memo_hours(p, m, dc__shape_chips(&s)) <= hours)
            b = mid;
        else
            a = mid + 1;
    }
    (void)dc_shape_at_least(p->a, b, UINT_MAX, &s);
    return dc__shape_chips(&s);
}

struct train_counts {
    unsigned v[TRAIN_MAX_CONFIGS];
    size_t n;
    unsigned lo, hi, target; /* target: the fewest meeting the time target, 0 none */
    bool hi_by_efficiency;   /* hi is the efficiency floor's, not a cap's */
};

static void add_count(struct train_counts *t, unsigned chips)
{
    if (chips == 0 || chips < t->lo || chips > t->hi || t->n == TRAIN_MAX_CONFIGS)
        return;
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i] == chips)
            return;
    t->v[t->n++] = chips;
}

/* The counts worth sizing on a part whose smallest shape holding the job has
 * `lo` chips. */
static void training_counts(const struct dc__part *p, struct mfu_memo *memo, unsigned lo,
                            struct train_counts *t)
{
    const struct dc_accelerator *a = p->a;
    unsigned batch = batch_limit(p);
    unsigned eff = modelled_limit(p, memo, lo, efficiency_limit(p, batch));
    t->n = 0;
    t->lo = lo;
    t->hi = eff > lo ? eff : lo;
    t->hi_by_efficiency = eff < batch;
    t->target = 0;
    if (isfinite(p->peak)) {
        /* A deadline is a requirement: past the efficiency floor if it takes
         * that, up to the batch bound; the default target is not. */
        unsigned reach = isfinite(p->w->deadline_hours) && batch > t->hi ? batch : t->hi;
        t->target = fewest_within(p, memo, lo, reach, target_hours(p) - dc__startup_hours(p));
        if (t->target > t->hi) {
            t->hi = t->target;
            t->hi_by_efficiency = false;
        }
    }
    struct dc_shape s;
    dc__shape_at_most(a, t->hi, &s);
    t->hi = dc__shape_chips(&s) > lo ? dc__shape_chips(&s) : lo;
    add_count(t, lo);
    add_count(t, t->target);
    add_count(t, t->hi);
    if (isfinite(p->peak))
        add_count(t, fewest_within(p, memo, lo, t->hi, p->s->min_run_hours.value));
    /* The whole fast domain (72 GPUs of a GB200 NVL72 rack): past it each
     * chip costs more per run, so it is often the fastest of equal cost. */
    if (a->domain > 0) {
        dc__shape_at_most(a, a->domain, &s);
        add_count(t, dc__shape_chips(&s));
    }
    size_t n_sizes = a->n_slices > 0 ? a->n_slices : a->n_node_sizes;
    for (size_t i = 0; i < n_sizes; i++)
        add_count(t, a->n_slices > 0 ? a->slices[i].chips : a->node_sizes[i]);
    for (unsigned long long c = (unsigned long long)lo * 2; c <= t->hi; c *= 2)
        if (dc_shape_at_least(a, (unsigned)c, t->hi, &s))
            add_count(t, dc__shape_chips(&s));
}

static enum dc_chips_basis training_basis(const struct dc__part *p, const struct train_counts *t,
                                          const struct dc_sizing *z)
{
    if (z->estimate_withheld != NULL || z->chips == t->lo)
        return DC_BASIS_MEMORY;
    if (!dc__meets_targets(p, z))
        return DC_BASIS_LIMIT;
    if (p->w->objective == DC_OBJECTIVE_TIME)
        return z->chips == t->hi && !t->hi_by_efficiency &&
                       dc__config_time(p->s, p->w, z) > p->s->min_run_hours.value
                   ? DC_BASIS_LIMIT
                   : DC_BASIS_FASTEST;
    if (z->chips == t->target)
        return isfinite(p->w->deadline_hours) ? DC_BASIS_DEADLINE : DC_BASIS_TARGET;
    return DC_BASIS_CHEAPEST;
}

static bool configure_training(const struct dc__part *p, size_t idx,
                               const struct dc__config_filter *filter, struct dc__points *pts,
                               struct dc_sizing *pick, enum dc_status *rc)
{
    struct dc_shape lo;
    bool fits = dc__train_min_shape(p, p->cap, &lo);
    /* Every configuration starts from the part's initial sizing: made once. */
    struct dc_sizing fresh;
    dc__sizing_init(p, &fresh);
    *pick = fresh;
    pick->chips_for_memory = dc__shape_chips(&lo);
    pick->memory_need_gb = p->d->state_gb + p->d->activations_gb;
    pick->shape = lo;
    pick->chips = pick->chips_per_replica = dc__shape_chips(&lo);
    if (!fits)
        return false;
    struct train_counts t;
    struct mfu_memo memo;
    memo.n = 0;
    memset(memo.chips, 0, sizeof(memo.chips));
    training_counts(p, &memo, dc__shape_chips(&lo), &t);
    struct dc_sizing v[TRAIN_MAX_CONFIGS];
    struct figures f[TRAIN_MAX_CONFIGS];
    size_t best = 0, lifted = 0;
    struct dc_sizing *keep_lifted = filter != NULL ? filter->budget_lifted : NULL;
    double startup = dc__startup_hours(p);
    for (size_t i = 0; i < t.n; i++) {
        struct dc_shape s;
        if (!dc_shape_at_least(p->a, t.v[i], UINT_MAX, &s))
            s = (struct dc_shape){1, t.v[i], NULL};
        v[i] = fresh;
        v[i].fits = true;
        v[i].chips_for_memory = t.lo;
        unsigned chips = dc__shape_chips(&s);
        dc__train_at(p, &s, chips, isfinite(p->peak) ? memo_mfu(p, &memo, chips) : NAN, &v[i]);
        figures_of(p, &v[i], filter == NULL || filter->ok(filter->ctx, p, &v[i]), startup, &f[i]);
        if (i > 0 && cmp_config(p, &v[i], &f[i], &v[best], &f[best]) < 0)
            best = i;
        /* The budget lifted: every configuration within it, all else the same
         * (the budget is read nowhere else in a training configuration). */
        if (keep_lifted != NULL && i > 0 &&
            cmp_config_within(p, &v[i], &f[i], true, &v[lifted], &f[lifted], true) < 0)
            lifted = i;
    }
    *pick = v[best];
    pick->basis = training_basis(p, &t, pick);
    dc__sizing_finish(p, pick);
    if (keep_lifted != NULL && lifted == best && v[best].within_budget) {
        /* The same configuration, within budget already: finished alike. */
        *keep_lifted = *pick;
    } else if (keep_lifted != NULL) {
        *keep_lifted = v[lifted];
        keep_lifted->within_budget = true;
        keep_lifted->basis = training_basis(p, &t, keep_lifted);
        dc__sizing_finish(p, keep_lifted);
    }
    *rc = keep_frontier(idx, v, f, t.n, pts);
    return true;
}

/* ---- serving ------------------------------------------------------------------------ */

/* The batches worth trying on `chips` chips: the workload's own, or the
 * largest that meets the latency target and a few smaller ones (lower
 * latency, more replicas). Returns how many; `probed` keeps the steps the
 * latency search worked out (none without one). */
static size_t batch_options(const struct dc__part *p, const struct dc__replica_chips *c,
                            unsigned cap, unsigned *out, struct dc__step_probes *probed)
{
    probed->n = 0;
    if (isfinite(p->w->batch_size)) {
        out[0] = (unsigned)p->w->batch_size;
        return out[0] <= cap ? 1 : 0;
    }
    unsigned b = dc__serve_latency_within(p, c, cap, dc__near_miss_slack(p->s), probed);
    size_t n = 0;
    for (unsigned div = 1; n < SERVE_BATCHES; div *= 4) {
        unsigned x = n + 1 == SERVE_BATCHES ? 1 : b / div;
        if (x >= 1 && (n == 0 || out[n - 1] != x))
            out[n++] = x;
        if (x <= 1)
            break;
    }
    return n;
}

/* Size `n` replicas of `chips` at `batch` for the rate, capped by the fleet;
 * `fresh` is the part's initial sizing (dc__sizing_init), `probed` the steps
 * batch_options' search kept. */
static bool serve_config(const struct dc__part *p, const struct dc__replica_chips *c,
                         unsigned batch, const struct dc__step_probes *probed,
                         const struct dc_sizing *fresh, struct dc_sizing *z)
{
    unsigned chips = c->chips;
    struct dc__replica r;
    dc__replica_probed(p, c, batch, probed, &r);
    unsigned n = dc__replicas_for(p, &r);
    if ((unsigned long long)n * chips > p->fleet_cap)
        n = p->fleet_cap / chips;
    struct dc_shape buy;
    if (n == 0 || !dc__serve_buy(c, n, &buy))
        return false;
    *z = *fresh;
    z->fits = true;
    dc__serve_at(p, &r, n, &buy, z);
    return true;
}

/* Why a serving pick has its layout: capped below the rate, replicas for the
 * rate, the fewest chips that hold the model, or the objective's choice of a
 * larger replica (tensor parallel for latency or a larger batch). */
static enum dc_chips_basis serving_basis(const struct dc__part *p, const struct dc_sizing *z,
                                         unsigned first_fit)
{
    if (z->estimate_withheld != NULL)
        return DC_BASIS_MEMORY;
    if (!z->meets_rate)
        return DC_BASIS_LIMIT;
    if (z->replicas > 1)
        return DC_BASIS_RATE;
    if (z->chips_per_replica <= first_fit)
        return DC_BASIS_MEMORY;
    return p->w->objective == DC_OBJECTIVE_TIME ? DC_BASIS_FASTEST : DC_BASIS_CHEAPEST;
}

/* A serving search: its part and filter, the part's initial sizing
 * (dc__sizing_init), the first size that holds a request, and each size it
 * tried with the largest batch tried there (`top`) and where that is in the
 * configurations (SIZE_MAX: none bought). */
struct serve_search {
    const struct dc__part *p;
    const struct dc__config_filter *filter;
    struct dc_sizing fresh;
    unsigned first_fit;
    size_t sizes;
    struct {
        unsigned chips, top;
        size_t at;
    } tried[SERVE_SIZES_PAST_FIT];
};

/* Size `batch` on c's chips into *z with its figures; false when no replica
 * of it can be bought. */
static bool add_serving(const struct serve_search *q, const struct dc__replica_chips *c,
                        unsigned batch, const struct dc__step_probes *probed, struct dc_sizing *z,
                        struct figures *f)
{
    if (!serve_config(q->p, c, batch, probed, &q->fresh, z))
        return false;
    z->chips_for_memory = q->first_fit;
    figures_of(q->p, z, q->filter == NULL || q->filter->ok(q->filter->ctx, q->p, z), 0, f);
    return true;
}

/* Append batch `batch` on c's chips to v (n of them), marked near where its
 * step is within near_ms; false when no replica of it can be bought. */
static bool add_near(const struct serve_search *q, const struct dc__replica_chips *c,
                     unsigned batch, const struct dc__step_probes *probed, double near_ms,
                     struct dc_sizing *v, struct figures *f, size_t *n)
{
    if (!add_serving(q, c, batch, probed, &v[*n], &f[*n]))
        return false;
    f[*n].near = v[*n].decode_ms <= near_ms;
    (*n)++;
    return true;
}

/* With the bound of a near step known (`near_ms`), on each size: the largest
 * batch within it, where the largest tried is slower (a size's own search
 * bounded its steps by its batch 1's, dc__serve_latency_within, which
 * another size or batch may beat); then the replicas that batch needs, each
 * at the smallest batch that still serves the rate on them (as many chips, a
 * shorter step): b x rate / throughput requests each, since a smaller batch
 * takes no longer a request. Appended to v, at most two a size. */
static void near_refine(const struct serve_search *q, double near_ms, struct dc_sizing *v,
                        struct figures *f, size_t *n)
{
    for (size_t i = 0; i < q->sizes; i++) {
        unsigned top = q->tried[i].top;
        size_t at = q->tried[i].at;
        struct dc__replica_chips c;
        dc__replica_chips_init(q->p, q->tried[i].chips, true, &c);
        if (at == SIZE_MAX || !(v[at].decode_ms <= near_ms)) {
            struct dc__step_probes probed;
            unsigned b = top > 1 ? dc__serve_batch_within(q->p, &c, top - 1, near_ms, &probed) : 0;
            if (b <= 1 || !add_near(q, &c, b, &probed, near_ms, v, f, n))
                continue;
            at = *n - 1;
        }
        double fill =
            ceil(v[at].batch_per_replica * q->p->w->requests_per_second / v[at].throughput_rps);
        if (fill >= 1 && fill < v[at].batch_per_replica)
            (void)add_near(q, &c, (unsigned)fill, NULL, near_ms, v, f, n);
    }
}

/* When no configuration meets every target, the one that serves the rate
 * with the fastest step (`best`, by cmp_config while no step is near) is the
 * nearest miss of the latency target; but a step whose share of the target
 * is within near_miss_tolerance of its (dc__near_miss_limit_ms) is as near
 * for a buyer, so the objective chooses among those
 * (docs/scoring.md, sections 5 and 10): 16 H200 for Llama 3.1 405B at 18 ms,
 * not the 312 whose step was 2% shorter.
 * Returns the pick (configurations near_refine adds are appended to v), and
 * keeps the fastest step in *fastest_ms (NAN where the pick is no such
 * miss). */
static size_t near_pick(const struct serve_search *q, struct dc_sizing *v, struct figures *f,
                        size_t *n, size_t best, double *fastest_ms)
{
    const struct dc_sizing *b = &v[best];
    *fastest_ms = NAN;
    if (f[best].met || b->meets_latency || !b->meets_rate)
        return best;
    *fastest_ms = b->decode_ms;
    double slack = dc__near_miss_slack(q->p->s);
    if (!(slack > 0))
        return best;
    double near_ms = dc__near_miss_limit_ms(slack, q->p->w->latency_ms_p99, b->decode_ms);
    for (size_t i = 0; i < *n; i++)
        f[i].near = v[i].decode_ms <= near_ms;
    if (!isfinite(q->p->w->batch_size))
        near_refine(q, near_ms, v, f, n);
    size_t pick = best;
    for (size_t i = 0; i < *n; i++)
        if (cmp_config(q->p, &v[i], &f[i], &v[pick], &f[pick]) < 0)
            pick = i;
    return pick;
}

/* No size holds a request: the pick says how many chips hold the weights. */
static void serving_unfit(const struct dc__part *p, struct dc_sizing *pick)
{
    dc__sizing_init(p, pick);
    double batch = isfinite(p->w->batch_size) ? p->w->batch_size : 1.0;
    pick->memory_need_gb =
        p->d->weights_gb * p->s->infer_overhead.value + p->d->kv_cache_gb * batch;
    unsigned t = dc__replica_holding(p, 1.0);
    t = t != 0 && dc__serve_batch_cap(p, t) > 0 ? t : 0;
    pick->chips_for_memory = t;
    pick->chips = pick->chips_per_replica = t;
    if (t > 0)
        (void)dc_shape_at_least(p->a, t, UINT_MAX, &pick->shape);
}

static bool configure_serving(const struct dc__part *p, size_t idx,
                              const struct dc__config_filter *filter, struct dc__points *pts,
                              struct dc_sizing *pick, enum dc_status *rc)
{
    struct dc_sizing v[SERVE_MAX_CONFIGS];
    struct figures f[SERVE_MAX_CONFIGS];
    size_t n = 0, best = 0;
    struct serve_search q; /* set field by field: dc__sizing_init zeroes `fresh` */
    q.p = p;
    q.filter = filter;
    q.first_fit = 0;
    q.sizes = 0;
    dc__sizing_init(p, &q.fresh);
    /* Sizes below the one that holds the first batch are skipped in one jump;
     * past it memory only grows, so the loop ends after a few sizes (the
     * bound on passes guards against rounding). */
    unsigned start = dc__replica_holding(p, isfinite(p->w->batch_size) ? p->w->batch_size : 1.0);
    unsigned passes = 0;
    for (unsigned t = start; t != 0 && t <= p->cap && q.sizes < SERVE_SIZES_PAST_FIT &&
                             passes < 4 * SERVE_SIZES_PAST_FIT;
         t = dc__next_replica_size(p->a, t), passes++) {
        unsigned batches[SERVE_BATCHES];
        struct dc__step_probes probed;
        /* What the size is whatever the batch, once for the batches below. */
        struct dc__replica_chips c;
        dc__replica_chips_init(p, t, true, &c);
        unsigned cap = dc__replica_chips_cap(&c);
        size_t nb = cap > 0 ? batch_options(p, &c, cap, batches, &probed) : 0;
        if (nb == 0)
            continue;
        q.first_fit = q.first_fit == 0 ? t : q.first_fit;
        q.tried[q.sizes].chips = t;
        q.tried[q.sizes].top = batches[0];
        q.tried[q.sizes].at = SIZE_MAX;
        for (size_t b = 0; b < nb; b++) {
            if (!add_serving(&q, &c, batches[b], &probed, &v[n], &f[n]))
                continue;
            if (b == 0)
                q.tried[q.sizes].at = n;
            if (n > 0 && cmp_config(p, &v[n], &f[n], &v[best], &f[best]) < 0)
                best = n;
            n++;
        }
        q.sizes++;
    }
    if (n == 0) {
        serving_unfit(p, pick);
        return false;
    }
    double fastest_ms;
    best = near_pick(&q, v, f, &n, best, &fastest_ms);
    for (size_t i = 0; i < n; i++)
        v[i].basis = serving_basis(p, &v[i], q.first_fit);
    *pick = v[best];
    pick->fastest_decode_ms = fastest_ms;
    dc__sizing_finish(p, pick);
    *rc = keep_frontier(idx, v, f, n, pts);
    return true;
}

const char *dc_chips_basis_name(enum dc_chips_basis b)
{
    static const char *const names[] = {"memory", "deadline", "target",   "fastest", "rate",
                                        "limit",  "pinned",   "cheapest", "balanced"};
    return b <= DC_BASIS_BALANCED ? names[b] : "memory";
}

bool dc__configure(const struct dc__part *p, size_t idx, const struct dc__config_filter *filter,
                   struct dc__points *pts, struct dc_sizing *pick, enum dc_status *rc)
{
    *rc = DC_OK;
    if (p->w->task == DC_TASK_INFERENCE)
        return configure_serving(p, idx, filter, pts, pick, rc);
    return configure_training(p, idx, filter, pts, pick, rc);
}
