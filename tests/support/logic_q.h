/* tests/support/logic_q.h -- JSON written with single quotes, for the JSONLogic
 * tests' tables (no escaping in C), and a deep comparison of two JSON values. */
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
    if (cJSON_IsArray(a) || cJSON_IsObject(a)) {
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
            return false;
        const cJSON *y = b->child;
        for (const cJSON *x = a->child; x != NULL; x = x->next, y = y->next) {
            const cJSON *other =
                cJSON_IsObject(a) ? cJSON_GetObjectItemCaseSensitive(b, x->string) : y;
            if (other == NULL || !json_equal(x, other))
                return false;
        }
    }
    return true;
}

#endif
