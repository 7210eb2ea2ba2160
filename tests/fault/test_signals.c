/* tests/fault/test_signals.c -- the signals a process manager or a log rotator
 * may send that the server does not act on: SIGUSR1 (nginx and Envoy reopen
 * their logs on it) and SIGUSR2 killed `serve` and `agent` (their default
 * action, issue 35). Each must be logged and ignored, the process still
 * answering, and SIGTERM must still stop it cleanly (exit 0).
 *
 * usage: fault_signals ACCEL_ADVISOR_BINARY SOURCE_DIR */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

#define WAIT_MS 30000 /* a log line is immediate; this only bounds a hang */

static void survives(struct server *s)
{
    static const int sigs[] = {SIGUSR1, SIGUSR2, SIGUSR1};
    static const char *const lines[] = {"SIGUSR1: ignored", "SIGUSR2: ignored", "SIGUSR1: ignored"};
    for (size_t i = 0; i < 3; i++) {
        size_t from = server_log_len(s);
        assert_int_equal(kill(s->pid, sigs[i]), 0);
        assert_true(server_log_wait(s, from, lines[i], WAIT_MS));
        struct resp r;
        assert_int_equal(http_get(s, "/healthz", &r), 0);
        assert_int_equal(r.status, 200);
        resp_free(&r);
        assert_true(server_running(s));
    }
    assert_int_equal(server_stop_clean(s), 0);
}

static void test_serve(void **state)
{
    (void)state;
    struct server s;
    static const char *const args[] = {"--rules-watch=false", NULL};
    assert_int_equal(server_start(&s, args), 0);
    survives(&s);
}

static void test_agent(void **state)
{
    (void)state;
    struct server a;
    char sys[1024], dev[1024], proc[1024];
    snprintf(sys, sizeof(sys), "%s/tests/fixtures/hosts/h100x8/sys", h_source_dir);
    snprintf(dev, sizeof(dev), "%s/tests/fixtures/hosts/h100x8/dev", h_source_dir);
    snprintf(proc, sizeof(proc), "%s/tests/fixtures/hosts/h100x8/proc", h_source_dir);
    const char *args[] = {"--sysfs-root", sys,      "--dev-root", dev, "--proc-root",
                          proc,           "--nvml", "off",        NULL};
    assert_int_equal(agent_start(&a, args), 0);
    survives(&a);
}

int main(int argc, char **argv)
{
    if (harness_init(argc, argv) != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serve),
        cmocka_unit_test(test_agent),
    };
    return HARNESS_RUN("signals", tests, NULL, NULL);
}
