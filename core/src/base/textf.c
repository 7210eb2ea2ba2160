/* core/src/base/textf.c -- snprintf for "%s"-only formats (textf.h).
 *
 * Each piece, a run of the format or an argument, is measured (strchr,
 * strlen) and copied: a body's texts join some 1,600 pieces of a few bytes
 * to a few dozen, so those up to 16 bytes are copied inline as two
 * overlapping words, where a call to memcpy cost more than the copy. It is
 * a file of its own so that the byte-identity test
 * (tests/unit/api/extra.cmake) can link snprintf in its place. */
#include "textf.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

/* Copies the n bytes of s to o. */
static inline void copy_bytes(char *o, const char *s, size_t n)
{
    if (n > 16) {
        memcpy(o, s, n);
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(o, &a, 8);
        memcpy(o + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(o, &a, 4);
        memcpy(o + n - 4, &b, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            o[i] = s[i];
    }
}

/* Appends the n bytes of s at buf[*k], as far as len - 1 bytes of buf
 * reach, and adds n to *k, the length the whole text has so far. */
static inline void append(char *buf, size_t len, size_t *k, const char *s, size_t n)
{
    if (*k + 1 < len) {
        size_t room = len - 1 - *k;
        copy_bytes(buf + *k, s, n < room ? n : room);
    }
    *k += n;
}

int dc__textf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t k = 0;
    const char *p = fmt;
    for (;;) {
        const char *pct = strchr(p, '%');
        append(buf, len, &k, p, pct != NULL ? (size_t)(pct - p) : strlen(p));
        if (pct == NULL)
            break;
        if (pct[1] == 's') {
            const char *s = va_arg(ap, const char *);
            if (s == NULL) /* what glibc prints for it, so no text differs */
                s = "(null)";
            append(buf, len, &k, s, strlen(s));
            p = pct + 2;
        } else {
            /* "%%" is one '%'; any other '%' is copied as it stands. */
            append(buf, len, &k, "%", 1);
            p = pct + (pct[1] == '%' ? 2 : 1);
        }
    }
    va_end(ap);
    if (len > 0)
        buf[k < len ? k : len - 1] = '\0';
    return (int)k;
}
