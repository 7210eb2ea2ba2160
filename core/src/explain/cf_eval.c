/* core/src/explain/cf_eval.c -- one re-run of the decision core for an explanation:
 * the workload edited, the evaluation and wall-clock budgets kept, the top
 * pick read off the result. */
#include <string.h>

#include "cf_internal.h"

/* Whether another run fits the budgets; sets c->stop when not. */
static bool budget_left(struct cf_ctx *c)
{
    if (c->stop != DC_EXPLAIN_COMPLETE)
        return false;
    if (c->evals >= c->max_evals)
        c->stop = DC_EXPLAIN_STOP_EVALUATIONS;
    else if (c->budget_ns != 0 && dc_mono_ns() - c->started_ns >= c->budget_ns)
        c->stop = DC_EXPLAIN_STOP_TIME;
    return c->stop == DC_EXPLAIN_COMPLETE;
}

/* The base's top pick had a price and has none in `res` (an exclusion is
 * another reason, said by its own rule). */
static bool base_top_lost_price(const struct cf_ctx *c, const struct dc_result *res)
{
    const struct dc_result *b = c->base;
    if (b->n_recommendations == 0 || !b->recommendations[0].selection.priced)
        return false;
    const struct dc_accelerator *top = b->recommendations[0].acc;
    for (size_t i = 0; i < res->n_recommendations; i++)
        if (res->recommendations[i].acc == top)
            return !res->recommendations[i].selection.priced;
    return false;
}

enum dc_status cf__run(struct cf_ctx *c, const cJSON *w, const double *price_scale,
                       const double *mfu_scale, struct cf_outcome *out)
{
    *out = (struct cf_outcome){NULL, 0, false, false};
    if (!budget_left(c))
        return DC_ELIMIT;
    c->evals++;
    struct dc_recommend_opts o = c->ropts;
    o.price_scale = price_scale;
    o.mfu_scale = mfu_scale;
    struct dc_result *res = NULL;
    enum dc_status rc = dc_recommend(c->rs, w, &o, &res, NULL);
    if (rc != DC_OK)
        return rc;
    if (res->n_recommendations > 0) {
        out->top = res->recommendations[0].acc;
        out->score = res->recommendations[0].score;
        out->misses_targets = !res->recommendations[0].selection.meets_targets &&
                              c->base->n_recommendations > 0 &&
                              c->base->recommendations[0].selection.meets_targets;
    }
    out->base_top_unpriced = base_top_lost_price(c, res);
    dc_result_free(res);
    return DC_OK;
}

enum dc_status cf__run_edit(struct cf_ctx *c, const char *field, const cJSON *to,
                            struct cf_outcome *out)
{
    *out = (struct cf_outcome){NULL, 0, false, false};
    if (!budget_left(c))
        return DC_ELIMIT;
    cJSON *w = dc_workload_with(c->workload, field, to);
    if (w == NULL)
        return DC_ENOMEM;
    enum dc_status rc = cf__run(c, w, NULL, NULL, out);
    cJSON_Delete(w);
    return rc;
}

/* The member names of a pointer of one or two levels ("/a" or "/a/b"). */
static bool split_pointer(const char *field, char *sec, size_t sec_len, const char **key)
{
    if (field == NULL || field[0] != '/' || field[1] == '\0')
        return false;
    const char *slash = strchr(field + 1, '/');
    if (slash == NULL) {
        sec[0] = '\0';
        *key = field + 1;
        return true;
    }
    size_t n = (size_t)(slash - field - 1);
    if (n == 0 || n >= sec_len || slash[1] == '\0' || strchr(slash + 1, '/') != NULL)
        return false;
    memcpy(sec, field + 1, n);
    sec[n] = '\0';
    *key = slash + 1;
    return true;
}

const cJSON *cf__current(const struct cf_ctx *c, const char *field)
{
    char sec[32];
    const char *key = NULL;
    if (!split_pointer(field, sec, sizeof(sec), &key))
        return NULL;
    const cJSON *obj =
        sec[0] != '\0' ? cJSON_GetObjectItemCaseSensitive(c->current, sec) : c->current;
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* ---- library-wide functions below ---- */

cJSON *dc_workload_with(const cJSON *workload, const char *field, const cJSON *to)
{
    char sec[32];
    const char *key = NULL;
    if (!cJSON_IsObject(workload) || to == NULL || !split_pointer(field, sec, sizeof(sec), &key))
        return NULL;
    cJSON *w = cJSON_Duplicate(workload, true);
    if (w == NULL)
        return NULL;
    cJSON *obj = w;
    if (sec[0] != '\0') {
        obj = cJSON_GetObjectItemCaseSensitive(w, sec);
        if (obj == NULL && !cJSON_IsNull(to))
            obj = cJSON_AddObjectToObject(w, sec);
        if (obj == NULL && cJSON_IsNull(to))
            return w; /* nothing to remove */
        if (!cJSON_IsObject(obj)) {
            cJSON_Delete(w);
            return NULL;
        }
    }
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    if (cJSON_IsNull(to))
        return w;
    cJSON *v = cJSON_Duplicate(to, true);
    if (v == NULL || !cJSON_AddItemToObject(obj, key, v)) {
        cJSON_Delete(v);
        cJSON_Delete(w);
        return NULL;
    }
    return w;
}
