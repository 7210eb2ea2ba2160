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
/* 10^i as whole numbers: m < 2^49 has at most 15 digits. */
static const uint64_t p10u[] = {1ull,
                                10ull,
                                100ull,
                                1000ull,
                                10000ull,
                                100000ull,
                                1000000ull,
                                10000000ull,
                                100000000ull,
                                1000000000ull,
                                10000000000ull,
                                100000000000ull,
                                1000000000000ull,
                                10000000000000ull,
                                100000000000000ull,
                                1000000000000000ull};

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
    /* The digits of m, at least decimals + 1 of them (zeros in front),
     * written from the end with the point before the last `decimals`. */
    uint64_t v = (uint64_t)m;
    size_t nd = 1, dec = (size_t)decimals;
    while (nd < 16 && v >= p10u[nd])
        nd++;
    if (nd < dec + 1)
        nd = dec + 1;
    size_t total = nd + (dec > 0);
    if (total + 1 > cap)
        return 0;
    char *o = out + total;
    *o = '\0';
    for (size_t i = 0; i < nd; i++) {
        if (i == dec && dec > 0)
            *--o = '.';
        *--o = (char)('0' + v % 10);
        v /= 10;
    }
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
