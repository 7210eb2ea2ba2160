/* tests/fault/test_agent.c -- the node agent (`accel-advisor agent`) under the
 * API's slow-client, framing and query-argument tests (issue 35): 32 idle
 * connections, or 40 that send their header a byte at a time, used to leave its
 * /metrics and /healthz unanswered (a 32-connection limit, only an idle
 * timeout, no eviction); a duplicate Content-Length, a Content-Length with
 * Transfer-Encoding or a chunked body's trailer got a hidden second request
 * served; 600 query arguments got no answer. Every wait is for an event (an
 * answer, a close), with a cap that only bounds a hang.
 *
 * usage: fault_agent ACCEL_ADVISOR_BINARY SOURCE_DIR */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "harness.h"
#include "rawhttp.h"

#define READ_MS 30000 /* an answer is immediate; this only bounds a hang */
#define IDLE    110   /* idle connections: past the agent's 64 and its margin */
#define SLOW    40    /* connections that never finish their header */

static int smuggled;

/* An agent on the h100x8 fixture host with `extra` settings (NULL-terminated). */
static void start_agent(struct server *a, const char *const *extra)
{
    static char sys[1024], dev[1024], proc[1024];
    snprintf(sys, sizeof(sys), "%s/tests/fixtures/hosts/h100x8/sys", h_source_dir);
    snprintf(dev, sizeof(dev), "%s/tests/fixtures/hosts/h100x8/dev", h_source_dir);
    snprintf(proc, sizeof(proc), "%s/tests/fixtures/hosts/h100x8/proc", h_source_dir);
    const char *args[32] = {"--sysfs-root", sys,      "--dev-root", dev, "--proc-root",
                            proc,           "--nvml", "off",        NULL};
    size_t n = 8;
    for (size_t i = 0; extra != NULL && extra[i] != NULL && n < 31; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    assert_int_equal(agent_start(a, args), 0);
}

/* GET `path` on a fresh connection to `port`: its status (an error: < 0). */
static int get_status(int port, const char *path)
{
    char req[160];
    snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path);
    struct rh_conn c;
    struct rh_resp r;
    rh_init(&c, port);
    int rc = rh_exchange(&c, req, strlen(req), false, READ_MS, &r);
    int status = rc == RH_OK ? r.status : rc;
    rh_free(&c);
    return status;
}

/* Until /healthz on `port` is answered 200 (bounded). */
static void await_200(int port)
{
    long until = h_now_ms() + READ_MS;
    while (get_status(port, "/healthz") != 200)
        assert_true(h_now_ms() < until);
}

static int open_conn(int port)
{
    struct rh_conn c;
    rh_init(&c, port);
    assert_int_equal(rh_connect(&c), RH_OK);
    return c.fd; /* owned by the caller */
}

/* Idle connections and connections that never finish their header: /metrics and
 * /healthz are still answered on the metrics port and on the health port, the
 * timeouts long enough that only the eviction of the oldest waiting connection
 * makes room. */
static void test_flood(void **state)
{
    (void)state;
    struct server a;
    static const char *const extra[] = {"--admin-listen",
                                        "127.0.0.1:0",
                                        "--request-timeout-s",
                                        "600",
                                        "--connection-timeout-s",
                                        "600",
                                        NULL};
    start_agent(&a, extra);
    assert_true(a.admin_port > 0);
    int fds[IDLE + SLOW];
    for (int i = 0; i < SLOW; i++) {
        fds[i] = open_conn(a.port);
        assert_true(send(fds[i], "GET /metrics HTTP/1.1\r\nHo", 25, MSG_NOSIGNAL) == 25);
    }
    for (int i = SLOW; i < IDLE + SLOW; i++)
        fds[i] = open_conn(a.port);
    /* A burst the agent has not yet taken in (connections accepted but not yet
     * started by its thread) is answered 503 at once, as on the admin listener:
     * wait for the first 200, then every request must be served. */
    await_200(a.port);
    for (int round = 0; round < 3; round++) {
        assert_int_equal(get_status(a.port, "/metrics"), 200);
        assert_int_equal(get_status(a.port, "/healthz"), 200);
        assert_int_equal(get_status(a.admin_port, "/healthz"), 200);
    }
    /* The health port under its own flood answers as well. */
    int hfds[IDLE];
    for (int i = 0; i < IDLE; i++)
        hfds[i] = open_conn(a.admin_port);
    await_200(a.admin_port);
    assert_int_equal(get_status(a.admin_port, "/healthz"), 200);
    /* Other paths and /readyz stay unserved on the agent. */
    assert_int_equal(get_status(a.port, "/readyz"), 404);
    assert_int_equal(get_status(a.port, "/v1/rules"), 404);
    for (int i = 0; i < IDLE + SLOW; i++)
        close(fds[i]);
    for (int i = 0; i < IDLE; i++)
        close(hfds[i]);
    assert_int_equal(server_stop_clean(&a), 0);
}

/* A client that sends its header a byte every 100 ms, never idle long enough for
 * the idle timeout, is cut off at the request time limit (1 s here). */
static void test_request_time_limit(void **state)
{
    (void)state;
    struct server a;
    static const char *const extra[] = {"--request-timeout-s", "1", "--connection-timeout-s", "600",
                                        NULL};
    start_agent(&a, extra);
    static const char head[] = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaa"
                               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    int fd = open_conn(a.port);
    long t0 = h_now_ms();
    bool closed = false;
    for (size_t i = 0; i < sizeof(head) - 1 && !closed; i++) {
        if (send(fd, head + i, 1, MSG_NOSIGNAL) != 1) {
            closed = true;
            break;
        }
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 100) == 1) {
            char b[256];
            ssize_t n = recv(fd, b, sizeof(b), 0);
            closed = n <= 0; /* cut off without an answer */
            assert_true(n <= 0);
        }
    }
    long took = h_now_ms() - t0;
    close(fd);
    fprintf(stderr, "a slow header was cut off after %ld ms\n", took);
    assert_true(closed);
    assert_true(took >= 900 && took < 8000);
    assert_int_equal(server_stop_clean(&a), 0);
}

/* `first` then a follow-up GET on one connection: one `status` answer, the
 * connection closed, the follow-up never served. */
static void expect_refused(struct server *a, const char *what, const char *first, int status)
{
    char follow[160], id[32], buf[16384];
    snprintf(id, sizeof(id), "agent-smuggled-%d", ++smuggled);
    snprintf(follow, sizeof(follow), "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Request-Id: %s\r\n\r\n",
             id);
    struct rh_buf req = {0};
    assert_true(rh_buf_str(&req, first) && rh_buf_str(&req, follow));
    struct rh_conn c;
    rh_init(&c, a->port);
    assert_int_equal(rh_connect(&c), RH_OK);
    (void)rh_send(&c, req.p, req.len);
    bool closed = false;
    size_t len = rh_read_to_close(&c, buf, sizeof(buf), READ_MS, &closed);
    rh_free(&c);
    rh_buf_free(&req);
    char want[32];
    snprintf(want, sizeof(want), "HTTP/1.1 %d ", status);
    fprintf(stderr, "%-40s %.*s, %zu status lines, %s\n", what, (int)strcspn(buf, "\r"), buf,
            rh_status_lines(buf), closed ? "closed" : "left open");
    if (len == 0 || strncmp(buf, want, strlen(want)) != 0 || rh_status_lines(buf) != 1 || !closed)
        fail_msg("%s: want one %d and the connection closed; got: %s", what, status, buf);
    assert_true(server_log_wait(a, 0, "\"event\":\"request\"", READ_MS));
    if (server_log_find(a, 0, id, NULL))
        fail_msg("%s: the follow-up %s was served", what, id);
}

#define POST "POST /metrics HTTP/1.1\r\nHost: x\r\n"

static void test_framing(void **state)
{
    (void)state;
    struct server a;
    start_agent(&a, NULL);
    expect_refused(&a, "Content-Length twice",
                   POST "Content-Length: 2\r\nContent-Length: 90\r\n\r\n{}", 400);
    expect_refused(&a, "Content-Length with Transfer-Encoding",
                   POST "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400);
    /* On a route that reads (and drops) a body: a POST is refused 405 at its
     * headers, before its body. */
    expect_refused(&a, "a trailer with an empty field name",
                   "GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                   "2\r\n{}\r\n0\r\nX-T: 1\r\n: v\r\n",
                   400);
    expect_refused(&a, "an empty field name in the header",
                   "GET /healthz HTTP/1.1\r\nHost: x\r\n: v\r\n", 400);
    /* 600 query arguments: answered 414 (they got no answer). */
    struct rh_buf t = {0};
    assert_true(rh_buf_str(&t, "GET /metrics?a=1"));
    for (int i = 1; i < 600; i++)
        assert_true(rh_buf_str(&t, "&a=1"));
    assert_true(rh_buf_str(&t, " HTTP/1.1\r\nHost: x\r\n\r\n"));
    expect_refused(&a, "600 query arguments", t.p, 414);
    rh_buf_free(&t);
    /* Still serving, a connection kept alive. */
    assert_int_equal(get_status(a.port, "/metrics"), 200);
    assert_true(server_running(&a));
    assert_int_equal(server_stop_clean(&a), 0);
}

int main(int argc, char **argv)
{
    if (harness_init(argc, argv) != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flood),
        cmocka_unit_test(test_request_time_limit),
        cmocka_unit_test(test_framing),
    };
    return HARNESS_RUN("agent", tests, NULL, NULL);
}
