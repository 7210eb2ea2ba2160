/* tests/fault/test_hostile.c -- hostile input against the real server, with its
 * default limits: each gets its exact 4xx (the problem type docs/operations.md
 * lists, as application/problem+json matching openapi.yaml; or, for what
 * libmicrohttpd refuses before the service sees it, libmicrohttpd's own status),
 * within the per-request CPU budget (read from /proc, never the wall clock),
 * and the server stays up and ends with exit status 0.
 *
 * tests/integration/test_http.c covers the ordinary error statuses (a 40-deep
 * body, one invalid UTF-8 sequence, one duplicate key, a 3 KB body against a
 * 1 KiB limit, a 4-workload batch against a limit of 3); this file takes each to
 * the scale: 100,000-deep nesting, 1 MiB and 5 MiB bodies announced and
 * chunked, every invalid UTF-8 form, NUL bytes, numbers past a double, 100 and
 * 10,001-workload batches, 100 KB header lines, 5,000 headers, 60 KB URIs.
 *
 * usage: fault_hostile ACCEL_ADVISOR_BINARY SOURCE_DIR */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "harness.h"
#include "rawhttp.h"

#define TAG       "tag:accel-advisor,2025:"
#define MAX_BODY  (1u << 20) /* the default max_body_bytes */
#define ANSWER_MS 120000     /* refusals are immediate; this only bounds a hang */

static struct server srv; /* default limits, shared by every test */

/* The server is up and answers a fresh connection. */
static void still_up(void)
{
    assert_true(server_running(&srv));
    struct resp r;
    assert_int_equal(http_get(&srv, "/healthz", &r), 0);
    assert_int_equal(r.status, 200);
    resp_free(&r);
}

/* A problem response (harness.c's expect_problem: status, media type, type,
 * request id, the contract) with, when given, an error at `pointer`. */
static void expect_problem_at(const struct resp *r, long status, const char *type,
                              const char *method, const char *path, const char *pointer)
{
    char want[160];
    snprintf(want, sizeof(want), "%s%s", strcmp(type, "about:blank") == 0 ? "" : TAG, type);
    expect_problem(r, status, want, method, path);
    if (pointer == NULL)
        return;
    cJSON *j = resp_json(r);
    bool found = false;
    const cJSON *e = NULL;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "errors"))
    {
        const char *p = str_field(e, "pointer");
        found |= p != NULL && strcmp(p, pointer) == 0;
    }
    cJSON_Delete(j);
    if (!found)
        fail_msg("no error at \"%s\" in %s", pointer, r->body);
}

/* POST `len` bytes as JSON; the response must be the problem, at a CPU cost
 * within the per-request budget. */
static void post_expect(const char *path, const char *body, size_t len, long status,
                        const char *type, const char *pointer)
{
    struct resp r;
    double t0 = server_cpu_ms(&srv);
    assert_int_equal(http(&srv, "POST", path, "application/json", body, len, NULL, &r), 0);
    double cpu = server_cpu_ms(&srv) - t0;
    expect_problem_at(&r, status, type, "POST", path, pointer);
    if (cpu > REQUEST_CPU_MS)
        fail_msg("%s: %ld cost %.1f ms of CPU (budget %.0f)", type, status, cpu, REQUEST_CPU_MS);
    resp_free(&r);
}

/* Send raw bytes on a fresh connection and read one response into `out` (the
 * harness's form, so check_contract applies). Returns the rawhttp status. */
static int raw_request(const void *req, size_t len, struct resp *out, bool *closed)
{
    struct rh_conn c;
    struct rh_resp r;
    memset(out, 0, sizeof(*out));
    rh_init(&c, srv.port);
    int e = rh_exchange(&c, req, len, false, ANSWER_MS, &r);
    if (e == RH_OK) {
        out->status = r.status;
        size_t hl = (size_t)(r.body - c.buf);
        out->headers = strndup(c.buf, hl);
        out->headers_len = hl;
        out->body = malloc(r.body_len + 1);
        memcpy(out->body, r.body, r.body_len);
        out->body[r.body_len] = '\0';
        out->len = r.body_len;
        *closed = r.close;
    }
    rh_free(&c);
    return e;
}

/* ---- bodies ------------------------------------------------------------------------- */

static void test_oversized_bodies(void **state)
{
    (void)state;
    /* Announced: refused before a byte of the body is read, and closed. */
    char head[256];
    snprintf(head, sizeof(head),
             "POST /v1/recommendations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "Content-Length: %u\r\n\r\n",
             MAX_BODY + 1);
    struct resp r;
    bool closed = false;
    double t0 = server_cpu_ms(&srv);
    assert_int_equal(raw_request(head, strlen(head), &r, &closed), RH_OK);
    expect_problem_at(&r, 413, "body-too-large", "POST", "/v1/recommendations", NULL);
    assert_true(closed);
    assert_true(server_cpu_ms(&srv) - t0 < REQUEST_CPU_MS);
    resp_free(&r);

    /* Exactly at the limit: served (trailing whitespace is valid JSON). */
    const char *w = "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}}";
    char *big = malloc(5u * MAX_BODY + 1);
    assert_non_null(big);
    memset(big, ' ', 5u * MAX_BODY);
    memcpy(big, w, strlen(w));
    assert_int_equal(
        http(&srv, "POST", "/v1/recommendations", "application/json", big, MAX_BODY, NULL, &r), 0);
    assert_int_equal(r.status, 200);
    resp_free(&r);

    /* Chunked (no Content-Length), 1.5 MiB: read, refused once past the limit. */
    static const char *const chunked[] = {"Transfer-Encoding: chunked", NULL};
    assert_int_equal(http(&srv, "POST", "/v1/recommendations", "application/json", big,
                          MAX_BODY + MAX_BODY / 2, chunked, &r),
                     0);
    expect_problem_at(&r, 413, "body-too-large", "POST", "/v1/recommendations", NULL);
    resp_free(&r);
    /* And on the batch route. */
    assert_int_equal(http(&srv, "POST", "/v1/recommendations:batch", "application/json", big,
                          MAX_BODY + MAX_BODY / 2, chunked, &r),
                     0);
    expect_problem_at(&r, 413, "body-too-large", "POST", "/v1/recommendations:batch", NULL);
    resp_free(&r);

    /* Chunked past 4 x the limit: the server stops reading and closes the
     * connection instead of draining it (docs/operations.md, DISCARD_FACTOR). */
    struct rh_conn c;
    rh_init(&c, srv.port);
    assert_int_equal(rh_connect(&c), RH_OK);
    const char *h = "POST /v1/recommendations HTTP/1.1\r\nHost: x\r\n"
                    "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    assert_true(rh_send(&c, h, strlen(h)));
    size_t sent = 0;
    bool cut = false;
    char size_line[32];
    snprintf(size_line, sizeof(size_line), "%x\r\n", 65536);
    while (sent < 5u * MAX_BODY && !cut) {
        cut = !rh_send(&c, size_line, strlen(size_line)) || !rh_send(&c, big, 65536) ||
              !rh_send(&c, "\r\n", 2);
        sent += 65536;
    }
    /* The kernel's socket buffers may have taken every byte before the server
     * closed: then the close shows on reading. Never a 200. */
    struct rh_resp rr;
    int e = cut ? RH_ECLOSED : (rh_send(&c, "0\r\n\r\n", 5), rh_read(&c, false, HANG_MS, &rr));
    fprintf(stderr, "5 MiB chunked body: %zu bytes sent, %s%s\n", sent,
            cut ? "the server closed the connection" : rh_strerror(e),
            e == RH_OK ? " (answered)" : "");
    if (e == RH_OK)
        assert_int_equal(rr.status, 413);
    else
        assert_true(e == RH_ECLOSED || e == RH_ETRUNC);
    rh_free(&c);
    free(big);

    still_up();
}

static void nest(char *buf, size_t *n, unsigned depth, bool objects)
{
    for (unsigned k = 0; k < depth; k++) {
        memcpy(buf + *n, objects ? "{\"a\":" : "[", objects ? 5 : 1);
        *n += objects ? 5 : 1;
    }
    buf[(*n)++] = '1';
    for (unsigned k = 0; k < depth; k++)
        buf[(*n)++] = objects ? '}' : ']';
}

static void test_deep_nesting(void **state)
{
    (void)state;
    enum { DEPTH = 100000 };
    char *b = malloc((size_t)DEPTH * 6 + 64);
    assert_non_null(b);
    for (int objects = 0; objects < 2; objects++) {
        /* As a workload, as a batch and as the whole body (~200 KB and ~600 KB). */
        size_t n = 0;
        n += (size_t)sprintf(b, "{\"task\":");
        nest(b, &n, DEPTH, objects != 0);
        b[n++] = '}';
        post_expect("/v1/recommendations", b, n, 400, "too-deep", NULL);
        post_expect("/v1/recommendations:batch", b, n, 400, "too-deep", NULL);
        n = 0;
        nest(b, &n, DEPTH, objects != 0);
        post_expect("/v1/recommendations", b, n, 400, "too-deep", NULL);
    }
    /* The limit is exact: 32 levels are parsed (and fail validation), 33 are not. */
    size_t n = (size_t)sprintf(b, "{\"task\":");
    nest(b, &n, 31, false);
    b[n++] = '}';
    post_expect("/v1/recommendations", b, n, 400, "validation", "/task");
    n = (size_t)sprintf(b, "{\"task\":");
    nest(b, &n, 32, false);
    b[n++] = '}';
    post_expect("/v1/recommendations", b, n, 400, "too-deep", NULL);
    free(b);
    still_up();
}

static void test_invalid_utf8(void **state)
{
    (void)state;
    static const struct rh_bytes bodies[] = {
        RH_BYTES("{\"task\":\"inference\",\"name\":\"\xc3\x28\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"task\":\"inference\",\"name\":\"\xff\xfe\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"task\":\"inference\",\"name\":\"\xc0\xaf\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"task\":\"inference\",\"name\":\"\xe0\x80\xaf\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"task\":\"inference\",\"name\":\"\xed\xa0\x80\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"task\":\"inference\",\"name\":\"\xe2\x82\",\"model\":{\"parameters\":1}}"),
        RH_BYTES(
            "{\"task\":\"inference\",\"name\":\"\xf4\x90\x80\x80\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"task\":\"inference\",\"name\":\"\\ud800\",\"model\":{\"parameters\":1}}"),
        RH_BYTES(
            "{\"task\":\"inference\",\"name\":\"\\udc00\\ud800\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"\x80\":1}"),
        RH_BYTES("\xef\xbb\xbf{\"task\":\"inference\",\"model\":{\"parameters\":1}}\xc3"),
    };
    for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
        post_expect("/v1/recommendations", bodies[i].p, bodies[i].len, 400, "invalid-utf8", NULL);
        post_expect("/v1/recommendations:batch", bodies[i].p, bodies[i].len, 400, "invalid-utf8",
                    NULL);
    }
    still_up();
}

static void test_nul_bytes(void **state)
{
    (void)state;
    static const struct rh_bytes bodies[] = {
        RH_BYTES("{\"task\":\0\"inference\",\"model\":{\"parameters\":1}}"), /* between tokens */
        RH_BYTES("{\"task\":\"infe\0rence\",\"model\":{\"parameters\":1}}"), /* inside a string */
        RH_BYTES("{\"task\":\"inference\",\"model\":{\"parameters\":1}}\0"), /* after the value */
        RH_BYTES("{\"task\":\"inference\",\"model\":{\"parameters\":1\0}}"), /* inside a number */
        RH_BYTES("\0{\"task\":\"inference\",\"model\":{\"parameters\":1}}"), /* before it */
        RH_BYTES("\0\0\0\0"),
    };
    for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
        post_expect("/v1/recommendations", bodies[i].p, bodies[i].len, 400, "malformed-json", NULL);
        post_expect("/v1/recommendations:batch", bodies[i].p, bodies[i].len, 400, "malformed-json",
                    NULL);
    }
    /* Escaped NULs are JSON (RFC 8259) but would cut C strings short, so they have
     * their own problem type: in a value, in a key, in a batch item. */
    static const struct rh_bytes escaped[] = {
        RH_BYTES("{\"task\":\"inference\",\"name\":\"a\\u0000b\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"task\":\"training\\u0000x\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"task\\u0000\":\"inference\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"workloads\":[{\"task\":\"inference\\u0000\",\"model\":{\"parameters\":1}}]}"),
    };
    for (size_t i = 0; i < sizeof(escaped) / sizeof(escaped[0]); i++) {
        post_expect("/v1/recommendations", escaped[i].p, escaped[i].len, 400, "nul-in-string",
                    NULL);
        post_expect("/v1/recommendations:batch", escaped[i].p, escaped[i].len, 400, "nul-in-string",
                    NULL);
    }
    still_up();
}

static void test_numbers(void **state)
{
    (void)state;
    char b[512];
    /* Past a double (RFC 8259 allows them; the contract's numbers are doubles). */
    static const char *const huge[] = {"1e400", "-1e400", "1e999", "1E+999", "123456789e400"};
    for (size_t i = 0; i < 5; i++) {
        snprintf(b, sizeof(b), "{\"task\":\"inference\",\"model\":{\"parameters\":%s}}", huge[i]);
        post_expect("/v1/recommendations", b, strlen(b), 400, "malformed-json",
                    "/model/parameters");
    }
    /* Not JSON numbers at all. */
    static const char *const nonfinite[] = {"NaN",  "Infinity", "-Infinity", "nan", "inf",
                                            "0x10", "+1",       ".5",        "01"};
    for (size_t i = 0; i < 9; i++) {
        snprintf(b, sizeof(b), "{\"task\":\"inference\",\"model\":{\"parameters\":%s}}",
                 nonfinite[i]);
        post_expect("/v1/recommendations", b, strlen(b), 400, "malformed-json", NULL);
    }
    /* A literal of 64+ characters, even a small value. */
    snprintf(b, sizeof(b), "{\"task\":\"inference\",\"model\":{\"parameters\":1.%064d}}", 0);
    post_expect("/v1/recommendations", b, strlen(b), 400, "malformed-json", NULL);
    /* Finite but past the contract's maximum (1e15) or its minimum: validation. */
    const char *max = "{\"task\":\"inference\",\"model\":{\"parameters\":1e308}}";
    post_expect("/v1/recommendations", max, strlen(max), 400, "validation", "/model/parameters");
    const char *tiny = "{\"task\":\"inference\",\"model\":{\"parameters\":-1e-320}}";
    post_expect("/v1/recommendations", tiny, strlen(tiny), 400, "validation", "/model/parameters");
    still_up();
}

static void test_duplicate_keys_unknown_fields(void **state)
{
    (void)state;
    const char *top = "{\"task\":\"inference\",\"task\":\"training\",\"model\":{\"parameters\":1}}";
    post_expect("/v1/recommendations", top, strlen(top), 400, "duplicate-key", "/task");
    const char *nested = "{\"task\":\"inference\",\"model\":{\"parameters\":1,\"parameters\":1}}";
    post_expect("/v1/recommendations", nested, strlen(nested), 400, "duplicate-key",
                "/model/parameters");
    const char *batch = "{\"workloads\":[{\"task\":\"inference\",\"task\":\"inference\","
                        "\"model\":{\"parameters\":1}}]}";
    post_expect("/v1/recommendations:batch", batch, strlen(batch), 400, "duplicate-key",
                "/workloads/0/task");
    /* A thousand keys with the last one repeated: found (sorted), quickly. */
    char *many = malloc(64 * 1024);
    size_t n = (size_t)sprintf(many, "{");
    for (int k = 0; k < 1000; k++)
        n += (size_t)sprintf(many + n, "\"k%04d\":%d,", k, k);
    n += (size_t)sprintf(many + n, "\"k0999\":0}");
    post_expect("/v1/recommendations", many, n, 400, "duplicate-key", "/k0999");
    free(many);
    const char *unknown = "{\"task\":\"inference\",\"model\":{\"parameters\":1,\"colour\":1},"
                          "\"speed\":\"fast\"}";
    post_expect("/v1/recommendations", unknown, strlen(unknown), 400, "validation", NULL);
    still_up();
}

static char *batch_of(int n, size_t *len)
{
    const char *w = "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}}";
    size_t cap = (size_t)n * (strlen(w) + 1) + 32;
    char *b = malloc(cap);
    size_t off = (size_t)sprintf(b, "{\"workloads\":[");
    for (int k = 0; k < n; k++)
        off += (size_t)sprintf(b + off, "%s%s", k > 0 ? "," : "", w);
    off += (size_t)sprintf(b + off, "]}");
    *len = off;
    return b;
}

static void test_batch_limit(void **state)
{
    (void)state;
    size_t len = 0;
    char *b = batch_of(100, &len); /* the default limit */
    struct resp r;
    assert_int_equal(
        http(&srv, "POST", "/v1/recommendations:batch", "application/json", b, len, NULL, &r), 0);
    assert_int_equal(r.status, 200);
    cJSON *j = resp_json(&r);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "results")), 100);
    cJSON_Delete(j);
    resp_free(&r);
    free(b);
    static const int over[] = {101, 10001};
    for (size_t i = 0; i < 2; i++) {
        b = batch_of(over[i], &len);
        post_expect("/v1/recommendations:batch", b, len, 413, "batch-too-large", NULL);
        free(b);
    }
    still_up();
}

/* The envelope is validated apart from its workloads: 50 empty workloads (two
 * violations each, past the 100 listed) and an unknown top-level field after
 * them are a 400 for the whole batch naming that field (it used to be hidden by
 * the cap and the batch answered 200). */
static void test_batch_envelope(void **state)
{
    (void)state;
    char b[1024];
    size_t n = (size_t)sprintf(b, "{\"workloads\":[");
    for (int k = 0; k < 50; k++)
        n += (size_t)sprintf(b + n, "%s{}", k > 0 ? "," : "");
    n += (size_t)sprintf(b + n, "],\"priority\":\"high\"}");
    struct resp r;
    assert_int_equal(
        http(&srv, "POST", "/v1/recommendations:batch", "application/json", b, n, NULL, &r), 0);
    expect_problem_at(&r, 400, "validation", "POST", "/v1/recommendations:batch", "/priority");
    cJSON *j = resp_json(&r);
    const cJSON *errors = cJSON_GetObjectItemCaseSensitive(j, "errors");
    assert_int_equal(cJSON_GetArraySize(errors), 1);
    const char *msg = str_field(cJSON_GetArrayItem(errors, 0), "message");
    assert_non_null(msg);
    assert_non_null(strstr(msg, "priority"));
    assert_non_null(strstr(str_field(j, "detail"), "BatchRequest"));
    cJSON_Delete(j);
    resp_free(&r);
    /* Without the field: 200, each workload with its own 400 and every violation
     * of it (none of them lost to a cap shared by the whole batch). */
    n = (size_t)sprintf(b, "{\"workloads\":[");
    for (int k = 0; k < 50; k++)
        n += (size_t)sprintf(b + n, "%s{}", k > 0 ? "," : "");
    n += (size_t)sprintf(b + n, "]}");
    assert_int_equal(
        http(&srv, "POST", "/v1/recommendations:batch", "application/json", b, n, NULL, &r), 0);
    assert_int_equal(r.status, 200);
    j = resp_json(&r);
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(j, "results");
    assert_int_equal(cJSON_GetArraySize(results), 50);
    const cJSON *last = cJSON_GetArrayItem(results, 49);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(last, "status")->valueint, 400);
    const cJSON *problem = cJSON_GetObjectItemCaseSensitive(last, "problem");
    const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(problem, "errors"), 0);
    assert_non_null(e);
    assert_string_equal(str_field(e, "pointer"), "/workloads/49");
    cJSON_Delete(j);
    resp_free(&r);
    still_up();
}

static void test_content_types(void **state)
{
    (void)state;
    const char *w = "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}}";
    static const char *const types[] = {"text/plain",
                                        "application/json; charset=latin1",
                                        "application/x-www-form-urlencoded",
                                        "multipart/form-data; boundary=x",
                                        "application/jsonl",
                                        NULL};
    static const char *const paths[] = {"/v1/recommendations", "/v1/recommendations:batch"};
    for (size_t p = 0; p < 2; p++) {
        for (size_t i = 0; i < 6; i++) {
            struct resp r;
            assert_int_equal(http(&srv, "POST", paths[p], types[i], w, strlen(w), NULL, &r), 0);
            expect_problem_at(&r, 415, "unsupported-media-type", "POST", paths[p], NULL);
            resp_free(&r);
        }
    }
    still_up();
}

/* ---- headers -------------------------------------------------------------------------- */

/* Raw request bytes refused before the service sees a request (by libmicrohttpd,
 * or by the server for a Content-Length the library refuses): exactly one
 * response with that status, then the connection closed. Read to the end of the
 * stream: for a malformed or oversized Content-Length libmicrohttpd 0.9.75 writes
 * its own error's status line and headers twice; the server answers those itself
 * (docs/operations.md, "Request framing"), so a second status line fails. */
static void expect_library_status(const char *what, const char *req, size_t len, int status)
{
    struct rh_conn c;
    rh_init(&c, srv.port);
    assert_int_equal(rh_connect(&c), RH_OK);
    long t0 = h_now_ms();
    (void)rh_send(&c, req, len); /* it may close before reading everything */
    size_t cap = 65536;
    char *buf = malloc(cap);
    bool eof = false;
    rh_read_to_close(&c, buf, cap, ANSWER_MS, &eof);
    char want[32];
    snprintf(want, sizeof(want), "HTTP/1.1 %d ", status);
    size_t heads = rh_status_lines(buf);
    fprintf(stderr, "%s: \"%.*s\" in %ld ms, %s, %zu status line%s\n", what,
            (int)strcspn(buf, "\r"), buf, h_now_ms() - t0, eof ? "closed" : "still open", heads,
            heads == 1 ? "" : "s");
    assert_true(strncmp(buf, want, strlen(want)) == 0);
    assert_true(eof);
    assert_int_equal(heads, 1);
    free(buf);
    rh_free(&c);
    still_up();
}

static void test_absurd_headers(void **state)
{
    (void)state;
    size_t cap = 200000, n = 0;
    char *req = malloc(cap);
    /* One header line of 100 KB. */
    n = (size_t)sprintf(req, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: ");
    memset(req + n, 'a', 100000);
    n += 100000;
    n += (size_t)sprintf(req + n, "\r\n\r\n");
    expect_library_status("100 KB header line", req, n, 431);
    /* 5,000 headers. */
    n = (size_t)sprintf(req, "GET /v1/rules HTTP/1.1\r\nHost: x\r\n");
    for (int k = 0; k < 5000; k++)
        n += (size_t)sprintf(req + n, "X-H%d: v\r\n", k);
    n += (size_t)sprintf(req + n, "\r\n");
    expect_library_status("5000 headers", req, n, 431);
    /* A URI of 60 KB. */
    n = (size_t)sprintf(req, "GET /v1/accelerators?family=");
    memset(req + n, 'x', 60000);
    n += 60000;
    n += (size_t)sprintf(req + n, " HTTP/1.1\r\nHost: x\r\n\r\n");
    expect_library_status("60 KB URI", req, n, 414);
    /* A Content-Length past 64 bits: 413. */
    const char *huge = "POST /v1/recommendations HTTP/1.1\r\nHost: x\r\nContent-Type: "
                       "application/json\r\nContent-Length: 99999999999999999999999\r\n\r\n";
    expect_library_status("Content-Length past 64 bits", huge, strlen(huge), 413);
    /* Unparseable framing. */
    const char *cl = "POST /v1/recommendations HTTP/1.1\r\nHost: x\r\n"
                     "Content-Type: application/json\r\nContent-Length: -1\r\n\r\n";
    expect_library_status("Content-Length: -1", cl, strlen(cl), 400);
    const char *cl2 = "POST /v1/recommendations HTTP/1.1\r\nHost: x\r\n"
                      "Content-Type: application/json\r\nContent-Length: abc\r\n\r\n";
    expect_library_status("Content-Length: abc", cl2, strlen(cl2), 400);
    const char *chunk = "POST /v1/recommendations HTTP/1.1\r\nHost: x\r\n"
                        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                        "zz\r\n{}\r\n0\r\n\r\n";
    expect_library_status("bad chunk size", chunk, strlen(chunk), 400);
    const char *nocolon = "GET /healthz HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n";
    expect_library_status("header without a colon", nocolon, strlen(nocolon), 400);
    const char *version = "GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n";
    expect_library_status("HTTP/9.9", version, strlen(version), 505);
    /* Binary garbage, then the client goes away: no answer is owed; the server
     * must simply survive it. */
    struct rh_conn c;
    rh_init(&c, srv.port);
    assert_int_equal(rh_connect(&c), RH_OK);
    static const char garbage[] = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n\0\0\xff";
    assert_true(rh_send(&c, garbage, sizeof(garbage) - 1));
    usleep(100000);
    rh_free(&c);
    /* Header values with control bytes and a huge X-Request-Id are answered. */
    n = (size_t)sprintf(req, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: ");
    memset(req + n, 'i', 20000);
    n += 20000;
    n += (size_t)sprintf(req + n, "\r\nX-Odd: a\x01\x7f b\r\n\r\n");
    struct resp r;
    bool closed = false;
    assert_int_equal(raw_request(req, n, &r, &closed), RH_OK);
    assert_int_equal(r.status, 200);
    char id[128];
    assert_true(resp_header(&r, "X-Request-Id", id, sizeof(id)));
    assert_int_equal(strlen(id), 32); /* the oversized id was replaced */
    resp_free(&r);
    free(req);
    still_up();
}

static int setup(void **state)
{
    (void)state;
    static const char *const args[] = {"--rules-watch=false", NULL};
    return server_start(&srv, args);
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
        cmocka_unit_test(test_oversized_bodies),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_invalid_utf8),
        cmocka_unit_test(test_nul_bytes),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_duplicate_keys_unknown_fields),
        cmocka_unit_test(test_batch_limit),
        cmocka_unit_test(test_batch_envelope),
        cmocka_unit_test(test_content_types),
        cmocka_unit_test(test_absurd_headers),
    };
    return HARNESS_RUN("hostile", tests, setup, teardown);
}
