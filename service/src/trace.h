/* service/src/trace.h -- W3C Trace Context (https://www.w3.org/TR/trace-context/):
 * the `traceparent` request header checked as the specification says, and the
 * server's own span within the caller's trace (or a new trace).
 *
 * A request carries at most one valid traceparent. The server keeps its
 * trace-id, makes a span id of its own, logs both with the request and sends
 * `traceparent: 00-TRACE_ID-SPAN_ID-FLAGS` back, so the caller can find the
 * server's log lines. Pure and thread-safe; no HTTP library. */
#ifndef SVC_TRACE_H
#define SVC_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "dc/common.h"

#define SVC_TRACE_ID_HEX       32 /* trace-id: 16 bytes as lowercase hex */
#define SVC_SPAN_ID_HEX        16 /* parent-id and span ids: 8 bytes */
#define SVC_TRACEPARENT_LEN    55 /* "00-" trace-id "-" parent-id "-" flags */
#define SVC_TRACE_FLAG_SAMPLED 0x01

struct svc_trace {
    char trace_id[SVC_TRACE_ID_HEX + 1];
    char parent_id[SVC_SPAN_ID_HEX + 1]; /* the caller's span; "" in a new trace */
    char span_id[SVC_SPAN_ID_HEX + 1];   /* the server's span for this request */
    unsigned flags;                      /* trace-flags sent on: the sampled bit only */
};

/* Parse one traceparent field value (surrounding spaces and tabs allowed).
 * Version 00 is exactly version-trace-id-parent-id-trace-flags in lowercase
 * hex; a later version (not ff) is read the same way and may carry more after
 * a "-". An all-zero trace-id or parent-id is invalid. On DC_OK fills
 * trace_id, parent_id and flags of *out. Errors: DC_EPARSE, with what is wrong
 * in err->msg. */
enum dc_status svc_traceparent_parse(const char *value, struct svc_trace *out,
                                     struct dc_error *err);

/* The request's trace from its traceparent header lines: `values` holds the
 * first value (NULL when there is none) and `count` how many lines came. One
 * valid line continues the caller's trace; none, several or an invalid one
 * start a new trace. `why` (may be NULL) says why an incoming header was set
 * aside (code DC_EPARSE, the reason in msg), or has code DC_OK. Either way the
 * server's span id is fresh. */
void svc_trace_start(const char *value, unsigned count, struct svc_trace *out,
                     struct dc_error *why);

/* The traceparent the server sends: version 00, the trace-id, the server's span
 * id and the flags. `out` holds SVC_TRACEPARENT_LEN + 1 bytes. */
void svc_traceparent_format(const struct svc_trace *t, char out[SVC_TRACEPARENT_LEN + 1]);

#endif /* SVC_TRACE_H */
