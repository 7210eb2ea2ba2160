/* tests/unit/core/test_cases.c -- the decision table: every workload in
 * tests/fixtures/cases.json against the default rule set (rules/), each case
 * naming the fact that justifies its expected top family, exclusions and
 * warnings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dc/engine.h"
#include "read_file.h"

static dc_ruleset *rules;

/* "family:tpu" matches any accelerator of the family; otherwise an id. */
static bool matches(const struct dc_candidate *c, const char *want)
{
    if (strncmp(want, "family:", 7) == 0)
        return strcmp(dc_family_name(c->acc->family), want + 7) == 0;
    return strcmp(c->acc->id, want) == 0;
}

static bool is_excluded(const struct dc_result *r, const char *want)
{
    bool any = false;
    for (size_t i = 0; i < r->n_excluded; i++) {
        if (matches(&r->excluded[i], want))
            any = true;
    }
    /* For a family, every member must be excluded. */
    for (size_t i = 0; i < r->n_recommendations; i++) {
        if (matches(&r->recommendations[i], want))
            return false;
    }
    return any;
}

static int check_case(const cJSON *c)
{
    const char *name = cJSON_GetObjectItem(c, "name")->valuestring;
    const cJSON *fact = cJSON_GetObjectItem(c, "fact");
    const cJSON *expect = cJSON_GetObjectItem(c, "expect");
    struct dc_result *r = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    int failures = 0;
    if (dc_recommend(rules, cJSON_GetObjectItem(c, "workload"), NULL, &r, &err) != DC_OK) {
        print_error("case %s: recommend failed: %s %s\n", name, err.where, err.msg);
        return 1;
    }
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        print_error("case %s (%s): ", name, cJSON_IsString(fact) ? fact->valuestring : "?");      \
        print_error(__VA_ARGS__);                                                                  \
        failures++;                                                                                \
    } while (0)
    const cJSON *top = cJSON_GetObjectItem(expect, "top_family");
    if (cJSON_IsString(top)) {
        if (r->n_recommendations == 0)
            FAIL("expected top family %s, got no recommendation\n", top->valuestring);
        else if (strcmp(dc_family_name(r->recommendations[0].acc->family), top->valuestring) != 0)
            FAIL("expected top family %s, got %s (%s, score %d)\n", top->valuestring,
                 dc_family_name(r->recommendations[0].acc->family),
                 r->recommendations[0].acc->id, r->recommendations[0].score);
    }
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(expect, "excluded"))
    {
        if (!is_excluded(r, it->valuestring))
            FAIL("expected %s to be excluded\n", it->valuestring);
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(expect, "not_excluded"))
    {
        for (size_t i = 0; i < r->n_excluded; i++) {
            if (matches(&r->excluded[i], it->valuestring))
                FAIL("expected %s not to be excluded (by %s)\n", r->excluded[i].acc->id,
                     r->excluded[i].excluded_by->rule_id);
        }
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(expect, "warnings"))
    {
        bool found = false;
        for (size_t i = 0; i < r->n_warnings; i++)
            found = found || strcmp(r->warnings[i].code, it->valuestring) == 0;
        if (!found)
            FAIL("expected warning %s\n", it->valuestring);
    }
#undef FAIL
    dc_result_free(r);
    return failures;
}

static void test_decision_table(void **state)
{
    (void)state;
    char *text = test_read_file(AA_FIXTURES_DIR "/cases.json", 1u << 20);
    assert_non_null(text);
    cJSON *cases = cJSON_Parse(text);
    assert_true(cJSON_IsArray(cases));
    int n = cJSON_GetArraySize(cases);
    assert_true(n >= 25);
    int failed = 0;
    const cJSON *c = NULL;
    cJSON_ArrayForEach(c, cases)
    {
        assert_true(cJSON_IsString(cJSON_GetObjectItem(c, "name")));
        assert_true(cJSON_IsString(cJSON_GetObjectItem(c, "fact")));
        if (check_case(c) != 0)
            failed++;
    }
    print_message("decision table: %d passed, %d failed\n", n - failed, failed);
    cJSON_Delete(cases);
    free(text);
    assert_int_equal(failed, 0);
}

static int setup(void **state)
{
    (void)state;
    struct dc_diags d;
    dc_diags_init(&d);
    enum dc_status rc = dc_ruleset_load_dir(AA_SOURCE_DIR "/rules", &rules, &d);
    dc_diags_cleanup(&d);
    return rc == DC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    dc_ruleset_release(rules);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_decision_table)};
    return cmocka_run_group_tests_name("cases", tests, setup, teardown);
}
