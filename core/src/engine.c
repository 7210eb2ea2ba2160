/* core/src/engine.c -- sizing, rule evaluation, scoring and explanation.
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
#include <time.h>

#include "arena.h"
#include "dc/engine.h"
#include "ruleset_internal.h"
#include "workload_internal.h"

/* Pseudo-rule ids for reasons that come from the catalog and sizing rather than
 * from a rule file. Their messages are rendered on demand (dc_reason_text). */
#define R_PROVIDERS "catalog.providers"
#define R_ON_PREM "catalog.on-prem"
#define R_PRECISION "catalog.precision"
#define R_MEMORY "sizing.memory"
#define R_BUDGET "sizing.budget"
#define R_TIME "sizing.time"
#define R_SERVING "sizing.serving"
#define R_COST "sizing.cost"
#define R_DEADLINE "sizing.deadline"
#define R_LATENCY "sizing.latency"
#define R_AVAILABLE "probe.available"

/* Each doubling of cost (or time) relative to the best candidate costs this many
 * objective points: 2x -> 75, 4x -> 50, 16x -> 0 (docs/scoring.md). */
#define OBJECTIVE_POINTS_PER_DOUBLING 25.0
/* Objective multiplier for a candidate that misses the deadline or latency target. */
#define MISSED_TARGET_FACTOR 0.5
/* Share of its lead over an unknown price that a low-confidence price keeps. */
#define LOW_CONFIDENCE_SHARE 0.5
#define SECONDS_PER_HOUR 3600.0
#define GB 1e9

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static int iround(double v)
{
    return (int)lround(v);
}

/* Peak dense TFLOPS for `p`. fp32 matmuls run as reduced-precision passes by
 * default on TPUs and recent GPUs (F1.10), so fp32 falls back to the bf16 rate
 * when no fp32 tensor rate is listed; fp16 and bf16 stand in for each other. */
static double peak_for(const struct dc_accelerator *a, enum dc_precision p)
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

static double precision_bits(enum dc_precision p)
{
    static const double bits[DC_PREC_COUNT] = {64, 32, 16, 16, 8, 4, 8, 4};
    return bits[p];
}

/* ---- workload-level sizing ------------------------------------------------------ */

static void derive(const dc_ruleset *rs, const struct dc_workload *w, struct dc__derived *d)
{
    const struct dc_sizing_params *s = &rs->sizing;
    memset(d, 0, sizeof(*d));
    d->precision_bits = precision_bits(w->precision);
    double n = w->parameters;
    if (w->task == DC_TASK_INFERENCE) {
        double bpp = s->infer_bytes_per_param[w->precision];
        d->weights_gb = n * bpp / GB;
        /* KV cache (F4.5): 2 x layers x hidden x bytes per token. Without the
         * architecture, assume the usual depth/width ratio of dense transformers
         * (hidden ~ 128 x layers, N ~ 12 x layers x hidden^2), which gives
         * OPT-13B's 800 KB per token within 5%. */
        double layers = w->layers;
        double hidden = w->hidden_size;
        d->kv_estimated = !(isfinite(layers) && isfinite(hidden));
        if (d->kv_estimated) {
            hidden = cbrt(n * 128.0 / 12.0);
            layers = hidden / 128.0;
        }
        d->kv_bytes_per_token = 2.0 * layers * hidden * bpp;
        d->kv_cache_gb = d->kv_bytes_per_token * w->context_tokens * w->batch_size / GB;
        d->memory_gb = d->weights_gb * s->infer_overhead + d->kv_cache_gb;
    } else {
        d->weights_gb = n * s->infer_bytes_per_param[w->precision] / GB;
        d->training_flops = 6.0 * n * w->tokens;
        d->memory_gb = n * s->train_bytes_per_param * (1.0 + s->activation_overhead) / GB;
    }
    d->h100_days = NAN;
    const struct dc_accelerator *h100 = dc_ruleset_find_accelerator(rs, "h100");
    if (h100 != NULL && w->task != DC_TASK_INFERENCE) {
        double peak = peak_for(h100, DC_PREC_BF16);
        double mfu = s->mfu_training[DC_FAMILY_GPU];
        if (isfinite(peak))
            d->h100_days = d->training_flops / (peak * 1e12 * mfu) / 86400.0;
    } else if (w->task == DC_TASK_INFERENCE) {
        d->h100_days = 0;
    }
}

static unsigned ceil_u(double v)
{
    if (!(v > 0))
        return 0;
    if (v >= 4e9)
        return 4000000000u;
    return (unsigned)ceil(v - 1e-9);
}

/* Size one candidate: chips for memory, then for the deadline or the request
 * rate, within max_accelerators and the largest slice. */
static void size_candidate(const dc_ruleset *rs, const struct dc_workload *w,
                           const struct dc__derived *d, const struct dc_accelerator *a,
                           struct dc_sizing *z)
{
    const struct dc_sizing_params *s = &rs->sizing;
    memset(z, 0, sizeof(*z));
    z->memory_need_gb = d->memory_gb;
    z->memory_per_chip_gb = a->memory_gb * s->memory_usable_fraction;
    z->chips_for_memory = ceil_u(d->memory_gb / z->memory_per_chip_gb);
    if (z->chips_for_memory == 0)
        z->chips_for_memory = 1;
    unsigned cap = a->max_chips;
    if (isfinite(w->max_accelerators) && w->max_accelerators < cap)
        cap = (unsigned)w->max_accelerators;
    z->fits = z->chips_for_memory <= cap;
    z->peak_tflops = peak_for(a, w->precision);
    z->hours = NAN;
    z->cost_usd = NAN;
    z->cost_per_hour_usd = NAN;
    z->decode_ms = NAN;
    z->throughput_rps = NAN;
    z->meets_deadline = true;
    z->meets_latency = true;
    z->within_budget = true;
    z->replicas = 1;
    z->chips = z->chips_for_memory;
    double price = a->has_price ? a->price_usd_per_chip_hour : NAN;

    if (w->task == DC_TASK_INFERENCE) {
        z->mfu = s->mfu_inference[a->family];
        double flops_per_request = 2.0 * w->parameters * w->context_tokens; /* F4.7 forward */
        double replica_rps = NAN;
        if (isfinite(z->peak_tflops))
            replica_rps = z->chips_for_memory * z->peak_tflops * 1e12 * z->mfu / flops_per_request *
                          w->batch_size;
        if (isfinite(replica_rps) && replica_rps > 0) {
            unsigned replicas = ceil_u(w->requests_per_second / replica_rps);
            z->replicas = replicas > 0 ? replicas : 1;
        }
        if (z->fits && (double)z->replicas * z->chips_for_memory > cap) {
            z->replicas = cap / z->chips_for_memory;
            if (z->replicas == 0)
                z->replicas = 1;
        }
        z->chips = z->replicas * z->chips_for_memory;
        if (isfinite(replica_rps))
            z->throughput_rps = replica_rps * z->replicas;
        /* One decode step streams the weights and the KV cache once (LLM decode
         * is bandwidth bound, F2.6). */
        if (isfinite(a->memory_bandwidth_gbps))
            z->decode_ms = (d->weights_gb + d->kv_cache_gb) /
                           (z->chips_for_memory * a->memory_bandwidth_gbps) * 1000.0;
        if (isfinite(w->latency_ms_p99) && isfinite(z->decode_ms))
            z->meets_latency = z->decode_ms <= w->latency_ms_p99;
        z->cost_per_hour_usd = z->chips * price;
        z->cost_usd = z->cost_per_hour_usd * s->hours_per_month;
    } else {
        z->mfu = s->mfu_training[a->family];
        double rate = z->peak_tflops * 1e12 * z->mfu; /* useful FLOP/s per chip */
        if (isfinite(rate) && rate > 0) {
            unsigned chips = z->chips_for_memory;
            if (isfinite(w->deadline_hours)) {
                unsigned need = ceil_u(d->training_flops / (w->deadline_hours * SECONDS_PER_HOUR *
                                                            rate));
                if (need > chips)
                    chips = need;
            } else if (w->objective == DC_OBJECTIVE_TIME && a->domain > chips) {
                /* No deadline but time matters: fill one fast domain (an HGX
                 * board, a TPU host) rather than the memory minimum. */
                chips = a->domain;
            }
            if (chips > cap)
                chips = cap;
            if (chips < z->chips_for_memory)
                chips = z->chips_for_memory;
            z->chips = chips;
            z->hours = d->training_flops / (chips * rate) / SECONDS_PER_HOUR;
            if (isfinite(w->deadline_hours))
                z->meets_deadline = z->hours <= w->deadline_hours * (1 + 1e-9);
        }
        z->cost_per_hour_usd = z->chips * price;
        z->cost_usd = z->hours * z->cost_per_hour_usd;
    }
    if (isfinite(w->budget_usd) && isfinite(z->cost_usd))
        z->within_budget = z->cost_usd <= w->budget_usd;
}

/* Age in days of a catalog price dated "YYYY-MM" or "YYYY-MM-DD" (a month-only
 * date counts from the first of that month), at `now`; NAN when unparseable. */
static double price_age_days(const char *as_of, time_t now)
{
    int y = 0, m = 0, d = 1;
    if (as_of == NULL || sscanf(as_of, "%4d-%2d-%2d", &y, &m, &d) < 2 || m < 1 || m > 12 ||
        d < 1 || d > 31)
        return NAN;
    /* Days from civil date (Howard Hinnant's algorithm), to avoid timegm(). */
    int yy = y - (m <= 2);
    int era = (yy >= 0 ? yy : yy - 399) / 400;
    int yoe = yy - era * 400;
    int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    double days = (double)era * 146097.0 + doe - 719468.0;
    return (double)now / 86400.0 - days;
}

/* ---- result building -------------------------------------------------------------- */

struct matched {
    const struct dc__rule *rule;
};

static bool deployment_ok(const struct dc_workload *w, const struct dc_accelerator *a,
                          const char **why)
{
    bool cloud = a->providers != 0 && (w->providers == 0 || (a->providers & w->providers) != 0);
    switch (w->deployment) {
    case DC_DEPLOY_ON_PREM:
        *why = R_ON_PREM;
        return a->on_prem;
    case DC_DEPLOY_HYBRID:
        *why = R_PROVIDERS;
        return a->on_prem || cloud;
    case DC_DEPLOY_CLOUD:
        break;
    }
    *why = R_PROVIDERS;
    return cloud;
}

static struct dc_reason *new_reason(struct dc__arena *ar, const char *id, int impact,
                                    const char *msg, const char *source)
{
    struct dc_reason *r = dc__arena_alloc(ar, sizeof(*r));
    if (r != NULL) {
        r->rule_id = id;
        r->impact = impact;
        r->message = msg;
        r->source = source;
    }
    return r;
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

static int cand_cmp(const void *a, const void *b)
{
    const struct dc_candidate *x = a;
    const struct dc_candidate *y = b;
    if (x->score != y->score)
        return y->score - x->score;
    if (x->rule_score != y->rule_score)
        return y->rule_score - x->rule_score;
    if (x->objective_score != y->objective_score)
        return y->objective_score - x->objective_score;
    return strcmp(x->acc->id, y->acc->id);
}

/* Objective points for `v` against the best value `best` (lower is better). */
static double relative_points(double v, double best)
{
    if (!isfinite(v) || !isfinite(best) || best <= 0 || v <= 0)
        return NAN;
    return clamp(100.0 - OBJECTIVE_POINTS_PER_DOUBLING * log2(v / best), 0, 100);
}

static double time_metric(const struct dc_workload *w, const struct dc_sizing *z)
{
    return w->task == DC_TASK_INFERENCE ? z->decode_ms : z->hours;
}

static enum dc_status add_warning(struct dc_result *res, size_t cap, const char *code,
                                  const char *msg)
{
    if (res->n_warnings == cap)
        return DC_OK;
    if (msg == NULL)
        return DC_ENOMEM;
    res->warnings[res->n_warnings].code = code;
    res->warnings[res->n_warnings].message = msg;
    res->n_warnings++;
    return DC_OK;
}

static char *fmt(struct dc__arena *ar, const char *f, ...) DC_PRINTF(2, 3);

static char *fmt(struct dc__arena *ar, const char *f, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof(buf), f, ap);
    va_end(ap);
    return dc__arena_strdup(ar, buf);
}

static void add_assumption(struct dc_result *res, size_t cap, const char *name, double value,
                           const char *unit, const char *source)
{
    if (res->n_assumptions == cap || !isfinite(value))
        return;
    struct dc_assumption *a = &res->assumptions[res->n_assumptions++];
    a->name = name;
    a->value = value;
    a->unit = unit;
    a->source = source;
}

#define MAX_WARNINGS 16
#define MAX_ASSUMPTIONS 16

static enum dc_status build_warnings(const dc_ruleset *rs, struct dc_result *res,
                                     const struct dc_candidate *all, size_t n_all)
{
    const struct dc_workload *w = &res->workload;
    struct dc__arena *ar = res->arena_;
    enum dc_status rc = DC_OK;
    /* Candidates the rules and the catalog let through, before sizing. */
    size_t allowed = 0, fit_mem = 0;
    const struct dc_candidate *smallest = NULL, *cheapest = NULL;
    for (size_t i = 0; i < n_all; i++) {
        const struct dc_candidate *c = &all[i];
        const char *by = c->excluded_by != NULL ? c->excluded_by->rule_id : NULL;
        if (by != NULL && strcmp(by, R_MEMORY) != 0 && strcmp(by, R_BUDGET) != 0)
            continue;
        allowed++;
        if (c->sizing.fits) {
            fit_mem++;
            if (isfinite(c->sizing.cost_usd) &&
                (cheapest == NULL || c->sizing.cost_usd < cheapest->sizing.cost_usd))
                cheapest = c;
        } else if (smallest == NULL ||
                   c->sizing.chips_for_memory < smallest->sizing.chips_for_memory) {
            smallest = c;
        }
    }
    if (allowed > 0 && fit_mem == 0 && smallest != NULL) {
        rc = add_warning(res, MAX_WARNINGS, "nothing_fits_memory",
                         fmt(ar,
                             "No candidate fits %.1f GB within the accelerator limit; the "
                             "smallest fit is %u x %s (%.0f GB each): raise "
                             "constraints.max_accelerators to %u or use a lower precision.",
                             smallest->sizing.memory_need_gb, smallest->sizing.chips_for_memory,
                             smallest->acc->id, smallest->acc->memory_gb,
                             smallest->sizing.chips_for_memory));
    } else if (fit_mem > 0 && res->n_recommendations == 0 && cheapest != NULL &&
               isfinite(w->budget_usd)) {
        rc = add_warning(res, MAX_WARNINGS, "nothing_within_budget",
                         fmt(ar,
                             "No candidate fits the budget of $%.2f; the cheapest is %s at an "
                             "estimated $%.2f.",
                             w->budget_usd, cheapest->acc->id, cheapest->sizing.cost_usd));
    }
    if (rc == DC_OK && res->n_recommendations == 0)
        rc = add_warning(res, MAX_WARNINGS, "no_candidates",
                         "Every candidate was excluded; see `excluded` for the rule behind "
                         "each.");
    if (rc != DC_OK || res->n_recommendations == 0)
        return rc;
    const struct dc_candidate *top = &res->recommendations[0];
    if (!top->sizing.meets_deadline)
        rc = add_warning(res, MAX_WARNINGS, "deadline_not_met",
                         fmt(ar,
                             "The top recommendation needs an estimated %.1f h on %u chips, "
                             "over the %.1f h deadline, even at its largest allowed size.",
                             top->sizing.hours, top->sizing.chips, w->deadline_hours));
    if (rc == DC_OK && !top->sizing.meets_latency)
        rc = add_warning(res, MAX_WARNINGS, "latency_not_met",
                         fmt(ar,
                             "One decode step of the top recommendation takes about %.2f ms, "
                             "over the %.2f ms p99 target.",
                             top->sizing.decode_ms, w->latency_ms_p99));
    if (rc == DC_OK && !top->acc->has_price)
        rc = add_warning(res, MAX_WARNINGS, "price_unknown",
                         fmt(ar,
                             "No public list price is known for %s, so its cost is not "
                             "estimated.",
                             top->acc->id));
    if (rc == DC_OK && top->acc->has_price && top->acc->price_low_confidence)
        rc = add_warning(res, MAX_WARNINGS, "price_low_confidence",
                         fmt(ar,
                             "The list price of %s is marked low-confidence by the catalog "
                             "(%s); check it before relying on the cost estimate.",
                             top->acc->id, top->acc->price_basis));
    if (rc == DC_OK && top->acc->has_price) {
        double age = price_age_days(top->acc->price_as_of, time(NULL));
        if (isfinite(age) && age > rs->sizing.price_stale_after_days)
            rc = add_warning(res, MAX_WARNINGS, "price_stale",
                             fmt(ar,
                                 "The list price of %s dates from %s, over %.0f days ago; "
                                 "its cost estimate may be out of date.",
                                 top->acc->id, top->acc->price_as_of,
                                 rs->sizing.price_stale_after_days));
    }
    if (rc == DC_OK && w->task != DC_TASK_INFERENCE && !isfinite(w->deadline_hours) &&
        isfinite(top->sizing.hours) && top->sizing.hours > 24.0 * 30)
        rc = add_warning(res, MAX_WARNINGS, "long_run",
                         fmt(ar,
                             "The estimated run takes %.0f days on %u x %s; set "
                             "training.deadline_hours to size the job for a deadline.",
                             top->sizing.hours / 24.0, top->sizing.chips, top->acc->id));
    return rc;
}

static void build_assumptions(const dc_ruleset *rs, struct dc_result *res,
                              const struct dc__derived *d)
{
    const struct dc_sizing_params *s = &rs->sizing;
    const struct dc_workload *w = &res->workload;
    size_t cap = MAX_ASSUMPTIONS;
    add_assumption(res, cap, "memory_usable_fraction", s->memory_usable_fraction, "ratio",
                   s->train_bytes_source);
    if (w->task == DC_TASK_INFERENCE) {
        add_assumption(res, cap, "inference_bytes_per_parameter",
                       s->infer_bytes_per_param[w->precision], "bytes", s->infer_overhead_source);
        add_assumption(res, cap, "inference_overhead_factor", s->infer_overhead, "ratio",
                       s->infer_overhead_source);
        add_assumption(res, cap, "kv_cache_bytes_per_token", d->kv_bytes_per_token, "bytes",
                       s->kv_source);
        add_assumption(res, cap, "inference_flops_per_request",
                       2.0 * w->parameters * w->context_tokens, "flop", s->mfu_source);
        for (size_t f = 0; f < DC_FAMILY_COUNT; f++)
            add_assumption(res, cap,
                           f == DC_FAMILY_GPU   ? "mfu_inference_gpu"
                           : f == DC_FAMILY_TPU ? "mfu_inference_tpu"
                                                : "mfu_inference_cpu",
                           s->mfu_inference[f], "ratio", s->mfu_source);
        add_assumption(res, cap, "hours_per_month", s->hours_per_month, "hours",
                       s->infer_overhead_source);
    } else {
        add_assumption(res, cap, "training_bytes_per_parameter", s->train_bytes_per_param,
                       "bytes", s->train_bytes_source);
        add_assumption(res, cap, "activation_overhead", s->activation_overhead, "ratio",
                       s->train_bytes_source);
        add_assumption(res, cap, "training_tokens", w->tokens, "tokens", s->tokens_source);
        add_assumption(res, cap, "training_flops", d->training_flops, "flop", s->tokens_source);
        for (size_t f = 0; f < DC_FAMILY_COUNT; f++)
            add_assumption(res, cap,
                           f == DC_FAMILY_GPU   ? "mfu_training_gpu"
                           : f == DC_FAMILY_TPU ? "mfu_training_tpu"
                                                : "mfu_training_cpu",
                           s->mfu_training[f], "ratio", s->mfu_source);
    }
}

static void rank_families(struct dc_result *res, const int *fam_score, unsigned fam_excl)
{
    for (size_t f = 0; f < DC_FAMILY_COUNT; f++) {
        struct dc_family_rank *r = &res->families[f];
        r->family = (enum dc_family)f;
        r->score = fam_score[f];
        r->best = NULL;
        for (size_t i = 0; i < res->n_recommendations && r->best == NULL; i++) {
            if (res->recommendations[i].acc->family == (enum dc_family)f)
                r->best = res->recommendations[i].acc->id;
        }
        r->excluded = r->best == NULL || (fam_excl & (1u << f)) != 0;
    }
    /* Insertion sort of three: available families first, then by score, then
     * by the family whose best candidate ranks higher, then by enum order. */
    for (size_t i = 1; i < DC_FAMILY_COUNT; i++) {
        struct dc_family_rank key = res->families[i];
        size_t j = i;
        while (j > 0) {
            const struct dc_family_rank *p = &res->families[j - 1];
            bool before = false;
            if (key.excluded != p->excluded)
                before = !key.excluded;
            else if (key.score != p->score)
                before = key.score > p->score;
            if (!before)
                break;
            res->families[j] = res->families[j - 1];
            j--;
        }
        res->families[j] = key;
    }
}

enum dc_status dc_recommend(const dc_ruleset *rs, const cJSON *workload,
                            const struct dc_recommend_opts *opts, struct dc_result **out,
                            struct dc_error *err)
{
    static const struct dc_recommend_opts no_opts = {0};
    enum dc_status rc = DC_OK;
    struct dc__arena *ar = NULL;
    struct dc_result *res = NULL;
    cJSON *facts = NULL;
    struct dc_candidate *all = NULL;
    const struct dc__rule **hits = NULL;

    if (out == NULL || rs == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_recommend: NULL argument");
    *out = NULL;
    if (opts == NULL)
        opts = &no_opts;
    const struct dc_sizing_params *s = &rs->sizing;

    ar = dc__arena_new(16384);
    if (ar == NULL)
        goto oom;
    res = dc__arena_alloc(ar, sizeof(*res));
    if (res == NULL)
        goto oom;
    res->arena_ = ar;
    rc = dc_workload_parse(rs, workload, &res->workload, err);
    if (rc != DC_OK)
        goto out;
    struct dc_workload *w = &res->workload;
    if (opts->prefer_available)
        w->prefer_available = true;
    snprintf(res->rules_version, sizeof(res->rules_version), "%s", rs->version);
    if (opts->request_id != NULL)
        snprintf(res->request_id, sizeof(res->request_id), "%s", opts->request_id);

    struct dc__derived d;
    derive(rs, w, &d);
    rc = dc__facts_build(w, &d, &facts);
    if (rc != DC_OK)
        goto oom;

    res->warnings = dc__arena_alloc(ar, MAX_WARNINGS * sizeof(*res->warnings));
    res->assumptions = dc__arena_alloc(ar, MAX_ASSUMPTIONS * sizeof(*res->assumptions));
    hits = calloc(rs->n_rules + 1, sizeof(*hits));
    if (res->warnings == NULL || res->assumptions == NULL || hits == NULL)
        goto oom;

    /* 1. Rules: which conditions hold for this workload. */
    size_t n_hits = 0;
    int fam_score[DC_FAMILY_COUNT];
    unsigned fam_excl = 0;
    const struct dc__rule *fam_excl_by[DC_FAMILY_COUNT] = {NULL};
    for (size_t f = 0; f < DC_FAMILY_COUNT; f++)
        fam_score[f] = 0;
    for (size_t i = 0; i < rs->n_rules; i++) {
        const struct dc__rule *r = &rs->rules[i];
        bool hit = false;
        struct dc_error cerr;
        enum dc_status crc = dc_logic_eval_truthy(r->cond, facts, &hit, &cerr);
        if (crc == DC_ENOMEM)
            goto oom;
        if (crc != DC_OK) {
            /* A condition that cannot be evaluated counts as false: one broken
             * rule must not take the whole service down. */
            rc = add_warning(res, MAX_WARNINGS, "condition_error",
                             fmt(ar, "Rule %s could not be evaluated (%s) and was skipped.",
                                 r->info.id, cerr.msg));
            if (rc != DC_OK)
                goto oom;
            continue;
        }
        if (!hit)
            continue;
        hits[n_hits++] = r;
        for (size_t f = 0; f < DC_FAMILY_COUNT; f++) {
            fam_score[f] += r->family_impact[f];
            if ((r->exclude_families & (1u << f)) && fam_excl_by[f] == NULL) {
                fam_excl |= 1u << f;
                fam_excl_by[f] = r;
            }
        }
    }
    for (size_t f = 0; f < DC_FAMILY_COUNT; f++)
        fam_score[f] = iround(clamp(s->score_base + fam_score[f], 0, 100));

    /* 2. Candidates: exclusion, sizing, rule score, reasons. */
    size_t n = rs->n_accs;
    all = calloc(n + 1, sizeof(*all));
    if (all == NULL)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        const struct dc_accelerator *a = &rs->accs[i];
        struct dc_candidate *c = &all[i];
        c->acc = a;
        size_candidate(rs, w, &d, a, &c->sizing);
        /* Reasons: every hit rule that touches this family or model, plus
         * up to six from sizing, cost and availability. */
        c->reasons = dc__arena_alloc(ar, (n_hits + 6) * sizeof(*c->reasons));
        if (c->reasons == NULL)
            goto oom;
        double score = s->score_base;
        const struct dc__rule *excl_rule = fam_excl_by[a->family];
        for (size_t h = 0; h < n_hits; h++) {
            const struct dc__rule *r = hits[h];
            int impact = 0;
            bool touches = (r->family_mask & (1u << a->family)) != 0;
            if (touches)
                impact += r->family_impact[a->family];
            for (size_t k = 0; k < r->n_acc_impacts; k++) {
                if (r->acc_impacts[k].acc == i) {
                    impact += r->acc_impacts[k].impact;
                    touches = true;
                }
            }
            for (size_t k = 0; excl_rule == NULL && k < r->n_exclude_accs; k++) {
                if (r->exclude_accs[k] == i)
                    excl_rule = r;
            }
            if (!touches)
                continue;
            score += impact;
            struct dc_reason *rr = &c->reasons[c->n_reasons++];
            rr->rule_id = r->info.id;
            rr->impact = impact;
            rr->message = r->info.message;
            rr->source = r->info.source;
        }
        c->rule_score = iround(clamp(score, 0, 100));
        const char *why = NULL;
        bool excluded = true;
        if (excl_rule != NULL) {
            c->excluded_by = new_reason(ar, excl_rule->info.id, 0, excl_rule->info.message,
                                        excl_rule->info.source);
        } else if (!deployment_ok(w, a, &why)) {
            c->excluded_by = new_reason(ar, why, 0, NULL, a->source);
        } else if ((a->precisions & (1u << w->precision)) == 0) {
            c->excluded_by = new_reason(ar, R_PRECISION, 0, NULL, a->source);
        } else if (!c->sizing.fits) {
            c->excluded_by = new_reason(ar, R_MEMORY, 0, NULL,
                                        w->task == DC_TASK_INFERENCE ? s->infer_overhead_source
                                                                     : s->train_bytes_source);
        } else if (!c->sizing.within_budget) {
            c->excluded_by = new_reason(ar, R_BUDGET, 0, NULL,
                                        a->price_source != NULL ? a->price_source : a->source);
        } else {
            excluded = false;
        }
        if (excluded && c->excluded_by == NULL)
            goto oom;
        if (!excluded) {
            /* Informational reasons: how it was sized and what it costs. */
            c->reasons[c->n_reasons++] =
                (struct dc_reason){R_MEMORY, 0, NULL,
                                   w->task == DC_TASK_INFERENCE ? s->kv_source
                                                                : s->train_bytes_source};
            if (w->task == DC_TASK_INFERENCE)
                c->reasons[c->n_reasons++] = (struct dc_reason){R_SERVING, 0, NULL, s->mfu_source};
            else if (isfinite(c->sizing.hours))
                c->reasons[c->n_reasons++] = (struct dc_reason){R_TIME, 0, NULL, s->mfu_source};
            if (a->has_price)
                c->reasons[c->n_reasons++] =
                    (struct dc_reason){R_COST, 0, NULL, a->price_source};
        }
    }

    /* 3. Objective among the survivors: cost, time or both, relative to the best. */
    double best_cost = INFINITY, best_time = INFINITY;
    for (size_t i = 0; i < n; i++) {
        const struct dc_candidate *c = &all[i];
        if (c->excluded_by != NULL)
            continue;
        if (isfinite(c->sizing.cost_usd) && c->sizing.cost_usd > 0 &&
            c->sizing.cost_usd < best_cost)
            best_cost = c->sizing.cost_usd;
        double t = time_metric(w, &c->sizing);
        if (isfinite(t) && t > 0 && t < best_time)
            best_time = t;
    }
    size_t n_rec = 0, n_exc = 0;
    for (size_t i = 0; i < n; i++) {
        if (all[i].excluded_by != NULL)
            n_exc++;
        else
            n_rec++;
    }
    res->recommendations = dc__arena_alloc(ar, (n_rec + 1) * sizeof(*res->recommendations));
    res->excluded = dc__arena_alloc(ar, (n_exc + 1) * sizeof(*res->excluded));
    if (res->recommendations == NULL || res->excluded == NULL)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        struct dc_candidate *c = &all[i];
        const struct dc_accelerator *a = c->acc;
        if (opts->probe_enabled) {
            c->availability.known = true;
            c->availability.memory_free_gb = 0; /* nothing attached: none free */
            for (size_t k = 0; k < opts->n_availability; k++) {
                const struct dc_availability *av = &opts->availability[k];
                if (av->accelerator_id != NULL && strcmp(av->accelerator_id, a->id) == 0) {
                    c->availability.attached = av->attached;
                    c->availability.free = av->free;
                    c->availability.memory_free_gb = av->memory_free_gb;
                }
            }
        }
        if (c->excluded_by != NULL) {
            res->excluded[res->n_excluded++] = *c;
            continue;
        }
        double cost_pts = relative_points(c->sizing.cost_usd, best_cost);
        /* A price its own source marks as uncertain earns only half of its lead
         * over an unknown price (docs/scoring.md, section 6). */
        if (isfinite(cost_pts) && c->acc->price_low_confidence)
            cost_pts = s->unknown_objective + (cost_pts - s->unknown_objective) * LOW_CONFIDENCE_SHARE;
        double time_pts = relative_points(time_metric(w, &c->sizing), best_time);
        double obj = NAN;
        switch (w->objective) {
        case DC_OBJECTIVE_COST:
            obj = cost_pts;
            break;
        case DC_OBJECTIVE_TIME:
            obj = time_pts;
            break;
        case DC_OBJECTIVE_BALANCED:
            obj = (isfinite(cost_pts) ? cost_pts : s->unknown_objective) * 0.5 +
                  (isfinite(time_pts) ? time_pts : s->unknown_objective) * 0.5;
            break;
        }
        if (!isfinite(obj))
            obj = s->unknown_objective;
        if (!c->sizing.meets_deadline || !c->sizing.meets_latency) {
            int before = iround(obj);
            obj *= MISSED_TARGET_FACTOR;
            c->reasons[c->n_reasons++] =
                (struct dc_reason){c->sizing.meets_deadline ? R_LATENCY : R_DEADLINE,
                                   iround(obj) - before, NULL, s->mfu_source};
        }
        c->objective_score = iround(clamp(obj, 0, 100));
        double total = s->rule_weight * c->rule_score + s->objective_weight * c->objective_score;
        if (w->prefer_available && c->availability.known && c->availability.free > 0) {
            total += s->availability_bonus;
            c->reasons[c->n_reasons++] =
                (struct dc_reason){R_AVAILABLE, iround(s->availability_bonus), NULL,
                                   opts->probe_source != NULL ? opts->probe_source : "probe"};
        }
        c->score = iround(clamp(total, 0, 100));
        qsort(c->reasons, c->n_reasons, sizeof(*c->reasons), reason_cmp);
        res->recommendations[res->n_recommendations++] = *c;
    }
    for (size_t i = 0; i < res->n_excluded; i++)
        qsort(res->excluded[i].reasons, res->excluded[i].n_reasons,
              sizeof(*res->excluded[i].reasons), reason_cmp);
    qsort(res->recommendations, res->n_recommendations, sizeof(*res->recommendations), cand_cmp);
    rank_families(res, fam_score, fam_excl);
    build_assumptions(rs, res, &d);
    rc = build_warnings(rs, res, all, n);
    if (rc != DC_OK)
        goto oom;
    res->ruleset = dc_ruleset_retain((dc_ruleset *)(uintptr_t)rs);
    *out = res;
    res = NULL;
    ar = NULL;
    rc = DC_OK;
    goto out;
oom:
    rc = dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
out:
    free(hits);
    free(all);
    cJSON_Delete(facts);
    dc__arena_free(ar);
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

/* ---- explanation text ------------------------------------------------------------ */

static const char *money(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, "unknown");
    else if (v >= 100)
        snprintf(buf, len, "$%.0f", v);
    else
        snprintf(buf, len, "$%.2f", v);
    return buf;
}

const char *dc_reason_text(const struct dc_result *res, const struct dc_candidate *c,
                           const struct dc_reason *r, char *buf, size_t len)
{
    if (r->message != NULL)
        return r->message;
    const struct dc_accelerator *a = c->acc;
    const struct dc_sizing *z = &c->sizing;
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing_params *s = dc_ruleset_sizing(res->ruleset);
    char m1[32], m2[32];
    const char *id = r->rule_id;
    if (strcmp(id, R_PROVIDERS) == 0) {
        snprintf(buf, len, "%s is not offered by the requested providers or deployment.",
                 a->name);
    } else if (strcmp(id, R_ON_PREM) == 0) {
        snprintf(buf, len, "%s cannot be bought and run on premises.", a->name);
    } else if (strcmp(id, R_PRECISION) == 0) {
        snprintf(buf, len, "%s does not support %s in hardware.", a->name,
                 dc_precision_name(w->precision));
    } else if (strcmp(id, R_MEMORY) == 0 && !z->fits) {
        snprintf(buf, len,
                 "Needs %.1f GB: %u chips of %.0f GB usable each, over the limit of %u%s.",
                 z->memory_need_gb, z->chips_for_memory, z->memory_per_chip_gb,
                 isfinite(w->max_accelerators) && w->max_accelerators < a->max_chips
                     ? (unsigned)w->max_accelerators
                     : a->max_chips,
                 isfinite(w->max_accelerators) && w->max_accelerators < a->max_chips
                     ? " (constraints.max_accelerators)"
                     : " (largest slice)");
    } else if (strcmp(id, R_MEMORY) == 0) {
        if (w->task == DC_TASK_INFERENCE)
            snprintf(buf, len,
                     "Needs %.1f GB (weights x %.1f plus %.1f GB KV cache%s): %u chip%s of "
                     "%.0f GB usable per replica.",
                     z->memory_need_gb, s->infer_overhead,
                     z->memory_need_gb - (w->parameters * s->infer_bytes_per_param[w->precision] /
                                          GB * s->infer_overhead),
                     isfinite(w->layers) && isfinite(w->hidden_size) ? ""
                                                                     : ", shape estimated",
                     z->chips_for_memory, z->chips_for_memory == 1 ? "" : "s",
                     z->memory_per_chip_gb);
        else
            snprintf(buf, len,
                     "Needs %.1f GB for mixed-precision training (%.0f B/parameter + %.0f%% "
                     "activations): %u chip%s of %.0f GB usable, state sharded across them.",
                     z->memory_need_gb, s->train_bytes_per_param, s->activation_overhead * 100,
                     z->chips_for_memory, z->chips_for_memory == 1 ? "" : "s",
                     z->memory_per_chip_gb);
    } else if (strcmp(id, R_TIME) == 0) {
        snprintf(buf, len,
                 "About %.1f hours on %u chips (6ND = %.2e FLOP at %.0f TFLOPS peak, %.0f%% "
                 "MFU).",
                 z->hours, z->chips, 6.0 * w->parameters * w->tokens, z->peak_tflops,
                 z->mfu * 100);
    } else if (strcmp(id, R_SERVING) == 0) {
        if (isfinite(z->throughput_rps))
            snprintf(buf, len,
                     "%u replica%s of %u chip%s serve about %.1f requests/s; one decode step "
                     "takes about %.2f ms.",
                     z->replicas, z->replicas == 1 ? "" : "s", z->chips_for_memory,
                     z->chips_for_memory == 1 ? "" : "s", z->throughput_rps, z->decode_ms);
        else
            snprintf(buf, len, "Throughput cannot be estimated: no peak rate is listed for %s.",
                     dc_precision_name(w->precision));
    } else if (strcmp(id, R_COST) == 0) {
        if (w->task == DC_TASK_INFERENCE)
            snprintf(buf, len,
                     "About %s per month (%s/hour for %u chip%s) at $%.3f/chip-hour (%s, %s)%s.",
                     money(z->cost_usd, m1, sizeof(m1)), money(z->cost_per_hour_usd, m2, sizeof(m2)),
                     z->chips, z->chips == 1 ? "" : "s", a->price_usd_per_chip_hour,
                     a->price_basis, a->price_as_of,
                     a->price_low_confidence ? "; low-confidence price" : "");
        else
            snprintf(buf, len, "About %s in total at $%.3f/chip-hour (%s, %s)%s.",
                     money(z->cost_usd, m1, sizeof(m1)), a->price_usd_per_chip_hour,
                     a->price_basis, a->price_as_of,
                     a->price_low_confidence ? "; low-confidence price" : "");
    } else if (strcmp(id, R_BUDGET) == 0) {
        snprintf(buf, len, "Estimated %s is over the budget of %s.",
                 money(z->cost_usd, m1, sizeof(m1)), money(w->budget_usd, m2, sizeof(m2)));
    } else if (strcmp(id, R_DEADLINE) == 0) {
        snprintf(buf, len, "Misses the %.1f h deadline even at %u chips (about %.1f h).",
                 w->deadline_hours, z->chips, z->hours);
    } else if (strcmp(id, R_LATENCY) == 0) {
        snprintf(buf, len, "One decode step takes about %.2f ms, over the %.2f ms p99 target.",
                 z->decode_ms, w->latency_ms_p99);
    } else if (strcmp(id, R_AVAILABLE) == 0) {
        snprintf(buf, len, "%u of %u attached %s are free on this host now.",
                 c->availability.free, c->availability.attached, a->id);
    } else {
        snprintf(buf, len, "%s", id);
    }
    return buf;
}
