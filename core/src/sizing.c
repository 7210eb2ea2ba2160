/* core/src/sizing.c -- memory, chips, time and serving capacity on one
 * accelerator (what a workload needs before that is core/src/derive.c).
 *
 * The model is documented for users in docs/scoring.md (section 5) and checked
 * against published runs in docs/calibration.md; keep the three in step. Every
 * constant it uses comes from sizing.yaml or the catalog, each with a source. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ruleset_internal.h"
#include "sizing.h"

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The larger of two times, unknown when either is (fmax would drop a NAN and
 * time a CPU with no listed bandwidth on its FLOPs alone). */
static double max_known(double a, double b)
{
    return isnan(a) || isnan(b) ? NAN : fmax(a, b);
}

/* ceil(v) as a chip count, saturating; 0 for v <= 0 or NAN. */
static unsigned ceil_count(double v)
{
    if (!(v > 0))
        return 0;
    if (v >= (double)UINT_MAX)
        return UINT_MAX;
    return (unsigned)ceil(v - 1e-9);
}

/* ---- shapes ---------------------------------------------------------------------- */

unsigned dc__chip_cap(const struct dc_workload *w, const struct dc_accelerator *a)
{
    unsigned cap = a->max_chips;
    if (isfinite(w->max_accelerators) && w->max_accelerators < cap)
        cap = (unsigned)w->max_accelerators;
    return cap;
}

/* The unit larger jobs are built from: a whole machine, or the largest slice. */
static unsigned unit_chips(const struct dc_accelerator *a)
{
    if (a->n_slices > 0)
        return a->slices[a->n_slices - 1].chips;
    return a->n_node_sizes > 0 ? a->node_sizes[a->n_node_sizes - 1] : 1;
}

static void set_shape(const struct dc_accelerator *a, unsigned units, size_t idx,
                      struct dc_shape *out)
{
    out->units = units;
    if (a->n_slices > 0) {
        out->per_unit = a->slices[idx].chips;
        out->slice = a->slices[idx].name;
    } else {
        out->per_unit = a->n_node_sizes > 0 ? a->node_sizes[idx] : 1;
        out->slice = NULL;
    }
}

bool dc_shape_at_least(const struct dc_accelerator *a, unsigned need, unsigned cap,
                       struct dc_shape *out)
{
    size_t n = a->n_slices > 0 ? a->n_slices : (a->n_node_sizes > 0 ? a->n_node_sizes : 1);
    if (need == 0)
        need = 1;
    for (size_t i = 0; i < n; i++) {
        unsigned chips =
            a->n_slices > 0 ? a->slices[i].chips : (a->n_node_sizes > 0 ? a->node_sizes[i] : 1);
        if (chips >= need) {
            set_shape(a, 1, i, out);
            return chips <= cap;
        }
    }
    unsigned long long unit = unit_chips(a);
    unsigned long long units = (need + unit - 1) / unit;
    if (units * unit > cap)
        return false;
    set_shape(a, (unsigned)units, n - 1, out);
    return true;
}

/* The largest purchasable shape of at most `limit` chips (at least one chip's
 * machine or the smallest slice, even above the limit). */
static void shape_at_most(const struct dc_accelerator *a, unsigned limit, struct dc_shape *out)
{
    size_t n = a->n_slices > 0 ? a->n_slices : (a->n_node_sizes > 0 ? a->n_node_sizes : 1);
    unsigned unit = unit_chips(a);
    if (limit >= 2u * unit) {
        set_shape(a, limit / unit, n - 1, out);
        return;
    }
    set_shape(a, 1, 0, out);
    for (size_t i = 0; i < n; i++) {
        unsigned chips =
            a->n_slices > 0 ? a->slices[i].chips : (a->n_node_sizes > 0 ? a->node_sizes[i] : 1);
        if (chips <= limit)
            set_shape(a, 1, i, out);
    }
}

const char *dc_shape_format(const struct dc_accelerator *a, const struct dc_shape *s, char *buf,
                            size_t len)
{
    const char *name = a->short_name != NULL ? a->short_name : a->id;
    if (s->slice != NULL && s->units == 1)
        snprintf(buf, len, "%s", s->slice);
    else if (s->slice != NULL)
        snprintf(buf, len, "%u x %s", s->units, s->slice);
    else
        snprintf(buf, len, "%u x %u %s", s->units, s->per_unit, name);
    return buf;
}

/* ---- rates ------------------------------------------------------------------------- */

double dc__compute_peak(const dc_ruleset *rs, const struct dc_accelerator *a, enum dc_precision p)
{
    double base = a->peak_tflops[DC_PREC_BF16];
    if (!(base > 0))
        base = a->peak_tflops[DC_PREC_FP16];
    double own = a->peak_tflops[p];
    if (!(base > 0))
        return own > 0 ? own * 1e12 : NAN;
    double rate = base;
    switch (p) {
    case DC_PREC_BF16:
    case DC_PREC_FP16:
        break;
    case DC_PREC_FP32:
        /* fp32 matmuls run as reduced-precision passes by default on TPUs and
         * recent GPUs (F1.10): the TF32 rate where listed, else the bf16 rate. */
        rate = own > 0 ? own : base;
        break;
    case DC_PREC_FP64:
        rate = own > 0 ? own : NAN;
        break;
    case DC_PREC_FP8:
    case DC_PREC_FP4:
    case DC_PREC_INT8:
    case DC_PREC_INT4: {
        double ratio = own > 0 ? own / base : 1.0;
        double gain = rs->sizing.precision_gain[p][a->family];
        rate = base * (ratio < 1.0 ? ratio : fmin(ratio, gain));
        break;
    }
    case DC_PREC_COUNT:
        break;
    }
    return rate * 1e12;
}

double dc__training_mfu(const dc_ruleset *rs, const struct dc_accelerator *a, unsigned chips)
{
    const struct dc_sizing_params *s = &rs->sizing;
    double base = s->mfu_training[a->family];
    unsigned domain = a->domain > 0 ? a->domain : 1;
    if (chips <= domain)
        return base;
    double doublings = log2((double)chips / domain);
    double eff = s->mfu_cross_domain[a->family] * (1.0 - s->mfu_decay[a->family] * doublings);
    return base * clampd(eff, 0.05, 1.0);
}

/* The peak at the workload precision as the catalog lists it (for display):
 * fp16 and bf16 stand in for each other, fp32 falls back to bf16 (F1.10). */
static double listed_peak(const struct dc_accelerator *a, enum dc_precision p)
{
    double v = a->peak_tflops[p];
    if (isfinite(v) && v > 0)
        return v;
    if (p == DC_PREC_FP32 || p == DC_PREC_FP16)
        v = a->peak_tflops[DC_PREC_BF16];
    else if (p == DC_PREC_BF16)
        v = a->peak_tflops[DC_PREC_FP16];
    return isfinite(v) && v > 0 ? v : NAN;
}

/* ---- training --------------------------------------------------------------------- */

/* Memory on each of `chips` chips: the state is sharded across all of them
 * (ZeRO-3/FSDP, F4.6); activations split across the tensor-parallel group,
 * which stays within one fast domain. */
static double training_gb_per_chip(const struct dc__derived *d, const struct dc_accelerator *a,
                                   unsigned chips)
{
    unsigned tp = a->domain > 0 && a->domain < chips ? a->domain : chips;
    return d->state_gb / chips + d->activations_gb / tp;
}

/* The smallest purchasable shape within `cap` whose chips hold the job; false
 * when none does (not even the whole tensor-parallel group holds one
 * micro-batch's activations). */
static bool training_memory_shape(const struct dc__derived *d, const struct dc_accelerator *a,
                                  double usable, unsigned cap, struct dc_shape *out)
{
    unsigned max_tp = a->domain > 0 ? a->domain : 1;
    if (d->activations_gb / max_tp >= usable)
        return false;
    unsigned need = ceil_count(d->state_gb / usable);
    for (;;) {
        if (!dc_shape_at_least(a, need, cap, out))
            return false;
        unsigned chips = dc__shape_chips(out);
        if (training_gb_per_chip(d, a, chips) <= usable)
            return true;
        /* Jump to the count the state needs beside these activations. */
        unsigned tp = chips < max_tp ? chips : max_tp;
        unsigned next = ceil_count(d->state_gb / (usable - d->activations_gb / tp));
        if (chips == UINT_MAX)
            return false;
        need = next > chips ? next : chips + 1;
    }
}

struct train_ctx {
    const dc_ruleset *rs;
    const struct dc_accelerator *a;
    double flops;
    double peak;   /* FLOP/s per chip at the precision, before MFU */
    double factor; /* the architecture's MFU factor times the whole-run goodput */
};

static double train_hours(const struct train_ctx *t, unsigned chips)
{
    double mfu = dc__training_mfu(t->rs, t->a, chips);
    return t->flops / ((double)chips * t->peak * mfu * t->factor) / DC__SECONDS_PER_HOUR;
}

static double arch_mfu_factor(const struct dc_sizing_params *s, const char *arch)
{
    for (size_t i = 0; i < s->n_arch_mfu; i++) {
        if (strcmp(s->arch_mfu[i].architecture, arch) == 0)
            return s->arch_mfu[i].factor.value;
    }
    return 1.0;
}

/* The smallest purchasable shape in [lo, hi] chips that runs in at most
 * `hours`, or the largest when none does. Hours fall as shapes grow (the MFU
 * model loses less than a shape step adds), so the search bisects the count. */
static void shape_for_hours(const struct train_ctx *t, unsigned lo, unsigned hi, double hours,
                            struct dc_shape *out)
{
    shape_at_most(t->a, hi, out);
    if (dc__shape_chips(out) < lo) {
        (void)dc_shape_at_least(t->a, lo, UINT_MAX, out);
        return;
    }
    if (train_hours(t, dc__shape_chips(out)) > hours)
        return;
    unsigned a = lo, b = dc__shape_chips(out); /* the smallest count that will do lies in [a, b] */
    while (a < b) {
        unsigned mid = a + (b - a) / 2;
        struct dc_shape s;
        if (dc_shape_at_least(t->a, mid, UINT_MAX, &s) &&
            train_hours(t, dc__shape_chips(&s)) <= hours)
            b = mid;
        else
            a = mid + 1;
    }
    (void)dc_shape_at_least(t->a, b, UINT_MAX, out);
}

/* The most chips the objective allows: past the efficiency floor, extra chips
 * mostly wait on the network (objective time); a global batch of B sequences
 * keeps at most B data-parallel groups of one fast domain busy. */
static unsigned scaling_limit(const struct dc_sizing_params *s, const struct dc_workload *w,
                              const struct dc_accelerator *a, unsigned cap)
{
    double domain = a->domain > 0 ? a->domain : 1;
    double limit = fmin((double)cap, w->global_batch_size * domain);
    double cross = s->mfu_cross_domain[a->family];
    double decay = s->mfu_decay[a->family];
    double floor = s->efficiency_floor.value;
    double by_efficiency = domain;
    if (cross >= floor)
        by_efficiency = decay > 0 ? domain * exp2((1.0 - floor / cross) / decay) : INFINITY;
    return (unsigned)fmax(1.0, fmin(limit, by_efficiency));
}

static enum dc_chips_basis choose_training_chips(const struct dc_sizing_params *s,
                                                 const struct dc_workload *w,
                                                 const struct train_ctx *t, unsigned lo,
                                                 unsigned cap, struct dc_shape *out)
{
    unsigned limit = scaling_limit(s, w, t->a, cap);
    double target = s->target_hours_training.value;
    enum dc_chips_basis basis = DC_BASIS_TARGET;
    if (isfinite(w->deadline_hours)) {
        /* A deadline is a requirement: scale to the batch bound if need be. */
        double domain = t->a->domain > 0 ? t->a->domain : 1;
        limit = (unsigned)fmax(1.0, fmin((double)cap, w->global_batch_size * domain));
        target = w->deadline_hours;
        basis = DC_BASIS_DEADLINE;
    } else if (w->objective == DC_OBJECTIVE_TIME) {
        /* As fast as efficiency allows, but no run shorter than min_run_hours. */
        target = s->min_run_hours.value;
        basis = DC_BASIS_FASTEST;
    } else if (w->task == DC_TASK_FINE_TUNING) {
        target = s->target_hours_fine_tuning.value;
    }
    shape_for_hours(t, lo, limit > lo ? limit : lo, target, out);
    unsigned chips = dc__shape_chips(out);
    if (chips <= lo)
        return DC_BASIS_MEMORY;
    if (basis != DC_BASIS_FASTEST && train_hours(t, chips) > target * (1 + 1e-9))
        return DC_BASIS_LIMIT;
    return basis;
}

static void size_training(const dc_ruleset *rs, const struct dc_workload *w,
                          const struct dc__derived *d, const struct dc_accelerator *a,
                          unsigned pinned, struct dc_sizing *z)
{
    const struct dc_sizing_params *s = &rs->sizing;
    unsigned cap = dc__chip_cap(w, a);
    double usable = z->memory_per_chip_gb;
    struct dc_shape mem;
    z->memory_need_gb = d->state_gb + d->activations_gb;
    z->fits = training_memory_shape(d, a, usable, cap, &mem);
    if (!z->fits && !training_memory_shape(d, a, usable, UINT_MAX, &mem))
        mem = (struct dc_shape){0, unit_chips(a), NULL}; /* no count holds it */
    z->chips_for_memory = dc__shape_chips(&mem);
    double arch = arch_mfu_factor(s, w->architecture);
    struct train_ctx t = {rs, a, d->training_flops, dc__compute_peak(rs, a, w->precision),
                          arch * a->mfu_factor * s->goodput.value};
    z->shape = mem;
    z->basis = DC_BASIS_MEMORY;
    if (pinned > 0) {
        if (!dc_shape_at_least(a, pinned, pinned, &z->shape))
            z->shape = (struct dc_shape){1, pinned, NULL};
        z->basis = DC_BASIS_PINNED;
    } else if (z->fits && isfinite(t.peak)) {
        z->basis = choose_training_chips(s, w, &t, z->chips_for_memory, cap, &z->shape);
    }
    z->chips = pinned > 0 ? pinned : dc__shape_chips(&z->shape);
    z->chips_per_replica = z->chips;
    if (!isfinite(t.peak))
        return;
    double mfu = dc__training_mfu(rs, a, z->chips);
    z->scale_efficiency = mfu / s->mfu_training[a->family];
    z->hours = train_hours(&t, z->chips);
    /* The steady-state MFU frameworks report: before goodput, at the listed peak. */
    if (isfinite(z->peak_tflops))
        z->mfu = t.peak * mfu * arch * a->mfu_factor / (z->peak_tflops * 1e12);
    if (isfinite(w->deadline_hours))
        z->meets_deadline = z->hours <= w->deadline_hours * (1 + 1e-9);
}

/* ---- inference --------------------------------------------------------------------- */

/* One replica of `chips` chips serving `batch` concurrent requests. */
struct replica {
    unsigned chips;
    unsigned batch;
    double prefill_s;
    double step_s;    /* one decode step, or one batch for non-generative models */
    double request_s; /* what one request waits: prefill + output tokens x step */
    double rps;       /* requests per second the replica completes */
    bool compute_bound;
};

struct serve_ctx {
    const struct dc_sizing_params *s;
    const struct dc_workload *w;
    const struct dc__derived *d;
    const struct dc_accelerator *a;
    double bandwidth; /* bytes/s per chip actually achieved */
    double flops;     /* FLOP/s per chip actually achieved */
};

static void replica_at(const struct serve_ctx *c, unsigned chips, unsigned batch, struct replica *r)
{
    const struct dc_workload *w = c->w;
    const struct dc__derived *d = c->d;
    double bw = chips * c->bandwidth, fl = chips * c->flops;
    /* A decode step reads every weight a token of the batch touches (a mixture
     * of experts reads more experts as the batch grows) and each request's KV
     * cache, which averages the prompt plus half the output (F2.6, F4.5). */
    double weights = fmin(d->weights_gb, d->active_weights_gb * batch) * DC__GB;
    r->chips = chips;
    r->batch = batch;
    if (d->generative) {
        double kv = batch * d->kv_bytes_per_token * (w->input_tokens + w->output_tokens / 2.0);
        double mem_s = (weights + kv) / bw;
        double cmp_s = batch * 2.0 * d->dense_parameters / fl;
        r->step_s = max_known(mem_s, cmp_s);
        r->compute_bound = cmp_s > mem_s;
        r->prefill_s = max_known(d->active_weights_gb * DC__GB / bw, d->flops_per_request / fl);
        r->request_s = r->prefill_s + w->output_tokens * r->step_s;
        /* The replica's time per batch: every request's prompt, then the steps. */
        r->rps = batch / (batch * r->prefill_s + w->output_tokens * r->step_s);
    } else {
        double mem_s = weights / bw;
        double cmp_s = batch * d->flops_per_request / fl;
        r->step_s = max_known(mem_s, cmp_s);
        r->compute_bound = cmp_s > mem_s;
        r->prefill_s = 0;
        r->request_s = r->step_s;
        r->rps = batch / r->step_s;
    }
}

static bool latency_ok(const struct serve_ctx *c, const struct replica *r)
{
    return !isfinite(c->w->latency_ms_p99) || r->step_s * 1000.0 <= c->w->latency_ms_p99;
}

/* The most concurrent requests `chips` chips hold: weights (with runtime
 * overhead) first, then one KV cache per request; 0 when the weights do not fit. */
static unsigned batch_capacity(const struct serve_ctx *c, unsigned chips)
{
    double room = chips * c->a->memory_gb * c->s->memory_usable_fraction.value -
                  c->d->weights_gb * c->s->infer_overhead.value;
    if (room <= 0)
        return 0;
    if (c->d->kv_cache_gb <= 0)
        return (unsigned)c->s->max_batch.value;
    double n = floor(room / c->d->kv_cache_gb);
    return n >= 1 ? (unsigned)fmin(n, c->s->max_batch.value) : 0;
}

/* The replica on `chips` chips: the requested batch, or the largest batch that
 * fits and meets the latency target (steps slow down as the batch grows). */
static bool replica_on(const struct serve_ctx *c, unsigned chips, struct replica *r)
{
    unsigned cap = batch_capacity(c, chips);
    if (isfinite(c->w->batch_size)) {
        if (cap < c->w->batch_size)
            return false;
        replica_at(c, chips, (unsigned)c->w->batch_size, r);
        return true;
    }
    if (cap == 0)
        return false;
    replica_at(c, chips, 1, r);
    if (!latency_ok(c, r))
        return true;
    unsigned lo = 1, hi = cap; /* lo meets the target */
    while (lo < hi) {
        unsigned mid = lo + (hi - lo + 1) / 2;
        struct replica m;
        replica_at(c, chips, mid, &m);
        if (latency_ok(c, &m))
            lo = mid;
        else
            hi = mid - 1;
    }
    replica_at(c, chips, lo, r);
    return true;
}

static unsigned replicas_for(const struct dc_workload *w, const struct replica *r)
{
    unsigned n = ceil_count(w->requests_per_second / r->rps);
    return n > 0 ? n : 1;
}

/* A serving plan: `n` replicas of `r`, bought as `buy`. */
struct plan {
    struct replica r;
    unsigned n;
    struct dc_shape buy;
};

static unsigned plan_chips(const struct plan *p)
{
    return dc__shape_chips(&p->buy);
}

/* Better plan for the workload: meets the latency target, then fewest chips
 * bought for the rate, then the smaller replica. */
static bool better_plan(const struct serve_ctx *c, const struct plan *x, const struct plan *y)
{
    bool lx = latency_ok(c, &x->r), ly = latency_ok(c, &y->r);
    if (lx != ly)
        return lx;
    if (!lx)
        return x->r.step_s < y->r.step_s;
    if (plan_chips(x) != plan_chips(y))
        return plan_chips(x) < plan_chips(y);
    return x->r.chips < y->r.chips;
}

/* Buy `n` replicas of `chips` within `cap` (and exactly `pinned` chips when
 * set). GPUs and CPUs come as whole machines, which the replicas then fill;
 * each TPU replica is its own slice. False when not even one replica fits. */
static bool buy(const struct dc_accelerator *a, unsigned chips, unsigned n, unsigned cap,
                unsigned pinned, struct plan *p)
{
    if (pinned > 0) {
        p->n = pinned / chips;
        p->buy = (struct dc_shape){1, pinned, NULL};
        (void)dc_shape_at_least(a, pinned, pinned, &p->buy);
        return p->n > 0;
    }
    if (a->n_slices > 0) {
        p->n = (unsigned long long)n * chips > cap ? cap / chips : n;
        for (size_t i = 0; i < a->n_slices; i++) {
            if (a->slices[i].chips == chips)
                p->buy = (struct dc_shape){p->n, chips, a->slices[i].name};
        }
        return p->n > 0;
    }
    unsigned long long want = (unsigned long long)n * chips;
    if (want > cap || !dc_shape_at_least(a, (unsigned)want, cap, &p->buy))
        shape_at_most(a, cap, &p->buy);
    p->n = dc__shape_chips(&p->buy) / chips;
    return p->n > 0 && dc__shape_chips(&p->buy) <= cap;
}

/* The next replica size after `prev` chips (0: the first): a tensor-parallel
 * group of 1, 2, 4 ... chips within one machine, then whole machines (pipeline
 * stages across nodes); a TPU replica is one documented slice. 0 when none. */
static unsigned next_replica_size(const struct dc_accelerator *a, unsigned prev)
{
    if (a->n_slices > 0) {
        for (size_t i = 0; i < a->n_slices; i++) {
            if (a->slices[i].chips > prev)
                return a->slices[i].chips;
        }
        return 0;
    }
    unsigned unit = unit_chips(a);
    if (prev == 0)
        return 1;
    if (prev < unit)
        return prev * 2 < unit ? prev * 2 : unit;
    return prev > UINT_MAX - unit ? 0 : prev + unit;
}

/* Replica sizes worth trying past the first that holds the model. */
#define SERVE_MAX_OPTIONS_PAST_FIT 3
/* Replica sizes looked at, at most, in one search (a bound on what one request
 * buys: counting up one machine at a time to the wrap of the count took 7 s):
 * 4,096 machines of 8 GPUs is 32,768 chips, past every cluster in the catalog.
 * A replica past it is reported as none (0 chips), as one past the wrap was. */
#define SERVE_MAX_SIZES_SEARCHED 4096

static bool choose_plan(const struct serve_ctx *c, unsigned cap, unsigned pinned, struct plan *best,
                        unsigned *first_fit)
{
    bool found = false;
    unsigned past_fit = 0;
    unsigned limit = pinned > 0 ? pinned : cap;
    /* No replica smaller than the weights (with runtime overhead) is tried. */
    unsigned least = ceil_count(c->d->weights_gb * c->s->infer_overhead.value /
                                (c->a->memory_gb * c->s->memory_usable_fraction.value));
    *first_fit = 0;
    unsigned searched = 0;
    for (unsigned t = next_replica_size(c->a, 0);
         t != 0 && t <= limit && searched++ < SERVE_MAX_SIZES_SEARCHED;
         t = next_replica_size(c->a, t)) {
        if (t < least)
            continue;
        struct plan p = {0};
        if (!replica_on(c, t, &p.r))
            continue;
        if (*first_fit == 0)
            *first_fit = t;
        if (buy(c->a, t, replicas_for(c->w, &p.r), cap, pinned, &p) &&
            (!found || better_plan(c, &p, best))) {
            *best = p;
            found = true;
        }
        if (++past_fit == SERVE_MAX_OPTIONS_PAST_FIT)
            break;
    }
    return found;
}

static void size_inference(const dc_ruleset *rs, const struct dc_workload *w,
                           const struct dc__derived *d, const struct dc_accelerator *a,
                           unsigned pinned, struct dc_sizing *z)
{
    const struct dc_sizing_params *s = &rs->sizing;
    double batch = isfinite(w->batch_size) ? w->batch_size : 1.0;
    z->memory_need_gb = d->weights_gb * s->infer_overhead.value + d->kv_cache_gb * batch;
    unsigned cap = dc__chip_cap(w, a);
    struct serve_ctx c = {s,
                          w,
                          d,
                          a,
                          a->memory_bandwidth_gbps * 1e9 * s->hbm_efficiency.value,
                          listed_peak(a, w->precision) * 1e12 * s->mfu_inference[a->family] *
                              a->mfu_factor};
    struct plan p = {0};
    unsigned first_fit = 0;
    z->fits = choose_plan(&c, cap, pinned, &p, &first_fit);
    if (!z->fits) {
        /* The smallest replica that would hold one request, for the reason. */
        unsigned t = next_replica_size(a, 0), searched = 0;
        while (t != 0 && batch_capacity(&c, t) == 0)
            t = ++searched < SERVE_MAX_SIZES_SEARCHED ? next_replica_size(a, t) : 0;
        z->chips_for_memory = t;
        z->chips = z->chips_per_replica = t;
        if (t > 0)
            (void)dc_shape_at_least(a, t, UINT_MAX, &z->shape);
        return;
    }
    z->chips_for_memory = first_fit;
    z->chips_per_replica = p.r.chips;
    z->shape = p.buy;
    z->batch_per_replica = p.r.batch;
    z->memory_need_gb = d->weights_gb * s->infer_overhead.value + d->kv_cache_gb * p.r.batch;
    z->replicas = p.n;
    z->chips = plan_chips(&p);
    unsigned wanted = replicas_for(w, &p.r);
    z->basis = pinned > 0     ? DC_BASIS_PINNED
               : p.n < wanted ? DC_BASIS_LIMIT
               : wanted > 1   ? DC_BASIS_RATE
                              : DC_BASIS_MEMORY;
    if (!isfinite(c.bandwidth) || !isfinite(c.flops))
        return;
    z->mfu = s->mfu_inference[a->family] * a->mfu_factor;
    if (!(p.r.rps > 0) || !isfinite(p.r.rps))
        return;
    z->decode_ms = p.r.step_s * 1000.0;
    z->prefill_ms = d->generative ? p.r.prefill_s * 1000.0 : NAN;
    z->request_ms = p.r.request_s * 1000.0;
    z->compute_bound = p.r.compute_bound;
    z->throughput_rps = p.r.rps * p.n;
    z->tokens_per_second = d->generative ? z->throughput_rps * w->output_tokens : NAN;
    z->meets_rate = z->throughput_rps >= w->requests_per_second * (1 - 1e-9);
    z->meets_latency = latency_ok(&c, &p.r);
}

const char *dc_chips_basis_name(enum dc_chips_basis b)
{
    static const char *const names[] = {"memory", "deadline", "target", "fastest",
                                        "rate",   "limit",    "pinned"};
    return b <= DC_BASIS_PINNED ? names[b] : "memory";
}

void dc__size(const dc_ruleset *rs, const struct dc_workload *w, const struct dc__derived *d,
              const struct dc_accelerator *a, unsigned pinned, struct dc__perturb k,
              struct dc_sizing *z)
{
    const struct dc_sizing_params *s = &rs->sizing;
    /* A robustness probe on MFU: every rate below reads the part's measured
     * factor, so a copy carrying the scaled factor stands in for the part. */
    struct dc_accelerator scaled;
    if (k.mfu != 1.0) {
        scaled = *a;
        scaled.mfu_factor *= k.mfu;
        a = &scaled;
    }
    memset(z, 0, sizeof(*z));
    z->memory_per_chip_gb = a->memory_gb * s->memory_usable_fraction.value;
    z->peak_tflops = listed_peak(a, w->precision);
    z->mfu = NAN;
    z->scale_efficiency = 1.0;
    z->hours = NAN;
    z->cost_usd = NAN;
    z->cost_per_hour_usd = NAN;
    z->prefill_ms = NAN;
    z->decode_ms = NAN;
    z->request_ms = NAN;
    z->throughput_rps = NAN;
    z->tokens_per_second = NAN;
    z->meets_deadline = true;
    z->meets_latency = true;
    z->meets_rate = true;
    z->within_budget = true;
    z->replicas = 1;
    if (w->task == DC_TASK_INFERENCE)
        size_inference(rs, w, d, a, pinned, z);
    else
        size_training(rs, w, d, a, pinned, z);
    dc__cost(rs, w, a, k.price, z);
}
