/* core/src/rules/load.c -- see load.h. */
#include "load.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ruleset_internal.h"

void dc__diag(struct dc__loader *L, const char *file, unsigned line, const char *id,
              const char *fmt, ...)
{
    L->problems++;
    struct dc_diags *d = L->diags;
    if (d == NULL)
        return;
    if (d->count == DC_RULESET_MAX_DIAGS) {
        d->truncated = true;
        return;
    }
    if (d->count == d->cap) {
        size_t cap = d->cap != 0 ? d->cap * 2 : 16;
        if (cap > DC_RULESET_MAX_DIAGS)
            cap = DC_RULESET_MAX_DIAGS;
        struct dc_diag *items = realloc(d->items, cap * sizeof(*items));
        if (items == NULL) {
            L->oom = true;
            return;
        }
        d->items = items;
        d->cap = cap;
    }
    struct dc_diag *g = &d->items[d->count++];
    snprintf(g->file, sizeof(g->file), "%s", file != NULL ? file : "");
    g->line = line;
    snprintf(g->id, sizeof(g->id), "%s", id != NULL ? id : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->msg, sizeof(g->msg), fmt, ap);
    va_end(ap);
}

/* ---- field access with checking ------------------------------------------ */

unsigned dc__line_of(const struct dc__where *w, const cJSON *node)
{
    unsigned line = dc_yaml_line(w->doc, node);
    if (line == 0)
        line = dc_yaml_line(w->doc, w->obj);
    return line;
}

/* Report every key of w->obj not in `allowed`: typos must not pass silently. */
void dc__check_keys(const struct dc__where *w, const char *what, const char *const *allowed)
{
    const cJSON *item = NULL;
    cJSON_ArrayForEach(item, w->obj)
    {
        bool ok = false;
        for (size_t i = 0; allowed[i] != NULL && !ok; i++)
            ok = strcmp(item->string, allowed[i]) == 0;
        if (!ok)
            dc__diag(w->L, w->file, dc__line_of(w, item), w->id, "unknown key \"%s\" in %s",
                     item->string, what);
    }
}

bool dc__is_url(const char *s)
{
    if (strncmp(s, "https://", 8) != 0 && strncmp(s, "http://", 7) != 0)
        return false;
    for (const char *p = s; *p != '\0'; p++) {
        if (*p <= ' ' || *p == 0x7f)
            return false;
    }
    return strlen(s) > 10;
}

/* The value of `key`, or NULL when absent or null (reported when required). */
static const cJSON *present(const struct dc__where *w, const char *key, bool required)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(w->obj, key);
    if (v != NULL && !cJSON_IsNull(v))
        return v;
    if (required)
        dc__diag(w->L, w->file, dc__line_of(w, w->obj), w->id, "missing required field \"%s\"",
                 key);
    return NULL;
}

/* v when `ok`, else NULL with "\"key\" must be <what>" reported at v. */
static const cJSON *typed(const struct dc__where *w, const char *key, const cJSON *v, bool ok,
                          const char *what)
{
    if (v == NULL || ok)
        return v;
    dc__diag(w->L, w->file, dc__line_of(w, v), w->id, "\"%s\" must be %s", key, what);
    return NULL;
}

const char *dc__get_str(const struct dc__where *w, const char *key, bool required)
{
    const cJSON *v = present(w, key, required);
    v = typed(w, key, v, cJSON_IsString(v) && v->valuestring[0] != '\0', "a non-empty string");
    return v != NULL ? v->valuestring : NULL;
}

const char *dc__get_url(const struct dc__where *w, const char *key, bool required)
{
    const char *s = dc__get_str(w, key, required);
    if (s != NULL && !dc__is_url(s)) {
        dc__diag(w->L, w->file, dc__line_of(w, cJSON_GetObjectItemCaseSensitive(w->obj, key)),
                 w->id, "\"%s\" must be a public http(s) URL, got \"%.120s\"", key, s);
        return NULL;
    }
    return s;
}

/* A finite number in [lo, hi]; NAN when absent or null (and reported when required). */
double dc__get_num(const struct dc__where *w, const char *key, bool required, double lo, double hi)
{
    const cJSON *v = present(w, key, required);
    v = typed(w, key, v, cJSON_IsNumber(v), "a number");
    if (v == NULL)
        return NAN;
    /* Written so that NaN (YAML .nan) fails too; .inf is out of every range. */
    if (!(v->valuedouble >= lo && v->valuedouble <= hi)) {
        dc__diag(w->L, w->file, dc__line_of(w, v), w->id,
                 "\"%s\" must be between %g and %g, got %g", key, lo, hi, v->valuedouble);
        return NAN;
    }
    return v->valuedouble;
}

bool dc__get_bool(const struct dc__where *w, const char *key, bool required, bool dflt)
{
    /* null is no boolean: only an absent key takes the default. */
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(w->obj, key);
    v = v != NULL ? v : present(w, key, required);
    v = typed(w, key, v, cJSON_IsBool(v), "true or false");
    return v != NULL ? cJSON_IsTrue(v) : dflt;
}

/* The child object `key`; NULL when absent or null (reported when required). */
const cJSON *dc__get_obj(const struct dc__where *w, const char *key, bool required)
{
    const cJSON *v = present(w, key, required);
    return typed(w, key, v, cJSON_IsObject(v), "a mapping");
}

const cJSON *dc__get_arr(const struct dc__where *w, const char *key, bool required)
{
    const cJSON *v = present(w, key, required);
    return typed(w, key, v, cJSON_IsArray(v), "a list");
}

struct dc__where dc__sub(const struct dc__where *w, const cJSON *obj)
{
    struct dc__where s = *w;
    s.obj = obj;
    return s;
}

bool dc__valid_id(const char *s, bool allow_dot)
{
    size_t n = strlen(s);
    if (n == 0 || n > DC_ID_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  (i > 0 && (c == '-' || (allow_dot && (c == '.' || c == '_'))));
        if (!ok)
            return false;
    }
    return true;
}

/* Parse a list of names through `parse` into a bit set. */
unsigned dc__parse_name_set(const struct dc__where *w, const cJSON *arr, const char *what,
                            bool (*parse)(const char *, unsigned *))
{
    unsigned bits = 0;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, arr)
    {
        unsigned v = 0;
        if (!cJSON_IsString(it) || !parse(it->valuestring, &v)) {
            dc__diag(w->L, w->file, dc__line_of(w, it), w->id, "unknown %s \"%.60s\"", what,
                     cJSON_IsString(it) ? it->valuestring : "(not a string)");
            continue;
        }
        if (bits & (1u << v))
            dc__diag(w->L, w->file, dc__line_of(w, it), w->id, "%s \"%s\" listed twice", what,
                     it->valuestring);
        bits |= 1u << v;
    }
    return bits;
}

/* A parameter's source: a public URL, or the word "convention" for a policy no
 * publication fixes (docs/scoring.md names each one). */
const char *dc__get_source(const struct dc__where *w, const char *key)
{
    const char *s = dc__get_str(w, key, true);
    if (s != NULL && strcmp(s, "convention") != 0 && !dc__is_url(s)) {
        dc__diag(w->L, w->file, dc__line_of(w, cJSON_GetObjectItemCaseSensitive(w->obj, key)),
                 w->id, "\"%s\" must be a public http(s) URL or \"convention\", got \"%.120s\"",
                 key, s);
        return NULL;
    }
    return s;
}

/* key: {value: number in [lo, hi], source: URL | convention} */
struct dc_param dc__get_param(const struct dc__where *w, const char *key, double lo, double hi)
{
    static const char *const keys[] = {"value", "source", NULL};
    struct dc_param p = {NAN, NULL};
    const cJSON *o = dc__get_obj(w, key, true);
    if (o == NULL)
        return p;
    struct dc__where q = dc__sub(w, o);
    dc__check_keys(&q, key, keys);
    p.value = dc__get_num(&q, "value", true, lo, hi);
    p.source = dc__get_source(&q, "source");
    return p;
}

/* Today as YYYYMMDD (UTC), for dates in the future. */
static long today_ymd(void)
{
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm) == NULL)
        return 99991231;
    return (tm.tm_year + 1900L) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday;
}

/* "YYYY-MM" or "YYYY-MM-DD", quoted in YAML so it stays a string, no later
 * than today (a month counts from its first day). */
const char *dc__get_date(const struct dc__where *w, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(w->obj, key);
    if (v == NULL) {
        dc__diag(w->L, w->file, dc__line_of(w, w->obj), w->id, "missing required field \"%s\"",
                 key);
        return NULL;
    }
    int y = 0, m = 0, d = 0;
    char tail = 0;
    bool ok =
        cJSON_IsString(v) &&
        ((strlen(v->valuestring) == 7 && sscanf(v->valuestring, "%4d-%2d%c", &y, &m, &tail) == 2) ||
         (strlen(v->valuestring) == 10 &&
          sscanf(v->valuestring, "%4d-%2d-%2d%c", &y, &m, &d, &tail) == 3 && d >= 1 && d <= 31)) &&
        y >= 1990 && m >= 1 && m <= 12;
    if (!ok) {
        dc__diag(w->L, w->file, dc__line_of(w, v), w->id,
                 "\"%s\" must be a date written YYYY-MM or YYYY-MM-DD (quote it)", key);
        return NULL;
    }
    if (y * 10000L + m * 100L + (d > 0 ? d : 1) > today_ymd()) {
        dc__diag(w->L, w->file, dc__line_of(w, v), w->id,
                 "\"%s\" %s is in the future: a price is dated by the data it was read from", key,
                 v->valuestring);
        return NULL;
    }
    return v->valuestring;
}

bool dc__find_acc(const dc_ruleset *rs, const char *id, size_t *out)
{
    for (size_t i = 0; i < rs->n_accs; i++) {
        if (rs->accs[i].id != NULL && strcmp(rs->accs[i].id, id) == 0) {
            *out = i;
            return true;
        }
    }
    return false;
}
