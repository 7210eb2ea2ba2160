/* core/src/base/digits.c -- "%.*f" and "%u" without printf (digits.h). */
#include "digits.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* `a` with `decimals` places, when a * 10^decimals lies next to a whole
 * number: every caller of numfmt.c's put_fixed hands it a value already
 * rounded to the places it prints, and below 2^49 the product's own rounding
 * error is at most 1/16, so a whole number m within 1/4 of it is what "%.*f"
 * rounds the exact value to. Returns the length, or 0 for anything else. */
static size_t fast_fixed(double a, int decimals, char *out, size_t cap)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9, 1e10,
                                 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20};
    if (decimals < 0 || decimals > 20)
        return 0;
    double x = a * p10[decimals];
    if (!(x >= 0) || x >= 562949953421312.0 /* 2^49 */)
        return 0;
    double m = (x + 4503599627370496.0) - 4503599627370496.0; /* nearest whole: x < 2^49 */
    if (fabs(x - m) >= 0.25)
        return 0;
    char rev[24];
    size_t n = 0;
    uint64_t v = (uint64_t)m;
    do {
        rev[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n <= (size_t)decimals)
        rev[n++] = '0';
    if (n + 2 > cap)
        return 0;
    size_t k = 0;
    while (n > 0) {
        if (n == (size_t)decimals)
            out[k++] = '.';
        out[k++] = rev[--n];
    }
    out[k] = '\0';
    return k;
}

size_t dc__fixed_text(double a, int decimals, char *out, size_t cap)
{
    size_t n = fast_fixed(a, decimals, out, cap);
    if (n > 0)
        return n;
    int r = snprintf(out, cap, "%.*f", decimals, a);
    if (r < 0)
        return 0;
    return (size_t)r < cap ? (size_t)r : cap - 1;
}

size_t dc__uint_text(unsigned v, char out[static 11])
{
    char rev[10];
    size_t n = 0;
    do {
        rev[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    for (size_t i = 0; i < n; i++)
        out[i] = rev[n - 1 - i];
    out[n] = '\0';
    return n;
}
