/* tests/unit/api/test_problem.c -- api/src/problem.c: one title per problem
 * type (RFC 9457, section 3.1.3), whatever a caller passes, and the same pairs
 * in the contract's Problem schema. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/openapi.h"
#include "api/problem.h"
#include "dc/embedded.h"

static const char *const types[] = {
    API_PROBLEM_MALFORMED_JSON, API_PROBLEM_INVALID_UTF8,    API_PROBLEM_DUPLICATE_KEY,
    API_PROBLEM_TOO_DEEP,       API_PROBLEM_NUL_IN_STRING,   API_PROBLEM_VALIDATION,
    API_PROBLEM_BODY_TOO_LARGE, API_PROBLEM_BATCH_TOO_LARGE, API_PROBLEM_UNSUPPORTED_MEDIA_TYPE,
    API_PROBLEM_UNAUTHORIZED,   API_PROBLEM_NOT_READY,       API_PROBLEM_OVERLOADED,
    API_PROBLEM_PROBE_DISABLED, API_PROBLEM_FLEET_DISABLED,  API_PROBLEM_INTERNAL,
};
#define N_TYPES (sizeof(types) / sizeof(types[0]))

static const char *member(const cJSON *p, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A caller's title gives way to the type's; about:blank keeps the caller's or
 * the reason phrase. */
static void one_title(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_TYPES; i++)
        assert_non_null(api_problem_title(types[i]));
    assert_null(api_problem_title("no-such-type"));
    assert_null(api_problem_title(NULL));
    assert_string_equal(api_problem_title(API_PROBLEM_OVERLOADED), API_PROBLEM_OVERLOADED_TITLE);

    cJSON *p =
        api_problem_new(503, API_PROBLEM_OVERLOADED, "Too many connections", "at the limit", "id");
    assert_non_null(p);
    assert_string_equal(member(p, "title"), "The server is overloaded");
    assert_string_equal(member(p, "detail"), "at the limit");
    assert_string_equal(member(p, "type"), API_PROBLEM_TYPE_PREFIX "overloaded");
    cJSON_Delete(p);
    p = api_problem_new(404, NULL, NULL, "no such resource", NULL);
    assert_string_equal(member(p, "title"), "Not Found");
    assert_string_equal(member(p, "type"), "about:blank");
    assert_null(member(p, "request_id"));
    cJSON_Delete(p);
    p = api_problem_new(405, NULL, "Method Not Allowed here", NULL, NULL);
    assert_string_equal(member(p, "title"), "Method Not Allowed here");
    assert_null(member(p, "detail"));
    cJSON_Delete(p);
}

/* The contract's Problem schema pairs every type with the title the server
 * writes, and nothing else. */
static void contract_titles(void **state)
{
    (void)state;
    api_contract *c = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(api_contract_load_embedded(aa_embedded_files, &c, &err), DC_OK);
    const cJSON *rules = api_json_pointer_get(api_contract_root(c),
                                              "#/components/schemas/Problem/x-cross-field-rules");
    assert_true(cJSON_IsArray(rules));
    assert_int_equal(cJSON_GetArraySize(rules), N_TYPES);
    bool seen[N_TYPES] = {false};
    const cJSON *rule;
    cJSON_ArrayForEach(rule, rules)
    {
        const char *type =
            cJSON_GetStringValue(api_json_pointer_get(rule, "#/if/properties/type/const"));
        const char *title =
            cJSON_GetStringValue(api_json_pointer_get(rule, "#/then/properties/title/const"));
        assert_non_null(type);
        assert_non_null(title);
        assert_true(strncmp(type, API_PROBLEM_TYPE_PREFIX, strlen(API_PROBLEM_TYPE_PREFIX)) == 0);
        const char *name = type + strlen(API_PROBLEM_TYPE_PREFIX);
        size_t i = 0;
        while (i < N_TYPES && strcmp(types[i], name) != 0)
            i++;
        if (i == N_TYPES)
            fail_msg("the contract names a problem type the server does not have: %s", name);
        assert_false(seen[i]);
        seen[i] = true;
        assert_string_equal(title, api_problem_title(name));
    }
    api_contract_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_title),
        cmocka_unit_test(contract_titles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
