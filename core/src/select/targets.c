/* core/src/select/targets.c -- what a buyer compares before the price: the targets a
 * workload sets (a deadline or the default run length, a latency, a request
 * rate, a budget) and whether a candidate meets each, in words, and why the
 * pick is not the best on the objective alone when it is not (dc/result.h). A
 * missed target reads like the reason that ranks a candidate down (reasons.c
 * renders it); a met one says by how much. The contract carries them as each
 * candidate's `targets` and the result's `pick_note`, which the CLI table and
 * the playground page show. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dc/numfmt.h"
#include "reasons.h"
#include "select.h"
#include "textf.h"
#include "reason_ids.h"

/* Two run times this close are the same (the selection's tie). */
#define TIE 1e-9

const char *dc_target_name(enum dc_target_kind k)
{
    static const char *const names[] = {"deadline", "run_time", "latency", "rate", "budget"};
    return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "unknown";
}

const char *dc_target_state_name(enum dc_target_state s)
{
    static const char *const names[] = {"missed", "met", "unknown"};
    return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

static enum dc_target_state state(bool known, bool met)
{
    return !known ? DC_TARGET_UNKNOWN : met ? DC_TARGET_MET : DC_TARGET_MISSED;
}

/* The default run length of a training workload without a deadline. */
static double default_hours(const struct dc_result *res)
{
    const struct dc_sizing_params *s = dc_ruleset_sizing(res->ruleset);
    return res->workload.task == DC_TASK_FINE_TUNING ? s->target_hours_fine_tuning.value
                                                     : s->target_hours_training.value;
}

size_t dc_candidate_targets(const struct dc_result *res, const struct dc_candidate *c,
                            struct dc_target_status out[DC_MAX_TARGETS])
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &c->sizing;
    bool inference = w->task == DC_TASK_INFERENCE, job = inference && w->job_requests > 0;
    bool timed = isfinite(z->hours);
    size_t n = 0;
    if (job || (!inference && isfinite(w->deadline_hours)))
        out[n++] = (struct dc_target_status){DC_TARGET_DEADLINE, state(timed, z->meets_deadline)};
    else if (!inference)
        out[n++] = (struct dc_target_status){
            DC_TARGET_RUN_TIME, state(timed, z->hours <= default_hours(res) * (1 + TIE))};
    if (inference && isfinite(w->latency_ms_p99))
        out[n++] = (struct dc_target_status){DC_TARGET_LATENCY,
                                             state(isfinite(z->decode_ms), z->meets_latency)};
    if (inference && !job)
        out[n++] = (struct dc_target_status){DC_TARGET_RATE,
                                             state(isfinite(z->throughput_rps), z->meets_rate)};
    if (isfinite(w->budget_usd))
        out[n++] = (struct dc_target_status){DC_TARGET_BUDGET,
                                             state(isfinite(z->cost_usd), z->within_budget)};
    return n;
}

/* A met target: the number, and the target it is within. */
static void met_text(const struct dc_result *res, const struct dc_candidate *c,
                     enum dc_target_kind k, char *buf, size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &c->sizing;
    char a[48], b[48], target[96];
    switch (k) {
    case DC_TARGET_DEADLINE:
    case DC_TARGET_RUN_TIME:
        dc__target_words(res, target, sizeof(target));
        dc__textf(buf, len, "About %s, within %s.", dc_fmt_hours(z->hours, a, sizeof(a)), target);
        break;
    case DC_TARGET_LATENCY:
        dc__textf(buf, len, "%s takes about %s, within the %s p99 target.",
                  isfinite(z->prefill_ms) ? "Each output token" : "One batch",
                  dc_fmt_ms(z->decode_ms, a, sizeof(a)),
                  dc_fmt_ms(w->latency_ms_p99, b, sizeof(b)));
        break;
    case DC_TARGET_RATE:
        dc__textf(buf, len, "Serves about %s requests/s, at least the %s asked.",
                  dc_fmt_number(z->throughput_rps, a, sizeof(a)),
                  dc_fmt_number(w->requests_per_second, b, sizeof(b)));
        break;
    case DC_TARGET_BUDGET:
        dc__textf(buf, len, "Estimated %s, within the budget of %s.",
                  dc_fmt_money(z->cost_usd, dc__cost_period(w), a, sizeof(a)),
                  dc_fmt_money(w->budget_usd, dc__cost_period(w), b, sizeof(b)));
        break;
    }
}

const char *dc_target_reason_id(const struct dc_target_status *t)
{
    static const char *const rule[] = {DC__R_DEADLINE, DC__R_DEADLINE, DC__R_LATENCY, DC__R_RATE,
                                       DC__R_BUDGET};
    if (t->state == DC_TARGET_MET || (unsigned)t->kind >= sizeof(rule) / sizeof(rule[0]))
        return NULL;
    /* A budget without a cost to check says why (reasons.c); the other
     * targets need the estimate that is missing. */
    if (t->state == DC_TARGET_UNKNOWN && t->kind != DC_TARGET_BUDGET)
        return NULL;
    return rule[t->kind];
}

const char *dc_target_text(const struct dc_result *res, const struct dc_candidate *c,
                           const struct dc_target_status *t, char *buf, size_t len)
{
    if (buf == NULL || len == 0)
        return buf;
    const struct dc_sizing *z = &c->sizing;
    if (t->state == DC_TARGET_MET) {
        met_text(res, c, t->kind, buf, len);
        return buf;
    }
    const char *id = dc_target_reason_id(t);
    if (id == NULL) {
        if (z->estimate_withheld != NULL)
            dc__textf(buf, len, "Not known: no estimate without %s.", z->estimate_withheld);
        else
            dc__textf(buf, len, "Not known: %s has no estimate for this workload.", c->acc->id);
        return buf;
    }
    struct dc_reason r = {.rule_id = id};
    const char *text = dc_reason_text(res, c, &r, buf, len);
    if (text != buf)
        dc__textf(buf, len, "%s", text);
    return buf;
}

const char *dc_pick_note(const struct dc_result *res, char *buf, size_t len)
{
    const struct dc_candidate *top = res->n_recommendations > 0 ? &res->recommendations[0] : NULL;
    const struct dc_candidate *best = dc__objective_best(res);
    /* Without a pick (nothing meets the targets, or no estimate) the
     * answer's status says why instead (dc_answer_text). */
    if (buf == NULL || len == 0 || top == NULL || best == NULL || best == top ||
        res->status != DC_ANSWER_OK ||
        !(best->selection.objective_value < top->selection.objective_value))
        return NULL;
    const struct dc_selection *b = &best->selection, *t = &top->selection;
    char why[200], pct[48];
    if (!b->meets_targets && t->meets_targets)
        dc__textf(why, sizeof(why), "it misses a target the pick meets");
    else if (b->gates > t->gates && best->capped_by != NULL)
        dc__textf(why, sizeof(why), "the gate %s holds it after", best->capped_by->rule_id);
    else if (!b->in_band && t->in_band)
        dc__textf(why, sizeof(why), "it is outside the balanced band");
    else
        dc__textf(why, sizeof(why), "the rules' points moved them within the %s band",
                  dc_fmt_percent(dc_ruleset_sizing(res->ruleset)->soft_band, pct, sizeof(pct)));
    static const char *const objective[] = {"cost", "time", "cost and time"};
    dc__textf(buf, len, "The pick is not %s, the best on %s alone: %s.", best->acc->name,
              objective[res->workload.objective], why);
    return buf;
}
