/* api/src/jsonw.c -- the streaming JSON writer (api/jsonw.h). */
#include "api/jsonw.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define DEFAULT_HINT 4096

/* The slow half of reserve: the buffer doubled until `n` more bytes and a
 * NUL fit, or the document failed. */
static bool grow(struct api_jw *w, size_t n)
{
    if (w->failed)
        return false;
    if (n > API_JW_MAX_BYTES || w->len + n + 1 > API_JW_MAX_BYTES) {
        w->failed = true;
        return false;
    }
    size_t cap = w->cap > 0 ? w->cap : DEFAULT_HINT;
    while (cap < w->len + n + 1)
        cap *= 2;
    char *p = realloc(w->p, cap);
    if (p == NULL) {
        w->failed = true;
        return false;
    }
    w->p = p;
    w->cap = cap;
    return true;
}

/* Room for `n` more bytes and a NUL; false once the document failed. */
static inline bool reserve(struct api_jw *w, size_t n)
{
    if (!w->failed && w->len + n + 1 <= w->cap)
        return true;
    return grow(w, n);
}

/* Inlined: most callers pass a literal, whose copy the compiler then
 * writes as a few moves instead of a call to memcpy. */
static inline void put(struct api_jw *w, const char *s, size_t n)
{
    if (!reserve(w, n))
        return;
    memcpy(w->p + w->len, s, n);
    w->len += n;
}

static inline void putc1(struct api_jw *w, char c)
{
    if (!reserve(w, 1))
        return;
    w->p[w->len++] = c;
}

/* Bytes a JSON string cannot hold as they are: controls, '"' and '\\'. */
static bool needs_escape(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\';
}

/* Whether any of the eight bytes of v needs escaping (SWAR: a byte below
 * 0x20, or equal to '"' or '\\', sets its high bit; bytes of 0x80 and above,
 * UTF-8, never do). */
static bool block8_needs_escape(uint64_t v)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');
    return (((v - ones * 0x20) | (q - ones) | (b - ones)) & ~v & highs) != 0;
}

#if defined(__SSE2__)
/* Whether any of the sixteen bytes of v needs escaping. */
static inline bool block16_needs_escape(__m128i v)
{
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    const __m128i ctl = _mm_set1_epi8(0x1f);
    __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                               _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));
    return _mm_movemask_epi8(bad) != 0;
}
#endif

/* Copies the bytes of s[0, n) to o while none needs escaping, a block at a
 * time (sixteen with SSE2, which every x86-64 has, else eight); returns how
 * many it copied (all n, or fewer: the rest starts within a block that holds
 * a byte to escape). o has room for n bytes. A last partial block is checked
 * and copied as the block that ends at n, overlapping bytes this call
 * already copied as they are. */
static inline size_t copy_plain(const unsigned char *s, size_t n, char *o)
{
    size_t k = 0;
#if defined(__SSE2__)
    if (n >= 16) {
        while (n - k >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + k));
            if (block16_needs_escape(v))
                return k;
            _mm_storeu_si128((__m128i *)(void *)(o + k), v);
            k += 16;
        }
        if (k < n) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
            if (block16_needs_escape(v))
                return k;
            _mm_storeu_si128((__m128i *)(void *)(o + n - 16), v);
        }
        return n;
    }
#endif
    while (n - k >= 8) {
        uint64_t v;
        memcpy(&v, s + k, 8);
        if (block8_needs_escape(v))
            return k;
        memcpy(o + k, &v, 8);
        k += 8;
    }
    if (k < n && n >= 8) {
        uint64_t v;
        memcpy(&v, s + n - 8, 8);
        if (block8_needs_escape(v))
            return k;
        memcpy(o + n - 8, &v, 8);
        k = n;
    }
    return k;
}

/* Copies a string of 4 to 15 bytes to o when none needs escaping (two
 * overlapping words, checked together); false, copying nothing, otherwise. */
static inline bool copy_short(const unsigned char *s, size_t n, char *o)
{
    uint64_t a, b;
    if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        if (block8_needs_escape(a) || block8_needs_escape(b))
            return false;
        memcpy(o, &a, 8);
        memcpy(o + n - 8, &b, 8);
        return true;
    }
    uint32_t lo, hi;
    memcpy(&lo, s, 4);
    memcpy(&hi, s + n - 4, 4);
    if (block8_needs_escape((uint64_t)lo | (uint64_t)hi << 32))
        return false;
    memcpy(o, &lo, 4);
    memcpy(o + n - 4, &hi, 4);
    return true;
}

/* The rest of a string from s (its first `done` bytes already at o, plain),
 * escaping as cJSON escapes: ", \\, the five short controls, other bytes
 * below 0x20 as \\u00xx. Returns the end of what it wrote. */
static char *put_escaped(const char *s, size_t n, size_t done, char *o)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s + done, *end = (const unsigned char *)s + n;
    o += done;
    while (p < end) {
        size_t k = copy_plain(p, (size_t)(end - p), o);
        p += k;
        o += k;
        while (p < end && !needs_escape(*p))
            *o++ = (char)*p++;
        if (p == end)
            break;
        unsigned char c = *p++;
        *o++ = '\\';
        switch (c) {
        case '"':
            *o++ = '"';
            break;
        case '\\':
            *o++ = '\\';
            break;
        case '\b':
            *o++ = 'b';
            break;
        case '\f':
            *o++ = 'f';
            break;
        case '\n':
            *o++ = 'n';
            break;
        case '\r':
            *o++ = 'r';
            break;
        case '\t':
            *o++ = 't';
            break;
        default:
            *o++ = 'u';
            *o++ = '0';
            *o++ = '0';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
            break;
        }
    }
    return o;
}

/* The rest of a string that needs escaping (api_jw__string_at), apart
 * and out of line: the plain strings' path then saves and restores no
 * registers for a call it does not make. */
__attribute__((noinline, cold)) static void string_escaped_tail(struct api_jw *w, char *o,
                                                                const char *s, size_t n, size_t k)
{
    o = put_escaped(s, n, k, o);
    *o++ = '"';
    w->len = (size_t)(o - w->p);
}

/* The string s of n bytes, quoted and escaped, at o (jsonw.h). A string
 * with nothing to escape, nearly every one a body holds, is copied here:
 * under 4 bytes byte by byte, under 16 as two overlapping words, longer ones
 * a block at a time; one that needs escaping goes to put_escaped from where
 * the plain copy stopped. */
void api_jw__string_at(struct api_jw *w, char *o, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    *o++ = '"';
    size_t k = 0;
    if (n >= 16) {
        k = copy_plain(u, n, o);
    } else if (n >= 4) {
        k = copy_short(u, n, o) ? n : 0;
    } else {
        while (k < n && !needs_escape(u[k])) {
            o[k] = s[k];
            k++;
        }
    }
    if (k != n) {
        string_escaped_tail(w, o, s, n, k);
        return;
    }
    o[n] = '"';
    w->len = (size_t)(o + n + 1 - w->p);
}

/* The string s of n bytes, quoted and escaped: room for the worst case
 * (every byte a \\u escape) reserved once. */
static void put_string_n(struct api_jw *w, const char *s, size_t n)
{
    if (n > (SIZE_MAX - 2) / 6 || !reserve(w, n * 6 + 2))
        return;
    api_jw__string_at(w, w->p + w->len, s, n);
}

static void put_string(struct api_jw *w, const char *s)
{
    if (s == NULL)
        put(w, "\"\"", 2);
    else
        put_string_n(w, s, strlen(s));
}

/* ---- the writer ------------------------------------------------------------ */

void api_jw_init(struct api_jw *w, size_t hint)
{
    *w = (struct api_jw){NULL, 0, 0, false, false};
    w->cap = hint > 0 && hint < API_JW_MAX_BYTES ? hint : DEFAULT_HINT;
    w->p = malloc(w->cap);
    if (w->p == NULL) {
        w->cap = 0;
        w->failed = true;
    }
}

char *api_jw_finish(struct api_jw *w, size_t *len)
{
    if (w->failed || w->p == NULL) {
        api_jw_discard(w);
        return NULL;
    }
    w->p[w->len] = '\0';
    if (len != NULL)
        *len = w->len;
    char *p = w->p;
    *w = (struct api_jw){NULL, 0, 0, true, false};
    return p;
}

void api_jw_discard(struct api_jw *w)
{
    free(w->p);
    *w = (struct api_jw){NULL, 0, 0, true, false};
}

/* Before a value or a key: the comma that separates it from its sibling. */
static inline void sep(struct api_jw *w)
{
    if (w->comma)
        putc1(w, ',');
}

void api_jw__open(struct api_jw *w, char c)
{
    sep(w);
    putc1(w, c);
    w->comma = false;
}

void api_jw__close(struct api_jw *w, char c)
{
    putc1(w, c);
    w->comma = true;
}

void api_jw_key(struct api_jw *w, const char *key)
{
    sep(w);
    put_string(w, key);
    putc1(w, ':');
    w->comma = false;
}

void api_jw_key_text(struct api_jw *w, const char *text, size_t len)
{
    sep(w);
    put(w, text, len);
    w->comma = false;
}

void api_jw_string(struct api_jw *w, const char *s)
{
    sep(w);
    put_string(w, s);
    w->comma = true;
}

void api_jw_string_len(struct api_jw *w, const char *s, size_t n)
{
    sep(w);
    put_string_n(w, s, n);
    w->comma = true;
}

char *api_jw_text_begin(struct api_jw *w, size_t max)
{
    sep(w);
    if (max > API_JW_MAX_BYTES) {
        w->failed = true; /* the key before it would be left without a value */
        return NULL;
    }
    if (!reserve(w, max + 2))
        return NULL;
    return w->p + w->len + 1; /* after the opening quote */
}

/* A text written in place that needs escaping (api_jw_text_end), out of
 * line like string_escaped_tail: from a copy, since the escaped text needs
 * more room than the buffer may have where it lies. */
__attribute__((noinline, cold)) static void text_escaped(struct api_jw *w, const char *at, size_t n)
{
    char *copy = malloc(n > 0 ? n : 1);
    if (copy == NULL) {
        w->failed = true;
        return;
    }
    memcpy(copy, at, n);
    put_string_n(w, copy, n);
    free(copy);
}

void api_jw_text_end(struct api_jw *w, const char *text, size_t n)
{
    w->comma = true;
    if (w->failed)
        return;
    char *at = w->p + w->len + 1;
    if (text == at) {
        /* Checked in place (copy_plain stores each plain block back where
         * it was read): a text with nothing to escape is already there. */
        size_t k = copy_plain((const unsigned char *)at, n, at);
        while (k < n && !needs_escape((unsigned char)at[k]))
            k++;
        if (k == n) {
            at[-1] = '"';
            at[n] = '"';
            w->len += n + 2;
            return;
        }
        text_escaped(w, at, n);
        return;
    }
    put_string_n(w, text, n);
}

void api_jw_string_or_null(struct api_jw *w, const char *s)
{
    if (s == NULL)
        api_jw_null(w);
    else
        api_jw_string(w, s);
}

void api_jw_number(struct api_jw *w, double d)
{
    sep(w);
    /* Formatted in place: the widest number fits the room reserved. */
    if (!reserve(w, API_JSON_NUMBER_BUF))
        return;
    w->len += api_json_number(d, w->p + w->len, API_JSON_NUMBER_BUF);
    w->comma = true;
}

void api_jw_number_sig(struct api_jw *w, double d, int digits)
{
    sep(w);
    if (!reserve(w, API_JSON_NUMBER_BUF))
        return;
    w->len += api_json_number_sig(d, digits, w->p + w->len, API_JSON_NUMBER_BUF);
    w->comma = true;
}

void api_jw_bool(struct api_jw *w, bool b)
{
    sep(w);
    if (b)
        put(w, "true", 4);
    else
        put(w, "false", 5);
    w->comma = true;
}

void api_jw__null(struct api_jw *w)
{
    sep(w);
    put(w, "null", 4);
    w->comma = true;
}

void api_jw_raw(struct api_jw *w, const char *text, size_t len)
{
    sep(w);
    put(w, text, len);
    w->comma = true;
}

void api_jw_repeat(struct api_jw *w, size_t off, size_t len)
{
    if (w->failed || off > w->len || len > w->len - off || !reserve(w, len))
        return;
    memcpy(w->p + w->len, w->p + off, len); /* reserve may move p: offsets hold */
    w->len += len;
    w->comma = true;
}

void api_jw_value(struct api_jw *w, const cJSON *item)
{
    if (item == NULL) {
        w->failed = true;
        return;
    }
    switch (item->type & 0xFF) {
    case cJSON_NULL:
        api_jw_null(w);
        break;
    case cJSON_False:
        api_jw_bool(w, false);
        break;
    case cJSON_True:
        api_jw_bool(w, true);
        break;
    case cJSON_Number:
        api_jw_number(w, item->valuedouble);
        break;
    case cJSON_String:
        api_jw_string(w, item->valuestring);
        break;
    case cJSON_Raw:
        if (item->valuestring == NULL) {
            w->failed = true; /* cJSON fails on a NULL raw value */
            break;
        }
        api_jw_raw(w, item->valuestring, strlen(item->valuestring));
        break;
    case cJSON_Array:
        api_jw_array(w);
        for (const cJSON *c = item->child; c != NULL; c = c->next)
            api_jw_value(w, c);
        api_jw_array_end(w);
        break;
    case cJSON_Object:
        api_jw_object(w);
        for (const cJSON *c = item->child; c != NULL; c = c->next) {
            api_jw_key(w, c->string);
            api_jw_value(w, c);
        }
        api_jw_object_end(w);
        break;
    default:
        w->failed = true; /* an invalid item: cJSON fails too */
        break;
    }
}

char *api_json_print(const cJSON *item, size_t hint, size_t *len)
{
    if (item == NULL)
        return NULL;
    struct api_jw w;
    api_jw_init(&w, hint);
    api_jw_value(&w, item);
    return api_jw_finish(&w, len);
}
