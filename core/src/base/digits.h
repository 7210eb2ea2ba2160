/* core/src/base/digits.h -- the two places the core turns a number into
 * decimal digits (owned by core; used by numfmt.c and sizing/shapes.c):
 * "%.*f" of a value and "%u" of a count, without printf for the values a
 * body holds. In a file of their own (digits.c), so that the byte-identity
 * test links printf's own in their place (tests/unit/api/extra.cmake,
 * tests/unit/api/reference_fmt.c). */
#ifndef DC_DIGITS_H
#define DC_DIGITS_H

#include <stddef.h>

/* As snprintf(out, cap, "%.*f", decimals, a) for a finite a >= 0 and
 * 0 <= decimals <= 20, with cap large enough for the whole text (which then
 * has exactly `decimals` digits after the point): returns its length. */
size_t dc__fixed_text(double a, int decimals, char *out, size_t cap);

/* As sprintf(out, "%u", v): returns the length (at most 10). */
size_t dc__uint_text(unsigned v, char out[static 11]);

#endif /* DC_DIGITS_H */
