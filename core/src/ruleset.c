/* core/src/ruleset.c -- load, check and compile a rule set (docs/rules-format.md).
 *
 * Loading never stops at the first problem: rule authors get every mistake of
 * a change in one run, each as `file:line: id: what is wrong`. Only a rule set
 * with no problem at all is returned. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "dc/embedded.h"
#include "dc/yaml.h"
#include "ruleset_internal.h"

/* ---- diagnostics ---------------------------------------------------------- */

void dc_diags_init(struct dc_diags *d)
{
    if (d != NULL)
        memset(d, 0, sizeof(*d));
}

void dc_diags_cleanup(struct dc_diags *d)
{
    if (d == NULL)
        return;
    free(d->items);
    memset(d, 0, sizeof(*d));
}

void dc_diag_format(const struct dc_diag *d, char *buf, size_t len)
{
    if (d->id[0] != '\0')
        snprintf(buf, len, "%s:%u: %s: %s", d->file, d->line, d->id, d->msg);
    else
        snprintf(buf, len, "%s:%u: %s", d->file, d->line, d->msg);
}

struct loader {
    struct dc_diags *diags;
    size_t problems;
    bool oom;
};

static void diag(struct loader *L, const char *file, unsigned line, const char *id, const char *fmt,
                 ...) DC_PRINTF(5, 6);

static void diag(struct loader *L, const char *file, unsigned line, const char *id, const char *fmt,
                 ...)
{
    L->problems++;
    struct dc_diags *d = L->diags;
    if (d == NULL)
        return;
    if (d->count == DC_RULESET_MAX_DIAGS) {
        d->truncated = true;
        return;
    }
    if (d->count == d->cap) {
        size_t cap = d->cap != 0 ? d->cap * 2 : 16;
        if (cap > DC_RULESET_MAX_DIAGS)
            cap = DC_RULESET_MAX_DIAGS;
        struct dc_diag *items = realloc(d->items, cap * sizeof(*items));
        if (items == NULL) {
            L->oom = true;
            return;
        }
        d->items = items;
        d->cap = cap;
    }
    struct dc_diag *g = &d->items[d->count++];
    snprintf(g->file, sizeof(g->file), "%s", file != NULL ? file : "");
    g->line = line;
    snprintf(g->id, sizeof(g->id), "%s", id != NULL ? id : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->msg, sizeof(g->msg), fmt, ap);
    va_end(ap);
}

/* ---- field access with checking ------------------------------------------ */

/* Where we are while checking one object: its file, its document (for lines)
 * and the id of the rule or accelerator it belongs to. */
struct where {
    struct loader *L;
    const char *file;
    const dc_yaml_doc *doc;
    const char *id;
    const cJSON *obj;
};

static unsigned line_of(const struct where *w, const cJSON *node)
{
    unsigned line = dc_yaml_line(w->doc, node);
    if (line == 0)
        line = dc_yaml_line(w->doc, w->obj);
    return line;
}

/* Report every key of w->obj not in `allowed`: typos must not pass silently. */
static void check_keys(const struct where *w, const char *what, const char *const *allowed)
{
    const cJSON *item = NULL;
    cJSON_ArrayForEach(item, w->obj)
    {
        bool ok = false;
        for (size_t i = 0; allowed[i] != NULL && !ok; i++)
            ok = strcmp(item->string, allowed[i]) == 0;
        if (!ok)
            diag(w->L, w->file, line_of(w, item), w->id, "unknown key \"%s\" in %s", item->string,
                 what);
    }
}

static bool is_url(const char *s)
{
    if (strncmp(s, "https://", 8) != 0 && strncmp(s, "http://", 7) != 0)
        return false;
    for (const char *p = s; *p != '\0'; p++) {
        if (*p <= ' ' || *p == 0x7f)
            return false;
    }
    return strlen(s) > 10;
}

static const char *get_str(const struct where *w, const char *key, bool required)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(w->obj, key);
    if (v == NULL || cJSON_IsNull(v)) {
        if (required)
            diag(w->L, w->file, line_of(w, w->obj), w->id, "missing required field \"%s\"", key);
        return NULL;
    }
    if (!cJSON_IsString(v) || v->valuestring[0] == '\0') {
        diag(w->L, w->file, line_of(w, v), w->id, "\"%s\" must be a non-empty string", key);
        return NULL;
    }
    return v->valuestring;
}

static const char *get_url(const struct where *w, const char *key, bool required)
{
    const char *s = get_str(w, key, required);
    if (s != NULL && !is_url(s)) {
        diag(w->L, w->file, line_of(w, cJSON_GetObjectItemCaseSensitive(w->obj, key)), w->id,
             "\"%s\" must be a public http(s) URL, got \"%.120s\"", key, s);
        return NULL;
    }
    return s;
}

/* A number in [lo, hi]; NAN when absent or null (and reported when required). */
static double get_num(const struct where *w, const char *key, bool required, double lo, double hi)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(w->obj, key);
    if (v == NULL || cJSON_IsNull(v)) {
        if (required)
            diag(w->L, w->file, line_of(w, w->obj), w->id, "missing required field \"%s\"", key);
        return NAN;
    }
    if (!cJSON_IsNumber(v)) {
        diag(w->L, w->file, line_of(w, v), w->id, "\"%s\" must be a number", key);
        return NAN;
    }
    if (v->valuedouble < lo || v->valuedouble > hi) {
        diag(w->L, w->file, line_of(w, v), w->id, "\"%s\" must be between %g and %g, got %g", key,
             lo, hi, v->valuedouble);
        return NAN;
    }
    return v->valuedouble;
}

static bool get_bool(const struct where *w, const char *key, bool required, bool dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(w->obj, key);
    if (v == NULL) {
        if (required)
            diag(w->L, w->file, line_of(w, w->obj), w->id, "missing required field \"%s\"", key);
        return dflt;
    }
    if (!cJSON_IsBool(v)) {
        diag(w->L, w->file, line_of(w, v), w->id, "\"%s\" must be true or false", key);
        return dflt;
    }
    return cJSON_IsTrue(v);
}

/* The child object `key`; NULL when absent or null (reported when required). */
static const cJSON *get_obj(const struct where *w, const char *key, bool required)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(w->obj, key);
    if (v == NULL || cJSON_IsNull(v)) {
        if (required)
            diag(w->L, w->file, line_of(w, w->obj), w->id, "missing required field \"%s\"", key);
        return NULL;
    }
    if (!cJSON_IsObject(v)) {
        diag(w->L, w->file, line_of(w, v), w->id, "\"%s\" must be a mapping", key);
        return NULL;
    }
    return v;
}

static const cJSON *get_arr(const struct where *w, const char *key, bool required)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(w->obj, key);
    if (v == NULL || cJSON_IsNull(v)) {
        if (required)
            diag(w->L, w->file, line_of(w, w->obj), w->id, "missing required field \"%s\"", key);
        return NULL;
    }
    if (!cJSON_IsArray(v)) {
        diag(w->L, w->file, line_of(w, v), w->id, "\"%s\" must be a list", key);
        return NULL;
    }
    return v;
}

static struct where sub(const struct where *w, const cJSON *obj)
{
    struct where s = *w;
    s.obj = obj;
    return s;
}

static bool valid_id(const char *s, bool allow_dot)
{
    size_t n = strlen(s);
    if (n == 0 || n > DC_ID_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  (i > 0 && (c == '-' || (allow_dot && (c == '.' || c == '_'))));
        if (!ok)
            return false;
    }
    return true;
}

/* ---- catalog ---------------------------------------------------------------- */

static void parse_price(const struct where *w, const cJSON *price, struct dc_accelerator *a)
{
    static const char *const keys[] = {"usd_per_chip_hour", "as_of", "basis", "source",
                                       "confidence",        NULL};
    struct where p = sub(w, price);
    check_keys(&p, "price", keys);
    a->price_usd_per_chip_hour = get_num(&p, "usd_per_chip_hour", true, 0.0001, 1e6);
    const cJSON *asof = cJSON_GetObjectItemCaseSensitive(price, "as_of");
    if (asof == NULL) {
        diag(w->L, w->file, line_of(&p, price), w->id, "missing required field \"as_of\"");
    } else if (!cJSON_IsString(asof) ||
               (strlen(asof->valuestring) != 7 && strlen(asof->valuestring) != 10) ||
               asof->valuestring[4] != '-') {
        diag(w->L, w->file, line_of(&p, asof), w->id,
             "\"as_of\" must be a date written YYYY-MM or YYYY-MM-DD (quote it)");
    } else {
        a->price_as_of = asof->valuestring;
    }
    a->price_basis = get_str(&p, "basis", true);
    a->price_source = get_url(&p, "source", true);
    const char *conf = get_str(&p, "confidence", true);
    if (conf != NULL && strcmp(conf, "high") != 0 && strcmp(conf, "low") != 0)
        diag(w->L, w->file, line_of(&p, cJSON_GetObjectItemCaseSensitive(price, "confidence")),
             w->id, "\"confidence\" must be high or low");
    a->price_low_confidence = conf != NULL && strcmp(conf, "low") == 0;
    a->has_price =
        isfinite(a->price_usd_per_chip_hour) && a->price_as_of != NULL && a->price_source != NULL;
}

/* Parse a list of names through `parse` into a bit set. */
static unsigned parse_name_set(const struct where *w, const cJSON *arr, const char *what,
                               bool (*parse)(const char *, unsigned *))
{
    unsigned bits = 0;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, arr)
    {
        unsigned v = 0;
        if (!cJSON_IsString(it) || !parse(it->valuestring, &v)) {
            diag(w->L, w->file, line_of(w, it), w->id, "unknown %s \"%.60s\"", what,
                 cJSON_IsString(it) ? it->valuestring : "(not a string)");
            continue;
        }
        if (bits & (1u << v))
            diag(w->L, w->file, line_of(w, it), w->id, "%s \"%s\" listed twice", what,
                 it->valuestring);
        bits |= 1u << v;
    }
    return bits;
}

static bool parse_prec_u(const char *s, unsigned *out)
{
    enum dc_precision p;
    if (!dc_precision_parse(s, &p))
        return false;
    *out = (unsigned)p;
    return true;
}

static bool parse_provider_u(const char *s, unsigned *out)
{
    enum dc_provider p;
    if (!dc_provider_parse(s, &p))
        return false;
    *out = (unsigned)p;
    return true;
}

static void parse_pci(const struct where *w, const cJSON *pci, struct dc_accelerator *a,
                      uint16_t *pool, size_t *pool_used, size_t pool_cap)
{
    static const char *const keys[] = {"vendor", "devices", NULL};
    struct where p = sub(w, pci);
    check_keys(&p, "pci", keys);
    double vendor = get_num(&p, "vendor", true, 1, 0xfffe);
    if (isfinite(vendor)) {
        if (vendor != floor(vendor))
            diag(w->L, w->file, line_of(&p, pci), w->id, "pci vendor must be an integer");
        a->pci_vendor = (uint16_t)vendor;
    }
    const cJSON *devs = get_arr(&p, "devices", true);
    if (devs == NULL)
        return;
    if (cJSON_GetArraySize(devs) == 0)
        diag(w->L, w->file, line_of(&p, devs), w->id, "pci devices must not be empty");
    a->pci_devices = pool + *pool_used;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, devs)
    {
        if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 0xffff ||
            it->valuedouble != floor(it->valuedouble)) {
            diag(w->L, w->file, line_of(&p, it), w->id,
                 "pci device ids must be integers 0x0000-0xffff");
            continue;
        }
        if (*pool_used == pool_cap) {
            diag(w->L, w->file, line_of(&p, it), w->id, "too many pci device ids");
            return;
        }
        pool[(*pool_used)++] = (uint16_t)it->valuedouble;
        a->n_pci_devices++;
    }
}

/* interconnect: {name, bandwidth_gbps, domain}: the fast domain. */
static void parse_interconnect(const struct where *w, const cJSON *ic, struct dc_accelerator *a)
{
    static const char *const keys[] = {"name", "bandwidth_gbps", "domain", NULL};
    struct where p = sub(w, ic);
    check_keys(&p, "interconnect", keys);
    a->interconnect = get_str(&p, "name", true);
    a->interconnect_gbps = get_num(&p, "bandwidth_gbps", false, 0, 1e9);
    double dom = get_num(&p, "domain", true, 1, 1e6);
    a->domain = isfinite(dom) ? (unsigned)dom : 0;
    if (isfinite(dom) && dom != floor(dom))
        diag(w->L, w->file, line_of(&p, ic), w->id, "interconnect domain must be an integer");
}

/* One chip count of a shape list: an integer in [1, 1e6]. */
static bool shape_count(const struct where *w, const cJSON *v, unsigned *out)
{
    if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 1e6 ||
        v->valuedouble != floor(v->valuedouble)) {
        diag(w->L, w->file, line_of(w, v), w->id, "chip counts must be integers from 1 to 1000000");
        return false;
    }
    *out = (unsigned)v->valuedouble;
    return true;
}

/* shapes: {node_sizes: [1, 2, 4, 8]} for machines or {slices: {v5p-8: 4, ...}}
 * for TPUs, ascending, plus the source that documents them. */
static void parse_shapes(const struct where *w, const cJSON *sh, struct dc_accelerator *a)
{
    static const char *const keys[] = {"node_sizes", "slices", "source", NULL};
    struct where p = sub(w, sh);
    check_keys(&p, "shapes", keys);
    a->shapes_source = get_url(&p, "source", true);
    const cJSON *nodes = get_arr(&p, "node_sizes", false);
    const cJSON *slices = get_obj(&p, "slices", false);
    if ((nodes == NULL) == (slices == NULL)) {
        diag(w->L, w->file, line_of(&p, sh), w->id,
             "shapes needs node_sizes or slices (one of them)");
        return;
    }
    const cJSON *list = nodes != NULL ? nodes : slices;
    size_t n = (size_t)cJSON_GetArraySize(list);
    size_t limit = nodes != NULL ? DC_ACC_MAX_NODE_SIZES : DC_ACC_MAX_SLICES;
    if (n == 0 || n > limit) {
        diag(w->L, w->file, line_of(&p, sh), w->id, "shapes must list 1 to %zu sizes", limit);
        return;
    }
    unsigned prev = 0;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, list)
    {
        unsigned chips = 0;
        if (!shape_count(&p, it, &chips))
            continue;
        if (chips <= prev)
            diag(w->L, w->file, line_of(&p, it), w->id, "shapes must be listed in ascending chips");
        prev = chips;
        if (nodes != NULL) {
            a->node_sizes[a->n_node_sizes++] = chips;
        } else if (!valid_id(it->string, false)) {
            diag(w->L, w->file, line_of(&p, it), w->id,
                 "slice name \"%.40s\" must be 1-32 characters of a-z, 0-9 and '-'", it->string);
        } else {
            a->slices[a->n_slices++] = (struct dc_slice){it->string, chips};
        }
    }
}

/* scale_out: {network, max_chips, source}: the cluster beyond one domain. */
static void parse_scale_out(const struct where *w, const cJSON *so, struct dc_accelerator *a)
{
    static const char *const keys[] = {"network", "max_chips", "source", NULL};
    struct where p = sub(w, so);
    check_keys(&p, "scale_out", keys);
    a->scale_out_network = get_str(&p, "network", true);
    a->scale_out_source = get_url(&p, "source", true);
    double maxc = get_num(&p, "max_chips", true, 1, 1e6);
    a->max_chips = isfinite(maxc) ? (unsigned)maxc : 1;
    if (isfinite(maxc) && maxc != floor(maxc))
        diag(w->L, w->file, line_of(&p, so), w->id, "max_chips must be an integer");
}

/* The shapes must agree with the domain and the cluster they describe. */
static void check_scale(const struct where *w, struct dc_accelerator *a)
{
    unsigned largest = 0;
    if (a->n_slices > 0)
        largest = a->slices[a->n_slices - 1].chips;
    else if (a->n_node_sizes > 0)
        largest = a->node_sizes[a->n_node_sizes - 1];
    if (largest == 0)
        return;
    if (a->domain == 0)
        a->domain = a->n_slices > 0 ? largest : 1;
    if (a->n_slices > 0 && a->domain != largest)
        diag(w->L, w->file, line_of(w, cJSON_GetObjectItemCaseSensitive(w->obj, "interconnect")),
             w->id, "a TPU's fast domain is its largest slice (%u chips), not %u", largest,
             a->domain);
    if (a->max_chips < largest)
        diag(w->L, w->file, line_of(w, cJSON_GetObjectItemCaseSensitive(w->obj, "scale_out")),
             w->id, "scale_out max_chips (%u) is below the largest shape (%u chips)", a->max_chips,
             largest);
}

static void parse_accelerator(const struct where *w, struct dc_accelerator *a, uint16_t *pool,
                              size_t *pool_used, size_t pool_cap)
{
    static const char *const keys[] = {"id",
                                       "name",
                                       "short_name",
                                       "vendor",
                                       "family",
                                       "fact",
                                       "source",
                                       "pci",
                                       "memory_gb",
                                       "memory_type",
                                       "memory_bandwidth_gbps",
                                       "peak_tflops",
                                       "precisions",
                                       "interconnect",
                                       "shapes",
                                       "scale_out",
                                       "mfu_factor",
                                       "power_watts",
                                       "providers",
                                       "on_prem",
                                       "price",
                                       "notes",
                                       NULL};
    static const char *const vendors[] = {"nvidia", "amd", "google", "intel", "generic", NULL};
    check_keys(w, "accelerator", keys);
    a->name = get_str(w, "name", true);
    a->short_name = get_str(w, "short_name", false);
    a->vendor = get_str(w, "vendor", true);
    if (a->vendor != NULL) {
        bool ok = false;
        for (size_t i = 0; vendors[i] != NULL && !ok; i++)
            ok = strcmp(a->vendor, vendors[i]) == 0;
        if (!ok)
            diag(w->L, w->file, line_of(w, w->obj), w->id,
                 "vendor must be one of nvidia, amd, google, intel, generic");
    }
    const char *fam = get_str(w, "family", true);
    if (fam != NULL && !dc_family_parse(fam, &a->family))
        diag(w->L, w->file, line_of(w, cJSON_GetObjectItemCaseSensitive(w->obj, "family")), w->id,
             "family must be gpu, tpu or cpu");
    a->fact = get_str(w, "fact", false);
    a->source = get_url(w, "source", true);
    const cJSON *pci = get_obj(w, "pci", false);
    if (pci != NULL)
        parse_pci(w, pci, a, pool, pool_used, pool_cap);
    a->memory_gb = get_num(w, "memory_gb", true, 0.001, 1e7);
    a->memory_bandwidth_gbps = get_num(w, "memory_bandwidth_gbps", false, 0.001, 1e9);
    for (size_t i = 0; i < DC_PREC_COUNT; i++)
        a->peak_tflops[i] = NAN;
    const cJSON *peak = get_obj(w, "peak_tflops", true);
    if (peak != NULL) {
        struct where p = sub(w, peak);
        const cJSON *it = NULL;
        cJSON_ArrayForEach(it, peak)
        {
            enum dc_precision prec;
            if (!dc_precision_parse(it->string, &prec)) {
                diag(w->L, w->file, line_of(&p, it), w->id, "unknown precision \"%s\"", it->string);
                continue;
            }
            a->peak_tflops[prec] = get_num(&p, it->string, false, 0, 1e7);
        }
    }
    const cJSON *precs = get_arr(w, "precisions", true);
    if (precs != NULL) {
        a->precisions = parse_name_set(w, precs, "precision", parse_prec_u);
        if (a->precisions == 0)
            diag(w->L, w->file, line_of(w, precs), w->id, "precisions must not be empty");
    }
    a->interconnect_gbps = NAN;
    const cJSON *ic = get_obj(w, "interconnect", false);
    if (ic != NULL)
        parse_interconnect(w, ic, a);
    const cJSON *shapes = get_obj(w, "shapes", true);
    if (shapes != NULL)
        parse_shapes(w, shapes, a);
    const cJSON *so = get_obj(w, "scale_out", true);
    if (so != NULL)
        parse_scale_out(w, so, a);
    check_scale(w, a);
    a->mfu_factor = 1.0;
    const cJSON *mf = get_obj(w, "mfu_factor", false);
    if (mf != NULL) {
        static const char *const mk[] = {"value", "source", NULL};
        struct where p = sub(w, mf);
        check_keys(&p, "mfu_factor", mk);
        a->mfu_factor = get_num(&p, "value", true, 0.05, 2);
        a->mfu_factor_source = get_url(&p, "source", true);
    }
    a->power_watts = get_num(w, "power_watts", false, 0, 1e6);
    const cJSON *prov = get_arr(w, "providers", true);
    if (prov != NULL)
        a->providers = parse_name_set(w, prov, "provider", parse_provider_u);
    a->on_prem = get_bool(w, "on_prem", true, false);
    const cJSON *price = get_obj(w, "price", false);
    if (price != NULL)
        parse_price(w, price, a);
    else
        a->price_usd_per_chip_hour = NAN;
}

static void load_catalog(struct loader *L, dc_ruleset *rs, const char *file, const dc_yaml_doc *doc,
                         const cJSON *root)
{
    struct where w = {L, file, doc, NULL, root};
    static const char *const keys[] = {"accelerators", NULL};
    if (!cJSON_IsObject(root)) {
        diag(L, file, 1, NULL, "catalog must be a mapping with \"accelerators\"");
        return;
    }
    check_keys(&w, "the catalog", keys);
    const cJSON *list = get_arr(&w, "accelerators", true);
    if (list == NULL)
        return;
    size_t n = (size_t)cJSON_GetArraySize(list);
    if (n == 0) {
        diag(L, file, line_of(&w, list), NULL, "the catalog lists no accelerator");
        return;
    }
    if (n > DC_RULESET_MAX_ACCELERATORS) {
        diag(L, file, line_of(&w, list), NULL, "%zu accelerators exceed the limit of %d", n,
             DC_RULESET_MAX_ACCELERATORS);
        return;
    }
    size_t pool_cap = 0;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, list)
    {
        const cJSON *pci = cJSON_GetObjectItemCaseSensitive(it, "pci");
        const cJSON *devs = cJSON_GetObjectItemCaseSensitive(pci, "devices");
        if (cJSON_IsArray(devs))
            pool_cap += (size_t)cJSON_GetArraySize(devs);
    }
    rs->accs = calloc(n, sizeof(*rs->accs));
    rs->pci_pool = calloc(pool_cap + 1, sizeof(*rs->pci_pool));
    if (rs->accs == NULL || rs->pci_pool == NULL) {
        L->oom = true;
        return;
    }
    size_t pool_used = 0;
    cJSON_ArrayForEach(it, list)
    {
        struct dc_accelerator *a = &rs->accs[rs->n_accs++];
        struct where aw = {L, file, doc, NULL, it};
        if (!cJSON_IsObject(it)) {
            diag(L, file, line_of(&aw, it), NULL, "each accelerator must be a mapping");
            continue;
        }
        a->id = get_str(&aw, "id", true);
        if (a->id != NULL && !valid_id(a->id, false)) {
            diag(L, file, line_of(&aw, it), a->id,
                 "id must be 1-32 characters of a-z, 0-9 and '-', starting with a letter or "
                 "digit");
            a->id = NULL;
        }
        aw.id = a->id;
        for (size_t j = 0; a->id != NULL && j + 1 < rs->n_accs; j++) {
            if (rs->accs[j].id != NULL && strcmp(rs->accs[j].id, a->id) == 0)
                diag(L, file, line_of(&aw, it), a->id, "duplicate accelerator id");
        }
        parse_accelerator(&aw, a, rs->pci_pool, &pool_used, pool_cap);
    }
    /* One PCI id must name one model, or the probe could not tell them apart. */
    for (size_t i = 0; i < rs->n_accs; i++) {
        const struct dc_accelerator *a = &rs->accs[i];
        for (size_t k = 0; k < a->n_pci_devices; k++) {
            for (size_t j = i + 1; j < rs->n_accs; j++) {
                const struct dc_accelerator *b = &rs->accs[j];
                for (size_t m = 0; m < b->n_pci_devices; m++) {
                    if (a->pci_vendor == b->pci_vendor && a->pci_devices[k] == b->pci_devices[m])
                        diag(L, file, 0, b->id != NULL ? b->id : "",
                             "pci id 0x%04x:0x%04x is also claimed by \"%s\"", b->pci_vendor,
                             b->pci_devices[m], a->id != NULL ? a->id : "?");
                }
            }
        }
    }
}

/* ---- sizing ----------------------------------------------------------------- */

/* A parameter's source: a public URL, or the word "convention" for a policy no
 * publication fixes (docs/scoring.md names each one). */
static const char *get_source(const struct where *w, const char *key)
{
    const char *s = get_str(w, key, true);
    if (s != NULL && strcmp(s, "convention") != 0 && !is_url(s)) {
        diag(w->L, w->file, line_of(w, cJSON_GetObjectItemCaseSensitive(w->obj, key)), w->id,
             "\"%s\" must be a public http(s) URL or \"convention\", got \"%.120s\"", key, s);
        return NULL;
    }
    return s;
}

/* key: {value: number in [lo, hi], source: URL | convention} */
static struct dc_param get_param(const struct where *w, const char *key, double lo, double hi)
{
    static const char *const keys[] = {"value", "source", NULL};
    struct dc_param p = {NAN, NULL};
    const cJSON *o = get_obj(w, key, true);
    if (o == NULL)
        return p;
    struct where q = sub(w, o);
    check_keys(&q, key, keys);
    p.value = get_num(&q, "value", true, lo, hi);
    p.source = get_source(&q, "source");
    return p;
}

/* architecture_mfu: {cnn: {value, source}, ...}: architecture names as the
 * contract lists them. */
static void load_arch_mfu(const struct where *t, struct dc_sizing_params *s)
{
    static const char *const archs[] = {"transformer", "cnn",       "rnn", "mlp",   "recommender",
                                        "gnn",         "diffusion", "moe", "other", NULL};
    const cJSON *am = get_obj(t, "architecture_mfu", false);
    if (am == NULL)
        return;
    struct where a = sub(t, am);
    check_keys(&a, "sizing.training.architecture_mfu", archs);
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, am)
    {
        if (s->n_arch_mfu == sizeof(s->arch_mfu) / sizeof(s->arch_mfu[0]))
            break;
        struct dc_param p = get_param(&a, it->string, 0.01, 1);
        s->arch_mfu[s->n_arch_mfu++] = (struct dc_arch_factor){it->string, p};
    }
}

static void load_training_params(const struct where *z, struct dc_sizing_params *s)
{
    static const char *const keys[] = {"state_bytes_per_parameter",
                                       "lora_adapter_fraction",
                                       "lora_flops_factor",
                                       "qlora_bytes_per_parameter",
                                       "checkpoint_bytes",
                                       "layer_bytes",
                                       "micro_batch",
                                       "sequence_length",
                                       "tokens_per_parameter",
                                       "fine_tuning_tokens",
                                       "target_hours_training",
                                       "target_hours_fine_tuning",
                                       "goodput",
                                       "efficiency_floor",
                                       "min_run_hours",
                                       "architecture_mfu",
                                       NULL};
    const cJSON *tr = get_obj(z, "training", true);
    if (tr == NULL)
        return;
    struct where t = sub(z, tr);
    check_keys(&t, "sizing.training", keys);
    s->state_bytes_per_parameter = get_param(&t, "state_bytes_per_parameter", 1, 64);
    s->lora_adapter_fraction = get_param(&t, "lora_adapter_fraction", 0, 1);
    s->lora_flops_factor = get_param(&t, "lora_flops_factor", 2, 6);
    s->qlora_bytes_per_parameter = get_param(&t, "qlora_bytes_per_parameter", 0.125, 4);
    s->checkpoint_bytes = get_param(&t, "checkpoint_bytes", 0, 64);
    s->layer_bytes = get_param(&t, "layer_bytes", 0, 1000);
    s->micro_batch = get_param(&t, "micro_batch", 1, 1e4);
    s->sequence_length = get_param(&t, "sequence_length", 1, 1e7);
    s->tokens_per_parameter = get_param(&t, "tokens_per_parameter", 0.001, 1e6);
    s->fine_tuning_tokens = get_param(&t, "fine_tuning_tokens", 1, 1e16);
    s->target_hours_training = get_param(&t, "target_hours_training", 0.01, 1e6);
    s->target_hours_fine_tuning = get_param(&t, "target_hours_fine_tuning", 0.01, 1e6);
    s->goodput = get_param(&t, "goodput", 0.05, 1);
    s->efficiency_floor = get_param(&t, "efficiency_floor", 0.01, 1);
    s->min_run_hours = get_param(&t, "min_run_hours", 0, 1e6);
    load_arch_mfu(&t, s);
}

static void load_inference_params(const struct where *z, struct dc_sizing_params *s)
{
    static const char *const keys[] = {"bytes_per_parameter", "overhead_factor", "context_tokens",
                                       "output_tokens",       "max_batch",       "hbm_efficiency",
                                       "kv_source",           "hours_per_month", NULL};
    const cJSON *inf = get_obj(z, "inference", true);
    if (inf == NULL)
        return;
    struct where t = sub(z, inf);
    check_keys(&t, "sizing.inference", keys);
    const cJSON *bpp = get_obj(&t, "bytes_per_parameter", true);
    if (bpp != NULL) {
        static const char *const bk[] = {"fp64", "fp32", "bf16", "fp16",   "fp8",
                                         "fp4",  "int8", "int4", "source", NULL};
        struct where b = sub(&t, bpp);
        check_keys(&b, "bytes_per_parameter", bk);
        for (size_t p = 0; p < DC_PREC_COUNT; p++)
            s->infer_bytes_per_param[p] =
                get_num(&b, dc_precision_name((enum dc_precision)p), true, 0.125, 16);
        s->infer_bytes_source = get_url(&b, "source", true);
    }
    s->infer_overhead = get_param(&t, "overhead_factor", 1, 10);
    s->context_tokens = get_param(&t, "context_tokens", 1, 1e7);
    s->output_tokens = get_param(&t, "output_tokens", 0, 1e7);
    s->max_batch = get_param(&t, "max_batch", 1, 1e5);
    s->hbm_efficiency = get_param(&t, "hbm_efficiency", 0.05, 1);
    s->kv_source = get_url(&t, "kv_source", true);
    s->hours_per_month = get_num(&t, "hours_per_month", true, 1, 744);
}

/* mfu: {gpu: {training, cross_domain, decay_per_doubling, inference, source}, ...} */
static void load_mfu(const struct where *z, struct dc_sizing_params *s)
{
    static const char *const keys[] = {"training",  "cross_domain", "decay_per_doubling",
                                       "inference", "source",       NULL};
    const cJSON *mfu = get_obj(z, "mfu", true);
    if (mfu == NULL)
        return;
    struct where m = sub(z, mfu);
    static const char *const fams[] = {"gpu", "tpu", "cpu", NULL};
    check_keys(&m, "sizing.mfu", fams);
    for (size_t f = 0; f < DC_FAMILY_COUNT; f++) {
        const cJSON *fo = get_obj(&m, dc_family_name((enum dc_family)f), true);
        if (fo == NULL)
            continue;
        struct where q = sub(&m, fo);
        check_keys(&q, "an mfu family", keys);
        s->mfu_training[f] = get_num(&q, "training", true, 0.01, 1);
        s->mfu_cross_domain[f] = get_num(&q, "cross_domain", true, 0.05, 1);
        s->mfu_decay[f] = get_num(&q, "decay_per_doubling", true, 0, 0.5);
        s->mfu_inference[f] = get_num(&q, "inference", true, 0.01, 1);
        s->mfu_source[f] = get_url(&q, "source", true);
    }
}

/* precision_gain: {fp8: {gpu, tpu, cpu, source}, ...}; an unlisted precision
 * gains nothing over bf16. */
static void load_precision_gain(const struct where *z, struct dc_sizing_params *s)
{
    for (size_t p = 0; p < DC_PREC_COUNT; p++) {
        for (size_t f = 0; f < DC_FAMILY_COUNT; f++)
            s->precision_gain[p][f] = 1.0;
    }
    const cJSON *pg = get_obj(z, "precision_gain", true);
    if (pg == NULL)
        return;
    struct where g = sub(z, pg);
    static const char *const precs[] = {"fp8", "fp4", "int8", "int4", NULL};
    static const char *const keys[] = {"gpu", "tpu", "cpu", "source", NULL};
    check_keys(&g, "sizing.precision_gain", precs);
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, pg)
    {
        enum dc_precision p;
        if (!dc_precision_parse(it->string, &p) || !cJSON_IsObject(it))
            continue;
        struct where q = sub(&g, it);
        check_keys(&q, "a precision gain", keys);
        for (size_t f = 0; f < DC_FAMILY_COUNT; f++)
            s->precision_gain[p][f] = get_num(&q, dc_family_name((enum dc_family)f), true, 1, 16);
        s->precision_gain_source[p] = get_url(&q, "source", true);
    }
}

static void load_scoring(const struct where *w, const cJSON *sc, struct dc_sizing_params *s)
{
    static const char *const keys[] = {"base",
                                       "rule_weight",
                                       "objective_weight",
                                       "unknown_objective",
                                       "availability_bonus",
                                       "price_stale_after_days",
                                       NULL};
    struct where c = sub(w, sc);
    check_keys(&c, "scoring", keys);
    s->score_base = get_num(&c, "base", true, 0, 100);
    s->rule_weight = get_num(&c, "rule_weight", true, 0, 1);
    s->objective_weight = get_num(&c, "objective_weight", true, 0, 1);
    s->unknown_objective = get_num(&c, "unknown_objective", true, 0, 100);
    s->availability_bonus = get_num(&c, "availability_bonus", true, 0, 100);
    s->price_stale_after_days = get_num(&c, "price_stale_after_days", true, 1, 36500);
    if (isfinite(s->rule_weight) && isfinite(s->objective_weight) &&
        fabs(s->rule_weight + s->objective_weight - 1.0) > 1e-9)
        diag(w->L, w->file, line_of(&c, sc), NULL,
             "rule_weight and objective_weight must add up to 1");
}

static void load_sizing(struct loader *L, dc_ruleset *rs, const char *file, const dc_yaml_doc *doc,
                        const cJSON *root)
{
    struct dc_sizing_params *s = &rs->sizing;
    struct where w = {L, file, doc, NULL, root};
    static const char *const top[] = {"sizing", "scoring", NULL};
    if (!cJSON_IsObject(root)) {
        diag(L, file, 1, NULL, "sizing.yaml must be a mapping with \"sizing\" and \"scoring\"");
        return;
    }
    check_keys(&w, "sizing.yaml", top);
    const cJSON *sz = get_obj(&w, "sizing", true);
    const cJSON *sc = get_obj(&w, "scoring", true);
    if (sz != NULL) {
        static const char *const keys[] = {"memory_usable_fraction", "training", "inference", "mfu",
                                           "precision_gain",         NULL};
        struct where z = sub(&w, sz);
        check_keys(&z, "sizing", keys);
        s->memory_usable_fraction = get_param(&z, "memory_usable_fraction", 0.1, 1.0);
        load_training_params(&z, s);
        load_inference_params(&z, s);
        load_mfu(&z, s);
        load_precision_gain(&z, s);
    }
    if (sc != NULL)
        load_scoring(&w, sc, s);
}

/* ---- rules ------------------------------------------------------------------ */

static bool find_acc(const dc_ruleset *rs, const char *id, size_t *out)
{
    for (size_t i = 0; i < rs->n_accs; i++) {
        if (rs->accs[i].id != NULL && strcmp(rs->accs[i].id, id) == 0) {
            *out = i;
            return true;
        }
    }
    return false;
}

static int get_impact(const struct where *w, const cJSON *v)
{
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < -100 ||
        v->valuedouble > 100) {
        diag(w->L, w->file, line_of(w, v), w->id,
             "impact on \"%s\" must be an integer between -100 and 100", v->string);
        return 0;
    }
    return (int)v->valuedouble;
}

static void parse_effect(const struct where *w, dc_ruleset *rs, struct dc__rule *r,
                         const cJSON *eff)
{
    static const char *const keys[] = {"families", "accelerators", "exclude", NULL};
    struct where e = sub(w, eff);
    check_keys(&e, "effect", keys);
    const cJSON *fams = get_obj(&e, "families", false);
    const cJSON *accs = get_obj(&e, "accelerators", false);
    const cJSON *excl = get_obj(&e, "exclude", false);
    if (fams == NULL && accs == NULL && excl == NULL) {
        diag(w->L, w->file, line_of(&e, eff), w->id,
             "effect needs at least one of families, accelerators, exclude");
        return;
    }
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, fams)
    {
        enum dc_family f;
        if (!dc_family_parse(it->string, &f)) {
            diag(w->L, w->file, line_of(&e, it), w->id, "unknown family \"%s\"", it->string);
            continue;
        }
        r->family_impact[f] = get_impact(&e, it);
        r->family_mask |= 1u << f;
    }
    if (accs != NULL) {
        size_t n = (size_t)cJSON_GetArraySize(accs);
        r->acc_impacts = calloc(n + 1, sizeof(*r->acc_impacts));
        if (r->acc_impacts == NULL) {
            w->L->oom = true;
            return;
        }
        cJSON_ArrayForEach(it, accs)
        {
            size_t idx = 0;
            if (!find_acc(rs, it->string, &idx)) {
                diag(w->L, w->file, line_of(&e, it), w->id,
                     "unknown accelerator \"%s\" (not in the catalog)", it->string);
                continue;
            }
            r->acc_impacts[r->n_acc_impacts].acc = idx;
            r->acc_impacts[r->n_acc_impacts].impact = get_impact(&e, it);
            r->n_acc_impacts++;
        }
    }
    if (excl != NULL) {
        static const char *const xk[] = {"families", "accelerators", NULL};
        struct where x = sub(&e, excl);
        check_keys(&x, "exclude", xk);
        const cJSON *xf = get_arr(&x, "families", false);
        const cJSON *xa = get_arr(&x, "accelerators", false);
        if (xf == NULL && xa == NULL)
            diag(w->L, w->file, line_of(&x, excl), w->id, "exclude needs families or accelerators");
        cJSON_ArrayForEach(it, xf)
        {
            enum dc_family f;
            if (!cJSON_IsString(it) || !dc_family_parse(it->valuestring, &f)) {
                diag(w->L, w->file, line_of(&x, it), w->id, "unknown family in exclude");
                continue;
            }
            r->exclude_families |= 1u << f;
        }
        if (xa != NULL) {
            size_t n = (size_t)cJSON_GetArraySize(xa);
            r->exclude_accs = calloc(n + 1, sizeof(*r->exclude_accs));
            if (r->exclude_accs == NULL) {
                w->L->oom = true;
                return;
            }
            cJSON_ArrayForEach(it, xa)
            {
                size_t idx = 0;
                if (!cJSON_IsString(it) || !find_acc(rs, it->valuestring, &idx)) {
                    diag(w->L, w->file, line_of(&x, it), w->id,
                         "unknown accelerator \"%s\" in exclude (not in the catalog)",
                         cJSON_IsString(it) ? it->valuestring : "(not a string)");
                    continue;
                }
                r->exclude_accs[r->n_exclude_accs++] = idx;
            }
        }
        r->info.excludes = r->exclude_families != 0 || r->n_exclude_accs != 0;
    }
}

static void load_rules(struct loader *L, dc_ruleset *rs, const char *file, const dc_yaml_doc *doc,
                       const cJSON *root)
{
    struct where w = {L, file, doc, NULL, root};
    static const char *const top[] = {"rules", NULL};
    if (!cJSON_IsObject(root)) {
        diag(L, file, 1, NULL, "a rule file must be a mapping with \"rules\"");
        return;
    }
    check_keys(&w, "a rule file", top);
    const cJSON *list = get_arr(&w, "rules", true);
    if (list == NULL)
        return;
    size_t n = (size_t)cJSON_GetArraySize(list);
    if (rs->n_rules + n > DC_RULESET_MAX_RULES) {
        diag(L, file, line_of(&w, list), NULL, "more rules than the limit of %d",
             DC_RULESET_MAX_RULES);
        return;
    }
    struct dc__rule *grown = realloc(rs->rules, (rs->n_rules + n + 1) * sizeof(*grown));
    if (grown == NULL) {
        L->oom = true;
        return;
    }
    rs->rules = grown;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, list)
    {
        static const char *const keys[] = {"id",   "description", "source",  "fact",
                                           "when", "effect",      "message", NULL};
        struct dc__rule *r = &rs->rules[rs->n_rules++];
        memset(r, 0, sizeof(*r));
        r->info.file = file;
        struct where rw = {L, file, doc, NULL, it};
        r->info.line = line_of(&rw, it);
        if (!cJSON_IsObject(it)) {
            diag(L, file, r->info.line, NULL, "each rule must be a mapping");
            continue;
        }
        r->info.id = get_str(&rw, "id", true);
        if (r->info.id != NULL && !valid_id(r->info.id, true)) {
            diag(L, file, r->info.line, r->info.id,
                 "id must be 1-32 characters of a-z, 0-9, '-', '.', '_', starting with a letter "
                 "or digit");
        }
        rw.id = r->info.id;
        for (size_t j = 0; r->info.id != NULL && j + 1 < rs->n_rules; j++) {
            if (rs->rules[j].info.id != NULL && strcmp(rs->rules[j].info.id, r->info.id) == 0)
                diag(L, file, r->info.line, r->info.id, "duplicate rule id (first at %s:%u)",
                     rs->rules[j].info.file, rs->rules[j].info.line);
        }
        check_keys(&rw, "rule", keys);
        r->info.description = get_str(&rw, "description", true);
        r->info.source = get_url(&rw, "source", true);
        r->info.fact = get_str(&rw, "fact", false);
        r->info.message = get_str(&rw, "message", false);
        if (r->info.message == NULL)
            r->info.message = r->info.description;
        const cJSON *when = cJSON_GetObjectItemCaseSensitive(it, "when");
        if (when == NULL) {
            diag(L, file, r->info.line, r->info.id, "missing required field \"when\"");
        } else {
            struct dc_error err;
            dc_error_clear(&err);
            r->info.when = when;
            enum dc_status rc = dc_logic_compile(when, NULL, &r->cond, &err);
            if (rc == DC_ENOMEM)
                L->oom = true;
            else if (rc != DC_OK)
                diag(L, file, line_of(&rw, when), r->info.id, "condition%s%s: %s",
                     err.where[0] != '\0' ? " at " : "", err.where, err.msg);
        }
        const cJSON *eff = get_obj(&rw, "effect", true);
        if (eff != NULL)
            parse_effect(&rw, rs, r, eff);
    }
}

/* ---- canonical digest -------------------------------------------------------- */

struct buf {
    char *p;
    size_t len;
    size_t cap;
    bool oom;
};

static void buf_put(struct buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap != 0 ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static int key_cmp(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a;
    const cJSON *y = *(const cJSON *const *)b;
    return strcmp(x->string, y->string);
}

static void put_string(struct buf *b, const char *s)
{
    buf_put(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        char esc[8];
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            buf_put(b, esc, 2);
        } else if (*p < 0x20) {
            int len = snprintf(esc, sizeof(esc), "\\u%04x", *p);
            buf_put(b, esc, (size_t)len);
        } else {
            buf_put(b, (const char *)p, 1);
        }
    }
    buf_put(b, "\"", 1);
}

/* JSON with object keys sorted and numbers as %.17g: the same content always
 * gives the same bytes, whatever the YAML formatting or comments were. */
static void canonical(struct buf *b, const cJSON *n)
{
    char num[40];
    if (cJSON_IsObject(n)) {
        size_t count = (size_t)cJSON_GetArraySize(n);
        const cJSON **kids = calloc(count + 1, sizeof(*kids));
        if (kids == NULL) {
            b->oom = true;
            return;
        }
        size_t i = 0;
        const cJSON *it = NULL;
        cJSON_ArrayForEach(it, n) kids[i++] = it;
        qsort(kids, count, sizeof(*kids), key_cmp);
        buf_put(b, "{", 1);
        for (i = 0; i < count; i++) {
            if (i > 0)
                buf_put(b, ",", 1);
            put_string(b, kids[i]->string);
            buf_put(b, ":", 1);
            canonical(b, kids[i]);
        }
        buf_put(b, "}", 1);
        free(kids);
    } else if (cJSON_IsArray(n)) {
        buf_put(b, "[", 1);
        const cJSON *it = NULL;
        bool first = true;
        cJSON_ArrayForEach(it, n)
        {
            if (!first)
                buf_put(b, ",", 1);
            first = false;
            canonical(b, it);
        }
        buf_put(b, "]", 1);
    } else if (cJSON_IsString(n)) {
        put_string(b, n->valuestring);
    } else if (cJSON_IsNumber(n)) {
        int len = snprintf(num, sizeof(num), "%.17g", n->valuedouble);
        buf_put(b, num, (size_t)len);
    } else if (cJSON_IsTrue(n)) {
        buf_put(b, "true", 4);
    } else if (cJSON_IsFalse(n)) {
        buf_put(b, "false", 5);
    } else {
        buf_put(b, "null", 4);
    }
}

static bool compute_version(dc_ruleset *rs)
{
    struct buf b = {0};
    for (size_t i = 0; i < rs->n_trees; i++) {
        buf_put(&b, rs->file_names[i], strlen(rs->file_names[i]) + 1);
        canonical(&b, rs->trees[i]);
        buf_put(&b, "\n", 1);
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    bool ok = !b.oom && EVP_Digest(b.p, b.len, md, &mdlen, EVP_sha256(), NULL) == 1;
    free(b.p);
    if (!ok)
        return false;
    for (unsigned i = 0; i < mdlen && i < 32; i++)
        snprintf(rs->version + 2 * i, 3, "%02x", md[i]);
    return true;
}

/* ---- lifecycle ----------------------------------------------------------------- */

static void ruleset_destroy(dc_ruleset *rs)
{
    if (rs == NULL)
        return;
    for (size_t i = 0; i < rs->n_rules; i++) {
        dc_logic_free(rs->rules[i].cond);
        free(rs->rules[i].acc_impacts);
        free(rs->rules[i].exclude_accs);
    }
    free(rs->rules);
    free(rs->accs);
    free(rs->pci_pool);
    for (size_t i = 0; i < rs->n_trees; i++) {
        cJSON_Delete(rs->trees[i]);
        free(rs->file_names[i]);
    }
    free(rs->trees);
    free(rs->file_names);
    free(rs->origin);
    free(rs);
}

dc_ruleset *dc_ruleset_retain(dc_ruleset *rs)
{
    if (rs != NULL)
        atomic_fetch_add_explicit(&rs->refs, 1, memory_order_relaxed);
    return rs;
}

void dc_ruleset_release(dc_ruleset *rs)
{
    if (rs == NULL)
        return;
    if (atomic_fetch_sub_explicit(&rs->refs, 1, memory_order_acq_rel) == 1)
        ruleset_destroy(rs);
}

static int file_cmp(const void *a, const void *b)
{
    const struct dc_source_file *x = *(const struct dc_source_file *const *)a;
    const struct dc_source_file *y = *(const struct dc_source_file *const *)b;
    return strcmp(x->name, y->name);
}

static enum dc_status load_files(const struct dc_source_file *files, size_t n, const char *origin,
                                 dc_ruleset **out, struct dc_diags *diags)
{
    struct loader L = {diags, 0, false};
    enum dc_status rc = DC_OK;
    dc_ruleset *rs = NULL;
    dc_yaml_doc **docs = NULL;
    const struct dc_source_file **sorted = NULL;

    if (out == NULL || (files == NULL && n != 0))
        return DC_EINVAL;
    *out = NULL;
    if (n > DC_RULESET_MAX_FILES) {
        diag(&L, origin, 0, NULL, "%zu rule files exceed the limit of %d", n, DC_RULESET_MAX_FILES);
        return DC_ELIMIT;
    }
    rs = calloc(1, sizeof(*rs));
    docs = calloc(n + 1, sizeof(*docs));
    sorted = calloc(n + 1, sizeof(*sorted));
    if (rs == NULL || docs == NULL || sorted == NULL)
        goto oom;
    atomic_init(&rs->refs, 1);
    rs->origin = strdup(origin);
    rs->trees = calloc(n + 1, sizeof(*rs->trees));
    rs->file_names = calloc(n + 1, sizeof(*rs->file_names));
    if (rs->origin == NULL || rs->trees == NULL || rs->file_names == NULL)
        goto oom;
    for (size_t i = 0; i < n; i++)
        sorted[i] = &files[i];
    qsort(sorted, n, sizeof(*sorted), file_cmp);

    /* Parse every file first, so syntax errors in several files all show. */
    ssize_t catalog = -1, sizing = -1;
    for (size_t i = 0; i < n; i++) {
        struct dc_error err;
        dc_error_clear(&err);
        const struct dc_source_file *f = sorted[i];
        rs->file_names[i] = strdup(f->name);
        if (rs->file_names[i] == NULL)
            goto oom;
        rs->n_trees = i + 1;
        enum dc_status prc = dc_yaml_parse(f->data, f->len, rs->file_names[i], &docs[i], &err);
        if (prc == DC_ENOMEM)
            goto oom;
        if (prc != DC_OK) {
            const char *colon = strrchr(err.where, ':');
            diag(&L, f->name, colon != NULL ? (unsigned)atoi(colon + 1) : 0, NULL, "%s", err.msg);
            if (prc == DC_ELIMIT)
                rc = DC_ELIMIT;
            continue;
        }
        rs->trees[i] = dc_yaml_take_root(docs[i]);
        if (strcmp(f->name, "catalog.yaml") == 0)
            catalog = (ssize_t)i;
        else if (strcmp(f->name, "sizing.yaml") == 0)
            sizing = (ssize_t)i;
    }
    if (catalog < 0 && L.problems == 0)
        diag(&L, origin, 0, NULL, "no catalog.yaml in the rule set");
    if (sizing < 0 && L.problems == 0)
        diag(&L, origin, 0, NULL, "no sizing.yaml in the rule set");
    if (catalog >= 0)
        load_catalog(&L, rs, rs->file_names[catalog], docs[catalog], rs->trees[catalog]);
    if (sizing >= 0)
        load_sizing(&L, rs, rs->file_names[sizing], docs[sizing], rs->trees[sizing]);
    /* Rules are checked against the catalog, so only once it loaded cleanly;
     * otherwise every rule naming a broken entry would be reported too. */
    if (catalog >= 0 && rs->n_accs > 0) {
        for (size_t i = 0; i < n; i++) {
            if ((ssize_t)i == catalog || (ssize_t)i == sizing || docs[i] == NULL)
                continue;
            load_rules(&L, rs, rs->file_names[i], docs[i], rs->trees[i]);
            if (L.oom)
                goto oom;
        }
    }
    if (L.oom)
        goto oom;
    if (L.problems > 0) {
        if (rc == DC_OK)
            rc = DC_EVALIDATE;
        goto out;
    }
    if (!compute_version(rs))
        goto oom;
    *out = rs;
    rs = NULL;
    goto out;
oom:
    rc = DC_ENOMEM;
    diag(&L, origin, 0, NULL, "out of memory while loading the rule set");
out:
    for (size_t i = 0; docs != NULL && i < n; i++)
        dc_yaml_doc_free(docs[i]);
    free(docs);
    free(sorted);
    ruleset_destroy(rs);
    return rc;
}

enum dc_status dc_ruleset_load_files(const struct dc_source_file *files, size_t n, dc_ruleset **out,
                                     struct dc_diags *diags)
{
    return load_files(files, n, "embedded", out, diags);
}

static bool wanted_file(const char *name)
{
    size_t len = strlen(name);
    return name[0] != '.' && len > 5 && strcmp(name + len - 5, ".yaml") == 0;
}

/* Read one file of at most DC_RULESET_MAX_FILE_BYTES. */
static enum dc_status read_file(const char *path, char **out, size_t *len, char *why, size_t whylen)
{
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        snprintf(why, whylen, "cannot open: %s", strerror(errno));
        return DC_EIO;
    }
    char *data = malloc(DC_RULESET_MAX_FILE_BYTES + 1);
    if (data == NULL) {
        fclose(fp);
        return DC_ENOMEM;
    }
    size_t n = fread(data, 1, DC_RULESET_MAX_FILE_BYTES + 1, fp);
    bool err = ferror(fp) != 0;
    fclose(fp);
    if (err) {
        free(data);
        snprintf(why, whylen, "read error");
        return DC_EIO;
    }
    if (n > DC_RULESET_MAX_FILE_BYTES) {
        free(data);
        snprintf(why, whylen, "file is over the limit of %u bytes", DC_RULESET_MAX_FILE_BYTES);
        return DC_ELIMIT;
    }
    *out = data;
    *len = n;
    return DC_OK;
}

enum dc_status dc_ruleset_load_embedded(const struct aa_embedded_file *files, dc_ruleset **out,
                                        struct dc_diags *diags)
{
    static const char prefix[] = "rules/";
    struct dc_source_file list[DC_RULESET_MAX_FILES];
    size_t n = 0;
    if (files == NULL || out == NULL)
        return DC_EINVAL;
    for (const struct aa_embedded_file *f = files; f->name != NULL; f++) {
        if (strncmp(f->name, prefix, sizeof(prefix) - 1) != 0)
            continue;
        if (n == DC_RULESET_MAX_FILES)
            return DC_ELIMIT;
        list[n++] = (struct dc_source_file){f->name + sizeof(prefix) - 1, f->data, f->len};
    }
    return dc_ruleset_load_files(list, n, out, diags);
}

enum dc_status dc_ruleset_load_dir(const char *dir, dc_ruleset **out, struct dc_diags *diags)
{
    struct loader L = {diags, 0, false};
    struct dc_source_file files[DC_RULESET_MAX_FILES];
    char *names[DC_RULESET_MAX_FILES];
    size_t n = 0;
    enum dc_status rc = DC_OK;

    if (out == NULL || dir == NULL)
        return DC_EINVAL;
    *out = NULL;
    DIR *d = opendir(dir);
    if (d == NULL) {
        diag(&L, dir, 0, NULL, "cannot open rules directory: %s", strerror(errno));
        return DC_EIO;
    }
    struct dirent *de = NULL;
    while ((de = readdir(d)) != NULL) {
        if (!wanted_file(de->d_name))
            continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (n == DC_RULESET_MAX_FILES) {
            diag(&L, dir, 0, NULL, "more than %d rule files", DC_RULESET_MAX_FILES);
            rc = DC_ELIMIT;
            break;
        }
        char why[256];
        char *data = NULL;
        size_t len = 0;
        enum dc_status frc = read_file(path, &data, &len, why, sizeof(why));
        if (frc != DC_OK) {
            if (frc != DC_ENOMEM)
                diag(&L, de->d_name, 0, NULL, "%s", why);
            rc = frc;
            continue;
        }
        names[n] = strdup(de->d_name);
        if (names[n] == NULL) {
            free(data);
            rc = DC_ENOMEM;
            break;
        }
        files[n].name = names[n];
        files[n].data = data;
        files[n].len = len;
        n++;
    }
    closedir(d);
    if (rc == DC_OK)
        rc = load_files(files, n, dir, out, diags);
    for (size_t i = 0; i < n; i++) {
        free((void *)(uintptr_t)files[i].data);
        free(names[i]);
    }
    return rc;
}

/* ---- accessors ------------------------------------------------------------- */

const char *dc_ruleset_version(const dc_ruleset *rs)
{
    return rs->version;
}

const char *dc_ruleset_origin(const dc_ruleset *rs)
{
    return rs->origin;
}

size_t dc_ruleset_rule_count(const dc_ruleset *rs)
{
    return rs->n_rules;
}

const struct dc_rule_info *dc_ruleset_rule(const dc_ruleset *rs, size_t i)
{
    return i < rs->n_rules ? &rs->rules[i].info : NULL;
}

size_t dc_ruleset_accelerator_count(const dc_ruleset *rs)
{
    return rs->n_accs;
}

const struct dc_accelerator *dc_ruleset_accelerator(const dc_ruleset *rs, size_t i)
{
    return i < rs->n_accs ? &rs->accs[i] : NULL;
}

const struct dc_accelerator *dc_ruleset_find_accelerator(const dc_ruleset *rs, const char *id)
{
    size_t i = 0;
    if (id == NULL || !find_acc(rs, id, &i))
        return NULL;
    return &rs->accs[i];
}

const struct dc_accelerator *dc_ruleset_find_pci(const dc_ruleset *rs, uint16_t vendor,
                                                 uint16_t device)
{
    for (size_t i = 0; i < rs->n_accs; i++) {
        const struct dc_accelerator *a = &rs->accs[i];
        if (a->pci_vendor != vendor)
            continue;
        for (size_t k = 0; k < a->n_pci_devices; k++) {
            if (a->pci_devices[k] == device)
                return a;
        }
    }
    return NULL;
}

const struct dc_sizing_params *dc_ruleset_sizing(const dc_ruleset *rs)
{
    return &rs->sizing;
}
