/* api/src/jsonw.c -- the streaming JSON writer (api/jsonw.h). */
#include "api/jsonw.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_HINT 4096

static bool reserve(struct api_jw *w, size_t n)
{
    if (w->failed)
        return false;
    if (w->len + n + 1 <= w->cap)
        return true;
    if (n > API_JW_MAX_BYTES || w->len + n + 1 > API_JW_MAX_BYTES) {
        w->failed = true;
        return false;
    }
    size_t cap = w->cap > 0 ? w->cap : DEFAULT_HINT;
    while (cap < w->len + n + 1)
        cap *= 2;
    char *p = realloc(w->p, cap);
    if (p == NULL) {
        w->failed = true;
        return false;
    }
    w->p = p;
    w->cap = cap;
    return true;
}

static void put(struct api_jw *w, const char *s, size_t n)
{
    if (!reserve(w, n))
        return;
    memcpy(w->p + w->len, s, n);
    w->len += n;
}

static void putc1(struct api_jw *w, char c)
{
    if (!reserve(w, 1))
        return;
    w->p[w->len++] = c;
}

/* Bytes a JSON string cannot hold as they are: controls, '"' and '\\'. */
static bool needs_escape(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\';
}

/* Room for the worst case (every byte a \u escape) is reserved once; runs of
 * plain bytes are copied whole. */
static void put_string(struct api_jw *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    if (s == NULL) {
        put(w, "\"\"", 2);
        return;
    }
    size_t n = strlen(s);
    if (n > (SIZE_MAX - 2) / 6 || !reserve(w, n * 6 + 2))
        return;
    char *o = w->p + w->len;
    *o++ = '"';
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        const unsigned char *run = p;
        /* Eight bytes at a time while none needs escaping (SWAR: a byte below
         * 0x20, or equal to '"' or '\\', sets its high bit in `hit`). */
        while (end - p >= 8) {
            uint64_t v;
            memcpy(&v, p, 8);
            const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
            uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');
            uint64_t hit = ((v - ones * 0x20) | (q - ones) | (b - ones)) & ~v & highs;
            if (hit != 0)
                break;
            p += 8;
        }
        while (p < end && !needs_escape(*p))
            p++;
        memcpy(o, run, (size_t)(p - run));
        o += p - run;
        if (p == end)
            break;
        unsigned char c = *p++;
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
    w->len = (size_t)(o - w->p);
}

/* Decimal digits of v into the end of tmp, NUL-terminated; returns the start
 * (their length is end - 1 - start). */
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

static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,
                               1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19};

/* `m` / 10^k (m > 0, trailing zeros already dropped) in fixed notation. */
static size_t put_scaled_digits(bool negative, uint64_t m, int k, char *buf)
{
    char tmp[24];
    char *digits = utoa_rev(m, tmp + sizeof(tmp));
    size_t nd = (size_t)(tmp + sizeof(tmp) - 1 - digits), n = 0, dec = (size_t)k;
    if (negative)
        buf[n++] = '-';
    if (dec == 0) {
        memcpy(buf + n, digits, nd);
        n += nd;
    } else if (nd > dec) {
        memcpy(buf + n, digits, nd - dec);
        n += nd - dec;
        buf[n++] = '.';
        memcpy(buf + n, digits + nd - dec, dec);
        n += dec;
    } else {
        buf[n++] = '0';
        buf[n++] = '.';
        for (size_t z = nd; z < dec; z++)
            buf[n++] = '0';
        memcpy(buf + n, digits, nd);
        n += nd;
    }
    buf[n] = '\0';
    return n;
}

/* "%1.15g" of d for 1e-4 <= |d| < 1e15 (fixed notation), when it reads back
 * close enough for cJSON to keep it, without printf; 0 when this cannot be
 * decided here (the caller then prints with snprintf).
 *
 * With e = floor(log10 |d|), the 15 significant digits are |d| * 10^(14 - e)
 * rounded to a whole number m. The product is below 2^50, so its own rounding
 * error is at most 1/16: unless it lies within 1/8 of a half, m is what printf
 * rounds the exact value to. m / 10^(14 - e) is one correctly rounded
 * division of exact doubles, so it is what strtod reads back from the text. */
/* The binary exponent b of a finite a > 0 (a in [2^(b-1), 2^b)), read from
 * its bits: frexp is a library call, and every number of a body asks. */
static int binary_exponent(double a)
{
    uint64_t bits;
    memcpy(&bits, &a, sizeof(bits));
    int biased = (int)((bits >> 52) & 0x7ff);
    if (biased == 0) { /* subnormal */
        int b = 0;
        (void)frexp(a, &b);
        return b;
    }
    return biased - 1022;
}

/* x (0 <= x < 2^52) rounded to the nearest whole number, ties to even, as
 * nearbyint does in the default rounding mode: adding and taking away 2^52
 * leaves no fraction to keep (no library call). */
static double round_whole(double x)
{
    const double two52 = 4503599627370496.0;
    return (x + two52) - two52;
}

static size_t fixed15(double d, char *buf)
{
    double a = fabs(d);
    /* a lies in [2^(b-1), 2^b), so floor(log10 a) is floor((b-1) log10 2) or
     * one more; the range of x below settles which. */
    int b = binary_exponent(a);
    int t = (b - 1) * 1233; /* floor((b - 1) log10 2) = floor(t / 4096) for |b| < 600 */
    int e = t >= 0 ? t >> 12 : -((-t + 4095) >> 12);
    if (e < -4)
        e = -4;
    if (e > 14)
        e = 14;
    double x = a * pow10[14 - e];
    if (x < 1e14 && e > -4) {
        e--;
        x = a * pow10[14 - e];
    } else if (x >= 1e15 && e < 14) {
        e++;
        x = a * pow10[14 - e];
    }
    if (x < 1e14 || x >= 1e15)
        return 0;
    double m = round_whole(x);
    if (fabs(fabs(x - m) - 0.5) < 0.125)
        return 0;
    int k = 14 - e;
    if (!close_enough(m / pow10[k], a))
        return 0;
    uint64_t mi = (uint64_t)m;
    if (mi == 1000000000000000ull) { /* rounded up into the next decade */
        if (k == 0)
            return 0;
        mi = 100000000000000ull;
        k--;
    }
    /* Trailing zeros off, eight, four, two and one at a time (constant
     * divisors: the compiler multiplies instead of dividing). */
    while (k >= 8 && mi % 100000000u == 0) {
        mi /= 100000000u;
        k -= 8;
    }
    while (k >= 4 && mi % 10000u == 0) {
        mi /= 10000u;
        k -= 4;
    }
    while (k >= 2 && mi % 100u == 0) {
        mi /= 100u;
        k -= 2;
    }
    while (k >= 1 && mi % 10u == 0) {
        mi /= 10u;
        k -= 1;
    }
    return put_scaled_digits(d < 0, mi, k, buf);
}

/* As snprintf(buf, cap, "%s", text) for a text of n bytes. */
static size_t copy_text(char *buf, size_t cap, const char *text, size_t n)
{
    if (cap > 0) {
        size_t k = n < cap ? n : cap - 1;
        memcpy(buf, text, k);
        buf[k] = '\0';
    }
    return n;
}

size_t api_json_number(double d, char *buf, size_t cap)
{
#ifdef AA_PRINTF_REFERENCE /* tests/unit/api/extra.cmake: cJSON 1.7.15's path alone */
    if (isnan(d) || isinf(d))
        return (size_t)snprintf(buf, cap, "null");
    int r = snprintf(buf, cap, "%1.15g", d);
    if (!close_enough(strtod(buf, NULL), d))
        r = snprintf(buf, cap, "%1.17g", d);
    return r > 0 ? (size_t)r : 0;
#endif
    char tmp[40];
    if (isnan(d) || isinf(d))
        return copy_text(buf, cap, "null", 4);
    /* "%1.15g" keeps the sign of zero. */
    if (d == 0)
        return signbit(d) ? copy_text(buf, cap, "-0", 2) : copy_text(buf, cap, "0", 1);
    double a = fabs(d);
    /* Integers below 10^15: "%1.15g" prints their digits. */
    if (a < 1e15 && (double)(uint64_t)a == a && cap > 17) {
        char *digits = utoa_rev((uint64_t)a, tmp + sizeof(tmp));
        size_t nd = (size_t)(tmp + sizeof(tmp) - 1 - digits), n = 0;
        if (d < 0)
            buf[n++] = '-';
        memcpy(buf + n, digits, nd + 1);
        return n + nd;
    }
    if (a >= 1e-4 && a < 1e15 && cap >= API_JSON_NUMBER_BUF) {
        size_t n = fixed15(d, buf);
        if (n > 0)
            return n;
    }
    /* cJSON 1.7.15's own path. */
    int n = snprintf(buf, cap, "%1.15g", d);
    double back = strtod(buf, NULL);
    if (!close_enough(back, d))
        n = snprintf(buf, cap, "%1.17g", d);
    return n > 0 ? (size_t)n : 0;
}

/* ---- the writer ------------------------------------------------------------ */

void api_jw_init(struct api_jw *w, size_t hint)
{
    *w = (struct api_jw){NULL, 0, 0, false, false};
    w->cap = hint > 0 && hint < API_JW_MAX_BYTES ? hint : DEFAULT_HINT;
    w->p = malloc(w->cap);
    if (w->p == NULL) {
        w->cap = 0;
        w->failed = true;
    }
}

char *api_jw_finish(struct api_jw *w, size_t *len)
{
    if (w->failed || w->p == NULL) {
        api_jw_discard(w);
        return NULL;
    }
    w->p[w->len] = '\0';
    if (len != NULL)
        *len = w->len;
    char *p = w->p;
    *w = (struct api_jw){NULL, 0, 0, true, false};
    return p;
}

void api_jw_discard(struct api_jw *w)
{
    free(w->p);
    *w = (struct api_jw){NULL, 0, 0, true, false};
}

/* Before a value or a key: the comma that separates it from its sibling. */
static void sep(struct api_jw *w)
{
    if (w->comma)
        putc1(w, ',');
}

void api_jw_object(struct api_jw *w)
{
    sep(w);
    putc1(w, '{');
    w->comma = false;
}

void api_jw_object_end(struct api_jw *w)
{
    putc1(w, '}');
    w->comma = true;
}

void api_jw_array(struct api_jw *w)
{
    sep(w);
    putc1(w, '[');
    w->comma = false;
}

void api_jw_array_end(struct api_jw *w)
{
    putc1(w, ']');
    w->comma = true;
}

void api_jw_key(struct api_jw *w, const char *key)
{
    sep(w);
    put_string(w, key);
    putc1(w, ':');
    w->comma = false;
}

void api_jw_key_text(struct api_jw *w, const char *text, size_t len)
{
    sep(w);
    put(w, text, len);
    w->comma = false;
}

void api_jw_string(struct api_jw *w, const char *s)
{
    sep(w);
    put_string(w, s);
    w->comma = true;
}

void api_jw_string_or_null(struct api_jw *w, const char *s)
{
    if (s == NULL)
        api_jw_null(w);
    else
        api_jw_string(w, s);
}

void api_jw_number(struct api_jw *w, double d)
{
    sep(w);
    /* Formatted in place: the widest number fits the room reserved. */
    if (!reserve(w, API_JSON_NUMBER_BUF))
        return;
    w->len += api_json_number(d, w->p + w->len, API_JSON_NUMBER_BUF);
    w->comma = true;
}

void api_jw_bool(struct api_jw *w, bool b)
{
    sep(w);
    put(w, b ? "true" : "false", b ? 4 : 5);
    w->comma = true;
}

void api_jw_null(struct api_jw *w)
{
    sep(w);
    put(w, "null", 4);
    w->comma = true;
}

void api_jw_raw(struct api_jw *w, const char *text, size_t len)
{
    sep(w);
    put(w, text, len);
    w->comma = true;
}

void api_jw_value(struct api_jw *w, const cJSON *item)
{
    if (item == NULL) {
        w->failed = true;
        return;
    }
    switch (item->type & 0xFF) {
    case cJSON_NULL:
        api_jw_null(w);
        break;
    case cJSON_False:
        api_jw_bool(w, false);
        break;
    case cJSON_True:
        api_jw_bool(w, true);
        break;
    case cJSON_Number:
        api_jw_number(w, item->valuedouble);
        break;
    case cJSON_String:
        api_jw_string(w, item->valuestring);
        break;
    case cJSON_Raw:
        if (item->valuestring == NULL) {
            w->failed = true; /* cJSON fails on a NULL raw value */
            break;
        }
        api_jw_raw(w, item->valuestring, strlen(item->valuestring));
        break;
    case cJSON_Array:
        api_jw_array(w);
        for (const cJSON *c = item->child; c != NULL; c = c->next)
            api_jw_value(w, c);
        api_jw_array_end(w);
        break;
    case cJSON_Object:
        api_jw_object(w);
        for (const cJSON *c = item->child; c != NULL; c = c->next) {
            api_jw_key(w, c->string);
            api_jw_value(w, c);
        }
        api_jw_object_end(w);
        break;
    default:
        w->failed = true; /* an invalid item: cJSON fails too */
        break;
    }
}

char *api_json_print(const cJSON *item, size_t hint, size_t *len)
{
    if (item == NULL)
        return NULL;
    struct api_jw w;
    api_jw_init(&w, hint);
    api_jw_value(&w, item);
    return api_jw_finish(&w, len);
}
