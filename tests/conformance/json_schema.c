/* tests/conformance/json_schema.c -- runs the official JSON-Schema-Test-Suite
 * (AA_CONFORMANCE_DIR/json-schema-test-suite/tests/draft2020-12/) through
 * api_schema: each group's schema is compiled with entry "#", each test's data
 * validated, and the verdict compared with the suite's "valid".
 *
 * Every case must pass except those in the exclusion table below, each with
 * its reason; exclusions name test groups (or single tests) by description,
 * and a whole file only where the whole file is about an unsupported keyword.
 * A schema that fails to compile fails all its tests unless excluded. An
 * exclusion that matches nothing is itself a failure, so the table cannot go
 * stale silently. Besides the verdict, every result is checked for internal
 * consistency (a valid result has no violations, an invalid one has at least
 * one, each with a pointer, keyword and message).
 *
 * Prints each failure, then "json-schema: N passed, M failed, K excluded";
 * exits non-zero on any failure or if a suite file cannot be read. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "api/schema.h"
#include "read_file.h"

#ifndef AA_CONFORMANCE_DIR
#error "AA_CONFORMANCE_DIR must name the directory of the public suites"
#endif

#define SUITE_DIR AA_CONFORMANCE_DIR "/json-schema-test-suite/tests/draft2020-12/"
/* The largest suite file is well under 1 MiB. */
#define SUITE_MAX_BYTES (16u << 20)

/* The files run: every keyword file of the required suite, and the optional
 * files whose subject this validator implements. Not run: optional/format/
 * (format is an annotation here, never an assertion), and
 * optional/format-assertion.json, optional/cross-draft.json and
 * optional/dependencies-compatibility.json (see docs/json-schema.md). */
static const char *const files[] = {
    "additionalProperties.json",
    "allOf.json",
    "anchor.json",
    "anyOf.json",
    "boolean_schema.json",
    "const.json",
    "contains.json",
    "content.json",
    "default.json",
    "defs.json",
    "dependentRequired.json",
    "dependentSchemas.json",
    "dynamicRef.json",
    "enum.json",
    "exclusiveMaximum.json",
    "exclusiveMinimum.json",
    "format.json",
    "if-then-else.json",
    "infinite-loop-detection.json",
    "items.json",
    "maxContains.json",
    "maxItems.json",
    "maxLength.json",
    "maxProperties.json",
    "maximum.json",
    "minContains.json",
    "minItems.json",
    "minLength.json",
    "minProperties.json",
    "minimum.json",
    "multipleOf.json",
    "not.json",
    "oneOf.json",
    "pattern.json",
    "patternProperties.json",
    "prefixItems.json",
    "properties.json",
    "propertyNames.json",
    "ref.json",
    "refRemote.json",
    "required.json",
    "type.json",
    "unevaluatedItems.json",
    "unevaluatedProperties.json",
    "uniqueItems.json",
    "vocabulary.json",
    "optional/anchor.json",
    "optional/bignum.json",
    "optional/dynamicRef.json",
    "optional/ecmascript-regex.json",
    "optional/float-overflow.json",
    "optional/id.json",
    "optional/no-schema.json",
    "optional/non-bmp-regex.json",
    "optional/refOfUnknownKeyword.json",
    "optional/unknownKeyword.json",
};

/* Reasons, shared by the entries below. */
#define R_REMOTE     "remote $ref: needs a document fetched from outside (not supported by design)"
#define R_METASCHEMA "$ref to the draft 2020-12 meta-schema, a remote document (not bundled)"
#define R_VOCAB      "$schema naming a custom meta-schema: vocabularies are not supported"

/* One exclusion: a whole file (group NULL), a group (test NULL) or one test. */
struct exclusion {
    const char *file;
    const char *group;
    const char *test;
    const char *reason;
    unsigned hits; /* tests it excluded in this run */
};

static struct exclusion exclusions[] = {
    {"vocabulary.json", NULL, NULL, R_VOCAB, 0},
    {"defs.json", "validate definition against metaschema", NULL, R_METASCHEMA, 0},
    {"dynamicRef.json", "strict-tree schema, guards against misspelled properties", NULL, R_REMOTE,
     0},
    {"dynamicRef.json", "tests for implementation dynamic anchor and reference link", NULL,
     R_REMOTE, 0},
    {"dynamicRef.json", "$ref and $dynamicAnchor are independent of order - $defs first", NULL,
     R_REMOTE, 0},
    {"dynamicRef.json", "$ref and $dynamicAnchor are independent of order - $ref first", NULL,
     R_REMOTE, 0},
    {"dynamicRef.json", "$ref to $dynamicRef finds detached $dynamicAnchor", NULL, R_REMOTE, 0},
    {"ref.json", "remote ref, containing refs itself", NULL, R_METASCHEMA, 0},
    {"refRemote.json", "remote ref", NULL, R_REMOTE, 0},
    {"refRemote.json", "fragment within remote ref", NULL, R_REMOTE, 0},
    {"refRemote.json", "anchor within remote ref", NULL, R_REMOTE, 0},
    {"refRemote.json", "ref within remote ref", NULL, R_REMOTE, 0},
    {"refRemote.json", "base URI change", NULL, R_REMOTE, 0},
    {"refRemote.json", "base URI change - change folder", NULL, R_REMOTE, 0},
    {"refRemote.json", "base URI change - change folder in subschema", NULL, R_REMOTE, 0},
    {"refRemote.json", "root ref in remote ref", NULL, R_REMOTE, 0},
    {"refRemote.json", "remote ref with ref to defs", NULL, R_REMOTE, 0},
    {"refRemote.json", "Location-independent identifier in remote ref", NULL, R_REMOTE, 0},
    {"refRemote.json", "retrieved nested refs resolve relative to their URI not $id", NULL,
     R_REMOTE, 0},
    {"refRemote.json", "remote HTTP ref with different $id", NULL, R_REMOTE, 0},
    {"refRemote.json", "remote HTTP ref with different URN $id", NULL, R_REMOTE, 0},
    {"refRemote.json", "remote HTTP ref with nested absolute ref", NULL, R_REMOTE, 0},
    {"refRemote.json", "$ref to $ref finds detached $anchor", NULL, R_REMOTE, 0},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct tally {
    unsigned passed;
    unsigned failed;
    unsigned excluded;
};

static struct exclusion *find_exclusion(const char *file, const char *group, const char *test)
{
    for (size_t i = 0; i < COUNT(exclusions); i++) {
        struct exclusion *e = &exclusions[i];
        if (strcmp(e->file, file) != 0)
            continue;
        if (e->group != NULL && strcmp(e->group, group) != 0)
            continue;
        if (e->test != NULL && strcmp(e->test, test) != 0)
            continue;
        return e;
    }
    return NULL;
}

static const char *desc(const cJSON *obj)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(obj, "description");
    return cJSON_IsString(d) ? d->valuestring : "(no description)";
}

/* A result must agree with itself: valid <=> no violations, and every
 * violation complete. Returns a complaint or NULL. */
static const char *inconsistent(const struct api_schema_result *res)
{
    if (res->valid && (res->count != 0 || res->truncated))
        return "valid result carries violations";
    if (!res->valid && res->count == 0)
        return "invalid result without any violation";
    for (size_t i = 0; i < res->count; i++) {
        const struct api_schema_violation *v = &res->items[i];
        if (v->pointer == NULL || v->keyword == NULL || v->message == NULL ||
            v->keyword[0] == '\0' || v->message[0] == '\0')
            return "incomplete violation";
        if (v->pointer[0] != '\0' && v->pointer[0] != '/')
            return "violation pointer is not a JSON Pointer";
    }
    return NULL;
}

static void run_group(const char *file, const cJSON *group, struct tally *t)
{
    const char *gdesc = desc(group);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(group, "schema");
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(group, "tests");
    api_schema *compiled = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    enum dc_status crc = api_schema_compile(schema, "#", &compiled, &err);

    const cJSON *test = NULL;
    cJSON_ArrayForEach(test, tests)
    {
        const char *tdesc = desc(test);
        struct exclusion *ex = find_exclusion(file, gdesc, tdesc);
        if (ex != NULL) {
            ex->hits++;
            t->excluded++;
            continue;
        }
        if (crc != DC_OK) {
            printf("FAIL %s | %s | %s: schema did not compile: %s at \"%s\": %s\n", file, gdesc,
                   tdesc, dc_status_name(crc), err.where, err.msg);
            t->failed++;
            continue;
        }
        const cJSON *data = cJSON_GetObjectItemCaseSensitive(test, "data");
        bool expect = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(test, "valid"));
        struct api_schema_result res;
        struct dc_error verr;
        dc_error_clear(&verr);
        enum dc_status vrc = api_schema_validate(compiled, data, 0, &res, &verr);
        const char *bad = NULL;
        if (vrc != DC_OK) {
            printf("FAIL %s | %s | %s: validation returned %s at \"%s\": %s\n", file, gdesc, tdesc,
                   dc_status_name(vrc), verr.where, verr.msg);
            t->failed++;
            continue;
        }
        bad = inconsistent(&res);
        if (res.valid != expect || bad != NULL) {
            printf("FAIL %s | %s | %s: expected %s, got %s%s%s\n", file, gdesc, tdesc,
                   expect ? "valid" : "invalid", res.valid ? "valid" : "invalid",
                   bad != NULL ? ": " : "", bad != NULL ? bad : "");
            for (size_t i = 0; i < res.count; i++)
                printf("     at \"%s\" [%s] %s\n", res.items[i].pointer, res.items[i].keyword,
                       res.items[i].message);
            t->failed++;
        } else {
            t->passed++;
        }
        api_schema_result_cleanup(&res);
    }
    api_schema_free(compiled);
}

static bool run_file(const char *file, struct tally *t)
{
    char path[512];
    snprintf(path, sizeof(path), "%s%s", SUITE_DIR, file);
    char *text = test_read_file(path, SUITE_MAX_BYTES);
    if (text == NULL) {
        printf("FAIL %s: cannot read %s\n", file, path);
        return false;
    }
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsArray(doc)) {
        printf("FAIL %s: not a JSON array of test groups\n", file);
        cJSON_Delete(doc);
        return false;
    }
    const cJSON *group = NULL;
    cJSON_ArrayForEach(group, doc)
    {
        run_group(file, group, t);
    }
    cJSON_Delete(doc);
    return true;
}

int main(void)
{
    struct tally t = {0, 0, 0};
    for (size_t i = 0; i < COUNT(files); i++) {
        if (!run_file(files[i], &t))
            t.failed++;
    }
    for (size_t i = 0; i < COUNT(exclusions); i++) {
        if (exclusions[i].hits == 0) {
            printf("FAIL stale exclusion: %s | %s | %s matched no test\n", exclusions[i].file,
                   exclusions[i].group != NULL ? exclusions[i].group : "*",
                   exclusions[i].test != NULL ? exclusions[i].test : "*");
            t.failed++;
        }
    }
    printf("json-schema: %u passed, %u failed, %u excluded\n", t.passed, t.failed, t.excluded);
    return t.failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
