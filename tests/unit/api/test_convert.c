/* tests/unit/api/test_convert.c -- api/src/convert.c: the JSON bodies of results,
 * the catalog and the rules, and the CLI table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/convert.h"
#include "mini_rules.h"

static dc_ruleset *rs;

static int setup(void **state)
{
    (void)state;
    return load3(catalog_ok, sizing_ok, rules_ok, &rs, NULL) == DC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    dc_ruleset_release(rs);
    return 0;
}

static struct dc_result *recommend(cJSON *w)
{
    struct dc_result *r = NULL;
    struct dc_recommend_opts o = {.request_id = "abc"};
    assert_int_equal(dc_recommend(rs, w, &o, &r, NULL), DC_OK);
    return r;
}

static void test_result_json(void **state)
{
    (void)state;
    cJSON *w = cJSON_Parse("{\"name\":\"t1\",\"task\":\"training\",\"precision\":\"fp64\","
                           "\"model\":{\"parameters\":7e9},\"training\":{\"tokens\":1e8}}");
    struct dc_result *r = recommend(w);
    cJSON *body = NULL;
    assert_int_equal(api_result_to_json(r, &body), DC_OK);
    assert_string_equal(cJSON_GetObjectItem(body, "request_id")->valuestring, "abc");
    assert_int_equal(strlen(cJSON_GetObjectItem(body, "rules_version")->valuestring), 64);
    const cJSON *wl = cJSON_GetObjectItem(body, "workload");
    assert_string_equal(cJSON_GetObjectItem(wl, "name")->valuestring, "t1");
    assert_string_equal(cJSON_GetObjectItem(wl, "framework")->valuestring, "pytorch");
    assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(wl, "training"), "tokens")->valuedouble ==
                1e8);
    assert_null(cJSON_GetObjectItem(wl, "inference"));
    const cJSON *fams = cJSON_GetObjectItem(body, "families");
    assert_int_equal(cJSON_GetArraySize(fams), DC_FAMILY_COUNT);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(fams, 0), "family")->valuestring,
                        "gpu");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(fams, 0), "best")->valuestring,
                        "gpu-a");
    const cJSON *rec = cJSON_GetArrayItem(cJSON_GetObjectItem(body, "recommendations"), 0);
    const cJSON *it = NULL;
    assert_string_equal(cJSON_GetObjectItem(rec, "accelerator")->valuestring, "gpu-a");
    const cJSON *sizing = cJSON_GetObjectItem(rec, "sizing");
    assert_int_equal(cJSON_GetObjectItem(sizing, "chips_for_memory")->valueint, 2);
    assert_int_equal(cJSON_GetObjectItem(sizing, "chips")->valueint,
                     r->recommendations[0].sizing.chips);
    /* How the selection placed it, and the frontier with the pick on it. */
    const cJSON *sel = cJSON_GetObjectItem(rec, "selection");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(sel, "meets_targets")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(sel, "priced")));
    assert_int_equal(cJSON_GetObjectItem(sel, "gates")->valueint, 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(sel, "breakeven_usd_per_chip_hour")));
    const cJSON *front = cJSON_GetObjectItem(body, "frontier");
    assert_string_equal(cJSON_GetObjectItem(front, "time_unit")->valuestring, "hours");
    assert_string_equal(cJSON_GetObjectItem(front, "cost_unit")->valuestring, "usd_per_run");
    bool pick = false;
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(front, "points"))
    {
        assert_true(cJSON_GetObjectItem(it, "cost_usd")->valuedouble > 0);
        pick = pick || cJSON_IsTrue(cJSON_GetObjectItem(it, "pick"));
    }
    assert_true(pick);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(sizing, "fits")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(rec, "availability")));
    const cJSON *price = cJSON_GetObjectItem(rec, "price");
    assert_string_equal(cJSON_GetObjectItem(price, "confidence")->valuestring, "high");
    const cJSON *reasons = cJSON_GetObjectItem(rec, "reasons");
    assert_true(cJSON_GetArraySize(reasons) >= 3);
    cJSON_ArrayForEach(it, reasons)
    {
        assert_true(cJSON_IsString(cJSON_GetObjectItem(it, "rule_id")));
        assert_true(cJSON_IsNumber(cJSON_GetObjectItem(it, "impact")));
        assert_true(strlen(cJSON_GetObjectItem(it, "message")->valuestring) > 5);
        assert_non_null(strstr(cJSON_GetObjectItem(it, "source")->valuestring, "https://"));
    }
    const cJSON *ex = cJSON_GetArrayItem(cJSON_GetObjectItem(body, "excluded"), 0);
    assert_string_equal(cJSON_GetObjectItem(ex, "accelerator")->valuestring, "tpu-b");
    assert_string_equal(cJSON_GetObjectItem(ex, "rule_id")->valuestring, "no-fp64-tpu");
    assert_true(cJSON_IsArray(cJSON_GetObjectItem(body, "warnings")));
    assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(body, "assumptions")) > 3);
    cJSON_Delete(body);
    dc_result_free(r);
    cJSON_Delete(w);
    assert_int_equal(api_result_to_json(NULL, &body), DC_EINVAL);
    assert_int_equal(api_result_to_json(NULL, NULL), DC_EINVAL);
}

static void test_catalog_json(void **state)
{
    (void)state;
    cJSON *body = NULL;
    assert_int_equal(api_catalog_to_json(rs, NULL, &body), DC_OK);
    const cJSON *list = cJSON_GetObjectItem(body, "accelerators");
    assert_int_equal(cJSON_GetArraySize(list), 2);
    const cJSON *a = cJSON_GetArrayItem(list, 0);
    assert_string_equal(cJSON_GetObjectItem(a, "id")->valuestring, "gpu-a");
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "pci"), "vendor")->valueint,
                     0x10de);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "peak_tflops"), "int4")));
    const cJSON *b = cJSON_GetArrayItem(list, 1);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(b, "pci")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(b, "price")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(b, "interconnect")));
    cJSON_Delete(body);
    struct api_catalog_filter f = {.family = "tpu"};
    assert_int_equal(api_catalog_to_json(rs, &f, &body), DC_OK);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(body, "accelerators")), 1);
    cJSON_Delete(body);
    f = (struct api_catalog_filter){.provider = "aws"};
    assert_int_equal(api_catalog_to_json(rs, &f, &body), DC_OK);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(body, "accelerators")), 1);
    cJSON_Delete(body);
    f = (struct api_catalog_filter){.provider = "on-prem", .vendor = "nvidia"};
    assert_int_equal(api_catalog_to_json(rs, &f, &body), DC_OK);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(body, "accelerators")), 1);
    cJSON_Delete(body);
    f = (struct api_catalog_filter){.provider = "nowhere"};
    assert_int_equal(api_catalog_to_json(rs, &f, &body), DC_OK);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(body, "accelerators")), 0);
    cJSON_Delete(body);
    assert_int_equal(api_catalog_to_json(NULL, NULL, &body), DC_EINVAL);
    assert_int_equal(api_accelerator_to_json(NULL, &body), DC_EINVAL);
}

static void test_rules_json(void **state)
{
    (void)state;
    cJSON *body = NULL;
    assert_int_equal(api_rules_to_json(rs, &body), DC_OK);
    assert_int_equal(cJSON_GetObjectItem(body, "count")->valueint, 2);
    const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItem(body, "rules"), 0);
    assert_string_equal(cJSON_GetObjectItem(r, "id")->valuestring, "no-fp64-tpu");
    assert_string_equal(cJSON_GetObjectItem(r, "file")->valuestring, "rules.yaml");
    assert_int_equal(cJSON_GetObjectItem(r, "line")->valueint, 2);
    assert_true(cJSON_IsObject(cJSON_GetObjectItem(r, "when")));
    assert_string_equal(cJSON_GetObjectItem(r, "fact")->valuestring, "F1.4");
    cJSON_Delete(body);
    assert_int_equal(api_rules_to_json(NULL, &body), DC_EINVAL);
}

static void test_table(void **state)
{
    (void)state;
    cJSON *w = cJSON_Parse("{\"task\":\"training\",\"framework\":\"jax\","
                           "\"model\":{\"parameters\":1e8}}");
    struct dc_result *r = recommend(w);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    api_result_print_table(r, fp, false);
    fclose(fp);
    assert_non_null(strstr(buf, "Target: minimizing cost and time"));
    assert_non_null(strstr(buf, "Considered accelerators (2)"));
    assert_non_null(strstr(buf, "\u2714"));
    /* tpu-b has no price, so priced gpu-a comes first whatever the rules say. */
    assert_non_null(strstr(buf, "Why gpu-a:"));
    assert_non_null(strstr(buf, "jax-likes-tpu"));
    assert_null(strstr(buf, "GB/CHIP"));
    /* Wide: the same rows with more columns, the chosen mark still last. */
    char *wide = NULL;
    fp = open_memstream(&wide, &len);
    api_result_print_table(r, fp, true);
    fclose(fp);
    const char *head = strstr(wide, "ID ");
    assert_non_null(head);
    assert_non_null(strstr(head, " RULES   OBJ REPL  GB/CHIP   TFLOPS   MFU    $/HOUR FITS AVAIL"
                                 "   CHOSEN\n"));
    const char *row = strstr(wide, "\ngpu-a ");
    const char *narrow = strstr(buf, "\ngpu-a ");
    assert_non_null(row);
    assert_non_null(narrow);
    const char *eol = strchr(row + 1, '\n');
    assert_true(eol - row > strchr(narrow + 1, '\n') - narrow);
    assert_memory_equal(eol - 3, "\u2714", 3);
    assert_non_null(strstr(wide, "Why gpu-a:"));
    free(wide);
    free(buf);
    dc_result_free(r);
    cJSON_Delete(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_result_json),
        cmocka_unit_test(test_catalog_json),
        cmocka_unit_test(test_rules_json),
        cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests_name("convert", tests, setup, teardown);
}
