/* tests/support/logic_q.h -- JSON written with single quotes, for the JSONLogic
 * tests' tables (no escaping in C), and the deep comparison of two JSON values
 * that they and the public JSONLogic suite (tests/conformance/jsonlogic.c) use. */
#ifndef AA_TEST_LOGIC_Q_H
#define AA_TEST_LOGIC_Q_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* Parse single-quoted JSON; NULL text means no data (NULL). */
static inline cJSON *q2json(const char *text)
{
    if (text == NULL)
        return NULL;
    size_t len = strlen(text);
    char *buf = malloc(len + 1);
    assert_non_null(buf);
    for (size_t i = 0; i <= len; i++)
        buf[i] = text[i] == '\'' ? '"' : text[i];
    cJSON *j = cJSON_Parse(buf);
    free(buf);
    return j;
}

/* Deep equality of JSON values: numbers by value, objects as key sets. */
static inline bool json_equal(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsBool(a) || cJSON_IsBool(b))
        return cJSON_IsBool(a) && cJSON_IsBool(b) && cJSON_IsTrue(a) == cJSON_IsTrue(b);
    if ((a->type & 0xFF) != (b->type & 0xFF))
        return false;
    if (cJSON_IsNumber(a))
        return a->valuedouble == b->valuedouble;
    if (cJSON_IsString(a))
        return strcmp(a->valuestring, b->valuestring) == 0;
    if (cJSON_IsArray(a)) {
        const cJSON *x = a->child;
        const cJSON *y = b->child;
        for (; x != NULL && y != NULL; x = x->next, y = y->next) {
            if (!json_equal(x, y))
                return false;
        }
        return x == NULL && y == NULL;
    }
    if (cJSON_IsObject(a)) {
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
            return false;
        for (const cJSON *x = a->child; x != NULL; x = x->next) {
            const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
            if (y == NULL || !json_equal(x, y))
                return false;
        }
        return true;
    }
    return true; /* null */
}

#endif
