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
/* The digits 00 to 99, two a pair. */
static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233"
                            "34353637383940414243444546474849505152535455565758596061626364656667"
                            "6869707172737475767778798081828384858687888990919293949596979899";

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
    /* The digits of m, at least decimals + 1 of them (zeros in front), two
     * at a time from the end; then the point before the last `decimals`. */
    uint64_t v = (uint64_t)m;
    size_t nd = 1, dec = (size_t)decimals;
    for (uint64_t t = v; t >= 10; t /= 10)
        nd++;
    if (nd < dec + 1)
        nd = dec + 1;
    size_t total = nd + (dec > 0);
    if (total + 1 > cap)
        return 0;
    char digits[24];
    char *o = digits + nd;
    while (v >= 100) {
        uint64_t r = v % 100;
        v /= 100;
        o -= 2;
        memcpy(o, pairs + 2 * r, 2);
    }
    if (v >= 10) {
        o -= 2;
        memcpy(o, pairs + 2 * v, 2);
    } else {
        *--o = (char)('0' + v);
    }
    while (o > digits)
        *--o = '0';
    memcpy(out, digits, nd - dec);
    if (dec > 0) {
        out[nd - dec] = '.';
        memcpy(out + nd - dec + 1, digits + nd - dec, dec);
    }
    out[total] = '\0';
    return total;
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
