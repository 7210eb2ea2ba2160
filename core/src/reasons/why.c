/* core/src/reasons/why.c -- the result's `why`: one plain sentence saying why the
 * pick is the pick, what a buyer reads first on the page's pick card and in
 * the CLI's header: the objective's reason (cheapest, fastest, the balance)
 * and the constraint that decided it (the time or rate target, the budget,
 * the fleet, or what keeps a cheaper part below), with no rule ids: those
 * stay in the reasons (docs/scoring.md, section 10). */
#include <math.h>
#include <string.h>

#include "dc/numfmt.h"
#include "reasons.h"
#include "textf.h"

#define NUM 48

/* The candidate the objective alone would pick (the lowest objective value,
 * before soft points), or NULL. */
const struct dc_candidate *dc__objective_best(const struct dc_result *res)
{
    const struct dc_candidate *best = NULL;
    for (size_t i = 0; i < res->n_recommendations; i++) {
        const struct dc_candidate *c = &res->recommendations[i];
        double v = c->selection.objective_value;
        if (isfinite(v) && (best == NULL || v < best->selection.objective_value))
            best = c;
    }
    return best;
}

/* What the pick must do: the time target (training, an offline job) or the
 * rate and latency (serving), then the budget, as a relative clause. */
static void target_clause(const struct dc_result *res, char *buf, size_t len)
{
    const struct dc_workload *w = &res->workload;
    char t[160], n1[NUM], n2[NUM];
    if (w->task == DC_TASK_INFERENCE && !(w->job_requests > 0)) {
        int k = dc__textf(buf, len, "serves %s requests/s",
                          dc_fmt_number(w->requests_per_second, n1, sizeof(n1)));
        if (isfinite(w->latency_ms_p99) && k > 0 && (size_t)k < len)
            dc__textf(buf + k, len - (size_t)k, " within %s p99",
                      dc_fmt_ms(w->latency_ms_p99, n2, sizeof(n2)));
    } else {
        dc__target_words(res, t, sizeof(t));
        dc__textf(buf, len, "finishes within %s", t);
    }
    size_t used = strlen(buf);
    if (isfinite(w->budget_usd) && used < len)
        dc__textf(buf + used, len - used, " and fits the budget of %s",
                  dc_fmt_money(w->budget_usd, dc__cost_period(w), n1, sizeof(n1)));
}

/* The figure the objective compares, for the pick: its cost, or its time. */
static void figure(const struct dc_result *res, const struct dc_candidate *c, char *buf, size_t len)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &c->sizing;
    char n[NUM], h[NUM];
    bool serving = w->task == DC_TASK_INFERENCE && !(w->job_requests > 0);
    bool by_time = w->objective == DC_OBJECTIVE_TIME || !isfinite(z->cost_usd);
    if (by_time && serving && isfinite(z->request_ms))
        dc__textf(buf, len, "about %s a request", dc_fmt_ms(z->request_ms, n, sizeof(n)));
    else if (by_time && isfinite(z->hours))
        dc__textf(buf, len, "about %s", dc_fmt_hours(z->hours, n, sizeof(n)));
    else if (isfinite(z->cost_usd) && isfinite(z->hours) && !serving)
        dc__textf(buf, len, "about %s in %s",
                  dc_fmt_money(z->cost_usd, dc__cost_period(w), n, sizeof(n)),
                  dc_fmt_hours(z->hours, h, sizeof(h)));
    else if (isfinite(z->cost_usd))
        dc__textf(buf, len, "about %s",
                  dc_fmt_money(z->cost_usd, dc__cost_period(w), n, sizeof(n)));
    else
        buf[0] = '\0';
}

/* What decided between the pick and a part better on the objective alone,
 * or the fleet, as a clause after a semicolon ("" when the objective and the
 * target decided alone); returns the word that narrows "the cheapest option"
 * to what the pick is the cheapest of ("free ", "suitable ", or ""). */
static const char *decider(const struct dc_result *res, char *buf, size_t len)
{
    const struct dc_candidate *top = &res->recommendations[0];
    const struct dc_candidate *best = dc__objective_best(res);
    static const char *const better_words[] = {"cheaper", "faster", "better on cost and time"};
    const char *better = better_words[res->workload.objective];
    buf[0] = '\0';
    /* The fleet decided: a part better on the objective, as fit and meeting
     * the targets as the pick, is not free now. */
    const struct dc_candidate *rival = NULL;
    for (size_t i = 1; i < res->n_recommendations; i++) {
        const struct dc_candidate *c = &res->recommendations[i];
        double v = c->selection.objective_value;
        if (c->selection.gates <= top->selection.gates && c->selection.meets_targets &&
            v < top->selection.objective_value &&
            (rival == NULL || v < rival->selection.objective_value))
            rival = c;
    }
    if (res->workload.prefer_available && top->availability.configuration_free && rival != NULL &&
        !rival->availability.configuration_free) {
        dc__textf(buf, len, "; %s is %s but not free now, and you asked to prefer what is free",
                  rival->acc->name, better);
        return "free ";
    }
    if (best != NULL && best != top &&
        best->selection.objective_value < top->selection.objective_value) {
        const struct dc_selection *b = &best->selection, *t = &top->selection;
        const char *name = best->acc->name;
        if (!b->meets_targets && t->meets_targets)
            dc__textf(buf, len, "; %s is %s but misses that target", name, better);
        else if (b->gates > t->gates) {
            dc__textf(buf, len,
                      "; %s is %s but suits this framework, team or stage less (the playbook's "
                      "order)",
                      name, better);
            return "suitable ";
        } else if (!b->in_band && t->in_band)
            dc__textf(buf, len,
                      "; %s is %s, but costs more than the time it saves is worth (the balanced "
                      "band)",
                      name, better);
        else
            dc__textf(buf, len, "; %s is %s by less than the margin the rules' facts move", name,
                      better);
        return "";
    }
    if (res->workload.prefer_available && top->availability.configuration_free)
        dc__textf(buf, len, "; its configuration is free %s now",
                  top->availability.fleet ? "in the fleet" : "on this host");
    return "";
}

const char *dc_why(const struct dc_result *res, char *buf, size_t len)
{
    if (res == NULL || buf == NULL || len == 0 || res->status != DC_ANSWER_OK ||
        res->n_recommendations == 0)
        return NULL;
    const struct dc_candidate *top = &res->recommendations[0];
    const struct dc_workload *w = &res->workload;
    char chips[NUM], target[320], fig[160], dec[320];
    const char *what = "cheapest";
    if (!top->selection.priced || w->objective == DC_OBJECTIVE_TIME)
        what = "fastest";
    else if (w->objective == DC_OBJECTIVE_BALANCED && top->selection.in_band)
        what = "best-value";
    target_clause(res, target, sizeof(target));
    figure(res, top, fig, sizeof(fig));
    const char *narrow = decider(res, dec, sizeof(dec));
    dc__textf(buf, len, "%s (%s chip%s) is the %s %soption that %s%s%s%s.", top->acc->name,
              dc_fmt_count(top->sizing.chips, chips, sizeof(chips)),
              top->sizing.chips == 1 ? "" : "s", what, narrow, target,
              fig[0] != '\0' ? ", at " : "", fig, dec);
    return buf;
}
