/* core/src/vocab/field_read.h -- checked reads of the fields of a workload's JSON
 * objects, each error naming its field by JSON Pointer ("/model/layers"):
 * unknown keys, enums, numbers in range, booleans. Shared by the workload
 * parser (workload.c) and the model object's (model_object.c), which read
 * fields alike; inline so that each keeps its calls as they read. Not part of
 * the public API. */
#ifndef DC_FIELD_READ_H
#define DC_FIELD_READ_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dc/workload.h"

/* dc__member(obj, key), its walk the same (the first
 * member of that name; none past a member without one), with the first byte
 * compared before strcmp: a workload is parsed by some 170 lookups a request,
 * most of them of keys it does not give, each compared with every member. */
static inline cJSON *dc__member(const cJSON *obj, const char *key)
{
    if (obj == NULL || key == NULL)
        return NULL;
    cJSON *c = obj->child;
    while (c != NULL && c->string != NULL &&
           (c->string[0] != key[0] || strcmp(key, c->string) != 0))
        c = c->next;
    return c != NULL && c->string != NULL ? c : NULL;
}

static inline enum dc_status bad(struct dc_error *err, const char *section, const char *key,
                                 const char *fmt, ...) DC_PRINTF(4, 5);

static inline enum dc_status bad(struct dc_error *err, const char *section, const char *key,
                                 const char *fmt, ...)
{
    char where[DC_ERROR_WHERE_MAX];
    char msg[DC_ERROR_MSG_MAX];
    if (section != NULL)
        snprintf(where, sizeof(where), "/%s/%s", section, key);
    else
        snprintf(where, sizeof(where), "/%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return dc_error_set(err, DC_EINVAL, where, "%s", msg);
}

static inline enum dc_status check_keys(const cJSON *obj, const char *section,
                                        const char *const *keys, struct dc_error *err)
{
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, obj)
    {
        bool ok = false;
        for (size_t i = 0; keys[i] != NULL && !ok; i++)
            ok = strcmp(it->string, keys[i]) == 0;
        if (!ok)
            return bad(err, section, it->string, "unknown field \"%s\"", it->string);
    }
    return DC_OK;
}

/* The entry of `allowed` equal to `s`, or NULL. Results always point into the
 * table, so enum_index can compare pointers. */
static inline const char *table_entry(const char *const *allowed, const char *s)
{
    for (size_t i = 0; s != NULL && allowed[i] != NULL; i++) {
        if (strcmp(s, allowed[i]) == 0)
            return allowed[i];
    }
    return NULL;
}

static inline enum dc_status get_enum(const cJSON *obj, const char *sec, const char *key,
                                      const char *const *allowed, const char *dflt,
                                      const char **out, struct dc_error *err)
{
    const cJSON *v = dc__member(obj, key);
    *out = table_entry(allowed, dflt);
    if (v == NULL)
        return *out != NULL ? DC_OK : bad(err, sec, key, "required field \"%s\" is missing", key);
    if (!cJSON_IsString(v))
        return bad(err, sec, key, "%s must be a string", key);
    *out = table_entry(allowed, v->valuestring);
    return *out != NULL ? DC_OK : bad(err, sec, key, "unknown value for %s", key);
}

/* A number in (lo, hi] (exclusive_lo) or [lo, hi]; NAN default when absent. */
static inline enum dc_status get_num(const cJSON *obj, const char *sec, const char *key, double lo,
                                     bool exclusive_lo, double hi, bool integer, double dflt,
                                     double *out, struct dc_error *err)
{
    const cJSON *v = dc__member(obj, key);
    *out = dflt;
    if (v == NULL)
        return DC_OK;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return bad(err, sec, key, "%s must be a number", key);
    double d = v->valuedouble;
    if ((exclusive_lo ? d <= lo : d < lo) || d > hi)
        return bad(err, sec, key, "%s is out of range", key);
    if (integer && d != floor(d))
        return bad(err, sec, key, "%s must be an integer", key);
    *out = d;
    return DC_OK;
}

static inline enum dc_status get_bool(const cJSON *obj, const char *sec, const char *key, bool *out,
                                      struct dc_error *err)
{
    const cJSON *v = dc__member(obj, key);
    *out = false;
    if (v == NULL)
        return DC_OK;
    if (!cJSON_IsBool(v))
        return bad(err, sec, key, "%s must be true or false", key);
    *out = cJSON_IsTrue(v);
    return DC_OK;
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        enum dc_status rc_ = (expr);                                                               \
        if (rc_ != DC_OK)                                                                          \
            return rc_;                                                                            \
    } while (0)

static inline bool present(const cJSON *obj, const char *key)
{
    return dc__member(obj, key) != NULL;
}

static inline bool arch_is(const struct dc_workload *w, const char *a)
{
    return strcmp(w->architecture, a) == 0;
}

#endif
