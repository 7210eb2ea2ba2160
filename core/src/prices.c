/* core/src/prices.c -- prices.yaml: each provider's public offer of a catalog
 * part, per chip-hour on each basis it publishes (on demand, spot, 1- and 3-year
 * commitments), dated and sourced; and hardware list prices for on-premises
 * cost. A file of its own so that an operator can replace just it with
 * negotiated rates (format: docs/rules-format.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "ruleset_internal.h"

/* "YYYY-MM" or "YYYY-MM-DD", quoted in YAML so it stays a string. */
static const char *get_date(const struct dc__where *w, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(w->obj, key);
    if (v == NULL) {
        dc__diag(w->L, w->file, dc__line_of(w, w->obj), w->id, "missing required field \"%s\"",
                 key);
        return NULL;
    }
    int y = 0, m = 0, d = 0;
    char tail = 0;
    bool ok =
        cJSON_IsString(v) &&
        ((strlen(v->valuestring) == 7 && sscanf(v->valuestring, "%4d-%2d%c", &y, &m, &tail) == 2) ||
         (strlen(v->valuestring) == 10 &&
          sscanf(v->valuestring, "%4d-%2d-%2d%c", &y, &m, &d, &tail) == 3 && d >= 1 && d <= 31)) &&
        y >= 1990 && m >= 1 && m <= 12;
    if (!ok) {
        dc__diag(w->L, w->file, dc__line_of(w, v), w->id,
                 "\"%s\" must be a date written YYYY-MM or YYYY-MM-DD (quote it)", key);
        return NULL;
    }
    return v->valuestring;
}

/* basis: {usd_per_chip_hour, as_of} */
static void parse_basis(const struct dc__where *w, const cJSON *o, struct dc_price *p)
{
    static const char *const keys[] = {"usd_per_chip_hour", "as_of", NULL};
    struct dc__where q = dc__sub(w, o);
    dc__check_keys(&q, "a price", keys);
    p->usd_per_chip_hour = dc__get_num(&q, "usd_per_chip_hour", true, 0.0001, 1e6);
    p->as_of = get_date(&q, "as_of");
    if (p->as_of == NULL)
        p->usd_per_chip_hour = NAN;
}

struct parsed_offer {
    struct dc_offer offer;
    size_t acc;
};

/* One offer; false when it names no catalog part (nothing to keep). */
static bool parse_offer(const struct dc__where *w, dc_ruleset *rs, struct parsed_offer *po)
{
    static const char *const keys[] = {"accelerator", "provider",     "region",       "offer",
                                       "source",      "via",          "confidence",   "on_demand",
                                       "spot",        "committed_1y", "committed_3y", NULL};
    struct dc_offer *o = &po->offer;
    const char *acc = dc__get_str(w, "accelerator", true);
    if (acc == NULL)
        return false;
    if (!dc__find_acc(rs, acc, &po->acc)) {
        dc__diag(w->L, w->file, dc__line_of(w, w->obj), acc,
                 "unknown accelerator \"%s\" (not in the catalog)", acc);
        return false;
    }
    struct dc__where ow = *w;
    ow.id = rs->accs[po->acc].id;
    dc__check_keys(&ow, "an offer", keys);
    const char *prov = dc__get_str(&ow, "provider", true);
    if (prov != NULL && !dc_provider_parse(prov, &o->provider))
        dc__diag(w->L, w->file, dc__line_of(&ow, w->obj), ow.id, "unknown provider \"%.40s\"",
                 prov);
    else if (prov != NULL && (rs->accs[po->acc].providers & (1u << o->provider)) == 0)
        dc__diag(w->L, w->file, dc__line_of(&ow, w->obj), ow.id,
                 "the catalog does not list %s among the providers of %s", prov, ow.id);
    o->region = dc__get_str(&ow, "region", true);
    o->offer = dc__get_str(&ow, "offer", true);
    o->source = dc__get_url(&ow, "source", true);
    o->via = dc__get_url(&ow, "via", false);
    const char *conf = dc__get_str(&ow, "confidence", true);
    if (conf != NULL && strcmp(conf, "high") != 0 && strcmp(conf, "low") != 0)
        dc__diag(w->L, w->file, dc__line_of(&ow, w->obj), ow.id,
                 "\"confidence\" must be high or low");
    o->low_confidence = conf != NULL && strcmp(conf, "low") == 0;
    bool any = false;
    for (size_t b = 0; b < DC_PRICING_COUNT; b++) {
        o->price[b] = (struct dc_price){NAN, NULL};
        const cJSON *basis = dc__get_obj(&ow, dc_pricing_name((enum dc_pricing)b), false);
        if (basis != NULL) {
            parse_basis(&ow, basis, &o->price[b]);
            any = true;
        }
    }
    if (!any)
        dc__diag(w->L, w->file, dc__line_of(&ow, w->obj), ow.id,
                 "an offer needs a price on at least one of on_demand, spot, committed_1y, "
                 "committed_3y");
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

static void check_duplicate(const struct dc__where *w, const struct parsed_offer *po, size_t n,
                            const dc_ruleset *rs)
{
    const struct parsed_offer *last = &po[n - 1];
    for (size_t j = 0; j + 1 < n; j++) {
        if (po[j].acc == last->acc && po[j].offer.provider == last->offer.provider &&
            po[j].offer.region != NULL && last->offer.region != NULL &&
            strcmp(po[j].offer.region, last->offer.region) == 0)
            dc__diag(w->L, w->file, dc__line_of(w, w->obj), rs->accs[last->acc].id,
                     "a second %s offer in %s: one offer per provider and region",
                     dc_provider_name(last->offer.provider), last->offer.region);
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

/* hardware: [{accelerator, usd_per_chip, as_of, source}]: list prices for
 * on-premises cost, amortised over sizing.yaml's on_prem.amortization_years. */
static void load_hardware(dc_ruleset *rs, const struct dc__where *w, const cJSON *list)
{
    static const char *const keys[] = {"accelerator", "usd_per_chip", "as_of", "source", NULL};
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, list)
    {
        struct dc__where hw = dc__sub(w, it);
        size_t idx = 0;
        const char *acc = cJSON_IsObject(it) ? dc__get_str(&hw, "accelerator", true) : NULL;
        if (!cJSON_IsObject(it)) {
            dc__diag(w->L, w->file, dc__line_of(&hw, it), NULL,
                     "each hardware price must be a mapping");
            continue;
        }
        if (acc == NULL)
            continue;
        if (!dc__find_acc(rs, acc, &idx)) {
            dc__diag(w->L, w->file, dc__line_of(&hw, it), acc,
                     "unknown accelerator \"%s\" (not in the catalog)", acc);
            continue;
        }
        struct dc_accelerator *a = &rs->accs[idx];
        hw.id = a->id;
        dc__check_keys(&hw, "a hardware price", keys);
        if (isfinite(a->list_price_usd))
            dc__diag(w->L, w->file, dc__line_of(&hw, it), a->id, "a second hardware price");
        a->list_price_usd = dc__get_num(&hw, "usd_per_chip", true, 1, 1e9);
        a->list_price_as_of = get_date(&hw, "as_of");
        a->list_price_source = dc__get_url(&hw, "source", true);
    }
}

void dc__load_prices(struct dc__loader *L, dc_ruleset *rs, const char *file, const dc_yaml_doc *doc,
                     const cJSON *root)
{
    static const char *const keys[] = {"prices", "hardware", NULL};
    struct dc__where w = {L, file, doc, NULL, root};
    if (!cJSON_IsObject(root)) {
        dc__diag(L, file, 1, NULL, "prices.yaml must be a mapping with \"prices\"");
        return;
    }
    dc__check_keys(&w, "prices.yaml", keys);
    const cJSON *offers = dc__get_arr(&w, "prices", true);
    if (offers != NULL)
        load_offers(L, rs, &w, offers);
    const cJSON *hardware = dc__get_arr(&w, "hardware", false);
    if (hardware != NULL)
        load_hardware(rs, &w, hardware);
}
