/* core/src/calibration/calibration_fit.c -- the fitter of the serving parameters
 * (dc_calibration_fit, dc/calibration.h): what `accel-advisor calibrate --fit`
 * runs, so that adding a calibration row and refitting is one command and the
 * shipped rules/sizing.yaml is its output (docs/calibration.md, "Refitting").
 * Owned by the serving physics work (issue 30). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dc/calibration.h"
#include "ruleset_internal.h"

/* Most rule-set values one fitted parameter sets beside its own. */
#define FIT_MAX_TIED 3

/* One fitted parameter: where it lives in the rule set, the grid it is
 * searched on (lo to hi by step: the precision sizing.yaml states it at), and
 * the family parameters that take its value (no published row fits them). */
struct fit_param {
    const char *name;
    double lo, hi, step;
    double *at;
    double *tied[FIT_MAX_TIED];
};

/* The serving factor of catalog part `id` (mfu_factor.inference, or with
 * `hbm` its mfu_factor.hbm); NULL when the catalog has no such part. */
static double *serving_factor(dc_ruleset *rs, const char *id, bool hbm)
{
    for (size_t i = 0; i < rs->n_accs; i++)
        if (strcmp(rs->accs[i].id, id) == 0)
            return hbm ? &rs->accs[i].hbm_factor : &rs->accs[i].mfu_factor;
    return NULL;
}

/* A vendor stack's serving factor: parts of one stack share one factor, so
 * that no single row sets a part's number (docs/calibration.md); the first
 * part the catalog lists carries it, the others are tied to it. False when
 * the catalog has none of them. */
static bool stack_param(dc_ruleset *rs, const char *name, const char *const *ids, bool hbm,
                        struct fit_param *p)
{
    *p = (struct fit_param){name, 0.30, 1.50, 0.01, NULL, {NULL, NULL, NULL}};
    size_t tied = 0;
    for (size_t i = 0; ids[i] != NULL; i++) {
        double *f = serving_factor(rs, ids[i], hbm);
        if (f == NULL)
            continue;
        if (p->at == NULL)
            p->at = f;
        else if (tied < FIT_MAX_TIED)
            p->tied[tied++] = f;
    }
    return p->at != NULL;
}

/* The serving parameters, in the order coordinate descent visits them. */
static size_t fit_params(dc_ruleset *rs, struct fit_param *p)
{
    struct dc_sizing_params *s = &rs->sizing;
    size_t n = 0;
    p[n++] = (struct fit_param){"hbm_efficiency",  0.40, 0.95, 0.01, &s->hbm_efficiency.value,
                                {NULL, NULL, NULL}};
    /* A batch-1 decode's share (GEMV kernels), fitted where the rules state
     * one (the batch-1 rows set it; sizing.c's dc__decode_hbm_scale). */
    if (isfinite(s->hbm_efficiency_batch1.value))
        p[n++] = (struct fit_param){
            "hbm_efficiency_batch1", 0.30, 0.95, 0.01, &s->hbm_efficiency_batch1.value,
            {NULL, NULL, NULL}};
    p[n++] =
        (struct fit_param){"mfu.gpu.inference", 0.10, 0.80, 0.01, &s->mfu_inference[DC_FAMILY_GPU],
                           {NULL, NULL, NULL}};
    p[n++] =
        (struct fit_param){"mfu.tpu.inference", 0.10, 0.80, 0.01, &s->mfu_inference[DC_FAMILY_TPU],
                           {NULL, NULL, NULL}};
    p[n++] = (struct fit_param){
        "mfu.asic.inference", 0.05, 0.80, 0.01, &s->mfu_inference[DC_FAMILY_ASIC],
        {NULL, NULL, NULL}};
    p[n++] = (struct fit_param){
        "tp_allreduce_us.gpu",
        0,
        100,
        1,
        &s->tp_allreduce_us[DC_FAMILY_GPU],
        {&s->tp_allreduce_us[DC_FAMILY_TPU], &s->tp_allreduce_us[DC_FAMILY_CPU], NULL}};
    p[n++] = (struct fit_param){
        "tp_allreduce_us.asic", 0, 200, 1, &s->tp_allreduce_us[DC_FAMILY_ASIC], {NULL, NULL, NULL}};
    static const char *const blackwell[] = {"b200", "gb200", NULL};
    static const char *const cdna[] = {"mi300x", "mi325x", "mi355x", NULL};
    if (stack_param(rs, "mfu_factor.inference.blackwell", blackwell, false, &p[n]))
        n++;
    if (stack_param(rs, "mfu_factor.inference.cdna", cdna, false, &p[n]))
        n++;
    /* ROCm's decode reads the weights slower than CUDA's at a small batch
     * (I49, I50: 8 MI300X at batch 1 are 1.5x and 1.6x off the bandwidth
     * roofline CUDA's rows fit; issue 30), one factor for the stack. */
    if (stack_param(rs, "mfu_factor.hbm.cdna", cdna, true, &p[n]))
        n++;
    return n;
}

static void set_param(const struct fit_param *p, double v)
{
    *p->at = v;
    for (size_t i = 0; i < FIT_MAX_TIED; i++)
        if (p->tied[i] != NULL)
            *p->tied[i] = v;
}

/* Huber loss of one log ratio: quadratic within the calibration's band,
 * linear past it, so that a row off by 3x cannot pull the whole model. */
static double huber(double ratio)
{
    double x = fabs(log(ratio)), c = log(DC_CALIBRATION_LIMIT);
    return x <= c ? x * x : c * c + 2.0 * c * (x - c);
}

/* The loss over the chosen rows; INFINITY when a row cannot be estimated. */
static double loss_of(const dc_ruleset *rs, const cJSON *const *rows, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        struct dc_calibration_row r;
        struct dc_error err = {0};
        if (dc_calibration_eval(rs, rows[i], &r, &err) != DC_OK || !isfinite(r.ratio) ||
            !(r.ratio > 0))
            return INFINITY;
        sum += huber(r.ratio);
    }
    return sum;
}

/* The rows the fit reads: serving fit rows that are not another row's run
 * given another way (those would count their run twice). */
static enum dc_status fit_rows(const dc_ruleset *rs, const cJSON *rows, const cJSON **out,
                               size_t *n, struct dc_error *err)
{
    *n = 0;
    const cJSON *row = NULL;
    cJSON_ArrayForEach(row, rows)
    {
        struct dc_calibration_row r;
        enum dc_status rc = dc_calibration_eval(rs, row, &r, err);
        if (rc != DC_OK)
            return rc;
        if (r.held_out || r.variant_of != NULL || dc_regime_pool(r.regime) != DC_REGIME_SERVING)
            continue;
        if (*n == DC_CALIBRATION_MAX_ROWS)
            return dc_error_set(err, DC_ELIMIT, NULL, "more than %d calibration rows",
                                DC_CALIBRATION_MAX_ROWS);
        out[(*n)++] = row;
    }
    return DC_OK;
}

/* The best value of one parameter on its grid, the others held: the first
 * lowest loss, scanning up, so the answer does not depend on where it starts. */
static double best_on_grid(dc_ruleset *rs, const struct fit_param *p, const cJSON *const *rows,
                           size_t n, double *best_loss)
{
    double best = *p->at;
    *best_loss = INFINITY;
    size_t steps = (size_t)floor((p->hi - p->lo) / p->step + 0.5);
    for (size_t k = 0; k <= steps; k++) {
        double v = p->lo + (double)k * p->step;
        set_param(p, v);
        double l = loss_of(rs, rows, n);
        if (l < *best_loss) {
            *best_loss = l;
            best = v;
        }
    }
    set_param(p, best);
    return best;
}

enum dc_status dc_calibration_fit(dc_ruleset *rs, const cJSON *rows, struct dc_fit_value *out,
                                  size_t max, size_t *n_out, double *loss_out, struct dc_error *err)
{
    if (rs == NULL || !cJSON_IsArray(rows) || out == NULL || n_out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_calibration_fit: NULL argument");
    struct fit_param params[DC_CALIBRATION_FIT_PARAMS];
    size_t np = fit_params(rs, params);
    if (max < np)
        return dc_error_set(err, DC_ELIMIT, NULL, "dc_calibration_fit: room for %zu values", np);
    const cJSON **chosen = malloc(DC_CALIBRATION_MAX_ROWS * sizeof(*chosen));
    if (chosen == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    size_t n = 0;
    enum dc_status rc = fit_rows(rs, rows, chosen, &n, err);
    double loss = INFINITY;
    for (size_t i = 0; rc == DC_OK && i < np; i++)
        out[i] = (struct dc_fit_value){params[i].name, *params[i].at, *params[i].at};
    /* Sweeps until one moves nothing: the fitted values are then a fixed
     * point, and refitting from them gives them again, exactly. */
    bool moved = true;
    for (int sweep = 0; rc == DC_OK && moved && sweep < DC_CALIBRATION_FIT_SWEEPS; sweep++) {
        moved = false;
        for (size_t i = 0; i < np; i++) {
            double before = *params[i].at;
            out[i].value = best_on_grid(rs, &params[i], chosen, n, &loss);
            moved = moved || out[i].value != before;
        }
    }
    free(chosen);
    if (rc != DC_OK)
        return rc;
    *n_out = np;
    if (loss_out != NULL)
        *loss_out = loss;
    return DC_OK;
}
