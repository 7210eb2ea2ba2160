/* core/src/rules/catalog.c -- catalog.yaml: every accelerator, its numbers and their
 * sources, its purchasable shapes and cluster (format: docs/rules-format.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "ruleset_internal.h"

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

static void parse_pci(const struct dc__where *w, const cJSON *pci, struct dc_accelerator *a,
                      uint16_t *pool, size_t *pool_used, size_t pool_cap)
{
    static const char *const keys[] = {"vendor", "devices", NULL};
    struct dc__where p = dc__sub(w, pci);
    dc__check_keys(&p, "pci", keys);
    double vendor = dc__get_num(&p, "vendor", true, 1, 0xfffe);
    if (isfinite(vendor)) {
        if (vendor != floor(vendor))
            dc__diag(w->L, w->file, dc__line_of(&p, pci), w->id, "pci vendor must be an integer");
        a->pci_vendor = (uint16_t)vendor;
    }
    const cJSON *devs = dc__get_arr(&p, "devices", true);
    if (devs == NULL)
        return;
    if (cJSON_GetArraySize(devs) == 0)
        dc__diag(w->L, w->file, dc__line_of(&p, devs), w->id, "pci devices must not be empty");
    a->pci_devices = pool + *pool_used;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, devs)
    {
        if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 0xffff ||
            it->valuedouble != floor(it->valuedouble)) {
            dc__diag(w->L, w->file, dc__line_of(&p, it), w->id,
                     "pci device ids must be integers 0x0000-0xffff");
            continue;
        }
        if (*pool_used == pool_cap) {
            dc__diag(w->L, w->file, dc__line_of(&p, it), w->id, "too many pci device ids");
            return;
        }
        pool[(*pool_used)++] = (uint16_t)it->valuedouble;
        a->n_pci_devices++;
    }
}

/* interconnect: {name, bandwidth_gbps, domain}: the fast domain. */
static void parse_interconnect(const struct dc__where *w, const cJSON *ic, struct dc_accelerator *a)
{
    static const char *const keys[] = {"name", "bandwidth_gbps", "domain", NULL};
    struct dc__where p = dc__sub(w, ic);
    dc__check_keys(&p, "interconnect", keys);
    a->interconnect = dc__get_str(&p, "name", true);
    a->interconnect_gbps = dc__get_num(&p, "bandwidth_gbps", false, 0, 1e9);
    double dom = dc__get_num(&p, "domain", true, 1, 1e6);
    a->domain = isfinite(dom) ? (unsigned)dom : 0;
    if (isfinite(dom) && dom != floor(dom))
        dc__diag(w->L, w->file, dc__line_of(&p, ic), w->id,
                 "interconnect domain must be an integer");
}

/* One chip count of a shape list: an integer in [1, 1e6]. */
static bool shape_count(const struct dc__where *w, const cJSON *v, unsigned *out)
{
    if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 1e6 ||
        v->valuedouble != floor(v->valuedouble)) {
        dc__diag(w->L, w->file, dc__line_of(w, v), w->id,
                 "chip counts must be integers from 1 to 1000000");
        return false;
    }
    *out = (unsigned)v->valuedouble;
    return true;
}

/* shapes: {node_sizes: [1, 2, 4, 8]} for machines bought by their chip count, or
 * named units {slices: {v5p-8: 4, ...}} for TPUs and {machines: {c3-standard-4:
 * 4, ...}} for CPU machine types, ascending, plus the source that lists them. */
static void parse_shapes(const struct dc__where *w, const cJSON *sh, struct dc_accelerator *a)
{
    static const char *const keys[] = {"node_sizes",   "slices",         "machines", "source",
                                       "on_prem_unit", "on_prem_source", NULL};
    struct dc__where p = dc__sub(w, sh);
    dc__check_keys(&p, "shapes", keys);
    a->shapes_source = dc__get_url(&p, "source", true);
    /* What an owner buys (issue 27): a GB200 NVL72 rack, an HGX machine of 8. */
    bool has_unit = cJSON_GetObjectItemCaseSensitive(sh, "on_prem_unit") != NULL;
    double unit = dc__get_num(&p, "on_prem_unit", false, 1, 1e5);
    a->on_prem_source = dc__get_url(&p, "on_prem_source", has_unit);
    a->on_prem_unit = 0;
    if (isfinite(unit) && unit == floor(unit))
        a->on_prem_unit = (unsigned)unit;
    else if (isfinite(unit))
        dc__diag(w->L, w->file,
                 dc__line_of(&p, cJSON_GetObjectItemCaseSensitive(sh, "on_prem_unit")), w->id,
                 "on_prem_unit must be an integer");
    const cJSON *nodes = dc__get_arr(&p, "node_sizes", false);
    const cJSON *slices = dc__get_obj(&p, "slices", false);
    const cJSON *machines = dc__get_obj(&p, "machines", false);
    const cJSON *named = slices != NULL ? slices : machines;
    if ((nodes != NULL) + (slices != NULL) + (machines != NULL) != 1) {
        dc__diag(w->L, w->file, dc__line_of(&p, sh), w->id,
                 "shapes needs one of node_sizes, slices or machines");
        return;
    }
    const cJSON *list = nodes != NULL ? nodes : named;
    size_t n = (size_t)cJSON_GetArraySize(list);
    size_t limit = nodes != NULL ? DC_ACC_MAX_NODE_SIZES : DC_ACC_MAX_SLICES;
    if (n == 0 || n > limit) {
        dc__diag(w->L, w->file, dc__line_of(&p, sh), w->id, "shapes must list 1 to %zu sizes",
                 limit);
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
            dc__diag(w->L, w->file, dc__line_of(&p, it), w->id,
                     "shapes must be listed in ascending chips");
        prev = chips;
        if (nodes != NULL) {
            a->node_sizes[a->n_node_sizes++] = chips;
        } else if (!dc__valid_id(it->string, false)) {
            dc__diag(w->L, w->file, dc__line_of(&p, it), w->id,
                     "shape name \"%.40s\" must be 1-32 characters of a-z, 0-9 and '-'",
                     it->string);
        } else {
            a->slices[a->n_slices++] = (struct dc_slice){it->string, chips};
        }
    }
}

/* scale_out: {network, max_chips, source}: the cluster beyond one domain. */
static void parse_scale_out(const struct dc__where *w, const cJSON *so, struct dc_accelerator *a)
{
    static const char *const keys[] = {
        "network", "max_chips", "source", "gbit_per_chip", "gbit_per_chip_source", NULL};
    struct dc__where p = dc__sub(w, so);
    dc__check_keys(&p, "scale_out", keys);
    a->scale_out_network = dc__get_str(&p, "network", true);
    a->scale_out_source = dc__get_url(&p, "source", true);
    /* The network per chip, with the page that publishes it: both or neither. */
    bool has_rate = cJSON_GetObjectItemCaseSensitive(so, "gbit_per_chip") != NULL;
    a->network_gbit_per_chip = dc__get_num(&p, "gbit_per_chip", false, 0.1, 1e5);
    a->network_source = dc__get_url(&p, "gbit_per_chip_source", has_rate);
    double maxc = dc__get_num(&p, "max_chips", true, 1, 1e6);
    a->max_chips = isfinite(maxc) ? (unsigned)maxc : 1;
    if (isfinite(maxc) && maxc != floor(maxc))
        dc__diag(w->L, w->file, dc__line_of(&p, so), w->id, "max_chips must be an integer");
}

/* The shapes must agree with the domain and the cluster they describe. */
static void check_scale(const struct dc__where *w, struct dc_accelerator *a)
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
        dc__diag(w->L, w->file,
                 dc__line_of(w, cJSON_GetObjectItemCaseSensitive(w->obj, "interconnect")), w->id,
                 "the fast domain of named shapes is the largest one (%u chips), not %u", largest,
                 a->domain);
    if (a->max_chips < largest)
        dc__diag(w->L, w->file,
                 dc__line_of(w, cJSON_GetObjectItemCaseSensitive(w->obj, "scale_out")), w->id,
                 "scale_out max_chips (%u) is below the largest shape (%u chips)", a->max_chips,
                 largest);
}

/* mfu_factor: {value, source} (one factor for training and serving), or
 * {training, inference, source} when they were measured apart; `hbm`, where
 * given, is the serving stack's share of the memory bandwidth a decode step
 * reads at (issue 30: ROCm's batch-1 steps, docs/calibration.md). */
static void parse_mfu_factor(const struct dc__where *w, struct dc_accelerator *a)
{
    static const char *const mk[] = {"value", "training", "inference", "hbm", "source", NULL};
    a->mfu_factor = a->training_mfu_factor = a->hbm_factor = 1.0;
    const cJSON *mf = dc__get_obj(w, "mfu_factor", false);
    if (mf == NULL)
        return;
    struct dc__where p = dc__sub(w, mf);
    dc__check_keys(&p, "mfu_factor", mk);
    bool both = cJSON_GetObjectItemCaseSensitive(mf, "value") != NULL;
    if (both) {
        a->mfu_factor = a->training_mfu_factor = dc__get_num(&p, "value", true, 0.05, 2);
    } else {
        a->training_mfu_factor = dc__get_num(&p, "training", true, 0.05, 2);
        a->mfu_factor = dc__get_num(&p, "inference", true, 0.05, 2);
    }
    if (cJSON_GetObjectItemCaseSensitive(mf, "hbm") != NULL)
        a->hbm_factor = dc__get_num(&p, "hbm", true, 0.05, 2);
    if (both && (cJSON_GetObjectItemCaseSensitive(mf, "training") != NULL ||
                 cJSON_GetObjectItemCaseSensitive(mf, "inference") != NULL))
        dc__diag(p.L, p.file, dc__line_of(&p, mf), p.id,
                 "mfu_factor: give \"value\" or \"training\" and \"inference\", not both");
    a->mfu_factor_source = dc__get_url(&p, "source", true);
}

static void parse_accelerator(const struct dc__where *w, struct dc_accelerator *a, uint16_t *pool,
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
    static const char *const vendors[] = {"nvidia", "amd",     "google", "intel",
                                          "aws",    "generic", NULL};
    dc__check_keys(w, "accelerator", keys);
    a->name = dc__get_str(w, "name", true);
    a->short_name = dc__get_str(w, "short_name", false);
    a->vendor = dc__get_str(w, "vendor", true);
    if (a->vendor != NULL) {
        bool ok = false;
        for (size_t i = 0; vendors[i] != NULL && !ok; i++)
            ok = strcmp(a->vendor, vendors[i]) == 0;
        if (!ok)
            dc__diag(w->L, w->file, dc__line_of(w, w->obj), w->id,
                     "vendor must be one of nvidia, amd, google, intel, aws, generic");
    }
    const char *fam = dc__get_str(w, "family", true);
    if (fam != NULL && !dc_family_parse(fam, &a->family))
        dc__diag(w->L, w->file, dc__line_of(w, cJSON_GetObjectItemCaseSensitive(w->obj, "family")),
                 w->id, "family must be gpu, tpu, cpu or asic");
    a->fact = dc__get_str(w, "fact", false);
    a->source = dc__get_url(w, "source", true);
    const cJSON *pci = dc__get_obj(w, "pci", false);
    if (pci != NULL)
        parse_pci(w, pci, a, pool, pool_used, pool_cap);
    a->memory_gb = dc__get_num(w, "memory_gb", true, 0.001, 1e7);
    a->memory_bandwidth_gbps = dc__get_num(w, "memory_bandwidth_gbps", false, 0.001, 1e9);
    for (size_t i = 0; i < DC_PREC_COUNT; i++)
        a->peak_tflops[i] = NAN;
    a->peak_tf32_tflops = NAN;
    const cJSON *peak = dc__get_obj(w, "peak_tflops", true);
    if (peak != NULL) {
        struct dc__where p = dc__sub(w, peak);
        const cJSON *it = NULL;
        cJSON_ArrayForEach(it, peak)
        {
            enum dc_precision prec;
            if (strcmp(it->string, "tf32") == 0) { /* fp32 matmuls as TF32 */
                a->peak_tf32_tflops = dc__get_num(&p, it->string, false, 0, 1e7);
                continue;
            }
            if (!dc_precision_parse(it->string, &prec)) {
                dc__diag(w->L, w->file, dc__line_of(&p, it), w->id, "unknown precision \"%s\"",
                         it->string);
                continue;
            }
            a->peak_tflops[prec] = dc__get_num(&p, it->string, false, 0, 1e7);
        }
    }
    const cJSON *precs = dc__get_arr(w, "precisions", true);
    if (precs != NULL) {
        a->precisions = dc__parse_name_set(w, precs, "precision", parse_prec_u);
        if (a->precisions == 0)
            dc__diag(w->L, w->file, dc__line_of(w, precs), w->id, "precisions must not be empty");
    }
    a->interconnect_gbps = NAN;
    const cJSON *ic = dc__get_obj(w, "interconnect", false);
    if (ic != NULL)
        parse_interconnect(w, ic, a);
    const cJSON *shapes = dc__get_obj(w, "shapes", true);
    if (shapes != NULL)
        parse_shapes(w, shapes, a);
    const cJSON *so = dc__get_obj(w, "scale_out", true);
    if (so != NULL)
        parse_scale_out(w, so, a);
    check_scale(w, a);
    parse_mfu_factor(w, a);
    a->power_watts = dc__get_num(w, "power_watts", false, 0, 1e6);
    const cJSON *prov = dc__get_arr(w, "providers", true);
    if (prov != NULL)
        a->providers = dc__parse_name_set(w, prov, "provider", parse_provider_u);
    a->on_prem = dc__get_bool(w, "on_prem", true, false);
    const cJSON *price = cJSON_GetObjectItemCaseSensitive(w->obj, "price");
    if (price != NULL)
        dc__diag(w->L, w->file, dc__line_of(w, price), w->id,
                 "prices live in prices.yaml, one offer per provider (docs/rules-format.md)");
    a->list_price_usd = NAN;
}

void dc__load_catalog(struct dc__loader *L, dc_ruleset *rs, const char *file,
                      const dc_yaml_doc *doc, const cJSON *root)
{
    struct dc__where w = {L, file, doc, NULL, root};
    static const char *const keys[] = {"accelerators", NULL};
    if (!cJSON_IsObject(root)) {
        dc__diag(L, file, 1, NULL, "catalog must be a mapping with \"accelerators\"");
        return;
    }
    dc__check_keys(&w, "the catalog", keys);
    const cJSON *list = dc__get_arr(&w, "accelerators", true);
    if (list == NULL)
        return;
    size_t n = (size_t)cJSON_GetArraySize(list);
    if (n == 0) {
        dc__diag(L, file, dc__line_of(&w, list), NULL, "the catalog lists no accelerator");
        return;
    }
    if (n > DC_RULESET_MAX_ACCELERATORS) {
        dc__diag(L, file, dc__line_of(&w, list), NULL, "%zu accelerators exceed the limit of %d", n,
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
        struct dc__where aw = {L, file, doc, NULL, it};
        if (!cJSON_IsObject(it)) {
            dc__diag(L, file, dc__line_of(&aw, it), NULL, "each accelerator must be a mapping");
            continue;
        }
        a->id = dc__get_str(&aw, "id", true);
        if (a->id != NULL && !dc__valid_id(a->id, false)) {
            dc__diag(L, file, dc__line_of(&aw, it), a->id,
                     "id must be 1-32 characters of a-z, 0-9 and '-', starting with a letter or "
                     "digit");
            a->id = NULL;
        }
        aw.id = a->id;
        for (size_t j = 0; a->id != NULL && j + 1 < rs->n_accs; j++) {
            if (rs->accs[j].id != NULL && strcmp(rs->accs[j].id, a->id) == 0)
                dc__diag(L, file, dc__line_of(&aw, it), a->id, "duplicate accelerator id");
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
                        dc__diag(L, file, 0, b->id != NULL ? b->id : "",
                                 "pci id 0x%04x:0x%04x is also claimed by \"%s\"", b->pci_vendor,
                                 b->pci_devices[m], a->id != NULL ? a->id : "?");
                }
            }
        }
    }
}
