/* tests/fault/test_batch_budget.c -- a batch whose answer can never fit the
 * response budget (max_queued_response_bytes, all responses together) is
 * refused 413 `batch-too-large` with the reason as soon as its answer passes
 * the budget, not computed to the end and answered 503 with Retry-After (which
 * a client retries: with --max-batch 10000, 38 s of CPU each time, issue 35).
 * A batch that fits is still answered 200 under the same budget.
 *
 * usage: fault_batch_budget ACCEL_ADVISOR_BINARY SOURCE_DIR */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "rawhttp.h"

#define ANSWER_MS 120000 /* only bounds a hang */
/* About 76 KB of answer each (test_limits.c). */
#define WORKLOAD "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}}"

static int batch(int port, int n, struct rh_conn *c, struct rh_resp *r)
{
    struct rh_buf body = {0}, req = {0};
    assert_true(rh_buf_batch(&body, WORKLOAD, n));
    assert_true(rh_buf_request(&req, "POST", "/v1/recommendations:batch", "application/json", NULL,
                               body.p, body.len));
    rh_init(c, port);
    int rc = rh_exchange(c, req.p, req.len, false, ANSWER_MS, r);
    rh_buf_free(&body);
    rh_buf_free(&req);
    return rc;
}

static void test_never_fits(void **state)
{
    (void)state;
    struct server srv;
    static const char *const args[] = {
        "--max-queued-response-bytes", "1MiB", "--max-batch", "10000", "--rules-watch=false", NULL};
    assert_int_equal(server_start(&srv, args), 0);
    struct rh_conn c;
    struct rh_resp r;
    /* 2,000 answers of about 76 KB: 150 MB against a 1 MiB budget. */
    assert_int_equal(batch(srv.port, 2000, &c, &r), RH_OK);
    fprintf(stderr, "%d %.*s\n", r.status, (int)r.body_len, r.body);
    assert_int_equal(r.status, 413);
    assert_non_null(strstr(r.body, "tag:accel-advisor,2025:batch-too-large"));
    assert_non_null(strstr(r.body, "can never be sent"));
    const char *after = strstr(r.body, " after ");
    assert_non_null(after);
    int done = atoi(after + 7);
    /* Stopped once the answer passed 1 MiB: about 14 workloads, not 2,000. */
    assert_true(done >= 1 && done < 100);
    rh_free(&c);
    assert_int_equal(scrape_metric(srv.port, "accel_advisor_queued_response_rejections_total"), 0);
    /* A batch whose answer fits the budget is answered. */
    assert_int_equal(batch(srv.port, 5, &c, &r), RH_OK);
    assert_int_equal(r.status, 200);
    rh_free(&c);
    assert_int_equal(server_stop_clean(&srv), 0);
}

int main(int argc, char **argv)
{
    if (harness_init(argc, argv) != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_never_fits),
    };
    return HARNESS_RUN("batch_budget", tests, NULL, NULL);
}
