/* core/src/base/numfmt.c -- the one formatting of numbers (dc/numfmt.h).
 *
 * web/format.js mirrors this file step for step, and both must give the same
 * text for every case of tests/fixtures/numfmt.json. So every step is an IEEE
 * operation that C and JavaScript perform alike: powers of ten are built by
 * repeated multiplication (never pow() or log10(), whose last bit may differ
 * between libraries), a scale is applied by one multiplication or division,
 * and printing ("%.*f", toFixed) only ever meets a value already rounded to
 * the digits printed. */
#include "dc/numfmt.h"

#include "digits.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* 10^i for i >= 0, exactly up to 10^22 and the same rounding beyond. */
static double p10(int i)
{
    /* Up to 10^22 every product is exact, so the table holds the same doubles
     * the multiplications give, without the loop (dc_round_sig calls this for
     * every number of a body). */
    static const double exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (i >= 0 && i < (int)(sizeof(exact) / sizeof(exact[0])))
        return exact[i];
    double r = 1;
    for (int k = 0; k < i; k++)
        r *= 10;
    return r;
}

/* floor(log10(a)) for a finite a > 0, by comparison with powers of ten
 * (inlined: dc_round_sig asks for every number a body rounds). */
static inline __attribute__((always_inline)) int exponent10(double a)
{
    static const double exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    uint64_t bits;
    memcpy(&bits, &a, sizeof(bits));
    int b = (int)((bits >> 52) & 0x7ff) - 1022; /* for a normal a: the exponent frexp gives */
    int k = 0;
    /* Between 1 and 10^21 the comparisons start near the answer: a in
     * [2^(b-1), 2^b) has floor(log10 a) of floor((b-1) log10 2) or one more,
     * and the steps below settle which, exactly as counting from 0 does (the
     * same comparisons with the same powers, p10's table). */
    if (a >= 1 && a < 1e21) {
        k = (int)((b - 1) * 0.30102999566398120);
        while (k > 0 && a < exact[k])
            k--;
        while (a >= exact[k + 1])
            k++;
        return k;
    }
    if (a >= 1) {
        while (k < 308 && a >= p10(k + 1))
            k++;
        return k;
    }
    /* Below 1 the answer is the least k >= 0 with a * 10^k >= 1, and that
     * product only grows with k: from near the answer (a in [2^(b-1), 2^b)
     * needs about -b log10 2 of them), a step back while the k before also
     * reaches 1, then forward, settles on the same k as counting from 0. */
    if (a >= 1e-21) {
        k = (int)(-b * 0.30102999566398120);
        while (k > 0 && a * exact[k - 1] >= 1)
            k--;
        while (a * exact[k] < 1)
            k++;
        return -k;
    }
    while (k < 330 && a * p10(k) < 1)
        k++;
    return -k;
}

/* round(x) for x >= 0 (halves away from zero), without the library call
 * (every number of a body's texts is rounded here at least twice): adding
 * and taking away 2^52 rounds to the nearest whole number, halves to even,
 * and a half left below is then carried up, as round() does. From 2^52 on
 * every double is whole. */
static double round_up_half(double x)
{
    const double two52 = 4503599627370496.0;
    if (!(x < two52))
        return x;
    double r = (x + two52) - two52;
    return x - r == 0.5 ? r + 1 : r;
}

/* dc_round_sig of v (|v| = a) with the scale 10^s, s >= 0. */
static double round_sig_scaled(double v, double a, int s)
{
    double p = p10(s);
    if (!isfinite(p) || !isfinite(a * p))
        return v;
    double r = round_up_half(a * p) / p;
    return v < 0 ? -r : r;
}

/* The steps of dc_round_sig that the numbers a body holds take (a body
 * rounds some 800 of them), for a = |v| in [1e-21, 1e21) and 1 to 17
 * digits, where the scale s is one of the exact powers 10^0 to 10^22 and a *
 * 10^s < 10^digits stays finite: the whole number *m that a rounds to and
 * *s. False for anything else. */
static inline __attribute__((always_inline)) bool sig_digits(double a, int digits, double *m,
                                                             int *s)
{
    static const double exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (!(a >= 1e-21 && a < 1e21 && digits >= 1 && digits <= 17))
        return false;
    int sc = digits - 1 - exponent10(a);
    if (sc < 0)
        *m = round_up_half(a / exact[-sc]);
    else if (sc <= 22)
        *m = round_up_half(a * exact[sc]);
    else
        return false;
    *s = sc;
    return true;
}

double dc_round_sig(double v, int digits)
{
    double a = fabs(v), m = 0;
    int s = 0;
    if (sig_digits(a, digits, &m, &s)) {
        double r = s < 0 ? m * p10(-s) : m / p10(s);
        return v < 0 ? -r : r;
    }
    if (!isfinite(v) || v == 0 || digits < 1)
        return v;
    s = digits - 1 - exponent10(a);
    if (s < 0) {
        double p = p10(-s);
        double r = round_up_half(a / p) * p;
        return v < 0 ? -r : r;
    }
    return round_sig_scaled(v, a, s);
}

bool dc_round_sig_digits(double v, int digits, double *mantissa, int *scale)
{
    return sig_digits(fabs(v), digits, mantissa, scale);
}

/* a, b and c one after another into out, as snprintf(out, len, "%s%s%s")
 * writes them (truncated, NUL-terminated), without printf; returns the
 * length written. The formatters below return their text's length this
 * way, so the table of texts made (memo_put) does not measure bytes just
 * stored one by one (a wide load of them waits for every store). */
static size_t concat3(char *out, size_t len, const char *a, const char *b, const char *c)
{
    if (out == NULL || len == 0)
        return 0;
    /* Byte by byte: the pieces are a few bytes, often none, where calls to
     * strlen and memcpy cost more than the copying. */
    const char *parts[3] = {a, b, c};
    char *o = out, *stop = out + len - 1;
    for (size_t i = 0; i < 3; i++) {
        for (const char *s = parts[i]; *s != '\0' && o < stop; s++)
            *o++ = *s;
    }
    *o = '\0';
    return (size_t)(o - out);
}

/* A rounded value `r` (> 0) to 3 significant digits, trailing zeros dropped. */
static size_t put_sig3(double r, bool group, char *out, size_t len)
{
    int d = 2 - exponent10(r);
    return dc__fixed_put(r, d < 0 ? 0 : d, 0, group, out, len);
}

/* Room past which a number below 10^15 with no sign is written straight
 * into the caller's buffer: its text (at most 19 digits and commas, or "0."
 * and 20 decimals) fits whole either way, so nothing is cut differently
 * from the copy through a 64-byte body that a longer text takes. */
#define DIRECT_ROOM 32

/* Writes sign + body into buf, or "unknown" for a value that is not finite. */
static size_t finish(const char *sign, const char *body, const char *suffix, char *buf, size_t len)
{
    return concat3(buf, len, sign, body, suffix);
}

static size_t unknown(char *buf, size_t len)
{
    return finish("", "unknown", "", buf, len);
}

/* The short-scale suffix for r >= 1000 and the mantissa it leaves. */
static const char *short_scale(double r, double *mantissa)
{
    static const char *const names[] = {"k", "M", "B", "T"};
    int i = 0;
    while (i < 3 && r >= p10(3 * (i + 2)))
        i++;
    *mantissa = r / p10(3 * (i + 1));
    return names[i];
}

/* A value past a thousand with its suffix: "92.4k", "1.37M", "1,000T". */
static size_t put_scaled(double r, char *out, size_t len)
{
    double m = 0;
    const char *suffix = short_scale(r, &m);
    char body[48];
    put_sig3(dc_round_sig(m, 3), true, body, sizeof(body));
    return concat3(out, len, body, suffix, "");
}

static size_t fmt_money(double usd, enum dc_period per, char *buf, size_t len)
{
    static const char *const suffix[] = {"", "/h", "/chip-hour", "/month", "/run", "/job"};
    if (!isfinite(usd))
        return unknown(buf, len);
    double r = dc_round_sig(fabs(usd), DC_JSON_SIGNIFICANT);
    char body[64];
    double cents = round_up_half(r * 100) / 100, whole = round_up_half(r);
    if (r == 0) {
        concat3(body, sizeof(body), "0", "", "");
    } else if (r < 1) {
        double t = dc_round_sig(r, 3);
        int d = 2 - exponent10(t);
        dc__fixed_put(t, d < 2 ? 2 : d, 2, false, body, sizeof(body));
    } else if (cents < 100) {
        dc__fixed_put(cents, 2, 2, false, body, sizeof(body));
    } else if (whole < 1000) {
        dc__fixed_put(whole, 0, 0, false, body, sizeof(body));
    } else {
        put_scaled(dc_round_sig(r, 3), body, sizeof(body));
    }
    unsigned p = (unsigned)per < sizeof(suffix) / sizeof(suffix[0]) ? (unsigned)per : 0;
    return finish(usd < 0 && r > 0 ? "-$" : "$", body, suffix[p], buf, len);
}

/* A duration of `secs` (>= 0) in the largest unit it is at least one of. */
static size_t duration_seconds(double secs, char *buf, size_t len)
{
    static const struct {
        double seconds;
        const char *one, *many;
    } units[] = {{0.001, "ms", "ms"}, {1, "s", "s"},          {60, "min", "min"},
                 {3600, "h", "h"},    {86400, "day", "days"}, {31536000, "year", "years"}};
    const size_t n = sizeof(units) / sizeof(units[0]);
    size_t u = 0;
    while (u + 1 < n && secs >= units[u + 1].seconds)
        u++;
    double v = dc_round_sig(secs / units[u].seconds, 3);
    /* 59.99 s rounds to 60 s: say 1 min instead. */
    if (u + 1 < n && v * units[u].seconds >= units[u + 1].seconds) {
        u++;
        v = dc_round_sig(secs / units[u].seconds, 3);
    }
    char body[64];
    if (v == 0)
        concat3(body, sizeof(body), "0", "", "");
    else
        put_sig3(v, true, body, sizeof(body));
    return concat3(buf, len, body, " ", v == 1 ? units[u].one : units[u].many);
}

/* A duration given in `unit_seconds` units, rounded in that unit first (the
 * JSON carries hours and milliseconds to 4 significant digits). */
static size_t duration_in(double v, double unit_seconds, char *buf, size_t len)
{
    if (!isfinite(v))
        return unknown(buf, len);
    if (v < 0) {
        char body[64];
        duration_in(-v, unit_seconds, body, sizeof(body));
        return finish("-", body, "", buf, len);
    }
    return duration_seconds(dc_round_sig(v, DC_JSON_SIGNIFICANT) * unit_seconds, buf, len);
}

static size_t fmt_duration(double seconds, char *buf, size_t len)
{
    return duration_in(seconds, 1, buf, len);
}

static size_t fmt_hours(double hours, char *buf, size_t len)
{
    return duration_in(hours, 3600, buf, len);
}

static size_t fmt_ms(double ms, char *buf, size_t len)
{
    return duration_in(ms, 0.001, buf, len);
}

static size_t fmt_quantity(double v, char *buf, size_t len);

static size_t fmt_count(double n, char *buf, size_t len)
{
    if (!isfinite(n))
        return unknown(buf, len);
    double a = round_up_half(fabs(n));
    if (a >= 1e21)
        return fmt_quantity(n, buf, len);
    if (!(n < 0 && a > 0) && a < 1e15 && len >= DIRECT_ROOM) {
        return dc__fixed_put(a, 0, 0, true, buf, len);
    }
    char body[64];
    dc__fixed_put(a, 0, 0, true, body, sizeof(body));
    return finish(n < 0 && a > 0 ? "-" : "", body, "", buf, len);
}

/* The number formatters' common start: sign, and |v| rounded to the JSON's
 * digits and then to the 3 shown. */
static double shown(double v)
{
    return dc_round_sig(dc_round_sig(fabs(v), DC_JSON_SIGNIFICANT), 3);
}

static size_t fmt_quantity(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        return unknown(buf, len);
    double r = shown(v);
    char body[64];
    if (r == 0)
        concat3(body, sizeof(body), "0", "", "");
    else if (r < 1000)
        put_sig3(r, true, body, sizeof(body));
    else
        put_scaled(r, body, sizeof(body));
    return finish(v < 0 && r > 0 ? "-" : "", body, "", buf, len);
}

static size_t fmt_number(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        return unknown(buf, len);
    double r = shown(v);
    if (r > 0 && !(v < 0) && r < 1e15 && len >= DIRECT_ROOM) {
        return put_sig3(r, true, buf, len);
    }
    char body[64];
    if (r == 0)
        concat3(body, sizeof(body), "0", "", "");
    else
        put_sig3(r, true, body, sizeof(body));
    return finish(v < 0 && r > 0 ? "-" : "", body, "", buf, len);
}

static size_t fmt_percent(double ratio, char *buf, size_t len)
{
    if (!isfinite(ratio))
        return unknown(buf, len);
    char body[64];
    fmt_number(dc_round_sig(ratio, DC_JSON_SIGNIFICANT) * 100, body, sizeof(body));
    return finish("", body, "%", buf, len);
}

static size_t fmt_flop(double flop, char *buf, size_t len)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T", "P", "E", "Z", "Y"};
    if (!isfinite(flop))
        return unknown(buf, len);
    double r = shown(flop);
    int i = 0;
    while (i < 8 && r >= p10(3 * (i + 1)))
        i++;
    char body[64], unit[16];
    if (r == 0)
        concat3(body, sizeof(body), "0", "", "");
    else
        put_sig3(dc_round_sig(r / p10(3 * i), 3), true, body, sizeof(body));
    concat3(unit, sizeof(unit), " ", prefix[i], "FLOP");
    return finish(flop < 0 && r > 0 ? "-" : "", body, unit, buf, len);
}

/* ---- the texts already made, per thread ---------------------------------
 *
 * A body's texts write the same figure again and again: the workload's
 * FLOP, its deadline and its memory need in every candidate's reasons, the
 * same MFU for every GPU. Each formatter is a function of its value alone
 * (and money of its period), so the last texts are kept, per thread, in a
 * small table keyed by the value's bits and the formatter; a figure met again
 * is copied from there instead of rounded and printed again (a body's texts
 * format some 550 figures, a third of them repeats). A text is kept, and
 * handed out, only where it fits the caller's buffer with a byte to spare,
 * so what was truncated or just fitted is always made afresh. */

enum fmt_kind {
    FMT_NONE, /* an empty slot */
    FMT_DURATION,
    FMT_HOURS,
    FMT_MS,
    FMT_COUNT,
    FMT_QUANTITY,
    FMT_NUMBER,
    FMT_PERCENT,
    FMT_FLOP,
    FMT_MONEY /* + the period */
};

#define MEMO_SLOTS 64 /* a power of two */
#define MEMO_TEXT  48 /* the longest text kept, NUL included */

struct memo_slot {
    uint64_t bits;
    uint32_t kind;
    uint32_t n; /* the text's length */
    char text[MEMO_TEXT];
};

static _Thread_local struct memo_slot memo[MEMO_SLOTS];

static inline struct memo_slot *memo_at(unsigned kind, double v, uint64_t *bits)
{
    memcpy(bits, &v, sizeof(*bits));
    uint64_t h = (*bits + kind) * 0x9E3779B97F4A7C15ull;
    return &memo[h >> 58];
}

/* The text of `kind` for v kept in the table, copied into buf; NULL when
 * none is kept or it would not fit with a byte to spare. */
static inline const char *memo_get(unsigned kind, double v, char *buf, size_t len,
                                   struct memo_slot **slot, uint64_t *bits)
{
    struct memo_slot *m = memo_at(kind, v, bits);
    *slot = m;
    if (m->kind != kind || m->bits != *bits || (size_t)m->n + 1 >= len)
        return NULL;
    memcpy(buf, m->text, (size_t)m->n + 1);
    return buf;
}

/* Keeps the text of n bytes (the length its formatter returned) that a
 * formatter just wrote to buf, unless it filled buf (it may have been cut)
 * or is too long for a slot. */
static inline const char *memo_put(struct memo_slot *m, unsigned kind, uint64_t bits,
                                   const char *buf, size_t len, size_t n)
{
    if (buf == NULL || len == 0)
        return buf;
    if (n + 1 < len && n < MEMO_TEXT) {
        m->kind = kind;
        m->bits = bits;
        m->n = (uint32_t)n;
        memcpy(m->text, buf, n + 1);
    }
    return buf;
}

#define MEMOIZED(kind, v, call)                                                                    \
    do {                                                                                           \
        struct memo_slot *slot_;                                                                   \
        uint64_t bits_;                                                                            \
        if (memo_get((kind), (v), buf, len, &slot_, &bits_) != NULL)                               \
            return buf;                                                                            \
        size_t n_ = (call);                                                                        \
        return memo_put(slot_, (kind), bits_, buf, len, n_);                                       \
    } while (0)

const char *dc_fmt_money(double usd, enum dc_period per, char *buf, size_t len)
{
    MEMOIZED(FMT_MONEY + (unsigned)per, usd, fmt_money(usd, per, buf, len));
}

const char *dc_fmt_duration(double seconds, char *buf, size_t len)
{
    MEMOIZED(FMT_DURATION, seconds, fmt_duration(seconds, buf, len));
}

const char *dc_fmt_hours(double hours, char *buf, size_t len)
{
    MEMOIZED(FMT_HOURS, hours, fmt_hours(hours, buf, len));
}

const char *dc_fmt_ms(double ms, char *buf, size_t len)
{
    MEMOIZED(FMT_MS, ms, fmt_ms(ms, buf, len));
}

const char *dc_fmt_count(double n, char *buf, size_t len)
{
    MEMOIZED(FMT_COUNT, n, fmt_count(n, buf, len));
}

const char *dc_fmt_quantity(double v, char *buf, size_t len)
{
    MEMOIZED(FMT_QUANTITY, v, fmt_quantity(v, buf, len));
}

const char *dc_fmt_number(double v, char *buf, size_t len)
{
    MEMOIZED(FMT_NUMBER, v, fmt_number(v, buf, len));
}

const char *dc_fmt_percent(double ratio, char *buf, size_t len)
{
    MEMOIZED(FMT_PERCENT, ratio, fmt_percent(ratio, buf, len));
}

const char *dc_fmt_flop(double flop, char *buf, size_t len)
{
    MEMOIZED(FMT_FLOP, flop, fmt_flop(flop, buf, len));
}
