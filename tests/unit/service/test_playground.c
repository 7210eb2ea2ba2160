/* tests/unit/service/test_playground.c -- service/src/playground.c: which paths
 * answer from a file table, content types, ETags, the examples document (bad
 * examples left out), a table without a page, and If-None-Match matching. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "playground.h"

#define FILE_OF(name, text)                                                                        \
    {                                                                                              \
        name, text, sizeof(text) - 1                                                               \
    }

static const struct aa_embedded_file table[] = {
    FILE_OF("rules/rules.yaml", "rules: []\n"),
    FILE_OF("web/index.html", "<!doctype html><title>t</title>"),
    FILE_OF("web/playground.js", "'use strict';"),
    FILE_OF("web/playground.css", "body{}"),
    FILE_OF("web/icon.svg", "<svg/>"),
    FILE_OF("web/notes.txt", "x"),
    FILE_OF("examples/b.json", "{\"task\":\"inference\",\"model\":{\"parameters\":1}}"),
    FILE_OF("examples/broken.json", "{\"task\":"),
    FILE_OF("examples/list.json", "[1,2]"),
    FILE_OF("examples/a.json", "{\"task\":\"training\",\"model\":{\"parameters\":2}}"),
    FILE_OF("examples/readme.txt", "{}"),
    {NULL, NULL, 0},
};

static void test_find(void **state)
{
    (void)state;
    svc_playground *p = svc_playground_new(table);
    assert_non_null(p);
    static const struct {
        const char *path;
        const char *type;
        const char *data;
    } want[] = {
        {"/", "text/html; charset=utf-8", "<!doctype html><title>t</title>"},
        {"/ui/playground.js", "text/javascript; charset=utf-8", "'use strict';"},
        {"/ui/playground.css", "text/css; charset=utf-8", "body{}"},
        {"/ui/icon.svg", "image/svg+xml", "<svg/>"},
        {"/ui/notes.txt", "application/octet-stream", "x"},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const struct svc_asset *a = svc_playground_find(p, want[i].path);
        assert_non_null(a);
        assert_string_equal(a->path, want[i].path);
        assert_string_equal(a->type, want[i].type);
        assert_int_equal(a->len, strlen(want[i].data));
        assert_memory_equal(a->data, want[i].data, a->len);
        assert_int_equal(strlen(a->etag), SVC_ETAG_SIZE - 1);
        assert_int_equal(a->etag[0], '"');
        assert_int_equal(a->etag[SVC_ETAG_SIZE - 2], '"');
    }
    /* Tags differ with the bytes. */
    assert_string_not_equal(svc_playground_find(p, "/ui/playground.js")->etag,
                            svc_playground_find(p, "/ui/playground.css")->etag);
    static const char *const none[] = {
        "/ui/index.html",   "/index.html",       "/web/index.html", "/ui/",
        "/ui/rules.yaml",   "/rules/rules.yaml", "/ui/b.json",      "",
        "/ui/PLAYGROUND.JS"};
    for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
        if (svc_playground_find(p, none[i]) != NULL)
            fail_msg("%s answers", none[i]);
    }
    assert_null(svc_playground_find(p, NULL));
    assert_null(svc_playground_find(NULL, "/"));
    svc_playground_free(p);
    svc_playground_free(NULL);
}

/* Every examples/NAME.json that is a JSON object, named, in table order. */
static void test_examples(void **state)
{
    (void)state;
    svc_playground *p = svc_playground_new(table);
    const struct svc_asset *a = svc_playground_find(p, "/ui/examples.json");
    assert_non_null(a);
    assert_string_equal(a->type, "application/json");
    cJSON *doc = cJSON_ParseWithLength(a->data, a->len);
    assert_non_null(doc);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "examples");
    assert_int_equal(cJSON_GetArraySize(list), 2);
    const cJSON *first = cJSON_GetArrayItem(list, 0), *second = cJSON_GetArrayItem(list, 1);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(first, "name")->valuestring, "b");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(second, "name")->valuestring, "a");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(second, "workload");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(w, "task")->valuestring, "training");
    cJSON_Delete(doc);
    svc_playground_free(p);
}

/* A binary built without web/ serves no page and no examples. */
static void test_no_page(void **state)
{
    (void)state;
    static const struct aa_embedded_file bare[] = {
        FILE_OF("examples/a.json", "{\"task\":\"training\"}"),
        {NULL, NULL, 0},
    };
    svc_playground *p = svc_playground_new(bare);
    assert_non_null(p);
    assert_null(svc_playground_find(p, "/"));
    assert_null(svc_playground_find(p, "/ui/examples.json"));
    svc_playground_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_no_page),
    };
    return cmocka_run_group_tests_name("service.playground", tests, NULL, NULL);
}
