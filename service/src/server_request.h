/* service/src/server_request.h -- one request's context (struct req) and the
 * small helpers the server's two halves share: server.c (the libmicrohttpd
 * callbacks, start and stop) and server_routes.c (the routes and their
 * responses). Not used outside those two files. */
#ifndef SVC_SERVER_REQUEST_H
#define SVC_SERVER_REQUEST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <microhttpd.h>

#include "api/convert.h"
#include "server_internal.h"

#ifndef AA_VERSION
#define AA_VERSION "0.0.0"
#endif

#define RETRY_AFTER_S  "1"
#define JSON_TYPE      "application/json"
#define ALLOW_HEADERS  "Authorization, Content-Type, X-Request-Id, If-None-Match, traceparent"
#define EXPOSE_HEADERS "X-Request-Id, Retry-After, ETag, traceparent"

struct req {
    uint64_t start_ns;
    enum svc_route route;
    enum svc_method method;
    int status;   /* queued status; 0 before a response is queued */
    size_t bytes; /* response body bytes */
    char id[SVC_REQUEST_ID_MAX + 1];
    char *body;
    size_t body_len;
    size_t body_cap;
    size_t discarded;
    size_t body_reserved; /* of the buffered-body budget (max_buffered_body_bytes) */
    size_t resp_reserved; /* of the queued-response budget (max_queued_response_bytes) */
    bool too_large;
    bool over_budget; /* a chunked body outgrew the buffered-body budget */
    bool checked;     /* the header checks ran */
    bool started;     /* the access handler saw the request (counted in flight) */
    bool over_limit;
    bool admin; /* on the admin listener: /healthz, /readyz, /metrics only */
    bool close; /* answer with Connection: close (its framing was refused) */
    bool cors;
    bool line_done;       /* libmicrohttpd has stored the request line's query arguments */
    bool answered_direct; /* the server wrote the answer on the socket itself */
    struct MHD_Connection *mhd;
    struct svc_conn *conn;         /* the connection's context (its deadline) */
    const char *target_problem;    /* why the raw request target is refused, or NULL */
    const char *target;            /* the raw target in libmicrohttpd's buffer, as received */
    size_t target_len;             /* its length then (the library cuts it later) */
    size_t query_args;             /* arguments in its query */
    const char *origin;            /* view into libmicrohttpd's header storage */
    const struct svc_asset *asset; /* GET / and /ui/NAME: the playground's file */
    dc_ruleset *rs;                /* a reference held for the request's whole life */
    char cache_version[SVC_CACHE_VERSION_MAX + 1]; /* rules version "/" probe generation,
                                                      staleness, the fleet's
                                                      (svc__fleet_cache_version); "" unused */
    struct svc_trace trace;   /* W3C trace context: the caller's trace, our span */
    char etag[SVC_ETAG_SIZE]; /* the 200's ETag on routes that have one; "" otherwise */
    struct api_view view;     /* POST /v1/recommendations(:batch): what of the answer to send */
};

struct hdr {
    const char *name;
    const char *value;
};

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* libmicrohttpd takes `void *` even for buffers it only reads. */
static inline char *unconst(const char *p)
{
    return (char *)(uintptr_t)p;
}

/* Memory budgets. */
/* Take `n` bytes of a budget of `limit` bytes (`used` is its running total):
 * false, taking nothing, when they do not fit. Lock-free. */
static inline bool budget_take(_Atomic int64_t *used, size_t n, unsigned limit)
{
    int64_t cur = atomic_load_explicit(used, memory_order_relaxed);
    do {
        if (cur + (int64_t)n > (int64_t)limit)
            return false;
    } while (!atomic_compare_exchange_weak_explicit(used, &cur, cur + (int64_t)n,
                                                    memory_order_relaxed, memory_order_relaxed));
    return true;
}

static inline void budget_give(_Atomic int64_t *used, size_t *held)
{
    atomic_fetch_sub_explicit(used, (int64_t)*held, memory_order_relaxed);
    *held = 0;
}

static const struct hdr retry_after[] = {{"Retry-After", RETRY_AFTER_S}, {NULL, NULL}};

/* Route the request to its handler (server_routes.c); every check of the
 * request itself is done. */
enum MHD_Result svc__dispatch(svc_server *s, struct MHD_Connection *c, struct req *r);
/* The answer to OPTIONS (CORS preflight and Allow). */
enum MHD_Result svc__handle_options(svc_server *s, struct MHD_Connection *c, struct req *r);
/* An RFC 9457 problem with `status`, titled by its `type` (api_problem_title),
 * or "about:blank" with the status's reason phrase when `type` is NULL;
 * `extra` (may be NULL) more headers, ending with {NULL, NULL}. */
enum MHD_Result svc__respond_problem(svc_server *s, struct MHD_Connection *c, struct req *r,
                                     int status, const char *type, const char *detail,
                                     const struct hdr *extra);

#endif
