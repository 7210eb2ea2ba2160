/* core/src/explain.c -- the text of reasons that carry numbers (sizing, cost,
 * time, exclusions by constraint). They are rendered on demand, so building a
 * result never pays for formatting it; the numbers are the result's own, so the
 * text always agrees with the fields beside it. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine_internal.h"
#include "sizing.h"

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

static const char *plural(unsigned n)
{
    return n == 1 ? "" : "s";
}

/* The training time target in words: the deadline, or the default. */
static void target_words(const struct dc_result *res, char *buf, size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing_params *s = dc_ruleset_sizing(res->ruleset);
    if (isfinite(w->deadline_hours))
        snprintf(buf, len, "the %g h deadline", w->deadline_hours);
    else
        snprintf(buf, len, "the default %g h (no deadline given)",
                 w->task == DC_TASK_FINE_TUNING ? s->target_hours_fine_tuning.value
                                                : s->target_hours_training.value);
}

/* Why this many chips, in words (enum dc_chips_basis). */
static const char *basis_text(const struct dc_result *res, const struct dc_sizing *z, char *buf,
                              size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing_params *s = dc_ruleset_sizing(res->ruleset);
    char target[96];
    target_words(res, target, sizeof(target));
    switch (z->basis) {
    case DC_BASIS_MEMORY:
        snprintf(buf, len, "the fewest that hold it; no other count does better on the objective");
        break;
    case DC_BASIS_DEADLINE:
    case DC_BASIS_TARGET:
        snprintf(buf, len, "the fewest that finish within %s, and the cheapest that do", target);
        break;
    case DC_BASIS_CHEAPEST:
        if (w->task == DC_TASK_INFERENCE)
            snprintf(buf, len,
                     "the cheapest layout that serves the rate and meets the latency target");
        else
            snprintf(buf, len,
                     "the cheapest count that finishes within %s, the fastest of those that "
                     "cost the same; more chips cost more per run once the job leaves one fast "
                     "domain",
                     target);
        break;
    case DC_BASIS_FASTEST:
        if (w->task == DC_TASK_INFERENCE) {
            snprintf(buf, len, "objective time: the layout with the shortest requests");
            break;
        }
        snprintf(buf, len,
                 "objective time: the fastest count, up to %.0f%% scaling efficiency; a run "
                 "under %g h counts as %g h, so no more chips than that",
                 s->efficiency_floor.value * 100, s->min_run_hours.value, s->min_run_hours.value);
        break;
    case DC_BASIS_BALANCED:
        snprintf(buf, len,
                 "objective balanced: the fastest that costs at most %.0f%% more than the "
                 "cheapest option meeting every target",
                 s->balanced_premium * 100);
        break;
    case DC_BASIS_RATE:
        snprintf(buf, len, "replicas for %g requests/s", w->requests_per_second);
        break;
    case DC_BASIS_LIMIT:
        snprintf(buf, len,
                 "the most the accelerator limit, the cluster, the global batch of %g or the "
                 "efficiency floor allow",
                 w->global_batch_size);
        break;
    case DC_BASIS_PINNED:
        snprintf(buf, len, "as given");
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
    if (z->chips_for_memory == 0) {
        snprintf(buf, len,
                 "One micro-batch's activations do not fit even when split across a "
                 "%u-chip fast domain of %.0f GB usable each.",
                 a->domain > 0 ? a->domain : 1, z->memory_per_chip_gb);
        return;
    }
    snprintf(buf, len,
             "Needs %.1f GB%s: at least %u chips of %.0f GB usable, over the limit of %u%s.",
             z->memory_need_gb, w->task == DC_TASK_INFERENCE ? " per replica" : "",
             z->chips_for_memory, z->memory_per_chip_gb, cap,
             by_user ? " (constraints.max_accelerators)" : " (the largest job on this cluster)");
}

static void memory_training_text(const struct dc_result *res, const struct dc_candidate *c,
                                 char *buf, size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing_params *s = dc_ruleset_sizing(res->ruleset);
    const struct dc_sizing *z = &c->sizing;
    char what[160];
    switch (w->method) {
    case DC_METHOD_LORA:
        snprintf(what, sizeof(what), "frozen %s weights plus LoRA adapters with their Adam state",
                 dc_precision_name(w->precision));
        break;
    case DC_METHOD_QLORA:
        snprintf(what, sizeof(what), "a 4-bit NF4 base (%.3f B/parameter) plus LoRA adapters",
                 s->qlora_bytes_per_parameter.value);
        break;
    case DC_METHOD_FULL:
        snprintf(what, sizeof(what), "weights, gradients and Adam state (%.0f B/parameter)",
                 s->state_bytes_per_parameter.value);
        break;
    case DC_METHOD_DPO:
        snprintf(what, sizeof(what),
                 "weights, gradients and Adam state (%.0f B/parameter) plus a frozen reference",
                 s->state_bytes_per_parameter.value);
        break;
    case DC_METHOD_RL:
        snprintf(what, sizeof(what),
                 "the policy's weights, gradients and Adam state plus its reference, reward%s "
                 "models",
                 w->rl_algorithm == DC_RL_PPO ? " and critic" : "");
        break;
    }
    char shape[64];
    struct dc_shape least;
    if (!dc_shape_at_least(c->acc, z->chips_for_memory, UINT_MAX, &least))
        least = z->shape;
    snprintf(buf, len,
             "Needs %.1f GB: %s, sharded across the chips, and the activations of %g sequence%s "
             "of %g tokens per chip with full recomputation; the smallest shape that holds it "
             "is %s (%.0f GB usable a chip).",
             z->memory_need_gb, what, s->micro_batch.value, s->micro_batch.value == 1 ? "" : "s",
             w->sequence_length, dc_shape_format(c->acc, &least, shape, sizeof(shape)),
             z->memory_per_chip_gb);
}

static void memory_inference_text(const struct dc_result *res, const struct dc_candidate *c,
                                  char *buf, size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing_params *s = dc_ruleset_sizing(res->ruleset);
    const struct dc_sizing *z = &c->sizing;
    double weights = dc__weights_gb(s, w);
    double kv = z->batch_per_replica > 0
                    ? (z->memory_need_gb - weights * s->infer_overhead.value) / z->batch_per_replica
                    : 0;
    char kvtext[200] = "";
    bool mla = strcmp(w->attention, "mla") == 0;
    if (kv > 0)
        snprintf(kvtext, sizeof(kvtext),
                 " plus a %.2f GB %s KV cache for each of %u requests (%g tokens, %s)", kv,
                 dc_precision_name(w->kv_precision), z->batch_per_replica, w->context_tokens,
                 mla                     ? "MLA's latent vector"
                 : isfinite(w->kv_heads) ? "KV heads as given"
                                         : "every attention head a KV head: set model.kv_heads");
    snprintf(buf, len,
             "Needs %.1f GB per replica: %.1f GB of %s weights x %.1f runtime overhead%s; %u "
             "chip%s of %.0f GB usable.",
             z->memory_need_gb, weights,
             w->quantization != DC_QUANT_NONE ? dc__quantization_name(w->quantization)
                                              : dc_precision_name(w->precision),
             s->infer_overhead.value, kvtext, z->chips_per_replica, plural(z->chips_per_replica),
             z->memory_per_chip_gb);
}

static void time_text(const struct dc_result *res, const struct dc_candidate *c, char *buf,
                      size_t len)
{
    const struct dc_sizing *z = &c->sizing;
    char shape[64], why[320];
    snprintf(buf, len,
             "About %.1f hours (%.1f days) on %s, %s: %.3g FLOP at %.0f TFLOPS peak and %.0f%% "
             "MFU (%.0f%% of the single-domain rate).",
             z->hours, z->hours / 24.0, dc_shape_format(c->acc, &z->shape, shape, sizeof(shape)),
             basis_text(res, z, why, sizeof(why)),
             z->hours * 3600.0 * z->chips * z->peak_tflops * 1e12 * z->mfu, z->peak_tflops,
             z->mfu * 100, z->scale_efficiency * 100);
}

static void serving_text(const struct dc_result *res, const struct dc_candidate *c, char *buf,
                         size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &c->sizing;
    char shape[64], why[320];
    dc_shape_format(c->acc, &z->shape, shape, sizeof(shape));
    basis_text(res, z, why, sizeof(why));
    if (z->estimate_withheld != NULL)
        snprintf(buf, len,
                 "%u replica%s of %u chip%s on %s hold the model; its speed is not estimated "
                 "without %s.",
                 z->replicas, plural(z->replicas), z->chips_per_replica,
                 plural(z->chips_per_replica), shape, z->estimate_withheld);
    else if (!isfinite(z->throughput_rps))
        snprintf(buf, len,
                 "Throughput cannot be estimated: no %s rate or memory bandwidth is listed for %s.",
                 dc_precision_name(w->precision), c->acc->id);
    else if (isfinite(z->prefill_ms))
        snprintf(buf, len,
                 "%u replica%s of %u chip%s on %s (%s), %u concurrent requests each: about "
                 "%.1f requests/s and %.0f output tokens/s. A request takes about %.0f ms "
                 "(prefill %.1f ms + %g tokens x %.2f ms per step, each step bound by %s).",
                 z->replicas, plural(z->replicas), z->chips_per_replica,
                 plural(z->chips_per_replica), shape, why, z->batch_per_replica, z->throughput_rps,
                 z->tokens_per_second, z->request_ms, z->prefill_ms, w->output_tokens, z->decode_ms,
                 z->compute_bound ? "compute" : "memory bandwidth");
    else
        snprintf(buf, len,
                 "%u replica%s of %u chip%s on %s (%s), batches of %u: about %.1f requests/s; "
                 "one batch takes about %.2f ms, bound by %s.",
                 z->replicas, plural(z->replicas), z->chips_per_replica,
                 plural(z->chips_per_replica), shape, why, z->batch_per_replica, z->throughput_rps,
                 z->decode_ms, z->compute_bound ? "compute" : "memory bandwidth");
}

const char *dc__pricing_words(enum dc_pricing p)
{
    static const char *const words[DC_PRICING_COUNT] = {"on-demand", "spot", "1-year committed",
                                                        "3-year committed"};
    return (unsigned)p < DC_PRICING_COUNT ? words[p] : "on-demand";
}

/* "from aws or gcp", or "from any provider" when the workload names none. */
static const char *providers_text(const struct dc_workload *w, char *buf, size_t len)
{
    size_t k = (size_t)snprintf(buf, len, "from ");
    unsigned left = w->providers;
    if (left == 0)
        snprintf(buf + k, len - k, "any provider");
    for (unsigned p = 0; p < DC_PROVIDER_COUNT && k < len; p++) {
        if (!(left & (1u << p)))
            continue;
        left &= ~(1u << p);
        k += (size_t)snprintf(buf + k, len - k, "%s%s", dc_provider_name((enum dc_provider)p),
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
    char m1[32], m2[32], rate[200];
    snprintf(rate, sizeof(rate), "$%.4g per chip-hour, %s on %s %s (%s), as of %s%s",
             z->usd_per_chip_hour, dc__pricing_words(w->pricing), dc_provider_name(o->provider),
             o->region, o->instance_type, o->price[w->pricing].as_of,
             o->low_confidence ? "; its source is marked low confidence" : "");
    if (w->task == DC_TASK_INFERENCE && w->job_requests > 0)
        snprintf(buf, len, "About %s for the job: %u chip%s for %.1f h at %s.",
                 money(z->cost_usd, m1, sizeof(m1)), z->chips, plural(z->chips), z->hours, rate);
    else if (w->task == DC_TASK_INFERENCE)
        snprintf(buf, len, "About %s per month (%s an hour for %u chip%s) at %s.",
                 money(z->cost_usd, m1, sizeof(m1)), money(z->cost_per_hour_usd, m2, sizeof(m2)),
                 z->chips, plural(z->chips), rate);
    else
        snprintf(buf, len, "About %s for the run: %u chip%s for %.1f h at %s.",
                 money(z->cost_usd, m1, sizeof(m1)), z->chips, plural(z->chips), z->hours, rate);
}

static void on_prem_cost_text(const struct dc_result *res, const struct dc_candidate *c, char *buf,
                              size_t len)
{
    const struct dc_sizing_params *s = dc_ruleset_sizing(res->ruleset);
    const struct dc_accelerator *a = c->acc;
    const struct dc_sizing *z = &c->sizing;
    const struct dc_workload *w = &res->workload;
    const char *per = w->task == DC_TASK_INFERENCE && !(w->job_requests > 0) ? " a month"
                      : w->task == DC_TASK_INFERENCE                         ? " for the job"
                                                                             : " for the run";
    char m1[32], m2[32], energy[160];
    snprintf(energy, sizeof(energy), "%g W x PUE %g x $%g/kWh", a->power_watts, s->pue.value,
             s->usd_per_kwh.value);
    if (z->cost_basis == DC_COST_ON_PREM)
        snprintf(buf, len,
                 "About %s%s on premises: %s of energy (%s) plus the $%.0f list price per "
                 "chip (%s) amortised over %g years.",
                 money(z->cost_usd, m1, sizeof(m1)), per, money(z->energy_usd, m2, sizeof(m2)),
                 energy, a->list_price_usd, a->list_price_as_of, s->amortization_years.value);
    else if (isfinite(z->energy_usd))
        snprintf(buf, len,
                 "On premises it draws about %s of energy%s (%s), but no public hardware list "
                 "price exists to amortise, so its cost is unknown; the ranking used time and "
                 "fit.",
                 money(z->energy_usd, m1, sizeof(m1)), per, energy);
    else
        snprintf(buf, len,
                 "On premises neither its power nor a hardware list price is public, so its "
                 "cost is unknown; the ranking used time and fit.");
}

static void cost_text(const struct dc_result *res, const struct dc_candidate *c, char *buf,
                      size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &c->sizing;
    char who[80], win[160] = "";
    bool gated = c->capped_by != NULL && strcmp(c->capped_by->rule_id, DC__R_COST) == 0;
    double be = c->selection.breakeven_usd_per_chip_hour;
    if (gated && isfinite(be))
        snprintf(win, sizeof(win),
                 "; it ranks after every priced part that fits, and at $%.3g per chip-hour or "
                 "less it would match the top pick",
                 be);
    else if (gated)
        snprintf(win, sizeof(win), "; it ranks after every priced part that fits");
    if (z->estimate_withheld != NULL)
        snprintf(buf, len,
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
            snprintf(why, sizeof(why), "No public %s price for %s %s",
                     dc__pricing_words(w->pricing), c->acc->name,
                     providers_text(w, who, sizeof(who)));
            stated = dc_unpriced_reason(c->acc, w->providers);
        }
        snprintf(buf, len, "%s, so its cost is not estimated%s.%s%s", why, win,
                 stated != NULL ? " Why none is public: " : "", stated != NULL ? stated : "");
    }
}

static void target_text(const struct dc_result *res, const struct dc_candidate *c, const char *id,
                        char *buf, size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &c->sizing;
    char m1[32], m2[32];
    if (strcmp(id, DC__R_BUDGET) == 0 && z->estimate_withheld != NULL)
        snprintf(buf, len,
                 "The cost is not estimated without %s, so the budget of %s cannot be "
                 "checked.",
                 z->estimate_withheld, money(w->budget_usd, m2, sizeof(m2)));
    else if (strcmp(id, DC__R_BUDGET) == 0 && !isfinite(z->cost_usd))
        snprintf(buf, len, "No public %s price to check the budget of %s against.",
                 dc__pricing_words(w->pricing), money(w->budget_usd, m2, sizeof(m2)));
    else if (strcmp(id, DC__R_BUDGET) == 0)
        snprintf(buf, len, "Estimated %s is over the budget of %s.",
                 money(z->cost_usd, m1, sizeof(m1)), money(w->budget_usd, m2, sizeof(m2)));
    else if (strcmp(id, DC__R_DEADLINE) == 0) {
        char target[96];
        target_words(res, target, sizeof(target));
        snprintf(buf, len,
                 "Misses %s even at %u chips (about %.1f h), so it ranks after every part "
                 "that meets it.",
                 target, z->chips, z->hours);
    } else if (strcmp(id, DC__R_PORTABLE) == 0)
        snprintf(buf, len,
                 "Not every provider in constraints.providers rents %s on the %s basis, and "
                 "the answer must run on each of them (constraints.portable).",
                 c->acc->name, dc__pricing_words(w->pricing));
    else if (strcmp(id, DC__R_LATENCY) == 0)
        snprintf(
            buf, len, "One %s takes about %.2f ms even at batch 1, over the %.2f ms p99 target.",
            isfinite(z->prefill_ms) ? "decode step" : "batch", z->decode_ms, w->latency_ms_p99);
    else
        snprintf(buf, len,
                 "Serves about %.1f of the %g requests/s asked: %u replicas are all the limit of "
                 "%u chips allows.",
                 z->throughput_rps, w->requests_per_second, z->replicas, dc__chip_cap(w, c->acc));
}

/* probe.available: what is free, where, and that this configuration fits in it
 * ("16 of 64 H100 free on 2 nodes now: room for 2 x 8 H100."). */
static void available_text(const struct dc_candidate *c, char *buf, size_t len)
{
    const struct dc_candidate_availability *v = &c->availability;
    const char *name = c->acc->short_name != NULL ? c->acc->short_name : c->acc->id;
    char shape[96], age[96] = "";
    dc_shape_format(c->acc, &c->sizing.shape, shape, sizeof(shape));
    if (v->stale)
        snprintf(age, sizeof(age), " The snapshot is %.0f s old (stale).", v->age_seconds);
    if (v->fleet)
        snprintf(buf, len, "%u of %u %s free on %u node%s now: room for %s.%s", v->free,
                 v->attached, name, v->free_nodes, plural(v->free_nodes), shape, age);
    else
        snprintf(buf, len, "%u of %u attached %s are free on this host now: room for %s.%s",
                 v->free, v->attached, c->acc->id, shape, age);
}

const char *dc_reason_text(const struct dc_result *res, const struct dc_candidate *c,
                           const struct dc_reason *r, char *buf, size_t len)
{
    if (r->message != NULL)
        return r->message;
    const struct dc_accelerator *a = c->acc;
    const struct dc_workload *w = &res->workload;
    const char *id = r->rule_id;
    if (strcmp(id, DC__R_ALLOWED) == 0)
        snprintf(buf, len, "%s is not in constraints.accelerators.", a->id);
    else if (strcmp(id, DC__R_PROVIDERS) == 0)
        snprintf(buf, len, "%s is not offered by the requested providers or deployment.", a->name);
    else if (strcmp(id, DC__R_ON_PREM) == 0)
        snprintf(buf, len, "%s cannot be bought and run on premises.", a->name);
    else if (strcmp(id, DC__R_PRECISION) == 0)
        snprintf(buf, len, "%s does not support %s in hardware.", a->name,
                 dc_precision_name(w->precision));
    else if (strcmp(id, DC__R_MEMORY) == 0 && !c->sizing.fits)
        memory_excluded_text(res, c, buf, len);
    else if (strcmp(id, DC__R_MEMORY) == 0 && w->task == DC_TASK_INFERENCE)
        memory_inference_text(res, c, buf, len);
    else if (strcmp(id, DC__R_MEMORY) == 0)
        memory_training_text(res, c, buf, len);
    else if (strcmp(id, DC__R_TIME) == 0)
        time_text(res, c, buf, len);
    else if (strcmp(id, DC__R_SERVING) == 0)
        serving_text(res, c, buf, len);
    else if (strcmp(id, DC__R_COST) == 0)
        cost_text(res, c, buf, len);
    else if (strcmp(id, DC__R_BUDGET) == 0 || strcmp(id, DC__R_DEADLINE) == 0 ||
             strcmp(id, DC__R_LATENCY) == 0 || strcmp(id, DC__R_RATE) == 0)
        target_text(res, c, id, buf, len);
    else if (strcmp(id, DC__R_AVAILABLE) == 0)
        available_text(c, buf, len);
    else
        snprintf(buf, len, "%s", id);
    return buf;
}
