/* service/src/prices_gcp.c -- Google Cloud's Compute Engine prices from the
 * Cloud Billing Catalog API as Cyclenerd's google-cloud-pricing-cost-calculator
 * exports them (pricing.yml,
 * https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator) into
 * offers (service/src/prices_import.h). The file is 2.5 MB of YAML, past the
 * core reader's 1 MiB, and regular: under compute.instance, each machine type
 * has `cost:` per region (hour, hour_spot, month_1y, month_3y), `cpu`, `ram`
 * and its accelerators as `NAME: COUNT` (h100-80gb: 8), so it is read line by
 * line, strictly: a line of another shape is an error with its line. A
 * commitment is given per 730-hour month (month = 730 x hour in the file) and
 * divided back to an hour, as rules/prices.yaml does. The copy's date is
 * about.timestamp unless --as-of says otherwise. Keys other than cost, cpu,
 * ram and local-ssd are accelerator names: one the name table's gcp rows do
 * not know is reported unmapped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prices_import.h"

/* Regions of one machine type kept at once; accelerator keys of one type. */
#define GCP_REGIONS_MAX 256
#define GCP_KEYS_MAX    8
/* Hours in the month the file's commitments are priced by. */
#define GCP_MONTH_HOURS 730.0

struct gcp_region {
    char name[SVC_PRICES_REGION_MAX + 1];
    double hour, spot, m1y, m3y;
    unsigned line;
};

struct gcp {
    const char *file;
    const struct svc_price_map *map;
    const struct svc_import_opts *o;
    struct svc_import *im;
    FILE *report;
    char as_of[11];
    char type[SVC_PRICES_INSTANCE_MAX + 1];
    unsigned type_line;
    bool type_ok; /* the name fits */
    double cpu, ram;
    struct {
        char name[96]; /* as struct yline's key */
        double count;
        unsigned line;
    } keys[GCP_KEYS_MAX];
    size_t n_keys;
    struct gcp_region *regions;
    size_t n_regions;
};

/* One "KEY: VALUE" line: its indent, key and value (may be empty). */
struct yline {
    size_t indent;
    char key[96];
    const char *value;
};

static bool parse_line(char *s, struct yline *l)
{
    l->indent = strspn(s, " ");
    char *k = s + l->indent, *colon = strchr(k, ':');
    size_t n = colon != NULL ? (size_t)(colon - k) : 0;
    if (n == 0 || n >= sizeof(l->key) ||
        strspn(k, "abcdefghijklmnopqrstuvwxyz"
                  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n ||
        (colon[1] != '\0' && colon[1] != ' '))
        return false;
    memcpy(l->key, k, n);
    l->key[n] = '\0';
    l->value = colon[1] == ' ' ? colon + 2 : colon + 1;
    return true;
}

/* A finite number, or NAN. */
static double num(const char *s)
{
    char *end = NULL;
    double v = *s != '\0' ? strtod(s, &end) : NAN;
    return end != NULL && *end == '\0' && isfinite(v) ? v : NAN;
}

static bool is_accelerator_key(const char *k)
{
    return strcmp(k, "cost") != 0 && strcmp(k, "cpu") != 0 && strcmp(k, "ram") != 0 &&
           strcmp(k, "local-ssd") != 0;
}

/* The offers of the machine type read so far, one per region. */
static void flush(struct gcp *g)
{
    const struct svc_price_name *n = NULL;
    size_t which = 0, mapped = 0;
    for (size_t i = 0; i < g->n_keys; i++) {
        const struct svc_price_name *r = svc_price_map_row(g->map, SVC_PRICES_GCP, g->keys[i].name);
        if (r == NULL) {
            g->im->unmapped++;
            fprintf(g->report, "%s:%u: unmapped %s (%s)\n", g->file, g->keys[i].line,
                    g->keys[i].name, g->type);
        } else if (mapped++ == 0) {
            n = r;
            which = i;
        }
    }
    if (n == NULL || g->type[0] == '\0') {
        g->im->skipped += g->type[0] != '\0' && g->n_keys == 0;
        return;
    }
    double count = g->keys[which].count;
    char why[160] = "";
    if (mapped > 1)
        snprintf(why, sizeof(why), "%zu mapped accelerators in one machine type", mapped);
    else if (!(count >= 1 && count <= SVC_PRICES_COUNT_MAX && count == floor(count)))
        snprintf(why, sizeof(why), "%s: %g is not a whole number of 1 to %g", n->name, count,
                 SVC_PRICES_COUNT_MAX);
    else if (!g->type_ok)
        snprintf(why, sizeof(why), "machine type over %d bytes", SVC_PRICES_INSTANCE_MAX);
    if (why[0] != '\0') {
        g->im->dropped++;
        fprintf(g->report, "%s:%u: dropped: %s\n", g->file, g->type_line, why);
        return;
    }
    for (size_t i = 0; i < g->n_regions && !g->im->full; i++) {
        const struct gcp_region *r = &g->regions[i];
        if (g->o->region != NULL && strcmp(g->o->region, r->name) != 0) {
            g->im->skipped++;
            continue;
        }
        struct svc_import_offer row;
        memset(&row, 0, sizeof(row));
        snprintf(row.where, sizeof(row.where), "%s:%u", g->file, r->line);
        snprintf(row.accelerator, sizeof(row.accelerator), "%s", n->accelerator);
        snprintf(row.name, sizeof(row.name), "%s", n->name);
        snprintf(row.instance_type, sizeof(row.instance_type), "%s", g->type);
        snprintf(row.region, sizeof(row.region), "%s", r->name);
        row.accelerators = (unsigned)count;
        row.vcpus = g->cpu > 0 ? g->cpu : NAN;
        row.memory_gb = g->ram > 0 ? g->ram : NAN;
        row.price[DC_PRICING_ON_DEMAND] = r->hour > 0 ? r->hour : NAN;
        row.price[DC_PRICING_SPOT] = r->spot > 0 ? r->spot : NAN;
        row.price[DC_PRICING_COMMITTED_1Y] = r->m1y > 0 ? r->m1y / GCP_MONTH_HOURS : NAN;
        row.price[DC_PRICING_COMMITTED_3Y] = r->m3y > 0 ? r->m3y / GCP_MONTH_HOURS : NAN;
        snprintf(row.as_of, sizeof(row.as_of), "%s", g->as_of);
        if (isnan(row.price[DC_PRICING_ON_DEMAND])) {
            g->im->dropped++;
            fprintf(g->report, "%s: dropped: no hour price\n", row.where);
            continue;
        }
        svc_import_add(g->im, &row, g->report);
    }
}

static void start_type(struct gcp *g, const char *name, unsigned no)
{
    flush(g);
    g->type_ok = strlen(name) <= SVC_PRICES_INSTANCE_MAX;
    snprintf(g->type, sizeof(g->type), "%s", name);
    g->type_line = no;
    g->cpu = g->ram = NAN;
    g->n_keys = g->n_regions = 0;
}

/* A region's price field, or a new region; false when the line is wrong. */
static bool cost_line(struct gcp *g, const struct yline *l, unsigned no)
{
    if (l->indent == 8) {
        if (g->n_regions == GCP_REGIONS_MAX || strlen(l->key) > SVC_PRICES_REGION_MAX ||
            l->value[0] != '\0')
            return false;
        struct gcp_region *r = &g->regions[g->n_regions++];
        snprintf(r->name, sizeof(r->name), "%.*s", SVC_PRICES_REGION_MAX, l->key);
        r->hour = r->spot = r->m1y = r->m3y = NAN;
        r->line = no;
        return true;
    }
    if (g->n_regions == 0)
        return false;
    struct gcp_region *r = &g->regions[g->n_regions - 1];
    double v = num(l->value);
    if (strcmp(l->key, "hour") == 0)
        r->hour = v;
    else if (strcmp(l->key, "hour_spot") == 0)
        r->spot = v;
    else if (strcmp(l->key, "month_1y") == 0)
        r->m1y = v;
    else if (strcmp(l->key, "month_3y") == 0)
        r->m3y = v;
    return true;
}

/* One field of a machine type (indent 6). */
static bool type_field(struct gcp *g, const struct yline *l, unsigned no)
{
    if (strcmp(l->key, "cost") == 0)
        return l->value[0] == '\0';
    if (strcmp(l->key, "cpu") == 0)
        g->cpu = num(l->value);
    else if (strcmp(l->key, "ram") == 0)
        g->ram = num(l->value);
    else if (is_accelerator_key(l->key) && g->n_keys < GCP_KEYS_MAX) {
        snprintf(g->keys[g->n_keys].name, sizeof(g->keys[0].name), "%s", l->key);
        g->keys[g->n_keys].count = num(l->value);
        g->keys[g->n_keys++].line = no;
    }
    return true;
}

/* about.timestamp (seconds since 1970) as the copy's date. */
static void timestamp(struct gcp *g, const char *v)
{
    double t = num(v);
    time_t tt = (time_t)t;
    struct tm tm;
    if (t >= 0 && t < 1e11 && gmtime_r(&tt, &tm) != NULL && g->as_of[0] == '\0')
        strftime(g->as_of, sizeof(g->as_of), "%Y-%m-%d", &tm);
}

/* Where a line falls: the top key and the key under it that enclose it. */
struct path {
    char top[96], sub[96];
    size_t block; /* inside a block scalar indented past this, or 0 */
};

static bool one_line(struct gcp *g, struct path *p, char *line, unsigned no)
{
    struct yline l;
    size_t indent = strspn(line, " ");
    if (line[indent] == '\0' || line[indent] == '#' || strcmp(line, "---") == 0 ||
        (p->block > 0 && indent > p->block))
        return true;
    p->block = 0;
    bool inside = strcmp(p->top, "compute") == 0 && strcmp(p->sub, "instance") == 0;
    if (!parse_line(line, &l) || l.indent % 2 != 0)
        return !(inside && indent >= 4); /* strict only where it reads */
    if (l.value[0] == '|' || l.value[0] == '>')
        p->block = l.indent;
    if (l.indent == 0) {
        snprintf(p->top, sizeof(p->top), "%s", l.key);
        p->sub[0] = '\0';
    } else if (l.indent == 2) {
        snprintf(p->sub, sizeof(p->sub), "%s", l.key);
        if (strcmp(p->top, "about") == 0 && strcmp(l.key, "timestamp") == 0)
            timestamp(g, l.value);
    }
    if (strcmp(p->top, "compute") != 0 || strcmp(p->sub, "instance") != 0 || l.indent < 4) {
        if (g->type[0] != '\0')
            start_type(g, "", no); /* the section ended: its last type */
        return true;
    }
    if (l.indent == 4) {
        start_type(g, l.key, no);
        return l.value[0] == '\0';
    }
    if (l.indent == 6)
        return type_field(g, &l, no);
    return cost_line(g, &l, no);
}

enum dc_status svc_import_gcp(const char *file, char *text, const struct svc_price_map *map,
                              const struct svc_import_opts *o, struct svc_import *im, FILE *report,
                              struct dc_error *err)
{
    struct gcp g;
    struct path p = {"", "", 0};
    memset(&g, 0, sizeof(g));
    g.file = file;
    g.map = map;
    g.o = o;
    g.im = im;
    g.report = report;
    snprintf(g.as_of, sizeof(g.as_of), "%s", o->as_of != NULL ? o->as_of : "");
    g.regions = calloc(GCP_REGIONS_MAX, sizeof(*g.regions));
    if (g.regions == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "%s: out of memory", file);
    unsigned no = 0;
    bool ok = true, seen = false;
    for (char *s = text, *line; ok && (line = svc_next_line(&s)) != NULL;) {
        no++;
        ok = one_line(&g, &p, line, no);
        seen = seen || strcmp(p.sub, "instance") == 0;
    }
    if (ok)
        start_type(&g, "", no);
    free(g.regions);
    if (!ok)
        return dc_error_set(err, DC_EPARSE, NULL,
                            "%s:%u: not the layout of Cyclenerd's pricing.yml (KEY: VALUE, "
                            "compute.instance.TYPE.cost.REGION)",
                            file, no);
    if (!seen || g.as_of[0] == '\0')
        return dc_error_set(err, DC_EPARSE, NULL,
                            "%s: not Cyclenerd's pricing.yml (no compute.instance or no "
                            "about.timestamp; --as-of dates it)",
                            file);
    return DC_OK;
}
