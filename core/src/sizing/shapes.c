/* core/src/sizing/shapes.c -- what can be bought of a part (machines of GPUs or
 * CPUs, TPU slices) and how fast it computes: peaks by precision and MFU by
 * scale (docs/scoring.md, section 5). Every constant comes from the catalog
 * or sizing.yaml, each with a source. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "digits.h"
#include "ruleset_internal.h"
#include "sizing.h"
#include "textf.h"

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* ---- shapes ---------------------------------------------------------------------- */

unsigned dc__chip_cap(const struct dc_workload *w, const struct dc_accelerator *a)
{
    unsigned cap = a->max_chips;
    if (isfinite(w->max_accelerators) && w->max_accelerators < cap)
        cap = (unsigned)w->max_accelerators;
    return cap;
}

unsigned dc__unit_chips(const struct dc_accelerator *a)
{
    if (a->n_slices > 0)
        return a->slices[a->n_slices - 1].chips;
    return a->n_node_sizes > 0 ? a->node_sizes[a->n_node_sizes - 1] : 1;
}

static void set_shape(const struct dc_accelerator *a, unsigned units, size_t idx,
                      struct dc_shape *out)
{
    out->units = units;
    if (a->n_slices > 0) {
        out->per_unit = a->slices[idx].chips;
        out->slice = a->slices[idx].name;
    } else {
        out->per_unit = a->n_node_sizes > 0 ? a->node_sizes[idx] : 1;
        out->slice = NULL;
    }
}

/* The size at `i` of a's ascending list (slices, machine sizes, or one chip). */
static unsigned size_at(const struct dc_accelerator *a, size_t i)
{
    if (a->n_slices > 0)
        return a->slices[i].chips;
    return a->n_node_sizes > 0 ? a->node_sizes[i] : 1;
}

bool dc_shape_at_least(const struct dc_accelerator *a, unsigned need, unsigned cap,
                       struct dc_shape *out)
{
    size_t n = a->n_slices > 0 ? a->n_slices : (a->n_node_sizes > 0 ? a->n_node_sizes : 1);
    if (need == 0)
        need = 1;
    /* The first size that holds `need`: the catalog lists sizes ascending
     * (rules/catalog.c refuses any other order, and a rentable subset keeps
     * it), so none does past the largest, which the searches' larger probes
     * are (they ask this of every count they probe). */
    unsigned long long unit = dc__unit_chips(a);
    if (need <= unit) {
        size_t i = 0;
        while (size_at(a, i) < need)
            i++;
        set_shape(a, 1, i, out);
        return size_at(a, i) <= cap;
    }
    unsigned long long units = (need + unit - 1) / unit;
    if (units * unit > cap)
        return false;
    set_shape(a, (unsigned)units, n - 1, out);
    return true;
}

void dc__shape_at_most(const struct dc_accelerator *a, unsigned limit, struct dc_shape *out)
{
    size_t n = a->n_slices > 0 ? a->n_slices : (a->n_node_sizes > 0 ? a->n_node_sizes : 1);
    unsigned unit = dc__unit_chips(a);
    if (limit >= 2u * unit) {
        set_shape(a, limit / unit, n - 1, out);
        return;
    }
    set_shape(a, 1, 0, out);
    for (size_t i = 0; i < n; i++) {
        unsigned chips =
            a->n_slices > 0 ? a->slices[i].chips : (a->n_node_sizes > 0 ? a->node_sizes[i] : 1);
        if (chips <= limit)
            set_shape(a, 1, i, out);
    }
}

const char *dc_shape_format(const struct dc_accelerator *a, const struct dc_shape *s, char *buf,
                            size_t len)
{
    /* Every candidate's sizing, its reasons and every frontier point name
     * a shape (some 50 a body): joined without printf (core/src/base/textf.h
     * says why), and a machine's "U x P NAME", the common case, from its
     * measured pieces straight into buf when it fits (dc__textf's plan,
     * arguments and pieces cost three times the copying). */
    const char *name = a->short_name != NULL ? a->short_name : a->id;
    char units[21], per_unit[21];
    size_t nu = dc_uint_text(s->units, units);
    size_t np = dc_uint_text(s->per_unit, per_unit);
    if (s->slice == NULL && buf != NULL) {
        size_t nn = strlen(name);
        if (nu + np + nn + 4 < len) {
            char *o = buf;
            memcpy(o, units, nu);
            memcpy(o + nu, " x ", 3);
            memcpy(o + nu + 3, per_unit, np);
            o[nu + 3 + np] = ' ';
            memcpy(o + nu + 4 + np, name, nn + 1);
            return buf;
        }
    }
    if (s->slice != NULL && s->units == 1)
        dc__textf(buf, len, "%s", s->slice);
    else if (s->slice != NULL)
        dc__textf(buf, len, "%s x %s", units, s->slice);
    else
        dc__textf(buf, len, "%s x %s %s", units, per_unit, name);
    return buf;
}

/* ---- rates ------------------------------------------------------------------------- */

double dc__compute_peak(const dc_ruleset *rs, const struct dc_accelerator *a, enum dc_precision p)
{
    double base = a->peak_tflops[DC_PREC_BF16];
    if (!(base > 0))
        base = a->peak_tflops[DC_PREC_FP16];
    double own = a->peak_tflops[p];
    if (!(base > 0))
        return own > 0 ? own * 1e12 : NAN;
    double rate = base;
    switch (p) {
    case DC_PREC_BF16:
    case DC_PREC_FP16:
        break;
    case DC_PREC_FP32:
        /* fp32 matmuls run as reduced-precision passes by default on TPUs and
         * recent GPUs (F1.10): the TF32 rate where listed, else the bf16 rate. */
        rate = own > 0 ? own : base;
        break;
    case DC_PREC_FP64:
        rate = own > 0 ? own : NAN;
        break;
    case DC_PREC_FP8:
    case DC_PREC_FP4:
    case DC_PREC_INT8:
    case DC_PREC_INT4: {
        double ratio = own > 0 ? own / base : 1.0;
        double gain = rs->sizing.precision_gain[p][a->family];
        rate = base * (ratio < 1.0 ? ratio : fmin(ratio, gain));
        break;
    }
    case DC_PREC_COUNT:
        break;
    }
    return rate * 1e12;
}

double dc__training_mfu(const dc_ruleset *rs, const struct dc_accelerator *a, unsigned chips)
{
    const struct dc_sizing_params *s = &rs->sizing;
    double base = s->mfu_training[a->family];
    unsigned domain = a->domain > 0 ? a->domain : 1;
    if (chips <= domain)
        return base;
    double doublings = log2((double)chips / domain);
    double eff = s->mfu_cross_domain[a->family] * (1.0 - s->mfu_decay[a->family] * doublings);
    return base * clampd(eff, 0.05, 1.0);
}

/* F1.10: fp16 and bf16 run at the same rate, and fp32 matmuls as bf16 passes. */
double dc__listed_peak(const struct dc_accelerator *a, enum dc_precision p)
{
    double v = a->peak_tflops[p];
    if (isfinite(v) && v > 0)
        return v;
    if (p == DC_PREC_FP32 || p == DC_PREC_FP16)
        v = a->peak_tflops[DC_PREC_BF16];
    else if (p == DC_PREC_BF16)
        v = a->peak_tflops[DC_PREC_FP16];
    return isfinite(v) && v > 0 ? v : NAN;
}
