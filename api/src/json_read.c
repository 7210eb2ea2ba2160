/* api/src/json_read.c -- the strict JSON reader every request body goes
 * through (api_json_parse), and JSON Pointers into a parsed tree. Owned by api/;
 * declared in api/json_read.h.
 *
 * cJSON accepts more than RFC 8259 (raw control characters in strings, invalid
 * UTF-8, duplicate keys) and bounds nesting only with a compile-time constant
 * (1000) reached by recursion. So a body is first scanned here without
 * recursion: UTF-8, then the grammar with an explicit stack bounded by the
 * configured depth. Only a body that passes is handed to cJSON, whose tree is
 * then checked for duplicate keys and numbers past the range of a double. */
#include "api/json_read.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dc/utf8.h"
#include "json_build.h"

/* ---- JSON Pointers ----------------------------------------------------------- */

bool api_json_pointer_append(char *buf, size_t cap, const char *tok)
{
    size_t n = strlen(buf);
    if (n + 1 >= cap)
        return false;
    buf[n++] = '/';
    for (const char *t = tok; *t != '\0'; t++) {
        if (*t == '~' || *t == '/') {
            if (n + 2 >= cap)
                return false;
            buf[n++] = '~';
            buf[n++] = *t == '~' ? '0' : '1';
        } else {
            if (n + 1 >= cap)
                return false;
            buf[n++] = *t;
        }
    }
    buf[n] = '\0';
    return true;
}

const cJSON *api_json_pointer_get(const cJSON *root, const char *ptr)
{
    char tok[256];
    if (ptr == NULL)
        return NULL;
    if (ptr[0] == '#')
        ptr++;
    const cJSON *node = root;
    while (node != NULL && *ptr != '\0') {
        if (*ptr != '/')
            return NULL;
        ptr++;
        size_t n = 0;
        while (*ptr != '\0' && *ptr != '/') {
            char c = *ptr++;
            if (c == '~') {
                if (*ptr == '0')
                    c = '~';
                else if (*ptr == '1')
                    c = '/';
                else
                    return NULL;
                ptr++;
            }
            if (n + 1 >= sizeof(tok))
                return NULL;
            tok[n++] = c;
        }
        tok[n] = '\0';
        if (cJSON_IsArray(node)) {
            char *end = NULL;
            unsigned long i = strtoul(tok, &end, 10);
            if (n == 0 || *end != '\0' || i > (unsigned long)INT32_MAX)
                return NULL;
            node = cJSON_GetArrayItem(node, (int)i);
        } else if (cJSON_IsObject(node)) {
            node = cJSON_GetObjectItemCaseSensitive(node, tok);
        } else {
            return NULL;
        }
    }
    return node;
}

const char *api_json_error_name(enum api_json_error e)
{
    switch (e) {
    case API_JSON_OK:
        return "ok";
    case API_JSON_MALFORMED:
        return "malformed-json";
    case API_JSON_INVALID_UTF8:
        return "invalid-utf8";
    case API_JSON_DUPLICATE_KEY:
        return "duplicate-key";
    case API_JSON_TOO_DEEP:
        return "too-deep";
    case API_JSON_NUL_IN_STRING:
        return "nul-in-string";
    case API_JSON_NOMEM:
        return "out-of-memory";
    }
    return "unknown";
}

struct scan {
    const unsigned char *s;
    size_t len;
    size_t pos;
    struct dc_error *err;
};

/* Line and column (1-based) of byte `pos`, for messages people can act on. */
static void line_col(const unsigned char *s, size_t pos, size_t *line, size_t *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < pos; i++) {
        if (s[i] == '\n') {
            (*line)++;
            *col = 1;
        } else if ((s[i] & 0xC0) != 0x80) {
            (*col)++;
        }
    }
}

static enum api_json_error fail_at(struct scan *sc, enum api_json_error e, size_t pos,
                                   const char *what)
{
    size_t line, col;
    line_col(sc->s, pos, &line, &col);
    if (pos >= sc->len)
        dc_error_set(sc->err, DC_EPARSE, "", "%s at the end of the body (byte %zu)", what, pos);
    else
        dc_error_set(sc->err, DC_EPARSE, "", "%s at line %zu, column %zu (byte %zu)", what, line,
                     col, pos);
    return e;
}

/* Strict UTF-8 (dc/utf8.h, RFC 3629): no overlong forms, no surrogates, nothing
 * past U+10FFFF; the message says which of three ways a sequence is wrong. */
static enum api_json_error check_utf8(struct scan *sc)
{
    const unsigned char *s = sc->s;
    size_t n = sc->len;
    size_t i = 0;
    while (i < n) {
        /* Eight ASCII bytes at a time: request bodies are almost all ASCII. */
        uint64_t w;
        if (n - i >= sizeof(w)) {
            memcpy(&w, s + i, sizeof(w));
            if ((w & 0x8080808080808080ull) == 0) {
                i += sizeof(w);
                continue;
            }
        }
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        size_t need = dc_utf8_lead(s[i]);
        if (need == 0)
            return fail_at(sc, API_JSON_INVALID_UTF8, i, "invalid UTF-8 byte");
        if (n - i < need)
            return fail_at(sc, API_JSON_INVALID_UTF8, i, "truncated UTF-8 sequence");
        if (dc_utf8_seq(s + i, n - i, NULL) == 0)
            return fail_at(sc, API_JSON_INVALID_UTF8, i, "invalid UTF-8 sequence");
        i += need;
    }
    return API_JSON_OK;
}

static bool is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Four hex digits at s[pos..pos+4) as a code unit, or -1. */
static long hex4(const struct scan *sc, size_t pos)
{
    if (sc->len - pos < 4 || pos > sc->len)
        return -1;
    return dc_hex4((const char *)sc->s + pos);
}

/* A string starting at the opening quote; sc->pos ends past the closing one. */
static enum api_json_error scan_string(struct scan *sc)
{
    size_t start = sc->pos;
    sc->pos++;
    while (sc->pos < sc->len) {
        unsigned char c = sc->s[sc->pos];
        if (c == '"') {
            sc->pos++;
            return API_JSON_OK;
        }
        if (c < 0x20)
            return fail_at(sc, API_JSON_MALFORMED, sc->pos,
                           "control character in a string (it must be escaped)");
        if (c != '\\') {
            sc->pos++;
            continue;
        }
        size_t esc = sc->pos;
        if (sc->pos + 1 >= sc->len)
            break;
        unsigned char e = sc->s[sc->pos + 1];
        if (strchr("\"\\/bfnrt", e) != NULL && e != '\0') {
            sc->pos += 2;
            continue;
        }
        if (e != 'u')
            return fail_at(sc, API_JSON_MALFORMED, esc, "invalid escape in a string");
        long u = hex4(sc, sc->pos + 2);
        if (u < 0)
            return fail_at(sc, API_JSON_MALFORMED, esc, "invalid \\u escape in a string");
        sc->pos += 6;
        if (u == 0)
            return fail_at(sc, API_JSON_NUL_IN_STRING, esc,
                           "\\u0000 (NUL) is not accepted in a string");
        if (u >= 0xDC00 && u <= 0xDFFF)
            return fail_at(sc, API_JSON_INVALID_UTF8, esc, "unpaired low surrogate escape");
        if (u >= 0xD800 && u <= 0xDBFF) {
            long lo = -1;
            if (sc->pos + 1 < sc->len && sc->s[sc->pos] == '\\' && sc->s[sc->pos + 1] == 'u')
                lo = hex4(sc, sc->pos + 2);
            if (lo < 0xDC00 || lo > 0xDFFF)
                return fail_at(sc, API_JSON_INVALID_UTF8, esc, "unpaired high surrogate escape");
            sc->pos += 6;
        }
    }
    return fail_at(sc, API_JSON_MALFORMED, start, "unterminated string");
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static enum api_json_error scan_number(struct scan *sc)
{
    size_t start = sc->pos;
    const unsigned char *s = sc->s;
    size_t n = sc->len;
    size_t p = sc->pos;
    if (p < n && s[p] == '-')
        p++;
    if (p < n && s[p] == '0') {
        p++;
    } else if (p < n && s[p] >= '1' && s[p] <= '9') {
        while (p < n && is_digit(s[p]))
            p++;
    } else {
        return fail_at(sc, API_JSON_MALFORMED, start, "invalid number");
    }
    if (p < n && s[p] == '.') {
        p++;
        if (p >= n || !is_digit(s[p]))
            return fail_at(sc, API_JSON_MALFORMED, start, "invalid number");
        while (p < n && is_digit(s[p]))
            p++;
    }
    if (p < n && (s[p] == 'e' || s[p] == 'E')) {
        p++;
        if (p < n && (s[p] == '+' || s[p] == '-'))
            p++;
        if (p >= n || !is_digit(s[p]))
            return fail_at(sc, API_JSON_MALFORMED, start, "invalid number");
        while (p < n && is_digit(s[p]))
            p++;
    }
    if (p - start > API_JSON_NUMBER_MAX_CHARS)
        return fail_at(sc, API_JSON_MALFORMED, start, "number longer than 63 characters");
    sc->pos = p;
    return API_JSON_OK;
}

static enum api_json_error scan_literal(struct scan *sc)
{
    static const char *const words[] = {"true", "false", "null"};
    for (size_t i = 0; i < 3; i++) {
        size_t wl = strlen(words[i]);
        if (sc->len - sc->pos >= wl && memcmp(sc->s + sc->pos, words[i], wl) == 0) {
            sc->pos += wl;
            return API_JSON_OK;
        }
    }
    return fail_at(sc, API_JSON_MALFORMED, sc->pos, "unexpected character");
}

enum scan_state {
    ST_VALUE,          /* a value must come */
    ST_VALUE_OR_CLOSE, /* after '[': a value or ']' */
    ST_KEY_OR_CLOSE,   /* after '{': a key or '}' */
    ST_KEY,            /* after ',' in an object */
    ST_COLON,
    ST_AFTER /* after a value */
};

/* The grammar, iteratively: the only stack is `stack`, max_depth bytes. */
static enum api_json_error check_grammar(struct scan *sc, unsigned max_depth)
{
    unsigned char stack[API_JSON_DEPTH_MAX];
    unsigned depth = 0;
    enum scan_state st = ST_VALUE;
    enum api_json_error e = API_JSON_OK;
    for (;;) {
        while (sc->pos < sc->len && is_ws(sc->s[sc->pos]))
            sc->pos++;
        if (sc->pos >= sc->len) {
            if (st == ST_AFTER && depth == 0)
                return API_JSON_OK;
            return fail_at(sc, API_JSON_MALFORMED, sc->pos,
                           sc->len == 0 ? "empty body" : "unexpected end of input");
        }
        unsigned char c = sc->s[sc->pos];
        switch (st) {
        case ST_VALUE_OR_CLOSE:
            if (c == ']') {
                depth--;
                sc->pos++;
                st = ST_AFTER;
                break;
            }
            /* fall through */
        case ST_VALUE:
            if (c == '{' || c == '[') {
                if (depth >= max_depth) {
                    char what[96];
                    snprintf(what, sizeof(what), "nesting deeper than the limit of %u levels",
                             max_depth);
                    return fail_at(sc, API_JSON_TOO_DEEP, sc->pos, what);
                }
                stack[depth++] = c;
                sc->pos++;
                st = c == '{' ? ST_KEY_OR_CLOSE : ST_VALUE_OR_CLOSE;
                break;
            }
            if (c == '"')
                e = scan_string(sc);
            else if (c == '-' || is_digit(c))
                e = scan_number(sc);
            else
                e = scan_literal(sc);
            if (e != API_JSON_OK)
                return e;
            st = ST_AFTER;
            break;
        case ST_KEY_OR_CLOSE:
            if (c == '}') {
                depth--;
                sc->pos++;
                st = ST_AFTER;
                break;
            }
            /* fall through */
        case ST_KEY:
            if (c != '"')
                return fail_at(sc, API_JSON_MALFORMED, sc->pos, "expected a string key");
            e = scan_string(sc);
            if (e != API_JSON_OK)
                return e;
            st = ST_COLON;
            break;
        case ST_COLON:
            if (c != ':')
                return fail_at(sc, API_JSON_MALFORMED, sc->pos, "expected ':'");
            sc->pos++;
            st = ST_VALUE;
            break;
        case ST_AFTER:
            if (depth == 0)
                return fail_at(sc, API_JSON_MALFORMED, sc->pos,
                               "unexpected data after the JSON value");
            if (c == ',') {
                st = stack[depth - 1] == '{' ? ST_KEY : ST_VALUE;
            } else if ((c == '}' && stack[depth - 1] == '{') ||
                       (c == ']' && stack[depth - 1] == '[')) {
                depth--;
            } else {
                return fail_at(sc, API_JSON_MALFORMED, sc->pos,
                               stack[depth - 1] == '{' ? "expected ',' or '}'"
                                                       : "expected ',' or ']'");
            }
            sc->pos++;
            break;
        }
    }
}

/* Append a JSON Pointer token (escaped ~0 ~1) to path[*n]. */
static void ptr_push(char *path, size_t cap, size_t *n, const char *tok)
{
    if (*n + 1 < cap)
        path[(*n)++] = '/';
    for (const char *t = tok; *t != '\0' && *n + 2 < cap; t++) {
        if (*t == '~' || *t == '/') {
            path[(*n)++] = '~';
            path[(*n)++] = *t == '~' ? '0' : '1';
        } else {
            path[(*n)++] = *t;
        }
    }
    path[*n] = '\0';
}

static int cmp_keys(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a;
    const cJSON *y = *(const cJSON *const *)b;
    return strcmp(x->string, y->string);
}

/* Members of one object: quadratic for small objects, sorted for large ones, so a
 * body of a hundred thousand keys costs n log n, not n squared. */
static enum api_json_error dup_in_object(const cJSON *obj, const char **dup)
{
    size_t n = 0;
    const cJSON *it = NULL;
    *dup = NULL;
    cJSON_ArrayForEach(it, obj)
    {
        n++;
    }
    if (n <= 16) {
        for (const cJSON *a = obj->child; a != NULL; a = a->next) {
            for (const cJSON *b = a->next; b != NULL; b = b->next) {
                if (strcmp(a->string, b->string) == 0) {
                    *dup = a->string;
                    return API_JSON_DUPLICATE_KEY;
                }
            }
        }
        return API_JSON_OK;
    }
    const cJSON **v = malloc(n * sizeof(*v));
    if (v == NULL)
        return API_JSON_NOMEM;
    size_t i = 0;
    cJSON_ArrayForEach(it, obj)
    {
        v[i++] = it;
    }
    qsort(v, n, sizeof(*v), cmp_keys);
    enum api_json_error e = API_JSON_OK;
    for (i = 1; i < n && e == API_JSON_OK; i++) {
        if (strcmp(v[i - 1]->string, v[i]->string) == 0) {
            *dup = v[i]->string;
            e = API_JSON_DUPLICATE_KEY;
        }
    }
    free(v);
    return e;
}

/* Walk the parsed tree (depth already bounded by the scan) for duplicate keys and
 * numbers that overflowed a double; on the first found (depth first, a node
 * before its members), *at is its node and *dup the duplicate key (NULL for a
 * number). No pointer is built on the way: only a body that fails needs one
 * (path_to). */
static enum api_json_error check_tree(const cJSON *node, const cJSON **at, const char **dup)
{
    if (cJSON_IsNumber(node) && !isfinite(node->valuedouble)) {
        *at = node;
        return API_JSON_MALFORMED;
    }
    if (cJSON_IsObject(node)) {
        enum api_json_error e = dup_in_object(node, dup);
        if (e != API_JSON_OK) {
            *at = node;
            return e;
        }
    }
    for (const cJSON *c = node->child; c != NULL; c = c->next) {
        enum api_json_error e = check_tree(c, at, dup);
        if (e != API_JSON_OK)
            return e;
    }
    return API_JSON_OK;
}

/* The JSON Pointer of `target` under `node` into path[n..cap) (cut to fit);
 * true when found. */
static bool path_to(const cJSON *node, const cJSON *target, char *path, size_t cap, size_t n)
{
    if (node == target)
        return true;
    size_t idx = 0;
    for (const cJSON *c = node->child; c != NULL; c = c->next, idx++) {
        size_t m = n;
        char tok[24];
        if (cJSON_IsObject(node)) {
            ptr_push(path, cap, &m, c->string);
        } else {
            snprintf(tok, sizeof(tok), "%zu", idx);
            ptr_push(path, cap, &m, tok);
        }
        if (path_to(c, target, path, cap, m))
            return true;
        path[n] = '\0';
    }
    return false;
}

/* The error of check_tree's finding, with its pointer. */
static void tree_error(const cJSON *root, enum api_json_error e, const cJSON *at, const char *dup,
                       struct dc_error *err)
{
    char path[DC_ERROR_WHERE_MAX];
    if (e == API_JSON_NOMEM) {
        dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
        return;
    }
    path[0] = '\0';
    (void)path_to(root, at, path, sizeof(path), 0);
    if (e != API_JSON_DUPLICATE_KEY) {
        dc_error_set(err, DC_EPARSE, path, "the number at \"%s\" is out of range", path);
        return;
    }
    size_t m = strlen(path);
    ptr_push(path, sizeof(path), &m, dup);
    dc_error_set(err, DC_EPARSE, path, "duplicate key \"%.200s\" at \"%s\"", dup, path);
}

/* The strict read of api_json_parse, its tree's nodes from `ar` (NULL: cJSON's
 * allocator). On failure *out is NULL (a partial tree in `ar` stays there). */
static enum api_json_error parse_tree(const char *data, size_t len, unsigned max_depth,
                                      struct dc__arena *ar, cJSON **out, struct dc_error *err)
{
    *out = NULL;
    if (data == NULL) {
        dc_error_set(err, DC_EINVAL, "", "no body");
        return API_JSON_MALFORMED;
    }
    if (max_depth == 0)
        max_depth = API_JSON_DEPTH_DEFAULT;
    if (max_depth > API_JSON_DEPTH_MAX)
        max_depth = API_JSON_DEPTH_MAX;
    struct scan sc = {(const unsigned char *)data, len, 0, err};
    enum api_json_error e = check_utf8(&sc);
    if (e == API_JSON_OK)
        e = check_grammar(&sc, max_depth);
    if (e != API_JSON_OK)
        return e;
    /* The scan proved one value, no NUL inside, and data[len] == '\0': the
     * build has nothing left to check and fails only out of memory. */
    cJSON *root = api__json_build(data, len, ar);
    if (root == NULL) {
        dc_error_set(err, DC_ENOMEM, "", "out of memory while parsing the body");
        return API_JSON_NOMEM;
    }
    const cJSON *at = NULL;
    const char *dup = NULL;
    e = check_tree(root, &at, &dup);
    if (e != API_JSON_OK) {
        tree_error(root, e, at, dup, err);
        if (ar == NULL)
            cJSON_Delete(root);
        return e;
    }
    *out = root;
    return API_JSON_OK;
}

enum api_json_error api_json_parse(const char *data, size_t len, unsigned max_depth, cJSON **out,
                                   struct dc_error *err)
{
    if (out == NULL)
        return API_JSON_MALFORMED;
    return parse_tree(data, len, max_depth, NULL, out, err);
}

/* A document and the first block of its arena, in one allocation. */
struct api_json_doc {
    struct dc__arena ar;
    cJSON *root;
    _Alignas(DC__ARENA_ALIGN) unsigned char first[API_JSON_DOC_FIRST_BLOCK];
};

enum api_json_error api_json_parse_doc(const char *data, size_t len, unsigned max_depth,
                                       api_json_doc **out, struct dc_error *err)
{
    if (out == NULL)
        return API_JSON_MALFORMED;
    *out = NULL;
    /* Not zeroed: the arena hands out its bytes and each node is cleared. */
    api_json_doc *d = malloc(sizeof(*d));
    if (d == NULL) {
        dc_error_set(err, DC_ENOMEM, "", "out of memory while parsing the body");
        return API_JSON_NOMEM;
    }
    dc__arena_init(&d->ar, d->first, sizeof(d->first), SIZE_MAX, NULL);
    enum api_json_error e = parse_tree(data, len, max_depth, &d->ar, &d->root, err);
    if (e != API_JSON_OK) {
        api_json_doc_free(d);
        return e;
    }
    *out = d;
    return API_JSON_OK;
}

const cJSON *api_json_doc_root(const api_json_doc *d)
{
    return d != NULL ? d->root : NULL;
}

void api_json_doc_free(api_json_doc *d)
{
    if (d == NULL)
        return;
    dc__arena_release(&d->ar);
    free(d);
}
