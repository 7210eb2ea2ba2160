/* core/include/dc/numfmt.h -- numbers as people read them: the one formatting
 * the reason texts, the CLI table and the playground page share (the page
 * mirrors it in web/format.js; both are held to tests/fixtures/numfmt.json).
 *
 * Money carries its period and at most 3 significant digits past a thousand
 * ($92.4k/month, $6.88/h); a duration takes the largest unit it is at least
 * one of (340 ms, 2.1 days); a count is grouped (11,054); a quantity of things
 * uses a short-scale suffix (70B parameters, 100M tokens) and never an
 * exponent. Every formatter but dc_fmt_count first rounds to the 4
 * significant digits the JSON bodies carry (dc_round_sig), so a text always
 * agrees with the number beside it in the JSON. A value that is not finite is
 * written "unknown". Every function writes at most `len` bytes (truncating,
 * NUL-terminated) and returns `buf`. */
#ifndef DC_NUMFMT_H
#define DC_NUMFMT_H

#include <stdbool.h>
#include <stddef.h>

/* What a sum of money is per (its suffix). */
enum dc_period {
    DC_PER_NONE,      /* "$1.2k" */
    DC_PER_HOUR,      /* "$6.88/h" */
    DC_PER_CHIP_HOUR, /* "$14.24/chip-hour" */
    DC_PER_MONTH,     /* "$92.4k/month" */
    DC_PER_RUN,       /* "$34.5k/run": a training run, whole */
    DC_PER_JOB        /* "$310/job": an offline inference job, whole */
};

/* Significant digits the JSON bodies keep of a measured or estimated number. */
#define DC_JSON_SIGNIFICANT 4

/* `v` rounded to `digits` significant digits (half away from zero); values
 * that are 0, not finite or too small to scale are returned as they are. */
double dc_round_sig(double v, int digits);

/* The digits dc_round_sig(v, digits) rounds v to, for 1e-21 <= |v| < 1e21
 * and 1 to 17 digits: the whole number *mantissa and the scale *scale such
 * that the result is (the sign of v aside) *mantissa / 10^*scale, or
 * *mantissa * 10^-*scale when the scale is negative, so a writer can print
 * those digits without finding them again (api/src/json_number.c). False,
 * setting nothing, for any other value and where the scale would pass 22
 * (dc_round_sig then takes its slower path). */
bool dc_round_sig_digits(double v, int digits, double *mantissa, int *scale);

/* Dollars: under $1 three significant digits ($0.512), under $100 cents
 * ($6.88), under $1,000 whole dollars ($114), then 3 significant digits with
 * k, M, B or T ($92.4k), followed by the period's suffix. */
const char *dc_fmt_money(double usd, enum dc_period per, char *buf, size_t len);

/* A duration in seconds, in the largest of ms, s, min, h, days and years it
 * is at least one of, to 3 significant digits: "340 ms", "4.51 s", "2.1 days". */
const char *dc_fmt_duration(double seconds, char *buf, size_t len);

/* Hours and milliseconds, the units the results carry, as durations. */
const char *dc_fmt_hours(double hours, char *buf, size_t len);
const char *dc_fmt_ms(double ms, char *buf, size_t len);

/* A whole count, exact and grouped by thousands: "4,096". */
const char *dc_fmt_count(double n, char *buf, size_t len);

/* A count of things too large to read in full (parameters, tokens, requests):
 * 3 significant digits with k, M, B or T: "70B", "8.03B", "100M", "512". */
const char *dc_fmt_quantity(double v, char *buf, size_t len);

/* A measure (GB, TFLOPS, a factor): 3 significant digits, grouped, no
 * exponent: "428", "1.34", "2,250", "0.00512". */
const char *dc_fmt_number(double v, char *buf, size_t len);

/* A ratio as a percentage to 3 significant digits: 0.55 -> "55%". */
const char *dc_fmt_percent(double ratio, char *buf, size_t len);

/* FLOP with an SI prefix (kilo to yotta), 3 significant digits: "5.25 EFLOP". */
const char *dc_fmt_flop(double flop, char *buf, size_t len);

#endif /* DC_NUMFMT_H */
