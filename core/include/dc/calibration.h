/* core/include/dc/calibration.h -- the sizing model against published runs.
 *
 * A calibration row names a published training run or serving result: the
 * workload, the accelerator and chip count it used, and what was measured (with
 * its source). dc_calibration_eval sizes the workload at exactly that count
 * (dc_size_at) and compares. docs/calibration.md is the table of every row in
 * tests/fixtures/calibration.json, printed by `accel-advisor calibrate`. */
#ifndef DC_CALIBRATION_H
#define DC_CALIBRATION_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "dc/common.h"
#include "dc/ruleset.h"

/* A row is accepted when its ratio lies within [1/limit, limit]. */
#define DC_CALIBRATION_LIMIT 1.5

struct dc_calibration_row {
    const char *id; /* views into the row's JSON */
    const char *run;
    const char *accelerator;
    unsigned chips;
    const char *measure; /* accelerator_hours, hours, steady_hours,
                            tokens_per_second_per_chip, tflops_per_chip,
                            tokens_per_second, decode_ms,
                            requests_per_second (images, samples) */
    const char *unit;    /* "GPU-h", "h", "tokens/s/chip", ... */
    double measured;
    double estimate;
    /* Estimated time over measured time (throughput rows: measured over
     * estimated throughput): above 1 the model is pessimistic. */
    double ratio;
    bool within;         /* ratio within [1/DC_CALIBRATION_LIMIT, DC_CALIBRATION_LIMIT] */
    const char *outlier; /* the row's explanation when it is a known outlier, else NULL */
    const char *note;    /* may be NULL */
    const char *source;
    const char *evidence;
};

/* Evaluate one row (borrowed; *out holds views into it). Errors: DC_EINVAL
 * with err->where naming the field ("/3/measured"), DC_ENOTFOUND for an
 * accelerator not in the catalog. */
DC_API DC_NODISCARD enum dc_status dc_calibration_eval(const dc_ruleset *rs, const cJSON *row,
                                                       struct dc_calibration_row *out,
                                                       struct dc_error *err);

#endif /* DC_CALIBRATION_H */
