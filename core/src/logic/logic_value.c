/* core/src/logic/logic_value.c -- JSONLogic values and what JavaScript does with
 * them: the module's memory, strings measured in UTF-16 code units, numbers
 * parsed and formatted as JavaScript does, string building, equality and
 * order, and results turned into cJSON. Owned by the JSONLogic module; the
 * representation and the overview are in core/src/logic/logic_impl.h.
 *
 * Numbers are formatted and parsed with snprintf/strtod, which assumes the
 * "C" LC_NUMERIC locale (the service never changes it). */
#include "logic_impl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

static size_t lg_u8_char(const char *p, size_t rem, unsigned *units);
static uint32_t lg_u8_decode(const char *p, size_t rem);
static int lg_str_cmp(const char *a, size_t alen, const char *b, size_t blen);
static size_t lg_fmt_num(double x, char *buf);
static size_t lg_ws_len(const char *s, size_t rem);
static void lg_trim(const char **p, size_t *len);
static size_t lg_scan_decimal(const char *p, size_t len);
static double lg_dec_long(const char *p, size_t len);
static double lg_dec_to_double(const char *p, size_t len);
static double lg_radix(const char *p, size_t len, unsigned base);
static double lg_str_to_number(const char *p, size_t len);
static double lg_str_parse_float(const char *p, size_t len);
static enum dc_status lg_sb_put(struct lg_ctx *cx, struct lg_sb *sb, const char *s, size_t n);
static enum dc_status lg_sb_join(struct lg_ctx *cx, struct lg_sb *sb, const struct lv *arr);
static bool lv_same_object(const struct lv *a, const struct lv *b);

/* ---- memory ------------------------------------------------------------------ */

/* The module's memory is the core's arena (core/shared/arena.h): this turns its
 * failures into the module's messages. */
enum dc_status lg__alloc(struct lg_ctx *cx, size_t size, void **out)
{
    enum dc_status rc = dc__arena_take(&cx->arena, size, out);
    if (rc == DC_OK)
        return DC_OK;
    if (rc == DC_ELIMIT)
        return dc_error_set(cx->err, DC_ELIMIT, NULL,
                            "evaluation built more than %zu bytes of strings and arrays",
                            cx->arena.limit);
    return lg__oom(cx);
}

enum dc_status lg__oom(struct lg_ctx *cx)
{
    return dc_error_set(cx->err, DC_ENOMEM, NULL, "out of memory");
}

/* ---- values ------------------------------------------------------------------ */

/* A new array of n elements (to be filled by the caller through *arr), or a
 * new empty array, which costs nothing. */
enum dc_status lg__fresh_array(struct lg_ctx *cx, size_t n, struct lv_arr **arr, struct lv *out)
{
    *arr = NULL;
    if (n == 0) {
        *out = (struct lv){.kind = LV_ARR, .id = ++cx->serial};
        return DC_OK;
    }
    if (n > (SIZE_MAX - sizeof(struct lv_arr)) / sizeof(struct lv))
        return lg__oom(cx);
    enum dc_status rc = lg__charge(cx, n);
    if (rc != DC_OK)
        return rc;
    void *mem = NULL;
    rc = lg__alloc(cx, sizeof(struct lv_arr) + n * sizeof(struct lv), &mem);
    if (rc != DC_OK)
        return rc;
    struct lv_arr *a = mem;
    a->n = n;
    *arr = a;
    *out = (struct lv){.kind = LV_ARR, .u.a = a};
    return DC_OK;
}

/* ---- UTF-8 text, measured in UTF-16 code units as JavaScript does ------------ */

/* Length in bytes of the character at p (1 for a byte that does not start a
 * valid sequence) and its width in UTF-16 code units. */
static size_t lg_u8_char(const char *p, size_t rem, unsigned *units)
{
    unsigned char c = (unsigned char)p[0];
    size_t len = 1;
    *units = 1;
    if (c >= 0xC0 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3;
    else if (c >= 0xF0 && c <= 0xF7)
        len = 4;
    if (len > rem)
        return 1;
    for (size_t i = 1; i < len; i++) {
        if (((unsigned char)p[i] & 0xC0) != 0x80)
            return 1;
    }
    if (len == 4)
        *units = 2;
    return len;
}

static uint32_t lg_u8_decode(const char *p, size_t rem)
{
    unsigned units;
    size_t len = lg_u8_char(p, rem, &units);
    const unsigned char *s = (const unsigned char *)p;
    switch (len) {
    case 2:
        return ((uint32_t)(s[0] & 0x1F) << 6) | (s[1] & 0x3F);
    case 3:
        return ((uint32_t)(s[0] & 0x0F) << 12) | ((uint32_t)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    case 4:
        return ((uint32_t)(s[0] & 0x07) << 18) | ((uint32_t)(s[1] & 0x3F) << 12) |
               ((uint32_t)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
    default:
        return s[0];
    }
}

size_t lg__u16_len(const char *p, size_t len)
{
    size_t n = 0;
    size_t i = 0;
    while (i < len) {
        unsigned units;
        i += lg_u8_char(p + i, len - i, &units);
        n += units;
    }
    return n;
}

/* The string s[unit] of JavaScript: one code unit, as a view of its
 * character, or U+FFFD when the unit is half of a surrogate pair. */
bool lg__u16_unit_at(const char *p, size_t len, size_t unit, struct lg_sv *out)
{
    size_t i = 0;
    size_t u = 0;
    while (i < len) {
        unsigned units;
        size_t bl = lg_u8_char(p + i, len - i, &units);
        if (unit < u + units) {
            if (units == 2)
                *out = (struct lg_sv){lg_fffd, sizeof(lg_fffd) - 1};
            else
                *out = (struct lg_sv){p + i, bl};
            return true;
        }
        u += units;
        i += bl;
    }
    return false;
}

/* Byte range [*b0, *b1) of the UTF-16 units [u0, u1) of s, u0 < u1. *pre and
 * *post tell that the range starts or ends inside a surrogate pair: the lone
 * half is outside the byte range and stands for a U+FFFD. */
void lg__u16_range(const char *p, size_t len, size_t u0, size_t u1, size_t *b0, size_t *b1,
                   bool *pre, bool *post)
{
    size_t i = 0;
    size_t u = 0;
    bool started = false;
    *pre = false;
    *post = false;
    *b0 = len;
    *b1 = len;
    while (i < len) {
        unsigned units;
        size_t bl = lg_u8_char(p + i, len - i, &units);
        if (!started) {
            if (u == u0) {
                *b0 = i;
                started = true;
            } else if (units == 2 && u + 1 == u0) {
                *b0 = i + bl;
                *pre = true;
                started = true;
            }
        }
        if (started) {
            if (u == u1) {
                *b1 = i;
                return;
            }
            if (units == 2 && u + 1 == u1) {
                *b1 = i;
                *post = true;
                return;
            }
        }
        u += units;
        i += bl;
    }
}

/* JavaScript's string order: by UTF-16 code units. That is UTF-8 byte order
 * except where a character above U+FFFF meets one in U+E000..U+FFFF. */
static int lg_str_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    size_t i = 0;
    while (i < n && a[i] == b[i])
        i++;
    if (i == n)
        return alen < blen ? -1 : (alen > blen ? 1 : 0);
    /* Back up to the start of the character both strings differ in. */
    size_t j = i;
    while (j > 0 && ((unsigned char)a[j] & 0xC0) == 0x80)
        j--;
    uint32_t ca = lg_u8_decode(a + j, alen - j);
    uint32_t cb = lg_u8_decode(b + j, blen - j);
    uint32_t ua = ca < 0x10000 ? ca : 0xD800 + ((ca - 0x10000) >> 10);
    uint32_t ub = cb < 0x10000 ? cb : 0xD800 + ((cb - 0x10000) >> 10);
    if (ua == ub) {
        ua = ca < 0x10000 ? ca : 0xDC00 + ((ca - 0x10000) & 0x3FF);
        ub = cb < 0x10000 ? cb : 0xDC00 + ((cb - 0x10000) & 0x3FF);
    }
    if (ua == ub)
        return (unsigned char)a[i] < (unsigned char)b[i] ? -1 : 1;
    return ua < ub ? -1 : 1;
}

bool lg__contains(const char *h, size_t hl, const char *n, size_t nl)
{
    if (nl == 0)
        return true;
    if (nl > hl)
        return false;
    for (size_t i = 0; i + nl <= hl; i++) {
        if (h[i] == n[0] && memcmp(h + i, n, nl) == 0)
            return true;
    }
    return false;
}

/* ---- numbers ----------------------------------------------------------------- */

/* Number::toString(x) of ECMAScript: the shortest digits that read back as
 * x, in plain notation from 1e-6 up to 1e21 and in exponent notation outside
 * ("1e+21", "1.5e-7"). Writes at most LG_NUMBUF bytes, NUL included. */
static size_t lg_fmt_num(double x, char *buf)
{
    size_t n = 0;
    if (isnan(x)) {
        memcpy(buf, "NaN", 4);
        return 3;
    }
    if (x == 0) { /* -0 too */
        memcpy(buf, "0", 2);
        return 1;
    }
    if (x < 0) {
        buf[n++] = '-';
        x = -x;
    }
    if (isinf(x)) {
        memcpy(buf + n, "Infinity", 9);
        return n + 8;
    }
    if (x < 9007199254740992.0 && x == floor(x))
        return n + dc_uint_text((uint64_t)x, buf + n);

    char tmp[40];
    for (int prec = 1;; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, x);
        if (prec == 17 || strtod(tmp, NULL) == x)
            break;
    }
    char dig[24];
    size_t k = 0;
    const char *q = tmp;
    for (; *q != '\0' && *q != 'e' && *q != 'E'; q++) {
        if (*q >= '0' && *q <= '9' && k < sizeof(dig))
            dig[k++] = *q;
    }
    long e = *q != '\0' ? strtol(q + 1, NULL, 10) : 0;
    while (k > 1 && dig[k - 1] == '0')
        k--;
    long point = e + 1; /* digits before the decimal point */
    long kk = (long)k;
    if (kk <= point && point <= 21) {
        memcpy(buf + n, dig, k);
        n += k;
        for (long z = 0; z < point - kk; z++)
            buf[n++] = '0';
    } else if (0 < point && point <= 21) {
        memcpy(buf + n, dig, (size_t)point);
        n += (size_t)point;
        buf[n++] = '.';
        memcpy(buf + n, dig + point, k - (size_t)point);
        n += k - (size_t)point;
    } else if (-6 < point && point <= 0) {
        buf[n++] = '0';
        buf[n++] = '.';
        for (long z = 0; z < -point; z++)
            buf[n++] = '0';
        memcpy(buf + n, dig, k);
        n += k;
    } else {
        buf[n++] = dig[0];
        if (k > 1) {
            buf[n++] = '.';
            memcpy(buf + n, dig + 1, k - 1);
            n += k - 1;
        }
        long ex = point - 1;
        buf[n++] = 'e';
        buf[n++] = ex < 0 ? '-' : '+';
        char ed[21]; /* at most 3 digits, but dc_uint_text asks 21 bytes of room */
        size_t ek = dc_uint_text((uint64_t)(ex < 0 ? -ex : ex), ed);
        memcpy(buf + n, ed, ek);
        n += ek;
    }
    buf[n] = '\0';
    return n;
}

/* Bytes of the JavaScript white space or line terminator at s, 0 if none. */
static size_t lg_ws_len(const char *s, size_t rem)
{
    const unsigned char *p = (const unsigned char *)s;
    if (rem == 0)
        return 0;
    if (p[0] == ' ' || (p[0] >= 0x09 && p[0] <= 0x0D))
        return 1;
    if (rem >= 2 && p[0] == 0xC2 && p[1] == 0xA0) /* U+00A0 */
        return 2;
    if (rem < 3)
        return 0;
    if (p[0] == 0xE1 && p[1] == 0x9A && p[2] == 0x80) /* U+1680 */
        return 3;
    if (p[0] == 0xE2 && p[1] == 0x80 && /* U+2000..200A, 2028, 2029, 202F */
        ((p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF))
        return 3;
    if (p[0] == 0xE2 && p[1] == 0x81 && p[2] == 0x9F) /* U+205F */
        return 3;
    if (p[0] == 0xE3 && p[1] == 0x80 && p[2] == 0x80) /* U+3000 */
        return 3;
    if (p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) /* U+FEFF */
        return 3;
    return 0;
}

static void lg_trim(const char **p, size_t *len)
{
    const char *s = *p;
    size_t n = *len;
    for (;;) {
        size_t w = lg_ws_len(s, n);
        if (w == 0)
            break;
        s += w;
        n -= w;
    }
    size_t i = 0;
    size_t last = 0;
    while (i < n) {
        size_t w = lg_ws_len(s + i, n - i);
        if (w != 0) {
            i += w;
        } else {
            unsigned units;
            i += lg_u8_char(s + i, n - i, &units);
            last = i;
        }
    }
    *p = s;
    *len = last;
}

/* Length of the longest unsigned decimal literal at p (digits, an optional
 * fraction, an optional exponent; at least one digit), 0 if there is none. */
static size_t lg_scan_decimal(const char *p, size_t len)
{
    size_t i = 0;
    size_t digits = 0;
    while (i < len && lg_isdigit(p[i])) {
        i++;
        digits++;
    }
    if (i < len && p[i] == '.') {
        size_t j = i + 1;
        size_t frac = 0;
        while (j < len && lg_isdigit(p[j])) {
            j++;
            frac++;
        }
        if (digits + frac > 0) {
            i = j;
            digits += frac;
        }
    }
    if (digits == 0)
        return 0;
    if (i < len && (p[i] == 'e' || p[i] == 'E')) {
        size_t j = i + 1;
        if (j < len && (p[j] == '+' || p[j] == '-'))
            j++;
        size_t k = j;
        while (k < len && lg_isdigit(p[k]))
            k++;
        if (k > j)
            i = k;
    }
    return i;
}

/* A long decimal literal: keep LG_DEC_DIGITS significant digits and a sticky
 * digit for the rest, then let strtod round. */
static double lg_dec_long(const char *p, size_t len)
{
    char buf[LG_DEC_DIGITS + 48];
    size_t o = 0;
    size_t i = 0;
    long long exp10 = 0;
    bool seen = false;
    bool sticky = false;
    for (; i < len && lg_isdigit(p[i]); i++) {
        if (!seen && p[i] == '0')
            continue;
        seen = true;
        if (o < LG_DEC_DIGITS) {
            buf[o++] = p[i];
        } else {
            exp10++;
            sticky = sticky || p[i] != '0';
        }
    }
    if (i < len && p[i] == '.') {
        for (i++; i < len && lg_isdigit(p[i]); i++) {
            if (!seen && p[i] == '0') {
                exp10--;
                continue;
            }
            seen = true;
            if (o < LG_DEC_DIGITS) {
                buf[o++] = p[i];
                exp10--;
            } else {
                sticky = sticky || p[i] != '0';
            }
        }
    }
    if (i < len && (p[i] == 'e' || p[i] == 'E')) {
        bool neg = false;
        long long e = 0;
        i++;
        if (i < len && (p[i] == '+' || p[i] == '-'))
            neg = p[i++] == '-';
        /* Past a billion the result is 0 or infinity whatever the digits. */
        for (; i < len && lg_isdigit(p[i]); i++) {
            if (e < 1000000000LL)
                e = e * 10 + (p[i] - '0');
        }
        exp10 += neg ? -e : e;
    }
    if (o == 0)
        return 0;
    if (sticky) {
        buf[o++] = '1';
        exp10--;
    }
    snprintf(buf + o, sizeof(buf) - o, "e%lld", exp10);
    return strtod(buf, NULL);
}

/* A validated unsigned decimal literal to the nearest double. */
static double lg_dec_to_double(const char *p, size_t len)
{
    if (len < LG_DEC_DIRECT) {
        char buf[LG_DEC_DIRECT];
        memcpy(buf, p, len);
        buf[len] = '\0';
        return strtod(buf, NULL);
    }
    return lg_dec_long(p, len);
}

static double lg_radix(const char *p, size_t len, unsigned base)
{
    double v = 0;
    if (len == 0)
        return NAN;
    for (size_t i = 0; i < len; i++) {
        char c = p[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return NAN;
        if (d >= base)
            return NAN;
        v = v * base + d;
    }
    return v;
}

/* ECMAScript StringToNumber: Number("  12 ") is 12, Number("") is 0,
 * Number("0x1A") is 26, Number("1e3") is 1000, Number("12px") is NaN. */
static double lg_str_to_number(const char *p, size_t len)
{
    lg_trim(&p, &len);
    if (len == 0)
        return 0;
    if (len > 2 && p[0] == '0') {
        char r = p[1];
        if (r == 'x' || r == 'X')
            return lg_radix(p + 2, len - 2, 16);
        if (r == 'o' || r == 'O')
            return lg_radix(p + 2, len - 2, 8);
        if (r == 'b' || r == 'B')
            return lg_radix(p + 2, len - 2, 2);
    }
    bool neg = false;
    size_t i = 0;
    if (p[0] == '+' || p[0] == '-') {
        neg = p[0] == '-';
        i = 1;
    }
    if (len - i == 8 && memcmp(p + i, "Infinity", 8) == 0)
        return neg ? -INFINITY : INFINITY;
    size_t n = lg_scan_decimal(p + i, len - i);
    if (n == 0 || i + n != len)
        return NAN;
    double x = lg_dec_to_double(p + i, n);
    return neg ? -x : x;
}

/* parseFloat() of a string: the longest decimal prefix after white space. */
static double lg_str_parse_float(const char *p, size_t len)
{
    for (;;) {
        size_t w = lg_ws_len(p, len);
        if (w == 0)
            break;
        p += w;
        len -= w;
    }
    bool neg = false;
    size_t i = 0;
    if (len > 0 && (p[0] == '+' || p[0] == '-')) {
        neg = p[0] == '-';
        i = 1;
    }
    if (len - i >= 8 && memcmp(p + i, "Infinity", 8) == 0)
        return neg ? -INFINITY : INFINITY;
    size_t n = lg_scan_decimal(p + i, len - i);
    if (n == 0)
        return NAN;
    double x = lg_dec_to_double(p + i, n);
    return neg ? -x : x;
}

/* ECMAScript ToNumber. For an array it is ToNumber(String(array)): [] is 0,
 * [x] is x read back from its string, and two or more elements are NaN since
 * the join has a comma; so it never needs the joined string. */
double lg__to_number(const struct lv *v)
{
    switch (v->kind) {
    case LV_NULL:
        return 0;
    case LV_BOOL:
        return v->u.b ? 1 : 0;
    case LV_NUM:
        return v->u.n;
    case LV_STR:
        return lg_str_to_number(v->u.s.p, v->u.s.len);
    case LV_JSON:
    case LV_ARR: {
        if (!lv_is_array(v))
            return NAN;
        struct lg_it it;
        struct lv e;
        lg_it_init(&it, v);
        if (!lg_it_next(&it, &e))
            return 0;
        struct lv second;
        if (lg_it_next(&it, &second))
            return NAN;
        switch (e.kind) {
        case LV_NULL:
            return 0; /* [null] joins to "" */
        case LV_NUM:
            return e.u.n == 0 ? 0 : e.u.n; /* String(-0) is "0" */
        case LV_BOOL:
            return NAN;
        default:
            return lg__to_number(&e);
        }
    }
    default:
        return NAN;
    }
}

/* parseFloat(v), which "+" and "*" apply: parseFloat(String(v)). So true and
 * null are NaN, -0 becomes 0, and an array reads its first element. */
double lg__parse_float(const struct lv *v)
{
    switch (v->kind) {
    case LV_NUM:
        return v->u.n == 0 ? 0 : v->u.n;
    case LV_STR:
        return lg_str_parse_float(v->u.s.p, v->u.s.len);
    case LV_JSON:
    case LV_ARR: {
        if (!lv_is_array(v))
            return NAN;
        struct lg_it it;
        struct lv e;
        lg_it_init(&it, v);
        if (!lg_it_next(&it, &e))
            return NAN;
        return lg__parse_float(&e);
    }
    default:
        return NAN;
    }
}

/* ECMAScript ToIntegerOrInfinity of a number. */
double lg__to_integer(double x)
{
    if (isnan(x))
        return 0;
    return trunc(x);
}

/* ---- strings ----------------------------------------------------------------- */

static enum dc_status lg_sb_put(struct lg_ctx *cx, struct lg_sb *sb, const char *s, size_t n)
{
    if (sb->p == NULL || n > sb->cap - sb->len) {
        if (n > SIZE_MAX / 4 - sb->len)
            return lg__oom(cx);
        size_t cap = sb->cap * 2;
        if (cap < sb->len + n)
            cap = sb->len + n;
        if (cap < 32)
            cap = 32;
        enum dc_status rc = lg__charge(cx, (cap >> LG_STR_CHARGE_SHIFT) + 1);
        if (rc != DC_OK)
            return rc;
        void *mem = NULL;
        rc = lg__alloc(cx, cap + 1, &mem);
        if (rc != DC_OK)
            return rc;
        if (sb->len > 0)
            memcpy(mem, sb->p, sb->len);
        sb->p = mem;
        sb->cap = cap;
    }
    if (n > 0)
        memcpy(sb->p + sb->len, s, n);
    sb->len += n;
    sb->p[sb->len] = '\0';
    return DC_OK;
}

/* Array.prototype.join(","): elements null become "", arrays join again. */
static enum dc_status lg_sb_join(struct lg_ctx *cx, struct lg_sb *sb, const struct lv *arr)
{
    struct lg_it it;
    struct lv e;
    bool first = true;
    lg_it_init(&it, arr);
    while (lg_it_next(&it, &e)) {
        enum dc_status rc;
        if (!first) {
            rc = lg_sb_put(cx, sb, ",", 1);
            if (rc != DC_OK)
                return rc;
        }
        first = false;
        rc = lg__sb_elem(cx, sb, &e);
        if (rc != DC_OK)
            return rc;
    }
    return DC_OK;
}

/* One element of a join (of cat's arguments, or inside an array). */
enum dc_status lg__sb_elem(struct lg_ctx *cx, struct lg_sb *sb, const struct lv *v)
{
    char numbuf[LG_NUMBUF];
    if (v->kind == LV_NULL)
        return DC_OK;
    if (lv_is_array(v))
        return lg_sb_join(cx, sb, v);
    struct lg_sv s;
    enum dc_status rc = lg__to_sv(cx, v, numbuf, &s);
    if (rc != DC_OK)
        return rc;
    return lg_sb_put(cx, sb, s.p, s.len);
}

/* String(v). A number is written into numbuf (LG_NUMBUF bytes), so that view
 * lasts only as long as numbuf; every other view lasts the evaluation. */
enum dc_status lg__to_sv(struct lg_ctx *cx, const struct lv *v, char *numbuf, struct lg_sv *out)
{
    switch (v->kind) {
    case LV_NULL:
        *out = (struct lg_sv){"null", 4};
        return DC_OK;
    case LV_BOOL:
        *out = v->u.b ? (struct lg_sv){"true", 4} : (struct lg_sv){"false", 5};
        return DC_OK;
    case LV_NUM:
        out->len = lg_fmt_num(v->u.n, numbuf);
        out->p = numbuf;
        return DC_OK;
    case LV_STR:
        *out = (struct lg_sv){v->u.s.p, v->u.s.len};
        return DC_OK;
    default:
        break;
    }
    if (!lv_is_array(v)) {
        *out = (struct lg_sv){lg_object_str, sizeof(lg_object_str) - 1};
        return DC_OK;
    }
    struct lg_sb sb = {NULL, 0, 0};
    enum dc_status rc = lg_sb_join(cx, &sb, v);
    if (rc != DC_OK)
        return rc;
    *out = sb.p != NULL ? (struct lg_sv){sb.p, sb.len} : (struct lg_sv){"", 0};
    return DC_OK;
}

/* A NUL-terminated copy of [p, p+len) in the arena. */
enum dc_status lg__copy_str(struct lg_ctx *cx, const char *p, size_t len, const char **out)
{
    /* No object is larger than PTRDIFF_MAX; saying so also keeps GCC 12 -O3 from
     * a false -Wstringop-overflow on the memcpy below (Release builds failed). */
    if (len >= PTRDIFF_MAX)
        return lg__oom(cx);
    void *mem = NULL;
    enum dc_status rc = lg__alloc(cx, len + 1, &mem);
    if (rc != DC_OK)
        return rc;
    char *s = mem;
    if (len > 0)
        memcpy(s, p, len);
    s[len] = '\0';
    *out = s;
    return DC_OK;
}

/* ---- equality and order ------------------------------------------------------ */

static bool lv_same_object(const struct lv *a, const struct lv *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case LV_JSON:
        return a->u.j == b->u.j;
    case LV_ARR:
        return a->u.a == b->u.a && (a->u.a != NULL || a->id == b->id);
    case LV_OBJ:
        return a->u.o == b->u.o;
    default:
        return false;
    }
}

/* === : same type and value; NaN is not itself; objects by identity. */
bool lg__strict_eq(const struct lv *a, const struct lv *b)
{
    if (lv_is_object_type(a) || lv_is_object_type(b))
        return lv_same_object(a, b);
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case LV_NULL:
        return true;
    case LV_BOOL:
        return a->u.b == b->u.b;
    case LV_NUM:
        return a->u.n == b->u.n;
    default:
        return lg_str_eq(a, b);
    }
}

/* == : ECMAScript IsLooselyEqual. null equals only null; a boolean compares
 * as 0 or 1; a string meeting a number becomes a number; an object meeting a
 * primitive becomes its string ([1,2] == "1,2", [] == 0, [] == false). */
enum dc_status lg__loose_eq(struct lg_ctx *cx, const struct lv *a, const struct lv *b, bool *out)
{
    bool ao = lv_is_object_type(a);
    bool bo = lv_is_object_type(b);
    if (ao && bo) {
        *out = lv_same_object(a, b);
        return DC_OK;
    }
    if (!ao && !bo && a->kind == b->kind) {
        *out = lg__strict_eq(a, b);
        return DC_OK;
    }
    if (a->kind == LV_NULL || b->kind == LV_NULL) {
        *out = false;
        return DC_OK;
    }
    struct lv x = *a;
    struct lv y = *b;
    if (x.kind == LV_BOOL)
        x = lv_num(x.u.b ? 1 : 0);
    if (y.kind == LV_BOOL)
        y = lv_num(y.u.b ? 1 : 0);
    /* Now each side is a number, a string or an object, not both objects. */
    if (x.kind == LV_STR && y.kind == LV_STR) {
        *out = lg__strict_eq(&x, &y);
        return DC_OK;
    }
    if (x.kind == LV_NUM || y.kind == LV_NUM) {
        /* number == string | object | number: both as numbers (ToNumber of an
         * object is ToNumber of its string, which lg__to_number computes). */
        *out = lg__to_number(&x) == lg__to_number(&y);
        return DC_OK;
    }
    /* A string and an object: compare with the object's string. */
    char numbuf[LG_NUMBUF];
    struct lg_sv sx;
    struct lg_sv sy;
    enum dc_status rc = lg__to_sv(cx, &x, numbuf, &sx);
    if (rc == DC_OK)
        rc = lg__to_sv(cx, &y, numbuf, &sy);
    if (rc != DC_OK)
        return rc;
    *out = sx.len == sy.len && memcmp(sx.p, sy.p, sx.len) == 0;
    return DC_OK;
}

/* ECMAScript IsLessThan: both sides to primitives (an array becomes its
 * string, an object "[object Object]"); two strings compare as strings,
 * anything else as numbers, where NaN is unordered. */
enum dc_status lg__compare(struct lg_ctx *cx, const struct lv *a, const struct lv *b,
                           enum lg_ord *out)
{
    if (a->kind == LV_NUM && b->kind == LV_NUM) {
        *out = lg_num_ord(a->u.n, b->u.n);
        return DC_OK;
    }
    bool as = a->kind == LV_STR || lv_is_object_type(a);
    bool bs = b->kind == LV_STR || lv_is_object_type(b);
    if (!as || !bs) {
        *out = lg_num_ord(lg__to_number(a), lg__to_number(b));
        return DC_OK;
    }
    char numbuf[LG_NUMBUF]; /* unused: neither side is a number here */
    struct lg_sv sa;
    struct lg_sv sb;
    enum dc_status rc = lg__to_sv(cx, a, numbuf, &sa);
    if (rc == DC_OK)
        rc = lg__to_sv(cx, b, numbuf, &sb);
    if (rc != DC_OK)
        return rc;
    int c = lg_str_cmp(sa.p, sa.len, sb.p, sb.len);
    *out = c < 0 ? ORD_LT : (c > 0 ? ORD_GT : ORD_EQ);
    return DC_OK;
}

/* ---- results ----------------------------------------------------------------- */

enum dc_status lg__to_cjson(struct lg_ctx *cx, const struct lv *v, cJSON **out)
{
    cJSON *j = NULL;
    cJSON *item = NULL;
    enum dc_status rc = DC_OK;
    switch (v->kind) {
    case LV_NULL:
        j = cJSON_CreateNull();
        break;
    case LV_BOOL:
        j = cJSON_CreateBool(v->u.b);
        break;
    case LV_NUM:
        j = cJSON_CreateNumber(v->u.n); /* NaN and infinities print as null */
        break;
    case LV_STR: {
        const char *s = v->u.s.p;
        if (s[v->u.s.len] != '\0') {
            rc = lg__copy_str(cx, s, v->u.s.len, &s);
            if (rc != DC_OK)
                goto out;
        }
        j = cJSON_CreateString(s);
        break;
    }
    case LV_JSON:
        j = cJSON_Duplicate(v->u.j, 1);
        break;
    case LV_ARR: {
        struct lg_it it;
        struct lv e;
        j = cJSON_CreateArray();
        if (j == NULL)
            break;
        lg_it_init(&it, v);
        while (lg_it_next(&it, &e)) {
            rc = lg__to_cjson(cx, &e, &item);
            if (rc != DC_OK)
                goto out;
            if (!cJSON_AddItemToArray(j, item))
                goto oom;
            item = NULL;
        }
        break;
    }
    default: { /* LV_OBJ */
        j = cJSON_CreateObject();
        if (j == NULL)
            break;
        /* Adding to an object copies the key, which can fail too. */
        rc = lg__to_cjson(cx, &v->u.o->current, &item);
        if (rc != DC_OK)
            goto out;
        if (!cJSON_AddItemToObject(j, "current", item))
            goto oom;
        item = NULL;
        rc = lg__to_cjson(cx, &v->u.o->accumulator, &item);
        if (rc != DC_OK)
            goto out;
        if (!cJSON_AddItemToObject(j, "accumulator", item))
            goto oom;
        item = NULL;
        break;
    }
    }
    if (j == NULL)
        goto oom;
    *out = j;
    j = NULL;
    goto out;
oom:
    rc = lg__oom(cx);
out:
    cJSON_Delete(item);
    cJSON_Delete(j);
    return rc;
}
