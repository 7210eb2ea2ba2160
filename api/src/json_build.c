/* api/src/json_build.c -- a proven-valid JSON text made into cJSON nodes in one
 * pass (json_build.h).
 *
 * api_json_parse scans every body strictly before it is parsed, so the parse
 * that follows has nothing left to check: this one only builds. It makes the
 * nodes cJSON 1.7's parser makes (parse_value, parse_string, parse_number,
 * parse_array and parse_object of its cJSON.c: a number copied, its '.' made
 * the locale's decimal point, through strtod, valueint saturated; true's
 * valueint 1; an object member's key in `string`; the first child's prev the
 * last child), so every reader of the tree sees what it saw before, but from
 * an arena: a request's tree costs no malloc per node and no walk to free it.
 * tests/unit/api/test_json_build.c compares the two trees node by node. */
#include "json_build.h"

#include <limits.h>
#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/json_read.h"
#include "dc/common.h"
#include "dc/utf8.h"

struct jb {
    const unsigned char *s;
    size_t pos;
    struct dc__arena *ar; /* NULL: cJSON_malloc */
    char point;           /* the locale's decimal point, for strtod as cJSON does */
};

static void *jb_alloc(struct jb *b, size_t n)
{
    if (b->ar == NULL)
        return cJSON_malloc(n);
    void *p = NULL;
    return dc__arena_take(b->ar, n, &p) == DC_OK ? p : NULL;
}

static cJSON *jb_node(struct jb *b)
{
    cJSON *n = jb_alloc(b, sizeof(*n));
    if (n != NULL)
        memset(n, 0, sizeof(*n));
    return n;
}

static void jb_ws(struct jb *b)
{
    for (;;) {
        unsigned char c = b->s[b->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return;
        b->pos++;
    }
}

/* A \u escape (or a surrogate pair of them) at p as UTF-8 at *out; returns
 * the escape's length in the text. */
static size_t jb_unicode(const unsigned char *p, unsigned char **out)
{
    uint32_t cp = (uint32_t)dc_hex4((const char *)p + 2);
    size_t used = 6;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        cp = 0x10000 + (((cp & 0x3FF) << 10) | ((uint32_t)dc_hex4((const char *)p + 8) & 0x3FF));
        used = 12;
    }
    *out += dc_utf8_put((char *)*out, cp);
    return used;
}

/* The string whose opening quote is at pos, unescaped into a block of its
 * own; pos ends past the closing quote. NULL when out of memory. */
static char *jb_string(struct jb *b)
{
    const unsigned char *start = b->s + b->pos + 1;
    const unsigned char *p = start;
    bool escaped = false;
    while (*p != '"') {
        if (*p == '\\') {
            escaped = true;
            p++; /* the escaped byte is never the closing quote */
        }
        p++;
    }
    size_t n = (size_t)(p - start);
    b->pos = (size_t)(p + 1 - b->s);
    unsigned char *out = jb_alloc(b, n + 1);
    if (out == NULL)
        return NULL;
    if (!escaped) {
        memcpy(out, start, n);
        out[n] = '\0';
        return (char *)out;
    }
    unsigned char *o = out;
    for (const unsigned char *q = start; q < p;) {
        if (*q != '\\') {
            *o++ = *q++;
            continue;
        }
        switch (q[1]) {
        case 'b':
            *o++ = '\b';
            break;
        case 'f':
            *o++ = '\f';
            break;
        case 'n':
            *o++ = '\n';
            break;
        case 'r':
            *o++ = '\r';
            break;
        case 't':
            *o++ = '\t';
            break;
        case 'u':
            q += jb_unicode(q, &o);
            continue;
        default: /* '"', '\\', '/' */
            *o++ = q[1];
            break;
        }
        q += 2;
    }
    *o = '\0';
    return (char *)out;
}

/* Exact powers of ten as doubles: 10^0 .. 10^22 (10^22 < 2^53 * 2^22). */
static const double jb_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                  1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
/* Most digits of a number the fast path takes: below 2^53, so exact. */
#define JB_FAST_DIGITS 15
/* Largest exponent the fast path reads (a larger one takes strtod). */
#define JB_FAST_EXP 22

/* The value of the number text[0..n) when its digits (at most JB_FAST_DIGITS)
 * and its power of ten (at most JB_FAST_EXP either way) let one exact
 * multiplication or division give it: both operands are exact doubles, so the
 * result is the correctly rounded value, which is strtod's (Clinger's fast
 * path). False for any other number. */
static bool jb_fast_number(const char *text, size_t n, double *out)
{
    size_t i = 0;
    bool neg = text[0] == '-';
    i += neg;
    uint64_t m = 0;
    int digits = 0, scale = 0;
    for (; i < n && text[i] >= '0' && text[i] <= '9'; i++, digits++)
        m = m * 10 + (uint64_t)(text[i] - '0');
    if (i < n && (text[i] < '0' || text[i] > '9') && text[i] != 'e' && text[i] != 'E') {
        i++; /* the decimal point */
        for (; i < n && text[i] >= '0' && text[i] <= '9'; i++, digits++, scale--)
            m = m * 10 + (uint64_t)(text[i] - '0');
    }
    if (digits > JB_FAST_DIGITS)
        return false;
    if (i < n) {
        i++; /* 'e' or 'E' */
        bool eneg = text[i] == '-';
        i += text[i] == '-' || text[i] == '+';
        int e = 0;
        for (; i < n; i++) {
            if (e > JB_FAST_EXP * 2)
                return false;
            e = e * 10 + (text[i] - '0');
        }
        scale += eneg ? -e : e;
    }
    if (scale < -JB_FAST_EXP || scale > JB_FAST_EXP)
        return false;
    double v = (double)m;
    v = scale < 0 ? v / jb_pow10[-scale] : v * jb_pow10[scale];
    *out = neg ? -v : v;
    return true;
}

/* The number at pos, read as cJSON reads one. */
static void jb_number(struct jb *b, cJSON *item)
{
    char text[API_JSON_NUMBER_MAX_CHARS + 1];
    size_t n = 0;
    for (; n < API_JSON_NUMBER_MAX_CHARS; n++) {
        unsigned char c = b->s[b->pos + n];
        if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == 'e' || c == 'E' || c == '.'))
            break;
        text[n] = c == '.' ? b->point : (char)c;
    }
    text[n] = '\0';
    double d = 0;
    if (jb_fast_number(text, n, &d)) {
        b->pos += n;
    } else {
        char *end = NULL;
        d = strtod(text, &end);
        b->pos += (size_t)(end - text);
    }
    item->valuedouble = d;
    if (d >= INT_MAX)
        item->valueint = INT_MAX;
    else if (d <= (double)INT_MIN)
        item->valueint = INT_MIN;
    else
        item->valueint = (int)d;
    item->type = cJSON_Number;
}

static bool jb_value(struct jb *b, cJSON *item);

/* The members of the array or object whose opening bracket is at pos, each a
 * node linked under `item` as soon as it is made (so cJSON_Delete of a
 * partial tree frees it). False when out of memory. */
static bool jb_members(struct jb *b, cJSON *item, bool object)
{
    unsigned char close = object ? '}' : ']';
    item->type = object ? cJSON_Object : cJSON_Array;
    b->pos++;
    jb_ws(b);
    if (b->s[b->pos] == close) {
        b->pos++;
        return true;
    }
    cJSON *last = NULL;
    for (;;) {
        cJSON *n = jb_node(b);
        if (n == NULL)
            return false;
        if (last == NULL) {
            item->child = n;
        } else {
            last->next = n;
            n->prev = last;
        }
        last = n;
        item->child->prev = last;
        if (object) {
            n->string = jb_string(b);
            if (n->string == NULL)
                return false;
            jb_ws(b);
            b->pos++; /* ':' */
            jb_ws(b);
        }
        if (!jb_value(b, n))
            return false;
        jb_ws(b);
        if (b->s[b->pos++] != ',')
            return true; /* the closing bracket */
        jb_ws(b);
    }
}

static bool jb_value(struct jb *b, cJSON *item)
{
    switch (b->s[b->pos]) {
    case 'n':
        item->type = cJSON_NULL;
        b->pos += 4;
        return true;
    case 'f':
        item->type = cJSON_False;
        b->pos += 5;
        return true;
    case 't':
        item->type = cJSON_True;
        item->valueint = 1;
        b->pos += 4;
        return true;
    case '"':
        item->type = cJSON_String;
        item->valuestring = jb_string(b);
        return item->valuestring != NULL;
    case '[':
        return jb_members(b, item, false);
    case '{':
        return jb_members(b, item, true);
    default:
        jb_number(b, item);
        return true;
    }
}

cJSON *api__json_build(const char *data, size_t len, struct dc__arena *ar)
{
    (void)len; /* the scan proved where the value ends; data[len] is NUL */
    const struct lconv *lc = localeconv();
    struct jb b = {(const unsigned char *)data, 0, ar, lc->decimal_point[0]};
    cJSON *root = jb_node(&b);
    if (root == NULL)
        return NULL;
    jb_ws(&b);
    if (!jb_value(&b, root)) {
        if (ar == NULL)
            cJSON_Delete(root);
        return NULL;
    }
    return root;
}
