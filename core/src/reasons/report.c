/* core/src/reasons/report.c -- what a result says about itself: the warnings a reader
 * must not miss and the sizing assumptions behind its numbers, each with its
 * source (docs/scoring.md, sections 5 and 8). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "arena.h"
#include "dc/numfmt.h"
#include "reasons.h"
#include "ruleset_internal.h"
#include "sizing.h"
#include "reason_ids.h"
#include "result_build.h"
#include "textf.h"

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

/* sscanf(s, "%4d-%2d-%2d", y, m, d) for a date of the catalog's shape
 * ("2026-08" or "2026-08-15"), read directly: a body's price notes read
 * several, and sscanf was most of their cost. Any other text goes to sscanf
 * itself, so every text is read as before. */
static int scan_date(const char *s, int *y, int *m, int *d)
{
    if (!(digit(s[0]) && digit(s[1]) && digit(s[2]) && digit(s[3]) && s[4] == '-' && digit(s[5]) &&
          digit(s[6])) ||
        (s[7] == '-' && !(digit(s[8]) && digit(s[9]))))
        return sscanf(s, "%4d-%2d-%2d", y, m, d);
    *y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    *m = (s[5] - '0') * 10 + (s[6] - '0');
    if (s[7] != '-')
        return 2; /* "%2d" took two digits; the '-' after them does not match */
    *d = (s[8] - '0') * 10 + (s[9] - '0');
    return 3;
}

/* Age in days of a catalog price dated "YYYY-MM" or "YYYY-MM-DD" (a month-only
 * date counts from the first of that month), at `now`; NAN when unparseable. */
double dc__price_age_days(const char *as_of, time_t now)
{
    int y = 0, m = 0, d = 1;
    if (as_of == NULL || scan_date(as_of, &y, &m, &d) < 2 || m < 1 || m > 12 || d < 1 || d > 31)
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

/* Nothing fits, nothing is within budget, or nothing is left at all. */
static enum dc_status fit_warnings(const dc_ruleset *rs, struct dc_result *res,
                                   const struct dc_candidate *all, size_t n_all)
{
    const struct dc_workload *w = &res->workload;
    struct dc__arena *ar = res->arena_;
    size_t allowed = 0, fit_mem = 0;
    const struct dc_candidate *smallest = NULL, *cheapest = NULL;
    for (size_t i = 0; i < n_all; i++) {
        const struct dc_candidate *c = &all[i];
        const char *by = c->excluded_by != NULL ? c->excluded_by->rule_id : NULL;
        if (by != NULL && strcmp(by, DC__R_MEMORY) != 0 && strcmp(by, DC__R_BUDGET) != 0)
            continue;
        allowed++;
        if (c->sizing.fits) {
            fit_mem++;
            if (isfinite(c->sizing.cost_usd) &&
                (cheapest == NULL || c->sizing.cost_usd < cheapest->sizing.cost_usd))
                cheapest = c;
        } else if (c->sizing.chips_for_memory > 0 &&
                   (smallest == NULL ||
                    c->sizing.chips_for_memory < smallest->sizing.chips_for_memory)) {
            smallest = c;
        }
    }
    enum dc_status rc = DC_OK;
    char n1[48], n2[48], n3[48], m1[48], m2[48];
    enum dc_period per = dc__cost_period(w);
    char options[600];
    if (allowed > 0 && fit_mem == 0 && smallest != NULL) {
        /* What else makes it fit, each change sized again (fit_options.c). */
        const char *more = dc__fit_options(rs, res, smallest, all, n_all, options, sizeof(options));
        rc = dc__add_warning(
            res, "nothing_fits_memory",
            dc__fmt(ar,
                    "No candidate fits %s GB within the accelerator limit; the smallest fit "
                    "is %s x %s (%s GB each): raise constraints.max_accelerators to %s%s%s.",
                    dc_fmt_number(smallest->sizing.memory_need_gb, n1, sizeof(n1)),
                    dc_fmt_count(smallest->sizing.chips_for_memory, n2, sizeof(n2)),
                    smallest->acc->id, dc_fmt_number(smallest->acc->memory_gb, n3, sizeof(n3)), n2,
                    more != NULL ? "; or, each sized again within the limit: " : "",
                    more != NULL ? more : ""));
    } else if (allowed > 0 && fit_mem == 0)
        rc = dc__add_warning(res, "nothing_fits_memory",
                             "No candidate holds the job at any size: one micro-batch's "
                             "activations exceed a chip's memory; shorten the sequence.");
    else if (fit_mem > 0 && res->n_recommendations == 0 && isfinite(w->budget_usd))
        rc = dc__add_warning(
            res, "nothing_within_budget",
            cheapest == NULL
                ? dc__fmt(ar,
                          "No candidate that fits has a public %s price to check the budget of "
                          "%s against.",
                          dc__pricing_words(w->pricing),
                          dc_fmt_money(w->budget_usd, per, m1, sizeof(m1)))
                : dc__fmt(ar,
                          "No candidate fits the budget of %s; the cheapest is %s at an "
                          "estimated %s.",
                          dc_fmt_money(w->budget_usd, per, m1, sizeof(m1)), cheapest->acc->id,
                          dc_fmt_money(cheapest->sizing.cost_usd, per, m2, sizeof(m2))));
    if (rc == DC_OK && res->n_recommendations == 0)
        rc = dc__add_warning(res, "no_candidates",
                             "Every candidate was excluded; see `excluded` for the rule behind "
                             "each.");
    return rc;
}

/* What the top recommendation misses: deadline, latency, rate. */
static enum dc_status target_warnings(const dc_ruleset *rs, struct dc_result *res,
                                      const struct dc_candidate *top)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &top->sizing;
    struct dc__arena *ar = res->arena_;
    enum dc_status rc = DC_OK;
    char n1[48], n2[48], n3[48], n4[48], lim[128];
    /* An offline job's deadline is its own (inference.job). */
    double deadline = w->job_requests > 0 ? w->job_deadline_hours : w->deadline_hours;
    if (!z->meets_deadline)
        rc = dc__add_warning(res, "deadline_not_met",
                             dc__fmt(ar,
                                     "The top recommendation needs an estimated %s on %s "
                                     "chips, over the deadline of %s, even at its largest "
                                     "useful size.",
                                     dc_fmt_hours(z->hours, n1, sizeof(n1)),
                                     dc_fmt_count(z->chips, n2, sizeof(n2)),
                                     dc_fmt_hours(deadline, n3, sizeof(n3))));
    if (rc == DC_OK && !z->meets_latency) {
        char words[200];
        rc = dc__add_warning(res, "latency_not_met",
                             dc__fmt(ar, "%s of the top recommendation takes %s.",
                                     isfinite(z->prefill_ms) ? "Each output token" : "One batch",
                                     dc__latency_missed_words(res, z, true, words, sizeof(words))));
    }
    if (rc == DC_OK && !z->meets_rate)
        rc = dc__add_warning(res, "rate_not_met",
                             dc__fmt(ar,
                                     "The top recommendation serves about %s of the %s "
                                     "requests/s asked: %s replicas of %s chips are all %s "
                                     "allows.",
                                     dc_fmt_number(z->throughput_rps, n1, sizeof(n1)),
                                     dc_fmt_number(w->requests_per_second, n2, sizeof(n2)),
                                     dc_fmt_count(z->replicas, n3, sizeof(n3)),
                                     dc_fmt_count(z->chips_per_replica, n4, sizeof(n4)),
                                     dc__fleet_limit_words(&rs->sizing, w, lim, sizeof(lim))));
    return rc;
}

/* The top pick's machines past what the asked basis sells at once (issue 27
 * item 3, sizing.capacity): the limit with its page, and the basis that
 * sells them: a reservation with its rate and lead time where the offer
 * publishes them, or none at once. The cost stays the asked basis's. */
static enum dc_status capacity_warning(const dc_ruleset *rs, struct dc_result *res,
                                       const struct dc_candidate *top)
{
    const struct dc_sizing *z = &top->sizing;
    const struct dc_capacity_need *c = &z->capacity;
    if (!c->known || !c->binds || z->offer == NULL)
        return DC_OK;
    char n1[48], n2[48], rate[160] = "", lead[64] = "", sells[360];
    const char *asked = dc__pricing_words(res->workload.pricing);
    const struct dc_reservation *rv = &z->offer->reserved;
    if (c->basis == DC_BASIS_RESERVED) {
        if (isfinite(rv->price.usd_per_hour))
            snprintf(rate, sizeof(rate), " at $%.2f an instance-hour (%s)", rv->price.usd_per_hour,
                     z->offer->instance_type);
        else if (isfinite(rv->price.usd_per_chip_hour))
            snprintf(rate, sizeof(rate), " at $%.2f a chip-hour", rv->price.usd_per_chip_hour);
        if (isfinite(c->lead_time_days))
            snprintf(lead, sizeof(lead), ", %s days ahead",
                     dc_fmt_number(c->lead_time_days, n1, sizeof(n1)));
        snprintf(sells, sizeof(sells),
                 "a reservation (capacity blocks or a reserved cluster) sells them%s%s; the "
                 "cost shown is still the %s rate",
                 rate, lead, asked);
    } else {
        const struct dc_capacity *r =
            dc_capacity_limit(rs, c->provider, DC_BASIS_RESERVED, top->acc);
        if (r != NULL)
            snprintf(sells, sizeof(sells),
                     "nor do its reservations, at most %u at once: that many is a capacity "
                     "negotiation, or fewer machines for longer",
                     r->max_instances);
        else
            snprintf(sells, sizeof(sells),
                     "no other basis is stated to sell them: ask the provider, or take fewer "
                     "machines for longer");
    }
    return dc__add_warning(
        res, "capacity_binds",
        dc__fmt(res->arena_,
                "The top recommendation's %s machines are more than the %s that %s sells one buyer "
                "at once on %s (%s); %s.",
                dc_fmt_count(z->machines, n1, sizeof(n1)),
                dc_fmt_count(c->max_instances, n2, sizeof(n2)), asked,
                dc_provider_name(c->provider), c->source != NULL ? c->source : "prices.yaml",
                sells));
}

/* The parts without a known cost that rank after every priced one, under
 * any objective (docs/scoring.md, section 8). */
static enum dc_status unpriced_warning(struct dc_result *res)
{
    const struct dc_workload *w = &res->workload;
    char names[256];
    size_t k = 0, n_priced = 0, n_unpriced = 0;
    names[0] = '\0';
    for (size_t i = 0; i < res->n_recommendations; i++) {
        const struct dc_candidate *c = &res->recommendations[i];
        if (c->selection.priced) {
            n_priced++;
            continue;
        }
        if (k < sizeof(names))
            k += (size_t)dc__textf(names + k, sizeof(names) - k, "%s%s", n_unpriced ? ", " : "",
                                   c->acc->id);
        n_unpriced++;
    }
    if (n_priced == 0 || n_unpriced == 0)
        return DC_OK;
    return dc__add_warning(res, "unpriced_ranked_last",
                           dc__fmt(res->arena_,
                                   "%s %s no public %s price and rank%s after every priced part "
                                   "that fits; each says what price would make it the pick.",
                                   names, n_unpriced == 1 ? "has" : "have",
                                   dc__pricing_words(w->pricing), n_unpriced == 1 ? "s" : ""));
}

/* The team gate rests on a default the workload did not state. */
static enum dc_status assumed_team_warning(struct dc_result *res)
{
    const struct dc_workload *w = &res->workload;
    if (!w->xla_experience_assumed || strcmp(w->xla_experience, "none") != 0)
        return DC_OK;
    for (size_t i = 0; i < res->n_recommendations; i++) {
        const struct dc_candidate *c = &res->recommendations[i];
        if (c->capped_by != NULL && strcmp(c->capped_by->rule_id, "team-fit-first") == 0)
            return dc__add_warning(
                res, "xla_experience_assumed",
                dc__fmt(res->arena_,
                        "team.xla_experience was not given; a %s team is taken to have none "
                        "(the playbook's GPU default), so TPUs rank after GPUs. Set it to "
                        "\"some\" or \"expert\" if the team knows XLA.",
                        w->framework));
    }
    return DC_OK;
}

/* The mirror: the GPU gate of an XLA team rests on a CUDA default it did not
 * state. */
static enum dc_status assumed_cuda_warning(struct dc_result *res)
{
    const struct dc_workload *w = &res->workload;
    if (!w->cuda_experience_assumed || strcmp(w->cuda_experience, "none") != 0)
        return DC_OK;
    for (size_t i = 0; i < res->n_recommendations; i++) {
        const struct dc_candidate *c = &res->recommendations[i];
        if (c->capped_by != NULL && strcmp(c->capped_by->rule_id, "xla-team-fit-first") == 0)
            return dc__add_warning(
                res, "cuda_experience_assumed",
                dc__fmt(res->arena_,
                        "team.cuda_experience was not given; a %s team is taken to have none "
                        "(its stack is XLA), so GPUs rank after TPUs. Set it to \"some\" or "
                        "\"expert\" if the team runs on GPUs too.",
                        w->framework));
    }
    return DC_OK;
}

/* The date of the price behind a candidate's cost, or NULL. */
static const char *price_date(const struct dc_workload *w, const struct dc_candidate *c)
{
    switch (c->sizing.cost_basis) {
    case DC_COST_CLOUD:
        return c->sizing.offer->price[w->pricing].as_of;
    case DC_COST_ON_PREM:
        return c->acc->list_price_as_of;
    case DC_COST_UNKNOWN:
        break;
    }
    return NULL;
}

/* The top recommendation's price: unknown, uncertain or old. Only the chosen
 * part's, once, so that a warning stays worth reading. */
static enum dc_status price_warnings(const dc_ruleset *rs, struct dc_result *res,
                                     const struct dc_candidate *top)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_accelerator *a = top->acc;
    const struct dc_sizing *z = &top->sizing;
    struct dc__arena *ar = res->arena_;
    if (z->cost_basis == DC_COST_UNKNOWN)
        return dc__add_warning(
            res, "price_unknown",
            w->deployment != DC_DEPLOY_CLOUD && a->on_prem
                ? dc__fmt(ar,
                          "No public hardware list price is known for %s, so its cost on "
                          "premises is not estimated; an operator can add one to prices.yaml "
                          "(hardware).",
                          a->id)
                : dc__fmt(ar,
                          "No public %s price is known for %s from the allowed providers, so "
                          "its cost is not estimated.",
                          dc__pricing_words(w->pricing), a->id));
    enum dc_status rc = DC_OK;
    if (z->offer != NULL && z->offer->low_confidence)
        rc = dc__add_warning(res, "price_low_confidence",
                             dc__fmt(ar,
                                     "The %s price of %s (%s %s) comes from a source marked "
                                     "low confidence; check it before relying on the cost.",
                                     dc__pricing_words(w->pricing), a->id,
                                     dc_provider_name(z->offer->provider), z->offer->region));
    const char *as_of = price_date(w, top);
    double age = dc__price_age_days(as_of, time(NULL));
    char limit[48];
    if (rc == DC_OK && isfinite(age) && age > rs->sizing.price_stale_after_days)
        rc = dc__add_warning(res, "price_stale",
                             dc__fmt(ar,
                                     "The price behind the cost of %s dates from %s, over %s "
                                     "ago; it may be out of date.",
                                     a->id, as_of,
                                     dc_fmt_duration(rs->sizing.price_stale_after_days * 86400,
                                                     limit, sizeof(limit))));
    return rc;
}

enum dc_status dc__report_warnings(const dc_ruleset *rs, struct dc_result *res,
                                   const struct dc__derived *d, const struct dc_candidate *all,
                                   size_t n_all)
{
    const struct dc_workload *w = &res->workload;
    struct dc__arena *ar = res->arena_;
    enum dc_status rc = fit_warnings(rs, res, all, n_all);
    if (rc == DC_OK && d->flops_rough)
        rc = dc__add_warning(res, "compute_estimate_rough",
                             dc__fmt(ar,
                                     "The compute of a %s is not 2 x parameters per token; "
                                     "hours and throughput are rough until model."
                                     "flops_per_sample (forward FLOPs of one sample) is given.",
                                     w->architecture));
    if (rc == DC_OK)
        rc = dc__report_defaults(rs, res, d);
    if (rc != DC_OK || res->n_recommendations == 0)
        return rc;
    const struct dc_candidate *top = &res->recommendations[0];
    rc = target_warnings(rs, res, top);
    if (rc == DC_OK)
        rc = price_warnings(rs, res, top);
    if (rc == DC_OK)
        rc = capacity_warning(rs, res, top);
    if (rc == DC_OK)
        rc = unpriced_warning(res);
    if (rc == DC_OK)
        rc = assumed_team_warning(res);
    if (rc == DC_OK)
        rc = assumed_cuda_warning(res);
    char n1[48], n2[48], n3[48];
    if (rc == DC_OK && w->task != DC_TASK_INFERENCE && !isfinite(w->deadline_hours) &&
        !top->selection.meets_targets && isfinite(top->sizing.hours))
        rc =
            dc__add_warning(res, "long_run",
                            dc__fmt(ar,
                                    "No candidate finishes within the default %s: the top "
                                    "recommendation takes %s on %s x %s, the most its "
                                    "limits allow; set training.deadline_hours to size the job "
                                    "for a deadline.",
                                    dc_fmt_hours(w->task == DC_TASK_FINE_TUNING
                                                     ? rs->sizing.target_hours_fine_tuning.value
                                                     : rs->sizing.target_hours_training.value,
                                                 n1, sizeof(n1)),
                                    dc_fmt_hours(top->sizing.hours, n2, sizeof(n2)),
                                    dc_fmt_count(top->sizing.chips, n3, sizeof(n3)), top->acc->id));
    return rc;
}

/* ---- assumptions ------------------------------------------------------------------ */

/* dc__add_assumption (result_build.c), by the short name the lists below read with. */
static void add(struct dc_result *res, const char *name, double value, const char *unit,
                const char *source)
{
    dc__add_assumption(res, name, value, unit, source);
}

static void add_param(struct dc_result *res, const char *name, const struct dc_param *p,
                      const char *unit)
{
    add(res, name, p->value, unit, p->source);
}

/* An optional parameter (NAN when the rule set gives none), when it applies. */
static void add_optional(struct dc_result *res, bool applies, const char *name,
                         const struct dc_param *p, const char *unit)
{
    if (applies && isfinite(p->value))
        add_param(res, name, p, unit);
}

static void training_assumptions(const struct dc_sizing_params *s, struct dc_result *res,
                                 const struct dc__derived *d)
{
    const struct dc_workload *w = &res->workload;
    switch (w->method) {
    case DC_METHOD_FULL:
    case DC_METHOD_DPO:
    case DC_METHOD_RL:
        add_param(res, "state_bytes_per_parameter", &s->state_bytes_per_parameter, "bytes");
        break;
    case DC_METHOD_QLORA:
    case DC_METHOD_LORA:
        /* QLoRA trains LoRA adapters on a 4-bit base. */
        if (w->method == DC_METHOD_QLORA)
            add_param(res, "qlora_bytes_per_parameter", &s->qlora_bytes_per_parameter, "bytes");
        add_param(res, "lora_adapter_fraction", &s->lora_adapter_fraction, "ratio");
        add_param(res, "lora_flops_factor", &s->lora_flops_factor, "flop/parameter/token");
        break;
    }
    add_param(res, "checkpoint_bytes", &s->checkpoint_bytes, "bytes/token/hidden/layer");
    add_param(res, "layer_bytes", &s->layer_bytes, "bytes/token/hidden");
    add_param(res, "micro_batch", &s->micro_batch, "sequences");
    add(res, "training_tokens", w->tokens, "tokens", s->tokens_per_parameter.source);
    add(res, "training_flops", d->training_flops, "flop", "https://arxiv.org/abs/2001.08361");
    add(res, "training_state_gb", d->state_gb, "GB", s->state_bytes_per_parameter.source);
    add(res, "activations_gb", d->activations_gb, "GB", s->layer_bytes.source);
    add_optional(res, d->kind == DC__KIND_DECODER, "matmul_width", &s->matmul_width, "elements");
    add_optional(res, isfinite(d->expert_width), "moe_expert_width", &s->moe_expert_width,
                 "elements");
    add_optional(res, !w->global_batch_defaulted, "sequence_split", &s->sequence_split, "ratio");
    /* The data-parallel all-reduce (core/src/sizing/sync.c): its three numbers. */
    add_optional(res, isfinite(s->sync_overlap.value), "gradient_bytes", &s->gradient_bytes,
                 "bytes");
    add_optional(res, isfinite(s->gradient_bytes.value), "sync_overlap", &s->sync_overlap, "ratio");
    add_optional(res, isfinite(s->gradient_bytes.value), "network_gbit_per_chip",
                 &s->network_gbit_per_chip, "Gbit/s");
    /* A recommender's tables (core/src/sizing/embed.c): rows gathered and exchanged. */
    add_optional(res, d->pooled_values > 0, "gather_efficiency", &s->gather_efficiency, "ratio");
    add_optional(res, d->pooled_values > 0, "alltoall_peer_us", &s->alltoall_peer_us, "us");
    if (!isfinite(w->deadline_hours))
        add_param(res,
                  w->task == DC_TASK_FINE_TUNING ? "target_hours_fine_tuning"
                                                 : "target_hours_training",
                  w->task == DC_TASK_FINE_TUNING ? &s->target_hours_fine_tuning
                                                 : &s->target_hours_training,
                  "hours");
    if (w->objective == DC_OBJECTIVE_TIME) {
        add_param(res, "efficiency_floor", &s->efficiency_floor, "ratio");
        add_param(res, "min_run_hours", &s->min_run_hours, "hours");
    }
    static const char *const names[DC_FAMILY_COUNT][3] = {
        {"mfu_training_gpu", "mfu_cross_domain_gpu", "mfu_decay_per_doubling_gpu"},
        {"mfu_training_tpu", "mfu_cross_domain_tpu", "mfu_decay_per_doubling_tpu"},
        {"mfu_training_cpu", "mfu_cross_domain_cpu", "mfu_decay_per_doubling_cpu"},
        {"mfu_training_asic", "mfu_cross_domain_asic", "mfu_decay_per_doubling_asic"}};
    for (size_t f = 0; f < DC_FAMILY_COUNT; f++) {
        add(res, names[f][0], s->mfu_training[f], "ratio", s->mfu_source[f]);
        add(res, names[f][1], s->mfu_cross_domain[f], "ratio", s->mfu_source[f]);
        add(res, names[f][2], s->mfu_decay[f], "ratio", s->mfu_source[f]);
    }
}

static void inference_assumptions(const struct dc_sizing_params *s, struct dc_result *res,
                                  const struct dc__derived *d)
{
    const struct dc_workload *w = &res->workload;
    add(res, "inference_bytes_per_parameter", dc__served_weight_bytes(s, w), "bytes",
        s->infer_bytes_source);
    add_param(res, "inference_overhead_factor", &s->infer_overhead, "ratio");
    add(res, "weights_gb", d->weights_gb, "GB", s->infer_bytes_source);
    add(res, "kv_cache_bytes_per_token", d->kv_bytes_per_token, "bytes", s->kv_source);
    add(res, "kv_cache_gb_per_request", d->kv_cache_gb, "GB", s->kv_source);
    add(res, "flops_per_request", d->flops_per_request, "flop", "https://arxiv.org/abs/2001.08361");
    add_param(res, "max_batch", &s->max_batch, "requests");
    add_optional(res, isfinite(d->expert_share), "attention_dp_batch", &s->attention_dp_batch,
                 "requests");
    add_param(res, "hbm_efficiency", &s->hbm_efficiency, "ratio");
    add_optional(res, d->generative, "hbm_efficiency_batch1", &s->hbm_efficiency_batch1, "ratio");
    add_optional(res, d->pooled_values > 0, "gather_efficiency", &s->gather_efficiency, "ratio");
    add_optional(res, d->pooled_values > 0, "alltoall_peer_us", &s->alltoall_peer_us, "us");
    if (d->generative) {
        static const char *const names[DC_FAMILY_COUNT] = {
            "tp_allreduce_us_gpu", "tp_allreduce_us_tpu", "tp_allreduce_us_cpu",
            "tp_allreduce_us_asic"};
        for (size_t f = 0; f < DC_FAMILY_COUNT; f++)
            add(res, names[f], s->tp_allreduce_us[f], "us", s->tp_allreduce_source);
        add_optional(res, true, "tp_activation_bytes", &s->tp_activation_bytes, "bytes");
        add_optional(res, true, "network_hop_us", &s->network_hop_us, "us");
        add_optional(res, true, "network_gbps", &s->network_gbps, "GB/s");
    }
    if (isfinite(s->serve_moe_expert_width.value))
        add_optional(res, isfinite(d->expert_width), "moe_expert_width_serving",
                     &s->serve_moe_expert_width, "elements");
    else
        add_optional(res, isfinite(d->expert_width), "moe_expert_width", &s->moe_expert_width,
                     "elements");
    /* A speech model's encoder runs at its width's share of the serving MFU. */
    add_optional(res, d->kind == DC__KIND_ENCODER_DECODER, "matmul_width", &s->matmul_width,
                 "elements");
    add_optional(res, d->audio_seconds > 0 && !w->audio_decoded, "audio_decode_s_per_vcpu",
                 &s->audio_decode_s_per_vcpu, "s/s");
    if (!isfinite(w->max_accelerators))
        add_param(res, "serving_max_chips", &s->serving_max_chips, "chips");
    /* What a near miss of a latency target is, should nothing meet it. */
    add_optional(res, isfinite(w->latency_ms_p99), "near_miss_tolerance", &s->near_miss_tolerance,
                 "ratio");
    static const char *const names[DC_FAMILY_COUNT] = {"mfu_inference_gpu", "mfu_inference_tpu",
                                                       "mfu_inference_cpu", "mfu_inference_asic"};
    for (size_t f = 0; f < DC_FAMILY_COUNT; f++)
        add(res, names[f], s->mfu_inference[f], "ratio", s->mfu_source[f]);
    add(res, "hours_per_month", s->hours_per_month, "hours", "convention");
}

void dc__report_assumptions(const dc_ruleset *rs, struct dc_result *res,
                            const struct dc__derived *d)
{
    const struct dc_sizing_params *s = &rs->sizing;
    const struct dc_workload *w = &res->workload;
    add_param(res, "memory_usable_fraction", &s->memory_usable_fraction, "ratio");
    if (w->task == DC_TASK_INFERENCE)
        inference_assumptions(s, res, d);
    else
        training_assumptions(s, res, d);
    /* A policy of the rule set's sizing.yaml, which the reasons quote. */
    if (w->objective == DC_OBJECTIVE_BALANCED)
        add(res, "balanced_premium", s->balanced_premium, "ratio", "convention");
    if (w->deployment != DC_DEPLOY_CLOUD) {
        add_param(res, "usd_per_kwh", &s->usd_per_kwh, "usd/kWh");
        add_param(res, "pue", &s->pue, "ratio");
        add_param(res, "amortization_years", &s->amortization_years, "years");
    }
    enum dc_precision p = w->precision;
    if (s->precision_gain_source[p] != NULL)
        for (size_t f = 0; f < DC_FAMILY_COUNT; f++) {
            static const char *const names[DC_FAMILY_COUNT] = {
                "precision_gain_gpu", "precision_gain_tpu", "precision_gain_cpu",
                "precision_gain_asic"};
            add(res, names[f], s->precision_gain[p][f], "ratio", s->precision_gain_source[p]);
        }
}
