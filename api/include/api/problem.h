/* api/include/api/problem.h -- RFC 9457 problem details (application/problem+json),
 * the body of every error response (openapi.yaml: Problem, ProblemError).
 *
 * A problem is a cJSON object: type, title, status, detail, request_id, and for
 * validation failures `errors`, an array of {pointer, message}. Problem types are
 * `about:blank` for a plain HTTP status or a tag URI (RFC 4151, as RFC 9457 section
 * 3.1.1 suggests for types that are not meant to be dereferenced):
 * "tag:accel-advisor,2025:validation". */
#ifndef API_PROBLEM_H
#define API_PROBLEM_H

#include <cjson/cJSON.h>

#include "api/schema.h"
#include "dc/common.h"

#define API_PROBLEM_TYPE_PREFIX  "tag:accel-advisor,2025:"
#define API_PROBLEM_CONTENT_TYPE "application/problem+json"

/* Problem type names (the part after API_PROBLEM_TYPE_PREFIX); each has one
 * title (api_problem_title). */
#define API_PROBLEM_MALFORMED_JSON         "malformed-json"
#define API_PROBLEM_INVALID_UTF8           "invalid-utf8"
#define API_PROBLEM_DUPLICATE_KEY          "duplicate-key"
#define API_PROBLEM_TOO_DEEP               "too-deep"
#define API_PROBLEM_NUL_IN_STRING          "nul-in-string"
#define API_PROBLEM_VALIDATION             "validation"
#define API_PROBLEM_BODY_TOO_LARGE         "body-too-large"
#define API_PROBLEM_BATCH_TOO_LARGE        "batch-too-large"
#define API_PROBLEM_UNSUPPORTED_MEDIA_TYPE "unsupported-media-type"
#define API_PROBLEM_UNAUTHORIZED           "unauthorized"
#define API_PROBLEM_NOT_READY              "not-ready"
#define API_PROBLEM_OVERLOADED             "overloaded"
#define API_PROBLEM_PROBE_DISABLED         "probe-disabled"
#define API_PROBLEM_FLEET_DISABLED         "fleet-disabled"
#define API_PROBLEM_INTERNAL               "internal"

/* The title of "overloaded", also written whole where no allocation may happen
 * (service/src/server_conn.c refuses a connection past the limit). */
#define API_PROBLEM_OVERLOADED_TITLE "The server is overloaded"

/* The reason phrase of an HTTP status ("Not Found"); "Error" when unknown. */
DC_API const char *api_http_reason(int status);

/* The one title of a problem type above ("overloaded": "The server is
 * overloaded"), or NULL for a name that is not one. RFC 9457, section 3.1.3: a
 * type's title does not change from occurrence to occurrence; what differs goes
 * in `detail`. openapi.yaml's Problem schema holds the same pairs. */
DC_API const char *api_problem_title(const char *type);

/* A new problem. `type` is a type name above (prefixed with
 * API_PROBLEM_TYPE_PREFIX) or NULL for "about:blank". The title is the type's
 * (api_problem_title), whatever `title` says; for "about:blank", `title`, or
 * the status's reason phrase when NULL. `detail` and `request_id` may be NULL
 * (then omitted). All strings are copied. Returns owned (cJSON_Delete), or NULL
 * when out of memory. */
DC_API cJSON *api_problem_new(int status, const char *type, const char *title, const char *detail,
                              const char *request_id);

/* Append {pointer, message} to the problem's `errors` (created on first use).
 * Strings are copied. Errors: DC_EINVAL, DC_ENOMEM. */
DC_API DC_NODISCARD enum dc_status api_problem_add_error(cJSON *problem, const char *pointer,
                                                         const char *message);

/* Append every violation of `res` (borrowed) whose pointer starts with `prefix`
 * ("" for all; "/workloads/3" takes that element and everything under it), the
 * pointer written as `prepend` + the violation's pointer (prepend may be NULL).
 * A truncated result adds a final error saying more violations were not listed.
 * Returns the number of errors added through *added (may be NULL).
 * Errors: DC_EINVAL, DC_ENOMEM. */
DC_API DC_NODISCARD enum dc_status api_problem_add_violations(cJSON *problem,
                                                              const struct api_schema_result *res,
                                                              const char *prefix,
                                                              const char *prepend, size_t *added);

/* Render a problem as one line of JSON (owned, free with cJSON_free), or NULL. */
DC_API char *api_problem_render(const cJSON *problem);

#endif /* API_PROBLEM_H */
