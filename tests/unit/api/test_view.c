/* tests/unit/api/test_view.c -- api_result_render_view (api/convert.h): the
 * summary view, `candidates` and `frontier`, each body checked against its
 * schema in openapi.yaml (RecommendationSummary, Recommendation) for every
 * tenth workload of the decision table, and the default view equal to the
 * full body byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/convert.h"
#include "api/openapi.h"
#include "api/schema.h"
#include "dc/embedded.h"
#include "dc/engine.h"

struct fixture {
    api_contract *contract;
    dc_ruleset *rs;
    api_schema *full, *summary;
    cJSON *cases;
};

static cJSON *read_cases(void)
{
    FILE *f = fopen(AA_FIXTURES_DIR "/cases.json", "rb");
    if (f == NULL)
        return NULL;
    static char buf[8u << 20];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return cJSON_Parse(buf);
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    struct dc_error err;
    dc_error_clear(&err);
    if (f == NULL || api_contract_load_embedded(aa_embedded_files, &f->contract, &err) != DC_OK ||
        dc_ruleset_load_embedded(aa_embedded_files, &f->rs, NULL) != DC_OK ||
        api_schema_compile(api_contract_root(f->contract), "#/components/schemas/Recommendation",
                           &f->full, &err) != DC_OK ||
        api_schema_compile(api_contract_root(f->contract),
                           "#/components/schemas/RecommendationSummary", &f->summary,
                           &err) != DC_OK ||
        (f->cases = read_cases()) == NULL) {
        fprintf(stderr, "setup: %s\n", err.msg);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    cJSON_Delete(f->cases);
    api_schema_free(f->full);
    api_schema_free(f->summary);
    dc_ruleset_release(f->rs);
    api_contract_free(f->contract);
    free(f);
    return 0;
}

/* The body `v` asks for, parsed, after checking it against `schema`. */
static cJSON *render_valid(const struct dc_result *res, const struct api_view *v,
                           const api_schema *schema, size_t *len)
{
    char *text = api_result_render_view(res, NULL, v, len);
    assert_non_null(text);
    cJSON *body = cJSON_Parse(text);
    assert_non_null(body);
    struct api_schema_result vr = {0};
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(api_schema_validate(schema, body, 8, &vr, &err), DC_OK);
    if (!vr.valid)
        fail_msg("%s: %s", vr.items[0].pointer, vr.items[0].message);
    api_schema_result_cleanup(&vr);
    free(text);
    return body;
}

static struct dc_result *recommend(const struct fixture *f, const cJSON *w)
{
    struct dc_recommend_opts o = {.request_id = "view"};
    struct dc_result *res = NULL;
    assert_int_equal(dc_recommend(f->rs, w, &o, &res, NULL), DC_OK);
    return res;
}

static void test_default_is_full(void **state)
{
    struct fixture *f = *state;
    const cJSON *w = cJSON_GetObjectItem(cJSON_GetArrayItem(f->cases, 0), "workload");
    struct dc_result *res = recommend(f, w);
    static const struct api_view all = {false, 0, API_FRONTIER_DEFAULT};
    static const struct api_view on = {false, 0, API_FRONTIER_ON};
    size_t a = 0, b = 0, c = 0;
    char *full = api_result_render(res, &a);
    char *viewed = api_result_render_view(res, NULL, &all, &b);
    char *with_frontier = api_result_render_view(res, NULL, &on, &c);
    assert_int_equal(a, b);
    assert_memory_equal(full, viewed, a);
    assert_int_equal(a, c);
    assert_memory_equal(full, with_frontier, a);
    free(full);
    free(viewed);
    free(with_frontier);
    dc_result_free(res);
}

static void test_views_of_the_table(void **state)
{
    struct fixture *f = *state;
    static const struct api_view summary = {true, 0, API_FRONTIER_DEFAULT};
    static const struct api_view summary_frontier = {true, 0, API_FRONTIER_ON};
    static const struct api_view top1 = {false, 1, API_FRONTIER_OFF};
    int i = 0, checked = 0;
    const cJSON *c = NULL;
    cJSON_ArrayForEach(c, f->cases)
    {
        if (i++ % 10 != 0)
            continue;
        struct dc_result *res = recommend(f, cJSON_GetObjectItem(c, "workload"));
        size_t full_len = 0, sum_len = 0, len = 0;
        cJSON *full = render_valid(res, NULL, f->full, &full_len);
        cJSON *sum = render_valid(res, &summary, f->summary, &sum_len);
        /* The summary: the same answer, the table's columns, no frontier. */
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(sum, "view")), "summary");
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(sum, "status")),
                            cJSON_GetStringValue(cJSON_GetObjectItem(full, "status")));
        assert_null(cJSON_GetObjectItem(sum, "frontier"));
        assert_null(cJSON_GetObjectItem(sum, "workload"));
        const cJSON *fr = cJSON_GetObjectItem(full, "recommendations");
        const cJSON *sr = cJSON_GetObjectItem(sum, "recommendations");
        assert_int_equal(cJSON_GetArraySize(sr), cJSON_GetArraySize(fr));
        for (int k = 0; k < cJSON_GetArraySize(sr); k++) {
            const cJSON *a = cJSON_GetArrayItem(fr, k), *b = cJSON_GetArrayItem(sr, k);
            assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(a, "accelerator")),
                                cJSON_GetStringValue(cJSON_GetObjectItem(b, "accelerator")));
            assert_true(cJSON_Compare(cJSON_GetObjectItem(a, "targets"),
                                      cJSON_GetObjectItem(b, "targets"), true));
            const cJSON *az = cJSON_GetObjectItem(a, "sizing");
            const cJSON *bz = cJSON_GetObjectItem(b, "sizing");
            for (const cJSON *m = bz->child; m != NULL; m = m->next)
                assert_true(cJSON_Compare(m, cJSON_GetObjectItem(az, m->string), true));
            assert_null(cJSON_GetObjectItem(b, "reasons"));
        }
        if (cJSON_GetArraySize(fr) > 2)
            assert_true(sum_len * 3 < full_len);
        cJSON_Delete(sum);
        /* With the frontier asked for: the full body's. */
        sum = render_valid(res, &summary_frontier, f->summary, &len);
        assert_true(cJSON_Compare(cJSON_GetObjectItem(sum, "frontier"),
                                  cJSON_GetObjectItem(full, "frontier"), true));
        cJSON_Delete(sum);
        /* One candidate, no frontier, still a Recommendation. */
        cJSON *one = render_valid(res, &top1, f->full, &len);
        assert_null(cJSON_GetObjectItem(one, "frontier"));
        const cJSON *top = cJSON_GetObjectItem(one, "recommendations");
        assert_int_equal(cJSON_GetArraySize(top), cJSON_GetArraySize(fr) > 0 ? 1 : 0);
        if (cJSON_GetArraySize(fr) > 0)
            assert_true(cJSON_Compare(cJSON_GetArrayItem(top, 0), cJSON_GetArrayItem(fr, 0), true));
        cJSON_Delete(one);
        cJSON_Delete(full);
        dc_result_free(res);
        checked++;
    }
    assert_true(checked >= 20);
}

/* The full body never matches the summary's schema, nor the summary the full
 * one's: the contract's oneOf tells them apart. */
static void test_views_are_distinct(void **state)
{
    struct fixture *f = *state;
    const cJSON *w = cJSON_GetObjectItem(cJSON_GetArrayItem(f->cases, 1), "workload");
    struct dc_result *res = recommend(f, w);
    static const struct api_view summary = {true, 0, API_FRONTIER_DEFAULT};
    size_t len = 0;
    cJSON *full = render_valid(res, NULL, f->full, &len);
    cJSON *sum = render_valid(res, &summary, f->summary, &len);
    struct api_schema_result vr = {0};
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(api_schema_validate(f->summary, full, 8, &vr, &err), DC_OK);
    assert_false(vr.valid);
    api_schema_result_cleanup(&vr);
    assert_int_equal(api_schema_validate(f->full, sum, 8, &vr, &err), DC_OK);
    assert_false(vr.valid);
    api_schema_result_cleanup(&vr);
    cJSON_Delete(full);
    cJSON_Delete(sum);
    dc_result_free(res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_is_full),
        cmocka_unit_test(test_views_of_the_table),
        cmocka_unit_test(test_views_are_distinct),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
