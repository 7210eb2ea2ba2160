/* tests/unit/api/reference_fmt.c -- the byte-identity test's reference
 * (extra.cmake, body_identical.sh): the primitives that turn numbers into
 * digits and join texts, written with the printf family as every body was
 * before the fast ones, linked into body_dump_reference ahead of the
 * product's libraries so that their own files (api/src/json_number.c,
 * core/src/base/digits.c, core/src/base/textf.c) are never pulled in. Every
 * other line of the two programs is the product's, so any byte that differs
 * between their bodies is a fast primitive's. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/jsonw.h"
#include "dc/numfmt.h"
#include "digits.h"
#include "textf.h"

/* cJSON 1.7.15's print_number: "%1.15g", or "%1.17g" when that does not
 * read back within DBL_EPSILON; NaN and infinities as null. */
size_t api_json_number(double d, char *buf, size_t cap)
{
    if (isnan(d) || isinf(d))
        return (size_t)snprintf(buf, cap, "null");
    int r = snprintf(buf, cap, "%1.15g", d);
    double back = strtod(buf, NULL);
    double max = fabs(back) > fabs(d) ? fabs(back) : fabs(d);
    if (!(fabs(back - d) <= max * DBL_EPSILON))
        r = snprintf(buf, cap, "%1.17g", d);
    return r > 0 ? (size_t)r : 0;
}

/* A display figure: rounded by the product's dc_round_sig, printed as above. */
size_t api_json_number_sig(double d, int digits, char *buf, size_t cap)
{
    return api_json_number(dc_round_sig(d, digits), buf, cap);
}

/* numfmt.c's fixed text as it was written before dc__fixed_put's own
 * digits: "%.*f", its trailing zeros past `keep` places and a bare point
 * dropped, then grouped by thousands. */
size_t dc__fixed_put(double a, int decimals, int keep, bool group, char *out, size_t len)
{
    char digits[400];
    if (decimals > 20)
        decimals = 20;
    int r = snprintf(digits, sizeof(digits), "%.*f", decimals, a);
    size_t total = r < 0 ? 0 : (size_t)r < sizeof(digits) ? (size_t)r : sizeof(digits) - 1;
    char *dot = decimals > 0 ? digits + total - decimals - 1 : NULL;
    char *end = digits + total;
    if (dot != NULL) {
        while (end > dot + 1 + keep && end[-1] == '0')
            *--end = '\0';
        if (end == dot + 1)
            *--end = '\0';
    }
    size_t int_len = dot != NULL ? (size_t)(dot - digits) : total;
    size_t k = 0;
    for (size_t i = 0; digits[i] != '\0' && k + 1 < len; i++) {
        if (group && i > 0 && i < int_len && (int_len - i) % 3 == 0 && k + 2 < len)
            out[k++] = ',';
        out[k++] = digits[i];
    }
    if (len > 0)
        out[k < len ? k : len - 1] = '\0';
    return len > 0 ? strlen(out) : 0;
}

size_t dc_uint_text(uint64_t v, char out[static 21])
{
    return (size_t)snprintf(out, 21, "%" PRIu64, v);
}

int dc__textf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return r;
}

int dc__vtextf(char *buf, size_t len, const char *fmt, va_list ap)
{
    return vsnprintf(buf, len, fmt, ap);
}
