/* tests/integration/test_lifecycle.c -- the server's life: rule-set reloads
 * (SIGHUP, directory changes, Kubernetes ConfigMap swaps, lost watches) while
 * requests run, a broken rule set on reload, readiness while draining, and
 * SIGTERM with requests in flight.
 *
 * usage: integration_lifecycle ACCEL_ADVISOR_BINARY SOURCE_DIR */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "harness.h"

static char *rules_version(struct server *s)
{
    struct resp r;
    if (http_get(s, "/v1/rules", &r) != 0 || r.status != 200) {
        resp_free(&r);
        return NULL;
    }
    cJSON *j = resp_json(&r);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "rules_version");
    char *out = cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
    cJSON_Delete(j);
    resp_free(&r);
    return out;
}

/* Wait until the served version differs from `old`; returns the new one. */
static char *wait_version_change(struct server *s, const char *old, int timeout_ms)
{
    for (int waited = 0; waited < timeout_ms; waited += 20) {
        char *v = rules_version(s);
        if (v != NULL && strcmp(v, old) != 0)
            return v;
        free(v);
        usleep(20000);
    }
    return NULL;
}

/* ---- a load of requests in the background --------------------------------------------- */

struct load {
    struct server *s;
    atomic_bool stop;
    atomic_int ok;
    atomic_int failed;
    pthread_t thread[2];
};

static void *load_main(void *arg)
{
    struct load *l = arg;
    const char *body = "{\"task\":\"training\",\"model\":{\"parameters\":7e9}}";
    int i = 0;
    while (!atomic_load(&l->stop)) {
        struct resp r;
        /* Vary the body so the cache does not answer: every request runs the
         * rule set that is current when it arrives. */
        char b[160];
        snprintf(b, sizeof(b), "{\"name\":\"load-%d\",%s", i++, body + 1);
        int rc = http_post_json(l->s, "/v1/recommendations", b, &r);
        if (rc == 0 && r.status == 200) {
            atomic_fetch_add(&l->ok, 1);
        } else {
            fprintf(stderr, "load: request failed: rc %d status %ld %s\n", rc, r.status,
                    r.body != NULL ? r.body : "");
            atomic_fetch_add(&l->failed, 1);
        }
        resp_free(&r);
    }
    return NULL;
}

static void load_start(struct load *l, struct server *s)
{
    memset(l, 0, sizeof(*l));
    l->s = s;
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&l->thread[i], NULL, load_main, l), 0);
}

/* Wait until the load has had `n` more requests answered 200 than `since`. */
static void load_wait(struct load *l, int since, int n)
{
    for (long waited = 0; atomic_load(&l->ok) < since + n; waited += 10) {
        if (waited > HANG_MS || atomic_load(&l->failed) > 0)
            fail_msg("the load had %d requests answered (%d failed), waiting for %d",
                     atomic_load(&l->ok), atomic_load(&l->failed), since + n);
        usleep(10000);
    }
}

static void load_stop(struct load *l)
{
    atomic_store(&l->stop, true);
    for (int i = 0; i < 2; i++)
        pthread_join(l->thread[i], NULL);
}

/* ---- tests ------------------------------------------------------------------------ */

static void test_sighup_reload_during_requests(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_int_equal(copy_rules(dir), 0);
    const char *const args[] = {"--rules", dir, "--rules-watch=false", NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    char *v0 = rules_version(&s);
    assert_non_null(v0);
    struct load l;
    load_start(&l, &s);
    load_wait(&l, 0, 5); /* requests before the first reload */
    char *prev = strdup(v0);
    for (int n = 1; n <= 3; n++) {
        size_t mark = server_log_len(&s);
        assert_int_equal(touch_rules(dir, n), 0);
        kill(s.pid, SIGHUP);
        assert_true(
            server_log_wait(&s, mark, "\"result\":\"success\",\"trigger\":\"signal\"", HANG_MS));
        char *v = wait_version_change(&s, prev, HANG_MS);
        assert_non_null(v);
        free(prev);
        prev = v;
        load_wait(&l, atomic_load(&l.ok), 2); /* requests on the new set */
    }
    load_stop(&l);
    fprintf(stderr, "reload under load: %d requests ok, %d failed\n", atomic_load(&l.ok),
            atomic_load(&l.failed));
    assert_int_equal(atomic_load(&l.failed), 0);
    assert_true(atomic_load(&l.ok) > 10);
    /* Counted just after the swap a client can see. */
    assert_true(
        metrics_wait(s.port, "accel_advisor_rule_reloads_total{result=\"success\"} 4\n", HANG_MS));
    free(prev);
    free(v0);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
    remove_tree(dir);
    free(dir);
}

static void test_broken_reload_keeps_last_good(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_int_equal(copy_rules(dir), 0);
    const char *const args[] = {"--rules", dir, "--rules-watch=false", NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    char *v0 = rules_version(&s);
    assert_non_null(v0);
    struct load l;
    load_start(&l, &s);
    /* Replace rules.yaml with the broken fixture (one mistake of each kind). */
    char src[1024], dst[1024];
    snprintf(src, sizeof(src), "%s/tests/fixtures/rulesets/broken/rules.yaml", h_source_dir);
    snprintf(dst, sizeof(dst), "%s/rules.yaml", dir);
    size_t len = 0;
    char *broken = read_file(src, &len);
    assert_non_null(broken);
    assert_int_equal(write_file(dst, broken, len), 0);
    free(broken);
    size_t mark = server_log_len(&s);
    kill(s.pid, SIGHUP);
    assert_true(server_log_wait(&s, mark, "\"result\":\"failure\"", HANG_MS));
    assert_true(server_log_wait(&s, mark, "\"event\":\"rules_problem\"", HANG_MS));
    load_wait(&l, atomic_load(&l.ok), 5); /* requests served after the refused reload */
    load_stop(&l);
    assert_int_equal(atomic_load(&l.failed), 0);
    char *v1 = rules_version(&s);
    assert_non_null(v1);
    assert_string_equal(v0, v1); /* the last good set still serves */
    struct resp m;
    assert_int_equal(http_get(&s, "/metrics", &m), 0);
    assert_non_null(strstr(m.body, "accel_advisor_rule_reloads_total{result=\"failure\"} 1\n"));
    resp_free(&m);
    assert_int_equal(http_get(&s, "/readyz", &m), 0);
    assert_int_equal(m.status, 200);
    resp_free(&m);
    free(v0);
    free(v1);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
    remove_tree(dir);
    free(dir);
}

static void test_watch_directory(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_int_equal(copy_rules(dir), 0);
    const char *const args[] = {"--rules", dir, "--rules-debounce-ms", "100", NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    assert_true(server_log_wait(&s, 0, "\"event\":\"rules_watch\"", HANG_MS));
    char *v0 = rules_version(&s);
    assert_int_equal(touch_rules(dir, 7), 0);
    char *v1 = wait_version_change(&s, v0, HANG_MS);
    assert_non_null(v1);
    /* The server swaps the new set in, then logs: the line may come a moment
     * after a client sees the new version. */
    assert_true(server_log_wait(&s, 0, "\"trigger\":\"watch\"", HANG_MS));
    free(v0);
    free(v1);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
    remove_tree(dir);
    free(dir);
}

/* A ConfigMap volume: files are links through ..data to a timestamped
 * directory, and an update renames a new ..data link over the old one. */
static void make_configmap_generation(const char *dir, const char *gen, int n)
{
    char path[1024], link[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, gen);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(copy_rules(path), 0);
    if (n > 0)
        assert_int_equal(touch_rules(path, n), 0);
    snprintf(link, sizeof(link), "%s/..data_tmp", dir);
    assert_int_equal(symlink(gen, link), 0);
    snprintf(path, sizeof(path), "%s/..data", dir);
    assert_int_equal(rename(link, path), 0);
}

static void test_watch_configmap_swap(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    make_configmap_generation(dir, "..2025_01_01_00_00_00.000000001", 0);
    static const char *const files[] = {"catalog.yaml", "sizing.yaml", "rules.yaml", "prices.yaml"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char target[256], link[1024];
        snprintf(target, sizeof(target), "..data/%s", files[i]);
        snprintf(link, sizeof(link), "%s/%s", dir, files[i]);
        assert_int_equal(symlink(target, link), 0);
    }
    const char *const args[] = {"--rules", dir, "--rules-debounce-ms", "100", NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    char *v0 = rules_version(&s);
    assert_non_null(v0);
    make_configmap_generation(dir, "..2025_01_01_00_05_00.000000002", 3);
    char *v1 = wait_version_change(&s, v0, HANG_MS);
    if (v1 == NULL)
        server_log_dump(&s);
    assert_non_null(v1);
    free(v0);
    free(v1);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
    remove_tree(dir);
    free(dir);
}

static void test_watch_lost_then_polling(void **state)
{
    (void)state;
    char *parent = make_temp_dir();
    char dir[1024], moved[1024];
    snprintf(dir, sizeof(dir), "%s/rules", parent);
    snprintf(moved, sizeof(moved), "%s/rules-old", parent);
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(copy_rules(dir), 0);
    const char *const args[] = {
        "--rules", dir, "--rules-debounce-ms", "100", "--rules-poll-interval-ms", "200", NULL};
    struct server s;
    assert_int_equal(server_start(&s, args), 0);
    assert_true(server_log_wait(&s, 0, "\"event\":\"rules_watch\"", HANG_MS));
    char *v0 = rules_version(&s);
    /* The directory is replaced: the watch is lost, polling takes over and a
     * watch is set on the new directory. */
    assert_int_equal(rename(dir, moved), 0);
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(copy_rules(dir), 0);
    assert_int_equal(touch_rules(dir, 11), 0);
    char *v1 = wait_version_change(&s, v0, HANG_MS);
    if (v1 == NULL)
        server_log_dump(&s);
    assert_non_null(v1);
    assert_true(server_log_find(&s, 0, "lost the watch", NULL));
    /* And the new directory is watched from then on. */
    assert_true(server_log_wait(&s, 0, "again (inotify)", HANG_MS));
    assert_int_equal(touch_rules(dir, 12), 0);
    char *v2 = wait_version_change(&s, v1, HANG_MS);
    assert_non_null(v2);
    free(v0);
    free(v1);
    free(v2);
    assert_int_equal(server_stop(&s, SIGTERM), 0);
    remove_tree(parent);
    free(parent);
}

static void test_sigterm_drains_inflight(void **state)
{
    (void)state;
    struct server s;
    static const char *const args[] = {"--shutdown-grace-s", "20", NULL};
    assert_int_equal(server_start(&s, args), 0);
    const char *body = "{\"task\":\"inference\",\"model\":{\"parameters\":7e9}}";
    size_t blen = strlen(body);
    char head[256];
    snprintf(head, sizeof(head),
             "POST /v1/recommendations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "Content-Length: %zu\r\n\r\n",
             blen);
    /* Four requests in flight: headers and half a body each. */
    enum { N = 4 };
    int fds[N];
    for (int i = 0; i < N; i++) {
        fds[i] = raw_connect(&s);
        assert_true(fds[i] >= 0);
        assert_int_equal(raw_send(fds[i], head, strlen(head)), 0);
        assert_int_equal(raw_send(fds[i], body, blen / 2), 0);
    }
    /* An idle keep-alive connection, to ask for readiness while draining. */
    int idle = raw_connect(&s);
    const char *hz = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_int_equal(raw_send(idle, hz, strlen(hz)), 0);
    free(raw_read_response(idle, HANG_MS));
    /* Wait until the server counts them in flight. */
    assert_true(metrics_wait(s.port, "accel_advisor_inflight_requests 5\n", HANG_MS));
    size_t mark = server_log_len(&s);
    kill(s.pid, SIGTERM);
    assert_true(server_log_wait(&s, mark, "\"event\":\"draining\"", HANG_MS));
    /* No new connections while draining: the listener is closed before the
     * server logs that it drains. */
    int late = raw_connect(&s);
    assert_true(late < 0);
    /* Readiness on the kept-alive connection: 503 while draining. */
    const char *rz = "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_int_equal(raw_send(idle, rz, strlen(rz)), 0);
    char *ready = raw_read_response(idle, HANG_MS);
    assert_non_null(strstr(ready, "HTTP/1.1 503"));
    assert_non_null(strstr(ready, "not-ready"));
    free(ready);
    close(idle);
    /* The in-flight requests complete. */
    for (int i = 0; i < N; i++) {
        assert_int_equal(raw_send(fds[i], body + blen / 2, blen - blen / 2), 0);
        char *resp = raw_read_response(fds[i], HANG_MS);
        assert_non_null(resp);
        if (strncmp(resp, "HTTP/1.1 200", 12) != 0)
            fail_msg("in-flight request %d: %.300s", i, resp);
        assert_non_null(strstr(resp, "\"recommendations\""));
        free(resp);
        close(fds[i]);
    }
    assert_int_equal(server_wait(&s, HANG_MS), 0);
    assert_true(server_log_find(&s, mark, "\"event\":\"drained\",\"inflight\":0", NULL));
    assert_true(server_log_find(&s, mark, "\"event\":\"stopped\"", NULL));
    server_release(&s);
}

static void test_sigterm_under_load(void **state)
{
    (void)state;
    struct server s;
    assert_int_equal(server_start(&s, NULL), 0);
    struct load l;
    load_start(&l, &s);
    load_wait(&l, 0, 5);
    kill(s.pid, SIGINT);
    assert_int_equal(server_wait(&s, HANG_MS), 0);
    atomic_store(&l.stop, true);
    for (int i = 0; i < 2; i++)
        pthread_join(l.thread[i], NULL);
    /* Requests that got a response got a complete 200 (failures here are only
     * connections refused after the listener closed). */
    assert_true(atomic_load(&l.ok) > 0);
    assert_true(server_log_find(&s, 0, "\"event\":\"stopped\"", NULL));
    server_release(&s);
}

static void test_initial_broken_rules(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/tests/fixtures/rulesets/broken", h_source_dir);
    const char *const args[] = {"--rules", dir, NULL};
    struct server s;
    assert_int_not_equal(server_start(&s, args), 0);
}

int main(int argc, char **argv)
{
    if (harness_init(argc, argv) != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sighup_reload_during_requests),
        cmocka_unit_test(test_broken_reload_keeps_last_good),
        cmocka_unit_test(test_watch_directory),
        cmocka_unit_test(test_watch_configmap_swap),
        cmocka_unit_test(test_watch_lost_then_polling),
        cmocka_unit_test(test_sigterm_drains_inflight),
        cmocka_unit_test(test_sigterm_under_load),
        cmocka_unit_test(test_initial_broken_rules),
    };
    return HARNESS_RUN("lifecycle", tests, NULL, NULL);
}
