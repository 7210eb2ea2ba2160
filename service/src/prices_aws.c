/* service/src/prices_aws.c -- the AWS Price List API's AmazonEC2 offer file
 * into offers (service/src/prices_import.h). The file is one JSON object of up
 * to SVC_PRICES_IMPORT_MAX_BYTES; parsing it whole into a tree costs about 40
 * times its size and looking each SKU's terms up in it is quadratic (issue 35,
 * item 17), so it is walked once as text: each product, and each term of a
 * product kept, is parsed alone, and the SKUs kept are indexed by a hash. Time
 * is linear in the file and memory bounded by its largest single product or
 * term plus the offers kept. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "prices_import.h"
#include "prices_json.h"

/* Longest SKU kept (AWS's are 16 characters). */
#define SKU_MAX SVC_JSON_KEY_MAX

struct sku {
    char name[SKU_MAX + 1];
    uint32_t offer; /* index into im->offers */
};

struct aws {
    const char *file;
    const char *end;
    const struct svc_price_map *map;
    const struct svc_import_opts *o;
    struct svc_import *im;
    FILE *report;
    char as_of[11];
    struct sku *skus; /* open-addressed, nskus slots (a power of two) */
    size_t nskus, used;
    bool oom;
};

static uint32_t sku_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static struct sku *sku_slot(struct sku *t, size_t n, const char *name)
{
    size_t i = sku_hash(name) & (n - 1);
    while (t[i].name[0] != '\0' && strcmp(t[i].name, name) != 0)
        i = (i + 1) & (n - 1);
    return &t[i];
}

/* Remember that SKU `name` prices offer `offer`; the table doubles at half
 * full. */
static void sku_add(struct aws *a, const char *name, uint32_t offer)
{
    if (2 * (a->used + 1) > a->nskus) {
        size_t n = a->nskus != 0 ? 2 * a->nskus : 1024;
        struct sku *t = calloc(n, sizeof(*t));
        if (t == NULL) {
            a->oom = true;
            return;
        }
        for (size_t i = 0; i < a->nskus; i++) {
            if (a->skus[i].name[0] != '\0')
                *sku_slot(t, n, a->skus[i].name) = a->skus[i];
        }
        free(a->skus);
        a->skus = t;
        a->nskus = n;
    }
    struct sku *s = sku_slot(a->skus, a->nskus, name);
    if (s->name[0] == '\0')
        a->used++;
    snprintf(s->name, sizeof(s->name), "%s", name);
    s->offer = offer;
}

static const struct sku *sku_find(const struct aws *a, const char *name)
{
    if (a->nskus == 0 || name[0] == '\0')
        return NULL;
    const struct sku *s = sku_slot(a->skus, a->nskus, name);
    return s->name[0] != '\0' ? s : NULL;
}

static const char *attr(const cJSON *attrs, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(attrs, key));
}

static bool attr_is(const cJSON *attrs, const char *key, const char *want)
{
    const char *v = attr(attrs, key);
    return v != NULL && strcmp(v, want) == 0;
}

/* A positive finite number, or NAN. */
static double number(const char *s)
{
    char *end = NULL;
    double v = s != NULL && *s != '\0' ? strtod(s, &end) : NAN;
    return end != NULL && *end == '\0' && isfinite(v) && v > 0 ? v : NAN;
}

/* A Linux, shared-tenancy instance without pre-installed software in the
 * region asked for: the row a price list gives for renting the machine. */
static bool plain_instance(const cJSON *p, const cJSON *a, const struct svc_import_opts *o)
{
    return attr_is(p, "productFamily", "Compute Instance") &&
           attr_is(a, "operatingSystem", "Linux") && attr_is(a, "tenancy", "Shared") &&
           attr_is(a, "preInstalledSw", "NA") && attr_is(a, "capacitystatus", "Used") &&
           attr(a, "instanceType") != NULL && attr(a, "regionCode") != NULL &&
           (o->region == NULL || attr_is(a, "regionCode", o->region));
}

/* The row of one product, or false (counted, and reported where it is
 * refused rather than of another kind). */
static bool product_row(struct aws *a, const cJSON *p, const char *sku,
                        struct svc_import_offer *row)
{
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(p, "attributes");
    const char *gpu = attr(at, "gpu");
    double gpus = number(gpu);
    snprintf(row->where, sizeof(row->where), "%s: SKU %s", a->file, sku);
    if (!plain_instance(p, at, a->o) || gpu == NULL || strcmp(gpu, "0") == 0) {
        a->im->skipped++;
        return false;
    }
    const char *type = attr(at, "instanceType");
    char family[64];
    snprintf(family, sizeof(family), "%.*s", (int)strcspn(type, "."), type);
    const char *acc = svc_price_map_find(a->map, SVC_PRICES_AWS, family);
    if (acc == NULL) {
        a->im->unmapped++;
        fprintf(a->report, "%s: unmapped %s (%.*s)\n", a->file, family, SVC_PRICES_INSTANCE_MAX,
                type);
        return false;
    }
    char why[160];
    if (!(gpus >= 1 && gpus <= SVC_PRICES_COUNT_MAX && gpus == floor(gpus)))
        snprintf(why, sizeof(why), "gpu \"%.40s\" is not a whole number of 1 to %g", gpu,
                 SVC_PRICES_COUNT_MAX);
    else if (strlen(type) > SVC_PRICES_INSTANCE_MAX ||
             strlen(attr(at, "regionCode")) + strlen(a->o->prefix) > SVC_PRICES_REGION_MAX)
        snprintf(why, sizeof(why), "instance type over %d or region over %d bytes",
                 SVC_PRICES_INSTANCE_MAX, SVC_PRICES_REGION_MAX);
    else
        why[0] = '\0';
    if (why[0] != '\0') {
        a->im->dropped++;
        fprintf(a->report, "%s: dropped: %s\n", row->where, why);
        return false;
    }
    snprintf(row->accelerator, sizeof(row->accelerator), "%s", acc);
    snprintf(row->name, sizeof(row->name), "%s", family);
    snprintf(row->instance_type, sizeof(row->instance_type), "%s", type);
    snprintf(row->region, sizeof(row->region), "%s%s", a->o->prefix, attr(at, "regionCode"));
    row->accelerators = (unsigned)gpus;
    row->vcpus = number(attr(at, "vcpu"));
    row->memory_gb = strtod(attr(at, "memory") != NULL ? attr(at, "memory") : "", NULL);
    row->memory_gb = isfinite(row->memory_gb) && row->memory_gb > 0 ? row->memory_gb : NAN;
    for (size_t b = 0; b < DC_PRICING_COUNT; b++)
        row->price[b] = NAN;
    snprintf(row->as_of, sizeof(row->as_of), "%s", a->as_of);
    return true;
}

static void product(struct aws *a, const struct svc_json_member *m)
{
    cJSON *p = svc_json_parse(m);
    struct svc_import_offer row;
    memset(&row, 0, sizeof(row));
    if (p == NULL) {
        a->im->dropped++;
        fprintf(a->report, "%s: product %s: dropped: not JSON\n", a->file, m->key);
    } else if (m->key[0] == '\0') {
        a->im->dropped++;
        fprintf(a->report, "%s: dropped: a product whose SKU is over %d bytes\n", a->file, SKU_MAX);
    } else if (product_row(a, p, m->key, &row)) {
        long i = svc_import_add(a->im, &row, a->report);
        if (i >= 0)
            sku_add(a, m->key, (uint32_t)i);
    }
    cJSON_Delete(p);
}

/* The hourly USD rate of one term (its "Hrs" dimension), or NAN. */
static double term_hourly(const cJSON *term)
{
    const cJSON *d = NULL;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(term, "priceDimensions"))
    {
        if (attr_is(d, "unit", "Hrs"))
            return number(attr(cJSON_GetObjectItemCaseSensitive(d, "pricePerUnit"), "USD"));
    }
    return NAN;
}

/* The basis a term prices: on demand, or a no-upfront standard 1- or 3-year
 * reservation; DC_PRICING_COUNT for any other. */
static enum dc_pricing term_basis(bool reserved, const cJSON *t)
{
    const cJSON *ta = cJSON_GetObjectItemCaseSensitive(t, "termAttributes");
    if (!reserved)
        return DC_PRICING_ON_DEMAND;
    if (!attr_is(ta, "PurchaseOption", "No Upfront") || !attr_is(ta, "OfferingClass", "standard"))
        return DC_PRICING_COUNT;
    if (attr_is(ta, "LeaseContractLength", "1yr"))
        return DC_PRICING_COMMITTED_1Y;
    if (attr_is(ta, "LeaseContractLength", "3yr"))
        return DC_PRICING_COMMITTED_3Y;
    return DC_PRICING_COUNT;
}

/* One SKU's terms of one kind (OnDemand or Reserved) into its offer. */
static void sku_terms(struct aws *a, bool reserved, const struct svc_json_member *m)
{
    const struct sku *s = sku_find(a, m->key);
    if (s == NULL)
        return;
    cJSON *terms = svc_json_parse(m);
    const cJSON *t = NULL;
    struct svc_import_offer *of = &a->im->offers[s->offer];
    if (terms == NULL) {
        a->im->dropped++;
        fprintf(a->report, "%s: terms of SKU %s: dropped: not JSON\n", a->file, m->key);
    }
    cJSON_ArrayForEach(t, terms)
    {
        enum dc_pricing b = term_basis(reserved, t);
        double v = b != DC_PRICING_COUNT ? term_hourly(t) : NAN;
        if (!isnan(v))
            of->price[b] = v;
    }
    cJSON_Delete(terms);
}

/* terms: {OnDemand: {SKU: {...}}, Reserved: {SKU: {...}}, ...}. */
static bool walk_terms(struct aws *a, const struct svc_json_member *terms)
{
    const char *p = terms->val;
    struct svc_json_member kind, m;
    int r;
    for (bool first = true; (r = svc_json_next(&p, a->end, first, &kind)) == 1; first = false) {
        bool reserved = strcmp(kind.key, "Reserved") == 0;
        if (!reserved && strcmp(kind.key, "OnDemand") != 0)
            continue;
        const char *q = kind.val;
        int rq;
        for (bool f2 = true; (rq = svc_json_next(&q, a->end, f2, &m)) == 1; f2 = false)
            sku_terms(a, reserved, &m);
        if (rq < 0)
            return false;
    }
    return r == 0;
}

static bool walk_products(struct aws *a, const struct svc_json_member *products)
{
    const char *p = products->val;
    struct svc_json_member m;
    int r;
    for (bool first = true; (r = svc_json_next(&p, a->end, first, &m)) == 1 && !a->im->full;
         first = false)
        product(a, &m);
    return r >= 0;
}

/* The offer file's date: publicationDate's YYYY-MM-DD (the rest of it, a time
 * of day, must follow a 'T'); false when it has none. */
static bool publication_date(const struct svc_json_member *m, char *out)
{
    cJSON *v = svc_json_parse(m);
    const char *s = cJSON_GetStringValue(v);
    bool ok = s != NULL && strlen(s) >= 10 && (s[10] == '\0' || s[10] == 'T');
    for (size_t i = 0; ok && i < 10; i++)
        ok = i == 4 || i == 7 ? s[i] == '-' : s[i] >= '0' && s[i] <= '9';
    if (ok)
        snprintf(out, 11, "%.10s", s);
    cJSON_Delete(v);
    return ok;
}

/* Every SKU kept without an on-demand rate is dropped: the offer would have
 * only reservations, which the file sells only beside it. */
static void drop_unpriced(struct aws *a)
{
    for (size_t i = 0; i < a->im->n; i++) {
        struct svc_import_offer *of = &a->im->offers[i];
        if (!of->dropped && isnan(of->price[DC_PRICING_ON_DEMAND])) {
            of->dropped = true;
            a->im->dropped++;
            fprintf(a->report, "%s: dropped: no on-demand rate in terms\n", of->where);
        }
    }
}

enum dc_status svc_import_aws(const char *file, const char *text, size_t len,
                              const struct svc_price_map *map, const struct svc_import_opts *o,
                              struct svc_import *im, FILE *report, struct dc_error *err)
{
    struct aws a = {file, text + len, map, o, im, report, "", NULL, 0, 0, false};
    struct svc_json_member top, products = {"", NULL, NULL}, terms = {"", NULL, NULL};
    bool dated = false;
    const char *p = text;
    int r;
    for (bool first = true; (r = svc_json_next(&p, a.end, first, &top)) == 1; first = false) {
        if (strcmp(top.key, "products") == 0)
            products = top;
        else if (strcmp(top.key, "terms") == 0)
            terms = top;
        else if (strcmp(top.key, "publicationDate") == 0)
            dated = publication_date(&top, a.as_of);
    }
    if (r < 0 || svc_json_ws(p, a.end) != a.end || products.val == NULL || terms.val == NULL ||
        !dated)
        return dc_error_set(err, DC_EPARSE, NULL,
                            "%s: not an AWS Price List offer file (one JSON object with products, "
                            "terms and a publicationDate YYYY-MM-DDThh:mm:ssZ)",
                            file);
    if (o->as_of != NULL)
        snprintf(a.as_of, sizeof(a.as_of), "%s", o->as_of);
    bool ok = walk_products(&a, &products) && (im->full || walk_terms(&a, &terms));
    free(a.skus);
    if (a.oom)
        return dc_error_set(err, DC_ENOMEM, NULL, "%s: out of memory", file);
    if (!ok)
        return dc_error_set(err, DC_EPARSE, NULL, "%s: products or terms are not JSON objects",
                            file);
    drop_unpriced(&a);
    return DC_OK;
}
