/* tests/fault/test_reload.c -- 100 rule-set reloads under load, alternating a good
 * and a broken rule set, with concurrent clients on keep-alive connections.
 *
 * Every request must succeed; every response's rules_version must be one of the
 * good versions (the start-up one or one a successful reload logged; a broken
 * set never loads); each broken reload must keep the version before it; and
 * accel_advisor_rule_reloads_total must count 51 successes (the start-up load
 * included) and 50 failures. tests/integration/test_lifecycle.c already covers 3
 * good SIGHUP reloads and 1 broken one under load, the directory watch and
 * ConfigMap swaps; this takes reloads to the scale. The rule files are
 * replaced with rename(2), as editors and the kubelet do, then SIGHUP is sent.
 * A second test replaces rules.yaml with entries the loader cannot read as a
 * regular file (a dangling link, a loop, a FIFO, a directory) and with a set of
 * no rules: each reload is refused and the last good set keeps serving.
 *
 * A rules file written in place, its writer pausing longer than the debounce
 * (issue 22: half of it, 24 of 73 rules, was served), is loaded only once its
 * writer closed it; the half file is never served. An API keys file replaced by
 * a FIFO with no writer, by /dev/zero, or grown past its limit is refused on
 * SIGHUP without blocking the signal thread: the current keys keep working and
 * SIGTERM still stops the server.
 *
 * usage: fault_reload ACCEL_ADVISOR_BINARY SOURCE_DIR */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <curl/curl.h>

#include "harness.h"
#include "rawhttp.h"

#define RELOADS      100
#define CLIENTS      4
#define MAX_VERSIONS 256
#define VERSION_LEN  64

static struct server srv;

/* ---- versions ------------------------------------------------------------------------ */

struct versions {
    pthread_mutex_t mu;
    char v[MAX_VERSIONS][VERSION_LEN + 1];
    size_t n;
};

static bool versions_has(struct versions *vs, const char *v)
{
    pthread_mutex_lock(&vs->mu);
    bool found = false;
    for (size_t i = 0; i < vs->n && !found; i++)
        found = strcmp(vs->v[i], v) == 0;
    pthread_mutex_unlock(&vs->mu);
    return found;
}

static void versions_add(struct versions *vs, const char *v)
{
    if (versions_has(vs, v))
        return;
    pthread_mutex_lock(&vs->mu);
    if (vs->n < MAX_VERSIONS)
        snprintf(vs->v[vs->n++], VERSION_LEN + 1, "%s", v);
    pthread_mutex_unlock(&vs->mu);
}

/* The 64 hex digits after `key":"` in text[0, len); false when absent. */
static bool version_after(const char *text, size_t len, const char *key, char out[VERSION_LEN + 1])
{
    char needle[64];
    snprintf(needle, sizeof(needle), "\"%s\":\"", key);
    size_t nl = strlen(needle);
    for (size_t i = 0; i + nl + VERSION_LEN <= len; i++) {
        if (memcmp(text + i, needle, nl) == 0) {
            memcpy(out, text + i + nl, VERSION_LEN);
            out[VERSION_LEN] = '\0';
            return strspn(out, "0123456789abcdef") == VERSION_LEN;
        }
    }
    return false;
}

/* ---- the load -------------------------------------------------------------------------- */

struct client {
    pthread_t thread;
    int id;
    atomic_bool *stop;
    struct versions seen; /* versions in this client's responses */
    atomic_ulong ok;      /* read by the test while the client runs */
    unsigned long failed;
    char first_failure[400];
};

static void *client_main(void *arg)
{
    struct client *c = arg;
    struct rh_conn conn;
    struct rh_buf req = {0}, body = {0};
    rh_init(&conn, srv.port);
    for (unsigned long i = 0; !atomic_load(c->stop); i++) {
        rh_buf_reset(&req);
        rh_buf_reset(&body);
        if (i % 10 == 9) {
            rh_buf_request(&req, "GET", "/v1/rules", NULL, NULL, NULL, 0);
        } else {
            /* A distinct body each time: no cached answer, every request runs
             * the rule set that serves when it arrives. */
            rh_buf_printf(
                &body,
                "{\"name\":\"reload-%d-%lu\",\"task\":\"%s\",\"model\":{\"parameters\":%lue8}}",
                c->id, i, i % 2 == 0 ? "inference" : "training", 1 + i % 4000);
            rh_buf_request(&req, "POST", "/v1/recommendations", "application/json", NULL, body.p,
                           body.len);
        }
        struct rh_resp r;
        int e = rh_exchange(&conn, req.p, req.len, false, 30000, &r);
        char v[VERSION_LEN + 1];
        if (e == RH_OK && r.status == 200 &&
            version_after(r.body, r.body_len, "rules_version", v)) {
            versions_add(&c->seen, v);
            atomic_fetch_add(&c->ok, 1);
        } else {
            if (c->failed++ == 0)
                snprintf(c->first_failure, sizeof(c->first_failure), "%s, status %d: %.300s",
                         rh_strerror(e), e == RH_OK ? r.status : 0,
                         e == RH_OK && r.body != NULL ? r.body : "");
        }
    }
    rh_free(&conn);
    rh_buf_free(&req);
    rh_buf_free(&body);
    return NULL;
}

/* Wait until client `c` has had an answer served by `version` and more than
 * `ok_before` answers in all: the load really runs on every version. */
static void wait_client(struct client *c, const char *version, unsigned long ok_before)
{
    for (long t0 = h_now_ms(); !versions_has(&c->seen, version) || atomic_load(&c->ok) <= ok_before;
         usleep(2000)) {
        if (h_now_ms() - t0 > HANG_MS)
            fail_msg("client %d never had an answer from version %s (%lu answers, %lu failed)",
                     c->id, version, atomic_load(&c->ok), c->failed);
    }
}

/* ---- rule files ------------------------------------------------------------------------ */

/* `good` with "Reload N, " prefixed to its first description: valid, and a new
 * version for every n. */
static char *good_rules(const char *good, size_t len, int n, size_t *out_len)
{
    const char *key = "\n    description: ";
    const char *p = strstr(good, key);
    assert_non_null(p);
    size_t at = (size_t)(p - good) + strlen(key);
    char mark[32];
    int ml = snprintf(mark, sizeof(mark), "Reload %d, ", n);
    char *out = malloc(len + (size_t)ml + 1);
    memcpy(out, good, at);
    memcpy(out + at, mark, (size_t)ml);
    memcpy(out + at + ml, good + at, len - at);
    out[len + (size_t)ml] = '\0';
    *out_len = len + (size_t)ml;
    return out;
}

/* Drop the access log (counted by the clients anyway); keep everything else. */
static bool keep_line(void *cls, const char *line, size_t len)
{
    (void)cls;
    (void)len;
    return strstr(line, "\"event\":\"request\"") == NULL;
}

/* The rules_reload line after `from`, copied into buf. */
static bool reload_line(size_t from, char *buf, size_t cap, int timeout_ms)
{
    char *line = server_log_wait_line(&srv, from, "\"event\":\"rules_reload\"", timeout_ms);
    if (line == NULL)
        return false;
    snprintf(buf, cap, "%s", line);
    free(line);
    return true;
}

static void test_reloads_under_load(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_non_null(dir);
    assert_int_equal(copy_rules(dir), 0);
    char path[1024], broken_path[1024];
    snprintf(path, sizeof(path), "%s/rules.yaml", dir);
    snprintf(broken_path, sizeof(broken_path), "%s/tests/fixtures/rulesets/broken/rules.yaml",
             h_source_dir);
    size_t good_len = 0, broken_len = 0;
    char *good = read_file(path, &good_len);
    char *broken = read_file(broken_path, &broken_len);
    assert_non_null(good);
    assert_non_null(broken);

    const char *const args[] = {"--rules", dir, "--rules-watch=false", NULL};
    assert_int_equal(server_start_filtered(&srv, args, keep_line, NULL), 0);
    static struct versions good_versions = {.mu = PTHREAD_MUTEX_INITIALIZER};
    char current[VERSION_LEN + 1];
    char line[4096];
    assert_true(reload_line(0, line, sizeof(line), HANG_MS));
    assert_true(version_after(line, strlen(line), "version", current));
    versions_add(&good_versions, current);

    /* Static: a failed assertion jumps out while the clients still run. */
    static atomic_bool stop;
    atomic_store(&stop, false);
    static struct client clients[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        memset(&clients[i], 0, sizeof(clients[i]));
        clients[i].id = i;
        clients[i].stop = &stop;
        pthread_mutex_init(&clients[i].seen.mu, NULL);
        assert_int_equal(pthread_create(&clients[i].thread, NULL, client_main, &clients[i]), 0);
    }
    wait_client(&clients[0], current, 0);
    int successes = 0, failures = 0;
    long t0 = h_now_ms();
    for (int n = 1; n <= RELOADS; n++) {
        bool ok_set = n % 2 == 1;
        size_t len = 0;
        char *text = ok_set ? good_rules(good, good_len, n, &len) : NULL;
        assert_int_equal(write_file(path, ok_set ? text : broken, ok_set ? len : broken_len), 0);
        free(text);
        size_t mark = server_log_len(&srv);
        assert_int_equal(kill(srv.pid, SIGHUP), 0);
        if (!reload_line(mark, line, sizeof(line), HANG_MS)) {
            server_log_dump(&srv);
            fail_msg("reload %d: no rules_reload line", n);
        }
        if (ok_set) {
            if (strstr(line, "\"result\":\"success\",\"trigger\":\"signal\"") == NULL)
                fail_msg("reload %d of a good set: %s", n, line);
            char prev[VERSION_LEN + 1], v[VERSION_LEN + 1];
            assert_true(version_after(line, strlen(line), "version", v));
            assert_true(version_after(line, strlen(line), "previous_version", prev));
            assert_string_equal(prev, current);
            assert_string_not_equal(v, current);
            versions_add(&good_versions, v);
            snprintf(current, sizeof(current), "%s", v);
            successes++;
        } else {
            if (strstr(line, "\"result\":\"failure\",\"trigger\":\"signal\"") == NULL)
                fail_msg("reload %d of the broken set: %s", n, line);
            char kept[VERSION_LEN + 1];
            assert_true(version_after(line, strlen(line), "keeping", kept));
            assert_string_equal(kept, current);
            failures++;
        }
        /* The clients run on this version (client 0 has an answer from it)
         * before the next reload. */
        wait_client(&clients[0], current, atomic_load(&clients[0].ok));
    }
    long took = h_now_ms() - t0;
    atomic_store(&stop, true);
    unsigned long ok = 0, failed = 0;
    size_t distinct = 0;
    for (int i = 0; i < CLIENTS; i++) {
        pthread_join(clients[i].thread, NULL);
        ok += atomic_load(&clients[i].ok);
        failed += clients[i].failed;
        if (clients[i].failed > 0)
            fprintf(stderr, "client %d: %lu failed; first: %s\n", i, clients[i].failed,
                    clients[i].first_failure);
        for (size_t k = 0; k < clients[i].seen.n; k++) {
            if (!versions_has(&good_versions, clients[i].seen.v[k]))
                fail_msg("client %d saw rules_version %s, which no good set has", i,
                         clients[i].seen.v[k]);
        }
        distinct = clients[i].seen.n > distinct ? clients[i].seen.n : distinct;
    }
    fprintf(stderr,
            "%d reloads (%d good, %d broken) in %ld ms under load: %lu requests ok, %lu failed; "
            "%zu good versions, up to %zu seen by one client\n",
            RELOADS, successes, failures, took, ok, failed, good_versions.n, distinct);
    assert_int_equal(failed, 0);
    assert_int_equal(successes, RELOADS / 2);
    assert_int_equal(failures, RELOADS / 2);
    assert_int_equal(good_versions.n, RELOADS / 2 + 1);
    /* The load really ran across the reloads. */
    assert_true(ok > (unsigned long)RELOADS);
    assert_true(distinct > 5);

    struct resp m;
    assert_int_equal(http_get(&srv, "/metrics", &m), 0);
    char want[128];
    snprintf(want, sizeof(want), "accel_advisor_rule_reloads_total{result=\"success\"} %d\n",
             RELOADS / 2 + 1);
    if (strstr(m.body, want) == NULL)
        fail_msg("metrics lack %s", want);
    snprintf(want, sizeof(want), "accel_advisor_rule_reloads_total{result=\"failure\"} %d\n",
             RELOADS / 2);
    if (strstr(m.body, want) == NULL)
        fail_msg("metrics lack %s", want);
    snprintf(want, sizeof(want), "accel_advisor_rules_info{version=\"%s\"", current);
    if (strstr(m.body, want) == NULL)
        fail_msg("metrics lack %s", want);
    resp_free(&m);
    assert_int_equal(http_get(&srv, "/readyz", &m), 0);
    assert_int_equal(m.status, 200);
    resp_free(&m);
    /* The last write was the broken set: the last good one still serves. */
    struct resp r;
    assert_int_equal(http_get(&srv, "/v1/rules", &r), 0);
    char served[VERSION_LEN + 1];
    assert_true(version_after(r.body, r.len, "rules_version", served));
    assert_string_equal(served, current);
    resp_free(&r);
    assert_int_equal(server_stop(&srv, SIGTERM), 0);
    for (int i = 0; i < CLIENTS; i++)
        pthread_mutex_destroy(&clients[i].seen.mu);
    free(good);
    free(broken);
    remove_tree(dir);
    free(dir);
}

/* The rule count and version the server serves now (GET /v1/rules). */
static long served_rules(char version[VERSION_LEN + 1])
{
    struct resp r;
    assert_int_equal(http_get(&srv, "/v1/rules", &r), 0);
    assert_int_equal(r.status, 200);
    assert_true(version_after(r.body, r.len, "rules_version", version));
    cJSON *j = resp_json(&r);
    long n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "rules"));
    cJSON_Delete(j);
    resp_free(&r);
    return n;
}

/* SIGHUP after `change`: the reload must fail with `why` for the named entry,
 * and the last good set (version `good`, `rules` rules) keeps serving. */
static void expect_refused_reload(const char *good, long rules, const char *why)
{
    size_t mark = server_log_len(&srv);
    assert_int_equal(kill(srv.pid, SIGHUP), 0);
    char line[4096];
    assert_true(reload_line(mark, line, sizeof(line), HANG_MS));
    char kept[VERSION_LEN + 1];
    if (strstr(line, "\"result\":\"failure\"") == NULL || strstr(line, why) == NULL)
        fail_msg("want a failed reload naming \"%s\": %s", why, line);
    assert_true(version_after(line, strlen(line), "keeping", kept));
    assert_string_equal(kept, good);
    char served[VERSION_LEN + 1];
    assert_int_equal(served_rules(served), rules);
    assert_string_equal(served, good);
}

/* A rules.yaml that is a dangling symbolic link, a loop, a FIFO or a directory,
 * or a set without rules, used to reload "successfully" with no rules: each is
 * refused and the last good set keeps serving. */
static void test_unreadable_entries(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_non_null(dir);
    assert_int_equal(copy_rules(dir), 0);
    char path[1024], line[4096], good[VERSION_LEN + 1];
    snprintf(path, sizeof(path), "%s/rules.yaml", dir);
    const char *const args[] = {"--rules", dir, "--rules-watch=false", NULL};
    assert_int_equal(server_start(&srv, args), 0);
    assert_true(reload_line(0, line, sizeof(line), HANG_MS));
    assert_true(version_after(line, strlen(line), "version", good));
    char served[VERSION_LEN + 1];
    long rules = served_rules(served);
    assert_true(rules > 0);
    char *text = read_file(path, NULL);
    assert_non_null(text);
    size_t len = strlen(text);

    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink("/nonexistent/rules.yaml", path), 0);
    expect_refused_reload(good, rules, "rules.yaml:0: is a dangling symbolic link");
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink("rules.yaml", path), 0);
    expect_refused_reload(good, rules, "rules.yaml:0: is a loop of symbolic links");
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkfifo(path, 0600), 0);
    expect_refused_reload(good, rules, "rules.yaml:0: is a FIFO, not a regular file");
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0700), 0);
    expect_refused_reload(good, rules, "rules.yaml:0: is a directory, not a regular file");
    assert_int_equal(rmdir(path), 0);
    assert_int_equal(write_file(path, "rules: []\n", 10), 0);
    expect_refused_reload(good, rules, "the rule set has no rules");
    /* The good file back: it loads again, with the same version. */
    assert_int_equal(write_file(path, text, len), 0);
    size_t mark = server_log_len(&srv);
    assert_int_equal(kill(srv.pid, SIGHUP), 0);
    assert_true(reload_line(mark, line, sizeof(line), HANG_MS));
    assert_non_null(strstr(line, "\"result\":\"success\""));
    assert_int_equal(server_stop(&srv, SIGTERM), 0);
    free(text);
    remove_tree(dir);
    free(dir);
}

static void test_writer_in_place(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_non_null(dir);
    assert_int_equal(copy_rules(dir), 0);
    char path[1024], v0[VERSION_LEN + 1], v1[VERSION_LEN + 1];
    snprintf(path, sizeof(path), "%s/rules.yaml", dir);
    const char *const args[] = {"--rules", dir, "--rules-debounce-ms", "100", NULL};
    assert_int_equal(server_start(&srv, args), 0);
    assert_true(server_log_wait(&srv, 0, "\"event\":\"rules_watch\"", HANG_MS));
    long rules = served_rules(v0);
    long fds = server_fd_count(&srv);
    /* The new content: the rules with a changed description (another version). */
    size_t old_len = 0;
    char *old = read_file(path, &old_len);
    assert_non_null(old);
    const char *key = "\n    description: ";
    char *mark = strstr(old, key);
    assert_non_null(mark);
    size_t at = (size_t)(mark - old) + strlen(key), len = old_len + 10;
    char *text = malloc(len + 1);
    assert_non_null(text);
    memcpy(text, old, at);
    memcpy(text + at, "Rewritten ", 10);
    memcpy(text + at + 10, old + at, old_len - at + 1);
    free(old);
    /* Written in place: truncated, half of it, then a pause well past the
     * debounce (until the server says it waits for the writer). */
    size_t at_log = server_log_len(&srv);
    int fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len / 2), (ssize_t)(len / 2));
    assert_true(server_log_wait(&srv, at_log, "is being written", HANG_MS));
    assert_int_equal(served_rules(v1), rules);
    assert_string_equal(v1, v0);
    assert_int_equal(write(fd, text + len / 2, len - len / 2), (ssize_t)(len - len / 2));
    assert_int_equal(close(fd), 0);
    /* Loaded once closed: the whole set, a new version; nothing in between. */
    char line[4096];
    assert_true(reload_line(at_log, line, sizeof(line), HANG_MS));
    if (strstr(line, "\"result\":\"success\"") == NULL)
        fail_msg("the first reload after the write began: %s", line);
    for (long t0 = h_now_ms(); h_now_ms() - t0 < HANG_MS && strcmp(v1, v0) == 0;)
        (void)served_rules(v1);
    assert_string_not_equal(v1, v0);
    assert_int_equal(served_rules(v1), rules);
    assert_true(server_fd_wait(&srv, fds, HANG_MS) <= fds);
    assert_int_equal(server_stop(&srv, SIGTERM), 0);
    free(text);
    remove_tree(dir);
    free(dir);
}

static void sha256_hex(const char *s, char out[65])
{
    unsigned char md[32];
    unsigned n = 0;
    EVP_Digest(s, strlen(s), md, &n, EVP_sha256(), NULL);
    for (unsigned i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* SIGHUP: the keys reload must fail with `why`; the key still opens the API. */
static void expect_keys_refused(const char *why)
{
    size_t mark = server_log_len(&srv);
    assert_int_equal(kill(srv.pid, SIGHUP), 0);
    char *line = server_log_wait_line(&srv, mark, "\"event\":\"api_keys_reload\"", HANG_MS);
    assert_non_null(line);
    if (strstr(line, "\"result\":\"failure\"") == NULL || strstr(line, why) == NULL)
        fail_msg("want a refused keys file naming \"%s\": %s", why, line);
    free(line);
    static const char *const auth[] = {"Authorization: Bearer k1", NULL};
    struct resp r;
    assert_int_equal(http(&srv, "GET", "/v1/rules", NULL, NULL, 0, auth, &r), 0);
    assert_int_equal(r.status, 200);
    resp_free(&r);
}

static void test_secret_files(void **state)
{
    (void)state;
    char *dir = make_temp_dir();
    assert_non_null(dir);
    char keys[1024], other[1024], digest[65], text[80];
    snprintf(keys, sizeof(keys), "%s/keys", dir);
    snprintf(other, sizeof(other), "%s/keys.new", dir);
    sha256_hex("k1", digest);
    snprintf(text, sizeof(text), "%s\n", digest);
    assert_int_equal(write_file(keys, text, strlen(text)), 0);
    const char *const args[] = {"--api-keys-file", keys, "--rules-watch=false", NULL};
    assert_int_equal(server_start(&srv, args), 0);
    long fds = server_fd_count(&srv);
    /* A FIFO nobody writes: opening it to read would block the signal thread. */
    assert_int_equal(mkfifo(other, 0600), 0);
    assert_int_equal(rename(other, keys), 0);
    expect_keys_refused("not a regular file");
    /* /dev/zero never ends: reading it line by line would never return. */
    assert_int_equal(unlink(keys), 0);
    assert_int_equal(symlink("/dev/zero", keys), 0);
    expect_keys_refused("not a regular file");
    /* A regular file past the limit is refused before it is read. */
    assert_int_equal(unlink(keys), 0);
    char *big = malloc(300000);
    assert_non_null(big);
    memset(big, '#', 300000);
    assert_int_equal(write_file(keys, big, 300000), 0);
    free(big);
    expect_keys_refused("larger than 262144 bytes");
    /* Nothing was left open, and SIGTERM is still heard. */
    assert_true(server_fd_wait(&srv, fds, HANG_MS) <= fds);
    assert_int_equal(server_stop(&srv, SIGTERM), 0);
    remove_tree(dir);
    free(dir);
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
        cmocka_unit_test_teardown(test_reloads_under_load, teardown),
        cmocka_unit_test_teardown(test_unreadable_entries, teardown),
        cmocka_unit_test_teardown(test_writer_in_place, teardown),
        cmocka_unit_test_teardown(test_secret_files, teardown),
    };
    return HARNESS_RUN("reload", tests, NULL, NULL);
}
