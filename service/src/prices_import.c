/* service/src/prices_import.c -- public price catalogs into prices.yaml offers
 * (service/src/prices_import.h; format: docs/rules-format.md). Every input is
 * a file from outside: rows that do not parse are reported, never guessed. */
#include "prices_import.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

bool svc_price_format_parse(const char *s, enum svc_price_format *out)
{
    if (strcmp(s, "skypilot") == 0)
        *out = SVC_PRICES_SKYPILOT;
    else if (strcmp(s, "aws") == 0)
        *out = SVC_PRICES_AWS;
    else
        return false;
    return true;
}

/* Split one CSV line in place into at most `max` fields (double quotes may
 * hold commas); the number found. */
static size_t csv_fields(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *p = line;
    while (n < max) {
        bool quoted = *p == '"';
        f[n++] = quoted ? ++p : p;
        while (*p != '\0' && (quoted ? *p != '"' : *p != ','))
            p++;
        if (quoted && *p == '"')
            *p++ = '\0';
        if (*p != ',')
            break;
        *p++ = '\0';
    }
    *p = '\0';
    return n;
}

static void chomp(char *s)
{
    size_t k = strlen(s);
    while (k > 0 && (s[k - 1] == '\n' || s[k - 1] == '\r'))
        s[--k] = '\0';
}

enum dc_status svc_price_map_load(const char *path, struct svc_price_map *map, struct dc_error *err)
{
    FILE *fp = fopen(path, "r");
    char line[256];
    unsigned no = 0;
    map->n = 0;
    if (fp == NULL)
        return dc_error_set(err, DC_EIO, NULL, "%s: cannot read the name table", path);
    while (fgets(line, sizeof(line), fp) != NULL) {
        no++;
        chomp(line);
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *f[4];
        struct svc_price_name *r = &map->rows[map->n];
        if (map->n == SVC_PRICES_MAP_MAX || csv_fields(line, f, 4) != 3 ||
            !svc_price_format_parse(f[0], &r->format) || strlen(f[1]) >= sizeof(r->name) ||
            f[1][0] == '\0' || strlen(f[2]) >= sizeof(r->accelerator) || f[2][0] == '\0') {
            fclose(fp);
            return dc_error_set(err, DC_EPARSE, NULL,
                                "%s:%u: expected format,name,accelerator (at most %d rows)", path,
                                no, SVC_PRICES_MAP_MAX);
        }
        snprintf(r->name, sizeof(r->name), "%s", f[1]);
        snprintf(r->accelerator, sizeof(r->accelerator), "%s", f[2]);
        map->n++;
    }
    fclose(fp);
    return DC_OK;
}

const char *svc_price_map_find(const struct svc_price_map *map, enum svc_price_format format,
                               const char *name)
{
    for (size_t i = 0; name != NULL && i < map->n; i++) {
        if (map->rows[i].format == format && strcmp(map->rows[i].name, name) == 0)
            return map->rows[i].accelerator;
    }
    return NULL;
}

/* A positive finite number, or NAN. */
static double number(const char *s)
{
    char *end = NULL;
    double v = s != NULL && *s != '\0' ? strtod(s, &end) : NAN;
    return end != NULL && *end == '\0' && isfinite(v) && v > 0 ? v : NAN;
}

/* The offer for (instance type, region), added when new; NULL when full. */
static struct svc_import_offer *offer_for(struct svc_import *im, const char *acc, const char *type,
                                          const char *region)
{
    for (size_t i = 0; i < im->n; i++) {
        struct svc_import_offer *o = &im->offers[i];
        if (strcmp(o->instance_type, type) == 0 && strcmp(o->region, region) == 0)
            return o;
    }
    if (im->n == SVC_PRICES_IMPORT_MAX)
        return NULL;
    struct svc_import_offer *o = &im->offers[im->n++];
    memset(o, 0, sizeof(*o));
    snprintf(o->accelerator, sizeof(o->accelerator), "%s", acc);
    snprintf(o->instance_type, sizeof(o->instance_type), "%s", type);
    snprintf(o->region, sizeof(o->region), "%s", region);
    o->vcpus = o->memory_gb = NAN;
    for (size_t b = 0; b < DC_PRICING_COUNT; b++)
        o->price[b] = NAN;
    return o;
}

/* The column of `name` in the header, or -1. */
static int column(char **h, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(h[i], name) == 0)
            return (int)i;
    }
    return -1;
}

enum { SKY_TYPE, SKY_ACC, SKY_COUNT, SKY_VCPUS, SKY_MEM, SKY_PRICE, SKY_SPOT, SKY_REGION, SKY_N };

/* One data row of a SkyPilot CSV into `im`. */
static void sky_row(char **f, const int *col, const struct svc_price_map *map,
                    const struct svc_import_opts *o, struct svc_import *im, const char *file,
                    unsigned no, FILE *report)
{
    const char *name = f[col[SKY_ACC]];
    double count = number(f[col[SKY_COUNT]]), od = number(f[col[SKY_PRICE]]);
    const char *region = f[col[SKY_REGION]];
    if (name[0] == '\0' || !(count >= 1) || count != floor(count) ||
        (o->region != NULL && strcmp(o->region, region) != 0)) {
        im->skipped++;
        return;
    }
    const char *acc = svc_price_map_find(map, SVC_PRICES_SKYPILOT, name);
    if (acc == NULL || !isfinite(od)) {
        im->unmapped += acc == NULL;
        im->skipped += acc != NULL;
        fprintf(report, "%s:%u: %s %s (%s)\n", file, no, acc == NULL ? "unmapped" : "no price in",
                name, f[col[SKY_TYPE]]);
        return;
    }
    struct svc_import_offer *of = offer_for(im, acc, f[col[SKY_TYPE]], region);
    if (of == NULL)
        return;
    of->accelerators = (unsigned)count;
    of->vcpus = number(f[col[SKY_VCPUS]]);
    of->memory_gb = number(f[col[SKY_MEM]]);
    of->price[DC_PRICING_ON_DEMAND] = od;
    /* One row per availability zone: the zone with the lowest spot price. */
    double spot = col[SKY_SPOT] >= 0 ? number(f[col[SKY_SPOT]]) : NAN;
    if (isfinite(spot) && !(of->price[DC_PRICING_SPOT] <= spot))
        of->price[DC_PRICING_SPOT] = spot;
    snprintf(of->as_of, sizeof(of->as_of), "%s", o->as_of);
}

enum dc_status svc_import_skypilot(const char *file, char *text, const struct svc_price_map *map,
                                   const struct svc_import_opts *o, struct svc_import *im,
                                   FILE *report, struct dc_error *err)
{
    static const char *const names[SKY_N] = {"InstanceType", "AcceleratorName", "AcceleratorCount",
                                             "vCPUs",        "MemoryGiB",       "Price",
                                             "SpotPrice",    "Region"};
    char *save = NULL;
    char *line = strtok_r(text, "\n", &save);
    char *h[32], *f[32];
    size_t nh = line != NULL ? csv_fields(line, h, 32) : 0;
    int col[SKY_N];
    for (size_t i = 0; i < SKY_N; i++) {
        col[i] = column(h, nh, names[i]);
        if (col[i] < 0 && i != SKY_SPOT)
            return dc_error_set(err, DC_EPARSE, NULL, "%s:1: not a SkyPilot catalog: no %s column",
                                file, names[i]);
    }
    unsigned no = 1;
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        no++;
        chomp(line);
        if (csv_fields(line, f, 32) != nh) {
            fprintf(report, "%s:%u: not %zu fields; skipped\n", file, no, nh);
            im->skipped++;
            continue;
        }
        sky_row(f, col, map, o, im, file, no, report);
    }
    return DC_OK;
}

static const char *attr(const cJSON *attrs, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(attrs, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool attr_is(const cJSON *attrs, const char *key, const char *want)
{
    const char *v = attr(attrs, key);
    return v != NULL && strcmp(v, want) == 0;
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

/* On-demand and no-upfront standard 1- and 3-year rates of one SKU. */
static void aws_terms(const cJSON *terms, const char *sku, double *price)
{
    const cJSON *t = NULL;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(
                              cJSON_GetObjectItemCaseSensitive(terms, "OnDemand"), sku))
    {
        price[DC_PRICING_ON_DEMAND] = term_hourly(t);
    }
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(
                              cJSON_GetObjectItemCaseSensitive(terms, "Reserved"), sku))
    {
        const cJSON *ta = cJSON_GetObjectItemCaseSensitive(t, "termAttributes");
        if (!attr_is(ta, "PurchaseOption", "No Upfront") ||
            !attr_is(ta, "OfferingClass", "standard"))
            continue;
        if (attr_is(ta, "LeaseContractLength", "1yr"))
            price[DC_PRICING_COMMITTED_1Y] = term_hourly(t);
        else if (attr_is(ta, "LeaseContractLength", "3yr"))
            price[DC_PRICING_COMMITTED_3Y] = term_hourly(t);
    }
}

/* A Linux, shared-tenancy instance without pre-installed software in the
 * region asked for: the row a price list gives for renting the machine. */
static bool aws_plain_instance(const cJSON *p, const cJSON *a, const struct svc_import_opts *o)
{
    return attr_is(p, "productFamily", "Compute Instance") &&
           attr_is(a, "operatingSystem", "Linux") && attr_is(a, "tenancy", "Shared") &&
           attr_is(a, "preInstalledSw", "NA") && attr_is(a, "capacitystatus", "Used") &&
           attr(a, "instanceType") != NULL && attr(a, "regionCode") != NULL &&
           (o->region == NULL || attr_is(a, "regionCode", o->region));
}

static void aws_product(const cJSON *p, const cJSON *terms, const struct svc_price_map *map,
                        const struct svc_import_opts *o, const char *as_of, struct svc_import *im,
                        const char *file, FILE *report)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(p, "attributes");
    double gpus = number(attr(a, "gpu"));
    if (!aws_plain_instance(p, a, o) || !(gpus >= 1) || gpus != floor(gpus)) {
        im->skipped++;
        return;
    }
    const char *type = attr(a, "instanceType");
    char family[64];
    snprintf(family, sizeof(family), "%.*s", (int)strcspn(type, "."), type);
    const char *acc = svc_price_map_find(map, SVC_PRICES_AWS, family);
    if (acc == NULL) {
        im->unmapped++;
        fprintf(report, "%s: unmapped %s (%s)\n", file, family, type);
        return;
    }
    double price[DC_PRICING_COUNT] = {NAN, NAN, NAN, NAN};
    aws_terms(terms, p->string, price);
    struct svc_import_offer *of = isfinite(price[DC_PRICING_ON_DEMAND])
                                      ? offer_for(im, acc, type, attr(a, "regionCode"))
                                      : NULL;
    if (of == NULL) {
        im->skipped++;
        return;
    }
    of->accelerators = (unsigned)gpus;
    of->vcpus = number(attr(a, "vcpu"));
    of->memory_gb = strtod(attr(a, "memory") != NULL ? attr(a, "memory") : "", NULL);
    of->memory_gb = of->memory_gb > 0 ? of->memory_gb : NAN;
    memcpy(of->price, price, sizeof(price));
    snprintf(of->as_of, sizeof(of->as_of), "%s", as_of);
}

enum dc_status svc_import_aws(const char *file, const char *text, const struct svc_price_map *map,
                              const struct svc_import_opts *o, struct svc_import *im, FILE *report,
                              struct dc_error *err)
{
    cJSON *doc = cJSON_Parse(text);
    const char *pub = attr(doc, "publicationDate");
    const cJSON *products = cJSON_GetObjectItemCaseSensitive(doc, "products");
    const cJSON *terms = cJSON_GetObjectItemCaseSensitive(doc, "terms");
    if (!cJSON_IsObject(products) || !cJSON_IsObject(terms) || pub == NULL || strlen(pub) < 10) {
        cJSON_Delete(doc);
        return dc_error_set(err, DC_EPARSE, NULL,
                            "%s: not an AWS Price List offer file (products, terms, "
                            "publicationDate)",
                            file);
    }
    char as_of[11];
    snprintf(as_of, sizeof(as_of), "%s", o->as_of != NULL ? o->as_of : pub);
    const cJSON *p = NULL;
    cJSON_ArrayForEach(p, products) aws_product(p, terms, map, o, as_of, im, file, report);
    cJSON_Delete(doc);
    return DC_OK;
}

/* A YAML double-quoted scalar (JSON escapes are valid in it). */
static void put_str(FILE *fp, const char *s)
{
    cJSON *item = cJSON_CreateStringReference(s); /* the string stays the caller's */
    char *q = item != NULL ? cJSON_PrintUnformatted(item) : NULL;
    fputs(q != NULL ? q : "\"\"", fp);
    cJSON_free(q);
    cJSON_Delete(item);
}

static void put_key(FILE *fp, const char *key, const char *s)
{
    fprintf(fp, "    %s: ", key);
    put_str(fp, s);
    fputc('\n', fp);
}

void svc_import_write(FILE *fp, const struct svc_import *im, const struct svc_import_opts *o)
{
    fprintf(fp, "# Written by `accel-advisor prices import` (docs/rules-format.md).\nprices:\n");
    for (size_t i = 0; i < im->n; i++) {
        const struct svc_import_offer *of = &im->offers[i];
        fprintf(fp, "  - accelerator: %s\n", of->accelerator);
        put_key(fp, "provider", o->provider);
        put_key(fp, "region", of->region);
        put_key(fp, "instance_type", of->instance_type);
        fprintf(fp, "    accelerators: %u\n", of->accelerators);
        if (isfinite(of->vcpus))
            fprintf(fp, "    vcpus: %.10g\n", of->vcpus);
        if (isfinite(of->memory_gb))
            fprintf(fp, "    memory_gb: %.10g\n", of->memory_gb);
        put_key(fp, "source", o->source);
        if (o->via != NULL)
            put_key(fp, "via", o->via);
        put_key(fp, "confidence", o->confidence);
        for (size_t b = 0; b < DC_PRICING_COUNT; b++) {
            if (isfinite(of->price[b]))
                fprintf(fp, "    %s: {usd_per_hour: %.10g, as_of: \"%s\"}\n",
                        dc_pricing_name((enum dc_pricing)b), of->price[b], of->as_of);
        }
    }
}
