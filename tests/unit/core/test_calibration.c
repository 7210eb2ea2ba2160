/* tests/unit/core/test_calibration.c -- core/src/calibration/calibration.c against
 * tests/fixtures/calibration.json: every published run within 1.5x of the
 * model or explained as an outlier, held-out rows included; enough rows of
 * each kind; the split as its rule says; the bands sizing.yaml states are
 * what the fit rows give, and cover the held-out rows at about their nominal
 * 80%; the shipped serving parameters are what the fitter gives (a fixed
 * point it returns to); and every error path. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dc/calibration.h"
#include "dc/embedded.h"
#include "read_file.h"
#include "ruleset_internal.h"

static dc_ruleset *rules;
static cJSON *fixture;
static struct dc_calibration_row rows[DC_CALIBRATION_MAX_ROWS];
static size_t n_rows;

static int setup(void **state)
{
    (void)state;
    if (dc_ruleset_load_embedded(aa_embedded_files, &rules, NULL) != DC_OK)
        return -1;
    char *text = test_read_file(AA_FIXTURES_DIR "/calibration.json", 1u << 21);
    if (text == NULL)
        return -1;
    fixture = cJSON_Parse(text);
    free(text);
    const cJSON *row = NULL;
    cJSON_ArrayForEach(row, fixture)
    {
        struct dc_error err;
        dc_error_clear(&err);
        if (n_rows == DC_CALIBRATION_MAX_ROWS ||
            dc_calibration_eval(rules, row, &rows[n_rows], &err) != DC_OK) {
            fprintf(stderr, "row %zu%s: %s\n", n_rows, err.where, err.msg);
            return -1;
        }
        n_rows++;
    }
    return cJSON_IsArray(fixture) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cJSON_Delete(fixture);
    dc_ruleset_release(rules);
    return 0;
}

/* Every row within the band or explained, held-out rows as much as fit ones. */
static void test_published_runs(void **state)
{
    (void)state;
    size_t outliers = 0, failures = 0;
    for (size_t i = 0; i < n_rows; i++) {
        const struct dc_calibration_row *r = &rows[i];
        assert_true(strncmp(r->source, "https://", 8) == 0);
        assert_true(strlen(r->evidence) > 10);
        if (r->outlier != NULL) {
            outliers++;
            assert_true(strlen(r->outlier) > 80); /* an explanation, not a flag */
            continue;
        }
        if (!r->within) {
            print_error("%s (%s, %s): ratio %.2f outside 1/%.1f..%.1f\n", r->id, r->run,
                        r->held_out ? "held-out" : "fit", r->ratio, DC_CALIBRATION_LIMIT,
                        DC_CALIBRATION_LIMIT);
            failures++;
        }
    }
    print_message("calibration: %zu rows, %zu outliers\n", n_rows, outliers);
    assert_true(outliers * 4 <= n_rows); /* outliers stay the exception */
    assert_int_equal(failures, 0);
}

/* At least 40 training and 25 serving runs (each counted once however many
 * ways it is given), every catalog family with public results, MoE and low
 * precision among them, and a third or more held out. */
static void test_coverage(void **state)
{
    (void)state;
    size_t training = 0, serving = 0, held = 0, base = 0, moe = 0, fp4 = 0;
    unsigned families = 0;
    for (size_t i = 0; i < n_rows; i++) {
        const struct dc_calibration_row *r = &rows[i];
        if (r->variant_of != NULL)
            continue;
        base++;
        held += r->held_out;
        dc_regime_pool(r->regime) == DC_REGIME_TRAINING ? training++ : serving++;
        moe += r->regime == DC_REGIME_TRAINING_MOE || r->regime == DC_REGIME_SERVING_MOE;
        families |= 1u << r->family;
        const cJSON *w = cJSON_GetObjectItem(cJSON_GetArrayItem(fixture, (int)i), "workload");
        const cJSON *p = cJSON_GetObjectItem(w, "precision");
        fp4 += cJSON_IsString(p) && strcmp(p->valuestring, "fp4") == 0;
    }
    print_message("%zu training, %zu serving runs, %zu held out, %zu MoE, %zu FP4\n", training,
                  serving, held, moe, fp4);
    assert_true(training >= 40);
    assert_true(serving >= 25);
    assert_true(held * 3 >= base);
    assert_true(moe >= 10 && fp4 >= 5);
    assert_true(families & (1u << DC_FAMILY_GPU));
    assert_true(families & (1u << DC_FAMILY_TPU));
    assert_true(families & (1u << DC_FAMILY_ASIC));
}

/* The fixture's split is the rule's, and a row moved between splits fails. */
static void test_split_rule(void **state)
{
    (void)state;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(dc_calibration_check_split(rows, n_rows, &err), DC_OK);
    size_t i = 0;
    while (rows[i].variant_of != NULL)
        i++;
    rows[i].held_out = !rows[i].held_out;
    assert_int_equal(dc_calibration_check_split(rows, n_rows, &err), DC_EINVAL);
    assert_non_null(strstr(err.msg, rows[i].id));
    rows[i].held_out = !rows[i].held_out;
    /* A variant follows its run, and must name one. */
    size_t v = 0;
    while (v < n_rows && rows[v].variant_of == NULL)
        v++;
    assert_true(v < n_rows);
    rows[v].held_out = !rows[v].held_out;
    assert_int_equal(dc_calibration_check_split(rows, n_rows, &err), DC_EINVAL);
    rows[v].held_out = !rows[v].held_out;
    const char *of = rows[v].variant_of;
    rows[v].variant_of = "no-such-row";
    assert_int_equal(dc_calibration_check_split(rows, n_rows, &err), DC_EINVAL);
    assert_non_null(strstr(err.msg, "no-such-row"));
    rows[v].variant_of = of;
    assert_int_equal(dc_calibration_check_split(rows, DC_CALIBRATION_MAX_ROWS + 1, &err),
                     DC_ELIMIT);
}

/* sizing.yaml's bands are what the fit rows give (to its two decimals). */
static void test_bands_are_the_fit_rows(void **state)
{
    (void)state;
    const struct dc_sizing_params *s = dc_ruleset_sizing(rules);
    size_t stated = 0;
    for (int r = 0; r < DC_REGIME_COUNT; r++) {
        struct dc_band_params b = {0};
        bool has = dc_calibration_band(rows, n_rows, (enum dc_regime)r, &b);
        const struct dc_band_params *got = &s->uncertainty[r];
        if (!has) {
            assert_int_equal(got->rows, 0);
            continue;
        }
        stated++;
        if (got->rows != b.rows || fabs(got->p10 - b.p10) > 0.0051 ||
            fabs(got->p90 - b.p90) > 0.0051)
            fail_msg("%s: sizing.yaml states p10 %.2f p90 %.2f (%u rows), the fit rows give "
                     "%.2f %.2f (%u): run `accel-advisor calibrate --bands`",
                     dc_regime_name((enum dc_regime)r), got->p10, got->p90, got->rows, b.p10, b.p90,
                     b.rows);
        assert_true(b.p10 < 1.0 && b.p90 > 1.0);
    }
    assert_true(stated >= 4);
}

/* The stated bands hold the held-out rows at about their nominal 80%: within
 * 10 points either way. */
static void test_bands_cover_held_out(void **state)
{
    (void)state;
    const struct dc_sizing_params *s = dc_ruleset_sizing(rules);
    size_t in = 0, all = 0;
    for (size_t i = 0; i < n_rows; i++) {
        const struct dc_calibration_row *r = &rows[i];
        if (!r->held_out || r->variant_of != NULL)
            continue;
        enum dc_regime stated = r->regime;
        struct dc_band_params b = dc_sizing_band(s, &stated);
        assert_true(b.rows > 0);
        all++;
        in += r->ratio >= b.p10 && r->ratio <= b.p90;
    }
    double share = (double)in / (double)all;
    print_message("held-out rows inside their p10-p90 band: %zu of %zu (%.0f%%)\n", in, all,
                  100 * share);
    assert_true(share >= 0.70 && share <= 0.90);
}

/* Stats: median and p90 of max(ratio, 1/ratio), interpolated; variants out. */
static void test_stats(void **state)
{
    (void)state;
    struct dc_calibration_row v[5] = {0};
    const double ratios[5] = {1.0, 0.5, 1.25, 4.0, 2.0};
    for (size_t i = 0; i < 5; i++) {
        v[i].id = "x";
        v[i].ratio = ratios[i];
        v[i].regime = DC_REGIME_TRAINING_DENSE;
        v[i].family = DC_FAMILY_GPU;
    }
    v[4].variant_of = "x";
    struct dc_calibration_stats st;
    struct dc_calibration_filter f = {false, DC_REGIME_TRAINING, DC_FAMILY_COUNT};
    dc_calibration_stats(v, 5, &f, &st); /* errors 1, 2, 1.25, 4 */
    assert_int_equal(st.n, 4);
    assert_true(fabs(st.median_error - 1.625) < 1e-12);
    assert_true(fabs(st.p90_error - (2.0 + 0.7 * 2.0)) < 1e-12);
    f.family = DC_FAMILY_TPU;
    dc_calibration_stats(v, 5, &f, &st);
    assert_int_equal(st.n, 0);
    assert_true(isnan(st.median_error));
    f = (struct dc_calibration_filter){true, DC_REGIME_TRAINING, DC_FAMILY_COUNT};
    dc_calibration_stats(v, 5, &f, &st);
    assert_int_equal(st.n, 0);
    /* Fewer than DC_CALIBRATION_MIN_BAND_ROWS rows state no band. */
    struct dc_band_params b = {0};
    assert_false(dc_calibration_band(v, 5, DC_REGIME_TRAINING_DENSE, &b));
}

static void expect_error(const char *json, enum dc_status want, const char *where)
{
    cJSON *row = cJSON_Parse(json);
    assert_non_null(row);
    struct dc_calibration_row r;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(dc_calibration_eval(rules, row, &r, &err), want);
    if (where != NULL && strcmp(err.where, where) != 0)
        fail_msg("%s: where %s, want %s (%s)", json, err.where, where, err.msg);
    cJSON_Delete(row);
}

#define ROW_SPLIT(chips, split, measured, workload)                                                \
    "{\"id\":\"X\",\"run\":\"r\",\"accelerator\":\"h100\",\"chips\":" chips split                  \
    ",\"source\":\"https://example.com/\",\"evidence\":\"a quote\",\"measured\":" measured         \
    ",\"workload\":" workload "}"
#define ROW(chips, measured, workload) ROW_SPLIT(chips, ",\"split\":\"fit\"", measured, workload)
#define TRAIN                          "{\"task\":\"training\",\"model\":{\"parameters\":1e9},\"training\":{\"tokens\":1e9}}"

static void test_bad_rows(void **state)
{
    (void)state;
    expect_error("[]", DC_EINVAL, "");
    expect_error("{\"id\":\"X\"}", DC_EINVAL, "/id");
    expect_error(ROW("0", "{\"hours\":1}", TRAIN), DC_EINVAL, "/chips");
    expect_error(ROW("2.5", "{\"hours\":1}", TRAIN), DC_EINVAL, "/chips");
    expect_error(ROW("8", "{}", TRAIN), DC_EINVAL, "/measured");
    expect_error(ROW("8", "{\"hours\":-1}", TRAIN), DC_EINVAL, "/measured");
    expect_error(ROW("8", "{\"hours\":1,\"decode_ms\":2}", TRAIN), DC_EINVAL, "/measured");
    expect_error(ROW("8", "{\"furlongs\":1}", TRAIN), DC_EINVAL, "/measured");
    expect_error(ROW("8", "{\"hours\":1}", "{\"task\":\"training\"}"), DC_EINVAL, "/model");
    expect_error(ROW_SPLIT("8", "", "{\"hours\":1}", TRAIN), DC_EINVAL, "/split");
    expect_error(ROW_SPLIT("8", ",\"split\":\"test\"", "{\"hours\":1}", TRAIN), DC_EINVAL,
                 "/split");
    expect_error(ROW_SPLIT("8", ",\"split\":\"fit\",\"variant_of\":3", "{\"hours\":1}", TRAIN),
                 DC_EINVAL, "/variant_of");
    cJSON *ok = cJSON_Parse(ROW("8", "{\"hours\":1}", TRAIN));
    struct dc_calibration_row r;
    assert_int_equal(dc_calibration_eval(NULL, ok, &r, NULL), DC_EINVAL);
    assert_int_equal(dc_calibration_eval(rules, ok, NULL, NULL), DC_EINVAL);
    /* A good row: a 1B model on 8 H100s, hours and the ratio against 1 h. */
    assert_int_equal(dc_calibration_eval(rules, ok, &r, NULL), DC_OK);
    assert_string_equal(r.unit, "h");
    assert_true(r.estimate > 0 && fabs(r.ratio - r.estimate) < 1e-12);
    assert_int_equal(r.regime, DC_REGIME_TRAINING_DENSE);
    assert_int_equal(r.family, DC_FAMILY_GPU);
    assert_false(r.held_out);
    cJSON_Delete(ok);
}

/* A fresh copy of the shipped rule set the fitter may change. */
static dc_ruleset *fresh_rules(void)
{
    dc_ruleset *rs = NULL;
    assert_int_equal(dc_ruleset_load_embedded(aa_embedded_files, &rs, NULL), DC_OK);
    return rs;
}

/* `accel-advisor calibrate --fit` reproduces rules/sizing.yaml and the
 * catalog's serving factors exactly: the shipped values are the fit's. */
static void test_fit_reproduces_shipped(void **state)
{
    (void)state;
    dc_ruleset *rs = fresh_rules();
    struct dc_fit_value v[DC_CALIBRATION_FIT_PARAMS];
    size_t n = 0;
    double loss = NAN;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(dc_calibration_fit(rs, fixture, v, DC_CALIBRATION_FIT_PARAMS, &n, &loss, &err),
                     DC_OK);
    /* Every parameter, the batch-1 HBM efficiency where the rules state one. */
    bool batch1 = isfinite(rs->sizing.hbm_efficiency_batch1.value);
    assert_int_equal(n, DC_CALIBRATION_FIT_PARAMS - (batch1 ? 0 : 1));
    assert_true(isfinite(loss) && loss > 0);
    for (size_t i = 0; i < n; i++) {
        if (fabs(v[i].value - v[i].start) > 1e-9)
            fail_msg("%s: the fit gives %g, the rule set states %g", v[i].name, v[i].value,
                     v[i].start);
    }
    dc_ruleset_release(rs);
}

/* Moved off the fit, the fitter moves the parameter again and lands on a
 * fixed point: refitting from its answer gives the same values and loss. */
static void test_fit_moves_to_a_fixed_point(void **state)
{
    (void)state;
    dc_ruleset *rs = fresh_rules();
    rs->sizing.hbm_efficiency.value = 0.90;
    rs->sizing.tp_allreduce_us[DC_FAMILY_GPU] = 80;
    struct dc_fit_value a[DC_CALIBRATION_FIT_PARAMS], b[DC_CALIBRATION_FIT_PARAMS];
    size_t na = 0, nb = 0;
    double la = NAN, lb = NAN;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(dc_calibration_fit(rs, fixture, a, DC_CALIBRATION_FIT_PARAMS, &na, &la, &err),
                     DC_OK);
    assert_true(a[0].start == 0.90 && a[0].value < 0.90);
    assert_true(rs->sizing.hbm_efficiency.value == a[0].value); /* the set holds the fit */
    /* The GPU's all-reduce latency stands for the TPU's and the CPU's too. */
    assert_true(rs->sizing.tp_allreduce_us[DC_FAMILY_TPU] ==
                rs->sizing.tp_allreduce_us[DC_FAMILY_GPU]);
    assert_int_equal(dc_calibration_fit(rs, fixture, b, DC_CALIBRATION_FIT_PARAMS, &nb, &lb, &err),
                     DC_OK);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++)
        assert_true(a[i].value == b[i].value && b[i].start == b[i].value);
    assert_true(la == lb);
    dc_ruleset_release(rs);
}

/* The decode step's batch-1 HBM efficiency is fitted beside the large-batch
 * one where the rules state it (sizing.yaml hbm_efficiency_batch1), and only
 * there: moved off, the fit moves it back to a value on its grid. */
static void test_fit_batch1_efficiency(void **state)
{
    (void)state;
    dc_ruleset *rs = fresh_rules();
    rs->sizing.hbm_efficiency_batch1 = (struct dc_param){NAN, NULL};
    struct dc_fit_value v[DC_CALIBRATION_FIT_PARAMS];
    size_t n = 0;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(dc_calibration_fit(rs, fixture, v, DC_CALIBRATION_FIT_PARAMS, &n, NULL, &err),
                     DC_OK);
    assert_int_equal(n, DC_CALIBRATION_FIT_PARAMS - 1);
    for (size_t i = 0; i < n; i++)
        assert_string_not_equal(v[i].name, "hbm_efficiency_batch1");
    assert_true(isnan(rs->sizing.hbm_efficiency_batch1.value));
    dc_ruleset_release(rs);

    rs = fresh_rules();
    rs->sizing.hbm_efficiency_batch1 = (struct dc_param){0.31, "https://example.com/gemv"};
    assert_int_equal(dc_calibration_fit(rs, fixture, v, DC_CALIBRATION_FIT_PARAMS, &n, NULL, &err),
                     DC_OK);
    assert_int_equal(n, DC_CALIBRATION_FIT_PARAMS);
    bool seen = false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v[i].name, "hbm_efficiency_batch1") != 0)
            continue;
        seen = true;
        assert_true(v[i].start == 0.31 && v[i].value > 0.31);
        assert_true(rs->sizing.hbm_efficiency_batch1.value == v[i].value);
        double steps = (v[i].value - 0.30) / 0.01;
        assert_true(fabs(steps - round(steps)) < 1e-6);
    }
    assert_true(seen);
    dc_ruleset_release(rs);
}

static void test_fit_errors(void **state)
{
    (void)state;
    dc_ruleset *rs = fresh_rules();
    struct dc_fit_value v[DC_CALIBRATION_FIT_PARAMS];
    size_t n = 7;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(
        dc_calibration_fit(NULL, fixture, v, DC_CALIBRATION_FIT_PARAMS, &n, NULL, &err), DC_EINVAL);
    cJSON *obj = cJSON_CreateObject();
    assert_int_equal(dc_calibration_fit(rs, obj, v, DC_CALIBRATION_FIT_PARAMS, &n, NULL, &err),
                     DC_EINVAL);
    cJSON_Delete(obj);
    /* Too little room for the values: nothing fitted, the set unchanged. */
    double hbm = rs->sizing.hbm_efficiency.value;
    assert_int_equal(dc_calibration_fit(rs, fixture, v, 1, &n, NULL, &err), DC_ELIMIT);
    assert_true(rs->sizing.hbm_efficiency.value == hbm);
    /* A bad row is named as dc_calibration_eval names it. */
    cJSON *bad = cJSON_Parse("[{\"id\":\"X\",\"run\":\"r\",\"accelerator\":\"h100\","
                             "\"source\":\"https://example.org\",\"evidence\":\"e\","
                             "\"chips\":0}]");
    assert_non_null(bad);
    dc_error_clear(&err);
    assert_int_equal(dc_calibration_fit(rs, bad, v, DC_CALIBRATION_FIT_PARAMS, &n, NULL, &err),
                     DC_EINVAL);
    assert_string_equal(err.where, "/chips");
    cJSON_Delete(bad);
    dc_ruleset_release(rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_runs),
        cmocka_unit_test(test_coverage),
        cmocka_unit_test(test_split_rule),
        cmocka_unit_test(test_bands_are_the_fit_rows),
        cmocka_unit_test(test_bands_cover_held_out),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_bad_rows),
        cmocka_unit_test(test_fit_reproduces_shipped),
        cmocka_unit_test(test_fit_moves_to_a_fixed_point),
        cmocka_unit_test(test_fit_batch1_efficiency),
        cmocka_unit_test(test_fit_errors),
    };
    return cmocka_run_group_tests_name("calibration", tests, setup, teardown);
}
