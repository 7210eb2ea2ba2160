/* api/src/schema_compile.h -- the JSON Schema compiler (schema_compile.c) as
 * the keyword table (schema_keywords.c) sees it: the document is compiled with
 * a table handed in, and each keyword's compile function calls back here for
 * memory, errors, locations, subschemas and references. Nothing here is public
 * API. Owned by api/. */
#ifndef API_SCHEMA_COMPILE_H
#define API_SCHEMA_COMPILE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "schema_node.h"

/* api_schema_compile (api/schema.h) with the keyword table `keywords[n]`
 * (borrowed; it must outlive the call): every member of a schema object named
 * in it is compiled by its row's function and checked by its row's check; the
 * others are annotations or unknown keywords, and ignored. */
DC_NODISCARD enum dc_status api__sch_compile(const cJSON *root, const char *entry,
                                             const struct api__sch_keyword *keywords, size_t n,
                                             api_schema **out, struct dc_error *err);

/* ---- For the keywords' compile functions ------------------------------------ */

/* `n` zeroed bytes, aligned, in the compiled schema's arena (they live as long
 * as it does); NULL when out of memory. */
void *api__sch_alloc(struct api__sch_compiler *cc, size_t n);
/* A copy of `s` in that arena; NULL when out of memory. */
char *api__sch_strdup(struct api__sch_compiler *cc, const char *s);

/* A DC_EPARSE error at the current location: the message is `fmt`'s. */
enum dc_status api__sch_cerr(struct api__sch_compiler *cc, const char *fmt, ...) DC_PRINTF(2, 3);
/* A DC_ENOMEM error at the current location. */
enum dc_status api__sch_nomem(struct api__sch_compiler *cc);

/* Append "/token" (escaped), or "/i", to the current location, a JSON Pointer
 * into the document; *saved is what api__sch_path_pop restores. */
enum dc_status api__sch_path_push(struct api__sch_compiler *cc, const char *token, size_t *saved);
enum dc_status api__sch_path_push_index(struct api__sch_compiler *cc, size_t i, size_t *saved);
void api__sch_path_pop(struct api__sch_compiler *cc, size_t saved);

/* Compile the subschema `js`, located at the current location, around which
 * the base URI is `parent_base`, into *out (the existing node if `js` was
 * compiled before). */
enum dc_status api__sch_compile_schema(struct api__sch_compiler *cc, const cJSON *js,
                                       const char *parent_base, struct api__sch_node **out);

/* Record the reference `v` of node `n` ($ref, or $dynamicRef when `dynamic`),
 * resolved against `base`, for resolution once every schema is known. */
enum dc_status api__sch_add_ref(struct api__sch_compiler *cc, struct api__sch_node *n,
                                const cJSON *v, const char *base, bool dynamic);

#endif /* API_SCHEMA_COMPILE_H */
