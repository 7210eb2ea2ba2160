/* tests/fault/test_timeouts.c -- slow and idle clients against the real server.
 *
 * Slowloris: thousands of connections that send part of a request header and
 * stall must not keep a normal client from being served promptly, with the
 * server's default connection limit; the per-connection timeout then closes every
 * one of them. A body sent one byte at a time slower than the timeout is cut off
 * by it (the connection is closed, the access log says "timeout"), while the same
 * body trickled faster than the timeout is answered; the server stays up.
 *
 * A request trickled a byte at a time, each within the idle timeout, is cut off
 * by the total time a request may take (request_timeout_s).
 *
 * usage: fault_timeouts ACCEL_ADVISOR_BINARY SOURCE_DIR
 * AA_SLOWLORIS_CONNS overrides the number of idle connections (default 2500). */
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

#define SLOWLORIS_DEFAULT 2500
/* Long enough that, on a loaded machine (an ASan build beside other suites),
 * every idle connection is open and counted before the first one times out:
 * opening 2,500 takes about a second there (the test prints it). */
#define IDLE_TIMEOUT_S 10
/* Past a timeout, a connection may take up to HANG_MS (harness.h) to be seen
 * closed before the test calls it a hang: the server's timers run on loaded
 * threads. */

static const char *const workload = "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}}";

/* The server of the running test: static, so a failed test (cmocka jumps out of
 * it) leaves no reader thread writing into a reused stack frame; teardown stops it. */
static struct server srv;

static int teardown(void **state)
{
    (void)state;
    return server_kill_if_running(&srv);
}

/* True when the server closed fd: EOF or reset (anything it sent is drained). */
static bool peer_closed(int fd)
{
    char buf[4096];
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n == 0)
            return true;
        if (n < 0)
            return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
    }
}

/* A normal client's request, answered `status` while the idle connections are
 * open (served, not queued behind them: it would wait for their timeout). */
static void prompt(struct server *s, const char *method, const char *path, const char *body,
                   long status)
{
    struct resp r;
    long t0 = h_now_ms();
    int rc = http(s, method, path, body != NULL ? "application/json" : NULL, body,
                  body != NULL ? strlen(body) : 0, NULL, &r);
    long took = h_now_ms() - t0;
    fprintf(stderr, "  normal client: %s %s -> %ld in %ld ms\n", method, path, r.status, took);
    assert_int_equal(rc, 0);
    assert_int_equal(r.status, status);
    resp_free(&r);
}

static void test_slowloris(void **state)
{
    (void)state;
    int n = SLOWLORIS_DEFAULT;
    const char *env = getenv("AA_SLOWLORIS_CONNS");
    if (env != NULL && atoi(env) > 0)
        n = atoi(env);
    /* Both ends of every connection live on this machine: the test process and
     * the server (which inherits the raised limit) each need n descriptors. */
    long lim = raise_nofile_limit();
    if (lim < (long)n + 256) {
        /* A machine whose hard limit is lower: as many as fit, if still thousands. */
        fprintf(stderr, "RLIMIT_NOFILE hard limit %ld: %ld idle connections instead of %d\n", lim,
                lim - 256, n);
        n = (int)(lim - 256);
        if (n < 1000)
            fail_msg("RLIMIT_NOFILE is %ld even after raising the soft limit to the hard one: "
                     "too few descriptors for a thousand idle connections",
                     lim);
    }
    char tmo[16];
    snprintf(tmo, sizeof(tmo), "%d", IDLE_TIMEOUT_S);
    const char *const args[] = {"--connection-timeout-s", tmo, NULL};
    assert_int_equal(server_start(&srv, args), 0);
    long maxc = scrape_metric(srv.port, "accel_advisor_max_connections");
    fprintf(stderr,
            "slowloris: %d idle connections, default max_connections %ld, "
            "RLIMIT_NOFILE %ld, connection timeout %d s\n",
            n, maxc, lim, IDLE_TIMEOUT_S);
    if (maxc < (long)n + 64)
        fail_msg("the default max_connections (%ld) is below %d idle connections and a "
                 "normal client",
                 maxc, n);

    /* Idle connections, each with a different part of a request and no end. */
    static const char *const partial[] = {
        "G",
        "GET /healthz HTTP/1.1\r\n",
        "POST /v1/recommendations HTTP/1.1\r\nHost: x\r\nContent-Ty",
        "GET /v1/rules HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    };
    int *fds = calloc((size_t)n, sizeof(int));
    long *sent_at = calloc((size_t)n, sizeof(long));
    assert_non_null(fds);
    assert_non_null(sent_at);
    long t_open = h_now_ms();
    for (int i = 0; i < n; i++) {
        fds[i] = raw_connect(&srv);
        if (fds[i] < 0)
            fail_msg("connection %d of %d refused", i, n);
        const char *p = partial[i % 4];
        assert_int_equal(raw_send(fds[i], p, strlen(p)), 0);
        sent_at[i] = h_now_ms();
    }
    fprintf(stderr, "  %d connections opened and stalled in %ld ms\n", n, h_now_ms() - t_open);

    /* The server holds them all (its count includes the scrape's own), and a
     * normal client is served beside them. */
    long open_now = -1;
    while (open_now <= (long)n && h_now_ms() - sent_at[n - 1] < IDLE_TIMEOUT_S * 1000L) {
        open_now = scrape_metric(srv.port, "accel_advisor_open_connections");
        if (open_now <= (long)n)
            usleep(20000);
    }
    fprintf(stderr, "  accel_advisor_open_connections %ld while they stall\n", open_now);
    if (open_now <= (long)n)
        fail_msg("the server holds %ld connections, want %d and the scrape's", open_now, n);
    prompt(&srv, "GET", "/healthz", NULL, 200);
    prompt(&srv, "POST", "/v1/recommendations", workload, 200);
    prompt(&srv, "GET", "/v1/rules", NULL, 200);
    /* None closed before its timeout: one seen closed now, less than the timeout
     * after its last byte went out, was closed early. */
    for (int i = 0; i < n; i++) {
        long now = h_now_ms();
        if (peer_closed(fds[i]) && now - sent_at[i] < IDLE_TIMEOUT_S * 1000L)
            fail_msg("idle connection %d was closed before its timeout (after %ld ms)", i,
                     now - sent_at[i]);
    }

    /* The timeout closes every one of them. */
    long deadline = t_open + IDLE_TIMEOUT_S * 1000L + HANG_MS;
    int open_left = n;
    while (open_left > 0 && h_now_ms() < deadline) {
        usleep(100000);
        open_left = 0;
        for (int i = 0; i < n; i++) {
            if (fds[i] < 0)
                continue;
            if (peer_closed(fds[i])) {
                close(fds[i]);
                fds[i] = -1;
            } else {
                open_left++;
            }
        }
    }
    long closed_after = h_now_ms() - t_open;
    fprintf(stderr, "  %d of %d closed by the server %ld ms after they stalled\n", n - open_left, n,
            closed_after);
    if (open_left > 0)
        fail_msg("%d idle connections still open %ld ms after they stalled (timeout %d s)",
                 open_left, closed_after, IDLE_TIMEOUT_S);
    for (int i = 0; i < n; i++) {
        if (fds[i] >= 0)
            close(fds[i]);
    }
    free(fds);
    free(sent_at);
    /* Only the scrape's own connection is left, and the server still serves. */
    assert_int_equal(metric_wait(srv.port, "accel_advisor_open_connections", 1, HANG_MS), 1);
    prompt(&srv, "POST", "/v1/recommendations", workload, 200);
    assert_int_equal(server_stop(&srv, SIGTERM), 0);
}

/* Headers and the first `first` bytes of the workload on a raw connection. */
static struct rh_conn start_upload(struct server *s, size_t first)
{
    struct rh_conn c;
    rh_init(&c, s->port);
    assert_int_equal(rh_connect(&c), RH_OK);
    char head[256];
    int hl = snprintf(head, sizeof(head),
                      "POST /v1/recommendations HTTP/1.1\r\nHost: x\r\nX-Request-Id: slow-%zu\r\n"
                      "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                      first, strlen(workload));
    assert_true(rh_send(&c, head, (size_t)hl));
    assert_true(rh_send(&c, workload, first));
    return c;
}

static void test_slow_body(void **state)
{
    (void)state;
    const char *const args[] = {"--connection-timeout-s", "2", NULL};
    assert_int_equal(server_start(&srv, args), 0);

    /* One byte of the body, then a pause past the 2 s timeout: cut off, and not
     * before the timeout. */
    size_t sent = 1;
    struct rh_conn c = start_upload(&srv, sent);
    long t_last = h_now_ms();
    bool closed = false;
    while (!closed && h_now_ms() - t_last < 2000 + HANG_MS) {
        usleep(50000);
        closed = peer_closed(c.fd);
    }
    long after = h_now_ms() - t_last;
    fprintf(stderr, "slow body: closed after %zu of %zu bytes, %ld ms after the last byte\n", sent,
            strlen(workload), after);
    assert_true(closed);
    if (after < 1500 || after > 2000 + HANG_MS)
        fail_msg("closed %ld ms after the last byte; the timeout is 2 s", after);
    rh_free(&c);
    /* The access log has the request, cut off by the timeout. */
    assert_true(server_log_wait(&srv, 0, "\"request_id\":\"slow-1\"", HANG_MS));
    size_t at = 0;
    assert_true(server_log_find(&srv, 0, "\"request_id\":\"slow-1\"", &at));
    char *line = server_log_line(&srv, at);
    assert_non_null(line);
    bool timeout = strstr(line, "\"outcome\":\"timeout\"") != NULL;
    free(line);
    assert_true(timeout);

    /* The same body one byte every 50 ms (2.3 s in all, each pause within the
     * timeout): answered. */
    c = start_upload(&srv, 0);
    for (size_t i = 0; i < strlen(workload); i++) {
        assert_true(rh_send(&c, workload + i, 1));
        usleep(50000);
    }
    struct rh_resp r;
    assert_int_equal(rh_read(&c, false, HANG_MS, &r), RH_OK);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.request_id, "slow-0");
    rh_free(&c);

    /* A header trickled slower than the timeout is cut off the same way. */
    struct rh_conn h;
    rh_init(&h, srv.port);
    assert_int_equal(rh_connect(&h), RH_OK);
    assert_true(rh_send(&h, "GET /healthz HTTP/1.1\r\nHo", 25));
    long t0 = h_now_ms();
    while (!peer_closed(h.fd) && h_now_ms() - t0 < 2000 + HANG_MS)
        usleep(50000);
    long took = h_now_ms() - t0;
    fprintf(stderr, "stalled header: closed after %ld ms\n", took);
    if (took < 1500 || took > 2000 + HANG_MS)
        fail_msg("a stalled header was closed after %ld ms; the timeout is 2 s", took);
    rh_free(&h);

    struct resp ok;
    assert_int_equal(http_get(&srv, "/healthz", &ok), 0);
    assert_int_equal(ok.status, 200);
    resp_free(&ok);
    assert_int_equal(server_stop(&srv, SIGTERM), 0);
}

/* A byte more often than the idle timeout keeps a connection alive forever
 * against libmicrohttpd's timeout alone; request_timeout_s bounds the whole
 * request. Scaled down from the byte every 29 s under a 30 s timeout:
 * a byte every PAUSE_MS, idle timeout 4 s (far past the pauses, however late a
 * loaded machine sends), request timeout 2 s, so the only timeout that can cut
 * the request off is request_timeout_s. (Not 1 s: every request of the test,
 * the scrapes included, must be in within it, which a loaded machine could
 * stall past a second; one more timeout would break the count below.) */
#define PAUSE_MS          250
#define REQUEST_TIMEOUT_S 2
static void test_request_timeout(void **state)
{
    (void)state;
    char rto[16];
    snprintf(rto, sizeof(rto), "%d", REQUEST_TIMEOUT_S);
    const char *const args[] = {"--connection-timeout-s", "4", "--request-timeout-s", rto, NULL};
    assert_int_equal(server_start(&srv, args), 0);
    static const char head[] = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaa";
    char body_head[256];
    snprintf(body_head, sizeof(body_head),
             "POST /v1/recommendations HTTP/1.1\r\nHost: x\r\nX-Request-Id: trickle\r\n"
             "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
             strlen(workload));
    for (int phase = 0; phase < 2; phase++) {
        /* Phase 0 trickles a header, phase 1 a body after complete headers. */
        const char *text = phase == 0 ? head : workload;
        struct rh_conn c;
        rh_init(&c, srv.port);
        assert_int_equal(rh_connect(&c), RH_OK);
        if (phase == 1)
            assert_true(rh_send(&c, body_head, strlen(body_head)));
        long t0 = h_now_ms();
        size_t sent = 0;
        bool closed = false;
        while (!closed && sent < strlen(text) &&
               h_now_ms() - t0 < REQUEST_TIMEOUT_S * 1000L + HANG_MS) {
            if (!rh_send(&c, text + sent, 1))
                break;
            sent++;
            for (long w = h_now_ms(); !closed && h_now_ms() - w < PAUSE_MS;) {
                usleep(50000);
                closed = peer_closed(c.fd);
            }
        }
        long took = h_now_ms() - t0;
        fprintf(stderr, "request timeout (%s): closed after %zu bytes, %ld ms\n",
                phase == 0 ? "header" : "body", sent, took);
        if (!closed || sent >= strlen(text))
            fail_msg("a request trickled a byte every %d ms was not cut off (%ld ms)", PAUSE_MS,
                     took);
        rh_free(&c);
    }
    /* The body's request is in the access log as cut off by the deadline. */
    assert_true(server_log_wait(&srv, 0, "\"request_id\":\"trickle\"", HANG_MS));
    assert_true(server_log_find(&srv, 0, "\"outcome\":\"request_timeout\"", NULL));
    assert_int_equal(metric_wait(srv.port, "accel_advisor_request_timeouts_total", 2, HANG_MS), 2);
    /* A slow request that finishes in time is served. */
    prompt(&srv, "POST", "/v1/recommendations", workload, 200);
    assert_int_equal(server_stop(&srv, SIGTERM), 0);
}

int main(int argc, char **argv)
{
    if (harness_init(argc, argv) != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_slowloris, teardown),
        cmocka_unit_test_teardown(test_slow_body, teardown),
        cmocka_unit_test_teardown(test_request_timeout, teardown),
    };
    return HARNESS_RUN("timeouts", tests, NULL, NULL);
}
