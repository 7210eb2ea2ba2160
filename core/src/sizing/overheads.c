/* core/src/sizing/overheads.c -- a training run's fixed costs beside its compute
 * hours (docs/scoring.md, section 6): a start-up every run pays on every
 * machine (provisioning, the container image, the weights loaded at
 * sizing.yaml's load_gb_per_s, the framework's start), and a cloud offer's
 * billing, which rounds the hours up to its granularity and minimum. The
 * compute hours (`hours`) stay what the calibration measures; these are
 * their own line (sizing.overheads), in the run's cost and in the time the
 * objective and the deadline see. Checkpoints and evaluation are in the
 * goodput factor already, so they are not counted twice. */
#include <math.h>

#include "sizing.h"

static struct dc_overheads unknown(void)
{
    return (struct dc_overheads){NAN, NAN, NAN, NAN, NAN, NAN};
}

/* Hours billed for `hours` of use: whole granules, no fewer than the minimum. */
static double billed(const struct dc_sizing_params *s, double hours)
{
    double g = s->billing_granularity_hours.value, m = s->billing_minimum_hours.value;
    double b = g > 0 ? ceil(hours / g * (1 - 1e-12)) * g : hours;
    return isfinite(m) ? fmax(b, m) : b;
}

void dc__overheads_init(struct dc__part *p)
{
    const struct dc_sizing_params *s = p->s;
    const struct dc_workload *w = p->w;
    p->startup_hours = 0;
    if (!isfinite(s->startup_hours.value) || !(p->d->training_flops > 0))
        return;
    double weights_gb = w->parameters * s->infer_bytes_per_param[w->precision] / DC__GB;
    double load = isfinite(s->load_gb_per_s.value)
                      ? weights_gb / s->load_gb_per_s.value / DC__SECONDS_PER_HOUR
                      : 0;
    p->startup_hours = s->startup_hours.value + (isfinite(load) ? load : 0);
}

double dc__startup_hours(const struct dc__part *p)
{
    return p->startup_hours;
}

void dc__overheads(const struct dc__part *p, struct dc_sizing *z)
{
    const struct dc_sizing_params *s = p->s;
    const struct dc_workload *w = p->w;
    z->overheads = unknown();
    if (!isfinite(s->startup_hours.value) || !isfinite(z->hours))
        return;
    struct dc_overheads *o = &z->overheads;
    o->startup_hours = dc__startup_hours(p);
    double used = z->hours + o->startup_hours;
    o->billing_hours =
        z->cost_basis == DC_COST_CLOUD && isfinite(s->billing_granularity_hours.value)
            ? billed(s, used) - used
            : 0;
    o->hours = o->startup_hours + o->billing_hours;
    o->cost_usd = o->hours * z->cost_per_hour_usd;
    if (isfinite(o->cost_usd))
        z->cost_usd += o->cost_usd;
    if (isfinite(w->deadline_hours))
        z->meets_deadline = used <= w->deadline_hours * (1 + 1e-9);
    if (isfinite(w->budget_usd))
        z->within_budget = isfinite(z->cost_usd) && z->cost_usd <= w->budget_usd;
}
