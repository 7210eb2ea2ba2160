/* fuzz/fuzz_schema.c -- the JSON Schema validator (api/schema.h) with an
 * arbitrary schema and instance.
 *
 * Input: the schema's JSON, a newline, the instance's JSON (both parsed
 * strictly with api_json_parse; input that is not two JSON texts is of no
 * interest here). The schema's entry point is its root.
 *
 * Invariants (each aborts when broken):
 *  - compile returns DC_OK, DC_EPARSE or DC_ENOMEM (DC_EINVAL is for NULL
 *    arguments); a failure leaves no schema, has a message and a JSON Pointer
 *    into the schema document in err.where, designating the offending node or
 *    the object it is missing from;
 *  - validate returns DC_OK, DC_ELIMIT or DC_ENOMEM; on DC_OK valid == (count
 *    == 0), and every violation has a pointer ("" or starting with '/') that
 *    designates a node of the instance (or, for a missing member, its
 *    object), a keyword and a message;
 *  - validation is deterministic: a second run gives the same status and the
 *    same violations in the same order;
 *  - max_errors is honoured: with a limit of 1 the result has at most one
 *    violation, the same verdict, and says truncated exactly when the full run
 *    found more than one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/openapi.h"
#include "api/schema.h"
#include "fuzz_common.h"

static cJSON *parse_part(const uint8_t *data, size_t len);
static void check_pointers(const cJSON *instance, const struct api_schema_result *res);
static void check_same(const struct api_schema_result *a, const struct api_schema_result *b);

static cJSON *parse_part(const uint8_t *data, size_t len)
{
    char *text = fuzz_strndup(data, len);
    cJSON *j = NULL;
    if (api_json_parse(text, len, API_JSON_DEPTH_MAX, &j, NULL) != API_JSON_OK)
        j = NULL;
    free(text);
    return j;
}

static void check_pointers(const cJSON *instance, const struct api_schema_result *res)
{
    for (size_t i = 0; i < res->count; i++) {
        const struct api_schema_violation *v = &res->items[i];
        FUZZ_CHECK(fuzz_pointer_near(instance, v->pointer),
                   "violation %zu (%s: %s) at \"%s\", which is not in the instance", i, v->keyword,
                   v->message, v->pointer);
    }
}

static void check_same(const struct api_schema_result *a, const struct api_schema_result *b)
{
    FUZZ_CHECK(a->valid == b->valid && a->count == b->count && a->truncated == b->truncated,
               "validation not deterministic: valid %d/%d, %zu/%zu violations", (int)a->valid,
               (int)b->valid, a->count, b->count);
    for (size_t i = 0; i < a->count; i++) {
        const struct api_schema_violation *x = &a->items[i], *y = &b->items[i];
        FUZZ_CHECK(strcmp(x->pointer, y->pointer) == 0 && strcmp(x->keyword, y->keyword) == 0 &&
                       strcmp(x->message, y->message) == 0,
                   "validation not deterministic at violation %zu: %s %s %s / %s %s %s", i,
                   x->pointer, x->keyword, x->message, y->pointer, y->keyword, y->message);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    if (nl == NULL)
        return 0;
    size_t schema_len = (size_t)(nl - data);
    cJSON *schema_doc = parse_part(data, schema_len);
    cJSON *instance = NULL;
    api_schema *schema = NULL;
    struct api_schema_result r1 = {0}, r2 = {0}, r3 = {0};
    struct dc_error err;
    dc_error_clear(&err);
    if (schema_doc == NULL)
        goto out;
    instance = parse_part(nl + 1, size - schema_len - 1);
    if (instance == NULL)
        goto out;

    enum dc_status rc = api_schema_compile(schema_doc, "#", &schema, &err);
    FUZZ_CHECK(rc == DC_OK || rc == DC_EPARSE || rc == DC_ENOMEM,
               "compile: undocumented status %s (%s: %s)", dc_status_name(rc), err.where, err.msg);
    if (rc != DC_OK) {
        fuzz_check_compile_failure(rc, schema != NULL, &err, schema_doc, "schema");
        goto out;
    }
    FUZZ_CHECK(schema != NULL, "compile DC_OK without a schema");

    enum dc_status v1 = api_schema_validate(schema, instance, 0, &r1, &err);
    FUZZ_CHECK(v1 == DC_OK || v1 == DC_ELIMIT || v1 == DC_ENOMEM,
               "validate: undocumented status %s (%s)", dc_status_name(v1), err.msg);
    enum dc_status v2 = api_schema_validate(schema, instance, 0, &r2, &err);
    FUZZ_CHECK(v1 == v2, "validate not deterministic: %s then %s", dc_status_name(v1),
               dc_status_name(v2));
    if (v1 != DC_OK)
        goto out;
    fuzz_check_schema_result(&r1);
    check_pointers(instance, &r1);
    check_same(&r1, &r2);
    FUZZ_CHECK(r1.count <= API_SCHEMA_MAX_ERRORS_DEFAULT, "%zu violations, limit %d", r1.count,
               API_SCHEMA_MAX_ERRORS_DEFAULT);

    enum dc_status v3 = api_schema_validate(schema, instance, 1, &r3, &err);
    FUZZ_CHECK(v3 == DC_OK, "validate with max_errors 1: %s (%s)", dc_status_name(v3), err.msg);
    fuzz_check_schema_result(&r3);
    FUZZ_CHECK(r3.valid == r1.valid && r3.count <= 1,
               "max_errors 1: valid %d, %zu violations; unlimited: valid %d", (int)r3.valid,
               r3.count, (int)r1.valid);
    FUZZ_CHECK(r3.truncated == (r1.count > 1 || r1.truncated),
               "max_errors 1: truncated %d, but the full run found %zu (truncated %d)",
               (int)r3.truncated, r1.count, (int)r1.truncated);
out:
    api_schema_result_cleanup(&r1);
    api_schema_result_cleanup(&r2);
    api_schema_result_cleanup(&r3);
    api_schema_free(schema);
    cJSON_Delete(instance);
    cJSON_Delete(schema_doc);
    return 0;
}
