/* core/src/base/textf.c -- snprintf for "%s"-only formats (textf.h).
 *
 * Each piece, a run of the format or an argument, is measured (strchr,
 * strlen) and copied whole with memcpy: a body's texts pass a few hundred
 * bytes through each call, which a byte-at-a-time loop, checking the room
 * and the end at every byte, paid for several times over. It is a file of
 * its own so that the byte-identity test (tests/unit/api/extra.cmake) can
 * link snprintf in its place. */
#include "textf.h"

#include <stdarg.h>
#include <string.h>

/* Appends the n bytes of s at buf[k], as far as len - 1 bytes of buf reach;
 * returns k + n, the length the whole text has so far. */
static size_t append(char *buf, size_t len, size_t k, const char *s, size_t n)
{
    if (k + 1 < len) {
        size_t room = len - 1 - k;
        memcpy(buf + k, s, n < room ? n : room);
    }
    return k + n;
}

int dc__textf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t k = 0;
    const char *p = fmt;
    for (;;) {
        const char *pct = strchr(p, '%');
        k = append(buf, len, k, p, pct != NULL ? (size_t)(pct - p) : strlen(p));
        if (pct == NULL)
            break;
        if (pct[1] == 's') {
            const char *s = va_arg(ap, const char *);
            if (s == NULL) /* what glibc prints for it, so no text differs */
                s = "(null)";
            k = append(buf, len, k, s, strlen(s));
            p = pct + 2;
        } else if (pct[1] == '%') {
            k = append(buf, len, k, "%", 1);
            p = pct + 2;
        } else {
            k = append(buf, len, k, "%", 1);
            p = pct + 1;
        }
    }
    va_end(ap);
    if (len > 0)
        buf[k < len ? k : len - 1] = '\0';
    return (int)k;
}
