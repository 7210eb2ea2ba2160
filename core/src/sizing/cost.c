/* core/src/sizing/cost.c -- what a sized candidate costs (docs/scoring.md, section 6).
 *
 * In the cloud a configuration costs what the cheapest public offer from an
 * allowed provider charges, on the price basis the workload asks for
 * (on-demand, spot, or a 1- or 3-year commitment), among the offers that rent
 * its machine size: instances of exactly that many accelerators (eight 1-GPU
 * instances are not an 8-GPU machine: NVLink joins the GPUs of one instance
 * only); TPU slices at the per-chip rate. A size no offer rents is not for
 * sale there, so its cost is unknown, and the engine builds its configurations
 * from the sizes that are rented (configs.c). On premises there is no rental price: the
 * cost is the energy the chips draw plus their hardware list price amortised
 * over sizing.yaml's years, and it stays unknown when no list price is public.
 * A hybrid deployment takes the cheaper of the two that is known. Unknown
 * stays unknown (NAN): it never passes a budget and never wins on cost. */
#include <math.h>
#include <stdio.h>

#include "dc/ruleset.h"
#include "ruleset_internal.h"
#include "sizing.h"

/* Offer `o` is priced on `basis` and its provider is allowed. */
static bool offer_allowed(const struct dc_offer *o, enum dc_pricing basis, unsigned providers)
{
    return (providers == 0 || (providers & (1u << o->provider)) != 0) &&
           isfinite(o->price[basis].usd_per_chip_hour);
}

const struct dc_offer *dc_cheapest_offer(const struct dc_accelerator *a, enum dc_pricing basis,
                                         unsigned providers)
{
    const struct dc_offer *best = NULL;
    for (size_t i = 0; a != NULL && (unsigned)basis < DC_PRICING_COUNT && i < a->n_offers; i++) {
        const struct dc_offer *o = &a->offers[i];
        if (!offer_allowed(o, basis, providers))
            continue;
        if (best == NULL ||
            o->price[basis].usd_per_chip_hour < best->price[basis].usd_per_chip_hour)
            best = o;
    }
    return best;
}

const char *dc_unpriced_reason(const struct dc_accelerator *a, unsigned providers)
{
    if (a == NULL)
        return NULL;
    if (a->unpriced_reason != NULL)
        return a->unpriced_reason;
    unsigned asked = (providers != 0 ? providers : ~0u) & a->providers;
    /* One provider left: asked & (asked - 1) clears its bit. */
    if (asked == 0 || (asked & (asked - 1)) != 0)
        return NULL;
    for (unsigned p = 0; p < DC_PROVIDER_COUNT; p++) {
        if (asked == 1u << p)
            return a->unpriced_provider_reason[p];
    }
    return NULL;
}

/* Whether `o` rents the machines of shape `s`: instances of exactly
 * s->per_unit accelerators, or, for a per-chip TPU offer, a documented slice. */
static bool rents(const struct dc_offer *o, const struct dc_shape *s)
{
    if (s->per_unit == 0)
        return false;
    if (o->accelerators == 0)
        return s->slice != NULL;
    return s->per_unit == o->accelerators;
}

/* How many of the offer's instances shape `s` takes (slices for a per-chip
 * offer). */
static unsigned instances_for(const struct dc_offer *o, const struct dc_shape *s)
{
    return o->accelerators == 0 ? s->units : s->units * (s->per_unit / o->accelerators);
}

const struct dc_offer *dc__offer_for_shape(const struct dc_accelerator *a, const struct dc_shape *s,
                                           enum dc_pricing basis, unsigned providers,
                                           unsigned *instances)
{
    const struct dc_offer *best = NULL;
    if (instances != NULL)
        *instances = 0;
    if (a == NULL || s == NULL || (unsigned)basis >= DC_PRICING_COUNT)
        return NULL;
    for (size_t i = 0; i < a->n_offers; i++) {
        const struct dc_offer *o = &a->offers[i];
        /* The instance size first: most offers rent another size. */
        if (!rents(o, s) || !offer_allowed(o, basis, providers))
            continue;
        double p = o->price[basis].usd_per_chip_hour;
        double q = best != NULL ? best->price[basis].usd_per_chip_hour : INFINITY;
        /* Cheaper per chip; at the same rate, fewer (larger) instances. */
        if (p < q || (p == q && instances_for(o, s) < instances_for(best, s)))
            best = o;
    }
    if (best != NULL && instances != NULL)
        *instances = instances_for(best, s);
    return best;
}

void dc__part_offers(struct dc__part *p)
{
    const struct dc_accelerator *a = p->a;
    enum dc_pricing basis = p->w->pricing;
    p->offers_listed = (unsigned)basis < DC_PRICING_COUNT;
    p->n_offer_units = 0;
    p->chip_offer = NULL;
    for (size_t i = 0; p->offers_listed && i < a->n_offers; i++) {
        const struct dc_offer *o = &a->offers[i];
        if (!offer_allowed(o, basis, p->w->providers))
            continue;
        const struct dc_offer **slot = &p->chip_offer;
        if (o->accelerators != 0) {
            unsigned k = 0;
            while (k < p->n_offer_units && p->offer_units[k] != o->accelerators)
                k++;
            if (k == DC__PART_OFFER_UNITS) {
                p->offers_listed = false;
                break;
            }
            if (k == p->n_offer_units) {
                p->offer_units[k] = o->accelerators;
                p->unit_offer[k] = NULL;
                p->n_offer_units++;
            }
            slot = &p->unit_offer[k];
        }
        /* Cheaper per chip; on a tie the first in file order stays. */
        if (*slot == NULL ||
            o->price[basis].usd_per_chip_hour < (*slot)->price[basis].usd_per_chip_hour)
            *slot = o;
    }
}

/* dc__offer_for_shape(p->a, s, p->w's basis and providers, instances) from
 * the part's list: of the offers renting shape s, the per-chip one (for a
 * slice) and the one of its machine size, the cheaper, on a tie the first
 * in file order. Every offer renting s takes s->units instances, so the
 * fewer-instances tie-break of dc__offer_for_shape never decides. */
static const struct dc_offer *part_offer(const struct dc__part *p, const struct dc_shape *s,
                                         unsigned *instances)
{
    if (!p->offers_listed)
        return dc__offer_for_shape(p->a, s, p->w->pricing, p->w->providers, instances);
    *instances = 0;
    if (s->per_unit == 0)
        return NULL;
    enum dc_pricing basis = p->w->pricing;
    const struct dc_offer *best = s->slice != NULL ? p->chip_offer : NULL;
    for (unsigned k = 0; k < p->n_offer_units; k++) {
        if (p->offer_units[k] != s->per_unit)
            continue;
        const struct dc_offer *o = p->unit_offer[k];
        double po = o->price[basis].usd_per_chip_hour;
        double pb = best != NULL ? best->price[basis].usd_per_chip_hour : INFINITY;
        if (best == NULL || po < pb || (po == pb && o < best))
            best = o;
        break;
    }
    if (best != NULL)
        *instances = s->units;
    return best;
}

unsigned dc__rentable_node_sizes(const struct dc_accelerator *a, enum dc_pricing basis,
                                 unsigned providers, unsigned *sizes, unsigned max)
{
    unsigned n = 0;
    if (a == NULL || sizes == NULL || (unsigned)basis >= DC_PRICING_COUNT || a->n_slices > 0)
        return 0;
    /* Insertion into the ascending list keeps the max smallest sizes. */
    for (size_t i = 0; i < a->n_offers; i++) {
        const struct dc_offer *o = &a->offers[i];
        unsigned size = o->accelerators;
        if (size == 0 || !offer_allowed(o, basis, providers))
            continue;
        unsigned k = 0;
        while (k < n && sizes[k] < size)
            k++;
        if ((k < n && sizes[k] == size) || k == max)
            continue;
        for (unsigned j = (n < max ? n : max - 1); j > k; j--)
            sizes[j] = sizes[j - 1];
        sizes[k] = size;
        if (n < max)
            n++;
    }
    return n;
}

bool dc__providers_renting(const struct dc_accelerator *a, const struct dc_shape *s,
                           enum dc_pricing basis, unsigned *providers_out)
{
    unsigned set = 0;
    for (size_t i = 0;
         a != NULL && s != NULL && (unsigned)basis < DC_PRICING_COUNT && i < a->n_offers; i++) {
        const struct dc_offer *o = &a->offers[i];
        if (offer_allowed(o, basis, 0) && rents(o, s))
            set |= 1u << o->provider;
    }
    if (providers_out != NULL)
        *providers_out = set;
    return set != 0;
}

/* "1 and 8", the machine sizes some allowed offer rents on the basis. */
static void sizes_text(const struct dc_accelerator *a, enum dc_pricing basis, unsigned providers,
                       char *buf, size_t len)
{
    unsigned sizes[DC_ACC_MAX_NODE_SIZES * 4];
    unsigned n = dc__rentable_node_sizes(a, basis, providers, sizes, DC_ACC_MAX_NODE_SIZES * 4);
    size_t k = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < n && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%u",
                              i == 0       ? ""
                              : i + 1 == n ? " and "
                                           : ", ",
                              sizes[i]);
}

const char *dc__pricing_words(enum dc_pricing p)
{
    static const char *const words[DC_PRICING_COUNT] = {"on-demand", "spot", "1-year committed",
                                                        "3-year committed"};
    return (unsigned)p < DC_PRICING_COUNT ? words[p] : "on-demand";
}

bool dc__unrented_size_text(const struct dc_workload *w, const struct dc_accelerator *a,
                            const struct dc_shape *s, char *buf, size_t len)
{
    const char *name = a->short_name != NULL ? a->short_name : a->id;
    const char *who = w->providers != 0 ? "allowed" : "public";
    if (dc_cheapest_offer(a, w->pricing, w->providers) == NULL)
        return false;
    char sizes[96];
    sizes_text(a, w->pricing, w->providers, sizes, sizeof(sizes));
    if (s->slice != NULL || sizes[0] == '\0')
        snprintf(buf, len, "No %s offer rents %u %s as %s on %s", who, s->per_unit, name,
                 s->slice != NULL ? s->slice : "one machine", dc__pricing_words(w->pricing));
    else
        snprintf(buf, len,
                 "No %s offer rents machines of %u %s on %s (instances of %s are offered)", who,
                 s->per_unit, name, dc__pricing_words(w->pricing), sizes);
    return true;
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

double dc__train_cost_floor(const struct dc__part *p)
{
    const struct dc_workload *w = p->w;
    double rate = INFINITY;
    if (w->deployment != DC_DEPLOY_ON_PREM) {
        const struct dc_offer *o = dc_cheapest_offer(p->a, w->pricing, w->providers);
        if (o != NULL)
            rate = o->price[w->pricing].usd_per_chip_hour;
    }
    if (w->deployment != DC_DEPLOY_CLOUD && p->a->on_prem) {
        double r = on_prem_per_chip_hour(p->rs, p->a, energy_per_chip_hour(p->rs, p->a));
        rate = r < rate ? r : rate;
    }
    double chip_hours = p->d->training_flops /
                        (p->peak * p->s->mfu_training[p->a->family] * p->factor) /
                        DC__SECONDS_PER_HOUR;
    /* A billion times the rounding of chips x hours x rate below it. */
    return chip_hours * rate * p->price_scale * (1 - 1e-9);
}

void dc__cost(const struct dc__part *p, struct dc_sizing *z)
{
    const dc_ruleset *rs = p->rs;
    const struct dc_workload *w = p->w;
    const struct dc_accelerator *a = p->a;
    double price_scale = p->price_scale;
    const struct dc_sizing_params *s = &rs->sizing;
    /* Serving is priced a month at a time; a training run or an offline
     * inference job (inference.job) for the hours it takes. */
    bool monthly = w->task == DC_TASK_INFERENCE && !(w->job_requests > 0);
    double chip_hours = z->chips * (monthly ? s->hours_per_month : z->hours);
    z->cost_basis = DC_COST_UNKNOWN;
    z->offer = NULL;
    z->instances = 0;
    z->usd_per_chip_hour = NAN;
    z->energy_usd = NAN;
    if (w->deployment != DC_DEPLOY_ON_PREM) {
        z->offer = part_offer(p, &z->shape, &z->instances);
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
            z->instances = 0;
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
