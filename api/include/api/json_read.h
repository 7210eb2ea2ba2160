/* api/include/api/json_read.h -- strict reading of untrusted JSON (request
 * bodies) and JSON Pointers (RFC 6901) into a parsed tree. Owned by api/
 * (api/src/json_read.c). */
#ifndef API_JSON_READ_H
#define API_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "dc/common.h"

/* Named limits on request bodies (the server's defaults; every one is configurable). */
#define API_JSON_DEPTH_DEFAULT    32  /* nesting of arrays and objects */
#define API_JSON_DEPTH_MAX        256 /* the most a configuration may allow */
#define API_JSON_NUMBER_MAX_CHARS 63  /* longest number literal (cJSON's own buffer) */

/* The node at JSON Pointer fragment `ptr` ("#/components/schemas/Workload", with
 * ~0 ~1 escapes) of `root`, or NULL (returns view). */
DC_API const cJSON *api_json_pointer_get(const cJSON *root, const char *ptr);

/* Append `tok` to the pointer in buf (escaping ~ and /); false when it does not fit. */
DC_API bool api_json_pointer_append(char *buf, size_t cap, const char *tok);

/* Why a body could not be parsed: each maps to a problem type. */
enum api_json_error {
    API_JSON_OK = 0,
    API_JSON_MALFORMED,    /* not JSON (RFC 8259), trailing data included */
    API_JSON_INVALID_UTF8, /* bytes that are not UTF-8, or a lone surrogate escape */
    API_JSON_DUPLICATE_KEY,
    API_JSON_TOO_DEEP,      /* nesting over the limit */
    API_JSON_NUL_IN_STRING, /* a \u0000 escape, which RFC 8259 allows but C strings cannot carry */
    API_JSON_NOMEM
};

/* Parse `len` bytes at `data` (borrowed; data[len] must be a NUL byte, so the
 * buffer holds len + 1 bytes, as cJSON's strict mode needs) as exactly one JSON
 * value, strictly: RFC 8259 grammar (no trailing data, no raw control
 * characters in strings, strict numbers), valid UTF-8 (no overlong forms,
 * surrogates or code points past U+10FFFF; \u escapes must pair surrogates), no
 * \u0000 escape (RFC 8259 allows it, but every string here becomes a C string,
 * where it would silently cut the value short: "training\u0000x" would read as
 * "training"; refused as API_JSON_NUL_IN_STRING), no duplicate
 * keys in an object, and nesting at most `max_depth` levels (0 means
 * API_JSON_DEPTH_DEFAULT). Nesting is checked before any recursion, so hostile
 * depth costs nothing.
 *
 * On API_JSON_OK *out is the parsed tree, owned by the caller (cJSON_Delete).
 * Otherwise *out is NULL and, when `err` is not NULL, err->msg says what is wrong
 * and where ("unexpected character '}' at byte 17"), and err->where is the JSON
 * Pointer of a duplicate key or "" when the problem has no pointer. Thread-safe. */
DC_API enum api_json_error api_json_parse(const char *data, size_t len, unsigned max_depth,
                                          cJSON **out, struct dc_error *err);

/* A body parsed as api_json_parse parses it, its tree in one arena: no
 * allocation per node, and freed at once (api_json_doc_free), never with
 * cJSON_Delete; its nodes are only read (no cJSON function that frees,
 * replaces or adds a node). For the server's request bodies. */
typedef struct api_json_doc api_json_doc;

/* Bytes of a document's first arena block, allocated with it: a workload's
 * tree (a kilobyte of JSON) fits, a larger body takes more blocks. */
#define API_JSON_DOC_FIRST_BLOCK 8192

/* api_json_parse, the tree in a document (*out, freed by the caller with
 * api_json_doc_free; NULL on failure). Same checks, errors and tree. */
DC_API enum api_json_error api_json_parse_doc(const char *data, size_t len, unsigned max_depth,
                                              api_json_doc **out, struct dc_error *err);
/* The document's tree (borrowed, as long as the document lives). */
DC_API const cJSON *api_json_doc_root(const api_json_doc *d);
/* Free a document and its tree; NULL is a no-op. */
DC_API void api_json_doc_free(api_json_doc *d);

/* Name of a parse error as used in problem types ("malformed-json"). */
DC_API const char *api_json_error_name(enum api_json_error e);

#endif /* API_JSON_READ_H */
