/* service/src/document.h -- a document given to the CLI (a workload, or any
 * document `validate --schema` checks), in JSON or YAML, parsed and checked
 * against a schema exactly as the server checks request bodies.
 *
 * JSON is parsed strictly (api_json_parse: UTF-8, no duplicate keys, nesting
 * within the limit). YAML goes through the rule files' loader (dc/yaml.h: no
 * aliases, anchors, custom tags or duplicate keys; errors at file:line), then
 * the same nesting limit, then the schema; every problem of a YAML document is
 * located by file and line as well as by JSON Pointer. */
#ifndef SVC_DOCUMENT_H
#define SVC_DOCUMENT_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "api/schema.h"
#include "dc/ruleset.h"

enum svc_syntax { SVC_SYNTAX_JSON, SVC_SYNTAX_YAML };

/* The syntax of the document `text` read from `path`: YAML when the name ends in
 * .yaml or .yml, JSON when it ends in .json; otherwise (stdin, other names)
 * JSON when the first byte that is not white space is { or [, else YAML. */
enum svc_syntax svc_document_syntax(const char *path, const char *text, size_t len);

/* Parse `len` bytes at `text` (NUL-terminated) named `name` in `syntax`, with
 * nesting at most `depth` (0: API_JSON_DEPTH_DEFAULT), and validate the document
 * against `schema`; with a rule set `rs` (not NULL) the document is a workload
 * and gets the server's whole check (workload_check.h: the schema, then the
 * rules between fields, read with `rs`). Every problem is printed to `fp`, one
 * per line, as "PREFIXPOINTER: message" for JSON ("/" is the root) and
 * "PREFIXNAME:LINE: POINTER: message" for YAML. Returns 0 when valid (then
 * *out, when not NULL, owns the document), 1 when not, 2 when out of memory or
 * validation failed. */
int svc_check_document(const api_schema *schema, const dc_ruleset *rs, const char *name,
                       enum svc_syntax syntax, const char *text, size_t len, unsigned depth,
                       FILE *fp, const char *prefix, cJSON **out);

/* A change made to a parsed document before it is checked (a command-line flag
 * that sets a field): apply returns false when out of memory. */
struct svc_document_edit {
    bool (*apply)(cJSON *doc, void *ctx);
    void *ctx;
};

/* svc_check_document with `edit` applied to the document between parsing and
 * validation, so an edited field is checked like one written in the file. */
int svc_check_edited_document(const api_schema *schema, const dc_ruleset *rs, const char *name,
                              enum svc_syntax syntax, const char *text, size_t len, unsigned depth,
                              FILE *fp, const char *prefix, const struct svc_document_edit *edit,
                              cJSON **out);

#endif /* SVC_DOCUMENT_H */
