/* service/src/etag.h -- entity tags and If-None-Match (RFC 9110, sections 8.8.3
 * and 13.1.2), free of any HTTP library.
 *
 * A representation's ETag is a digest of what its bytes depend on (the route,
 * the build, the contract, the rule set version, the query), not of the bytes
 * themselves, so a conditional request is answered without rendering the body.
 * The tags are strong: equal tags mean byte-identical bodies. Pure and
 * thread-safe. */
#ifndef SVC_ETAG_H
#define SVC_ETAG_H

#include <stdbool.h>
#include <stddef.h>

#include "dc/common.h"

/* A tag: DQUOTE, 32 lowercase hex digits (128 bits of SHA-256), DQUOTE, NUL. */
#define SVC_ETAG_SIZE 35
/* Longest If-None-Match field value looked at; a longer one is ignored. */
#define SVC_ETAG_FIELD_MAX 8192

/* The ETag of a representation determined by `parts` (n strings, borrowed; a
 * NULL part, such as an absent query parameter, differs from every string, ""
 * included). Errors: DC_ENOMEM, the one way the digest cannot be computed (out
 * is then ""): send no ETag then. */
DC_NODISCARD enum dc_status svc_etag_make(const char *const *parts, size_t n,
                                          char out[SVC_ETAG_SIZE]);

/* SHA-256 of `len` bytes as 64 lowercase hex digits plus NUL (a part for
 * svc_etag_make standing for a large input, such as the contract). Errors:
 * DC_ENOMEM, as svc_etag_make's. */
DC_NODISCARD enum dc_status svc_etag_digest(const void *data, size_t len, char out[65]);

/* True when If-None-Match field value `field` matches `etag` (a tag made by
 * svc_etag_make): "*", or a comma-separated list of entity-tags one of which
 * equals `etag` under the weak comparison (a W/ prefix on either side is
 * ignored). Empty list elements and optional whitespace are allowed; a field
 * that is not this syntax matches nothing (the request is answered in full). */
bool svc_etag_none_match(const char *field, const char *etag);

#endif /* SVC_ETAG_H */
