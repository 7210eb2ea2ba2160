/* service/src/framing.h -- the request framing rules of RFC 9112 that libmicrohttpd
 * 0.9.75 does not enforce, checked on the header fields it parsed, before any body
 * is read:
 *   - one Content-Length, digits only (413 past 64 bits), never beside
 *     Transfer-Encoding;
 *   - Transfer-Encoding only on HTTP/1.1, and only exactly "chunked" (any other
 *     coding is 501);
 *   - field names that are tokens (no whitespace before the colon), none that
 *     extends a framing field's name (how the library stores a folded line);
 *   - no bare CR and no NUL in a value;
 *   - exactly one valid Host on HTTP/1.1 (at most one on 1.0);
 *   - the fields the library hands over are every line of the header section,
 *     in order: a line it took for the end of the section (an empty field name,
 *     ": v"), the part of a value after a NUL byte (which it cuts off) and a
 *     folded line (which it joins to the field's name) are refused, checked on
 *     the section as it lies in its read buffer (struct svc_framing_raw).
 * Also the request target as received, before percent-decoding: no whitespace or
 * control character, raw or percent-encoded (%00 routed as the end of the path),
 * and at most SVC_MAX_QUERY_ARGS query arguments (414).
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
/* Query arguments a request target may have (the API's operations take at most
 * 3): past it the request is answered 414, before the library's per-connection
 * memory can run out storing them (it then answered nothing). */
#define SVC_MAX_QUERY_ARGS 32

/* The request's header section as libmicrohttpd 0.9.75 leaves it in its read
 * buffer once the headers are in: the bytes from the method to the end of the
 * empty line, with the space after the method and before the version, each
 * line terminator (CR LF or a bare LF) and each field's colon overwritten by
 * NUL bytes. Every pointer is into that buffer. */
struct svc_framing_raw {
    const char *start;   /* the method */
    size_t len;          /* the header section's size (MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE) */
    const char *target;  /* the request target, as the URI log callback saw it */
    size_t target_len;   /* its length then */
    const char *version; /* "HTTP/1.1" */
};

/* The checks in progress over one request's header fields. */
struct svc_framing {
    bool http10; /* the request line said HTTP/1.0 */
    bool version_known;
    unsigned content_length; /* field lines of each kind seen */
    unsigned transfer_encoding;
    unsigned host;
    int status; /* 0 while nothing is wrong; then 400 or 501 */
    char detail[SVC_FRAMING_DETAIL_MAX];
    /* The raw section, when known: its end, and the end of the last line whose
     * field matched it (the next line starts after its terminator). */
    const char *raw_start, *raw_end, *raw_at;
    char raw_last[48]; /* the last field's name, for a detail ("" for the request line) */
};

/* Start the checks of a request whose request line said `version` (borrowed,
 * "HTTP/1.1"); NULL when it is not known, and then the rules that depend on it
 * (Host on HTTP/1.1, Transfer-Encoding on HTTP/1.0) are not checked. `raw`
 * (borrowed for the checks' life; NULL: not known) is the header section the
 * fields are checked against, line by line; its request line is checked at
 * once (one space on each side of the target, nothing after the version). */
void svc_framing_begin(struct svc_framing *f, const char *version,
                       const struct svc_framing_raw *raw);
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

/* The query arguments of `target` (as received), as libmicrohttpd splits them:
 * the '&'-separated parts after the first '?'. Counts at most `max` + 1. */
size_t svc_target_query_args(const char *target, size_t max);

/* The path to route a request by. `raw` is its target as received, `path` the
 * library's percent-decoded path of it (query removed). For an absolute-form
 * target (RFC 9112 section 3.2.2: "http://host:8080/v1/rules", which a server
 * must accept) it is the part of `path` after the authority ("/" when none);
 * otherwise `path` itself. NULL when an absolute-form authority is not
 * host[:port] (no user information, no percent-encoding): a 400. */
const char *svc_target_path(const char *raw, const char *path);

#endif /* SVC_FRAMING_H */
