/* core/src/calibration.c -- see dc/calibration.h. */
#include "dc/calibration.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dc/engine.h"

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
    const cJSON *workload = cJSON_GetObjectItemCaseSensitive(row, "workload");
    struct dc_sizing z;
    enum dc_status rc = dc_size_at(rs, workload, out->accelerator, out->chips, &z, err);
    if (rc != DC_OK)
        return rc;
    out->estimate = estimate(kind, &z, workload, dc_ruleset_sizing(rs)->goodput.value, out->chips);
    out->ratio = kind->time ? out->estimate / out->measured : out->measured / out->estimate;
    out->within = isfinite(out->ratio) && out->ratio <= DC_CALIBRATION_LIMIT &&
                  out->ratio >= 1.0 / DC_CALIBRATION_LIMIT;
    return DC_OK;
}
