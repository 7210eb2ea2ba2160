/* core/src/base/textf.h -- the reason texts' one formatter: snprintf for formats
 * whose only conversion is %s (owned by core; used by reasons.c, targets.c,
 * price_note.c and defaults.c).
 *
 * Every text of a recommendation body is assembled from words and numbers
 * already formatted (dc/numfmt.h); glibc's snprintf parses the format and
 * consults the locale per call, and the texts of one body make thousands of
 * calls, which cost more than deciding the answer. dc__textf joins the same
 * pieces with memcpy (textf.c, a file of its own so that the byte-identity
 * test links vsnprintf in its place: tests/unit/api/reference_fmt.c). */
#ifndef DC_TEXTF_H
#define DC_TEXTF_H

#include <stdarg.h>
#include <stddef.h>

/* As snprintf(buf, len, fmt, ...) for a format holding only "%s" (each a
 * const char *; NULL prints "(null)" as glibc does) and "%%": writes at most len - 1
 * bytes and a NUL (nothing when len is 0) and returns the length the whole
 * text has, truncated or not. Any other conversion is copied as it stands.
 * fmt must be a string literal (-Wformat=2 holds every caller to that): its
 * split into runs is kept per thread by its address (textf.c). */
int dc__textf(char *buf, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* dc__textf with the arguments in `ap` (dc__fmt, core/src/base/arena.c). */
int dc__vtextf(char *buf, size_t len, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 0)))
#endif
    ;

#endif /* DC_TEXTF_H */
