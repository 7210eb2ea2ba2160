/* api/src/convert.c -- core objects as the contract's JSON bodies
 * (openapi.yaml: Recommendation, Accelerator, RuleList) and as a CLI table. */
#include "api/convert.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Collects OOM from the many cJSON_Add* calls so builders read as the shape
 * they build; any failure discards the whole tree. */
struct jb {
    bool oom;
};

static cJSON *add(struct jb *b, cJSON *parent, const char *key, cJSON *v)
{
    if (v == NULL) {
        b->oom = true;
        return NULL;
    }
    bool ok = key != NULL ? cJSON_AddItemToObject(parent, key, v) : cJSON_AddItemToArray(parent, v);
    if (!ok) {
        cJSON_Delete(v);
        b->oom = true;
        return NULL;
    }
    return v;
}

static cJSON *num(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

/* Round to 4 significant digits for display fields (costs, hours), so bodies
 * do not show 17-digit noise. */
static cJSON *num4(double v)
{
    if (!isfinite(v))
        return cJSON_CreateNull();
    if (v == 0)
        return cJSON_CreateNumber(0);
    double mag = pow(10, 3 - floor(log10(fabs(v))));
    return cJSON_CreateNumber(round(v * mag) / mag);
}

static cJSON *str_or_null(const char *s)
{
    return s != NULL ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *price_json(struct jb *b, const struct dc_accelerator *a)
{
    if (!a->has_price)
        return cJSON_CreateNull();
    cJSON *p = cJSON_CreateObject();
    if (p == NULL)
        return NULL;
    add(b, p, "usd_per_chip_hour", num(a->price_usd_per_chip_hour));
    add(b, p, "as_of", cJSON_CreateString(a->price_as_of));
    add(b, p, "basis", cJSON_CreateString(a->price_basis));
    add(b, p, "source", cJSON_CreateString(a->price_source));
    add(b, p, "confidence", cJSON_CreateString(a->price_low_confidence ? "low" : "high"));
    return p;
}

static void workload_json(struct jb *b, cJSON *root, const struct dc_workload *w)
{
    static const char *const tasks[] = {"training", "fine-tuning", "inference"};
    static const char *const deploy[] = {"cloud", "on-prem", "hybrid"};
    static const char *const objective[] = {"cost", "time", "balanced"};
    cJSON *o = add(b, root, "workload", cJSON_CreateObject());
    if (o == NULL)
        return;
    if (w->name != NULL)
        add(b, o, "name", cJSON_CreateString(w->name));
    add(b, o, "task", cJSON_CreateString(tasks[w->task]));
    add(b, o, "framework", cJSON_CreateString(w->framework));
    add(b, o, "stage", cJSON_CreateString(w->stage));
    cJSON *m = add(b, o, "model", cJSON_CreateObject());
    if (m != NULL) {
        add(b, m, "architecture", cJSON_CreateString(w->architecture));
        add(b, m, "parameters", cJSON_CreateNumber(w->parameters));
        add(b, m, "custom_ops", cJSON_CreateBool(w->custom_ops));
        add(b, m, "dynamic_shapes", cJSON_CreateBool(w->dynamic_shapes));
        add(b, m, "sparse_embeddings", cJSON_CreateBool(w->sparse_embeddings));
        add(b, m, "compute_pattern", cJSON_CreateString(w->compute_pattern));
        if (isfinite(w->layers))
            add(b, m, "layers", cJSON_CreateNumber(w->layers));
        if (isfinite(w->hidden_size))
            add(b, m, "hidden_size", cJSON_CreateNumber(w->hidden_size));
    }
    add(b, o, "precision", cJSON_CreateString(dc_precision_name(w->precision)));
    if (w->task != DC_TASK_INFERENCE) {
        cJSON *t = add(b, o, "training", cJSON_CreateObject());
        if (t != NULL) {
            add(b, t, "tokens", cJSON_CreateNumber(w->tokens));
            add(b, t, "global_batch_size", cJSON_CreateNumber(w->global_batch_size));
            if (isfinite(w->deadline_hours))
                add(b, t, "deadline_hours", cJSON_CreateNumber(w->deadline_hours));
        }
    } else {
        cJSON *i = add(b, o, "inference", cJSON_CreateObject());
        if (i != NULL) {
            add(b, i, "requests_per_second", cJSON_CreateNumber(w->requests_per_second));
            if (isfinite(w->latency_ms_p99))
                add(b, i, "latency_ms_p99", cJSON_CreateNumber(w->latency_ms_p99));
            add(b, i, "context_tokens", cJSON_CreateNumber(w->context_tokens));
            add(b, i, "batch_size", cJSON_CreateNumber(w->batch_size));
        }
    }
    cJSON *c = add(b, o, "constraints", cJSON_CreateObject());
    if (c != NULL) {
        add(b, c, "deployment", cJSON_CreateString(deploy[w->deployment]));
        cJSON *p = add(b, c, "providers", cJSON_CreateArray());
        for (unsigned i = 0; p != NULL && i < DC_PROVIDER_COUNT; i++) {
            if (w->providers & (1u << i))
                add(b, p, NULL, cJSON_CreateString(dc_provider_name((enum dc_provider)i)));
        }
        if (isfinite(w->budget_usd))
            add(b, c, "budget_usd", cJSON_CreateNumber(w->budget_usd));
        if (isfinite(w->max_accelerators))
            add(b, c, "max_accelerators", cJSON_CreateNumber(w->max_accelerators));
    }
    cJSON *t = add(b, o, "team", cJSON_CreateObject());
    if (t != NULL) {
        add(b, t, "cuda_experience", cJSON_CreateString(w->cuda_experience));
        add(b, t, "xla_experience", cJSON_CreateString(w->xla_experience));
    }
    add(b, o, "objective", cJSON_CreateString(objective[w->objective]));
    add(b, o, "prefer_available", cJSON_CreateBool(w->prefer_available));
}

static cJSON *reason_json(struct jb *b, const struct dc_result *res, const struct dc_candidate *c,
                          const struct dc_reason *r)
{
    char buf[512];
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    add(b, o, "rule_id", cJSON_CreateString(r->rule_id));
    add(b, o, "impact", cJSON_CreateNumber(r->impact));
    add(b, o, "message", cJSON_CreateString(dc_reason_text(res, c, r, buf, sizeof(buf))));
    add(b, o, "source", cJSON_CreateString(r->source != NULL ? r->source : ""));
    return o;
}

static cJSON *candidate_json(struct jb *b, const struct dc_result *res,
                             const struct dc_candidate *c)
{
    const struct dc_accelerator *a = c->acc;
    const struct dc_sizing *z = &c->sizing;
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    add(b, o, "accelerator", cJSON_CreateString(a->id));
    add(b, o, "name", cJSON_CreateString(a->name));
    add(b, o, "family", cJSON_CreateString(dc_family_name(a->family)));
    add(b, o, "vendor", cJSON_CreateString(a->vendor));
    add(b, o, "score", cJSON_CreateNumber(c->score));
    add(b, o, "rule_score", cJSON_CreateNumber(c->rule_score));
    add(b, o, "objective_score", cJSON_CreateNumber(c->objective_score));
    cJSON *s = add(b, o, "sizing", cJSON_CreateObject());
    if (s != NULL) {
        add(b, s, "memory_need_gb", num4(z->memory_need_gb));
        add(b, s, "memory_per_chip_gb", num4(z->memory_per_chip_gb));
        add(b, s, "chips_for_memory", cJSON_CreateNumber(z->chips_for_memory));
        add(b, s, "chips", cJSON_CreateNumber(z->chips));
        add(b, s, "replicas", cJSON_CreateNumber(z->replicas));
        add(b, s, "fits", cJSON_CreateBool(z->fits));
        add(b, s, "peak_tflops", num(z->peak_tflops));
        add(b, s, "mfu", num(z->mfu));
        add(b, s, "hours", num4(z->hours));
        add(b, s, "cost_usd", num4(z->cost_usd));
        add(b, s, "cost_per_hour_usd", num4(z->cost_per_hour_usd));
        add(b, s, "decode_ms", num4(z->decode_ms));
        add(b, s, "throughput_rps", num4(z->throughput_rps));
        add(b, s, "meets_deadline", cJSON_CreateBool(z->meets_deadline));
        add(b, s, "meets_latency", cJSON_CreateBool(z->meets_latency));
        add(b, s, "within_budget", cJSON_CreateBool(z->within_budget));
    }
    add(b, o, "price", price_json(b, a));
    if (c->availability.known) {
        cJSON *av = add(b, o, "availability", cJSON_CreateObject());
        if (av != NULL) {
            add(b, av, "attached", cJSON_CreateNumber(c->availability.attached));
            add(b, av, "free", cJSON_CreateNumber(c->availability.free));
            add(b, av, "memory_free_gb", num4(c->availability.memory_free_gb));
        }
    } else {
        add(b, o, "availability", cJSON_CreateNull());
    }
    cJSON *rs = add(b, o, "reasons", cJSON_CreateArray());
    for (size_t i = 0; rs != NULL && i < c->n_reasons; i++)
        add(b, rs, NULL, reason_json(b, res, c, &c->reasons[i]));
    return o;
}

enum dc_status api_result_to_json(const struct dc_result *res, cJSON **out)
{
    struct jb b = {false};
    char buf[512];
    if (out == NULL)
        return DC_EINVAL;
    *out = NULL;
    if (res == NULL)
        return DC_EINVAL;
    cJSON *root = cJSON_CreateObject();
    if (root == NULL)
        return DC_ENOMEM;
    add(&b, root, "request_id", cJSON_CreateString(res->request_id));
    add(&b, root, "rules_version", cJSON_CreateString(res->rules_version));
    workload_json(&b, root, &res->workload);
    cJSON *fams = add(&b, root, "families", cJSON_CreateArray());
    for (size_t i = 0; fams != NULL && i < DC_FAMILY_COUNT; i++) {
        const struct dc_family_rank *f = &res->families[i];
        cJSON *o = add(&b, fams, NULL, cJSON_CreateObject());
        if (o == NULL)
            break;
        add(&b, o, "family", cJSON_CreateString(dc_family_name(f->family)));
        add(&b, o, "score", cJSON_CreateNumber(f->score));
        add(&b, o, "excluded", cJSON_CreateBool(f->excluded));
        add(&b, o, "best", str_or_null(f->best));
    }
    cJSON *recs = add(&b, root, "recommendations", cJSON_CreateArray());
    for (size_t i = 0; recs != NULL && i < res->n_recommendations; i++)
        add(&b, recs, NULL, candidate_json(&b, res, &res->recommendations[i]));
    cJSON *exc = add(&b, root, "excluded", cJSON_CreateArray());
    for (size_t i = 0; exc != NULL && i < res->n_excluded; i++) {
        const struct dc_candidate *c = &res->excluded[i];
        cJSON *o = add(&b, exc, NULL, cJSON_CreateObject());
        if (o == NULL)
            break;
        add(&b, o, "accelerator", cJSON_CreateString(c->acc->id));
        add(&b, o, "name", cJSON_CreateString(c->acc->name));
        add(&b, o, "family", cJSON_CreateString(dc_family_name(c->acc->family)));
        add(&b, o, "rule_id", cJSON_CreateString(c->excluded_by->rule_id));
        add(&b, o, "message",
            cJSON_CreateString(dc_reason_text(res, c, c->excluded_by, buf, sizeof(buf))));
        add(&b, o, "source",
            cJSON_CreateString(c->excluded_by->source != NULL ? c->excluded_by->source : ""));
    }
    cJSON *warn = add(&b, root, "warnings", cJSON_CreateArray());
    for (size_t i = 0; warn != NULL && i < res->n_warnings; i++) {
        cJSON *o = add(&b, warn, NULL, cJSON_CreateObject());
        if (o == NULL)
            break;
        add(&b, o, "code", cJSON_CreateString(res->warnings[i].code));
        add(&b, o, "message", cJSON_CreateString(res->warnings[i].message));
    }
    cJSON *asm_ = add(&b, root, "assumptions", cJSON_CreateArray());
    for (size_t i = 0; asm_ != NULL && i < res->n_assumptions; i++) {
        const struct dc_assumption *a = &res->assumptions[i];
        cJSON *o = add(&b, asm_, NULL, cJSON_CreateObject());
        if (o == NULL)
            break;
        add(&b, o, "name", cJSON_CreateString(a->name));
        add(&b, o, "value", num(a->value));
        add(&b, o, "unit", cJSON_CreateString(a->unit));
        add(&b, o, "source", cJSON_CreateString(a->source != NULL ? a->source : ""));
    }
    if (b.oom) {
        cJSON_Delete(root);
        return DC_ENOMEM;
    }
    *out = root;
    return DC_OK;
}

enum dc_status api_accelerator_to_json(const struct dc_accelerator *a, cJSON **out)
{
    struct jb b = {false};
    if (out == NULL)
        return DC_EINVAL;
    *out = NULL;
    if (a == NULL)
        return DC_EINVAL;
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return DC_ENOMEM;
    add(&b, o, "id", cJSON_CreateString(a->id));
    add(&b, o, "name", cJSON_CreateString(a->name));
    add(&b, o, "vendor", cJSON_CreateString(a->vendor));
    add(&b, o, "family", cJSON_CreateString(dc_family_name(a->family)));
    add(&b, o, "fact", str_or_null(a->fact));
    add(&b, o, "source", cJSON_CreateString(a->source));
    if (a->n_pci_devices > 0) {
        cJSON *pci = add(&b, o, "pci", cJSON_CreateObject());
        if (pci != NULL) {
            add(&b, pci, "vendor", cJSON_CreateNumber(a->pci_vendor));
            cJSON *devs = add(&b, pci, "devices", cJSON_CreateArray());
            for (size_t i = 0; devs != NULL && i < a->n_pci_devices; i++)
                add(&b, devs, NULL, cJSON_CreateNumber(a->pci_devices[i]));
        }
    } else {
        add(&b, o, "pci", cJSON_CreateNull());
    }
    add(&b, o, "memory_gb", num(a->memory_gb));
    add(&b, o, "memory_bandwidth_gbps", num(a->memory_bandwidth_gbps));
    cJSON *peak = add(&b, o, "peak_tflops", cJSON_CreateObject());
    for (size_t p = 0; peak != NULL && p < DC_PREC_COUNT; p++)
        add(&b, peak, dc_precision_name((enum dc_precision)p), num(a->peak_tflops[p]));
    cJSON *precs = add(&b, o, "precisions", cJSON_CreateArray());
    for (size_t p = 0; precs != NULL && p < DC_PREC_COUNT; p++) {
        if (a->precisions & (1u << p))
            add(&b, precs, NULL, cJSON_CreateString(dc_precision_name((enum dc_precision)p)));
    }
    if (a->interconnect != NULL) {
        cJSON *ic = add(&b, o, "interconnect", cJSON_CreateObject());
        if (ic != NULL) {
            add(&b, ic, "name", cJSON_CreateString(a->interconnect));
            add(&b, ic, "bandwidth_gbps", num(a->interconnect_gbps));
            add(&b, ic, "domain", cJSON_CreateNumber(a->domain));
        }
    } else {
        add(&b, o, "interconnect", cJSON_CreateNull());
    }
    add(&b, o, "max_chips", cJSON_CreateNumber(a->max_chips));
    add(&b, o, "power_watts", num(a->power_watts));
    cJSON *prov = add(&b, o, "providers", cJSON_CreateArray());
    for (size_t p = 0; prov != NULL && p < DC_PROVIDER_COUNT; p++) {
        if (a->providers & (1u << p))
            add(&b, prov, NULL, cJSON_CreateString(dc_provider_name((enum dc_provider)p)));
    }
    add(&b, o, "on_prem", cJSON_CreateBool(a->on_prem));
    add(&b, o, "price", price_json(&b, a));
    if (b.oom) {
        cJSON_Delete(o);
        return DC_ENOMEM;
    }
    *out = o;
    return DC_OK;
}

static bool matches(const struct dc_accelerator *a, const struct api_catalog_filter *f)
{
    if (f == NULL)
        return true;
    if (f->family != NULL && strcmp(f->family, dc_family_name(a->family)) != 0)
        return false;
    if (f->vendor != NULL && strcmp(f->vendor, a->vendor) != 0)
        return false;
    if (f->provider != NULL) {
        if (strcmp(f->provider, "on-prem") == 0)
            return a->on_prem;
        enum dc_provider p;
        if (!dc_provider_parse(f->provider, &p) || (a->providers & (1u << p)) == 0)
            return false;
    }
    return true;
}

enum dc_status api_catalog_to_json(const dc_ruleset *rs, const struct api_catalog_filter *filter,
                                   cJSON **out)
{
    struct jb b = {false};
    if (out == NULL)
        return DC_EINVAL;
    *out = NULL;
    if (rs == NULL)
        return DC_EINVAL;
    cJSON *root = cJSON_CreateObject();
    if (root == NULL)
        return DC_ENOMEM;
    add(&b, root, "rules_version", cJSON_CreateString(dc_ruleset_version(rs)));
    cJSON *list = add(&b, root, "accelerators", cJSON_CreateArray());
    for (size_t i = 0; list != NULL && i < dc_ruleset_accelerator_count(rs); i++) {
        const struct dc_accelerator *a = dc_ruleset_accelerator(rs, i);
        if (!matches(a, filter))
            continue;
        cJSON *o = NULL;
        if (api_accelerator_to_json(a, &o) != DC_OK)
            b.oom = true;
        else
            add(&b, list, NULL, o);
    }
    if (b.oom) {
        cJSON_Delete(root);
        return DC_ENOMEM;
    }
    *out = root;
    return DC_OK;
}

enum dc_status api_rules_to_json(const dc_ruleset *rs, cJSON **out)
{
    struct jb b = {false};
    if (out == NULL)
        return DC_EINVAL;
    *out = NULL;
    if (rs == NULL)
        return DC_EINVAL;
    cJSON *root = cJSON_CreateObject();
    if (root == NULL)
        return DC_ENOMEM;
    size_t n = dc_ruleset_rule_count(rs);
    add(&b, root, "rules_version", cJSON_CreateString(dc_ruleset_version(rs)));
    add(&b, root, "origin", cJSON_CreateString(dc_ruleset_origin(rs)));
    add(&b, root, "count", cJSON_CreateNumber((double)n));
    cJSON *list = add(&b, root, "rules", cJSON_CreateArray());
    for (size_t i = 0; list != NULL && i < n; i++) {
        const struct dc_rule_info *r = dc_ruleset_rule(rs, i);
        cJSON *o = add(&b, list, NULL, cJSON_CreateObject());
        if (o == NULL)
            break;
        add(&b, o, "id", cJSON_CreateString(r->id));
        add(&b, o, "description", cJSON_CreateString(r->description));
        add(&b, o, "message", cJSON_CreateString(r->message));
        add(&b, o, "source", cJSON_CreateString(r->source));
        add(&b, o, "fact", str_or_null(r->fact));
        add(&b, o, "file", cJSON_CreateString(r->file));
        add(&b, o, "line", cJSON_CreateNumber(r->line));
        add(&b, o, "excludes", cJSON_CreateBool(r->excludes));
        add(&b, o, "when", cJSON_Duplicate(r->when, true));
    }
    if (b.oom) {
        cJSON_Delete(root);
        return DC_ENOMEM;
    }
    *out = root;
    return DC_OK;
}

static void fmt_cost(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else if (v >= 1000)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.2f", v);
}

static void table_row(FILE *fp, const struct dc_result *res, const struct dc_candidate *c,
                      bool chosen)
{
    char cost[32], hours[32];
    const struct dc_sizing *z = &c->sizing;
    fmt_cost(z->cost_usd, cost, sizeof(cost));
    if (res->workload.task == DC_TASK_INFERENCE)
        fmt_cost(z->decode_ms, hours, sizeof(hours));
    else
        fmt_cost(z->hours, hours, sizeof(hours));
    fprintf(fp, "%-10s %-28.28s %-4s %5d %5u %9.1f %10s %12s   %s\n", c->acc->id, c->acc->name,
            dc_family_name(c->acc->family), c->score, z->chips, z->memory_need_gb, hours, cost,
            chosen ? "\u2714" : "");
}

void api_result_print_table(const struct dc_result *res, FILE *fp)
{
    char buf[512];
    const struct dc_workload *w = &res->workload;
    bool inf = w->task == DC_TASK_INFERENCE;
    static const char *const objective[] = {"cost", "run time", "cost and time"};
    fprintf(fp, "Target: minimizing %s\n", objective[w->objective]);
    fprintf(fp, "Rules version: %.12s\n", res->rules_version);
    fprintf(fp, "Families:");
    for (size_t i = 0; i < DC_FAMILY_COUNT; i++)
        fprintf(fp, " %s %d%s", dc_family_name(res->families[i].family), res->families[i].score,
                res->families[i].excluded ? " (excluded)" : "");
    fprintf(fp, "\nConsidered accelerators (%zu):\n", res->n_recommendations);
    fprintf(fp, "%-10s %-28s %-4s %5s %5s %9s %10s %12s   %s\n", "ID", "NAME", "FAM", "SCORE",
            "CHIPS", "MEM(GB)", inf ? "DECODE(ms)" : "HOURS", inf ? "COST($/mo)" : "COST($)",
            "CHOSEN");
    for (size_t i = 0; i < res->n_recommendations; i++)
        table_row(fp, res, &res->recommendations[i], i == 0);
    if (res->n_recommendations > 0) {
        const struct dc_candidate *top = &res->recommendations[0];
        fprintf(fp, "\nWhy %s:\n", top->acc->id);
        size_t shown = 0;
        for (size_t i = 0; i < top->n_reasons && shown < 8; i++, shown++) {
            const struct dc_reason *r = &top->reasons[i];
            fprintf(fp, "  %+4d  %-28s %s\n", r->impact, r->rule_id,
                    dc_reason_text(res, top, r, buf, sizeof(buf)));
        }
    }
    if (res->n_excluded > 0) {
        fprintf(fp, "\nExcluded:\n");
        for (size_t i = 0; i < res->n_excluded; i++) {
            const struct dc_candidate *c = &res->excluded[i];
            fprintf(fp, "  %-10s %-28s %s\n", c->acc->id, c->excluded_by->rule_id,
                    dc_reason_text(res, c, c->excluded_by, buf, sizeof(buf)));
        }
    }
    for (size_t i = 0; i < res->n_warnings; i++)
        fprintf(fp, "\nWarning (%s): %s\n", res->warnings[i].code, res->warnings[i].message);
}
