/* api/include/api/schema.h -- JSON Schema (draft 2020-12) validator over cJSON.
 *
 * A schema document is compiled once into an immutable object; validation is
 * reentrant (many threads may validate against one compiled schema at once)
 * and reports every violation, up to a limit, with the instance's JSON Pointer
 * and the failing keyword. Supported keywords, conformance and exclusions are
 * in docs/json-schema.md; `format` is an annotation only. Only local $ref
 * (JSON Pointer fragments with ~0/~1 and percent escapes, $defs,
 * #/components/schemas/...) is resolved; a remote $ref is a compile error. */
#ifndef API_SCHEMA_H
#define API_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "dc/common.h"

typedef struct api_schema api_schema; /* opaque, immutable once compiled */

/* Named limits. */
#define API_SCHEMA_MAX_REF_DEPTH      64 /* nested $ref/applicator recursion during validation */
#define API_SCHEMA_MAX_ERRORS_DEFAULT 64 /* violations reported by one validation */

/* One violation. Strings are owned by the api_schema_result that holds them. */
struct api_schema_violation {
    char *pointer; /* JSON Pointer into the instance ("" is the root, "/model/parameters") */
    char *keyword; /* failing keyword ("required", "type", "additionalProperties", ...) */
    char *message; /* human sentence: "must be >= 1", "unknown field \"foo\"" */
};

struct api_schema_result {
    bool valid;
    size_t count;   /* violations stored in items[] */
    bool truncated; /* more violations existed than max_errors */
    struct api_schema_violation *items;
};

/* Compile the schema at `root` (borrowed) whose entry point is `entry`, a JSON
 * Pointer fragment into `root` ("" or "#" for the root itself,
 * "#/components/schemas/Workload" for an OpenAPI component). `root` must stay
 * alive, unmodified, as long as the compiled schema: the compiled form
 * references it (returns view). On DC_OK *out is owned by the caller
 * (api_schema_free). Errors: DC_EINVAL, DC_EPARSE (malformed schema or keyword
 * value, unresolvable or remote $ref, invalid regular expression), DC_ENOMEM;
 * err->where is the JSON Pointer of the problem inside `root`. */
DC_API DC_NODISCARD enum dc_status api_schema_compile(const cJSON *root, const char *entry,
                                                      api_schema **out, struct dc_error *err);

/* Validate `instance` (borrowed). `max_errors` of 0 means
 * API_SCHEMA_MAX_ERRORS_DEFAULT. The result is written to *out and must be
 * released with api_schema_result_cleanup(). Errors: DC_EINVAL, DC_ENOMEM,
 * DC_ELIMIT (reference recursion deeper than API_SCHEMA_MAX_REF_DEPTH).
 * A returned DC_OK with out->valid == false means "validated: not valid".
 * Thread-safe and reentrant. */
DC_API DC_NODISCARD enum dc_status api_schema_validate(const api_schema *schema,
                                                       const cJSON *instance, size_t max_errors,
                                                       struct api_schema_result *out,
                                                       struct dc_error *err);

DC_API void api_schema_result_cleanup(struct api_schema_result *res);

/* Remove from `res` every violation of `keyword` at exactly `pointer`, for a
 * caller that enforces that constraint itself (the server's configured batch
 * limit stands in for BatchRequest's maxItems). `valid` becomes true when no
 * violation is left and none was dropped for max_errors. Returns the number
 * removed. An array that fails minItems or maxItems is not checked further (its
 * items, contains, uniqueItems): removing that violation suits an array whose
 * items nothing else constrains (the batch envelope's) or the caller checks. */
DC_API size_t api_schema_result_remove(struct api_schema_result *res, const char *pointer,
                                       const char *keyword);

/* Release a compiled schema. NULL is a no-op. */
DC_API void api_schema_free(api_schema *schema);

#endif /* API_SCHEMA_H */
