/* core/src/sizing/buying.c -- whether a training configuration's machines can be
 * had at once (issue 27, item 3): the limit prices.yaml's `capacity:` states
 * for the offer's provider on the asked basis (dc_capacity_limit), and, past
 * it, the basis that sells that many: a reservation (capacity blocks,
 * reserved clusters), with its lead time where the offer publishes one,
 * unless the provider's stated reservation limit is passed too. The answer
 * says so in sizing.capacity, and for the top pick in the warning
 * capacity_binds (report.c); the price stays the asked basis's. */
#include <math.h>

#include "sizing.h"

void dc__capacity_need(const struct dc__part *p, struct dc_sizing *z)
{
    struct dc_capacity_need *c = &z->capacity;
    *c = (struct dc_capacity_need){.lead_time_days = NAN};
    if (z->cost_basis != DC_COST_CLOUD || z->offer == NULL || z->instances == 0)
        return;
    enum dc_provider prov = z->offer->provider;
    enum dc_basis asked = (enum dc_basis)p->w->pricing;
    const struct dc_capacity *lim = dc_capacity_limit(p->rs, prov, asked, p->a);
    if (lim == NULL)
        return;
    c->known = true;
    c->provider = prov;
    c->basis = asked;
    c->max_instances = lim->max_instances;
    c->source = lim->source;
    if (z->instances <= lim->max_instances)
        return;
    c->binds = true;
    const struct dc_capacity *res = dc_capacity_limit(p->rs, prov, DC_BASIS_RESERVED, p->a);
    if (asked != DC_BASIS_RESERVED && (res == NULL || z->instances <= res->max_instances)) {
        c->basis = DC_BASIS_RESERVED;
        c->lead_time_days = z->offer->reserved.lead_time_days;
    }
}
