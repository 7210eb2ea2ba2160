/* core/src/select/frontier.c -- the cost-time frontier of a result: of every
 * feasible, priced configuration of every part (each chip count and serving
 * layout sized), those no other beats on both cost and time, so a person sees
 * what more money buys (docs/scoring.md, section 9). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "select.h"
#include "ruleset_internal.h"
#include "sizing.h"

struct cand {
    const struct dc__point *p;
    double cost, time;
};

/* The time a person reads: the run's hours (training, an offline job) or one
 * request's ms, as sized, not floored at min_run_hours as the objective
 * compares them. */
static double shown_time(const struct dc_workload *w, const struct dc_sizing *z)
{
    return w->task == DC_TASK_INFERENCE && !(w->job_requests > 0) ? z->request_ms : z->hours;
}

static int by_cost(const struct cand *x, const struct cand *y)
{
    int c = dc__cmp_value(x->cost, y->cost);
    if (c == 0)
        c = dc__cmp_value(x->time, y->time);
    if (c == 0)
        c = x->p->acc < y->p->acc ? -1 : x->p->acc > y->p->acc ? 1 : 0;
    if (c == 0)
        c = x->p->z.chips < y->p->z.chips ? -1 : x->p->z.chips > y->p->z.chips ? 1 : 0;
    return c;
}

/* `v` in by_cost order, `tmp` room for n of them: the merge sort glibc's
 * qsort does for an array like this one (halves of n/2 and n - n/2, a tie
 * taken from the left), step for step, without its calls through a pointer
 * and its byte copies. Step for step because by_cost is no strict weak order
 * (dc__cmp_value's tolerance): another sort could order near-ties otherwise
 * and change which points stay. */
static void sort_by_cost(struct cand *v, size_t n, struct cand *tmp)
{
    if (n <= 1)
        return;
    size_t n1 = n / 2, n2 = n - n1;
    struct cand *b1 = v, *b2 = v + n1, *t = tmp;
    sort_by_cost(b1, n1, tmp);
    sort_by_cost(b2, n2, tmp);
    while (n1 > 0 && n2 > 0) {
        if (by_cost(b1, b2) <= 0) {
            *t++ = *b1++;
            n1--;
        } else {
            *t++ = *b2++;
            n2--;
        }
    }
    if (n1 > 0)
        memcpy(t, b1, n1 * sizeof(*t));
    memcpy(v, tmp, (n - n2) * sizeof(*v));
}

/* Points sort_by_cost's room on the stack holds (bench_core's workloads
 * have some 40); more take it from the heap, as qsort's own merge did. */
#define SORT_ROOM 256

static bool same_config(const struct dc_candidate *c, const struct dc__point *p)
{
    const struct dc_sizing *a = &c->sizing, *b = &p->z;
    return c->index_ == p->acc && a->chips == b->chips &&
           a->chips_per_replica == b->chips_per_replica &&
           a->batch_per_replica == b->batch_per_replica && a->shape.units == b->shape.units &&
           a->shape.per_unit == b->shape.per_unit;
}

static struct dc_frontier_point point(const struct dc_workload *w, const struct dc_accelerator *acc,
                                      const struct dc_sizing *z)
{
    return (struct dc_frontier_point){acc,
                                      z->shape,
                                      z->chips,
                                      z->replicas,
                                      z->chips_per_replica,
                                      z->batch_per_replica,
                                      z->cost_usd,
                                      z->cost_per_hour_usd,
                                      shown_time(w, z),
                                      false};
}

/* Keep at most DC_FRONTIER_MAX_POINTS of the `n` frontier points (ascending
 * cost): the first, the last, the pick, and between them the point nearest
 * each even step of log(cost). Returns how many are kept in `keep`. */
static size_t thin(const struct cand *v, size_t n, size_t pick, size_t *keep)
{
    if (n <= DC_FRONTIER_MAX_POINTS) {
        for (size_t i = 0; i < n; i++)
            keep[i] = i;
        return n;
    }
    size_t k = 0, slots = DC_FRONTIER_MAX_POINTS - 1; /* the pick may need one */
    double lo = log(v[0].cost), hi = log(v[n - 1].cost);
    size_t next = 0;
    for (size_t s = 0; s < slots; s++) {
        double want = lo + (hi - lo) * (double)s / (double)(slots - 1);
        size_t best = next;
        for (size_t i = next; i < n && log(v[i].cost) <= want; i++)
            best = i;
        if (s == slots - 1)
            best = n - 1;
        if (k == 0 || best > keep[k - 1])
            keep[k++] = best;
        next = best + 1;
        if (next >= n)
            break;
    }
    bool has_pick = pick >= n;
    for (size_t i = 0; i < k && !has_pick; i++)
        has_pick = keep[i] == pick;
    if (!has_pick) { /* insert in order */
        size_t at = k;
        while (at > 0 && keep[at - 1] > pick) {
            keep[at] = keep[at - 1];
            at--;
        }
        keep[at] = pick;
        k++;
    }
    return k;
}

enum dc_status dc__frontier(const dc_ruleset *rs, struct dc_result *res,
                            const struct dc__point *pts, size_t n)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_candidate *top = res->n_recommendations > 0 ? &res->recommendations[0] : NULL;
    struct cand *v = calloc(n + 1, sizeof(*v));
    size_t *keep = calloc(DC_FRONTIER_MAX_POINTS + 1, sizeof(*keep));
    if (v == NULL || keep == NULL) {
        free(v);
        free(keep);
        return DC_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = (struct cand){&pts[i], pts[i].z.cost_usd, shown_time(w, &pts[i].z)};
    struct cand room[SORT_ROOM];
    struct cand *tmp = n <= SORT_ROOM ? room : malloc(n * sizeof(*tmp));
    if (tmp == NULL) {
        free(v);
        free(keep);
        return DC_ENOMEM;
    }
    sort_by_cost(v, n, tmp);
    if (tmp != room)
        free(tmp);
    /* Ascending cost: a point stays when it is faster than every cheaper one. */
    size_t m = 0, pick = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && dc__cmp_value(v[i].time, v[m - 1].time) >= 0)
            continue;
        v[m++] = v[i];
    }
    for (size_t i = 0; top != NULL && i < m; i++)
        if (same_config(top, v[i].p))
            pick = i;
    size_t k = thin(v, m, pick, keep);
    /* The pick is always shown: a gate can hold a cheaper or faster part
     * below it, and then it lies off the frontier. */
    bool off =
        top != NULL && top->selection.priced && top->selection.meets_targets && pick == SIZE_MAX;
    res->frontier = dc__arena_alloc(res->arena_, (k + 2) * sizeof(*res->frontier));
    if (res->frontier == NULL) {
        free(v);
        free(keep);
        return DC_ENOMEM;
    }
    for (size_t i = 0; i < k; i++) {
        struct dc_frontier_point *f = &res->frontier[res->n_frontier++];
        *f = point(w, &rs->accs[v[keep[i]].p->acc], &v[keep[i]].p->z);
        f->pick = keep[i] == pick;
    }
    if (off) { /* in cost order */
        size_t at = res->n_frontier++;
        while (at > 0 && res->frontier[at - 1].cost_usd > top->sizing.cost_usd) {
            res->frontier[at] = res->frontier[at - 1];
            at--;
        }
        res->frontier[at] = point(w, top->acc, &top->sizing);
        res->frontier[at].pick = true;
    }
    free(v);
    free(keep);
    return DC_OK;
}
