/* service/src/framing.h -- the request framing rules of RFC 9112 that libmicrohttpd
 * 0.9.75 does not enforce, checked on the header fields it parsed, before any body
 * is read:
 *   - one Content-Length, digits only (413 past 64 bits), never beside
 *     Transfer-Encoding;
 *   - Transfer-Encoding only on HTTP/1.1, and only exactly "chunked" (any other
 *     coding is 501);
 *   - field names that are tokens (no whitespace before the colon), none that
 *     extends a framing field's name (how the library stores a folded line);
 *   - no bare CR in a value;
 *   - exactly one valid Host on HTTP/1.1 (at most one on 1.0).
 * Also the request target as received, before percent-decoding: no whitespace or
 * control character, raw or percent-encoded (%00 routed as the end of the path).
 *
 * A request that fails is answered with one 400 (or 501, 413) and its connection
 * is closed: whatever followed it on the connection can no longer be told apart
 * from its body, so it is never served (docs/operations.md, "Request framing").
 * Pure and thread-safe: no HTTP library, unit-tested without a socket. */
#ifndef SVC_FRAMING_H
#define SVC_FRAMING_H

#include <stdbool.h>
#include <stddef.h>

#define SVC_FRAMING_DETAIL_MAX 160

/* The checks in progress over one request's header fields. */
struct svc_framing {
    bool http10; /* the request line said HTTP/1.0 */
    bool version_known;
    unsigned content_length; /* field lines of each kind seen */
    unsigned transfer_encoding;
    unsigned host;
    int status; /* 0 while nothing is wrong; then 400 or 501 */
    char detail[SVC_FRAMING_DETAIL_MAX];
};

/* Start the checks of a request whose request line said `version` (borrowed,
 * "HTTP/1.1"); NULL when it is not known, and then the rules that depend on it
 * (Host on HTTP/1.1, Transfer-Encoding on HTTP/1.0) are not checked. */
void svc_framing_begin(struct svc_framing *f, const char *version);
/* Check one header field line: `name` and `value` (borrowed, `nlen` and `vlen`
 * bytes, not necessarily NUL-terminated), as the library stored them (its value
 * without leading whitespace). Only the first problem is kept. */
void svc_framing_field(struct svc_framing *f, const char *name, size_t nlen, const char *value,
                       size_t vlen);
/* After the last field: 0 when the framing is acceptable, else 400, 413 (a
 * Content-Length past 64 bits) or 501 with f->detail saying what is wrong. */
int svc_framing_end(struct svc_framing *f);

/* Why the request target `target` (borrowed, as received: before
 * percent-decoding, query included) must be refused with a 400, or NULL when it
 * is acceptable. NULL `target` (a request line without one) is refused. */
const char *svc_target_problem(const char *target);

#endif /* SVC_FRAMING_H */
