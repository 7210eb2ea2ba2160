/* core/src/explain/counterfactual.c -- dc_explain: which accelerators to explain, in
 * what order the searches spend the evaluation budget, and the explanation's
 * life cycle. The searches themselves are cf_changes.c, cf_threshold.c and
 * cf_robust.c; the method is docs/explanations.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_internal.h"
#include "reason_ids.h"
#include "sizing.h"

/* ---- which accelerators -------------------------------------------------------------- */

static bool listed(const struct dc_explanation *e, const struct dc_accelerator *a)
{
    for (size_t i = 0; i < e->n_targets; i++) {
        if (e->targets[i].acc == a)
            return true;
    }
    return false;
}

static void add_target(struct dc_explanation *e, size_t rank, const struct dc_candidate *c,
                       enum dc_target_role role)
{
    if (e->n_targets == DC_EXPLAIN_MAX_TARGETS || listed(e, c->acc))
        return;
    struct dc_target *t = &e->targets[e->n_targets++];
    memset(t, 0, sizeof(*t));
    t->acc = c->acc;
    t->role = role;
    t->rank = c->excluded_by == NULL ? (unsigned)rank + 1 : 0;
    t->score = c->excluded_by == NULL ? c->score : 0;
    t->excluded_by = c->excluded_by != NULL ? c->excluded_by->rule_id : NULL;
}

/* How much an excluded part's reason is the user's to lift: a limit or list
 * the workload sets (0), its precision or a rule on what the workload is (1),
 * a model too large for the part's whole cluster (2). */
static int exclusion_class(const struct dc_result *res, const struct dc_candidate *c)
{
    const char *id = c->excluded_by->rule_id;
    if (strcmp(id, DC__R_MEMORY) == 0)
        return isfinite(res->workload.max_accelerators) ? 0 : 2;
    if (strcmp(id, DC__R_BUDGET) == 0 || strcmp(id, DC__R_ALLOWED) == 0 ||
        strcmp(id, DC__R_PROVIDERS) == 0 || strcmp(id, DC__R_ON_PREM) == 0)
        return 0;
    return 1;
}

/* Excluded parts by class, then by the score the rules gave them, then in
 * catalog order. */
static void add_excluded(struct dc_explanation *e, const struct dc_result *res)
{
    for (int cls = 0; cls <= 2; cls++) {
        for (;;) {
            const struct dc_candidate *best = NULL;
            for (size_t i = 0; i < res->n_excluded; i++) {
                const struct dc_candidate *c = &res->excluded[i];
                if (exclusion_class(res, c) == cls && !listed(e, c->acc) &&
                    (best == NULL || c->rule_score > best->rule_score))
                    best = c;
            }
            if (best == NULL || e->n_targets == DC_EXPLAIN_MAX_TARGETS)
                break;
            add_target(e, 0, best, DC_ROLE_EXCLUDED);
        }
    }
}

static void pick_targets(struct dc_explanation *e, const struct dc_result *res)
{
    for (size_t i = 0; i < res->n_recommendations && i < 2; i++)
        add_target(e, i, &res->recommendations[i], i == 0 ? DC_ROLE_TOP : DC_ROLE_RUNNER_UP);
    for (size_t f = 0; f < DC_FAMILY_COUNT; f++) {
        for (size_t i = 0; i < res->n_recommendations; i++) {
            const struct dc_candidate *c = &res->recommendations[i];
            if (res->families[f].best != NULL && strcmp(c->acc->id, res->families[f].best) == 0)
                add_target(e, i, c, DC_ROLE_FAMILY_BEST);
        }
    }
    for (size_t i = 0; i < res->n_recommendations; i++) {
        const struct dc_candidate *c = &res->recommendations[i];
        if (c->availability.attached > 0)
            add_target(e, i, c, DC_ROLE_ATTACHED);
    }
    add_excluded(e, res);
}

/* Excluded parts are shown only with a change that brings them back. */
static void drop_unexplained(struct dc_explanation *e)
{
    size_t k = 0;
    for (size_t i = 0; i < e->n_targets; i++) {
        if (e->targets[i].role != DC_ROLE_EXCLUDED || e->targets[i].n_changes > 0)
            e->targets[k++] = e->targets[i];
    }
    e->n_targets = k;
}

/* ---- the whole ----------------------------------------------------------------------- */

/* The workload with its defaults applied, as rule conditions read it: the
 * `from` of every change. */
static enum dc_status current_document(struct cf_ctx *c)
{
    struct dc__derived d;
    dc__derive(c->rs, &c->base->workload, &d);
    return dc__facts_build(c->rs, &c->base->workload, &d, NULL, &c->current);
}

static enum dc_status explain_changes(struct cf_ctx *c, struct dc_explanation *e)
{
    unsigned before = c->evals;
    pick_targets(e, c->base);
    enum dc_status rc = cf__hinted_thresholds(c, e);
    if (rc == DC_OK)
        rc = cf__rule_thresholds(c, e);
    if (rc == DC_OK)
        rc = cf__targeted_changes(c, e);
    if (rc == DC_OK)
        rc = cf__sweep(c, e);
    if (rc == DC_OK)
        rc = cf__ladder_thresholds(c, e);
    drop_unexplained(e);
    e->changes_usage.evaluations = c->evals - before;
    e->changes_usage.stop = c->stop;
    return rc == DC_ELIMIT ? DC_OK : rc;
}

static enum dc_status run(struct cf_ctx *c, const struct dc_explain_opts *opts,
                          struct dc_explanation *e)
{
    enum dc_status rc = DC_OK;
    /* Robustness first: a handful of runs, never starved by the search. */
    if (opts->kinds & DC_EXPLAIN_ROBUSTNESS) {
        rc = cf__robustness(c, &e->robustness);
        if (rc == DC_ELIMIT)
            rc = DC_OK;
        e->kinds |= DC_EXPLAIN_ROBUSTNESS;
    }
    if (rc == DC_OK && (opts->kinds & DC_EXPLAIN_CHANGES)) {
        rc = current_document(c);
        if (rc == DC_OK)
            rc = explain_changes(c, e);
        e->kinds |= DC_EXPLAIN_CHANGES;
    }
    return rc;
}

enum dc_status dc_explain(const dc_ruleset *rs, const cJSON *workload,
                          const struct dc_recommend_opts *ropts, const struct dc_result *base,
                          const struct dc_explain_opts *opts, struct dc_explanation **out,
                          struct dc_error *err)
{
    if (out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_explain: NULL argument");
    *out = NULL;
    if (rs == NULL || workload == NULL || base == NULL || opts == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_explain: NULL argument");
    struct cf_ctx c = {.rs = rs, .workload = workload, .base = base};
    c.started_ns = dc_mono_ns();
    c.n_accs = dc_ruleset_accelerator_count(rs);
    c.max_evals = opts->max_evaluations == 0 || opts->max_evaluations > DC_EXPLAIN_MAX_EVALUATIONS
                      ? DC_EXPLAIN_MAX_EVALUATIONS
                      : opts->max_evaluations;
    c.budget_ns = opts->time_budget_ns;
    if (ropts != NULL)
        c.ropts = *ropts;
    c.ropts.request_id = NULL;
    struct dc_explanation *e = calloc(1, sizeof(*e));
    if (e == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    enum dc_status rc = run(&c, opts, e);
    cJSON_Delete(c.current);
    e->elapsed_ns = dc_mono_ns() - c.started_ns;
    if (rc != DC_OK) {
        dc_explanation_free(e);
        return dc_error_set(err, rc, NULL, "explain: %s", dc_strerror(rc));
    }
    *out = e;
    return DC_OK;
}

void dc_explanation_free(struct dc_explanation *e)
{
    if (e == NULL)
        return;
    for (size_t i = 0; i < e->n_targets; i++) {
        for (size_t k = 0; k < e->targets[i].n_changes; k++) {
            cJSON_Delete(e->targets[i].changes[k].from);
            cJSON_Delete(e->targets[i].changes[k].to);
        }
    }
    free(e);
}

const char *dc_target_role_name(enum dc_target_role r)
{
    static const char *const names[] = {"top", "runner_up", "family_best", "attached", "excluded"};
    return r <= DC_ROLE_EXCLUDED ? names[r] : "excluded";
}

const char *dc_explain_stop_name(enum dc_explain_stop s)
{
    static const char *const names[] = {"complete", "evaluations", "time"};
    return s <= DC_EXPLAIN_STOP_TIME ? names[s] : "complete";
}

const char *dc_perturbation_name(enum dc_perturbation p)
{
    return p == DC_PERTURB_MFU ? "mfu" : "price";
}

const char *dc_threshold_name(enum dc_threshold t)
{
    return t == DC_THRESHOLD_ABOVE ? "above" : t == DC_THRESHOLD_BELOW ? "below" : NULL;
}
