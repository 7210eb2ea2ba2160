/* service/src/prices_show.c -- `accel-advisor prices show [PART[:COUNT]]`
 * (prices_show.h). */
#include "prices_show.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/text_table.h"
#include "suggest.h"

/* One row: an offer priced on one basis. */
struct row {
    const struct dc_accelerator *acc;
    const struct dc_offer *offer;
    unsigned basis; /* enum dc_basis */
    const struct dc_price *price;
    unsigned chips;  /* the instance's, or COUNT for a per-chip offer; 0: per chip, any */
    double per_hour; /* the instance's hourly price; NAN for a per-chip offer without COUNT */
};

/* What the filter asks for. */
struct want {
    const struct dc_accelerator *acc; /* NULL: every part */
    unsigned count;                   /* 0: any */
};

/* Offer `o`'s price on basis `b` (DC_BASIS_RESERVED: its reservation). */
static const struct dc_price *basis_price(const struct dc_offer *o, unsigned b)
{
    return b == DC_BASIS_RESERVED ? &o->reserved.price : &o->price[b];
}

/* "on_demand" as people write it: "on-demand". */
static const char *basis_words(unsigned b, char *buf, size_t len)
{
    snprintf(buf, len, "%s", dc_basis_name((enum dc_basis)b));
    for (char *p = buf; *p != '\0'; p++)
        *p = *p == '_' ? '-' : *p;
    return buf;
}

/* The part `name` names: its id, short name or name, in any case; NULL with
 * the nearest id or short name in *near (or NULL). */
static const struct dc_accelerator *find_part(const dc_ruleset *rs, const char *name,
                                              const char **near)
{
    size_t n = dc_ruleset_accelerator_count(rs);
    const char *words[2 * 64];
    size_t k = 0;
    char lower[128];
    snprintf(lower, sizeof(lower), "%.127s", name);
    for (char *p = lower; *p != '\0'; p++)
        *p = (char)tolower((unsigned char)*p);
    for (size_t i = 0; i < n; i++) {
        const struct dc_accelerator *a = dc_ruleset_accelerator(rs, i);
        if (strcasecmp(name, a->id) == 0 || strcasecmp(name, a->name) == 0 ||
            (a->short_name != NULL && strcasecmp(name, a->short_name) == 0))
            return a;
        if (k + 2 <= sizeof(words) / sizeof(words[0])) {
            words[k++] = a->id;
            if (a->short_name != NULL)
                words[k++] = a->short_name;
        }
    }
    *near = svc_suggest(lower, words, k);
    if (*near == NULL)
        *near = svc_suggest(name, words, k);
    return NULL;
}

/* PART[:COUNT] into *w; false after a message on stderr (status in *status). */
static bool parse_filter(const dc_ruleset *rs, const char *filter, struct want *w, int *status)
{
    w->acc = NULL;
    w->count = 0;
    if (filter == NULL)
        return true;
    char name[128];
    const char *colon = strrchr(filter, ':');
    size_t len = colon != NULL ? (size_t)(colon - filter) : strlen(filter);
    *status = 2;
    if (len == 0 || len >= sizeof(name)) {
        fprintf(stderr, "prices show: PART[:COUNT] expected, as in H100 or H100:8\n");
        return false;
    }
    memcpy(name, filter, len);
    name[len] = '\0';
    if (colon != NULL) {
        char *end = NULL;
        unsigned long c = strtoul(colon + 1, &end, 10);
        if (colon[1] == '\0' || *end != '\0' || c < 1 || c > 100000) {
            fprintf(stderr,
                    "prices show: COUNT in %s must be a number of chips from 1 to "
                    "100,000\n",
                    filter);
            return false;
        }
        w->count = (unsigned)c;
    }
    const char *near = NULL;
    w->acc = find_part(rs, name, &near);
    if (w->acc == NULL) {
        *status = 1;
        fprintf(stderr, "prices show: no part \"%s\" in the catalog%s%s%s\n", name,
                near != NULL ? "; did you mean " : "", near != NULL ? near : "",
                near != NULL ? "?" : "");
        return false;
    }
    return true;
}

/* A row's chips and hourly price under `count` (0: any); false when the
 * offer has no instance of that many chips. */
static bool row_chips(const struct dc_offer *o, const struct dc_price *p, unsigned count,
                      struct row *r)
{
    if (o->accelerators > 0) {
        if (count != 0 && o->accelerators != count)
            return false;
        r->chips = o->accelerators;
        r->per_hour =
            isfinite(p->usd_per_hour) ? p->usd_per_hour : p->usd_per_chip_hour * o->accelerators;
        return true;
    }
    /* Priced per chip for every slice: at COUNT chips when asked. */
    r->chips = count;
    r->per_hour = count != 0 ? p->usd_per_chip_hour * count : NAN;
    return true;
}

static int row_cmp(const void *pa, const void *pb)
{
    const struct row *a = pa, *b = pb;
    if (a->acc != b->acc)
        return a->acc < b->acc ? -1 : 1; /* the catalog's order: one array */
    double x = a->price->usd_per_chip_hour, y = b->price->usd_per_chip_hour;
    if (x != y)
        return x < y ? -1 : 1;
    int c = strcmp(dc_provider_name(a->offer->provider), dc_provider_name(b->offer->provider));
    if (c == 0)
        c = strcmp(a->offer->region, b->offer->region);
    if (c == 0)
        c = strcmp(a->offer->instance_type, b->offer->instance_type);
    return c != 0 ? c : (int)a->basis - (int)b->basis;
}

/* Every row `w` selects, sorted: by part, then price per chip. */
static struct row *collect(const dc_ruleset *rs, const struct want *w, size_t *n)
{
    size_t cap = 64;
    struct row *rows = malloc(cap * sizeof(*rows));
    *n = 0;
    for (size_t i = 0; rows != NULL && i < dc_ruleset_accelerator_count(rs); i++) {
        const struct dc_accelerator *a = dc_ruleset_accelerator(rs, i);
        if (w->acc != NULL && a != w->acc)
            continue;
        for (size_t k = 0; rows != NULL && k < a->n_offers; k++) {
            for (unsigned b = 0; b < DC_BASIS_COUNT; b++) {
                const struct dc_price *p = basis_price(&a->offers[k], b);
                struct row r = {a, &a->offers[k], b, p, 0, NAN};
                if (!isfinite(p->usd_per_chip_hour) || !row_chips(r.offer, p, w->count, &r))
                    continue;
                if (*n == cap) {
                    struct row *more = realloc(rows, 2 * cap * sizeof(*rows));
                    if (more == NULL) {
                        free(rows);
                        return NULL;
                    }
                    rows = more;
                    cap *= 2;
                }
                rows[(*n)++] = r;
            }
        }
    }
    if (rows != NULL)
        qsort(rows, *n, sizeof(*rows), row_cmp);
    return rows;
}

/* ---- the forms ------------------------------------------------------------------------ */

static cJSON *number_or_null(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

/* {"offers": [{accelerator, provider, region, instance_type, accelerators,
 * basis, usd_per_hour, usd_per_chip_hour, as_of, confidence, source}]}. */
static cJSON *document(const struct row *rows, size_t n)
{
    cJSON *doc = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(doc, "offers");
    for (size_t i = 0; list != NULL && i < n; i++) {
        const struct row *r = &rows[i];
        cJSON *o = cJSON_CreateObject();
        if (o == NULL || !cJSON_AddItemToArray(list, o))
            break;
        cJSON_AddStringToObject(o, "accelerator", r->acc->id);
        cJSON_AddStringToObject(o, "provider", dc_provider_name(r->offer->provider));
        cJSON_AddStringToObject(o, "region", r->offer->region);
        cJSON_AddStringToObject(o, "instance_type", r->offer->instance_type);
        cJSON_AddItemToObject(o, "accelerators",
                              r->chips > 0 ? cJSON_CreateNumber(r->chips) : cJSON_CreateNull());
        cJSON_AddStringToObject(o, "basis", dc_basis_name((enum dc_basis)r->basis));
        cJSON_AddItemToObject(o, "usd_per_hour", number_or_null(r->per_hour));
        cJSON_AddNumberToObject(o, "usd_per_chip_hour", r->price->usd_per_chip_hour);
        cJSON_AddStringToObject(o, "as_of", r->price->as_of);
        cJSON_AddStringToObject(o, "confidence", r->offer->low_confidence ? "low" : "high");
        cJSON_AddStringToObject(o, "source", r->offer->source);
    }
    return doc;
}

/* Dollars with cents (a price list's precision), "-" for none. */
static void dollars(char *cell, double v)
{
    if (isfinite(v))
        api_grid_cellf(cell, "$%.2f", v);
    else
        api_grid_cellf(cell, "-");
}

/* The table: fitted to the terminal (-o table; the part, when one is asked
 * for, and the confidence go first) or whole with the source (-o wide). */
static void table(const struct row *rows, size_t n, const struct want *w,
                  const struct svc_output_opts *o)
{
    bool wide = o->format == SVC_OUTPUT_WIDE;
    struct api_grid g = {0};
    /* A column every row holds the same in is the first to go. */
    api_grid_col(&g, "PART", false, wide || w->acc == NULL ? 0 : 1);
    if (wide) {
        api_grid_col(&g, "PROVIDER", false, 0);
        api_grid_col(&g, "REGION", false, 0);
    } else {
        /* "aws us-east-1"; a neocloud's region names it ("nebius eu-north1"). */
        api_grid_col(&g, "WHERE", false, 0);
    }
    api_grid_col(&g, "INSTANCE", false, 0);
    api_grid_col(&g, "CHIPS", true, wide ? 0 : w->count != 0 ? 1 : 4);
    api_grid_col(&g, "BASIS", false, 0);
    api_grid_col(&g, "$/H", true, 0);
    api_grid_col(&g, "$/CHIP-H", true, 0);
    api_grid_col(&g, "AS OF", false, wide ? 0 : 3);
    api_grid_col(&g, "CONFIDENCE", false, wide ? 0 : 2);
    if (wide)
        api_grid_col(&g, "SOURCE", false, 0);
    for (size_t i = 0; i < n; i++) {
        const struct row *r = &rows[i];
        char(*c)[API_GRID_CELL] = api_grid_row(&g);
        if (c == NULL)
            break;
        char words[32];
        size_t k = 0;
        api_grid_cellf(c[k++], "%s",
                       wide || r->acc->short_name == NULL ? r->acc->id : r->acc->short_name);
        const char *provider = dc_provider_name(r->offer->provider);
        if (wide) {
            api_grid_cellf(c[k++], "%s", provider);
            api_grid_cellf(c[k++], "%s", r->offer->region);
        } else if (r->offer->provider == DC_PROVIDER_NEOCLOUD) {
            api_grid_cellf(c[k++], "%s", r->offer->region);
        } else {
            api_grid_cellf(c[k++], "%s %s", provider, r->offer->region);
        }
        api_grid_cellf(c[k++], "%s", r->offer->instance_type);
        if (r->chips > 0)
            api_grid_cellf(c[k++], "%u", r->chips);
        else
            api_grid_cellf(c[k++], "per chip");
        api_grid_cellf(c[k++], "%s", basis_words(r->basis, words, sizeof(words)));
        dollars(c[k++], r->per_hour);
        dollars(c[k++], r->price->usd_per_chip_hour);
        api_grid_cellf(c[k++], "%s", r->price->as_of);
        api_grid_cellf(c[k++], "%s", r->offer->low_confidence ? "low" : "high");
        if (wide)
            api_grid_cellf(c[k++], "%s", r->offer->source);
    }
    size_t cols = wide ? 0 : svc_output_columns();
    char gone[128];
    /* The instance's name may be cut, to 8 characters at least. */
    api_grid_fit(&g, cols, 2, 8, gone, sizeof(gone));
    api_grid_print(&g, stdout, "", NULL, !o->no_headers);
    if (!o->no_headers && gone[0] != '\0')
        api_text_say(stdout, cols, 2,
                     "(Left out to fit %zu columns: %s; -o wide shows every "
                     "column.)",
                     cols, gone);
    api_grid_free(&g);
}

int svc_prices_show(const dc_ruleset *rs, const char *filter, const struct svc_output_opts *o)
{
    struct want w;
    int status = 2;
    if (!parse_filter(rs, filter, &w, &status))
        return status;
    size_t n = 0;
    struct row *rows = collect(rs, &w, &n);
    if (rows == NULL) {
        fprintf(stderr, "prices show: out of memory\n");
        return 2;
    }
    if (n == 0) {
        char count[32] = "";
        if (w.count != 0)
            snprintf(count, sizeof(count), " with %u chips", w.count);
        fprintf(stderr, "prices show: prices.yaml offers no %s%s%s\n",
                w.acc != NULL ? w.acc->id : "part", count,
                w.acc != NULL && w.acc->unpriced_reason != NULL ? "; it says why: " : "");
        if (w.acc != NULL && w.acc->unpriced_reason != NULL)
            fprintf(stderr, "  %s\n", w.acc->unpriced_reason);
        free(rows);
        return 1;
    }
    status = 0;
    if (o->format == SVC_OUTPUT_TABLE || o->format == SVC_OUTPUT_WIDE) {
        table(rows, n, &w, o);
    } else if (o->format == SVC_OUTPUT_NAME) {
        /* One line an instance offer (the bases of one offer are one line). */
        for (size_t i = 0; i < n; i++) {
            bool seen = false;
            for (size_t k = 0; k < i && !seen; k++)
                seen = rows[k].offer == rows[i].offer;
            if (!seen)
                printf("%s/%s/%s\n", dc_provider_name(rows[i].offer->provider),
                       rows[i].offer->region, rows[i].offer->instance_type);
        }
    } else {
        cJSON *doc = document(rows, n);
        enum dc_status rc =
            doc != NULL ? svc_output_document(stdout, "prices show", doc, o) : DC_ENOMEM;
        if (rc != DC_OK && rc != DC_EINVAL)
            fprintf(stderr, "prices show: cannot write the output\n");
        status = rc == DC_OK ? 0 : 2;
        cJSON_Delete(doc);
    }
    free(rows);
    return fflush(stdout) == 0 ? status : 2;
}
