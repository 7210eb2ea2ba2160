/* api/include/api/jsonw.h -- a streaming JSON writer whose output is byte for
 * byte what cJSON_PrintUnformatted prints for the same document.
 *
 * Building a cJSON tree only to print it costs two allocations per value and a
 * walk; a recommendation body has about two thousand values, and that tree cost
 * several times the decision itself. The writer appends to one growing buffer
 * and puts the commas itself: keys and values are written in order, and the
 * first failure (out of memory, or a size past API_JW_MAX_BYTES) is remembered
 * and reported once by api_jw_finish().
 *
 * Numbers take cJSON 1.7's format (NaN and infinities as null; integers and
 * decimals of up to 15 significant digits as written; otherwise "%1.15g", or
 * "%1.17g" when that does not read back), with a fast path that avoids
 * snprintf for the numbers a body actually holds. Strings are escaped as cJSON
 * escapes them: ", \, the five short controls, other bytes below 0x20 as \u00xx,
 * everything else (UTF-8 included) verbatim. */
#ifndef API_JSONW_H
#define API_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dc/common.h"

/* Largest document the writer builds. */
#define API_JW_MAX_BYTES (256u << 20)
/* Room a number needs in api_json_number's buffer. */
#define API_JSON_NUMBER_BUF 48

struct api_jw {
    char *p;
    size_t len;
    size_t cap;
    bool failed; /* out of memory or too large: everything after is dropped */
    bool comma;  /* the next key or value follows a sibling */
};

/* Start a document with room for about `hint` bytes (0: a default). */
DC_API void api_jw_init(struct api_jw *w, size_t hint);
/* The document: owned text (free()) of *len bytes plus a NUL, or NULL when
 * writing failed (the buffer is released either way). */
DC_API char *api_jw_finish(struct api_jw *w, size_t *len);
/* Release the buffer of an abandoned document. */
DC_API void api_jw_discard(struct api_jw *w);

/* The slow halves of the inline writers below (the buffer grows first, or
 * the document has failed): `c` opens or closes an object or array. */
DC_API void api_jw__open(struct api_jw *w, char c);
DC_API void api_jw__close(struct api_jw *w, char c);
DC_API void api_jw__null(struct api_jw *w);

/* `c` written inline while the buffer has room, after the comma a sibling
 * needs when it opens (a body opens and closes some 700 objects and arrays,
 * and a call each cost more than the byte); false, writing nothing, when
 * the buffer has to grow or the document failed. */
static inline bool api_jw__put1(struct api_jw *w, char c, bool open)
{
    if (w->failed || w->len + 3 > w->cap)
        return false;
    char *o = w->p + w->len;
    *o = ',';
    o += open && w->comma;
    *o = c;
    w->len = (size_t)(o + 1 - w->p);
    w->comma = !open;
    return true;
}

static inline void api_jw_object(struct api_jw *w)
{
    if (!api_jw__put1(w, '{', true))
        api_jw__open(w, '{');
}

static inline void api_jw_object_end(struct api_jw *w)
{
    if (!api_jw__put1(w, '}', false))
        api_jw__close(w, '}');
}

static inline void api_jw_array(struct api_jw *w)
{
    if (!api_jw__put1(w, '[', true))
        api_jw__open(w, '[');
}

static inline void api_jw_array_end(struct api_jw *w)
{
    if (!api_jw__put1(w, ']', false))
        api_jw__close(w, ']');
}
/* The key of the next member of the object being written. */
DC_API void api_jw_key(struct api_jw *w, const char *key);
/* A key given as its JSON text with the colon, `"name":` (`len` bytes, no
 * escaping needed), written as it is. */
DC_API void api_jw_key_text(struct api_jw *w, const char *text, size_t len);

/* The member writers are inlined at every call site whatever the
 * compiler's budget: out of line, each would pay the call and the stores it
 * saves (GCC 12 stopped inlining some as convert.c grew). */
#define API_JW_INLINE static inline __attribute__((always_inline))

/* Where a member's value goes after its key (`len` bytes) and the comma
 * before it, with room for `room` bytes of value and a NUL; NULL (nothing
 * written) when the buffer lacks that room or the document failed. */
API_JW_INLINE char *api_jw_member_at(struct api_jw *w, const char *key, size_t len, size_t room)
{
    if (w->failed || w->len + len + room + 2 > w->cap)
        return NULL;
    char *o = w->p + w->len;
    *o = ',';
    o += w->comma;
    memcpy(o, key, len);
    w->comma = true;
    return o + len;
}

/* A key that is a string literal with nothing to escape: its text is made
 * at compile time, so no key is measured or scanned per body, and while the
 * buffer has room it is copied inline (a body has two thousand keys). */
#define API_JW_KEY(w, k) api_jw_key_inline((w), "\"" k "\":", sizeof(k) + 2)

static inline void api_jw_key_inline(struct api_jw *w, const char *text, size_t len)
{
    char *o = api_jw_member_at(w, text, len, 0);
    if (o == NULL) {
        api_jw_key_text(w, text, len);
        return;
    }
    w->len = (size_t)(o - w->p);
    w->comma = false; /* the value comes next */
}
DC_API void api_jw_string(struct api_jw *w, const char *s); /* NULL: "" as cJSON does */
/* A string of `n` bytes whose length the caller knows (no strlen). */
DC_API void api_jw_string_len(struct api_jw *w, const char *s, size_t n);
/* A string value whose text is written straight into the document, not
 * built elsewhere and copied: api_jw_text_begin gives where up to `max`
 * bytes of it and a NUL may be written (NULL once the document failed), and
 * api_jw_text_end makes `text`, n bytes, the value: written there (checked,
 * and escaped only when something needs it) or anywhere else (copied, as
 * api_jw_string_len does, for a writer that answered with a string of its
 * own). Nothing else is written to `w` between the two calls. */
DC_API char *api_jw_text_begin(struct api_jw *w, size_t max);
DC_API void api_jw_text_end(struct api_jw *w, const char *text, size_t n);
DC_API void api_jw_string_or_null(struct api_jw *w, const char *s); /* NULL: null */
DC_API void api_jw_number(struct api_jw *w, double d);              /* not finite: null */
/* api_jw_number of dc_round_sig(d, digits) (api_json_number_sig). */
DC_API void api_jw_number_sig(struct api_jw *w, double d, int digits);
DC_API void api_jw_bool(struct api_jw *w, bool b);

static inline void api_jw_null(struct api_jw *w)
{
    if (w->failed || w->len + 6 > w->cap) {
        api_jw__null(w);
        return;
    }
    char *o = w->p + w->len;
    *o = ',';
    o += w->comma;
    memcpy(o, "null", 4);
    w->len = (size_t)(o + 4 - w->p);
    w->comma = true;
}
/* `len` bytes of JSON text written as one value, verbatim (the caller vouches
 * that it is one valid value, such as a body api_result_render made). */
DC_API void api_jw_raw(struct api_jw *w, const char *text, size_t len);
/* The `len` bytes this document already holds at offset `off` (w->len
 * before they were written) written again, verbatim and with no separator
 * before them: members or values the caller wrote once and now repeats,
 * ending where a sibling may follow with a comma. */
DC_API void api_jw_repeat(struct api_jw *w, size_t off, size_t len);
/* A cJSON value (borrowed) written as cJSON_PrintUnformatted would print it; an
 * invalid item fails the document. */
DC_API void api_jw_value(struct api_jw *w, const cJSON *item);

/* Format one number as cJSON does into buf (at least API_JSON_NUMBER_BUF
 * bytes), NUL-terminated; returns its length (api/src/json_number.c, a file
 * of its own so that the byte-identity test links cJSON's printf path in its
 * place: tests/unit/api/reference_fmt.c). */
DC_API size_t api_json_number(double d, char *buf, size_t cap);
/* api_json_number of dc_round_sig(d, digits) (dc/numfmt.h), the body's
 * display figures, without finding the rounded value's digits twice (in
 * json_number.c, which the byte-identity reference replaces too). */
DC_API size_t api_json_number_sig(double d, int digits, char *buf, size_t cap);

/* A member whose key is a string literal and whose value is a number
 * (api_jw_number), a display figure (api_jw_number_sig) or a bool: while
 * the buffer has room for the key and the widest value, both are written in
 * one step, the number formatted in place (a body has about a thousand of
 * them, and the key's inline copy and the value's call each checked the
 * room and the comma again); otherwise as API_JW_KEY and the value's call. */
#define API_JW_MEMBER_NUMBER(w, k, d) api_jw_member_number((w), "\"" k "\":", sizeof(k) + 2, (d), 0)
#define API_JW_MEMBER_SIG(w, k, d, digits)                                                         \
    api_jw_member_number((w), "\"" k "\":", sizeof(k) + 2, (d), (digits))
#define API_JW_MEMBER_BOOL(w, k, b) api_jw_member_bool((w), "\"" k "\":", sizeof(k) + 2, (b))

/* digits 0: api_jw_number's text; else api_jw_number_sig's with `digits`. */
API_JW_INLINE void api_jw_member_number(struct api_jw *w, const char *key, size_t len, double d,
                                        int digits)
{
    char *o = api_jw_member_at(w, key, len, API_JSON_NUMBER_BUF);
    if (o == NULL) {
        api_jw_key_text(w, key, len);
        if (digits > 0)
            api_jw_number_sig(w, d, digits);
        else
            api_jw_number(w, d);
        return;
    }
    size_t n = digits > 0 ? api_json_number_sig(d, digits, o, API_JSON_NUMBER_BUF)
                          : api_json_number(d, o, API_JSON_NUMBER_BUF);
    w->len = (size_t)(o - w->p) + n;
}

API_JW_INLINE void api_jw_member_bool(struct api_jw *w, const char *key, size_t len, bool b)
{
    char *o = api_jw_member_at(w, key, len, 5);
    if (o == NULL) {
        api_jw_key_text(w, key, len);
        api_jw_bool(w, b);
        return;
    }
    memcpy(o, b ? "true " : "false", 5); /* the bytes past a "true" are free room */
    w->len = (size_t)(o - w->p) + (b ? 4u : 5u);
}

/* The string s of n bytes, quoted and escaped, written at o, where the
 * buffer has room for n * 6 + 2 bytes and a NUL; w->len set to its end.
 * For the inline member writers here only. */
DC_API void api_jw__string_at(struct api_jw *w, char *o, const char *s, size_t n);

/* A member whose key is a string literal and whose value is a string
 * (api_jw_string: NULL is ""), in one step as API_JW_MEMBER_NUMBER is. */
#define API_JW_MEMBER_STRING(w, k, s) api_jw_member_string((w), "\"" k "\":", sizeof(k) + 2, (s))

API_JW_INLINE void api_jw_member_string(struct api_jw *w, const char *key, size_t len,
                                        const char *s)
{
    size_t n = s != NULL ? strlen(s) : 0;
    char *o = n <= API_JW_MAX_BYTES / 6 ? api_jw_member_at(w, key, len, n * 6 + 2) : NULL;
    if (o == NULL) {
        api_jw_key_text(w, key, len);
        api_jw_string(w, s);
        return;
    }
    api_jw__string_at(w, o, s != NULL ? s : "", n);
}

/* As API_JW_MEMBER_STRING, with null for NULL (api_jw_string_or_null). */
#define API_JW_MEMBER_STRING_OR_NULL(w, k, s)                                                      \
    api_jw_member_string_or_null((w), "\"" k "\":", sizeof(k) + 2, (s))

API_JW_INLINE void api_jw_member_string_or_null(struct api_jw *w, const char *key, size_t len,
                                                const char *s)
{
    if (s != NULL) {
        api_jw_member_string(w, key, len, s);
        return;
    }
    char *o = api_jw_member_at(w, key, len, 4);
    if (o == NULL) {
        api_jw_key_text(w, key, len);
        api_jw_null(w);
        return;
    }
    memcpy(o, "null", 4);
    w->len = (size_t)(o + 4 - w->p);
}

/* Render `item` (borrowed) on one line, as cJSON_PrintUnformatted does. Returns
 * owned text (free()) of *len bytes, or NULL when out of memory or `item` is
 * NULL. `hint` is the expected size (0 for a default). Thread-safe. */
DC_API char *api_json_print(const cJSON *item, size_t hint, size_t *len);

#endif /* API_JSONW_H */
