/* tests/fault/test_memory.c -- the pod's memory limit holds at the documented
 * worst case (docs/operations.md, "Memory").
 *
 * The server runs with the container arguments of docker/k8s/deployment.yaml
 * (addresses moved to loopback), the response cache is filled, and every budget
 * is driven to its end at once:
 *   - every connection up to the hard limit (max_connections and its margin)
 *     holds a request header of 28 KB that never ends, filling libmicrohttpd's
 *     32 KiB buffer of the connection;
 *   - request bodies of max_body_bytes, sent but for their last byte, fill the
 *     buffered-body budget;
 *   - clients that never read ask for batches past the queued-response budget.
 *     Across a network a slow reader's socket buffer stays small and most of a
 *     2 MB answer (a batch of the Deployment's max_batch, 100) waits in the
 *     server; on loopback the kernel takes a whole 2 MB answer into the socket,
 *     so the test raises max_batch to 400 (8 MB answers, past the kernel's 4 MiB
 *     per socket): the budget fills as it would, and the answers being built
 *     are larger than the Deployment's (the measure errs high);
 *   - the costliest body to parse, a max_body_bytes array of zeros (about 36
 *     bytes of parsed tree per byte), is sent again and again by two clients per
 *     worker thread, so every worker parses one all the time.
 * The timeouts are raised (they bound no memory), so that however slow a loaded
 * machine makes the parses, no held connection is closed before the peak is
 * measured; the measure lasts until a parse per worker thread has ended in it.
 * Peak resident memory (VmHWM) plus the most the kernel may hold in the send
 * buffers of the server's connections (every connection up to both hard limits,
 * each twice send_buffer_bytes and a 64 KiB segment: harness.h's
 * kernel_send_bound), both charged to the pod's memory,
 * must stay under the Deployment's memory limit; the send queues measured at the
 * peak (/proc/net/tcp) must be within that bound. Every figure is printed for
 * docs/operations.md. Under the sanitizers the
 * server's memory is the sanitizers' (shadow, quarantine): the load is driven
 * and the budgets checked, not the limit.
 *
 * usage: fault_memory ACCEL_ADVISOR_BINARY SOURCE_DIR */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "dc/yaml.h"
#include "harness.h"
#include "rawhttp.h"

#define MAX_ARGS       64
#define TEST_MAX_BATCH "400"  /* answers of about 8 MB: see above */
#define HEADER_PAD     28000  /* bytes of a never-ending header line */
#define MEASURE_MS     3000   /* the worst case held at least this long ... */
#define HELD_TIMEOUT_S "3600" /* ... and until the parsers parsed again: timeouts far off */
#define MEMORY_HANG_MS 600000 /* a bound for a hang: ASan takes minutes here */

static struct server srv;

/* The container of docker/k8s/deployment.yaml: its serve flags and limits. */
struct deployment {
    char *args[MAX_ARGS + 1];
    int n;
    double limit_bytes;
    double request_bytes;
};

/* "128Mi", "1Gi", "200M" in bytes; -1 when not a quantity. */
static double quantity(const char *q)
{
    static const struct {
        const char *suffix;
        double mul;
    } units[] = {{"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"k", 1e3}, {"M", 1e6},
                 {"G", 1e9},     {"", 1.0}};
    char *end = NULL;
    double v = q != NULL ? strtod(q, &end) : -1;
    for (size_t i = 0; q != NULL && end != q && i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(end, units[i].suffix) == 0)
            return v * units[i].mul;
    }
    return -1;
}

static const cJSON *at(const cJSON *o, const char *const *path)
{
    for (; o != NULL && *path != NULL; path++)
        o = cJSON_GetObjectItemCaseSensitive(o, *path);
    return o;
}

/* The Deployment's container arguments, with its addresses moved to loopback
 * port 0 and its rules directory dropped (the embedded rules are rules/). */
static void read_deployment(struct deployment *d)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/docker/k8s/deployment.yaml", h_source_dir);
    size_t len = 0;
    char *text = read_file(path, &len);
    assert_non_null(text);
    dc_yaml_doc *doc = NULL;
    struct dc_error err;
    assert_int_equal(dc_yaml_parse(text, len, path, &doc, &err), DC_OK);
    static const char *const spec[] = {"spec", "template", "spec", "containers", NULL};
    const cJSON *c = cJSON_GetArrayItem(at(dc_yaml_root(doc), spec), 0);
    static const char *const limit[] = {"resources", "limits", "memory", NULL};
    static const char *const request[] = {"resources", "requests", "memory", NULL};
    d->limit_bytes = quantity(cJSON_GetStringValue(at(c, limit)));
    d->request_bytes = quantity(cJSON_GetStringValue(at(c, request)));
    assert_true(d->limit_bytes > 0 && d->request_bytes > 0);
    d->n = 0;
    const cJSON *a = NULL;
    bool skip = false;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(c, "args"))
    {
        const char *v = cJSON_GetStringValue(a);
        assert_non_null(v);
        assert_true(d->n < MAX_ARGS - 7);
        if (skip) {
            skip = false;
            continue;
        }
        if (strcmp(v, "--rules") == 0) {
            skip = true;
            continue;
        }
        bool addr = d->n > 0 && (strcmp(d->args[d->n - 1], "--listen") == 0 ||
                                 strcmp(d->args[d->n - 1], "--admin-listen") == 0);
        d->args[d->n++] = strdup(addr ? "127.0.0.1:0" : v);
    }
    d->args[d->n++] = strdup("--max-batch");
    d->args[d->n++] = strdup(TEST_MAX_BATCH);
    d->args[d->n++] = strdup("--connection-timeout-s");
    d->args[d->n++] = strdup(HELD_TIMEOUT_S);
    d->args[d->n++] = strdup("--request-timeout-s");
    d->args[d->n++] = strdup(HELD_TIMEOUT_S);
    d->args[d->n] = NULL;
    dc_yaml_doc_free(doc);
    free(text);
}

/* A setting's effective value, from the server's start-up config line. */
static long setting(const char *name)
{
    char needle[96];
    size_t at_ = 0;
    snprintf(needle, sizeof(needle), "\"%s\":\"", name);
    assert_true(server_log_find(&srv, 0, needle, &at_));
    char *line = server_log_line(&srv, at_);
    assert_non_null(line);
    const char *p = strstr(line, needle);
    long v = p != NULL ? strtol(p + strlen(needle), NULL, 10) : -1;
    free(line);
    return v;
}

/* ---- the drivers --------------------------------------------------------------------- */

static atomic_bool stop;
static atomic_long parsed;

struct parser {
    pthread_t thread;
    const struct rh_buf *req;
};

/* Send the costliest body to parse again and again: a 400 each time. */
static void *parser_main(void *arg)
{
    struct parser *p = arg;
    struct rh_conn c;
    rh_init(&c, srv.port);
    while (!atomic_load(&stop)) {
        struct rh_resp r;
        if (rh_exchange(&c, p->req->p, p->req->len, false, MEMORY_HANG_MS, &r) == RH_OK &&
            r.status == 400)
            atomic_fetch_add(&parsed, 1);
    }
    rh_free(&c);
    return NULL;
}

/* The settings of the running server, and the worst case driven against them. */
struct load {
    long max_body, max_batch, max_conns, threads, body_budget, resp_budget, cache_max, hard;
    struct rh_buf parse_req, batch_req;
    long n_parsers, n_readers, n_bodies, n_headers;
    struct parser *parsers;
    struct rh_conn *readers, *bodies;
    int *headers;
};

/* Requests between two looks at the cache while it is filled. */
#define FILL_WINDOW 128

/* The response cache, full: distinct recommendations until it takes no more,
 * which is when its entry count stops growing (each new answer evicts an older
 * one). Its bytes stop short of cache_max_bytes: the cache is split into shards
 * that each fill to their share of it, up to an answer (about 80 KB) short.
 * Waiting for the bytes to reach the limit instead never ended before the cap
 * of 20,000 requests, 40 s of CPU under ASan. Returns the requests sent. */
static int fill_cache(const struct load *L)
{
    long entries_before = -1;
    int i = 0;
    while (i < 20000) {
        char w[160];
        snprintf(w, sizeof(w),
                 "{\"name\":\"fill-%d\",\"task\":\"inference\","
                 "\"model\":{\"parameters\":%de8}}",
                 i, 1 + i % 1000);
        struct resp r;
        assert_int_equal(http_post_json(&srv, "/v1/recommendations", w, &r), 0);
        assert_int_equal(r.status, 200);
        resp_free(&r);
        if (++i % FILL_WINDOW != 0)
            continue;
        /* FILL_WINDOW new answers and not one entry more: every shard that took
         * one evicted. (With service/src/server_cache.c's 16 shards, one with
         * room is missed by all of them with odds (15/16)^128; it is then short
         * of full by less than one answer.) */
        long entries = scrape_metric(srv.admin_port, "accel_advisor_recommendation_cache_entries");
        long cached = scrape_metric(srv.admin_port, "accel_advisor_recommendation_cache_bytes");
        if (cached > L->cache_max / 2 && entries <= entries_before)
            break;
        entries_before = entries;
    }
    return i;
}

/* The parsers, first among the connections (they must be served): two per
 * worker thread, each sending "[0,0,...,0] " of max_body bytes. */
static void start_parsers(struct load *L)
{
    char *zeros = malloc((size_t)L->max_body);
    zeros[0] = '[';
    for (long i = 1; i + 2 < L->max_body; i += 2)
        memcpy(zeros + i, "0,", 2);
    zeros[L->max_body - 3] = '0';
    zeros[L->max_body - 2] = ']';
    zeros[L->max_body - 1] = ' ';
    rh_buf_request(&L->parse_req, "POST", "/v1/recommendations", "application/json", NULL, zeros,
                   (size_t)L->max_body);
    free(zeros);
    L->n_parsers = 2 * L->threads;
    L->parsers = calloc((size_t)L->n_parsers, sizeof(*L->parsers));
    atomic_store(&stop, false);
    for (long i = 0; i < L->n_parsers; i++) {
        L->parsers[i].req = &L->parse_req;
        assert_int_equal(pthread_create(&L->parsers[i].thread, NULL, parser_main, &L->parsers[i]),
                         0);
    }
    while (atomic_load(&parsed) < L->n_parsers)
        usleep(10000);
}

/* Slow readers of the largest answers, past the queued-response budget; bodies
 * held but for their last byte, up to the buffered-body budget (the parsers'
 * bodies take part of it while they are read); a never-ending header on every
 * other connection up to the hard limit. */
static void hold_the_rest(struct load *L)
{
    struct rh_buf batch = {0};
    rh_buf_str(&batch, "{\"workloads\":[");
    for (long i = 0; i < L->max_batch; i++)
        rh_buf_printf(&batch, "%s{\"task\":\"inference\",\"model\":{\"parameters\":%lde8}}",
                      i > 0 ? "," : "", 1 + i);
    rh_buf_str(&batch, "]}");
    rh_buf_request(&L->batch_req, "POST", "/v1/recommendations:batch", "application/json", NULL,
                   batch.p, batch.len);
    rh_buf_free(&batch);
    L->n_readers = L->resp_budget / (8L << 20) + 3;
    L->readers = calloc((size_t)L->n_readers, sizeof(*L->readers));
    for (long i = 0; i < L->n_readers; i++) {
        rh_init(&L->readers[i], srv.port);
        assert_int_equal(rh_connect_rcvbuf(&L->readers[i], 4096), RH_OK);
        assert_true(rh_send(&L->readers[i], L->batch_req.p, L->batch_req.len));
    }
    L->n_bodies = L->body_budget / (L->max_body + 1) - L->n_parsers;
    L->bodies = calloc((size_t)L->n_bodies, sizeof(*L->bodies));
    for (long i = 0; i < L->n_bodies; i++) {
        rh_init(&L->bodies[i], srv.port);
        assert_int_equal(rh_connect(&L->bodies[i]), RH_OK);
        assert_true(rh_send(&L->bodies[i], L->parse_req.p, L->parse_req.len - 1));
    }
    L->n_headers = L->hard - L->n_parsers - L->n_readers - L->n_bodies - 4; /* scrapes' room */
    L->headers = calloc((size_t)L->n_headers, sizeof(int));
    char *pad = malloc(HEADER_PAD + 64);
    int pl = snprintf(pad, 64, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ");
    memset(pad + pl, 'a', HEADER_PAD);
    for (long i = 0; i < L->n_headers; i++) {
        L->headers[i] = raw_connect(&srv);
        assert_true(L->headers[i] >= 0);
        assert_int_equal(raw_send(L->headers[i], pad, (size_t)pl + HEADER_PAD), 0);
    }
    free(pad);
}

static void release(struct load *L)
{
    atomic_store(&stop, true);
    for (long i = 0; i < L->n_headers; i++)
        close(L->headers[i]);
    for (long i = 0; i < L->n_readers; i++)
        rh_free(&L->readers[i]);
    for (long i = 0; i < L->n_bodies; i++)
        rh_free(&L->bodies[i]);
    for (long i = 0; i < L->n_parsers; i++)
        pthread_join(L->parsers[i].thread, NULL);
    free(L->headers);
    free(L->readers);
    free(L->bodies);
    free(L->parsers);
    rh_buf_free(&L->parse_req);
    rh_buf_free(&L->batch_req);
}

static void test_worst_case(void **state)
{
    (void)state;
    struct deployment d;
    struct load L;
    memset(&L, 0, sizeof(L));
    read_deployment(&d);
    long nofile = raise_nofile_limit();
    const char *args[MAX_ARGS + 1];
    for (int i = 0; i <= d.n; i++)
        args[i] = d.args[i];
    assert_int_equal(server_start(&srv, args), 0);
    assert_true(srv.admin_port > 0);
    L.max_body = setting("max_body_bytes");
    L.max_batch = setting("max_batch");
    L.max_conns = setting("max_connections");
    L.threads = setting("threads");
    L.body_budget = setting("max_buffered_body_bytes");
    L.resp_budget = setting("max_queued_response_bytes");
    L.cache_max = setting("cache_max_bytes");
    L.hard = L.max_conns + L.max_conns / 8 + 16;
    long idle_kib = server_rss_kib(&srv);
    if (nofile < L.hard + 256)
        fail_msg("RLIMIT_NOFILE %ld is too low for %ld connections", nofile, L.hard);
    int filled = fill_cache(&L);
    start_parsers(&L);
    hold_the_rest(&L);

    /* Held for MEASURE_MS once the server has taken every connection in, read
     * the held bodies' headers (each body is reserved whole then) and queued the
     * slow readers' answers, the parsers running all the while (the bound only
     * tells a hang: an ASan build on a loaded machine is slow). */
    for (long w0 = h_now_ms(); h_now_ms() - w0 < MEMORY_HANG_MS;) {
        if (scrape_metric(srv.admin_port, "accel_advisor_open_connections") >= L.hard - 8 &&
            scrape_metric(srv.admin_port, "accel_advisor_queued_response_bytes") >
                L.resp_budget / 2 &&
            scrape_metric(srv.admin_port, "accel_advisor_buffered_body_bytes") >=
                L.n_bodies * (L.max_body + 1))
            break;
        usleep(50000);
    }
    long peak = 0, kernel = 0, t0 = h_now_ms(), parsed_at_t0 = atomic_load(&parsed);
    while (h_now_ms() - t0 < MEASURE_MS || atomic_load(&parsed) < parsed_at_t0 + L.threads) {
        if (h_now_ms() - t0 > MEMORY_HANG_MS)
            fail_msg("the parsers parsed %ld arrays in %d ms", atomic_load(&parsed) - parsed_at_t0,
                     MEMORY_HANG_MS);
        long rss = server_rss_kib(&srv), tx = tcp_send_queue_bytes(srv.port, NULL);
        peak = rss > peak ? rss : peak;
        kernel = tx > kernel ? tx : kernel;
        usleep(100000);
    }
    /* The kernel's share, bounded per connection: the API's and the admin
     * listener's hard limits (ADMIN_MAX_CONNECTIONS 64 and its margin). */
    long sndbuf = setting("send_buffer_bytes");
    long kernel_bound_kib = (L.hard + 64 + 64 / 8 + 16) * kernel_send_bound(sndbuf) / 1024;
    long held = scrape_metric(srv.admin_port, "accel_advisor_buffered_body_bytes");
    long cached = scrape_metric(srv.admin_port, "accel_advisor_recommendation_cache_bytes");
    long queued = scrape_metric(srv.admin_port, "accel_advisor_queued_response_bytes");
    long open = scrape_metric(srv.admin_port, "accel_advisor_open_connections");
    long parses = atomic_load(&parsed), hwm_kib = server_peak_rss_kib(&srv);
    fprintf(stderr,
            "worst case with the Deployment's arguments (threads %ld, max_connections %ld, "
            "hard limit %ld, max_body_bytes %ld, budgets %ld / %ld bytes):\n"
            "  %ld connections open: %ld headers of %d bytes, %ld bodies held, %ld slow "
            "readers, %ld parsers (%ld arrays of %ld bytes parsed)\n"
            "  cached answers %ld bytes (full after %d distinct requests), buffered bodies %ld "
            "bytes, queued responses %ld bytes\n"
            "  resident: idle %ld KiB, sampled peak %ld KiB, VmHWM %ld KiB; limit %.0f KiB "
            "(request %.0f KiB)\n"
            "  kernel send queues: %ld KiB at the peak, at most %ld KiB (send_buffer_bytes %ld); "
            "VmHWM + that bound %ld KiB\n",
            L.threads, L.max_conns, L.hard, L.max_body, L.body_budget, L.resp_budget, open,
            L.n_headers, HEADER_PAD, L.n_bodies, L.n_readers, L.n_parsers, parses, L.max_body,
            cached, filled, held, queued, idle_kib, peak, hwm_kib, d.limit_bytes / 1024,
            d.request_bytes / 1024, kernel / 1024, kernel_bound_kib, sndbuf,
            hwm_kib + kernel_bound_kib);
    release(&L);

    /* The worst case was reached: every budget in use, every slot taken. */
    assert_true(open >= L.hard - 8);
    assert_true(held >= L.n_bodies * (L.max_body + 1) && held <= L.body_budget);
    assert_true(queued > L.resp_budget / 2 && queued <= L.resp_budget);
    assert_true(cached > L.cache_max / 2);
    assert_true(parses >= parsed_at_t0 + L.threads && parsed_at_t0 >= L.n_parsers);
    assert_true(sndbuf > 0 && kernel / 1024 <= kernel_bound_kib);
#ifndef AA_SANITIZED
    if (hwm_kib < 0 || (double)(hwm_kib + kernel_bound_kib) * 1024 >= d.limit_bytes)
        fail_msg("peak resident memory %ld KiB and at most %ld KiB of kernel send buffers are "
                 "not under the Deployment's limit %.0f KiB",
                 hwm_kib, kernel_bound_kib, d.limit_bytes / 1024);
#endif
    assert_int_equal(server_stop(&srv, SIGTERM), 0);
    for (int i = 0; i < d.n; i++)
        free(d.args[i]);
}

static int teardown(void **state)
{
    (void)state;
    return server_kill_if_running(&srv);
}

int main(int argc, char **argv)
{
    if (harness_init(argc, argv) != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_worst_case, teardown),
    };
    return HARNESS_RUN("memory", tests, NULL, NULL);
}
