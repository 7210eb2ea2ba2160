/* core/include/dc/utf8.h -- UTF-8, once for every layer: the strict check of
 * RFC 3629 (https://www.rfc-editor.org/rfc/rfc3629#section-4) that request
 * bodies, logs, YAML output, the fleet reader and the probe's snapshot use; the
 * lenient decoder the JSON Schema validator matches characters with; the
 * encoder the JSON readers write a \u escape's code point with; and the
 * one character count (dc_utf8_count) of a workload's name, the schema's
 * minLength and maxLength and the CLI's table columns. Owned by core/. Header-only
 * (static inline), so probe/, which links nothing of core, uses it too.
 *
 * JSONLogic measures strings in UTF-16 code units as JavaScript does; that
 * measure is part of its value semantics and stays in core/src/logic/logic_value.c. */
#ifndef DC_UTF8_H
#define DC_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Length of the sequence that byte `b` starts under RFC 3629 (1 for ASCII, 2
 * to 4), or 0 when no valid sequence starts with it (a continuation byte,
 * 0xC0, 0xC1, 0xF5 and above). */
static inline size_t dc_utf8_lead(unsigned char b)
{
    if (b < 0x80)
        return 1;
    if (b >= 0xC2 && b <= 0xDF)
        return 2;
    if (b >= 0xE0 && b <= 0xEF)
        return 3;
    if (b >= 0xF0 && b <= 0xF4)
        return 4;
    return 0;
}

/* Length (1 to 4) of the valid UTF-8 sequence at p, of at most `rem` bytes,
 * with its code point in *cp (cp may be NULL); 0 when p does not start one: a
 * stray continuation byte, an overlong form, a surrogate, a code point past
 * U+10FFFF, or a sequence cut short. The bytes are checked in order and the
 * first wrong one ends the check, so a NUL-terminated string may be passed
 * with `rem` SIZE_MAX: nothing past its NUL is read. */
static inline size_t dc_utf8_seq(const unsigned char *p, size_t rem, uint32_t *cp)
{
    size_t n = rem > 0 ? dc_utf8_lead(p[0]) : 0;
    unsigned char lo = 0x80, hi = 0xBF;
    uint32_t v;
    if (n == 0 || n > rem)
        return 0;
    if (n == 1) {
        if (cp != NULL)
            *cp = p[0];
        return 1;
    }
    if (p[0] == 0xE0)
        lo = 0xA0;
    else if (p[0] == 0xED)
        hi = 0x9F;
    else if (p[0] == 0xF0)
        lo = 0x90;
    else if (p[0] == 0xF4)
        hi = 0x8F;
    if (p[1] < lo || p[1] > hi)
        return 0;
    v = p[0] & (n == 2 ? 0x1Fu : n == 3 ? 0x0Fu : 0x07u);
    for (size_t k = 1; k < n; k++) {
        if ((p[k] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (p[k] & 0x3Fu);
    }
    if (cp != NULL)
        *cp = v;
    return n;
}

/* The code point at s (len > 0 bytes) and its length in *adv, leniently: a
 * byte that starts no well-formed sequence, an overlong form or a value past
 * U+10FFFF is U+FFFD of length 1; encoded surrogates (CESU-8) are let through
 * as the code points they spell. */
static inline uint32_t dc_utf8_decode_lenient(const char *s, size_t len, size_t *adv)
{
    const unsigned char *p = (const unsigned char *)s;
    uint32_t cp = 0;
    size_t n = 0;
    uint32_t min = 0;
    *adv = 1;
    if (p[0] < 0x80)
        return p[0];
    if ((p[0] & 0xE0) == 0xC0) {
        n = 2;
        cp = p[0] & 0x1Fu;
        min = 0x80;
    } else if ((p[0] & 0xF0) == 0xE0) {
        n = 3;
        cp = p[0] & 0x0Fu;
        min = 0x800;
    } else if ((p[0] & 0xF8) == 0xF0) {
        n = 4;
        cp = p[0] & 0x07u;
        min = 0x10000;
    } else {
        return 0xFFFD;
    }
    if (len < n)
        return 0xFFFD;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0xFFFD;
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF)
        return 0xFFFD;
    *adv = n;
    return cp;
}

/* Characters of a NUL-terminated string: the code points of valid UTF-8, and
 * for anything else what dc_utf8_decode_lenient reads, each byte that starts
 * no well-formed sequence one character (the U+FFFD a terminal shows for
 * it), so never more than the bytes. Every string it counts in the product
 * was checked as UTF-8 where it came in (api/src/json_read.c for JSON
 * bodies and files, libyaml's reader for YAML), so the choice for malformed
 * bytes only keeps the counters of all layers one: a workload's name
 * (core/src/workload/workload.c), the schema's minLength and maxLength
 * (api/src/schema_validate.c) and a table's column (api_text_width). */
static inline size_t dc_utf8_count(const char *s)
{
    size_t n = 0;
    size_t len = strlen(s);
    size_t i = 0;
    while (i < len) {
        size_t adv = 1;
        /* ASCII runs are the common case; skip the decoder for them. */
        if ((unsigned char)s[i] >= 0x80)
            (void)dc_utf8_decode_lenient(s + i, len - i, &adv);
        i += adv;
        n++;
    }
    return n;
}

/* Code point `cp` (at most U+10FFFF) written as UTF-8 at out, 1 to 4 bytes;
 * returns how many. */
static inline size_t dc_utf8_put(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

#endif /* DC_UTF8_H */
