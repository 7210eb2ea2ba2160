/* tests/integration/test_playground.c -- GET / and its assets against the real
 * binary: the bytes of web/ and examples/ as built in, the page's security and
 * caching headers, revalidation (304), HEAD, methods, unknown assets, and the
 * rules the page must keep to work under its Content-Security-Policy and behind
 * a gateway (no inline code, no absolute or external URLs). The page itself is
 * driven in a real browser by tests/js/playground.test.mjs.
 *
 * usage: integration_playground ACCEL_ADVISOR_BINARY SOURCE_DIR */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

static struct server srv;

static const struct {
    const char *path;   /* URL path */
    const char *source; /* the file in the source tree it serves */
    const char *type;   /* its Content-Type */
} assets[] = {
    {"/", "web/index.html", "text/html; charset=utf-8"},
    {"/ui/playground.js", "web/playground.js", "text/javascript; charset=utf-8"},
    {"/ui/answer.js", "web/answer.js", "text/javascript; charset=utf-8"},
    {"/ui/dom.js", "web/dom.js", "text/javascript; charset=utf-8"},
    {"/ui/format.js", "web/format.js", "text/javascript; charset=utf-8"},
    {"/ui/playground.css", "web/playground.css", "text/css; charset=utf-8"},
    {"/ui/icon.svg", "web/icon.svg", "image/svg+xml"},
};
#define N_ASSETS (sizeof(assets) / sizeof(assets[0]))

static char *source_file(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", h_source_dir, rel);
    char *text = read_file(path, len);
    if (text == NULL)
        fail_msg("cannot read %s", path);
    return text;
}

static void expect_header(const struct resp *r, const char *name, const char *want)
{
    char got[512];
    if (!resp_header(r, name, got, sizeof(got)))
        fail_msg("no %s header", name);
    if (strcmp(got, want) != 0)
        fail_msg("%s: \"%s\", want \"%s\"", name, got, want);
}

/* Every asset is the source file's bytes, with its type and the page's headers. */
static void test_assets(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ASSETS; i++) {
        size_t len = 0;
        char *want = source_file(assets[i].source, &len);
        struct resp r;
        assert_int_equal(http_get(&srv, assets[i].path, &r), 0);
        if (r.status != 200)
            fail_msg("%s: %ld", assets[i].path, r.status);
        expect_header(&r, "Content-Type", assets[i].type);
        expect_header(&r, "Cache-Control", "no-cache");
        expect_header(&r, "X-Content-Type-Options", "nosniff");
        expect_header(&r, "Referrer-Policy", "no-referrer");
        expect_header(&r, "Content-Security-Policy",
                      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                      "connect-src 'self'; base-uri 'none'; form-action 'none'; "
                      "frame-ancestors 'none'");
        char etag[128];
        assert_true(resp_header(&r, "ETag", etag, sizeof(etag)));
        assert_int_equal(strlen(etag), 34);
        assert_int_equal(r.len, len);
        assert_memory_equal(r.body, want, len);
        resp_free(&r);
        free(want);
    }
    struct resp r;
    assert_int_equal(http_get(&srv, "/", &r), 0);
    check_contract(&r, "GET", "/");
    resp_free(&r);
}

/* The page loads under script-src 'self' and style-src 'self' only if it has no
 * inline script, style or event handler, and works behind a path prefix only if
 * every URL it names is relative. */
static void test_page_rules(void **state)
{
    (void)state;
    char *html = source_file("web/index.html", NULL);
    static const char *const banned[] = {
        " style=",     "<style",  " onclick=", " onload=", " onerror=", " onsubmit=", " oninput=",
        "javascript:", "src=\"/", "href=\"/",  "http://",  "https://",  "<base"};
    for (size_t i = 0; i < sizeof(banned) / sizeof(banned[0]); i++) {
        if (strstr(html, banned[i]) != NULL)
            fail_msg("web/index.html has %s", banned[i]);
    }
    for (const char *p = strstr(html, "<script"); p != NULL; p = strstr(p + 1, "<script")) {
        if (strncmp(p, "<script src=\"ui/", 16) != 0)
            fail_msg("web/index.html has a script that is not one of its own files: %.40s", p);
    }
    /* Its scripts in the order each needs the one before. */
    static const char *const scripts[] = {"format.js", "dom.js", "answer.js", "playground.js"};
    const char *at = html;
    for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
        char tag[64];
        snprintf(tag, sizeof(tag), "<script src=\"ui/%s\" defer>", scripts[i]);
        const char *found = strstr(at, tag);
        if (found == NULL)
            fail_msg("web/index.html does not load ui/%s after the scripts before it", scripts[i]);
        at = found;
    }
    assert_non_null(strstr(html, "<link rel=\"stylesheet\" href=\"ui/playground.css\">"));
    free(html);
    /* The scripts ask for relative URLs only (no fetch of "/..." or of another
     * host) and never turn text into markup. */
    static const char *const absolute[] = {"fetch('/",       "fetch(\"/", "'/v1/",
                                           "\"/v1/",         "'/openapi", "'/ui/",
                                           "innerHTML",      "outerHTML", "insertAdjacentHTML",
                                           "document.write", "eval("};
    for (size_t k = 0; k < sizeof(scripts) / sizeof(scripts[0]); k++) {
        char rel[64];
        snprintf(rel, sizeof(rel), "web/%s", scripts[k]);
        char *js = source_file(rel, NULL);
        for (size_t i = 0; i < sizeof(absolute) / sizeof(absolute[0]); i++) {
            if (strstr(js, absolute[i]) != NULL)
                fail_msg("%s has %s", rel, absolute[i]);
        }
        free(js);
    }
}

/* ui/examples.json holds every JSON file of examples/, as parsed from the source tree. */
static void test_examples(void **state)
{
    (void)state;
    struct resp r;
    assert_int_equal(http_get(&srv, "/ui/examples.json", &r), 0);
    assert_int_equal(r.status, 200);
    expect_header(&r, "Content-Type", "application/json");
    cJSON *doc = resp_json(&r);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "examples");
    assert_true(cJSON_IsArray(list));
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/examples", h_source_dir);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0)
            continue;
        files++;
        char rel[512], name[256];
        snprintf(rel, sizeof(rel), "examples/%s", e->d_name);
        snprintf(name, sizeof(name), "%.*s", (int)(n - 5), e->d_name);
        char *text = source_file(rel, NULL);
        cJSON *want = cJSON_Parse(text);
        free(text);
        bool found = false;
        const cJSON *it = NULL;
        cJSON_ArrayForEach(it, list)
        {
            if (strcmp(str_field(it, "name"), name) != 0)
                continue;
            found = true;
            assert_true(
                cJSON_Compare(cJSON_GetObjectItemCaseSensitive(it, "workload"), want, true));
        }
        if (!found)
            fail_msg("examples/%s is not offered", e->d_name);
        cJSON_Delete(want);
    }
    closedir(d);
    assert_true(files > 0);
    assert_int_equal(cJSON_GetArraySize(list), files);
    cJSON_Delete(doc);
    resp_free(&r);
}

/* If-None-Match with the current ETag (strong, weak, or *) answers 304 with no
 * body; another tag, the full body. HEAD has the headers and no body. */
static void test_revalidation(void **state)
{
    (void)state;
    struct resp r;
    char etag[128], hdr[200], again[128];
    assert_int_equal(http_get(&srv, "/ui/playground.js", &r), 0);
    assert_true(resp_header(&r, "ETag", etag, sizeof(etag)));
    size_t full = r.len;
    resp_free(&r);
    static const char *const before[] = {"", "W/", "\"other\", ", NULL};
    for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++) {
        char value[160];
        if (before[i] != NULL)
            snprintf(value, sizeof(value), "%s%s", before[i], etag);
        else
            snprintf(value, sizeof(value), "*");
        snprintf(hdr, sizeof(hdr), "If-None-Match: %s", value);
        const char *const h[] = {hdr, NULL};
        assert_int_equal(http(&srv, "GET", "/ui/playground.js", NULL, NULL, 0, h, &r), 0);
        if (r.status != 304)
            fail_msg("If-None-Match: %s gave %ld", value, r.status);
        assert_int_equal(r.len, 0);
        assert_true(resp_header(&r, "ETag", again, sizeof(again)));
        assert_string_equal(again, etag);
        resp_free(&r);
    }
    const char *const other[] = {"If-None-Match: \"0123\"", NULL};
    assert_int_equal(http(&srv, "GET", "/ui/playground.js", NULL, NULL, 0, other, &r), 0);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.len, full);
    resp_free(&r);
    /* Every asset has its own tag. */
    assert_int_equal(http_get(&srv, "/", &r), 0);
    assert_true(resp_header(&r, "ETag", again, sizeof(again)));
    assert_string_not_equal(again, etag);
    resp_free(&r);
    assert_int_equal(http(&srv, "HEAD", "/", NULL, NULL, 0, NULL, &r), 0);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.len, 0);
    expect_header(&r, "Content-Type", "text/html; charset=utf-8");
    resp_free(&r);
    /* 304s are counted as such, under the route templates (each as it
     * completes, a moment after its answer was read). */
    assert_true(metrics_wait(srv.port,
                             "accel_advisor_http_requests_total{route=\"/\",method=\"HEAD\","
                             "code=\"200\"}",
                             20000));
    assert_true(metrics_wait(srv.port,
                             "accel_advisor_http_requests_total{route=\"/ui/*\",method=\"GET\","
                             "code=\"304\"} 4",
                             20000));
    assert_int_equal(http_get(&srv, "/metrics", &r), 0);
    assert_non_null(strstr(r.body, "accel_advisor_http_requests_total{route=\"/ui/*\","
                                   "method=\"GET\",code=\"304\"} 4"));
    assert_non_null(strstr(r.body, "accel_advisor_http_requests_total{route=\"/\",method=\"HEAD\","
                                   "code=\"200\"}"));
    check_promtool(&r);
    resp_free(&r);
}

/* Only the built-in files are served; the page's paths take GET and HEAD only. */
static void test_unknown_and_methods(void **state)
{
    (void)state;
    static const char *const missing[] = {"/ui/",
                                          "/ui/nope.js",
                                          "/index.html",
                                          "/ui/index.html",
                                          "/web/index.html",
                                          "/ui/examples",
                                          "/ui/playground.js/",
                                          "/ui//playground.js"};
    struct resp r;
    for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
        assert_int_equal(http_get(&srv, missing[i], &r), 0);
        expect_problem(&r, 404, "about:blank", "GET", missing[i]);
        resp_free(&r);
    }
    /* A dot segment is not resolved: it names no file (curl would resolve it, so
     * the request goes out raw). */
    int fd = raw_connect(&srv);
    assert_true(fd >= 0);
    const char *req = "GET /ui/../openapi.yaml HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    assert_int_equal(raw_send(fd, req, strlen(req)), 0);
    char *raw = raw_read_response(fd, HANG_MS);
    assert_non_null(raw);
    assert_int_equal(strncmp(raw, "HTTP/1.1 404", 12), 0);
    free(raw);
    close(fd);
    char allow[64];
    assert_int_equal(http(&srv, "POST", "/", "application/json", "{}", 2, NULL, &r), 0);
    expect_problem(&r, 405, "about:blank", "POST", "/");
    assert_true(resp_header(&r, "Allow", allow, sizeof(allow)));
    assert_string_equal(allow, "GET, HEAD, OPTIONS");
    resp_free(&r);
    assert_int_equal(http(&srv, "DELETE", "/ui/playground.css", NULL, NULL, 0, NULL, &r), 0);
    expect_problem(&r, 405, "about:blank", "DELETE", "/ui/playground.css");
    resp_free(&r);
}

int main(int argc, char **argv)
{
    /* One server with the defaults (the embedded rules: nothing to watch) for all. */
    if (harness_init(argc, argv) != 0 || server_start(&srv, NULL) != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_assets),
        cmocka_unit_test(test_page_rules),
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_revalidation),
        cmocka_unit_test(test_unknown_and_methods),
    };
    int failed = HARNESS_RUN("playground", tests, NULL, NULL);
    return server_stop(&srv, SIGTERM) == 0 ? failed : failed + 1;
}
