/* service/src/http_json.c -- a cJSON-compatible, allocation-light JSON writer. */
#include "http_json.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
    char *p;
    size_t len;
    size_t cap;
    bool oom;
};

static bool reserve(struct buf *b, size_t n)
{
    if (b->oom)
        return false;
    if (b->len + n + 1 <= b->cap)
        return true;
    size_t cap = b->cap * 2;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (p == NULL) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

static void put(struct buf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void putc1(struct buf *b, char c)
{
    if (!reserve(b, 1))
        return;
    b->p[b->len++] = c;
}

/* cJSON's print_string_ptr: escape ", \\, the five short controls, other bytes
 * below 0x20 as \\u00xx; everything else (UTF-8 included) verbatim. Room for the
 * worst case (every byte a \\u escape) is reserved once, so the loop only copies. */
static void put_string(struct buf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    if (s == NULL) {
        put(b, "\"\"", 2);
        return;
    }
    size_t n = strlen(s);
    if (n > (SIZE_MAX - 2) / 6 || !reserve(b, n * 6 + 2))
        return;
    char *o = b->p + b->len;
    *o++ = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        unsigned char c = *p;
        if (c >= 0x20 && c != '"' && c != '\\') {
            *o++ = (char)c;
            continue;
        }
        *o++ = '\\';
        switch (c) {
        case '"':
            *o++ = '"';
            break;
        case '\\':
            *o++ = '\\';
            break;
        case '\b':
            *o++ = 'b';
            break;
        case '\f':
            *o++ = 'f';
            break;
        case '\n':
            *o++ = 'n';
            break;
        case '\r':
            *o++ = 'r';
            break;
        case '\t':
            *o++ = 't';
            break;
        default:
            *o++ = 'u';
            *o++ = '0';
            *o++ = '0';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
            break;
        }
    }
    *o++ = '"';
    b->len = (size_t)(o - b->p);
}

/* Decimal digits of v into the end of tmp; returns the start. */
static char *utoa_rev(uint64_t v, char *end)
{
    *--end = '\0';
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    return end;
}

/* cJSON 1.7's approximate equality used to accept "%1.15g". */
static bool close_enough(double a, double b)
{
    double max = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= max * DBL_EPSILON;
}

size_t svc_json_number(double d, char *buf, size_t cap)
{
    static const double pow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    char tmp[40];
    if (isnan(d) || isinf(d))
        return (size_t)snprintf(buf, cap, "null");
    /* "%1.15g" keeps the sign of zero. */
    if (d == 0)
        return (size_t)snprintf(buf, cap, "%s", signbit(d) ? "-0" : "0");
    double a = fabs(d);
    /* Integers below 10^15: "%1.15g" prints their digits. */
    if (a < 1e15 && a == floor(a) && cap > 17) {
        char *digits = utoa_rev((uint64_t)a, tmp + sizeof(tmp));
        size_t nd = strlen(digits), n = 0;
        if (d < 0)
            buf[n++] = '-';
        memcpy(buf + n, digits, nd + 1);
        return n + nd;
    }
    /* "%1.15g" prints fixed notation for 1e-4 <= |d| < 1e15; when d is exactly
     * the nearest double to m / 10^k with m < 10^15, it prints those digits. */
    if (a >= 1e-4 && a < 1e15) {
        for (int k = 0; k <= 15; k++) {
            double x = a * pow10[k];
            if (x >= 1e15)
                break;
            double m = nearbyint(x);
            if (m / pow10[k] != a)
                continue;
            uint64_t mi = (uint64_t)m;
            char *digits = utoa_rev(mi, tmp + sizeof(tmp));
            size_t nd = strlen(digits);
            size_t n = 0;
            char out[48];
            if (d < 0)
                out[n++] = '-';
            if (k == 0) {
                memcpy(out + n, digits, nd);
                n += nd;
            } else if (nd > (size_t)k) {
                memcpy(out + n, digits, nd - (size_t)k);
                n += nd - (size_t)k;
                out[n++] = '.';
                memcpy(out + n, digits + nd - (size_t)k, (size_t)k);
                n += (size_t)k;
            } else {
                out[n++] = '0';
                out[n++] = '.';
                for (size_t z = nd; z < (size_t)k; z++)
                    out[n++] = '0';
                memcpy(out + n, digits, nd);
                n += nd;
            }
            out[n] = '\0';
            if (n + 1 > cap)
                break;
            memcpy(buf, out, n + 1);
            return n;
        }
    }
    /* cJSON 1.7.15's own path. */
    int n = snprintf(buf, cap, "%1.15g", d);
    double back = strtod(buf, NULL);
    if (!close_enough(back, d))
        n = snprintf(buf, cap, "%1.17g", d);
    return n > 0 ? (size_t)n : 0;
}

static void put_value(struct buf *b, const cJSON *item)
{
    char num[48];
    switch (item->type & 0xFF) {
    case cJSON_NULL:
        put(b, "null", 4);
        break;
    case cJSON_False:
        put(b, "false", 5);
        break;
    case cJSON_True:
        put(b, "true", 4);
        break;
    case cJSON_Number:
        put(b, num, svc_json_number(item->valuedouble, num, sizeof(num)));
        break;
    case cJSON_String:
        put_string(b, item->valuestring);
        break;
    case cJSON_Raw:
        if (item->valuestring != NULL)
            put(b, item->valuestring, strlen(item->valuestring));
        else
            b->oom = true; /* cJSON fails on a NULL raw value */
        break;
    case cJSON_Array:
        putc1(b, '[');
        for (const cJSON *c = item->child; c != NULL; c = c->next) {
            put_value(b, c);
            if (c->next != NULL)
                putc1(b, ',');
        }
        putc1(b, ']');
        break;
    case cJSON_Object:
        putc1(b, '{');
        for (const cJSON *c = item->child; c != NULL; c = c->next) {
            put_string(b, c->string);
            putc1(b, ':');
            put_value(b, c);
            if (c->next != NULL)
                putc1(b, ',');
        }
        putc1(b, '}');
        break;
    default:
        b->oom = true; /* an invalid item: cJSON fails too */
        break;
    }
}

char *svc_json_print(const cJSON *item, size_t hint, size_t *len)
{
    if (item == NULL)
        return NULL;
    struct buf b = {NULL, 0, hint > 0 ? hint : 4096, false};
    b.p = malloc(b.cap);
    if (b.p == NULL)
        return NULL;
    put_value(&b, item);
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    b.p[b.len] = '\0';
    if (len != NULL)
        *len = b.len;
    return b.p;
}
