/* core/src/base/digits.h -- the two places the core turns a number into
 * decimal digits (owned by core; used by numfmt.c, sizing/shapes.c and
 * logic/): "%.*f" of a value (as numfmt.c shows it, dc__fixed_put, here) and
 * "%" PRIu64 of a count (dc_uint_text, in dc/decimal.h for every layer),
 * without printf for the values a body holds. Both are defined in a file of
 * their own (digits.c), so that the byte-identity test links printf's own in
 * their place (tests/unit/api/extra.cmake, tests/unit/api/reference_fmt.c). */
#ifndef DC_DIGITS_H
#define DC_DIGITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dc/decimal.h"

/* "%.*f" of a finite a >= 0 with `decimals` places (at most 20), trailing
 * zeros past `keep` places and a bare point dropped, the integer part grouped
 * by thousands when `group`: written into out (at most len bytes, cut short
 * and NUL-terminated when longer; the bytes of out past the NUL, up to len,
 * may be overwritten). Returns the length of what it wrote (0 when len is
 * 0), so a caller need not measure the bytes just stored. */
size_t dc__fixed_put(double a, int decimals, int keep, bool group, char *out, size_t len);

#endif /* DC_DIGITS_H */
