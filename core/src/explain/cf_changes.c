/* core/src/explain/cf_changes.c -- categorical changes: every other value of each
 * field a user controls, tried one field at a time (the sweep), and the edits
 * that lift one excluded part's filter. Each run is read for every target at
 * once: a run whose top pick is a target's is that target's change. */
#include <math.h>
#include <string.h>

#include "cf_internal.h"
#include "reason_ids.h"
#include "sizing.h"

bool cf__wins(const struct dc_target *t, const struct cf_outcome *o)
{
    /* A change that leaves nothing recommended offers no other pick, and
     * one whose pick misses a target the user set (and the base met) is
     * no answer to act on. */
    if (o->misses_targets)
        return false;
    if (t->role == DC_ROLE_TOP)
        return o->top != NULL && o->top != t->acc;
    return o->top == t->acc;
}

const struct dc_candidate *cf__candidate(const struct cf_ctx *c, const struct dc_accelerator *acc)
{
    const struct dc_result *r = c->base;
    for (size_t i = 0; i < r->n_recommendations; i++) {
        if (r->recommendations[i].acc == acc)
            return &r->recommendations[i];
    }
    for (size_t i = 0; i < r->n_excluded; i++) {
        if (r->excluded[i].acc == acc)
            return &r->excluded[i];
    }
    return NULL;
}

bool cf__change(const struct cf_ctx *c, const char *field, cJSON *to, const struct cf_outcome *o,
                struct dc_change *out)
{
    const cJSON *now = cf__current(c, field);
    *out = (struct dc_change){.field = cf__field(field) != NULL ? cf__field(field)->pointer : field,
                              .to = to,
                              .top = o->top,
                              .top_score = o->score,
                              .threshold = DC_THRESHOLD_NONE,
                              .not_at = NAN,
                              .rule_at = NAN,
                              .price_missing = o->base_top_unpriced};
    out->from = now != NULL ? cJSON_Duplicate(now, true) : cJSON_CreateNull();
    if (out->from != NULL && out->to != NULL)
        return true;
    cJSON_Delete(out->from);
    cJSON_Delete(out->to);
    return false;
}

bool cf__has(const struct dc_target *t, const char *field, bool threshold)
{
    for (size_t i = 0; i < t->n_changes; i++) {
        const struct dc_change *x = &t->changes[i];
        if (strcmp(x->field, field) == 0 && (!threshold || x->threshold != DC_THRESHOLD_NONE))
            return true;
    }
    return false;
}

static void drop(struct dc_change *ch)
{
    cJSON_Delete(ch->from);
    cJSON_Delete(ch->to);
    ch->from = ch->to = NULL;
}

void cf__keep(struct dc_target *t, struct dc_change *ch)
{
    size_t rank = cf__field_rank(ch->field);
    size_t at = t->n_changes; /* the slot it takes */
    for (size_t i = 0; i < t->n_changes; i++) {
        struct dc_change *x = &t->changes[i];
        if (strcmp(x->field, ch->field) != 0)
            continue;
        /* A threshold is the smaller change of the same field. */
        if (x->threshold != DC_THRESHOLD_NONE || ch->threshold == DC_THRESHOLD_NONE) {
            drop(ch);
            return;
        }
        drop(x);
        at = i;
    }
    if (at == t->n_changes && t->n_changes == DC_EXPLAIN_MAX_CHANGES) {
        at = t->n_changes - 1; /* the largest, unless this one is larger still */
        if (cf__field_rank(t->changes[at].field) <= rank) {
            drop(ch);
            return;
        }
        drop(&t->changes[at]);
    } else if (at == t->n_changes) {
        t->n_changes++;
    }
    t->changes[at] = *ch;
    /* Back into field order (insertion: at most DC_EXPLAIN_MAX_CHANGES). */
    for (size_t i = 1; i < t->n_changes; i++) {
        for (size_t j = i;
             j > 0 && cf__field_rank(t->changes[j - 1].field) > cf__field_rank(t->changes[j].field);
             j--) {
            struct dc_change tmp = t->changes[j];
            t->changes[j] = t->changes[j - 1];
            t->changes[j - 1] = tmp;
        }
    }
}

/* Run the workload with `field` set to `to` (owned) and give the change to
 * every target it makes win that has none of that field yet. */
static enum dc_status try_value(struct cf_ctx *c, struct dc_explanation *e, const char *field,
                                cJSON *to)
{
    struct cf_outcome o;
    if (to == NULL)
        return DC_ENOMEM;
    enum dc_status rc = cf__run_edit(c, field, to, &o);
    for (size_t i = 0; rc == DC_OK && i < e->n_targets; i++) {
        struct dc_target *t = &e->targets[i];
        struct dc_change ch;
        if (!cf__wins(t, &o) || cf__has(t, field, false))
            continue;
        if (!cf__change(c, field, cJSON_Duplicate(to, true), &o, &ch))
            rc = DC_ENOMEM;
        else
            cf__keep(t, &ch);
    }
    cJSON_Delete(to);
    /* A value the core refuses with the rest of this workload is no change. */
    return rc == DC_EINVAL ? DC_OK : rc;
}

/* The alternatives of one field, in the contract's order. */
static enum dc_status sweep_field(struct cf_ctx *c, struct dc_explanation *e,
                                  const struct cf_field *f)
{
    const cJSON *now = cf__current(c, f->pointer);
    enum dc_status rc = DC_OK;
    switch (f->kind) {
    case CF_NUMBER:
        if (cJSON_IsNumber(now))
            rc = try_value(c, e, f->pointer, cJSON_CreateNull());
        break;
    case CF_LIST:
        /* Any provider is an empty list; any accelerator is no list at all. */
        if (cJSON_GetArraySize(now) > 0)
            rc = try_value(c, e, f->pointer,
                           strcmp(f->pointer, "/constraints/providers") == 0 ? cJSON_CreateArray()
                                                                             : cJSON_CreateNull());
        break;
    case CF_BOOL:
        rc = try_value(c, e, f->pointer, cJSON_CreateBool(!cJSON_IsTrue(now)));
        break;
    case CF_ENUM: {
        const char *const *values = dc__workload_values(f->pointer);
        for (size_t i = 0; rc == DC_OK && values != NULL && values[i] != NULL; i++) {
            if ((!cJSON_IsString(now) || strcmp(values[i], now->valuestring) != 0) &&
                cf__value_applies(c, f, values[i]))
                rc = try_value(c, e, f->pointer, cJSON_CreateString(values[i]));
        }
        break;
    }
    }
    return rc;
}

enum dc_status cf__sweep(struct cf_ctx *c, struct dc_explanation *e)
{
    size_t n = 0;
    const struct cf_field *fields = cf__fields(&n);
    enum dc_status rc = DC_OK;
    for (size_t i = 0; rc == DC_OK && i < n; i++) {
        if (cf__field_applies(c, &fields[i]))
            rc = sweep_field(c, e, &fields[i]);
    }
    return rc;
}

/* The current list at `field` with `item` (owned) appended; NULL on OOM. */
static cJSON *appended(const struct cf_ctx *c, const char *field, cJSON *item)
{
    const cJSON *now = cf__current(c, field);
    cJSON *list = cJSON_IsArray(now) ? cJSON_Duplicate(now, true) : cJSON_CreateArray();
    if (list == NULL || item == NULL || !cJSON_AddItemToArray(list, item)) {
        cJSON_Delete(list);
        cJSON_Delete(item);
        return NULL;
    }
    return list;
}

/* A provider that rents `a`: the one of its cheapest offer on the workload's
 * price basis, else the first it is listed with; -1 when it is rented nowhere. */
static int provider_for(const struct cf_ctx *c, const struct dc_accelerator *a)
{
    const struct dc_offer *o = dc_cheapest_offer(a, c->base->workload.pricing, 0);
    if (o != NULL)
        return (int)o->provider;
    for (int p = 0; p < DC_PROVIDER_COUNT; p++) {
        if (a->providers & (1u << p))
            return p;
    }
    return -1;
}

enum dc_status cf__targeted_changes(struct cf_ctx *c, struct dc_explanation *e)
{
    const struct dc_workload *w = &c->base->workload;
    enum dc_status rc = DC_OK;
    for (size_t i = 0; rc == DC_OK && i < e->n_targets; i++) {
        const struct dc_target *t = &e->targets[i];
        if (t->excluded_by == NULL)
            continue;
        if (strcmp(t->excluded_by, DC__R_ALLOWED) == 0) {
            rc =
                try_value(c, e, "/constraints/accelerators",
                          appended(c, "/constraints/accelerators", cJSON_CreateString(t->acc->id)));
        } else if (strcmp(t->excluded_by, DC__R_PROVIDERS) == 0 && w->providers != 0 &&
                   w->deployment != DC_DEPLOY_ON_PREM) {
            int p = provider_for(c, t->acc);
            if (p >= 0)
                rc = try_value(c, e, "/constraints/providers",
                               appended(c, "/constraints/providers",
                                        cJSON_CreateString(dc_provider_name((enum dc_provider)p))));
        }
    }
    return rc;
}
