/* core/src/base/digits.c -- "%.*f" and "%u" without printf (digits.h). */
#include "digits.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The whole number *m that "%.*f" of `a` prints the digits of (without the
 * point), when a * 10^decimals lies next to one: every caller of
 * dc__fixed_put hands it a value already rounded to the places it prints,
 * and below 2^49 the product's own rounding error is at most 1/16, so a
 * whole number m within 1/4 of it is what "%.*f" rounds the exact value to.
 * False for anything else (printf then decides). */
static bool scaled_whole(double a, int decimals, uint64_t *m)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9, 1e10,
                                 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20};
    if (decimals < 0 || decimals > 20)
        return false;
    double x = a * p10[decimals];
    if (!(x >= 0) || x >= 562949953421312.0 /* 2^49 */)
        return false;
    double r = (x + 4503599627370496.0) - 4503599627370496.0; /* nearest whole: x < 2^49 */
    if (fabs(x - r) >= 0.25)
        return false;
    *m = (uint64_t)r;
    return true;
}

/* The text of m / 10^dec with dec places, as dc__fixed_put shows it (keep,
 * group), written from its end into tmp; returns where it starts. */
static char *shown_digits(uint64_t m, size_t dec, size_t keep, bool group, char *end)
{
    /* A trailing zero of the places is a trailing zero of m. */
    while (dec > keep && m % 10 == 0) {
        m /= 10;
        dec--;
    }
    char *o = end;
    for (size_t i = 0; i < dec; i++) {
        *--o = (char)('0' + m % 10);
        m /= 10;
    }
    if (dec > 0)
        *--o = '.';
    int run = 0;
    do {
        if (group && run == 3) {
            *--o = ',';
            run = 0;
        }
        *--o = (char)('0' + m % 10);
        m /= 10;
        run++;
    } while (m != 0);
    return o;
}

/* dc__fixed_put through printf's own "%.*f", for the values scaled_whole
 * cannot settle (and for a buffer too short to take the whole text). */
__attribute__((noinline)) static void fixed_put_printf(double a, int decimals, int keep, bool group,
                                                       char *out, size_t len)
{
    char digits[400];
    int r = snprintf(digits, sizeof(digits), "%.*f", decimals, a);
    if (r < 0)
        r = 0;
    size_t total = (size_t)r < sizeof(digits) ? (size_t)r : sizeof(digits) - 1;
    /* "%.*f" of a finite value has exactly `decimals` digits after the point. */
    char *dot = decimals > 0 ? digits + total - decimals - 1 : NULL;
    char *end = digits + total;
    if (dot != NULL) {
        while (end > dot + 1 + keep && end[-1] == '0')
            *--end = '\0';
        if (end == dot + 1)
            *--end = '\0';
    }
    size_t int_len = dot != NULL ? (size_t)(dot - digits) : total;
    if (!group || int_len <= 3) { /* no comma: the text as it is */
        size_t n = (size_t)(end - digits);
        if (n < len) {
            memcpy(out, digits, n + 1);
            return;
        }
    }
    size_t k = 0;
    for (size_t i = 0; digits[i] != '\0' && k + 1 < len; i++) {
        if (group && i > 0 && i < int_len && (int_len - i) % 3 == 0 && k + 2 < len)
            out[k++] = ',';
        out[k++] = digits[i];
    }
    if (len > 0)
        out[k < len ? k : len - 1] = '\0';
}

/* Room for any text shown_digits writes: 15 digits and 4 commas, or "0."
 * and 20 places. */
#define SHOWN_ROOM 32

size_t dc__fixed_put(double a, int decimals, int keep, bool group, char *out, size_t len)
{
    if (decimals > 20)
        decimals = 20;
    uint64_t m = 0;
    if (len >= SHOWN_ROOM && keep >= 0 && scaled_whole(a, decimals, &m)) {
        /* Written backwards to the middle of tmp, then copied as one block
         * of SHOWN_ROOM bytes (out has that room): no call for a few bytes. */
        char tmp[2 * SHOWN_ROOM], *end = tmp + SHOWN_ROOM;
        char *o = shown_digits(m, (size_t)decimals, (size_t)keep, group, end);
        size_t n = (size_t)(end - o);
        memcpy(out, o, SHOWN_ROOM);
        out[n] = '\0';
        return n;
    }
    fixed_put_printf(a, decimals, keep, group, out, len);
    return len > 0 ? strlen(out) : 0;
}

size_t dc_uint_text(uint64_t v, char out[static 21])
{
    size_t n = dc_uint_digits(v);
    dc_uint_put(v, n, out);
    out[n] = '\0';
    return n;
}
