/* core/src/rules/prices.c -- prices.yaml: each provider's public offers of a catalog
 * part, one per instance (machine) type with its accelerators, vCPUs and
 * memory, priced per instance-hour on each basis it publishes (on demand,
 * spot, 1- and 3-year commitments), dated and sourced; TPUs priced per chip
 * for every documented slice; the parts no public price exists for, with the
 * sources checked; and hardware list prices for on-premises cost. A file of its
 * own so that an operator can replace just it with negotiated rates or with
 * `accel-advisor prices import` output (format: docs/rules-format.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "ruleset_internal.h"

/* basis: {usd_per_hour, as_of} for an instance type, {usd_per_chip_hour,
 * as_of} for a per-chip offer. */
static void parse_basis(const struct dc__where *w, const cJSON *o, unsigned accelerators,
                        struct dc_price *p)
{
    static const char *const per_instance[] = {"usd_per_hour", "as_of", NULL};
    static const char *const per_chip[] = {"usd_per_chip_hour", "as_of", NULL};
    struct dc__where q = dc__sub(w, o);
    dc__check_keys(&q, "a price", accelerators > 0 ? per_instance : per_chip);
    if (accelerators > 0) {
        p->usd_per_hour = dc__get_num(&q, "usd_per_hour", true, 0.0001, 1e6);
        p->usd_per_chip_hour = p->usd_per_hour / accelerators;
    } else {
        p->usd_per_chip_hour = dc__get_num(&q, "usd_per_chip_hour", true, 0.0001, 1e6);
    }
    p->as_of = dc__get_date(&q, "as_of");
    if (p->as_of == NULL)
        p->usd_per_hour = p->usd_per_chip_hour = NAN;
}

/* Whether some shape of `a` is a machine of exactly `n` accelerators: an
 * offer rents only its own size (core/src/sizing/cost.c), so an instance no shape
 * uses could never price anything (n = 0: priced per chip, which only named
 * TPU slices are). */
static bool size_usable(const struct dc_accelerator *a, unsigned n)
{
    if (n == 0)
        return a->n_slices > 0 && a->family == DC_FAMILY_TPU;
    for (size_t i = 0; i < a->n_node_sizes; i++) {
        if (a->node_sizes[i] == n)
            return true;
    }
    for (size_t i = 0; i < a->n_slices; i++) {
        if (a->slices[i].chips == n)
            return true;
    }
    return false;
}

/* accelerators: how many per instance; absent for a per-chip TPU offer. */
static unsigned parse_size(const struct dc__where *w, const struct dc_accelerator *a)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(w->obj, "accelerators");
    double n = v == NULL ? 0 : dc__get_num(w, "accelerators", true, 1, 1e6);
    if (v != NULL && (!isfinite(n) || n != floor(n))) {
        if (isfinite(n))
            dc__diag(w->L, w->file, dc__line_of(w, v), w->id,
                     "\"accelerators\" must be an integer");
        return 0;
    }
    if (!size_usable(a, (unsigned)n)) {
        if (n == 0)
            dc__diag(w->L, w->file, dc__line_of(w, w->obj), w->id,
                     "an offer of %s needs \"accelerators\" per instance (only TPU slices are "
                     "priced per chip)",
                     a->id);
        else
            dc__diag(w->L, w->file, dc__line_of(w, v), w->id,
                     "no shape of %s is a machine of %u (catalog.yaml shapes)", a->id, (unsigned)n);
    }
    return (unsigned)n;
}

/* reserved: {usd_per_hour (usd_per_chip_hour for a per-chip offer), as_of,
 * min_hours, max_hours, lead_time_days?}: the basis a configuration past a
 * provider's on-demand or spot limit needs (docs/rules-format.md). */
static void parse_reserved(const struct dc__where *w, const cJSON *o, unsigned accelerators,
                           struct dc_reservation *r)
{
    static const char *const per_instance[] = {"usd_per_hour", "as_of",          "min_hours",
                                               "max_hours",    "lead_time_days", NULL};
    static const char *const per_chip[] = {"usd_per_chip_hour", "as_of",          "min_hours",
                                           "max_hours",         "lead_time_days", NULL};
    struct dc__where q = dc__sub(w, o);
    dc__check_keys(&q, "a reservation", accelerators > 0 ? per_instance : per_chip);
    if (accelerators > 0) {
        r->price.usd_per_hour = dc__get_num(&q, "usd_per_hour", true, 0.0001, 1e6);
        r->price.usd_per_chip_hour = r->price.usd_per_hour / accelerators;
    } else {
        r->price.usd_per_chip_hour = dc__get_num(&q, "usd_per_chip_hour", true, 0.0001, 1e6);
    }
    r->price.as_of = dc__get_date(&q, "as_of");
    /* Bookable durations run from an hour to a few years (8760 h a year). */
    r->min_hours = dc__get_num(&q, "min_hours", true, 1, 87600);
    r->max_hours = dc__get_num(&q, "max_hours", true, 1, 87600);
    r->lead_time_days = dc__get_num(&q, "lead_time_days", false, 0, 3650);
    if (r->min_hours > r->max_hours)
        dc__diag(w->L, w->file, dc__line_of(&q, o), w->id,
                 "a reservation's \"min_hours\" %g is above its \"max_hours\" %g", r->min_hours,
                 r->max_hours);
    if (r->price.as_of == NULL || !isfinite(r->min_hours) || !isfinite(r->max_hours))
        r->price.usd_per_hour = r->price.usd_per_chip_hour = NAN;
}

struct parsed_offer {
    struct dc_offer offer;
    size_t acc;
};

static void parse_prices(const struct dc__where *w, struct dc_offer *o)
{
    bool any = false;
    for (size_t b = 0; b < DC_PRICING_COUNT; b++) {
        o->price[b] = (struct dc_price){NAN, NAN, NULL};
        const cJSON *basis = dc__get_obj(w, dc_pricing_name((enum dc_pricing)b), false);
        if (basis != NULL) {
            parse_basis(w, basis, o->accelerators, &o->price[b]);
            any = true;
        }
    }
    o->reserved = (struct dc_reservation){{NAN, NAN, NULL}, NAN, NAN, NAN};
    const cJSON *reserved = dc__get_obj(w, "reserved", false);
    if (reserved != NULL) {
        parse_reserved(w, reserved, o->accelerators, &o->reserved);
        any = true;
    }
    if (!any)
        dc__diag(w->L, w->file, dc__line_of(w, w->obj), w->id,
                 "an offer needs a price on at least one of on_demand, spot, committed_1y, "
                 "committed_3y, reserved");
}

/* One offer; false when it names no catalog part (nothing to keep). */
static bool parse_offer(const struct dc__where *w, dc_ruleset *rs, struct parsed_offer *po)
{
    static const char *const keys[] = {"accelerator",  "provider",     "region",    "instance_type",
                                       "accelerators", "vcpus",        "memory_gb", "source",
                                       "via",          "confidence",   "on_demand", "spot",
                                       "committed_1y", "committed_3y", "reserved",  NULL};
    struct dc_offer *o = &po->offer;
    const char *acc = dc__get_str(w, "accelerator", true);
    if (acc == NULL)
        return false;
    if (!dc__find_acc(rs, acc, &po->acc)) {
        dc__diag(w->L, w->file, dc__line_of(w, w->obj), acc,
                 "unknown accelerator \"%s\" (not in the catalog)", acc);
        return false;
    }
    const struct dc_accelerator *a = &rs->accs[po->acc];
    struct dc__where ow = *w;
    ow.id = a->id;
    dc__check_keys(&ow, "an offer", keys);
    const char *prov = dc__get_str(&ow, "provider", true);
    if (prov != NULL && !dc_provider_parse(prov, &o->provider))
        dc__diag(w->L, w->file, dc__line_of(&ow, w->obj), ow.id, "unknown provider \"%.40s\"",
                 prov);
    else if (prov != NULL && (a->providers & (1u << o->provider)) == 0)
        dc__diag(w->L, w->file, dc__line_of(&ow, w->obj), ow.id,
                 "the catalog does not list %s among the providers of %s", prov, ow.id);
    o->region = dc__get_str(&ow, "region", true);
    o->instance_type = dc__get_str(&ow, "instance_type", true);
    o->accelerators = parse_size(&ow, a);
    o->vcpus = dc__get_num(&ow, "vcpus", false, 1, 1e5);
    o->memory_gb = dc__get_num(&ow, "memory_gb", false, 0.001, 1e7);
    o->source = dc__get_url(&ow, "source", true);
    o->via = dc__get_url(&ow, "via", false);
    const char *conf = dc__get_str(&ow, "confidence", true);
    if (conf != NULL && strcmp(conf, "high") != 0 && strcmp(conf, "low") != 0)
        dc__diag(w->L, w->file, dc__line_of(&ow, w->obj), ow.id,
                 "\"confidence\" must be high or low");
    o->low_confidence = conf != NULL && strcmp(conf, "low") == 0;
    parse_prices(&ow, o);
    return true;
}

/* Offers grouped by accelerator in catalog order (file order within one), so
 * each catalog entry views a contiguous run. */
static bool group_offers(dc_ruleset *rs, const struct parsed_offer *po, size_t n)
{
    rs->offers = calloc(n + 1, sizeof(*rs->offers));
    if (rs->offers == NULL)
        return false;
    for (size_t a = 0; a < rs->n_accs; a++) {
        rs->accs[a].offers = rs->offers + rs->n_offers;
        for (size_t i = 0; i < n; i++) {
            if (po[i].acc == a) {
                rs->offers[rs->n_offers++] = po[i].offer;
                rs->accs[a].n_offers++;
            }
        }
    }
    return true;
}

static bool same(const char *x, const char *y)
{
    return x != NULL && y != NULL && strcmp(x, y) == 0;
}

/* One offer per part, provider, region and instance type. */
static void check_duplicate(const struct dc__where *w, const struct parsed_offer *po, size_t n,
                            const dc_ruleset *rs)
{
    const struct parsed_offer *last = &po[n - 1];
    for (size_t j = 0; j + 1 < n; j++) {
        if (po[j].acc == last->acc && po[j].offer.provider == last->offer.provider &&
            same(po[j].offer.region, last->offer.region) &&
            same(po[j].offer.instance_type, last->offer.instance_type))
            dc__diag(w->L, w->file, dc__line_of(w, w->obj), rs->accs[last->acc].id,
                     "a second %s %s offer in %s: one per instance type and region",
                     dc_provider_name(last->offer.provider), last->offer.instance_type,
                     last->offer.region);
    }
}

static void load_offers(struct dc__loader *L, dc_ruleset *rs, const struct dc__where *w,
                        const cJSON *list)
{
    size_t n = (size_t)cJSON_GetArraySize(list);
    if (n > DC_RULESET_MAX_OFFERS) {
        dc__diag(L, w->file, dc__line_of(w, list), NULL, "%zu offers exceed the limit of %d", n,
                 DC_RULESET_MAX_OFFERS);
        return;
    }
    struct parsed_offer *po = calloc(n + 1, sizeof(*po));
    if (po == NULL) {
        L->oom = true;
        return;
    }
    size_t kept = 0;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, list)
    {
        struct dc__where ow = dc__sub(w, it);
        if (!cJSON_IsObject(it)) {
            dc__diag(L, w->file, dc__line_of(&ow, it), NULL, "each offer must be a mapping");
            continue;
        }
        if (parse_offer(&ow, rs, &po[kept])) {
            kept++;
            check_duplicate(&ow, po, kept, rs);
        }
    }
    if (!group_offers(rs, po, kept))
        L->oom = true;
    free(po);
}

/* The catalog entry an item of a list names in `accelerator`; NULL (reported)
 * when the item is no mapping or names no catalog part. */
static struct dc_accelerator *item_acc(dc_ruleset *rs, struct dc__where *iw, const cJSON *it,
                                       const char *what)
{
    size_t idx = 0;
    if (!cJSON_IsObject(it)) {
        dc__diag(iw->L, iw->file, dc__line_of(iw, it), NULL, "each %s must be a mapping", what);
        return NULL;
    }
    const char *acc = dc__get_str(iw, "accelerator", true);
    if (acc == NULL)
        return NULL;
    if (!dc__find_acc(rs, acc, &idx)) {
        dc__diag(iw->L, iw->file, dc__line_of(iw, it), acc,
                 "unknown accelerator \"%s\" (not in the catalog)", acc);
        return NULL;
    }
    iw->id = rs->accs[idx].id;
    return &rs->accs[idx];
}

size_t dc_offers_from(const struct dc_accelerator *a, enum dc_provider p)
{
    size_t n = 0;
    for (size_t i = 0; a != NULL && i < a->n_offers; i++)
        n += a->offers[i].provider == p;
    return n;
}

/* `provider` of an unpriced entry: a provider the catalog lists for `a` that
 * has no offer of it; false (reported) otherwise. */
static bool unpriced_provider(const struct dc__where *uw, const struct dc_accelerator *a,
                              const char *name, enum dc_provider *p)
{
    unsigned line = dc__line_of(uw, cJSON_GetObjectItemCaseSensitive(uw->obj, "provider"));
    size_t n = 0;
    if (!dc_provider_parse(name, p))
        dc__diag(uw->L, uw->file, line, a->id, "unknown provider \"%.40s\"", name);
    else if ((a->providers & (1u << *p)) == 0)
        dc__diag(uw->L, uw->file, line, a->id,
                 "the catalog does not list %s among the providers of %s", name, a->id);
    else if ((n = dc_offers_from(a, *p)) > 0)
        dc__diag(uw->L, uw->file, line, a->id, "listed as unpriced on %s but has %zu offer%s there",
                 name, n, n == 1 ? "" : "s");
    else
        return true;
    return false;
}

/* The reason of an unpriced entry: required, and short enough for a
 * recommendation to quote it whole (DC_RULESET_MAX_UNPRICED_REASON). */
static const char *unpriced_reason(const struct dc__where *uw, const struct dc_accelerator *a)
{
    const char *reason = dc__get_str(uw, "reason", true);
    if (reason != NULL && strlen(reason) > DC_RULESET_MAX_UNPRICED_REASON)
        dc__diag(uw->L, uw->file,
                 dc__line_of(uw, cJSON_GetObjectItemCaseSensitive(uw->obj, "reason")), a->id,
                 "\"reason\" is %zu characters, over the limit of %d", strlen(reason),
                 DC_RULESET_MAX_UNPRICED_REASON);
    return reason;
}

static void unpriced_checked(const struct dc__where *uw, const struct dc_accelerator *a)
{
    const cJSON *checked = dc__get_arr(uw, "checked", true);
    if (checked != NULL && cJSON_GetArraySize(checked) == 0)
        dc__diag(uw->L, uw->file, dc__line_of(uw, checked), a->id,
                 "\"checked\" must name the sources looked at");
    const cJSON *url = NULL;
    cJSON_ArrayForEach(url, checked)
    {
        if (!cJSON_IsString(url) || !dc__is_url(url->valuestring))
            dc__diag(uw->L, uw->file, dc__line_of(uw, url), a->id,
                     "\"checked\" lists public URLs (https://...)");
    }
}

/* One part-wide entry: the part has no offer anywhere, so no provider entry
 * may stand beside it. */
static void unpriced_part(const struct dc__where *uw, struct dc_accelerator *a, unsigned line)
{
    const char *reason = unpriced_reason(uw, a);
    if (a->unpriced_reason != NULL)
        dc__diag(uw->L, uw->file, line, a->id, "listed as unpriced twice");
    if (a->n_offers > 0)
        dc__diag(uw->L, uw->file, line, a->id, "listed as unpriced but has %zu offer%s",
                 a->n_offers, a->n_offers == 1 ? "" : "s");
    for (unsigned p = 0; p < DC_PROVIDER_COUNT; p++) {
        if (a->unpriced_provider_reason[p] != NULL)
            dc__diag(uw->L, uw->file, line, a->id,
                     "listed as unpriced everywhere and on %s: the part's entry says it",
                     dc_provider_name((enum dc_provider)p));
    }
    a->unpriced_reason = reason;
}

/* One entry for `provider` of the part. */
static void unpriced_on(const struct dc__where *uw, struct dc_accelerator *a, const char *provider,
                        unsigned line)
{
    const char *reason = unpriced_reason(uw, a);
    enum dc_provider p;
    if (!unpriced_provider(uw, a, provider, &p))
        return;
    if (a->unpriced_provider_reason[p] != NULL)
        dc__diag(uw->L, uw->file, line, a->id, "listed as unpriced on %s twice", provider);
    if (a->unpriced_reason != NULL)
        dc__diag(uw->L, uw->file, line, a->id,
                 "listed as unpriced everywhere and on %s: the part's entry says it", provider);
    a->unpriced_provider_reason[p] = reason;
}

/* unpriced: [{accelerator, provider?, reason, checked: [url, ...]}]: parts no
 * public price exists for, everywhere or (with `provider`) from one provider
 * that the catalog lists for the part, with the sources looked at, so that a
 * missing price is a stated fact and not an oversight. A part, or a provider of
 * it, with an offer cannot be listed. */
static void load_unpriced(dc_ruleset *rs, const struct dc__where *w, const cJSON *list)
{
    static const char *const keys[] = {"accelerator", "provider", "reason", "checked", NULL};
    if (cJSON_GetArraySize(list) > DC_RULESET_MAX_UNPRICED) {
        dc__diag(w->L, w->file, dc__line_of(w, list), NULL, "more than %d unpriced entries",
                 DC_RULESET_MAX_UNPRICED);
        return;
    }
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, list)
    {
        struct dc__where uw = dc__sub(w, it);
        struct dc_accelerator *a = item_acc(rs, &uw, it, "unpriced part");
        if (a == NULL)
            continue;
        dc__check_keys(&uw, "an unpriced part", keys);
        /* A provider of the wrong type is reported by dc__get_str and the
         * entry left out; an absent or null one makes it part-wide. */
        const cJSON *pv = cJSON_GetObjectItemCaseSensitive(it, "provider");
        const char *provider = dc__get_str(&uw, "provider", false);
        if (provider != NULL)
            unpriced_on(&uw, a, provider, dc__line_of(&uw, it));
        else if (pv == NULL || cJSON_IsNull(pv))
            unpriced_part(&uw, a, dc__line_of(&uw, it));
        unpriced_checked(&uw, a);
    }
}

/* hardware: [{accelerator, usd_per_chip, as_of, source}]: list prices for
 * on-premises cost, amortised over sizing.yaml's on_prem.amortization_years. */
static void load_hardware(dc_ruleset *rs, const struct dc__where *w, const cJSON *list)
{
    static const char *const keys[] = {"accelerator", "usd_per_chip", "as_of", "source", NULL};
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, list)
    {
        struct dc__where hw = dc__sub(w, it);
        struct dc_accelerator *a = item_acc(rs, &hw, it, "hardware price");
        if (a == NULL)
            continue;
        dc__check_keys(&hw, "a hardware price", keys);
        if (isfinite(a->list_price_usd))
            dc__diag(w->L, w->file, dc__line_of(&hw, it), a->id, "a second hardware price");
        a->list_price_usd = dc__get_num(&hw, "usd_per_chip", true, 1, 1e9);
        a->list_price_as_of = dc__get_date(&hw, "as_of");
        a->list_price_source = dc__get_url(&hw, "source", true);
    }
}

void dc__load_prices(struct dc__loader *L, dc_ruleset *rs, const char *file, const dc_yaml_doc *doc,
                     const cJSON *root)
{
    static const char *const keys[] = {"prices", "unpriced", "hardware", "capacity", NULL};
    struct dc__where w = {L, file, doc, NULL, root};
    if (!cJSON_IsObject(root)) {
        dc__diag(L, file, 1, NULL, "prices.yaml must be a mapping with \"prices\"");
        return;
    }
    dc__check_keys(&w, "prices.yaml", keys);
    const cJSON *offers = dc__get_arr(&w, "prices", true);
    if (offers != NULL)
        load_offers(L, rs, &w, offers);
    const cJSON *unpriced = dc__get_arr(&w, "unpriced", false);
    if (unpriced != NULL)
        load_unpriced(rs, &w, unpriced);
    const cJSON *hardware = dc__get_arr(&w, "hardware", false);
    if (hardware != NULL)
        load_hardware(rs, &w, hardware);
    const cJSON *capacity = dc__get_arr(&w, "capacity", false);
    if (capacity != NULL)
        dc__load_capacity(rs, &w, capacity);
}
