/* tests/integration/test_fleet.c -- the fleet end to end: two node agents
 * (`accel-advisor agent` on the fixture hosts h100x8 and mi300x-x2) and a stand-in
 * dcgm-exporter (tests/fixtures/fleet/dcgm-exporter.prom) scraped every second by
 * a real Prometheus (Debian's `prometheus`, scripts/deps.sh test) that this test
 * starts on 127.0.0.1 with a private directory; the service reads it with
 * --fleet-prometheus. GET /v1/fleet must say what the fixtures hold, a
 * recommendation with prefer_available must name what is free, and once
 * Prometheus is stopped answers must keep coming, marked stale. A second test
 * puts a hostile Prometheus (fleet_stub.c) in front of the service: malformed
 * JSON, a 10 MB body, a series storm, errors, a stall, a missing token file,
 * nothing listening; the last good snapshot must stay, and the bearer token go
 * to Prometheus and nowhere else.
 *
 * Every wait is for a condition, polled, with a generous overall cap: nothing
 * here assumes how long a scrape or a refresh takes.
 *
 * usage: integration_fleet ACCEL_ADVISOR_BINARY SOURCE_DIR
 * Owner: the fleet availability work (issue 19). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "fleet_stub.h"
#include "harness.h"

#ifndef FAKE_NVML_LIB
#error "FAKE_NVML_LIB must name the test NVML library"
#endif

/* The longest any awaited condition may take, however loaded the machine. */
#define CAP_MS  120000
#define POLL_MS 100

static const char one_node_job[] = "{\"task\":\"training\",\"model\":{\"parameters\":7e9},"
                                   "\"constraints\":{\"deployment\":\"on-prem\"},"
                                   "\"prefer_available\":true}";
static const char two_node_job[] = "{\"task\":\"training\",\"model\":{\"parameters\":7e10},"
                                   "\"constraints\":{\"deployment\":\"on-prem\","
                                   "\"max_accelerators\":16},\"prefer_available\":true}";

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    socklen_t al = sizeof(a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
    close(fd);
    return ntohs(a.sin_port);
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* The entry of `arr` whose string member `key` is `value`, or NULL. */
static const cJSON *find(const cJSON *arr, const char *key, const char *value)
{
    const cJSON *e = NULL;
    cJSON_ArrayForEach(e, arr)
    {
        const char *v = str_field(e, key);
        if (v != NULL && strcmp(v, value) == 0)
            return e;
    }
    return NULL;
}

/* ---- the service's answers ----------------------------------------------------- */

/* GET /v1/fleet: the body of a 200 (checked against the contract), or NULL for
 * the 503 before the first snapshot. */
static cJSON *fleet(struct server *s)
{
    struct resp r;
    assert_int_equal(http_get(s, "/v1/fleet", &r), 0);
    if (r.status == 503) {
        expect_problem(&r, 503, "tag:accel-advisor,2025:not-ready", "GET", "/v1/fleet");
        resp_free(&r);
        return NULL;
    }
    assert_int_equal(r.status, 200);
    check_contract(&r, "GET", "/v1/fleet");
    cJSON *j = resp_json(&r);
    resp_free(&r);
    assert_non_null(j);
    /* Stale exactly when older than the limit (age_seconds is rounded to the
     * millisecond, so a hair's breadth around the limit proves nothing). */
    double over = num(j, "age_seconds") - num(j, "stale_after_seconds");
    if (over > 0.01 || over < -0.01)
        assert_true(cJSON_IsTrue(get(j, "stale")) == (over > 0));
    return j;
}

/* Poll GET /v1/fleet until `ok` holds for its body; returns that body. */
static cJSON *await_fleet(struct server *s, bool (*ok)(const cJSON *, const void *),
                          const void *arg, const char *what)
{
    long end = h_now_ms() + CAP_MS;
    cJSON *last = NULL;
    for (;;) {
        cJSON *f = fleet(s);
        if (f != NULL && ok(f, arg)) {
            cJSON_Delete(last);
            return f;
        }
        if (f != NULL) {
            cJSON_Delete(last);
            last = f;
        }
        if (h_now_ms() > end) {
            char *text = last != NULL ? cJSON_Print(last) : NULL;
            fprintf(stderr, "last GET /v1/fleet: %s\n", text != NULL ? text : "(503)");
            free(text);
            server_log_dump(s);
            fail_msg("GET /v1/fleet never showed %s within %d ms", what, CAP_MS);
        }
        h_sleep_ms(POLL_MS);
    }
}

static cJSON *recommend(struct server *s, const char *body)
{
    struct resp r;
    assert_int_equal(http_post_json(s, "/v1/recommendations", body, &r), 0);
    assert_int_equal(r.status, 200);
    check_contract(&r, "POST", "/v1/recommendations");
    cJSON *j = resp_json(&r);
    resp_free(&r);
    assert_non_null(j);
    return j;
}

static bool has_warning(const cJSON *rec, const char *code)
{
    return find(get(rec, "warnings"), "code", code) != NULL;
}

/* The value of `series` in GET /metrics (-1 when absent). */
static double metric(struct server *s, const char *series)
{
    struct resp r;
    double v = -1;
    assert_int_equal(http_get(s, "/metrics", &r), 0);
    assert_int_equal(r.status, 200);
    if (!metric_find(r.body, series, &v))
        v = -1;
    resp_free(&r);
    return v;
}

/* Poll GET /metrics until `series` reaches `at_least`. */
static void await_metric(struct server *s, const char *series, double at_least)
{
    long end = h_now_ms() + CAP_MS;
    while (metric(s, series) < at_least) {
        if (h_now_ms() > end) {
            server_log_dump(s);
            fail_msg("%s never reached %g within %d ms", series, at_least, CAP_MS);
        }
        h_sleep_ms(POLL_MS);
    }
}

/* ---- Prometheus ------------------------------------------------------------------ */

struct prom {
    pid_t pid;
    int port;
};

/* Start Debian's prometheus with `config` in `dir` (its data there too) on a
 * free loopback port; returns once /-/ready answers 200. */
static void prom_start(struct prom *p, const char *dir, const char *config)
{
    char path[1024], data[1024], log[1024], conf_arg[1100], data_arg[1100], listen[64];
    snprintf(path, sizeof(path), "%s/prometheus.yml", dir);
    assert_int_equal(write_file(path, config, strlen(config)), 0);
    snprintf(data, sizeof(data), "%s/data", dir);
    snprintf(log, sizeof(log), "%s/prometheus.log", dir);
    snprintf(conf_arg, sizeof(conf_arg), "--config.file=%s", path);
    snprintf(data_arg, sizeof(data_arg), "--storage.tsdb.path=%s", data);
    p->port = free_port();
    snprintf(listen, sizeof(listen), "--web.listen-address=127.0.0.1:%d", p->port);
    p->pid = fork();
    assert_true(p->pid >= 0);
    if (p->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execlp("prometheus", "prometheus", conf_arg, data_arg, listen, (char *)NULL);
        _exit(127);
    }
    struct server at = {.port = p->port};
    long end = h_now_ms() + CAP_MS;
    for (;;) {
        struct resp r;
        int st = 0;
        if (waitpid(p->pid, &st, WNOHANG) == p->pid)
            fail_msg("prometheus exited (status %d): is Debian's prometheus installed "
                     "(scripts/deps.sh test)? See %s",
                     WIFEXITED(st) ? WEXITSTATUS(st) : -1, log);
        bool ready = http_get(&at, "/-/ready", &r) == 0 && r.status == 200;
        resp_free(&r);
        if (ready)
            return;
        if (h_now_ms() > end)
            fail_msg("prometheus not ready within %d ms (see %s)", CAP_MS, log);
        h_sleep_ms(POLL_MS);
    }
}

static void prom_stop(struct prom *p)
{
    if (p->pid <= 0)
        return;
    kill(p->pid, SIGTERM);
    int st = 0;
    long end = h_now_ms() + CAP_MS;
    while (waitpid(p->pid, &st, WNOHANG) != p->pid) {
        if (h_now_ms() > end) {
            kill(p->pid, SIGKILL);
            waitpid(p->pid, &st, 0);
            break;
        }
        h_sleep_ms(POLL_MS);
    }
    p->pid = 0;
}

/* An agent on fixture host `host` labelled `node`. */
static void start_agent(struct server *a, const char *host, const char *node, const char *nvml)
{
    static char sys[3][1024], dev[3][1024], proc[3][1024];
    static int k;
    int i = k++ % 3;
    snprintf(sys[i], sizeof(sys[i]), "%s/tests/fixtures/hosts/%s/sys", h_source_dir, host);
    snprintf(dev[i], sizeof(dev[i]), "%s/tests/fixtures/hosts/%s/dev", h_source_dir, host);
    snprintf(proc[i], sizeof(proc[i]), "%s/tests/fixtures/hosts/%s/proc", h_source_dir, host);
    const char *args[] = {
        "--sysfs-root", sys[i], "--dev-root",       dev[i], "--proc-root", proc[i], "--nvml", nvml,
        "--node-name",  node,   "--probe-interval", "1s",   NULL};
    assert_int_equal(agent_start(a, args), 0);
}

/* ---- the fleet of the fixtures ------------------------------------------------------ */

/* What the fixtures hold, once Prometheus has scraped every target: the H100s
 * of the h100x8 agent (3 free) and of dcgm-exporter's dgx-01..03 (8 + 5 + 0
 * free), hgx-1's GPUs from dcgm-exporter left to its agent; the mi300x-x2
 * agent's 2 MI300X (1 free); dcgm-exporter's 2 L4 (1 free) and 2 A100 40GB (no
 * catalog id). */
static bool fixtures_seen(const cJSON *f, const void *arg)
{
    (void)arg;
    const cJSON *accs = get(f, "accelerators");
    const cJSON *h100 = find(accs, "accelerator", "h100");
    const cJSON *mi = find(accs, "accelerator", "mi300x");
    const cJSON *l4 = find(accs, "accelerator", "l4");
    const cJSON *dcgm = find(get(f, "sources"), "name", "dcgm-exporter");
    return h100 != NULL && mi != NULL && l4 != NULL && num(h100, "devices") == 32 &&
           num(mi, "devices") == 2 && num(l4, "devices") == 2 && num(dcgm, "duplicates") == 8;
}

/* Until Prometheus's answers hold a series the snapshot is warming, never
 * fresh and empty; once a series has come it is not warming. Each body polled
 * on the way to the fixtures is checked (arg: a bool, set once a series came). */
static bool fixtures_seen_warming(const cJSON *f, const void *arg)
{
    bool *scraped = (bool *)(uintptr_t)arg;
    double series = 0;
    const cJSON *src = NULL;
    cJSON_ArrayForEach(src, get(f, "sources"))
    {
        series += num(src, "series");
    }
    bool warming = cJSON_IsTrue(get(f, "warming"));
    if (series == 0 && !*scraped)
        assert_true(warming);
    *scraped |= series > 0;
    if (*scraped)
        assert_false(warming);
    return fixtures_seen(f, NULL);
}

static void check_fixtures(const cJSON *f)
{
    const cJSON *accs = get(f, "accelerators");
    assert_int_equal(cJSON_GetArraySize(accs), 3);
    const cJSON *h100 = find(accs, "accelerator", "h100");
    assert_true(num(h100, "free") == 16);
    assert_true(num(h100, "nodes") == 4);
    assert_true(num(h100, "free_nodes") == 3);
    assert_true(num(h100, "whole_free_nodes") == 1); /* dgx-01 */
    assert_string_equal(str_field(h100, "vendor"), "nvidia");
    assert_string_equal(str_field(h100, "summary"), "16 of 32 H100 free on 3 nodes");
    assert_true(num(get(h100, "devices_by_source"), "agent") == 8);
    assert_true(num(get(h100, "devices_by_source"), "dcgm-exporter") == 24);
    const cJSON *west = find(get(h100, "clusters"), "cluster", "west");
    assert_non_null(west);
    assert_true(num(west, "devices") == 32 && num(west, "free") == 16 && num(west, "nodes") == 4);
    const cJSON *mi = find(accs, "accelerator", "mi300x");
    assert_true(num(mi, "free") == 1 && num(mi, "nodes") == 1);
    const cJSON *east = find(get(mi, "clusters"), "cluster", "east");
    assert_true(num(east, "devices") == 2 && num(east, "free") == 1);
    const cJSON *l4 = find(accs, "accelerator", "l4");
    assert_true(num(l4, "free") == 1); /* the other holds 60% of its memory */
    const cJSON *a100 = find(get(f, "unmapped"), "name", "NVIDIA A100-SXM4-40GB");
    assert_non_null(a100);
    assert_string_equal(str_field(a100, "source"), "dcgm-exporter");
    assert_true(num(a100, "devices") == 2);
    const cJSON *agent = find(get(f, "sources"), "name", "agent");
    assert_true(num(agent, "series") == 10 && num(agent, "devices") == 10);
    assert_true(cJSON_IsNull(get(agent, "last_error")));
    const cJSON *dcgm = find(get(f, "sources"), "name", "dcgm-exporter");
    assert_true(num(dcgm, "series") == 108); /* 36 GPUs x 3 fields */
    assert_true(num(dcgm, "devices") == 28);
    assert_non_null(strstr(str_field(dcgm, "query"), "DCGM_FI_DEV_GPU_UTIL"));
    assert_string_equal(str_field(f, "cluster_label"), "cluster");
}

static bool is_stale(const cJSON *f, const void *arg)
{
    (void)arg;
    return cJSON_IsTrue(get(f, "stale"));
}

/* The H100 of the one-node job: free for its 1 x 8 H100 on dgx-01. */
static bool named_free(const cJSON *rec)
{
    const cJSON *h100 = rec_candidate(rec, "h100");
    const cJSON *why = rec_reason(h100, "probe.available");
    return why != NULL && strcmp(str_field(why, "message"),
                                 "16 of 32 H100 free on 3 nodes now: room for 1 x 8 H100.") == 0;
}

static const char *prom_config(char *buf, size_t len, int h100_agent, int mi_agent, int dcgm)
{
    snprintf(buf, len,
             "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
             "scrape_configs:\n"
             "  - job_name: accel-advisor-agent\n    static_configs:\n"
             "      - targets: ['127.0.0.1:%d']\n        labels: {cluster: west}\n"
             "      - targets: ['127.0.0.1:%d']\n        labels: {cluster: east}\n"
             "  - job_name: dcgm-exporter\n    static_configs:\n"
             "      - targets: ['127.0.0.1:%d']\n        labels: {cluster: west}\n",
             h100_agent, mi_agent, dcgm);
    return buf;
}

static void test_prometheus(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_non_null(dir);
    char path[1024], conf[2048], url[64];
    snprintf(path, sizeof(path), "%s/tests/fixtures/fleet/dcgm-exporter.prom", h_source_dir);
    size_t len = 0;
    char *exposition = read_file(path, &len);
    assert_non_null(exposition);
    struct stub dcgm;
    assert_int_equal(stub_start(&dcgm), 0);
    stub_rule(&dcgm, 0, "GET /metrics", 200, "text/plain; version=0.0.4", exposition, len, 0);
    free(exposition);
    snprintf(path, sizeof(path), "%s/tests/fixtures/hosts/h100x8/nvml.conf", h_source_dir);
    setenv("FAKE_NVML_CONFIG", path, 1);
    struct server h100, mi, s;
    start_agent(&h100, "h100x8", "hgx-1", FAKE_NVML_LIB);
    start_agent(&mi, "mi300x-x2", "mi-1", "off");
    struct prom p;
    prom_start(&p, dir, prom_config(conf, sizeof(conf), h100.port, mi.port, dcgm.port));
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", p.port);
    const char *args[] = {
        "--fleet-prometheus", url, "--fleet-interval", "1s", "--fleet-stale-after", "5s", NULL};
    assert_int_equal(server_start(&s, args), 0);

    bool scraped = false;
    cJSON *f = await_fleet(&s, fixtures_seen_warming, &scraped, "every fixture device");
    assert_true(scraped);
    check_fixtures(f);
    assert_string_equal(str_field(f, "prometheus"), url);
    cJSON_Delete(f);

    /* prefer_available: the one-node job's H100 configuration is free now (a whole
     * node); the two-node job's is not (one whole free node). */
    cJSON *rec = NULL;
    for (long end = h_now_ms() + CAP_MS; rec == NULL || !named_free(rec); h_sleep_ms(POLL_MS)) {
        cJSON_Delete(rec);
        if (h_now_ms() > end)
            fail_msg("no recommendation named the free H100 within %d ms", CAP_MS);
        rec = recommend(&s, one_node_job);
    }
    const cJSON *av = get(rec_candidate(rec, "h100"), "availability");
    assert_true(cJSON_IsTrue(get(av, "configuration_free")));
    assert_string_equal(str_field(av, "source"), "prometheus");
    assert_string_equal(
        str_field(rec_reason(rec_candidate(rec, "h100"), "probe.available"), "source"),
        "prometheus");
    assert_null(rec_reason(rec_candidate(rec, "mi300x"), "probe.available"));
    cJSON_Delete(rec);
    rec = recommend(&s, two_node_job);
    const cJSON *h2 = rec_candidate(rec, "h100");
    if (num(get(h2, "availability"), "attached") == 32) /* the fixtures' snapshot */
        assert_null(rec_reason(h2, "probe.available"));
    cJSON_Delete(rec);

    /* The fleet's metrics pass promtool. */
    struct resp m;
    assert_int_equal(http_get(&s, "/metrics", &m), 0);
    assert_non_null(strstr(m.body, "accel_advisor_fleet_query_duration_seconds_bucket{"));
    assert_non_null(strstr(m.body, "accel_advisor_fleet_devices{model=\"h100\",state=\"seen\"}"));
    check_promtool(&m);
    resp_free(&m);

    /* Prometheus goes away: answers keep coming from the last snapshot, marked
     * stale once it is older than fleet_stale_after. Once a query has failed,
     * no refresh publishes again, so the snapshot in use then is the last. */
    prom_stop(&p);
    await_metric(&s, "accel_advisor_fleet_refreshes_total{result=\"failure\"}", 1);
    cJSON *kept = fleet(&s);
    assert_non_null(kept);
    f = await_fleet(&s, is_stale, NULL, "stale: true");
    assert_string_equal(str_field(f, "taken_at"), str_field(kept, "taken_at"));
    assert_true(num(get(f, "refresh"), "failures") >= 1);
    assert_non_null(strstr(str_field(get(f, "refresh"), "last_error"), "connect"));
    const cJSON *kept_h100 = find(get(kept, "accelerators"), "accelerator", "h100");
    rec = recommend(&s, one_node_job);
    av = get(rec_candidate(rec, "h100"), "availability");
    assert_true(cJSON_IsTrue(get(av, "stale")));
    assert_true(num(av, "age_seconds") > 5);
    assert_true(num(av, "attached") == (kept_h100 != NULL ? num(kept_h100, "devices") : 0));
    assert_true(has_warning(rec, "availability_stale"));
    cJSON_Delete(rec);
    assert_true(metric(&s, "accel_advisor_fleet_stale") == 1);
    assert_true(metric(&s, "accel_advisor_fleet_query_errors_total{source=\"agent\","
                           "kind=\"connect\"}") >= 1);
    cJSON_Delete(kept);
    cJSON_Delete(f);
    remove_tree(dir);
    free(dir);
    assert_int_equal(server_stop_clean(&s), 0);
    assert_int_equal(server_stop(&h100, SIGTERM), 0);
    assert_int_equal(server_stop(&mi, SIGTERM), 0);
    stub_stop(&dcgm);
}

/* ---- a hostile Prometheus ----------------------------------------------------------- */

#define TOKEN      "s3cr3t-fleet-token"
#define MAX_SERIES 1000
/* Peak resident memory of the service after the hostile answers: its own ~15 MiB
 * and one 8 MiB answer, with room to spare; far under what an unbounded 10 MB
 * body or storm parsed whole would take. */
#define FLEET_PEAK_KIB (64 * 1024)
#define EMPTY          "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}"

/* An answer to the agents' query with `n` free H100 on node n1 (n > 8 spreads
 * them over more nodes). Owned. */
static char *agent_answer(size_t n, size_t *len)
{
    size_t cap = 128 + n * 160;
    char *b = malloc(cap);
    assert_non_null(b);
    size_t k = (size_t)snprintf(b, cap,
                                "{\"status\":\"success\",\"data\":{\"resultType\":"
                                "\"vector\",\"result\":[");
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf(b + k, cap - k,
                              "%s{\"metric\":{\"node\":\"n%zu\",\"device\":\"0000:%02zx:00.0\","
                              "\"model\":\"h100\",\"vendor\":\"nvidia\"},\"value\":[1.7e9,\"1\"]}",
                              i > 0 ? "," : "", 1 + i / 8, i % 8);
    k += (size_t)snprintf(b + k, cap - k, "]}}");
    *len = k;
    return b;
}

static bool good_snapshot(const cJSON *f, const void *arg)
{
    (void)arg;
    const cJSON *h100 = find(get(f, "accelerators"), "accelerator", "h100");
    return h100 != NULL && num(h100, "devices") == 8 && !cJSON_IsTrue(get(f, "stale")) &&
           cJSON_IsNull(get(get(f, "refresh"), "last_error"));
}

/* Start a stand-in Prometheus answering the agents' query with 8 free H100 and
 * dcgm-exporter's with no series; returns the agents' answer (owned, *len
 * bytes), which a test may serve again. */
static char *good_prometheus(struct stub *prom, size_t *len)
{
    assert_int_equal(stub_start(prom), 0);
    char *good = agent_answer(8, len);
    stub_rule(prom, 0, "accel_advisor_probe_device_free", 200, "application/json", good, *len, 0);
    stub_rule(prom, 1, "DCGM_FI_DEV", 200, "application/json", EMPTY, strlen(EMPTY), 0);
    return good;
}

/* Serve `body` to the agents' query until the service counts an error of
 * `kind` and says `why` (a refresh already under way when the answer changed
 * may still count the one before); the last good snapshot must still answer. */
static void hostile(struct server *s, struct stub *prom, int status, const char *ctype,
                    const char *body, size_t len, unsigned delay_ms, const char *kind,
                    const char *why)
{
    char series[160], last[512] = "";
    snprintf(series, sizeof(series),
             "accel_advisor_fleet_query_errors_total{source=\"agent\",kind=\"%s\"}", kind);
    double before = metric(s, series);
    stub_rule(prom, 0, "accel_advisor_probe_device_free", status, ctype, body, len, delay_ms);
    for (long end = h_now_ms() + CAP_MS;; h_sleep_ms(POLL_MS)) {
        cJSON *f = fleet(s);
        assert_non_null(f);
        const cJSON *h100 = find(get(f, "accelerators"), "accelerator", "h100");
        assert_true(num(h100, "devices") == 8); /* the last good snapshot */
        const char *err = str_field(get(f, "refresh"), "last_error");
        snprintf(last, sizeof(last), "%s", err != NULL ? err : "(null)");
        cJSON_Delete(f);
        if (strstr(last, why) != NULL && metric(s, series) >= before + 1)
            break;
        if (h_now_ms() > end)
            fail_msg("%s: no error counted saying \"%s\" within %d ms; last_error \"%s\"", kind,
                     why, CAP_MS, last);
    }
    cJSON_Delete(recommend(s, one_node_job));
}

static void test_hostile(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_non_null(dir);
    char token[1024], url[64], max[16];
    snprintf(token, sizeof(token), "%s/token", dir);
    assert_int_equal(write_file(token, TOKEN "\n", strlen(TOKEN) + 1), 0);
    struct stub prom;
    size_t len = 0;
    char *good = good_prometheus(&prom, &len);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/", prom.port);
    snprintf(max, sizeof(max), "%d", MAX_SERIES);
    const char *args[] = {"--fleet-prometheus",
                          url,
                          "--fleet-interval",
                          "1s",
                          "--fleet-timeout",
                          "2s",
                          "--fleet-stale-after",
                          "3s",
                          "--fleet-max-series",
                          max,
                          "--fleet-bearer-token-file",
                          token,
                          NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    cJSON_Delete(await_fleet(&s, good_snapshot, NULL, "the good answer"));
    char *req = stub_last_request(&prom);
    assert_non_null(strstr(req, "Authorization: Bearer " TOKEN "\r\n"));
    assert_non_null(strstr(req, "GET /api/v1/query?query=")); /* one slash after the base URL */
    free(req);

    static const char malformed[] = "{\"status\":\"success\",\"data\":{\"resultType\":\"vec";
    static const char matrix[] = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\","
                                 "\"result\":[]}}";
    static const char refused[] = "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":"
                                  "\"1:1: parse error: unexpected end of input\"}";
    static const char nested[] = "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]";
    hostile(&s, &prom, 200, "application/json", malformed, strlen(malformed), 0, "malformed",
            "not JSON");
    hostile(&s, &prom, 200, "application/json", matrix, strlen(matrix), 0, "malformed",
            "result type matrix");
    hostile(&s, &prom, 200, "application/json", nested, strlen(nested), 0, "malformed", "not JSON");
    hostile(&s, &prom, 200, "application/json", refused, strlen(refused), 0, "query", "bad_data");
    hostile(&s, &prom, 422, "application/json", refused, strlen(refused), 0, "http",
            "HTTP status 422: Prometheus: bad_data");
    hostile(&s, &prom, 503, "text/html", "<h1>down</h1>", 13, 0, "http", "HTTP status 503");

    /* 10 MB: past fleet_max_response_bytes (8 MiB), read no further. What the
     * server spends on it and on the storm below (from /proc, every refresh
     * that read one included) stays within a request's CPU budget each. */
    double cpu0 = server_cpu_ms(&s);
    size_t big = 10u * 1000u * 1000u;
    char *huge = malloc(big);
    assert_non_null(huge);
    memset(huge, ' ', big);
    memcpy(huge, "{\"status\":\"success\",\"data\":", 27);
    hostile(&s, &prom, 200, "application/json", huge, big, 0, "too_large", "larger than 8388608");
    free(huge);
    /* A series storm: one more series than fleet_max_series. */
    size_t storm_len = 0;
    char *storm = agent_answer(MAX_SERIES + 1, &storm_len);
    hostile(&s, &prom, 200, "application/json", storm, storm_len, 0, "series",
            "more than 1000 series: past the limit");
    free(storm);
    double cpu = server_cpu_ms(&s) - cpu0;
    fprintf(stderr, "a 10 MB answer and a series storm: %.1f ms of the server's CPU\n", cpu);
    if (cpu0 < 0 || cpu > 2 * REQUEST_CPU_MS)
        fail_msg("a 10 MB answer and a series storm cost %.1f ms of CPU (budget %.0f)", cpu,
                 2 * REQUEST_CPU_MS);
#ifndef AA_SANITIZED
    /* Neither was kept: the 10 MB body was cut at 8 MiB, the storm refused by its
     * count. (Under the sanitizers resident memory is theirs: not checked.) */
    long peak = server_peak_rss_kib(&s);
    if (peak <= 0 || peak > FLEET_PEAK_KIB)
        fail_msg("peak resident memory %ld KiB (limit %d KiB)", peak, FLEET_PEAK_KIB);
#endif

    /* A stalled Prometheus: the query times out, and answers do not wait for it. */
    long stalled_end = h_now_ms() + CAP_MS;
    stub_rule(&prom, 0, "accel_advisor_probe_device_free", 200, "application/json", good, len,
              60000);
    while (stub_held(&prom) == 0) {
        if (h_now_ms() > stalled_end)
            fail_msg("the service never asked the stalled Prometheus");
        h_sleep_ms(POLL_MS);
    }
    cJSON *rec = recommend(&s, one_node_job); /* while its query hangs */
    assert_non_null(rec_candidate(rec, "h100"));
    cJSON_Delete(rec);
    hostile(&s, &prom, 200, "application/json", good, len, 60000, "timeout", "timeout");

    /* The token file goes away: no query is sent without it. */
    static const char token_errors[] =
        "accel_advisor_fleet_query_errors_total{source=\"agent\",kind=\"token\"}";
    assert_int_equal(unlink(token), 0);
    stub_rule(&prom, 0, "accel_advisor_probe_device_free", 200, "application/json", good, len, 0);
    await_metric(&s, token_errors, 1);
    unsigned long asked = stub_requests(&prom);
    await_metric(&s, token_errors, metric(&s, token_errors) + 1); /* a whole refresh more */
    assert_int_equal(stub_requests(&prom), asked);
    /* A FIFO in its place, which no one writes: refused before it is opened for
     * reading (it blocked the refresh for good), each refresh again. */
    assert_int_equal(mkfifo(token, 0600), 0);
    await_metric(&s, token_errors, metric(&s, token_errors) + 2);
    assert_int_equal(stub_requests(&prom), asked);
    cJSON *fifo = fleet(&s);
    const char *fifo_err = str_field(get(fifo, "refresh"), "last_error");
    if (fifo_err == NULL || strstr(fifo_err, "not a regular file") == NULL)
        fail_msg("a FIFO token file: last_error \"%s\"", fifo_err != NULL ? fifo_err : "(null)");
    cJSON_Delete(fifo);
    assert_int_equal(unlink(token), 0);

    /* Everything failed for longer than fleet_stale_after: stale, still answering. */
    cJSON *f = await_fleet(&s, is_stale, NULL, "stale: true");
    assert_true(num(find(get(f, "accelerators"), "accelerator", "h100"), "devices") == 8);
    cJSON_Delete(f);
    rec = recommend(&s, one_node_job);
    assert_true(has_warning(rec, "availability_stale"));
    assert_true(cJSON_IsTrue(get(get(rec_candidate(rec, "h100"), "availability"), "stale")));
    cJSON_Delete(rec);

    /* Back to health: the token returns, the next refresh is fresh again. */
    assert_int_equal(write_file(token, TOKEN, strlen(TOKEN)), 0);
    cJSON_Delete(await_fleet(&s, good_snapshot, NULL, "a fresh snapshot after recovery"));
    rec = recommend(&s, one_node_job);
    assert_false(has_warning(rec, "availability_stale"));
    cJSON_Delete(rec);

    /* Nothing listens any more. */
    stub_stop(&prom);
    await_metric(&s, "accel_advisor_fleet_query_errors_total{source=\"agent\",kind=\"connect\"}",
                 1);
    assert_false(server_log_find(&s, 0, TOKEN, NULL)); /* never logged */
    free(good);
    remove_tree(dir);
    free(dir);
    assert_int_equal(server_stop_clean(&s), 0);
}

/* A CA file that is not a regular file (a FIFO no one writes, which the TLS
 * library would block on) is refused before each query, which is never sent. */
static void test_ca_file(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_non_null(dir);
    char ca[1024], url[64];
    snprintf(ca, sizeof(ca), "%s/ca.pem", dir);
    assert_int_equal(mkfifo(ca, 0600), 0);
    struct stub prom;
    size_t len = 0;
    char *good = good_prometheus(&prom, &len);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", prom.port);
    const char *args[] = {
        "--fleet-prometheus", url, "--fleet-interval", "1s", "--fleet-ca-file", ca, NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    await_metric(&s, "accel_advisor_fleet_query_errors_total{source=\"agent\",kind=\"connect\"}",
                 2);
    assert_int_equal(stub_requests(&prom), 0);
    /* The refresh's failure is logged with why. */
    assert_true(server_log_wait(&s, 0, "not a regular file", CAP_MS));
    assert_int_equal(server_stop_clean(&s), 0);
    stub_stop(&prom);
    free(good);
    remove_tree(dir);
    free(dir);
}

/* With a fleet every body carries its availability, so the response cache's key
 * holds the fleet snapshot's generation beside the rules version and the probe's:
 * a repeated request within one snapshot is a hit (the key was longer than the
 * cache took, and never hit). */
static void test_cache_with_fleet(void **state)
{
    (void)state;
    struct stub prom;
    size_t len = 0;
    char *good = good_prometheus(&prom, &len);
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", prom.port);
    /* One snapshot for the whole test: the next refresh is an hour away. */
    const char *args[] = {
        "--fleet-prometheus", url, "--fleet-interval", "1h", "--fleet-stale-after", "1h", NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    cJSON_Delete(await_fleet(&s, good_snapshot, NULL, "the good answer"));
    static const char hits[] = "accel_advisor_recommendation_cache_requests_total{result=\"hit\"}";
    assert_true(metric(&s, hits) == 0);
    cJSON *first = recommend(&s, one_node_job);
    cJSON *second = recommend(&s, one_node_job);
    assert_true(metric(&s, hits) == 1);
    /* The same body but for its request id, the fleet's availability included. */
    assert_true(num(get(rec_candidate(second, "h100"), "availability"), "attached") == 8);
    cJSON_DeleteItemFromObjectCaseSensitive(first, "request_id");
    cJSON_DeleteItemFromObjectCaseSensitive(second, "request_id");
    assert_true(cJSON_Compare(first, second, true));
    cJSON_Delete(first);
    cJSON_Delete(second);
    assert_int_equal(server_stop_clean(&s), 0);
    stub_stop(&prom);
    free(good);
}

/* ---- warming, fleet_only and the ranking ---------------------------------------- */

static bool is_warming(const cJSON *f, const void *arg)
{
    (void)arg;
    return cJSON_IsTrue(get(f, "warming"));
}

static const char cloud_prefer_job[] = "{\"task\":\"training\",\"model\":{\"parameters\":7e9},"
                                       "\"prefer_available\":true}";
static const char fleet_only_job[] = "{\"task\":\"training\",\"model\":{\"parameters\":7e9},"
                                     "\"constraints\":{\"fleet_only\":true}}";

/* Before Prometheus has scraped anything it answers both queries with no series:
 * the fleet is warming (GET /v1/fleet, the metric, every answer), and fleet_only
 * has no pick and says why. Once the agents' series come, the free H100 is the
 * only fleet_only candidate and, with prefer_available, the pick over cheaper
 * parts the fleet lacks; an empty answer after that is no longer warming. */
static void test_warming_and_fleet_only(void **state)
{
    (void)state;
    struct stub prom;
    assert_int_equal(stub_start(&prom), 0);
    stub_rule(&prom, 0, "accel_advisor_probe_device_free", 200, "application/json", EMPTY,
              strlen(EMPTY), 0);
    stub_rule(&prom, 1, "DCGM_FI_DEV", 200, "application/json", EMPTY, strlen(EMPTY), 0);
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", prom.port);
    const char *args[] = {
        "--fleet-prometheus", url, "--fleet-interval", "1s", "--fleet-stale-after", "1h", NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    cJSON *f = await_fleet(&s, is_warming, NULL, "warming: true");
    assert_false(cJSON_IsTrue(get(f, "stale")));
    cJSON_Delete(f);
    assert_true(metric(&s, "accel_advisor_fleet_warming") == 1);
    cJSON *rec = recommend(&s, fleet_only_job);
    assert_string_equal(str_field(rec, "status"), "no_configuration_meets_targets");
    assert_non_null(strstr(str_field(rec, "status_message"), "has not seen a device yet"));
    assert_true(has_warning(rec, "availability_warming"));
    assert_true(cJSON_IsNull(get(rec, "why")));
    cJSON_Delete(rec);
    rec = recommend(&s, cloud_prefer_job);
    assert_true(cJSON_IsTrue(get(get(rec_candidate(rec, "h100"), "availability"), "warming")));
    assert_true(has_warning(rec, "availability_warming"));
    cJSON_Delete(rec);

    size_t len = 0;
    char *good = agent_answer(8, &len);
    stub_rule(&prom, 0, "accel_advisor_probe_device_free", 200, "application/json", good, len, 0);
    cJSON_Delete(await_fleet(&s, good_snapshot, NULL, "the good answer"));
    f = fleet(&s);
    assert_false(cJSON_IsTrue(get(f, "warming")));
    cJSON_Delete(f);
    assert_true(metric(&s, "accel_advisor_fleet_warming") == 0);
    rec = recommend(&s, fleet_only_job);
    assert_string_equal(str_field(rec, "status"), "ok");
    const cJSON *recs = get(rec, "recommendations");
    assert_int_equal(cJSON_GetArraySize(recs), 1);
    assert_string_equal(str_field(cJSON_GetArrayItem(recs, 0), "accelerator"), "h100");
    assert_true(cJSON_IsTrue(get(get(get(rec, "workload"), "constraints"), "fleet_only")));
    assert_non_null(find(get(rec, "excluded"), "rule_id", "constraints.fleet_only"));
    assert_false(has_warning(rec, "availability_warming"));
    cJSON_Delete(rec);
    rec = recommend(&s, cloud_prefer_job);
    recs = get(rec, "recommendations");
    assert_string_equal(str_field(cJSON_GetArrayItem(recs, 0), "accelerator"), "h100");
    assert_true(cJSON_GetArraySize(recs) > 1);
    assert_non_null(strstr(str_field(rec, "why"), "not free now"));
    cJSON_Delete(rec);

    /* Empty again (the agents went away): empty, not warming. */
    stub_rule(&prom, 0, "accel_advisor_probe_device_free", 200, "application/json", EMPTY,
              strlen(EMPTY), 0);
    for (long end = h_now_ms() + CAP_MS;; h_sleep_ms(POLL_MS)) {
        f = fleet(&s);
        bool empty = cJSON_GetArraySize(get(f, "accelerators")) == 0;
        bool warming = cJSON_IsTrue(get(f, "warming"));
        cJSON_Delete(f);
        if (empty) {
            assert_false(warming);
            break;
        }
        if (h_now_ms() > end)
            fail_msg("GET /v1/fleet never emptied within %d ms", CAP_MS);
    }
    assert_true(metric(&s, "accel_advisor_fleet_warming") == 0);
    assert_int_equal(server_stop_clean(&s), 0);
    stub_stop(&prom);
    free(good);
}

int main(int argc, char **argv)
{
    int rc = harness_init(argc, argv);
    if (rc != 0)
        return rc;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostile),          cmocka_unit_test(test_ca_file),
        cmocka_unit_test(test_cache_with_fleet), cmocka_unit_test(test_warming_and_fleet_only),
        cmocka_unit_test(test_prometheus),
    };
    return HARNESS_RUN("integration.fleet", tests, NULL, NULL);
}
