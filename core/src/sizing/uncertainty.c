/* core/src/sizing/uncertainty.c -- the p10-p90 band of every figure a configuration
 * prints: its regime (what kind of work the figure measures) and the spread of
 * the calibration's published runs of that regime around the model (sizing.yaml
 * `uncertainty`, derived by `accel-advisor calibrate --bands`; method in
 * docs/calibration.md, "Stated uncertainty"). */
#include <math.h>

#include "ruleset_internal.h"
#include "sizing.h"

enum dc_regime dc__regime_of(const struct dc_workload *w, const struct dc__derived *d)
{
    bool moe = d->kind == DC__KIND_DECODER && w->active_parameters < w->parameters;
    bool transformer = d->kind == DC__KIND_DECODER || d->kind == DC__KIND_ENCODER ||
                       d->kind == DC__KIND_ENCODER_DECODER;
    if (w->task == DC_TASK_INFERENCE) {
        if (!d->generative)
            return DC_REGIME_SERVING_OTHER;
        return moe ? DC_REGIME_SERVING_MOE : DC_REGIME_SERVING_DENSE;
    }
    if (w->method == DC_METHOD_LORA || w->method == DC_METHOD_QLORA)
        return DC_REGIME_FINE_TUNING;
    if (moe)
        return DC_REGIME_TRAINING_MOE;
    return transformer ? DC_REGIME_TRAINING_DENSE : DC_REGIME_TRAINING_OTHER;
}

static struct dc_band no_band(void)
{
    return (struct dc_band){NAN, NAN};
}

/* A time t: the real one is t / ratio, so p10 comes from the ratio's p90. */
static struct dc_band time_band(double t, const struct dc_band_params *b)
{
    if (!isfinite(t) || b->rows == 0)
        return no_band();
    return (struct dc_band){t / b->p90, t / b->p10};
}

/* A rate r: the real one is r x ratio. */
static struct dc_band rate_band(double r, const struct dc_band_params *b)
{
    if (!isfinite(r) || b->rows == 0)
        return no_band();
    return (struct dc_band){r * b->p10, r * b->p90};
}

/* Replicas a serving fleet needs when each serves `per` requests/s, within
 * what the fleet may hold. */
static double replicas_needed(const struct dc__part *p, const struct dc_sizing *z, double per)
{
    double most = fmax(1.0, floor((double)p->fleet_cap / fmax(1.0, z->chips_per_replica)));
    double n = ceil(p->w->requests_per_second / per - 1e-9);
    return fmax(1.0, fmin(n, most));
}

/* Serving cost scales with the replicas the rate needs at each end of the
 * throughput's band (one replica serves a small rate whatever it is). */
static struct dc_band serving_cost_band(const struct dc__part *p, const struct dc_sizing *z,
                                        const struct dc_band_params *b)
{
    if (!isfinite(z->cost_usd) || !(z->throughput_rps > 0) || z->replicas == 0 || b->rows == 0)
        return no_band();
    double per = z->throughput_rps / z->replicas;
    double low = replicas_needed(p, z, per * b->p90), high = replicas_needed(p, z, per * b->p10);
    return (struct dc_band){z->cost_usd * low / z->replicas, z->cost_usd * high / z->replicas};
}

void dc__uncertainty(const struct dc__part *p, struct dc_sizing *z)
{
    const struct dc_sizing_params *s = p->s;
    struct dc_uncertainty *u = &z->uncertainty;
    enum dc_regime r = dc__regime_of(p->w, p->d), lat = r;
    if (p->w->task == DC_TASK_INFERENCE && p->d->generative && z->batch_per_replica <= 1)
        lat = DC_REGIME_SERVING_LATENCY;
    struct dc_band_params b = dc_sizing_band(s, &r), bl = dc_sizing_band(s, &lat);
    *u = (struct dc_uncertainty){.regime = r,
                                 .latency_regime = lat,
                                 .rows = b.rows,
                                 .latency_rows = bl.rows,
                                 .hours = time_band(z->hours, &b),
                                 .cost_usd = no_band(),
                                 .throughput_rps = rate_band(z->throughput_rps, &b),
                                 .tokens_per_second = rate_band(z->tokens_per_second, &b),
                                 .decode_ms = time_band(z->decode_ms, &bl),
                                 .request_ms = time_band(z->request_ms, &bl)};
    bool per_run = p->w->task != DC_TASK_INFERENCE || p->w->job_requests > 0;
    if (!per_run)
        u->cost_usd = serving_cost_band(p, z, &b);
    else if (isfinite(z->cost_usd) && b.rows > 0)
        u->cost_usd = time_band(z->cost_usd, &b);
}
