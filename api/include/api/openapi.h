/* api/include/api/openapi.h -- the HTTP contract (openapi.yaml) as a loaded,
 * compiled object. Strict parsing of untrusted JSON request bodies is
 * api/json_read.h, included here for the callers that use both.
 *
 * The contract is built into the binary (dc/embedded.h: "openapi.yaml"). Loading
 * it converts the YAML to a cJSON tree (dc/yaml.h), renders it once as JSON for
 * GET /openapi.json, and compiles the request schemas the server validates
 * against (Workload, BatchRequest) with the project's JSON Schema validator
 * (api/schema.h). Changing openapi.yaml changes what the server accepts with no
 * code change. A loaded contract is immutable, so any number of threads may use
 * it at once. */
#ifndef API_OPENAPI_H
#define API_OPENAPI_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "api/json_read.h"
#include "api/schema.h"
#include "dc/common.h"
#include "dc/embedded.h"

/* Named limit on a 400's list (the server's default; configurable). */
#define API_VALIDATION_MAX_ERRORS 100 /* violations listed in one 400 */

/* Name of the contract in the embedded file table. */
#define API_OPENAPI_EMBEDDED_NAME "openapi.yaml"

/* Entry points of the request schemas compiled at load. */
#define API_SCHEMA_WORKLOAD "#/components/schemas/Workload"
#define API_SCHEMA_BATCH    "#/components/schemas/BatchRequest"

typedef struct api_contract api_contract; /* opaque, immutable once loaded */

/* Load the contract from `len` bytes of YAML at `yaml` (borrowed; copied).
 * `name` (borrowed) names it in errors. On DC_OK *out is owned by the caller
 * (api_contract_free). Errors: DC_EINVAL, DC_EPARSE (YAML, or not an OpenAPI
 * 3.1 document), DC_ENOMEM, and those of api_schema_compile (a request schema
 * missing or malformed); err->where says where. Thread-safe. */
DC_API DC_NODISCARD enum dc_status api_contract_load(const char *yaml, size_t len, const char *name,
                                                     api_contract **out, struct dc_error *err);

/* Load the contract built into the binary (the embedded "openapi.yaml" of
 * `files`, a table ending with a NULL name; borrowed). DC_ENOTFOUND when the
 * table has no contract. Otherwise as api_contract_load. */
DC_API DC_NODISCARD enum dc_status api_contract_load_embedded(const struct aa_embedded_file *files,
                                                              api_contract **out,
                                                              struct dc_error *err);

/* The contract as loaded (returns view, valid until api_contract_free). */
DC_API const char *api_contract_yaml(const api_contract *c, size_t *len);
/* The contract rendered as JSON, one line (returns view). */
DC_API const char *api_contract_json(const api_contract *c, size_t *len);
/* The contract as a cJSON tree (returns view): compile any schema of it with
 * api_schema_compile(root, "#/components/schemas/Name", ...). */
DC_API const cJSON *api_contract_root(const api_contract *c);
/* info.version of the contract (returns view). */
DC_API const char *api_contract_version(const api_contract *c);

/* The compiled Workload and BatchRequest schemas (returns view). */
DC_API const api_schema *api_contract_workload_schema(const api_contract *c);
DC_API const api_schema *api_contract_batch_schema(const api_contract *c);
/* BatchRequest without the Workload schema on its items (returns view): the
 * envelope alone, validated apart from the workloads so that no number of
 * violations inside them can push one of the envelope past the error cap. */
DC_API const api_schema *api_contract_batch_envelope_schema(const api_contract *c);

DC_API void api_contract_free(api_contract *c); /* NULL is a no-op */

/* The query parameters of one operation, each with its compiled schema. */
struct api_query_param {
    char *name;
    bool required;
    api_schema *schema; /* validates the value as a JSON string */
};
struct api_query_params {
    struct api_query_param *items;
    size_t count;
};

/* Compile the `in: query` parameters of operation `method` ("get") of `path`
 * ("/v1/accelerators"), local $refs to components/parameters followed. The
 * schemas reference the contract's tree: `c` must outlive *out. An operation
 * with no query parameter gives count 0. Errors: DC_ENOTFOUND (no such
 * operation), DC_EPARSE, DC_ENOMEM. Release with api_query_params_cleanup. */
DC_API DC_NODISCARD enum dc_status api_contract_query_params(const api_contract *c,
                                                             const char *path, const char *method,
                                                             struct api_query_params *out,
                                                             struct dc_error *err);
DC_API void api_query_params_cleanup(struct api_query_params *p);

#endif /* API_OPENAPI_H */
