/* bench/soak/soak_kinds.c -- the soak's request kinds (bench/soak/soak.h): how
 * each kind of request is built from its index, valid and hostile alike, and what
 * a success must carry beyond its status. The driver (soak.c) draws a kind by its
 * weight, sends it and checks the status and problem type the table gives. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soak.h"

uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A valid workload, fully determined by v. */
static void workload(struct rh_buf *b, uint64_t v, const char *name)
{
    static const char *const tasks[] = {"training", "fine-tuning", "inference"};
    static const char *const fws[] = {"pytorch",     "jax",  "tensorflow",
                                      "pytorch-xla", "onnx", "other"};
    static const char *const stages[] = {"prototype", "development", "production"};
    static const char *const precs[] = {"bf16", "fp16", "fp8",  "fp32",
                                        "int8", "fp4",  "int4", "fp64"};
    static const char *const archs[] = {"transformer", "cnn",       "rnn", "mlp",  "recommender",
                                        "gnn",         "diffusion", "moe", "other"};
    static const char *const params[] = {"1e8",  "7e8",  "1.3e9", "7e9",
                                         "13e9", "70e9", "175e9", "405e9"};
    static const char *const objs[] = {"cost", "time", "balanced"};
    static const char *const provs[] = {"[]", "[\"aws\"]", "[\"gcp\"]", "[\"aws\",\"gcp\"]",
                                        "[\"azure\",\"oci\"]"};
    static const char *const exp[] = {"none", "some", "expert"};
    const char *task = tasks[v % 3];
    /* int4 is a format for served weights: a training workload in it is a 400. */
    const char *prec = precs[(v / 11) % 8];
    if (v % 3 != 2 && strcmp(prec, "int4") == 0)
        prec = "bf16";
    rh_buf_str(b, "{");
    if (name != NULL)
        rh_buf_printf(b, "\"name\":\"%s\",", name);
    rh_buf_printf(b,
                  "\"task\":\"%s\",\"framework\":\"%s\",\"stage\":\"%s\","
                  "\"model\":{\"architecture\":\"%s\",\"parameters\":%s%s},"
                  "\"precision\":\"%s\",\"objective\":\"%s\"",
                  task, fws[(v / 3) % 6], stages[(v / 18) % 3], archs[(v / 7) % 9],
                  params[(v / 54) % 8], (v / 5) % 4 == 0 ? ",\"custom_ops\":true" : "", prec,
                  objs[(v / 13) % 3]);
    if (v % 3 == 2)
        rh_buf_printf(b, ",\"inference\":{\"requests_per_second\":%u,\"context_tokens\":%u}",
                      (unsigned)(1 + (v / 17) % 200), 512u << ((v / 19) % 6));
    else if ((v / 23) % 2 == 0)
        rh_buf_printf(b, ",\"training\":{\"global_batch_size\":%u,\"deadline_hours\":%u}",
                      64u << ((v / 29) % 5), (unsigned)(24 + (v / 31) % 500));
    rh_buf_printf(b, ",\"constraints\":{\"deployment\":\"cloud\",\"providers\":%s}",
                  provs[(v / 37) % 5]);
    if ((v / 41) % 2 == 0)
        rh_buf_printf(b, ",\"team\":{\"cuda_experience\":\"%s\",\"xla_experience\":\"%s\"}",
                      exp[(v / 43) % 3], exp[(v / 47) % 3]);
    rh_buf_str(b, "}");
}

static void post(struct worker *w, const char *path, const char *ctype, const char *extra)
{
    rh_buf_request(&w->req, "POST", path, ctype, extra, w->body.p != NULL ? w->body.p : "",
                   w->body.len);
}

static void post_json(struct worker *w, const char *path)
{
    post(w, path, "application/json", NULL);
}

static void get(struct worker *w, const char *method, const char *path)
{
    rh_buf_request(&w->req, method, path, NULL, NULL, NULL, 0);
}

static void b_rec_repeat(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    workload(&w->body, v % 256, NULL);
    post_json(w, "/v1/recommendations");
}

static void b_rec_unique(struct worker *w, uint64_t i, uint64_t v)
{
    char name[48];
    snprintf(name, sizeof(name), "soak-%" PRIu64, i);
    workload(&w->body, v, name);
    post_json(w, "/v1/recommendations");
}

static void b_batch(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    int n = 2 + (int)(v % 4);
    rh_buf_str(&w->body, "{\"workloads\":[");
    for (int k = 0; k < n; k++) {
        if (k > 0)
            rh_buf_str(&w->body, ",");
        workload(&w->body, mix(v + (uint64_t)k) % 4096, NULL);
    }
    rh_buf_str(&w->body, "]}");
    w->batch_ok = n;
    post_json(w, "/v1/recommendations:batch");
}

static void b_batch_mixed(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const char *const bad[] = {
        "{\"task\":\"training\",\"model\":{\"parameters\":-1}}",
        "{\"task\":\"inference\",\"model\":{\"parameters\":1},\"colour\":1}",
        "5",
        "{\"task\":\"sleeping\",\"model\":{\"parameters\":1e9}}",
        "{\"model\":{\"parameters\":1e9}}",
    };
    rh_buf_str(&w->body, "{\"workloads\":[");
    workload(&w->body, v % 512, NULL);
    rh_buf_printf(&w->body, ",%s,", bad[v % 5]);
    workload(&w->body, (v / 5) % 512, NULL);
    rh_buf_printf(&w->body, ",%s]}", bad[(v / 7) % 5]);
    w->batch_ok = 2;
    w->batch_bad = 2;
    post_json(w, "/v1/recommendations:batch");
}

static void b_batch_over(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    int n = 101 + (int)(v % 50); /* the default limit is 100 */
    rh_buf_str(&w->body, "{\"workloads\":[");
    for (int k = 0; k < n; k++)
        rh_buf_printf(&w->body, "%s{\"task\":\"inference\",\"model\":{\"parameters\":%d}}",
                      k > 0 ? "," : "", k + 1);
    rh_buf_str(&w->body, "]}");
    post_json(w, "/v1/recommendations:batch");
}

static void b_batch_envelope(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const char *const bodies[] = {"{\"workloads\":[]}", "{\"workloads\":5}", "[1]",
                                         "{\"jobs\":[]}", "{}"};
    rh_buf_str(&w->body, bodies[v % 5]);
    post_json(w, "/v1/recommendations:batch");
}

static void b_healthz(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    (void)v;
    get(w, "GET", "/healthz");
}

static void b_readyz(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    (void)v;
    get(w, "GET", "/readyz");
}

static void b_metrics(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    (void)v;
    get(w, "GET", "/metrics");
}

static void b_rules(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    (void)v;
    get(w, "GET", "/v1/rules");
}

static void b_accel(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const char *const q[] = {"/v1/accelerators", "/v1/accelerators?family=tpu",
                                    "/v1/accelerators?family=gpu&vendor=nvidia",
                                    "/v1/accelerators?provider=gcp", "/v1/accelerators?family=cpu"};
    get(w, "GET", q[v % 5]);
}

static void b_accel_badq(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const char *const q[] = {"/v1/accelerators?family=fpga", "/v1/accelerators?colour=red",
                                    "/v1/accelerators?family=gpu&family=tpu",
                                    "/v1/accelerators?vendor=acme%20labs"};
    get(w, "GET", q[v % 4]);
}

static void b_inventory(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    (void)v;
    get(w, "GET", "/v1/inventory");
}

static void b_openapi(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    get(w, "GET", v % 2 == 0 ? "/openapi.yaml" : "/openapi.json");
}

static void b_page(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const char *const p[] = {"/", "/ui/playground.js", "/ui/playground.css",
                                    "/ui/examples.json"};
    get(w, "GET", p[v % 4]);
}

static void b_head(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const char *const p[] = {"/healthz", "/v1/rules", "/readyz", "/v1/accelerators"};
    get(w, "HEAD", p[v % 4]);
    w->head = true;
}

static void b_options(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const char *const p[] = {"/v1/recommendations", "/v1/rules", "/healthz",
                                    "/v1/recommendations:batch"};
    get(w, "OPTIONS", p[v % 4]);
}

static void bad_body(struct worker *w, const struct rh_bytes *variants, size_t n, uint64_t v)
{
    rh_buf_add(&w->body, variants[v % n].p, variants[v % n].len);
    post_json(w, (v / n) % 4 == 3 ? "/v1/recommendations:batch" : "/v1/recommendations");
}

static void b_malformed(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const struct rh_bytes b[] = {
        RH_BYTES("{\"task\":\"inference\",}"),
        RH_BYTES("{\"task\":\"inference\",\"model\":{\"parameters\":1}} x"),
        RH_BYTES(""),
        RH_BYTES("{'task':1}"),
        RH_BYTES("{\"task\":\"inference\""),
        RH_BYTES("[1,2,]"),
        RH_BYTES("tru"),
        RH_BYTES("{\"a\":01}"),
        RH_BYTES("{\"a\":1.}"),
        RH_BYTES("{\"a\":.5}"),
        RH_BYTES("{\"a\":+1}"),
        RH_BYTES("{\"a\":\"x\ty\"}"),
        RH_BYTES("{\"a\":\"\\x\"}"),
        RH_BYTES("{]"),
        RH_BYTES("{\"a\"}"),
    };
    bad_body(w, b, sizeof(b) / sizeof(b[0]), v);
}

static void b_bad_utf8(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const struct rh_bytes b[] = {
        RH_BYTES("{\"task\":\"inference\",\"name\":\"\xc3\x28\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"task\":\"inference\",\"name\":\"\xff\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"task\":\"inference\",\"name\":\"\xc0\xaf\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"task\":\"inference\",\"name\":\"\xed\xa0\x80\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"task\":\"inference\",\"name\":\"\xe2\x82\",\"model\":{\"parameters\":1}}"),
        RH_BYTES(
            "{\"task\":\"inference\",\"name\":\"\xf4\x90\x80\x80\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"task\":\"inference\",\"name\":\"\\ud800\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"\x80\":1}"),
    };
    bad_body(w, b, sizeof(b) / sizeof(b[0]), v);
}

static void b_nul(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const struct rh_bytes b[] = {
        RH_BYTES("{\"task\":\0\"inference\"}"),
        RH_BYTES("{\"task\":\"infe\0rence\"}"),
        RH_BYTES("{\"task\":\"inference\",\"model\":{\"parameters\":1}}\0"),
        RH_BYTES("\0"),
        RH_BYTES("{\"task\":\"inference\",\"model\":{\"parameters\":1\0}}"),
    };
    bad_body(w, b, sizeof(b) / sizeof(b[0]), v);
}

static void b_nul_escape(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const struct rh_bytes b[] = {
        RH_BYTES("{\"task\":\"inference\",\"name\":\"a\\u0000b\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"task\\u0000\":\"inference\",\"model\":{\"parameters\":1}}"),
    };
    bad_body(w, b, sizeof(b) / sizeof(b[0]), v);
}

static void b_dup(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const struct rh_bytes b[] = {
        RH_BYTES("{\"task\":\"inference\",\"task\":\"training\",\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"task\":\"inference\",\"model\":{\"parameters\":1,\"parameters\":2}}"),
        RH_BYTES(
            "{\"task\":\"inference\",\"model\":{\"parameters\":1},\"model\":{\"parameters\":1}}"),
        RH_BYTES("{\"workloads\":[{\"a\":1,\"b\":2,\"a\":3}],\"x\":1}"),
    };
    bad_body(w, b, sizeof(b) / sizeof(b[0]), v);
}

static void b_deep(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const unsigned depths[] = {33, 40, 64, 100, 1000, 5000};
    unsigned d = (v % 64) == 0 ? 100000 : depths[v % 6];
    bool obj = (v / 6) % 2 == 0;
    rh_buf_str(&w->body, "{\"task\":");
    for (unsigned k = 0; k < d; k++)
        rh_buf_str(&w->body, obj ? "{\"a\":" : "[");
    rh_buf_str(&w->body, "1");
    for (unsigned k = 0; k < d; k++)
        rh_buf_str(&w->body, obj ? "}" : "]");
    rh_buf_str(&w->body, "}");
    post_json(w, (v / 12) % 4 == 3 ? "/v1/recommendations:batch" : "/v1/recommendations");
}

static void b_huge_num(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const char *const n[] = {"1e999",         "-1e400", "1e309",
                                    "123456789e400", "1E+999", "2.5e99999"};
    rh_buf_printf(&w->body, "{\"task\":\"inference\",\"model\":{\"parameters\":%s}}", n[v % 6]);
    post_json(w, "/v1/recommendations");
}

static void b_nonfinite(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const char *const n[] = {"NaN", "Infinity", "-Infinity", "nan", "inf", "-0x1p3"};
    rh_buf_printf(&w->body, "{\"task\":\"inference\",\"model\":{\"parameters\":%s}}", n[v % 6]);
    post_json(w, "/v1/recommendations");
}

static void b_long_num(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    rh_buf_str(&w->body, "{\"task\":\"inference\",\"model\":{\"parameters\":1");
    for (uint64_t k = 0; k < 64 + v % 200; k++)
        rh_buf_str(&w->body, "0");
    rh_buf_str(&w->body, "}}");
    post_json(w, "/v1/recommendations");
}

static void b_unknown_field(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const char *const b[] = {
        "{\"task\":\"inference\",\"model\":{\"parameters\":1},\"colour\":\"red\"}",
        "{\"task\":\"inference\",\"model\":{\"parameters\":1,\"foo\":1}}",
        "{\"task\":\"training\",\"model\":{\"parameters\":1},\"training\":{\"epochs\":3}}",
        "{\"task\":\"inference\",\"model\":{\"parameters\":1},\"team\":{\"rust\":\"some\"}}",
    };
    rh_buf_str(&w->body, b[v % 4]);
    post_json(w, "/v1/recommendations");
}

static void b_bad_values(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const char *const b[] = {
        "{\"task\":\"sleeping\",\"model\":{\"parameters\":1}}",
        "{\"task\":\"inference\",\"model\":{\"parameters\":-5}}",
        "{\"task\":\"inference\",\"model\":{\"parameters\":1e308}}",
        "{\"task\":\"inference\",\"model\":{\"parameters\":0}}",
        ("{\"task\":\"inference\",\"model\":{\"parameters\":1},"
         "\"constraints\":{\"providers\":[\"aws\",\"aws\"]}}"),
        "{\"task\":\"inference\",\"model\":{\"parameters\":1},\"precision\":\"fp7\"}",
        "{\"task\":\"training\"}",
        "[]",
        "\"workload\"",
        "{\"task\":\"inference\",\"model\":{\"parameters\":\"7e9\"}}",
        "{\"task\":\"inference\",\"model\":{\"parameters\":1},\"name\":\"\"}",
    };
    rh_buf_str(&w->body, b[v % 11]);
    post_json(w, "/v1/recommendations");
}

static void b_wrong_ctype(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const char *const t[] = {
        "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1",
        NULL,         "multipart/form-data; boundary=x",   "application/jsonx"};
    workload(&w->body, v % 256, NULL);
    post(w, (v / 6) % 2 == 0 ? "/v1/recommendations" : "/v1/recommendations:batch", t[v % 6], NULL);
}

static void b_oversize_cl(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    /* Announced and refused before a byte of the body is sent. */
    rh_buf_printf(&w->req,
                  "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  "Content-Length: %u\r\n\r\n",
                  v % 2 == 0 ? "/v1/recommendations" : "/v1/recommendations:batch",
                  (1u << 20) + 1u + (unsigned)(v % 1000000));
}

static void b_oversize_chunked(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    (void)v;
    /* 1 MiB + 64 KiB in 64 KiB chunks: no Content-Length, read and refused. */
    static char chunk[65536];
    if (chunk[0] != ' ')
        memset(chunk, ' ', sizeof(chunk));
    rh_buf_str(&w->req, "POST /v1/recommendations HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (int k = 0; k < 17; k++) {
        rh_buf_printf(&w->req, "%zx\r\n", sizeof(chunk));
        rh_buf_add(&w->req, chunk, sizeof(chunk));
        rh_buf_str(&w->req, "\r\n");
    }
    rh_buf_str(&w->req, "0\r\n\r\n");
}

static void b_unknown_path(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const char *const p[] = {
        "/v2/recommendations", "/index.html",  "/v1/rules/extra", "/v1/recommendations/",
        "/healthz/..",         "/metrics.txt", "/v1/Rules",       "/v1/accelerators/h100"};
    if ((v / 8) % 3 == 0) {
        rh_buf_str(&w->body, "{}");
        post_json(w, p[v % 8]);
    } else {
        get(w, "GET", p[v % 8]);
    }
}

/* A control character in the request target, percent-encoded or raw: refused
 * before routing (the decoded "/v1/rules%00" would be "/v1/rules"). */
static void b_target_control(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    static const char *const p[] = {"/v1/rules%00",
                                    "/%00",
                                    "/v1/accelerators?vendor=%00",
                                    "/healthz%0d%0aX-Injected:%201",
                                    "/v1/rules%7F",
                                    "/v1/rules\x01"};
    get(w, "GET", p[v % 6]);
}

static void b_wrong_method(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    switch (v % 6) {
    case 0:
        get(w, "DELETE", "/v1/rules");
        break;
    case 1:
        get(w, "GET", "/v1/recommendations");
        break;
    case 2:
        get(w, "PUT", "/healthz");
        break;
    case 3:
        rh_buf_str(&w->body, "{}");
        post_json(w, "/metrics");
        break;
    case 4:
        get(w, "PATCH", "/v1/accelerators");
        break;
    default:
        get(w, "GET", "/v1/recommendations:batch");
        break;
    }
}

static void b_long_header(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    rh_buf_str(&w->req, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ");
    for (uint64_t k = 0; k < 40000 + v % 20000; k++)
        rh_buf_str(&w->req, "a");
    rh_buf_str(&w->req, "\r\n\r\n");
}

static void b_many_headers(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    rh_buf_str(&w->req, "GET /v1/rules HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (uint64_t k = 0; k < 4000 + v % 1000; k++)
        rh_buf_printf(&w->req, "X-H%" PRIu64 ": v\r\n", k);
    rh_buf_str(&w->req, "\r\n");
}

static void b_long_uri(struct worker *w, uint64_t i, uint64_t v)
{
    (void)i;
    rh_buf_str(&w->req, "GET /v1/accelerators?family=");
    for (uint64_t k = 0; k < 40000 + v % 20000; k++)
        rh_buf_str(&w->req, "x");
    rh_buf_str(&w->req, " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
}

/* ---- checks of successes ----------------------------------------------------------- */

/* memmem, which C11 and POSIX lack. */
static const char *find(const char *hay, size_t len, const char *needle, size_t nl)
{
    for (size_t i = 0; nl > 0 && i + nl <= len; i++) {
        if (hay[i] == needle[0] && memcmp(hay + i, needle, nl) == 0)
            return hay + i;
    }
    return NULL;
}

static size_t count(const char *hay, size_t len, const char *needle)
{
    size_t n = 0, nl = strlen(needle);
    for (const char *p = hay; p != NULL && (size_t)(p - hay) + nl <= len;) {
        p = find(p, len - (size_t)(p - hay), needle, nl);
        if (p != NULL) {
            n++;
            p += nl;
        }
    }
    return n;
}

bool has(const struct rh_resp *r, const char *needle)
{
    return r->body != NULL && find(r->body, r->body_len, needle, strlen(needle)) != NULL;
}

static bool ctype_is(const struct rh_resp *r, const char *want, char *why, size_t len)
{
    if (strncmp(r->ctype, want, strlen(want)) == 0)
        return true;
    snprintf(why, len, "Content-Type \"%s\", want %s", r->ctype, want);
    return false;
}

static bool c_recommendation(struct worker *w, const struct rh_resp *r, char *why, size_t len)
{
    (void)w;
    if (!ctype_is(r, "application/json", why, len))
        return false;
    char lead[128];
    snprintf(lead, sizeof(lead), "{\"request_id\":\"%s\",\"rules_version\":\"", r->request_id);
    if (r->body_len < strlen(lead) || memcmp(r->body, lead, strlen(lead)) != 0 ||
        !has(r, "\"recommendations\":[") || r->body[r->body_len - 1] != '}') {
        snprintf(why, len, "not a Recommendation: %.200s", r->body);
        return false;
    }
    return true;
}

static bool c_batch(struct worker *w, const struct rh_resp *r, char *why, size_t len)
{
    if (!ctype_is(r, "application/json", why, len))
        return false;
    /* Each bad workload has "status":400 twice (the item and its problem). */
    size_t ok = count(r->body, r->body_len, "{\"status\":200,\"result\":{");
    size_t bad = count(r->body, r->body_len, "{\"status\":400,\"problem\":{");
    if (ok != (size_t)w->batch_ok || bad != (size_t)w->batch_bad) {
        snprintf(why, len, "batch: %zu ok and %zu bad results, want %d and %d", ok, bad,
                 w->batch_ok, w->batch_bad);
        return false;
    }
    return true;
}

static bool c_json_with(const struct rh_resp *r, const char *needle, char *why, size_t len)
{
    if (!ctype_is(r, "application/json", why, len))
        return false;
    if (!has(r, needle)) {
        snprintf(why, len, "body lacks %s: %.200s", needle, r->body);
        return false;
    }
    return true;
}

static bool c_healthz(struct worker *w, const struct rh_resp *r, char *why, size_t len)
{
    (void)w;
    return c_json_with(r, "{\"status\":\"ok\"", why, len);
}

static bool c_readyz(struct worker *w, const struct rh_resp *r, char *why, size_t len)
{
    (void)w;
    return c_json_with(r, "\"status\":\"ready\",\"rules_version\":\"", why, len);
}

static bool c_metrics(struct worker *w, const struct rh_resp *r, char *why, size_t len)
{
    (void)w;
    if (!ctype_is(r, "text/plain; version=0.0.4", why, len))
        return false;
    if (!has(r, "\naccel_advisor_http_requests_total{") ||
        !has(r, "\nprocess_resident_memory_bytes ")) {
        snprintf(why, len, "metrics incomplete");
        return false;
    }
    return true;
}

static bool c_rules(struct worker *w, const struct rh_resp *r, char *why, size_t len)
{
    (void)w;
    return c_json_with(r, "\"rules\":[", why, len);
}

static bool c_accel(struct worker *w, const struct rh_resp *r, char *why, size_t len)
{
    (void)w;
    return c_json_with(r, "\"accelerators\":[", why, len);
}

static bool c_openapi(struct worker *w, const struct rh_resp *r, char *why, size_t len)
{
    (void)w;
    if (strncmp(r->ctype, "application/yaml", 16) == 0)
        return r->body_len > 10000 && has(r, "openapi: 3.1");
    return c_json_with(r, "\"openapi\":\"3.1.0\"", why, len);
}

static bool c_page(struct worker *w, const struct rh_resp *r, char *why, size_t len)
{
    (void)w;
    if (strncmp(r->ctype, "text/html", 9) == 0 && has(r, "<script src=\"ui/playground.js\""))
        return true;
    if (strncmp(r->ctype, "application/json", 16) == 0)
        return c_json_with(r, "{\"examples\":[", why, len);
    if ((strncmp(r->ctype, "text/javascript", 15) == 0 || strncmp(r->ctype, "text/css", 8) == 0) &&
        r->body_len > 1000)
        return true;
    snprintf(why, len, "Content-Type \"%s\", %zu bytes", r->ctype, r->body_len);
    return false;
}

static bool c_head(struct worker *w, const struct rh_resp *r, char *why, size_t len)
{
    (void)w;
    (void)why;
    (void)len;
    return r->body_len == 0 && r->ctype[0] != '\0';
}

static bool c_options(struct worker *w, const struct rh_resp *r, char *why, size_t len)
{
    (void)w;
    if (r->allow[0] == '\0' || strstr(r->allow, "OPTIONS") == NULL) {
        snprintf(why, len, "Allow \"%s\"", r->allow);
        return false;
    }
    return true;
}

static bool c_allow(struct worker *w, const struct rh_resp *r, char *why, size_t len)
{
    (void)w;
    if (r->allow[0] == '\0') {
        snprintf(why, len, "405 without Allow");
        return false;
    }
    return true;
}

/* The table. Weights add up to 10,000. */
const struct kind kinds[N_KINDS] = {
    {"recommend (cached pool)", 2400, 200, NULL, true, b_rec_repeat, c_recommendation},
    {"recommend (unique)", 1800, 200, NULL, true, b_rec_unique, c_recommendation},
    {"batch", 400, 200, NULL, true, b_batch, c_batch},
    {"batch with bad items", 200, 200, NULL, true, b_batch_mixed, c_batch},
    {"batch over the limit", 50, 413, "batch-too-large", true, b_batch_over, NULL},
    {"batch envelope invalid", 50, 400, "validation", true, b_batch_envelope, NULL},
    {"GET /healthz", 430, 200, NULL, true, b_healthz, c_healthz},
    {"GET /readyz", 300, 200, NULL, true, b_readyz, c_readyz},
    {"GET /metrics", 100, 200, NULL, true, b_metrics, c_metrics},
    {"GET /v1/rules", 150, 200, NULL, true, b_rules, c_rules},
    {"GET /v1/accelerators", 300, 200, NULL, true, b_accel, c_accel},
    {"GET /v1/accelerators bad query", 100, 400, "validation", true, b_accel_badq, NULL},
    {"GET /v1/inventory (no probe)", 100, 404, "probe-disabled", true, b_inventory, NULL},
    {"GET /openapi.{yaml,json}", 30, 200, NULL, true, b_openapi, c_openapi},
    {"GET / and the page's files", 30, 200, NULL, true, b_page, c_page},
    {"HEAD", 100, 200, NULL, true, b_head, c_head},
    {"OPTIONS", 100, 204, NULL, true, b_options, c_options},
    {"malformed JSON", 400, 400, "malformed-json", true, b_malformed, NULL},
    {"invalid UTF-8", 350, 400, "invalid-utf8", true, b_bad_utf8, NULL},
    {"NUL bytes", 200, 400, "malformed-json", true, b_nul, NULL},
    {"escaped NUL (\\u0000)", 50, 400, "nul-in-string", true, b_nul_escape, NULL},
    {"duplicate keys", 300, 400, "duplicate-key", true, b_dup, NULL},
    {"deep nesting", 200, 400, "too-deep", true, b_deep, NULL},
    {"huge numbers (1e999)", 200, 400, "malformed-json", true, b_huge_num, NULL},
    {"non-finite numbers", 200, 400, "malformed-json", true, b_nonfinite, NULL},
    {"number over 63 characters", 50, 400, "malformed-json", true, b_long_num, NULL},
    {"unknown fields", 300, 400, "validation", true, b_unknown_field, NULL},
    {"wrong values", 300, 400, "validation", true, b_bad_values, NULL},
    {"wrong content type", 300, 415, "unsupported-media-type", true, b_wrong_ctype, NULL},
    {"oversized body (announced)", 100, 413, "body-too-large", true, b_oversize_cl, NULL},
    {"oversized body (chunked, 1.06 MiB)", 3, 413, "body-too-large", true, b_oversize_chunked,
     NULL},
    {"unknown path", 180, 404, "about:blank", true, b_unknown_path, NULL},
    {"control character in the target", 20, 400, "about:blank", true, b_target_control, NULL},
    {"wrong method", 200, 405, "about:blank", true, b_wrong_method, c_allow},
    {"header line of 40-60 KB", 3, 431, NULL, false, b_long_header, NULL},
    {"4000-5000 headers", 2, 431, NULL, false, b_many_headers, NULL},
    {"URI of 40-60 KB", 2, 414, NULL, false, b_long_uri, NULL},
};
_Static_assert(sizeof(kinds) / sizeof(kinds[0]) == N_KINDS, "N_KINDS counts the table");
