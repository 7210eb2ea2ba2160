/* service/src/workload_check.h -- the one check a workload passes before it is
 * recommended for: the server's (POST /v1/recommendations and each item of a
 * batch, server_routes.c) and the CLI's (validate, recommend; document.c).
 * Owned by the CLI work (issue 34); the server calls it so that `validate`
 * cannot pass what the server refuses.
 *
 * Two stages, in the server's order: the contract's Workload schema (every
 * violation, up to API_VALIDATION_MAX_ERRORS), then, for a schema-valid
 * document, the core's reading of the workload with the rule set in force
 * (dc_workload_parse: the rules between fields that a schema cannot state,
 * such as model.active_parameters at most model.parameters, a model name the
 * registry knows, a quantization with its precision). The server runs the
 * first stage here and the second as the first step of dc_recommend, which
 * refuses with the same error (server_routes.c, recommend_one). */
#ifndef SVC_WORKLOAD_CHECK_H
#define SVC_WORKLOAD_CHECK_H

#include <cjson/cJSON.h>

#include "api/schema.h"
#include "dc/ruleset.h"

enum svc_workload_verdict {
    SVC_WORKLOAD_VALID,   /* both stages passed */
    SVC_WORKLOAD_SCHEMA,  /* the schema's violations are in *vr */
    SVC_WORKLOAD_INVALID, /* the core refused it: err->where (a JSON Pointer) and err->msg */
    SVC_WORKLOAD_ERROR    /* the check could not run (memory): err->msg */
};

/* Check `doc` (borrowed) against `schema` and, when that passes, read it with
 * `rs`. *vr is always filled (api_schema_result_cleanup it); `max_errors`
 * bounds the violations listed. */
enum svc_workload_verdict svc_workload_check(const api_schema *schema, const dc_ruleset *rs,
                                             const cJSON *doc, size_t max_errors,
                                             struct api_schema_result *vr, struct dc_error *err);

/* The first stage alone: SVC_WORKLOAD_VALID, _SCHEMA or _ERROR, as above. For
 * a caller that reads the workload with dc_recommend next, which starts with
 * the second stage's dc_workload_parse: reading it twice was 3% of the
 * server's instructions for a request (bench/README.md). */
enum svc_workload_verdict svc_workload_check_schema(const api_schema *schema, const cJSON *doc,
                                                    size_t max_errors, struct api_schema_result *vr,
                                                    struct dc_error *err);

#endif /* SVC_WORKLOAD_CHECK_H */
