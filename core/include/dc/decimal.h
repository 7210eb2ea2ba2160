/* core/include/dc/decimal.h -- a whole number's decimal digits, once for every
 * layer: the JSON writer's numbers (api/src/json_number.c), the core's counts
 * in texts (dc_uint_text, core/src/base/digits.c) and the access log's fields
 * (service/src/log.c). Owned by core/. The tables and the two primitives are
 * header-only (static inline), so the writers' inner loops call nothing.
 * tests/unit/core/test_numfmt.c holds them to printf's "%" PRIu64. */
#ifndef DC_DECIMAL_H
#define DC_DECIMAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dc/common.h"

/* 10^0 to 10^19, every power of ten a uint64_t holds. */
static const uint64_t dc_pow10u[20] = {1ull,
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
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull};

/* The digits 00 to 99, two a pair: a number's digits are written two at a
 * time from its end, half the divisions of one at a time. */
static const char dc_digit_pairs[201] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243"
    "4445464748495051525354555657585960616263646566676869707172737475767778798081828384858687"
    "888990919293949596979899";

/* How many decimal digits v has (1 for 0): from its bit length, t =
 * floor(bits * log10 2) (1233 / 4096 is close enough below 2^64) is the
 * count or one more, and one comparison settles which. */
static inline size_t dc_uint_digits(uint64_t v)
{
    int bits = 64 - __builtin_clzll(v | 1);
    size_t t = (size_t)((bits * 1233) >> 12);
    return t + 1 - ((v | 1) < dc_pow10u[t]);
}

/* The n decimal digits of v (n = dc_uint_digits(v)) at out, no NUL. */
static inline void dc_uint_put(uint64_t v, size_t n, char *out)
{
    char *o = out + n;
    while (v >= 100) {
        uint64_t r = v % 100;
        v /= 100;
        o -= 2;
        memcpy(o, dc_digit_pairs + 2 * r, 2);
    }
    if (v >= 10) {
        o -= 2;
        memcpy(o, dc_digit_pairs + 2 * v, 2);
    } else {
        *--o = (char)('0' + v);
    }
}

/* As sprintf(out, "%" PRIu64, v): returns the length (at most 20). In
 * digits.c, which the body writer's byte-identity test replaces with printf's
 * own (tests/unit/api/extra.cmake). */
DC_API size_t dc_uint_text(uint64_t v, char out[static 21]);

#endif /* DC_DECIMAL_H */
