/* service/src/http.h -- the HTTP vocabulary of the server, free of any HTTP
 * library: the fixed route table, methods, request ids, content types and CORS
 * origin matching. Everything here is pure and thread-safe, so it is unit-tested
 * without a socket. */
#ifndef SVC_HTTP_H
#define SVC_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "dc/common.h"

/* The routes: a fixed, small set. Metrics label requests with the route
 * template, never the raw path, so label cardinality is bounded. */
enum svc_route {
    SVC_ROUTE_RECOMMEND,    /* POST /v1/recommendations */
    SVC_ROUTE_BATCH,        /* POST /v1/recommendations:batch */
    SVC_ROUTE_ACCELERATORS, /* GET /v1/accelerators */
    SVC_ROUTE_RULES,        /* GET /v1/rules */
    SVC_ROUTE_INVENTORY,    /* GET /v1/inventory */
    SVC_ROUTE_MODELS,       /* GET /v1/models */
    SVC_ROUTE_FLEET,        /* GET /v1/fleet */
    SVC_ROUTE_HEALTHZ,
    SVC_ROUTE_READYZ,
    SVC_ROUTE_METRICS,
    SVC_ROUTE_OPENAPI_YAML,
    SVC_ROUTE_OPENAPI_JSON,
    SVC_ROUTE_PLAYGROUND, /* GET / (playground.h) */
    SVC_ROUTE_ASSET,      /* GET /ui/NAME: the playground's assets */
    SVC_ROUTE_UNMATCHED,  /* any other path (404) */
    SVC_ROUTE_COUNT
};

enum svc_method {
    SVC_METHOD_GET,
    SVC_METHOD_HEAD,
    SVC_METHOD_POST,
    SVC_METHOD_OPTIONS,
    SVC_METHOD_OTHER,
    SVC_METHOD_COUNT
};

#define SVC_METHOD_BIT(m) (1u << (m))

/* Where the playground's assets live, under the server's root. The page refers
 * to them relatively ("ui/playground.js"), so a gateway may mount the server
 * under any path prefix. */
#define SVC_ASSET_PREFIX "/ui/"

/* Longest request id accepted from a client, and the generated form (32 hex). */
#define SVC_REQUEST_ID_MAX           64
#define SVC_REQUEST_ID_GENERATED_LEN 32

/* The route of `path` (the URL path without the query): an exact match, or
 * SVC_ROUTE_ASSET for any path under /ui/ (which asset, if any, is the
 * playground's to say). */
enum svc_route svc_route_match(const char *path);
/* The route's label: its path template ("/v1/recommendations"), "unmatched". */
const char *svc_route_label(enum svc_route r);
/* Methods the route has (SVC_METHOD_BIT set); OPTIONS is always among them. */
unsigned svc_route_methods(enum svc_route r);
/* True when the route needs an API key (when keys are configured): the /v1/ API.
 * Health, readiness, metrics and the contract stay open. */
bool svc_route_protected(enum svc_route r);
/* True when the route needs a loaded rule set (503 before one is). */
bool svc_route_needs_rules(enum svc_route r);
/* The Allow header value for the route: "GET, HEAD, OPTIONS". */
void svc_route_allow(enum svc_route r, char *buf, size_t len);

enum svc_method svc_method_parse(const char *method);
/* "GET", ..., "other" for SVC_METHOD_OTHER (a metrics label). */
const char *svc_method_label(enum svc_method m);

/* True when `id` is a well-formed client request id: 1 to SVC_REQUEST_ID_MAX
 * characters of A-Z a-z 0-9 . _ : - */
bool svc_request_id_valid(const char *id);
/* Write a new random request id (128 bits from OpenSSL's RAND_bytes, as 32
 * lowercase hex characters plus NUL) into out. DC_EIO when the random
 * generator fails: out then holds a time-and-counter id, still unique, so a
 * caller may go on with it. */
enum dc_status svc_request_id_generate(char out[SVC_REQUEST_ID_GENERATED_LEN + 1]);

/* Most random bytes svc_random_hex draws at once. */
#define SVC_RANDOM_HEX_MAX_BYTES 16
/* Write `nbytes` (at most SVC_RANDOM_HEX_MAX_BYTES) random bytes from OpenSSL's
 * RAND_bytes as 2 * nbytes lowercase hex characters plus NUL into out. DC_EIO
 * when the generator fails: out then holds hex digits of the time and a
 * process-wide counter, distinct from every earlier call. Thread-safe. */
enum dc_status svc_random_hex(char *out, size_t nbytes);

enum svc_content_type {
    SVC_CTYPE_JSON,    /* application/json, optionally with charset=utf-8 */
    SVC_CTYPE_MISSING, /* no Content-Type header */
    SVC_CTYPE_OTHER    /* anything else, another charset included */
};
/* Classify a Content-Type header value (NULL means missing). Media type and
 * parameter names are case-insensitive (RFC 9110). */
enum svc_content_type svc_content_type_classify(const char *value);

/* CORS: `allowed` is the configured comma-separated origin list ("" = CORS off,
 * "*" = any origin). True when `origin` (the request's Origin header, may be
 * NULL) may read responses. Origins compare exactly (scheme, host and port), as
 * browsers send them. */
bool svc_cors_origin_allowed(const char *allowed, const char *origin);

/* Check a configured origin list before it is used: "" (CORS off), "*" alone, or
 * comma-separated origins `scheme://host[:port]` exactly as browsers send them
 * (lowercase, no path, no user, no wildcard; "null" is refused because sandboxed
 * documents and file: pages all send it). Errors: DC_EINVAL, with what is wrong,
 * naming the bad origin, in err->msg. */
DC_NODISCARD enum dc_status svc_cors_origins_check(const char *list, struct dc_error *err);

#endif /* SVC_HTTP_H */
