/* tests/unit/core/test_calibration_mlperf.c -- core/src/calibration/calibration_mlperf.c:
 * MLPerf Inference summaries into calibration rows. The fixture
 * tests/fixtures/mlperf/summary_v5.1_excerpt.json is seven results copied from
 * github.com/mlcommons/inference_results_v5.1's summary_results.json: SDXL
 * Offline and Server, Whisper Offline and RetinaNet Offline on Dell's 4 x L4,
 * Llama 2 70B Offline on AMD's 8 x MI300X, a Llama 2 70B result whose
 * weight_data_types is 'UNSET' (as published), and Dell's 8 x L40S Whisper
 * result with its Performance_Result altered to the text "9272.0", the
 * malformed entry. */
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
#include "default_rules.h"
#include "read_file.h"

static dc_ruleset *rs;

static int setup(void **state)
{
    return test_default_rules_setup(&rs, state);
}

static int teardown(void **state)
{
    return test_default_rules_teardown(state);
}

static cJSON *excerpt_of(const char *path)
{
    char *text = test_read_file(path, 1u << 20);
    assert_non_null(text);
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_true(cJSON_IsArray(j));
    return j;
}

static cJSON *excerpt(void)
{
    return excerpt_of(AA_FIXTURES_DIR "/mlperf/summary_v5.1_excerpt.json");
}

static const cJSON *field(const cJSON *o, const char *path)
{
    char key[64];
    const cJSON *at = o;
    while (at != NULL && *path != '\0') {
        size_t n = strcspn(path, "/");
        assert_true(n < sizeof(key));
        memcpy(key, path, n);
        key[n] = '\0';
        at = cJSON_GetObjectItemCaseSensitive(at, key);
        path += n + (path[n] == '/');
    }
    assert_non_null(at);
    return at;
}

/* Three Offline results become rows with their benchmark's workload; the
 * Server and RetinaNet results are skipped; the 'UNSET' precision and the
 * text Performance_Result are named by their JSON Pointers. */
static void test_import_excerpt(void **state)
{
    (void)state;
    cJSON *summary = excerpt(), *rows = cJSON_CreateArray(), *problems = cJSON_CreateArray();
    struct dc_mlperf_counts c;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(dc_calibration_import_mlperf(rs, summary, "M", rows, problems, &c, &err),
                     DC_OK);
    assert_int_equal(c.imported, 3);
    assert_int_equal(c.skipped, 2);
    assert_int_equal(c.malformed, 2);
    assert_int_equal(cJSON_GetArraySize(problems), 2);
    assert_string_equal(cJSON_GetArrayItem(problems, 0)->valuestring,
                        "/5/weight_data_types: no precision this importer knows");
    assert_string_equal(cJSON_GetArrayItem(problems, 1)->valuestring,
                        "/6/Performance_Result: missing or not a positive number");

    const cJSON *sdxl = cJSON_GetArrayItem(rows, 0), *whisper = cJSON_GetArrayItem(rows, 1),
                *llama = cJSON_GetArrayItem(rows, 2);
    assert_string_equal(field(sdxl, "id")->valuestring, "M1");
    assert_string_equal(field(sdxl, "accelerator")->valuestring, "l4");
    assert_int_equal(field(sdxl, "chips")->valueint, 4);
    /* The U-Net's precision out of "{'clip1': 'fp32', ..., 'unet': 'fp8', ...}". */
    assert_string_equal(field(sdxl, "workload/precision")->valuestring, "fp8");
    assert_int_equal(field(sdxl, "workload/model/denoising_steps")->valueint, 20);
    assert_int_equal(field(sdxl, "workload/model/guidance_passes")->valueint, 2);
    assert_true(field(sdxl, "measured/requests_per_second")->valuedouble == 1.00634);
    assert_string_equal(field(sdxl, "source")->valuestring,
                        "https://github.com/mlcommons/inference_results_v5.1");
    /* NVIDIA's harness counts words (63.459 a clip): the row is clips a second,
     * 1,397.01 / 63.459 (the log's "Samples per second: 22.0151"), of 76 tokens. */
    assert_null(cJSON_GetObjectItemCaseSensitive(field(whisper, "measured"), "tokens_per_second"));
    assert_true(fabs(field(whisper, "measured/requests_per_second")->valuedouble - 22.0145) < 1e-3);
    assert_int_equal(field(whisper, "workload/inference/output_tokens")->valueint, 76);
    assert_non_null(
        strstr(field(whisper, "evidence")->valuestring, "1397.01 Samples/s (/ 63.459 = 22.0144)"));
    /* MLPerf's harness loads 16 kHz samples before the timed run. */
    assert_true(cJSON_IsTrue(field(whisper, "workload/inference/audio_decoded")));
    assert_string_equal(field(whisper, "workload/precision")->valuestring, "fp16");
    assert_int_equal(field(whisper, "workload/inference/input_tokens")->valueint, 1500);
    /* Llama 2 70B's output length is the result's own TOKENS_PER_SAMPLE (301.1). */
    assert_string_equal(field(llama, "accelerator")->valuestring, "mi300x");
    assert_int_equal(field(llama, "workload/inference/output_tokens")->valueint, 301);
    assert_string_equal(field(llama, "workload/inference/kv_cache_precision")->valuestring, "fp8");

    /* Every imported row is a calibration row the model sizes. */
    const cJSON *row = NULL;
    cJSON_ArrayForEach(row, rows)
    {
        struct dc_calibration_row r;
        assert_int_equal(dc_calibration_eval(rs, row, &r, &err), DC_OK);
        assert_true(isfinite(r.ratio) && r.ratio > 0.5 && r.ratio < 2.0);
    }
    cJSON_Delete(summary);
    cJSON_Delete(rows);
    cJSON_Delete(problems);
}

/* Errors: a summary that is not an array, a bad prefix; an entry that is not
 * an object is reported, not fatal. */
static void test_import_errors(void **state)
{
    (void)state;
    cJSON *rows = cJSON_CreateArray(), *problems = cJSON_CreateArray();
    struct dc_mlperf_counts c;
    struct dc_error err;
    dc_error_clear(&err);
    cJSON *obj = cJSON_Parse("{\"Model\":\"whisper\"}");
    assert_int_equal(dc_calibration_import_mlperf(rs, obj, "M", rows, problems, &c, &err),
                     DC_EINVAL);
    cJSON *arr = cJSON_Parse("[3, {\"Model\":\"whisper\"}]");
    assert_int_equal(dc_calibration_import_mlperf(rs, arr, "m1", rows, problems, &c, &err),
                     DC_EINVAL);
    assert_non_null(strstr(err.msg, "capital letters"));
    assert_int_equal(dc_calibration_import_mlperf(rs, arr, "M", rows, problems, &c, &err), DC_OK);
    assert_int_equal(c.malformed, 2);
    assert_int_equal(c.imported, 0);
    assert_string_equal(cJSON_GetArrayItem(problems, 0)->valuestring,
                        "/0/: a result must be an object");
    assert_string_equal(cJSON_GetArrayItem(problems, 1)->valuestring,
                        "/1/Scenario: missing or not a string");
    assert_int_equal(dc_calibration_import_mlperf(NULL, arr, "M", rows, problems, &c, &err),
                     DC_EINVAL);
    cJSON_Delete(obj);
    cJSON_Delete(arr);
    cJSON_Delete(rows);
    cJSON_Delete(problems);
}

/* DLRMv2: tests/fixtures/mlperf/summary_v5.1_dlrm_excerpt.json holds Quanta's
 * 8 x H200-SXM dlrm-v2-99 Offline and Server results and ASUSTeK's 8 x H200-NVL
 * Offline one, copied from github.com/mlcommons/inference_results_v5.1's
 * summary_results.json, and the Offline one again with its Performance_Units
 * altered to "Queries/s". A sample becomes 270 requests (user-item pairs); the
 * Server result and the part the catalog does not list are skipped; the
 * altered units are named by their JSON Pointer. */
static void test_import_dlrm(void **state)
{
    (void)state;
    cJSON *summary = excerpt_of(AA_FIXTURES_DIR "/mlperf/summary_v5.1_dlrm_excerpt.json");
    cJSON *rows = cJSON_CreateArray(), *problems = cJSON_CreateArray();
    struct dc_mlperf_counts c;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(dc_calibration_import_mlperf(rs, summary, "R", rows, problems, &c, &err),
                     DC_OK);
    assert_int_equal(c.imported, 1);
    assert_int_equal(c.skipped, 2);
    assert_int_equal(c.malformed, 1);
    assert_string_equal(cJSON_GetArrayItem(problems, 0)->valuestring,
                        "/3/Performance_Units: missing or not \"Samples/s\", the units this "
                        "importer reads dlrm-v2-99 in");
    const cJSON *dlrm = cJSON_GetArrayItem(rows, 0);
    assert_string_equal(field(dlrm, "id")->valuestring, "R1");
    assert_string_equal(field(dlrm, "accelerator")->valuestring, "h200");
    assert_int_equal(field(dlrm, "chips")->valueint, 8);
    assert_string_equal(field(dlrm, "workload/model/name")->valuestring, "dlrm-dcnv2");
    assert_string_equal(field(dlrm, "workload/precision")->valuestring, "int8");
    assert_true(field(dlrm, "measured/requests_per_second")->valuedouble == 647861.0 * 270);
    assert_non_null(strstr(field(dlrm, "evidence")->valuestring, "647861 Samples/s (x 270"));
    struct dc_calibration_row r;
    assert_int_equal(dc_calibration_eval(rs, dlrm, &r, &err), DC_OK);
    assert_true(isfinite(r.ratio) && r.ratio > 0.5 && r.ratio < 2.0);
    cJSON_Delete(summary);
    cJSON_Delete(rows);
    cJSON_Delete(problems);
}

/* The rule's split for rows given another way follows their run. */
static void test_rule_split_follows_runs(void **state)
{
    (void)state;
    cJSON *summary = excerpt(), *rows = cJSON_CreateArray(), *problems = cJSON_CreateArray();
    struct dc_mlperf_counts c;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(dc_calibration_import_mlperf(rs, summary, "M", rows, problems, &c, &err),
                     DC_OK);
    struct dc_calibration_row r[3];
    bool held[3];
    for (int i = 0; i < 3; i++)
        assert_int_equal(dc_calibration_eval(rs, cJSON_GetArrayItem(rows, i), &r[i], &err), DC_OK);
    assert_int_equal(dc_calibration_rule_split(r, 3, held, &err), DC_OK);
    /* Three serving GPU rows: the first by hash of each serving kind among them is held
     * out, the others fit. */
    int kinds = 1 + (r[1].regime != r[0].regime) +
                (r[2].regime != r[0].regime && r[2].regime != r[1].regime);
    assert_true(kinds < 3); /* two rows of one kind: one of them must fit */
    assert_int_equal((int)held[0] + (int)held[1] + (int)held[2], kinds);
    r[2].variant_of = r[0].id;
    assert_int_equal(dc_calibration_rule_split(r, 3, held, &err), DC_OK);
    assert_true(held[2] == held[0]);
    cJSON_Delete(summary);
    cJSON_Delete(rows);
    cJSON_Delete(problems);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_import_excerpt),
        cmocka_unit_test(test_import_errors),
        cmocka_unit_test(test_import_dlrm),
        cmocka_unit_test(test_rule_split_follows_runs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
