/* api/src/schema_json.c -- value helpers for the JSON Schema validator: JSON
 * equality with JSON Schema's rules (const, enum, uniqueItems), a matching
 * hash, number formatting for messages, and the growing JSON Pointers of the
 * compiler and the validator. */
#include "schema_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/json_read.h"
#include "dc/hash.h"

/* cJSON keeps the type in the low byte; the rest are flags (IsReference...). */
#define SCH_TYPE(v) ((v)->type & 0xFF)

static bool object_equal(const cJSON *a, const cJSON *b, unsigned depth_left)
{
    size_t na = 0;
    size_t nb = 0;
    for (const cJSON *x = a->child; x != NULL; x = x->next)
        na++;
    for (const cJSON *x = b->child; x != NULL; x = x->next)
        nb++;
    if (na != nb)
        return false;
    for (const cJSON *x = a->child; x != NULL; x = x->next) {
        const cJSON *y = b->child;
        while (y != NULL && strcmp(x->string, y->string) != 0)
            y = y->next;
        if (y == NULL || !api__sch_json_equal(x, y, depth_left - 1))
            return false;
    }
    return true;
}

bool api__sch_json_equal(const cJSON *a, const cJSON *b, unsigned depth_left)
{
    if (a == NULL || b == NULL || SCH_TYPE(a) != SCH_TYPE(b) || depth_left == 0)
        return false;
    switch (SCH_TYPE(a)) {
    case cJSON_Number:
        return a->valuedouble == b->valuedouble;
    case cJSON_String:
    case cJSON_Raw:
        return a->valuestring != NULL && b->valuestring != NULL &&
               strcmp(a->valuestring, b->valuestring) == 0;
    case cJSON_Array: {
        const cJSON *x = a->child;
        const cJSON *y = b->child;
        for (; x != NULL && y != NULL; x = x->next, y = y->next) {
            if (!api__sch_json_equal(x, y, depth_left - 1))
                return false;
        }
        return x == NULL && y == NULL;
    }
    case cJSON_Object:
        return object_equal(a, b, depth_left);
    default: /* null, true, false: the type is the value */
        return true;
    }
}

/* A final mix, so that summing member hashes (order-independent) does not
 * cancel structure. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

uint64_t api__sch_json_hash(const cJSON *v, unsigned depth_left)
{
    uint64_t h = DC_FNV64_OFFSET;
    int type = SCH_TYPE(v);
    h = dc_fnv64(h, &type, sizeof(type));
    if (depth_left == 0)
        return h;
    switch (type) {
    case cJSON_Number: {
        /* -0.0 == 0.0 must hash alike. */
        double d = v->valuedouble == 0.0 ? 0.0 : v->valuedouble;
        h = dc_fnv64(h, &d, sizeof(d));
        break;
    }
    case cJSON_String:
    case cJSON_Raw:
        if (v->valuestring != NULL)
            h = dc_fnv64(h, v->valuestring, strlen(v->valuestring));
        break;
    case cJSON_Array:
        for (const cJSON *x = v->child; x != NULL; x = x->next)
            h = dc_fnv64(h ^ 0x5b, &(uint64_t){api__sch_json_hash(x, depth_left - 1)},
                         sizeof(uint64_t));
        break;
    case cJSON_Object: {
        uint64_t sum = 0;
        for (const cJSON *x = v->child; x != NULL; x = x->next) {
            uint64_t k = dc_fnv64(DC_FNV64_OFFSET, x->string, strlen(x->string));
            sum += mix64(k ^ api__sch_json_hash(x, depth_left - 1));
        }
        h = dc_fnv64(h, &sum, sizeof(sum));
        break;
    }
    default:
        break;
    }
    return h;
}

void api__sch_format_number(double v, char *buf, size_t len)
{
    if (len == 0)
        return;
    if (!isfinite(v)) {
        snprintf(buf, len, "%s", isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
        return;
    }
    /* Integers print without exponent up to 2^53, where doubles stop being
     * exact; past that the shortest round-trip form below is clearer. */
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        snprintf(buf, len, "%.0f", v);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* ---- Bounded printing for messages -------------------------------------- */

/* Nesting printed before the rest of a value is elided. */
#define SCH_PRINT_MAX_DEPTH 8

struct sch_writer {
    char *buf;
    size_t len; /* capacity, >= 1 */
    size_t pos;
    bool full;
};

static void w_putc(struct sch_writer *w, char c)
{
    /* Keep room for "..." and the NUL so truncation is always visible. */
    if (w->full)
        return;
    if (w->pos + 4 >= w->len) {
        w->full = true;
        return;
    }
    w->buf[w->pos++] = c;
}

static void w_puts(struct sch_writer *w, const char *s)
{
    while (*s != '\0' && !w->full)
        w_putc(w, *s++);
}

static void w_string(struct sch_writer *w, const char *s, size_t max_chars)
{
    static const char hex[] = "0123456789abcdef";
    w_putc(w, '"');
    for (size_t i = 0; s[i] != '\0' && !w->full; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i >= max_chars) {
            w_puts(w, "...");
            break;
        }
        if (c == '"' || c == '\\') {
            w_putc(w, '\\');
            w_putc(w, (char)c);
        } else if (c == '\n') {
            w_puts(w, "\\n");
        } else if (c == '\t') {
            w_puts(w, "\\t");
        } else if (c == '\r') {
            w_puts(w, "\\r");
        } else if (c < 0x20 || c == 0x7F) {
            w_puts(w, "\\u00");
            w_putc(w, hex[c >> 4]);
            w_putc(w, hex[c & 0xF]);
        } else {
            w_putc(w, (char)c);
        }
    }
    w_putc(w, '"');
}

static void w_value(struct sch_writer *w, const cJSON *v, unsigned depth)
{
    char num[32];
    switch (SCH_TYPE(v)) {
    case cJSON_NULL:
        w_puts(w, "null");
        break;
    case cJSON_True:
        w_puts(w, "true");
        break;
    case cJSON_False:
        w_puts(w, "false");
        break;
    case cJSON_Number:
        api__sch_format_number(v->valuedouble, num, sizeof(num));
        w_puts(w, num);
        break;
    case cJSON_String:
        w_string(w, v->valuestring != NULL ? v->valuestring : "", SIZE_MAX);
        break;
    case cJSON_Array:
    case cJSON_Object: {
        bool obj = SCH_TYPE(v) == cJSON_Object;
        w_putc(w, obj ? '{' : '[');
        if (depth >= SCH_PRINT_MAX_DEPTH && v->child != NULL) {
            w_puts(w, "...");
        } else {
            for (const cJSON *x = v->child; x != NULL && !w->full; x = x->next) {
                if (x != v->child)
                    w_putc(w, ',');
                if (obj) {
                    w_string(w, x->string != NULL ? x->string : "", SIZE_MAX);
                    w_putc(w, ':');
                }
                w_value(w, x, depth + 1);
            }
        }
        w_putc(w, obj ? '}' : ']');
        break;
    }
    default:
        w_puts(w, "?");
        break;
    }
}

static void w_finish(struct sch_writer *w)
{
    if (w->full) {
        /* w_putc left at least four bytes free. */
        memcpy(w->buf + w->pos, "...", 3);
        w->pos += 3;
    }
    w->buf[w->pos] = '\0';
}

void api__sch_json_print(const cJSON *v, char *buf, size_t len)
{
    if (len == 0)
        return;
    struct sch_writer w = {.buf = buf, .len = len, .pos = 0, .full = false};
    if (len < 5) {
        buf[0] = '\0';
        return;
    }
    w_value(&w, v, 0);
    w_finish(&w);
}

void api__sch_quote(const char *s, size_t max_chars, char *buf, size_t len)
{
    if (len == 0)
        return;
    struct sch_writer w = {.buf = buf, .len = len, .pos = 0, .full = false};
    if (len < 5) {
        buf[0] = '\0';
        return;
    }
    w_string(&w, s, max_chars);
    w_finish(&w);
}

bool api__sch_pointer_push(char **buf, size_t *len, size_t *cap, const char *token)
{
    size_t extra = 1;
    for (const char *p = token; *p != '\0'; p++)
        extra += (*p == '~' || *p == '/') ? 2 : 1;
    if (*len + extra + 1 > *cap) {
        size_t grown = *cap * 2;
        while (grown < *len + extra + 1)
            grown *= 2;
        char *p = SCH_REALLOC(*buf, grown);
        if (p == NULL)
            return false;
        *buf = p;
        *cap = grown;
    }
    /* Appended at the end, where the string is empty, and it fits. */
    (void)api_json_pointer_append(*buf + *len, *cap - *len, token);
    *len += extra;
    return true;
}
