/* service/src/prices_json.c -- walking a large JSON document as text
 * (service/src/prices_json.h). */
#include "prices_json.h"

#include <stdio.h>
#include <string.h>

const char *svc_json_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* Past the JSON string at p, or NULL when it does not end. */
static const char *skip_string(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        if (*p == '\\')
            p++;
        else if (*p == '"')
            return p + 1;
    }
    return NULL;
}

/* Past the JSON value at p, or NULL when it is not one (its pieces are parsed
 * by cJSON later; here brackets and strings must balance). */
static const char *skip_value(const char *p, const char *end)
{
    int depth = 0;
    p = svc_json_ws(p, end);
    do {
        if (p >= end)
            return NULL;
        if (*p == '"') {
            p = skip_string(p, end);
            if (p == NULL)
                return NULL;
            continue;
        }
        if (*p == '{' || *p == '[') {
            if (++depth > SVC_JSON_DEPTH_MAX)
                return NULL;
        } else if (*p == '}' || *p == ']') {
            if (--depth < 0)
                return NULL;
        } else if (depth == 0 && strchr("-0123456789tfn", *p) != NULL) {
            while (p < end && strchr("+-.0123456789eEtruefalsn", *p) != NULL)
                p++;
            return p;
        } else if (depth == 0) {
            return NULL;
        }
        p++;
    } while (depth > 0);
    return p;
}

int svc_json_next(const char **p, const char *end, bool first, struct svc_json_member *m)
{
    const char *s = svc_json_ws(*p, end);
    if (first) {
        if (s >= end || *s != '{')
            return -1;
        s = svc_json_ws(s + 1, end);
        if (s < end && *s == '}') {
            *p = s + 1;
            return 0;
        }
    } else {
        if (s < end && *s == '}') {
            *p = s + 1;
            return 0;
        }
        if (s >= end || *s != ',')
            return -1;
        s = svc_json_ws(s + 1, end);
    }
    const char *k = s, *ke = s < end && *s == '"' ? skip_string(s, end) : NULL;
    if (ke == NULL)
        return -1;
    cJSON *key = cJSON_ParseWithLength(k, (size_t)(ke - k));
    const char *kv = cJSON_GetStringValue(key);
    snprintf(m->key, sizeof(m->key), "%s", kv != NULL && strlen(kv) <= SVC_JSON_KEY_MAX ? kv : "");
    cJSON_Delete(key);
    if (kv == NULL)
        return -1;
    s = svc_json_ws(ke, end);
    if (s >= end || *s != ':')
        return -1;
    m->val = svc_json_ws(s + 1, end);
    m->val_end = skip_value(m->val, end);
    if (m->val_end == NULL)
        return -1;
    *p = m->val_end;
    return 1;
}

cJSON *svc_json_parse(const struct svc_json_member *m)
{
    return cJSON_ParseWithLength(m->val, (size_t)(m->val_end - m->val));
}

int svc_json_next_element(const char **p, const char *end, bool first, struct svc_json_member *m)
{
    const char *s = svc_json_ws(*p, end);
    if (s >= end || *s != (first ? '[' : ',')) {
        if (s < end && *s == ']' && !first) {
            *p = s + 1;
            return 0;
        }
        return -1;
    }
    s = svc_json_ws(s + 1, end);
    if (first && s < end && *s == ']') {
        *p = s + 1;
        return 0;
    }
    m->key[0] = '\0';
    m->val = s;
    m->val_end = skip_value(s, end);
    if (m->val_end == NULL)
        return -1;
    *p = m->val_end;
    return 1;
}
