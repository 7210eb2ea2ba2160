/* service/src/server.c -- the HTTP API on libmicrohttpd: one request, end to end
 * (docs/architecture.md draws the path).
 *
 * libmicrohttpd runs a pool of threads, each with its own epoll loop. For every
 * request the access handler is called first with the headers (a per-request
 * context is allocated; every check that needs no body happens here and may
 * answer at once, 413 on an announced Content-Length over the limit included),
 * then with each piece of the body (accumulated up to the limit), then once more
 * with none: the body is parsed strictly, validated against the schema compiled
 * from openapi.yaml, evaluated against the rule set the request took a reference
 * to, and serialised. The completion callback counts the request, writes its
 * access-log line and frees the context. This file holds those callbacks and
 * the server's start and stop; the routes, from dispatch to the response
 * queued, are server_routes.c's. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "api/convert.h"
#include "api/jsonw.h"
#include "api/problem.h"
#include "build_info.h"
#include "dc/embedded.h"
#include "dc/workload.h"
#include "dc/yaml.h"
#include "framing.h"
#include "etag.h"
#include "http.h"
#include "inventory.h"
#include "log.h"
#include "rulesrc.h"
#include "server_internal.h"
#include "server_request.h"

/* Connections accepted past max_connections, only to be answered 503: beyond
 * this margin new connections get a 503 from the acceptor and are closed at once
 * (server_conn.c). */
#define OVERFLOW_MARGIN(max) ((max) / 8 + 16)
/* libmicrohttpd's own connection limit, never reached (the acceptor's is). */
#define MHD_UNREACHED_LIMIT (1u << 30)
/* Connections of the admin listener: a few probes and scrapers at a time. At
 * the limit a new connection shuts down the one that has waited longest for a
 * request (server_conn.c), and a request must be in within
 * ADMIN_REQUEST_TIMEOUT_S, so slow or half-open clients cannot hold it. */
#define ADMIN_MAX_CONNECTIONS   64
#define ADMIN_REQUEST_TIMEOUT_S 5
/* Bytes of an oversized body read (and discarded) before the connection is
 * simply closed, so a 413 can usually be delivered without reading forever. */
#define DISCARD_FACTOR 4
/* Descriptors the server keeps for itself beside its connections (listener,
 * epoll and wake-up descriptors of every worker, rules files, inotify, probe). */
#define FD_RESERVE(threads) (64u + 4u * (threads))
/* How long a connection answered on its socket while libmicrohttpd cannot
 * finish its request stays open, so its client reads the answer before the
 * close (a close with unread input would be a reset). */
#define DIRECT_ANSWER_LINGER_MS 1000

static void request_abandoned(svc_server *s, struct req *r);

/* ---- libmicrohttpd callbacks ------------------------------------------------------- */

/* Hold `total` bytes of the buffered-body budget for r's body (what it holds
 * already counts). False when the budget cannot give them. */
static bool reserve_body(svc_server *s, struct req *r, size_t total)
{
    if (total <= r->body_reserved)
        return true;
    if (!budget_take(&s->metrics.body_bytes, total - r->body_reserved,
                     s->cfg.max_buffered_body_bytes)) {
        atomic_fetch_add_explicit(&s->metrics.body_budget_rejected, 1, memory_order_relaxed);
        return false;
    }
    r->body_reserved = total;
    return true;
}

/* 503: the buffered-body budget is spent. The body is not read: the connection
 * is closed after the answer. */
static enum MHD_Result respond_over_budget(svc_server *s, struct MHD_Connection *c, struct req *r)
{
    char detail[160];
    snprintf(detail, sizeof(detail),
             "the server holds its limit of %u bytes of request bodies; retry shortly",
             s->cfg.max_buffered_body_bytes);
    r->close = true;
    return svc__respond_problem(s, c, r, 503, API_PROBLEM_OVERLOADED, detail, retry_after);
}

/* No key set, or the request's bearer key is one of the current set. */
static bool authorized(svc_server *s, struct MHD_Connection *c)
{
    pthread_mutex_lock(&s->auth_mu);
    svc_auth *a = svc_auth_retain(s->auth);
    pthread_mutex_unlock(&s->auth_mu);
    if (a == NULL)
        return true;
    bool ok = svc_auth_check(
        a, MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION));
    svc_auth_release(a);
    return ok;
}

/* Checks that need only the headers. Returns true when it queued an answer. */
static bool early_answer(svc_server *s, struct MHD_Connection *c, struct req *r,
                         enum MHD_Result *res)
{
    char allow[64];
    if (r->over_limit) {
        *res = svc__respond_problem(s, c, r, 503, API_PROBLEM_OVERLOADED,
                                    "the server is at its connection limit; retry shortly",
                                    retry_after);
        return true;
    }
    if (r->route == SVC_ROUTE_UNMATCHED ||
        (r->admin && r->route != SVC_ROUTE_HEALTHZ && r->route != SVC_ROUTE_READYZ &&
         r->route != SVC_ROUTE_METRICS) ||
        (s->agent && r->route == SVC_ROUTE_READYZ)) {
        *res = svc__respond_problem(s, c, r, 404, NULL, "no such resource", NULL);
        return true;
    }
    if (r->method == SVC_METHOD_OPTIONS) {
        *res = svc__handle_options(s, c, r);
        return true;
    }
    if ((svc_route_methods(r->route) & SVC_METHOD_BIT(r->method)) == 0) {
        svc_route_allow(r->route, allow, sizeof(allow));
        const struct hdr h[] = {{MHD_HTTP_HEADER_ALLOW, allow}, {NULL, NULL}};
        char detail[96];
        snprintf(detail, sizeof(detail), "this resource supports %s", allow);
        *res = svc__respond_problem(s, c, r, 405, NULL, detail, h);
        return true;
    }
    if (svc_route_protected(r->route) && !authorized(s, c)) {
        const struct hdr h[] = {
            {MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"accel-advisor\""}, {NULL, NULL}};
        *res = svc__respond_problem(s, c, r, 401, API_PROBLEM_UNAUTHORIZED,
                                    "send a valid API key as Authorization: Bearer KEY", h);
        return true;
    }
    if (svc_route_needs_rules(r->route)) {
        r->rs = svc__rules_acquire(s);
        if (r->rs == NULL) {
            *res = svc__respond_problem(s, c, r, 503, API_PROBLEM_NOT_READY,
                                        "no rule set is loaded", retry_after);
            return true;
        }
    }
    if (r->method == SVC_METHOD_POST) {
        const char *ct =
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
        if (svc_content_type_classify(ct) != SVC_CTYPE_JSON) {
            *res = svc__respond_problem(s, c, r, 415, API_PROBLEM_UNSUPPORTED_MEDIA_TYPE,
                                        "send the body as Content-Type: application/json (UTF-8)",
                                        NULL);
            return true;
        }
        const char *cl =
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl != NULL) {
            char *end = NULL;
            errno = 0;
            unsigned long long n = strtoull(cl, &end, 10);
            if (errno != 0 || n > s->cfg.max_body_bytes) {
                char detail[96];
                snprintf(detail, sizeof(detail), "the body limit is %u bytes",
                         s->cfg.max_body_bytes);
                *res = svc__respond_problem(s, c, r, 413, API_PROBLEM_BODY_TOO_LARGE, detail, NULL);
                return true;
            }
            /* The announced body is reserved before a byte of it is read. */
            if (!reserve_body(s, r, (size_t)n + 1)) {
                *res = respond_over_budget(s, c, r);
                return true;
            }
        }
    }
    return false;
}

/* The request whose request line this worker thread has parsed and whose
 * headers libmicrohttpd has not yet passed to the access handler: if the library
 * refuses them itself, its log callback finds the request here. */
static _Thread_local struct req *parsing;

/* One header field line into the framing checks. libmicrohttpd keeps every field
 * line, duplicates included, in the order received. */
static enum MHD_Result framing_field(void *cls, enum MHD_ValueKind kind, const char *key,
                                     size_t key_size, const char *value, size_t value_size)
{
    (void)kind;
    svc_framing_field(cls, key, key_size, value != NULL ? value : "", value_size);
    return MHD_YES;
}

/* 0 when the request's framing is acceptable (framing.h), else its status (400,
 * 413, 501) with what is wrong in detail. `version` NULL: not known yet. `raw`:
 * the header section in the library's buffer, or NULL. */
static int framing_status(struct MHD_Connection *c, const char *version,
                          const struct svc_framing_raw *raw, char *detail, size_t len)
{
    struct svc_framing f;
    svc_framing_begin(&f, version, raw);
    MHD_get_connection_values_n(c, MHD_HEADER_KIND, framing_field, &f);
    int status = svc_framing_end(&f);
    snprintf(detail, len, "%s", f.detail);
    return status;
}

/* libmicrohttpd's URI log callback, called once the request line is parsed and
 * before the headers: the request's context starts here, with the request
 * target as received (the access handler only sees it percent-decoded, where
 * "/v1/rules%00" has become "/v1/rules"). */
static void *on_request_line(void *cls, const char *uri, struct MHD_Connection *c)
{
    svc_server *s = cls;
    struct svc_conn *conn = svc__conn_of(c);
    /* A request the library never reported completed is not left behind. */
    if (conn != NULL && conn->req != NULL)
        request_abandoned(s, conn->req);
    struct req *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return NULL;
    r->route = SVC_ROUTE_UNMATCHED;
    r->method = SVC_METHOD_OTHER;
    r->mhd = c;
    r->conn = conn;
    r->target_problem = svc_target_problem(uri);
    r->target = uri;
    r->target_len = uri != NULL ? strlen(uri) : 0;
    r->query_args = svc_target_query_args(uri, SVC_MAX_QUERY_ARGS);
    r->line_done = uri == NULL; /* the library decodes (on_unescape) only a target it has */
    if (conn != NULL)
        conn->req = r;
    parsing = r;
    return r;
}

/* libmicrohttpd's unescape callback, its own decoding: it decodes each query
 * argument and then the path, whose pointer is the target the request line
 * callback saw. Once it reaches the path, the arguments are stored: a refusal
 * of the library after that is not about them (refuse_for_library). */
static size_t on_unescape(void *cls, struct MHD_Connection *c, char *text)
{
    (void)cls;
    (void)c;
    if (parsing != NULL && text == parsing->target)
        parsing->line_done = true;
    return MHD_http_unescape(text);
}

/* Why the request line or the header section is refused: its status (0: it is
 * not), with the detail and the refusal's reason; its framing first, then its
 * target, then its query arguments. */
static int request_line_status(struct MHD_Connection *c, struct req *r, const char *method,
                               const char *version, char *detail, size_t len, enum svc_refusal *why)
{
    const union MHD_ConnectionInfo *hs =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    struct svc_framing_raw raw = {method, hs != NULL ? hs->header_size : 0, r->target,
                                  r->target_len, version};
    *why = SVC_REFUSED_FRAMING;
    int status = framing_status(c, version, hs != NULL ? &raw : NULL, detail, len);
    if (status == 0 && r->target_problem != NULL) {
        status = 400;
        snprintf(detail, len, "%s", r->target_problem);
    }
    if (status == 0 && r->query_args > SVC_MAX_QUERY_ARGS) {
        status = 414;
        *why = SVC_REFUSED_QUERY_ARGUMENTS;
        snprintf(detail, len, "the request target has more than %d query arguments",
                 SVC_MAX_QUERY_ARGS);
    }
    return status;
}

/* The first call, with the headers. The request's framing is checked before any
 * of its body is read: one that fails is answered 400 (or 501) and its
 * connection closed, so nothing sent after it is ever taken for a request.
 * libmicrohttpd closes the connection after a response queued in this call when
 * a body was announced, so a request without a body is answered in the final
 * call, keeping the connection alive; a request with a body is checked now, so a
 * 401, 413 or 415 is sent without reading a body that would be refused anyway. */
static enum MHD_Result begin_request(svc_server *s, struct MHD_Connection *c, struct req *r,
                                     const char *url, const char *method, const char *version)
{
    char detail[SVC_FRAMING_DETAIL_MAX];
    parsing = NULL;
    /* Counted in flight before the drain's flag is read, the drain after setting
     * it (both sequentially consistent): a request either is waited for or, once
     * the drain is over, never starts (its kept-alive connection is closed). */
    atomic_fetch_add(&s->metrics.inflight, 1);
    if (atomic_load(&s->drained)) {
        atomic_fetch_sub(&s->metrics.inflight, 1);
        return MHD_NO;
    }
    r->started = true;
    r->start_ns = now_ns();
    const char *path = svc_target_path(r->target, url);
    r->route = svc_route_match(path != NULL ? path : url);
    r->method = svc_method_parse(method);
    if (r->route == SVC_ROUTE_PLAYGROUND || r->route == SVC_ROUTE_ASSET) {
        r->asset = svc_playground_find(s->playground, path != NULL ? path : url);
        if (r->asset == NULL)
            r->route = SVC_ROUTE_UNMATCHED;
    }
    const char *id = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Request-Id");
    if (svc_request_id_valid(id))
        snprintf(r->id, sizeof(r->id), "%s", id);
    else
        svc_request_id_generate(r->id);
    svc__trace_from_request(c, r->id, &r->trace);
    r->origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
    r->cors = svc_cors_origin_allowed(s->cfg.cors_origins, r->origin);
    r->over_limit = r->conn == NULL || r->conn->over_limit;
    r->admin = r->conn != NULL && r->conn->listener->admin;
    enum svc_refusal why = SVC_REFUSED_FRAMING;
    int status = request_line_status(c, r, method, version, detail, sizeof(detail), &why);
    if (status == 0 && path == NULL) {
        status = 400;
        snprintf(detail, sizeof(detail),
                 "the absolute-form target's authority is not host[:port] (no user information "
                 "or percent-encoding)");
    }
    if (status != 0) {
        r->close = true;
        r->checked = true;
        svc_metrics_refused(&s->metrics, why);
        return svc__respond_problem(s, c, r, status, NULL, detail, NULL);
    }
    const char *cl =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    bool has_body =
        (cl != NULL && strcmp(cl, "0") != 0) ||
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL;
    enum MHD_Result res = MHD_YES;
    if (has_body) {
        r->checked = true;
        (void)early_answer(s, c, r, &res);
    }
    return res;
}

/* Answer `r` on its socket `fd` ourselves, with a problem of `status` and `type`
 * (NULL: about:blank) and `Connection: close`, and shut the sending side down:
 * for refusals at moments where libmicrohttpd cannot queue a response (while it
 * parses the request, or reads a body). */
static void answer_on_socket(struct req *r, int fd, int status, const char *type,
                             const char *detail)
{
    char head[384];
    if (r->id[0] == '\0')
        svc_request_id_generate(r->id);
    cJSON *problem = api_problem_new(status, type, NULL, detail, r->id);
    size_t len = 0;
    char *body = problem != NULL ? api_json_print(problem, 0, &len) : NULL;
    cJSON_Delete(problem);
    int hl = snprintf(head, sizeof(head),
                      "HTTP/1.1 %d %s\r\nConnection: close\r\nCache-Control: no-store\r\n"
                      "X-Request-Id: %s\r\nContent-Type: " API_PROBLEM_CONTENT_TYPE
                      "\r\nContent-Length: %zu\r\n\r\n",
                      status, api_http_reason(status), r->id, len);
    struct iovec iov[2] = {{head, (size_t)hl}, {body, len}};
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = body != NULL ? 2 : 1};
    (void)sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
    shutdown(fd, SHUT_WR);
    free(body);
    r->status = status;
    r->bytes = len;
    r->answered_direct = true;
}

/* Drop r's body and give its bytes back to the budget. */
static void drop_body(svc_server *s, struct req *r)
{
    free(r->body);
    r->body = NULL;
    r->body_len = r->body_cap = 0;
    budget_give(&s->metrics.body_bytes, &r->body_reserved);
}

/* A piece of the body: appended, within max_body_bytes and the buffered-body
 * budget (an announced body was reserved whole at its headers; a chunked one
 * takes its budget as it grows). A chunked body past max_body_bytes is answered
 * 413 at once, on the socket (the library queues no response while it reads a
 * body), and the rest is discarded; one past the budget is dropped and the rest
 * discarded, to be answered 503 at the end. */
static enum MHD_Result take_body(svc_server *s, struct MHD_Connection *c, struct req *r,
                                 const char *data, size_t n)
{
    if (r->too_large || r->over_budget) {
        r->discarded += n;
        /* Past this, stop reading: close rather than drain a hostile body. */
        return r->discarded > (size_t)s->cfg.max_body_bytes * DISCARD_FACTOR ? MHD_NO : MHD_YES;
    }
    if (n > s->cfg.max_body_bytes - r->body_len) {
        /* A chunked body (no Content-Length) grew past the limit. */
        r->too_large = true;
        r->discarded = r->body_len + n;
        drop_body(s, r);
        const union MHD_ConnectionInfo *fd =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (fd != NULL) {
            char detail[96];
            snprintf(detail, sizeof(detail), "the body limit is %u bytes", s->cfg.max_body_bytes);
            svc_metrics_refused(&s->metrics, SVC_REFUSED_BODY_TOO_LARGE);
            answer_on_socket(r, fd->connect_fd, 413, API_PROBLEM_BODY_TOO_LARGE, detail);
        }
        return MHD_YES;
    }
    if (r->body_len + n + 1 > r->body_cap) {
        size_t cap = r->body_cap > 0 ? r->body_cap : 4096;
        while (cap < r->body_len + n + 1)
            cap *= 2;
        if (cap > (size_t)s->cfg.max_body_bytes + 1)
            cap = (size_t)s->cfg.max_body_bytes + 1;
        if (r->body_reserved > cap)
            cap = r->body_reserved; /* the announced length: one allocation */
        if (!reserve_body(s, r, cap)) {
            r->over_budget = true;
            r->discarded = r->body_len + n;
            drop_body(s, r);
            return MHD_YES;
        }
        char *b = realloc(r->body, cap);
        if (b == NULL)
            return MHD_NO;
        r->body = b;
        r->body_cap = cap;
    }
    memcpy(r->body + r->body_len, data, n);
    r->body_len += n;
    r->body[r->body_len] = '\0';
    return MHD_YES;
}

/* Counts trailer fields, an empty name included. */
static enum MHD_Result count_field(void *cls, enum MHD_ValueKind kind, const char *key,
                                   size_t key_size, const char *value, size_t value_size)
{
    (void)kind;
    (void)key;
    (void)key_size;
    (void)value;
    (void)value_size;
    (*(size_t *)cls)++;
    return MHD_YES;
}

/* A chunked body's trailer section held fields. libmicrohttpd 0.9.75 reads it
 * with the header section's line reader, which takes a line with an empty field
 * name (": v") for the section's end: what followed was read, and served, as the
 * next request. Nothing the server serves reads a trailer field (RFC 9112
 * section 7.1.2 lets a recipient discard them), so rather than repeat the header
 * section's checks on a buffer the library has moved past, a body with any is
 * refused and its connection closed. */
static bool has_trailers(struct MHD_Connection *c)
{
    size_t n = 0;
    MHD_get_connection_values_n(c, MHD_FOOTER_KIND, count_field, &n);
    return n > 0;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
    svc_server *s = cls;
    struct req *r = *req_cls;
    if (r == NULL)
        return MHD_NO; /* out of memory at its request line */
    if (!r->started)
        return begin_request(s, c, r, url, method, version);
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        return take_body(s, c, r, upload_data, n);
    }
    if (r->answered_direct)
        return MHD_NO; /* answered on the socket: close */
    if (r->status != 0)
        return MHD_YES; /* already answered */
    svc__conn_received(r->conn);
    if (has_trailers(c)) {
        r->close = true;
        svc_metrics_refused(&s->metrics, SVC_REFUSED_FRAMING);
        return svc__respond_problem(
            s, c, r, 400, NULL,
            "the chunked body has trailer fields, which the server does not accept", NULL);
    }
    if (!r->checked) {
        enum MHD_Result res = MHD_YES;
        r->checked = true;
        if (early_answer(s, c, r, &res))
            return res;
    }
    if (r->over_budget)
        return respond_over_budget(s, c, r);
    if (r->too_large) {
        char detail[96];
        snprintf(detail, sizeof(detail), "the body limit is %u bytes", s->cfg.max_body_bytes);
        return svc__respond_problem(s, c, r, 413, API_PROBLEM_BODY_TOO_LARGE, detail, NULL);
    }
    return svc__dispatch(s, c, r);
}

static const char *termination_name(enum MHD_RequestTerminationCode toe)
{
    switch (toe) {
    case MHD_REQUEST_TERMINATED_COMPLETED_OK:
        return "completed";
    case MHD_REQUEST_TERMINATED_WITH_ERROR:
        return "error";
    case MHD_REQUEST_TERMINATED_TIMEOUT_REACHED:
        return "timeout";
    case MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN:
        return "shutdown";
    case MHD_REQUEST_TERMINATED_READ_ERROR:
        return "read_error";
    case MHD_REQUEST_TERMINATED_CLIENT_ABORT:
        return "client_abort";
    }
    return "unknown";
}

/* The end of a request, however it ended: its metrics and access-log line (an
 * `outcome` other than NULL says it did not complete), the references and the
 * budgets it held, its context. */
static void finish_request(svc_server *s, struct req *r, struct svc_conn *conn, const char *outcome)
{
    if (parsing == r)
        parsing = NULL;
    if (conn != NULL && conn->req == r)
        conn->req = NULL;
    uint64_t dur = r->start_ns != 0 ? now_ns() - r->start_ns : 0;
    if (r->status != 0)
        svc_metrics_observe(&s->metrics, r->route, r->method, r->status, dur);
    /* A request line the library refused the headers of is logged only when the
     * server answered it (see refuse_for_library). */
    if (s->cfg.access_log && (r->started || r->status != 0)) {
        struct svc_log_line l;
        svc_log_begin(&l, "info", "request");
        svc_log_str(&l, "request_id", r->id);
        svc_log_str(&l, "trace_id", r->trace.trace_id);
        svc_log_str(&l, "span_id", r->trace.span_id);
        if (r->trace.parent_id[0] != '\0')
            svc_log_str(&l, "parent_span_id", r->trace.parent_id);
        svc_log_str(&l, "method", svc_method_label(r->method));
        svc_log_str(&l, "route", svc_route_label(r->route));
        svc_log_int(&l, "status", r->status);
        svc_log_num(&l, "duration_ms", (double)dur / 1e6);
        svc_log_uint(&l, "bytes", r->bytes);
        if (conn != NULL && atomic_load(&conn->cut) && !atomic_load(&conn->answered))
            svc_log_str(&l, "outcome", "request_timeout");
        else if (outcome != NULL)
            svc_log_str(&l, "outcome", outcome);
        svc_log_end_msg_words(&l, svc_method_label(r->method), svc_route_label(r->route),
                              r->status);
    }
    dc_ruleset_release(r->rs);
    drop_body(s, r);
    budget_give(&s->metrics.response_bytes, &r->resp_reserved);
    if (r->started)
        atomic_fetch_sub_explicit(&s->metrics.inflight, 1, memory_order_relaxed);
    free(r);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    svc_server *s = cls;
    struct req *r = *req_cls;
    if (r == NULL)
        return;
    struct svc_conn *conn = svc__conn_of(c);
    svc__conn_next(conn);
    finish_request(s, r, conn,
                   toe != MHD_REQUEST_TERMINATED_COMPLETED_OK ? termination_name(toe) : NULL);
    *req_cls = NULL;
}

/* The connection closed with `r` never reported completed (libmicrohttpd
 * dropped it on one of its own error paths): log, count and free it. */
static void request_abandoned(svc_server *s, struct req *r)
{
    finish_request(s, r, r->conn, "abandoned");
}

/* libmicrohttpd's connection callback: a request the closing connection still
 * holds is finished here, where requests are, before the registry of
 * server_conn.c forgets the connection (so that module never calls back into
 * this one). `cls` is the listener. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    const struct svc_listener *l = cls;
    struct svc_conn *conn = *socket_context;
    if (toe == MHD_CONNECTION_NOTIFY_CLOSED && conn != NULL && conn->req != NULL)
        request_abandoned(l->s, conn->req);
    svc__conn_notify(cls, c, socket_context, toe);
}

/* libmicrohttpd's own messages: `fmt` is its printf format (declared so, for
 * -Wformat-nonliteral under clang). */
static void on_mhd_log(void *cls, const char *fmt, va_list ap) DC_PRINTF(2, 0);

/* Why the library refuses the request whose request line `r` holds, from what
 * it has stored so far: the status, with `detail` and the reason set; 0 when it
 * is not a refusal the server answers. `parsing` may name a request whose
 * headers are still coming while the library logs about another connection of
 * the thread: both cases answered are certain to be r's, as the library refuses
 * them in the same call that stored r's request line or its last header. */
static int library_refusal(struct MHD_Connection *c, const struct req *r, char *detail, size_t len,
                           enum svc_refusal *why)
{
    if (!r->line_done) {
        /* Its per-connection memory ran out storing the query arguments (it
         * then answered nothing, and left the connection waiting). */
        *why = SVC_REFUSED_QUERY_ARGUMENTS;
        snprintf(detail, len,
                 "the request target's %s%zu query arguments do not fit the server's buffer (at "
                 "most %d are accepted)",
                 r->query_args > SVC_MAX_QUERY_ARGS ? "more than " : "",
                 r->query_args > SVC_MAX_QUERY_ARGS ? (size_t)SVC_MAX_QUERY_ARGS : r->query_args,
                 SVC_MAX_QUERY_ARGS);
        return 414;
    }
    /* Headers not all in: header fields its buffer cannot hold, which it answers
     * 431 itself, once; or a message about another connection. */
    if (MHD_get_connection_info(c, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE) == NULL)
        return 0;
    *why = SVC_REFUSED_FRAMING;
    int status = framing_status(c, NULL, NULL, detail, len);
    if (status != 0)
        return status;
    /* At MHD_OPTION_STRICT_FOR_CLIENT 1 an HTTP/1.1 request without Host: the
     * library refuses none on HTTP/1.0 for it, and nothing else at this moment
     * but a Cookie field its buffer cannot copy. */
    if (MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST) == NULL) {
        snprintf(detail, len, "an HTTP/1.1 request needs a Host field");
        return 400;
    }
    *why = SVC_REFUSED_HEADER_FIELDS;
    snprintf(detail, len,
             "the Cookie field does not fit the server's buffer for a request's header");
    return 431;
}

/* libmicrohttpd 0.9.75 refuses some requests itself before the access handler
 * sees them: once the headers are in, a Content-Length that is not a number
 * (400) or past 64 bits (413), an HTTP/1.1 request without Host (400) and a
 * Cookie field its per-connection buffer cannot copy (431), where it writes its
 * error's status line and headers twice (its state machine builds the reply
 * again after queueing it); and before the headers, query arguments its
 * per-connection memory cannot store, where it answered nothing at all and
 * dropped the request's context (header fields it cannot store it answers 431
 * itself, once). It logs the refusal on the worker thread before anything is
 * sent: the server then writes its own single answer, naming what is wrong, and
 * shuts its side of the socket down, so the library's reply can no longer be
 * sent and it closes the connection. */
static void refuse_for_library(svc_server *s)
{
    struct req *r = parsing;
    if (r == NULL)
        return;
    /* Only while no reply is queued: the library is refusing the request now. */
    struct MHD_Connection *c = r->mhd;
    const union MHD_ConnectionInfo *fd =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (fd == NULL || MHD_get_connection_info(c, MHD_CONNECTION_INFO_HTTP_STATUS) != NULL)
        return;
    char detail[SVC_FRAMING_DETAIL_MAX];
    enum svc_refusal why = SVC_REFUSED_FRAMING;
    int status = library_refusal(c, r, detail, sizeof(detail), &why);
    if (status == 0)
        return;
    parsing = NULL;
    svc_metrics_refused(&s->metrics, why);
    answer_on_socket(r, fd->connect_fd, status, NULL, detail);
    /* Past query arguments the library waits for nothing more and never closes
     * the connection before its idle timeout: the reaper does, after a linger. */
    if (!r->line_done)
        svc__conn_linger(r->conn, DIRECT_ANSWER_LINGER_MS);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    char msg[512];
    refuse_for_library(cls);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    svc_log_msg("warn", "libmicrohttpd", "%s", msg);
}

/* ---- start and stop ------------------------------------------------------------------ */

static enum dc_status load_contract(svc_server *s, struct dc_error *err)
{
    struct dc_error detail;
    dc_error_clear(&detail);
    enum dc_status rc;
    if (s->cfg.openapi_file[0] == '\0') {
        rc = api_contract_load_embedded(aa_embedded_files, &s->contract, &detail);
    } else {
        char *text = NULL;
        size_t n = 0;
        rc = svc_read_regular_file(s->cfg.openapi_file, DC_YAML_MAX_BYTES, &text, &n, &detail);
        if (rc != DC_OK)
            return dc_error_set(err, rc, NULL, "openapi_file %s", detail.msg);
        rc = api_contract_load(text, n, s->cfg.openapi_file, &s->contract, &detail);
        free(text);
    }
    if (rc != DC_OK)
        return dc_error_set(err, rc, NULL, "the contract does not load: %s%s%s", detail.where,
                            detail.where[0] != '\0' ? ": " : "", detail.msg);
    size_t len = 0;
    const char *yaml = api_contract_yaml(s->contract, &len);
    if (svc_etag_digest(yaml, len, s->contract_digest) != DC_OK)
        return dc_error_set(err, DC_ENOMEM, NULL, "the contract's digest: out of memory");
    rc = api_contract_query_params(s->contract, "/v1/accelerators", "get", &s->accelerator_params,
                                   &detail);
    if (rc != DC_OK)
        return dc_error_set(err, rc, NULL, "the contract's GET /v1/accelerators: %s", detail.msg);
    rc = api_contract_query_params(s->contract, "/v1/recommendations", "post", &s->recommend_params,
                                   &detail);
    if (rc != DC_OK)
        return dc_error_set(err, rc, NULL, "the contract's POST /v1/recommendations: %s",
                            detail.msg);
    return DC_OK;
}

/* Every connection is a descriptor. Raise the soft RLIMIT_NOFILE to the hard limit
 * (the soft default is often 1024; nginx's worker_rlimit_nofile and Go's runtime
 * do the same), and when even that cannot hold max_connections, its overflow
 * margin and the server's own descriptors, lower max_connections to what fits and
 * say so: a connection past the descriptor limit would fail in accept() instead of
 * getting its 503. */
static void fit_descriptor_limit(svc_server *s)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    if (rl.rlim_cur < rl.rlim_max) {
        struct rlimit raised = {rl.rlim_max, rl.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            rl = raised;
    }
    unsigned want = s->cfg.max_connections;
    rlim_t reserve = FD_RESERVE(s->threads) +
                     (s->cfg.admin_listen[0] != '\0'
                          ? ADMIN_MAX_CONNECTIONS + OVERFLOW_MARGIN(ADMIN_MAX_CONNECTIONS)
                          : 0);
    rlim_t need = (rlim_t)want + OVERFLOW_MARGIN(want) + reserve;
    if (rl.rlim_cur == RLIM_INFINITY || need <= rl.rlim_cur)
        return;
    unsigned fit =
        rl.rlim_cur > reserve + 17 ? (unsigned)((rl.rlim_cur - reserve - 16) * 8 / 9) : 1;
    while (fit > 1 && (rlim_t)fit + OVERFLOW_MARGIN(fit) + reserve > rl.rlim_cur)
        fit--;
    s->cfg.max_connections = fit < want ? fit : want;
    svc_log_msg("warn", "config",
                "max_connections %u needs %llu file descriptors but RLIMIT_NOFILE is %llu "
                "(hard limit %llu): serving at most %u connections",
                want, (unsigned long long)need, (unsigned long long)rl.rlim_cur,
                (unsigned long long)rl.rlim_max, s->cfg.max_connections);
}

/* A daemon for listener `l` on `threads` epoll threads. It has no listening
 * socket of its own: the acceptor hands it connections and enforces the
 * listener's hard limit; the daemon's own limit is set out of reach
 * (server_conn.c says why it must never be reached). The admin listener's
 * connections are idle-closed and cut at ADMIN_REQUEST_TIMEOUT_S.
 *
 * MHD_OPTION_STRICT_FOR_CLIENT 1 is the strictest discipline libmicrohttpd
 * 0.9.75 has: it closes, without an answer, a connection whose request target
 * holds a space, and refuses an HTTP/1.1 request without Host (answered by
 * refuse_for_library). Its level -1 instead refuses whitespace before a field's
 * colon, which the framing checks refuse anyway, with a 400 that says so. */
static int start_daemon(svc_server *s, struct svc_listener *l, unsigned threads)
{
    unsigned flags =
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG | MHD_USE_NO_LISTEN_SOCKET;
    l->hard_limit = l->limit + OVERFLOW_MARGIN(l->limit);
    /* The agent's are its settings (5 s by default, config.c). */
    bool fixed = l->admin && !s->agent;
    l->request_timeout_s = fixed ? ADMIN_REQUEST_TIMEOUT_S : s->cfg.request_timeout_s;
    unsigned idle_s = fixed ? ADMIN_REQUEST_TIMEOUT_S : s->cfg.connection_timeout_s;
    l->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, s, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, s,
        MHD_OPTION_URI_LOG_CALLBACK, on_request_line, s, MHD_OPTION_UNESCAPE_CALLBACK, on_unescape,
        s, MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_CONNECTION_LIMIT, MHD_UNREACHED_LIMIT, MHD_OPTION_CONNECTION_TIMEOUT, idle_s,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_NOTIFY_CONNECTION, on_connection,
        l, MHD_OPTION_END);
    return l->daemon != NULL ? 0 : -1;
}

svc_server *svc__server_new(const struct svc_config *cfg)
{
    svc_server *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->cfg = *cfg;
    /* The node label of the probe's device series: the host's name by default. */
    if (s->cfg.node_name[0] == '\0' &&
        gethostname(s->cfg.node_name, sizeof(s->cfg.node_name) - 1) != 0)
        snprintf(s->cfg.node_name, sizeof(s->cfg.node_name), "unknown");
    s->watch_stop[0] = s->watch_stop[1] = -1;
    s->accept_wake[0] = s->accept_wake[1] = -1;
    s->spare_fd = -1;
    struct svc_listener *ls[2] = {&s->api, &s->admin};
    for (size_t i = 0; i < 2; i++) {
        ls[i]->s = s;
        ls[i]->admin = i == 1;
        atomic_init(&ls[i]->fd, -1);
        atomic_init(&ls[i]->open, 0);
        atomic_init(&ls[i]->pending, 0);
        atomic_init(&ls[i]->handed, false);
    }
    svc_metrics_init(&s->metrics);
    pthread_mutex_init(&s->rs_mu, NULL);
    pthread_mutex_init(&s->reload_mu, NULL);
    pthread_mutex_init(&s->probe_mu, NULL);
    pthread_mutex_init(&s->auth_mu, NULL);
    pthread_mutex_init(&s->conns_mu, NULL);
    atomic_init(&s->draining, false);
    atomic_init(&s->drained, false);
    snprintf(s->mhd_version, sizeof(s->mhd_version), "%s", MHD_get_version());
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    s->threads = cfg->threads > 0 ? cfg->threads : (unsigned)(cpus > 0 ? cpus : 1);
    if (s->threads > SVC_MAX_THREADS)
        s->threads = SVC_MAX_THREADS;
    return s;
}

/* Everything svc_server_start does before the daemons and threads start. */
static enum dc_status prepare(svc_server *s, struct dc_error *err)
{
    const struct svc_config *cfg = &s->cfg;
    enum dc_status rc = load_contract(s, err);
    if (rc != DC_OK)
        return rc;
    s->playground = svc_playground_new(aa_embedded_files);
    if (s->playground == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    if (cfg->api_keys_file[0] != '\0') {
        struct dc_error aerr;
        rc = svc_auth_load(cfg->api_keys_file, &s->auth, &aerr);
        if (rc != DC_OK)
            return dc_error_set(err, rc, NULL, "api_keys_file: %s", aerr.msg);
    }
    if (cfg->cache_entries > 0 && cfg->cache_max_bytes > 0) {
        s->cache = svc_cache_new(cfg->cache_entries, cfg->cache_max_bytes);
        if (s->cache == NULL)
            return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    }
    rc = svc__rules_initial(s, err);
    if (rc == DC_OK)
        rc = svc__rules_start_probe(s, err);
    if (rc == DC_OK)
        rc = svc__fleet_start(s, err);
    if (rc == DC_OK)
        rc = svc__listen(&s->api, cfg->listen, err);
    if (rc == DC_OK && cfg->admin_listen[0] != '\0')
        rc = svc__listen(&s->admin, cfg->admin_listen, err);
    return rc;
}

enum dc_status svc_server_start(const struct svc_config *cfg, svc_server **out,
                                struct dc_error *err)
{
    *out = NULL;
    svc_server *s = svc__server_new(cfg);
    if (s == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    enum dc_status rc = prepare(s, err);
    if (rc != DC_OK)
        goto fail;
    fit_descriptor_limit(s);
    s->api.limit = s->cfg.max_connections;
    s->admin.limit = ADMIN_MAX_CONNECTIONS;
    if (start_daemon(s, &s->api, s->threads) != 0 ||
        (atomic_load(&s->admin.fd) >= 0 && start_daemon(s, &s->admin, 1) != 0)) {
        rc = dc_error_set(err, DC_EIO, NULL, "libmicrohttpd did not start on %s",
                          s->api.daemon == NULL ? cfg->listen : cfg->admin_listen);
        goto fail;
    }
    s->daemon = s->api.daemon;
    rc = svc__conns_start(s, err);
    if (rc == DC_OK)
        rc = svc__watch_start(s, err);
    if (rc != DC_OK)
        goto fail;
    dc_ruleset *rs = svc__rules_acquire(s);
    struct svc_log_line l;
    svc_log_begin(&l, "info", "listening");
    svc_log_str(&l, "listen", cfg->listen);
    svc_log_uint(&l, "port", s->api.port);
    if (atomic_load(&s->admin.fd) >= 0) {
        svc_log_str(&l, "admin_listen", cfg->admin_listen);
        svc_log_uint(&l, "admin_port", s->admin.port);
    }
    svc_log_uint(&l, "threads", s->threads);
    svc_log_str(&l, "rules_version", dc_ruleset_version(rs));
    svc_log_str(&l, "rules_origin", dc_ruleset_origin(rs));
    svc_log_str(&l, "contract_version", api_contract_version(s->contract));
    svc_log_bool(&l, "auth", s->auth != NULL);
    svc_log_bool(&l, "cors", cfg->cors_origins[0] != '\0');
    svc_log_bool(&l, "probe", cfg->probe);
    svc_log_bool(&l, "fleet", s->fleet != NULL);
    svc_log_str(&l, "version", AA_VERSION);
    svc_log_str(&l, "libmicrohttpd", s->mhd_version);
    svc_log_end_msg(&l, "listening on %s (port %u)", cfg->listen, (unsigned)s->api.port);
    dc_ruleset_release(rs);
    *out = s;
    return DC_OK;
fail:
    svc_server_free(s);
    return rc;
}

enum dc_status svc__agent_listen(svc_server *s, struct dc_error *err)
{
    s->agent = true;
    enum dc_status rc = svc__listen(&s->api, s->cfg.listen, err);
    if (rc == DC_OK && s->cfg.admin_listen[0] != '\0')
        rc = svc__listen(&s->admin, s->cfg.admin_listen, err);
    if (rc != DC_OK)
        return rc;
    /* The metrics port is held as the admin listener is: it too serves only
     * probes and scrapes, and 32 idle clients used to silence it. */
    s->api.admin = true;
    s->api.limit = s->admin.limit = ADMIN_MAX_CONNECTIONS;
    if (start_daemon(s, &s->api, 1) != 0 ||
        (atomic_load(&s->admin.fd) >= 0 && start_daemon(s, &s->admin, 1) != 0))
        return dc_error_set(err, DC_EIO, NULL, "libmicrohttpd did not start on %.200s",
                            s->api.daemon == NULL ? s->cfg.listen : s->cfg.admin_listen);
    s->daemon = s->api.daemon;
    return svc__conns_start(s, err);
}

long svc_server_drain(svc_server *s)
{
    atomic_store(&s->draining, true);
    svc__conns_close_api(s); /* the admin listener keeps answering /readyz (503) */
    long inflight = (long)atomic_load(&s->metrics.inflight);
    struct svc_log_line l;
    svc_log_begin(&l, "info", "draining");
    svc_log_int(&l, "inflight", inflight);
    svc_log_uint(&l, "grace_s", s->cfg.shutdown_grace_s);
    svc_log_end_msg(&l, "draining: %ld request%s in flight, %u s grace", inflight,
                    inflight == 1 ? "" : "s", s->cfg.shutdown_grace_s);
    uint64_t deadline = now_ns() + (uint64_t)s->cfg.shutdown_grace_s * 1000000000ull;
    for (int pass = 0; pass < 2; pass++) {
        while ((inflight = (long)atomic_load(&s->metrics.inflight)) > 0 && now_ns() < deadline) {
            struct timespec ts = {0, 5 * 1000000L};
            nanosleep(&ts, NULL);
        }
        /* A request on a kept-alive connection may have started after the first
         * look: once none runs, none may start, and those that did are waited for. */
        atomic_store(&s->drained, true);
    }
    svc_log_begin(&l, inflight == 0 ? "info" : "warn", "drained");
    svc_log_int(&l, "inflight", inflight);
    svc_log_end_msg(&l, "drained: %ld request%s still in flight", inflight,
                    inflight == 1 ? "" : "s");
    return inflight;
}

void svc_server_free(svc_server *s)
{
    if (s == NULL)
        return;
    svc__watch_stop(s);
    svc__conns_stop(s); /* no new connection reaches the daemons */
    if (s->api.daemon != NULL)
        MHD_stop_daemon(s->api.daemon);
    if (s->admin.daemon != NULL)
        MHD_stop_daemon(s->admin.daemon);
    svc__fleet_stop(s);
    svc__probe_stop(s);
    svc__rules_clear(s);
    api_query_params_cleanup(&s->accelerator_params);
    api_query_params_cleanup(&s->recommend_params);
    api_contract_free(s->contract);
    svc_playground_free(s->playground);
    svc_auth_release(s->auth);
    svc_cache_free(s->cache);
    pthread_mutex_destroy(&s->rs_mu);
    pthread_mutex_destroy(&s->reload_mu);
    pthread_mutex_destroy(&s->probe_mu);
    pthread_mutex_destroy(&s->auth_mu);
    pthread_mutex_destroy(&s->conns_mu);
    free(s);
}
