/* tests/integration/harness_http.c -- see harness.h: the harness's HTTP client
 * (libcurl and raw sockets), its checks of answers against the contract, and
 * the metrics and problem helpers. The server process, files and the test
 * runner are in harness.c. */
#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "api/openapi.h"
#include "api/schema.h"
#include "dc/embedded.h"

/* ---- HTTP --------------------------------------------------------------------- */

struct sink {
    char *p;
    size_t len;
};

static size_t sink_write(char *data, size_t size, size_t n, void *cls)
{
    struct sink *k = cls;
    size_t add = size * n;
    char *p = realloc(k->p, k->len + add + 1);
    if (p == NULL)
        return 0;
    memcpy(p + k->len, data, add);
    k->p = p;
    k->len += add;
    k->p[k->len] = '\0';
    return add;
}

int http(struct server *s, const char *method, const char *path, const char *ctype,
         const char *body, size_t len, const char *const *headers, struct resp *out)
{
    char url[512], ct[256];
    memset(out, 0, sizeof(*out));
    CURL *c = curl_easy_init();
    if (c == NULL)
        return -1;
    snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", s->port, path);
    struct sink b = {NULL, 0}, h = {NULL, 0};
    struct curl_slist *hl = NULL;
    if (ctype != NULL) {
        snprintf(ct, sizeof(ct), "Content-Type: %s", ctype);
        hl = curl_slist_append(hl, ct);
    } else if (body != NULL) {
        hl = curl_slist_append(hl, "Content-Type:"); /* no Content-Type at all */
    }
    hl = curl_slist_append(hl, "Expect:");
    for (size_t i = 0; headers != NULL && headers[i] != NULL; i++)
        hl = curl_slist_append(hl, headers[i]);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    if (body != NULL) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, sink_write);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &h);
    /* A bound for a hang, not a timing assertion: an ASan build on a loaded
     * machine can take seconds for an explained request. */
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
    CURLcode rc = curl_easy_perform(c);
    if (rc == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    out->body = b.p != NULL ? b.p : calloc(1, 1);
    out->len = b.len;
    out->headers = h.p != NULL ? h.p : calloc(1, 1);
    out->headers_len = h.len;
    if (rc != CURLE_OK)
        fprintf(stderr, "http %s %s: %s\n", method, path, curl_easy_strerror(rc));
    return rc == CURLE_OK ? 0 : -1;
}

int http_get(struct server *s, const char *path, struct resp *out)
{
    return http(s, "GET", path, NULL, NULL, 0, NULL, out);
}

const cJSON *rec_candidate(const cJSON *rec, const char *id)
{
    static const char *const lists[] = {"recommendations", "excluded"};
    for (size_t l = 0; l < 2; l++) {
        const cJSON *c = NULL;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(rec, lists[l]))
        {
            const char *aid = str_field(c, "accelerator");
            if (aid != NULL && strcmp(aid, id) == 0)
                return c;
        }
    }
    return NULL;
}

const cJSON *rec_reason(const cJSON *candidate, const char *rule_id)
{
    const cJSON *r = NULL;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(candidate, "reasons"))
    {
        const char *id = str_field(r, "rule_id");
        if (id != NULL && strcmp(id, rule_id) == 0)
            return r;
    }
    return NULL;
}

bool metric_find(const char *body, const char *series, double *out)
{
    size_t n = strlen(series);
    for (const char *p = body; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        if (strncmp(p, series, n) == 0 && p[n] == ' ') {
            *out = strtod(p + n + 1, NULL);
            return true;
        }
    }
    return false;
}

long scrape_metric(int port, const char *name)
{
    struct server at;
    struct resp m;
    char needle[160];
    long v = -1;
    memset(&at, 0, sizeof(at));
    at.port = port;
    snprintf(needle, sizeof(needle), "\n%s ", name);
    if (http_get(&at, "/metrics", &m) == 0 && m.status == 200) {
        const char *p = strstr(m.body, needle);
        v = p != NULL ? strtol(p + strlen(needle), NULL, 10) : -1;
    }
    resp_free(&m);
    return v;
}

/* Scrape `name` until it reads `want` (or at least `want`, `at_least`). */
static long wait_metric(int port, const char *name, long want, bool at_least, int timeout_ms)
{
    long end = h_now_ms() + timeout_ms;
    long v = scrape_metric(port, name);
    while ((at_least ? v < want : v != want) && h_now_ms() < end) {
        h_sleep_ms(10);
        v = scrape_metric(port, name);
    }
    return v;
}

long metric_wait(int port, const char *name, long want, int timeout_ms)
{
    return wait_metric(port, name, want, false, timeout_ms);
}

long metric_wait_min(int port, const char *name, long least, int timeout_ms)
{
    return wait_metric(port, name, least, true, timeout_ms);
}

bool metrics_wait(int port, const char *needle, int timeout_ms)
{
    struct server at;
    memset(&at, 0, sizeof(at));
    at.port = port;
    long end = h_now_ms() + timeout_ms;
    for (;;) {
        struct resp m;
        bool found =
            http_get(&at, "/metrics", &m) == 0 && m.status == 200 && strstr(m.body, needle) != NULL;
        resp_free(&m);
        if (found || h_now_ms() >= end)
            return found;
        h_sleep_ms(10);
    }
}

int http_post_json(struct server *s, const char *path, const char *body, struct resp *out)
{
    return http(s, "POST", path, "application/json", body, strlen(body), NULL, out);
}

bool resp_header(const struct resp *r, const char *name, char *buf, size_t len)
{
    size_t nl = strlen(name);
    const char *p = r->headers;
    while (p != NULL && *p != '\0') {
        const char *eol = strstr(p, "\r\n");
        size_t ll = eol != NULL ? (size_t)(eol - p) : strlen(p);
        if (ll > nl && strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
            const char *v = p + nl + 1;
            while (*v == ' ')
                v++;
            size_t vl = ll - (size_t)(v - p);
            if (vl >= len)
                vl = len - 1;
            memcpy(buf, v, vl);
            buf[vl] = '\0';
            return true;
        }
        p = eol != NULL ? eol + 2 : NULL;
    }
    return false;
}

cJSON *resp_json(const struct resp *r)
{
    return r->body != NULL ? cJSON_ParseWithLength(r->body, r->len) : NULL;
}

void resp_free(struct resp *r)
{
    free(r->body);
    free(r->headers);
    memset(r, 0, sizeof(*r));
}

/* ---- the contract ---------------------------------------------------------------- */

static api_contract *contract;
static struct {
    char entry[512];
    api_schema *schema;
} compiled[64];
static size_t n_compiled;
static pthread_mutex_t contract_mu = PTHREAD_MUTEX_INITIALIZER;

static const api_schema *schema_at(const char *entry)
{
    struct dc_error err;
    pthread_mutex_lock(&contract_mu);
    if (contract == NULL && api_contract_load_embedded(aa_embedded_files, &contract, &err) != DC_OK)
        fail_msg("contract: %s", err.msg);
    for (size_t i = 0; i < n_compiled; i++) {
        if (strcmp(compiled[i].entry, entry) == 0) {
            pthread_mutex_unlock(&contract_mu);
            return compiled[i].schema;
        }
    }
    api_schema *sch = NULL;
    if (n_compiled == 64 ||
        api_schema_compile(api_contract_root(contract), entry, &sch, &err) != DC_OK)
        fail_msg("cannot compile %s: %s", entry, err.msg);
    snprintf(compiled[n_compiled].entry, sizeof(compiled[0].entry), "%s", entry);
    compiled[n_compiled++].schema = sch;
    pthread_mutex_unlock(&contract_mu);
    return sch;
}

static void validate_at(const cJSON *json, const char *entry, const char *what)
{
    struct api_schema_result vr = {0};
    struct dc_error err;
    const api_schema *sch = schema_at(entry);
    if (api_schema_validate(sch, json, 20, &vr, &err) != DC_OK)
        fail_msg("%s: validator error %s", what, err.msg);
    if (!vr.valid) {
        char *text = cJSON_PrintUnformatted(json);
        fprintf(stderr, "%s: body does not match %s:\n", what, entry);
        for (size_t i = 0; i < vr.count; i++)
            fprintf(stderr, "  %s: %s (%s)\n", vr.items[i].pointer, vr.items[i].message,
                    vr.items[i].keyword);
        fprintf(stderr, "  body: %.2000s\n", text != NULL ? text : "?");
        cJSON_free(text);
        api_schema_result_cleanup(&vr);
        fail_msg("%s: response does not match the contract", what);
    }
    api_schema_result_cleanup(&vr);
}

void check_component(const cJSON *json, const char *name)
{
    char entry[256];
    snprintf(entry, sizeof(entry), "#/components/schemas/%s", name);
    validate_at(json, entry, name);
}

/* The headers the contract declares for response `resp` (at `rptr`): each one
 * marked required is present, and every one present has a value its schema
 * accepts (a number for integer and number schemas, as the simple style reads). */
static void check_headers(const struct resp *r, const cJSON *root, const cJSON *resp,
                          const char *rptr, const char *what)
{
    const cJSON *h = NULL;
    cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(resp, "headers"))
    {
        char entry[900], value[1024];
        const cJSON *def = h;
        const cJSON *ref = cJSON_GetObjectItemCaseSensitive(h, "$ref");
        if (cJSON_IsString(ref)) {
            snprintf(entry, sizeof(entry), "%s", ref->valuestring);
            def = api_json_pointer_get(root, entry);
        } else {
            snprintf(entry, sizeof(entry), "%s/headers", rptr);
            api_json_pointer_append(entry, sizeof(entry), h->string);
        }
        if (!resp_header(r, h->string, value, sizeof(value))) {
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(def, "required")))
                fail_msg("%s: the required header %s is missing", what, h->string);
            continue;
        }
        const char *type = str_field(cJSON_GetObjectItemCaseSensitive(def, "schema"), "type");
        bool number = type != NULL && (strcmp(type, "integer") == 0 || strcmp(type, "number") == 0);
        cJSON *v = number ? cJSON_CreateNumber(strtod(value, NULL)) : cJSON_CreateString(value);
        char hwhat[2048];
        snprintf(hwhat, sizeof(hwhat), "%s: header %s: %s", what, h->string, value);
        strncat(entry, "/schema", sizeof(entry) - strlen(entry) - 1);
        validate_at(v, entry, hwhat);
        cJSON_Delete(v);
    }
}

void check_contract(const struct resp *r, const char *method, const char *path_template)
{
    char ptr[512] = "#/paths", lower[16], what[600], ctype[256], media[256];
    snprintf(what, sizeof(what), "%s %s -> %ld", method, path_template, r->status);
    schema_at("#/components/schemas/Problem"); /* loads the contract */
    const cJSON *root = api_contract_root(contract);
    size_t i = 0;
    for (; method[i] != '\0' && i + 1 < sizeof(lower); i++)
        lower[i] = (char)(method[i] >= 'A' && method[i] <= 'Z' ? method[i] + 32 : method[i]);
    lower[i] = '\0';
    api_json_pointer_append(ptr, sizeof(ptr), path_template);
    api_json_pointer_append(ptr, sizeof(ptr), lower);
    if (!resp_header(r, "Content-Type", ctype, sizeof(ctype)))
        ctype[0] = '\0';
    snprintf(media, sizeof(media), "%s", ctype);
    char *semi = strchr(media, ';');
    if (semi != NULL)
        *semi = '\0';
    const cJSON *op = api_json_pointer_get(root, ptr);
    if (op == NULL) {
        /* No such operation: the body must be a Problem. */
        if (strcmp(media, "application/problem+json") != 0)
            fail_msg("%s: expected application/problem+json, got \"%s\"", what, ctype);
        cJSON *j = resp_json(r);
        if (j == NULL)
            fail_msg("%s: body is not JSON", what);
        validate_at(j, "#/components/schemas/Problem", what);
        cJSON_Delete(j);
        return;
    }
    char code[16], rptr[600];
    snprintf(code, sizeof(code), "%ld", r->status);
    snprintf(rptr, sizeof(rptr), "%s/responses", ptr);
    const cJSON *responses = api_json_pointer_get(root, rptr);
    const cJSON *resp = cJSON_GetObjectItemCaseSensitive(responses, code);
    if (resp == NULL) {
        resp = cJSON_GetObjectItemCaseSensitive(responses, "default");
        snprintf(code, sizeof(code), "default");
    }
    if (resp == NULL)
        fail_msg("%s: the contract declares no response %ld (and no default)", what, r->status);
    api_json_pointer_append(rptr, sizeof(rptr), code);
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(resp, "$ref");
    if (cJSON_IsString(ref)) {
        snprintf(rptr, sizeof(rptr), "%s", ref->valuestring);
        resp = api_json_pointer_get(root, rptr);
    }
    check_headers(r, root, resp, rptr, what);
    if (r->status == 204 || r->status == 304 || strcmp(method, "HEAD") == 0)
        return; /* no body */
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(resp, "content");
    if (cJSON_GetObjectItemCaseSensitive(content, media) == NULL)
        fail_msg("%s: media type \"%s\" is not declared for this response", what, media);
    char entry[900];
    snprintf(entry, sizeof(entry), "%s/content", rptr);
    api_json_pointer_append(entry, sizeof(entry), media);
    strncat(entry, "/schema", sizeof(entry) - strlen(entry) - 1);
    cJSON *j = NULL;
    if (strstr(media, "json") != NULL) {
        j = resp_json(r);
        if (j == NULL)
            fail_msg("%s: body is not JSON", what);
    } else {
        j = cJSON_CreateString(r->body);
    }
    validate_at(j, entry, what);
    cJSON_Delete(j);
}

/* ---- raw sockets ------------------------------------------------------------------ */

int raw_connect(struct server *s)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)s->port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int raw_send(int fd, const char *data, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t n = send(fd, data + off, len - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        off += (size_t)n;
    }
    return 0;
}

static const char *find_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p != '\0'; p++) {
        if (strncasecmp(p, needle, n) == 0)
            return p;
    }
    return NULL;
}

char *raw_read_response(int fd, int timeout_ms)
{
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    long end = h_now_ms() + timeout_ms;
    while (buf != NULL) {
        buf[len] = '\0';
        const char *hend = strstr(buf, "\r\n\r\n");
        if (hend != NULL) {
            const char *cl = find_ci(buf, "\r\nContent-Length:");
            size_t want = cl != NULL && cl < hend ? (size_t)atol(cl + 17) : 0;
            if (len >= (size_t)(hend + 4 - buf) + want)
                break;
        }
        long left = end - h_now_ms();
        if (left <= 0)
            break;
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, (int)left) <= 0)
            break;
        if (len + 4096 + 1 > cap) {
            cap *= 2;
            char *p = realloc(buf, cap);
            if (p == NULL) {
                free(buf);
                return NULL;
            }
            buf = p;
        }
        ssize_t n = recv(fd, buf + len, cap - len - 1, 0);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    if (buf != NULL)
        buf[len] = '\0';
    return buf;
}

void check_promtool(const struct resp *r)
{
    char path[] = "/tmp/aa-metrics-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        fail_msg("mkstemp: %s", strerror(errno));
    if (write(fd, r->body, r->len) != (ssize_t)r->len) {
        close(fd);
        unlink(path);
        fail_msg("cannot write %s", path);
    }
    close(fd);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "promtool check metrics < %s", path);
    int rc = system(cmd);
    unlink(path);
    if (rc != 0) {
        fprintf(stderr, "%s\n", r->body);
        fail_msg("promtool check metrics failed (%d)", rc);
    }
}

const char *str_field(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

void expect_problem(const struct resp *r, long status, const char *type, const char *method,
                    const char *path)
{
    char ct[128];
    if (r->status != status)
        fprintf(stderr, "got %ld: %s\n", r->status, r->body);
    assert_int_equal(r->status, status);
    assert_true(resp_header(r, "Content-Type", ct, sizeof(ct)));
    assert_string_equal(ct, "application/problem+json");
    cJSON *j = resp_json(r);
    assert_non_null(j);
    assert_string_equal(str_field(j, "type"), type);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(j, "status")->valueint, status);
    char id[128];
    assert_true(resp_header(r, "X-Request-Id", id, sizeof(id)));
    assert_string_equal(str_field(j, "request_id"), id);
    cJSON_Delete(j);
    check_contract(r, method, path);
}
