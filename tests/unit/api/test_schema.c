/* tests/unit/api/test_schema.c -- api/src/schema*.c: argument and compile
 * errors, violation pointers/keywords/messages on an OpenAPI-like document,
 * max_errors truncation, the $ref recursion limit, the regex dialect, URI
 * resolution, every allocation failing in turn, and two threads sharing one
 * compiled schema. (The public JSON-Schema-Test-Suite runs in
 * tests/conformance/json_schema.c.)
 *
 * The schema sources are compiled into this test with API_SCH_TEST_ALLOC, so
 * their allocations are counted in the counter below (core's dc__alloc_counter)
 * and any one of them can be made to fail; the library's copy of them is not
 * linked. */
#define API_SCH_TEST_ALLOC 1
#include "schema_compile.c"
#include "schema_json.c"
#include "schema_keywords.c"
#include "schema_regex.c"
#include "schema_unicode.c"
#include "schema_uri.c"
#include "schema_validate.c"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* ---- Fault injection ------------------------------------------------------- */

/* Per thread, so the threaded test is unaffected: the schema files count every
 * allocation here (SCH_ALLOC_COUNTER), and fail the fail_at-th (1-based; 0: none). */
static _Thread_local struct dc__alloc_counter sch_counter;

struct dc__alloc_counter *api__sch_test_counter(void)
{
    return &sch_counter;
}

/* ---- Helpers --------------------------------------------------------------- */

/* JSON written with single quotes, for readability; none of the texts here
 * needs a literal apostrophe. */
static cJSON *json(const char *text)
{
    char *buf = strdup(text);
    assert_non_null(buf);
    for (char *p = buf; *p != '\0'; p++) {
        if (*p == '\'')
            *p = '"';
    }
    cJSON *v = cJSON_Parse(buf);
    if (v == NULL)
        fail_msg("bad test JSON: %s", text);
    free(buf);
    return v;
}

static api_schema *compile_ok(const cJSON *root, const char *entry)
{
    api_schema *s = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    enum dc_status rc = api_schema_compile(root, entry, &s, &err);
    if (rc != DC_OK)
        fail_msg("compile failed: %s at \"%s\": %s", dc_status_name(rc), err.where, err.msg);
    return s;
}

/* Compile `schema_text` and expect failure `code` at `where` with a message
 * containing `msg_part`. */
static void expect_compile_error(const char *schema_text, const char *entry, enum dc_status code,
                                 const char *where, const char *msg_part)
{
    cJSON *root = json(schema_text);
    api_schema *s = (api_schema *)1;
    struct dc_error err;
    dc_error_clear(&err);
    enum dc_status rc = api_schema_compile(root, entry, &s, &err);
    if (rc != code)
        fail_msg("%s: expected %s, got %s (%s at \"%s\")", schema_text, dc_status_name(code),
                 dc_status_name(rc), err.msg, err.where);
    assert_null(s);
    assert_int_equal(err.code, code);
    if (where != NULL && strcmp(err.where, where) != 0)
        fail_msg("%s: error at \"%s\", expected \"%s\" (%s)", schema_text, err.where, where,
                 err.msg);
    if (strstr(err.msg, msg_part) == NULL)
        fail_msg("%s: message \"%s\" lacks \"%s\"", schema_text, err.msg, msg_part);
    cJSON_Delete(root);
}

struct expected {
    const char *pointer;
    const char *keyword;
    const char *message;
};

static void expect_violations(const api_schema *s, const char *instance_text, size_t max_errors,
                              const struct expected *want, size_t nwant, bool truncated)
{
    cJSON *inst = json(instance_text);
    struct api_schema_result res;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(api_schema_validate(s, inst, max_errors, &res, &err), DC_OK);
    bool mismatch = res.count != nwant || res.truncated != truncated || res.valid != (nwant == 0);
    for (size_t i = 0; i < nwant && !mismatch; i++) {
        mismatch = strcmp(res.items[i].pointer, want[i].pointer) != 0 ||
                   strcmp(res.items[i].keyword, want[i].keyword) != 0 ||
                   strcmp(res.items[i].message, want[i].message) != 0;
    }
    if (mismatch) {
        print_error("instance %s: got %zu violation(s)%s:\n", instance_text, res.count,
                    res.truncated ? " (truncated)" : "");
        for (size_t i = 0; i < res.count; i++)
            print_error("  {\"%s\", \"%s\", \"%s\"}\n", res.items[i].pointer, res.items[i].keyword,
                        res.items[i].message);
        print_error("expected %zu%s:\n", nwant, truncated ? " (truncated)" : "");
        for (size_t i = 0; i < nwant; i++)
            print_error("  {\"%s\", \"%s\", \"%s\"}\n", want[i].pointer, want[i].keyword,
                        want[i].message);
        fail();
    }
    api_schema_result_cleanup(&res);
    cJSON_Delete(inst);
}

static bool is_valid(const api_schema *s, const char *instance_text)
{
    cJSON *inst = json(instance_text);
    struct api_schema_result res;
    assert_int_equal(api_schema_validate(s, inst, 0, &res, NULL), DC_OK);
    bool valid = res.valid;
    assert_true(valid == (res.count == 0));
    api_schema_result_cleanup(&res);
    cJSON_Delete(inst);
    return valid;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* An OpenAPI 3.1 document in the shape of openapi.yaml: the request schema
 * under components/schemas, with nested objects, $refs, enums,
 * additionalProperties: false and arrays with uniqueItems. */
static const char openapi_doc[] =
    "{'openapi': '3.1.0', 'info': {'title': 't', 'version': '1'},"
    " 'paths': {},"
    " 'components': {'schemas': {"
    "  'Workload': {'type': 'object', 'additionalProperties': false,"
    "   'required': ['task', 'model'],"
    "   'properties': {"
    "    'name': {'type': 'string', 'minLength': 1, 'maxLength': 8},"
    "    'task': {'type': 'string', 'enum': ['training', 'fine-tuning', 'inference']},"
    "    'model': {'$ref': '#/components/schemas/Model'},"
    "    'precision': {'type': 'string', 'enum': ['fp32', 'bf16', 'fp8'], 'default': 'bf16'},"
    "    'constraints': {'$ref': '#/components/schemas/Constraints'},"
    "    'tags': {'type': 'object', 'propertyNames': {'pattern': '^[a-z][a-z0-9_]*$'},"
    "             'additionalProperties': {'type': 'string'}},"
    "    'objective': {'type': 'string', 'enum': ['cost', 'time', 'balanced']},"
    "    'prefer_available': {'type': 'boolean'}}},"
    "  'Model': {'type': 'object', 'additionalProperties': false, 'required': ['parameters'],"
    "   'properties': {"
    "    'architecture': {'type': 'string', 'enum': ['transformer', 'cnn', 'moe']},"
    "    'parameters': {'type': 'number', 'exclusiveMinimum': 0, 'maximum': 1e15},"
    "    'layers': {'type': 'integer', 'minimum': 1, 'maximum': 10000},"
    "    'dropout': {'type': 'number', 'minimum': 0, 'maximum': 1, 'multipleOf': 0.01}}},"
    "  'Constraints': {'type': 'object', 'additionalProperties': false,"
    "   'dependentRequired': {'budget_usd': ['deployment']},"
    "   'properties': {"
    "    'deployment': {'type': 'string', 'enum': ['cloud', 'on-prem', 'hybrid']},"
    "    'providers': {'type': 'array', 'maxItems': 3, 'uniqueItems': true,"
    "                  'items': {'$ref': '#/components/schemas/Provider'}},"
    "    'budget_usd': {'anyOf': [{'type': 'number', 'exclusiveMinimum': 0},"
    "                             {'type': 'null'}]},"
    "    'max_accelerators': {'type': 'integer', 'minimum': 1}}},"
    "  'Provider': {'type': 'string', 'enum': ['aws', 'gcp', 'azure', 'oci']}"
    " }}}";

/* ---- Argument errors ------------------------------------------------------- */

static void test_null_arguments(void **state)
{
    (void)state;
    cJSON *root = json("{'type': 'string'}");
    api_schema *s = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(api_schema_compile(NULL, "#", &s, &err), DC_EINVAL);
    assert_null(s);
    assert_non_null(strstr(err.msg, "root"));
    assert_int_equal(api_schema_compile(root, NULL, &s, &err), DC_EINVAL);
    assert_null(s);
    assert_int_equal(api_schema_compile(root, "#", NULL, &err), DC_EINVAL);
    assert_int_equal(api_schema_compile(root, "#", &s, NULL), DC_OK); /* err is optional */

    struct api_schema_result res;
    memset(&res, 0xA5, sizeof(res));
    assert_int_equal(api_schema_validate(NULL, root, 0, &res, &err), DC_EINVAL);
    assert_false(res.valid);
    assert_int_equal(res.count, 0);
    assert_null(res.items);
    assert_int_equal(api_schema_validate(s, NULL, 0, &res, &err), DC_EINVAL);
    assert_int_equal(api_schema_validate(s, root, 0, NULL, &err), DC_EINVAL);
    assert_int_equal(api_schema_validate(s, root, 0, &res, NULL), DC_OK);
    assert_false(res.valid); /* the instance {"type":"string"} is not a string */
    api_schema_result_cleanup(&res);
    api_schema_result_cleanup(&res); /* cleaned twice: harmless */
    api_schema_result_cleanup(NULL);
    api_schema_free(NULL);
    api_schema_free(s);
    cJSON_Delete(root);
}

static void test_entry_pointer(void **state)
{
    (void)state;
    cJSON *doc = json(openapi_doc);
    api_schema *s = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_equal(api_schema_compile(doc, "components/schemas/Workload", &s, &err), DC_EINVAL);
    assert_null(s);
    assert_non_null(strstr(err.msg, "not a JSON Pointer"));
    assert_int_equal(api_schema_compile(doc, "#/components/schemas/Nope", &s, &err), DC_EINVAL);
    assert_null(s);
    assert_non_null(strstr(err.msg, "does not exist"));
    assert_int_equal(api_schema_compile(doc, "#/components/schemas/Model/required/7", &s, &err),
                     DC_EINVAL);

    /* The same schema by every accepted spelling of its pointer. */
    static const char *const entries[] = {"#/components/schemas/Provider",
                                          "/components/schemas/Provider",
                                          "#/components/%73chemas/Provider"};
    for (size_t i = 0; i < N(entries); i++) {
        s = compile_ok(doc, entries[i]);
        assert_true(is_valid(s, "'gcp'"));
        assert_false(is_valid(s, "'ibm'"));
        api_schema_free(s);
    }
    /* "" and "#" are the root: an OpenAPI document is an object with unknown
     * keywords only, so it accepts everything. */
    s = compile_ok(doc, "");
    assert_true(is_valid(s, "42"));
    api_schema_free(s);
    s = compile_ok(doc, "#");
    assert_true(is_valid(s, "null"));
    api_schema_free(s);
    cJSON_Delete(doc);
}

/* ---- Compile errors -------------------------------------------------------- */

static void test_unresolvable_refs(void **state)
{
    (void)state;
    expect_compile_error("{'properties': {'a': {'$ref': '#/$defs/missing'}}, '$defs': {}}", "#",
                         DC_EPARSE, "/properties/a/$ref", "points to nothing");
    expect_compile_error("{'$ref': 'https://example.com/schemas/x.json'}", "#", DC_EPARSE, "/$ref",
                         "remote references");
    expect_compile_error("{'$ref': 'other.json#/a'}", "#", DC_EPARSE, "/$ref",
                         "not in this document");
    expect_compile_error("{'$ref': '#nowhere'}", "#", DC_EPARSE, "/$ref", "no $anchor");
    expect_compile_error("{'$ref': '#/a~2b'}", "#", DC_EPARSE, "/$ref",
                         "invalid JSON Pointer escape");
    expect_compile_error("{'items': {'$ref': '#/prefixItems/5'}, 'prefixItems': [{}]}", "#",
                         DC_EPARSE, "/items/$ref", "points to nothing");
    /* In an OpenAPI document, a bad $ref deep in a referenced component. */
    expect_compile_error("{'components': {'schemas': {"
                         " 'A': {'properties': {'b': {'$ref': '#/components/schemas/B'}}},"
                         " 'B': {'items': {'$ref': '#/components/schemas/C'}}}}}",
                         "#/components/schemas/A", DC_EPARSE, "/components/schemas/B/items/$ref",
                         "points to nothing");
}

static void test_ref_cycles(void **state)
{
    (void)state;
    expect_compile_error("{'$defs': {'a': {'$ref': '#/$defs/b'}, 'b': {'$ref': '#/$defs/a'}},"
                         " '$ref': '#/$defs/a'}",
                         "#", DC_EPARSE, NULL, "$ref cycle");
    expect_compile_error("{'allOf': [{'$ref': '#'}]}", "#", DC_EPARSE, NULL, "$ref cycle");
    expect_compile_error("{'$ref': '#'}", "#", DC_EPARSE, "", "$ref cycle");
    /* Recursion that descends into the instance is fine. */
    cJSON *root = json("{'type': 'object', 'properties': {'child': {'$ref': '#'}},"
                       " 'additionalProperties': false}");
    api_schema *s = compile_ok(root, "#");
    assert_true(is_valid(s, "{'child': {'child': {}}}"));
    static const struct expected want[] = {
        {"/child/child/x", "additionalProperties", "unknown field \"x\""},
    };
    expect_violations(s, "{'child': {'child': {'x': 1}}}", 0, want, N(want), false);
    api_schema_free(s);
    cJSON_Delete(root);
}

static void test_invalid_regex(void **state)
{
    (void)state;
    expect_compile_error("{'pattern': '(ab'}", "#", DC_EPARSE, "/pattern", "missing )");
    expect_compile_error("{'properties': {'a': {'pattern': '[z-a]'}}}", "#", DC_EPARSE,
                         "/properties/a/pattern", "out of order");
    expect_compile_error("{'pattern': '(a)\\\\1'}", "#", DC_EPARSE, "/pattern", "backreferences");
    expect_compile_error("{'pattern': 'a(?=b)'}", "#", DC_EPARSE, "/pattern", "lookahead");
    expect_compile_error("{'pattern': '(?<!a)b'}", "#", DC_EPARSE, "/pattern", "lookbehind");
    expect_compile_error("{'pattern': '*a'}", "#", DC_EPARSE, "/pattern", "nothing to repeat");
    expect_compile_error("{'pattern': '\\\\p{Script=Greek}'}", "#", DC_EPARSE, "/pattern",
                         "Unicode property");
    expect_compile_error("{'pattern': '(a{1000}){1000}'}", "#", DC_EPARSE, "/pattern", "too large");
    expect_compile_error("{'patternProperties': {'^x[': {}}}", "#", DC_EPARSE, "/patternProperties",
                         "\"^x[\" is not a supported regular expression");
}

static void test_malformed_keywords(void **state)
{
    (void)state;
    static const struct {
        const char *schema;
        const char *where;
        const char *msg;
    } cases[] = {
        {"{'minimum': 'x'}", "/minimum", "\"minimum\" must be a number"},
        {"{'properties': {'a': {'maximum': '9'}}}", "/properties/a/maximum",
         "\"maximum\" must be a number"},
        {"{'exclusiveMinimum': true}", "/exclusiveMinimum", "must be a number"},
        {"{'multipleOf': 0}", "/multipleOf", "greater than 0"},
        {"{'multipleOf': -2}", "/multipleOf", "greater than 0"},
        {"{'minLength': -1}", "/minLength", "non-negative integer"},
        {"{'maxItems': 1.5}", "/maxItems", "non-negative integer"},
        {"{'type': 'strin'}", "/type", "unknown type \"strin\""},
        {"{'type': ['string', 5]}", "/type", "unknown type 5"},
        {"{'type': {}}", "/type", "type name"},
        {"{'required': 'a'}", "/required", "array of strings"},
        {"{'required': ['a', 1]}", "/required", "item 1 is not"},
        {"{'enum': {'a': 1}}", "/enum", "must be an array"},
        {"{'properties': ['a']}", "/properties", "must be an object"},
        {"{'items': [{}]}", "/items", "prefixItems"},
        {"{'allOf': []}", "/allOf", "non-empty array"},
        {"{'anyOf': {}}", "/anyOf", "non-empty array"},
        {"{'uniqueItems': 'yes'}", "/uniqueItems", "true or false"},
        {"{'pattern': 5}", "/pattern", "must be a string"},
        {"{'$ref': 5}", "/$ref", "must be a string"},
        {"{'$id': 5}", "", "\"$id\" must be a string"},
        {"{'dependentRequired': {'a': 'b'}}", "/dependentRequired/a", "array of strings"},
        {"{'not': 5}", "/not", "object or a boolean"},
        {"{'$defs': {'x': 1}, '$ref': '#/$defs/x'}", "/$defs/x", "object or a boolean"},
        {"{'$recursiveRef': '#'}", "/$recursiveRef", "not supported"},
        {"7", "", "object or a boolean"},
    };
    for (size_t i = 0; i < N(cases); i++)
        expect_compile_error(cases[i].schema, "#", DC_EPARSE, cases[i].where, cases[i].msg);
}

/* ---- Violations ------------------------------------------------------------ */

static void test_workload_valid(void **state)
{
    (void)state;
    cJSON *doc = json(openapi_doc);
    api_schema *s = compile_ok(doc, "#/components/schemas/Workload");
    assert_true(is_valid(s, "{'task': 'training', 'model': {'parameters': 7e9}}"));
    assert_true(is_valid(s, "{'name': 'llama', 'task': 'inference', 'precision': 'fp8',"
                            " 'model': {'architecture': 'moe', 'parameters': 1.2e11,"
                            "           'layers': 80.0, 'dropout': 0.07},"
                            " 'constraints': {'deployment': 'cloud', 'budget_usd': null,"
                            "                 'providers': ['aws', 'gcp'], 'max_accelerators': 8},"
                            " 'tags': {'team': 'nlp', 'cost_center_2': 'x'},"
                            " 'objective': 'cost', 'prefer_available': true}"));
    /* Code points, not bytes: 8 characters, 16 bytes. */
    assert_true(is_valid(s,
                         "{'task': 'training', 'model': {'parameters': 1},"
                         " 'name': '\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9'}"));
    api_schema_free(s);
    cJSON_Delete(doc);
}

static void test_workload_violations(void **state)
{
    (void)state;
    cJSON *doc = json(openapi_doc);
    api_schema *s = compile_ok(doc, "#/components/schemas/Workload");

    /* Every violation, in document order, each at its own pointer. */
    static const struct expected all[] = {
        {"/name", "maxLength", "must be at most 8 characters long"},
        {"/task", "enum", "must be one of: training, fine-tuning, inference"},
        {"/model/parameters", "exclusiveMinimum", "must be > 0"},
        {"/model/layers", "type", "must be an integer, not a fractional number"},
        {"/model/dropout", "multipleOf", "must be a multiple of 0.01"},
        {"/model/gpu", "additionalProperties", "unknown field \"gpu\""},
        {"/constraints/providers/1", "enum", "must be one of: aws, gcp, azure, oci"},
        {"/constraints/providers", "uniqueItems",
         "must not contain duplicates (items 0 and 2 are equal)"},
        {"/constraints/budget_usd", "exclusiveMinimum", "must be > 0"},
        {"/constraints", "dependentRequired",
         "field \"deployment\" is required when \"budget_usd\" is present"},
        {"/tags/Team", "propertyNames",
         "field name \"Team\" must match the pattern \"^[a-z][a-z0-9_]*$\""},
        {"/tags/size", "type", "must be a string, not an integer"},
        {"/foo", "additionalProperties", "unknown field \"foo\""},
        {"/prefer_available", "type", "must be a boolean, not a string"},
    };
    expect_violations(s,
                      "{'name': 'a-much-too-long-name', 'task': 'pretraining',"
                      " 'model': {'parameters': 0, 'layers': 2.5, 'dropout': 0.015, 'gpu': 'h100'},"
                      " 'constraints': {'providers': ['aws', 'ibm', 'aws'],"
                      "                 'budget_usd': -1},"
                      " 'tags': {'Team': 'x', 'size': 3},"
                      " 'foo': 1, 'prefer_available': 'yes'}",
                      0, all, N(all), false);

    /* An array of the wrong size fails on its size keyword alone: none of its
     * items is validated and no duplicate is looked for. */
    static const struct expected too_many[] = {
        {"/constraints/providers", "maxItems", "must have at most 3 items"},
    };
    expect_violations(s,
                      "{'task': 'training', 'model': {'parameters': 1},"
                      " 'constraints': {'providers': ['aws', 'gcp', 'ibm', 'aws']}}",
                      0, too_many, N(too_many), false);

    /* A missing required field is reported at the object that lacks it. */
    static const struct expected missing[] = {
        {"/model", "required", "required field \"parameters\" is missing"},
        {"", "required", "required field \"task\" is missing"},
    };
    expect_violations(s, "{'model': {}}", 0, missing, N(missing), false);
    static const struct expected both_missing[] = {
        {"", "required", "required field \"task\" is missing"},
        {"", "required", "required field \"model\" is missing"},
    };
    expect_violations(s, "{}", 0, both_missing, N(both_missing), false);

    /* Wrong type at the root. */
    static const struct expected root_type[] = {
        {"", "type", "must be an object, not an array"},
    };
    expect_violations(s, "[]", 0, root_type, N(root_type), false);

    /* anyOf [number > 0, null]: a string matches neither type, so the message
     * names the types; a negative number fits one branch only, so that
     * branch's own violation is reported. */
    static const struct expected any_type[] = {
        {"/constraints/budget_usd", "anyOf", "must be a number or null, not a string"},
    };
    expect_violations(s,
                      "{'task': 'training', 'model': {'parameters': 1},"
                      " 'constraints': {'deployment': 'cloud', 'budget_usd': '100'}}",
                      0, any_type, N(any_type), false);
    api_schema_free(s);
    cJSON_Delete(doc);
}

static void test_max_errors(void **state)
{
    (void)state;
    cJSON *root = json("{'type': 'object', 'additionalProperties': false}");
    api_schema *s = compile_ok(root, "#");
    const char *five = "{'a': 1, 'b': 2, 'c': 3, 'd': 4, 'e': 5}";
    static const struct expected two[] = {
        {"/a", "additionalProperties", "unknown field \"a\""},
        {"/b", "additionalProperties", "unknown field \"b\""},
    };
    expect_violations(s, five, 2, two, N(two), true);
    static const struct expected all[] = {
        {"/a", "additionalProperties", "unknown field \"a\""},
        {"/b", "additionalProperties", "unknown field \"b\""},
        {"/c", "additionalProperties", "unknown field \"c\""},
        {"/d", "additionalProperties", "unknown field \"d\""},
        {"/e", "additionalProperties", "unknown field \"e\""},
    };
    expect_violations(s, five, 5, all, N(all), false); /* exactly full: not truncated */
    expect_violations(s, five, 4, all, 4, true);
    expect_violations(s, five, 0, all, N(all), false); /* 0: the default limit */
    expect_violations(s, five, 1, all, 1, true);

    /* The default limit caps a hostile instance. */
    char big[4096];
    size_t pos = (size_t)snprintf(big, sizeof(big), "{");
    for (int i = 0; i < API_SCHEMA_MAX_ERRORS_DEFAULT + 10; i++)
        pos += (size_t)snprintf(big + pos, sizeof(big) - pos, "%s'k%d': 0", i ? ", " : "", i);
    snprintf(big + pos, sizeof(big) - pos, "}");
    cJSON *inst = json(big);
    struct api_schema_result res;
    assert_int_equal(api_schema_validate(s, inst, 0, &res, NULL), DC_OK);
    assert_false(res.valid);
    assert_int_equal(res.count, API_SCHEMA_MAX_ERRORS_DEFAULT);
    assert_true(res.truncated);
    api_schema_result_cleanup(&res);
    assert_int_equal(res.count, 0);
    assert_null(res.items);
    cJSON_Delete(inst);
    api_schema_free(s);
    cJSON_Delete(root);
}

/* A caller that enforces one constraint itself drops its violations: only an
 * exact pointer and keyword match goes, and `valid` follows what is left. */
static void test_result_remove(void **state)
{
    (void)state;
    cJSON *root = json("{'properties': {'list': {'maxItems': 1, 'items': {'type': 'integer'}}},"
                       " 'additionalProperties': false}");
    api_schema *s = compile_ok(root, "#");
    cJSON *inst = json("{'list': [1, 2]}");
    struct api_schema_result res;
    assert_int_equal(api_schema_validate(s, inst, 0, &res, NULL), DC_OK);
    assert_false(res.valid);
    assert_int_equal(api_schema_result_remove(&res, "/list", "minItems"), 0);
    assert_int_equal(api_schema_result_remove(&res, "", "maxItems"), 0);
    assert_int_equal(api_schema_result_remove(&res, "/list", "maxItems"), 1);
    assert_true(res.valid);
    assert_int_equal(res.count, 0);
    api_schema_result_cleanup(&res);
    cJSON_Delete(inst);

    /* Other violations stay, in order, and keep the result invalid. The items
     * of an array that failed its size were not checked: removing the size's
     * violation is for arrays whose items the caller checks itself. */
    inst = json("{'list': ['x', 2, 'y'], 'z': 1, 'w': 'v'}");
    assert_int_equal(api_schema_validate(s, inst, 0, &res, NULL), DC_OK);
    assert_int_equal(res.count, 3);
    assert_int_equal(api_schema_result_remove(&res, "/list", "maxItems"), 1);
    assert_false(res.valid);
    assert_int_equal(res.count, 2);
    assert_string_equal(res.items[0].pointer, "/z");
    assert_string_equal(res.items[1].pointer, "/w");
    api_schema_result_cleanup(&res);
    cJSON_Delete(inst);

    /* A truncated result stays invalid: more violations existed than were kept. */
    inst = json("{'list': [1, 2], 'z': 1}");
    assert_int_equal(api_schema_validate(s, inst, 1, &res, NULL), DC_OK);
    assert_true(res.truncated);
    assert_int_equal(res.count, 1);
    char ptr[32], kw[32];
    snprintf(ptr, sizeof(ptr), "%s", res.items[0].pointer);
    snprintf(kw, sizeof(kw), "%s", res.items[0].keyword);
    assert_int_equal(api_schema_result_remove(&res, ptr, kw), 1);
    assert_false(res.valid);
    api_schema_result_cleanup(&res);
    assert_int_equal(api_schema_result_remove(NULL, "", "x"), 0);
    cJSON_Delete(inst);
    api_schema_free(s);
    cJSON_Delete(root);
}

static void test_pointer_escaping(void **state)
{
    (void)state;
    cJSON *root = json("{'additionalProperties': {'type': 'integer'},"
                       " 'properties': {'list': {'items': {'type': 'string'}}}}");
    api_schema *s = compile_ok(root, "#");
    static const struct expected want[] = {
        {"/a~1b", "type", "must be an integer, not a string"},
        {"/m~0n", "type", "must be an integer, not null"},
        {"/list/1", "type", "must be a string, not a boolean"},
        {"/~0~1", "type", "must be an integer, not an object"},
    };
    expect_violations(s, "{'a/b': 'x', 'm~n': null, 'list': ['ok', true], '~/': {}}", 0, want,
                      N(want), false);
    /* Names are quoted and escaped in messages, and long ones cut. */
    cJSON *closed = json("{'additionalProperties': false}");
    api_schema *c = compile_ok(closed, "#");
    static const struct expected quoted[] = {
        {"/say \"hi\"\n", "additionalProperties", "unknown field \"say \\\"hi\\\"\\n\""},
    };
    expect_violations(c, "{'say \\'hi\\'\\n': 1}", 0, quoted, N(quoted), false);
    api_schema_free(c);
    cJSON_Delete(closed);
    api_schema_free(s);
    cJSON_Delete(root);
}

static void test_keyword_messages(void **state)
{
    (void)state;
    static const struct {
        const char *schema;
        const char *instance;
        struct expected want;
    } cases[] = {
        {"{'const': 'inference'}", "'training'", {"", "const", "must be \"inference\""}},
        {"{'const': {'a': [1, 2]}}", "{'a': [1]}", {"", "const", "must be {\"a\":[1,2]}"}},
        {"{'enum': [1, 'two', null]}", "3", {"", "enum", "must be one of: 1, two, null"}},
        {"{'minLength': 2}", "'\\u00e9'", {"", "minLength", "must be at least 2 characters long"}},
        {"{'maxLength': 1}", "'ab'", {"", "maxLength", "must be at most 1 character long"}},
        {"{'minItems': 1}", "[]", {"", "minItems", "must have at least 1 item"}},
        {"{'minProperties': 2}", "{'a': 1}", {"", "minProperties", "must have at least 2 fields"}},
        {"{'maxProperties': 0}", "{'a': 1}", {"", "maxProperties", "must have at most 0 fields"}},
        {"{'maximum': 0.5}", "0.75", {"", "maximum", "must be <= 0.5"}},
        {"{'exclusiveMaximum': 1e20}", "1e21", {"", "exclusiveMaximum", "must be < 1e+20"}},
        {"{'multipleOf': 0.0001}", "0.00751", {"", "multipleOf", "must be a multiple of 0.0001"}},
        {"{'contains': {'type': 'string'}}",
         "[1]",
         {"", "contains", "must contain at least one matching item"}},
        {"{'contains': {'const': 1}, 'minContains': 2}",
         "[1, 2]",
         {"", "minContains", "must contain at least 2 matching items (found 1)"}},
        {"{'contains': {'const': 1}, 'maxContains': 1}",
         "[1, 1]",
         {"", "maxContains", "must contain at most 1 matching item (found 2)"}},
        {"{'prefixItems': [{}], 'items': false}",
         "[1, 2, 3]",
         {"", "items", "must have at most 1 item"}},
        {"{'items': false}", "[1]", {"", "items", "must be an empty array"}},
        {"{'not': {'type': 'null'}}", "null", {"", "not", "must not match the schema in \"not\""}},
        {"{'oneOf': [{'type': 'integer'}, {'minimum': 0}]}",
         "1",
         {"", "oneOf",
          "must match exactly one of the 2 allowed schemas, but matches more "
          "(schemas 0 and 1)"}},
        {"{'oneOf': [{'minimum': 5}, {'maximum': 1}]}",
         "3",
         {"", "oneOf", "must match exactly one of the 2 allowed schemas, but matches none"}},
        {"{'anyOf': [{'type': 'string', 'minLength': 3}, {'type': 'integer'}]}",
         "'ab'",
         {"", "minLength", "must be at least 3 characters long"}},
        {"{'if': {'const': 1}, 'then': {'multipleOf': 2}}",
         "1",
         {"", "multipleOf", "must be a multiple of 2"}},
        {"{'properties': {'legacy': false}}",
         "{'legacy': 1}",
         {"/legacy", "false", "is not allowed"}},
        {"false", "{}", {"", "false", "is not allowed"}},
        {"{'type': ['integer', 'null']}",
         "'1'",
         {"", "type", "must be an integer or null, not a string"}},
        {"{'dependentSchemas': {'a': {'required': ['b']}}}",
         "{'a': 1}",
         {"", "required", "required field \"b\" is missing"}},
        {"{'unevaluatedProperties': false, 'allOf': [{'properties': {'a': {}}}]}",
         "{'a': 1, 'b': 2}",
         {"/b", "unevaluatedProperties", "unknown field \"b\""}},
        {"{'prefixItems': [{}], 'unevaluatedItems': false}",
         "[1, 2]",
         {"/1", "unevaluatedItems", "unexpected item: no schema allows it"}},
        {"{'propertyNames': {'maxLength': 3}}",
         "{'abcd': 1}",
         {"/abcd", "propertyNames", "field name \"abcd\" must be at most 3 characters long"}},
        {"{'pattern': '^[a-z]+$'}", "'A'", {"", "pattern", "must match the pattern \"^[a-z]+$\""}},
    };
    for (size_t i = 0; i < N(cases); i++) {
        cJSON *root = json(cases[i].schema);
        api_schema *s = compile_ok(root, "#");
        expect_violations(s, cases[i].instance, 0, &cases[i].want, 1, false);
        api_schema_free(s);
        cJSON_Delete(root);
    }
}

/* x-cross-field-rules: the contract's extension keyword, applied as allOf and
 * together with an allOf of the same schema (either order), with a $ref into an
 * x- definition; the violation's keyword is the rule's own. */
static void test_cross_field_rules(void **state)
{
    (void)state;
    static const char *const schemas[] = {
        "{'x-defs': {'big': {'minimum': 10}}, 'allOf': [{'multipleOf': 2}],"
        " 'x-cross-field-rules': [{'if': {'$ref': '#/x-defs/big'}, 'then': {'multipleOf': 5}}]}",
        "{'x-defs': {'big': {'minimum': 10}},"
        " 'x-cross-field-rules': [{'if': {'$ref': '#/x-defs/big'}, 'then': {'multipleOf': 5}}],"
        " 'allOf': [{'multipleOf': 2}]}",
    };
    for (size_t i = 0; i < N(schemas); i++) {
        cJSON *root = json(schemas[i]);
        api_schema *s = compile_ok(root, "#");
        assert_true(is_valid(s, "4"));
        assert_true(is_valid(s, "20"));
        assert_false(is_valid(s, "3"));  /* the allOf */
        assert_false(is_valid(s, "12")); /* the cross-field rule */
        const struct expected want = {"", "multipleOf", "must be a multiple of 5"};
        expect_violations(s, "12", 0, &want, 1, false);
        api_schema_free(s);
        cJSON_Delete(root);
    }
    /* Malformed as allOf is. */
    cJSON *root = json("{'x-cross-field-rules': []}");
    api_schema *s = NULL;
    struct dc_error err;
    dc_error_clear(&err);
    assert_int_not_equal(api_schema_compile(root, "#", &s, &err), DC_OK);
    assert_null(s);
    assert_non_null(strstr(err.msg, "x-cross-field-rules"));
    cJSON_Delete(root);
}

static void test_annotations_and_unknown_keywords(void **state)
{
    (void)state;
    /* format is an annotation; OpenAPI and unknown keywords are ignored. */
    cJSON *root = json("{'type': 'string', 'format': 'email', 'example': 'x@y.z',"
                       " 'discriminator': {'propertyName': 'kind'}, 'x-internal': true,"
                       " 'nullable': true, 'title': 't', 'description': 'd', 'default': 5,"
                       " 'examples': [1], 'deprecated': true, '$comment': 'c'}");
    api_schema *s = compile_ok(root, "#");
    assert_true(is_valid(s, "'not an email'"));
    assert_false(is_valid(s, "null")); /* "nullable" is OpenAPI 3.0, not 3.1 */
    api_schema_free(s);
    cJSON_Delete(root);
}

static void test_numbers(void **state)
{
    (void)state;
    cJSON *root = json("{'properties': {"
                       " 'cents': {'multipleOf': 0.01}, 'tiny': {'multipleOf': 0.0001},"
                       " 'half': {'multipleOf': 0.5}, 'int': {'type': 'integer'}}}");
    api_schema *s = compile_ok(root, "#");
    assert_true(is_valid(s, "{'cents': 19.99, 'tiny': 0.0075, 'half': 1e308, 'int': 1.0}"));
    assert_true(is_valid(s, "{'cents': 0.07, 'tiny': 1.2345, 'int': -0}"));
    assert_true(is_valid(s, "{'cents': 4.35, 'tiny': 100000.0001}"));
    assert_false(is_valid(s, "{'cents': 19.991}"));
    assert_false(is_valid(s, "{'tiny': 0.00751}"));
    assert_false(is_valid(s, "{'int': 1.5}"));
    assert_false(is_valid(s, "{'half': 0.3}"));
    api_schema_free(s);
    cJSON_Delete(root);

    /* const/enum compare numbers by value and objects regardless of order. */
    root = json("{'enum': [{'a': 1, 'b': [1.0, {'c': null}]}, 2]}");
    s = compile_ok(root, "#");
    assert_true(is_valid(s, "{'b': [1, {'c': null}], 'a': 1.0}"));
    assert_true(is_valid(s, "2.0"));
    assert_false(is_valid(s, "{'b': [1, {'c': false}], 'a': 1}"));
    assert_false(is_valid(s, "{'a': 1}"));
    api_schema_free(s);
    cJSON_Delete(root);
}

static void test_unique_items_large(void **state)
{
    (void)state;
    /* Past the pairwise threshold the hashed path runs; 1 and 1.0, and objects
     * in any key order, are duplicates. */
    cJSON *root = json("{'uniqueItems': true}");
    api_schema *s = compile_ok(root, "#");
    char buf[2048];
    size_t pos = (size_t)snprintf(buf, sizeof(buf), "[");
    for (int i = 0; i < 40; i++)
        pos += (size_t)snprintf(buf + pos, sizeof(buf) - pos, "%d, ", i);
    snprintf(buf + pos, sizeof(buf) - pos, "{'x': 1, 'y': 2}, {'y': 2, 'x': 1.0}]");
    static const struct expected want[] = {
        {"", "uniqueItems", "must not contain duplicates (items 40 and 41 are equal)"},
    };
    expect_violations(s, buf, 0, want, 1, false);
    snprintf(buf + pos, sizeof(buf) - pos, "{'x': 1, 'y': 2}, {'y': 2, 'x': 1.5}, 39.0]");
    static const struct expected want2[] = {
        {"", "uniqueItems", "must not contain duplicates (items 39 and 42 are equal)"},
    };
    expect_violations(s, buf, 0, want2, 1, false);
    snprintf(buf + pos, sizeof(buf) - pos, "{'x': 1, 'y': 2}, {'y': 2, 'x': 1.5}, -0.0, 0.5]");
    static const struct expected want3[] = {
        {"", "uniqueItems", "must not contain duplicates (items 0 and 42 are equal)"},
    };
    expect_violations(s, buf, 0, want3, 1, false);
    /* Two pairs of duplicates: the one that starts first is reported. */
    static const struct expected want4[] = {
        {"", "uniqueItems", "must not contain duplicates (items 3 and 18 are equal)"},
    };
    expect_violations(s,
                      "[0, 1, 2, 'three', 4, 'five', 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,"
                      " 'five', 'three', 19]",
                      0, want4, 1, false);
    api_schema_free(s);
    cJSON_Delete(root);

    /* 200,000 copies of one string: one comparison an item, not one a pair
     * (pairwise this is 2 * 10^10 comparisons, past the test's time limit). */
    enum { COPIES = 200000 };
    root = json("{'uniqueItems': true}");
    s = compile_ok(root, "#");
    cJSON *copies = cJSON_CreateArray();
    assert_non_null(copies);
    for (int i = 0; i < COPIES; i++)
        assert_true(cJSON_AddItemToArray(copies, cJSON_CreateString("nvidia-h100")));
    struct api_schema_result res;
    assert_int_equal(api_schema_validate(s, copies, 0, &res, NULL), DC_OK);
    assert_int_equal(res.count, 1);
    assert_string_equal(res.items[0].message,
                        "must not contain duplicates (items 0 and 1 are equal)");
    api_schema_result_cleanup(&res);
    cJSON_Delete(copies);
    api_schema_free(s);
    cJSON_Delete(root);
}

/* ---- References ------------------------------------------------------------ */

static void test_refs_and_ids(void **state)
{
    (void)state;
    /* Pointer escapes (~0 ~1 and percent-encoding), $defs, $ref beside other
     * keywords, booleans as targets. */
    cJSON *root = json("{'$defs': {'a/b': {'type': 'integer'}, 'c~d': {'minimum': 3},"
                       "            'e f': {'maximum': 5}, 't': true, 'f': false},"
                       " 'properties': {"
                       "  'x': {'$ref': '#/$defs/a~1b', 'minimum': 1},"
                       "  'y': {'$ref': '#/$defs/c~0d'},"
                       "  'z': {'$ref': '#/$defs/e%20f'},"
                       "  't': {'$ref': '#/$defs/t'}, 'f': {'$ref': '#/$defs/f'}}}");
    api_schema *s = compile_ok(root, "#");
    assert_true(is_valid(s, "{'x': 2, 'y': 3, 'z': 5, 't': 'anything'}"));
    static const struct expected want[] = {
        {"/x", "type", "must be an integer, not a fractional number"},
        {"/x", "minimum", "must be >= 1"},
        {"/y", "minimum", "must be >= 3"},
        {"/z", "maximum", "must be <= 5"},
        {"/f", "false", "is not allowed"},
    };
    expect_violations(s, "{'x': 0.5, 'y': 2, 'z': 6, 'f': 0}", 0, want, N(want), false);
    api_schema_free(s);
    cJSON_Delete(root);

    /* $id and $anchor inside the document resolve; the same URI outside it
     * does not. */
    root = json("{'$id': 'https://example.com/root.json',"
                " '$defs': {'n': {'$id': 'nodes/n.json', 'type': 'integer'},"
                "           'p': {'$anchor': 'pos', 'minimum': 0}},"
                " 'properties': {'a': {'$ref': 'nodes/n.json'},"
                "                'b': {'$ref': 'https://example.com/root.json#pos'},"
                "                'c': {'$ref': '#pos'}}}");
    s = compile_ok(root, "#");
    assert_true(is_valid(s, "{'a': 1, 'b': 0, 'c': 2}"));
    assert_false(is_valid(s, "{'a': 'x'}"));
    assert_false(is_valid(s, "{'b': -1}"));
    assert_false(is_valid(s, "{'c': -1}"));
    api_schema_free(s);
    cJSON_Delete(root);
    expect_compile_error("{'$id': 'https://example.com/root.json', '$ref': 'other.json'}", "#",
                         DC_EPARSE, "/$ref",
                         "\"https://example.com/other.json\" is not in this "
                         "document");
}

static void test_recursion_limit(void **state)
{
    (void)state;
    cJSON *root = json("{'type': 'object', 'properties': {'c': {'$ref': '#'}}}");
    api_schema *s = compile_ok(root, "#");

    /* Nested to the limit: fine. One level deeper: DC_ELIMIT, with the place. */
    for (int depth = API_SCHEMA_MAX_REF_DEPTH; depth <= API_SCHEMA_MAX_REF_DEPTH + 1; depth++) {
        cJSON *inst = cJSON_CreateObject();
        cJSON *cur = inst;
        for (int i = 0; i < depth; i++) {
            cJSON *next = cJSON_CreateObject();
            cJSON_AddItemToObject(cur, "c", next);
            cur = next;
        }
        struct api_schema_result res;
        struct dc_error err;
        dc_error_clear(&err);
        enum dc_status rc = api_schema_validate(s, inst, 0, &res, &err);
        if (depth == API_SCHEMA_MAX_REF_DEPTH) {
            assert_int_equal(rc, DC_OK);
            assert_true(res.valid);
        } else {
            assert_int_equal(rc, DC_ELIMIT);
            assert_false(res.valid);
            assert_int_equal(res.count, 0);
            assert_null(res.items);
            assert_int_equal(err.code, DC_ELIMIT);
            /* "/c" for each of the 65 levels the failing $ref was reached at. */
            assert_int_equal(strlen(err.where), 2 * (size_t)(API_SCHEMA_MAX_REF_DEPTH + 1));
            assert_non_null(strstr(err.msg, "$ref"));
        }
        api_schema_result_cleanup(&res);
        cJSON_Delete(inst);
    }
    api_schema_free(s);
    cJSON_Delete(root);
}

/* ---- Regex dialect --------------------------------------------------------- */

static bool re_matches(const char *pattern, const char *subject)
{
    api__sch_regex *re = NULL;
    char msg[128];
    enum dc_status rc = api__sch_regex_compile(pattern, &re, msg, sizeof(msg));
    if (rc != DC_OK)
        fail_msg("regex %s: %s", pattern, msg);
    bool m = false;
    assert_int_equal(api__sch_regex_search(re, subject, strlen(subject), &m), DC_OK);
    api__sch_regex_free(re);
    return m;
}

static void test_regex_dialect(void **state)
{
    (void)state;
    static const struct {
        const char *pattern;
        const char *subject;
        bool match;
    } cases[] = {
        {"a+", "xxaayy", true}, /* unanchored */
        {"^a+$", "xxaayy", false},
        {"^abc$", "abc\n", false}, /* $ is end of input only */
        {"^.$", "\xc3\xa9", true}, /* . is one code point */
        {"^.$", "\n", false},
        {"^\\d{3}-\\d{4}$", "555-1234", true},
        {"^\\d$", "\xdf\x80", false}, /* NKO digit zero */
        {"^\\w+$", "snake_case9", true},
        {"^\\W$", "\xc3\xa9", true},
        {"^\\s$", "\xe2\x80\x83", true},  /* EM SPACE */
        {"^\\S$", "\xef\xbb\xbf", false}, /* BOM is white space */
        {"^[^abc]$", "d", true},
        {"^[^abc]$", "b", false},
        {"^[\\d.-]+$", "1.5-2", true},
        {"^[a-z\\u00e0-\\u00ff]+$", "caf\xc3\xa9", true},
        {"^\\p{L}+$", "\xcf\x80r", true},
        {"^\\P{L}$", "1", true},
        {"^\\p{Lu}", "a", false},
        {"^\\p{gc=Nd}+$", "\xe0\xa7\xaa", true}, /* Bengali four */
        {"^\\u{1F432}$", "\xf0\x9f\x90\xb2", true},
        {"^\\ud83d\\udc32$", "\xf0\x9f\x90\xb2", true},
        {"^(cat|dog)s?$", "dogs", true},
        {"^(cat|dog)s?$", "cow", false},
        {"^(?:ab){2,3}$", "ababab", true},
        {"^(?:ab){2,3}$", "abababab", false},
        {"^a{2,}?$", "aaaa", true},
        {"^x*?y$", "xxy", true},
        {"\\bfoo\\b", "a foo b", true},
        {"\\bfoo\\b", "afoob", false},
        {"\\Bfoo", "afoo", true},
        {"^(?<year>\\d{4})-\\d\\d$", "2024-06", true},
        {"^a|b$", "xb", true},
        {"^$", "", true},
        {"^(|a)$", "", true},
        {"x{", "x{", true}, /* a brace that is no quantifier */
        {"^\\x41\\cJ\\t$", "A\n\t", true},
        {"^[\\b]$", "\b", true},
        {"^\\/\\.\\*$", "/.*", true},
        {"[]", "anything", false},
        {"^[^]$", "\n", true},
    };
    for (size_t i = 0; i < N(cases); i++) {
        if (re_matches(cases[i].pattern, cases[i].subject) != cases[i].match)
            fail_msg("/%s/ on \"%s\": expected %s", cases[i].pattern, cases[i].subject,
                     cases[i].match ? "a match" : "no match");
    }

    /* No backtracking: a pattern that is exponential for backtracking engines
     * runs in linear time on a long subject. */
    char subject[20001];
    memset(subject, 'a', sizeof(subject) - 1);
    subject[sizeof(subject) - 1] = '\0';
    assert_false(re_matches("^(a*)*b$", subject));
    assert_false(re_matches("(a|aa)+c", subject));
    /* A program larger than the stack scratch uses heap scratch. */
    assert_true(re_matches("^(?:[a-z]{1,5}\\d?){1,60}$", "abcde1abcde2xyz"));

    api__sch_regex *re = NULL;
    char msg[128];
    assert_int_equal(api__sch_regex_compile(NULL, &re, msg, sizeof(msg)), DC_EINVAL);
    assert_int_equal(api__sch_regex_compile("a", NULL, msg, sizeof(msg)), DC_EINVAL);
    assert_int_equal(api__sch_regex_compile("a{2,1}", &re, msg, sizeof(msg)), DC_EPARSE);
    assert_null(re);
    assert_non_null(strstr(msg, "out of order"));
    assert_int_equal(api__sch_regex_compile("\\q", &re, msg, sizeof(msg)), DC_EPARSE);
    assert_int_equal(api__sch_regex_compile("^*", &re, msg, sizeof(msg)), DC_EPARSE);
    assert_int_equal(api__sch_regex_compile("a**", &re, msg, sizeof(msg)), DC_EPARSE);
    assert_int_equal(api__sch_regex_compile("[a", &re, msg, sizeof(msg)), DC_EPARSE);
    assert_int_equal(api__sch_regex_compile("\\", &re, msg, sizeof(msg)), DC_EPARSE);
    assert_int_equal(api__sch_regex_compile("a)", &re, msg, sizeof(msg)), DC_EPARSE);
    assert_int_equal(api__sch_regex_compile("\\k<x>", &re, msg, sizeof(msg)), DC_EPARSE);
    api__sch_regex_free(NULL);
}

/* ---- URIs ------------------------------------------------------------------ */

static void test_uri_resolution(void **state)
{
    (void)state;
    /* RFC 3986 section 5.4 examples, plus the cases $id and $ref need. */
    static const char base[] = "http://a/b/c/d;p?q";
    static const struct {
        const char *base;
        const char *ref;
        const char *want;
    } cases[] = {
        {base, "g", "http://a/b/c/g"},
        {base, "./g", "http://a/b/c/g"},
        {base, "g/", "http://a/b/c/g/"},
        {base, "/g", "http://a/g"},
        {base, "//g", "http://g"},
        {base, "?y", "http://a/b/c/d;p?y"},
        {base, "g?y", "http://a/b/c/g?y"},
        {base, "#s", "http://a/b/c/d;p?q#s"},
        {base, "g#s", "http://a/b/c/g#s"},
        {base, "", "http://a/b/c/d;p?q"},
        {base, ".", "http://a/b/c/"},
        {base, "..", "http://a/b/"},
        {base, "../g", "http://a/b/g"},
        {base, "../..", "http://a/"},
        {base, "../../../g", "http://a/g"},
        {base, "/./g", "http://a/g"},
        {base, "g/../h", "http://a/b/c/h"},
        {base, "g;x=1/../y", "http://a/b/c/y"},
        {base, "g:h", "g:h"},
        {"", "#/$defs/a", "#/$defs/a"},
        {"", "#", ""},
        {"urn:uuid:1234", "#foo", "urn:uuid:1234#foo"},
        {"http://x/y/z.json#", "w.json", "http://x/y/w.json"},
        {"http://x", "y", "http://x/y"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        char *out = NULL;
        assert_int_equal(api__sch_uri_resolve(cases[i].base, cases[i].ref, &out), DC_OK);
        if (strcmp(out, cases[i].want) != 0)
            fail_msg("resolve(%s, %s) = %s, expected %s", cases[i].base, cases[i].ref, out,
                     cases[i].want);
        free(out);
    }
    char *dec = NULL;
    assert_int_equal(api__sch_percent_decode("a%2Fb%7e%zz%4", &dec), DC_OK);
    assert_string_equal(dec, "a/b~%zz%4");
    free(dec);
}

/* ---- Allocation failures --------------------------------------------------- */

/* Run compile + validate of an invalid instance with allocation `fail_at`
 * failing (1-based; 0: none). Returns the first non-OK status, or DC_OK. */
static enum dc_status run_with_failure(const cJSON *doc, const cJSON *inst, size_t fail_at,
                                       size_t *allocations)
{
    api_schema *s = NULL;
    struct api_schema_result res;
    struct dc_error err;
    sch_counter = (struct dc__alloc_counter){fail_at, 0, 0};
    enum dc_status rc = api_schema_compile(doc, "#/components/schemas/Workload", &s, &err);
    if (rc == DC_OK) {
        rc = api_schema_validate(s, inst, 0, &res, &err);
        if (rc == DC_OK) {
            assert_false(res.valid);
            api_schema_result_cleanup(&res);
        } else {
            assert_int_equal(res.count, 0);
            assert_null(res.items);
        }
        api_schema_free(s);
    } else {
        assert_null(s);
    }
    if (rc != DC_OK)
        assert_int_equal(err.code, rc);
    *allocations = sch_counter.allocs;
    sch_counter.fail_at = 0;
    return rc;
}

static void test_allocation_failures(void **state)
{
    (void)state;
    /* The workload document plus what allocates on its own: a regex with heap
     * scratch, a long array for hashed uniqueItems, unevaluatedProperties with
     * more members than the inline bitset, and $id resolution. */
    cJSON *doc = json(openapi_doc);
    cJSON *schemas = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "components"), "schemas");
    cJSON_AddItemToObject(
        schemas, "Extra",
        json("{'$id': 'https://example.com/extra.json',"
             " 'properties': {'code': {'pattern': '^(?:[A-Z]{1,4}\\\\d?){1,40}$'},"
             "   'ids': {'uniqueItems': true},"
             "   'bag': {'unevaluatedProperties': {'type': 'integer'}}}}"));
    cJSON *wl = cJSON_GetObjectItem(schemas, "Workload");
    cJSON_AddItemToObject(cJSON_GetObjectItem(wl, "properties"), "extra",
                          json("{'$ref': 'https://example.com/extra.json'}"));

    cJSON *inst = json("{'task': 'x', 'model': {'parameters': -1, 'zz': 1},"
                       " 'constraints': {'providers': ['aws', 'aws']},"
                       " 'extra': {'code': 'AB1CD2', 'ids': [], 'bag': {}}}");
    cJSON *ids = cJSON_GetObjectItem(cJSON_GetObjectItem(inst, "extra"), "ids");
    for (int i = 0; i < 40; i++)
        cJSON_AddItemToArray(ids, cJSON_CreateNumber(i % 39));
    cJSON *bag = cJSON_GetObjectItem(cJSON_GetObjectItem(inst, "extra"), "bag");
    for (int i = 0; i < 300; i++) {
        char name[16];
        snprintf(name, sizeof(name), "k%d", i);
        cJSON_AddItemToObject(bag, name, cJSON_CreateNumber(i));
    }

    size_t total = 0;
    assert_int_equal(run_with_failure(doc, inst, 0, &total), DC_OK);
    assert_true(total > 50);
    for (size_t k = 1; k <= total; k++) {
        size_t seen = 0;
        enum dc_status rc = run_with_failure(doc, inst, k, &seen);
        if (rc != DC_ENOMEM)
            fail_msg("allocation %zu of %zu failing gave %s, expected DC_ENOMEM", k, total,
                     dc_status_name(rc));
    }
    cJSON_Delete(inst);
    cJSON_Delete(doc);
}

/* ---- Threads --------------------------------------------------------------- */

#define THREAD_ROUNDS 2000

struct thread_job {
    const api_schema *schema;
    const cJSON *valid;
    const cJSON *invalid;
    int failures;
};

static void *thread_main(void *arg)
{
    struct thread_job *job = arg;
    for (int i = 0; i < THREAD_ROUNDS; i++) {
        struct api_schema_result res;
        if (api_schema_validate(job->schema, job->valid, 0, &res, NULL) != DC_OK || !res.valid)
            job->failures++;
        api_schema_result_cleanup(&res);
        if (api_schema_validate(job->schema, job->invalid, 0, &res, NULL) != DC_OK || res.valid ||
            res.count != 3 || strcmp(res.items[0].pointer, "/task") != 0 ||
            strcmp(res.items[2].message, "unknown field \"gpu\"") != 0)
            job->failures++;
        api_schema_result_cleanup(&res);
    }
    return NULL;
}

static void test_two_threads(void **state)
{
    (void)state;
    cJSON *doc = json(openapi_doc);
    api_schema *s = compile_ok(doc, "#/components/schemas/Workload");
    cJSON *valid = json("{'task': 'training', 'name': 'x', 'model': {'parameters': 1e9},"
                        " 'constraints': {'providers': ['gcp'], 'deployment': 'cloud'},"
                        " 'tags': {'a': 'b'}}");
    cJSON *invalid = json("{'task': 'nope', 'model': {'parameters': 1, 'layers': 0, 'gpu': 1}}");
    struct thread_job jobs[2] = {{s, valid, invalid, 0}, {s, valid, invalid, 0}};
    pthread_t tid[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&tid[i], NULL, thread_main, &jobs[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(tid[i], NULL), 0);
    assert_int_equal(jobs[0].failures, 0);
    assert_int_equal(jobs[1].failures, 0);
    cJSON_Delete(valid);
    cJSON_Delete(invalid);
    api_schema_free(s);
    cJSON_Delete(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_entry_pointer),
        cmocka_unit_test(test_unresolvable_refs),
        cmocka_unit_test(test_ref_cycles),
        cmocka_unit_test(test_invalid_regex),
        cmocka_unit_test(test_malformed_keywords),
        cmocka_unit_test(test_workload_valid),
        cmocka_unit_test(test_workload_violations),
        cmocka_unit_test(test_max_errors),
        cmocka_unit_test(test_result_remove),
        cmocka_unit_test(test_pointer_escaping),
        cmocka_unit_test(test_keyword_messages),
        cmocka_unit_test(test_cross_field_rules),
        cmocka_unit_test(test_annotations_and_unknown_keywords),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_unique_items_large),
        cmocka_unit_test(test_refs_and_ids),
        cmocka_unit_test(test_recursion_limit),
        cmocka_unit_test(test_regex_dialect),
        cmocka_unit_test(test_uri_resolution),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_two_threads),
    };
    return cmocka_run_group_tests_name("schema", tests, NULL, NULL);
}
