/* tests/fault/test_limits.c -- the limits hold as documented (docs/operations.md,
 * "Limits"): past the connection limit every new connection is answered at once
 * (503 with Retry-After, or closed), never left in the kernel's backlog; the
 * admin listener answers /healthz, /readyz and /metrics under a connection flood
 * of the API port; the buffered-body and queued-response budgets answer 503 with
 * Retry-After when spent, and serve again once freed.
 *
 * usage: fault_limits ACCEL_ADVISOR_BINARY SOURCE_DIR */
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

/* Bounds for a hang, never timing assertions: an ASan build on a loaded machine
 * took more than 10 s for the second 9 MB batch answer. */
#define ANSWER_MS 120000 /* for an answer */
#define WAIT_MS   120000 /* for a count to reach what the test set up */
#define WORKLOAD  "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}}"

static struct server srv;

static int teardown(void **state)
{
    (void)state;
    return server_kill_if_running(&srv);
}

/* A 503 for a spent limit: Retry-After and the overloaded problem. */
static void expect_overloaded(const struct rh_resp *r, const char *what)
{
    if (r->status != 503 || strstr(r->body, "tag:accel-advisor,2025:overloaded") == NULL)
        fail_msg("%s: want 503 overloaded, got %d %.*s", what, r->status, (int)r->body_len,
                 r->body);
    assert_non_null(strstr(r->body, "\"request_id\""));
}

/* ---- connections ------------------------------------------------------------------- */

/* What one connection of the flood got: a response (its status), 0 for a
 * close without one, -1 for nothing at all (a connection left in the backlog). */
static int answer_of(struct rh_conn *c, bool *had_retry_after)
{
    *had_retry_after = false;
    /* One refused at accept gets its 503 without sending anything, then a close. */
    struct pollfd pf = {c->fd, POLLIN, 0};
    if (poll(&pf, 1, 200) > 0) {
        char buf[4096];
        bool closed = false;
        size_t n = rh_read_to_close(c, buf, sizeof(buf), ANSWER_MS, &closed);
        *had_retry_after = strstr(buf, "\r\nRetry-After: 1\r\n") != NULL;
        return n > 0 && closed ? atoi(buf + 9) : 0;
    }
    static const char req[] = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    struct rh_resp r;
    int e = rh_exchange(c, req, sizeof(req) - 1, false, ANSWER_MS, &r);
    if (e == RH_ETIMEOUT)
        return -1;
    if (e != RH_OK)
        return 0;
    *had_retry_after = r.status == 503 && strstr(c->buf, "\r\nRetry-After: 1\r\n") != NULL;
    return r.status;
}

static void test_connection_limit(void **state)
{
    (void)state;
    enum { LIMIT = 8, HARD = LIMIT + LIMIT / 8 + 16, FLOOD = HARD + 24 };
    /* Metrics are read on the admin listener: the API port is full. */
    const char *const args[] = {"--max-connections", "8",           "--connection-timeout-s", "120",
                                "--admin-listen",    "127.0.0.1:0", "--rules-watch=false",    NULL};
    assert_int_equal(server_start(&srv, args), 0);
    static struct rh_conn conns[FLOOD];
    for (int i = 0; i < FLOOD; i++) {
        rh_init(&conns[i], srv.port);
        /* The kernel completes the handshake even for a connection left in the
         * backlog: connect() succeeding proves nothing; the answer does. */
        assert_int_equal(rh_connect(&conns[i]), RH_OK);
    }
    /* Which connections the daemon counts first is up to its threads: exactly
     * LIMIT are served, every other one is answered 503 (or closed), none hangs. */
    int served = 0, refused = 0, closed = 0;
    for (int i = 0; i < FLOOD; i++) {
        bool retry = false;
        int st = answer_of(&conns[i], &retry);
        if (st == 200) {
            served++;
        } else if (st == 503 && retry) {
            refused++;
        } else if (st == 0) {
            closed++;
        } else {
            fail_msg("connection %d of %d (limit %d): %s", i + 1, FLOOD, LIMIT,
                     st < 0 ? "no answer (left in the backlog)" : "not a 503 with Retry-After");
        }
    }
    fprintf(stderr, "%d connections, limit %d (hard %d): %d served, %d answered 503, %d closed\n",
            FLOOD, LIMIT, HARD, served, refused, closed);
    assert_int_equal(served, LIMIT);
    for (int i = 0; i < FLOOD; i++)
        rh_free(&conns[i]);
    /* Counted once the refusal is written, a moment after its client may read it. */
    assert_true(metric_wait_min(srv.admin_port, "accel_advisor_rejected_connections_total", refused,
                                WAIT_MS) >= refused);
    /* The server has seen every one of them close: else the next ones would
     * find its count still full and some be refused at once. */
    assert_int_equal(metric_wait(srv.admin_port, "accel_advisor_open_connections", 0, WAIT_MS), 0);
    /* One at a time, with the others held: every one past the hard limit is
     * answered 503 by the acceptor without sending a byte. */
    enum { MORE = 4 };
    static struct rh_conn held[HARD], more[MORE];
    for (int i = 0; i < HARD; i++) {
        rh_init(&held[i], srv.port);
        assert_int_equal(rh_connect(&held[i]), RH_OK);
    }
    assert_int_equal(metric_wait(srv.admin_port, "accel_advisor_open_connections", HARD, WAIT_MS),
                     HARD);
    for (int i = 0; i < MORE; i++) {
        char buf[4096];
        bool eof = false;
        rh_init(&more[i], srv.port);
        assert_int_equal(rh_connect(&more[i]), RH_OK);
        rh_read_to_close(&more[i], buf, sizeof(buf), ANSWER_MS, &eof);
        if (strncmp(buf, "HTTP/1.1 503 ", 13) != 0 || strstr(buf, "Retry-After: 1\r\n") == NULL ||
            !eof)
            fail_msg("connection past the hard limit: %s", buf);
        rh_free(&more[i]);
    }
    for (int i = 0; i < HARD; i++)
        rh_free(&held[i]);
    assert_int_equal(server_stop(&srv, SIGTERM), 0);
}

/* Health and metrics on the admin listener while the API port is flooded: its
 * own connections, so a flood of the API port does not reach them. */
static void test_admin_listener(void **state)
{
    (void)state;
    enum { FLOOD = 8 + 8 / 8 + 16 + 8 };
    const char *const args[] = {"--max-connections",   "8", "--admin-listen", "127.0.0.1:0",
                                "--rules-watch=false", NULL};
    assert_int_equal(server_start(&srv, args), 0);
    assert_true(srv.admin_port > 0 && srv.admin_port != srv.port);
    static int fds[FLOOD];
    for (int i = 0; i < FLOOD; i++) {
        fds[i] = raw_connect(&srv);
        assert_true(fds[i] >= 0);
        assert_int_equal(raw_send(fds[i], "GET /v1/rules HTTP/1.1\r\nHo", 26), 0);
    }
    /* The flood is taken in (none left in the kernel's accept queue) and the API
     * full; its gauge counts the flood, not the admin scrapes. */
    long open = -1, queued = -1;
    for (long t0 = h_now_ms(); h_now_ms() - t0 < WAIT_MS && (queued != 0 || open < 8);) {
        queued = tcp_accept_queue(srv.port);
        open = scrape_metric(srv.admin_port, "accel_advisor_open_connections");
        if (queued != 0 || open < 8)
            usleep(20000);
    }
    assert_int_equal(queued, 0);
    assert_true(open >= 8);
    struct rh_conn a;
    struct rh_buf req = {0};
    struct rh_resp r;
    rh_init(&a, srv.admin_port);
    static const char *const routes[] = {"/healthz", "/readyz", "/metrics"};
    for (size_t i = 0; i < 3; i++) {
        rh_buf_reset(&req);
        rh_buf_request(&req, "GET", routes[i], NULL, NULL, NULL, 0);
        assert_int_equal(rh_exchange(&a, req.p, req.len, false, ANSWER_MS, &r), RH_OK);
        if (r.status != 200)
            fail_msg("admin %s: %d", routes[i], r.status);
    }
    /* Only those three: the API is not served there. */
    static const char *const others[] = {"/v1/rules", "/openapi.json", "/v1/accelerators"};
    for (size_t i = 0; i < 3; i++) {
        rh_buf_reset(&req);
        rh_buf_request(&req, "GET", others[i], NULL, NULL, NULL, 0);
        assert_int_equal(rh_exchange(&a, req.p, req.len, false, ANSWER_MS, &r), RH_OK);
        assert_int_equal(r.status, 404);
    }
    /* The flooded API port answers its health check 503, not never. */
    struct rh_conn api;
    rh_init(&api, srv.port);
    rh_buf_reset(&req);
    rh_buf_request(&req, "GET", "/healthz", NULL, NULL, NULL, 0);
    int e = rh_exchange(&api, req.p, req.len, false, ANSWER_MS, &r);
    assert_true(e == RH_ECLOSED || (e == RH_OK && r.status == 503));
    fprintf(stderr, "admin listener: 200 under a flood of %d; API open connections %ld\n", FLOOD,
            open);
    rh_buf_free(&req);
    rh_free(&a);
    rh_free(&api);
    for (int i = 0; i < FLOOD; i++)
        close(fds[i]);
    assert_int_equal(server_stop(&srv, SIGTERM), 0);
}

/* ---- memory budgets ------------------------------------------------------------------- */

/* A connection that announced `len` body bytes and sent `sent` of them. */
static void start_body(struct rh_conn *c, int port, size_t len, size_t sent)
{
    char head[256];
    rh_init(c, port);
    assert_int_equal(rh_connect(c), RH_OK);
    int hl = snprintf(head, sizeof(head),
                      "POST /v1/recommendations HTTP/1.1\r\nHost: x\r\nContent-Type: "
                      "application/json\r\nContent-Length: %zu\r\n\r\n",
                      len);
    assert_true(rh_send(c, head, (size_t)hl));
    static char spaces[65536];
    memset(spaces, ' ', sizeof(spaces));
    assert_true(rh_send(c, WORKLOAD, strlen(WORKLOAD)));
    assert_true(rh_send(c, spaces, sent - strlen(WORKLOAD)));
}

static void test_body_budget(void **state)
{
    (void)state;
    const char *const args[] = {"--max-buffered-body-bytes", "64KiB", "--max-body-bytes", "60KiB",
                                "--rules-watch=false",       NULL};
    assert_int_equal(server_start(&srv, args), 0);
    /* A slow client holds 50,001 of the 65,536 bytes. */
    struct rh_conn slow;
    start_body(&slow, srv.port, 50000, 100);
    assert_int_equal(metric_wait(srv.port, "accel_advisor_buffered_body_bytes", 50001, WAIT_MS),
                     50001);
    /* 20,000 more announced: refused before a byte of them is read. */
    struct rh_conn other;
    struct rh_buf req = {0};
    struct rh_resp r;
    rh_init(&other, srv.port);
    char *big = malloc(20000);
    memset(big, ' ', 20000);
    memcpy(big, WORKLOAD, strlen(WORKLOAD));
    rh_buf_request(&req, "POST", "/v1/recommendations", "application/json", NULL, big, 20000);
    assert_int_equal(rh_exchange(&other, req.p, req.len, false, ANSWER_MS, &r), RH_OK);
    expect_overloaded(&r, "announced body past the budget");
    assert_true(r.close);
    /* A chunked body takes the budget as it grows: refused once past it. */
    struct rh_buf chunked = {0};
    rh_buf_str(&chunked, "POST /v1/recommendations HTTP/1.1\r\nHost: x\r\nContent-Type: "
                         "application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    rh_buf_printf(&chunked, "%x\r\n", 20000);
    rh_buf_add(&chunked, big, 20000);
    rh_buf_str(&chunked, "\r\n0\r\n\r\n");
    assert_int_equal(rh_exchange(&other, chunked.p, chunked.len, false, ANSWER_MS, &r), RH_OK);
    expect_overloaded(&r, "chunked body past the budget");
    assert_int_equal(
        metric_wait(srv.port, "accel_advisor_buffered_body_rejections_total", 2, WAIT_MS), 2);
    /* Only the slow body's bytes are held. */
    assert_int_equal(metric_wait(srv.port, "accel_advisor_buffered_body_bytes", 50001, WAIT_MS),
                     50001);
    /* The slow body finishes: served, and its bytes are given back. */
    static char rest[50000];
    memset(rest, ' ', sizeof(rest));
    assert_true(rh_send(&slow, rest, 50000 - 100));
    assert_int_equal(rh_read(&slow, false, ANSWER_MS, &r), RH_OK);
    assert_int_equal(r.status, 200);
    /* Given back when the request completes, just after its answer went out. */
    assert_int_equal(metric_wait(srv.port, "accel_advisor_buffered_body_bytes", 0, WAIT_MS), 0);
    assert_int_equal(rh_exchange(&other, req.p, req.len, false, ANSWER_MS, &r), RH_OK);
    assert_int_equal(r.status, 200);
    free(big);
    rh_buf_free(&req);
    rh_buf_free(&chunked);
    rh_free(&slow);
    rh_free(&other);
    assert_int_equal(server_stop(&srv, SIGTERM), 0);
}

/* A batch whose 8 MB answer a client does not read stays queued (more than the
 * kernel's socket buffers take, at most 4 MiB); the budget then refuses the next
 * one until the first is read. */
static void test_response_budget(void **state)
{
    (void)state;
    const char *const args[] = {"--max-queued-response-bytes", "12MiB", "--max-batch", "400",
                                "--rules-watch=false",         NULL};
    assert_int_equal(server_start(&srv, args), 0);
    struct rh_buf body = {0}, req = {0};
    /* 120 answers of about 76 KB each: 9 MB, under the 12 MiB budget. */
    rh_buf_batch(&body, WORKLOAD, 120);
    rh_buf_request(&req, "POST", "/v1/recommendations:batch", "application/json", NULL, body.p,
                   body.len);
    /* The slow reader: a small receive buffer, and no reading for now. */
    struct rh_conn slow;
    rh_init(&slow, srv.port);
    assert_int_equal(rh_connect_rcvbuf(&slow, 4096), RH_OK);
    assert_true(rh_send(&slow, req.p, req.len));
    long queued = 0;
    for (long t0 = h_now_ms(); queued < 4000000 && h_now_ms() - t0 < WAIT_MS;) {
        usleep(50000);
        queued = scrape_metric(srv.port, "accel_advisor_queued_response_bytes");
    }
    fprintf(stderr, "response budget: %ld bytes queued for the slow reader\n", queued);
    assert_true(queued >= 4000000);
    struct rh_conn c;
    struct rh_resp r;
    rh_init(&c, srv.port);
    assert_int_equal(rh_exchange(&c, req.p, req.len, false, ANSWER_MS, &r), RH_OK);
    expect_overloaded(&r, "a second 8 MB answer");
    assert_true(scrape_metric(srv.port, "accel_advisor_queued_response_rejections_total") >= 1);
    /* Small answers still fit. */
    struct rh_buf get = {0};
    rh_buf_request(&get, "GET", "/v1/rules", NULL, NULL, NULL, 0);
    assert_int_equal(rh_exchange(&c, get.p, get.len, false, ANSWER_MS, &r), RH_OK);
    assert_int_equal(r.status, 200);
    /* The slow reader reads its answer: the budget is free again. */
    char *all = malloc(16u << 20);
    size_t got = 0;
    long t0 = h_now_ms();
    while (got < 8000000 && h_now_ms() - t0 < ANSWER_MS) {
        ssize_t n = recv(slow.fd, all + got, (16u << 20) - got, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    free(all);
    rh_free(&slow);
    assert_int_equal(metric_wait(srv.port, "accel_advisor_queued_response_bytes", 0, WAIT_MS), 0);
    assert_int_equal(rh_exchange(&c, req.p, req.len, false, ANSWER_MS, &r), RH_OK);
    assert_int_equal(r.status, 200);
    rh_free(&c);
    rh_buf_free(&body);
    rh_buf_free(&req);
    rh_buf_free(&get);
    assert_int_equal(server_stop(&srv, SIGTERM), 0);
}

int main(int argc, char **argv)
{
    if (harness_init(argc, argv) != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_connection_limit, teardown),
        cmocka_unit_test_teardown(test_admin_listener, teardown),
        cmocka_unit_test_teardown(test_body_budget, teardown),
        cmocka_unit_test_teardown(test_response_budget, teardown),
    };
    return HARNESS_RUN("limits", tests, NULL, NULL);
}
