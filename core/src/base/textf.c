/* core/src/base/textf.c -- snprintf for "%s"-only formats (textf.h).
 *
 * The pieces are short (a word, a formatted number), so they are copied byte
 * by byte in one pass that also measures them, rather than measured with
 * strlen and then copied: for pieces of a few bytes the calls cost more than
 * the copying. */
#include "textf.h"

#include <stdarg.h>

/* Appends s up to its NUL, stopping at `stop` (or never when stop is NUL)
 * and at len - 1 bytes of buf; counts every byte of s before it. Returns
 * where s stopped. */
static const char *append(char *buf, size_t len, size_t *k, const char *s, char stop)
{
    size_t n = *k;
    for (; *s != '\0' && *s != stop; s++, n++) {
        if (n + 1 < len)
            buf[n] = *s;
    }
    *k = n;
    return s;
}

int dc__textf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t k = 0;
    const char *p = fmt;
    for (;;) {
        p = append(buf, len, &k, p, '%');
        if (*p == '\0')
            break;
        if (p[1] == 's') {
            const char *s = va_arg(ap, const char *);
            if (s == NULL) /* what glibc prints for it, so no text differs */
                s = "(null)";
            append(buf, len, &k, s, '\0');
            p += 2;
        } else if (p[1] == '%') {
            append(buf, len, &k, "%", '\0');
            p += 2;
        } else {
            if (k + 1 < len)
                buf[k] = '%';
            k++;
            p++;
        }
    }
    va_end(ap);
    if (len > 0)
        buf[k < len ? k : len - 1] = '\0';
    return (int)k;
}
