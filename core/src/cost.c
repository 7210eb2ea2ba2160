/* core/src/cost.c -- what a sized candidate costs (docs/scoring.md, section 6).
 *
 * In the cloud a part costs what its cheapest public offer from an allowed
 * provider charges on the price basis the workload asks for (on-demand, spot,
 * or a 1- or 3-year commitment). On premises there is no rental price: the
 * cost is the energy the chips draw plus their hardware list price amortised
 * over sizing.yaml's years, and it stays unknown when no list price is public.
 * A hybrid deployment takes the cheaper of the two that is known. Unknown
 * stays unknown (NAN): it never passes a budget and never wins on cost. */
#include <math.h>

#include "dc/ruleset.h"
#include "ruleset_internal.h"
#include "sizing.h"

const struct dc_offer *dc_cheapest_offer(const struct dc_accelerator *a, enum dc_pricing basis,
                                         unsigned providers)
{
    const struct dc_offer *best = NULL;
    for (size_t i = 0; a != NULL && (unsigned)basis < DC_PRICING_COUNT && i < a->n_offers; i++) {
        const struct dc_offer *o = &a->offers[i];
        double p = o->price[basis].usd_per_chip_hour;
        if ((providers != 0 && !(providers & (1u << o->provider))) || !isfinite(p))
            continue;
        if (best == NULL || p < best->price[basis].usd_per_chip_hour)
            best = o;
    }
    return best;
}

/* Energy cost of one chip-hour on premises: watts x PUE x $/kWh; NAN when the
 * catalog lists no power. */
static double energy_per_chip_hour(const dc_ruleset *rs, const struct dc_accelerator *a)
{
    const struct dc_sizing_params *s = &rs->sizing;
    return a->power_watts / 1000.0 * s->pue.value * s->usd_per_kwh.value;
}

/* `energy` (per chip-hour) plus the list price spread over the amortisation
 * period; NAN when either is unknown. */
static double on_prem_per_chip_hour(const dc_ruleset *rs, const struct dc_accelerator *a,
                                    double energy)
{
    const struct dc_sizing_params *s = &rs->sizing;
    double hours = s->amortization_years.value * 12.0 * s->hours_per_month;
    return energy + a->list_price_usd / hours;
}

void dc__cost(const dc_ruleset *rs, const struct dc_workload *w, const struct dc_accelerator *a,
              double price_scale, struct dc_sizing *z)
{
    const struct dc_sizing_params *s = &rs->sizing;
    /* Serving is priced a month at a time; a training run or an offline
     * inference job (inference.job) for the hours it takes. */
    bool monthly = w->task == DC_TASK_INFERENCE && !(w->job_requests > 0);
    double chip_hours = z->chips * (monthly ? s->hours_per_month : z->hours);
    z->cost_basis = DC_COST_UNKNOWN;
    z->offer = NULL;
    z->usd_per_chip_hour = NAN;
    z->energy_usd = NAN;
    if (w->deployment != DC_DEPLOY_ON_PREM) {
        z->offer = dc_cheapest_offer(a, w->pricing, w->providers);
        if (z->offer != NULL) {
            z->cost_basis = DC_COST_CLOUD;
            z->usd_per_chip_hour = z->offer->price[w->pricing].usd_per_chip_hour;
        }
    }
    if (w->deployment != DC_DEPLOY_CLOUD && a->on_prem) {
        double energy = energy_per_chip_hour(rs, a);
        z->energy_usd = chip_hours * energy;
        double rate = on_prem_per_chip_hour(rs, a, energy);
        /* Cheaper than the cloud offer, or there is none (NAN compares false). */
        if (isfinite(rate) && !(rate >= z->usd_per_chip_hour)) {
            z->cost_basis = DC_COST_ON_PREM;
            z->offer = NULL;
            z->usd_per_chip_hour = rate;
        }
    }
    if (z->cost_basis == DC_COST_CLOUD)
        z->energy_usd = NAN; /* in the rental price */
    /* A robustness probe moves the rate the part is priced at, whatever its basis. */
    z->usd_per_chip_hour *= price_scale;
    z->cost_per_hour_usd = z->chips * z->usd_per_chip_hour;
    z->cost_usd = chip_hours * z->usd_per_chip_hour;
    /* An unknown cost cannot be checked against a budget, so it does not pass. */
    if (isfinite(w->budget_usd))
        z->within_budget = isfinite(z->cost_usd) && z->cost_usd <= w->budget_usd;
}
