/* core/src/rules/capacity.c -- prices.yaml's `capacity:` list: how many machines
 * (instances, TPU slices) one buyer can have at once from a provider on a
 * basis, for one part or for every part the provider rents, each with the
 * public page of the limit or the basis of a stated assumption; and the query
 * the sizing asks of it (dc_capacity_limit). Format: docs/rules-format.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "ruleset_internal.h"

/* provider: a known provider; basis: a known basis; both reported when not. */
static bool entry_names(const struct dc__where *cw, struct dc_capacity *c)
{
    const char *prov = dc__get_str(cw, "provider", true);
    const char *basis = dc__get_str(cw, "basis", true);
    bool ok = prov != NULL && basis != NULL;
    if (prov != NULL && !dc_provider_parse(prov, &c->provider)) {
        dc__diag(cw->L, cw->file,
                 dc__line_of(cw, cJSON_GetObjectItemCaseSensitive(cw->obj, "provider")), cw->id,
                 "unknown provider \"%.40s\"", prov);
        ok = false;
    }
    if (basis != NULL && !dc_basis_parse(basis, &c->basis)) {
        dc__diag(cw->L, cw->file,
                 dc__line_of(cw, cJSON_GetObjectItemCaseSensitive(cw->obj, "basis")), cw->id,
                 "unknown basis \"%.40s\" (on_demand, spot, reserved, committed_1y, "
                 "committed_3y)",
                 basis);
        ok = false;
    }
    return ok;
}

/* accelerator: optional; a catalog part the provider rents. */
static bool entry_part(dc_ruleset *rs, struct dc__where *cw, struct dc_capacity *c)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cw->obj, "accelerator");
    c->accelerator = NULL;
    if (v == NULL || cJSON_IsNull(v))
        return true;
    const char *id = dc__get_str(cw, "accelerator", true);
    size_t idx = 0;
    if (id == NULL)
        return false;
    if (!dc__find_acc(rs, id, &idx)) {
        dc__diag(cw->L, cw->file, dc__line_of(cw, v), id,
                 "unknown accelerator \"%s\" (not in the catalog)", id);
        return false;
    }
    c->accelerator = &rs->accs[idx];
    cw->id = c->accelerator->id;
    if ((c->accelerator->providers & (1u << c->provider)) == 0) {
        dc__diag(cw->L, cw->file, dc__line_of(cw, v), cw->id,
                 "the catalog does not list %s among the providers of %s",
                 dc_provider_name(c->provider), cw->id);
        return false;
    }
    return true;
}

/* max_instances: a whole number of machines, at least one. */
static bool entry_limit(const struct dc__where *cw, struct dc_capacity *c)
{
    double n = dc__get_num(cw, "max_instances", true, 1, DC_CAPACITY_MAX_INSTANCES);
    if (!isfinite(n))
        return false;
    if (n != floor(n)) {
        dc__diag(cw->L, cw->file,
                 dc__line_of(cw, cJSON_GetObjectItemCaseSensitive(cw->obj, "max_instances")),
                 cw->id, "\"max_instances\" must be an integer");
        return false;
    }
    c->max_instances = (unsigned)n;
    return true;
}

/* One limit per provider, basis and part (or all parts). */
static bool entry_unique(const struct dc__where *cw, const dc_ruleset *rs,
                         const struct dc_capacity *c)
{
    for (size_t i = 0; i < rs->n_capacity; i++) {
        const struct dc_capacity *o = &rs->capacity[i];
        if (o->provider == c->provider && o->basis == c->basis &&
            o->accelerator == c->accelerator) {
            dc__diag(cw->L, cw->file, dc__line_of(cw, cw->obj), cw->id,
                     "a second %s %s limit for %s", dc_provider_name(c->provider),
                     dc_basis_name(c->basis),
                     c->accelerator != NULL ? c->accelerator->id : "every part");
            return false;
        }
    }
    return true;
}

static bool parse_entry(dc_ruleset *rs, struct dc__where *cw, struct dc_capacity *c)
{
    static const char *const keys[] = {"provider",      "basis",  "accelerator",
                                       "max_instances", "source", "as_of",
                                       "assumption",    "note",   NULL};
    bool ok = entry_names(cw, c);
    ok = ok && entry_part(rs, cw, c);
    dc__check_keys(cw, "a capacity limit", keys);
    ok = entry_limit(cw, c) && ok;
    c->source = dc__get_url(cw, "source", true);
    c->as_of = dc__get_date(cw, "as_of");
    c->assumption = dc__get_bool(cw, "assumption", false, false);
    c->note = dc__get_str(cw, "note", false);
    return ok && c->source != NULL && c->as_of != NULL && entry_unique(cw, rs, c);
}

void dc__load_capacity(dc_ruleset *rs, const struct dc__where *w, const cJSON *list)
{
    size_t n = (size_t)cJSON_GetArraySize(list);
    if (n > DC_RULESET_MAX_CAPACITY) {
        dc__diag(w->L, w->file, dc__line_of(w, list), NULL,
                 "%zu capacity limits exceed the limit of %d", n, DC_RULESET_MAX_CAPACITY);
        return;
    }
    rs->capacity = calloc(n + 1, sizeof(*rs->capacity));
    if (rs->capacity == NULL) {
        w->L->oom = true;
        return;
    }
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, list)
    {
        struct dc__where cw = dc__sub(w, it);
        cw.id = NULL;
        if (!cJSON_IsObject(it)) {
            dc__diag(w->L, w->file, dc__line_of(&cw, it), NULL,
                     "each capacity limit must be a mapping");
            continue;
        }
        struct dc_capacity c = {0};
        if (parse_entry(rs, &cw, &c))
            rs->capacity[rs->n_capacity++] = c;
    }
}

const struct dc_capacity *dc_capacity_limit(const dc_ruleset *rs, enum dc_provider p,
                                            enum dc_basis b, const struct dc_accelerator *a)
{
    const struct dc_capacity *any = NULL;
    for (size_t i = 0; rs != NULL && i < rs->n_capacity; i++) {
        const struct dc_capacity *c = &rs->capacity[i];
        if (c->provider != p || c->basis != b)
            continue;
        if (c->accelerator != NULL && a != NULL && strcmp(c->accelerator->id, a->id) == 0)
            return c;
        if (c->accelerator == NULL)
            any = c;
    }
    return any;
}

size_t dc_ruleset_capacity_count(const dc_ruleset *rs)
{
    return rs != NULL ? rs->n_capacity : 0;
}

const struct dc_capacity *dc_ruleset_capacity(const dc_ruleset *rs, size_t i)
{
    return rs != NULL && i < rs->n_capacity ? &rs->capacity[i] : NULL;
}
