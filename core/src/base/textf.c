/* core/src/base/textf.c -- snprintf for "%s"-only formats (textf.h).
 *
 * The pieces, runs of the format and the arguments, are a few bytes to a
 * few dozen each (a body's texts join some 1,600 of them): each is copied
 * byte by byte in the one pass that finds its end, where measuring it first
 * (strchr, strlen) and then copying it (memcpy) took three library calls a
 * piece, and most of these texts' time. It is a file of its own so that the
 * byte-identity test (tests/unit/api/extra.cmake) can link snprintf in its
 * place. */
#include "textf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

/* Appends the piece that starts at s and ends at its NUL or, for a run of
 * the format (`fmt`), at its first '%': copied to buf[*k] on while room is
 * left before buf[len - 1], only counted past it. Adds the piece's whole
 * length to *k; returns where the piece ends. */
static inline const char *append(char *buf, size_t len, size_t *k, const char *s, bool fmt)
{
    const char *p = s;
    if (*k + 1 < len) {
        char *o = buf + *k, *stop = buf + len - 1;
        while (o < stop && *p != '\0' && !(fmt && *p == '%'))
            *o++ = *p++;
    }
    while (*p != '\0' && !(fmt && *p == '%'))
        p++;
    *k += (size_t)(p - s);
    return p;
}

int dc__textf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t k = 0;
    const char *p = fmt;
    for (;;) {
        p = append(buf, len, &k, p, true);
        if (*p == '\0')
            break;
        if (p[1] == 's') {
            const char *s = va_arg(ap, const char *);
            if (s == NULL) /* what glibc prints for it, so no text differs */
                s = "(null)";
            append(buf, len, &k, s, false);
            p += 2;
        } else {
            /* "%%" is one '%'; any other '%' is copied as it stands. */
            append(buf, len, &k, "%", false);
            p += p[1] == '%' ? 2 : 1;
        }
    }
    va_end(ap);
    if (len > 0)
        buf[k < len ? k : len - 1] = '\0';
    return (int)k;
}
