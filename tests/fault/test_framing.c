/* tests/fault/test_framing.c -- request smuggling: every framing vector of the
 * issue and of RFC 9112's security considerations (section 11: request
 * smuggling, response splitting) sent on one connection, each followed by a
 * second request. The server must answer the first with exactly one response,
 * 400 (501 for a transfer coding it does not decode, 413 for a length past 64
 * bits, 431 for a Cookie the library cannot copy), close the connection, and
 * never serve the follow-up: its request id never appears in the access log.
 *
 * Bare LF line ends and obs-fold lines are not visible as such through
 * libmicrohttpd 0.9.75 (docs/operations.md, "Request framing"); the last tests
 * pin down how the server reads them and that no framing field can hide in them.
 * What the library hides (a line it takes for the end of the header section, a
 * NUL byte that cuts a value, a fold that completes a field name) is refused by
 * the server from the header section as it lies in the library's buffer: one
 * test per vector, each with a request hidden after it that must never be
 * served. A request line the library closes itself at its strictest level (a
 * space in the target) gets no answer, and nothing after it is served.
 *
 * usage: fault_framing ACCEL_ADVISOR_BINARY SOURCE_DIR */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "harness.h"
#include "rawhttp.h"

#define READ_MS 60000 /* a refusal is immediate; this only bounds a hang */

static struct server srv;
static long fds_at_start; /* the server's descriptors before any vector (/proc) */
static int smuggled;      /* follow-up requests sent so far: smuggled-1, smuggled-2, ... */

/* What came back on one connection: every byte until the server closed it. */
struct reply {
    char buf[16384];
    size_t len;
    bool closed;
    size_t heads; /* status lines in it */
};

static void read_all(struct rh_conn *c, struct reply *out)
{
    out->len = rh_read_to_close(c, out->buf, sizeof(out->buf), READ_MS, &out->closed);
    out->heads = rh_status_lines(out->buf);
}

/* Send the `len` bytes of `first` (a request, body included), then a follow-up
 * GET on the same connection; read every byte until the server closes. The
 * follow-up must never be served: its request id never reaches the access log. */
static void send_with_follow_up(const char *what, const char *first, size_t len, struct reply *r)
{
    char follow[160], id[32];
    snprintf(id, sizeof(id), "smuggled-%d", ++smuggled);
    snprintf(follow, sizeof(follow),
             "GET /v1/rules HTTP/1.1\r\nHost: x\r\nX-Request-Id: %s\r\n\r\n", id);
    struct rh_buf req = {0};
    assert_true(rh_buf_add(&req, first, len) && rh_buf_str(&req, follow));
    struct rh_conn c;
    rh_init(&c, srv.port);
    assert_int_equal(rh_connect(&c), RH_OK);
    (void)rh_send(&c, req.p, req.len);
    read_all(&c, r);
    rh_free(&c);
    rh_buf_free(&req);
    fprintf(stderr, "%-44s %.*s, %zu status line%s, %s\n", what, (int)strcspn(r->buf, "\r"), r->buf,
            r->heads, r->heads == 1 ? "" : "s", r->closed ? "closed" : "left open");
    /* The server logs a request before it answers the next on a connection, and
     * the follow-up is the last: once the connection is closed, its line would
     * be in. */
    assert_true(server_log_wait(&srv, 0, "\"event\":\"request\"", READ_MS));
    if (server_log_find(&srv, 0, id, NULL))
        fail_msg("%s: the follow-up request %s was served", what, id);
}

/* `first` (`len` bytes, NUL bytes allowed) must get one `status` answer, a
 * problem, and the connection closed; the follow-up is never served. */
static void expect_refused_n(const char *what, const char *first, size_t len, int status)
{
    char want[32];
    struct reply r;
    send_with_follow_up(what, first, len, &r);
    snprintf(want, sizeof(want), "HTTP/1.1 %d ", status);
    if (strncmp(r.buf, want, strlen(want)) != 0 || r.heads != 1 || !r.closed)
        fail_msg("%s: want one %d and the connection closed; got %zu bytes: %s", what, status,
                 r.len, r.buf);
    /* The answer is a problem naming what is wrong, with a request id. */
    const char *json = strstr(r.buf, "\r\n\r\n");
    assert_non_null(json);
    cJSON *p = cJSON_Parse(json + 4);
    if (p == NULL || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(p, "detail")) ||
        cJSON_GetObjectItemCaseSensitive(p, "status")->valueint != status)
        fail_msg("%s: not a problem: %s", what, json + 4);
    cJSON_Delete(p);
}

/* Send `head` (the request line and fields of the first request, up to and
 * including its blank line), `body`, then a follow-up GET on the same
 * connection; expect one `status` answer, the connection closed, and the
 * follow-up never served. */
static void expect_refused(const char *what, const char *head, const char *body, int status)
{
    struct rh_buf first = {0};
    assert_true(rh_buf_str(&first, head) && rh_buf_str(&first, body));
    expect_refused_n(what, first.p, first.len, status);
    rh_buf_free(&first);
}

/* `first` must get no answer at all, the connection closed by the server, and
 * the follow-up never served. */
static void expect_closed(const char *what, const char *first)
{
    struct reply r;
    send_with_follow_up(what, first, strlen(first), &r);
    if (r.len != 0 || !r.closed)
        fail_msg("%s: want the connection closed without an answer; got %zu bytes: %s", what, r.len,
                 r.buf);
}

#define POST     "POST /v1/recommendations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
#define WORKLOAD "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}}"

/* The issue's vectors, one by one. */
static void test_issue_vectors(void **state)
{
    (void)state;
    /* Two Content-Lengths: the first covers "{}", the second the follow-up. */
    expect_refused("Content-Length twice", POST "Content-Length: 2\r\nContent-Length: 93\r\n\r\n",
                   "{}", 400);
    expect_refused("Content-Length twice, equal",
                   POST "Content-Length: 2\r\nContent-Length: 2\r\n\r\n", "{}", 400);
    expect_refused("Content-Length with Transfer-Encoding",
                   POST "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", "0\r\n\r\n",
                   400);
    expect_refused("Transfer-Encoding with Content-Length",
                   POST "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", "0\r\n\r\n",
                   400);
    expect_refused("whitespace before the colon", POST "Transfer-Encoding : chunked\r\n\r\n",
                   "2\r\n{}\r\n0\r\n\r\n", 400);
    expect_refused("tab before the colon", POST "Content-Length\t: 2\r\n\r\n", "{}", 400);
    expect_refused("chunked on HTTP/1.0 with keep-alive",
                   "POST /v1/recommendations HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n"
                   "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                   "2\r\n{}\r\n0\r\n\r\n", 400);
    expect_refused("gzip, chunked (answered, not a 30 s hang)",
                   POST "Transfer-Encoding: gzip, chunked\r\n\r\n", "2\r\n{}\r\n0\r\n\r\n", 501);
    static const char *const bad_lengths[] = {"48, 48", "-1", "+48", "0x30", "abc", "4 8"};
    for (size_t i = 0; i < sizeof(bad_lengths) / sizeof(bad_lengths[0]); i++) {
        char head[256], what[64];
        snprintf(head, sizeof(head), POST "Content-Length: %s\r\n\r\n", bad_lengths[i]);
        snprintf(what, sizeof(what), "Content-Length: %s", bad_lengths[i]);
        expect_refused(what, head, WORKLOAD, 400);
    }
    expect_refused("Content-Length past 64 bits",
                   POST "Content-Length: 99999999999999999999\r\n\r\n", WORKLOAD, 413);
    expect_refused("no Host on HTTP/1.1", "GET /healthz HTTP/1.1\r\nX-A: b\r\n\r\n", "", 400);
    expect_refused("two Hosts", "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "", 400);
    expect_refused("a Host that is not host:port", "GET /healthz HTTP/1.1\r\nHost: a b@c\r\n\r\n",
                   "", 400);
}

/* More from RFC 9112 section 11 and the transfer-coding rules of section 6. */
static void test_rfc9112_vectors(void **state)
{
    (void)state;
    static const struct {
        const char *what, *te;
        int status;
    } codings[] = {
        {"chunked twice in one field", "chunked, chunked", 400},
        {"chunked with a trailing space", "chunked ", 400},
        {"chunked with a parameter", "chunked;ext=1", 400},
        {"chunked after an empty element", ",chunked", 400},
        {"an empty Transfer-Encoding", "", 400},
        {"identity", "identity", 501},
        {"chunked, identity", "chunked, identity", 501},
        {"xchunked", "xchunked", 501},
        {"gzip", "gzip", 501},
        {"a quoted chunked", "\"chunked\"", 501},
    };
    for (size_t i = 0; i < sizeof(codings) / sizeof(codings[0]); i++) {
        char head[256];
        snprintf(head, sizeof(head), POST "Transfer-Encoding: %s\r\n\r\n", codings[i].te);
        expect_refused(codings[i].what, head, "2\r\n{}\r\n0\r\n\r\n", codings[i].status);
    }
    expect_refused("Transfer-Encoding in two fields",
                   POST "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
                   "2\r\n{}\r\n0\r\n\r\n", 400);
    expect_refused("gzip, then chunked in a second field",
                   POST "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n",
                   "2\r\n{}\r\n0\r\n\r\n", 501);
    expect_refused("chunked on HTTP/1.0",
                   "POST /v1/recommendations HTTP/1.0\r\n"
                   "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                   "2\r\n{}\r\n0\r\n\r\n", 400);
    expect_refused("Content-Length with trailing whitespace", POST "Content-Length: 2 \r\n\r\n",
                   "{}", 400);
    expect_refused("an empty Content-Length", POST "Content-Length: \r\n\r\n", "{}", 400);
    expect_refused("a bare CR in a field value (response splitting)",
                   "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b\rTransfer-Encoding: chunked\r\n\r\n",
                   "", 400);
    expect_refused("a field name that is not a token",
                   "GET /healthz HTTP/1.1\r\nHost: x\r\n"
                   "X(A): b\r\n\r\n",
                   "", 400);
    /* libmicrohttpd at MHD_OPTION_STRICT_FOR_CLIENT 1 closes these itself. */
    expect_closed("a space in the request target",
                  "GET /healthz HTTP/1.1 x HTTP/1.1\r\nHost: x\r\n\r\n");
    expect_refused("an encoded NUL in the path", "GET /v1/rules%00 HTTP/1.1\r\nHost: x\r\n\r\n", "",
                   400);
    expect_refused("an encoded CR LF in the path (response splitting)",
                   "GET /healthz%0d%0aX-Injected:%201 HTTP/1.1\r\nHost: x\r\n\r\n", "", 400);
    expect_refused("a raw control byte in the path",
                   "GET /v1/rules\x01 HTTP/1.1\r\nHost: x\r\n\r\n", "", 400);
    /* A Cookie too large for the library's per-connection buffer: it refuses it
     * itself, with two header blocks, unless the server answers first. */
    char *cookie = malloc(32768);
    int cl = snprintf(cookie, 64, "GET /healthz HTTP/1.1\r\nHost: x\r\nCookie: a=");
    memset(cookie + cl, 'b', 22000);
    snprintf(cookie + cl + 22000, 64, "\r\n\r\n");
    expect_refused("a Cookie past the library's buffer", cookie, "", 431);
    free(cookie);
    /* The follow-up hidden in a body the server does not read: refused at the
     * headers, so its bytes are never parsed as a request. */
    expect_refused(
        "a chunked body on HTTP/1.0 without keep-alive",
        "POST /v1/recommendations HTTP/1.0\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n",
        "0\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400);
}

/* obs-fold: libmicrohttpd joins a continuation line to the field name. A fold
 * hiding or extending a framing field is refused like any other vector. */
static void test_obs_fold(void **state)
{
    (void)state;
    expect_refused("a fold hiding Transfer-Encoding",
                   POST "X-A: b\r\n Transfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n", "{}",
                   400);
    expect_refused("a fold after Content-Length", POST "Content-Length: 30\r\n x\r\n\r\n", "{}",
                   400);
    expect_refused("a fold after Transfer-Encoding",
                   POST "Transfer-Encoding: chunked\r\n\tgzip\r\n\r\n", "2\r\n{}\r\n0\r\n\r\n",
                   400);
}

/* What libmicrohttpd 0.9.75 hides, each with a request behind it. */
static void test_hidden_by_the_library(void **state)
{
    (void)state;
    /* A line with an empty field name ends the header section for the library:
     * what follows was read as the next request, and served. */
    expect_refused("an empty field name, a request after it",
                   "GET /healthz HTTP/1.1\r\nHost: x\r\n: v\r\n", "", 400);
    expect_refused("an empty field name before Content-Length",
                   POST ": v\r\nContent-Length: 2\r\n\r\n", "{}", 400);
    expect_refused("an empty field name on a bare-LF line", "GET /healthz HTTP/1.1\nHost: x\n: v\n",
                   "", 400);
    /* A fold that completes a framing field's name: "Content-" and " Length"
     * became a Content-Length the body would have been read by. */
    expect_refused("a fold completing Content-Length", POST "Content-: 2\r\n Length\r\n\r\n", "{}",
                   400);
    expect_refused("a fold completing Transfer-Encoding",
                   POST "Transfer-: chunked\r\n\tEncoding\r\n\r\n", "2\r\n{}\r\n0\r\n\r\n", 400);
    /* A NUL byte cuts a value short for the library, which drops the rest. */
    static const char cl_nul[] = POST "Content-Length: 2\0junk\r\n\r\n{}";
    expect_refused_n("a NUL byte in Content-Length", cl_nul, sizeof(cl_nul) - 1, 400);
    static const char key_nul[] = "GET /v1/rules HTTP/1.1\r\nHost: x\r\n"
                                  "Authorization: Bearer k\0junk\r\n\r\n";
    expect_refused_n("a NUL byte in an API key", key_nul, sizeof(key_nul) - 1, 400);
    static const char last_nul[] = "GET /healthz HTTP/1.1\r\nHost: x\0y\r\n\r\n";
    expect_refused_n("a NUL byte in the last field", last_nul, sizeof(last_nul) - 1, 400);
    static const char target_nul[] = "GET /v1/rules\0/x HTTP/1.1\r\nHost: x\r\n\r\n";
    expect_refused_n("a NUL byte in the request target", target_nul, sizeof(target_nul) - 1, 400);
    /* The library skips extra spaces in the request line: refused. */
    expect_refused("two spaces after the method", "GET  /healthz HTTP/1.1\r\nHost: x\r\n\r\n", "",
                   400);
}

/* Trailer fields of a chunked body (issue 35): the library reads them with the
 * header section's line reader, and a line with an empty field name after the
 * first ended them there: what followed was served as a second request. The
 * server takes no trailer fields (nothing it serves reads one): a chunked body
 * with any is refused, and nothing after it is served. */
static void test_trailers(void **state)
{
    (void)state;
    char body[512];
    const char *head = POST "Transfer-Encoding: chunked\r\n\r\n";
    snprintf(body, sizeof(body), "%zx\r\n%s\r\n0\r\nX-T: 1\r\n: v\r\n", strlen(WORKLOAD), WORKLOAD);
    expect_refused("an empty field name in the trailer, second line", head, body, 400);
    /* As the first trailer line the library refuses it itself (its own HTML
     * 400, once): the connection is closed all the same. */
    snprintf(body, sizeof(body), "%s%zx\r\n%s\r\n0\r\n: v\r\n", head, strlen(WORKLOAD), WORKLOAD);
    struct reply r;
    send_with_follow_up("an empty field name in the trailer, first line", body, strlen(body), &r);
    if (strncmp(r.buf, "HTTP/1.1 400 ", 13) != 0 || r.heads != 1 || !r.closed)
        fail_msg("an empty first trailer line: want one 400 and the connection closed: %s", r.buf);
    snprintf(body, sizeof(body), "%zx\r\n%s\r\n0\r\nX-T: 1\r\n\r\n", strlen(WORKLOAD), WORKLOAD);
    expect_refused("a well-formed trailer field", head, body, 400);
    snprintf(body, sizeof(body), "0\r\nX-T: 1\r\nX-U: 2\r\n: v\r\n");
    expect_refused("an empty chunked body, a trailer, an empty name", head, body, 400);
}

/* Bare LF: libmicrohttpd ends a line at LF as at CR LF, and keeps no trace of
 * which. A framing field on a bare-LF line is seen, so one that conflicts with
 * another is refused; LF-only requests are read as libmicrohttpd and nginx both
 * read them, one request per blank line, with nothing left over to smuggle. */
static void test_bare_lf(void **state)
{
    (void)state;
    expect_refused("Transfer-Encoding on a bare-LF line",
                   POST "X-A: b\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n", "{}",
                   400);
    expect_refused("two Content-Lengths on bare-LF lines",
                   "POST /v1/recommendations HTTP/1.1\nHost: x\nContent-Type: application/json\n"
                   "Content-Length: 2\nContent-Length: 93\n\n",
                   "{}", 400);
    /* Accepted: two LF-only requests sent at once on one connection are two
     * requests, answered in order, each with its own id; nothing is read as
     * anything else. */
    struct rh_conn c;
    rh_init(&c, srv.port);
    assert_int_equal(rh_connect(&c), RH_OK);
    const char *two = "GET /healthz HTTP/1.1\nHost: x\nX-Request-Id: lf-1\n\n"
                      "GET /healthz HTTP/1.1\nHost: x\nX-Request-Id: lf-2\nConnection: close\n\n";
    assert_true(rh_send(&c, two, strlen(two)));
    struct reply r;
    read_all(&c, &r);
    rh_free(&c);
    const char *first = strstr(r.buf, "X-Request-Id: lf-1\r\n");
    const char *second = strstr(r.buf, "X-Request-Id: lf-2\r\n");
    if (r.heads != 2 || strncmp(r.buf, "HTTP/1.1 200 ", 13) != 0 || first == NULL ||
        second == NULL || second < first || !r.closed)
        fail_msg("two LF-only requests: %s", r.buf);
}

/* A well-formed request is still served, its connection kept alive, after all
 * of the above; and the refusals were counted and logged under their status. */
static void test_still_serving(void **state)
{
    (void)state;
    struct rh_conn c;
    struct rh_buf req = {0};
    rh_init(&c, srv.port);
    assert_true(rh_buf_request(&req, "POST", "/v1/recommendations", "application/json",
                               "Transfer-Encoding: chunked\r\n", NULL, 0));
    /* rh_buf_request without a body writes no Content-Length: send it chunked. */
    char chunk[128];
    snprintf(chunk, sizeof(chunk), "%zx\r\n%s\r\n0\r\n\r\n", strlen(WORKLOAD), WORKLOAD);
    assert_true(rh_buf_str(&req, chunk));
    struct rh_resp r;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(rh_exchange(&c, req.p, req.len, false, READ_MS, &r), RH_OK);
        assert_int_equal(r.status, 200);
        assert_false(r.close);
    }
    rh_buf_free(&req);
    rh_free(&c);
    struct resp m;
    assert_int_equal(http_get(&srv, "/metrics", &m), 0);
    assert_non_null(strstr(m.body, "code=\"400\""));
    assert_non_null(strstr(m.body, "code=\"501\""));
    resp_free(&m);
    assert_true(server_log_find(&srv, 0, "\"status\":501", NULL));
    assert_true(server_running(&srv));
    /* Every refused connection was closed: no descriptor is left behind. */
    long fds = server_fd_wait(&srv, fds_at_start, READ_MS);
    fprintf(stderr, "descriptors: %ld at the start, %ld after every vector\n", fds_at_start, fds);
    assert_true(fds >= 0 && fds <= fds_at_start);
}

static int setup(void **state)
{
    (void)state;
    static const char *const args[] = {"--rules-watch=false", NULL};
    if (server_start(&srv, args) != 0)
        return -1;
    fds_at_start = server_fd_count(&srv);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return server_stop_clean(&srv);
}

int main(int argc, char **argv)
{
    if (harness_init(argc, argv) != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_issue_vectors), cmocka_unit_test(test_rfc9112_vectors),
        cmocka_unit_test(test_obs_fold),      cmocka_unit_test(test_hidden_by_the_library),
        cmocka_unit_test(test_bare_lf),       cmocka_unit_test(test_trailers),
        cmocka_unit_test(test_still_serving),
    };
    return HARNESS_RUN("framing", tests, setup, teardown);
}
