/* service/src/prices_azure.c -- Azure's Retail Prices API export into offers
 * (service/src/prices_import.h): a page of
 * https://prices.azure.com/api/retail/prices (api-version 2023-01-01-preview,
 * the one that carries savings plans) saved as it comes, {"Items": [...]}, one
 * page a file
 * (https://learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices). An item
 * is one meter: a VM size (armSkuName) in a region (armRegionName) on one basis. Kept: USD,
 * "Virtual Machines" (where the item names its service; a trimmed copy may not, and the name
 * table's armSkuName is a VM size anyway), "1 Hour", Linux (a productName without " Windows"),
 * primary-region Consumption meters: the on-demand rate, or spot where the meter is named "...
 * Spot", and each savings plan's rate (committed_1y, committed_3y), the commitment
 * rules/prices.yaml reads from Azure. Low Priority meters and Reservation items are left out
 * (skipped). The items carry no accelerator count and no date of the copy: the name table gives the
 * count (its fourth column), the operator the date. The export is walked as text, one item parsed
 * at a time (prices_json.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prices_import.h"
#include "prices_json.h"

struct azure {
    const char *file;
    const struct svc_price_map *map;
    const struct svc_import_opts *o;
    struct svc_import *im;
    FILE *report;
};

static const char *str(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static bool is(const cJSON *o, const char *key, const char *want)
{
    const char *v = str(o, key);
    return v != NULL && strcmp(v, want) == 0;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = s != NULL ? strlen(s) : 0, k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

/* A positive finite number, or NAN. */
static double price_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble > 0 ? v->valuedouble
                                                                               : NAN;
}

/* Whether an item is a meter of renting a Linux VM by the hour in USD; the
 * basis it prices in *b (on demand or spot). */
static bool vm_meter(const cJSON *it, const struct svc_import_opts *o, enum dc_pricing *b)
{
    const cJSON *primary = cJSON_GetObjectItemCaseSensitive(it, "isPrimaryMeterRegion");
    const char *meter = str(it, "meterName");
    const char *service = str(it, "serviceName");
    if (!is(it, "currencyCode", "USD") ||
        (service != NULL && strcmp(service, "Virtual Machines") != 0) ||
        !is(it, "unitOfMeasure", "1 Hour") || !is(it, "type", "Consumption") ||
        ends_with(str(it, "productName"), " Windows") || ends_with(meter, " Low Priority") ||
        cJSON_IsFalse(primary) || str(it, "armSkuName") == NULL ||
        str(it, "armRegionName") == NULL ||
        (o->region != NULL && !is(it, "armRegionName", o->region)))
        return false;
    *b = ends_with(meter, " Spot") ? DC_PRICING_SPOT : DC_PRICING_ON_DEMAND;
    return true;
}

/* The savings plans of an on-demand meter (their hourly rates). */
static void savings_plans(const cJSON *it, double *price)
{
    const cJSON *sp = NULL;
    cJSON_ArrayForEach(sp, cJSON_GetObjectItemCaseSensitive(it, "savingsPlan"))
    {
        if (is(sp, "term", "1 Year"))
            price[DC_PRICING_COMMITTED_1Y] = price_of(sp, "retailPrice");
        else if (is(sp, "term", "3 Years"))
            price[DC_PRICING_COMMITTED_3Y] = price_of(sp, "retailPrice");
    }
}

static void item(struct azure *z, const cJSON *it, size_t no)
{
    struct svc_import_offer row;
    enum dc_pricing b;
    memset(&row, 0, sizeof(row));
    snprintf(row.where, sizeof(row.where), "%s: item %zu", z->file, no);
    if (!cJSON_IsObject(it) || !vm_meter(it, z->o, &b)) {
        z->im->skipped++;
        return;
    }
    const char *sku = str(it, "armSkuName"), *region = str(it, "armRegionName");
    const struct svc_price_name *n = svc_price_map_row(z->map, SVC_PRICES_AZURE, sku);
    if (n == NULL) {
        z->im->unmapped++;
        fprintf(z->report, "%s: unmapped %.*s\n", row.where, SVC_PRICES_INSTANCE_MAX, sku);
        return;
    }
    for (size_t k = 0; k < DC_PRICING_COUNT; k++)
        row.price[k] = NAN;
    row.price[b] = price_of(it, "retailPrice");
    if (b == DC_PRICING_ON_DEMAND)
        savings_plans(it, row.price);
    if (isnan(row.price[b]) || strlen(sku) > SVC_PRICES_INSTANCE_MAX ||
        strlen(region) > SVC_PRICES_REGION_MAX) {
        z->im->dropped++;
        fprintf(z->report, "%s: dropped: %s\n", row.where,
                isnan(row.price[b]) ? "no positive retailPrice"
                                    : "armSkuName or armRegionName over its limit");
        return;
    }
    snprintf(row.accelerator, sizeof(row.accelerator), "%s", n->accelerator);
    snprintf(row.name, sizeof(row.name), "%s", n->name);
    snprintf(row.instance_type, sizeof(row.instance_type), "%s", sku);
    snprintf(row.region, sizeof(row.region), "%s", region);
    row.accelerators = n->count;
    row.vcpus = row.memory_gb = NAN;
    snprintf(row.as_of, sizeof(row.as_of), "%s", z->o->as_of);
    svc_import_add(z->im, &row, z->report);
}

enum dc_status svc_import_azure(const char *file, const char *text, size_t len,
                                const struct svc_price_map *map, const struct svc_import_opts *o,
                                struct svc_import *im, FILE *report, struct dc_error *err)
{
    struct azure z = {file, map, o, im, report};
    const char *end = text + len, *p = text;
    struct svc_json_member top, items = {"", NULL, NULL}, m;
    int r;
    for (bool first = true; (r = svc_json_next(&p, end, first, &top)) == 1; first = false) {
        if (strcmp(top.key, "Items") == 0)
            items = top;
    }
    if (r < 0 || svc_json_ws(p, end) != end || items.val == NULL)
        return dc_error_set(err, DC_EPARSE, NULL,
                            "%s: not an Azure Retail Prices API page (one JSON object with Items)",
                            file);
    p = items.val;
    size_t no = 0;
    for (bool first = true; (r = svc_json_next_element(&p, end, first, &m)) == 1 && !im->full;
         first = false) {
        cJSON *it = svc_json_parse(&m);
        item(&z, it, no++);
        cJSON_Delete(it);
    }
    if (r < 0)
        return dc_error_set(err, DC_EPARSE, NULL, "%s: Items is not a JSON array", file);
    return DC_OK;
}
