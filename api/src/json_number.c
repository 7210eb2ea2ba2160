/* api/src/json_number.c -- one JSON number as cJSON 1.7 prints it
 * (api_json_number, api/jsonw.h): NaN and infinities as null; otherwise
 * "%1.15g", or "%1.17g" when that does not read back close enough.
 *
 * The numbers a body holds (counts, and figures rounded to 4 significant
 * digits) take a path without snprintf or strtod; anything this file cannot
 * settle exactly takes cJSON's own path. It is a file of its own so that the
 * byte-identity test (tests/unit/api/extra.cmake) can link its printf
 * reference in its place. */
#include "api/jsonw.h"

#include "dc/decimal.h"
#include "dc/numfmt.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 10^k (0 <= k <= 22), each exact in a double. */
static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* cJSON 1.7's approximate equality used to accept "%1.15g". */
static bool close_enough(double a, double b)
{
    double max = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= max * DBL_EPSILON;
}

/* `m` / 10^k (m > 0, trailing zeros already dropped) in fixed notation, NUL
 * terminated; returns its length. */
static size_t put_scaled_digits(bool negative, uint64_t m, int k, char *buf)
{
    size_t nd = dc_uint_digits(m), n = 0, dec = (size_t)k;
    if (negative)
        buf[n++] = '-';
    if (dec == 0) {
        dc_uint_put(m, nd, buf + n);
        n += nd;
    } else if (nd > dec) {
        /* The digits one place on, then the integer part moved back over
         * the gap to leave it for the point. */
        dc_uint_put(m, nd, buf + n + 1);
        for (size_t i = 0; i < nd - dec; i++)
            buf[n + i] = buf[n + 1 + i];
        buf[n + nd - dec] = '.';
        n += nd + 1;
    } else {
        buf[n++] = '0';
        buf[n++] = '.';
        for (size_t z = nd; z < dec; z++)
            buf[n++] = '0';
        dc_uint_put(m, nd, buf + n);
        n += nd;
    }
    buf[n] = '\0';
    return n;
}

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

/* Exact 128-bit integers: a double's 53-bit significand times a power of
 * ten up to 10^20 stays below 2^120. */
__extension__ typedef unsigned __int128 u128;

/* The p digits of the quotient q (remainder rem of the divisor div), rounded
 * half to even as glibc rounds a tie, when q has p digits: sets *digits and
 * true (*ex one up when the rounding carries into the next decade); false,
 * *ex corrected by one, when the exponent guessed for it was one off. */
static bool settle_digits(u128 q, u128 rem, u128 div, int p, uint64_t *digits, int *ex)
{
    if (q >= dc_pow10u[p]) {
        ++*ex;
        return false;
    }
    if (q < dc_pow10u[p - 1]) {
        --*ex;
        return false;
    }
    q += rem * 2 > div || (rem * 2 == div && (q & 1));
    if (q == dc_pow10u[p]) { /* rounded up into the next decade */
        q = dc_pow10u[p - 1];
        ++*ex;
    }
    *digits = (uint64_t)q;
    return true;
}

/* The `p` significant digits (15 or 17) printf gives a finite 1e-4 <= a <
 * 1e15, exactly: a = f * 2^-sh, and the digits are a * 10^k = f * 10^k /
 * 2^sh, rounded half to even as glibc rounds a tie, with k = p - 1 - e and e
 * = floor(log10 a), found from the binary exponent and corrected by the
 * quotient's own size. Sets *digits (p digits) and *e; false when the
 * rounding carries past 10^p at e = 14 (printf then prints an exponent). */
static bool exact_digits(double a, int p, uint64_t *digits, int *e)
{
    uint64_t bits;
    memcpy(&bits, &a, sizeof(bits));
    uint64_t f = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    int sh = 1075 - (int)((bits >> 52) & 0x7ff); /* a = f / 2^sh; 3 <= sh <= 66 here */
    int t = (52 - sh) * 1233;                    /* floor(log10 2^(52 - sh)) * 4096, near */
    int ex = t >= 0 ? t >> 12 : -((-t + 4095) >> 12);
    for (int tries = 0; tries < 3; tries++) {
        int k = p - 1 - ex;
        if (k < 0 || k > 20)
            return false;
        u128 x = (u128)f * dc_pow10u[k < 19 ? k : 19] * (k == 20 ? 10u : 1u);
        u128 div = (u128)1 << sh;
        if (settle_digits(x >> sh, x & (div - 1), div, p, digits, &ex)) {
            *e = ex;
            return ex < 15;
        }
    }
    return false;
}

/* `p` digits (e the decimal exponent of the first) in "%g"'s fixed
 * notation, trailing zeros dropped; returns the length. */
static size_t put_g_fixed(bool negative, uint64_t digits, int p, int e, char *buf)
{
    int k = p - 1 - e;
    while (k > 0 && digits % 10u == 0) {
        digits /= 10u;
        k--;
    }
    return put_scaled_digits(negative, digits, k, buf);
}

/* The digits of mi (nd of them, the last not 0) as "%g" writes them in its
 * exponent form with decimal exponent x10: "d.ddde-05", "6.3e+23" (at least
 * two digits of exponent); returns the length. */
static size_t put_exponent_form(bool negative, uint64_t mi, size_t nd, int x10, char *buf)
{
    size_t n = 0;
    if (negative)
        buf[n++] = '-';
    dc_uint_put(mi, nd, buf + n + 1);
    buf[n] = buf[n + 1];
    if (nd > 1) {
        buf[n + 1] = '.';
        n += nd + 1;
    } else {
        n += 1;
    }
    buf[n++] = 'e';
    buf[n++] = x10 < 0 ? '-' : '+';
    unsigned ex = (unsigned)(x10 < 0 ? -x10 : x10);
    if (ex >= 100)
        buf[n++] = (char)('0' + ex / 100);
    buf[n++] = (char)('0' + ex / 10 % 10);
    buf[n++] = (char)('0' + ex % 10);
    buf[n] = '\0';
    return n;
}

/* The `p` significant digits (15 or 17) printf gives a finite 1e15 <= a <
 * 1e34, exactly, as exact_digits gives them below: a = f * 2^up, and the
 * digits are f * 2^up / 10^(e - p + 1) rounded half to even, numerator and
 * divisor whole 128-bit numbers (f * 2^up * 10 < 2^117, 10^(e - p + 1) *
 * 2^-up below 10^19 * 2^3). Sets *digits and *e = floor(log10 a). */
static bool exact_digits_large(double a, int p, uint64_t *digits, int *e)
{
    uint64_t bits;
    memcpy(&bits, &a, sizeof(bits));
    uint64_t f = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    int up = (int)((bits >> 52) & 0x7ff) - 1075; /* -3 <= up <= 60 here */
    int ex = (binary_exponent(a) - 1) * 1233 >> 12;
    for (int tries = 0; tries < 3; tries++) {
        int k = ex - p + 1; /* -1 <= k <= 19: 17 digits below 1e16 take a tenth */
        if (k < -1 || k > 19 || up < -3 || up > 60)
            return false;
        u128 num = ((u128)f << (up > 0 ? up : 0)) * (k < 0 ? 10u : 1u);
        u128 div = (u128)dc_pow10u[k < 0 ? 0 : k] << (up < 0 ? -up : 0);
        if (settle_digits(num / div, num % div, div, p, digits, &ex)) {
            *e = ex;
            return true;
        }
    }
    return false;
}

/* "%1.15g" of d for 1e15 <= |d| < 1e34 (exponent notation: "6.3e+23"), or
 * "%1.17g" when that does not read back close enough for cJSON (exponent
 * notation from 1e17 on, fixed below), without printf: the FLOPs among a
 * body's assumptions. The digits are exact (exact_digits_large) and the 15
 * read back as strtod reads them: the digits times 10^(e - 14), one
 * correctly rounded product of two exact doubles (e - 14 <= 22). 0 when
 * printf must decide. */
static size_t large_g(double d, char *buf)
{
    double a = fabs(d);
    uint64_t m15 = 0, m17 = 0;
    int e15 = 0, e17 = 0;
    if (!exact_digits_large(a, 15, &m15, &e15) || e15 - 14 > 22)
        return 0;
    uint64_t m = m15;
    int e = e15;
    size_t nd = 15;
    if (!close_enough((double)m15 * pow10[e15 - 14], a)) {
        if (!exact_digits_large(a, 17, &m17, &e17))
            return 0;
        if (e17 < 17)
            return put_g_fixed(d < 0, m17, 17, e17, buf);
        m = m17;
        e = e17;
        nd = 17;
    }
    while (m % 10u == 0) {
        m /= 10u;
        nd--;
    }
    return put_exponent_form(d < 0, m, nd, e, buf);
}

/* "%1.15g" of d for 1e-4 <= |d| < 1e15 (fixed notation), or "%1.17g" when
 * that does not read back close enough for cJSON, without printf: the
 * digits are exact (exact_digits), and the 15 read back as strtod reads
 * them, one correctly rounded division of two exact doubles (the digits
 * below 2^53, 10^(14 - e) at most 10^18). 0 when printf must decide. */
static size_t exact_g(double d, char *buf)
{
    double a = fabs(d);
    uint64_t m15 = 0, m17 = 0;
    int e15 = 0, e17 = 0;
    if (!exact_digits(a, 15, &m15, &e15))
        return 0;
    if (close_enough((double)m15 / pow10[14 - e15], a))
        return put_g_fixed(d < 0, m15, 15, e15, buf);
    if (!exact_digits(a, 17, &m17, &e17))
        return 0;
    return put_g_fixed(d < 0, m17, 17, e17, buf);
}

/* "%1.15g" of d for 1e-3 <= |d| < 1e15 when |d| is the double nearest to a
 * decimal M / 10^s of at most six significant digits (the body's display
 * figures are rounded to four, dc/numfmt.h): 0 otherwise, and exact_g tries.
 *
 * s is taken from the first guess of the exponent (floor(log10 |d|) or one
 * less), so M = |d| * 10^s, rounded, is whole for such a decimal. When the
 * one correctly rounded division M / 10^s gives back |d| exactly, |d| is the
 * double nearest M / 10^s: it lies within half an ulp (2^-53 of it) of that
 * decimal, well inside half a unit of the 15th digit, so "%1.15g" prints
 * M / 10^s's digits (fixed notation, the exponent being at least -3), and
 * strtod reads them back as |d| itself. */
static size_t short_decimal(double d, char *buf)
{
    double a = fabs(d);
    int t = (binary_exponent(a) - 1) * 1233;
    int e = t >= 0 ? t >> 12 : -((-t + 4095) >> 12);
    int k = 5 - e;
    if (k < 0 || k > 19)
        return 0;
    double x = a * pow10[k];
    if (!(x < 1e7))
        return 0;
    double m = round_whole(x);
    if (m == 0 || m / pow10[k] != a)
        return 0;
    uint64_t mi = (uint64_t)m;
    while (k > 0 && mi % 10u == 0) {
        mi /= 10u;
        k--;
    }
    return put_scaled_digits(d < 0, mi, k, buf);
}

/* "%1.15g" of d for 1e-20 <= |d| < 1e-4, in its exponent form ("9.87e-05"),
 * when |d| is the double nearest to a decimal of at most six significant
 * digits, as short_decimal finds it: 0 otherwise. */
static size_t short_exponent(double d, char *buf)
{
    double a = fabs(d);
    int t = (binary_exponent(a) - 1) * 1233;
    int e = -((-t + 4095) >> 12); /* a < 1: t < 0 */
    int k = 5 - e;
    if (k < 0 || k > 25)
        return 0;
    /* 10^k as one exact double up to 10^22, else two exact factors (the
     * product a * 10^(k-19) * 10^19 is then rounded twice, so only the
     * division below, one exact division by the exact 10^k, decides). */
    double x = k <= 19 ? a * pow10[k] : a * pow10[k - 19] * pow10[19];
    if (!(x < 1e7))
        return 0;
    double m = round_whole(x);
    double p = k <= 22 ? pow10[k] : 0;
    if (m == 0 || p == 0 || m / p != a)
        return 0;
    uint64_t mi = (uint64_t)m;
    while (mi % 10u == 0) {
        mi /= 10u;
        k--;
    }
    size_t nd = dc_uint_digits(mi);
    int x10 = (int)nd - 1 - k; /* the decimal exponent, below -4 */
    if (x10 >= -4)
        return 0;
    return put_exponent_form(d < 0, mi, nd, x10, buf);
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

/* api_json_number for everything but the small whole numbers. */
__attribute__((noinline)) static size_t number_general(double d, char *buf, size_t cap)
{
    if (isnan(d) || isinf(d))
        return copy_text(buf, cap, "null", 4);
    /* "%1.15g" keeps the sign of zero. */
    if (d == 0)
        return signbit(d) ? copy_text(buf, cap, "-0", 2) : copy_text(buf, cap, "0", 1);
    double a = fabs(d);
    /* Integers below 10^15: "%1.15g" prints their digits. */
    if (a < 1e15 && (double)(uint64_t)a == a && cap > 17) {
        uint64_t v = (uint64_t)a;
        size_t n = 0, nd = dc_uint_digits(v);
        if (d < 0)
            buf[n++] = '-';
        dc_uint_put(v, nd, buf + n);
        buf[n + nd] = '\0';
        return n + nd;
    }
    if (a >= 1e-3 && a < 1e15 && cap >= API_JSON_NUMBER_BUF) {
        size_t n = short_decimal(d, buf);
        if (n > 0)
            return n;
    }
    if (a >= 1e-20 && a < 1e-4 && cap >= API_JSON_NUMBER_BUF) {
        size_t n = short_exponent(d, buf);
        if (n > 0)
            return n;
    }
    if (a >= 1e-4 && a < 1e15 && cap >= API_JSON_NUMBER_BUF) {
        size_t n = exact_g(d, buf);
        if (n > 0)
            return n;
    }
    if (a >= 1e15 && a < 1e34 && cap >= API_JSON_NUMBER_BUF) {
        size_t n = large_g(d, buf);
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

/* put_scaled_digits of m / 10^s with m's trailing zeros past the point
 * dropped, for the four digits of m in [1000, 9999] and 0 <= s <= 7 (from
 * 1e-4 on: fixed notation), the display figures' case (some 450 a body):
 * the digits are read once into registers and stored where they go, byte
 * by byte (buf has API_JSON_NUMBER_BUF bytes). Laying the text out in a
 * block on the stack and copying it whole stalled on every figure: a
 * 16-byte load of bytes just stored in smaller pieces waits for them to
 * reach the cache. */
static size_t put_four_digits(bool negative, unsigned m, int s, char *buf)
{
    const char *h = dc_digit_pairs + 2 * (m / 100), *l = dc_digit_pairs + 2 * (m % 100);
    char d0 = h[0], d1 = h[1], d2 = l[0], d3 = l[1];
    /* Digits shown: trailing zeros past the point dropped (d0 is not one). */
    int keep = d3 != '0' ? 4 : d2 != '0' ? 3 : d1 != '0' ? 2 : 1;
    if (keep < 4 - s)
        keep = 4 - s;
    char *o = buf;
    *o = '-';
    o += negative;
    size_t n;
    switch (s) {
    case 0:
        o[0] = d0, o[1] = d1, o[2] = d2, o[3] = d3;
        n = 4;
        break;
    case 1:
        o[0] = d0, o[1] = d1, o[2] = d2, o[3] = '.', o[4] = d3;
        n = keep > 3 ? 5 : 3;
        break;
    case 2:
        o[0] = d0, o[1] = d1, o[2] = '.', o[3] = d2, o[4] = d3;
        n = keep > 2 ? (size_t)keep + 1 : 2;
        break;
    case 3:
        o[0] = d0, o[1] = '.', o[2] = d1, o[3] = d2, o[4] = d3;
        n = keep > 1 ? (size_t)keep + 1 : 1;
        break;
    default: { /* "0." and s - 4 zeros before the digits */
        size_t lead = 2 + (size_t)(s - 4);
        o[0] = '0', o[1] = '.', o[2] = '0', o[3] = '0', o[4] = '0';
        o[lead] = d0, o[lead + 1] = d1, o[lead + 2] = d2, o[lead + 3] = d3;
        n = lead + (size_t)keep;
        break;
    }
    }
    o[n] = '\0';
    return (size_t)(o - buf) + n;
}

size_t api_json_number(double d, char *buf, size_t cap)
{
    /* The whole numbers 0 to 9999 (most of a body's 550 counts: chips,
     * replicas, impacts) take this short path, without the general one's
     * set-up; "%1.15g" prints their digits. -0 is not one of them. */
    if (d >= 0 && d < 10000 && cap > 4 && d == (double)(unsigned)d && !signbit(d)) {
        unsigned v = (unsigned)d;
        size_t n;
        if (v < 10) {
            buf[0] = (char)('0' + v);
            n = 1;
        } else if (v < 100) {
            memcpy(buf, dc_digit_pairs + 2 * v, 2);
            n = 2;
        } else if (v < 1000) {
            buf[0] = (char)('0' + v / 100);
            memcpy(buf + 1, dc_digit_pairs + 2 * (v % 100), 2);
            n = 3;
        } else {
            memcpy(buf, dc_digit_pairs + 2 * (v / 100), 2);
            memcpy(buf + 2, dc_digit_pairs + 2 * (v % 100), 2);
            n = 4;
        }
        buf[n] = '\0';
        return n;
    }
    return number_general(d, buf, cap);
}

/* api_json_number(dc_round_sig(d, digits)), the digits taken from the
 * rounding itself (dc_round_sig_digits) without the rounded value: that
 * value r is m / 10^s, m a whole number of at most `digits` digits (below
 * 2^53) and 10^s exact (0 <= s <= 19), so r is the double nearest that
 * decimal, "%1.15g" prints its digits (fixed notation from 1e-4 on) and
 * strtod reads them back as r: short_decimal's argument. With s < 0, r = m *
 * 10^-s is a whole number (m * 5^-s below 2^53) whose digits the integer
 * path prints below 10^15: m's, then -s zeros. Anything else is rounded
 * and formatted as any number is. */
size_t api_json_number_sig(double d, int digits, char *buf, size_t cap)
{
    /* No estimate (NaN, null) or none of it (zero): a third of a body's
     * display figures. dc_round_sig gives them back as they are, so they
     * print as api_json_number prints them, without a rounding that fails. */
    if (!isfinite(d))
        return copy_text(buf, cap, "null", 4);
    if (d == 0)
        return signbit(d) ? copy_text(buf, cap, "-0", 2) : copy_text(buf, cap, "0", 1);
    double m = 0;
    int s = 0;
    if (digits <= 15 && cap >= API_JSON_NUMBER_BUF && dc_round_sig_digits(d, digits, &m, &s) &&
        s <= 19) {
        uint64_t mi = (uint64_t)m;
        size_t n = 0;
        if (mi >= 1000 && mi <= 9999 && s >= 0 && s <= 7)
            return put_four_digits(d < 0, (unsigned)mi, s, buf);
        if (s < 0) {
            size_t nd = dc_uint_digits(mi), zeros = (size_t)-s;
            if (nd + zeros <= 15) {
                if (d < 0)
                    buf[n++] = '-';
                dc_uint_put(mi, nd, buf + n);
                memcpy(buf + n + nd, "000000000000000", 16); /* the zeros; buf has room */
                n += nd + zeros;
                buf[n] = '\0';
                return n;
            }
        } else {
            while (s > 0 && mi % 10u == 0) {
                mi /= 10u;
                s--;
            }
            /* From 1e-4 on "%1.15g" is in fixed notation: m >= 10^(s - 4). */
            if (s < 4 || mi >= dc_pow10u[s - 4])
                return put_scaled_digits(d < 0, mi, s, buf);
        }
    }
    return api_json_number(dc_round_sig(d, digits), buf, cap);
}
