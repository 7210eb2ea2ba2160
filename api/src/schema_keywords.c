/* api/src/schema_keywords.c -- the JSON Schema draft 2020-12 vocabulary this
 * validator acts on: the one keyword table, which names for each keyword the
 * function that compiles its value into a node (below), the check that
 * enforces it when validating (schema_validate.c) and where its value holds
 * subschemas; and api_schema_compile (api/schema.h), which compiles a document
 * with this table (schema_compile.c). Supported keywords, conformance and
 * exclusions are in docs/json-schema.md.
 *
 * A keyword's function only decodes its own value, checking its shape ("must
 * be a non-negative integer"), and hands each subschema back to the compiler. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "schema_compile.h"

/* Longest text of allowed values in an enum message before it is cut. */
#define SCH_ENUM_MSG_MAX 240
/* Objects declaring more properties than this get a hash index. */
#define SCH_PROP_HASH_MIN 8

/* ---- Keyword values ------------------------------------------------------- */

static enum dc_status want_number(struct api__sch_compiler *cc, const cJSON *v, const char *kw,
                                  double *out)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return api__sch_cerr(cc, "\"%s\" must be a number", kw);
    *out = v->valuedouble;
    return DC_OK;
}

/* A non-negative integer (1.0 counts), saturated at SIZE_MAX. */
static enum dc_status want_count(struct api__sch_compiler *cc, const cJSON *v, const char *kw,
                                 size_t *out)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
        floor(v->valuedouble) != v->valuedouble)
        return api__sch_cerr(cc, "\"%s\" must be a non-negative integer", kw);
    *out = v->valuedouble >= (double)SIZE_MAX ? SIZE_MAX : (size_t)v->valuedouble;
    return DC_OK;
}

static enum dc_status child(struct api__sch_compiler *cc, const cJSON *v, const char *base,
                            struct api__sch_node **out)
{
    return api__sch_compile_schema(cc, v, base, out);
}

static enum dc_status child_at_key(struct api__sch_compiler *cc, const cJSON *v, const char *key,
                                   const char *base, struct api__sch_node **out)
{
    size_t saved = 0;
    enum dc_status rc = api__sch_path_push(cc, key, &saved);
    if (rc != DC_OK)
        return rc;
    rc = api__sch_compile_schema(cc, v, base, out);
    api__sch_path_pop(cc, saved);
    return rc;
}

/* A non-empty array of schemas (allOf, anyOf, oneOf, prefixItems). */
static enum dc_status schema_array(struct api__sch_compiler *cc, const cJSON *v, const char *kw,
                                   const char *base, struct api__sch_node ***out, size_t *n)
{
    size_t count = (size_t)cJSON_GetArraySize(v);
    if (!cJSON_IsArray(v) || count == 0)
        return api__sch_cerr(cc, "\"%s\" must be a non-empty array of schemas", kw);
    struct api__sch_node **arr = api__sch_alloc(cc, count * sizeof(*arr));
    if (arr == NULL)
        return api__sch_nomem(cc);
    size_t i = 0;
    for (const cJSON *x = v->child; x != NULL; x = x->next, i++) {
        size_t saved = 0;
        enum dc_status rc = api__sch_path_push_index(cc, i, &saved);
        if (rc == DC_OK)
            rc = api__sch_compile_schema(cc, x, base, &arr[i]);
        if (rc != DC_OK)
            return rc;
        api__sch_path_pop(cc, saved);
    }
    *out = arr;
    *n = count;
    return DC_OK;
}

/* An object whose values are schemas (properties, dependentSchemas). */
static enum dc_status schema_map(struct api__sch_compiler *cc, const cJSON *v, const char *kw,
                                 const char *base, struct api__sch_prop **out, size_t *n)
{
    if (!cJSON_IsObject(v))
        return api__sch_cerr(cc, "\"%s\" must be an object whose values are schemas", kw);
    size_t count = (size_t)cJSON_GetArraySize(v);
    struct api__sch_prop *arr = api__sch_alloc(cc, (count != 0 ? count : 1) * sizeof(*arr));
    if (arr == NULL)
        return api__sch_nomem(cc);
    size_t i = 0;
    for (const cJSON *x = v->child; x != NULL; x = x->next, i++) {
        arr[i].name = api__sch_strdup(cc, x->string);
        if (arr[i].name == NULL)
            return api__sch_nomem(cc);
        enum dc_status rc = child_at_key(cc, x, x->string, base, &arr[i].schema);
        if (rc != DC_OK)
            return rc;
    }
    *out = arr;
    *n = count;
    return DC_OK;
}

/* An array of strings (required, dependentRequired values). */
static enum dc_status string_array(struct api__sch_compiler *cc, const cJSON *v, const char *kw,
                                   const char ***out, size_t *n)
{
    if (!cJSON_IsArray(v))
        return api__sch_cerr(cc, "\"%s\" must be an array of strings", kw);
    size_t count = (size_t)cJSON_GetArraySize(v);
    const char **arr = api__sch_alloc(cc, (count != 0 ? count : 1) * sizeof(*arr));
    if (arr == NULL)
        return api__sch_nomem(cc);
    size_t i = 0;
    for (const cJSON *x = v->child; x != NULL; x = x->next, i++) {
        if (!cJSON_IsString(x))
            return api__sch_cerr(cc, "\"%s\" must be an array of strings (item %zu is not)", kw, i);
        arr[i] = api__sch_strdup(cc, x->valuestring);
        if (arr[i] == NULL)
            return api__sch_nomem(cc);
    }
    *out = arr;
    *n = count;
    return DC_OK;
}

/* ---- Keywords ------------------------------------------------------------- */

static enum dc_status kw_type(struct api__sch_compiler *cc, struct api__sch_node *n, const cJSON *v,
                              const char *base)
{
    static const struct {
        const char *name;
        unsigned bits;
    } names[] = {
        {"null", SCH_T_NULL},       {"boolean", SCH_T_BOOLEAN}, {"object", SCH_T_OBJECT},
        {"array", SCH_T_ARRAY},     {"number", SCH_T_NUMBER},   {"string", SCH_T_STRING},
        {"integer", SCH_T_INTEGER},
    };
    (void)base;
    if (!cJSON_IsString(v) && !cJSON_IsArray(v))
        return api__sch_cerr(cc, "\"type\" must be a type name or an array of type names");
    unsigned types = 0;
    const cJSON *t = cJSON_IsString(v) ? v : v->child;
    for (; t != NULL; t = cJSON_IsString(v) ? NULL : t->next) {
        unsigned bit = 0;
        for (size_t i = 0; i < SCH_COUNT(names) && cJSON_IsString(t); i++) {
            if (strcmp(names[i].name, t->valuestring) == 0)
                bit = names[i].bits;
        }
        if (bit == 0) {
            char q[SCH_QUOTE_MAX + 16];
            api__sch_json_print(t, q, sizeof(q));
            return api__sch_cerr(
                cc,
                "\"type\": unknown type %s (expected null, boolean, object, array, "
                "number, string or integer)",
                q);
        }
        types |= bit;
    }
    n->has |= SCH_HAS_TYPE;
    n->types = (uint8_t)types;
    return DC_OK;
}

static enum dc_status kw_enum(struct api__sch_compiler *cc, struct api__sch_node *n, const cJSON *v,
                              const char *base)
{
    (void)base;
    if (!cJSON_IsArray(v))
        return api__sch_cerr(cc, "\"enum\" must be an array");
    /* "must be one of: a, b, c": strings bare, as users type them; other
     * values as JSON. */
    char msg[SCH_ENUM_MSG_MAX + 64];
    size_t pos = (size_t)snprintf(msg, sizeof(msg), "%s",
                                  v->child == NULL ? "must be one of: (no value is allowed)"
                                                   : "must be one of: ");
    for (const cJSON *x = v->child; x != NULL; x = x->next) {
        char item[SCH_ENUM_MSG_MAX];
        if (cJSON_IsString(x) && x->valuestring[0] != '\0' && strchr(x->valuestring, ',') == NULL &&
            strlen(x->valuestring) < sizeof(item))
            snprintf(item, sizeof(item), "%s", x->valuestring);
        else
            api__sch_json_print(x, item, sizeof(item));
        const char *sep = x == v->child ? "" : ", ";
        if (pos + strlen(sep) + strlen(item) > SCH_ENUM_MSG_MAX) {
            snprintf(msg + pos, sizeof(msg) - pos, "%s...", sep);
            break;
        }
        pos += (size_t)snprintf(msg + pos, sizeof(msg) - pos, "%s%s", sep, item);
    }
    n->enum_msg = api__sch_strdup(cc, msg);
    if (n->enum_msg == NULL)
        return api__sch_nomem(cc);
    n->enum_values = v;
    return DC_OK;
}

static enum dc_status kw_const(struct api__sch_compiler *cc, struct api__sch_node *n,
                               const cJSON *v, const char *base)
{
    (void)base;
    char text[SCH_ENUM_MSG_MAX];
    char msg[SCH_ENUM_MSG_MAX + 16];
    api__sch_json_print(v, text, sizeof(text));
    snprintf(msg, sizeof(msg), "must be %s", text);
    n->const_msg = api__sch_strdup(cc, msg);
    if (n->const_msg == NULL)
        return api__sch_nomem(cc);
    n->const_value = v;
    return DC_OK;
}

#define SCH_NUMBER_KW(fn, kwname, field, bit)                                                      \
    static enum dc_status fn(struct api__sch_compiler *cc, struct api__sch_node *n,                \
                             const cJSON *v, const char *base)                                     \
    {                                                                                              \
        (void)base;                                                                                \
        n->has |= (bit);                                                                           \
        return want_number(cc, v, kwname, &n->field);                                              \
    }
SCH_NUMBER_KW(kw_minimum, "minimum", minimum, SCH_HAS_MINIMUM)
SCH_NUMBER_KW(kw_maximum, "maximum", maximum, SCH_HAS_MAXIMUM)
SCH_NUMBER_KW(kw_exmin, "exclusiveMinimum", exmin, SCH_HAS_EXMIN)
SCH_NUMBER_KW(kw_exmax, "exclusiveMaximum", exmax, SCH_HAS_EXMAX)

#define SCH_COUNT_KW(fn, kwname, field, bit)                                                       \
    static enum dc_status fn(struct api__sch_compiler *cc, struct api__sch_node *n,                \
                             const cJSON *v, const char *base)                                     \
    {                                                                                              \
        (void)base;                                                                                \
        n->has |= (bit);                                                                           \
        return want_count(cc, v, kwname, &n->field);                                               \
    }
SCH_COUNT_KW(kw_min_length, "minLength", min_length, SCH_HAS_MINLEN)
SCH_COUNT_KW(kw_max_length, "maxLength", max_length, SCH_HAS_MAXLEN)
SCH_COUNT_KW(kw_min_items, "minItems", min_items, SCH_HAS_MINITEMS)
SCH_COUNT_KW(kw_max_items, "maxItems", max_items, SCH_HAS_MAXITEMS)
SCH_COUNT_KW(kw_min_contains, "minContains", min_contains, SCH_HAS_MINCONTAINS)
SCH_COUNT_KW(kw_max_contains, "maxContains", max_contains, SCH_HAS_MAXCONTAINS)
SCH_COUNT_KW(kw_min_props, "minProperties", min_props, SCH_HAS_MINPROPS)
SCH_COUNT_KW(kw_max_props, "maxProperties", max_props, SCH_HAS_MAXPROPS)

static enum dc_status kw_multiple_of(struct api__sch_compiler *cc, struct api__sch_node *n,
                                     const cJSON *v, const char *base)
{
    (void)base;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble <= 0)
        return api__sch_cerr(cc, "\"multipleOf\" must be a number greater than 0");
    n->multiple_of = v->valuedouble;
    n->has |= SCH_HAS_MULTIPLE;
    return DC_OK;
}

static enum dc_status kw_unique(struct api__sch_compiler *cc, struct api__sch_node *n,
                                const cJSON *v, const char *base)
{
    (void)base;
    if (!cJSON_IsBool(v))
        return api__sch_cerr(cc, "\"uniqueItems\" must be true or false");
    if (cJSON_IsTrue(v))
        n->has |= SCH_HAS_UNIQUE;
    return DC_OK;
}

static enum dc_status kw_pattern(struct api__sch_compiler *cc, struct api__sch_node *n,
                                 const cJSON *v, const char *base)
{
    char msg[128];
    (void)base;
    if (!cJSON_IsString(v))
        return api__sch_cerr(cc, "\"pattern\" must be a string");
    enum dc_status rc = api__sch_regex_compile(v->valuestring, &n->pattern, msg, sizeof(msg));
    if (rc == DC_ENOMEM)
        return api__sch_nomem(cc);
    if (rc != DC_OK)
        return api__sch_cerr(cc, "\"pattern\" is not a supported regular expression: %s", msg);
    n->pattern_src = api__sch_strdup(cc, v->valuestring);
    return n->pattern_src != NULL ? DC_OK : api__sch_nomem(cc);
}

static enum dc_status kw_ref(struct api__sch_compiler *cc, struct api__sch_node *n, const cJSON *v,
                             const char *base)
{
    return api__sch_add_ref(cc, n, v, base, false);
}

static enum dc_status kw_dynamic_ref(struct api__sch_compiler *cc, struct api__sch_node *n,
                                     const cJSON *v, const char *base)
{
    return api__sch_add_ref(cc, n, v, base, true);
}

static enum dc_status kw_unsupported(struct api__sch_compiler *cc, struct api__sch_node *n,
                                     const cJSON *v, const char *base)
{
    (void)n;
    (void)base;
    /* Ignoring these would silently accept what the schema author meant to
     * reject, so they fail loudly instead. */
    return api__sch_cerr(cc, "keyword \"%s\" is not supported by this validator", v->string);
}

static enum dc_status kw_properties(struct api__sch_compiler *cc, struct api__sch_node *n,
                                    const cJSON *v, const char *base)
{
    enum dc_status rc = schema_map(cc, v, "properties", base, &n->props, &n->nprops);
    if (rc != DC_OK || n->nprops <= SCH_PROP_HASH_MIN)
        return rc;
    size_t cap = 16;
    while (cap < n->nprops * 2)
        cap *= 2;
    n->prop_index = api__sch_alloc(cc, cap * sizeof(*n->prop_index));
    if (n->prop_index == NULL)
        return api__sch_nomem(cc);
    n->prop_index_cap = cap;
    for (size_t i = 0; i < n->nprops; i++) {
        size_t slot = api__sch_name_hash(n->props[i].name) & (cap - 1);
        while (n->prop_index[slot] != 0)
            slot = (slot + 1) & (cap - 1);
        n->prop_index[slot] = (uint32_t)(i + 1);
    }
    return DC_OK;
}

static enum dc_status kw_pattern_props(struct api__sch_compiler *cc, struct api__sch_node *n,
                                       const cJSON *v, const char *base)
{
    if (!cJSON_IsObject(v))
        return api__sch_cerr(cc,
                             "\"patternProperties\" must be an object whose values are schemas");
    size_t count = (size_t)cJSON_GetArraySize(v);
    n->patterns = api__sch_alloc(cc, (count != 0 ? count : 1) * sizeof(*n->patterns));
    if (n->patterns == NULL)
        return api__sch_nomem(cc);
    for (const cJSON *x = v->child; x != NULL; x = x->next) {
        char msg[128];
        struct api__sch_pattern *p = &n->patterns[n->npatterns];
        enum dc_status rc = api__sch_regex_compile(x->string, &p->re, msg, sizeof(msg));
        if (rc == DC_ENOMEM)
            return api__sch_nomem(cc);
        if (rc != DC_OK)
            return api__sch_cerr(cc,
                                 "\"patternProperties\": \"%s\" is not a supported regular "
                                 "expression: %s",
                                 x->string, msg);
        /* Counted now so api_schema_free releases the regex even if the
         * subschema fails to compile. */
        n->npatterns++;
        rc = child_at_key(cc, x, x->string, base, &p->schema);
        if (rc != DC_OK)
            return rc;
    }
    return DC_OK;
}

static enum dc_status kw_additional(struct api__sch_compiler *cc, struct api__sch_node *n,
                                    const cJSON *v, const char *base)
{
    return child(cc, v, base, &n->additional);
}

static enum dc_status kw_property_names(struct api__sch_compiler *cc, struct api__sch_node *n,
                                        const cJSON *v, const char *base)
{
    return child(cc, v, base, &n->property_names);
}

static enum dc_status kw_required(struct api__sch_compiler *cc, struct api__sch_node *n,
                                  const cJSON *v, const char *base)
{
    const char **names = NULL;
    size_t count = 0;
    (void)base;
    enum dc_status rc = string_array(cc, v, "required", &names, &count);
    if (rc != DC_OK)
        return rc;
    n->required = api__sch_alloc(cc, (count != 0 ? count : 1) * sizeof(*n->required));
    if (n->required == NULL)
        return api__sch_nomem(cc);
    for (size_t i = 0; i < count; i++) {
        n->required[i].name = names[i];
        n->required[i].prop = SIZE_MAX; /* linked to properties once the node is complete */
    }
    n->nrequired = count;
    return DC_OK;
}

static enum dc_status kw_dep_required(struct api__sch_compiler *cc, struct api__sch_node *n,
                                      const cJSON *v, const char *base)
{
    (void)base;
    if (!cJSON_IsObject(v))
        return api__sch_cerr(cc,
                             "\"dependentRequired\" must be an object whose values are arrays of "
                             "strings");
    size_t count = (size_t)cJSON_GetArraySize(v);
    n->dep_required = api__sch_alloc(cc, (count != 0 ? count : 1) * sizeof(*n->dep_required));
    if (n->dep_required == NULL)
        return api__sch_nomem(cc);
    for (const cJSON *x = v->child; x != NULL; x = x->next) {
        struct api__sch_dep_required *d = &n->dep_required[n->ndep_required];
        size_t saved = 0;
        enum dc_status rc = api__sch_path_push(cc, x->string, &saved);
        if (rc == DC_OK)
            rc = string_array(cc, x, "dependentRequired", &d->names, &d->nnames);
        if (rc != DC_OK)
            return rc;
        api__sch_path_pop(cc, saved);
        d->name = api__sch_strdup(cc, x->string);
        if (d->name == NULL)
            return api__sch_nomem(cc);
        n->ndep_required++;
    }
    return DC_OK;
}

static enum dc_status kw_dep_schemas(struct api__sch_compiler *cc, struct api__sch_node *n,
                                     const cJSON *v, const char *base)
{
    return schema_map(cc, v, "dependentSchemas", base, &n->dep_schemas, &n->ndep_schemas);
}

static enum dc_status kw_items(struct api__sch_compiler *cc, struct api__sch_node *n,
                               const cJSON *v, const char *base)
{
    if (cJSON_IsArray(v))
        return api__sch_cerr(cc,
                             "\"items\" must be a schema (draft 2020-12 uses \"prefixItems\" for "
                             "tuples)");
    return child(cc, v, base, &n->items);
}

static enum dc_status kw_prefix_items(struct api__sch_compiler *cc, struct api__sch_node *n,
                                      const cJSON *v, const char *base)
{
    return schema_array(cc, v, "prefixItems", base, &n->prefix, &n->nprefix);
}

static enum dc_status kw_contains(struct api__sch_compiler *cc, struct api__sch_node *n,
                                  const cJSON *v, const char *base)
{
    return child(cc, v, base, &n->contains);
}

/* allOf, and x-cross-field-rules (below) on the same node: one list, in the order the
 * keywords come. */
static enum dc_status append_all_of(struct api__sch_compiler *cc, struct api__sch_node *n,
                                    const cJSON *v, const char *kw, const char *base)
{
    struct api__sch_node **more = NULL;
    size_t nmore = 0;
    enum dc_status rc = schema_array(cc, v, kw, base, &more, &nmore);
    if (rc != DC_OK)
        return rc;
    if (n->nall_of == 0) {
        n->all_of = more;
        n->nall_of = nmore;
        return DC_OK;
    }
    struct api__sch_node **all = api__sch_alloc(cc, (n->nall_of + nmore) * sizeof(*all));
    if (all == NULL)
        return api__sch_nomem(cc);
    memcpy(all, n->all_of, n->nall_of * sizeof(*all));
    memcpy(all + n->nall_of, more, nmore * sizeof(*all));
    n->all_of = all;
    n->nall_of += nmore;
    return DC_OK;
}

static enum dc_status kw_all_of(struct api__sch_compiler *cc, struct api__sch_node *n,
                                const cJSON *v, const char *base)
{
    return append_all_of(cc, n, v, "allOf", base);
}

/* x-cross-field-rules: this validator's extension keyword, applied exactly as allOf.
 * openapi.yaml states its cross-field rules (a field that belongs to another
 * architecture, one of a pair without the other) with it, so the server checks them
 * while schema-driven generators and linters, which ignore x- keywords, see a schema
 * without if/then chains (docs/api.md, "Cross-field rules"). */
static enum dc_status kw_cross_field_rules(struct api__sch_compiler *cc, struct api__sch_node *n,
                                           const cJSON *v, const char *base)
{
    return append_all_of(cc, n, v, "x-cross-field-rules", base);
}

static enum dc_status kw_any_of(struct api__sch_compiler *cc, struct api__sch_node *n,
                                const cJSON *v, const char *base)
{
    return schema_array(cc, v, "anyOf", base, &n->any_of, &n->nany_of);
}

static enum dc_status kw_one_of(struct api__sch_compiler *cc, struct api__sch_node *n,
                                const cJSON *v, const char *base)
{
    return schema_array(cc, v, "oneOf", base, &n->one_of, &n->none_of);
}

static enum dc_status kw_not(struct api__sch_compiler *cc, struct api__sch_node *n, const cJSON *v,
                             const char *base)
{
    return child(cc, v, base, &n->not_schema);
}

static enum dc_status kw_if(struct api__sch_compiler *cc, struct api__sch_node *n, const cJSON *v,
                            const char *base)
{
    return child(cc, v, base, &n->if_schema);
}

static enum dc_status kw_then(struct api__sch_compiler *cc, struct api__sch_node *n, const cJSON *v,
                              const char *base)
{
    return child(cc, v, base, &n->then_schema);
}

static enum dc_status kw_else(struct api__sch_compiler *cc, struct api__sch_node *n, const cJSON *v,
                              const char *base)
{
    return child(cc, v, base, &n->else_schema);
}

static enum dc_status kw_uneval_props(struct api__sch_compiler *cc, struct api__sch_node *n,
                                      const cJSON *v, const char *base)
{
    return child(cc, v, base, &n->uneval_props);
}

static enum dc_status kw_uneval_items(struct api__sch_compiler *cc, struct api__sch_node *n,
                                      const cJSON *v, const char *base)
{
    return child(cc, v, base, &n->uneval_items);
}

/* ---- The table ----------------------------------------------------------------- */

/* Every keyword the validator acts on, and those only scanned for $id and
 * $anchor names (no compile function). Anything else is an annotation or an
 * unknown keyword and is ignored, as the specification asks ("format",
 * "title", "default", "description", "examples", OpenAPI's "discriminator",
 * "xml", "example", ...). The order of the checks, and so of a node's
 * violations, is api__sch_checks' (schema_validate.c), not this table's. */
static const struct api__sch_keyword keywords[] = {
    /* References. */
    {"$ref", 0, kw_ref, api__sch_check_ref},
    {"$dynamicRef", 0, kw_dynamic_ref, api__sch_check_dynamic_ref},
    {"$recursiveRef", 0, kw_unsupported, NULL},
    /* Any instance. */
    {"type", 0, kw_type, api__sch_check_type},
    {"enum", 0, kw_enum, api__sch_check_enum},
    {"const", 0, kw_const, api__sch_check_const},
    /* Numbers. */
    {"minimum", 0, kw_minimum, api__sch_check_number},
    {"maximum", 0, kw_maximum, api__sch_check_number},
    {"exclusiveMinimum", 0, kw_exmin, api__sch_check_number},
    {"exclusiveMaximum", 0, kw_exmax, api__sch_check_number},
    {"multipleOf", 0, kw_multiple_of, api__sch_check_number},
    /* Strings. */
    {"minLength", 0, kw_min_length, api__sch_check_string},
    {"maxLength", 0, kw_max_length, api__sch_check_string},
    {"pattern", 0, kw_pattern, api__sch_check_string},
    /* Arrays. */
    {"items", SCH_SUB_SCHEMA | SCH_SUB_ARRAY, kw_items, api__sch_check_array},
    {"prefixItems", SCH_SUB_ARRAY, kw_prefix_items, api__sch_check_array},
    {"contains", SCH_SUB_SCHEMA, kw_contains, api__sch_check_array},
    {"minContains", 0, kw_min_contains, api__sch_check_array},
    {"maxContains", 0, kw_max_contains, api__sch_check_array},
    {"minItems", 0, kw_min_items, api__sch_check_array},
    {"maxItems", 0, kw_max_items, api__sch_check_array},
    {"uniqueItems", 0, kw_unique, api__sch_check_array},
    /* Objects. */
    {"properties", SCH_SUB_MAP, kw_properties, api__sch_check_object},
    {"patternProperties", SCH_SUB_MAP, kw_pattern_props, api__sch_check_object},
    {"additionalProperties", SCH_SUB_SCHEMA, kw_additional, api__sch_check_object},
    {"propertyNames", SCH_SUB_SCHEMA, kw_property_names, api__sch_check_object},
    {"required", 0, kw_required, api__sch_check_object},
    {"minProperties", 0, kw_min_props, api__sch_check_object},
    {"maxProperties", 0, kw_max_props, api__sch_check_object},
    {"dependentRequired", 0, kw_dep_required, api__sch_check_object},
    {"dependentSchemas", SCH_SUB_MAP, kw_dep_schemas, api__sch_check_object},
    /* Applicators. */
    {"allOf", SCH_SUB_ARRAY, kw_all_of, api__sch_check_all_of},
    {"x-cross-field-rules", SCH_SUB_ARRAY, kw_cross_field_rules, api__sch_check_all_of},
    {"anyOf", SCH_SUB_ARRAY, kw_any_of, api__sch_check_any_of},
    {"oneOf", SCH_SUB_ARRAY, kw_one_of, api__sch_check_one_of},
    {"not", SCH_SUB_SCHEMA, kw_not, api__sch_check_not},
    {"if", SCH_SUB_SCHEMA, kw_if, api__sch_check_if},
    {"then", SCH_SUB_SCHEMA, kw_then, api__sch_check_if},
    {"else", SCH_SUB_SCHEMA, kw_else, api__sch_check_if},
    /* Unevaluated locations. */
    {"unevaluatedItems", SCH_SUB_SCHEMA, kw_uneval_items, api__sch_check_unevaluated},
    {"unevaluatedProperties", SCH_SUB_SCHEMA, kw_uneval_props, api__sch_check_unevaluated},
    /* Only scanned: names inside them can still be $ref targets. */
    {"$defs", SCH_SUB_MAP, NULL, NULL},
    {"definitions", SCH_SUB_MAP, NULL, NULL},
    {"contentSchema", SCH_SUB_SCHEMA, NULL, NULL},
    {"additionalItems", SCH_SUB_SCHEMA, NULL, NULL},
};

enum dc_status api_schema_compile(const cJSON *root, const char *entry, api_schema **out,
                                  struct dc_error *err)
{
    return api__sch_compile(root, entry, keywords, SCH_COUNT(keywords), out, err);
}
