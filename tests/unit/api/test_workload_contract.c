/* tests/unit/api/test_workload_contract.c -- one home for each fact of the
 * Workload, held as tests/unit/service/test_routes.c holds the routes: the
 * contract (openapi.yaml's Workload, as compiled into the binary), the
 * workload parser (core/src/workload/workload.c and core/src/vocab/model_object.c) and the fields
 * an explanation may change (core/src/explain/cf_fields.c) must agree on every field's name, every
 * number's bounds and whether it is an integer, and every enum's values; and the contract's
 * vocabularies (Family, Precision, Provider, Pricing, Capacity's basis, Regime, Quantization) are
 * core/src/vocab/names.c's tables, in order. A field, bound or value added to one side fails here
 * until the others have it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "api/openapi.h"
#include "cf_internal.h"
#include "dc/embedded.h"
#include "dc/workload.h"
#include "dc/ruleset.h"
#include "names.h"
#include "workload_internal.h"

static api_contract *contract;
static dc_ruleset *rules;

static int setup(void **state)
{
    (void)state;
    struct dc_error err;
    dc_error_clear(&err);
    if (api_contract_load_embedded(aa_embedded_files, &contract, &err) != DC_OK)
        return -1;
    return dc_ruleset_load_embedded(aa_embedded_files, &rules, NULL) == DC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    api_contract_free(contract);
    dc_ruleset_release(rules);
    return 0;
}

/* ---- the contract ----------------------------------------------------------------- */

static const cJSON *schema(const char *name)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(api_contract_root(contract), "components");
    const cJSON *s =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "schemas"), name);
    if (!cJSON_IsObject(s))
        fail_msg("the contract has no schema %s", name);
    return s;
}

/* A schema with its "$ref" (to #/components/schemas/NAME) followed. */
static const cJSON *resolve(const cJSON *s)
{
    for (int hops = 0; hops < 8; hops++) {
        const cJSON *ref = cJSON_GetObjectItemCaseSensitive(s, "$ref");
        if (!cJSON_IsString(ref))
            return s;
        const char *prefix = "#/components/schemas/";
        assert_int_equal(strncmp(ref->valuestring, prefix, strlen(prefix)), 0);
        s = schema(ref->valuestring + strlen(prefix));
    }
    fail_msg("a $ref chain longer than 8");
    return NULL;
}

static const cJSON *properties(const cJSON *s)
{
    return cJSON_GetObjectItemCaseSensitive(resolve(s), "properties");
}

/* The contract's schema of the Workload field or object at `pointer`. */
static const cJSON *contract_at(const char *pointer)
{
    const cJSON *s = schema("Workload");
    char seg[64];
    for (const char *p = pointer; *p == '/';) {
        const char *end = strchr(p + 1, '/');
        size_t n = end != NULL ? (size_t)(end - p - 1) : strlen(p + 1);
        assert_true(n < sizeof(seg));
        memcpy(seg, p + 1, n);
        seg[n] = '\0';
        s = cJSON_GetObjectItemCaseSensitive(properties(s), seg);
        if (s == NULL)
            fail_msg("the contract's Workload has no %s", pointer);
        p += n + 1;
    }
    return resolve(s);
}

static bool listed(const char *const *list, const char *s)
{
    for (size_t i = 0; list != NULL && list[i] != NULL; i++) {
        if (strcmp(list[i], s) == 0)
            return true;
    }
    return false;
}

static bool has_type(const cJSON *s, const char *type)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(s, "type");
    if (cJSON_IsString(t))
        return strcmp(t->valuestring, type) == 0;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, t)
    {
        if (cJSON_IsString(it) && strcmp(it->valuestring, type) == 0)
            return true;
    }
    return false;
}

/* ---- the parser ------------------------------------------------------------------- */

/* The smallest workload in which the parser reads the field at `pointer`. */
static cJSON *base_for(const char *pointer)
{
    const char *json = "{\"task\": \"training\", \"model\": {\"parameters\": 7e9}}";
    if (strncmp(pointer, "/training/rl/", 13) == 0)
        json = "{\"task\": \"fine-tuning\", \"model\": {\"parameters\": 7e9}, \"training\": "
               "{\"method\": \"rl\", \"rl\": {\"algorithm\": \"grpo\"}}}";
    else if (strncmp(pointer, "/training/", 10) == 0)
        json = "{\"task\": \"training\", \"model\": {\"parameters\": 7e9}, \"training\": {}}";
    else if (strncmp(pointer, "/inference/speculative/", 23) == 0)
        json = "{\"task\": \"inference\", \"model\": {\"parameters\": 7e9}, \"inference\": "
               "{\"speculative\": {\"draft_parameters\": 1e8, \"draft_tokens\": 4, "
               "\"acceptance_rate\": 0.7}}}";
    else if (strncmp(pointer, "/inference/job/", 15) == 0)
        json = "{\"task\": \"inference\", \"model\": {\"parameters\": 7e9}, \"inference\": "
               "{\"job\": {\"requests\": 1000, \"deadline_hours\": 10}}}";
    else if (strncmp(pointer, "/inference/", 11) == 0)
        json = "{\"task\": \"inference\", \"model\": {\"parameters\": 7e9}, \"inference\": {}}";
    else if (strncmp(pointer, "/constraints/", 13) == 0)
        json = "{\"task\": \"training\", \"model\": {\"parameters\": 7e9}, \"constraints\": {}}";
    else if (strncmp(pointer, "/team/", 6) == 0)
        json = "{\"task\": \"training\", \"model\": {\"parameters\": 7e9}, \"team\": {}}";
    cJSON *w = cJSON_Parse(json);
    assert_non_null(w);
    return w;
}

/* `w` with `v` (owned) at `pointer`, over what was there. */
static void put_at(cJSON *w, const char *pointer, cJSON *v)
{
    const char *last = strrchr(pointer, '/');
    cJSON *parent = w;
    char seg[64];
    for (const char *p = pointer; p < last;) {
        const char *end = strchr(p + 1, '/');
        size_t n = (size_t)(end - p - 1);
        memcpy(seg, p + 1, n);
        seg[n] = '\0';
        parent = cJSON_GetObjectItemCaseSensitive(parent, seg);
        assert_non_null(parent);
        p = end;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(parent, last + 1);
    assert_true(cJSON_AddItemToObject(parent, last + 1, v));
}

/* The parser's error for the base workload of `pointer` with `v` there
 * (DC_OK: none; err->where and err->msg say where and why). */
static enum dc_status parse_with(const char *pointer, cJSON *v, struct dc_error *err)
{
    cJSON *w = base_for(pointer);
    put_at(w, pointer, v);
    struct dc_workload out;
    dc_error_clear(err);
    enum dc_status rc = dc_workload_parse(rules, w, &out, err);
    cJSON_Delete(w);
    return rc;
}

/* Whether the parser says `what` of the field at `pointer` given number `x`. */
static bool says(const char *pointer, double x, const char *what)
{
    struct dc_error err;
    if (parse_with(pointer, cJSON_CreateNumber(x), &err) == DC_OK)
        return false;
    return strcmp(err.where, pointer) == 0 && strstr(err.msg, what) != NULL;
}

static bool says_str(const char *pointer, const char *s, const char *where, const char *what)
{
    struct dc_error err;
    if (parse_with(pointer, cJSON_CreateString(s), &err) == DC_OK)
        return false;
    return strcmp(err.where, where) == 0 && strstr(err.msg, what) != NULL;
}

/* ---- names ------------------------------------------------------------------------ */

/* The objects of a Workload, and each object's fields both ways. */
static const char *const objects[] = {"",
                                      "/model",
                                      "/training",
                                      "/training/rl",
                                      "/inference",
                                      "/inference/speculative",
                                      "/inference/job",
                                      "/constraints",
                                      "/team"};
#define N_OBJECTS (sizeof(objects) / sizeof(objects[0]))

static void test_field_names_agree(void **state)
{
    (void)state;
    size_t nested = 0;
    for (size_t i = 0; i < N_OBJECTS; i++) {
        const cJSON *props = properties(contract_at(objects[i]));
        const char *const *keys = dc__workload_keys(objects[i]);
        assert_non_null(props);
        if (keys == NULL)
            fail_msg("the parser has no fields for %s", objects[i]);
        const cJSON *p = NULL;
        cJSON_ArrayForEach(p, props)
        {
            if (!listed(keys, p->string))
                fail_msg("the contract's %s/%s is not a field the parser reads", objects[i],
                         p->string);
            if (properties(p) != NULL) {
                char sub[128];
                snprintf(sub, sizeof(sub), "%s/%s", objects[i], p->string);
                if (dc__workload_keys(sub) == NULL)
                    fail_msg("the contract's object %s has no fields in the parser", sub);
                nested++;
            }
        }
        for (size_t k = 0; keys[k] != NULL; k++) {
            if (cJSON_GetObjectItemCaseSensitive(props, keys[k]) == NULL)
                fail_msg("the parser reads %s/%s, which the contract does not have", objects[i],
                         keys[k]);
        }
    }
    /* Every object but the workload itself is nested in one above it. */
    assert_int_equal(nested, N_OBJECTS - 1);
    assert_null(dc__workload_keys("/nowhere"));
}

/* ---- numbers ---------------------------------------------------------------------- */

/* Each number of the contract, at and just past each of its bounds, and
 * between integers: the parser says "out of range" exactly past a bound and
 * "must be an integer" exactly where the contract says integer. */
static size_t check_number(const char *pointer, const cJSON *s)
{
    bool integer = has_type(s, "integer");
    const cJSON *min = cJSON_GetObjectItemCaseSensitive(s, "minimum");
    const cJSON *xmin = cJSON_GetObjectItemCaseSensitive(s, "exclusiveMinimum");
    const cJSON *max = cJSON_GetObjectItemCaseSensitive(s, "maximum");
    if (!cJSON_IsNumber(max) || cJSON_IsNumber(min) == cJSON_IsNumber(xmin))
        fail_msg("%s: the contract bounds every number with a maximum and one minimum", pointer);
    const char *oor = "out of range";
    double hi = max->valuedouble;
    if (says(pointer, hi, oor))
        fail_msg("%s: the parser refuses the contract's maximum %g", pointer, hi);
    /* The next integer, or the next double where integers are that sparse. */
    double past = integer && hi + 1 > hi ? hi + 1 : nextafter(hi, INFINITY);
    if (!says(pointer, past, oor))
        fail_msg("%s: the parser takes %.17g, past the contract's maximum %g", pointer, past, hi);
    double lo;
    if (cJSON_IsNumber(min)) {
        lo = min->valuedouble;
        if (says(pointer, lo, oor))
            fail_msg("%s: the parser refuses the contract's minimum %g", pointer, lo);
        double below = integer ? lo - 1 : nextafter(lo, -INFINITY);
        if (!says(pointer, below, oor))
            fail_msg("%s: the parser takes %.17g, below the contract's minimum %g", pointer, below,
                     lo);
    } else {
        lo = xmin->valuedouble;
        if (!says(pointer, lo, oor))
            fail_msg("%s: the parser takes %g, which the contract excludes", pointer, lo);
        double above = integer ? lo + 1 : nextafter(lo, INFINITY);
        if (says(pointer, above, oor))
            fail_msg("%s: the parser refuses %.17g, above the contract's exclusive minimum %g",
                     pointer, above, lo);
    }
    double half = floor(lo) + 1.5;
    if (half < hi && says(pointer, half, "integer") != integer)
        fail_msg("%s: the contract says %s, the parser %s %g", pointer,
                 integer ? "integer" : "number", integer ? "takes" : "refuses", half);
    return 1;
}

static void test_number_bounds_agree(void **state)
{
    (void)state;
    size_t checked = 0;
    for (size_t i = 0; i < N_OBJECTS; i++) {
        const cJSON *p = NULL;
        cJSON_ArrayForEach(p, properties(contract_at(objects[i])))
        {
            const cJSON *s = resolve(p);
            if (!has_type(s, "number") && !has_type(s, "integer"))
                continue;
            char pointer[128];
            snprintf(pointer, sizeof(pointer), "%s/%s", objects[i], p->string);
            checked += check_number(pointer, s);
        }
    }
    /* Most of the Workload is numbers: a walk that finds few went wrong. */
    assert_true(checked >= 40);
}

/* ---- enums ------------------------------------------------------------------------ */

static void check_enum(const char *pointer, const cJSON *values)
{
    const cJSON *v = NULL;
    cJSON_ArrayForEach(v, values)
    {
        if (says_str(pointer, v->valuestring, pointer, "unknown value"))
            fail_msg("%s: the parser does not know the contract's \"%s\"", pointer, v->valuestring);
    }
    if (!says_str(pointer, "no-such-value", pointer, "unknown value"))
        fail_msg("%s: the parser takes a value the contract does not list", pointer);
    /* Where the parser's table is reachable, it lists the contract's values
     * and no others. */
    const char *const *table = dc__workload_values(pointer);
    for (size_t k = 0; table != NULL && table[k] != NULL; k++) {
        bool found = false;
        cJSON_ArrayForEach(v, values) found = found || strcmp(v->valuestring, table[k]) == 0;
        if (!found)
            fail_msg("%s: the parser's \"%s\" is not the contract's", pointer, table[k]);
    }
}

static void test_enum_values_agree(void **state)
{
    (void)state;
    size_t checked = 0;
    for (size_t i = 0; i < N_OBJECTS; i++) {
        const cJSON *p = NULL;
        cJSON_ArrayForEach(p, properties(contract_at(objects[i])))
        {
            const cJSON *values = cJSON_GetObjectItemCaseSensitive(resolve(p), "enum");
            if (values == NULL)
                continue;
            char pointer[128];
            snprintf(pointer, sizeof(pointer), "%s/%s", objects[i], p->string);
            check_enum(pointer, values);
            checked++;
        }
    }
    assert_true(checked >= 15);
    /* The two lists of names: each of the contract's items taken, another not. */
    const cJSON *kinds = cJSON_GetObjectItemCaseSensitive(schema("ExplainKind"), "enum");
    const cJSON *v = NULL;
    cJSON_ArrayForEach(v, kinds)
    {
        struct dc_error err;
        cJSON *list = cJSON_CreateArray();
        cJSON_AddItemToArray(list, cJSON_CreateString(v->valuestring));
        if (parse_with("/explain", list, &err) != DC_OK && strncmp(err.where, "/explain", 8) == 0)
            fail_msg("/explain: the parser refuses the contract's \"%s\"", v->valuestring);
    }
    const cJSON *providers = cJSON_GetObjectItemCaseSensitive(schema("Provider"), "enum");
    cJSON_ArrayForEach(v, providers)
    {
        struct dc_error err;
        cJSON *list = cJSON_CreateArray();
        cJSON_AddItemToArray(list, cJSON_CreateString(v->valuestring));
        if (parse_with("/constraints/providers", list, &err) != DC_OK &&
            strcmp(err.where, "/constraints/providers") == 0)
            fail_msg("/constraints/providers: the parser refuses \"%s\"", v->valuestring);
    }
    struct dc_error err;
    cJSON *list = cJSON_CreateArray();
    cJSON_AddItemToArray(list, cJSON_CreateString("no-such-kind"));
    assert_int_equal(parse_with("/explain", list, &err), DC_EINVAL);
    assert_string_equal(err.where, "/explain/0");
}

/* ---- the counterfactual fields ------------------------------------------------------ */

static void test_counterfactual_fields_agree(void **state)
{
    (void)state;
    const cJSON *change = properties(schema("Change"));
    const cJSON *named =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(change, "field"), "enum");
    assert_non_null(named);
    size_t n = 0;
    const struct cf_field *f = cf__fields(&n);
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++, f++) {
        bool found = false;
        const cJSON *v = NULL;
        cJSON_ArrayForEach(v, named) found = found || strcmp(v->valuestring, f->pointer) == 0;
        if (!found)
            fail_msg("%s may be changed, but the contract's Change.field does not list it",
                     f->pointer);
        const cJSON *s = contract_at(f->pointer);
        switch (f->kind) {
        case CF_NUMBER: {
            const cJSON *min = cJSON_GetObjectItemCaseSensitive(s, "minimum");
            const cJSON *xmin = cJSON_GetObjectItemCaseSensitive(s, "exclusiveMinimum");
            const cJSON *max = cJSON_GetObjectItemCaseSensitive(s, "maximum");
            assert_true(cJSON_IsNumber(max));
            if (f->integer != has_type(s, "integer"))
                fail_msg("%s: integer in one, not in the other", f->pointer);
            /* cf_field's min is exclusive for a number, inclusive for an integer. */
            const cJSON *lo = f->integer ? min : xmin;
            if (!cJSON_IsNumber(lo) || lo->valuedouble != f->min || max->valuedouble != f->max)
                fail_msg("%s: bounds [%g, %g] differ from the contract's", f->pointer, f->min,
                         f->max);
            break;
        }
        case CF_ENUM: {
            const cJSON *values = cJSON_GetObjectItemCaseSensitive(s, "enum");
            const char *const *table = dc__workload_values(f->pointer);
            if (values == NULL || table == NULL)
                fail_msg("%s: an enum in the contract and in the parser", f->pointer);
            for (size_t k = 0; table[k] != NULL; k++) {
                bool in = false;
                cJSON_ArrayForEach(v, values) in = in || strcmp(v->valuestring, table[k]) == 0;
                if (!in)
                    fail_msg("%s: may become \"%s\", not the contract's", f->pointer, table[k]);
            }
            break;
        }
        case CF_LIST:
            if (!has_type(s, "array"))
                fail_msg("%s: a list here, not in the contract", f->pointer);
            break;
        case CF_BOOL:
            if (!has_type(s, "boolean"))
                fail_msg("%s: true or false here, not in the contract", f->pointer);
            break;
        }
    }
    /* And the other way: a value the contract lists but no explanation ever
     * proposes is a promise the server does not keep (/constraints/portable
     * stood there after cf_fields.c stopped proposing it). */
    const cJSON *v = NULL;
    cJSON_ArrayForEach(v, named)
    {
        if (cf__field(v->valuestring) == NULL)
            fail_msg("the contract's Change.field lists %s, which cf_fields.c never proposes",
                     v->valuestring);
    }
    assert_int_equal(cJSON_GetArraySize(named), n);
}

/* ---- the vocabularies ---------------------------------------------------------------- */

/* The contract's enum `values` is `name(0..n-1)`, in that order. */
static void same_list(const char *what, const cJSON *values, const char *(*name)(int), int n)
{
    assert_non_null(values);
    if (cJSON_GetArraySize(values) != n)
        fail_msg("%s: the contract lists %d values, names.c %d", what, cJSON_GetArraySize(values),
                 n);
    for (int i = 0; i < n; i++) {
        const char *c = cJSON_GetArrayItem(values, i)->valuestring;
        if (strcmp(c, name(i)) != 0)
            fail_msg("%s[%d]: the contract says %s, names.c %s", what, i, c, name(i));
    }
}

static const char *family(int i)
{
    return dc_family_name((enum dc_family)i);
}
static const char *precision(int i)
{
    return dc_precision_name((enum dc_precision)i);
}
static const char *provider(int i)
{
    return dc_provider_name((enum dc_provider)i);
}
static const char *pricing(int i)
{
    return dc_pricing_name((enum dc_pricing)i);
}
static const char *regime(int i)
{
    return dc_regime_name((enum dc_regime)i);
}
static const char *quantization(int i)
{
    return dc__quantization_name((enum dc_quantization)i);
}

static const cJSON *enum_of(const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(schema(name), "enum");
}

static void test_vocabularies_are_names_c(void **state)
{
    (void)state;
    same_list("Family", enum_of("Family"), family, DC_FAMILY_COUNT);
    same_list("Precision", enum_of("Precision"), precision, DC_PREC_COUNT);
    same_list("Provider", enum_of("Provider"), provider, DC_PROVIDER_COUNT);
    same_list("Pricing", enum_of("Pricing"), pricing, DC_PRICING_COUNT);
    same_list("Regime", enum_of("Regime"), regime, DC_REGIME_COUNT);
    same_list("Quantization", enum_of("Quantization"), quantization,
              cJSON_GetArraySize(enum_of("Quantization")));
    assert_null(dc__quantization_names[cJSON_GetArraySize(enum_of("Quantization"))]);
    /* Capacity's basis: the same names, in the contract's own order. */
    const cJSON *basis = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(properties(schema("Capacity")), "basis"), "enum");
    assert_int_equal(cJSON_GetArraySize(basis), DC_BASIS_COUNT);
    const cJSON *v = NULL;
    cJSON_ArrayForEach(v, basis)
    {
        enum dc_basis b;
        if (!dc_basis_parse(v->valuestring, &b) || strcmp(dc_basis_name(b), v->valuestring) != 0)
            fail_msg("Capacity.basis: names.c does not know \"%s\"", v->valuestring);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_field_names_agree),
        cmocka_unit_test(test_number_bounds_agree),
        cmocka_unit_test(test_enum_values_agree),
        cmocka_unit_test(test_counterfactual_fields_agree),
        cmocka_unit_test(test_vocabularies_are_names_c),
    };
    return cmocka_run_group_tests_name("workload_contract", tests, setup, teardown);
}
