/* tests/unit/core/test_calibration.c -- core/src/calibration.c: every published
 * run of tests/fixtures/calibration.json within 1.5x of the model (or explained
 * as an outlier), enough rows of each kind, and every error path. */
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

static int setup(void **state)
{
    (void)state;
    return dc_ruleset_load_embedded(aa_embedded_files, &rules, NULL) == DC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    dc_ruleset_release(rules);
    return 0;
}

static void test_published_runs(void **state)
{
    (void)state;
    char *text = test_read_file(AA_FIXTURES_DIR "/calibration.json", 1u << 20);
    assert_non_null(text);
    cJSON *rows = cJSON_Parse(text);
    free(text);
    assert_true(cJSON_IsArray(rows));
    size_t training = 0, inference = 0, outliers = 0, failures = 0;
    const cJSON *row = NULL;
    cJSON_ArrayForEach(row, rows)
    {
        struct dc_calibration_row r;
        struct dc_error err;
        dc_error_clear(&err);
        if (dc_calibration_eval(rules, row, &r, &err) != DC_OK)
            fail_msg("row: %s: %s", err.where, err.msg);
        assert_true(strncmp(r.source, "https://", 8) == 0);
        assert_true(strlen(r.evidence) > 10);
        const cJSON *w = cJSON_GetObjectItem(row, "workload");
        bool inf = strcmp(cJSON_GetObjectItem(w, "task")->valuestring, "inference") == 0;
        inf ? inference++ : training++;
        if (r.outlier != NULL) {
            outliers++;
            assert_true(strlen(r.outlier) > 40); /* an explanation, not a flag */
            continue;
        }
        if (!r.within) {
            print_error("%s (%s): ratio %.2f outside 1/%.1f..%.1f\n", r.id, r.run, r.ratio,
                        DC_CALIBRATION_LIMIT, DC_CALIBRATION_LIMIT);
            failures++;
        }
    }
    print_message("calibration: %zu training, %zu inference rows, %zu outliers\n", training,
                  inference, outliers);
    assert_true(training >= 10);
    assert_true(inference >= 4);
    assert_true(outliers * 5 <= training + inference); /* outliers stay the exception */
    assert_int_equal(failures, 0);
    cJSON_Delete(rows);
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

#define ROW(chips, measured, workload)                                                             \
    "{\"id\":\"X\",\"run\":\"r\",\"accelerator\":\"h100\",\"chips\":" chips                        \
    ",\"source\":\"https://example.com/\",\"evidence\":\"a quote\",\"measured\":" measured         \
    ",\"workload\":" workload "}"
#define TRAIN "{\"task\":\"training\",\"model\":{\"parameters\":1e9},\"training\":{\"tokens\":1e9}}"

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
    cJSON *ok = cJSON_Parse(ROW("8", "{\"hours\":1}", TRAIN));
    struct dc_calibration_row r;
    assert_int_equal(dc_calibration_eval(NULL, ok, &r, NULL), DC_EINVAL);
    assert_int_equal(dc_calibration_eval(rules, ok, NULL, NULL), DC_EINVAL);
    /* A good row: 6e18 FLOPs on 8 H100s, hours and the ratio against 1 h. */
    assert_int_equal(dc_calibration_eval(rules, ok, &r, NULL), DC_OK);
    assert_string_equal(r.unit, "h");
    assert_true(r.estimate > 0 && fabs(r.ratio - r.estimate) < 1e-12);
    cJSON_Delete(ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_runs),
        cmocka_unit_test(test_bad_rows),
    };
    return cmocka_run_group_tests_name("calibration", tests, setup, teardown);
}
