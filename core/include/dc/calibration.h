/* core/include/dc/calibration.h -- the sizing model against published runs.
 *
 * A calibration row names a published training run or serving result: the
 * workload, the accelerator and chip count it used, and what was measured (with
 * its source). dc_calibration_eval sizes the workload at exactly that count
 * (dc_size_at) and compares. docs/calibration.md is the table of every row in
 * tests/fixtures/calibration.json, printed by `accel-advisor calibrate`.
 *
 * Each row is in one split: `fit` rows may set the model's parameters,
 * `held-out` rows never do and say how the model does on runs it was not
 * tuned on. Which split a row is in follows a fixed rule (dc_calibration_split)
 * that the fixture's `split` fields must agree with. The fit rows of each
 * regime give the p10-p90 band results state (dc_calibration_band). */
#ifndef DC_CALIBRATION_H
#define DC_CALIBRATION_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "dc/common.h"
#include "dc/ruleset.h"

/* A row is accepted when its ratio lies within [1/limit, limit]. */
#define DC_CALIBRATION_LIMIT 1.5
/* Rows one calibration file may hold (the split and the bands hold them all). */
#define DC_CALIBRATION_MAX_ROWS 1000
/* Fit rows a regime needs before it states a band of its own (fewer: its
 * task's pooled band stands in). */
#define DC_CALIBRATION_MIN_BAND_ROWS 5

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
    bool held_out;          /* `split`: "held-out" (true) or "fit" */
    const char *variant_of; /* the row this one gives another way (model.name only, ...) */
    enum dc_regime regime;  /* of the measured figure */
    enum dc_family family;  /* of the accelerator */
};

/* Evaluate one row (borrowed; *out holds views into it). Errors: DC_EINVAL
 * with err->where naming the field ("/3/measured"), DC_ENOTFOUND for an
 * accelerator not in the catalog. */
DC_API DC_NODISCARD enum dc_status dc_calibration_eval(const dc_ruleset *rs, const cJSON *row,
                                                       struct dc_calibration_row *out,
                                                       struct dc_error *err);

/* The split rule (docs/calibration.md, "The split"): rows that give another
 * row's run another way (`variant_of`) take that row's split; the others are
 * grouped by task (training, serving) and accelerator family, ordered within
 * a group by the 64-bit FNV-1a hash of their `run` text (then id), and every
 * third from the first is held out, so each group holds out at least a
 * third. Checks every row's `split` against it: DC_EINVAL naming the first row
 * that disagrees (or a `variant_of` naming no row), DC_ELIMIT past
 * DC_CALIBRATION_MAX_ROWS. `rows` are evaluated rows, `n` of them. */
DC_API DC_NODISCARD enum dc_status dc_calibration_check_split(const struct dc_calibration_row *rows,
                                                              size_t n, struct dc_error *err);

/* The split the rule puts each of `n` evaluated rows in: held_out[i] (room
 * for n) true for held out. Errors as dc_calibration_check_split, less the
 * rows' own `split` fields, which it does not read. */
DC_API DC_NODISCARD enum dc_status dc_calibration_rule_split(const struct dc_calibration_row *rows,
                                                             size_t n, bool *held_out,
                                                             struct dc_error *err);

/* Errors of a set of rows: error = max(ratio, 1/ratio); median and p90
 * interpolated between ranks. n 0: both NAN. */
struct dc_calibration_stats {
    size_t n;
    double median_error;
    double p90_error;
};

/* Which rows a summary takes: a split, a regime (its pool takes every
 * regime of its task), a family (DC_FAMILY_COUNT: any). Rows given another
 * way (variant_of) are left out: they repeat their run. */
struct dc_calibration_filter {
    bool held_out;
    enum dc_regime regime;
    enum dc_family family;
};

DC_API void dc_calibration_stats(const struct dc_calibration_row *rows, size_t n,
                                 const struct dc_calibration_filter *f,
                                 struct dc_calibration_stats *out);

/* The p10-p90 band of regime `r` from its fit rows (variants left out): a
 * log-normal prediction interval, exp(mean +/- t(0.90, k-1) x sd x sqrt(1 +
 * 1/k)) over the k log ratios. False (out untouched) with fewer than
 * DC_CALIBRATION_MIN_BAND_ROWS rows. */
DC_API bool dc_calibration_band(const struct dc_calibration_row *rows, size_t n, enum dc_regime r,
                                struct dc_band_params *out);

/* ---- refitting (core/src/calibration/calibration_fit.c) -------------------------------------- */

/* Parameters dc_calibration_fit sets, and the most sweeps of coordinate
 * descent it runs (it stops at the first that moves nothing). */
#define DC_CALIBRATION_FIT_PARAMS 10
#define DC_CALIBRATION_FIT_SWEEPS 20

/* One fitted parameter: its name as docs/calibration.md gives it
 * ("hbm_efficiency", "mfu.gpu.inference", "tp_allreduce_us.gpu" ...), the
 * fitted value and the rule set's value before the fit. */
struct dc_fit_value {
    const char *name;
    double value;
    double start;
};

/* Refit the serving parameters of `rs` (HBM efficiency, the serving MFU of
 * each family, the tensor-parallel all-reduce latency of GPUs and ASICs, the
 * serving factor of the Blackwell and of the CDNA parts, each shared by its
 * stack, and the CDNA parts' decode bandwidth share) on
 * the serving fit rows of `rows` (a JSON array of calibration rows; held-out
 * rows and rows given another way are never read): the Huber loss of the log
 * ratios (quadratic within DC_CALIBRATION_LIMIT, linear past it) minimised one
 * parameter at a time on its grid (the precision sizing.yaml states it at),
 * in a fixed order, sweep after sweep until one moves nothing (at most
 * DC_CALIBRATION_FIT_SWEEPS): the values are then a fixed point, so the same
 * rows give the same values again when the rule set states them. `rs` is changed in place (it must
 * not be shared with another thread) and holds the fitted values after.
 * out: room for `max` values (DC_CALIBRATION_FIT_PARAMS); *n_out: how many
 * were written; *loss_out (may be NULL): the final loss. Errors: DC_EINVAL for
 * a NULL argument or a bad row (as dc_calibration_eval), DC_ELIMIT for too
 * little room or too many rows, DC_ENOMEM. */
DC_API DC_NODISCARD enum dc_status dc_calibration_fit(dc_ruleset *rs, const cJSON *rows,
                                                      struct dc_fit_value *out, size_t max,
                                                      size_t *n_out, double *loss_out,
                                                      struct dc_error *err);

/* ---- importing MLPerf results (core/src/calibration/calibration_mlperf.c) ---------------------
 */

/* Most results one summary may hold. */
#define DC_MLPERF_MAX_RESULTS 100000

struct dc_mlperf_counts {
    size_t imported;  /* rows appended */
    size_t skipped;   /* results with no workload here: not Offline, another benchmark,
                         a part the catalog does not list */
    size_t malformed; /* results reported in `problems` */
};

/* Turn an MLPerf Inference summary_results.json (`summary`, a JSON array of
 * results) into calibration rows appended to `rows` (a JSON array), ids
 * `prefix`1, `prefix`2, ... (1 to 16 capital letters), each in split "fit"
 * until dc_calibration_rule_split places it. Offline results of SDXL, Whisper
 * and Llama 2 70B on catalog parts become rows; the others are counted as
 * skipped. A result missing a field or holding one of the wrong type is not
 * imported: a line naming it by JSON Pointer ("/12/Performance_Result:
 * missing or not a positive number") is appended to `problems` (a JSON array
 * of strings) and the rest are still read. Errors: DC_EINVAL for a summary
 * that is not an array or a bad argument, DC_ELIMIT past
 * DC_MLPERF_MAX_RESULTS. */
DC_API DC_NODISCARD enum dc_status
dc_calibration_import_mlperf(const dc_ruleset *rs, const cJSON *summary, const char *prefix,
                             cJSON *rows, cJSON *problems, struct dc_mlperf_counts *counts,
                             struct dc_error *err);

#endif /* DC_CALIBRATION_H */
