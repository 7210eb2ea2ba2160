/* service/src/utf8.h -- one UTF-8 sequence, checked and decoded: what the log
 * writer and the CLI's YAML writer need to pass text through or escape it. */
#ifndef SVC_UTF8_H
#define SVC_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length (1 to 4) of the valid UTF-8 sequence at p, with its code point in
 * *cp; 0 when p does not start one (a stray continuation byte, an overlong
 * form, a surrogate, past U+10FFFF, or cut short by the terminating NUL). */
static inline size_t svc_utf8_decode(const unsigned char *p, uint32_t *cp)
{
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF;
    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    }
    if (p[0] >= 0xC2 && p[0] <= 0xDF) {
        need = 1;
        *cp = p[0] & 0x1Fu;
    } else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
        need = 2;
        lo = p[0] == 0xE0 ? 0xA0 : 0x80;
        hi = p[0] == 0xED ? 0x9F : 0xBF;
        *cp = p[0] & 0x0Fu;
    } else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
        need = 3;
        lo = p[0] == 0xF0 ? 0x90 : 0x80;
        hi = p[0] == 0xF4 ? 0x8F : 0xBF;
        *cp = p[0] & 0x07u;
    } else {
        return 0;
    }
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t k = 1; k <= need; k++) {
        if ((p[k] & 0xC0) != 0x80)
            return 0;
        *cp = (*cp << 6) | (p[k] & 0x3Fu);
    }
    return need + 1;
}

#endif /* SVC_UTF8_H */
