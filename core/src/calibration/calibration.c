/* core/src/calibration/calibration.c -- see dc/calibration.h. */
#include "dc/calibration.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dc/engine.h"
#include "dc/hash.h"
#include "ruleset_internal.h"
#include "sizing.h"

/* What a measure compares and how: `time` rows compare durations (estimate over
 * measured), the others throughputs (measured over estimate). Steady-state
 * measures exclude the whole-run goodput, as the runs that report them do. */
struct measure {
    const char *name;
    const char *unit;
    bool time;
    bool steady;
};

static const struct measure measures[] = {
    {"accelerator_hours", "chip-h", true, false},
    {"hours", "h", true, false},
    {"steady_hours", "h", true, true},
    {"tokens_per_second_per_chip", "tokens/s/chip", false, true},
    {"tflops_per_chip", "TFLOP/s/chip", false, true},
    {"tokens_per_second", "tokens/s", false, false},
    {"decode_ms", "ms", true, false},
    {"requests_per_second", "requests/s", false, false},
};

static const char *opt_string(const cJSON *row, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The estimate of `m` from a sizing at `chips` chips. */
static double estimate(const struct measure *m, const struct dc_sizing *z, const cJSON *workload,
                       double goodput, unsigned chips)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(workload, "training");
    const cJSON *tokens = cJSON_GetObjectItemCaseSensitive(t, "tokens");
    double hours = m->steady ? z->hours * goodput : z->hours;
    if (strcmp(m->name, "accelerator_hours") == 0)
        return hours * chips;
    if (strcmp(m->name, "hours") == 0 || strcmp(m->name, "steady_hours") == 0)
        return hours;
    if (strcmp(m->name, "tokens_per_second_per_chip") == 0)
        return cJSON_IsNumber(tokens) ? tokens->valuedouble / (hours * 3600.0) / chips : NAN;
    if (strcmp(m->name, "tflops_per_chip") == 0)
        return z->mfu * z->peak_tflops;
    if (strcmp(m->name, "tokens_per_second") == 0)
        return z->tokens_per_second;
    if (strcmp(m->name, "requests_per_second") == 0)
        return z->throughput_rps;
    return z->decode_ms;
}

static enum dc_status bad(struct dc_error *err, const char *where, const char *msg)
{
    return dc_error_set(err, DC_EINVAL, where, "%s", msg);
}

/* Size the row's workload on its accelerator at its chip count (what
 * dc_size_at does) and tell the regime of its figure: the workload's, or one
 * request's decode step at batch 1 for a latency row. */
static enum dc_status size_row(const dc_ruleset *rs, const cJSON *workload, const struct measure *m,
                               struct dc_calibration_row *out, struct dc_sizing *z,
                               struct dc_error *err)
{
    struct dc_workload w;
    struct dc__derived d;
    enum dc_status rc =
        dc__size_workload_at(rs, workload, out->accelerator, out->chips, &w, &d, z, err);
    if (rc != DC_OK)
        return rc;
    out->family = dc_ruleset_find_accelerator(rs, out->accelerator)->family;
    out->regime =
        strcmp(m->name, "decode_ms") == 0 ? DC_REGIME_SERVING_LATENCY : dc__regime_of(&w, &d);
    return DC_OK;
}

/* split: "fit" or "held-out"; variant_of: optional, another row's id. */
static enum dc_status row_split(const cJSON *row, struct dc_calibration_row *out,
                                struct dc_error *err)
{
    const char *split = opt_string(row, "split");
    if (split == NULL || (strcmp(split, "fit") != 0 && strcmp(split, "held-out") != 0))
        return bad(err, "/split", "split must be \"fit\" or \"held-out\"");
    out->held_out = split[0] == 'h';
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, "variant_of");
    if (v != NULL && !cJSON_IsString(v))
        return bad(err, "/variant_of", "variant_of must be the id of another row");
    out->variant_of = v != NULL ? v->valuestring : NULL;
    return DC_OK;
}

enum dc_status dc_calibration_eval(const dc_ruleset *rs, const cJSON *row,
                                   struct dc_calibration_row *out, struct dc_error *err)
{
    if (rs == NULL || out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "dc_calibration_eval: NULL argument");
    memset(out, 0, sizeof(*out));
    if (!cJSON_IsObject(row))
        return dc_error_set(err, DC_EINVAL, "", "a calibration row must be an object");
    out->id = opt_string(row, "id");
    out->run = opt_string(row, "run");
    out->accelerator = opt_string(row, "accelerator");
    out->source = opt_string(row, "source");
    out->evidence = opt_string(row, "evidence");
    out->outlier = opt_string(row, "outlier");
    out->note = opt_string(row, "note");
    if (out->id == NULL || out->run == NULL || out->accelerator == NULL || out->source == NULL ||
        out->evidence == NULL)
        return bad(err, "/id", "id, run, accelerator, source and evidence are required strings");
    const cJSON *chips = cJSON_GetObjectItemCaseSensitive(row, "chips");
    if (!cJSON_IsNumber(chips) || chips->valuedouble < 1 || chips->valuedouble > 1e6 ||
        chips->valuedouble != floor(chips->valuedouble))
        return bad(err, "/chips", "chips must be an integer from 1 to 1000000");
    out->chips = (unsigned)chips->valuedouble;
    const cJSON *measured = cJSON_GetObjectItemCaseSensitive(row, "measured");
    const cJSON *m = cJSON_IsObject(measured) ? measured->child : NULL;
    if (m == NULL || m->next != NULL || !cJSON_IsNumber(m) || !(m->valuedouble > 0))
        return bad(err, "/measured", "measured must hold exactly one positive measure");
    const struct measure *kind = NULL;
    for (size_t i = 0; i < sizeof(measures) / sizeof(measures[0]); i++) {
        if (strcmp(m->string, measures[i].name) == 0)
            kind = &measures[i];
    }
    if (kind == NULL)
        return bad(err, "/measured", "unknown measure (see dc/calibration.h)");
    out->measure = kind->name;
    out->unit = kind->unit;
    out->measured = m->valuedouble;
    enum dc_status rc = row_split(row, out, err);
    if (rc != DC_OK)
        return rc;
    const cJSON *workload = cJSON_GetObjectItemCaseSensitive(row, "workload");
    struct dc_sizing z;
    rc = size_row(rs, workload, kind, out, &z, err);
    if (rc != DC_OK)
        return rc;
    out->estimate = estimate(kind, &z, workload, dc_ruleset_sizing(rs)->goodput.value, out->chips);
    out->ratio = kind->time ? out->estimate / out->measured : out->measured / out->estimate;
    out->within = isfinite(out->ratio) && out->ratio <= DC_CALIBRATION_LIMIT &&
                  out->ratio >= 1.0 / DC_CALIBRATION_LIMIT;
    return DC_OK;
}

/* ---- the split ---------------------------------------------------------------------- */

/* The group a row's split is drawn in (docs/calibration.md, "The split"): a serving
 * row's own regime, so that every serving kind the summary reports holds runs out;
 * a training row's task, as when the training parameters were set (the committed
 * fitter refits only the serving ones, so moving a training row between splits
 * would hold out runs those parameters were tuned on). */
static enum dc_regime split_group(enum dc_regime r)
{
    enum dc_regime pool = dc_regime_pool(r);
    return pool == DC_REGIME_SERVING ? r : pool;
}

struct ordered {
    const struct dc_calibration_row *row;
    uint64_t hash;
};

static int by_group_then_hash(const void *a, const void *b)
{
    const struct ordered *x = a, *y = b;
    enum dc_regime gx = split_group(x->row->regime), gy = split_group(y->row->regime);
    if (gx != gy)
        return gx < gy ? -1 : 1;
    if (x->row->family != y->row->family)
        return x->row->family < y->row->family ? -1 : 1;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return strcmp(x->row->id, y->row->id);
}

static const struct dc_calibration_row *find_row(const struct dc_calibration_row *rows, size_t n,
                                                 const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].id, id) == 0)
            return &rows[i];
    return NULL;
}

static enum dc_status split_mismatch(const struct dc_calibration_row *r, bool held_out,
                                     struct dc_error *err)
{
    return dc_error_set(err, DC_EINVAL, "/split",
                        "row %s is in the %s split, but the split rule puts it in %s "
                        "(docs/calibration.md, \"The split\")",
                        r->id, r->held_out ? "held-out" : "fit", held_out ? "held-out" : "fit");
}

enum dc_status dc_calibration_rule_split(const struct dc_calibration_row *rows, size_t n,
                                         bool *held_out, struct dc_error *err)
{
    if (n > DC_CALIBRATION_MAX_ROWS)
        return dc_error_set(err, DC_ELIMIT, NULL, "more than %d calibration rows",
                            DC_CALIBRATION_MAX_ROWS);
    struct ordered *v = calloc(n + 1, sizeof(*v));
    if (v == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    size_t m = 0;
    enum dc_status rc = DC_OK;
    for (size_t i = 0; i < n && rc == DC_OK; i++) {
        const struct dc_calibration_row *base =
            rows[i].variant_of != NULL ? find_row(rows, n, rows[i].variant_of) : NULL;
        if (rows[i].variant_of == NULL)
            v[m++] = (struct ordered){&rows[i], dc_fnv64_str(rows[i].run)};
        else if (base == NULL || base->variant_of != NULL)
            rc = dc_error_set(err, DC_EINVAL, "/variant_of",
                              "row %s: variant_of \"%s\" names no row that is not itself a "
                              "variant",
                              rows[i].id, rows[i].variant_of);
    }
    qsort(v, m, sizeof(*v), by_group_then_hash);
    for (size_t i = 0, k = 0; i < m && rc == DC_OK; i++, k++) {
        if (i > 0 && (split_group(v[i].row->regime) != split_group(v[i - 1].row->regime) ||
                      v[i].row->family != v[i - 1].row->family))
            k = 0; /* a new group */
        held_out[v[i].row - rows] = k % 3 == 0;
    }
    /* A row given another way takes its run's split. */
    for (size_t i = 0; i < n && rc == DC_OK; i++)
        if (rows[i].variant_of != NULL)
            held_out[i] = held_out[find_row(rows, n, rows[i].variant_of) - rows];
    free(v);
    return rc;
}

enum dc_status dc_calibration_check_split(const struct dc_calibration_row *rows, size_t n,
                                          struct dc_error *err)
{
    bool *held = calloc(n + 1, sizeof(*held));
    if (held == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    enum dc_status rc = dc_calibration_rule_split(rows, n, held, err);
    /* Rows given another way first, as their run's declared split says. */
    for (size_t i = 0; i < n && rc == DC_OK; i++) {
        const struct dc_calibration_row *base =
            rows[i].variant_of != NULL ? find_row(rows, n, rows[i].variant_of) : NULL;
        if (base != NULL && base->held_out != rows[i].held_out)
            rc = split_mismatch(&rows[i], base->held_out, err);
    }
    for (size_t i = 0; i < n && rc == DC_OK; i++)
        if (rows[i].variant_of == NULL && rows[i].held_out != held[i])
            rc = split_mismatch(&rows[i], held[i], err);
    free(held);
    return rc;
}

/* ---- errors and bands ------------------------------------------------------------- */

static bool selected(const struct dc_calibration_row *r, const struct dc_calibration_filter *f)
{
    if (r->variant_of != NULL || r->held_out != f->held_out || !isfinite(r->ratio) ||
        !(r->ratio > 0))
        return false;
    if (f->family != DC_FAMILY_COUNT && r->family != f->family)
        return false;
    return f->regime == dc_regime_pool(f->regime) ? dc_regime_pool(r->regime) == f->regime
                                                  : r->regime == f->regime;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* The q-quantile of sorted v[0..n), interpolated between ranks. */
static double quantile(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
}

void dc_calibration_stats(const struct dc_calibration_row *rows, size_t n,
                          const struct dc_calibration_filter *f, struct dc_calibration_stats *out)
{
    *out = (struct dc_calibration_stats){0, NAN, NAN};
    double *e = calloc(n + 1, sizeof(*e));
    if (e == NULL)
        return;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (selected(&rows[i], f))
            e[m++] = fmax(rows[i].ratio, 1.0 / rows[i].ratio);
    if (m > 0) {
        qsort(e, m, sizeof(*e), cmp_double);
        *out = (struct dc_calibration_stats){m, quantile(e, m, 0.5), quantile(e, m, 0.9)};
    }
    free(e);
}

/* Student's t at 0.90 for `df` degrees of freedom: the table to 30, then
 * 1.2816 + 0.868 / df, within 0.001 of the exact value beyond. */
static double t90(size_t df)
{
    static const double t[] = {0,     3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415,
                               1.397, 1.383, 1.372, 1.363, 1.356, 1.350, 1.345, 1.341,
                               1.337, 1.333, 1.330, 1.328, 1.325, 1.323, 1.321, 1.319,
                               1.318, 1.316, 1.315, 1.314, 1.313, 1.311, 1.310};
    return df <= 30 ? t[df] : 1.2816 + 0.868 / (double)df;
}

bool dc_calibration_band(const struct dc_calibration_row *rows, size_t n, enum dc_regime r,
                         struct dc_band_params *out)
{
    struct dc_calibration_filter f = {false, r, DC_FAMILY_COUNT};
    double sum = 0, sq = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!selected(&rows[i], &f))
            continue;
        double x = log(rows[i].ratio);
        sum += x;
        sq += x * x;
        k++;
    }
    if (k < DC_CALIBRATION_MIN_BAND_ROWS)
        return false;
    double mean = sum / (double)k;
    double sd = sqrt(fmax(0.0, (sq - (double)k * mean * mean) / (double)(k - 1)));
    double half = t90(k - 1) * sd * sqrt(1.0 + 1.0 / (double)k);
    *out = (struct dc_band_params){exp(mean - half), exp(mean + half), (unsigned)k};
    return true;
}
