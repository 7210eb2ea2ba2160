/* core/src/reasons/reasons.c -- the text of reasons that carry numbers (sizing, cost,
 * time, exclusions by constraint). They are rendered on demand, so building a
 * result never pays for formatting it. Every number is the result's own (a
 * sizing or price field, the workload, an assumption, the catalog) written
 * with the one formatter (dc/numfmt.h), so the text reads exactly what the
 * JSON beside it carries (tests/unit/api/test_reason_numbers.c holds that). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dc/numfmt.h"
#include "reasons.h"
#include "names.h"
#include "sizing.h"
#include "textf.h"
#include "reason_ids.h"

/* Room for one formatted number. */
#define NUM 48

/* The value of assumption `name` in the result (the JSON's `assumptions`),
 * NAN when it is not listed. */
static double assumed(const struct dc_result *res, const char *name)
{
    for (size_t i = 0; i < res->n_assumptions; i++) {
        if (strcmp(res->assumptions[i].name, name) == 0)
            return res->assumptions[i].value;
    }
    return NAN;
}

enum dc_period dc__cost_period(const struct dc_workload *w)
{
    if (w->task != DC_TASK_INFERENCE)
        return DC_PER_RUN;
    return w->job_requests > 0 ? DC_PER_JOB : DC_PER_MONTH;
}

static const char *plural(unsigned n)
{
    return n == 1 ? "" : "s";
}

void dc__target_words(const struct dc_result *res, char *buf, size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing_params *s = dc_ruleset_sizing(res->ruleset);
    char h[NUM];
    if (w->task == DC_TASK_INFERENCE)
        dc__textf(buf, len, "the job's deadline of %s",
                  dc_fmt_hours(w->job_deadline_hours, h, sizeof(h)));
    else if (isfinite(w->deadline_hours))
        dc__textf(buf, len, "the deadline of %s", dc_fmt_hours(w->deadline_hours, h, sizeof(h)));
    else
        dc__textf(buf, len, "the default %s (no deadline given)",
                  dc_fmt_hours(w->task == DC_TASK_FINE_TUNING ? s->target_hours_fine_tuning.value
                                                              : s->target_hours_training.value,
                               h, sizeof(h)));
}

/* reasons.h: how a serving step misses the latency target. */
const char *dc__latency_missed_words(const struct dc_result *res, const struct dc_sizing *z,
                                     bool fastest, char *buf, size_t len)
{
    const struct dc_workload *w = &res->workload;
    char n1[NUM], n2[NUM], n3[NUM], n4[NUM];
    dc_fmt_ms(z->decode_ms, n1, sizeof(n1));
    dc_fmt_ms(w->latency_ms_p99, n2, sizeof(n2));
    dc_fmt_count(z->batch_per_replica, n3, sizeof(n3));
    if (z->batch_per_replica <= 1)
        dc__textf(buf, len, "about %s even at batch 1, over the %s p99 target", n1, n2);
    else if (isfinite(w->batch_size))
        dc__textf(buf, len, "about %s at the batch of %s asked, over the %s p99 target", n1, n3,
                  n2);
    else if (fastest && z->fastest_decode_ms < z->decode_ms)
        dc__textf(buf, len,
                  "about %s at batch %s, over the %s p99 target, which no size meets even at "
                  "batch 1 (the fastest step reached is about %s)",
                  n1, n3, n2, dc_fmt_ms(z->fastest_decode_ms, n4, sizeof(n4)));
    else
        dc__textf(buf, len,
                  "about %s at batch %s, over the %s p99 target, which no size meets even at "
                  "batch 1",
                  n1, n3, n2);
    return buf;
}

/* reasons.h: what caps a serving fleet, naming where it is set. */
const char *dc__fleet_limit_words(const struct dc_sizing_params *s, const struct dc_workload *w,
                                  char *buf, size_t len)
{
    char n[NUM];
    if (isfinite(w->max_accelerators))
        dc__textf(buf, len, "max_accelerators (%s chips)",
                  dc_fmt_count(w->max_accelerators, n, sizeof(n)));
    else
        dc__textf(buf, len,
                  "the serving fleet limit of %s chips (serving_max_chips in rules/sizing.yaml)",
                  dc_fmt_count(s->serving_max_chips.value, n, sizeof(n)));
    return buf;
}

/* Why this many chips, in words (enum dc_chips_basis). */
static const char *basis_text(const struct dc_result *res, const struct dc_sizing *z, char *buf,
                              size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing_params *s = dc_ruleset_sizing(res->ruleset);
    char target[128], n1[NUM], n2[NUM];
    /* The target's words only where a sentence says them (most bases do not). */
    bool says_target = z->basis == DC_BASIS_DEADLINE || z->basis == DC_BASIS_TARGET ||
                       (z->basis == DC_BASIS_CHEAPEST && w->task != DC_TASK_INFERENCE);
    if (says_target)
        dc__target_words(res, target, sizeof(target));
    switch (z->basis) {
    case DC_BASIS_MEMORY:
        dc__textf(buf, len, "the fewest that hold it; no other count does better on the objective");
        break;
    case DC_BASIS_DEADLINE:
    case DC_BASIS_TARGET:
        dc__textf(buf, len, "the fewest that finish within %s, and the cheapest that do", target);
        break;
    case DC_BASIS_CHEAPEST:
        if (w->task != DC_TASK_INFERENCE)
            dc__textf(buf, len,
                      "the cheapest count that finishes within %s, the fastest of those that "
                      "cost the same; more chips cost more per run once the job leaves one fast "
                      "domain",
                      target);
        else if (z->meets_latency)
            dc__textf(buf, len,
                      "the cheapest layout that serves the rate and meets the latency target");
        else if (dc__near_miss_slack(s) > 0)
            dc__textf(buf, len,
                      "the cheapest layout that serves the rate with a step within %s of the "
                      "target of the fastest reached, as none meets the latency target",
                      dc_fmt_percent(dc__near_miss_slack(s), n1, sizeof(n1)));
        else
            dc__textf(buf, len,
                      "the cheapest layout that serves the rate with the fastest step reached, "
                      "as none meets the latency target");
        break;
    case DC_BASIS_FASTEST:
        if (w->task == DC_TASK_INFERENCE) {
            dc__textf(buf, len, "objective time: the layout with the shortest requests");
            break;
        }
        dc__textf(buf, len,
                  "objective time: the fastest count, down to %s scaling efficiency; a run "
                  "under %s counts as that long, so no more chips than that",
                  dc_fmt_percent(s->efficiency_floor.value, n1, sizeof(n1)),
                  dc_fmt_hours(s->min_run_hours.value, n2, sizeof(n2)));
        break;
    case DC_BASIS_BALANCED:
        dc__textf(buf, len,
                  "objective balanced: faster than the cheapest option meeting every "
                  "target only while the time saved is worth its cost (halving the time "
                  "worth %s more), and at most %s more",
                  dc_fmt_percent(s->balanced_premium, n1, sizeof(n1)),
                  dc_fmt_percent(s->balanced_premium, n2, sizeof(n2)));
        break;
    case DC_BASIS_RATE:
        dc__textf(buf, len, "replicas for %s requests/s",
                  dc_fmt_number(w->requests_per_second, n1, sizeof(n1)));
        break;
    case DC_BASIS_LIMIT:
        if (w->task == DC_TASK_INFERENCE && !(w->job_requests > 0)) {
            dc__textf(buf, len, "the most replicas %s allows, short of the rate",
                      dc__fleet_limit_words(dc_ruleset_sizing(res->ruleset), &res->workload, target,
                                            sizeof(target)));
            break;
        }
        dc__textf(buf, len,
                  "the most the accelerator limit, the cluster, the global batch of %s or the "
                  "efficiency floor allow",
                  dc_fmt_count(w->global_batch_size, n1, sizeof(n1)));
        break;
    case DC_BASIS_PINNED:
        dc__textf(buf, len, "as given");
        break;
    }
    return buf;
}

static void memory_excluded_text(const struct dc_result *res, const struct dc_candidate *c,
                                 char *buf, size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &c->sizing;
    const struct dc_accelerator *a = c->acc;
    unsigned cap = dc__chip_cap(w, a);
    bool by_user = isfinite(w->max_accelerators) && w->max_accelerators < a->max_chips;
    char need[NUM], per[NUM], chips[NUM], lim[NUM];
    dc_fmt_number(z->memory_per_chip_gb, per, sizeof(per));
    if (z->chips_for_memory == 0) {
        dc__textf(buf, len,
                  "One micro-batch's activations do not fit even when split across a "
                  "%s-chip fast domain of %s GB usable each.",
                  dc_fmt_count(a->domain > 0 ? a->domain : 1, chips, sizeof(chips)), per);
        return;
    }
    dc__textf(buf, len, "Needs %s GB%s: at least %s chips of %s GB usable, over the limit of %s%s.",
              dc_fmt_number(z->memory_need_gb, need, sizeof(need)),
              w->task == DC_TASK_INFERENCE ? " per replica" : "",
              dc_fmt_count(z->chips_for_memory, chips, sizeof(chips)), per,
              dc_fmt_count(cap, lim, sizeof(lim)),
              by_user ? " (constraints.max_accelerators)" : " (the largest job on this cluster)");
}

static void memory_training_text(const struct dc_result *res, const struct dc_candidate *c,
                                 char *buf, size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing_params *s = dc_ruleset_sizing(res->ruleset);
    const struct dc_sizing *z = &c->sizing;
    char what[160], n1[NUM];
    switch (w->method) {
    case DC_METHOD_LORA:
        dc__textf(what, sizeof(what), "frozen %s weights plus LoRA adapters with their Adam state",
                  dc_precision_name(w->precision));
        break;
    case DC_METHOD_QLORA:
        dc__textf(what, sizeof(what), "a 4-bit NF4 base (%s B/parameter) plus LoRA adapters",
                  dc_fmt_number(s->qlora_bytes_per_parameter.value, n1, sizeof(n1)));
        break;
    case DC_METHOD_FULL:
        dc__textf(what, sizeof(what), "weights, gradients and Adam state (%s B/parameter)",
                  dc_fmt_number(s->state_bytes_per_parameter.value, n1, sizeof(n1)));
        break;
    case DC_METHOD_DPO:
        dc__textf(what, sizeof(what),
                  "weights, gradients and Adam state (%s B/parameter) plus a frozen reference",
                  dc_fmt_number(s->state_bytes_per_parameter.value, n1, sizeof(n1)));
        break;
    case DC_METHOD_RL:
        dc__textf(what, sizeof(what),
                  "the policy's weights, gradients and Adam state plus its reference, reward%s "
                  "models",
                  w->rl_algorithm == DC_RL_PPO ? " and critic" : "");
        break;
    }
    char shape[64], need[NUM], mb[NUM], seq[NUM], per[NUM];
    struct dc_shape least;
    if (!dc_shape_at_least(c->acc, z->chips_for_memory, UINT_MAX, &least))
        least = z->shape;
    dc__textf(buf, len,
              "Needs %s GB: %s, sharded across the chips, and the activations of %s sequence%s "
              "of %s tokens per chip with full recomputation; the smallest shape that holds it "
              "is %s (%s GB usable a chip).",
              dc_fmt_number(z->memory_need_gb, need, sizeof(need)), what,
              dc_fmt_count(s->micro_batch.value, mb, sizeof(mb)),
              s->micro_batch.value == 1 ? "" : "s",
              dc_fmt_count(w->sequence_length, seq, sizeof(seq)),
              dc_shape_format(c->acc, &least, shape, sizeof(shape)),
              dc_fmt_number(z->memory_per_chip_gb, per, sizeof(per)));
}

static void memory_inference_text(const struct dc_result *res, const struct dc_candidate *c,
                                  char *buf, size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing_params *s = dc_ruleset_sizing(res->ruleset);
    const struct dc_sizing *z = &c->sizing;
    double kv = assumed(res, "kv_cache_gb_per_request");
    char kvtext[200] = "", n1[NUM], n2[NUM], n3[NUM], n4[NUM], n5[NUM], n6[NUM];
    bool mla = strcmp(w->attention, "mla") == 0;
    if (kv > 0 && z->batch_per_replica > 0)
        dc__textf(kvtext, sizeof(kvtext),
                  " plus a %s GB %s KV cache for each of %s requests (%s tokens, %s)",
                  dc_fmt_number(kv, n1, sizeof(n1)), dc_precision_name(w->kv_precision),
                  dc_fmt_count(z->batch_per_replica, n2, sizeof(n2)),
                  dc_fmt_count(w->context_tokens, n3, sizeof(n3)),
                  mla                     ? "MLA's latent vector"
                  : isfinite(w->kv_heads) ? "KV heads as given"
                                          : "every attention head a KV head: set model.kv_heads");
    /* An overhead of 1 (the shipped set's) is no factor worth a word. */
    char overhead[NUM + 32] = "";
    if (s->infer_overhead.value != 1.0)
        dc__textf(overhead, sizeof(overhead), " x %s runtime overhead",
                  dc_fmt_number(s->infer_overhead.value, n6, sizeof(n6)));
    dc__textf(buf, len,
              "Needs %s GB per replica: %s GB of %s weights%s%s; %s chip%s of %s GB usable.",
              dc_fmt_number(z->memory_need_gb, n4, sizeof(n4)),
              dc_fmt_number(assumed(res, "weights_gb"), n5, sizeof(n5)),
              w->quantization != DC_QUANT_NONE ? dc__quantization_name(w->quantization)
                                               : dc_precision_name(w->precision),
              overhead, kvtext, dc_fmt_count(z->chips_per_replica, n2, sizeof(n2)),
              plural(z->chips_per_replica), dc_fmt_number(z->memory_per_chip_gb, n1, sizeof(n1)));
}

static void time_text(const struct dc_result *res, const struct dc_candidate *c, char *buf,
                      size_t len)
{
    const struct dc_sizing *z = &c->sizing;
    char shape[64], why[320], h[NUM], flop[NUM], peak[NUM], mfu[NUM], eff[NUM];
    dc__textf(buf, len,
              "About %s on %s, %s: %s at %s TFLOPS peak and %s MFU (%s of the single-domain "
              "rate).",
              dc_fmt_hours(z->hours, h, sizeof(h)),
              dc_shape_format(c->acc, &z->shape, shape, sizeof(shape)),
              basis_text(res, z, why, sizeof(why)),
              dc_fmt_flop(assumed(res, "training_flops"), flop, sizeof(flop)),
              dc_fmt_number(z->peak_tflops, peak, sizeof(peak)),
              dc_fmt_percent(z->mfu, mfu, sizeof(mfu)),
              dc_fmt_percent(z->scale_efficiency, eff, sizeof(eff)));
}

static void serving_text(const struct dc_result *res, const struct dc_candidate *c, char *buf,
                         size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &c->sizing;
    char shape[64], why[320], rep[NUM], per[NUM], batch[NUM], rps[NUM], tps[NUM], req[NUM],
        pre[NUM], out[NUM], step[NUM];
    dc_shape_format(c->acc, &z->shape, shape, sizeof(shape));
    basis_text(res, z, why, sizeof(why));
    dc_fmt_count(z->replicas, rep, sizeof(rep));
    dc_fmt_count(z->chips_per_replica, per, sizeof(per));
    dc_fmt_count(z->batch_per_replica, batch, sizeof(batch));
    dc_fmt_number(z->throughput_rps, rps, sizeof(rps));
    dc_fmt_ms(z->decode_ms, step, sizeof(step));
    if (z->estimate_withheld != NULL)
        dc__textf(buf, len,
                  "%s replica%s of %s chip%s on %s hold the model; its speed is not estimated "
                  "without %s.",
                  rep, plural(z->replicas), per, plural(z->chips_per_replica), shape,
                  z->estimate_withheld);
    else if (!isfinite(z->throughput_rps))
        dc__textf(
            buf, len,
            "Throughput cannot be estimated: no %s rate or memory bandwidth is listed for %s.",
            dc_precision_name(w->precision), c->acc->id);
    else if (isfinite(z->prefill_ms))
        dc__textf(buf, len,
                  "%s replica%s of %s chip%s on %s (%s), %s concurrent requests each: about "
                  "%s requests/s and %s output tokens/s. A request takes about %s (prefill %s + "
                  "%s tokens x %s a token, each step bound by %s).",
                  rep, plural(z->replicas), per, plural(z->chips_per_replica), shape, why, batch,
                  rps, dc_fmt_quantity(z->tokens_per_second, tps, sizeof(tps)),
                  dc_fmt_ms(z->request_ms, req, sizeof(req)),
                  dc_fmt_ms(z->prefill_ms, pre, sizeof(pre)),
                  dc_fmt_count(w->output_tokens, out, sizeof(out)), step,
                  z->compute_bound ? "compute" : "memory bandwidth");
    else
        dc__textf(buf, len,
                  "%s replica%s of %s chip%s on %s (%s), batches of %s: about %s requests/s; "
                  "one batch takes about %s, bound by %s.",
                  rep, plural(z->replicas), per, plural(z->chips_per_replica), shape, why, batch,
                  rps, step, z->compute_bound ? "compute" : "memory bandwidth");
}

/* "from aws or gcp", or "from any provider" when the workload names none. */
static const char *providers_text(const struct dc_workload *w, char *buf, size_t len)
{
    size_t k = (size_t)dc__textf(buf, len, "from ");
    unsigned left = w->providers;
    if (left == 0)
        dc__textf(buf + k, len - k, "any provider");
    for (unsigned p = 0; p < DC_PROVIDER_COUNT && k < len; p++) {
        if (!(left & (1u << p)))
            continue;
        left &= ~(1u << p);
        k += (size_t)dc__textf(buf + k, len - k, "%s%s", dc_provider_name((enum dc_provider)p),
                               left == 0 ? "" : " or ");
    }
    return buf;
}

static void cloud_cost_text(const struct dc_result *res, const struct dc_candidate *c, char *buf,
                            size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &c->sizing;
    const struct dc_offer *o = z->offer;
    char m1[NUM], m2[NUM], m3[NUM], chips[NUM], h[NUM], rate[200];
    dc__textf(rate, sizeof(rate), "%s, %s on %s %s (%s), as of %s%s",
              dc_fmt_money(z->usd_per_chip_hour, DC_PER_CHIP_HOUR, m3, sizeof(m3)),
              dc__pricing_words(w->pricing), dc_provider_name(o->provider), o->region,
              o->instance_type, o->price[w->pricing].as_of,
              o->low_confidence ? "; its source is marked low confidence" : "");
    dc_fmt_money(z->cost_usd, dc__cost_period(w), m1, sizeof(m1));
    dc_fmt_money(z->cost_per_hour_usd, DC_PER_HOUR, m2, sizeof(m2));
    dc_fmt_count(z->chips, chips, sizeof(chips));
    if (w->task == DC_TASK_INFERENCE && w->job_requests > 0)
        dc__textf(buf, len, "About %s (%s): %s chip%s for %s at %s.", m1, m2, chips,
                  plural(z->chips), dc_fmt_hours(z->hours, h, sizeof(h)), rate);
    else if (w->task == DC_TASK_INFERENCE)
        dc__textf(buf, len, "About %s (%s for %s chip%s) at %s.", m1, m2, chips, plural(z->chips),
                  rate);
    else
        dc__textf(buf, len, "About %s (%s): %s chip%s for %s at %s.", m1, m2, chips,
                  plural(z->chips), dc_fmt_hours(z->hours, h, sizeof(h)), rate);
}

static void on_prem_cost_text(const struct dc_result *res, const struct dc_candidate *c, char *buf,
                              size_t len)
{
    const struct dc_sizing_params *s = dc_ruleset_sizing(res->ruleset);
    const struct dc_accelerator *a = c->acc;
    const struct dc_sizing *z = &c->sizing;
    const struct dc_workload *w = &res->workload;
    enum dc_period per = dc__cost_period(w);
    char m1[NUM], m2[NUM], m3[NUM], n1[NUM], n2[NUM], n3[NUM], energy[160];
    dc__textf(energy, sizeof(energy), "%s W x PUE %s x %s/kWh",
              dc_fmt_number(a->power_watts, n1, sizeof(n1)),
              dc_fmt_number(s->pue.value, n2, sizeof(n2)),
              dc_fmt_money(s->usd_per_kwh.value, DC_PER_NONE, m3, sizeof(m3)));
    if (z->cost_basis == DC_COST_ON_PREM)
        dc__textf(buf, len,
                  "About %s on premises: %s of energy (%s) plus the %s list price per chip (%s) "
                  "amortised over %s years.",
                  dc_fmt_money(z->cost_usd, per, m1, sizeof(m1)),
                  dc_fmt_money(z->energy_usd, per, m2, sizeof(m2)), energy,
                  dc_fmt_money(a->list_price_usd, DC_PER_NONE, m3, sizeof(m3)), a->list_price_as_of,
                  dc_fmt_number(s->amortization_years.value, n3, sizeof(n3)));
    else if (isfinite(z->energy_usd))
        dc__textf(buf, len,
                  "On premises it draws about %s of energy (%s), but no public hardware list "
                  "price exists to amortise, so its cost is unknown; the ranking used time and "
                  "fit.",
                  dc_fmt_money(z->energy_usd, per, m1, sizeof(m1)), energy);
    else
        dc__textf(buf, len,
                  "On premises neither its power nor a hardware list price is public, so its "
                  "cost is unknown; the ranking used time and fit.");
}

static void cost_text(const struct dc_result *res, const struct dc_candidate *c, char *buf,
                      size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &c->sizing;
    char who[80], win[160] = "", m1[NUM];
    bool gated = c->capped_by != NULL && strcmp(c->capped_by->rule_id, DC__R_COST) == 0;
    double be = c->selection.breakeven_usd_per_chip_hour;
    if (gated && isfinite(be))
        dc__textf(win, sizeof(win),
                  "; it ranks after every priced part that fits, and at %s or less it would match "
                  "the top pick",
                  dc_fmt_money(be, DC_PER_CHIP_HOUR, m1, sizeof(m1)));
    else if (gated)
        dc__textf(win, sizeof(win), "; it ranks after every priced part that fits");
    if (z->estimate_withheld != NULL)
        dc__textf(buf, len,
                  "Not estimated: the time this model takes is unknown without %s (give it or a "
                  "model.name).",
                  z->estimate_withheld);
    else if (z->cost_basis == DC_COST_CLOUD)
        cloud_cost_text(res, c, buf, len);
    else if (z->cost_basis == DC_COST_ON_PREM ||
             (w->deployment != DC_DEPLOY_CLOUD && c->acc->on_prem))
        on_prem_cost_text(res, c, buf, len);
    else {
        /* Offers on this basis but none of this machine size, or none at all:
         * then why, where prices.yaml says it for the providers asked. */
        char why[240];
        const char *stated = NULL;
        if (!dc__unrented_size_text(w, c->acc, &z->shape, why, sizeof(why))) {
            dc__textf(why, sizeof(why), "No public %s price for %s %s",
                      dc__pricing_words(w->pricing), c->acc->name,
                      providers_text(w, who, sizeof(who)));
            stated = dc_unpriced_reason(c->acc, w->providers);
        }
        dc__textf(buf, len, "%s, so its cost is not estimated%s.%s%s", why, win,
                  stated != NULL ? " Why none is public: " : "", stated != NULL ? stated : "");
    }
}

static void target_text(const struct dc_result *res, const struct dc_candidate *c, const char *id,
                        char *buf, size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &c->sizing;
    enum dc_period per = dc__cost_period(w);
    char m1[NUM], m2[NUM], n1[NUM], n2[NUM], n3[NUM], lim[128];
    dc_fmt_money(w->budget_usd, per, m2, sizeof(m2));
    if (strcmp(id, DC__R_BUDGET) == 0 && z->estimate_withheld != NULL)
        dc__textf(buf, len,
                  "The cost is not estimated without %s, so the budget of %s cannot be "
                  "checked.",
                  z->estimate_withheld, m2);
    else if (strcmp(id, DC__R_BUDGET) == 0 && !isfinite(z->cost_usd))
        dc__textf(buf, len, "No public %s price to check the budget of %s against.",
                  dc__pricing_words(w->pricing), m2);
    else if (strcmp(id, DC__R_BUDGET) == 0)
        dc__textf(buf, len, "Estimated %s is over the budget of %s.",
                  dc_fmt_money(z->cost_usd, per, m1, sizeof(m1)), m2);
    else if (strcmp(id, DC__R_DEADLINE) == 0) {
        char target[96];
        dc__target_words(res, target, sizeof(target));
        dc__textf(buf, len,
                  "Misses %s even at %s chips (about %s), so it ranks after every part "
                  "that meets it.",
                  target, dc_fmt_count(z->chips, n1, sizeof(n1)),
                  dc_fmt_hours(z->hours, n2, sizeof(n2)));
    } else if (strcmp(id, DC__R_PORTABLE) == 0)
        dc__textf(buf, len,
                  "Not every provider in constraints.providers rents %s on the %s basis, and "
                  "the answer must run on each of them (constraints.portable).",
                  c->acc->name, dc__pricing_words(w->pricing));
    else if (strcmp(id, DC__R_LATENCY) == 0) {
        char words[200];
        dc__textf(buf, len, "%s takes %s.",
                  isfinite(z->prefill_ms) ? "Each output token" : "One batch",
                  dc__latency_missed_words(res, z, false, words, sizeof(words)));
    } else
        dc__textf(buf, len,
                  "Serves about %s of the %s requests/s asked: %s replicas of %s chips are all "
                  "%s allows.",
                  dc_fmt_number(z->throughput_rps, n1, sizeof(n1)),
                  dc_fmt_number(w->requests_per_second, n2, sizeof(n2)),
                  dc_fmt_count(z->replicas, n3, sizeof(n3)),
                  dc_fmt_count(z->chips_per_replica, m1, sizeof(m1)),
                  dc__fleet_limit_words(dc_ruleset_sizing(res->ruleset), &res->workload, lim,
                                        sizeof(lim)));
}

/* probe.available: what is free, where, and that this configuration fits in it
 * ("16 of 64 H100 free on 2 nodes now: room for 2 x 8 H100."). */
static void available_text(const struct dc_candidate *c, char *buf, size_t len)
{
    const struct dc_candidate_availability *v = &c->availability;
    const char *name = c->acc->short_name != NULL ? c->acc->short_name : c->acc->id;
    char shape[96], age[96] = "", n1[NUM], n2[NUM], n3[NUM];
    dc_shape_format(c->acc, &c->sizing.shape, shape, sizeof(shape));
    if (v->stale)
        dc__textf(age, sizeof(age), " The snapshot is %s old (stale).",
                  dc_fmt_duration(v->age_seconds, n3, sizeof(n3)));
    dc_fmt_count(v->free, n1, sizeof(n1));
    dc_fmt_count(v->attached, n2, sizeof(n2));
    if (v->fleet)
        dc__textf(buf, len, "%s of %s %s free on %s node%s now: room for %s.%s", n1, n2, name,
                  dc_fmt_count(v->free_nodes, n3, sizeof(n3)), plural(v->free_nodes), shape, age);
    else
        dc__textf(buf, len, "%s of %s attached %s are free on this host now: room for %s.%s", n1,
                  n2, c->acc->id, shape, age);
}

/* constraints.fleet_only: nothing of the part free, or not enough of it free
 * on the nodes to start the configuration that holds the job. */
static void fleet_only_text(const struct dc_candidate *c, char *buf, size_t len)
{
    const struct dc_candidate_availability *v = &c->availability;
    const char *name = c->acc->short_name != NULL ? c->acc->short_name : c->acc->id;
    const char *where = v->fleet ? "The fleet" : "This host";
    char shape[96], n1[NUM], n2[NUM];
    if (!v->known)
        snprintf(buf, len,
                 "No availability is known (no fleet or probe snapshot), so nothing counts as "
                 "free (constraints.fleet_only).");
    else if (v->warming)
        snprintf(buf, len,
                 "%s has not seen a device yet (warming up), so no %s counts as free "
                 "(constraints.fleet_only).",
                 where, name);
    else if (v->free == 0)
        snprintf(buf, len, "%s has no %s free now (%s seen) (constraints.fleet_only).", where, name,
                 dc_fmt_count(v->attached, n1, sizeof(n1)));
    else
        snprintf(buf, len,
                 "%s's %s free %s (of %s) cannot start %s, the least that holds the job "
                 "(constraints.fleet_only).",
                 where, dc_fmt_count(v->free, n1, sizeof(n1)), name,
                 dc_fmt_count(v->attached, n2, sizeof(n2)),
                 dc_shape_format(c->acc, &c->sizing.shape, shape, sizeof(shape)));
}

/* A precision the part does not run in hardware. Serving 4-bit weights
 * (int4 or fp4 math, no quantization method) on an NVIDIA GPU without that
 * rate: weight-only quantization (AWQ, GPTQ) keeps the 4-bit weights with
 * 16-bit math, and vLLM's kernels for it run on NVIDIA GPUs from Turing to
 * Hopper (rule weight-quantization-kernels, F2.13). */
static void precision_text(const struct dc_result *res, const struct dc_candidate *c, char *buf,
                           size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_accelerator *a = c->acc;
    bool four_bit = w->precision == DC_PREC_INT4 || w->precision == DC_PREC_FP4;
    if (w->task == DC_TASK_INFERENCE && four_bit && w->quantization == DC_QUANT_NONE &&
        a->vendor != NULL && strcmp(a->vendor, "nvidia") == 0)
        dc__textf(buf, len,
                  "%s does not support %s in hardware. To serve 4-bit weights on it, give "
                  "quantization awq or gptq with precision bf16: weight-only quantization keeps "
                  "the weights in 4 bits and runs the math in 16, and its kernels run on NVIDIA "
                  "GPUs from Turing to Hopper.",
                  a->name, dc_workload_precision(w));
    else
        dc__textf(buf, len, "%s does not support %s in hardware.", a->name,
                  dc_workload_precision(w));
}

/* Whether the rule id `id` of n bytes is the known id K (a literal of at
 * least 8 bytes), as strcmp would say: the length and the eighth byte tell
 * nearly every known id from the others, so the bytes are compared for one
 * or two of them instead of a call for each (a body asks this of some 50
 * reasons, each against up to 15 ids). */
#define IS_ID(id, n, K) ((n) == sizeof(K) - 1 && (id)[7] == (K)[7] && memcmp((id), (K), (n)) == 0)

const char *dc_reason_text(const struct dc_result *res, const struct dc_candidate *c,
                           const struct dc_reason *r, char *buf, size_t len)
{
    if (r->message != NULL)
        return r->message;
    const struct dc_accelerator *a = c->acc;
    const struct dc_workload *w = &res->workload;
    const char *id = r->rule_id;
    size_t n = strlen(id);
    if (IS_ID(id, n, DC__R_ALLOWED))
        dc__textf(buf, len, "%s is not in constraints.accelerators.", a->id);
    else if (IS_ID(id, n, DC__R_PROVIDERS))
        dc__textf(buf, len, "%s is not offered by the requested providers or deployment.", a->name);
    else if (IS_ID(id, n, DC__R_ON_PREM))
        dc__textf(buf, len, "%s cannot be bought and run on premises.", a->name);
    else if (IS_ID(id, n, DC__R_PRECISION))
        precision_text(res, c, buf, len);
    else if (IS_ID(id, n, DC__R_MEMORY) && !c->sizing.fits)
        memory_excluded_text(res, c, buf, len);
    else if (IS_ID(id, n, DC__R_MEMORY) && w->task == DC_TASK_INFERENCE)
        memory_inference_text(res, c, buf, len);
    else if (IS_ID(id, n, DC__R_MEMORY))
        memory_training_text(res, c, buf, len);
    else if (IS_ID(id, n, DC__R_TIME))
        time_text(res, c, buf, len);
    else if (IS_ID(id, n, DC__R_SERVING))
        serving_text(res, c, buf, len);
    else if (IS_ID(id, n, DC__R_COST))
        cost_text(res, c, buf, len);
    else if (IS_ID(id, n, DC__R_BUDGET) || IS_ID(id, n, DC__R_DEADLINE) ||
             IS_ID(id, n, DC__R_LATENCY) || IS_ID(id, n, DC__R_RATE))
        target_text(res, c, id, buf, len);
    else if (IS_ID(id, n, DC__R_AVAILABLE))
        available_text(c, buf, len);
    else if (IS_ID(id, n, DC__R_FLEET))
        fleet_only_text(c, buf, len);
    else
        dc__textf(buf, len, "%s", id);
    return buf;
}
