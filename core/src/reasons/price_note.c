/* core/src/reasons/price_note.c -- the one line that says a pick rests on an uncertain
 * price (docs/scoring.md, section 9, "Price confidence in the decision").
 *
 * A price its source marks low confidence, or one older than
 * price_stale_after_days, may be off by more than the robustness check moves a
 * price (DC_EXPLAIN_PERTURBATION, 30%). When the pick's cost rests on such a
 * price and a part priced with confidence (a high-confidence offer, its price
 * no staler than the pick's) would cost at most that much more, and nothing else keeps it below the
 * pick (it meets every target the pick meets, no more gates hold it), the pick is not settled: a
 * 30% error in the one uncertain number hands the choice to that part. Ruled by the result alone,
 * so the JSON, the CLI header and the page say the same line. Owner: helper "playbook" (issue 29).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dc/numfmt.h"
#include "reasons.h"
#include "ruleset_internal.h"
#include "sizing.h"
#include "textf.h"

/* Why the price behind c's cost is uncertain: bit 0 low confidence, bit 1
 * stale; 0 when it is neither, or when c's cost is not a cloud offer's. */
static unsigned doubt_of(const struct dc_result *res, const struct dc_candidate *c, time_t now)
{
    const struct dc_sizing *z = &c->sizing;
    if (z->cost_basis != DC_COST_CLOUD || z->offer == NULL)
        return 0;
    double age = dc__price_age_days(z->offer->price[res->workload.pricing].as_of, now);
    bool stale = isfinite(age) && age > dc_ruleset_sizing(res->ruleset)->price_stale_after_days;
    return (z->offer->low_confidence ? 1u : 0u) | (stale ? 2u : 0u);
}

/* The best-ranked part priced with confidence within the margin of the pick
 * that only the pick's price keeps below it; NULL when none. Priced with
 * confidence: its offer is not marked low confidence, and its price is no
 * more uncertain than the pick's on any count (not stale where the pick's is
 * not), and more certain on one. */
static const struct dc_candidate *
confident_alternative(const struct dc_result *res, unsigned top_doubt, double top_spend, time_t now)
{
    const struct dc_sizing_params *s = dc_ruleset_sizing(res->ruleset);
    const struct dc_workload *w = &res->workload;
    const struct dc_selection *t = &res->recommendations[0].selection;
    for (size_t i = 1; i < res->n_recommendations; i++) {
        const struct dc_candidate *c = &res->recommendations[i];
        unsigned doubt = doubt_of(res, c, now);
        if (c->sizing.cost_basis != DC_COST_CLOUD || (doubt & 1u) || (doubt & ~top_doubt) ||
            doubt == top_doubt || (t->meets_targets && !c->selection.meets_targets) ||
            c->selection.gates > t->gates)
            continue;
        /* Dearer, so that the pick's price is what keeps it below, and by at
         * most the margin. */
        double spend = dc__config_spend(s, w, &c->sizing);
        if (isfinite(c->sizing.cost_usd) && isfinite(spend) && spend > top_spend &&
            spend <= top_spend * (1 + DC_EXPLAIN_PERTURBATION))
            return c;
    }
    return NULL;
}

const char *dc_price_note(const struct dc_result *res, char *buf, size_t len)
{
    if (buf == NULL || len == 0 || res == NULL || res->n_recommendations == 0)
        return NULL;
    const struct dc_workload *w = &res->workload;
    /* Under objective time the pick rests on its speed, not on its price. */
    if (w->objective == DC_OBJECTIVE_TIME)
        return NULL;
    const struct dc_candidate *top = &res->recommendations[0];
    time_t now = time(NULL);
    unsigned doubt = doubt_of(res, top, now);
    double top_spend = dc__config_spend(dc_ruleset_sizing(res->ruleset), w, &top->sizing);
    /* A cost under negligible_cost_usd decides nothing (section 5). */
    if (doubt == 0 || !isfinite(top->sizing.cost_usd) ||
        top->sizing.cost_usd < dc_ruleset_sizing(res->ruleset)->negligible_cost_usd)
        return NULL;
    const struct dc_candidate *alt = confident_alternative(res, doubt, top_spend, now);
    if (alt == NULL)
        return NULL;
    enum dc_period per = dc__cost_period(w);
    const struct dc_offer *o = top->sizing.offer;
    const char *as_of = o->price[w->pricing].as_of;
    double ratio = alt->sizing.cost_usd / top->sizing.cost_usd;
    char money[48], pct[48], margin[48], limit[48], why[160];
    dc_fmt_duration(dc_ruleset_sizing(res->ruleset)->price_stale_after_days * 86400, limit,
                    sizeof(limit));
    dc__textf(why, sizeof(why), "%s%s%s%s", (doubt & 1u) ? "marked low confidence" : "",
              doubt == 3u ? " and " : "", (doubt & 2u) ? "over " : "", (doubt & 2u) ? limit : "");
    dc__textf(buf, len,
              "The pick rests on a price %s%s (%s %s, as of %s); %s, priced with confidence, "
              "would cost %s (%s more), within the %s a price may be off: check the pick's "
              "price before buying.",
              why, (doubt & 2u) ? " old" : "", dc_provider_name(o->provider), o->region,
              as_of != NULL ? as_of : "an unknown date", alt->acc->name,
              dc_fmt_money(alt->sizing.cost_usd, per, money, sizeof(money)),
              dc_fmt_percent(ratio - 1, pct, sizeof(pct)),
              dc_fmt_percent(DC_EXPLAIN_PERTURBATION, margin, sizeof(margin)));
    return buf;
}

/* The defaults that can move the answer by more than 2x, by warning code,
 * with the field that replaces each: a mixture of experts sized as dense
 * (DeepSeek-V3: 671B against 37B active, 18x the compute), every head
 * cached (Llama 3: 8 KV heads of 32, 4x the cache), a run's tokens at 20
 * per parameter (a fine-tune or a short run can be 100x fewer), a request's
 * tokens (2,048 against a 128-token chat turn or a 32K prompt). */
static const struct {
    const char *code, *field;
} wide_defaults[] = {
    {"assumed_active_parameters", "model.active_parameters"},
    {"assumed_kv_heads", "model.kv_heads"},
    {"assumed_training_tokens", "training.tokens"},
    {"assumed_request_tokens", "inference.input_tokens and output_tokens"},
};

const char *dc_defaults_note(const struct dc_result *res, char *buf, size_t len)
{
    if (buf == NULL || len == 0 || res == NULL || res->n_recommendations == 0)
        return NULL;
    size_t k = 0, n = 0;
    for (size_t i = 0; i < sizeof(wide_defaults) / sizeof(wide_defaults[0]); i++) {
        bool warned = false;
        for (size_t j = 0; j < res->n_warnings && !warned; j++)
            warned = strcmp(res->warnings[j].code, wide_defaults[i].code) == 0;
        if (!warned)
            continue;
        int m = dc__textf(buf + k, k < len ? len - k : 0, "%s%s", n > 0 ? ", " : "",
                          wide_defaults[i].field);
        k += m > 0 ? (size_t)m : 0;
        n++;
    }
    if (n == 0)
        return NULL;
    char tail[160];
    dc__textf(tail, sizeof(tail),
              " not given: %s default%s could move this answer by more than 2x (see the "
              "warnings); give %s.",
              n == 1 ? "its" : "their", n == 1 ? "" : "s", n == 1 ? "it" : "them");
    if (k < len)
        dc__textf(buf + k, len - k, "%s", tail);
    return buf;
}
