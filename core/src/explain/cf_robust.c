/* core/src/explain/cf_robust.c -- how firmly the top pick holds: its margin over the
 * runner-up, and whether it survives price and MFU moved by +/-30%.
 *
 * One run settles each check: the corner of the band where every move works
 * against the pick, its own price 30% higher (its MFU 30% lower) while every
 * other part's is 30% lower (higher). A pick that keeps the top there is
 * called robust. One that does not is fragile, and the smallest perturbation
 * tried that flips it is named: the pick's own move alone, then the new
 * pick's alone, then both, else that corner itself. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_internal.h"

static double adverse(enum dc_perturbation kind)
{
    return kind == DC_PERTURB_PRICE ? 1 + DC_EXPLAIN_PERTURBATION : 1 - DC_EXPLAIN_PERTURBATION;
}

static double favourable(enum dc_perturbation kind)
{
    return kind == DC_PERTURB_PRICE ? 1 - DC_EXPLAIN_PERTURBATION : 1 + DC_EXPLAIN_PERTURBATION;
}

/* Run the base workload under perturbation `f`; fills f->top. */
static enum dc_status run_flip(struct cf_ctx *c, enum dc_perturbation kind, double *scale,
                               struct dc_flip *f)
{
    const struct dc_accelerator *first = dc_ruleset_accelerator(c->rs, 0);
    for (size_t i = 0; i < c->n_accs; i++)
        scale[i] = f->others;
    for (size_t i = 0; i < f->n_scaled; i++)
        scale[f->scaled[i].acc - first] = f->scaled[i].factor;
    struct cf_outcome o;
    enum dc_status rc = cf__run(c, c->workload, kind == DC_PERTURB_PRICE ? scale : NULL,
                                kind == DC_PERTURB_MFU ? scale : NULL, &o);
    f->top = o.top;
    f->top_score = o.score;
    return rc;
}

static enum dc_status check(struct cf_ctx *c, enum dc_perturbation kind,
                            const struct dc_accelerator *top, double *scale,
                            struct dc_robust_check *k)
{
    double bad = adverse(kind), good = favourable(kind);
    *k = (struct dc_robust_check){.kind = kind, .robust = true};
    struct dc_flip worst = {.scaled = {{top, bad}}, .n_scaled = 1, .others = good};
    enum dc_status rc = run_flip(c, kind, scale, &worst);
    if (rc != DC_OK || worst.top == top)
        return rc;
    k->robust = false;
    const struct dc_accelerator *next = worst.top;
    struct dc_flip tries[3] = {
        {.scaled = {{top, bad}}, .n_scaled = 1, .others = 1},
        {.scaled = {{next, good}}, .n_scaled = 1, .others = 1},
        {.scaled = {{top, bad}, {next, good}}, .n_scaled = 2, .others = 1},
    };
    /* Nothing left at all under the worst case: only the top pick's own
     * change can say which part took its place. */
    size_t n_tries = next != NULL ? 3 : 1;
    for (size_t i = 0; i < n_tries; i++) {
        rc = run_flip(c, kind, scale, &tries[i]);
        if (rc != DC_OK)
            return rc;
        if (tries[i].top != top) {
            k->flip = tries[i];
            return DC_OK;
        }
    }
    k->flip = worst;
    return DC_OK;
}

enum dc_status cf__robustness(struct cf_ctx *c, struct dc_robustness *out)
{
    const struct dc_result *b = c->base;
    unsigned before = c->evals;
    memset(out, 0, sizeof(*out));
    enum dc_status rc = DC_OK;
    if (b->n_recommendations > 0 && c->n_accs > 0) {
        out->top = b->recommendations[0].acc;
        out->top_score = b->recommendations[0].score;
        out->top_priced = isfinite(b->recommendations[0].sizing.cost_usd);
        if (b->n_recommendations > 1) {
            out->runner_up = b->recommendations[1].acc;
            out->runner_up_score = b->recommendations[1].score;
        }
        double *scale = calloc(c->n_accs, sizeof(*scale));
        if (scale == NULL)
            return DC_ENOMEM;
        for (int kind = 0; rc == DC_OK && kind < DC_PERTURB_COUNT; kind++) {
            rc = check(c, (enum dc_perturbation)kind, out->top, scale, &out->checks[out->n_checks]);
            if (rc == DC_OK)
                out->n_checks++;
        }
        free(scale);
    }
    out->usage.evaluations = c->evals - before;
    out->usage.stop = c->stop;
    return rc;
}
