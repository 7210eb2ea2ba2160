/* tests/unit/core/test_calibration.c -- core/src/calibration.c against
 * tests/fixtures/calibration.json: every published run within 1.5x of the
 * model or explained as an outlier, held-out rows included; enough rows of
 * each kind; the split as its rule says; the bands sizing.yaml states are
 * what the fit rows give, and cover the held-out rows at about their nominal
 * 80%; and every error path. */
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
    };
    return cmocka_run_group_tests_name("calibration", tests, setup, teardown);
}
