/* service/src/prices_coverage.c -- the table `accel-advisor prices` prints:
 * per part and provider the catalog lists for it, how many offers are priced
 * on each basis (the four a workload asks for, and `reserved`) and the age of
 * the oldest price, marked when it is past sizing.yaml's
 * price_stale_after_days, or why prices.yaml says the part (or that provider
 * of it) has no offer. Owned by the price-data work (issues 18, 31); the rules
 * it reads: docs/rules-format.md, prices.yaml. */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "prices_coverage.h"

/* Days from `as_of` (YYYY-MM or YYYY-MM-DD) to `now`; -1 when unreadable. */
static long age_days(const char *as_of, time_t now)
{
    struct tm tm = {0};
    int y = 0, m = 0, d = 1;
    if (as_of == NULL || sscanf(as_of, "%4d-%2d-%2d", &y, &m, &d) < 2)
        return -1;
    tm.tm_year = y - 1900;
    tm.tm_mon = m - 1;
    tm.tm_mday = d;
    time_t t = timegm(&tm);
    return t == (time_t)-1 ? -1 : (long)((now - t) / 86400);
}

/* Offer `o`'s price on basis `b` (DC_BASIS_RESERVED: its reservation). */
static const struct dc_price *basis_price(const struct dc_offer *o, unsigned b)
{
    return b == DC_BASIS_RESERVED ? &o->reserved.price : &o->price[b];
}

/* One cell: "N (AGEd)" for the offers of provider `p` priced on `b`, "N
 * (AGEd)*" when the oldest is past `stale_days`, or "-". */
static void cell(const struct dc_accelerator *a, unsigned p, unsigned b, time_t now,
                 double stale_days, char *buf, size_t len)
{
    unsigned n = 0;
    long oldest = -1;
    for (size_t i = 0; i < a->n_offers; i++) {
        const struct dc_offer *o = &a->offers[i];
        const struct dc_price *pr = basis_price(o, b);
        if (o->provider != p || !isfinite(pr->usd_per_chip_hour))
            continue;
        n++;
        long age = age_days(pr->as_of, now);
        oldest = age > oldest ? age : oldest;
    }
    if (n == 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%u (%ldd)%s", n, oldest, (double)oldest > stale_days ? "*" : "");
}

/* One part: a line per provider the catalog lists for it, with its cells, or
 * why prices.yaml says it has no offer there; one line when the part has no
 * offer anywhere and the file says why once for all. */
static void coverage_part(FILE *fp, const struct dc_accelerator *a, time_t now, double stale_days)
{
    static const char missing[] = "no offer, and prices.yaml says nothing why";
    if (a->n_offers == 0 && (a->unpriced_reason != NULL || a->providers == 0)) {
        fprintf(fp, "%-12s %-9s unpriced: %s\n", a->id, "-",
                a->unpriced_reason != NULL ? a->unpriced_reason : missing);
        return;
    }
    for (unsigned p = 0; p < DC_PROVIDER_COUNT; p++) {
        if (!(a->providers & (1u << p)))
            continue;
        fprintf(fp, "%-12s %-9s", a->id, dc_provider_name((enum dc_provider)p));
        if (dc_offers_from(a, (enum dc_provider)p) == 0) {
            const char *why = a->unpriced_provider_reason[p];
            fprintf(fp, " unpriced: %s\n", why != NULL ? why : missing);
            continue;
        }
        for (unsigned b = 0; b < DC_BASIS_COUNT; b++) {
            char c[32];
            cell(a, p, b, now, stale_days, c, sizeof(c));
            fprintf(fp, " %-13s", c);
        }
        fprintf(fp, "\n");
    }
}

void svc_prices_coverage(FILE *fp, const dc_ruleset *rs, time_t now)
{
    double stale = dc_ruleset_sizing(rs)->price_stale_after_days;
    fprintf(fp, "%-12s %-9s", "PART", "PROVIDER");
    for (unsigned b = 0; b < DC_BASIS_COUNT; b++)
        fprintf(fp, " %-13s", dc_basis_name((enum dc_basis)b));
    fprintf(fp, "\n");
    for (size_t i = 0; i < dc_ruleset_accelerator_count(rs); i++)
        coverage_part(fp, dc_ruleset_accelerator(rs, i), now, stale);
    fprintf(fp,
            "\nEach cell: offers priced on that basis (the age of the oldest price, days);\n"
            "*: older than price_stale_after_days (%g), and an answer resting on it warns\n"
            "price_stale; \"unpriced\": no offer there, and why, as prices.yaml states it.\n",
            stale);
}
