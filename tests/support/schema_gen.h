/* tests/support/schema_gen.h -- the project's own generator of JSON instances
 * from a JSON Schema of the contract (openapi.yaml as a cJSON tree), for tests
 * that send many generated bodies: what schemathesis does for an OpenAPI
 * document, without its runtime.
 *
 * It follows $ref, type (one of a list), enum, const, the numeric bounds,
 * minLength/maxLength, properties, required, items, minItems/maxItems and
 * uniqueItems: every required property and each optional one with probability
 * `p_optional`; numbers at a bound, near one, or log-uniform between them (the
 * contract's ranges span 1 to 1e15, where a uniform draw would never leave the
 * top decade). What it does not try to satisfy (pattern, if/then,
 * dependentRequired, dependentSchemas, not, oneOf) the caller's validator
 * decides: a test keeps the instances the contract's own validator accepts.
 * A hook may give the value at a pointer (a registry name, a catalog id).
 * Deterministic for a seed. Include after cmocka.h. */
#ifndef AA_TEST_SCHEMA_GEN_H
#define AA_TEST_SCHEMA_GEN_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "api/openapi.h"

struct gen;
/* The value at `ptr` ("/model/name", "/constraints/accelerators/-" for any item),
 * or NULL for the schema's own. */
typedef cJSON *(*gen_hook)(void *ctx, const char *ptr, struct gen *g);

struct gen {
    uint64_t state;
    const cJSON *root; /* the document $refs resolve in */
    double p_optional;
    gen_hook hook;
    void *hook_ctx;
};

#define GEN_MAX_DEPTH 12

/* splitmix64: small, fast, and the same sequence everywhere. */
static inline uint64_t gen_next(struct gen *g)
{
    uint64_t z = (g->state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static inline double gen_unit(struct gen *g)
{
    return (double)(gen_next(g) >> 11) / 9007199254740992.0;
}

static inline size_t gen_below(struct gen *g, size_t n)
{
    return n == 0 ? 0 : (size_t)(gen_next(g) % n);
}

static inline const cJSON *gen_resolve(const struct gen *g, const cJSON *s)
{
    for (int i = 0; i < 16 && s != NULL; i++) {
        const cJSON *ref = cJSON_GetObjectItemCaseSensitive(s, "$ref");
        if (!cJSON_IsString(ref))
            return s;
        s = api_json_pointer_get(g->root, ref->valuestring);
    }
    return s;
}

static inline double gen_num_kw(const cJSON *s, const char *kw, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(s, kw);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* A number within the schema's bounds: a bound, next to one, or log-uniform. */
static inline cJSON *gen_number(struct gen *g, const cJSON *s, bool integer)
{
    double lo = gen_num_kw(s, "minimum", NAN), hi = gen_num_kw(s, "maximum", NAN);
    double xlo = gen_num_kw(s, "exclusiveMinimum", NAN),
           xhi = gen_num_kw(s, "exclusiveMaximum", NAN);
    double step = integer ? 1 : 1e-6;
    if (isnan(lo))
        lo = isnan(xlo) ? 0 : xlo + (integer ? 1 : fmax(step, fabs(xlo) * 1e-9));
    if (isnan(hi))
        hi = isnan(xhi) ? 1e6 : xhi - (integer ? 1 : fmax(step, fabs(xhi) * 1e-9));
    double v;
    switch (gen_below(g, 8)) {
    case 0:
        v = lo;
        break;
    case 1:
        v = hi;
        break;
    case 2:
        v = lo + (hi - lo) * gen_unit(g);
        break;
    default: {
        double a = fmax(lo, 1e-3), b = fmax(hi, a);
        v = exp(log(a) + (log(b) - log(a)) * gen_unit(g));
        if (lo <= 0 && gen_below(g, 4) == 0)
            v = lo;
    }
    }
    if (integer)
        v = round(v);
    v = fmin(fmax(v, lo), hi);
    return cJSON_CreateNumber(v);
}

static inline cJSON *gen_string(struct gen *g, const cJSON *s)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789-";
    size_t lo = (size_t)gen_num_kw(s, "minLength", 0), hi = (size_t)gen_num_kw(s, "maxLength", 24);
    if (hi > 24)
        hi = lo > 24 ? lo : 24;
    size_t n = lo + gen_below(g, hi - lo + 1);
    char buf[64];
    if (n >= sizeof(buf))
        n = sizeof(buf) - 1;
    for (size_t i = 0; i < n; i++)
        buf[i] = alphabet[gen_below(g, sizeof(alphabet) - (i == 0 ? 2 : 1))];
    buf[n] = '\0';
    return cJSON_CreateString(buf);
}

static inline cJSON *gen_value(struct gen *g, const cJSON *schema, const char *ptr, int depth);

static inline cJSON *gen_object(struct gen *g, const cJSON *s, const char *ptr, int depth)
{
    cJSON *obj = cJSON_CreateObject();
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(s, "required");
    const cJSON *p;
    cJSON_ArrayForEach(p, props)
    {
        bool required = false;
        const cJSON *r;
        cJSON_ArrayForEach(r, req) required |=
            cJSON_IsString(r) && strcmp(r->valuestring, p->string) == 0;
        if (!required && gen_unit(g) >= g->p_optional)
            continue;
        char sub[512];
        snprintf(sub, sizeof(sub), "%s/%s", ptr, p->string);
        cJSON *v = gen_value(g, p, sub, depth + 1);
        if (v != NULL)
            cJSON_AddItemToObject(obj, p->string, v);
    }
    return obj;
}

static inline cJSON *gen_array(struct gen *g, const cJSON *s, const char *ptr, int depth)
{
    cJSON *arr = cJSON_CreateArray();
    size_t lo = (size_t)gen_num_kw(s, "minItems", 0), hi = (size_t)gen_num_kw(s, "maxItems", 4);
    if (hi > lo + 4)
        hi = lo + 4;
    size_t n = lo + gen_below(g, hi - lo + 1);
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(s, "items");
    bool unique = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "uniqueItems"));
    char sub[512];
    snprintf(sub, sizeof(sub), "%s/-", ptr);
    for (size_t tries = 0; cJSON_GetArraySize(arr) < (int)n && tries < 4 * n + 4; tries++) {
        cJSON *v = items != NULL ? gen_value(g, items, sub, depth + 1) : cJSON_CreateNull();
        bool dup = false;
        const cJSON *x;
        cJSON_ArrayForEach(x, arr) dup |= unique && cJSON_Compare(x, v, true);
        if (dup || v == NULL) {
            cJSON_Delete(v);
            continue;
        }
        cJSON_AddItemToArray(arr, v);
    }
    return arr;
}

/* One instance of `schema` at `ptr` (pointer of the instance, for the hook). */
static inline cJSON *gen_value(struct gen *g, const cJSON *schema, const char *ptr, int depth)
{
    if (g->hook != NULL) {
        cJSON *v = g->hook(g->hook_ctx, ptr, g);
        if (v != NULL)
            return v;
    }
    const cJSON *s = gen_resolve(g, schema);
    if (s == NULL || depth > GEN_MAX_DEPTH)
        return cJSON_CreateNull();
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(s, "const");
    if (c != NULL)
        return cJSON_Duplicate(c, true);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(s, "enum");
    if (cJSON_IsArray(e) && cJSON_GetArraySize(e) > 0)
        return cJSON_Duplicate(
            cJSON_GetArrayItem(e, (int)gen_below(g, (size_t)cJSON_GetArraySize(e))), true);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(s, "type");
    if (cJSON_IsArray(t))
        t = cJSON_GetArrayItem(t, (int)gen_below(g, (size_t)cJSON_GetArraySize(t)));
    const char *type = cJSON_IsString(t)                                           ? t->valuestring
                       : cJSON_GetObjectItemCaseSensitive(s, "properties") != NULL ? "object"
                                                                                   : "null";
    if (strcmp(type, "object") == 0)
        return gen_object(g, s, ptr, depth);
    if (strcmp(type, "array") == 0)
        return gen_array(g, s, ptr, depth);
    if (strcmp(type, "integer") == 0 || strcmp(type, "number") == 0)
        return gen_number(g, s, strcmp(type, "integer") == 0 || gen_below(g, 2) == 0);
    if (strcmp(type, "string") == 0)
        return gen_string(g, s);
    if (strcmp(type, "boolean") == 0)
        return cJSON_CreateBool(gen_below(g, 2) == 0);
    return cJSON_CreateNull();
}

#endif
