/* api/src/schema_internal.h -- private interfaces shared by the schema_*.c files
 * that implement api/schema.h: their allocation, the ECMA-262
 * regular-expression engine, the Unicode category table, UTF-8 helpers, JSON
 * equality and formatting, and URI reference resolution. (The compiled form
 * and the keyword table are schema_node.h's.) Nothing here is public API.
 * Owned by api/. */
#ifndef API_SCHEMA_INTERNAL_H
#define API_SCHEMA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "arena.h"
#include "dc/common.h"
#include "dc/utf8.h"

/* ---- Allocation -------------------------------------------------------------
 *
 * Every allocation of the schema_*.c files goes through these macros, and so
 * through core's counted allocator (core/shared/arena.h), as do the chunks of a
 * compiled schema's arena. The unit test compiles these files itself with
 * API_SCH_TEST_ALLOC defined: SCH_ALLOC_COUNTER is then its per-thread counter, which
 * can make any chosen allocation fail. Elsewhere it is NULL: plain malloc. */
#ifdef API_SCH_TEST_ALLOC
struct dc__alloc_counter *api__sch_test_counter(void);
#define SCH_ALLOC_COUNTER api__sch_test_counter()
#else
#define SCH_ALLOC_COUNTER NULL
#endif
#define SCH_MALLOC(n)       dc__alloc(SCH_ALLOC_COUNTER, (n))
#define SCH_CALLOC(n, size) dc__calloc(SCH_ALLOC_COUNTER, (n), (size))
#define SCH_REALLOC(p, n)   dc__realloc(SCH_ALLOC_COUNTER, (p), (n))

/* Elements in the array `a`. */
#define SCH_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- Regular expressions (schema_regex.c) ----------------------------------
 *
 * The dialect is ECMA-262 in unicode mode, as JSON Schema asks for `pattern`
 * and `patternProperties`, minus what a linear-time automaton cannot do:
 * backreferences and lookaround assertions are compile errors. Matching is a
 * search (unanchored) over code points, runs in O(len * program size) with no
 * backtracking, and is safe to call from many threads on one compiled regex. */

typedef struct api__sch_regex api__sch_regex; /* opaque, immutable once compiled */

/* Largest compiled program, in instructions; bounds counted repetition. */
#define API_SCH_REGEX_MAX_INSNS 20000
/* Largest number accepted in a {n,m} quantifier. */
#define API_SCH_REGEX_MAX_COUNT 1000
/* Deepest group nesting accepted by the parser (it recurses per group). */
#define API_SCH_REGEX_MAX_NESTING 100

/* Compile `pattern` (borrowed, NUL-terminated UTF-8). On DC_OK *out is owned by
 * the caller (api__sch_regex_free). Errors: DC_EPARSE (syntax error or
 * unsupported feature; a sentence in msg[msglen]), DC_ENOMEM. */
DC_NODISCARD enum dc_status api__sch_regex_compile(const char *pattern, api__sch_regex **out,
                                                   char *msg, size_t msglen);

/* Search `s` (borrowed, `len` bytes of UTF-8) for a match anywhere. *out is set
 * on DC_OK only. Errors: DC_EINVAL (NULL arguments), DC_ENOMEM (programs
 * larger than a small stack buffer need heap scratch).
 * Reentrant. */
DC_NODISCARD enum dc_status api__sch_regex_search(const api__sch_regex *re, const char *s,
                                                  size_t len, bool *out);

/* NULL is a no-op. */
void api__sch_regex_free(api__sch_regex *re);

/* ---- Unicode (schema_unicode.c, generated) ------------------------------ */

/* General_Category values; the order is the generated table's. */
enum api__sch_gc {
    API_SCH_GC_CN, /* unassigned: the category of every code point not in the table */
    API_SCH_GC_LU,
    API_SCH_GC_LL,
    API_SCH_GC_LT,
    API_SCH_GC_LM,
    API_SCH_GC_LO,
    API_SCH_GC_MN,
    API_SCH_GC_MC,
    API_SCH_GC_ME,
    API_SCH_GC_ND,
    API_SCH_GC_NL,
    API_SCH_GC_NO,
    API_SCH_GC_PC,
    API_SCH_GC_PD,
    API_SCH_GC_PS,
    API_SCH_GC_PE,
    API_SCH_GC_PI,
    API_SCH_GC_PF,
    API_SCH_GC_PO,
    API_SCH_GC_SM,
    API_SCH_GC_SC,
    API_SCH_GC_SK,
    API_SCH_GC_SO,
    API_SCH_GC_ZS,
    API_SCH_GC_ZL,
    API_SCH_GC_ZP,
    API_SCH_GC_CC,
    API_SCH_GC_CF,
    API_SCH_GC_CS,
    API_SCH_GC_CO,
    API_SCH_GC_COUNT
};

/* Unicode version of the table ("14.0.0"). */
extern const char api__sch_unicode_version[];

/* Category of `cp`; API_SCH_GC_CN above U+10FFFF. Thread-safe. */
enum api__sch_gc api__sch_unicode_category(uint32_t cp);

/* ---- JSON values (schema_json.c) ---------------------------------------- */

/* JSON Schema equality: numbers by value (1 == 1.0), objects regardless of key
 * order, arrays element-wise; booleans never equal numbers. `depth_left`
 * bounds recursion on hostile nesting (deeper values compare unequal). */
bool api__sch_json_equal(const cJSON *a, const cJSON *b, unsigned depth_left);

/* A hash consistent with api__sch_json_equal (equal values hash equally). */
uint64_t api__sch_json_hash(const cJSON *v, unsigned depth_left);

/* Shortest decimal text of `v` that reads back as `v` ("0.1", "3", "1e+300"). */
void api__sch_format_number(double v, char *buf, size_t len);

/* Compact JSON text of `v` in buf[len] (len > 0), for messages: strings are
 * escaped, and text that does not fit, or nesting past a few levels, ends in
 * "...". Never allocates. */
void api__sch_json_print(const cJSON *v, char *buf, size_t len);

/* `s` as a JSON string literal in buf[len] (len > 0), escaped and cut to at
 * most `max_chars` bytes of content (then "..." is added), so that names from
 * untrusted input stay short and printable in messages. */
void api__sch_quote(const char *s, size_t max_chars, char *buf, size_t len);

/* Append "/" and `token` (borrowed), escaped as RFC 6901 asks (api/json_read.h's
 * api_json_pointer_append), to the JSON Pointer *buf, *len bytes long in a heap
 * buffer of *cap bytes (not 0), which grows as needed: the compiler's location
 * in the schema and the validator's in the instance. False, leaving all three as
 * they were, when out of memory. */
bool api__sch_pointer_push(char **buf, size_t *len, size_t *cap, const char *token);

/* ---- URI references (schema_uri.c) -------------------------------------- */

/* Resolve the URI reference `ref` against `base` (RFC 3986, section 5.2),
 * both borrowed; either may be relative or empty. An empty fragment ("x#") is
 * dropped, so "x#" and "x" name the same resource. On DC_OK *out is a new
 * string owned by the caller (free). Errors: DC_ENOMEM. */
DC_NODISCARD enum dc_status api__sch_uri_resolve(const char *base, const char *ref, char **out);

/* Decode %XX escapes of `s` (borrowed) into a new string (free). Invalid
 * escapes are kept verbatim. Errors: DC_ENOMEM. */
DC_NODISCARD enum dc_status api__sch_percent_decode(const char *s, char **out);

#endif /* API_SCHEMA_INTERNAL_H */
