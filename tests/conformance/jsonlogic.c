/* tests/conformance/jsonlogic.c -- runs JsonLogic's official tests.json
 * (AA_CONFORMANCE_DIR/jsonlogic/tests.json) through dc_logic: every
 * [rule, data, expected] entry is compiled, evaluated and compared deeply with
 * the expected result (numbers by value). String entries are section titles.
 * Prints each failure, then "jsonlogic: N passed, M failed"; exits non-zero
 * on any failure or if the suite cannot be read. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dc/logic.h"
#include "logic_q.h"
#include "read_file.h"

#ifndef AA_CONFORMANCE_DIR
#error "AA_CONFORMANCE_DIR must name the directory of the public suites"
#endif

#define SUITE_PATH AA_CONFORMANCE_DIR "/jsonlogic/tests.json"
/* tests.json is about 15 KB; anything far larger is not the suite. */
#define SUITE_MAX_BYTES (16u << 20)

static void print_failure(int index, const cJSON *rule, const cJSON *data, const char *what)
{
    char *r = cJSON_PrintUnformatted(rule);
    char *d = cJSON_PrintUnformatted(data);
    printf("FAIL #%d rule=%s data=%s: %s\n", index, r != NULL ? r : "?", d != NULL ? d : "?", what);
    cJSON_free(r);
    cJSON_free(d);
}

int main(void)
{
    char *text = test_read_file(SUITE_PATH, SUITE_MAX_BYTES);
    cJSON *suite = NULL;
    int passed = 0;
    int failed = 0;
    int index = 0;

    if (text == NULL) {
        fprintf(stderr, "jsonlogic: cannot read %s\n", SUITE_PATH);
        return 2;
    }
    suite = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsArray(suite)) {
        fprintf(stderr, "jsonlogic: %s is not a JSON array\n", SUITE_PATH);
        cJSON_Delete(suite);
        return 2;
    }
    for (const cJSON *t = suite->child; t != NULL; t = t->next) {
        if (cJSON_IsString(t))
            continue; /* a section title */
        index++;
        const cJSON *rule = cJSON_GetArrayItem(t, 0);
        const cJSON *data = cJSON_GetArrayItem(t, 1);
        const cJSON *expected = cJSON_GetArrayItem(t, 2);
        if (!cJSON_IsArray(t) || cJSON_GetArraySize(t) != 3) {
            print_failure(index, t, NULL, "malformed test entry");
            failed++;
            continue;
        }
        dc_logic *logic = NULL;
        cJSON *got = NULL;
        struct dc_error err;
        dc_error_clear(&err);
        enum dc_status rc = dc_logic_compile(rule, NULL, &logic, &err);
        if (rc == DC_OK)
            rc = dc_logic_eval(logic, data, &got, &err);
        if (rc != DC_OK) {
            char what[DC_ERROR_MSG_MAX + DC_ERROR_WHERE_MAX + 32];
            snprintf(what, sizeof(what), "%s at \"%s\": %s", dc_status_name(rc), err.where,
                     err.msg);
            print_failure(index, rule, data, what);
            failed++;
        } else if (!json_equal(got, expected)) {
            char *g = cJSON_PrintUnformatted(got);
            char *e = cJSON_PrintUnformatted(expected);
            char what[512];
            snprintf(what, sizeof(what), "got %s, expected %s", g != NULL ? g : "?",
                     e != NULL ? e : "?");
            print_failure(index, rule, data, what);
            cJSON_free(g);
            cJSON_free(e);
            failed++;
        } else {
            passed++;
        }
        cJSON_Delete(got);
        dc_logic_free(logic);
    }
    cJSON_Delete(suite);
    printf("jsonlogic: %d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
