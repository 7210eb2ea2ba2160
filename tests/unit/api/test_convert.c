/* tests/unit/api/test_convert.c -- api/src/convert.c: the JSON bodies of results,
 * the catalog and the rules, and the CLI table. */
#include <math.h>
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
#include "dc/engine.h"

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

/* Every candidate's cost_usd names its period (sizing.cost_unit), the frontier's:
 * the run for training, a month for serving, the job for a batch inference job. */
static void test_cost_unit(void **state)
{
    (void)state;
    static const struct {
        const char *workload, *unit;
    } cases[] = {
        {"{\"task\":\"training\",\"model\":{\"parameters\":7e9},\"training\":{\"tokens\":1e8}}",
         "usd_per_run"},
        {"{\"task\":\"inference\",\"model\":{\"parameters\":7e9},"
         "\"inference\":{\"requests_per_second\":2}}",
         "usd_per_month"},
        {"{\"task\":\"inference\",\"model\":{\"parameters\":7e9,\"layers\":32,"
         "\"hidden_size\":4096,\"attention_heads\":32,\"kv_heads\":8},\"inference\":{"
         "\"input_tokens\":500,\"output_tokens\":200,\"job\":{\"tokens\":7e8,"
         "\"deadline_hours\":10}}}",
         "usd_per_job"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *w = cJSON_Parse(cases[i].workload);
        assert_non_null(w);
        struct dc_result *r = recommend(w);
        cJSON *body = NULL;
        assert_int_equal(api_result_to_json(r, &body), DC_OK);
        const cJSON *recs = cJSON_GetObjectItem(body, "recommendations");
        assert_true(cJSON_GetArraySize(recs) > 0);
        const cJSON *it = NULL;
        cJSON_ArrayForEach(it, recs)
        {
            const cJSON *unit = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "sizing"), "cost_unit");
            assert_true(cJSON_IsString(unit));
            assert_string_equal(unit->valuestring, cases[i].unit);
        }
        assert_string_equal(
            cJSON_GetObjectItem(cJSON_GetObjectItem(body, "frontier"), "cost_unit")->valuestring,
            cases[i].unit);
        cJSON_Delete(body);
        dc_result_free(r);
        cJSON_Delete(w);
    }
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

static char *table_of(struct dc_result *r, bool wide)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    api_result_print_table(r, fp, wide);
    fclose(fp);
    return buf;
}

/* The line of `table` that starts with `prefix`, up to its end (owned), or NULL. */
static char *line_of(const char *table, const char *prefix)
{
    for (const char *p = table; p != NULL && *p != '\0';) {
        const char *eol = strchr(p, '\n');
        size_t n = eol != NULL ? (size_t)(eol - p) : strlen(p);
        if (strncmp(p, prefix, strlen(prefix)) == 0)
            return strndup(p, n);
        p = eol != NULL ? eol + 1 : NULL;
    }
    return NULL;
}

static void test_table(void **state)
{
    (void)state;
    cJSON *w = cJSON_Parse("{\"task\":\"training\",\"framework\":\"jax\","
                           "\"model\":{\"parameters\":1e8}}");
    struct dc_result *r = recommend(w);
    char *buf = table_of(r, false);
    assert_non_null(strstr(buf, "Target: minimizing cost and time"));
    assert_non_null(strstr(buf, "Considered accelerators (2), best first:"));
    /* -o table: the short columns; a training run has a run time and a price
     * per run, the period in the header; the bands, the price's date and
     * confidence are -o wide's. */
    char *head = line_of(buf, "   PART");
    assert_non_null(head);
    assert_non_null(strstr(head, "SHAPE  "));
    assert_non_null(strstr(head, "CHIPS  "));
    assert_non_null(strstr(head, "RUN TIME  "));
    assert_non_null(strstr(head, "  $/H  "));
    assert_non_null(strstr(head, "  $/RUN  TARGETS"));
    assert_non_null(strstr(head, "  SCORE"));
    assert_null(strstr(head, "P10"));
    assert_null(strstr(head, "PRICE AS OF"));
    assert_null(strstr(head, "GB/CHIP"));
    /* tpu-b has no price, so priced gpu-a comes first whatever the rules say;
     * short names, the target met. */
    char want_pick[64], want_tpu[64];
    /* The test catalog gives no short names: the ids stand in, as in shapes. */
    assert_null(r->recommendations[0].acc->short_name);
    snprintf(want_pick, sizeof(want_pick), "\u2714  %s ", r->recommendations[0].acc->id);
    snprintf(want_tpu, sizeof(want_tpu), "   %s ", r->recommendations[1].acc->id);
    char *pick = line_of(buf, want_pick);
    assert_non_null(pick);
    assert_null(strstr(pick, "/run"));
    assert_non_null(strstr(pick, "run_time \u2713"));
    char *tpu = line_of(buf, want_tpu);
    assert_non_null(tpu);
    assert_non_null(strstr(tpu, "unknown"));
    assert_non_null(strstr(buf, "Why Test GPU A:"));
    assert_non_null(strstr(buf, "jax-likes-tpu"));
    /* What the pick buys: its machines, and its fixed costs when estimated. */
    const struct dc_sizing *z = &r->recommendations[0].sizing;
    char want[64];
    snprintf(want, sizeof(want), "\nThe pick buys %u machine%s.\n", z->machines,
             z->machines == 1 ? "" : "s");
    assert_true(z->machines > 0);
    assert_non_null(strstr(buf, want));
    assert_true((strstr(buf, "\nFixed costs: ") != NULL) == isfinite(z->overheads.hours));
    /* Wide: every column, the full names, the period on every sum, the bands,
     * the price's date. */
    char *wide = table_of(r, true);
    char *whead = line_of(wide, "   PART");
    assert_non_null(whead);
    assert_non_null(strstr(whead, "RUN TIME  P10\u2013P90  "));
    assert_non_null(strstr(whead, "  TOTAL  P10\u2013P90  TARGETS"));
    assert_non_null(strstr(whead, "PRICE AS OF  CONFIDENCE  SCORE  ID"));
    assert_non_null(strstr(whead, "GB/CHIP  TFLOPS"));
    char *wpick = line_of(wide, "\u2714  Test GPU A");
    assert_non_null(wpick);
    assert_true(strlen(wpick) > strlen(pick));
    assert_non_null(strstr(wpick, "/run"));
    assert_non_null(strstr(wpick, "/h"));
    assert_non_null(strstr(wpick, "2024-12"));
    assert_non_null(strstr(wide, "Why Test GPU A:"));
    free(whead);
    free(wpick);
    free(wide);
    free(tpu);
    free(pick);
    free(head);
    free(buf);
    dc_result_free(r);
    cJSON_Delete(w);
}

/* Serving: latency and $/month, the targets a workload sets with a cross on
 * each one missed and a line saying why under the table. */
static void test_table_targets(void **state)
{
    (void)state;
    cJSON *w = cJSON_Parse("{\"task\":\"inference\",\"model\":{\"parameters\":7e9},"
                           "\"inference\":{\"requests_per_second\":100000,\"latency_ms_p99\":1},"
                           "\"constraints\":{\"max_accelerators\":8,\"budget_usd\":1e9}}");
    struct dc_result *r = recommend(w);
    char *buf = table_of(r, false);
    char *head = line_of(buf, "   PART");
    assert_non_null(head);
    assert_non_null(strstr(head, "LATENCY"));
    assert_non_null(strstr(head, "$/MONTH"));
    /* Nothing meets the targets: the status says so first, the table lists
     * the nearest first and ticks none (issue 27). */
    assert_true(strncmp(buf, "Status: no_configuration_meets_targets\nNo configuration ", 55) == 0);
    assert_non_null(strstr(buf, "), nearest to the targets first:\n"));
    assert_null(strstr(buf, "\u2714"));
    assert_null(strstr(buf, "\nWhy "));
    char want[64];
    snprintf(want, sizeof(want), "   %s ", r->recommendations[0].acc->id);
    char *pick = line_of(buf, want);
    assert_non_null(pick);
    assert_non_null(strstr(pick, "latency \u2717 rate \u2717 budget "));
    assert_non_null(strstr(buf, "\nTargets not met:\n"));
    assert_non_null(strstr(buf, ", rate: Serves about "));
    assert_non_null(strstr(buf, ", latency: Each output token takes about "));
    assert_null(strstr(buf, "The pick buys"));
    assert_null(strstr(buf, "Fixed costs:"));
    free(pick);
    free(head);
    free(buf);
    dc_result_free(r);
    cJSON_Delete(w);
}

/* A withheld estimate: no pick, the field to give first, every score 0. */
static void test_table_withheld(void **state)
{
    (void)state;
    cJSON *w = cJSON_Parse("{\"task\":\"training\",\"model\":{\"architecture\":\"cnn\","
                           "\"parameters\":2.5e7},\"training\":{\"samples\":1e7}}");
    struct dc_result *r = recommend(w);
    char *buf = table_of(r, false);
    assert_true(strncmp(buf, "Status: estimate_withheld\nNo pick: ", 35) == 0);
    assert_non_null(strstr(buf, "without model.flops_per_sample"));
    assert_non_null(strstr(
        buf, "Considered accelerators (2), in the rules' order, none ranked on time or cost:"));
    assert_null(strstr(buf, "\u2714"));
    char *row = line_of(buf, "   gpu-a ");
    assert_non_null(row);
    assert_non_null(strstr(row, "  0"));
    free(row);
    free(buf);
    /* The JSON says the same: status, message, the field, and no score. */
    size_t len = 0;
    char *json = api_result_render(r, &len);
    cJSON *doc = cJSON_Parse(json);
    assert_string_equal(cJSON_GetObjectItem(doc, "status")->valuestring, "estimate_withheld");
    assert_non_null(
        strstr(cJSON_GetObjectItem(doc, "status_message")->valuestring, "model.flops_per_sample"));
    const cJSON *m = cJSON_GetObjectItem(doc, "would_meet");
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(m, "fields"), 0)->valuestring,
                        "model.flops_per_sample");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(m, "chips")));
    const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "recommendations"), 0);
    assert_int_equal(cJSON_GetObjectItem(c, "score")->valueint, 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(c, "target_met")));
    cJSON_Delete(doc);
    free(json);
    dc_result_free(r);
    cJSON_Delete(w);
}

/* A rule set with a stated band: every figure of a result carries it, in the
 * JSON (the pooled training band of the mini set: t / 1.25 to t / 0.8) and in
 * the table's P10-P90 columns; a set without one states none (null, "-"). */
static void test_uncertainty(void **state)
{
    (void)state;
    static const char band[] = "  uncertainty:\n    training: {p10: 0.8, p90: 1.25, rows: 12}\n";
    char sizing[sizeof(sizing_ok) + sizeof(band)];
    const char *scoring = strstr(sizing_ok, "scoring:\n");
    assert_non_null(scoring);
    snprintf(sizing, sizeof(sizing), "%.*s%s%s", (int)(scoring - sizing_ok), sizing_ok, band,
             scoring);
    dc_ruleset *banded = NULL;
    assert_int_equal(load3(catalog_ok, sizing, rules_ok, &banded, NULL), DC_OK);
    cJSON *w = cJSON_Parse("{\"task\":\"training\",\"model\":{\"parameters\":1e8}}");
    struct dc_result *r = NULL;
    assert_int_equal(dc_recommend(banded, w, NULL, &r, NULL), DC_OK);
    const struct dc_sizing *z = &r->recommendations[0].sizing;
    assert_int_equal(z->uncertainty.regime, DC_REGIME_TRAINING); /* the pool stands in */
    assert_int_equal(z->uncertainty.rows, 12);
    assert_true(fabs(z->uncertainty.hours.p10 - z->hours / 1.25) < 1e-9 * z->hours);
    assert_true(fabs(z->uncertainty.hours.p90 - z->hours / 0.8) < 1e-9 * z->hours);
    assert_true(fabs(z->uncertainty.cost_usd.p90 - z->cost_usd / 0.8) < 1e-9 * z->cost_usd);
    assert_true(isnan(z->uncertainty.decode_ms.p10));
    cJSON *body = NULL;
    assert_int_equal(api_result_to_json(r, &body), DC_OK);
    const cJSON *u = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(body, "recommendations"), 0),
                            "sizing"),
        "uncertainty");
    assert_string_equal(cJSON_GetObjectItem(u, "regime")->valuestring, "training");
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(u, "hours"), "p90")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(u, "throughput_rps")));
    char *buf = table_of(r, true);
    char *pick = line_of(buf, "\u2714  Test GPU A");
    assert_non_null(pick);
    assert_non_null(strstr(pick, "\u2013")); /* "37.5 min\u201359 min" */
    free(pick);
    free(buf);
    cJSON_Delete(body);
    dc_result_free(r);
    /* The mini set states no band: nulls in the JSON, "-" in the table. */
    assert_int_equal(dc_recommend(rs, w, NULL, &r, NULL), DC_OK);
    assert_true(isnan(r->recommendations[0].sizing.uncertainty.hours.p10));
    assert_int_equal(r->recommendations[0].sizing.uncertainty.rows, 0);
    dc_result_free(r);
    cJSON_Delete(w);
    dc_ruleset_release(banded);
}

/* -o table at a width: no line wider than it but a word longer than a line;
 * the columns left out are named; --no-headers prints the rows alone. */
static void test_table_fits(void **state)
{
    (void)state;
    cJSON *w = cJSON_Parse("{\"task\":\"inference\",\"model\":{\"parameters\":7e9},"
                           "\"inference\":{\"requests_per_second\":100000,\"latency_ms_p99\":1},"
                           "\"constraints\":{\"max_accelerators\":8,\"budget_usd\":1e9}}");
    struct dc_result *r = recommend(w);
    static const size_t widths[] = {40, 60, 80};
    for (size_t k = 0; k < sizeof(widths) / sizeof(widths[0]); k++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *fp = open_memstream(&buf, &len);
        const struct api_table_opts o = {false, false, (unsigned)widths[k]};
        api_result_print_table_opts(r, fp, &o);
        fclose(fp);
        for (char *line = strtok(buf, "\n"); line != NULL; line = strtok(NULL, "\n")) {
            size_t chars = 0;
            bool spaced = false;
            for (const char *p = line; *p != '\0'; p++) {
                chars += ((unsigned char)*p & 0xC0u) != 0x80u;
                spaced = spaced || (*p == ' ' && p > line && p[-1] != ' ');
            }
            /* A line of one word (after its indent) may be longer. */
            if (chars > widths[k] && spaced)
                fail_msg("a line of %zu characters at %zu: %s", chars, widths[k], line);
        }
        free(buf);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    const struct api_table_opts narrow = {false, false, 40};
    api_result_print_table_opts(r, fp, &narrow);
    fclose(fp);
    assert_non_null(strstr(buf, "(Left out to fit 40 columns: $/H, CHIPS"));
    free(buf);
    fp = open_memstream(&buf, &len);
    const struct api_table_opts bare = {false, true, 0};
    api_result_print_table_opts(r, fp, &bare);
    fclose(fp);
    size_t lines = 0;
    for (const char *p = buf; *p != '\0'; p++)
        lines += *p == '\n';
    assert_int_equal(lines, r->n_recommendations);
    assert_null(strstr(buf, "PART"));
    assert_null(strstr(buf, "Target:"));
    free(buf);
    dc_result_free(r);
    cJSON_Delete(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_result_json),  cmocka_unit_test(test_cost_unit),
        cmocka_unit_test(test_catalog_json), cmocka_unit_test(test_rules_json),
        cmocka_unit_test(test_table),        cmocka_unit_test(test_table_targets),
        cmocka_unit_test(test_table_fits),   cmocka_unit_test(test_table_withheld),
        cmocka_unit_test(test_uncertainty),
    };
    return cmocka_run_group_tests_name("convert", tests, setup, teardown);
}
