/* service/src/prices_import.c -- public price catalogs into prices.yaml offers
 * (service/src/prices_import.h; format: docs/rules-format.md): the name table,
 * the offer table every format fills, SkyPilot's CSVs and the writer. Every
 * input is a file from outside: rows that do not parse are reported, never
 * guessed, cut or wrapped. */
#include "prices_import.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dc/utf8.h"

/* Slots of the (instance type, region) index: a power of two at least twice
 * the offers, so a probe ends at an empty slot quickly. */
#define SLOTS 4096u

bool svc_price_format_parse(const char *s, enum svc_price_format *out)
{
    if (strcmp(s, "skypilot") == 0)
        *out = SVC_PRICES_SKYPILOT;
    else if (strcmp(s, "aws") == 0)
        *out = SVC_PRICES_AWS;
    else if (strcmp(s, "azure") == 0)
        *out = SVC_PRICES_AZURE;
    else if (strcmp(s, "gcp") == 0)
        *out = SVC_PRICES_GCP;
    else
        return false;
    return true;
}

bool svc_import_init(struct svc_import *im)
{
    memset(im, 0, sizeof(*im));
    im->offers = calloc(SVC_PRICES_IMPORT_MAX, sizeof(*im->offers));
    im->slots = calloc(SLOTS, sizeof(*im->slots));
    if (im->offers == NULL || im->slots == NULL) {
        svc_import_free(im);
        return false;
    }
    return true;
}

void svc_import_free(struct svc_import *im)
{
    free(im->offers);
    free(im->slots);
    im->offers = NULL;
    im->slots = NULL;
}

char *svc_next_line(char **p)
{
    char *s = *p;
    if (s == NULL || *s == '\0')
        return NULL;
    size_t k = strcspn(s, "\r\n");
    char *end = s + k;
    if (*end == '\0') {
        *p = end;
        return s;
    }
    *p = end + (end[0] == '\r' && end[1] == '\n' ? 2 : 1);
    *end = '\0';
    return s;
}

/* Split one CSV line in place into at most `max` fields (double quotes may
 * hold commas, "" is a quote); the number found, or max + 1 when there are
 * more. */
static size_t csv_fields(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        if (n == max)
            return max + 1;
        bool quoted = *p == '"';
        char *w = quoted ? ++p : p;
        f[n++] = w;
        while (*p != '\0') {
            if (quoted && p[0] == '"' && p[1] == '"') {
                *w++ = '"';
                p += 2;
            } else if (quoted ? *p == '"' : *p == ',') {
                break;
            } else {
                *w++ = *p++;
            }
        }
        if (quoted && *p == '"')
            p++;
        char sep = *p;
        *w = '\0';
        if (sep != ',')
            return n;
        p++;
    }
}

enum dc_status svc_price_map_parse(const char *name, const char *text, struct svc_price_map *map,
                                   struct dc_error *err)
{
    char *copy = strdup(text);
    char *p = copy, *line;
    unsigned no = 0;
    map->n = 0;
    if (copy == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "%s: out of memory", name);
    while ((line = svc_next_line(&p)) != NULL) {
        no++;
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *f[5];
        struct svc_price_name *r = &map->rows[map->n];
        size_t nf = map->n < SVC_PRICES_MAP_MAX ? csv_fields(line, f, 5) : 0;
        double count = nf == 4 ? strtod(f[3], NULL) : 0;
        if ((nf != 3 && nf != 4) || !svc_price_format_parse(f[0], &r->format) ||
            strlen(f[1]) >= sizeof(r->name) || f[1][0] == '\0' ||
            strlen(f[2]) >= sizeof(r->accelerator) || f[2][0] == '\0' ||
            (nf == 4 && !(count >= 1 && count <= SVC_PRICES_COUNT_MAX && count == floor(count))) ||
            (r->format == SVC_PRICES_AZURE) != (nf == 4)) {
            free(copy);
            return dc_error_set(err, DC_EPARSE, NULL,
                                "%s:%u: expected format,name,accelerator (azure: and a count "
                                "per instance; at most %d rows)",
                                name, no, SVC_PRICES_MAP_MAX);
        }
        snprintf(r->name, sizeof(r->name), "%s", f[1]);
        snprintf(r->accelerator, sizeof(r->accelerator), "%s", f[2]);
        r->count = (unsigned)count;
        map->n++;
    }
    free(copy);
    return DC_OK;
}

const struct svc_price_name *svc_price_map_row(const struct svc_price_map *map,
                                               enum svc_price_format format, const char *name)
{
    for (size_t i = 0; name != NULL && i < map->n; i++) {
        if (map->rows[i].format == format && strcmp(map->rows[i].name, name) == 0)
            return &map->rows[i];
    }
    return NULL;
}

const char *svc_price_map_find(const struct svc_price_map *map, enum svc_price_format format,
                               const char *name)
{
    const struct svc_price_name *r = svc_price_map_row(map, format, name);
    return r != NULL ? r->accelerator : NULL;
}

bool svc_import_text_ok(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p != '\0') {
        uint32_t cp = 0;
        size_t n = dc_utf8_seq(p, SIZE_MAX, &cp);
        if (n == 0 || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
            return false;
        p += n;
    }
    return true;
}

/* FNV-1a of the offer's key. */
static uint32_t key_hash(const char *type, const char *region)
{
    uint32_t h = 2166136261u;
    for (const char *s = type; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    h = (h ^ 0xffu) * 16777619u;
    for (const char *s = region; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The slot of (type, region): its offer's, or the empty one it would take. */
static uint32_t *slot_of(struct svc_import *im, const char *type, const char *region)
{
    uint32_t i = key_hash(type, region) & (SLOTS - 1);
    for (;;) {
        uint32_t *s = &im->slots[i];
        if (*s == 0)
            return s;
        const struct svc_import_offer *o = &im->offers[*s - 1];
        if (strcmp(o->instance_type, type) == 0 && strcmp(o->region, region) == 0)
            return s;
        i = (i + 1) & (SLOTS - 1);
    }
}

static void drop(struct svc_import *im, FILE *report, const char *where, const char *why)
{
    im->dropped++;
    fprintf(report, "%s: dropped: %s\n", where, why);
}

/* Why `row` cannot be carried over as it is, or NULL. */
static const char *row_problem(const struct svc_import_offer *row, char *buf, size_t len)
{
    if (!svc_import_text_ok(row->instance_type) || !svc_import_text_ok(row->region))
        return "the instance type or region is not UTF-8 text without control characters";
    if (row->instance_type[0] == '\0' || row->region[0] == '\0')
        return "no instance type or region";
    for (size_t b = 0; b < DC_PRICING_COUNT; b++) {
        /* The loader's bounds on a price (core/src/rules/prices.c). */
        if (!isnan(row->price[b]) && !(row->price[b] >= 0.0001 && row->price[b] <= 1e6)) {
            snprintf(buf, len, "%s price %g outside 0.0001-1000000 USD an hour",
                     dc_pricing_name((enum dc_pricing)b), row->price[b]);
            return buf;
        }
    }
    return NULL;
}

/* Merge a later row of the same instance type and region into `of`. */
static void merge_row(struct svc_import_offer *of, const struct svc_import_offer *row)
{
    for (size_t b = 0; b < DC_PRICING_COUNT; b++) {
        if (isnan(row->price[b]))
            continue;
        /* One row per availability zone: the zone with the lowest spot price;
         * other bases are the region's one rate, the last row's. */
        if (b != DC_PRICING_SPOT || !(of->price[b] <= row->price[b]))
            of->price[b] = row->price[b];
    }
}

long svc_import_add(struct svc_import *im, const struct svc_import_offer *row, FILE *report)
{
    char buf[512];
    const char *why = row_problem(row, buf, sizeof(buf));
    if (why != NULL) {
        drop(im, report, row->where, why);
        return -1;
    }
    uint32_t *slot = slot_of(im, row->instance_type, row->region);
    if (*slot == 0) {
        if (im->n == SVC_PRICES_IMPORT_MAX) {
            im->full = true;
            return -1;
        }
        im->offers[im->n] = *row;
        *slot = (uint32_t)++im->n;
        return (long)im->n - 1;
    }
    struct svc_import_offer *of = &im->offers[*slot - 1];
    if (strcmp(of->accelerator, row->accelerator) != 0 || of->accelerators != row->accelerators) {
        snprintf(buf, sizeof(buf), "%u x %s, but %s says %u x %s for %s in %s", row->accelerators,
                 row->name, of->where, of->accelerators, of->name, row->instance_type, row->region);
        drop(im, report, row->where, buf);
        if (!of->dropped) {
            of->dropped = true;
            drop(im, report, of->where, "conflicts with a later row (above)");
        }
        return -1;
    }
    if (of->dropped) {
        drop(im, report, row->where, "its instance type and region were refused (above)");
        return -1;
    }
    merge_row(of, row);
    return (long)(*slot - 1);
}

/* A positive finite number, or NAN; an empty or absent field is NAN. */
static double number(const char *s)
{
    char *end = NULL;
    double v = s != NULL && *s != '\0' ? strtod(s, &end) : NAN;
    return end != NULL && *end == '\0' && isfinite(v) && v > 0 ? v : NAN;
}

/* A field copied into `dst`; false when it does not fit. */
static bool copy_field(char *dst, size_t cap, const char *prefix, const char *s)
{
    int n = snprintf(dst, cap, "%s%s", prefix, s);
    return n >= 0 && (size_t)n < cap;
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

struct sky_ctx {
    const int *col;
    const struct svc_price_map *map;
    const struct svc_import_opts *o;
    struct svc_import *im;
    FILE *report;
    size_t apart; /* rows of an accelerator without a machine */
};

/* The count of a row, or 0 (reported) when it is no whole number of 1 to
 * SVC_PRICES_COUNT_MAX. */
static unsigned row_count(const char *s, const char *where, struct sky_ctx *c)
{
    double n = number(s);
    if (n >= 1 && n <= SVC_PRICES_COUNT_MAX && n == floor(n))
        return (unsigned)n;
    char why[128];
    snprintf(why, sizeof(why), "AcceleratorCount \"%.40s\" is not a whole number of 1 to %g", s,
             SVC_PRICES_COUNT_MAX);
    drop(c->im, c->report, where, why);
    return 0;
}

/* One data row of a SkyPilot CSV into the import. */
static void sky_row(char **f, struct sky_ctx *c, const char *file, unsigned no)
{
    const int *col = c->col;
    const char *name = f[col[SKY_ACC]], *region = f[col[SKY_REGION]];
    struct svc_import_offer row;
    memset(&row, 0, sizeof(row));
    snprintf(row.where, sizeof(row.where), "%s:%u", file, no);
    if (name[0] == '\0' || (c->o->region != NULL && strcmp(c->o->region, region) != 0)) {
        c->im->skipped++;
        return;
    }
    if (f[col[SKY_TYPE]][0] == '\0') { /* an accelerator priced apart from a machine */
        c->im->skipped++;
        c->apart++;
        return;
    }
    const char *acc = svc_price_map_find(c->map, SVC_PRICES_SKYPILOT, name);
    if (acc == NULL) {
        c->im->unmapped++;
        fprintf(c->report, "%s: unmapped %s (%s)\n", row.where, name, f[col[SKY_TYPE]]);
        return;
    }
    double od = number(f[col[SKY_PRICE]]);
    if (isnan(od)) {
        drop(c->im, c->report, row.where, "no on-demand Price");
        return;
    }
    if (!copy_field(row.instance_type, sizeof(row.instance_type), "", f[col[SKY_TYPE]]) ||
        !copy_field(row.region, sizeof(row.region), c->o->prefix, region)) {
        char why[128];
        snprintf(why, sizeof(why), "instance type over %d or region over %d bytes",
                 SVC_PRICES_INSTANCE_MAX, SVC_PRICES_REGION_MAX);
        drop(c->im, c->report, row.where, why);
        return;
    }
    if ((row.accelerators = row_count(f[col[SKY_COUNT]], row.where, c)) == 0)
        return;
    snprintf(row.accelerator, sizeof(row.accelerator), "%s", acc);
    snprintf(row.name, sizeof(row.name), "%s", name);
    row.vcpus = number(f[col[SKY_VCPUS]]);
    row.memory_gb = number(f[col[SKY_MEM]]);
    for (size_t b = 0; b < DC_PRICING_COUNT; b++)
        row.price[b] = NAN;
    row.price[DC_PRICING_ON_DEMAND] = od;
    row.price[DC_PRICING_SPOT] = col[SKY_SPOT] >= 0 ? number(f[col[SKY_SPOT]]) : NAN;
    snprintf(row.as_of, sizeof(row.as_of), "%s", c->o->as_of);
    svc_import_add(c->im, &row, c->report);
}

enum dc_status svc_import_skypilot(const char *file, char *text, const struct svc_price_map *map,
                                   const struct svc_import_opts *o, struct svc_import *im,
                                   FILE *report, struct dc_error *err)
{
    static const char *const names[SKY_N] = {"InstanceType", "AcceleratorName", "AcceleratorCount",
                                             "vCPUs",        "MemoryGiB",       "Price",
                                             "SpotPrice",    "Region"};
    char *p = text;
    char *line = svc_next_line(&p);
    char *h[SVC_PRICES_CSV_FIELDS], *f[SVC_PRICES_CSV_FIELDS];
    size_t nh = line != NULL ? csv_fields(line, h, SVC_PRICES_CSV_FIELDS) : 0;
    if (nh > SVC_PRICES_CSV_FIELDS)
        return dc_error_set(err, DC_EPARSE, NULL, "%s:1: more than %d columns", file,
                            SVC_PRICES_CSV_FIELDS);
    int col[SKY_N];
    for (size_t i = 0; i < SKY_N; i++) {
        col[i] = column(h, nh, names[i]);
        if (col[i] < 0 && i != SKY_SPOT)
            return dc_error_set(err, DC_EPARSE, NULL, "%s:1: not a SkyPilot catalog: no %s column",
                                file, names[i]);
    }
    struct sky_ctx c = {col, map, o, im, report, 0};
    unsigned no = 1;
    while ((line = svc_next_line(&p)) != NULL && !im->full) {
        no++;
        if (line[0] == '\0')
            continue;
        if (csv_fields(line, f, SVC_PRICES_CSV_FIELDS) != nh) {
            char where[160], why[64];
            snprintf(where, sizeof(where), "%s:%u", file, no);
            snprintf(why, sizeof(why), "not %zu fields", nh);
            drop(im, report, where, why);
            continue;
        }
        sky_row(f, &c, file, no);
    }
    /* SkyPilot's GCP catalog prices each GPU apart from the VM it attaches to:
     * neither row is a machine's price. Google's own prices are `import gcp`. */
    if (c.apart > 0)
        fprintf(report,
                "%s: %zu rows price an accelerator without an InstanceType (skipped: not a "
                "machine's price; for Google Cloud use `prices import gcp`)\n",
                file, c.apart);
    return DC_OK;
}

void svc_yaml_put_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(fp, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(fp, "\\x%02x", *p);
        else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) /* C1 controls */
            fprintf(fp, "\\x%02x", *++p);
        else
            fputc(*p, fp);
    }
    fputc('"', fp);
}

static void put_key(FILE *fp, const char *key, const char *s)
{
    fprintf(fp, "    %s: ", key);
    svc_yaml_put_str(fp, s);
    fputc('\n', fp);
}

/* One offer; the number of lines written. */
static unsigned write_offer(FILE *fp, const struct svc_import_offer *of,
                            const struct svc_import_opts *o)
{
    unsigned lines = 7; /* the keys every offer has */
    fprintf(fp, "  - accelerator: %s\n", of->accelerator);
    put_key(fp, "provider", o->provider);
    put_key(fp, "region", of->region);
    put_key(fp, "instance_type", of->instance_type);
    fprintf(fp, "    accelerators: %u\n", of->accelerators);
    if (isfinite(of->vcpus)) {
        fprintf(fp, "    vcpus: %.10g\n", of->vcpus);
        lines++;
    }
    if (isfinite(of->memory_gb)) {
        fprintf(fp, "    memory_gb: %.10g\n", of->memory_gb);
        lines++;
    }
    put_key(fp, "source", o->source);
    if (o->via != NULL) {
        put_key(fp, "via", o->via);
        lines++;
    }
    put_key(fp, "confidence", o->confidence);
    for (size_t b = 0; b < DC_PRICING_COUNT; b++) {
        if (!isfinite(of->price[b]))
            continue;
        fprintf(fp, "    %s: {usd_per_hour: %.10g, as_of: ", dc_pricing_name((enum dc_pricing)b),
                of->price[b]);
        svc_yaml_put_str(fp, of->as_of);
        fputs("}\n", fp);
        lines++;
    }
    return lines;
}

enum dc_status svc_import_write(FILE *fp, const struct svc_import *im,
                                const struct svc_import_opts *o, unsigned *lines)
{
    unsigned line = 3;
    fprintf(fp, "# Written by `accel-advisor prices import` (docs/rules-format.md).\nprices:\n");
    for (size_t i = 0; i < im->n; i++) {
        if (im->offers[i].dropped)
            continue;
        if (lines != NULL)
            lines[i] = line;
        line += write_offer(fp, &im->offers[i], o);
    }
    return fflush(fp) == 0 && !ferror(fp) ? DC_OK : DC_EIO;
}
